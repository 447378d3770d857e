package codec

import (
	"encoding/binary"
	"fmt"
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

// AppendRecordSpans appends span nodes for the bytes of a records field
// (data, located at offset base of the tree's bytes): one RecordBatch node
// per batch with a leaf per header field and, for uncompressed v2 batches,
// one Record node per record. Bytes that do not form a complete batch
// (a partial tail, a legacy or compressed payload not decoded here) become
// Raw leaves, so the leaves always tile data exactly.
func AppendRecordSpans(b *tree.Builder, data []byte, base int32) {
	pos := 0
	for pos < len(data) {
		rest := data[pos:]
		if len(rest) < 17 {
			b.Leaf(tree.Node{Kind: tree.Raw, Wire: tree.WireRaw, Name: "partial batch", About: fmt.Sprintf("%d bytes: too short for a batch header", len(rest)), Off: base + int32(pos), Size: int32(len(rest)), Data: rest})
			return
		}
		length := int64(int32(binary.BigEndian.Uint32(rest[8:])))
		magic := rest[16]
		total := 12 + length
		if length < 0 || total > int64(len(rest)) || (magic == 2 && total < recordBatchOverhead) {
			b.Leaf(tree.Node{Kind: tree.Raw, Wire: tree.WireRaw, Name: "partial batch", About: fmt.Sprintf("batch length %d, %d bytes present", length, len(rest)-12), Off: base + int32(pos), Size: int32(len(rest)), Data: rest})
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
	name, about string
	w           tree.Wire
	size        int
}

var v2Header = []batchField{
	{"baseOffset", "offset of the first record", tree.WireInt64, 8},
	{"batchLength", "bytes after this field", tree.WireInt32, 4},
	{"partitionLeaderEpoch", "leader epoch when appended (not covered by the CRC)", tree.WireInt32, 4},
	{"magic", "record format version", tree.WireInt8, 1},
	{"crc", "CRC-32C of attributes..end", tree.WireUint32, 4},
	{"attributes", "compression, timestamp type, transactional, control, delete horizon", tree.WireInt16, 2},
	{"lastOffsetDelta", "offset of the last record minus baseOffset", tree.WireInt32, 4},
	{"baseTimestamp", "timestamp of the first record (ms)", tree.WireInt64, 8},
	{"maxTimestamp", "largest timestamp in the batch (ms)", tree.WireInt64, 8},
	{"producerId", "idempotent/transactional producer id, -1 if none", tree.WireInt64, 8},
	{"producerEpoch", "producer epoch, -1 if none", tree.WireInt16, 2},
	{"baseSequence", "sequence number of the first record, -1 if none", tree.WireInt32, 4},
	{"recordsCount", "number of records", tree.WireInt32, 4},
}

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

func appendBatchV2(b *tree.Builder, batch []byte, off int32) {
	stored := binary.BigEndian.Uint32(batch[17:])
	computed := CRC32C(batch[21:])
	about := fmt.Sprintf("RecordBatch v2, %d bytes", len(batch))
	if stored == computed {
		about += ", CRC valid"
	} else {
		about += fmt.Sprintf(", CRC INVALID (computed 0x%08x)", computed)
	}
	b.Open(tree.Node{Kind: tree.RecordBatch, Name: "RecordBatch", About: about, Off: off, Num: 2})
	p := 0
	var attrs, count int64
	for _, f := range v2Header {
		v := readFixed(batch[p:], f.w)
		a := f.about
		switch f.name {
		case "crc":
			if stored == computed {
				a = fmt.Sprintf("CRC-32C of attributes..end: valid (0x%08x)", computed)
			} else {
				a = fmt.Sprintf("CRC-32C of attributes..end: INVALID, computed 0x%08x", computed)
			}
		case "attributes":
			attrs = v
			a = describeAttributes(v)
		case "recordsCount":
			count = v
		}
		b.Leaf(tree.Node{Kind: tree.BatchField, Wire: f.w, Name: f.name, About: a, Off: off + int32(p), Size: int32(f.size), Num: v})
		p += f.size
	}
	body := batch[recordBatchOverhead:]
	if len(body) > 0 {
		if attrs&7 != 0 || !appendRecords(b, body, off+recordBatchOverhead, count) {
			b.Leaf(tree.Node{Kind: tree.Raw, Wire: tree.WireRaw, Name: "records", About: fmt.Sprintf("%s records payload, not decoded here", compressionName(attrs&7)), Off: off + recordBatchOverhead, Size: int32(len(body)), Data: body})
		}
	}
	b.Close(off + int32(len(batch)))
}

func compressionName(c int64) string {
	switch c {
	case 0:
		return "uncompressed"
	case 1:
		return "gzip"
	case 2:
		return "snappy"
	case 3:
		return "lz4"
	case 4:
		return "zstd"
	}
	return fmt.Sprintf("compression %d", c)
}

func describeAttributes(v int64) string {
	s := compressionName(v & 7)
	if v&8 != 0 {
		s += ", LogAppendTime"
	} else {
		s += ", CreateTime"
	}
	if v&16 != 0 {
		s += ", transactional"
	}
	if v&32 != 0 {
		s += ", control"
	}
	if v&64 != 0 {
		s += ", delete horizon"
	}
	return s
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
		b.Open(tree.Node{Kind: tree.Record, Name: fmt.Sprintf("Record[%d]", i), Off: off + int32(start), Index: int32(i)})
		b.Leaf(tree.Node{Kind: tree.BatchField, Wire: tree.WireVarint, Name: "length", About: "bytes after this field", Off: off + int32(start), Size: int32(r.Off - start), Num: int64(length)})
		sub := wire.Reader{Buf: body[:end], Off: r.Off}
		leaf := func(name, about string, w tree.Wire, read func() int64) int64 {
			s := sub.Off
			v := read()
			if !sub.Failed() {
				b.Leaf(tree.Node{Kind: tree.BatchField, Wire: w, Name: name, About: about, Off: off + int32(s), Size: int32(sub.Off - s), Num: v})
			}
			return v
		}
		varbytes := func(name string) {
			s := sub.Off
			n := sub.Varint()
			if sub.Failed() || n < -1 || int(n) > sub.Remaining() {
				ok = false
				return
			}
			nd := tree.Node{Kind: tree.BatchField, Wire: tree.WireVarBytes, Name: name, Off: off + int32(s), Num: int64(n)}
			if n < 0 {
				nd.Null = true
			} else {
				nd.Data = sub.Bytes(int(n))
			}
			nd.Size = int32(sub.Off - s)
			b.Leaf(nd)
		}
		leaf("attributes", "unused", tree.WireInt8, func() int64 { return int64(sub.Int8()) })
		leaf("timestampDelta", "ms after baseTimestamp", tree.WireVarlong, sub.Varlong)
		leaf("offsetDelta", "offset minus baseOffset", tree.WireVarint, func() int64 { return int64(sub.Varint()) })
		varbytes("key")
		if ok {
			varbytes("value")
		}
		if ok {
			hs := sub.Off
			hc := sub.Varint()
			if sub.Failed() || hc < 0 || int(hc) > sub.Remaining() {
				ok = false
			} else {
				b.Leaf(tree.Node{Kind: tree.BatchField, Wire: tree.WireVarint, Name: "headersCount", Off: off + int32(hs), Size: int32(sub.Off - hs), Num: int64(hc)})
				for h := int32(0); h < hc && ok; h++ {
					varbytes(fmt.Sprintf("headerKey[%d]", h))
					if ok {
						varbytes(fmt.Sprintf("headerValue[%d]", h))
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
	{"offset", "offset of the message (of the last inner message for a compressed wrapper)", tree.WireInt64, 8},
	{"messageSize", "bytes after this field", tree.WireInt32, 4},
	{"crc", "CRC-32 of magic..end", tree.WireUint32, 4},
	{"magic", "message format version", tree.WireInt8, 1},
	{"attributes", "compression (bits 0-2), timestamp type (bit 3, v1)", tree.WireInt8, 1},
}

// appendLegacy shows a magic 0/1 message's fixed header, then the rest as
// raw bytes (full legacy decoding lives in the records package).
func appendLegacy(b *tree.Builder, msg []byte, off int32, magic byte) {
	b.Open(tree.Node{Kind: tree.RecordBatch, Name: fmt.Sprintf("LegacyMessage v%d", magic), About: fmt.Sprintf("message set entry, magic %d, %d bytes", magic, len(msg)), Off: off, Num: int64(magic)})
	p := 0
	for _, f := range legacyFields {
		if p+f.size > len(msg) {
			break
		}
		b.Leaf(tree.Node{Kind: tree.BatchField, Wire: f.w, Name: f.name, About: f.about, Off: off + int32(p), Size: int32(f.size), Num: readFixed(msg[p:], f.w)})
		p += f.size
	}
	if p < len(msg) {
		b.Leaf(tree.Node{Kind: tree.Raw, Wire: tree.WireRaw, Name: "rest", About: "timestamp (v1), key and value", Off: off + int32(p), Size: int32(len(msg) - p), Data: msg[p:]})
	}
	b.Close(off + int32(len(msg)))
}
