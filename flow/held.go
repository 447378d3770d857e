package flow

import "sync"

// DefaultMaxHeld is the memory bound of a HeldTrees whose Max is 0: 32 MiB.
const DefaultMaxHeld = 32 << 20

// HeldTrees bounds the memory of the request trees that Conns keeping
// trees (Options.KeepTrees) hold while the requests await their
// responses, over every Conn that shares it (a capture's, a proxy's). A
// tree is counted by its footprint (tree.Tree.Footprint) from its
// request until its exchange is reported. A request whose tree would
// take the trees held past Max is not held, unless no other tree is (one
// frame's tree is bounded by its decoder's limits): it is reported as a
// NotHeld problem, and its exchange comes with the request's Frame but
// no Tree. The zero value bounds at DefaultMaxHeld; it is safe for
// concurrent use.
type HeldTrees struct {
	// Max is the bound in bytes; 0 means DefaultMaxHeld.
	Max int64
	mu  sync.Mutex
	// used is the footprint of the trees held.
	used int64
}

// max is the bound in force.
func (h *HeldTrees) max() int64 {
	if h.Max > 0 {
		return h.Max
	}
	return DefaultMaxHeld
}

// take counts n more bytes held, or reports false (counting nothing) when
// they would pass the bound. A tree is held when none is, whatever its
// size (one frame's tree is bounded by its decoder's limits): a request
// larger than the bound still comes with its tree when it is alone.
func (h *HeldTrees) take(n int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.used > 0 && h.used+n > h.max() {
		return false
	}
	h.used += n
	return true
}

// give counts n bytes no longer held.
func (h *HeldTrees) give(n int64) {
	if n == 0 {
		return
	}
	h.mu.Lock()
	h.used -= n
	h.mu.Unlock()
}

// Held is the footprint of the trees held now, in bytes.
func (h *HeldTrees) Held() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.used
}

// hold counts the tree of request frame f, awaiting its response, in the
// Conn's HeldTrees and returns its footprint; when the bound would be
// passed, the tree is dropped (to the Reuse pool, if any), the request
// reported NotHeld and 0 returned.
func (c *Conn) hold(s *stream, f *Frame, key, ver int16, corr int32) int64 {
	if f.Tree == nil {
		return 0
	}
	n := f.Tree.Footprint()
	if c.held.take(n) {
		return n
	}
	pr := c.problem(s, NotHeld, f.Offset, f.End)
	pr.FrameOffset, pr.Size, pr.Limit, pr.Tree = f.Offset, int64(f.Size), int(c.held.max()), n
	pr.APIKey, pr.Version, pr.CorrelationID = key, ver, corr
	if c.o.Reuse != nil {
		c.recycle(f)
	}
	f.Tree = nil
	c.report(pr)
	return 0
}
