package records_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// wantProblems asserts tr's problems, "path at 0xOFFS: prefix of msg" one
// a line, and that the wire leaves still tile the input.
func wantProblems(t *testing.T, tr *tree.Tree, want ...string) {
	t.Helper()
	checkTiles(t, tr)
	if len(tr.Problems) != len(want) {
		t.Fatalf("%d problems, want %d:\n%s", len(tr.Problems), len(want), problems(tr))
	}
	for k, p := range tr.Problems {
		got := p.String()
		if p.Notice {
			got = "note: " + got
		}
		if !strings.HasPrefix(got, want[k]) {
			t.Errorf("problem %d = %q\nwant prefix %q", k, got, want[k])
		}
	}
}

// batchCount returns the number of RecordBatch v2 nodes and of records in
// them, virtual ones included.
func batchCount(tr *tree.Tree) (batches, recs int) {
	for i := range tr.Nodes {
		switch tr.Nodes[i].Kind() {
		case tree.RecordBatch:
			batches++
		case tree.Record:
			recs++
		}
	}
	return
}

func TestBadCRCIsReportedAndDecodingGoesOn(t *testing.T) {
	good := dataBatch(0, 0, sampleRecords(2), nil)
	bad := dataBatch(2, 0, sampleRecords(3), nil)
	bad[30] ^= 1 // inside the CRC's range: lastOffsetDelta
	b := append(append(append([]byte{}, good...), bad...), good...)
	tr := records.Decode(b, records.Options{})
	wantProblems(t, tr, "records[1].crc at 0x"+hex4(len(good)+17)+": CRC-32C 0x")
	if nb, nr := batchCount(tr); nb != 3 || nr != 7 {
		t.Errorf("%d batches, %d records", nb, nr)
	}
	bs := find(tr, tree.RecordBatch, "RecordBatch")
	if tr.Nodes[bs[1]].Flags()&tree.FlagBadCRC == 0 || tr.Nodes[bs[0]].Flags()&tree.FlagBadCRC != 0 {
		t.Error("FlagBadCRC not on the second batch only")
	}
	if crc := child(tr, bs[1], "crc"); tr.Nodes[crc].Flags()&(tree.FlagBadCRC|tree.FlagProblem) != tree.FlagBadCRC|tree.FlagProblem {
		t.Error("the crc leaf is not flagged")
	}
}

func hex4(v int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[v>>12&15], digits[v>>8&15], digits[v>>4&15], digits[v&15]})
}

func TestTruncatedBatchAndBatchLengthPastTheEnd(t *testing.T) {
	good := dataBatch(0, 0, sampleRecords(2), nil)
	cut := dataBatch(2, 0, sampleRecords(2), nil)
	if len(good) != 0x7d || len(cut) != 0x7d {
		t.Fatalf("batches of %d and %d bytes, want 125", len(good), len(cut))
	}
	// Cut short: the last 5 bytes are missing. A notice, as at the end of
	// a fetch; an error when the records are complete (a snapshot).
	data := append(append([]byte{}, good...), cut[:len(cut)-5]...)
	tr := records.Decode(data, records.Options{})
	wantProblems(t, tr, "note: records[1] at 0x007d: partial batch: batchLength 113, 108 bytes present")
	if len(tr.Errors()) != 0 {
		t.Error("a partial tail is an error")
	}
	tr = records.Decode(data, records.Options{Complete: true})
	wantProblems(t, tr, "records[1] at 0x007d: partial batch: batchLength 113, 108 bytes present: the records end inside it")
	if len(tr.Errors()) != 1 {
		t.Error("a partial tail of complete records is not an error")
	}
	// A batchLength past the end of the records, a batch after it: the
	// bytes up to that batch are skipped, the batch is decoded.
	long := append([]byte{}, cut...)
	binary.BigEndian.PutUint32(long[8:], uint32(len(cut)-12+1000))
	tr = records.Decode(append(append(append([]byte{}, good...), long...), good...), records.Options{})
	wantProblems(t, tr, "records[1] at 0x007d: batchLength 1113, but a batch starts 125 bytes after this one: 125 bytes skipped from 0x007d to 0x00fa")
	if nb, _ := batchCount(tr); nb != 2 {
		t.Errorf("%d batches, want 2", nb)
	}
	// The same at the end: a partial batch, as Kafka reads it.
	tr = records.Decode(append(append([]byte{}, good...), long...), records.Options{})
	wantProblems(t, tr, "note: records[1] at 0x007d: partial batch: batchLength 1113, 113 bytes present")
	// Too short for any header.
	tr = records.Decode(append(append([]byte{}, good...), 9, 9, 9), records.Options{})
	wantProblems(t, tr, "note: records[1] at 0x007d: partial batch: 3 bytes, too short for a batch header")
}

