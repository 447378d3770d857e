package codec

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// EncodeError is a value that cannot be encoded: Path names the field
// (VoteRequest.Topics[0].TopicName) and Msg says what is wrong.
type EncodeError struct {
	Path string
	Msg  string
}

// Error renders the path and the problem: "VoteRequest.Topics[0].Port: value 65536 is out of range…".
func (e *EncodeError) Error() string { return e.Path + ": " + e.Msg }

// encoder writes a value tree as bytes. It builds no tree: the span tree
// of what it writes is the decode of those bytes (Encode), so that one
// decoder owns what every byte means. A failure's path is collected as
// the failure returns through the fields and elements it is in (rev,
// innermost first), so that encoding keeps no path while it succeeds.
type encoder struct {
	buf   []byte
	v     *tree.Tree // the value being encoded
	err   *EncodeError
	rev   tree.Path
	depth int
	// c is the codec encoding.
	c *Codec
	// models are the elements of v spanElems checked field by field
	// last, one for each depth of arrays nested in elements: made when
	// first needed, dropped when v changes.
	models []spanModel
}

// fail records the first failure, at the place the steps that its
// callers add (up) will name.
func (e *encoder) fail(format string, args ...any) {
	if e.err == nil {
		e.err = &EncodeError{Msg: fmt.Sprintf(format, args...)}
		e.rev = e.rev[:0]
	}
}

// up adds step s to the path of a failure returning through it.
func (e *encoder) up(s tree.Step) {
	if e.err != nil {
		e.rev = append(e.rev, s)
	}
}

// finish returns the failure with its path, root first (nil when none).
func (e *encoder) finish() error {
	if e.err == nil {
		return nil
	}
	p := make(tree.Path, len(e.rev))
	for i, s := range e.rev {
		p[len(p)-1-i] = s
	}
	e.err.Path = p.String()
	return e.err
}

// structFields writes struct value vi (or all defaults when vi < 0) at plan p.
func (e *encoder) structFields(p *plan, vi int32) {
	if e.depth++; e.depth > maxDepth {
		e.fail("structs nested more than %d deep (a spec whose struct contains itself?)", maxDepth)
		e.depth--
		return
	}
	v := e.v
	if vi >= 0 && len(p.absent) > 0 {
		for k, f := range p.absent {
			n := v.LookupRef(vi, p.absentRefs[k])
			if n >= 0 && !f.Ignorable && !e.isDefault(f, n) {
				e.fail("field is not in version %d and is not ignorable, but holds a non-default value", p.version)
				e.up(tree.Name(f.Name))
				e.depth--
				return
			}
		}
	}
	e.fields(p, vi)
	e.depth--
}

// fields writes struct value vi (or all defaults when vi < 0) at plan p:
// the direct path as far as it goes, the general path from there on.
func (e *encoder) fields(p *plan, vi int32) {
	k, cur := 0, vi+1
	if vi >= 0 && !e.c.general {
		var done bool
		if k, cur, done = e.direct(p, vi); done {
			return
		}
	}
	e.generalFields(p, vi, k, cur)
}

// generalFields writes struct value vi (or all defaults when vi < 0) at
// plan p from positional field k0 on, the cursor over vi's children at
// cur (vi+1 for the first field): it finds each field's value by its ref
// where the children do not list it in turn, writes defaults and says
// what is wrong, then writes the tag section.
func (e *encoder) generalFields(p *plan, vi int32, k0 int, cur int32) {
	v := e.v
	// Value trees list fields in spec order, so a cursor over the children
	// finds each one in turn; anything else falls back to a search.
	end := vi + 1
	var vn []tree.Node
	if vi >= 0 {
		vn = v.Nodes
		end = endOf(vn, vi)
	}
	if vi >= 0 {
		for cur < end && vn[cur].Kind() == tree.Presence {
			cur = after(vn, cur)
		}
	}
	for k := k0; k < len(p.fields); k++ {
		fp := p.fields[k]
		if st := p.stepAt[k]; st != nil && vi >= 0 && e.spanRun(st, vn, cur, end) {
			// A run of fixed-size fields decoded in one piece: copied.
			cur += int32(st.hi - st.lo)
			k = st.hi - 1
			continue
		}
		n := int32(-1)
		if vi >= 0 {
			for cur < end && vn[cur].Kind() == tree.Presence {
				cur = after(vn, cur)
			}
			if cur < end && fieldOf(vn[cur], fp) {
				n = cur
				cur = after(vn, cur)
			} else {
				n = v.LookupRef(vi, fp.ref)
			}
		}
		if fp.width > 0 && n >= 0 && e.fixed(fp, n) {
			continue
		}
		e.field(fp, n, false)
		if e.err != nil {
			return
		}
	}
	// The children after the last field found: an empty tag section, or
	// nothing, says there are no unknown tagged fields (noTags).
	switch {
	case p.flexible && len(p.tagged) == 0 && noTags(vn, cur, end):
		// Nothing to write but the empty section, the usual case.
		e.buf = append(e.buf, 0)
	case p.flexible:
		e.tagSection(p, vi)
	case vi >= 0 && !noTags(vn, cur, end):
		v.Fields(vi, func(c int32) bool {
			if v.Nodes[c].Kind() == tree.UnknownTag {
				e.fail("unknown tagged field %d cannot be written in non-flexible version %d", v.Num(c), p.version)
				return false
			}
			return true
		})
	}
}

