#!/usr/bin/env bash
# Installs Tansu, a Kafka-compatible broker written in Rust (the crates.io
# crate `tansu`), for kwire conform's live test against it
# (conform/tansu_test.go, skipped when Tansu is not installed). It builds
# from source with cargo: about 15-20 minutes on 2 cores, no system
# libraries needed. The binary goes to interop/tansu/target/bin/tansu,
# where the test finds it (or set KWIRE_TANSU to another tansu binary).
#
#   interop/tansu/install.sh                  # Tansu 0.6.0
#   KWIRE_TANSU_VERSION=0.6.1 interop/tansu/install.sh
#
# Environment: KWIRE_TANSU_VERSION (default 0.6.0), CARGO_HOME (cargo's
# registry cache; keep it between CI runs to build faster). Needs cargo.
set -euo pipefail
cd "$(dirname "$0")"
command -v cargo >/dev/null || { echo "install.sh: cargo (rustup.rs) is required" >&2; exit 2; }
version="${KWIRE_TANSU_VERSION:-0.6.0}"
cargo install tansu --locked --features dynostore --version "$version" --root "$(pwd)/target"
echo "Tansu $version: $(pwd)/target/bin/tansu"