// Bytes that are not a batch are an error at their offset, and decoding
// goes on at the next whole batch (its CRC checked), or the end: they are
// never taken for a partial batch.
func TestBytesThatAreNotABatchAreSkipped(t *testing.T) {
	good := dataBatch(0, 0, sampleRecords(2), nil)
	junk := bytes.Repeat([]byte{0xa5}, 4096) // magic 0xa5 (-91), batchLength -1515870811
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, c := range []struct {
		name    string
		data    []byte
		o       records.Options
		want    string
		batches int
	}{
		{"middle", cat(good, junk, good), records.Options{}, "records[1] at 0x007d: unknown magic -91 (Kafka knows 0, 1 and 2): 4096 bytes skipped from 0x007d to 0x107d", 2},
		{"window", cat(good, junk, good), records.Options{FileOffset: 0x10000}, "records[1] at 0x007d: unknown magic -91 (Kafka knows 0, 1 and 2): 4096 bytes skipped from 0x1007d to 0x1107d", 2},
		{"start", cat(junk[:100], good), records.Options{}, "records[0] at 0x0000: unknown magic -91 (Kafka knows 0, 1 and 2): 100 bytes skipped from 0x0000 to 0x0064", 1},
		{"end", cat(good, junk[:50]), records.Options{}, "records[1] at 0x007d: unknown magic -91 (Kafka knows 0, 1 and 2): 50 bytes skipped from 0x007d to the end", 1},
		// A v2 header whose length is more than any batch, at the end.
		{"huge", cat(good, good[:12+5]), records.Options{}, "", 1},
		{"zeros", cat(good, make([]byte, 40)), records.Options{}, "records[1] at 0x007d: 40 zero bytes from 0x007d to the end", 1},
		{"preallocated", cat(good, make([]byte, 40)), records.Options{Preallocated: true}, "note: records[1] at 0x007d: 40 zero bytes from 0x007d to the end", 1},
		{"zeros between", cat(good, make([]byte, 40), good), records.Options{Preallocated: true}, "records[1] at 0x007d: 40 zero bytes from 0x007d to 0x00a5", 2},
		// A batch whose CRC does not match is not where decoding goes on.
		{"bad crc after", cat(junk[:20], corrupt(good), good), records.Options{}, "records[0] at 0x0000: unknown magic -91 (Kafka knows 0, 1 and 2): 145 bytes skipped from 0x0000 to 0x0091", 1},
	} {
		if c.name == "huge" {
			binary.BigEndian.PutUint32(c.data[len(good)+8:], records.MaxBatchLength+1)
			c.want = "records[1] at 0x007d: batchLength 104857601 runs past the end and is more than a batch can be (104857600 bytes): 17 bytes skipped from 0x007d to the end"
		}
		tr := records.Decode(c.data, c.o)
		t.Run(c.name, func(t *testing.T) {
			wantProblems(t, tr, c.want)
			if got := strings.TrimSpace(problems(tr)); got != c.want {
				t.Errorf("problem %q, want exactly %q", got, c.want)
			}
			if nb, _ := batchCount(tr); nb != c.batches {
				t.Errorf("%d batches, want %d", nb, c.batches)
			}
		})
	}
}

