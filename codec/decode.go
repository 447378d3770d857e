package codec

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// maxString is the longest string Kafka reads or writes (Short.MAX_VALUE
// UTF-8 bytes, compact strings included).
const maxString = 32767

// decoder reads one message into a span tree.
type decoder struct {
	r      wire.Reader
	b      tree.Builder
	path   tree.Path
	strict bool
	// truncated is set when the size prefix claims more bytes than the
	// input holds; decoding goes on over what is there.
	truncated *FrameError
	depth     int
	// c is the codec decoding (its records options).
	c *Codec
	// o are the options of this decode.
	o DecodeOptions
}

// maxDepth bounds struct nesting on decode and encode. Kafka's own specs
// nest at most 5 deep; a spec whose struct contains itself (through an
// array or a nullable struct) could otherwise recurse without end.
const maxDepth = 64

func (d *decoder) push(name string) { d.path.Push(name) }
func (d *decoder) pushIdx(i int32)  { d.path.PushIndex(int(i)) }
func (d *decoder) pop()             { d.path.Pop() }
func (d *decoder) failed() bool     { return d.r.Failed() }

// close ends the innermost group at the current offset. After a failure the
// group is left open: the decode entry point closes the partial tree where
// its last leaf ends (closeTree), so that bytes read but not attributed
// (a length prefix whose contents are missing) are not claimed by a group.
func (d *decoder) close() {
	if !d.r.Failed() {
		d.b.Close(int32(d.r.Off))
	}
}
func (d *decoder) fail(off int, format string, args ...any) {
	d.r.Fail(off, fmt.Sprintf(format, args...))
	d.r.SetPath(pathString(d.path))
}

// failNoPath records a failure whose path the caller sets (with mark).
func (d *decoder) failNoPath(off int, format string, args ...any) {
	d.r.Fail(off, fmt.Sprintf(format, args...))
}

// mark attaches the current path to a failure recorded by the reader.
func (d *decoder) mark() bool {
	if d.r.Failed() {
		d.r.SetPath(pathString(d.path))
		return true
	}
	return false
}

func pathString(p tree.Path) string { return p.String() }

// structFields decodes the fields of a struct at plan p into the open group.
func (d *decoder) structFields(p *plan) {
	if d.depth++; d.depth > maxDepth {
		d.fail(d.r.Off, "structs nested more than %d deep (a spec whose struct contains itself?)", maxDepth)
		d.depth--
		return
	}
	for k := range p.steps {
		st := &p.steps[k]
		if st.width > 0 && d.run(st) {
			continue
		}
		for _, fp := range p.fields[st.lo:st.hi] {
			d.field(fp, false)
			if d.failed() {
				d.depth--
				return
			}
		}
	}
	if p.flexible {
		d.tagSection(p)
	}
	d.depth--
}

// extend lengthens t's arena by k nodes (growing it when it has no room)
// and returns them, to be written in place. Only the arena's length is
// stored back unless it grows: storing the slice's pointer too would cost
// a write barrier while the garbage collector runs.
func extend(t *tree.Tree, k int) []tree.Node {
	if cap(t.Nodes)-len(t.Nodes) < k {
		t.Nodes = slices.Grow(t.Nodes, k)
	}
	base := len(t.Nodes)
	t.Nodes = t.Nodes[:base+k]
	return t.Nodes[base:]
}

// run decodes the run of fixed-size scalar fields st when all its bytes
// are there, writing its leaves straight into the arena from st's
// templates; it returns false (having read nothing) when they are not,
// for the fields to be decoded one by one and the missing one reported.
func (d *decoder) run(st *step) bool {
	off := d.r.Off
	end := off + int(st.width)
	buf := d.r.Buf
	if end > len(buf) {
		return false
	}
	b := buf[off:end]
	dst := extend(d.b.T, len(st.tmpl))
	base := len(d.b.T.Nodes) - len(dst)
	for j := range st.tmpl {
		t := &st.tmpl[j]
		if j >= len(dst) {
			break
		}
		n := &dst[j]
		*n = *t
		n.Off = int32(off) + t.Off
		n.End = int32(base + j + 1)
		n.Num, n.DOff, n.DLen = readValue(b[t.Off:], t.Num, n.Off)
	}
	d.r.Off = end
	return true
}

