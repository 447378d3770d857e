package codec

import (
	"encoding/binary"
	"math"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// How the encoder's direct path writes a field (fplan.op): set when the
// plan is compiled, so that the path's loop dispatches on one byte.
const (
	opOther       uint8 = iota // not taken directly: the general path writes it
	opFixed                    // a fixed-size number (bool included)
	opData                     // a string or bytes
	opUUID                     // a uuid
	opArrayNum                 // an array of fixed-size numbers
	opArrayData                // an array of strings or bytes
	opArrayStruct              // an array of structs
	opStruct                   // a struct
	opRecords                  // records
)

// opOf is how the direct path writes positional field fp.
func opOf(fp *fplan) uint8 {
	switch fp.kind {
	case spec.KindArray:
		switch {
		case fp.elem == spec.KindStruct:
			return opArrayStruct
		case fp.elemNum.w > 0:
			return opArrayNum
		case fp.elem == spec.KindString || fp.elem == spec.KindBytes:
			return opArrayData
		}
	case spec.KindStruct:
		return opStruct
	case spec.KindRecords:
		return opRecords
	case spec.KindString, spec.KindBytes:
		return opData
	case spec.KindUUID:
		return opUUID
	default:
		if fp.num.w > 0 {
			return opFixed
		}
	}
	return opOther
}

// direct writes struct value vi at plan p as long as its children are
// what p writes, in order: p's positional fields (a Presence first
// aside), each node of its field's shape as decoding or a value tree
// gives it and holding a value the general path would write as it is,
// then nothing but an empty tag section. That is a message decoded and
// re-encoded at its version, or a value tree built for p's version, and
// then each node is read once. done is true once the struct is written,
// or once a struct it holds failed (e.err, with its path up to vi's
// field). Otherwise it has written positional fields 0 to k-1, whose
// nodes end at child cur, and nothing of field k on: the general path
// (generalFields) goes on from there, so that no node is written twice.
func (e *encoder) direct(p *plan, vi int32) (k int, cur int32, done bool) {
	v := e.v
	vn, b := v.Nodes, v.Bytes
	// buf is e.buf while the path writes: it is handed back to e.buf
	// around the calls that write through e.
	buf := e.buf
	// at is where field k's bytes start, c its node.
	at, c := len(buf), vi+1
	end := endOf(vn, vi)
	if c < end && vn[c].Kind() == tree.Presence {
		c = after(vn, c)
	}
	for k = 0; k < len(p.fields); k++ {
		fp := p.fields[k]
		at = len(buf)
		if c >= end {
			goto general
		}
		n := vn[c]
		if !n.S.Same(fp.shape) && !n.S.Same(fp.valShape) {
			goto general
		}
		if n.End <= c || fp.op <= opUUID && n.End != c+1 {
			// A node whose End is not past it, or a leaf field's node that
			// holds others: the general path's.
			goto general
		}
		var ok bool
		switch fp.op {
		case opFixed:
			// An int32 or int16 span leaf, the usual field, is written here.
			if n.S == fp.shape && n.Size == fp.width && n.Off >= 0 && int(n.Off)+int(fp.width) <= len(b) {
				if o := n.Off; fp.width == 4 {
					buf = append(buf, b[o], b[o+1], b[o+2], b[o+3])
					break
				} else if fp.width == 2 {
					buf = append(buf, b[o], b[o+1])
					break
				}
			}
			if n.S&tree.Shape(tree.FlagNum) != 0 && fp.width == 4 && fp.num.lo < 0 && n.Size == n.Off>>31 {
				// An int32 value leaf (Size is the sign of Off: in range).
				buf = binary.BigEndian.AppendUint32(buf, uint32(n.Off))
				break
			}
			if buf, ok = appendNum(buf, &fp.num, n, fp.shape, fp.width, b); !ok {
				goto general
			}
		case opData:
			if buf, ok = appendData(buf, v, n, c, fp.kind, fp.wire, fp.nullable); !ok {
				goto general
			}
		case opUUID:
			// Its 16 bytes as the general path reads them (Data: of a
			// value leaf or a span leaf, nothing of any other).
			data := v.Data(c)
			if n.S&tree.Shape(tree.FlagNull|tree.FlagNum) != 0 || len(data) != 16 {
				goto general
			}
			buf = append(buf, data...)
		case opRecords:
			if n.S&tree.Shape(tree.FlagNum) != 0 || n.Null() && !fp.nullable {
				goto general
			}
			if n.Null() {
				buf = appendCount(buf, fp.compact, -1)
				break
			}
			data := v.Data(c)
			buf = appendCount(buf, fp.compact, len(data))
			buf = append(buf, data...)
		case opStruct:
			if n.Null() {
				if !fp.nullable {
					goto general
				}
				buf = append(buf, 0xff) // int8 -1
				break
			}
			if fp.nullable {
				buf = append(buf, 1)
			}
			e.buf = buf
			if e.structFields(fp.sub, c); e.err != nil {
				e.up(tree.Name(fp.f.Name))
				return k, c, true
			}
			buf = e.buf
		case opArrayNum:
			if n.Null() {
				if !fp.nullable {
					goto general
				}
				buf = appendCount(buf, fp.compact, -1)
				break
			}
			if buf, ok = appendNumArray(buf, fp, vn, b, c, endOf(vn, c)); !ok {
				goto general
			}
		case opArrayData, opArrayStruct:
			if n.Null() {
				if !fp.nullable {
					goto general
				}
				buf = appendCount(buf, fp.compact, -1)
				break
			}
			if fp.op == opArrayStruct && fp.sub.span != nil && e.depth < maxDepth {
				// A decoded array of structs of fixed-size fields, unedited.
				if e.models == nil {
					e.models = make([]spanModel, spanDepth)
				}
				if buf, ok = spanElems(buf, fp, vn, b, c, endOf(vn, c), e.models[:max(0, min(len(e.models), maxDepth-e.depth))]); ok {
					break
				}
			}
			e.buf = buf
			switch e.directArray(fp, c, endOf(vn, c)) {
			case arrayFailed:
				e.up(tree.Name(fp.f.Name))
				return k, c, true
			case arrayOther:
				goto general
			}
			buf = e.buf
		default:
			goto general
		}
		c = n.End
	}
	// What follows the positional fields: nothing but an empty tag section
	// (an empty TagSection leaf, or no node) says there is nothing to write
	// but the empty section when flexible, nothing when not.
	at = len(buf)
	if c < end && (vn[c].Kind() != tree.TagSection || vn[c].End != c+1 || vn[c].End != end || !p.flexible) {
		goto general
	}
	if p.flexible {
		buf = append(buf, 0)
	}
	e.buf = buf
	return k, c, true
general:
	// Field k (or the tag section, k past the fields) is the general
	// path's, from its node on.
	e.buf = buf[:at]
	return k, c, false
}

// Outcomes of directArray.
const (
	arrayDone   = iota // written
	arrayOther         // not written: the general path writes it
	arrayFailed        // a struct element failed (e.err, its path up to its index)
)

// directArray writes the elements of non-null array value ni (children
// to end) of field fp, prefixed by their count, when each is what the
// direct path takes: a struct element (written by structFields), or a
// string or bytes leaf as appendData takes it. Other children than
// elements (a decoded array's Length) are skipped, as the count is the
// elements'.
func (e *encoder) directArray(fp *fplan, ni, end int32) int {
	v := e.v
	vn := v.Nodes
	buf := e.buf
	start := len(buf)
	if fp.compact {
		buf = append(buf, 0)
	} else {
		buf = append(buf, 0, 0, 0, 0)
	}
	count := 0
	switch fp.op {
	case opArrayStruct:
		e.buf = buf
		// Elements are written as structFields writes them, its checks
		// made once for all (a struct of no absent fields, not too deep).
		sub := fp.sub
		each := len(sub.absent) > 0 || e.depth >= maxDepth || e.c.general
		for c := ni + 1; c < end; c = after(vn, c) {
			if vn[c].Kind() != tree.Element {
				continue
			}
			if each {
				e.structFields(sub, c)
			} else {
				e.depth++
				e.fields(sub, c)
				e.depth--
			}
			if e.err != nil {
				e.up(tree.Index(count))
				return arrayFailed
			}
			count++
		}
		buf = e.buf
	default:
		for c := ni + 1; c < end; {
			n := vn[c]
			if n.Kind() != tree.Element {
				c = after(vn, c)
				continue
			}
			var ok bool
			if n.End != c+1 {
				e.buf = buf[:start]
				return arrayOther
			}
			if buf, ok = appendData(buf, v, n, c, fp.elem, fp.elemWire, false); !ok {
				e.buf = buf[:start]
				return arrayOther
			}
			count++
			c = n.End
		}
	}
	e.buf = buf
	e.patchCount(start, fp.compact, count)
	return arrayDone
}

// appendNumArray appends the elements of non-null array value ni
// (children to end, in vn over bytes b) of fixed-size numbers of field
// fp, prefixed by their count, when each is a leaf as appendNum takes it
// (a decoded array's Length skipped); it returns false, having appended
// nothing, otherwise.
func appendNumArray(buf []byte, fp *fplan, vn []tree.Node, b []byte, ni, end int32) ([]byte, bool) {
	start := len(buf)
	if fp.compact {
		buf = append(buf, 0)
	} else {
		buf = append(buf, 0, 0, 0, 0)
	}
	r, span, width := &fp.elemNum, fp.elemShape, fp.elemWidth
	int32s := width == 4 && !r.bool && r.lo < 0
	count := 0
	for c := ni + 1; c < end; {
		n := vn[c]
		if n.Kind() != tree.Element {
			c = after(vn, c)
			continue
		}
		if n.End != c+1 {
			// An element that holds other nodes: the general path's.
			return buf[:start], false
		}
		c++
		// An int32 leaf, the usual element, is written here: a span
		// leaf's bytes, or the number a value leaf holds.
		if int32s && n.S == span && n.Size == 4 && n.Off >= 0 && int(n.Off)+4 <= len(b) {
			buf = binary.BigEndian.AppendUint32(buf, binary.BigEndian.Uint32(b[n.Off:]))
		} else if int32s && n.S&tree.Shape(tree.FlagNum) != 0 && n.Size == n.Off>>31 {
			// Size is the sign of Off: an int32 in range.
			buf = binary.BigEndian.AppendUint32(buf, uint32(n.Off))
		} else {
			var ok bool
			if buf, ok = appendNum(buf, r, n, span, width, b); !ok {
				return buf[:start], false
			}
		}
		count++
	}
	return setCount(buf, start, fp.compact, count), true
}

// appendCount is encoder.length on buf, which it returns.
func appendCount(buf []byte, compact bool, n int) []byte {
	if compact {
		if n+1 < 0x80 {
			return append(buf, byte(n+1))
		}
		return wire.AppendUvarint(buf, uint32(n+1))
	}
	return wire.AppendInt32(buf, int32(n))
}

// appendData appends string or bytes leaf n (node c of v; kind k, wire
// w) with its length prefix when it is null and nullable, or holds
// contents that are no longer than Kafka's limit for a string; it
// returns false, having appended nothing, otherwise.
func appendData(buf []byte, v *tree.Tree, n tree.Node, c int32, k spec.Kind, w tree.Wire, nullable bool) ([]byte, bool) {
	if n.S&tree.Shape(tree.FlagNum) != 0 {
		return buf, false
	}
	if n.Null() {
		if !nullable {
			return buf, false
		}
		return appendLen(buf, w, -1), true
	}
	data := v.Data(c)
	if k == spec.KindString && len(data) > maxString {
		return buf, false
	}
	buf = appendLen(buf, w, len(data))
	return append(buf, data...), true
}

// appendNum appends fixed-size number leaf n (a field or an element)
// when it holds its value (FlagNum), in range r, or is a span leaf of
// shape span and width bytes in b (a bool written 0 or 1); it returns
// false, having appended nothing, otherwise.
func appendNum(buf []byte, r *numRange, n tree.Node, span tree.Shape, width int32, b []byte) ([]byte, bool) {
	if num, ok := n.HeldNum(); ok {
		return appendNumber(buf, r, num)
	}
	if n.S != span || n.Size != width || n.Off < 0 || int(n.Off)+int(width) > len(b) {
		return buf, false
	}
	w := b[n.Off:]
	switch width {
	case 1:
		c := w[0]
		if r.bool && c != 0 {
			c = 1
		}
		return append(buf, c), true
	case 2:
		return append(buf, w[0], w[1]), true
	case 4:
		return append(buf, w[0], w[1], w[2], w[3]), true
	}
	return binary.BigEndian.AppendUint64(buf, binary.BigEndian.Uint64(w)), true
}

// spanElems appends array value ni (children to end, in vn over bytes
// b) of struct field fp, whose element plan has a span, when it is what
// decoding that plan's version gives, unedited: the array's node of
// fp's shape, its Length leaf, then elements of the plan's element shape
// whose children are, in order, the nodes of each spanOp and, when
// flexible, an empty tag section, every leaf a span leaf (no value,
// null, problem or virtual flag; a null string or bytes its null flag
// alone) starting where the one before it ended, each length the count
// or size that follows it in its shortest form, each bool 0 or 1 and
// each tag section 0. What the direct path writes for it is then those
// leaves' bytes one after the other, so they are copied. It returns
// false, having appended nothing (buf as it was), for any other array.
// models are the elements of vn taken before, one for each depth of
// arrays nested in elements (spanner.array); whoever holds them clears
// them before another tree, and their length is how deep arrays may
// nest from here (a model taken where they could nest deeper is not
// matched).
func spanElems(buf []byte, fp *fplan, vn []tree.Node, b []byte, ni, end int32, models []spanModel) ([]byte, bool) {
	if len(b) == 0 || len(b) > math.MaxInt32 || end > int32(len(vn)) || ni < 0 || ni >= end {
		return buf, false
	}
	s := spanner{vn: vn, b: b, buf: buf, models: models}
	if _, ok := s.array(fp, ni, end, -1, 0, true); !ok {
		return buf, false
	}
	return s.buf, true
}

// spanner checks arrays for spanElems: vn over b, the bytes taken
// appended to buf, and models[d] the element taken last at depth d.
type spanner struct {
	vn     []tree.Node
	b      []byte
	buf    []byte
	models []spanModel
}

// spanModel is an element a spanner checked field by field, in an
// encoding's value, which later elements of its plan are compared with
// node by node (tree.Shifted): of plan sub, node at of the value's
// arena, its first byte at off, eN nodes and eB bytes long. sub is nil
// when there is none. A model is of the nodes and bytes it was taken
// from: whoever holds models clears them for others. same and bools are where in it,
// relative to off, the bytes lie that the direct path does not copy as
// they are (marks: the bytes of its lengths, size prefixes and tag
// sections, its bools), noted once marked is set.
type spanModel struct {
	sub     *plan
	at, off int32
	eN, eB  int32
	depths  int // len(spanner.models) when it was checked
	marked  bool
	same    []int32
	bools   []int32
}

// array checks array ni (children to end) of field fp at depth d as
// spanElems says, its bytes starting at at (anywhere when at is -1),
// and returns where they end; when copying, they are appended to s.buf
// (and, when it is not taken, s.buf is as it was).
//
// An element is checked field by field (element), or, when its nodes
// are those of an element taken before (the model, kept from array to
// array, or the element just before it) shifted by the node count and
// bytes between the two (tree.Shifted, for a run of elements at once),
// node by node against those: its leaves then tile its bytes as the
// other's do, its lengths and sizes count what they did, and what is
// left to read is the bytes of its lengths, size prefixes and tag
// sections (which must be the other's, the same counts and sizes
// written the same shortest way) and its bools. An element's own Off
// and Size and an array's own Size, which neither path reads, are
// compared as they are and checked nowhere (tree.Shifted's carry is
// harmless there).
func (s *spanner) array(fp *fplan, ni, end, at int32, d int, copying bool) (int32, bool) {
	vn, b := s.vn, s.b
	if d >= len(s.models) || vn[ni].S != fp.shape || ni+1 >= end {
		return 0, false
	}
	ln := vn[ni+1]
	if ln.S != fp.lenShape || ln.End != ni+2 || ln.Off < 0 || ln.Size <= 0 || int(ln.Off)+int(ln.Size) > len(b) || at >= 0 && ln.Off != at {
		return 0, false
	}
	mod := &s.models[d]
	if mod.sub != fp.sub || mod.at+mod.eN > int32(len(vn)) || int(mod.off)+int(mod.eB) > len(b) {
		mod.sub = nil
	}
	// A model taken where arrays could nest deeper than they can here
	// (nearer the encoder's depth limit) may hold arrays element refuses
	// here: it is none.
	if mod.sub != nil && mod.depths > len(s.models) {
		mod.sub = nil
	}
	// next is where the next leaf starts, never past len(b): each node is
	// compared whole with the one decoding would have made there. The
	// bytes of each element are appended as it is taken (before its bytes
	// are read, which then read them cached), and all are dropped again
	// when one is not.
	orig := len(s.buf)
	start := ln.Off
	next := ln.Off + ln.Size
	if copying {
		s.buf = append(s.buf, b[start:next]...)
	}
	count := 0
	prev := int32(-1) // the element before, laid out as the model; -1 when not
	for c := ni + 2; c < end; {
		eN, eB := mod.eN, mod.eB
		// An element of another node count than the model's is not it
		// shifted: the check of its first node is saved.
		same := mod.sub != nil && c+eN <= end && vn[c].End-c == eN
		if prev < 0 && same && c > mod.at && next > mod.off && int(next)+int(eB) <= len(b) &&
			tree.Shifted(vn[mod.at:mod.at+eN], vn[c:c+eN], next-mod.off, c-mod.at) == int(eN) && s.marks(mod).sameBytes(b, mod.off, next) {
			if copying {
				s.buf = append(s.buf, b[next:next+eB]...)
			}
			prev = c
			c += eN
			next += eB
			count++
			same = c+eN <= end && vn[c].End-c == eN
		}
		if prev >= 0 && same {
			// As many elements as follow laid out as prev is.
			k := min(int(end-c)/int(eN), (len(b)-int(next))/int(eB))
			if k = min(k, tree.Shifted(vn[prev:], vn[c:c+int32(k)*eN], eB, eN)/int(eN)); k > 0 {
				to := len(s.buf)
				if copying {
					s.buf = append(s.buf, b[next:int(next)+k*int(eB)]...)
				}
				k = s.marks(mod).sameRun(b, next-eB, k)
				if copying {
					s.buf = s.buf[:to+k*int(eB)]
				}
				c += int32(k) * eN
				next += int32(k) * eB
				count += k
				if k > 0 {
					prev = c - eN
					continue
				}
			}
		}
		if c >= end {
			break
		}
		prev = -1
		first := next
		var ok bool
		if next, ok = s.element(fp.sub, c, end, next, d); !ok {
			s.buf = s.buf[:orig]
			return 0, false
		}
		if copying {
			s.buf = append(s.buf, b[first:next]...)
		}
		if vn[c].End > c+1 && vn[c+1].Off == first && next > first {
			mod.sub, mod.marked, mod.depths = fp.sub, false, len(s.models)
			mod.at, mod.off, mod.eN, mod.eB = c, first, vn[c].End-c, next-first
			prev = c
		}
		c = vn[c].End
		count++
	}
	if !canonicalCount(b, int(start), int(ln.Size), fp.compact, count) {
		s.buf = s.buf[:orig]
		return 0, false
	}
	return next, true
}

// marks notes model mod's marks from its nodes, once, and returns mod.
func (s *spanner) marks(mod *spanModel) *spanModel {
	if mod.marked {
		return mod
	}
	mod.marked = true
	mod.same, mod.bools = mod.same[:0], mod.bools[:0]
	vn, b := s.vn, s.b
	for i := mod.at + 1; i < mod.at+mod.eN; i++ {
		n := vn[i]
		if n.End != i+1 {
			continue // a group: its bytes are its children's
		}
		o := n.Off - mod.off
		switch n.Kind() {
		case tree.Length, tree.TagSection:
			for k := o; k < o+n.Size; k++ {
				mod.same = append(mod.same, k)
			}
		case tree.Field:
			switch n.Wire() {
			case tree.WireBool:
				mod.bools = append(mod.bools, o)
			case tree.WireString, tree.WireBytes, tree.WireCompactString, tree.WireCompactBytes:
				pre := n.Size // a null's prefix is the whole leaf
				if !n.Null() {
					switch n.Wire() {
					case tree.WireString:
						pre = 2
					case tree.WireBytes:
						pre = 4
					default:
						_, k := wire.UvarintAt(b, int(n.Off))
						pre = int32(k)
					}
				}
				for k := o; k < o+pre; k++ {
					mod.same = append(mod.same, k)
				}
			}
		}
	}
	return mod
}

// sameBytes reports whether the element at b[at:] repeats the marks of
// the one at b[was:] and has its bools 0 or 1; both lie whole in b.
func (mod *spanModel) sameBytes(b []byte, was, at int32) bool {
	old, cur := b[was:was+mod.eB], b[at:at+mod.eB]
	var diff, high byte
	for _, o := range mod.same {
		diff |= cur[o] ^ old[o]
	}
	for _, o := range mod.bools {
		high |= cur[o] &^ 1
	}
	return diff|high == 0
}

// sameRun returns how many of the k elements from b[was+eB:] on repeat,
// each, the marks of the element before it and have their bools 0 or 1,
// counting from the first; the k+1 elements from b[was:] lie whole in b.
// It reads the run mark by mark, and element by element only when one
// differs.
func (mod *spanModel) sameRun(b []byte, was int32, k int) int {
	size := int(mod.eB)
	run := b[was : int(was)+(k+1)*size]
	var diff, high byte
	for _, o := range mod.same {
		want := run[o]
		for j := int(o) + size; j < len(run); j += size {
			diff |= run[j] ^ want
		}
	}
	for _, o := range mod.bools {
		for j := int(o) + size; j < len(run); j += size {
			high |= run[j] &^ 1
		}
	}
	if diff|high == 0 {
		return k
	}
	for j := range k {
		if !mod.sameBytes(b, was, was+mod.eB) {
			return j
		}
		was += mod.eB
	}
	return k
}

// element checks element c (before end; its first byte at next) of a
// plan with a span, at depth d, field by field as spanElems says; it
// returns where the element's bytes end.
func (s *spanner) element(sub *plan, c, end, next int32, d int) (int32, bool) {
	vn, b := s.vn, s.b
	ops, es, flexible := sub.span, sub.elemShape, sub.flexible
	el := vn[c]
	if el.S != es || el.End <= c || el.End > end {
		return next, false
	}
	c++
	for i := range ops {
		op := &ops[i]
		if c >= el.End {
			return next, false
		}
		switch op.kind {
		case spanLeaf:
			if int(next)+int(op.width) > len(b) || vn[c] != (tree.Node{Off: next, Size: op.width, End: c + 1, S: op.shape}) {
				return next, false
			}
			if op.bool && b[next] > 1 {
				return next, false
			}
			next += op.width
			c++
		case spanData:
			n := vn[c]
			if n.Off != next || n.End != c+1 || n.Size <= 0 || int(next)+int(n.Size) > len(b) {
				return next, false
			}
			if !dataPrefix(b[next:next+n.Size], op, n.S) {
				return next, false
			}
			next += n.Size
			c++
		case spanNums:
			// An array of numbers: its Length, then its elements.
			n := vn[c]
			aend := n.End
			if n.S != op.shape || n.Off != next || aend <= c+1 || aend > el.End {
				return next, false
			}
			l := vn[c+1]
			k := int(aend - c - 2)
			if l.S != op.lenShape || l.End != c+2 || l.Off != next || !canonicalCount(b, int(next), int(l.Size), op.compact, k) {
				return next, false
			}
			next += l.Size
			if int(next)+k*int(op.width) > len(b) {
				return next, false
			}
			want := tree.Node{Off: next, Size: op.width, End: c + 3, S: op.elemShape}
			for _, e := range vn[c+2 : aend] {
				if e != want {
					return next, false
				}
				want.Off += op.width
				want.End++
			}
			next = want.Off
			c = aend
		case spanStructs:
			// An array of structs with a span, one depth further.
			aend := vn[c].End
			if aend <= c+1 || aend > el.End || vn[c].Off != next {
				return next, false
			}
			var ok bool
			if next, ok = s.array(op.fp, c, aend, next, d+1, false); !ok {
				return next, false
			}
			c = aend
		default:
			return next, false
		}
	}
	if flexible {
		if c >= el.End || int(next) >= len(b) || vn[c] != (tree.Node{Off: next, Size: 1, End: c + 1, S: shapeTagsEmpty}) || b[next] != 0 {
			return next, false
		}
		next++
		c++
	}
	return next, c == el.End
}

// dataPrefix reports whether the direct path writes string or bytes
// span leaf bytes w of shape sh (op's shape, or it with the null flag
// alone when op's field is nullable) as they are: their prefix the
// shortest form of the contents' length (a string's no longer than
// Kafka's limit), or of -1 and nothing after it when null.
func dataPrefix(w []byte, op *spanOp, sh tree.Shape) bool {
	null := false
	switch sh {
	case op.shape:
	case op.shape | tree.Shape(tree.FlagNull):
		if !op.nullable {
			return false
		}
		null = true
	default:
		return false
	}
	var n, pre int
	switch op.wire {
	case tree.WireCompactString, tree.WireCompactBytes:
		u, k := wire.UvarintAt(w, 0)
		if k <= 0 || k != wire.UvarintLen(u) {
			return false
		}
		n, pre = int(u)-1, k
	case tree.WireString:
		if len(w) < 2 {
			return false
		}
		n, pre = int(int16(binary.BigEndian.Uint16(w))), 2
	case tree.WireBytes:
		if len(w) < 4 {
			return false
		}
		n, pre = int(int32(binary.BigEndian.Uint32(w))), 4
	default:
		return false
	}
	if null {
		return n == -1 && len(w) == pre
	}
	return n >= 0 && n == len(w)-pre && (!op.str || n <= maxString)
}

// canonicalCount reports whether the size bytes at b[off:] are count as
// an array's length prefix is written (appendCount): the uvarint
// count+1 in its shortest form when compact, else an int32.
func canonicalCount(b []byte, off, size int, compact bool, count int) bool {
	if off < 0 || size <= 0 || off+size > len(b) {
		return false
	}
	if !compact {
		return size == 4 && int64(int32(binary.BigEndian.Uint32(b[off:]))) == int64(count)
	}
	if count+1 < 0x80 {
		return size == 1 && int(b[off]) == count+1
	}
	if count+1 > math.MaxUint32 || size != wire.UvarintLen(uint32(count+1)) {
		return false
	}
	v, n := wire.UvarintAt(b, off)
	return n == size && int(v) == count+1
}