// spanRun writes run st of fixed-size fields from the value nodes from
// cur on when they are its span leaves, of its shapes and sizes, leaves
// (holding no other node) and one after the other in their bytes as
// decoding made them (what fixed copies field by field, so that a run
// started part way, where the direct path stopped, is written alike):
// their bytes, copied at once (a bool among them written 0 or 1). It
// returns false, having written nothing, otherwise.
func (e *encoder) spanRun(st *step, vn []tree.Node, cur, end int32) bool {
	k := int32(len(st.tmpl))
	if int(cur)+int(k) > int(end) {
		return false
	}
	first := vn[cur].Off
	for j := range st.tmpl {
		n := &vn[cur+int32(j)]
		if n.S != st.tmpl[j].S || n.Off != first+st.tmpl[j].Off || n.Size != st.tmpl[j].Size || n.End != cur+int32(j)+1 {
			return false
		}
	}
	if first < 0 || int(first)+int(st.width) > len(e.v.Bytes) {
		return false
	}
	at := len(e.buf)
	e.buf = append(e.buf, e.v.Bytes[first:first+st.width]...)
	for _, b := range st.bools {
		if e.buf[at+int(b)] != 0 {
			e.buf[at+int(b)] = 1
		}
	}
	return true
}

// endOf is value node i's End, but at most len(vn); after is the node
// after c's subtree, its End but at least c+1 and at most len(vn)
// (tree.Tree.EndOf and Next on vn): the encoder's walks stay in the
// arena and move on whatever a node made or edited by hand says, and
// both paths read such a node alike.
func endOf(vn []tree.Node, i int32) int32 { return min(vn[i].End, int32(len(vn))) }

func after(vn []tree.Node, c int32) int32 { return min(max(vn[c].End, c+1), int32(len(vn))) }

// fieldOf reports whether value node n is field fp's: of its span or
// value tree shape, else of its Ref.
func fieldOf(n tree.Node, fp *fplan) bool {
	if n.S.Same(fp.shape) || n.S.Same(fp.valShape) {
		return true
	}
	return n.Kind() != tree.UnknownTag && n.Ref() == fp.ref
}

// noTags reports whether the value nodes from cur to end (the children of
// a struct after the last field the cursor found) hold no unknown tagged
// field: none that is one, and no tag section that is not empty.
func noTags(vn []tree.Node, cur, end int32) bool {
	for c := cur; c < end; c = after(vn, c) {
		switch vn[c].Kind() {
		case tree.UnknownTag:
			return false
		case tree.TagSection:
			if vn[c].End != c+1 {
				return false
			}
		}
	}
	return true
}

// field writes one field from value node n (-1: the field's default).
func (e *encoder) field(fp *fplan, n int32, tagged bool) {
	switch fp.kind {
	case spec.KindArray:
		e.array(fp, n)
	case spec.KindStruct:
		e.structField(fp, n, tagged)
	case spec.KindRecords:
		e.records(fp, n)
	default:
		if n >= 0 && fp.width > 0 && e.fixed(fp, n) {
			return
		}
		e.scalar(fp.f, fp.kind, fp.wire, fp.nullable, n)
	}
	e.up(tree.Name(fp.f.Name))
}