// readValue reads the fixed-size value b starts with, of read kind rk, at
// wire offset off: its Num, or for a uuid its contents.
func readValue(b []byte, rk readKind, off int32) (num int64, doff, dlen int32) {
	switch rk {
	case readBool:
		if b[0] != 0 {
			num = 1 // any non-zero byte reads as true, as in Kafka
		}
	case readInt8:
		num = int64(int8(b[0]))
	case readInt16:
		num = int64(int16(binary.BigEndian.Uint16(b)))
	case readUint16:
		num = int64(binary.BigEndian.Uint16(b))
	case readInt32:
		num = int64(int32(binary.BigEndian.Uint32(b)))
	case readUint32:
		num = int64(binary.BigEndian.Uint32(b))
	case readInt64:
		num = int64(binary.BigEndian.Uint64(b))
	default:
		doff, dlen = off, 16
	}
	return
}

// field decodes one field. tagged is true inside a tag entry (a nullable
// struct's presence marker is then a uvarint).
func (d *decoder) field(fp *fplan, tagged bool) {
	off := d.r.Off
	switch fp.kind {
	case spec.KindArray:
		d.push(fp.f.Name)
		d.array(fp)
		d.pop()
	case spec.KindStruct:
		d.push(fp.f.Name)
		d.structField(fp, tagged)
		d.pop()
	case spec.KindRecords:
		d.push(fp.f.Name)
		d.records(fp)
		d.pop()
	default:
		// A scalar pushes no path step unless it fails: scalar records a
		// failure without a path, and the field's name is added here.
		n := d.scalar(fp.kind, fp.wire, fp.nullable)
		if d.r.Failed() {
			d.push(fp.f.Name)
			d.mark()
			d.pop()
			return
		}
		n.Kind, n.Ref, n.Off = tree.Field, fp.ref, int32(off)
		n.Size = int32(d.r.Off - off)
		d.b.Leaf(n)
	}
}

// scalar reads a fixed-size value, a string or bytes. A failure is
// recorded without a path: the caller adds it (mark).
func (d *decoder) scalar(k spec.Kind, w tree.Wire, nullable bool) tree.Node {
	n := tree.Node{Wire: w}
	off := d.r.Off
	switch k {
	case spec.KindBool:
		n.Num = int64(d.r.Int8())
		if n.Num != 0 {
			n.Num = 1 // any non-zero byte reads as true, as in Kafka
		}
	case spec.KindInt8:
		n.Num = int64(d.r.Int8())
	case spec.KindInt16:
		n.Num = int64(d.r.Int16())
	case spec.KindUint16:
		n.Num = int64(d.r.Uint16())
	case spec.KindInt32:
		n.Num = int64(d.r.Int32())
	case spec.KindUint32:
		n.Num = int64(d.r.Uint32())
	case spec.KindInt64, spec.KindFloat64:
		n.Num = d.r.Int64()
	case spec.KindUUID:
		n.DOff, n.DLen = int32(d.r.Off), 16
		d.r.Bytes(16)
	case spec.KindString, spec.KindBytes, spec.KindRecords:
		var ln int64
		switch w {
		case tree.WireCompactString, tree.WireCompactBytes:
			ln = compactLen(d.r.Uvarint())
		case tree.WireString:
			ln = int64(d.r.Int16())
		default:
			ln = int64(d.r.Int32())
		}
		if d.r.Failed() {
			return n
		}
		if ln < 0 { // any negative length is null, as in Kafka
			if !nullable {
				d.failNoPath(off, "null value for a non-nullable %s", k)
				return n
			}
			n.Null = true
			return n
		}
		if k == spec.KindString && ln > maxString {
			d.failNoPath(off, "string of %d bytes is longer than Kafka's limit of %d", ln, maxString)
			return n
		}
		if ln > int64(d.r.Remaining()) {
			d.r.FailShort(d.r.Off, int(ln), d.r.Remaining(), fmt.Sprintf("length %d: need %s, have %d", ln, wire.Bytes(ln), d.r.Remaining()))
			return n
		}
		n.DOff, n.DLen = int32(d.r.Off), int32(ln)
		d.r.Bytes(int(ln))
	}
	return n
}

