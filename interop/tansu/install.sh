#!/usr/bin/env bash
# Installs Tansu, a Kafka-compatible broker written in Rust (the crates.io
# crate `tansu`), for kwire conform's live test against it
# (conform/tansu_test.go, skipped when Tansu is not installed). It builds
# from source with cargo: about 15-20 minutes on 2 cores, no system
# libraries needed. The build is kept in a cache outside the clone
# ($XDG_CACHE_HOME/kwire/tansu-VERSION, else ~/.cache/kwire/tansu-VERSION)
# and reused when it is there, so that a fresh clone (CI) does not build it
# again; interop/tansu/target/bin/tansu links to it, where the test finds it
# (or set KWIRE_TANSU to another tansu binary).
#
#   interop/tansu/install.sh                  # Tansu 0.6.0
#   KWIRE_TANSU_VERSION=0.6.1 interop/tansu/install.sh
#
# Environment: KWIRE_TANSU_VERSION (default 0.6.0), KWIRE_TANSU_CACHE (the
# cache directory), CARGO_HOME (cargo's registry cache). Needs cargo.
set -euo pipefail
cd "$(dirname "$0")"
version="${KWIRE_TANSU_VERSION:-0.6.0}"
root="${KWIRE_TANSU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kwire}/tansu-$version"
if [ ! -x "$root/bin/tansu" ]; then
  command -v cargo >/dev/null || { echo "install.sh: cargo (rustup.rs) is required" >&2; exit 2; }
  echo "building Tansu $version into $root (15-20 minutes on 2 cores)"
  cargo install tansu --locked --features dynostore --version "$version" --root "$root"
fi
mkdir -p target/bin
ln -sfn "$root/bin/tansu" target/bin/tansu
echo "Tansu $version: $(pwd)/target/bin/tansu -> $root/bin/tansu"
