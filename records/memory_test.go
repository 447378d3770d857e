package records_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"

	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// allocated is what fn allocates on the heap, in bytes (all of it, freed
// or not: an upper bound of what it holds at its peak).
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// zstdStream is p as a zstd frame written a MiB at a time, with the
// encoder's window of window bytes (its content size unknown).
func zstdStream(p []byte, n int, window int) []byte {
	var buf bytes.Buffer
	w, _ := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(window))
	for n > 0 {
		k := min(n, len(p))
		w.Write(p[:k])
		n -= k
	}
	w.Close()
	return buf.Bytes()
}

// A payload past the decompression limit is counted, not kept: decoding
// a 100 KiB zstd batch of 1 GiB of zero bytes under the default limit
// (256 MiB) allocates less than 48 MiB (what it holds before it knows the
// size, 8 MiB, and the decoder's window), and so does one of 4 MiB of
// zeros under a limit of 1 MiB.
func TestBombMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("decompresses 256 MiB")
	}
	zeros := make([]byte, 1<<20)
	bomb := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(zstdStream(zeros, 1<<30, 8<<20))
	records.Decode(bomb, records.Options{}) // the pooled decoder
	var tr *tree.Tree
	got := allocated(func() { tr = records.Decode(bomb, records.Options{}) })
	wantProblems(t, tr, "records[0].records at 0x003d: zstd payload decompresses to more than 268435456 bytes, the decompression limit: not followed")
	t.Logf("a 1 GiB zstd bomb: %d bytes allocated", got)
	if got > 48<<20 {
		t.Errorf("a 1 GiB bomb allocates %d bytes", got)
	}
}

// A payload past what is held and within the limit decodes as one that
// is not: 12 MiB of records (three of 4 MiB values), in zstd, gzip and
// lz4, every record there, decompressed once more to learn its size.
func TestLargePayload(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	rs := []rec{{key: []byte("a"), value: big}, {key: []byte("b"), value: big}, {key: []byte("c"), value: big}}
	plain := recordsBytes(rs)
	for _, c := range []struct {
		id       int16
		compress func([]byte) []byte
	}{{4, zstdBytes}, {1, gzipBytes}, {3, lz4Bytes}} {
		tr := records.Decode(dataBatch(7, c.id, rs, c.compress), records.Options{})
		wantProblems(t, tr)
		if !bytes.Equal(tr.Virtual, plain) {
			t.Errorf("codec %d: %d virtual bytes, want the %d of the records", c.id, len(tr.Virtual), len(plain))
		}
		bs := records.LogBatches(tr)
		if len(bs) != 1 || len(bs[0].Records) != 3 || bs[0].Records[2].Offset != 9 || !bytes.Equal(bs[0].Records[1].Value, big) {
			t.Errorf("codec %d: batches %d", c.id, len(bs))
		}
		tr = records.Decode(dataBatch(7, c.id, rs, c.compress), records.Options{MaxDecompressed: int64(len(plain)) - 1})
		wantProblems(t, tr, "records[0].records at 0x003d: ")
		if len(tr.Virtual) != 0 {
			t.Errorf("codec %d: over the limit by one byte, %d bytes kept", c.id, len(tr.Virtual))
		}
	}
}

// A zstd frame whose window is more than 32 MiB is reported, not
// decompressed: the decoder would hold that window.
func TestZstdWindow(t *testing.T) {
	p := bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7, 8}, 1<<10)
	b := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(zstdStream(p, 40<<20, 64<<20))
	tr := records.Decode(b, records.Options{})
	wantProblems(t, tr, "records[0].records at 0x003d: zstd payload does not decompress: ")
	if got := problems(tr); !bytes.Contains([]byte(got), []byte("window size exceeded")) {
		t.Errorf("problem %q", got)
	}
}

// Garbage in a payload is one problem, not one per byte: 32 MiB of zero
// bytes in a batch that counts 2^30 records are a record that does not
// read, then one leaf of the rest, in less than 48 MiB of allocations.
func TestGarbageRecords(t *testing.T) {
	skipUnderRace(t)
	zeros := make([]byte, 1<<20)
	bomb := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 1 << 30}.bytes(zstdStream(zeros, 32<<20, 8<<20))
	var tr *tree.Tree
	got := allocated(func() { tr = records.Decode(bomb, records.Options{}) })
	wantProblems(t, tr,
		"records[0].decompressed.Record[0].attributes at 0x003d (decompressed v0x0001): need 1 byte, have 0",
		"records[0].decompressed.Record[1] at 0x003d (decompressed v0x0001): 33554431 bytes of records after a record whose fields do not read: not decoded")
	t.Logf("32 MiB of garbage records: %d bytes allocated", got)
	if got > 48<<20+32<<20 {
		t.Errorf("32 MiB of garbage records allocate %d bytes", got)
	}
	// Uncompressed: the same.
	plain := batch{producerID: -1, epoch: -1, seq: -1, count: 5}.bytes([]byte{0, 0, 0, 0})
	wantProblems(t, records.Decode(plain, records.Options{}),
		"records[0].Record[0].attributes at 0x003e: need 1 byte, have 0",
		"records[0].Record[1] at 0x003e: 3 bytes of records after a record whose fields do not read: not decoded")
}