// length reads the count or size prefix of an array or records field (a
// uvarint N+1 when compact, else an int32; -1 is null) and appends its
// Length leaf. It returns false after a failure.
// compactLen turns the uvarint prefix of a compact string, bytes, array or
// records into a length as Kafka's Java reader does: readUnsignedVarint()
// - 1 in a 32-bit int, so 0 is null (-1), values from 0x80000001 up wrap
// to other negative lengths (also null), and 0x80000000 wraps to 2^31-1.
func compactLen(u uint32) int64 { return int64(int32(u - 1)) }

func (d *decoder) length(compact bool) (int64, bool) {
	off := d.r.Off
	if compact && off < len(d.r.Buf) && d.r.Buf[off] < 0x80 && !d.r.Failed() {
		// A one-byte uvarint, the usual case.
		n := compactLen(uint32(d.r.Buf[off]))
		d.r.Off++
		d.b.Leaf(tree.Node{Kind: tree.Length, Wire: tree.WireUvarint, Off: int32(off), Size: 1, Num: n})
		return n, true
	}
	var n int64
	w := tree.WireInt32
	if compact {
		w = tree.WireUvarint
		n = compactLen(d.r.Uvarint())
	} else {
		n = int64(d.r.Int32())
	}
	if d.mark() {
		return 0, false
	}
	d.b.Leaf(tree.Node{Kind: tree.Length, Wire: w, Off: int32(off), Size: int32(d.r.Off - off), Num: n})
	return n, true
}

func (d *decoder) array(fp *fplan) {
	off := d.r.Off
	ai := d.b.Open(tree.Node{Kind: tree.Array, Ref: fp.ref, Off: int32(off)})
	count, ok := d.length(fp.compact)
	if !ok {
		return
	}
	if count < 0 { // any negative count is null, as in Kafka
		if !fp.nullable {
			d.fail(off, "null array for a non-nullable field")
		} else {
			d.b.T.Nodes[ai].Null = true
		}
		d.close()
		return
	}
	// Like Kafka, refuse a count above the bytes that remain even when an
	// element may take no bytes (a struct whose fields are all absent in
	// this version): four bytes must not ask for 2^31 elements.
	minSize := int64(1)
	if fs := fp.elem.FixedSize(); fs > 0 {
		minSize = int64(fs)
	}
	if count*minSize > int64(d.r.Remaining()) {
		d.fail(off, "array of %d elements cannot fit in the %s that remain", count, wire.Bytes(d.r.Remaining()))
		d.close()
		return
	}
	d.b.T.Nodes[ai].Index = int32(count)
	if w := fp.elemWidth; w > 0 {
		// Fixed-size elements: the check above guarantees every one is
		// there, so they are read straight into the arena.
		d.fixedElems(fp, int32(count), w)
		d.close()
		return
	}
	for i := int32(0); i < int32(count); i++ {
		eoff := d.r.Off
		if fp.elem == spec.KindStruct {
			d.pushIdx(i)
			d.b.Open(tree.Node{Kind: tree.Element, Ref: fp.sub.ref, Index: i, Off: int32(eoff)})
			d.structFields(fp.sub)
			d.close()
			d.pop()
		} else {
			n := d.scalar(fp.elem, fp.elemWire, false)
			if d.r.Failed() {
				d.pushIdx(i)
				d.mark()
				d.pop()
			} else {
				n.Kind, n.Index, n.Off, n.Size = tree.Element, i, int32(eoff), int32(d.r.Off-eoff)
				d.b.Leaf(n)
			}
		}
		if d.failed() {
			break
		}
	}
	d.close()
}

