package codec

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/records"
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

// encoder writes a value tree as bytes and builds the span tree.
type encoder struct {
	buf   []byte
	b     tree.Builder
	v     *tree.Tree // the value being encoded
	path  tree.Path
	err   error
	depth int
	// c is the codec encoding (its records options).
	c *Codec
}

func (e *encoder) push(name string) { e.path.Push(name) }
func (e *encoder) pushIdx(i int32)  { e.path.PushIndex(int(i)) }
func (e *encoder) pop()             { e.path.Pop() }
func (e *encoder) fail(format string, args ...any) {
	if e.err == nil {
		e.err = &EncodeError{Path: pathString(e.path), Msg: fmt.Sprintf(format, args...)}
	}
}
func (e *encoder) off() int32 { return int32(len(e.buf)) }

// node returns value node i, or nil for -1.
func (e *encoder) node(i int32) *tree.Node {
	if i < 0 {
		return nil
	}
	return &e.v.Nodes[i]
}

// structFields writes struct value vi (or all defaults when vi < 0) at plan p.
func (e *encoder) structFields(p *plan, vi int32) {
	if e.depth++; e.depth > maxDepth {
		e.fail("structs nested more than %d deep (a spec whose struct contains itself?)", maxDepth)
		e.depth--
		return
	}
	if vi >= 0 && len(p.absent) > 0 {
		for k, f := range p.absent {
			n := e.v.LookupRef(vi, p.absentRefs[k])
			if n >= 0 && !f.Ignorable && !e.isDefault(f, n) {
				e.push(f.Name)
				e.fail("field is not in version %d and is not ignorable, but holds a non-default value", p.version)
				e.pop()
				e.depth--
				return
			}
		}
	}
	// Value trees list fields in spec order, so a cursor over the children
	// finds each one in turn; anything else falls back to a search.
	cur, end := vi+1, vi+1
	if vi >= 0 {
		end = e.v.Nodes[vi].End
	}
	var vn []tree.Node
	if vi >= 0 {
		vn = e.v.Nodes
	}
	for _, fp := range p.fields {
		n := int32(-1)
		if vi >= 0 {
			for cur < end && vn[cur].Kind == tree.Presence {
				cur = vn[cur].End
			}
			if cur < end && vn[cur].Ref == fp.ref && vn[cur].Kind != tree.UnknownTag {
				n = cur
				cur = vn[cur].End
				if fp.width > 0 && e.fixed(fp, vn[n].Num) {
					continue
				}
			} else {
				n = e.v.LookupRef(vi, fp.ref)
			}
		}
		e.field(fp, n, false)
		if e.err != nil {
			e.depth--
			return
		}
	}
	if p.flexible {
		e.tagSection(p, vi)
	} else if vi >= 0 {
		e.v.Fields(vi, func(c int32) bool {
			if e.v.Nodes[c].Kind == tree.UnknownTag {
				e.fail("unknown tagged field %d cannot be written in non-flexible version %d", e.v.Nodes[c].Num, p.version)
				return false
			}
			return true
		})
	}
	e.depth--
}

// field writes one field from value node n (nil: the field's default).
func (e *encoder) field(fp *fplan, n int32, tagged bool) {
	switch fp.kind {
	case spec.KindArray:
		e.push(fp.f.Name)
		e.array(fp, n)
		e.pop()
	case spec.KindStruct:
		e.push(fp.f.Name)
		e.structField(fp, n, tagged)
		e.pop()
	case spec.KindRecords:
		e.push(fp.f.Name)
		e.records(fp, n)
		e.pop()
	default:
		if n >= 0 && fp.width > 0 && e.fixed(fp, e.v.Nodes[n].Num) {
			return
		}
		off := e.off()
		// A scalar pushes no path step unless it fails.
		failed := e.err != nil
		leaf := e.scalar(fp.f, fp.kind, fp.wire, fp.nullable, n)
		if !failed && e.err != nil {
			e.push(fp.f.Name)
			e.err.(*EncodeError).Path = pathString(e.path)
			e.pop()
		}
		leaf.Kind, leaf.Ref, leaf.Off, leaf.Size = tree.Field, fp.ref, off, e.off()-off
		e.b.Leaf(leaf)
	}
}

