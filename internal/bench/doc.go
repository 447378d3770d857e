// Package bench holds kwire's speed benchmarks against a reference Go
// implementation (franz-go's typed kmsg), run on the same bytes in the same
// process: `go test -bench . -count 6 ./internal/bench/` and compare medians
// (benchstat). It has no non-test code; the comparison library is a
// test-only dependency and never part of the kwire binary.
package bench
