package codec

import (
	"math"
	"sort"
	"sync"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// plan is a struct's layout at one version, compiled once from its spec:
// which fields are positional, which tagged, and how each is encoded.
type plan struct {
	st  *spec.Struct
	ref int32 // tree.StructRef(st)
	// elemShape is the shape of an array element of this struct; parts
	// are its shapes as a Header, Body and Message at p's version.
	elemShape tree.Shape
	parts     [3]tree.Shape
	version   int16
	flexible  bool
	// fields are the positional fields present at this version, in order.
	fields []*fplan
	// tagged are the tagged fields present at this version, by tag.
	tagged []*fplan
	// absent are the fields not on the wire at this version (for the
	// non-ignorable check when encoding).
	absent     []*spec.Field
	absentRefs []int32 // tree.FieldRef of each absent field
	// records is set when the struct can hold records: a records field,
	// or a struct or array of structs that can (its node arena is sized
	// for records, see reserveNodes).
	records bool
	// steps are fields split into what the decoder does in one go: a run
	// of consecutive fixed-size scalar fields, or one other field.
	// stepAt[k] is the run of two fields or more that starts at field k,
	// nil for others (the encoder copies such a run of a decoded value).
	steps  []step
	stepAt []*step
	// span is set when every positional field is a number, uuid, string,
	// bytes, an array of numbers or an array of structs with a span
	// (spanOps): a decoded struct of p is then checked node by node and
	// written as its bytes (spanElems). spanNest is how deep arrays of
	// structs with a span nest in its elements (0 for none).
	span     []spanOp
	spanNest int
}

// spanOp is what a decoded struct's node of one positional field must
// be for spanElems to take it, by kind: spanLeaf, a leaf of shape and
// width bytes (a bool's byte 0 or 1; a uuid's 16); spanData, a string or
// bytes leaf of shape (or its null flag alone, when nullable) whose
// prefix is its contents' size in the shortest form of wire; spanNums, a
// group of shape holding a Length leaf of lenShape (one byte when
// compact, else four) then leaves of elemShape, width bytes each;
// spanStructs, an array of fp, whose element plan has a span.
type spanOp struct {
	shape, lenShape, elemShape tree.Shape
	width                      int32
	kind                       uint8
	wire                       tree.Wire
	compact, bool, nullable    bool
	str                        bool // a string, no longer than maxString
	fp                         *fplan
}

// Kinds of spanOp.
const (
	spanLeaf = iota + 1
	spanData
	spanNums
	spanStructs
)

// spanDepth is how deep arrays of structs with a span nest in the
// elements spanElems copies.
const spanDepth = 4

// step is one step of decoding a struct's positional fields: a run of
// fixed-size scalar fields p.fields[lo:hi] (width > 0), read as one block
// of width bytes whose leaves are the templates with their offsets and
// ends filled in; or the single other field p.fields[lo] (hi == lo+1,
// width 0).
type step struct {
	lo, hi int
	width  int32
	// tmpl are the leaves of a run, Off relative to the run's start;
	// bools the offsets in the run of its bool fields.
	tmpl  []tree.Node
	bools []int32
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
	// shape is the shape of the field's node (a Field leaf, or its Array,
	// Struct or Records group), elemShape that of a scalar array's
	// elements, lenShape that of an array's or records' length prefix.
	shape, elemShape, lenShape tree.Shape
	// valShape is the shape value trees give the field's node (no wire
	// encoding), valElemShape that of a scalar array's elements: with
	// shape they let the encoder match a value's node without reading
	// its Ref.
	valShape, valElemShape tree.Shape
	// tagShape is the shape of a tagged field's Tag entry.
	tagShape tree.Shape
	// width is the wire size of a fixed-size scalar field (0 for any
	// other), elemWidth that of a fixed-size scalar array element.
	width, elemWidth int32
	// num and elemNum are how the encoder writes the field's (or its
	// elements') value when it is a fixed-size number.
	num, elemNum numRange
	// op is how the encoder's direct path writes the field (opOf).
	op uint8
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
	ref := tree.StructRef(k.st)
	p := &plan{st: k.st, ref: ref, version: k.version, flexible: k.flexible, elemShape: tree.NewShape(tree.Element, tree.WireNone, ref, 0)}
	for i, k := range [3]tree.Kind{tree.Header, tree.Body, tree.Message} {
		p.parts[i] = tree.NewShape(k, tree.WireNone, ref, int32(p.version))
	}
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
			p.records = p.records || fp.sub.records
		}
		p.records = p.records || fp.kind == spec.KindRecords
		fp.wire = scalarWire(fp.kind, fp.compact)
		fp.num, fp.elemNum = numRangeOf(fp.kind), numRangeOf(fp.elem)
		fp.lenShape = shapeLengthInt32
		if fp.compact {
			fp.lenShape = shapeLengthUvarint
		}
		fp.valElemShape = tree.NewShape(tree.Element, tree.WireNone, 0, 0)
		switch fp.kind {
		case spec.KindArray:
			fp.elemWire = scalarWire(fp.elem, fp.compact)
			fp.elemWidth = int32(fp.elem.FixedSize())
			fp.shape = tree.NewShape(tree.Array, tree.WireNone, fp.ref, 0)
			fp.elemShape = tree.NewShape(tree.Element, fp.elemWire, 0, 0)
		case spec.KindStruct:
			fp.shape = tree.NewShape(tree.Struct, tree.WireNone, fp.ref, 0)
		case spec.KindRecords:
			fp.shape = tree.NewShape(tree.Records, fp.wire, fp.ref, 0)
		default:
			fp.width = int32(fp.kind.FixedSize())
			fp.shape = tree.NewShape(tree.Field, fp.wire, fp.ref, 0)
		}
		fp.valShape = tree.NewShape(fp.shape.Kind(), tree.WireNone, fp.ref, 0)
		fp.op = opOf(fp)
		if fp.tagged {
			fp.tagShape = tree.NewShape(tree.Tag, tree.WireNone, fp.ref, 0)
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
			if fp.kind == spec.KindBool {
				st.bools = append(st.bools, st.width)
			}
			st.tmpl = append(st.tmpl, tree.Node{Off: st.width, Size: fp.width, S: fp.shape})
			st.width += fp.width
		}
		p.steps = append(p.steps, st)
		lo = st.hi
	}
	p.span, p.spanNest = spanOps(p)
	p.stepAt = make([]*step, len(p.fields))
	for k := range p.steps {
		if st := &p.steps[k]; st.width > 0 && st.hi-st.lo > 1 {
			p.stepAt[st.lo] = st
		}
	}
}