// fixed writes fixed-size scalar field fp (fp.width > 0) holding num and
// its leaf; it returns false, having written nothing, for a value out of
// the field's range or a uuid (field then writes it or says what is
// wrong).
func (e *encoder) fixed(fp *fplan, num int64) bool {
	off := e.off()
	num, ok := e.putNum(fp.kind, fp.width, num)
	if !ok {
		return false
	}
	t := e.b.T
	t.Nodes = append(t.Nodes, tree.Node{Kind: tree.Field, Wire: fp.wire, Ref: fp.ref, Off: off, Size: fp.width, End: int32(len(t.Nodes)) + 1, Num: num})
	return true
}

// putNum appends integer (or float64 bits) num of fixed-size kind k, w
// bytes wide; ok is false, with nothing written, for a value out of k's
// range or a kind that is not a number (scalar then writes it or says
// what is wrong). It returns the value as the leaf holds it (a bool as 0
// or 1). The bytes are written in place, so that only the buffer's length
// is stored back unless it grows.
func (e *encoder) putNum(k spec.Kind, w int32, num int64) (_ int64, ok bool) {
	switch k {
	case spec.KindBool:
		if num != 0 {
			num = 1
		}
		ok = true
	case spec.KindInt8:
		ok = num == int64(int8(num))
	case spec.KindInt16:
		ok = num == int64(int16(num))
	case spec.KindUint16:
		ok = num == int64(uint16(num))
	case spec.KindInt32:
		ok = num == int64(int32(num))
	case spec.KindUint32:
		ok = num == int64(uint32(num))
	case spec.KindInt64, spec.KindFloat64:
		ok = true
	}
	if !ok {
		return num, false
	}
	if cap(e.buf)-len(e.buf) < int(w) {
		e.buf = slices.Grow(e.buf, int(w))
	}
	n := len(e.buf)
	e.buf = e.buf[:n+int(w)]
	b := e.buf[n:]
	switch w {
	case 1:
		b[0] = byte(num)
	case 2:
		binary.BigEndian.PutUint16(b, uint16(num))
	case 4:
		binary.BigEndian.PutUint32(b, uint32(num))
	default:
		binary.BigEndian.PutUint64(b, uint64(num))
	}
	return num, true
}