// DecodeParts holds one part at a time: the records of a 10 MiB zstd
// batch are decoded in parts that allocate, together, less than three
// quarters of a whole decode (its decompressed bytes and nodes: 48 MB;
// the parts 28 MB, of which 16 MB are the 8 MiB held before the payload
// is known to be larger, in a growing array), both measured with the
// pools empty (-count=N measured the second run with the pools warm from
// the first; it failed); 200 MiB of
// zero bytes that count 2^30 records, within the limit, allocate less
// than 48 MiB.
func TestDecodePartsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("decompresses 400 MiB")
	}
	bomb := testseg.ZstdBomb(200<<20, 1<<30)
	var problems []string
	got := allocated(func() {
		records.DecodeParts(bomb, records.Options{}, 1<<16, func(pt *tree.Tree, _ bool) error {
			for _, p := range pt.Problems {
				problems = append(problems, p.String())
			}
			return nil
		})
	})
	t.Logf("200 MiB of garbage records in parts: %d bytes allocated", got)
	want := []string{
		"records[0].decompressed.Record[0].attributes at 0x003d (decompressed v0x0001): need 1 byte, have 0",
		"records[0].decompressed.Record[1] at 0x003d (decompressed v0x0001): 209715199 bytes of records after a record whose fields do not read: not decoded",
	}
	if !slices.Equal(problems, want) {
		t.Errorf("problems %q", problems)
	}
	if got > 48<<20 {
		t.Errorf("200 MiB of garbage records in parts allocate %d bytes", got)
	}
	seg := testseg.ZstdSegment(200000, 200000)
	countRecords := func(t *tree.Tree) int {
		k := 0
		for i := range t.Nodes {
			if t.Nodes[i].Kind() == tree.Record {
				k++
			}
		}
		return k
	}
	n := 0
	parts := func() {
		n = 0
		records.DecodeParts(seg, records.Options{}, 1<<16, func(pt *tree.Tree, _ bool) error {
			n += countRecords(pt)
			return nil
		})
	}
	// Each measured with the pools empty (two collections empty a
	// sync.Pool), whatever an earlier test or -count run left in them.
	runtime.GC()
	whole := allocated(func() { countRecords(records.Decode(seg, records.Options{})) })
	runtime.GC()
	got = allocated(parts)
	t.Logf("a batch of 200000 records: %d bytes allocated whole, %d in parts", whole, got)
	if n != 200000 || got > whole*3/4 {
		t.Errorf("%d records, %d bytes allocated in parts, %d whole", n, got, whole)
	}
}

// Bytes crafted to look like the start of an entry at nearly every
// position (a length of 64 KiB or 16 MiB and magic 0 or 1, over and over)
// are skipped after checksums of at most 64 MiB and 16 times their size,
// not one per position: 4 MiB of them are one problem up to the end.
func TestResyncBounded(t *testing.T) {
	junk := append(bytes.Repeat([]byte{0xff}, 17), bytes.Repeat([]byte{0, 1, 0, 0}, 1<<20)...)
	good := dataBatch(5, 0, sampleRecords(1), nil)
	tr := records.Decode(append(junk, good...), records.Options{})
	wantProblems(t, tr, fmt.Sprintf("records[0] at 0x0000: unknown magic -1 (Kafka knows 0, 1 and 2): %d bytes skipped from 0x0000 to the end", len(junk)+len(good)))
	// Few such bytes: the batch after them is found.
	junk = junk[:17+4<<10]
	tr = records.Decode(append(junk, good...), records.Options{})
	wantProblems(t, tr, fmt.Sprintf("records[0] at 0x0000: unknown magic -1 (Kafka knows 0, 1 and 2): %d bytes skipped from 0x0000 to 0x%04x", len(junk), len(junk)))
}

// MaxNodes bounds a tree's nodes whatever its payloads hold: 2 MiB of
// the smallest records (7 bytes, 8 nodes each) in a zstd batch make about
// 2.4M nodes; with a limit of 10000, the rest of the records is one leaf
// and one problem, and so are the entries after the batch.
func TestMaxNodes(t *testing.T) {
	one := recordBytes(0, rec{})
	n := 2 << 20 / len(one)
	plain := bytes.Repeat(one, n)
	b := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: int32(n)}.bytes(zstdBytes(plain))
	seg := append(b, dataBatch(5, 0, sampleRecords(1), nil)...)
	tr := records.Decode(seg, records.Options{MaxNodes: 10000})
	if len(tr.Nodes) > 10100 {
		t.Errorf("%d nodes", len(tr.Nodes))
	}
	// 17 nodes for the root, the batch, its header, payload leaf and view,
	// then 8 a record: record k is the first not decoded.
	k := (10000 - 17 + 7) / 8
	wantProblems(t, tr,
		fmt.Sprintf("records[0].decompressed.Record[%d] at 0x003d (decompressed v0x%04x): %d bytes of records not decoded: the tree holds 10000 nodes, its limit", k, k*len(one), len(plain)-k*len(one)),
		fmt.Sprintf("records[1] at 0x%04x: %d bytes of entries not decoded: the tree holds 10000 nodes, its limit", len(b), len(seg)-len(b)))
}

