package records

// XXH32 exposes xxh32 (seed 0) to the tests.
func XXH32(b []byte) uint32 { return xxh32(b, 0) }

// ForgetVirtualHint makes the next Decode make no room for decompressed
// views before it needs it, whatever the trees before it kept, so that a
// test of what one decode allocates does not count room made for the
// size of another.
func ForgetVirtualHint() { virtualHint.Store(0) }