// fixedElems appends the count elements of fixed width w of array fp,
// all of which the input holds: one loop per width, writing the leaves
// straight into the arena.
func (d *decoder) fixedElems(fp *fplan, count, w int32) {
	dst := extend(d.b.T, int(count))
	base := int32(len(d.b.T.Nodes) - len(dst))
	off := int32(d.r.Off)
	src := d.r.Buf[off : int(off)+int(count)*int(w)]
	wire := fp.elemWire
	switch fp.elem {
	case spec.KindInt32:
		for i := range dst {
			v := int64(int32(binary.BigEndian.Uint32(src[4*i:])))
			dst[i] = tree.Node{Kind: tree.Element, Wire: wire, Index: int32(i), Off: off + 4*int32(i), Size: 4, End: base + int32(i) + 1, Num: v}
		}
	case spec.KindInt64, spec.KindFloat64:
		for i := range dst {
			v := int64(binary.BigEndian.Uint64(src[8*i:]))
			dst[i] = tree.Node{Kind: tree.Element, Wire: wire, Index: int32(i), Off: off + 8*int32(i), Size: 8, End: base + int32(i) + 1, Num: v}
		}
	default:
		rk := readKindOf(fp.elem)
		for i := range dst {
			o := int32(i) * w
			n := tree.Node{Kind: tree.Element, Wire: wire, Index: int32(i), Off: off + o, Size: w, End: base + int32(i) + 1}
			n.Num, n.DOff, n.DLen = readValue(src[o:], rk, off+o)
			dst[i] = n
		}
	}
	d.r.Off = int(off) + len(src)
}

func (d *decoder) structField(fp *fplan, tagged bool) {
	off := d.r.Off
	si := d.b.Open(tree.Node{Kind: tree.Struct, Ref: fp.ref, Off: int32(off)})
	if fp.nullable {
		var present bool
		w := tree.WireInt8
		var v int64
		if tagged {
			w = tree.WireUvarint
			v = int64(d.r.Uvarint())
			present = v != 0
		} else {
			v = int64(d.r.Int8())
			present = v >= 0 // Kafka: any negative byte is null
		}
		if d.mark() {
			d.close()
			return
		}
		d.b.Leaf(tree.Node{Kind: tree.Presence, Wire: w, Off: int32(off), Size: int32(d.r.Off - off), Num: v})
		if !present {
			d.b.T.Nodes[si].Null = true
			d.close()
			return
		}
	}
	d.structFields(fp.sub)
	d.close()
}

func (d *decoder) records(fp *fplan) {
	off := d.r.Off
	ri := d.b.Open(tree.Node{Kind: tree.Records, Ref: fp.ref, Wire: fp.wire, Off: int32(off)})
	ln, ok := d.length(fp.compact)
	if !ok {
		return
	}
	switch {
	case ln < 0: // any negative length is null, as in Kafka
		if !fp.nullable {
			d.fail(off, "null records for a non-nullable field")
		} else {
			d.b.T.Nodes[ri].Null = true
		}
	case ln > int64(d.r.Remaining()):
		d.r.FailShort(d.r.Off, int(ln), d.r.Remaining(), fmt.Sprintf("records of %s: need %s, have %d", wire.Bytes(ln), wire.Bytes(ln), d.r.Remaining()))
		d.r.SetPath(pathString(d.path))
	default:
		start := d.r.Off
		data := d.r.Bytes(int(ln))
		d.b.T.Nodes[ri].DOff, d.b.T.Nodes[ri].DLen = int32(start), int32(ln)
		records.Append(&d.b, data, int32(start), d.recordsOptions())
	}
	d.close()
}

