package codec

import (
	"encoding/binary"
	"fmt"

	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// maxString is the longest string Kafka reads or writes (Short.MAX_VALUE
// UTF-8 bytes, compact strings included).
const maxString = 32767

// decoder reads one message into a span tree. It writes nodes and checks
// what Kafka's reader checks; it reads no value it does not need (the
// tree reads them from the bytes when asked), and composes a field path
// only when it fails (from the groups open: tree.Builder.OpenPath).
type decoder struct {
	r      wire.Reader
	b      tree.Builder
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

func (d *decoder) failed() bool { return d.r.Failed() }

// close ends the innermost group at the current offset. After a failure the
// group is left open: the decode entry point closes the partial tree where
// its last leaf ends (closeTree), so that bytes read but not attributed
// (a length prefix whose contents are missing) are not claimed by a group.
func (d *decoder) close() {
	if !d.r.Failed() {
		d.b.Close(int32(d.r.Off))
	}
}

// pathOf is the path of the groups open, then the steps more (a scalar
// field's name, an element's index), for an error.
func (d *decoder) pathOf(more ...tree.Step) string {
	return append(d.b.OpenPath(), more...).String()
}

// fail records a failure at off, at the path of the groups open and the
// steps more.
func (d *decoder) fail(off int, msg string, more ...tree.Step) {
	d.r.Fail(off, msg)
	d.r.SetPath(d.pathOf(more...))
}

// mark attaches the path of the groups open and the steps more to a
// failure the reader recorded; it reports whether there is one.
func (d *decoder) mark(more ...tree.Step) bool {
	if d.r.Failed() {
		d.r.SetPath(d.pathOf(more...))
		return true
	}
	return false
}

// structFields decodes the fields of a struct at plan p into the open group.
func (d *decoder) structFields(p *plan) {
	if d.depth++; d.depth > maxDepth {
		d.fail(d.r.Off, fmt.Sprintf("structs nested more than %d deep (a spec whose struct contains itself?)", maxDepth))
		d.depth--
		return
	}
	for k := range p.steps {
		st := &p.steps[k]
		if st.width > 0 {
			if d.run(st) {
				continue
			}
		} else if fp := p.fields[st.lo]; fp.elemWidth > 0 && d.fixedArray(fp) {
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
		if off := d.r.Off; off < len(d.r.Buf) && d.r.Buf[off] == 0 && !d.r.Failed() {
			// No tagged fields, the usual case.
			d.r.Off++
			d.b.Leaf(tree.Node{Off: int32(off), Size: 1, S: shapeTagsEmpty})
		} else {
			d.tagSection(p)
		}
	}
	d.depth--
}

// fixedArray decodes array field fp of fixed-size scalar elements in one
// go — its group, length leaf and element leaves written straight into
// the arena — when its count is a one-byte compact length or an int32,
// not null, and all its elements are there; it returns false, having
// read nothing, otherwise, for array to decode it and say what is wrong.
func (d *decoder) fixedArray(fp *fplan) bool {
	off := d.r.Off
	buf := d.r.Buf
	var count, lsize int
	if fp.compact {
		if off >= len(buf) || buf[off] == 0 || buf[off] >= 0x80 {
			return false
		}
		count, lsize = int(buf[off])-1, 1
	} else {
		if off+4 > len(buf) {
			return false
		}
		c := int32(binary.BigEndian.Uint32(buf[off:]))
		if c < 0 {
			return false
		}
		count, lsize = int(c), 4
	}
	w := int(fp.elemWidth)
	end := off + lsize + count*w
	if end > len(buf) || d.r.Failed() {
		return false
	}
	dst := extend(d.b.T, 2+count)
	base := int32(len(d.b.T.Nodes) - len(dst))
	dst[0] = tree.Node{Off: int32(off), Size: int32(end - off), End: base + int32(2+count), S: fp.shape}
	dst[1] = tree.Node{Off: int32(off), Size: int32(lsize), End: base + 2, S: fp.lenShape}
	elems := dst[2:]
	eoff, ew, s := int32(off+lsize), int32(w), fp.elemShape
	for i := range elems {
		elems[i] = tree.Node{Off: eoff + ew*int32(i), Size: ew, End: base + 3 + int32(i), S: s}
	}
	d.r.Off = end
	return true
}

// extend lengthens t's arena by k nodes (growing it when it has no room)
// and returns them, to be written in place. Only the arena's length is
// stored back unless it grows: storing the slice's pointer too would cost
// a write barrier while the garbage collector runs.
func extend(t *tree.Tree, k int) []tree.Node {
	t.Nodes = tree.GrowNodes(t.Nodes, k)
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
	if end > len(d.r.Buf) {
		return false
	}
	dst := extend(d.b.T, len(st.tmpl))
	base := int32(len(d.b.T.Nodes) - len(dst))
	tmpl := st.tmpl[:len(dst)]
	for j := range tmpl {
		t := &tmpl[j]
		dst[j] = tree.Node{Off: int32(off) + t.Off, Size: t.Size, End: base + int32(j) + 1, S: t.S}
	}
	d.r.Off = end
	return true
}

// field decodes one field. tagged is true inside a tag entry (a nullable
// struct's presence marker is then a uvarint).
func (d *decoder) field(fp *fplan, tagged bool) {
	switch fp.kind {
	case spec.KindArray:
		d.array(fp)
	case spec.KindStruct:
		d.structField(fp, tagged)
	case spec.KindRecords:
		d.records(fp)
	default:
		off := d.r.Off
		null := d.scalar(fp.kind, fp.wire, fp.nullable)
		if d.r.Failed() {
			d.mark(tree.Name(fp.f.Name))
			return
		}
		s := fp.shape
		if null {
			s = s.With(tree.FlagNull)
		}
		d.b.Leaf(tree.Node{Off: int32(off), Size: int32(d.r.Off - off), S: s})
	}
}

// scalar reads past a fixed-size value, a string or bytes, checking what
// Kafka's reader checks, and reports whether it is null. A failure is
// recorded without a path: the caller adds it (mark).
func (d *decoder) scalar(k spec.Kind, w tree.Wire, nullable bool) (null bool) {
	off := d.r.Off
	if fs := k.FixedSize(); fs > 0 {
		d.r.Bytes(fs)
		return false
	}
	switch k {
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
			return false
		}
		if ln < 0 { // any negative length is null, as in Kafka
			if !nullable {
				d.r.Fail(off, fmt.Sprintf("null value for a non-nullable %s", k))
				return false
			}
			return true
		}
		if k == spec.KindString && ln > maxString {
			d.r.Fail(off, fmt.Sprintf("string of %d bytes is longer than Kafka's limit of %d", ln, maxString))
			return false
		}
		if ln > int64(d.r.Remaining()) {
			d.r.FailShort(d.r.Off, int(ln), d.r.Remaining(), fmt.Sprintf("length %d: need %s, have %d", ln, wire.Bytes(ln), d.r.Remaining()))
			return false
		}
		d.r.Off += int(ln)
	}
	return false
}

// compactLen turns the uvarint prefix of a compact string, bytes, array or
// records into a length as Kafka's Java reader does: readUnsignedVarint()
// - 1 in a 32-bit int, so 0 is null (-1), values from 0x80000001 up wrap
// to other negative lengths (also null), and 0x80000000 wraps to 2^31-1.
func compactLen(u uint32) int64 { return int64(int32(u - 1)) }

// length reads the count or size prefix of an array or records field fp
// (a uvarint N+1 when compact, else an int32; negative is null) and
// appends its Length leaf. It returns false after a failure.
func (d *decoder) length(fp *fplan) (int64, bool) {
	off := d.r.Off
	if fp.compact && off < len(d.r.Buf) && d.r.Buf[off] < 0x80 && !d.r.Failed() {
		// A one-byte uvarint, the usual case.
		d.r.Off++
		d.b.Leaf(tree.Node{Off: int32(off), Size: 1, S: fp.lenShape})
		return compactLen(uint32(d.r.Buf[off])), true
	}
	var n int64
	if fp.compact {
		n = compactLen(d.r.Uvarint())
	} else {
		n = int64(d.r.Int32())
	}
	if d.mark() {
		return 0, false
	}
	d.b.Leaf(tree.Node{Off: int32(off), Size: int32(d.r.Off - off), S: fp.lenShape})
	return n, true
}

func (d *decoder) array(fp *fplan) {
	off := d.r.Off
	ai := d.b.Open(tree.Node{Off: int32(off), S: fp.shape})
	count, ok := d.length(fp)
	if !ok {
		return
	}
	if count < 0 { // any negative count is null, as in Kafka
		if !fp.nullable {
			d.fail(off, "null array for a non-nullable field")
		} else {
			d.b.T.Nodes[ai].AddFlags(tree.FlagNull)
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
	} else if d.o.readBack && fp.elem == spec.KindStruct {
		minSize = 0 // the encoder's own count (DecodeOptions.readBack)
	}
	if count*minSize > int64(d.r.Remaining()) {
		d.fail(off, fmt.Sprintf("array of %d elements cannot fit in the %s that remain", count, wire.Bytes(d.r.Remaining())))
		d.b.T.Nodes[ai].Reshape(tree.NewShape(tree.Array, tree.WireNone, fp.ref, tree.AuxRefused))
		d.close()
		return
	}
	if w := fp.elemWidth; w > 0 {
		// Fixed-size elements: the check above guarantees every one is
		// there, so they are written straight into the arena.
		d.fixedElems(fp, int32(count), w)
		d.close()
		return
	}
	for i := int32(0); i < int32(count); i++ {
		eoff := d.r.Off
		if fp.elem == spec.KindStruct {
			d.b.Open(tree.Node{Off: int32(eoff), S: fp.sub.elemShape})
			d.structFields(fp.sub)
			d.close()
		} else {
			d.scalar(fp.elem, fp.elemWire, false)
			if d.r.Failed() {
				d.mark(tree.Index(int(i)))
			} else {
				d.b.Leaf(tree.Node{Off: int32(eoff), Size: int32(d.r.Off - eoff), S: fp.elemShape})
			}
		}
		if d.failed() {
			break
		}
	}
	d.close()
}

// fixedElems appends the count elements of fixed width w of array fp,
// all of which the input holds, writing the leaves straight into the
// arena.
func (d *decoder) fixedElems(fp *fplan, count, w int32) {
	dst := extend(d.b.T, int(count))
	base := int32(len(d.b.T.Nodes) - len(dst))
	off := int32(d.r.Off)
	s := fp.elemShape
	for i := range dst {
		dst[i] = tree.Node{Off: off + w*int32(i), Size: w, End: base + int32(i) + 1, S: s}
	}
	d.r.Off = int(off + count*w)
}

func (d *decoder) structField(fp *fplan, tagged bool) {
	off := d.r.Off
	si := d.b.Open(tree.Node{Off: int32(off), S: fp.shape})
	if fp.nullable {
		var present bool
		s := shapePresenceInt8
		if tagged {
			s = shapePresenceUvar
			present = d.r.Uvarint() != 0
		} else {
			present = d.r.Int8() >= 0 // Kafka: any negative byte is null
		}
		if d.mark() {
			d.close()
			return
		}
		d.b.Leaf(tree.Node{Off: int32(off), Size: int32(d.r.Off - off), S: s})
		if !present {
			d.b.T.Nodes[si].AddFlags(tree.FlagNull)
			d.close()
			return
		}
	}
	d.structFields(fp.sub)
	d.close()
}

func (d *decoder) records(fp *fplan) {
	off := d.r.Off
	ri := d.b.Open(tree.Node{Off: int32(off), S: fp.shape})
	ln, ok := d.length(fp)
	if !ok {
		return
	}
	switch {
	case ln < 0: // any negative length is null, as in Kafka
		if !fp.nullable {
			d.fail(off, "null records for a non-nullable field")
		} else {
			d.b.T.Nodes[ri].AddFlags(tree.FlagNull)
		}
	case ln > int64(d.r.Remaining()):
		d.r.FailShort(d.r.Off, int(ln), d.r.Remaining(), fmt.Sprintf("records of %s: need %s, have %d", wire.Bytes(ln), wire.Bytes(ln), d.r.Remaining()))
		d.mark()
	default:
		start := d.r.Off
		data := d.r.Bytes(int(ln))
		records.Append(&d.b, data, int32(start), d.recordsOptions()) // which names the path, from the builder, when it has bytes
	}
	d.close()
}

// tagSection decodes a flexible struct's tagged fields.
func (d *decoder) tagSection(p *plan) {
	if off := d.r.Off; off < len(d.r.Buf) && d.r.Buf[off] == 0 && !d.r.Failed() {
		// No tagged fields, the usual case.
		d.r.Off++
		d.b.Leaf(tree.Node{Off: int32(off), Size: 1, S: shapeTagsEmpty})
		return
	}
	section := tree.Name("_tagged_fields")
	off := d.r.Off
	count := d.r.Uvarint()
	if d.mark(section) {
		return
	}
	if count == 0 {
		d.b.Leaf(tree.Node{Off: int32(off), Size: int32(d.r.Off - off), S: shapeTagsEmpty})
		return
	}
	if int64(count) > int64(d.r.Remaining()) {
		d.fail(off, fmt.Sprintf("%d tagged fields cannot fit in the %s that remain", count, wire.Bytes(d.r.Remaining())), section)
		return
	}
	d.b.Open(tree.Node{Off: int32(off), S: shapeTagsEmpty})
	d.b.Leaf(tree.Node{Off: int32(off), Size: int32(d.r.Off - off), S: shapeTagCount})
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
				d.fail(eoff, fmt.Sprintf("duplicate tag %d", tag))
			} else {
				d.fail(eoff, fmt.Sprintf("tag %d after tag %d: tags must be in ascending order", tag, prev))
			}
			break
		}
		prev = int64(tag)
		if int64(size) > int64(d.r.Remaining()) {
			d.r.FailShort(toff, int(size), d.r.Remaining(), fmt.Sprintf("tag %d: size %d: need %s, have %d", tag, size, wire.Bytes(size), d.r.Remaining()))
			d.mark()
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
					d.fail(eoff, fmt.Sprintf("tag %d (%s) is not valid for version %d", tag, f.Name, p.version))
					break
				}
			}
			if d.failed() {
				break
			}
			d.r.Bytes(int(size))
			d.b.Open(tree.Node{Off: int32(eoff), S: shapeUnknownTag})
			d.b.Leaf(tree.Node{Off: int32(eoff), Size: int32(toff - eoff), S: shapeTagNumber})
			d.b.Leaf(tree.Node{Off: int32(toff), Size: int32(soff - toff), S: shapeTagSize})
			if size > 0 {
				d.b.Leaf(tree.Node{Off: int32(soff), Size: int32(size), S: shapeTagRaw})
			}
			d.close()
			continue
		}
		ti := d.b.Open(tree.Node{Off: int32(eoff), S: fp.tagShape})
		d.b.Leaf(tree.Node{Off: int32(eoff), Size: int32(toff - eoff), S: shapeTagNumber})
		d.b.Leaf(tree.Node{Off: int32(toff), Size: int32(soff - toff), S: shapeTagSize})
		// Kafka reads a known tag's value without checking its size prefix;
		// kwire does the same (and flags a mismatch) unless strict, where
		// the value must fit its declared size exactly.
		full := d.r.Buf
		if d.strict {
			d.r.Buf = full[:soff+int(size)]
		}
		d.field(fp, true) // a tagged field's path is its struct's
		d.r.Buf = full
		if !d.failed() && d.r.Off != soff+int(size) {
			if d.strict {
				d.fail(eoff, fmt.Sprintf("tag %d (%s): size says %s, the value used %d", tag, fp.f.Name, wire.Bytes(size), d.r.Off-soff), section)
			} else {
				d.b.T.Nodes[ti].AddFlags(tree.FlagSizeMismatch)
			}
		}
		d.close()
	}
	d.close()
}
