package records

// XXH32 exposes xxh32 (seed 0) to the tests.
func XXH32(b []byte) uint32 { return xxh32(b, 0) }