// scalar writes a fixed-size value, string or bytes from value node ni (or
// f's default when ni is -1). The returned leaf's contents point into the
// output bytes.
func (e *encoder) scalar(f *spec.Field, k spec.Kind, w tree.Wire, nullable bool, ni int32) tree.Node {
	out := tree.Node{Wire: w}
	var num int64
	var data []byte
	null := false
	if ni >= 0 {
		n := &e.v.Nodes[ni]
		num, data, null = n.Num, e.v.Data(ni), n.Null
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
		out.DOff, out.DLen = e.off(), 16
		e.buf = append(e.buf, u[:]...)
	case spec.KindString, spec.KindBytes, spec.KindRecords:
		if null {
			if !nullable {
				e.fail("null value for a non-nullable %s", k)
			}
			e.buf = appendLen(e.buf, w, -1)
			out.Null = true
			return out
		}
		if k == spec.KindString && len(data) > maxString {
			e.fail("string of %d bytes is longer than Kafka's limit of %d", len(data), maxString)
		}
		e.buf = appendLen(e.buf, w, len(data))
		out.DOff, out.DLen = e.off(), int32(len(data))
		e.buf = append(e.buf, data...)
	}
	out.Num = num
	return out
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
// or -1 for null; uvarint n+1 when compact, else int32) and its Length leaf.
func (e *encoder) length(compact bool, n int) {
	off := e.off()
	w := tree.WireInt32
	if compact {
		w = tree.WireUvarint
	}
	e.buf = appendLen(e.buf, w, n)
	e.b.Leaf(tree.Node{Kind: tree.Length, Wire: w, Off: off, Size: e.off() - off, Num: int64(n)})
}

func (e *encoder) array(fp *fplan, ni int32) {
	n := e.node(ni)
	off := e.off()
	ai := e.b.Open(tree.Node{Kind: tree.Array, Ref: fp.ref, Off: off})
	null := n == nil && fp.f.DefaultNull || n != nil && n.Null
	if null {
		if !fp.nullable {
			e.fail("null array for a non-nullable field")
		}
		e.length(fp.compact, -1)
		e.b.T.Nodes[ai].Null = true
		e.b.Close(e.off())
		return
	}
	count := 0
	if n != nil {
		for c := ni + 1; c < n.End; c = e.v.Nodes[c].End {
			if e.v.Nodes[c].Kind == tree.Element {
				count++
			}
		}
	}
	e.length(fp.compact, count)
	e.b.T.Nodes[ai].Index = int32(count)
	if count > 0 {
		i := int32(0)
		w := fp.elemWidth
		if fp.elem == spec.KindUUID {
			w = 0 // written by scalar
		}
		if w > 0 {
			// Room for every element, so that appending them never grows.
			if t := e.b.T; cap(t.Nodes)-len(t.Nodes) < count {
				t.Nodes = slices.Grow(t.Nodes, count)
			}
			if cap(e.buf)-len(e.buf) < count*int(w) {
				e.buf = slices.Grow(e.buf, count*int(w))
			}
		}
		for c := ni + 1; c < n.End && e.err == nil; c = e.v.Nodes[c].End {
			if e.v.Nodes[c].Kind != tree.Element {
				continue
			}
			eoff := e.off()
			if w > 0 {
				if num, ok := e.putNum(fp.elem, w, e.v.Nodes[c].Num); ok {
					t := e.b.T
					t.Nodes = append(t.Nodes, tree.Node{Kind: tree.Element, Wire: fp.elemWire, Index: i, Off: eoff, Size: w, End: int32(len(t.Nodes)) + 1, Num: num})
					i++
					continue
				}
			}
			e.pushIdx(i)
			if fp.elem == spec.KindStruct {
				e.b.Open(tree.Node{Kind: tree.Element, Ref: fp.sub.ref, Index: i, Off: eoff})
				e.structFields(fp.sub, c)
				e.b.Close(e.off())
			} else {
				leaf := e.scalar(nil, fp.elem, fp.elemWire, false, c)
				leaf.Kind, leaf.Index, leaf.Off, leaf.Size = tree.Element, i, eoff, e.off()-eoff
				e.b.Leaf(leaf)
			}
			e.pop()
			i++
		}
	}
	e.b.Close(e.off())
}

func (e *encoder) structField(fp *fplan, ni int32, tagged bool) {
	n := e.node(ni)
	off := e.off()
	si := e.b.Open(tree.Node{Kind: tree.Struct, Ref: fp.ref, Off: off})
	null := n == nil && fp.f.DefaultNull || n != nil && n.Null
	if null && !fp.nullable {
		e.fail("null struct for a non-nullable field")
	}
	if fp.nullable {
		w, v := tree.WireInt8, int64(1)
		if null {
			v = -1
		}
		if tagged {
			w = tree.WireUvarint
			if null {
				v = 0
			}
			e.buf = wire.AppendUvarint(e.buf, uint32(v))
		} else {
			e.buf = wire.AppendInt8(e.buf, int8(v))
		}
		e.b.Leaf(tree.Node{Kind: tree.Presence, Wire: w, Off: off, Size: e.off() - off, Num: v})
		if null {
			e.b.T.Nodes[si].Null = true
			e.b.Close(e.off())
			return
		}
	}
	e.structFields(fp.sub, ni)
	e.b.Close(e.off())
}

func (e *encoder) records(fp *fplan, ni int32) {
	n := e.node(ni)
	off := e.off()
	ri := e.b.Open(tree.Node{Kind: tree.Records, Ref: fp.ref, Wire: fp.wire, Off: off})
	if n == nil || n.Null {
		if !fp.nullable {
			e.fail("null records for a non-nullable field")
		}
		e.length(fp.compact, -1)
		e.b.T.Nodes[ri].Null = true
		e.b.Close(e.off())
		return
	}
	data := e.v.Data(ni)
	e.length(fp.compact, len(data))
	start := e.off()
	e.buf = append(e.buf, data...)
	e.b.T.Nodes[ri].DOff, e.b.T.Nodes[ri].DLen = start, int32(len(data))
	records.Append(&e.b, data, start, e.c.RecordsOptions())
	e.b.Close(e.off())
}

// tagEntry is one tagged field to write: a known field or an unknown tag.
type tagEntry struct {
	tag int64
	fp  *fplan
	n   int32
}

func (e *encoder) tagSection(p *plan, vi int32) {
	if len(p.tagged) == 0 && !e.hasUnknownTags(vi) {
		// Nothing to write but the empty section, the usual case.
		off := e.off()
		e.buf = append(e.buf, 0)
		e.b.Leaf(tree.Node{Kind: tree.TagSection, Wire: tree.WireUvarint, Off: off, Size: 1})
		return
	}
	var entries []tagEntry
	for _, fp := range p.tagged {
		n := int32(-1)
		if vi >= 0 {
			n = e.v.LookupRef(vi, fp.ref)
		}
		if n < 0 || e.isDefault(fp.f, n) {
			continue
		}
		entries = append(entries, tagEntry{int64(fp.f.Tag), fp, n})
	}
	if vi >= 0 {
		e.v.Fields(vi, func(c int32) bool {
			if e.v.Nodes[c].Kind == tree.UnknownTag {
				entries = append(entries, tagEntry{tag: e.v.Nodes[c].Num, n: c})
			}
			return true
		})
	}
	if len(entries) > 1 {
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].tag < entries[j].tag })
	}
	for i := 1; i < len(entries); i++ {
		if entries[i].tag == entries[i-1].tag {
			e.push("_tagged_fields")
			e.fail("tag %d is given twice", entries[i].tag)
			e.pop()
			return
		}
	}
	off := e.off()
	e.buf = wire.AppendUvarint(e.buf, uint32(len(entries)))
	if len(entries) == 0 {
		e.b.Leaf(tree.Node{Kind: tree.TagSection, Wire: tree.WireUvarint, Off: off, Size: e.off() - off})
		return
	}
	e.b.Open(tree.Node{Kind: tree.TagSection, Wire: tree.WireUvarint, Off: off, Num: int64(len(entries))})
	e.b.Leaf(tree.Node{Kind: tree.TagCount, Wire: tree.WireUvarint, Off: off, Size: e.off() - off, Num: int64(len(entries))})
	for _, en := range entries {
		eoff := e.off()
		var payload []byte
		var sub *encoder
		if en.fp != nil {
			// Encode the value on its own first: its size prefixes it.
			sub = &encoder{v: e.v, b: tree.Builder{T: &tree.Tree{}}, path: e.path.Clone()}
			sub.field(en.fp, en.n, true)
			if sub.err != nil {
				e.err = sub.err
				return
			}
			payload = sub.buf
		} else {
			payload = e.v.Data(en.n)
		}
		kind := tree.Tag
		var ref int32
		if en.fp != nil {
			ref = en.fp.ref
		} else {
			kind = tree.UnknownTag
		}
		ei := e.b.Open(tree.Node{Kind: kind, Ref: ref, Off: eoff, Num: en.tag})
		e.buf = wire.AppendUvarint(e.buf, uint32(en.tag))
		e.b.Leaf(tree.Node{Kind: tree.TagNumber, Wire: tree.WireUvarint, Off: eoff, Size: e.off() - eoff, Num: en.tag})
		soff := e.off()
		e.buf = wire.AppendUvarint(e.buf, uint32(len(payload)))
		e.b.Leaf(tree.Node{Kind: tree.TagSize, Wire: tree.WireUvarint, Off: soff, Size: e.off() - soff, Num: int64(len(payload))})
		poff := e.off()
		e.buf = append(e.buf, payload...)
		if sub != nil {
			base := int32(len(e.b.T.Nodes))
			for _, sn := range sub.b.T.Nodes {
				sn.Off += poff
				if sn.DOff != 0 || sn.DLen != 0 { // nodes with contents
					sn.DOff += poff
				}
				sn.End += base
				e.b.T.Nodes = append(e.b.T.Nodes, sn)
			}
		} else {
			e.b.T.Nodes[ei].DOff, e.b.T.Nodes[ei].DLen = poff, int32(len(payload))
			if len(payload) > 0 {
				e.b.Leaf(tree.Node{Kind: tree.Raw, Wire: tree.WireRaw, Off: poff, Size: int32(len(payload)), DOff: poff, DLen: int32(len(payload))})
			}
		}
		e.b.Close(e.off())
	}
	e.b.Close(e.off())
}

