package codec

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC32C is the CRC-32C (Castagnoli) checksum that RecordBatch v2 stores
// over its bytes from attributes to the end (DefaultRecordBatch).
func CRC32C(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// recordBatchOverhead is the size of a RecordBatch v2 header
// (DefaultRecordBatch.RECORD_BATCH_OVERHEAD).
const recordBatchOverhead = 61

// Refs of record nodes: names and about texts are interned once.
var (
	refBatch        = tree.NameRef("RecordBatch", "RecordBatch v2 (magic 2)")
	refLegacy       = tree.NameRef("LegacyMessage", "legacy message set entry (magic 0 or 1)")
	refRecord       = tree.NameRef("Record", "one record of the batch")
	refPartial      = tree.NameRef("partial batch", "bytes at the end that do not hold a whole batch")
	refPayload      = tree.NameRef("records", "records payload, not decoded here (compressed or not a whole number of records)")
	refLegacyRest   = tree.NameRef("rest", "timestamp (v1), key and value")
	refRecordLength = tree.NameRef("length", "bytes after this field")
	refRecAttrs     = tree.NameRef("attributes", "unused")
	refTsDelta      = tree.NameRef("timestampDelta", "ms after baseTimestamp")
	refOffDelta     = tree.NameRef("offsetDelta", "offset minus baseOffset")
	refKey          = tree.NameRef("key", "record key")
	refValue        = tree.NameRef("value", "record value")
	refHeadersCount = tree.NameRef("headersCount", "number of record headers")
	refHeaderKey    = tree.NameRef("headerKey", "record header key")
	refHeaderValue  = tree.NameRef("headerValue", "record header value")
)

// AppendRecordSpans appends span nodes for the bytes of a records field
// (data, located at offset base of the tree's bytes): one RecordBatch node
// per batch with a leaf per header field and, for uncompressed v2 batches,
// one Record node per record. Bytes that do not form a complete batch
// (a partial tail, a compressed payload not decoded here) become Raw
// leaves, so the leaves always tile data exactly. A batch whose CRC-32C
// does not match carries tree.FlagBadCRC.
func AppendRecordSpans(b *tree.Builder, data []byte, base int32) {
	pos := 0
	for pos < len(data) {
		rest := data[pos:]
		raw := tree.Node{Kind: tree.Raw, Wire: tree.WireRaw, Ref: refPartial, Off: base + int32(pos), Size: int32(len(rest)), DOff: base + int32(pos), DLen: int32(len(rest))}
		if len(rest) < 17 {
			b.Leaf(raw)
			return
		}
		length := int64(int32(binary.BigEndian.Uint32(rest[8:])))
		magic := rest[16]
		total := 12 + length
		if length < 0 || total > int64(len(rest)) || (magic == 2 && total < recordBatchOverhead) {
			b.Leaf(raw)
			return
		}
		batch := rest[:total]
		if magic == 2 {
			appendBatchV2(b, batch, base+int32(pos))
		} else {
			appendLegacy(b, batch, base+int32(pos), magic)
		}
		pos += int(total)
	}
}

type batchField struct {
	ref  int32
	w    tree.Wire
	size int
}

func bf(name, about string, w tree.Wire, size int) batchField {
	return batchField{tree.NameRef(name, about), w, size}
}

var v2Header = []batchField{
	bf("baseOffset", "offset of the first record", tree.WireInt64, 8),
	bf("batchLength", "bytes after this field", tree.WireInt32, 4),
	bf("partitionLeaderEpoch", "leader epoch when appended (not covered by the CRC)", tree.WireInt32, 4),
	bf("magic", "record format version", tree.WireInt8, 1),
	bf("crc", "CRC-32C of attributes..end", tree.WireUint32, 4),
	bf("attributes", "compression, timestamp type, transactional, control, delete horizon", tree.WireInt16, 2),
	bf("lastOffsetDelta", "offset of the last record minus baseOffset", tree.WireInt32, 4),
	bf("baseTimestamp", "timestamp of the first record (ms)", tree.WireInt64, 8),
	bf("maxTimestamp", "largest timestamp in the batch (ms)", tree.WireInt64, 8),
	bf("producerId", "idempotent/transactional producer id, -1 if none", tree.WireInt64, 8),
	bf("producerEpoch", "producer epoch, -1 if none", tree.WireInt16, 2),
	bf("baseSequence", "sequence number of the first record, -1 if none", tree.WireInt32, 4),
	bf("recordsCount", "number of records", tree.WireInt32, 4),
}

const (
	v2CRC        = 4
	v2Attributes = 5
	v2Count      = 12
)

func readFixed(b []byte, w tree.Wire) int64 {
	switch w {
	case tree.WireInt8:
		return int64(int8(b[0]))
	case tree.WireInt16:
		return int64(int16(binary.BigEndian.Uint16(b)))
	case tree.WireInt32:
		return int64(int32(binary.BigEndian.Uint32(b)))
	case tree.WireUint32:
		return int64(binary.BigEndian.Uint32(b))
	case tree.WireInt64:
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// appendBatchV2 appends a RecordBatch v2 node. Its crc leaf holds the
// stored CRC in Num and the computed one in Index; both carry FlagBadCRC
// when they differ.
func appendBatchV2(b *tree.Builder, batch []byte, off int32) {
	stored := binary.BigEndian.Uint32(batch[17:])
	computed := CRC32C(batch[21:])
	var flags tree.Flags
	if stored != computed {
		flags = tree.FlagBadCRC
	}
	b.Open(tree.Node{Kind: tree.RecordBatch, Ref: refBatch, Off: off, Num: 2, Flags: flags})
	p := 0
	var attrs, count int64
	for i, f := range v2Header {
		n := tree.Node{Kind: tree.BatchField, Wire: f.w, Ref: f.ref, Off: off + int32(p), Size: int32(f.size), Num: readFixed(batch[p:], f.w)}
		switch i {
		case v2CRC:
			n.Index, n.Flags = int32(computed), flags
		case v2Attributes:
			attrs = n.Num
		case v2Count:
			count = n.Num
		}
		b.Leaf(n)
		p += f.size
	}
	body := batch[recordBatchOverhead:]
	if len(body) > 0 {
		if attrs&7 != 0 || !appendRecords(b, body, off+recordBatchOverhead, count) {
			b.Leaf(tree.Node{Kind: tree.Raw, Wire: tree.WireRaw, Ref: refPayload, Off: off + recordBatchOverhead, Size: int32(len(body)), DOff: off + recordBatchOverhead, DLen: int32(len(body))})
		}
	}
	b.Close(off + int32(len(batch)))
}

// appendRecords decodes count uncompressed v2 records; it returns false (and
// appends nothing) when they do not tile body exactly.
func appendRecords(b *tree.Builder, body []byte, off int32, count int64) bool {
	mark := int32(len(b.T.Nodes))
	r := wire.Reader{Buf: body}
	ok := true
	for i := int64(0); i < count && ok; i++ {
		start := r.Off
		length := r.Varint()
		if r.Failed() || length < 0 || int(length) > r.Remaining() {
			ok = false
			break
		}
		end := r.Off + int(length)
		b.Open(tree.Node{Kind: tree.Record, Ref: refRecord, Off: off + int32(start), Index: int32(i)})
		b.Leaf(tree.Node{Kind: tree.BatchField, Wire: tree.WireVarint, Ref: refRecordLength, Off: off + int32(start), Size: int32(r.Off - start), Num: int64(length)})
		sub := wire.Reader{Buf: body[:end], Off: r.Off}
		leaf := func(ref int32, w tree.Wire, v int64, s int) {
			if !sub.Failed() {
				b.Leaf(tree.Node{Kind: tree.BatchField, Wire: w, Ref: ref, Off: off + int32(s), Size: int32(sub.Off - s), Num: v})
			}
		}
		varbytes := func(ref int32, idx int32) {
			s := sub.Off
			n := sub.Varint()
			if sub.Failed() || n < -1 || int(n) > sub.Remaining() {
				ok = false
				return
			}
			nd := tree.Node{Kind: tree.BatchField, Wire: tree.WireVarBytes, Ref: ref, Index: idx, Off: off + int32(s), Num: int64(n)}
			if n < 0 {
				nd.Null = true
			} else {
				nd.DOff, nd.DLen = off+int32(sub.Off), n
				sub.Bytes(int(n))
			}
			nd.Size = int32(sub.Off - s)
			b.Leaf(nd)
		}
		s := sub.Off
		leaf(refRecAttrs, tree.WireInt8, int64(sub.Int8()), s)
		s = sub.Off
		leaf(refTsDelta, tree.WireVarlong, sub.Varlong(), s)
		s = sub.Off
		leaf(refOffDelta, tree.WireVarint, int64(sub.Varint()), s)
		varbytes(refKey, 0)
		if ok {
			varbytes(refValue, 0)
		}
		if ok {
			hs := sub.Off
			hc := sub.Varint()
			if sub.Failed() || hc < 0 || int(hc) > sub.Remaining() {
				ok = false
			} else {
				b.Leaf(tree.Node{Kind: tree.BatchField, Wire: tree.WireVarint, Ref: refHeadersCount, Off: off + int32(hs), Size: int32(sub.Off - hs), Num: int64(hc)})
				for h := int32(0); h < hc && ok; h++ {
					varbytes(refHeaderKey, h)
					if ok {
						varbytes(refHeaderValue, h)
					}
				}
			}
		}
		if sub.Failed() || sub.Off != end {
			ok = false
		}
		b.Close(off + int32(end))
		r.Off = end
	}
	if !ok || r.Off != len(body) {
		b.Truncate(mark)
		return false
	}
	return true
}

var legacyFields = []batchField{
	bf("offset", "offset of the message (of the last inner message for a compressed wrapper)", tree.WireInt64, 8),
	bf("messageSize", "bytes after this field", tree.WireInt32, 4),
	bf("crc", "CRC-32 of magic..end", tree.WireUint32, 4),
	bf("magic", "message format version", tree.WireInt8, 1),
	bf("attributes", "compression (bits 0-2), timestamp type (bit 3, v1)", tree.WireInt8, 1),
}

// appendLegacy shows a magic 0/1 message's fixed header, then the rest as
// raw bytes. The node's Num is the magic.
func appendLegacy(b *tree.Builder, msg []byte, off int32, magic byte) {
	b.Open(tree.Node{Kind: tree.RecordBatch, Ref: refLegacy, Off: off, Num: int64(magic)})
	p := 0
	for _, f := range legacyFields {
		if p+f.size > len(msg) {
			break
		}
		b.Leaf(tree.Node{Kind: tree.BatchField, Wire: f.w, Ref: f.ref, Off: off + int32(p), Size: int32(f.size), Num: readFixed(msg[p:], f.w)})
		p += f.size
	}
	if p < len(msg) {
		b.Leaf(tree.Node{Kind: tree.Raw, Wire: tree.WireRaw, Ref: refLegacyRest, Off: off + int32(p), Size: int32(len(msg) - p), DOff: off + int32(p), DLen: int32(len(msg) - p)})
	}
	b.Close(off + int32(len(msg)))
}