// The records of a decompressed view make at most 64 Ki nodes and 16 a
// byte of its compressed payload in a tree, and are at most 8 Ki and 2 a
// byte (the records of a plain view's nodes): 2 MiB of the smallest
// records, which zstd takes to a few hundred bytes, are cut there with a
// problem, where both bounds meet; records with a header count more
// toward the records bound (a header a quarter of a record) and meet it
// first. DecodeParts, whose parts are bounded,
// stops at the same record with the same problem, and lists them all when
// Options.MaxRecords allows.
func TestViewNodes(t *testing.T) {
	one := recordBytes(0, rec{})
	n := 2 << 20 / len(one)
	payload := zstdBytes(bytes.Repeat(one, n))
	b := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: int32(n)}.bytes(payload)
	tr := records.Decode(b, records.Options{})
	limit := 64<<10 + 16*len(payload)
	// 16 nodes before the view (root, batch, header, payload leaf), the
	// view's own, then 8 a record: record k is the first not decoded.
	k := (16 + limit - 17 + 7) / 8
	wantProblems(t, tr, fmt.Sprintf("records[0].decompressed.Record[%d] at 0x003d (decompressed v0x%04x): %d bytes of records not decoded: a compressed payload of %d bytes holds at most %d records (8 Ki and 2 a byte; a bomb?)",
		k, k*len(one), (n-k)*len(one), len(payload), k))
	// With a header, a record makes 10 nodes, and counts for 1¼ toward
	// the records bound (a header a quarter), which it meets first.
	hone := recordBytes(0, rec{headers: [][2][]byte{{[]byte("h"), nil}}})
	hn := 2 << 20 / len(hone)
	hpayload := zstdBytes(bytes.Repeat(hone, hn))
	htr := records.Decode(batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: int32(hn)}.bytes(hpayload), records.Options{})
	hmax := 8<<10 + 2*len(hpayload)
	hk := 0
	for hk+hk/4 < hmax {
		hk++
	}
	if got := problems(htr); !strings.Contains(got, fmt.Sprintf(".Record[%d] at 0x003d (decompressed v0x%04x): %d bytes of records not decoded: a compressed payload of %d bytes holds at most %d records (8 Ki and 2 a byte; a bomb?), 4 headers counting as one", hk, hk*len(hone), (hn-hk)*len(hone), len(hpayload), hmax)) {
		t.Errorf("records with a header: %s", got)
	}
	parts := func(o records.Options) (int, string) {
		got, probs := 0, ""
		records.DecodeParts(b, o, 1<<16, func(pt *tree.Tree, _ bool) error {
			for _, b := range records.LogBatches(pt) {
				got += len(b.Records)
			}
			probs += problems(pt)
			return nil
		})
		return got, probs
	}
	k = 8<<10 + 2*len(payload)
	got, probs := parts(records.Options{})
	// (A part's decompressed offsets count from its own Virtual.)
	probs = regexp.MustCompile(`decompressed v0x[0-9a-f]+`).ReplaceAllString(probs, "decompressed v…")
	if want := fmt.Sprintf("records[0].decompressed.Record[%d] at 0x003d (decompressed v…): %d bytes of records not decoded: a compressed payload of %d bytes holds at most %d records (8 Ki and 2 a byte; a bomb?) (the first 4096 bytes shown; the other %d bytes, decompressed, not held)\n",
		k, (n-k)*len(one), len(payload), k, (n-k)*len(one)-4096); got != k || probs != want {
		t.Errorf("parts: %d records, problems\n%s\nwant %d,\n%s", got, probs, k, want)
	}
	got, probs = parts(records.Options{MaxRecords: int64(n)})
	if got != n || probs != "" {
		t.Errorf("parts, MaxRecords %d: %d records, problems %s", n, got, probs)
	}
	got, probs = parts(records.Options{MaxRecords: 10})
	probs = regexp.MustCompile(`decompressed v0x[0-9a-f]+`).ReplaceAllString(probs, "decompressed v…")
	if want := fmt.Sprintf("records[0].decompressed.Record[10] at 0x003d (decompressed v…): %d bytes of records not decoded: the compressed payload holds more than 10 records, the records limit (the first 4096 bytes shown; the other %d bytes, decompressed, not held)\n", (n-10)*len(one), (n-10)*len(one)-4096); got != 10 || probs != want {
		t.Errorf("parts, MaxRecords 10: %d records, problems\n%s\nwant\n%s", got, probs, want)
	}
}

// A small compressed batch decoded after a large one allocates what it
// needs, not the array the large one's decompressed bytes took (the size
// hint of the last array a tree kept is bounded by the input).
func TestSmallDecodeAfterALargeOne(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	large := dataBatch(7, 4, []rec{{key: []byte("a"), value: big}, {key: []byte("b"), value: big}, {key: []byte("c"), value: big}}, zstdBytes)
	small := dataBatch(0, 4, sampleRecords(2), zstdBytes)
	kept := records.Decode(large, records.Options{})
	if len(kept.Virtual) < 12<<20 {
		t.Fatalf("the large batch decompressed to %d bytes", len(kept.Virtual))
	}
	for range 3 {
		var tr *tree.Tree
		if got := allocated(func() { tr = records.Decode(small, records.Options{}) }); got > 256<<10 {
			t.Fatalf("decoding %d bytes allocated %d", len(small), got)
		}
		if len(tr.Problems) > 0 {
			t.Fatal(tr.Problems)
		}
	}
	runtime.KeepAlive(kept)
}

