package bench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// What each side decodes, in these benchmarks:
//
//   - kwire: the span tree, the records inside every batch included (each
//     batch's CRC-32C checked, compressed payloads decompressed, every
//     record read and checked to its last header and made a node, its
//     fields read again when asked: records.Options.Lazy, what a listing
//     or a proxy's statistics decode);
//   - kwire-whole: the same with every record's length, attributes,
//     deltas, key, value and headers a node too (the tree a view shows);
//   - kmsg: franz-go's typed FetchResponse, whose RecordBatches field stays
//     raw bytes;
//   - kmsg+records: kmsg, then each batch as franz-go's consumer reads it:
//     kmsg.RecordBatch.ReadFrom, the CRC-32C checked, the payload
//     decompressed (zstd: klauspost/compress, lz4: pierrec/lz4, the
//     libraries kwire uses too) and every record read with
//     kmsg.Record.ReadFrom. This is the like-for-like comparison.
//
// The MB/s are of the bytes on the wire (the frame, or the batches).

// fetchVersion is the newest FetchResponse version both sides know.
func fetchVersion(s *spec.Set) int16 {
	r := kmsg.NewFetchResponse()
	return min(s.Message("FetchResponse").ValidVersions.Hi, r.MaxVersion())
}

// benchBatch is an uncompressed RecordBatch v2 at base of n records of
// about 100 bytes (a key, a JSON value), built by package records.
func benchBatch(base int64, n int) []byte {
	kv := make([]records.KeyValue, n)
	for i := range kv {
		kv[i] = records.KeyValue{
			Key:   fmt.Appendf(nil, "user-%06d", int(base)+i),
			Value: fmt.Appendf(nil, `{"id":%d,"event":"click","page":"/p/%d","ms":%d}`, int(base)+i, i%97, i*13),
		}
	}
	return records.Batch{BaseOffset: base, LeaderEpoch: 3, Timestamp: 1700000000000, Records: kv}.Bytes()
}

// fetchFrame is a framed FetchResponse at version v of 8 partitions of
// batches of 100 records, about size bytes, built with kmsg (response
// header v1: the size, correlation id 0, no tagged fields).
func fetchFrame(v int16, size int) []byte {
	r := kmsg.NewFetchResponse()
	r.Version = v
	t := kmsg.NewFetchResponseTopic()
	t.Topic = "events"
	t.TopicID[15] = 7
	const parts = 8
	for p := range parts {
		fp := kmsg.NewFetchResponseTopicPartition()
		fp.Partition = int32(p)
		fp.HighWatermark, fp.LastStableOffset = 1<<20, 1<<20
		for off := int64(0); len(fp.RecordBatches) < size/parts; off += 100 {
			fp.RecordBatches = append(fp.RecordBatches, benchBatch(off, 100)...)
		}
		t.Partitions = append(t.Partitions, fp)
	}
	r.Topics = append(r.Topics, t)
	body := r.AppendTo(nil)
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(body)+5))
	frame = append(frame, 0, 0, 0, 0, 0)
	return append(frame, body...)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// compressedBatches is about size bytes of records in batches of 1000,
// each compressed with codec (3 lz4, 4 zstd) by compress; it returns the
// batches and the size they would have uncompressed.
func compressedBatches(size int, codec int16, compress func([]byte) []byte) ([]byte, int) {
	var out []byte
	raw := 0
	for base := int64(0); raw < size; base += 1000 {
		plain := benchBatch(base, 1000)
		raw += len(plain)
		var rb kmsg.RecordBatch
		if err := rb.ReadFrom(plain); err != nil {
			panic(err)
		}
		rb.Attributes |= codec
		rb.Records = compress(rb.Records)
		b := rb.AppendTo(nil)
		binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
		binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], castagnoli))
		out = append(out, b...)
	}
	return out, raw
}

func zstdCompress(p []byte) []byte {
	w, _ := zstd.NewWriter(nil)
	defer w.Close()
	return w.EncodeAll(p, nil)
}

func lz4Compress(p []byte) []byte {
	var buf bytes.Buffer
	w := lz4.NewWriter(&buf)
	w.Write(p)
	w.Close()
	return buf.Bytes()
}

// franzBatches reads log entries as franz-go's consumer does: each
// RecordBatch with kmsg, its CRC checked, its payload decompressed by
// dec, its records read with kmsg.Record. It returns the record count.
func franzBatches(data []byte, dec *decompressor) (int, error) {
	n := 0
	for len(data) > 0 {
		if len(data) < 12 {
			return n, fmt.Errorf("partial batch")
		}
		size := 12 + int(binary.BigEndian.Uint32(data[8:]))
		var rb kmsg.RecordBatch
		if err := rb.ReadFrom(data[:size]); err != nil {
			return n, err
		}
		if uint32(rb.CRC) != crc32.Checksum(data[21:size], castagnoli) {
			return n, fmt.Errorf("bad CRC")
		}
		recs := rb.Records
		if c := rb.Attributes & 7; c != 0 {
			var err error
			if recs, err = dec.decompress(c, recs); err != nil {
				return n, err
			}
		}
		for range rb.NumRecords {
			l, k := binary.Varint(recs)
			if k <= 0 || int(l)+k > len(recs) {
				return n, fmt.Errorf("bad record length")
			}
			var r kmsg.Record
			if err := r.ReadFrom(recs[:k+int(l)]); err != nil {
				return n, err
			}
			recs = recs[k+int(l):]
			n++
		}
		data = data[size:]
	}
	return n, nil
}

