package records

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"slices"

	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// skipPiece is the size of the pieces NextEntryAt reads, each with the
// skipOverlap bytes after it (the header of an entry starting in it: an
// entry has at least 26 bytes, its checksum within the first 21).
const (
	skipPiece   = 1 << 20
	skipOverlap = 64
)

// NextEntryAt is where Decode of the bytes of r from start to end, which
// do not start with an entry, skips to: the first offset after start
// where r holds a whole entry whose checksum matches, searched with the
// checksum budget such a decode has (64 MiB and 16 times end-start), or
// -1 when there is none before end or the budget is spent. It reads r a
// piece of 1 MiB at a time, and checksums an entry as it reads it: memory
// is bounded by two pieces, not by the bytes searched or what a length
// claims. A reader of a file (logseg) skips garbage with it without
// holding it, and reports it with Skipped.
func NextEntryAt(r io.ReaderAt, start, end int64) (int64, error) {
	budget := crcSearchMin + crcSearchFactor*(end-start)
	buf := make([]byte, skipPiece+skipOverlap)
	var scratch []byte
	for at := start + 1; at+EntryHeader <= end; at += skipPiece {
		n := int(min(int64(len(buf)), end-at))
		if _, err := r.ReadAt(buf[:n], at); err != nil && err != io.EOF {
			return -1, err
		}
		for i := 0; i < skipPiece && i+EntryHeader <= n; i++ {
			if buf[i+16] > 2 {
				continue
			}
			q := at + int64(i)
			total := EntrySize(buf[i : i+EntryHeader])
			if total == 0 || total > end-q {
				continue
			}
			if budget -= total; budget < 0 {
				return -1, nil
			}
			if scratch == nil {
				scratch = make([]byte, skipPiece)
			}
			ok, err := entryCRCAt(r, q, total, buf[i:n], scratch)
			if err != nil {
				return -1, err
			}
			if ok {
				return q, nil
			}
		}
	}
	return -1, nil
}

// NextEntryIn is NextEntryAt for bytes that can be read once (standard
// input, a pipe): buf holds the first bytes read of bytes that do not
// start with an entry, and r the bytes after them. It reads r on to the
// first offset after buf's start where a whole entry whose checksum
// matches starts, and returns how many bytes lie before it (skipped) and
// the bytes it read from there on (rest: that entry at least); or, when
// there is none before r ends or the checksum budget is spent, the count
// of every byte to r's end, and rest nil. Its checksum budget is a
// decode's, counted on the bytes read so far (64 MiB and 16 times them).
// It holds the bytes from the candidate entry it checks on, and takes no
// entry larger than hold bytes, so memory is bounded by about twice hold
// and a piece, not by the bytes skipped; NextEntryAt, reading a file,
// takes any entry the file holds whole. buf's array may be reused.
func NextEntryIn(buf []byte, r io.Reader, hold int64) (skipped int64, rest []byte, err error) {
	var base, spent int64 // base: where buf starts, from the start of the bytes
	eof := false
	// more reads r until buf holds n bytes or r ends.
	more := func(n int) error {
		for !eof && len(buf) < n {
			if len(buf) == cap(buf) {
				buf = slices.Grow(buf, max(n-len(buf), skipPiece))
			}
			k, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+k]
			if err == io.EOF {
				eof = true
			} else if err != nil {
				return err
			}
		}
		return nil
	}
	// toEnd counts the bytes to r's end without holding them.
	toEnd := func() (int64, []byte, error) {
		n := base + int64(len(buf))
		piece := buf[:cap(buf)]
		if len(piece) == 0 {
			piece = make([]byte, skipPiece)
		}
		for !eof {
			k, err := r.Read(piece)
			n += int64(k)
			if err == io.EOF {
				break
			} else if err != nil {
				return n, nil, err
			}
		}
		return n, nil, nil
	}
	for i := 1; ; i++ {
		if i >= skipPiece && i >= len(buf)/2 {
			// What lies before i is skipped: not held.
			buf = buf[:copy(buf, buf[i:])]
			base += int64(i)
			i = 0
		}
		if err := more(i + EntryHeader); err != nil {
			return base + int64(len(buf)), nil, err
		}
		if len(buf) < i+EntryHeader {
			return base + int64(len(buf)), nil, nil
		}
		if buf[i+16] > 2 {
			continue
		}
		total := EntrySize(buf[i:])
		if total == 0 || total > hold {
			continue
		}
		if err := more(i + int(total)); err != nil {
			return base + int64(len(buf)), nil, err
		}
		if int64(len(buf)-i) < total {
			continue // cut by the end
		}
		if spent += total; spent > crcSearchMin+crcSearchFactor*(base+int64(len(buf))) {
			return toEnd()
		}
		if wholeEntry(buf[i:]) {
			return base + int64(i), buf[i:], nil
		}
	}
}

// entryCRCAt reports whether the entry of total bytes at offset q of r,
// whose first bytes are head (its header at least), has a checksum that
// matches (wholeEntry), reading what head lacks a piece at a time into
// scratch.
func entryCRCAt(r io.ReaderAt, q, total int64, head, scratch []byte) (bool, error) {
	from, stored := int64(21), binary.BigEndian.Uint32(head[17:])
	tab := castagnoli
	if head[16] != 2 {
		from, stored, tab = 16, binary.BigEndian.Uint32(head[12:]), crc32.IEEETable
	}
	if int64(len(head)) >= total {
		return crc32.Checksum(head[from:total], tab) == stored, nil
	}
	var sum uint32
	if int64(len(head)) > from {
		sum = crc32.Update(0, tab, head[from:])
		from = int64(len(head))
	}
	for from < total {
		k := min(int64(len(scratch)), total-from)
		if _, err := r.ReadAt(scratch[:k], q+from); err != nil && err != io.EOF {
			return false, err
		}
		sum = crc32.Update(sum, tab, scratch[:k])
		from += k
	}
	return sum == stored, nil
}

// Skipped is the problem Decode (with o) reports, as the bytes' entry k,
// for the n bytes at their start that are not an entry, skipped to the
// next whole entry (next set: NextEntryAt) or to
// the end: "unknown magic 7 (Kafka knows 0, 1 and 2): 4096 bytes skipped
// from 0x00ae to 0x10ae", or "N zero bytes from 0x00ae to 0x10ae" when
// zero says they are all zero bytes; or, when no entry follows and they could be the
// start of one cut by the end, "partial batch: …" (a notice unless
// o.Complete). head is their first bytes (EntryHeader of them at least,
// when there are as many). A reader that skips such bytes without holding
// them (logseg) reports them with it.
func Skipped(head []byte, n int64, next, zero bool, k int, o Options) tree.Problem {
	path := o.Path
	if path == "" {
		path = "records"
	}
	p := tree.Problem{VOff: -1, Path: index(path, k)}
	if !next {
		if msg, ok := partialBatchOf(head, n); ok {
			if o.Complete {
				msg += ": the records end inside it"
			}
			p.Msg, p.Notice = msg, !o.Complete
			return p
		}
	}
	to := "the end"
	if next {
		to = fmt.Sprintf("0x%04x", o.FileOffset+n)
	}
	rest := head
	if !next && n < logOverhead {
		rest = head[:n]
	}
	if zero {
		p.Msg = fmt.Sprintf("%s from 0x%04x to %s", zeroBytes(int(n)), o.FileOffset, to)
		return p
	}
	p.Msg = fmt.Sprintf("%s: %s skipped from 0x%04x to %s", notBatch(rest, int(n), next), wire.Bytes(int(n)), o.FileOffset, to)
	return p
}
