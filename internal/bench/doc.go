// Package bench holds kwire's speed benchmarks against a reference Go
// implementation (franz-go's typed kmsg), run on the same bytes in the same
// process: `go test -bench . -count 6 ./internal/bench/` and compare medians
// (benchstat). It has no non-test code; the comparison library is a
// test-only dependency and never part of the kwire binary.
//
// The main benchmark decodes and encodes a MetadataResponse v13 of 1000
// topics of 10 partitions each (about 457 KB). kwire's goals for it, as
// ratios of medians taken in one run on the same bytes: the span-tree
// decoder at least 1.5 times kmsg's MB/s, and encoding at least as fast as
// kmsg's. For records, the goal is no more time per record than kmsg's
// batch and record reading with the CRC checked. bench/run (at the
// repository's root) runs these benchmarks with its process comparisons
// and prints the ratios of their medians; the README quotes its table.
package bench
