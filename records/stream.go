package records

import (
	"fmt"
	"io"
	"slices"

	"github.com/kwire/kwire/wire"
)

// streamPiece is about the most decompressed bytes of a streamed payload
// that one part of DecodeParts holds (one record may take more).
const streamPiece = 1 << 20

// streamRecords decodes the count records of a v2 batch's payload that st
// streams, in the open Decompressed group of area a, as records does for
// one held whole: its bytes are read into the tree's Virtual a piece at a
// time, and the part is handed over (split) whenever it holds about
// streamPiece bytes or DecodeParts's nodes, so that only one part's bytes
// (and one record's) are held. A part of the payload that is not decoded
// (a surplus, the rest after a record that does not read) is Raw leaves
// of a piece each, in parts of their own, after its problem. It returns
// what records returns.
func (d *decoder) streamRecords(st *payloadStream, a area, count int32, info batchInfo) int32 {
	path := a.path
	// pos is where the next record starts in the tree's Virtual, at the
	// payload's byte at; Virtual[pos:] holds the payload's bytes from at
	// to read.
	pos := len(d.b.T.Virtual)
	var at, read int64
	fill := func(need int) bool {
		t := d.b.T
		if k := min(st.size-read, int64(need-(len(t.Virtual)-pos))); k > 0 {
			k = min(max(k, 64<<10), st.size-read)
			v := slices.Grow(t.Virtual, int(k))
			m, err := io.ReadFull(st.rd, v[len(v):len(v)+int(k)])
			t.Virtual = v[:len(v)+m]
			read += int64(m)
			if err != nil {
				return false
			}
		}
		return true
	}
	// split hands the part over at pos, and moves what is held after pos
	// to the start of Virtual's array, which the part handed over no
	// longer needs.
	n := int32(0) // the records decoded so far
	split := func() {
		buf := d.b.T.Virtual
		d.split(a.wireOff, pos, n)
		d.b.T.Virtual = append(buf[:0], d.b.T.Virtual...)
		pos = 0
	}
	// cover covers the payload's bytes from at to end with Raw leaves of
	// streamPiece bytes at most, the first with the problem msg at path;
	// it reports whether it got to end.
	cover := func(end int64, ref int32, path, msg string) bool {
		for first := true; ; first = false {
			if !fill(int(min(streamPiece, end-at))) {
				return false
			}
			n := int(min(int64(len(d.b.T.Virtual)-pos), end-at))
			i := d.raw(a, ref, int32(pos), n)
			if first {
				d.problem(a, i, int32(pos), path, msg)
			}
			pos += n
			at += int64(n)
			if at >= end || n == 0 || d.stopped() {
				return at >= end
			}
			split()
		}
	}
	// rest covers the payload's bytes from at on (cover).
	rest := func(ref int32, path, msg string) { cover(st.size, ref, path, msg) }
	maxRecord := d.o.MaxRecordBytes
	if maxRecord == 0 {
		maxRecord = DefaultMaxRecordBytes
	}
	for n < count && at < st.size {
		if msg := d.overRecords(a, n, st.size-at); msg != "" {
			rest(refUndecoded, recordPath(path, n), msg)
			return count
		}
		d.viewTried++
		if !fill(5) {
			return count
		}
		t := d.b.T
		r := wire.Reader{Buf: t.Virtual[pos:]}
		length := r.Varint()
		remaining := int(st.size - at - int64(r.Off))
		if msg := lengthProblem(&r, length, remaining); msg != "" {
			rest(refUndecoded, recordPath(path, n), msg)
			return count
		}
		if maxRecord > 0 && int64(r.Off)+int64(length) > maxRecord {
			// Not held: its bytes are shown as they stream by.
			msg := fmt.Sprintf("a record of %s, more than the %s a record may take to be decoded (the record bytes limit): shown as bytes, not decoded", wire.Bytes(int64(r.Off)+int64(length)), wire.Bytes(maxRecord))
			if !cover(at+int64(r.Off)+int64(length), refUndecoded, recordPath(path, n), msg) {
				return count
			}
			n++
			if n < count && at < st.size {
				split()
			}
			continue
		}
		if !fill(r.Off + int(length)) {
			return count
		}
		next, _, bad := d.record(d.b.T.Virtual, pos, 0, a, path, n, info, false)
		n++
		at += int64(next - pos)
		pos = next
		if d.stopped() {
			return count
		}
		if bad && n < count && at < st.size {
			rest(refUndecoded, recordPath(path, n), badRest(int(st.size-at)))
			return count
		}
		if n < count && at < st.size && (d.full() || pos >= streamPiece) {
			split()
		}
	}
	if at < st.size {
		rest(refExtra, path, surplus(int(st.size-at), count))
	}
	return n
}
