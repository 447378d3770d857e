package records

import (
	"encoding/binary"
	"hash/crc32"
)

// RawBatch is a RecordBatch v2 to build from its header fields and the
// bytes of its records section as they are (compressed, or not well formed
// on purpose): Bytes computes the batchLength and the CRC-32C, and writes
// every other field as given. Field names and meanings are those of
// BatchFacts.
type RawBatch struct {
	BaseOffset      int64
	LeaderEpoch     int32
	Attributes      Attributes
	LastOffsetDelta int32
	// BaseTimestamp and MaxTimestamp are in ms.
	BaseTimestamp, MaxTimestamp int64
	ProducerID                  int64
	ProducerEpoch               int16
	BaseSequence                int32
	// Count is the recordsCount written, whatever Records holds.
	Count int32
	// Records are the bytes after recordsCount, to the end of the batch.
	Records []byte
}

// Bytes encodes the batch: the 61-byte header, then Records.
func (b RawBatch) Bytes() []byte {
	out := make([]byte, 0, batchOverhead+len(b.Records))
	out = binary.BigEndian.AppendUint64(out, uint64(b.BaseOffset))
	out = binary.BigEndian.AppendUint32(out, uint32(batchOverhead-logOverhead+len(b.Records)))
	out = binary.BigEndian.AppendUint32(out, uint32(b.LeaderEpoch))
	out = append(out, 2)                        // magic
	out = binary.BigEndian.AppendUint32(out, 0) // crc, below
	out = binary.BigEndian.AppendUint16(out, uint16(b.Attributes))
	out = binary.BigEndian.AppendUint32(out, uint32(b.LastOffsetDelta))
	out = binary.BigEndian.AppendUint64(out, uint64(b.BaseTimestamp))
	out = binary.BigEndian.AppendUint64(out, uint64(b.MaxTimestamp))
	out = binary.BigEndian.AppendUint64(out, uint64(b.ProducerID))
	out = binary.BigEndian.AppendUint16(out, uint16(b.ProducerEpoch))
	out = binary.BigEndian.AppendUint32(out, uint32(b.BaseSequence))
	out = binary.BigEndian.AppendUint32(out, uint32(b.Count))
	out = append(out, b.Records...)
	binary.BigEndian.PutUint32(out[17:], CRC32C(out[21:]))
	return out
}

// Legacy is a legacy message (magic 0 or 1) to build: one entry of a
// message set, as Kafka's LegacyRecord lays it out.
type Legacy struct {
	// Offset is the entry's offset.
	Offset int64
	// Magic is 0 or 1; magic 1 has a timestamp.
	Magic int8
	// Attributes are the attributes byte: the compression codec in bits
	// 0-2, and for magic 1 the timestamp type in bit 3.
	Attributes int8
	// Timestamp is the magic 1 timestamp (ms); magic 0 has none.
	Timestamp int64
	// Key and Value are written as they are, nil as null; the value of a
	// compressed wrapper is the compressed inner message set.
	Key, Value []byte
}

// Bytes encodes the entry: offset, messageSize, then the message with its
// CRC-32 (IEEE, over magic to the end).
func (m Legacy) Bytes() []byte {
	body := []byte{byte(m.Magic), byte(m.Attributes)}
	if m.Magic == 1 {
		body = binary.BigEndian.AppendUint64(body, uint64(m.Timestamp))
	}
	for _, p := range [][]byte{m.Key, m.Value} {
		if p == nil {
			body = binary.BigEndian.AppendUint32(body, 0xffffffff)
			continue
		}
		body = binary.BigEndian.AppendUint32(body, uint32(len(p)))
		body = append(body, p...)
	}
	out := binary.BigEndian.AppendUint64(nil, uint64(m.Offset))
	out = binary.BigEndian.AppendUint32(out, uint32(4+len(body)))
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(body))
	return append(out, body...)
}
