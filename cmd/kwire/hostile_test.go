package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/logseg"
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
	want := fmt.Sprintf("00000000000000000000.log[0].decompressed.Record[%d] at 0x003d (decompressed v0x%04x): %d bytes of records not decoded: a compressed payload of %d bytes holds at most %d records (8 Ki and 2 a byte; a bomb?) (the first 4096 bytes shown; the other %d bytes, decompressed, not held)\n", k, 7*k, 7*(100000-k), payload, k, 7*(100000-k)-4096)
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

// decode and pcap hold at most --max-nodes nodes of one frame's records
// (records.DefaultMaxNodes by default) and report the rest: an
// uncompressed batch of 5 records of 64 Ki empty headers each (a 655 KB
// frame) makes 655 Ki nodes, 16 bytes each for 2 bytes of input; an
// 8 MiB one took decode 291 MiB.
func TestDecodeNodeBound(t *testing.T) {
	var recs []byte
	for range 5 {
		recs = append(recs, testseg.HeaderBombRecord(64<<10)...)
	}
	frame := produceV3(records.RawBatch{LastOffsetDelta: 4, Count: 5, Records: recs}.Bytes())
	dir := t.TempDir()
	path, pcap := filepath.Join(dir, "headers.bin"), filepath.Join(dir, "headers.pcap")
	if err := os.WriteFile(path, frame, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pcap, hostilePcap(t, frame), 0o644); err != nil {
		t.Fatal(err)
	}
	if records.DefaultMaxNodes != 524288 {
		t.Fatalf("records.DefaultMaxNodes %d: the flags' defaults say 524288", records.DefaultMaxNodes)
	}
	// Record 4's headers stop where the tree holds 512 Ki nodes: about
	// 4 x 65536 x 2 nodes before them.
	const want = "not decoded: the tree holds 524288 nodes, its limit"
	r := kwire(t, "decode", path)
	if r.code != 1 || strings.Count(r.stderr, want) != 2 || !strings.Contains(r.stderr, ".Record[3].headerKey[65502] at 0x80055: headers 65502 to 65535 of 65536 (68 bytes) "+want) ||
		!strings.Contains(r.stderr, ".Record[4] at 0x80099: 131083 bytes of records "+want) || strings.Count(r.stdout, "headerKey[65535]") != 3 {
		t.Errorf("decode: exit %d\n%.2000s", r.code, r.stderr)
	}
	r = kwire(t, "decode", "--max-nodes", "1000000", path)
	if r.code != 0 || r.stderr != "" || strings.Count(r.stdout, "headerKey[65535]") != 5 {
		t.Errorf("decode --max-nodes 1000000: exit %d\n%.2000s", r.code, r.stderr)
	}
	r = kwire(t, "decode", "--max-nodes", "1000", path)
	if r.code != 1 || !strings.Contains(r.stderr, "Record[0].headerKey[") || !strings.Contains(r.stderr, "not decoded: the tree holds 1000 nodes, its limit") {
		t.Errorf("decode --max-nodes 1000: exit %d\n%.2000s", r.code, r.stderr)
	}
	r = kwire(t, "pcap", "--tree", pcap)
	if !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "Record[3]") {
		t.Errorf("pcap --tree: exit %d\n%.3000s", r.code, r.stdout)
	}
	r = kwire(t, "pcap", "--tree", "--max-nodes", "1000000", pcap)
	if strings.Contains(r.stdout, "its limit") || strings.Count(r.stdout, "headerKey[65535]") != 5 {
		t.Errorf("pcap --tree --max-nodes 1000000: exit %d\n%.3000s", r.code, r.stderr)
	}
	for _, cmd := range []string{"decode", "pcap"} {
		if r := kwire(t, cmd, "--max-nodes", "0", path); r.code != 2 || !strings.Contains(r.stderr, "--max-nodes 0: must be positive") {
			t.Errorf("%s --max-nodes 0: exit %d %s", cmd, r.code, r.stderr)
		}
	}
}

