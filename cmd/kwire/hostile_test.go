package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/kwire/kwire/records"
)

// A compressed batch claiming more records than its bytes can hold is
// reported as a bomb by log, its first records listed, unless
// --max-records allows them all: 100000 records of 7 bytes in a zstd
// payload of a few hundred bytes were listed to the end (the 30M of issue
// 29 made 4.3 GB of JSON).
func TestLogRecordBomb(t *testing.T) {
	b := hostileZstdBatch(t, 0, 100000, -1)
	payload := len(b) - 61
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	k := 8<<10 + 2*payload
	r := kwire(t, "log", path)
	want := fmt.Sprintf("00000000000000000000.log[0].decompressed.Record[%d] at 0x003d (decompressed v0x%04x): %d bytes of records not decoded: a compressed payload of %d bytes holds at most %d records (8 Ki and 2 a byte; a bomb?)\n", k, 7*k, 7*(100000-k), payload, k)
	if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Count(r.stdout, "\n") != k+1 {
		t.Errorf("log: exit %d, %d lines, stderr\n%s\nwant\n%s", r.code, strings.Count(r.stdout, "\n"), r.stderr, want)
	}
	r = kwire(t, "log", "--format", "json", path)
	if r.code != 1 || strings.Count(r.stdout, `"batch_offset":0,`) != k || strings.Count(r.stdout, `a bomb?`) != 1 {
		t.Errorf("log --format json: exit %d, %d records", r.code, strings.Count(r.stdout, `"batch_offset":0,`))
	}
	r = kwire(t, "log", "--max-records", "100000", path)
	if r.code != 0 || r.stderr != "" || strings.Count(r.stdout, "\n") != 100001 {
		t.Errorf("log --max-records 100000: exit %d, %d lines\n%s", r.code, strings.Count(r.stdout, "\n"), r.stderr)
	}
	if r := kwire(t, "log", "--max-records", "-1", path); r.code != 2 {
		t.Errorf("--max-records -1: exit %d", r.code)
	}
}

// The decompression budget of log is the file's, however many windows it
// is read in: three zstd batches of 4 MiB under --max-decompressed-total
// of 9 MiB decompress twice, and the third is reported, a window at a
// time as whole.
func TestLogBudgetPerFile(t *testing.T) {
	one := hostileZstdBatch(t, 0, 64, 64<<10)
	var seg []byte
	for i := range 3 {
		b := bytes.Clone(one)
		binary.BigEndian.PutUint64(b, uint64(64*i))
		seg = append(seg, b...)
	}
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	size := 64 * len(hostileRecord(nil, 63, 64<<10))
	defer func(w int) { logWindow = w }(logWindow)
	for _, w := range []int{1, 1 << 20} {
		logWindow = w
		r := kwire(t, "log", "--max-decompressed-total", "9437184", path)
		want := fmt.Sprintf("00000000000000000000.log[2].records at 0x%04x: zstd payload: the decompression budget of the input (9437184 bytes) has %d bytes left: not decompressed\n", 2*len(one)+61, 9<<20-2*size)
		if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Count(r.stdout, "\n") != 3+128 {
			t.Errorf("window %d: exit %d, %d lines, stderr\n%s\nwant\n%s", w, r.code, strings.Count(r.stdout, "\n"), r.stderr, want)
		}
	}
	if r := kwire(t, "log", "--max-decompressed-total", "0", path); r.code != 2 {
		t.Errorf("--max-decompressed-total 0: exit %d", r.code)
	}
}

// decode holds the decompressed records of its input in the tree it
// shows: --max-decompressed (32 MiB by default) bounds them one or
// together. Four zstd batches of 24 MiB decompress once, the others are
// reported (it held all 96 MiB); --max-decompressed 128 MiB shows them all.
func TestDecodeBoundedTogether(t *testing.T) {
	one := hostileZstdBatch(t, 0, 384, 64<<10)
	var four []byte
	for range 4 {
		four = append(four, one...)
	}
	path := filepath.Join(t.TempDir(), "four.bin")
	if err := os.WriteFile(path, produceV3(four), 0o644); err != nil {
		t.Fatal(err)
	}
	r := kwire(t, "decode", path)
	if r.code != 1 || strings.Count(r.stderr, "zstd payload: the decompressed views of these records reach their limit of 33554432 bytes together: not decompressed") != 3 || !strings.HasSuffix(r.stderr, "kwire: 3 problems in the records\n") || strings.Count(r.stdout, "Record[383]") != 1 {
		t.Errorf("decode: exit %d\n%s", r.code, r.stderr)
	}
	if r := kwire(t, "decode", "--max-decompressed", "134217728", path); r.code != 0 || strings.Count(r.stdout, "Record[383]") != 4 {
		t.Errorf("decode --max-decompressed 128 MiB: exit %d\n%s", r.code, r.stderr)
	}
}

// A record of a large compressed batch longer than --max-record-bytes is
// reported and the records after it are listed, its bytes not held: a
// zstd batch of records of 64 KiB, 20 MiB and 64 KiB lists two records
// and the problem (before, the 20 MiB record was held whole, and one of
// 250 MiB took 303 MiB); --max-record-bytes 32 MiB lists all three.
func TestLogRecordOverLimit(t *testing.T) {
	var plain []byte
	plain = hostileRecord(plain, 0, 64<<10)
	plain = hostileRecord(plain, 1, 20<<20)
	plain = hostileRecord(plain, 2, 64<<10)
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, zstd.WithWindowSize(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(plain)
	zw.Close()
	b := records.RawBatch{Attributes: records.Attributes(records.CompressionZstd), LastOffsetDelta: 2, Count: 3, Records: buf.Bytes()}.Bytes()
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := kwire(t, "log", "--format", "json", path)
	want := "00000000000000000000.log[0].decompressed.Record[1] at 0x003d (decompressed v0x1000b): a record of 20971533 bytes, more than the 16777216 bytes a record may take to be decoded (the record bytes limit): shown as bytes, not decoded"
	if r.code != 1 || !strings.Contains(r.stdout, `"offset":0,`) || !strings.Contains(r.stdout, `"offset":2,`) || strings.Contains(r.stdout, `"offset":1,`) || !strings.Contains(r.stdout, want) {
		t.Errorf("log: exit %d, stdout %.2000s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = kwire(t, "log", "--max-record-bytes", "33554432", path)
	if r.code != 0 || r.stderr != "" || strings.Count(r.stdout, "\n") != 4 {
		t.Errorf("log --max-record-bytes 32 MiB: exit %d, %d lines\n%s", r.code, strings.Count(r.stdout, "\n"), r.stderr)
	}
	if r := kwire(t, "log", "--max-record-bytes", "0", path); r.code != 2 {
		t.Errorf("--max-record-bytes 0: exit %d", r.code)
	}
}