// spanOps is p.span: nil unless every positional field of p is, as
// the direct path writes it, a fixed-size number (bool included) or a
// uuid (opFixed, opUUID), a string or bytes (opData), an array of
// fixed-size numbers other than bools (opArrayNum), or an array of
// structs whose plan has a span nested less than spanDepth deep
// (opArrayStruct). An empty list for a struct of no positional fields;
// nest is how deep arrays of structs nest in its elements.
func spanOps(p *plan) (ops []spanOp, nest int) {
	ops = make([]spanOp, 0, len(p.fields))
	for _, fp := range p.fields {
		switch fp.op {
		case opFixed:
			ops = append(ops, spanOp{kind: spanLeaf, shape: fp.shape, width: fp.width, bool: fp.num.bool})
		case opUUID:
			ops = append(ops, spanOp{kind: spanLeaf, shape: fp.shape, width: 16})
		case opData:
			ops = append(ops, spanOp{kind: spanData, shape: fp.shape, wire: fp.wire, nullable: fp.nullable, str: fp.kind == spec.KindString})
		case opArrayNum:
			if fp.elemNum.bool {
				return nil, 0
			}
			ops = append(ops, spanOp{kind: spanNums, shape: fp.shape, lenShape: fp.lenShape, elemShape: fp.elemShape, width: fp.elemWidth, compact: fp.compact})
		case opArrayStruct:
			// A plan being compiled (one that holds itself) has no span
			// yet, so its holders get none.
			if fp.sub.span == nil || fp.sub.spanNest+1 >= spanDepth {
				return nil, 0
			}
			nest = max(nest, fp.sub.spanNest+1)
			ops = append(ops, spanOp{kind: spanStructs, fp: fp})
		default:
			return nil, 0
		}
	}
	return ops, nest
}