// hasUnknownTags reports whether struct value vi (none when -1) holds
// unknown tagged fields, directly or in a tag section (see Tree.Fields).
func (e *encoder) hasUnknownTags(vi int32) bool {
	if vi < 0 {
		return false
	}
	nodes := e.v.Nodes
	for c := vi + 1; c < nodes[vi].End; c = nodes[c].End {
		switch nodes[c].Kind {
		case tree.UnknownTag:
			return true
		case tree.TagSection:
			if nodes[c].End != c+1 {
				return true // may hold some: look closer
			}
		}
	}
	return false
}

// isDefault reports whether value n of field f equals f's default (Kafka's
// FieldSpec.generateNonDefaultValueCheck): tagged fields equal to their
// default are not written.
func (e *encoder) isDefault(f *spec.Field, ni int32) bool {
	n := &e.v.Nodes[ni]
	switch f.Type.Kind {
	case spec.KindBool, spec.KindInt8, spec.KindInt16, spec.KindUint16, spec.KindInt32, spec.KindUint32, spec.KindInt64:
		return n.Num == f.DefaultInt
	case spec.KindFloat64:
		return math.Float64frombits(uint64(n.Num)) == f.DefaultFloat
	case spec.KindUUID:
		var u [16]byte
		copy(u[:], e.v.Data(ni))
		return u == f.DefaultUUID
	case spec.KindString:
		if f.DefaultNull {
			return n.Null
		}
		return !n.Null && string(e.v.Data(ni)) == f.DefaultString
	case spec.KindBytes:
		if f.DefaultNull {
			return n.Null
		}
		return !n.Null && n.DLen == 0
	case spec.KindRecords:
		return n.Null
	case spec.KindArray:
		if f.DefaultNull {
			return n.Null
		}
		if n.Null {
			return false
		}
		empty := true
		e.v.Elements(ni, func(int32) bool { empty = false; return false })
		return empty
	case spec.KindStruct:
		if f.DefaultNull {
			return n.Null
		}
		if n.Null {
			return false
		}
		def := true
		e.v.Fields(ni, func(c int32) bool {
			cn := &e.v.Nodes[c]
			cf := e.v.Field(c)
			if cn.Kind == tree.UnknownTag || cf == nil || !e.isDefault(cf, c) {
				def = false
			}
			return def
		})
		return def
	}
	return false
}

