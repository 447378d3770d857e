// Package bench holds kwire's speed benchmarks against a reference Go
// implementation (franz-go's typed kmsg), run on the same bytes in the same
// process: `go test -bench . -count 6 ./internal/bench/` and compare medians
// (benchstat). It has no non-test code; the comparison library is a
// test-only dependency and never part of the kwire binary.
//
// The main benchmark decodes and encodes a MetadataResponse v13 of 1000
// topics of 10 partitions each (about 457 KB). kwire's goals for it, as
// ratios of medians taken in one run on the same bytes: the span-tree
// decoder (a fresh tree each time) at least 1.5 times kmsg's MB/s, and
// encoding (kwire-bytes: the decoded value written back to bytes, as
// kmsg's AppendTo writes its struct; kwire-bytes-valuetree: the same value
// built field by field; kwire-spantree: with the tree of the bytes) at
// least as fast as kmsg's; tree-walk, beside them, is no encoder but one
// pass over the decoded tree's nodes copying the fixed-size leaves, a
// branch a node; kwire-bytes-irregular and kmsg-irregular encode a
// message of 1000 topics unlike each other (metadataIrregular), whose
// elements are not laid out as the ones before them. For records, the
// goal is at least 0.8 times
// kmsg's batch and record reading with the CRC checked, records decoded
// lazily (records.Options.Lazy: every record read and checked, a node a
// record; kwire-whole: every field a node too). bench/run (at the
// repository's root) runs these benchmarks with its process comparisons
// and prints the ratios of their medians; the README quotes its table.
package bench