// numRange is how a fixed-size number is written: w bytes big-endian,
// lo..hi its range, bool set for a bool (any non-zero value is 1); w is 0
// for a kind that is not a fixed-size number (a uuid).
type numRange struct {
	lo, hi int64
	w      int32
	bool   bool
}

func numRangeOf(k spec.Kind) numRange {
	switch k {
	case spec.KindBool:
		return numRange{math.MinInt64, math.MaxInt64, 1, true}
	case spec.KindInt8:
		return numRange{math.MinInt8, math.MaxInt8, 1, false}
	case spec.KindInt16:
		return numRange{math.MinInt16, math.MaxInt16, 2, false}
	case spec.KindUint16:
		return numRange{0, math.MaxUint16, 2, false}
	case spec.KindInt32:
		return numRange{math.MinInt32, math.MaxInt32, 4, false}
	case spec.KindUint32:
		return numRange{0, math.MaxUint32, 4, false}
	case spec.KindInt64, spec.KindFloat64:
		return numRange{math.MinInt64, math.MaxInt64, 8, false}
	}
	return numRange{}
}

// Shapes of the codec's synthetic nodes.
var (
	shapeLengthInt32   = tree.NewShape(tree.Length, tree.WireInt32, 0, 0)
	shapeLengthUvarint = tree.NewShape(tree.Length, tree.WireUvarint, 0, 0)
	shapeTagsEmpty     = tree.NewShape(tree.TagSection, tree.WireUvarint, 0, 0)
	shapeTagCount      = tree.NewShape(tree.TagCount, tree.WireUvarint, 0, 0)
	shapeTagNumber     = tree.NewShape(tree.TagNumber, tree.WireUvarint, 0, 0)
	shapeTagSize       = tree.NewShape(tree.TagSize, tree.WireUvarint, 0, 0)
	shapeUnknownTag    = tree.NewShape(tree.UnknownTag, tree.WireNone, 0, 0)
	shapeTagRaw        = tree.NewShape(tree.Raw, tree.WireRaw, 0, 0)
	shapePresenceInt8  = tree.NewShape(tree.Presence, tree.WireInt8, 0, 0)
	shapePresenceUvar  = tree.NewShape(tree.Presence, tree.WireUvarint, 0, 0)
	shapeFrame         = tree.NewShape(tree.Frame, tree.WireNone, 0, 0)
	shapeSize          = tree.NewShape(tree.FrameField, tree.WireInt32, refSize, 0)
)

// rawShape is the shape of a Raw leaf named by ref.
func rawShape(ref int32) tree.Shape { return tree.NewShape(tree.Raw, tree.WireRaw, ref, 0) }

// partShape is the shape of p's struct as a Header, Body or Embedded node
// at p's version (a plan's version is one its message defines).
func (p *plan) partShape(k tree.Kind) tree.Shape {
	switch k {
	case tree.Header:
		return p.parts[0]
	case tree.Body:
		return p.parts[1]
	case tree.Message:
		return p.parts[2]
	}
	return tree.NewShape(k, tree.WireNone, p.ref, int32(p.version))
}

// partShape is the shape of a Message, Header, Body or Embedded node of
// struct st at version v: its aux holds v when m (nil for a header)
// defines it, else -1 (tree.NodeVersion then reads the tree's), so that
// versions read from hostile bytes never grow the shape table.
func partShape(k tree.Kind, st *spec.Struct, m *spec.Message, v int16) tree.Shape {
	aux := int32(v)
	if m != nil && !m.ValidVersions.Contains(v) || v < 0 {
		aux = -1
	}
	var ref int32
	if st != nil {
		ref = tree.StructRef(st)
	}
	return tree.NewShape(k, tree.WireNone, ref, aux)
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
