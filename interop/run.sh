#!/usr/bin/env bash
# The oracle, in one command, for developers and CI: builds the Java harness
# (interop/oracle) against each embedded Kafka release, then runs the Go
# driver, which prints a matrix per release and fails on any mismatch.
#
#   interop/run.sh                     # Kafka 4.4.0 and 3.9.1 (pins.Featured)
#   KWIRE_ORACLE_RANDOM=10 interop/run.sh -run 'Oracle$'   # extra args go to go test
#
# Environment:
#   MAVEN_REPO_LOCAL        Maven local repository (CI: .build/m2); default ~/.m2
#   KWIRE_ORACLE_RANDOM     kwire random instances per message and version (100)
#   KWIRE_ORACLE_KAFKA_RANDOM  Kafka random instances per class and version (same)
#   KWIRE_ORACLE_SEED       seed of both sides (1)
#   KWIRE_ORACLE_RELEASES   comma-separated embedded releases (default: 4.4.0,3.9.1,
#                           the featured ones of spec/bundle/pins/pins.go)
#   KWIRE_ORACLE_DIR        keep the cases/results files there (default: a temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

command -v java >/dev/null || { echo "run.sh: java (17+) is required" >&2; exit 2; }
command -v mvn >/dev/null || { echo "run.sh: mvn (Maven 3.8+) is required" >&2; exit 2; }
command -v go >/dev/null || { echo "run.sh: go is required" >&2; exit 2; }

# The releases the oracle judges by default: pins.Featured in
# spec/bundle/pins/pins.go (the other embedded releases are checked by
# kwire's own round-trip tests).
IFS=, read -r -a releases <<<"${KWIRE_ORACLE_RELEASES:-4.4.0,3.9.1}"

mvn_args=(-q -B -Dstyle.color=never -f interop/oracle/pom.xml)
if [ -n "${MAVEN_REPO_LOCAL:-}" ]; then
  mkdir -p "$MAVEN_REPO_LOCAL"
  mvn_args+=("-Dmaven.repo.local=$(cd "$MAVEN_REPO_LOCAL" && pwd)")
fi

for r in "${releases[@]}"; do
  jar=interop/oracle/target/kafka-$r/oracle.jar
  cp=interop/oracle/target/kafka-$r/classpath.txt
  # Up to date: the jar is newer than the pom and every source file, and
  # every jar on its class path is still there.
  if [ -f "$jar" ] && [ -f "$cp" ] &&
     [ -z "$(find interop/oracle/pom.xml interop/oracle/src -newer "$jar" -print -quit)" ] &&
     tr ':' '\n' <"$cp" | while read -r j; do [ -f "$j" ] || exit 1; done; then
    echo "oracle harness for Kafka $r: up to date"
    continue
  fi
  echo "oracle harness for Kafka $r: building"
  # Offline first (nothing to download once the repository is warm), then
  # online for whatever is missing.
  if ! mvn -o "${mvn_args[@]}" "-Dkafka.version=$r" package >/dev/null 2>&1; then
    # (Debian's Maven prints colour resets even in batch mode: drop them.)
    mvn "${mvn_args[@]}" "-Dkafka.version=$r" package 2>&1 | sed -e 's/\x1b\[[0-9;]*m//g'
  fi
done
built=$(date +%s)

status=0
KWIRE_ORACLE=1 KWIRE_ORACLE_RELEASES="$(IFS=,; echo "${releases[*]}")" \
  go test -count=1 -v -run Oracle ./interop/ -timeout 30m "$@" || status=$?

end=$(date +%s)
echo "oracle: harness build $((built - start))s, go test $((end - built))s, total $((end - start))s"
exit $status