// fixed writes fixed-size scalar field fp (fp.width > 0) from value node
// n; it returns false, having written nothing, for a value out of the
// field's range or a uuid (field then writes it or says what is wrong).
// A value that is a span leaf of the field's own shape (a decoded tree
// re-encoded) is its bytes, copied; a bool is written 0 or 1.
func (e *encoder) fixed(fp *fplan, n int32) bool {
	nd := e.v.Nodes[n]
	num, ok := nd.HeldNum()
	if !ok {
		if nd.S == fp.shape && !fp.num.bool && fp.num.w > 0 {
			if end := int(nd.Off) + int(fp.width); nd.Off >= 0 && end <= len(e.v.Bytes) && nd.Size == fp.width {
				e.buf = append(e.buf, e.v.Bytes[nd.Off:end]...)
				return true
			}
		}
		num = e.v.Num(n)
	}
	return e.putNum(fp.num, num)
}

// putNum appends integer (or float64 bits) num as r says; it returns
// false, with nothing written, for a value out of r's range or a kind
// that is not a number (scalar then writes it or says what is wrong). A
// bool is written 0 or 1.
func (e *encoder) putNum(r numRange, num int64) bool {
	var ok bool
	e.buf, ok = appendNumber(e.buf, &r, num)
	return ok
}

// appendNumber is putNum on buf, which it returns.
func appendNumber(buf []byte, r *numRange, num int64) ([]byte, bool) {
	if num < r.lo || num > r.hi || r.w == 0 {
		return buf, false
	}
	switch r.w {
	case 1:
		if r.bool && num != 0 {
			num = 1
		}
		return append(buf, byte(num)), true
	case 2:
		return binary.BigEndian.AppendUint16(buf, uint16(num)), true
	case 4:
		return binary.BigEndian.AppendUint32(buf, uint32(num)), true
	}
	return binary.BigEndian.AppendUint64(buf, uint64(num)), true
}

// scalar writes a fixed-size value, string or bytes from value node ni (or
// f's default when ni is -1).
func (e *encoder) scalar(f *spec.Field, k spec.Kind, w tree.Wire, nullable bool, ni int32) {
	var num int64
	var data []byte
	null := false
	if ni >= 0 {
		num, data, null = e.v.Num(ni), e.v.Data(ni), e.v.Nodes[ni].Null()
	} else if f != nil {
		switch k {
		case spec.KindFloat64:
			num = int64(math.Float64bits(f.DefaultFloat))
		case spec.KindUUID:
			data = f.DefaultUUID[:]
		case spec.KindString:
			data = []byte(f.DefaultString)
			null = f.DefaultNull
		case spec.KindBytes:
			null = f.DefaultNull
		default:
			num = f.DefaultInt
		}
	}
	checkRange := func(lo, hi int64) {
		if num < lo || num > hi {
			e.fail("value %d is out of range for %s (%d..%d)", num, k, lo, hi)
		}
	}
	switch k {
	case spec.KindBool:
		if num != 0 {
			num = 1
		}
		e.buf = append(e.buf, byte(num))
	case spec.KindInt8:
		checkRange(math.MinInt8, math.MaxInt8)
		e.buf = wire.AppendInt8(e.buf, int8(num))
	case spec.KindInt16:
		checkRange(math.MinInt16, math.MaxInt16)
		e.buf = wire.AppendInt16(e.buf, int16(num))
	case spec.KindUint16:
		checkRange(0, math.MaxUint16)
		e.buf = wire.AppendUint16(e.buf, uint16(num))
	case spec.KindInt32:
		checkRange(math.MinInt32, math.MaxInt32)
		e.buf = wire.AppendInt32(e.buf, int32(num))
	case spec.KindUint32:
		checkRange(0, math.MaxUint32)
		e.buf = wire.AppendUint32(e.buf, uint32(num))
	case spec.KindInt64, spec.KindFloat64:
		e.buf = wire.AppendInt64(e.buf, num)
	case spec.KindUUID:
		var u [16]byte
		if len(data) != 0 && len(data) != 16 {
			e.fail("a uuid is 16 bytes, have %d", len(data))
		}
		copy(u[:], data)
		e.buf = append(e.buf, u[:]...)
	case spec.KindString, spec.KindBytes, spec.KindRecords:
		if null {
			if !nullable {
				e.fail("null value for a non-nullable %s", k)
			}
			e.buf = appendLen(e.buf, w, -1)
			return
		}
		if k == spec.KindString && len(data) > maxString {
			e.fail("string of %d bytes is longer than Kafka's limit of %d", len(data), maxString)
		}
		e.buf = appendLen(e.buf, w, len(data))
		e.buf = append(e.buf, data...)
	}
}