// decompressor holds reusable decoders and a buffer, as franz-go's does.
type decompressor struct {
	zstd *zstd.Decoder
	lz4  *lz4.Reader
	buf  bytes.Buffer
	out  []byte
}

func newDecompressor() *decompressor {
	z, err := zstd.NewReader(nil)
	if err != nil {
		panic(err)
	}
	return &decompressor{zstd: z, lz4: lz4.NewReader(nil)}
}

func (d *decompressor) decompress(codec int16, p []byte) ([]byte, error) {
	switch codec {
	case 4:
		var err error
		d.out, err = d.zstd.DecodeAll(p, d.out[:0])
		return d.out, err
	case 3:
		d.lz4.Reset(bytes.NewReader(p))
		d.buf.Reset()
		if _, err := d.buf.ReadFrom(d.lz4); err != nil {
			return nil, err
		}
		return d.buf.Bytes(), nil
	}
	return nil, fmt.Errorf("compression %d", codec)
}

// fetchRecords lists the record batches of a FetchResponse read by kmsg.
func fetchRecords(r *kmsg.FetchResponse) [][]byte {
	var out [][]byte
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			out = append(out, p.RecordBatches)
		}
	}
	return out
}

// TestFetchAndBatchesDecodeAlike checks that both sides read the
// benchmarks' bytes whole and find the same records, kwire's lazy decode
// (every record a lazy node) and whole decode alike.
func TestFetchAndBatchesDecodeAlike(t *testing.T) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	v := fetchVersion(s)
	frame := fetchFrame(v, 1<<20)
	if len(frame) < 1<<20 || len(frame) > 1<<20+64<<10 {
		t.Fatalf("fetch frame %d bytes", len(frame))
	}
	r := kmsg.NewFetchResponse()
	r.Version = v
	if err := r.ReadFrom(frame[9:]); err != nil {
		t.Fatal(err)
	}
	franz := 0
	dec := newDecompressor()
	for _, rb := range fetchRecords(&r) {
		n, err := franzBatches(rb, dec)
		if err != nil {
			t.Fatal(err)
		}
		franz += n
	}
	for _, lazy := range []bool{false, true} {
		c := codec.New(s)
		c.Records.Lazy = lazy
		tr, err := c.DecodeResponse(frame, s.Message("FetchResponse"), v)
		if err != nil || len(tr.Problems) > 0 {
			t.Fatalf("kwire: %v %v", err, tr.Problems)
		}
		if n, lazyN := countRecords(tr); n != franz || franz < 8000 || lazy && lazyN != n || !lazy && lazyN != 0 {
			t.Errorf("lazy %v: kwire %d records (%d lazy), franz-go %d", lazy, n, lazyN, franz)
		}
	}
	for _, c := range []struct {
		codec int16
		f     func([]byte) []byte
	}{{4, zstdCompress}, {3, lz4Compress}} {
		data, raw := compressedBatches(1<<20, c.codec, c.f)
		n, err := franzBatches(data, dec)
		if err != nil || raw < 1<<20 {
			t.Fatalf("codec %d: franz-go %v, %d bytes", c.codec, err, raw)
		}
		for _, lazy := range []bool{false, true} {
			tr := records.Decode(data, records.Options{Lazy: lazy})
			if len(tr.Problems) > 0 {
				t.Fatalf("codec %d: %v", c.codec, tr.Problems)
			}
			listed := 0
			for _, b := range records.LogBatches(tr) {
				listed += len(b.Records)
			}
			if got, lazyN := countRecords(tr); n != got || listed != n || lazy && lazyN != n {
				t.Errorf("codec %d lazy %v: franz-go %d records, kwire %d (%d lazy, %d listed)", c.codec, lazy, n, got, lazyN, listed)
			}
		}
	}
}

// countRecords counts the Record nodes of tr, and the lazy ones.
func countRecords(tr *tree.Tree) (n, lazy int) {
	for i := range tr.Nodes {
		if tr.Nodes[i].Kind() == tree.Record {
			n++
			if records.IsLazy(tr, int32(i)) {
				lazy++
			}
		}
	}
	return n, lazy
}

// side is one decoder of a comparison.
type side struct {
	name string
	run  func(b *testing.B)
}

