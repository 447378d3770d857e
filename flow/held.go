package flow

import (
	"slices"
	"sync"

	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/tree"
)

// DefaultMaxHeld is the memory bound of a HeldTrees whose Max is 0: 32 MiB.
const DefaultMaxHeld = 32 << 20

// HeldTrees bounds the memory of the request trees that Conns keeping
// trees (Options.KeepTrees) hold while the requests await their
// responses, over every Conn that shares it (a capture's, a proxy's). A
// tree is counted by its footprint (tree.Tree.Footprint) from its
// request until its exchange is reported; a tree many times its frame
// (records that decompress to much more) is not held but its frame's
// bytes, counted by their size, and it is decoded again when the
// exchange is reported. A request whose tree (or bytes) would take what
// is held past Max is not held, unless nothing else is (one frame's tree
// is bounded by its decoder's limits): it is reported as a NotHeld
// problem, and its exchange comes with the request's Frame but no Tree.
// The zero value bounds at DefaultMaxHeld; it is safe for concurrent use.
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

// Trees many times larger than their frames are not held awaiting the
// response: the frame's bytes are, and the tree is decoded again when the
// exchange is reported (a request of 5 KB whose records decompress to 30
// MiB takes 5 KB while it waits, not 30 MiB; 40 connections of them took
// pcap --tree 110 MiB over its baseline, a tree held and one decoded).
// againMin is the footprint below which a tree is held whatever its
// frame's size, againRatio the footprint to frame size above which it is
// decoded again.
const (
	againMin   = 1 << 20
	againRatio = 4
)

// hold counts the tree of request frame f, awaiting its response, in the
// Conn's HeldTrees and returns what it counted. A tree of more than
// againMin and againRatio times its frame (the bytes its arrays use), of
// a request that can be decoded again (again: not a SaslHandshake or
// SaslAuthenticate request, whose redaction follows the SASL state), is
// dropped and a copy of the frame's bytes fr, as they came (the tree's
// may be redacted), returned, counted in its place, to decode again
// (decodeAgain); another is held, fitted to its size (fit). When the
// bound would be passed, the tree is dropped, the request reported
// NotHeld and 0 returned. Trees dropped go to the Reuse pool, if any.
func (c *Conn) hold(s *stream, f *Frame, fr []byte, key, ver int16, corr int32, again bool) (int64, []byte) {
	if f.Tree == nil {
		return 0, nil
	}
	// foot is the tree's memory (what a NotHeld notice names), n what is
	// counted held: the tree's, or the frame's bytes held in its place.
	var foot, n int64
	var b []byte
	if u := used(f.Tree); again && u > againMin && u > againRatio*int64(len(fr)) {
		b = append([]byte(nil), fr...) // as they came, not as redacted
		c.drop(f)
		foot, n = u, int64(len(b))
	} else {
		c.fit(f.Tree)
		foot = f.Tree.Footprint()
		n = foot
	}
	if c.held.take(n) {
		return n, b
	}
	pr := c.problem(s, NotHeld, f.Offset, f.End)
	pr.FrameOffset, pr.Size, pr.Limit, pr.Tree = f.Offset, int64(f.Size), int(c.held.max()), foot
	pr.APIKey, pr.Version, pr.CorrelationID = key, ver, corr
	c.drop(f)
	c.report(pr)
	return 0, nil
}

// drop drops frame f's tree, to the Reuse pool if any.
func (c *Conn) drop(f *Frame) {
	if c.o.Reuse != nil {
		c.recycle(f)
	}
	f.Tree = nil
}

// decodeAgain decodes again into q's Frame the request whose frame's bytes
// hold kept in place of its tree (q.again), with the codec that decoded it
// first, the topic names it used (q.looked) and its decompression budget
// as it was then (q.budget left: the same tree, the budget not taken from
// twice), and redacts the tree as the first time.
func (c *Conn) decodeAgain(q *pending) {
	if q.again == nil || q.frame == nil {
		return
	}
	t := &tree.Tree{}
	if c.o.Reuse != nil {
		if p := c.o.Reuse.getArena(); p != nil {
			t = p
		}
	}
	b := q.again // the tree's own copy now
	q.again = nil
	cd := q.cd
	if cd == nil {
		cd = c.o.Codec
	}
	o := c.topics.OptionsAs(cd, q.looked) // the names its first decoding used
	o.Arena, o.Budget = c.arena(), cd.Records.Budget.With(q.budget)
	cd.DecodeRequestWith(t, b, o) // its error, if any, the first one's (in the Frame's Err)
	c.redact(t)
	if q.hidden {
		secret.RedactFrame(t, secret.Options{Show: c.o.ShowSecrets})
	}
	q.frame.Tree = t
}

// fitSlack is the room a tree held may keep past what its arrays hold
// (fit).
const fitSlack = 64 << 10

// fit copies the arrays of t, a request's tree about to be held, to
// arrays of their lengths when their capacities are much larger (more
// than twice, and fitSlack): a tree decoded into the TreePool's large
// arena, whose arrays go back to the pool for the next frame. A tree held
// keeps what it needs, not the arena of the largest frame before it.
func (c *Conn) fit(t *tree.Tree) {
	if c.o.Reuse == nil || moderate(t) {
		return
	}
	if t.Footprint() <= 2*used(t)+fitSlack {
		return
	}
	arena := &tree.Tree{Nodes: t.Nodes[:0], Virtual: t.Virtual[:0], Problems: t.Problems[:0]}
	t.Nodes, t.Virtual, t.Problems = slices.Clone(t.Nodes), slices.Clone(t.Virtual), slices.Clone(t.Problems)
	if len(t.Virtual) == 0 {
		t.Virtual = nil
	}
	c.o.Reuse.putArena(arena)
}

// used is the memory t's arrays use, in bytes: tree.Tree.Footprint's
// count of their lengths, not their capacities.
func used(t *tree.Tree) int64 {
	return int64(len(t.Nodes))*int64(tree.NodeSize) + int64(len(t.Bytes)) + int64(len(t.Virtual)) + 64*int64(len(t.Problems))
}
