package records

import (
	"encoding/binary"
	"strconv"

	"github.com/kwire/kwire/tree"
)

// Compression is the compression codec of a record batch or legacy
// message: bits 0-2 of its attributes, numbered as Kafka's CompressionType
// ids.
type Compression uint8

// Compression codecs Kafka knows. Magic 0 and 1 know the first four.
const (
	CompressionNone   Compression = 0
	CompressionGzip   Compression = 1
	CompressionSnappy Compression = 2
	CompressionLZ4    Compression = 3
	CompressionZstd   Compression = 4
)

// String names the codec as kwire's views and problems do:
// "uncompressed", "gzip", "snappy", "lz4", "zstd", or "compression 5" for
// an id Kafka does not know.
func (c Compression) String() string { return string(c.AppendName(nil)) }

// AppendName appends the codec's name (see String) to b.
func (c Compression) AppendName(b []byte) []byte {
	switch c {
	case CompressionNone:
		return append(b, "uncompressed"...)
	case CompressionGzip:
		return append(b, "gzip"...)
	case CompressionSnappy:
		return append(b, "snappy"...)
	case CompressionLZ4:
		return append(b, "lz4"...)
	case CompressionZstd:
		return append(b, "zstd"...)
	}
	return strconv.AppendInt(append(b, "compression "...), int64(c), 10)
}

// Attributes is the attributes field of a log entry: the int16 of a
// RecordBatch v2 or the int8 of a legacy message (magic 0 and 1 use bits
// 0-2 and, magic 1 only, bit 3).
type Attributes int16

// Compression is bits 0-2: the codec of the entry's records.
func (a Attributes) Compression() Compression { return Compression(a & 7) }

// TimestampType is bit 3 (v2 and magic 1).
func (a Attributes) TimestampType() TimestampType { return timestampTypeOf(int64(a)) }

// Transactional is bit 4 (v2): the batch belongs to a transaction.
func (a Attributes) Transactional() bool { return a&0x10 != 0 }

// Control is bit 5 (v2): the batch holds control records (transaction
// markers, KRaft control records).
func (a Attributes) Control() bool { return a&0x20 != 0 }

// DeleteHorizon is bit 6 (v2): the batch's baseTimestamp is the delete
// horizon that compaction set, not the first record's timestamp.
func (a Attributes) DeleteHorizon() bool { return a&0x40 != 0 }

// AppendText appends the attributes spelled out for an entry of the given
// magic: the codec, then for magic 1 and 2 the timestamp type, then for
// magic 2 "transactional", "control" and "delete horizon" when set —
// "gzip, LogAppendTime, transactional, control, delete horizon", or just
// "uncompressed" for magic 0.
func (a Attributes) AppendText(b []byte, magic int8) []byte {
	b = a.Compression().AppendName(b)
	if magic == 0 {
		return b
	}
	b = append(append(b, ", "...), a.TimestampType().String()...)
	if magic < 2 {
		return b
	}
	if a.Transactional() {
		b = append(b, ", transactional"...)
	}
	if a.Control() {
		b = append(b, ", control"...)
	}
	if a.DeleteHorizon() {
		b = append(b, ", delete horizon"...)
	}
	return b
}

// BatchFacts is what the tree holds about one log entry, a RecordBatch v2
// or a legacy message (a RecordBatch node): its header fields, typed, and
// the CRC as stored and as computed over the bytes it covers.
type BatchFacts struct {
	// Magic is 2 for a RecordBatch v2, 0 or 1 for a legacy message.
	Magic int8
	// BaseOffset is a v2 batch's baseOffset, a legacy message's offset.
	BaseOffset int64
	// Length is the v2 batchLength or the legacy messageSize: the bytes
	// that follow it.
	Length int32
	// LeaderEpoch is the v2 partitionLeaderEpoch, -1 for a legacy message.
	LeaderEpoch int32
	// StoredCRC is the CRC the entry carries; ComputedCRC the CRC-32C (v2,
	// over attributes to the end) or CRC-32 (legacy, over magic to the
	// end) of its bytes.
	StoredCRC, ComputedCRC uint32
	Attributes             Attributes
	// LastOffsetDelta is the v2 lastOffsetDelta, 0 for a legacy message.
	LastOffsetDelta int32
	// BaseTimestamp and MaxTimestamp are the v2 baseTimestamp and
	// maxTimestamp (ms); a magic 1 message's timestamp in both; -1 (no
	// timestamp) for magic 0.
	BaseTimestamp, MaxTimestamp int64
	// ProducerID, ProducerEpoch and BaseSequence are the v2 fields, -1 for
	// a legacy message.
	ProducerID    int64
	ProducerEpoch int16
	BaseSequence  int32
	// Count is the v2 recordsCount as stored, 1 for a legacy message.
	Count int32
}

