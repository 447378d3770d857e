package records_test

import (
	"fmt"
	"testing"

	"github.com/kwire/kwire/records"
)

// benchRecords are records of about 100 bytes: keys, JSON-like values and
// a header, as a producer of small events writes them.
func benchRecords(n int) []rec {
	rs := make([]rec, n)
	for i := range rs {
		rs[i] = rec{
			key:     []byte(fmt.Sprintf("user-%06d", i)),
			value:   []byte(fmt.Sprintf(`{"id":%d,"event":"click","page":"/p/%d","ms":%d}`, i, i%97, i*13)),
			headers: [][2][]byte{{[]byte("src"), []byte("web")}},
		}
	}
	return rs
}

// blob is about size bytes of batches of per records each, compressed
// with codec; it returns the blob and the size of its records uncompressed.
func blob(size, per int, codec int16, compress func([]byte) []byte) ([]byte, int) {
	rs := benchRecords(per)
	var out []byte
	raw := 0
	for off := int64(0); raw < size; off += int64(per) {
		out = append(out, dataBatch(off, codec, rs, compress)...)
		raw += len(recordsBytes(rs))
	}
	return out, raw
}

func benchDecode(b *testing.B, data []byte, raw int) {
	b.SetBytes(int64(raw))
	b.ReportAllocs()
	for b.Loop() {
		tr := records.Decode(data, records.Options{})
		if len(tr.Problems) != 0 {
			b.Fatal(tr.Problems[0])
		}
	}
}

// The MB/s are of the records' uncompressed bytes.
func BenchmarkDecodeUncompressed1MiB(b *testing.B) {
	data, raw := blob(1<<20, 100, 0, nil)
	benchDecode(b, data, raw)
}

func BenchmarkDecodeZstd1MiB(b *testing.B) {
	data, raw := blob(1<<20, 1000, 4, zstdBytes)
	benchDecode(b, data, raw)
}

func BenchmarkDecodeLZ41MiB(b *testing.B) {
	data, raw := blob(1<<20, 1000, 3, lz4Bytes)
	benchDecode(b, data, raw)
}

func BenchmarkDecodeGzip1MiB(b *testing.B) {
	data, raw := blob(1<<20, 1000, 1, gzipBytes)
	benchDecode(b, data, raw)
}

func BenchmarkDecodeSnappy1MiB(b *testing.B) {
	data, raw := blob(1<<20, 1000, 2, func(p []byte) []byte { return xerialBytes(p, 32<<10) })
	benchDecode(b, data, raw)
}
