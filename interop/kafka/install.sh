#!/usr/bin/env bash
# Installs the real Apache Kafka broker kwire's live tests run against:
# org.apache.kafka:kafka_2.13 and kafka-tools at one release, with their
# runtime dependencies, from Maven Central (pom.xml beside this script), and
# writes their class path to interop/kafka/target/classpath.txt, which the
# Go harness (internal/kafkatest) finds by itself.
#
#   interop/kafka/install.sh                  # Kafka 4.4.0
#   KWIRE_KAFKA_VERSION=4.3.1 interop/kafka/install.sh
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
args=(-q -B -Dstyle.color=never "-Dkafka.version=${KWIRE_KAFKA_VERSION:-4.4.0}")
if [ -n "${MAVEN_REPO_LOCAL:-}" ]; then
  mkdir -p "$MAVEN_REPO_LOCAL"
  args+=("-Dmaven.repo.local=$(cd "$MAVEN_REPO_LOCAL" && pwd)")
fi
mvn "${args[@]}" package
echo "Kafka ${KWIRE_KAFKA_VERSION:-4.4.0}: $(tr ':' '\n' < target/classpath.txt | wc -l) jars, class path in $(pwd)/target/classpath.txt"
