// Package testseg builds the log segment bytes that kwire's tests of log
// reading share (package logseg and kwire log): entries a window boundary
// may cut, with a problem of each kind a reader reports. It is built with
// package records' builders.
package testseg

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"

	"github.com/kwire/kwire/records"
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