// log --tree holds the file's tree, so it takes decode's bounds: its
// compressed batches expand to records.DefaultMaxView together unless
// --max-decompressed-total says more, it holds --max-nodes nodes, and it
// reads --max-tree-bytes of a file (its whole entries within them, with
// a notice). A batch of 250 MiB took log --tree 314 MiB, and 200 MB of
// random bytes 235.
func TestLogTreeBounds(t *testing.T) {
	one := hostileZstdBatch(t, 0, 640, 64<<10) // 40 MiB decompressed
	dir := t.TempDir()
	path := filepath.Join(dir, "00000000000000000000.log")
	var seg []byte
	for i := range 3 {
		b := bytes.Clone(one)
		binary.BigEndian.PutUint64(b, uint64(640*i))
		seg = append(seg, b...)
	}
	if err := os.WriteFile(path, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	r := kwire(t, "log", "--tree", path)
	if r.code != 1 || strings.Count(r.stderr, "zstd payload decompresses to more than 33554432 bytes, the decompression budget of the input: not decompressed") != 3 {
		t.Errorf("log --tree: exit %d\n%s", r.code, r.stderr)
	}
	r = kwire(t, "log", "--tree", "--max-decompressed-total", "50000000", path)
	if r.code != 1 || strings.Count(r.stdout, "Record[639]") != 1 || strings.Count(r.stderr, "not decompressed") != 2 {
		t.Errorf("log --tree --max-decompressed-total 50000000: exit %d\n%s", r.code, r.stderr)
	}
	// The listing's total is 1 GiB: all three are listed.
	if r := kwire(t, "log", path); r.code != 0 || strings.Count(r.stdout, "\n") != 3*641 {
		t.Errorf("log: exit %d, %d lines\n%s", r.code, strings.Count(r.stdout, "\n"), r.stderr)
	}
	// The first two batches within the bytes limit: the tree shows them.
	limit := fmt.Sprint(2*len(one) + 100)
	want := fmt.Sprintf("00000000000000000000.log: notice: 00000000000000000000.log at 0x%04x: the tree shows the first %d bytes of the file's %d bytes (the entries that end within %s bytes, the tree's bytes limit): the rest is not read\n", 2*len(one), 2*len(one), len(seg), limit)
	r = kwire(t, "log", "--tree", "--max-tree-bytes", limit, "--max-decompressed-total", "100000000", path)
	if r.code != 0 || !strings.Contains(r.stderr, want) || strings.Count(r.stdout, "Record[639]") != 2 || strings.Contains(r.stdout, "partial") {
		t.Errorf("log --tree --max-tree-bytes %s: exit %d\n%s\nwant\n%s", limit, r.code, r.stderr, want)
	}
	// Standard input, and bytes that hold no whole entry: cut there, the
	// partial batch a notice (the limit cut it, not the file: it took
	// "error: no record batch at offset 0" and exit 1). The same bytes
	// as a file are cut by the file: an error.
	r = kwireEnv(t, &env{stdin: bytes.NewReader(seg)}, "log", "--tree", "--max-tree-bytes", "1000", "-")
	if r.code != 0 || !strings.Contains(r.stderr, "-: notice: stdin at 0x03e8: the tree shows the first 1000 bytes of the file's "+fmt.Sprint(len(seg))+" bytes (no entry ends within 1000 bytes, the tree's bytes limit: the bytes at the end are cut there, not in the file)") ||
		!strings.Contains(r.stderr, "-: notice: stdin[0] at 0x0000: partial batch") || strings.Contains(r.stderr, "error") {
		t.Errorf("log --tree - --max-tree-bytes 1000: exit %d\n%s", r.code, r.stderr)
	}
	cut := filepath.Join(t.TempDir(), "cut.log")
	if err := os.WriteFile(cut, seg[:1000], 0o644); err != nil {
		t.Fatal(err)
	}
	partial := fmt.Sprintf("error: no record batch at offset 0: cut.log[0] at 0x0000: partial batch: batchLength %d, 988 bytes present\n", len(one)-12)
	if r := kwire(t, "log", "--tree", cut); r.code != 1 || !strings.Contains(r.stderr, partial) {
		t.Errorf("log --tree of a file cut in its first batch: exit %d\n%s", r.code, r.stderr)
	}
	// A limit below an entry's header says nothing of the file: a notice.
	if r := kwire(t, "log", "--tree", "--max-tree-bytes", "12", path); r.code != 0 || strings.Contains(r.stderr, "error") {
		t.Errorf("log --tree --max-tree-bytes 12: exit %d\n%s", r.code, r.stderr)
	}
	// A file that cuts its first batch past the limit too: the same error
	// as without the limit, the bytes present the file's (an outside
	// review; it said "488 bytes present", the limit's).
	if r := kwire(t, "log", "--tree", "--max-tree-bytes", "500", cut); r.code != 1 || !strings.Contains(r.stderr, partial) {
		t.Errorf("log --tree --max-tree-bytes 500 of a file cut in its first batch: exit %d\n%s", r.code, r.stderr)
	}
	for _, f := range []string{"--max-tree-bytes", "--max-nodes", "--max-decompressed-total"} {
		if r := kwire(t, "log", "--tree", f, "0", path); r.code != 2 || !strings.Contains(r.stderr, f+" 0: must be positive") {
			t.Errorf("log %s 0: exit %d %s", f, r.code, r.stderr)
		}
	}
}

// log keeps a file's first logseg.MaxProblems problems and counts the
// others: a keyless record of __consumer_offsets is a problem each, and a
// 3 MB segment of count bombs read with --decoder offsets held 5.9 million
// of them until its end (900 MiB).
func TestLogProblemsKept(t *testing.T) {
	var recs []byte
	for i := range logseg.MaxProblems + 5 {
		recs = hostileRecord(recs, i, 1)
	}
	n := logseg.MaxProblems + 5
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, records.RawBatch{LastOffsetDelta: int32(n - 1), Count: int32(n), Records: recs}.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := kwire(t, "log", "--decoder", "offsets", path)
	want := "00000000000000000000.log: notice: 5 more problems (5 of them errors) not listed: a file's first 10000 are\n"
	if r.code != 1 || strings.Count(r.stderr, ": error: ") != logseg.MaxProblems || !strings.Contains(r.stderr, want) || !strings.HasSuffix(r.stderr, fmt.Sprintf("kwire: %d problems in the records (above)\n", n)) {
		t.Errorf("log --decoder offsets: exit %d, %d errors listed\n%s", r.code, strings.Count(r.stderr, ": error: "), r.stderr[max(0, len(r.stderr)-600):])
	}
}

// decode's frames share --max-nodes, and every frame's problems are
// printed and counted: three frames of a record of 300 headers under 1000
// nodes decode the first whole, then stop where the nodes run out (100
// frames of header bombs each holding their own bound took 930 MiB;
// only the first page's problems were printed and counted).
func TestDecodeFramesShareNodes(t *testing.T) {
	f := produceV3(records.RawBatch{Count: 1, Records: testseg.HeaderBombRecord(300)}.Bytes())
	path := filepath.Join(t.TempDir(), "three.bin")
	if err := os.WriteFile(path, slices.Concat(f, f, f), 0o644); err != nil {
		t.Fatal(err)
	}
	r := kwire(t, "decode", "--max-nodes", "1000", path)
	if r.code != 1 || strings.Count(r.stderr, "not decoded: the tree holds") != 2 || !strings.HasSuffix(r.stderr, "kwire: 2 problems in the records\n") || strings.Count(r.stdout, "headerKey[299]") != 1 {
		t.Errorf("decode --max-nodes 1000: exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}
	if r := kwire(t, "decode", path); r.code != 0 || strings.Count(r.stdout, "headerKey[299]") != 3 {
		t.Errorf("decode: exit %d\n%s", r.code, r.stderr)
	}
}

// pcap --tree holds a request's tree until its response, and the trees
// of the requests awaiting responses take at most --max-held bytes over
// the capture: a request past it is printed without its tree, after a
// not-held notice (which does not fail the run), unless it is alone. A client pipelining 100
// header-bomb requests that nothing answered took pcap --tree 898 MiB.
func TestPcapHeldTreesBound(t *testing.T) {
	small := produceV3(hostileZstdBatch(t, 0, 10, 10))
	var frames []byte
	for range 4 {
		frames = append(frames, small...)
	}
	path := filepath.Join(t.TempDir(), "pipelined.pcap")
	if err := os.WriteFile(path, hostilePcap(t, frames), 0o644); err != nil {
		t.Fatal(err)
	}
	r := kwire(t, "pcap", "--tree", path)
	if r.code != 0 || strings.Contains(r.stdout, "not-held") || strings.Count(r.stdout, "no response") != 4 || strings.Count(r.stdout, "ProduceRequest") < 4 {
		t.Fatalf("pcap --tree: exit %d\n%.3000s%s", r.code, r.stdout, r.stderr)
	}
	r = kwire(t, "pcap", "--tree", "--max-held", "1", path)
	const notice = "its tree (%d bytes) is not kept awaiting the response: the trees of the requests awaiting responses would pass 1 bytes; the exchange comes without it"
	// The first request is held, alone, whatever its size; not the others.
	if r.code != 0 || strings.Count(r.stdout, "not-held: c2s at stream offset") != 3 || strings.Count(r.stdout, "no response") != 4 || strings.Count(r.stdout, "message v3") != 1 {
		t.Fatalf("pcap --tree --max-held 1: exit %d\n%.3000s%s", r.code, r.stdout, r.stderr)
	}
	var size int64
	if _, err := fmt.Sscanf(r.stdout[strings.Index(r.stdout, "its tree ("):], notice, &size); err != nil || size < int64(len(small)) {
		t.Errorf("notice: %v (size %d)\n%.1000s", err, size, r.stdout)
	}
	// Notices: the summary counts them apart from the problems.
	if !strings.Contains(r.stdout, "1 connection on port 9092, 4 exchanges, 0 problems, 3 notices\n") || !strings.Contains(r.stdout, "not-held: c2s at stream offset "+fmt.Sprint(len(small))+": request (api key 0 v3, correlation id 7): its tree") {
		t.Errorf("pcap --tree --max-held 1:\n%s", r.stdout)
	}
	r = kwire(t, "pcap", "--tree", "--format", "json", "--max-held", "1", path)
	if r.code != 0 || strings.Count(r.stdout, `{"type":"notice","kind":"not-held",`) != 3 ||
		strings.Count(r.stdout, fmt.Sprintf(`"size":%d,"api_key":0,"version":3,"correlation_id":7,"tree_bytes":%d,"limit":1,`, len(small), size)) != 3 ||
		!strings.Contains(r.stdout, `"exchanges":4,"problems":0,"notices":3,`) {
		t.Errorf("pcap --tree --format json --max-held 1: exit %d\n%.3000s", r.code, r.stdout)
	}
	// Requests of a few KB whose records decompress to 4 MiB each, on two
	// connections: held as their frames' bytes, within 1 MiB, and decoded
	// again when reported; both come with their trees.
	big := produceV3(hostileZstdBatch(t, 0, 64, 64<<10))
	two := filepath.Join(t.TempDir(), "two.pcap")
	if err := os.WriteFile(two, hostilePcapConns(t, [][]byte{big, big}), 0o644); err != nil {
		t.Fatal(err)
	}
	r = kwire(t, "pcap", "--tree", "--max-held", "1048576", two)
	if r.code != 0 || strings.Contains(r.stdout, "not-held") || strings.Count(r.stdout, "no response") != 2 || strings.Count(r.stdout, "message v3") != 2 ||
		!strings.Contains(r.stdout, "2 connections on port 9092, 2 exchanges, 0 problems\n") {
		t.Errorf("pcap --tree --max-held 1048576 of two requests decompressing to 4 MiB: exit %d\n%.3000s", r.code, r.stdout)
	}
	if r := kwire(t, "pcap", "--max-held", "0", path); r.code != 2 || !strings.Contains(r.stderr, "--max-held 0: must be positive") {
		t.Errorf("pcap --max-held 0: exit %d %s", r.code, r.stderr)
	}
}

// encode decodes the records it is given back into the tree it shows
// within decode's bounds, and says what they leave out; the bytes are
// written as given. Eight zstd batches of 250 MiB in a 659 KB JSON took
// encode 2 GiB (an outside review).
func TestEncodeBoundsRecords(t *testing.T) {
	batch := hostileZstdBatch(t, 0, 700, 64<<10) // 44 MiB of records
	body := fmt.Sprintf(`{"transactionalId":null,"acks":1,"timeoutMs":1000,"topicData":[{"name":"t","partitionData":[{"index":0,"records":%q}]}]}`, base64.StdEncoding.EncodeToString(batch))
	path := filepath.Join(t.TempDir(), "produce.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r := kwire(t, "encode", "Produce", "--version", "9", "--raw", path)
	if r.code != 0 || !bytes.Contains([]byte(r.stdout), batch) || r.stderr != "" {
		t.Fatalf("encode --raw: exit %d, %d bytes\n%s", r.code, len(r.stdout), r.stderr)
	}
	r = kwire(t, "encode", "Produce", "--version", "9", "--format", "text", path)
	const want = "kwire: warning: ProduceRequest.TopicData[0].PartitionData[0].Records[0].records at 0x005d: zstd payload decompresses to more than 33554432 bytes, the decompression limit: not followed (the records are written as given)\n"
	if r.code != 0 || r.stderr != want {
		t.Errorf("encode --format text: exit %d\n%.1000s", r.code, r.stderr)
	}
}
