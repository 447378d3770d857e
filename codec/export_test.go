package codec

import (
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// NewGeneral returns a Codec whose encoder takes its general path only.
func NewGeneral(s *spec.Set) *Codec {
	c := New(s)
	c.general = true
	return c
}

// DirectTaken reports whether the encoder's direct path writes all of
// value body of m at version v at its root (leaving no field of it to the
// general path).
func DirectTaken(c *Codec, m *spec.Message, v int16, body *tree.Tree) bool {
	if len(body.Nodes) == 0 {
		return false
	}
	e := &encoder{c: c, v: body}
	_, _, done := e.direct(c.plan(m, v), 0)
	return done && e.err == nil
}
