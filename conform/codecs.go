package conform

import (
	"bytes"
	"encoding/binary"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// lifecycleCodecs are the codecs the topic lifecycle produces a batch
// with, in order: every compression codec of RecordBatch v2.
var lifecycleCodecs = []records.Compression{records.CompressionNone, records.CompressionGzip, records.CompressionSnappy, records.CompressionLZ4, records.CompressionZstd}

// xerialHeader starts a snappy payload as Kafka's Java producer writes it
// (snappy-java's SnappyOutputStream): the magic, then the format version 1
// and the oldest compatible version 1, each an int32.
var xerialHeader = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}

// compress is raw compressed with codec c as a producer writes a
// RecordBatch v2's records: a gzip stream; snappy in snappy-java's framing
// (xerialHeader, then one chunk: an int32 length and a snappy block); an
// LZ4 frame of 64 KiB independent blocks without a content checksum (the
// frame Kafka's producers write since KIP-57); a zstd frame.
func compress(c records.Compression, raw []byte) ([]byte, error) {
	var buf bytes.Buffer
	switch c {
	case records.CompressionNone:
		return raw, nil
	case records.CompressionGzip:
		w := gzip.NewWriter(&buf)
		if _, err := w.Write(raw); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	case records.CompressionSnappy:
		block := snappy.Encode(nil, raw)
		buf.Write(xerialHeader)
		buf.Write(binary.BigEndian.AppendUint32(nil, uint32(len(block))))
		buf.Write(block)
	case records.CompressionLZ4:
		w := lz4.NewWriter(&buf)
		if err := w.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false)); err != nil {
			return nil, err
		}
		if _, err := w.Write(raw); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	case records.CompressionZstd:
		enc, err := zstd.NewWriter(nil)
		if err != nil {
			return nil, err
		}
		defer enc.Close()
		return enc.EncodeAll(raw, nil), nil
	default:
		return nil, fmt.Errorf("no codec %s", c)
	}
	return buf.Bytes(), nil
}

// codecBatch is produceBatch's batch (no producer id) with its records
// compressed by c: the attributes name c, the CRC-32C is recomputed, every
// other header field is the uncompressed batch's.
func codecBatch(r *mrand.Rand, now time.Time, c records.Compression) ([]byte, error) {
	b := produceBatch(r, now, -1, -1, -1)
	if c == records.CompressionNone {
		return b, nil
	}
	z, err := compress(c, b[61:])
	if err != nil {
		return nil, err
	}
	be := binary.BigEndian
	return records.RawBatch{
		LeaderEpoch:     -1,
		Attributes:      records.Attributes(c),
		LastOffsetDelta: int32(be.Uint32(b[23:])),
		BaseTimestamp:   int64(be.Uint64(b[27:])),
		MaxTimestamp:    int64(be.Uint64(b[35:])),
		ProducerID:      -1,
		ProducerEpoch:   -1,
		BaseSequence:    -1,
		Count:           int32(be.Uint32(b[57:])),
		Records:         z,
	}.Bytes(), nil
}

// batchNodes lists the RecordBatch nodes of records field v, in order.
func batchNodes(v tree.Value) []int32 {
	t := v.Tree()
	if v.Err() != nil || t == nil {
		return nil
	}
	var out []int32
	t.Children(v.Node(), func(c int32) bool {
		if t.Nodes[c].Kind() == tree.RecordBatch {
			out = append(out, c)
		}
		return true
	})
	return out
}

// sameBatch reports whether got, a batch the target returned, is want, a
// batch produced, as the target may store it at base offset base: its base
// offset base, and the bytes from the magic on (CRC, attributes,
// timestamps, producer fields, records) want's. The batch length is
// covered by the bytes' length; the partition leader epoch (bytes 12-15)
// is the target's.
func sameBatch(got, want []byte, base int64) bool {
	return len(got) == len(want) && len(got) > 16 && bytes.Equal(got[16:], want[16:]) && int64(binary.BigEndian.Uint64(got)) == base
}