// EncodeInto is Encode into an existing tree, reusing its node arena, with
// the frame written over buf from its start (buf's capacity is reused; its
// contents are not kept): a caller encoding many messages allocates
// nothing per message once both have grown. t is reset first; on success
// t.Bytes is the frame, which shares buf's storage. t must not be header
// or body, and buf must not hold their bytes.
func (c *Codec) EncodeInto(t *tree.Tree, buf []byte, m *spec.Message, version int16, header, body *tree.Tree) error {
	if m.Type != spec.Request && m.Type != spec.Response {
		return fmt.Errorf("%s is a %s, not a request or response: use EncodeRecord", m.Name, m.Type)
	}
	if err := c.checkVersion(m, version); err != nil {
		return err
	}
	req := m.Type == spec.Request
	hs, err := c.headerSpec(req)
	if err != nil {
		return err
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
	nodes := t.Nodes[:0]
	*t = tree.Tree{Nodes: nodes, Message: m, Version: version, HeaderVersion: hv, Sample: body != nil && body.Sample}
	if cap(nodes) == 0 {
		// Size the arena and buffer as Encode does.
		fresh := newEncoder(t, header, body)
		if cap(buf) < cap(fresh.buf) {
			buf = fresh.buf
		}
	}
	e := &encoder{b: tree.Builder{T: t}, buf: buf[:0], c: c}
	e.b.Open(tree.Node{Kind: tree.Message, Ref: tree.StructRef(m.Root), Num: int64(version)})
	e.b.Open(tree.Node{Kind: tree.Frame})
	e.buf = append(e.buf, 0, 0, 0, 0)
	sizeLeaf := e.b.Leaf(tree.Node{Kind: tree.FrameField, Wire: tree.WireInt32, Ref: refSize, Size: 4})
	e.b.Close(4)
	e.v = header
	e.push(hs.Name)
	e.b.Open(tree.Node{Kind: tree.Header, Ref: tree.StructRef(hs.Root), Num: int64(hv), Off: e.off()})
	e.structFields(c.plans.get(hs.Root, hv, hs.Flexible(hv)), rootOf(header))
	e.b.Close(e.off())
	e.pop()
	if e.err == nil {
		e.encodeBody(c, m, version, body)
	}
	if e.err != nil {
		return e.err
	}
	size := len(e.buf) - 4
	binary.BigEndian.PutUint32(e.buf, uint32(size))
	t.Nodes[sizeLeaf].Num = int64(size)
	e.b.Close(e.off())
	t.Bytes = e.buf
	return nil
}
