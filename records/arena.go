package records

import (
	"encoding/binary"

	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// Nodes a record makes when its fields read and none is decoded further:
// the Record group, its length, attributes, timestampDelta, offsetDelta,
// key, value and headersCount leaves (and two a header).
const nodesPerRecord = 8

// plainMaxHeaders is the most headers of a record that plainRecord reads.
const plainMaxHeaders = 256

// estimateNodes is about the nodes that decoding the entries of data
// makes, read from their headers alone, so that the node arena is sized
// once rather than grown again and again: a v2 batch's header leaves and
// nodesPerRecord a record it counts, the records bounded by what the bytes
// can hold (7 bytes a record uncompressed, 4 bytes of compressed payload
// a record); a legacy message's leaves. Bytes that are not an entry count
// a node for every 4 of them. It is at most one node a byte of data (and
// Options.MaxNodes): an estimate, never a count read from the bytes
// alone, so that it allocates no more than the bytes can make. lead is
// the part of it up to the first record of a v2 batch, all of it when
// there is none.
func estimateNodes(data []byte, o Options) (n, lead int) {
	lead = -1
	for pos := 0; pos < len(data); {
		rest := data[pos:]
		total := EntrySize(rest)
		if total == 0 || total > int64(len(rest)) {
			n += len(rest) / 4
			break
		}
		switch {
		case rest[16] != 2:
			n += 10
		case total < batchOverhead:
			n += 16
		default:
			body := int(total) - batchOverhead
			count := max(int(int32(binary.BigEndian.Uint32(rest[57:]))), 0)
			per := 7
			if attrs := binary.BigEndian.Uint16(rest[21:]); attrs&7 != 0 {
				per = 4
				if o.MaxDecompressed < 0 {
					count = 0
				}
				n += 2 // the compressed payload and its view
			}
			n += 14
			recs := min(count, body/per)
			if lead < 0 && recs > 0 {
				lead = n
			}
			if o.Lazy {
				n += recs + nodesPerRecord // a node a record, and room to parse one
			} else {
				n += nodesPerRecord * recs
			}
		}
		pos += int(total)
	}
	n = min(n, len(data)+16)
	if o.MaxNodes > 0 {
		n = min(n, o.MaxNodes)
	}
	if lead < 0 || lead > n {
		lead = n
	}
	return n, lead
}

// firstReserve is how much of estimate n (lead of it before the first
// record) the arena is made to hold before the first record is decoded:
// the first record's nodes then tell scaleArena how many the others
// make; all of it for lazy records (a node each: nothing to learn).
func firstReserve(n, lead int, lazy bool) int {
	if lazy {
		return n
	}
	return min(n, lead+firstRecords*2*nodesPerRecord)
}

// firstRecords is the records the arena holds room for before
// scaleArena sizes it from the first one.
const firstRecords = 64

// reserveNodes grows the arena of the tree b builds, when it has not room
// for n more nodes, to hold them.
func reserveNodes(b *tree.Builder, n int) {
	if t := b.T; cap(t.Nodes)-len(t.Nodes) < n {
		t.Nodes = growNodes(t.Nodes, len(t.Nodes)+n)
	}
}

// growNodes is nodes in an arena of exactly size nodes (append's growth
// would round it up by a quarter or more), or of twice the nodes it holds
// when that is more: a message with many records fields (a Fetch response
// of many partitions) grows its arena once a field, and growing it by
// what each field wants alone would copy it again for every field.
func growNodes(nodes []tree.Node, size int) []tree.Node {
	size = max(size, 2*len(nodes))
	out := make([]tree.Node, len(nodes), size)
	copy(out, nodes)
	return out
}

// arena is what Append estimated of the nodes it makes.
type arena struct {
	// start is the length of the arena when Append began, est the nodes
	// estimated (estimateNodes), max the most the arena may be grown to
	// on the first record's evidence: its start and at most a node a
	// byte of the records, and twice est.
	start, est, max int
}

// scaleArena sizes the arena from the first record decoded, which made m
// nodes: the records still to decode are taken to make as many (at
// least nodesPerRecord, at most twice that: headers, a decoded key or
// value), so that the arena grows once, while it holds few nodes, and
// not as it fills. Later records change nothing.
func (d *decoder) scaleArena(m int) {
	ar := d.arena
	d.arena = arena{}
	if d.parts != nil {
		return
	}
	t := d.b.T
	made := len(t.Nodes) - ar.start
	rest := max(ar.est-made, 0) * min(max(m, nodesPerRecord), 2*nodesPerRecord) / nodesPerRecord
	want := min(len(t.Nodes)+rest, ar.max)
	if d.o.MaxNodes > 0 {
		want = min(want, d.o.MaxNodes)
	}
	if want > cap(t.Nodes) {
		t.Nodes = growNodes(t.Nodes, want)
	}
}

// plainRecord appends to nodes the nodes of the record at body[pos:] (at
// offset base+pos of its area, flagged fl) when it is a plain one: its
// length within body, its fields all reading and using exactly its
// length, its header keys not null. They are the nodes record makes for
// it when keys and values are shown as bytes, written without a
// recordReader, a Builder or a path. For any other record it returns ok
// false, and nodes as they were (their length; what lies past it may
// have been written): record then decodes it, with its problems.
//
// With lazy set (Options.Lazy), the record is one leaf: its fields are
// read and checked the same, but not kept as nodes (Expand makes them).
// next is where the record ends in body; extra is the nodes a lazy record
// makes whole past its one (0 when not lazy); headers is its headers
// count. A record of more than plainMaxHeaders headers is not a plain
// one: record bounds its headers (maxRecordHeaders, the view's records
// bound).
func plainRecord(nodes []tree.Node, body []byte, pos int, base int32, fl tree.Flags, lazy bool) (_ []tree.Node, next, extra, headers int, ok bool) {
	if lazy {
		end, headers, ok := plainEnd(body, pos)
		if !ok {
			return nodes, 0, 0, 0, false
		}
		// Whole, it is nodesPerRecord nodes and two a header.
		return append(nodes, tree.Node{Off: base + int32(pos), Size: int32(end - pos), End: int32(len(nodes) + 1), S: shRecordLazy.With(fl)}), end, nodesPerRecord - 1 + 2*headers, headers, true
	}
	length, n := wire.Varint2At(body, pos)
	if n == 0 {
		length, n = wire.VarintAt(body, pos)
	}
	if n == 0 || length < 0 || int(length) > len(body)-pos-n {
		return nodes, 0, 0, 0, false
	}
	end := pos + n + int(length)
	rec := body[:end]
	ri := len(nodes)
	nodes = tree.GrowNodes(nodes, nodesPerRecord)
	out := nodes[:ri+nodesPerRecord-1] // the record, length, attributes, deltas, key, value
	sfl := tree.Shape(0).With(fl)
	at := base + int32(pos)
	out[ri+1] = tree.Node{Off: at, Size: int32(n), End: int32(ri + 2), S: shRecordLength | sfl}
	p := pos + n
	if p >= end {
		return nodes, 0, 0, 0, false
	}
	out[ri+2] = tree.Node{Off: base + int32(p), Size: 1, End: int32(ri + 3), S: shRecAttrs | sfl}
	p++
	_, n = wire.VarlongAt(rec, p)
	if n == 0 {
		return nodes, 0, 0, 0, false
	}
	out[ri+3] = tree.Node{Off: base + int32(p), Size: int32(n), End: int32(ri + 4), S: shTsDelta | sfl}
	p += n
	if _, n = wire.Varint2At(rec, p); n == 0 {
		_, n = wire.VarintAt(rec, p)
	}
	if n == 0 {
		return nodes, 0, 0, 0, false
	}
	out[ri+4] = tree.Node{Off: base + int32(p), Size: int32(n), End: int32(ri + 5), S: shOffDelta | sfl}
	p += n
	var good bool
	if p, good = plainBytes(&out[ri+5], ri+5, rec, p, base, shKey|sfl, true); !good {
		return nodes, 0, 0, 0, false
	}
	if p, good = plainBytes(&out[ri+6], ri+6, rec, p, base, shValue|sfl, true); !good {
		return nodes, 0, 0, 0, false
	}
	hc, n := wire.Varint2At(rec, p)
	if n == 0 {
		hc, n = wire.VarintAt(rec, p)
	}
	if n == 0 || hc < 0 || int(hc) > end-p-n || hc > plainMaxHeaders {
		return nodes, 0, 0, 0, false
	}
	out = append(out, tree.Node{Off: base + int32(p), Size: int32(n), End: int32(len(out) + 1), S: shHeadersCount | sfl})
	p += n
	for h := int32(0); h < hc; h++ {
		for _, sh := range [2]tree.Shape{shHeaderKey, shHeaderValue} {
			out = append(out, tree.Node{})
			k := len(out) - 1
			if p, good = plainBytes(&out[k], k, rec, p, base, sh|sfl, sh == shHeaderValue); !good {
				return nodes, 0, 0, 0, false
			}
		}
	}
	if p != end {
		return nodes, 0, 0, 0, false
	}
	out[ri] = tree.Node{Off: at, Size: int32(end - pos), End: int32(len(out)), S: shRecord | sfl}
	return out, end, 0, int(hc), true
}

// plainEnd is where the record at body[pos:] ends, and how many headers
// it has, when it is a plain one as plainRecord reads it (its length
// within body, its fields all reading and using exactly its length, its
// header keys not null), without making its nodes: a lazy record's check
// (Options.Lazy). Its varints are read inlined when they are one or two
// bytes (wire.Varint2At), the usual lengths and deltas of records.
func plainEnd(body []byte, pos int) (end, headers int, ok bool) {
	length, n := wire.Varint2At(body, pos)
	if n == 0 {
		length, n = wire.VarintAt(body, pos)
	}
	if n == 0 || length < 0 || int(length) > len(body)-pos-n {
		return 0, 0, false
	}
	end = pos + n + int(length)
	rec := body[:end]
	p := pos + n + 1 // the attributes
	if p > end {
		return 0, 0, false
	}
	if _, n = wire.VarlongAt(rec, p); n == 0 { // timestampDelta
		return 0, 0, false
	}
	p += n
	_, n = wire.Varint2At(rec, p)
	if n == 0 {
		_, n = wire.VarintAt(rec, p)
	}
	if n == 0 { // offsetDelta
		return 0, 0, false
	}
	p += n
	for k := 0; k < 2; k++ { // key, value: null allowed
		l, n := wire.Varint2At(rec, p)
		if n == 0 {
			l, n = wire.VarintAt(rec, p)
		}
		if n == 0 || int(l) > len(rec)-p-n {
			return 0, 0, false
		}
		p += n + max(int(l), 0)
	}
	hc, n := wire.Varint2At(rec, p)
	if n == 0 {
		hc, n = wire.VarintAt(rec, p)
	}
	if n == 0 || hc < 0 || int(hc) > end-p-n || hc > plainMaxHeaders {
		return 0, 0, false
	}
	p += n
	for range hc {
		for k := 0; k < 2; k++ { // a header's key (not null), value
			l, n := wire.Varint2At(rec, p)
			if n == 0 {
				l, n = wire.VarintAt(rec, p)
			}
			if n == 0 || int(l) > len(rec)-p-n || k == 0 && l < 0 {
				return 0, 0, false
			}
			p += n + max(int(l), 0)
		}
	}
	return end, int(hc), p == end
}

// plainBytes writes to *nd, node k, the leaf of shape sh of the
// varint-length bytes at rec[p:] (a key, value or header; null allowed
// when nullOK) and returns where they end; ok false when they do not
// read.
func plainBytes(nd *tree.Node, k int, rec []byte, p int, base int32, sh tree.Shape, nullOK bool) (next int, ok bool) {
	l, n := int32(0), 1
	if v, ok := wire.Varint1At(rec, p); ok {
		l = v
	} else {
		l, n = wire.VarintAt(rec, p)
	}
	switch {
	case n == 0:
		return 0, false
	case l < 0:
		if !nullOK {
			return 0, false
		}
		*nd = tree.Node{Off: base + int32(p), Size: int32(n), End: int32(k + 1), S: sh.With(tree.FlagNull)}
		return p + n, true
	case int(l) > len(rec)-p-n:
		return 0, false
	}
	*nd = tree.Node{Off: base + int32(p), Size: int32(n) + l, End: int32(k + 1), S: sh}
	return p + n + int(l), true
}