// corrupt is b with its baseTimestamp changed (a CRC that does not match).
func corrupt(b []byte) []byte {
	c := append([]byte{}, b...)
	c[30] ^= 1
	return c
}

// EntrySize takes the headers Kafka's log reader takes.
func TestEntrySize(t *testing.T) {
	h := func(length uint32, magic byte) []byte {
		b := make([]byte, records.EntryHeader)
		binary.BigEndian.PutUint32(b[8:], length)
		b[16] = magic
		return b
	}
	for _, c := range []struct {
		b    []byte
		want int64
	}{
		{h(49, 2), 61}, {h(48, 2), 0}, {h(14, 0), 26}, {h(13, 0), 0}, {h(22, 1), 34}, {h(21, 1), 0},
		{h(1000, 3), 0}, {h(0xffffffff, 2), 0}, {h(1<<30, 2), 1<<30 + 12}, {h(49, 2)[:16], 0},
	} {
		if got := records.EntrySize(c.b); got != c.want {
			t.Errorf("EntrySize(% x) = %d, want %d", c.b, got, c.want)
		}
	}
}

func itoa(v int) string {
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

func TestInvalidBatchLengthsAndMagic(t *testing.T) {
	good := dataBatch(0, 0, sampleRecords(1), nil)
	// A length of 4: not an entry; skipped to the batch after.
	small := make([]byte, 16)
	small[0] = 1
	binary.BigEndian.PutUint32(small[8:], 4)
	tr := records.Decode(append(append([]byte{}, small...), good...), records.Options{})
	wantProblems(t, tr, "records[0] at 0x0000: messageSize 4 is less than a magic 0 message (14 bytes): 16 bytes skipped from 0x0000 to 0x0010")
	if nb, nr := batchCount(tr); nb != 1 || nr != 1 {
		t.Errorf("the batch after is not decoded: %d %d", nb, nr)
	}
	neg := append([]byte{}, small...)
	binary.BigEndian.PutUint32(neg[8:], 0xfffffff0)
	tr = records.Decode(append(neg, good...), records.Options{})
	wantProblems(t, tr, "records[0] at 0x0000: batchLength -16 is negative: 16 bytes skipped from 0x0000 to 0x0010")
	// magic 2 too short for its header.
	short := append([]byte{}, good[:40]...)
	binary.BigEndian.PutUint32(short[8:], 28)
	tr = records.Decode(append(short, good...), records.Options{})
	wantProblems(t, tr, "records[0] at 0x0000: batchLength 28 is less than a RecordBatch v2 header (49 bytes): 40 bytes skipped from 0x0000 to 0x0028")
	// An unknown magic.
	m3 := append([]byte{}, good...)
	m3[16] = 3
	tr = records.Decode(append(m3, good...), records.Options{})
	wantProblems(t, tr, "records[0] at 0x0000: unknown magic 3 (Kafka knows 0, 1 and 2): 91 bytes skipped from 0x0000 to 0x005b")
	if nb, _ := batchCount(tr); nb != 1 {
		t.Errorf("%d batches", nb)
	}
}

func TestRecordsCountMismatch(t *testing.T) {
	rs := sampleRecords(3)
	// The count says 4, the bytes hold 3.
	more := batch{baseOffset: 0, lastDelta: 3, producerID: -1, epoch: -1, seq: -1, count: 4}.bytes(recordsBytes(rs))
	// The count says 2, the bytes hold 3.
	fewer := batch{baseOffset: 10, lastDelta: 1, producerID: -1, epoch: -1, seq: -1, count: 2}.bytes(recordsBytes(rs))
	after := dataBatch(20, 0, rs, nil)
	b := append(append(append([]byte{}, more...), fewer...), after...)
	tr := records.Decode(b, records.Options{})
	third := len(recordBytes(0, rs[0])) + len(recordBytes(1, rs[1]))
	wantProblems(t, tr,
		"records[0].recordsCount at 0x0039: recordsCount says 4 records, the batch holds 3",
		"records[1] at 0x"+hex4(len(more)+61+third)+": "+itoa(len(recordBytes(2, rs[2])))+" bytes after the 2 records the batch counts")
	if nb, nr := batchCount(tr); nb != 3 || nr != 3+2+3 {
		t.Errorf("%d batches, %d records", nb, nr)
	}
	// The same inside a compressed batch: the view reports it.
	z := batch{baseOffset: 0, attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 5}.bytes(zstdBytes(recordsBytes(rs)))
	tr = records.Decode(z, records.Options{})
	wantProblems(t, tr, "records[0].recordsCount at 0x0039: recordsCount says 5 records, the batch holds 3")
}

func TestBadRecords(t *testing.T) {
	rs := sampleRecords(2)
	r0 := recordBytes(0, rs[0])
	// The second record's length goes past the end of the batch.
	r1 := recordBytes(1, rs[1])
	r1bad := append([]byte{0x7e}, r1[1:]...) // length 63
	b := batch{producerID: -1, epoch: -1, seq: -1, count: 2}.bytes(append(append([]byte{}, r0...), r1bad...))
	tr := records.Decode(append(b, dataBatch(5, 0, rs, nil)...), records.Options{})
	wantProblems(t, tr, "records[0].Record[1] at 0x"+hex4(61+len(r0))+": record length 63: only")
	if nb, nr := batchCount(tr); nb != 2 || nr != 3 {
		t.Errorf("%d batches, %d records", nb, nr)
	}
	// A record whose length counts 2 bytes more than its fields use: the
	// extra bytes are shown; the next record is decoded.
	body := r0[1:]
	fat := append(append([]byte{byte(2 * (len(body) + 2))}, body...), 0xaa, 0xbb)
	b = batch{producerID: -1, epoch: -1, seq: -1, count: 2}.bytes(append(fat, r1...))
	tr = records.Decode(b, records.Options{})
	wantProblems(t, tr, "records[0].Record[0] at 0x"+hex4(61+len(fat)-2)+": the record's length says "+itoa(len(body)+2)+" bytes, its fields use "+itoa(len(body)))
	if _, nr := batchCount(tr); nr != 2 {
		t.Errorf("%d records", nr)
	}
	// A null header key: Kafka refuses it.
	nk := recordBytes(0, rec{key: []byte("k"), headers: [][2][]byte{{nil, []byte("v")}}})
	b = batch{producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(nk)
	tr = records.Decode(b, records.Options{})
	wantProblems(t, tr, "records[0].Record[0].headerKey[0] at 0x"+hex4(61+len(nk)-3)+": length -1: a header key must not be null")
}

func TestGarbageInACompressedPayload(t *testing.T) {
	rs := sampleRecords(3)
	for _, c := range []struct {
		id      int16
		payload []byte
		msg     string
	}{
		{1, []byte("\x1f\x8b\x08\x00garbage garbage"), "gzip payload does not decompress: "},
		{2, []byte("\x0a\x01\x02junk"), "snappy payload does not decompress: "},
		{2, append(xerialBytes(recordsBytes(rs), 64)[:16], 0, 0, 1, 0, 1, 2), "snappy payload does not decompress: xerial chunk at +16: length 256, 2 bytes remain"},
		{3, []byte("\x04\x22\x4d\x18garbage"), "lz4 payload does not decompress: "},
		{4, []byte("\x28\xb5\x2f\xfdgarbage"), "zstd payload does not decompress: "},
	} {
		bad := batch{baseOffset: 0, attrs: c.id, producerID: -1, epoch: -1, seq: -1, count: 3}.bytes(c.payload)
		b := append(bad, dataBatch(3, c.id, rs, map[int16]func([]byte) []byte{1: gzipBytes, 2: func(p []byte) []byte { return xerialBytes(p, 64) }, 3: lz4Bytes, 4: zstdBytes}[c.id])...)
		tr := records.Decode(b, records.Options{})
		wantProblems(t, tr, "records[0].records at 0x003d: "+c.msg)
		if nb, nr := batchCount(tr); nb != 2 || nr != 3 {
			t.Errorf("codec %d: %d batches, %d records", c.id, nb, nr)
		}
		if p := find(tr, tree.Raw, "records"); len(p) != 1 || tr.Nodes[p[0]].Flags()&tree.FlagProblem == 0 {
			t.Errorf("codec %d: the payload leaf is not flagged", c.id)
		}
	}
}

func TestUnknownCompression(t *testing.T) {
	rs := sampleRecords(2)
	b := batch{attrs: 5, producerID: -1, epoch: -1, seq: -1, count: 2}.bytes(recordsBytes(rs))
	tr := records.Decode(append(b, dataBatch(2, 0, rs, nil)...), records.Options{})
	wantProblems(t, tr, "records[0].attributes at 0x0015: unknown compression id 5")
	if nb, nr := batchCount(tr); nb != 2 || nr != 2 {
		t.Errorf("%d batches, %d records", nb, nr)
	}
	// zstd in a legacy message: not allowed below magic 2.
	tr = records.Decode(legacyMessage(0, 1, 4, nil, zstdBytes(legacyMessage(0, 1, 0, nil, []byte("v")))), records.Options{})
	wantProblems(t, tr, "records[0].value at 0x0022: zstd compression needs magic 2")
}

func TestDecompressionBomb(t *testing.T) {
	zeros := make([]byte, 4<<20)
	rs := sampleRecords(2)
	for _, c := range []struct {
		id       int16
		compress func([]byte) []byte
		name     string
	}{{1, gzipBytes, "gzip"}, {4, zstdBytes, "zstd"}, {3, lz4Bytes, "lz4"}, {2, func(p []byte) []byte { return xerialBytes(p, 1<<20) }, "snappy"}} {
		payload := c.compress(zeros)
		bomb := batch{attrs: c.id, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(payload)
		b := append(bomb, dataBatch(1, c.id, rs, c.compress)...)
		tr := records.Decode(b, records.Options{MaxDecompressed: 1 << 20})
		wantProblems(t, tr, "records[0].records at 0x003d: "+c.name+" payload decompresses to more than 1048576 bytes, the decompression limit: not followed")
		if ds := find(tr, tree.Decompressed, "decompressed"); len(ds) != 1 || len(tr.Virtual) != len(recordsBytes(rs)) {
			t.Errorf("%s: %d views, %d virtual bytes: the bomb was followed", c.name, len(ds), len(tr.Virtual))
		}
	}
	// The limit of all views together.
	z := dataBatch(0, 4, rs, zstdBytes)
	tr := records.Decode(append(append([]byte{}, z...), z...), records.Options{MaxDecompressedTotal: int64(len(recordsBytes(rs))) + 10})
	wantProblems(t, tr, "records[1].records at 0x"+hex4(len(z)+61)+": zstd payload: the decompressed views of these records reach their limit")
}

// The default limit, 256 MiB: a small zstd payload of 300 MiB of zeros is
// refused without being followed.
func TestDecompressionBombDefaultLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("decompresses 256 MiB")
	}
	payload := zstdBytes(make([]byte, 300<<20))
	if len(payload) > 64<<10 {
		t.Fatalf("bomb of %d bytes", len(payload))
	}
	b := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(payload)
	tr := records.Decode(b, records.Options{})
	wantProblems(t, tr, "records[0].records at 0x003d: zstd payload decompresses to more than 268435456 bytes")
	if len(tr.Virtual) != 0 {
		t.Error("the bomb's bytes are kept")
	}
	_ = bytes.MinRead
}