// appendLen writes a length prefix (or -1 for null) in wire encoding w.
func appendLen(b []byte, w tree.Wire, n int) []byte {
	switch w {
	case tree.WireCompactString, tree.WireCompactBytes, tree.WireUvarint:
		return wire.AppendUvarint(b, uint32(n+1))
	case tree.WireString:
		return wire.AppendInt16(b, int16(n))
	default:
		return wire.AppendInt32(b, int32(n))
	}
}

// length writes the count or size prefix of an array or records field (n,
// or -1 for null; uvarint n+1 when compact, else int32).
func (e *encoder) length(compact bool, n int) { e.buf = appendCount(e.buf, compact, n) }

func (e *encoder) array(fp *fplan, ni int32) {
	v := e.v
	null := ni < 0 && fp.f.DefaultNull || ni >= 0 && v.Nodes[ni].Null()
	if null {
		if !fp.nullable {
			e.fail("null array for a non-nullable field")
		}
		e.length(fp.compact, -1)
		return
	}
	if ni < 0 {
		e.length(fp.compact, 0)
		return
	}
	if fp.elemWidth > 0 && fp.elem != spec.KindUUID && fp.elem != spec.KindBool && e.spanArray(fp, ni) {
		return
	}
	// One pass: the count's room, the elements, then the count.
	start := len(e.buf)
	if fp.compact {
		e.buf = append(e.buf, 0)
	} else {
		e.buf = append(e.buf, 0, 0, 0, 0)
	}
	end := endOf(v.Nodes, ni)
	count := 0
	for c := ni + 1; c < end; c = after(v.Nodes, c) {
		if v.Nodes[c].Kind() != tree.Element {
			continue
		}
		switch {
		case fp.elem == spec.KindStruct:
			e.structFields(fp.sub, c)
		case fp.elemNum.w > 0 && e.putNum(fp.elemNum, v.Num(c)):
		default:
			e.scalar(nil, fp.elem, fp.elemWire, false, c)
		}
		if e.err != nil {
			e.up(tree.Index(count))
			return
		}
		count++
	}
	e.patchCount(start, fp.compact, count)
}

// patchCount writes count into the room at e.buf[start:] that array left
// for it: an int32, or a one-byte compact count that grows, moving the
// elements after it, when count+1 does not fit seven bits.
func (e *encoder) patchCount(start int, compact bool, count int) {
	e.buf = setCount(e.buf, start, compact, count)
}

// setCount is patchCount on buf, which it returns.
func setCount(buf []byte, start int, compact bool, count int) []byte {
	if !compact {
		binary.BigEndian.PutUint32(buf[start:], uint32(count))
		return buf
	}
	if count+1 < 0x80 {
		buf[start] = byte(count + 1)
		return buf
	}
	n := wire.UvarintLen(uint32(count + 1))
	buf = slices.Insert(buf, start+1, make([]byte, n-1)...)
	wire.AppendUvarint(buf[start:start], uint32(count+1))
	return buf
}

// spanArray writes array value ni when it is a decoded array of fp's own
// shape whose fixed-size scalar elements are span leaves of fp's element
// shape, one after the other in its bytes: its count, then those bytes,
// copied at once. It returns false, having written nothing, for any other
// array.
func (e *encoder) spanArray(fp *fplan, ni int32) bool {
	v := e.v
	nd := v.Nodes[ni]
	if !nd.S.Same(fp.shape) {
		return false
	}
	end := endOf(v.Nodes, ni)
	// first and next are ints: an Off near the int32 limit plus its
	// Size must not wrap round to a place in the bytes.
	first, next := -1, 0
	count := 0
	for c := ni + 1; c < end; c = after(v.Nodes, c) {
		n := v.Nodes[c]
		if n.Kind() != tree.Element {
			continue
		}
		if n.S != fp.elemShape || n.Size != fp.elemWidth || n.Off < 0 || count > 0 && int(n.Off) != next {
			return false
		}
		if count == 0 {
			first = int(n.Off)
		}
		next = int(n.Off) + int(n.Size)
		count++
	}
	if count == 0 || next > len(v.Bytes) {
		return false
	}
	e.length(fp.compact, count)
	e.buf = append(e.buf, v.Bytes[first:next]...)
	return true
}