// An empty zstd frame after the decompression limit is spent exactly
// (no room may be made for it) is read as the stream reads it: no panic,
// in Decode and in DecodeParts, whose parts start with an empty Virtual.
func TestZstdWithNoRoomLeft(t *testing.T) {
	empty := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1}.bytes(zstdBytes(nil))
	for k := 1; k < 40; k++ {
		rs := sampleRecords(k)
		data := slices.Concat(dataBatch(0, 4, rs, zstdBytes), empty)
		o := records.Options{MaxDecompressedTotal: int64(len(recordsBytes(rs)))}
		records.Decode(data, o)
		if err := records.DecodeParts(data, o, 1, func(*tree.Tree, bool) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
}

// A raw snappy block starts with the length it decodes to, a uvarint
// that the bytes after it may not back: five bytes saying 100 MiB and
// four of data must not make room for 100 MiB. A snappy element (a
// literal or a copy of at most 64 bytes) decodes to at most 64/3 bytes a
// byte, so a length past that ratio is refused before any room is made;
// FuzzDecodeRequest found this one.
func TestSnappyLengthNotBacked(t *testing.T) {
	payload := []byte{0x80, 0x80, 0x80, 0x32, 0x0c, 'j', 'u', 'n', 'k'} // 100 MiB, then a 4-byte literal
	b := batch{attrs: 2, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(payload)
	var tr *tree.Tree
	got := allocated(func() { tr = records.Decode(b, records.Options{}) })
	wantProblems(t, tr, "records[0].records at 0x003d: snappy payload does not decompress: snappy block of 9 bytes says it decodes to 104857600 bytes, more than its bytes can hold")
	if got > 1<<20 {
		t.Errorf("a 9-byte snappy block saying 100 MiB allocates %d bytes", got)
	}
	// The same in snappy-java's framing.
	x := []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, byte(len(payload))}
	b = batch{attrs: 2, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(append(x, payload...))
	got = allocated(func() { tr = records.Decode(b, records.Options{}) })
	wantProblems(t, tr, "records[0].records at 0x003d: snappy payload does not decompress: xerial chunk at +16 (9 bytes): snappy block of 9 bytes says it decodes to 104857600 bytes")
	if got > 1<<20 {
		t.Errorf("a xerial chunk saying 100 MiB allocates %d bytes", got)
	}
}

// A xerial snappy payload is bounded as the other codecs' are: one whose
// chunks declare more than the limit is refused before a chunk is decoded
// (80 chunks of 1 MiB of zeros, 4 MB, under a limit of 64 MiB allocate
// what the tree of their bytes may take, 4 bytes a byte, and 4 MiB, where
// they took more than the 64 MiB they fitted), and one within the
// limit but past what is held is streamed a chunk at a time by
// DecodeParts: 48 MiB of records allocate less than 16 MiB, every record
// there.
func TestSnappyMemory(t *testing.T) {
	chunk := snappy.Encode(nil, make([]byte, 1<<20))
	x := []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}
	for range 80 {
		x = binary.BigEndian.AppendUint32(x, uint32(len(chunk)))
		x = append(x, chunk...)
	}
	bomb := batch{attrs: 2, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(x)
	var tr *tree.Tree
	got := allocated(func() { tr = records.Decode(bomb, records.Options{MaxDecompressed: 64 << 20}) })
	wantProblems(t, tr, "records[0].records at 0x003d: snappy payload decompresses to more than 67108864 bytes, the decompression limit: not followed")
	t.Logf("80 MiB of snappy past a limit of 64 MiB: %d bytes allocated", got)
	if got > 4*uint64(len(bomb))+4<<20 {
		t.Errorf("80 MiB of snappy past a limit of 64 MiB allocate %d bytes", got)
	}

	value := bytes.Repeat([]byte("0123456789abcdef"), 1<<12) // 64 KiB
	rs := make([]rec, 768)
	for i := range rs {
		rs[i] = rec{value: value}
	}
	seg := dataBatch(0, 2, rs, func(p []byte) []byte { return xerialBytes(p, 32<<10) })
	n := 0
	var last []byte
	got = allocated(func() {
		err := records.DecodeParts(seg, records.Options{}, 1<<16, func(pt *tree.Tree, _ bool) error {
			for _, p := range pt.Problems {
				t.Errorf("problem %s", p)
			}
			for _, b := range records.LogBatches(pt) {
				n += len(b.Records)
				if len(b.Records) > 0 {
					last = slices.Clone(b.Records[len(b.Records)-1].Value)
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
	t.Logf("48 MiB of snappy records in parts: %d bytes allocated", got)
	if n != len(rs) || !bytes.Equal(last, value) {
		t.Errorf("%d records, the last value %d bytes", n, len(last))
	}
	if got > 16<<20 {
		t.Errorf("48 MiB of snappy records in parts allocate %d bytes", got)
	}
}

// One Budget bounds what the payloads of an input decompress to across
// every decode of it, whole or in parts: two batches of 12 MiB each
// under a budget of 20 MiB decompress once, the second is reported, in
// the same call or the next; with nothing left, not even a small one is
// decompressed. Without a Budget each call has its own bounds, as before.
func TestBudget(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	rs := []rec{{value: big}, {value: big}, {value: big}}
	one := dataBatch(0, 4, rs, zstdBytes)
	size := int64(len(recordsBytes(rs)))
	two := append(slices.Clone(one), one...)
	spent := fmt.Sprintf("records[1].records at 0x%04x: zstd payload: the decompression budget of the input (20971520 bytes) has %d bytes left: not decompressed", len(one)+61, 20<<20-size)

	b := records.NewBudget(20 << 20)
	tr := records.Decode(two, records.Options{Budget: b})
	wantProblems(t, tr, spent)
	if int64(len(tr.Virtual)) != size || b.Left() != 20<<20-size {
		t.Errorf("whole: %d virtual bytes, %d left", len(tr.Virtual), b.Left())
	}
	// The next call of the same input: nothing is decompressed.
	tr = records.Decode(one, records.Options{Budget: b})
	wantProblems(t, tr, strings.Replace(strings.Replace(spent, "records[1]", "records[0]", 1), fmt.Sprintf("0x%04x", len(one)+61), "0x003d", 1))

	b = records.NewBudget(20 << 20)
	var probs []string
	for range 2 {
		err := records.DecodeParts(one, records.Options{Budget: b}, 1<<16, func(pt *tree.Tree, _ bool) error {
			for _, p := range pt.Problems {
				probs = append(probs, p.String())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if want := strings.Replace(strings.Replace(spent, "records[1]", "records[0]", 1), fmt.Sprintf("0x%04x", len(one)+61), "0x003d", 1); !slices.Equal(probs, []string{want}) {
		t.Errorf("parts: problems %q, want %q", probs, want)
	}
	tr = records.Decode(two, records.Options{})
	wantProblems(t, tr)
}

// A legacy wrapper's value is held whole and its messages are one part, so
// DecodeParts bounds it: a gzip wrapper of 64 MiB of small messages (a
// few hundred KB) is refused past 16 MiB, allocating less than 24 MiB
// where it took 1.6 GiB in kwire log; one of 12 MiB is decoded to
// Options.MaxNodes (DefaultMaxNodes: a snappy wrapper of 15 MiB of small
// messages took kwire log 203 MiB), and with a larger MaxNodes to the node
// bound of its view, as Decode decodes it, with the same problem.
func TestLegacyWrapperInParts(t *testing.T) {
	skipUnderRace(t)
	inner := legacyMessage(0, 1, 0, nil, []byte("v"))
	wrapper := func(n int) []byte {
		return legacyWrapper(0, 1, 1, bytes.Repeat(inner, n/len(inner)), gzipBytes)
	}
	maxNodes := 0
	parts := func(b []byte) (probs []string) {
		err := records.DecodeParts(b, records.Options{MaxNodes: maxNodes}, 1<<16, func(pt *tree.Tree, _ bool) error {
			for _, p := range pt.Problems {
				probs = append(probs, p.String())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return probs
	}
	big := wrapper(64 << 20)
	var probs []string
	got := allocated(func() { probs = parts(big) })
	t.Logf("a wrapper of 64 MiB in parts: %d bytes allocated", got)
	if want := "records[0].value at 0x0022: gzip payload of a legacy wrapper decompresses to more than 16777216 bytes, what its messages may take when they are read in parts: not followed"; !slices.Equal(probs, []string{want}) {
		t.Errorf("a wrapper of 64 MiB in parts: %q", probs)
	}
	if got > 24<<20 {
		t.Errorf("a wrapper of 64 MiB in parts allocates %d bytes", got)
	}
	mid := wrapper(12 << 20)
	probs = parts(mid)
	// 9 nodes a magic 1 message: 58253 of them make 524277, with the
	// wrapper's own.
	if want := "records[0].decompressed[58253] at 0x0022 (decompressed v0x1f1c47): 10544030 bytes of entries not decoded: the inner messages of a legacy wrapper, held whole, make 524288 nodes, the limit (the first 4096 bytes shown; the other 10539934 bytes, decompressed, not held)"; !slices.Equal(probs, []string{want}) {
		t.Errorf("a wrapper of 12 MiB in parts: %q", probs)
	}
	maxNodes = 1 << 20
	probs = parts(mid)
	whole := records.Decode(mid, records.Options{})
	var want []string
	for _, p := range whole.Problems {
		want = append(want, p.String())
	}
	if len(want) != 1 || !strings.Contains(want[0], "makes at most") || !slices.Equal(probs, want) {
		t.Errorf("a wrapper of 12 MiB in parts: %q\nwhole: %q", probs, want)
	}
}

// A raw snappy block (no xerial framing, as librdkafka and franz-go write
// it) is decoded whole, so the length its header declares is checked
// against what the input's Budget has left before any room is made: a
// block declaring 8 MiB (its bytes can hold that much) under a budget of
// 4 MiB is refused with the budget's problem, allocating less than 1 MiB
// in a whole decode and 2 MiB in parts (their trees' room); under a budget of 16 MiB it decodes, and
// the budget loses what it decoded to.
func TestRawSnappyBudget(t *testing.T) {
	value := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	rs := make([]rec, 8)
	for i := range rs {
		rs[i] = rec{value: value}
	}
	size := int64(len(recordsBytes(rs)))
	seg := dataBatch(0, 2, rs, func(p []byte) []byte { return snappy.Encode(nil, p) })
	want := "records[0].records at 0x003d: snappy payload decompresses to more than 4194304 bytes, the decompression budget of the input: not decompressed"
	b := records.NewBudget(4 << 20)
	var tr *tree.Tree
	records.ForgetVirtualHint()
	got := allocated(func() { tr = records.Decode(seg, records.Options{Budget: b}) })
	wantProblems(t, tr, want)
	if got > 1<<20 {
		t.Errorf("a raw snappy block of %d bytes past the budget allocates %d bytes", size, got)
	}
	var probs []string
	got = allocated(func() {
		err := records.DecodeParts(seg, records.Options{Budget: b}, 1<<16, func(pt *tree.Tree, _ bool) error {
			for _, p := range pt.Problems {
				probs = append(probs, p.String())
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
	if !slices.Equal(probs, []string{want}) {
		t.Errorf("in parts: problems %q, want %q", probs, want)
	}
	if got > 2<<20 {
		t.Errorf("in parts, a raw snappy block of %d bytes past the budget allocates %d bytes", size, got)
	}
	b = records.NewBudget(16 << 20)
	tr = records.Decode(seg, records.Options{Budget: b})
	wantProblems(t, tr)
	if n := len(records.LogBatches(tr)[0].Records); n != len(rs) || b.Left() != 16<<20-size {
		t.Errorf("under a budget of 16 MiB: %d records, %d bytes left, want %d", n, b.Left(), 16<<20-size)
	}
}

// A record of a streamed payload is held whole to be decoded, so one
// longer than the record bytes limit (Options.MaxRecordBytes) is shown as
// bytes as they stream by, after a problem that gives its length, and the
// records after it are decoded: records of 1 KiB, 64 MiB and 1 KiB in
// zstd allocate less than 40 MiB in parts (the whole record is not held;
// before the limit, 128 MiB and more); raising the limit decodes it.
func TestRecordOverLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("decompresses 64 MiB")
	}
	small := bytes.Repeat([]byte("s"), 1<<10)
	big := bytes.Repeat([]byte("0123456789abcdef"), 4<<20) // 64 MiB
	seg := dataBatch(100, 4, []rec{{value: small}, {value: big}, {value: small}}, func(p []byte) []byte { return zstdStream(p, len(p), 1<<20) })
	decode := func(o records.Options) (offsets []int64, values []int, problems []string, raw int) {
		records.DecodeParts(seg, o, 1<<16, func(pt *tree.Tree, _ bool) error {
			for _, b := range records.LogBatches(pt) {
				for _, r := range b.Records {
					offsets = append(offsets, r.Offset)
					values = append(values, len(r.Value))
				}
			}
			for i := range pt.Nodes {
				if pt.Nodes[i].Kind() == tree.Raw && pt.Nodes[i].Flags()&tree.FlagVirtual != 0 {
					raw += int(pt.Nodes[i].Size)
				}
			}
			for _, p := range pt.Problems {
				problems = append(problems, p.String())
			}
			return nil
		})
		return
	}
	var offsets []int64
	var values []int
	var problems []string
	var raw int
	got := allocated(func() { offsets, values, problems, raw = decode(records.Options{}) })
	t.Logf("a 64 MiB record in zstd, in parts: %d bytes allocated", got)
	want := []string{"records[0].decompressed.Record[1] at 0x003d (decompressed v0x0409): a record of 67108877 bytes, more than the 16777216 bytes a record may take to be decoded (the record bytes limit): shown as bytes, not decoded"}
	if !slices.Equal(problems, want) {
		t.Errorf("problems %q", problems)
	}
	if !slices.Equal(offsets, []int64{100, 102}) || !slices.Equal(values, []int{1 << 10, 1 << 10}) {
		t.Errorf("records at %v, values of %v bytes; want 100 and 102, 1 KiB each", offsets, values)
	}
	if raw != 67108877 {
		t.Errorf("%d bytes shown raw, want the record's 67108877", raw)
	}
	if got > 40<<20 {
		t.Errorf("a 64 MiB record in parts allocates %d bytes", got)
	}
	offsets, values, problems, _ = decode(records.Options{MaxRecordBytes: 128 << 20})
	if len(problems) != 0 || !slices.Equal(offsets, []int64{100, 101, 102}) || values[1] != len(big) {
		t.Errorf("with a limit of 128 MiB: records %v of %v bytes, problems %q", offsets, values, problems)
	}
	// The long record last, then 3 bytes the batch does not count: both
	// shown as bytes, each with its problem, every byte covered (the
	// surplus at 0x000d of its part's Virtual, as DecodeParts counts).
	payload := append(recordsBytes([]rec{{value: small}, {value: big[:20<<20]}}), 1, 2, 3)
	seg = batch{baseOffset: 7, attrs: 4, lastDelta: 1, producerID: -1, epoch: -1, seq: -1, count: 2}.bytes(zstdStream(payload, len(payload), 1<<20))
	offsets, _, problems, raw = decode(records.Options{})
	want = []string{
		"records[0].decompressed.Record[1] at 0x003d (decompressed v0x0409): a record of 20971533 bytes, more than the 16777216 bytes a record may take to be decoded (the record bytes limit): shown as bytes, not decoded",
		"records[0].decompressed at 0x003d (decompressed v0x000d): 3 bytes after the 2 records the batch counts (recordsCount does not match)",
	}
	if !slices.Equal(offsets, []int64{7}) || !slices.Equal(problems, want) || raw != 20971533+3 {
		t.Errorf("the long record last: records %v, %d bytes raw, problems %q", offsets, raw, problems)
	}
}

// One raw snappy block (not xerial-framed) is decoded whole, so in parts
// a block that decompresses to more than 32 MiB (or the record bytes
// limit, when more) is reported, not decompressed: 40 MiB of records in
// one block allocate less than 16 MiB; with a limit of 64 MiB they are
// decoded.
func TestRawSnappyOverLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("decompresses 40 MiB")
	}
	rs := make([]rec, 640)
	for i := range rs {
		rs[i].value = bytes.Repeat([]byte{'v'}, 64<<10)
	}
	seg := dataBatch(0, 2, rs, func(p []byte) []byte { return snappy.Encode(nil, p) })
	decode := func(o records.Options) (n int, problems []string) {
		records.DecodeParts(seg, o, 1<<16, func(pt *tree.Tree, _ bool) error {
			for _, b := range records.LogBatches(pt) {
				n += len(b.Records)
			}
			for _, p := range pt.Problems {
				problems = append(problems, p.String())
			}
			return nil
		})
		return
	}
	var n int
	var problems []string
	got := allocated(func() { n, problems = decode(records.Options{}) })
	t.Logf("a raw snappy block of 40 MiB, in parts: %d bytes allocated", got)
	want := []string{"records[0].records at 0x003d: snappy payload in one raw block (not xerial-framed) decompresses to more than 33554432 bytes, what one block may take to be decoded whole (the record bytes limit, when more): not decompressed"}
	if n != 0 || !slices.Equal(problems, want) {
		t.Errorf("%d records, problems %q", n, problems)
	}
	if got > 16<<20 {
		t.Errorf("a refused raw snappy block allocates %d bytes", got)
	}
	if n, problems = decode(records.Options{MaxRecordBytes: 64 << 20}); n != 640 || len(problems) != 0 {
		t.Errorf("with a limit of 64 MiB: %d records, problems %q", n, problems)
	}
}

// Headers count toward the records bound of a compressed view, four as
// one record, and a record has at most 64 Ki headers decoded: a zstd
// batch of a few hundred bytes holding one record of 3.9 million empty
// headers (a 1.6 GiB decode of `kwire log` before) decodes its first
// headers within the bound, whole or in parts, the rest one leaf with a
// problem, in less than 48 MiB of allocations (25 and 36 MB: the 7.8 MB
// payload is held); uncompressed, a record of
// 100000 headers has 65536 decoded, and the record after it is decoded.
func TestHeaderBomb(t *testing.T) {
	payload := zstdBytes(testseg.HeaderBombRecord(3_900_000))
	b := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(payload)
	max := 8<<10 + 2*len(payload)
	want := fmt.Sprintf("records[0].decompressed.Record[0].headerKey[%d] at 0x003d (decompressed v0x%04x): headers %d to 3899999 of 3900000 (%d bytes) not decoded: a compressed payload of %d bytes holds at most %d records (8 Ki and 2 a byte; a bomb?), 4 headers counting as one",
		4*max, 13+2*4*max, 4*max, 2*(3_900_000-4*max), len(payload), max)
	// Only the first 4 KiB of the headers not decoded are held.
	want += fmt.Sprintf(" (the first 4096 bytes shown; the other %d bytes, decompressed, not held)", 2*(3_900_000-4*max)-4096)
	var tr *tree.Tree
	got := allocated(func() { tr = records.Decode(b, records.Options{}) })
	t.Logf("3.9M headers, whole: %d bytes allocated", got)
	wantProblems(t, tr, want)
	if bs := records.LogBatches(tr); len(bs) != 1 || len(bs[0].Records) != 1 || len(bs[0].Records[0].Headers) != 4*max {
		t.Errorf("whole: batches %+v", bs)
	}
	if got > 48<<20 {
		t.Errorf("3.9M headers, whole: %d bytes allocated", got)
	}
	if held := 13 + 2*4*max + 4096; len(tr.Virtual) != held {
		t.Errorf("whole: %d decompressed bytes held, want %d", len(tr.Virtual), held)
	}
	var probs []string
	headers := 0
	got = allocated(func() {
		records.DecodeParts(b, records.Options{Lazy: true}, 1<<16, func(pt *tree.Tree, _ bool) error {
			for _, b := range records.LogBatches(pt) {
				for _, r := range b.Records {
					headers += len(r.Headers)
				}
			}
			for _, p := range pt.Problems {
				probs = append(probs, p.String())
			}
			return nil
		})
	})
	t.Logf("3.9M headers, in parts: %d bytes allocated", got)
	if headers != 4*max || !slices.Equal(probs, []string{want}) {
		t.Errorf("parts: %d headers, problems %q", headers, probs)
	}
	if got > 48<<20 {
		t.Errorf("3.9M headers, in parts: %d bytes allocated", got)
	}
	// Uncompressed: the record's own bound, then the next record.
	recs := append(testseg.HeaderBombRecord(100000), recordBytes(1, rec{value: []byte("after")})...)
	u := batch{producerID: -1, epoch: -1, seq: -1, count: 2, lastDelta: 1}.bytes(recs)
	utr := records.Decode(u, records.Options{})
	wantProblems(t, utr, fmt.Sprintf("records[0].Record[0].headerKey[65536] at 0x%04x: headers 65536 to 99999 of 100000 (68928 bytes) not decoded: a record has at most 65536 headers decoded (a bomb?)", 61+11+2*65536))
	bs := records.LogBatches(utr)
	if len(bs) != 1 || len(bs[0].Records) != 2 || len(bs[0].Records[0].Headers) != 65536 || string(bs[0].Records[1].Value) != "after" {
		t.Errorf("uncompressed: %d batches", len(bs))
	}
	// 300 headers (past what the fast path reads) decode whole.
	many := make([][2][]byte, 300)
	for i := range many {
		many[i] = [2][]byte{[]byte("h"), []byte("v")}
	}
	for _, lazy := range []bool{false, true} {
		mtr := records.Decode(dataBatch(0, 4, []rec{{headers: many}, {value: []byte("x")}}, zstdBytes), records.Options{Lazy: lazy})
		if bs := records.LogBatches(mtr); len(mtr.Problems) != 0 || len(bs) != 1 || len(bs[0].Records) != 2 || len(bs[0].Records[0].Headers) != 300 {
			t.Errorf("300 headers (lazy %v): problems %s", lazy, problems(mtr))
		}
	}
}

// Many small compressed payloads share the bounds of one: 300 zstd
// batches of 40 bytes, each claiming 20000 empty records (140 KB
// decompressed), are decoded to 8 Ki and 2 records a byte of all their
// payloads together, not each (a thousand of them listed 8 million
// records), whole or in parts; whole, the decompressed bytes of each are
// appended without copying what the tree holds (35 GB allocated for a
// thousand; now about twice what they decompress to), and in parts no
// part holds more than 8 MiB of them (a thousand were one part of 1.3 GB).
func TestManySmallBombs(t *testing.T) {
	skipUnderRace(t)
	one := recordBytes(0, rec{})
	cb := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 20000, lastDelta: 19999}.bytes(zstdBytes(bytes.Repeat(one, 20000)))
	payload := len(cb) - 61
	var seg []byte
	for i := range 300 {
		b := bytes.Clone(cb)
		binary.BigEndian.PutUint64(b, uint64(i*20000))
		seg = append(seg, b...)
	}
	count := func(t *tree.Tree) int {
		k := 0
		for _, b := range records.LogBatches(t) {
			k += len(b.Records)
		}
		return k
	}
	allowed := 8<<10 + 2*300*payload
	var tr *tree.Tree
	got := allocated(func() { tr = records.Decode(seg, records.Options{}) })
	t.Logf("300 small bombs, whole: %d records, %d bytes decompressed, %d allocated", count(tr), len(tr.Virtual), got)
	if n := count(tr); n > allowed || n < allowed-300 {
		t.Errorf("whole: %d records, want about %d", n, allowed)
	}
	if p := problems(tr); !strings.Contains(p, fmt.Sprintf("records not decoded: the 300 compressed payloads of these records so far (%d bytes) hold at most %d records together (8 Ki and 2 a byte; a bomb?)", 300*payload, allowed)) {
		t.Errorf("whole: problems\n%.2000s", p)
	}
	if got > 4*uint64(len(tr.Virtual))+32<<20 {
		t.Errorf("whole: %d bytes allocated for %d decompressed", got, len(tr.Virtual))
	}
	// Of each payload, the records decoded and the first 4 KiB of the
	// rest are held (not 300 x 160 KB).
	if held := count(tr)*len(one) + 300*4096; len(tr.Virtual) > held {
		t.Errorf("whole: %d decompressed bytes held, want at most %d", len(tr.Virtual), held)
	}
	n, most := 0, 0
	got = allocated(func() {
		records.DecodeParts(seg, records.Options{}, 1<<16, func(pt *tree.Tree, _ bool) error {
			n += count(pt)
			most = max(most, len(pt.Virtual))
			return nil
		})
	})
	t.Logf("in parts: %d records, at most %d decompressed bytes a part, %d allocated", n, most, got)
	// (The same records as whole: the node bound of a whole decode's
	// views meets the records bound at the same record.)
	if n != count(tr) || most > 8<<20+200<<10 {
		t.Errorf("parts: %d records, want %d as whole; a part held %d decompressed bytes", n, count(tr), most)
	}
}

// A payload refused past its limit leaves no room in the tree it was
// appended to: a zstd batch of a few KB decompressing past its 20 MiB
// limit grew the tree's Virtual to the limit as it was read, and trees
// held together kept it each (a file of 100 such frames took decode 890
// MiB; a capture of 300 pipelined requests, pcap 2.5 GiB). Append and
// Decode leave at most 1 MiB of room (or a quarter of what is held).
func TestRefusedPayloadLeavesNoRoom(t *testing.T) {
	bomb := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(zstdBytes(make([]byte, 40<<20)))
	small := dataBatch(1, 4, sampleRecords(3), zstdBytes)
	o := records.Options{MaxDecompressed: 20 << 20}
	for _, c := range []struct {
		name string
		data []byte
	}{{"bomb", bomb}, {"bomb, then a small batch", slices.Concat(bomb, small)}} {
		tr := records.Decode(c.data, o)
		if !strings.Contains(problems(tr), "payload decompresses to more than 20971520 bytes") || cap(tr.Virtual)-len(tr.Virtual) > 1<<20 {
			t.Errorf("Decode, %s: %d bytes held, room for %d\n%s", c.name, len(tr.Virtual), cap(tr.Virtual), problems(tr))
		}
		at := &tree.Tree{Bytes: c.data}
		b := tree.Builder{T: at}
		b.Open(tree.Node{S: tree.NewShape(tree.Records, tree.WireRaw, 0, 0)})
		records.Append(&b, c.data, 0, o)
		b.Close(int32(len(c.data)))
		if cap(at.Virtual)-len(at.Virtual) > 1<<20 || len(at.Virtual) != len(tr.Virtual) {
			t.Errorf("Append, %s: %d bytes held, room for %d", c.name, len(at.Virtual), cap(at.Virtual))
		}
	}
}

// A view cut by boundRest ends only its own record early: an
// uncompressed record of 300 headers (decoded by the general path) at a
// wire offset past the cut view's Virtual bytes closes at its own end
// (the cut was kept on the decoder, and such a record closed at the end
// of Virtual, before its children).
func TestBoundCutEndsOnlyItsRecord(t *testing.T) {
	one := recordBytes(0, rec{})
	cb := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 20000, lastDelta: 19999}.bytes(zstdBytes(bytes.Repeat(one, 20000)))
	filler := batch{producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(recordBytes(0, rec{value: make([]byte, 200000)}))
	plain := batch{producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(testseg.HeaderBombRecord(300))
	tr := records.Decode(slices.Concat(cb, filler, plain), records.Options{})
	checkTiles(t, tr)
	if bs := records.LogBatches(tr); len(bs) != 3 || len(bs[2].Records) != 1 || len(bs[2].Records[0].Headers) != 300 {
		t.Errorf("%d batches", len(bs))
	}
}

// When a bound that stops the rest of a view (its records bound, the
// tree's node bound) stops a record's headers and more records follow it
// in the view, the cut takes them in: one problem names both, only the
// first bytes of them are held, and the record and the view end there.
// Before, each such view was held whole: 2000 batches of an 88-byte
// payload of a record of 200000 empty headers and one more record (298 KB)
// took decode 102 MiB.
func TestHeaderCutTakesInTheView(t *testing.T) {
	payload := slices.Concat(testseg.HeaderBombRecord(40000), recordBytes(1, rec{value: make([]byte, 10000)}))
	cb := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 2, lastDelta: 1}.bytes(zstdBytes(payload))
	plain := batch{baseOffset: 2, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(recordBytes(0, rec{value: []byte("v")}))
	tr := records.Decode(slices.Concat(cb, plain), records.Options{})
	checkTiles(t, tr)
	var probs []string
	for _, p := range tr.Problems {
		probs = append(probs, p.String())
	}
	// The records bound: 8 Ki and 2 a byte of the payload, 4 headers a
	// record.
	cut := 4 * (8192 + 2*(len(cb)-61))
	after := len(payload) - len(testseg.HeaderBombRecord(40000))
	rest := 2*(40000-cut) + after
	want := fmt.Sprintf("records[0].decompressed.Record[0].headerKey[%d] at 0x003d (decompressed v0x%04x): headers %d to 39999 of 40000 (%d bytes) and the %d bytes of records after the record not decoded: a compressed payload of %d bytes holds at most %d records (8 Ki and 2 a byte; a bomb?), 4 headers counting as one (the first 4096 bytes shown; the other %d bytes, decompressed, not held)",
		cut, 2*cut+11, cut, 2*(40000-cut), after, len(cb)-61, 8192+2*(len(cb)-61), rest-4096)
	if !slices.Equal(probs, []string{want}) {
		t.Fatalf("problems %q\nwant %q", probs, want)
	}
	if len(tr.Virtual) != 2*cut+11+4096 {
		t.Errorf("%d bytes of Virtual held, want %d", len(tr.Virtual), 2*cut+11+4096)
	}
	bs := records.LogBatches(tr)
	if len(bs) != 2 || len(bs[0].Records) != 1 || len(bs[0].Records[0].Headers) != cut || len(bs[1].Records) != 1 || string(bs[1].Records[0].Value) != "v" {
		t.Errorf("batches %+v", bs)
	}
}

// DecodeParts's MaxNodes bounds only a legacy wrapper's messages (held
// in one part): a batch of many records is split into parts whatever
// MaxNodes says. Bounding every part by it cut an ordinary 942 KB batch of
// 50000 records with two headers each at record 43690 (an outside review).
func TestPartsMaxNodesBoundsOnlyWrappers(t *testing.T) {
	rs := make([]rec, 50000)
	for i := range rs {
		rs[i] = rec{key: []byte("k"), value: []byte("v"), headers: [][2][]byte{{[]byte("a"), []byte("1")}, {[]byte("b"), []byte("2")}}}
	}
	plain := dataBatch(0, 0, rs, nil)
	zstd := dataBatch(50000, 4, rs, zstdBytes)
	for _, maxNodes := range []int{0, 1000} {
		n := 0
		var probs []string
		err := records.DecodeParts(slices.Concat(plain, zstd), records.Options{MaxNodes: maxNodes}, 1<<16, func(pt *tree.Tree, _ bool) error {
			for _, b := range records.LogBatches(pt) {
				n += len(b.Records)
			}
			for _, p := range pt.Problems {
				probs = append(probs, p.String())
			}
			return nil
		})
		if err != nil || n != 100000 || len(probs) != 0 {
			t.Errorf("MaxNodes %d: %v, %d records, problems %q", maxNodes, err, n, probs)
		}
	}
}

// skipUnderRace skips a test of allocation counts under the race
// detector, whose sync.Pool drops what is put in it.
func skipUnderRace(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops what is put in it: allocations are not the code's")
	}
}
