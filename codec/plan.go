package codec

import (
	"sort"
	"sync"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// plan is a struct's layout at one version, compiled once from its spec:
// which fields are positional, which tagged, and how each is encoded.
type plan struct {
	st       *spec.Struct
	ref      int32 // tree.StructRef(st)
	version  int16
	flexible bool
	// fields are the positional fields present at this version, in order.
	fields []*fplan
	// tagged are the tagged fields present at this version, by tag.
	tagged []*fplan
	// absent are the fields not on the wire at this version (for the
	// non-ignorable check when encoding).
	absent     []*spec.Field
	absentRefs []int32 // tree.FieldRef of each absent field
	// steps are fields split into what the decoder does in one go: a run
	// of consecutive fixed-size scalar fields, or one other field.
	steps []step
}

// step is one step of decoding a struct's positional fields: a run of
// fixed-size scalar fields p.fields[lo:hi] (width > 0), read as one block
// of width bytes whose leaves are the templates with their offsets,
// indexes and values filled in; or the single other field p.fields[lo]
// (hi == lo+1, width 0).
type step struct {
	lo, hi int
	width  int32
	// tmpl are the leaves of a run, Off relative to the run's start; each
	// template's Num holds how its value is read (a readKind).
	tmpl []tree.Node
}

// readKind is how the value of a fixed-size leaf is read from its bytes.
type readKind = int64

const (
	readBool readKind = iota
	readInt8
	readInt16
	readUint16
	readInt32
	readUint32
	readInt64 // and float64 bits
	readUUID
)

func readKindOf(k spec.Kind) readKind {
	switch k {
	case spec.KindBool:
		return readBool
	case spec.KindInt8:
		return readInt8
	case spec.KindInt16:
		return readInt16
	case spec.KindUint16:
		return readUint16
	case spec.KindInt32:
		return readInt32
	case spec.KindUint32:
		return readUint32
	case spec.KindUUID:
		return readUUID
	}
	return readInt64
}

// fplan is how one field is encoded at one version.
type fplan struct {
	f        *spec.Field
	ref      int32 // tree.FieldRef(f)
	kind     spec.Kind
	elem     spec.Kind
	nullable bool
	compact  bool // compact (uvarint-prefixed) strings, bytes, arrays, records
	tagged   bool
	sub      *plan // struct, or struct elements of an array
	wire     tree.Wire
	elemWire tree.Wire
	// width is the wire size of a fixed-size scalar field (0 for any
	// other), elemWidth that of a fixed-size scalar array element.
	width, elemWidth int32
}

type planKey struct {
	st       *spec.Struct
	version  int16
	flexible bool
}

// planCache holds compiled plans; it is safe for concurrent use.
type planCache struct {
	mu sync.RWMutex
	m  map[planKey]*plan
}

func (c *planCache) get(st *spec.Struct, version int16, flexible bool) *plan {
	k := planKey{st, version, flexible}
	c.mu.RLock()
	p := c.m[k]
	c.mu.RUnlock()
	if p != nil {
		return p
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.getLocked(k)
}

// getLocked returns the plan of k, compiling it (and the plans it refers
// to) with c.mu held. A plan is stored before its fields are compiled, so
// a struct that contains itself through an array or a nullable struct
// (legal in a spec) refers to its own plan instead of recursing forever.
func (c *planCache) getLocked(k planKey) *plan {
	if p := c.m[k]; p != nil {
		return p
	}
	if c.m == nil {
		c.m = map[planKey]*plan{}
	}
	p := &plan{st: k.st, ref: tree.StructRef(k.st), version: k.version, flexible: k.flexible}
	c.m[k] = p
	compile(p, c)
	return p
}

// compile fills in plan p's fields.
func compile(p *plan, c *planCache) {
	st, version, flexible := p.st, p.version, p.flexible
	for _, f := range st.Fields {
		if !f.Versions.Contains(version) {
			p.absent = append(p.absent, f)
			p.absentRefs = append(p.absentRefs, tree.FieldRef(f))
			continue
		}
		fp := &fplan{f: f, ref: tree.FieldRef(f), kind: f.Type.Kind, elem: f.Type.Elem, nullable: f.NullableVersions.Contains(version)}
		fp.compact = flexible
		if f.HasFlexibleVersions {
			fp.compact = flexible && f.FlexibleVersions.Contains(version)
		}
		fp.tagged = flexible && f.TaggedIn(version)
		if f.Type.Struct != nil {
			fp.sub = c.getLocked(planKey{f.Type.Struct, version, flexible})
		}
		fp.wire = scalarWire(fp.kind, fp.compact)
		if fp.kind == spec.KindArray {
			fp.elemWire = scalarWire(fp.elem, fp.compact)
			fp.elemWidth = int32(fp.elem.FixedSize())
		} else if fp.kind != spec.KindStruct {
			fp.width = int32(fp.kind.FixedSize())
		}
		if fp.tagged {
			p.tagged = append(p.tagged, fp)
		} else {
			p.fields = append(p.fields, fp)
		}
	}
	sort.SliceStable(p.tagged, func(i, j int) bool { return p.tagged[i].f.Tag < p.tagged[j].f.Tag })
	for lo := 0; lo < len(p.fields); {
		if p.fields[lo].width == 0 {
			p.steps = append(p.steps, step{lo: lo, hi: lo + 1})
			lo++
			continue
		}
		st := step{lo: lo}
		for st.hi = lo; st.hi < len(p.fields) && p.fields[st.hi].width > 0; st.hi++ {
			fp := p.fields[st.hi]
			st.tmpl = append(st.tmpl, tree.Node{Kind: tree.Field, Wire: fp.wire, Ref: fp.ref, Off: st.width, Size: fp.width, Num: readKindOf(fp.kind)})
			st.width += fp.width
		}
		p.steps = append(p.steps, st)
		lo = st.hi
	}
}

func scalarWire(k spec.Kind, compact bool) tree.Wire {
	switch k {
	case spec.KindBool:
		return tree.WireBool
	case spec.KindInt8:
		return tree.WireInt8
	case spec.KindInt16:
		return tree.WireInt16
	case spec.KindUint16:
		return tree.WireUint16
	case spec.KindInt32:
		return tree.WireInt32
	case spec.KindUint32:
		return tree.WireUint32
	case spec.KindInt64:
		return tree.WireInt64
	case spec.KindFloat64:
		return tree.WireFloat64
	case spec.KindUUID:
		return tree.WireUUID
	case spec.KindString:
		if compact {
			return tree.WireCompactString
		}
		return tree.WireString
	case spec.KindBytes, spec.KindRecords:
		if compact {
			return tree.WireCompactBytes
		}
		return tree.WireBytes
	}
	return tree.WireNone
}