func (e *encoder) structField(fp *fplan, ni int32, tagged bool) {
	null := ni < 0 && fp.f.DefaultNull || ni >= 0 && e.v.Nodes[ni].Null()
	if null && !fp.nullable {
		e.fail("null struct for a non-nullable field")
		return
	}
	if fp.nullable {
		switch {
		case tagged && null:
			e.buf = append(e.buf, 0)
		case tagged:
			e.buf = append(e.buf, 1)
		case null:
			e.buf = append(e.buf, 0xff) // int8 -1
		default:
			e.buf = append(e.buf, 1)
		}
		if null {
			return
		}
	}
	e.structFields(fp.sub, ni)
}

func (e *encoder) records(fp *fplan, ni int32) {
	if ni < 0 || e.v.Nodes[ni].Null() {
		if !fp.nullable {
			e.fail("null records for a non-nullable field")
		}
		e.length(fp.compact, -1)
		return
	}
	data := e.v.Data(ni)
	e.length(fp.compact, len(data))
	e.buf = append(e.buf, data...)
}

// tagEntry is one tagged field to write: a known field or an unknown tag.
type tagEntry struct {
	tag int64
	fp  *fplan
	n   int32
}

func (e *encoder) tagSection(p *plan, vi int32) {
	v := e.v
	var entries []tagEntry
	for _, fp := range p.tagged {
		n := int32(-1)
		if vi >= 0 {
			n = v.LookupRef(vi, fp.ref)
		}
		if n < 0 || e.isDefault(fp.f, n) {
			continue
		}
		entries = append(entries, tagEntry{int64(fp.f.Tag), fp, n})
	}
	if vi >= 0 {
		v.Fields(vi, func(c int32) bool {
			if v.Nodes[c].Kind() == tree.UnknownTag {
				entries = append(entries, tagEntry{tag: v.Num(c), n: c})
			}
			return true
		})
	}
	if len(entries) > 1 {
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].tag < entries[j].tag })
	}
	for i := 1; i < len(entries); i++ {
		if entries[i].tag == entries[i-1].tag {
			e.fail("tag %d is given twice", entries[i].tag)
			e.up(tree.Name("_tagged_fields"))
			return
		}
	}
	e.buf = wire.AppendUvarint(e.buf, uint32(len(entries)))
	for _, en := range entries {
		var payload []byte
		if en.fp != nil {
			// Encode the value on its own first: its size prefixes it.
			sub := &encoder{v: v, c: e.c, depth: e.depth}
			sub.field(en.fp, en.n, true)
			if sub.err != nil {
				e.err, e.rev = sub.err, append(e.rev[:0], sub.rev...)
				return
			}
			payload = sub.buf
		} else {
			payload = v.Data(en.n)
		}
		e.buf = wire.AppendUvarint(e.buf, uint32(en.tag))
		e.buf = wire.AppendUvarint(e.buf, uint32(len(payload)))
		e.buf = append(e.buf, payload...)
	}
}

// isDefault reports whether value n of field f equals f's default (Kafka's
// FieldSpec.generateNonDefaultValueCheck): tagged fields equal to their
// default are not written.
func (e *encoder) isDefault(f *spec.Field, ni int32) bool {
	v := e.v
	n := v.Nodes[ni]
	switch f.Type.Kind {
	case spec.KindBool, spec.KindInt8, spec.KindInt16, spec.KindUint16, spec.KindInt32, spec.KindUint32, spec.KindInt64:
		return v.Num(ni) == f.DefaultInt
	case spec.KindFloat64:
		return math.Float64frombits(uint64(v.Num(ni))) == f.DefaultFloat
	case spec.KindUUID:
		var u [16]byte
		copy(u[:], v.Data(ni))
		return u == f.DefaultUUID
	case spec.KindString:
		if f.DefaultNull {
			return n.Null()
		}
		return !n.Null() && string(v.Data(ni)) == f.DefaultString
	case spec.KindBytes:
		if f.DefaultNull {
			return n.Null()
		}
		return !n.Null() && len(v.Data(ni)) == 0
	case spec.KindRecords:
		return n.Null()
	case spec.KindArray:
		if f.DefaultNull {
			return n.Null()
		}
		if n.Null() {
			return false
		}
		empty := true
		v.Elements(ni, func(int32) bool { empty = false; return false })
		return empty
	case spec.KindStruct:
		if f.DefaultNull {
			return n.Null()
		}
		if n.Null() {
			return false
		}
		def := true
		v.Fields(ni, func(c int32) bool {
			cf := v.Field(c)
			if v.Nodes[c].Kind() == tree.UnknownTag || cf == nil || !e.isDefault(cf, c) {
				def = false
			}
			return def
		})
		return def
	}
	return false
}