// compare runs each side as a sub-benchmark of b, its MB/s of size bytes
// reported by SetBytes, then a sub-benchmark "ratio" that reports, for
// each kwire side, its MB/s over the like-for-like franz-go side's (the
// last) as "<name>/<last>": above 1, kwire is faster. (testing.Benchmark
// cannot run inside a benchmark, so each side's last run is kept.)
func compare(b *testing.B, size int, sides ...side) {
	mbs := make([]float64, len(sides))
	for k, s := range sides {
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			s.run(b)
			if e := b.Elapsed(); e > 0 {
				mbs[k] = float64(size) * float64(b.N) / e.Seconds() / 1e6
			}
		})
	}
	last := len(sides) - 1
	b.Run("ratio", func(b *testing.B) {
		for b.Loop() {
		}
		for k, s := range sides[:last] {
			if strings.HasPrefix(s.name, "kwire") && mbs[last] > 0 {
				b.ReportMetric(mbs[k]/mbs[last], s.name+"/"+sides[last].name)
			}
		}
	})
}

// BenchmarkFetch1MiB decodes an uncompressed ~1 MiB FetchResponse (8
// partitions of batches of 100 records) with kwire (a fresh tree, and one
// reused) and with kmsg (alone, and with its batches read as franz-go
// does).
func BenchmarkFetch1MiB(b *testing.B) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		b.Fatal(err)
	}
	v := fetchVersion(s)
	frame := fetchFrame(v, 1<<20)
	whole, m := codec.New(s), s.Message("FetchResponse")
	c := codec.New(s)
	c.Records.Lazy = true
	var reused, reusedWhole tree.Tree
	dec := newDecompressor()
	kmsgOnly := func(b *testing.B) {
		for b.Loop() {
			r := kmsg.NewFetchResponse()
			r.Version = v
			if err := r.ReadFrom(frame[9:]); err != nil {
				b.Fatal(err)
			}
		}
	}
	compare(b, len(frame),
		side{"kwire", func(b *testing.B) {
			for b.Loop() {
				if _, err := c.DecodeResponse(frame, m, v); err != nil {
					b.Fatal(err)
				}
			}
		}},
		side{"kwire-reused", func(b *testing.B) {
			for b.Loop() {
				if err := c.DecodeResponseInto(&reused, frame, m, v); err != nil {
					b.Fatal(err)
				}
			}
		}},
		side{"kwire-whole", func(b *testing.B) {
			for b.Loop() {
				if _, err := whole.DecodeResponse(frame, m, v); err != nil {
					b.Fatal(err)
				}
			}
		}},
		side{"kwire-whole-reused", func(b *testing.B) {
			for b.Loop() {
				if err := whole.DecodeResponseInto(&reusedWhole, frame, m, v); err != nil {
					b.Fatal(err)
				}
			}
		}},
		side{"kmsg-only", kmsgOnly},
		side{"kmsg+records", func(b *testing.B) {
			for b.Loop() {
				r := kmsg.NewFetchResponse()
				r.Version = v
				if err := r.ReadFrom(frame[9:]); err != nil {
					b.Fatal(err)
				}
				for _, rb := range fetchRecords(&r) {
					if _, err := franzBatches(rb, dec); err != nil {
						b.Fatal(err)
					}
				}
			}
		}},
	)
}

func benchCompressed(b *testing.B, codecID int16, compress func([]byte) []byte) {
	data, _ := compressedBatches(1<<20, codecID, compress)
	dec := newDecompressor()
	compare(b, len(data),
		side{"kwire", func(b *testing.B) {
			for b.Loop() {
				if t := records.Decode(data, records.Options{Lazy: true}); len(t.Problems) > 0 {
					b.Fatal(t.Problems[0])
				}
			}
		}},
		side{"kwire-whole", func(b *testing.B) {
			for b.Loop() {
				if t := records.Decode(data, records.Options{}); len(t.Problems) > 0 {
					b.Fatal(t.Problems[0])
				}
			}
		}},
		// As kwire log reads a segment: in parts of at most 64 Ki nodes
		// (logseg's), whose arrays the next call reuses, as the
		// franz-go-style side reuses its buffer.
		side{"kwire-parts", func(b *testing.B) {
			check := func(t *tree.Tree, _ bool) error {
				if len(t.Problems) > 0 {
					return fmt.Errorf("%v", t.Problems[0])
				}
				return nil
			}
			for b.Loop() {
				if err := records.DecodeParts(data, records.Options{Lazy: true}, 1<<16, check); err != nil {
					b.Fatal(err)
				}
			}
		}},
		side{"kmsg+records", func(b *testing.B) {
			for b.Loop() {
				if _, err := franzBatches(data, dec); err != nil {
					b.Fatal(err)
				}
			}
		}},
	)
}

// BenchmarkZstdBatches1MiB decodes zstd batches of 1000 records holding
// ~1 MiB of uncompressed batches (the MB/s are of the compressed bytes):
// with kwire in parts as kwire log reads them (records.DecodeParts, its
// arrays reused from call to call), into a fresh lazy tree and a fresh
// whole one (records.Decode), and as franz-go reads them.
func BenchmarkZstdBatches1MiB(b *testing.B) { benchCompressed(b, 4, zstdCompress) }

// BenchmarkLZ4Batches1MiB is BenchmarkZstdBatches1MiB with lz4.
func BenchmarkLZ4Batches1MiB(b *testing.B) { benchCompressed(b, 3, lz4Compress) }
