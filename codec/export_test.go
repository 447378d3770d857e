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

// SpanCopies is the number of arrays of value body of m at version v
// (at any depth) that spanElems takes, as the direct path would find
// them: each array of structs of a plan with a span, of its field's
// shape, found by its Ref among the fields of a struct it walks.
func SpanCopies(c *Codec, m *spec.Message, v int16, body *tree.Tree) int {
	if len(body.Nodes) == 0 {
		return 0
	}
	var walk func(p *plan, vi int32) int
	walk = func(p *plan, vi int32) int {
		vn := body.Nodes
		copies := 0
		for ci := vi + 1; ci < vn[vi].End; ci = vn[ci].End {
			n := vn[ci]
			for _, fp := range p.fields {
				if fp.sub == nil || n.Ref() != fp.ref || n.S.Kind() != fp.shape.Kind() {
					continue
				}
				if fp.op == opArrayStruct && fp.sub.span != nil {
					if _, ok := spanElems(nil, fp, vn, body.Bytes, ci, n.End, make([]spanModel, spanDepth)); ok {
						copies++
						continue
					}
				}
				if fp.kind == spec.KindStruct {
					copies += walk(fp.sub, ci)
					continue
				}
				for ei := ci + 1; ei < n.End; ei = vn[ei].End {
					if vn[ei].Kind() == tree.Element {
						copies += walk(fp.sub, ei)
					}
				}
			}
		}
		return copies
	}
	return walk(c.plan(m, v), 0)
}