// sizeHint is about the bytes that encoding header and body takes: a
// value that is a decoded span tree (or part of one: its root has a size)
// takes about its size again; a value tree a few bytes a value.
func sizeHint(header, body *tree.Tree) int {
	n := 64
	for _, v := range [2]*tree.Tree{header, body} {
		switch {
		case v == nil || len(v.Nodes) == 0:
		case v.Nodes[0].Size > 0 && v.Nodes[0].Flags()&tree.FlagValue == 0:
			n += int(v.Nodes[0].Size)
		default:
			n += 4*len(v.Nodes) + len(v.Bytes)
		}
	}
	return n
}

func rootOf(v *tree.Tree) int32 {
	if v == nil || len(v.Nodes) == 0 {
		return -1
	}
	return 0
}

// AppendEncode appends to buf the frame of a request or response, as
// Encode writes it, and returns it: the bytes only, no tree. It is what
// a client or proxy that only sends the bytes calls, allocating nothing
// once buf has room. On error it returns buf as it was and an
// *EncodeError, a *VersionError or another error.
func (c *Codec) AppendEncode(buf []byte, m *spec.Message, version int16, header, body *tree.Tree) ([]byte, error) {
	if m.Type != spec.Request && m.Type != spec.Response {
		return buf, fmt.Errorf("%s is a %s, not a request or response: use EncodeRecord", m.Name, m.Type)
	}
	if err := c.checkVersion(m, version); err != nil {
		return buf, err
	}
	req := m.Type == spec.Request
	hs, err := c.headerSpec(req)
	if err != nil {
		return buf, err
	}
	var hv int16
	if req {
		hv = frame.RequestHeaderVersion(m, version)
		if header == nil {
			header = RequestHeaderValue(hs, m.APIKey, version, 0, "")
		}
	} else {
		hv = frame.ResponseHeaderVersion(m, version)
	}
	start := len(buf)
	if cap(buf)-start < 4 {
		buf = slices.Grow(buf, sizeHint(header, body))
	}
	e := &encoder{buf: append(buf, 0, 0, 0, 0), c: c, v: header}
	e.structFields(c.plans.get(hs.Root, hv, hs.Flexible(hv)), rootOf(header))
	e.up(tree.Name(hs.Name))
	if e.err == nil {
		e.v = body
		e.models = nil // of the header's nodes
		e.structFields(c.plan(m, version), rootOf(body))
		e.up(tree.Name(m.Name))
	}
	if err := e.finish(); err != nil {
		return buf[:start], err
	}
	binary.BigEndian.PutUint32(e.buf[start:], uint32(len(e.buf)-start-4))
	return e.buf, nil
}

// Encode writes a framed request or response: int32 size, the header
// (version chosen as Kafka does), then the body. m is a request or response
// spec; header and body are value trees (nil: every field at its default;
// a nil request header gets m's api key and version, correlation id 0 and
// client id ""). It returns the span tree of the frame: the decode of the
// bytes written (AppendEncode writes the bytes alone).
func (c *Codec) Encode(m *spec.Message, version int16, header, body *tree.Tree) (*tree.Tree, error) {
	t := &tree.Tree{}
	if err := c.EncodeInto(t, nil, m, version, header, body); err != nil {
		return nil, err
	}
	return t, nil
}

// EncodeInto is Encode into an existing tree, reusing its node arena, with
// the frame written over buf from its start (buf's capacity is reused; its
// contents are not kept): a caller encoding many messages allocates
// nothing per message once both have grown. t is reset first; on success
// t.Bytes is the frame, which shares buf's storage. t must not be header
// or body, and buf must not hold their bytes.
func (c *Codec) EncodeInto(t *tree.Tree, buf []byte, m *spec.Message, version int16, header, body *tree.Tree) error {
	b, err := c.AppendEncode(buf[:0], m, version, header, body)
	if err != nil {
		return err
	}
	o := DecodeOptions{readBack: true}
	if m.Type == spec.Request {
		err = c.DecodeRequestWith(t, b, o)
	} else {
		err = c.DecodeResponseWith(t, b, m, version, o)
	}
	_, err = readBack(t, body, err)
	return err
}
