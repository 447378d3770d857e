// Package testseg builds the log segment bytes that kwire's tests of log
// reading share (package logseg and kwire log): entries a window boundary
// may cut, with a problem of each kind a reader reports, and internal
// topics' record keys and values as they lie on disk. It is built with
// package records' builders and package codec.
package testseg

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/zstd"

	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/wire"
)

// FatGzipBatch is a gzip RecordBatch v2 at base (baseTimestamp 1000) whose
// one record's length counts one byte more than its fields: a problem
// inside the decompressed view.
func FatGzipBatch(base int64) []byte {
	body := []byte{0, 0, 0, 2, 'k', 2, 'v', 0, 0xee} // attributes, deltas, key, value, no headers, surplus
	rec := append(binary.AppendVarint(nil, int64(len(body))), body...)
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(rec)
	w.Close()
	return records.RawBatch{BaseOffset: base, Attributes: 1, BaseTimestamp: 1000, MaxTimestamp: 1000,
		ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Count: 1, Records: z.Bytes()}.Bytes()
}

// Mixed is a log segment of 15 entries: six pairs of an uncompressed batch
// at 10k (one record, key "k", a value of 30k bytes 'v'; the one at 30 with
// a bad CRC) and a FatGzipBatch at 10k+5, for k 0 to 5; then 12 bytes of an
// entry with a negative batchLength, an empty batch at 100, 300 bytes 0xa5
// (not a batch), an empty batch at 200, and 40 zero bytes (a preallocated
// tail).
func Mixed() []byte {
	var seg []byte
	for k := range 6 {
		b := records.Batch{BaseOffset: int64(10 * k), Records: []records.KeyValue{{Key: []byte("k"), Value: bytes.Repeat([]byte{'v'}, 30*k)}}}.Bytes()
		if k == 3 {
			b[30] ^= 1 // a bad CRC
		}
		seg = append(seg, b...)
		seg = append(seg, FatGzipBatch(int64(10*k+5))...)
	}
	bad := binary.BigEndian.AppendUint64(nil, 99)
	bad = binary.BigEndian.AppendUint32(bad, 0xfffffff0) // a negative length: not an entry, skipped
	seg = append(seg, bad...)
	seg = append(seg, records.Batch{BaseOffset: 100}.Bytes()...)
	seg = append(seg, bytes.Repeat([]byte{0xa5}, 300)...) // not a batch, skipped
	seg = append(seg, records.Batch{BaseOffset: 200}.Bytes()...)
	return append(seg, make([]byte, 40)...) // preallocated
}

// ZstdBomb is a RecordBatch v2 at offset 0 whose zstd payload is about
// 115 KiB and decompresses to n zero bytes (a decompression bomb); its
// recordsCount is count.
func ZstdBomb(n int, count int32) []byte {
	return records.RawBatch{Attributes: 4, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Count: count,
		Records: zstdZeros(n)}.Bytes()
}

// zstdZeros is a zstd frame of n zero bytes, written a MiB at a time.
func zstdZeros(n int) []byte {
	var z bytes.Buffer
	w, _ := zstd.NewWriter(&z, zstd.WithEncoderConcurrency(1))
	zeros := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, len(zeros))
		w.Write(zeros[:k])
		n -= k
	}
	w.Close()
	return z.Bytes()
}

// ZstdSegment is a log segment of n records in zstd RecordBatches of
// perBatch records, offsets from 0: record i has the key "key-<i>" and a
// value of 40 pseudo-random bytes (an xorshift sequence, which does not compress), so that
// the segment takes about 49 bytes a record.
func ZstdSegment(n, perBatch int) []byte {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	defer enc.Close()
	var seg []byte
	x := uint64(0x9e3779b97f4a7c15)
	for base := 0; base < n; base += perBatch {
		kv := make([]records.KeyValue, min(perBatch, n-base))
		for i := range kv {
			v := make([]byte, 40)
			for j := range v {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				v[j] = byte(x)
			}
			kv[i] = records.KeyValue{Key: fmt.Appendf(nil, "key-%d", base+i), Value: v, TimestampDelta: int64(i)}
		}
		plain := records.Batch{BaseOffset: int64(base), Timestamp: 1700000000000, Records: kv}.Bytes()
		rb := records.RawBatch{BaseOffset: int64(base), Attributes: 4, LastOffsetDelta: int32(len(kv) - 1),
			BaseTimestamp: 1700000000000, MaxTimestamp: 1700000000000 + int64(len(kv)-1),
			ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Count: int32(len(kv)),
			Records: enc.EncodeAll(plain[61:], nil)}
		seg = append(seg, rb.Bytes()...)
	}
	return seg
}

// HeaderBombRecord is one v2 record (its length first) of n headers, each
// an empty key and a null value, two bytes a header: no key, a null
// value, offset and timestamp deltas 0.
func HeaderBombRecord(n int) []byte {
	body := []byte{0}
	body = wire.AppendVarlong(body, 0)
	body = wire.AppendVarint(body, 0)
	body = wire.AppendVarint(body, -1)
	body = wire.AppendVarint(body, -1)
	body = wire.AppendVarint(body, int32(n))
	body = append(body, bytes.Repeat([]byte{0, 1}, n)...)
	return append(wire.AppendVarint(nil, int32(len(body))), body...)
}