// CRCValid reports whether the stored CRC matches the bytes.
func (f BatchFacts) CRCValid() bool { return f.StoredCRC == f.ComputedCRC }

// BatchFactsOf returns the facts of RecordBatch node i of t, a tree that
// this package built (Append, Decode); ok is false when i is not a
// RecordBatch node.
func BatchFactsOf(t *tree.Tree, i int32) (f BatchFacts, ok bool) {
	if t == nil || i < 0 || int(i) >= len(t.Nodes) || t.Nodes[i].Kind() != tree.RecordBatch {
		return BatchFacts{}, false
	}
	f.Magic = t.Magic(i)
	f.Count = 1
	if f.Magic != 2 {
		f.LeaderEpoch, f.BaseTimestamp, f.MaxTimestamp = -1, -1, -1
		f.ProducerID, f.ProducerEpoch, f.BaseSequence = -1, -1, -1
	}
	t.Children(i, func(c int32) bool {
		cn := &t.Nodes[c]
		if cn.Kind() != tree.BatchField {
			// The header fields come first.
			return false
		}
		switch cn.Ref() {
		case v2Header[v2BaseOffset].ref, legacyFields[legacyOffset].ref:
			f.BaseOffset = t.Num(c)
		case v2Header[v2Length].ref, legacyFields[legacySize].ref:
			f.Length = int32(t.Num(c))
		case v2Header[v2LeaderEpoch].ref:
			f.LeaderEpoch = int32(t.Num(c))
		case v2Header[v2CRC].ref, legacyFields[legacyCRC].ref:
			f.StoredCRC, f.ComputedCRC = uint32(t.Num(c)), ComputedCRC(t, i)
		case v2Header[v2Attributes].ref, legacyFields[legacyAttributes].ref:
			f.Attributes = Attributes(t.Num(c))
		case v2Header[v2LastOffsetDelta].ref:
			f.LastOffsetDelta = int32(t.Num(c))
		case v2Header[v2BaseTimestamp].ref:
			f.BaseTimestamp = t.Num(c)
		case v2Header[v2MaxTimestamp].ref:
			f.MaxTimestamp = t.Num(c)
		case refLegacyTimestamp:
			f.BaseTimestamp, f.MaxTimestamp = t.Num(c), t.Num(c)
		case v2Header[v2ProducerID].ref:
			f.ProducerID = t.Num(c)
		case v2Header[v2ProducerEpoch].ref:
			f.ProducerEpoch = int16(t.Num(c))
		case v2Header[v2BaseSequence].ref:
			f.BaseSequence = int32(t.Num(c))
		case v2Header[v2Count].ref:
			f.Count = int32(t.Num(c))
		}
		return true
	})
	return f, true
}

// PartialBatch returns what the "partial batch" Raw leaf i (bytes at the
// end of records that do not hold a whole entry) declares: the entry's
// batchLength (or messageSize) and how many of those bytes are present.
// ok is false when the leaf is too short to say (under 17 bytes: the
// offset, length, 4 more bytes and the magic), or is not a partial batch.
func PartialBatch(t *tree.Tree, i int32) (batchLength, present int32, ok bool) {
	if t == nil || i < 0 || int(i) >= len(t.Nodes) {
		return 0, 0, false
	}
	n := t.Nodes[i]
	if n.Kind() != tree.Raw || n.Ref() != refPartial || n.Size < EntryHeader {
		return 0, 0, false
	}
	b := t.Span(i)
	if len(b) < EntryHeader {
		return 0, 0, false
	}
	return int32(binary.BigEndian.Uint32(b[8:])), n.Size - logOverhead, true
}
