#!/usr/bin/env bash
# Installs the real Apache Kafka broker kwire's live tests run against:
# org.apache.kafka:kafka_2.13 and kafka-tools at one release, with their
# runtime dependencies, from Maven Central (pom.xml beside this script), and
# writes their class path to interop/kafka/target/classpath.txt, which the
# Go harness (internal/kafkatest) finds by itself.
#
#   interop/kafka/install.sh                  # Kafka 4.4.0: the live tests' broker
#   KWIRE_KAFKA_VERSION=4.3.1 interop/kafka/install.sh   # the live tests' broker at 4.3.1
#   interop/kafka/install.sh 3.9.1            # a second release beside it, in
#                                             # target/classpath-3.9.1.txt (conform's
#                                             # differential test uses 3.9.1)
#
# Then `go test ./...` runs the live tests too; with KWIRE_KAFKA_REQUIRED=1
# a missing Kafka fails them instead of skipping them (CI sets it).
#
# Environment: MAVEN_REPO_LOCAL (Maven local repository; default ~/.m2),
# KWIRE_KAFKA_VERSION (default 4.4.0). Needs java (17+) and mvn.
set -euo pipefail
cd "$(dirname "$0")"
command -v java >/dev/null || { echo "install.sh: java (17+) is required" >&2; exit 2; }
command -v mvn >/dev/null || { echo "install.sh: mvn (Maven 3.8+) is required" >&2; exit 2; }
version="${KWIRE_KAFKA_VERSION:-4.4.0}"
out="target/classpath.txt"
if [ $# -gt 0 ]; then
  case "$1" in
    [0-9]*.[0-9]*.[0-9]*) version="$1"; out="target/classpath-$1.txt" ;;
    *) echo "install.sh: want a release such as 3.9.1, not $1" >&2; exit 2 ;;
  esac
fi
args=(-q -B -Dstyle.color=never "-Dkafka.version=$version" "-Dkafka.classpath=$(pwd)/$out")
if [ -n "${MAVEN_REPO_LOCAL:-}" ]; then
  mkdir -p "$MAVEN_REPO_LOCAL"
  args+=("-Dmaven.repo.local=$(cd "$MAVEN_REPO_LOCAL" && pwd)")
fi
mvn "${args[@]}" package
echo "Kafka $version: $(tr ':' '\n' < "$out" | wc -l) jars, class path in $(pwd)/$out"