// tagSection decodes a flexible struct's tagged fields.
func (d *decoder) tagSection(p *plan) {
	if off := d.r.Off; off < len(d.r.Buf) && d.r.Buf[off] == 0 && !d.r.Failed() {
		// No tagged fields, the usual case.
		d.r.Off++
		d.b.Leaf(tree.Node{Kind: tree.TagSection, Wire: tree.WireUvarint, Off: int32(off), Size: 1})
		return
	}
	d.push("_tagged_fields")
	defer d.pop()
	off := d.r.Off
	count := d.r.Uvarint()
	if d.mark() {
		return
	}
	if count == 0 {
		d.b.Leaf(tree.Node{Kind: tree.TagSection, Wire: tree.WireUvarint, Off: int32(off), Size: int32(d.r.Off - off)})
		return
	}
	if int64(count) > int64(d.r.Remaining()) {
		d.fail(off, "%d tagged fields cannot fit in the %s that remain", count, wire.Bytes(d.r.Remaining()))
		return
	}
	d.b.Open(tree.Node{Kind: tree.TagSection, Wire: tree.WireUvarint, Off: int32(off), Num: int64(count)})
	d.b.Leaf(tree.Node{Kind: tree.TagCount, Wire: tree.WireUvarint, Off: int32(off), Size: int32(d.r.Off - off), Num: int64(count)})
	prev := int64(-1)
	for i := uint32(0); i < count && !d.failed(); i++ {
		eoff := d.r.Off
		tag := d.r.Uvarint()
		toff := d.r.Off
		size := d.r.Uvarint()
		soff := d.r.Off
		if d.mark() {
			break
		}
		if d.strict && int64(tag) <= prev {
			if int64(tag) == prev {
				d.fail(eoff, "duplicate tag %d", tag)
			} else {
				d.fail(eoff, "tag %d after tag %d: tags must be in ascending order", tag, prev)
			}
			break
		}
		prev = int64(tag)
		if int64(size) > int64(d.r.Remaining()) {
			d.r.FailShort(toff, int(size), d.r.Remaining(), fmt.Sprintf("tag %d: size %d: need %s, have %d", tag, size, wire.Bytes(size), d.r.Remaining()))
			d.r.SetPath(pathString(d.path))
			break
		}
		var fp *fplan
		for _, t := range p.tagged {
			if uint32(t.f.Tag) == tag {
				fp = t
				break
			}
		}
		if fp == nil {
			for _, f := range p.st.Fields {
				if f.HasTag && uint32(f.Tag) == tag {
					d.fail(eoff, "tag %d (%s) is not valid for version %d", tag, f.Name, p.version)
					break
				}
			}
			if d.failed() {
				break
			}
			d.r.Bytes(int(size))
			d.b.Open(tree.Node{Kind: tree.UnknownTag, Off: int32(eoff), Num: int64(tag), DOff: int32(soff), DLen: int32(size)})
			d.b.Leaf(tree.Node{Kind: tree.TagNumber, Wire: tree.WireUvarint, Off: int32(eoff), Size: int32(toff - eoff), Num: int64(tag)})
			d.b.Leaf(tree.Node{Kind: tree.TagSize, Wire: tree.WireUvarint, Off: int32(toff), Size: int32(soff - toff), Num: int64(size)})
			if size > 0 {
				d.b.Leaf(tree.Node{Kind: tree.Raw, Wire: tree.WireRaw, Off: int32(soff), Size: int32(size), DOff: int32(soff), DLen: int32(size)})
			}
			d.close()
			continue
		}
		d.b.Open(tree.Node{Kind: tree.Tag, Ref: fp.ref, Off: int32(eoff), Num: int64(tag)})
		d.b.Leaf(tree.Node{Kind: tree.TagNumber, Wire: tree.WireUvarint, Off: int32(eoff), Size: int32(toff - eoff), Num: int64(tag)})
		d.b.Leaf(tree.Node{Kind: tree.TagSize, Wire: tree.WireUvarint, Off: int32(toff), Size: int32(soff - toff), Num: int64(size)})
		// Kafka reads a known tag's value without checking its size prefix;
		// kwire does the same (and flags a mismatch) unless strict, where
		// the value must fit its declared size exactly.
		full := d.r.Buf
		if d.strict {
			d.r.Buf = full[:soff+int(size)]
		}
		ti := int32(len(d.b.T.Nodes)) - 3
		d.path.Pop() // tagged fields belong to the struct
		d.field(fp, true)
		d.push("_tagged_fields")
		d.r.Buf = full
		if !d.failed() && d.r.Off != soff+int(size) {
			if d.strict {
				d.fail(eoff, "tag %d (%s): size says %s, the value used %d", tag, fp.f.Name, wire.Bytes(size), d.r.Off-soff)
			} else {
				d.b.T.Nodes[ti].Flags |= tree.FlagSizeMismatch
			}
		}
		d.close()
	}
	d.close()
}
