#!/usr/bin/env bash
# Browser tests of kwire's Kafka protocol atlas: builds kwire, writes the
# site of Kafka 4.4.0 with `kwire site`, serves it with `kwire serve --dir`
# on a free loopback port, and runs atlas.test.mjs in headless Chromium
# (Debian's chromium, installed when missing) through playwright-core.
# Screenshots and the measured figures go to .build/e2e-artifacts/.
# Exits non-zero when a test fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
artifacts="$root/.build/e2e-artifacts"
rm -rf "$artifacts"
mkdir -p "$artifacts"

if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
/usr/bin/chromium --version 2>/dev/null || true

(cd site/e2e && npm ci --no-audit --no-fund --loglevel=error)

tmp=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/kwire" ./cmd/kwire

# The atlas of both embedded releases, timed (the figure the issue asks for).
start=$(date +%s%N)
"$tmp/kwire" site --out "$tmp/both" --quiet
echo "kwire site (4.4.0 and 3.9.1): $(( ($(date +%s%N) - start) / 1000000 )) ms, $(find "$tmp/both" -type f | wc -l) files" | tee "$artifacts/site-build.txt"
rm -rf "$tmp/both"

"$tmp/kwire" --kafka 4.4.0 site --out "$tmp/site"
"$tmp/kwire" --kafka 4.4.0 serve --addr 127.0.0.1:0 --dir "$tmp/site" >"$tmp/serve.log" 2>&1 &
server=$!
url=""
for _ in $(seq 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$tmp/serve.log" | head -1 || true)
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$tmp/serve.log"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "kwire serve did not start"; cat "$tmp/serve.log"; exit 1; }
echo "kwire serve: $url"

cd site/e2e
KWIRE_URL="$url" KWIRE_SITE="$tmp/site" KWIRE_ARTIFACTS="$artifacts" CHROMIUM=/usr/bin/chromium \
  node --test --test-reporter=spec atlas.test.mjs
echo "screenshots and figures: $artifacts"
ls "$artifacts"
