package records

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// randomRecord is the bytes of a record with random fields: null, empty
// and short keys and values, up to three headers, varints of every size
// (and, for a few, one byte too long), and a length that may say a
// little more or less than the fields use.
func randomRecord(r *rand.Rand) []byte {
	bytesOf := func(b []byte) []byte {
		switch r.IntN(4) {
		case 0:
			return wire.AppendVarint(b, -1-int32(r.IntN(3)))
		case 1:
			return wire.AppendVarint(b, 0)
		}
		n := r.IntN(40)
		b = wire.AppendVarint(b, int32(n))
		for range n {
			b = append(b, byte(r.IntN(256)))
		}
		return b
	}
	body := []byte{byte(r.IntN(256))}
	body = wire.AppendVarlong(body, r.Int64N(1<<r.IntN(63))-r.Int64N(1000))
	body = wire.AppendVarint(body, int32(r.Uint32()>>r.IntN(32)))
	body = bytesOf(body)
	body = bytesOf(body)
	hc := r.IntN(4)
	body = wire.AppendVarint(body, int32(hc))
	for range hc {
		body = bytesOf(body)
		body = bytesOf(body)
	}
	length := len(body)
	if r.IntN(8) == 0 {
		length += r.IntN(5) - 2
	}
	return append(wire.AppendVarint(nil, int32(length)), body...)
}

// mutate changes a few bytes of b, or cuts it.
func mutate(r *rand.Rand, b []byte) []byte {
	b = slices.Clone(b)
	switch r.IntN(4) {
	case 0:
		return b
	case 1:
		return b[:r.IntN(len(b)+1)]
	}
	for range 1 + r.IntN(3) {
		i := r.IntN(len(b))
		switch r.IntN(3) {
		case 0:
			b[i] = byte(r.IntN(256))
		case 1:
			b[i] |= 0x80
		default:
			b[i] ^= 1
		}
	}
	return b
}

// samePlain checks plainRecord against record on the record at body[0:]
// (record k, at offset base of area a): the same nodes and next record
// where record reports no problem and reads the record to its end, else
// a refusal that leaves the arena as it was. It returns whether
// plainRecord decoded it.
func samePlain(t *testing.T, body []byte, base int32, a area, k int32) bool {
	t.Helper()
	slow := &tree.Tree{Bytes: body}
	d := newDecoder(&tree.Builder{T: slow}, Options{})
	next, ok, bad := d.record(body, 0, base, a, a.path, k, batchInfo{baseOffset: 1 << 40}, true)
	// A leftover slice of capacity, which plainRecord may write past
	// the length of and must leave as it was up to it.
	prefix := []tree.Node{{End: 99, S: tree.NewShape(tree.Records, tree.WireNone, 0, 0)}}
	nodes, pnext, _, _, pok := plainRecord(slices.Grow(prefix, 3), body, 0, base, a.flags(), false)
	headers := 0
	for i := range slow.Nodes {
		if slow.Nodes[i].S.Same(shHeaderKey) {
			headers++
		}
	}
	want := ok && !bad && len(slow.Problems) == 0 && headers <= plainMaxHeaders
	if pok != want {
		t.Fatalf("record % x: plainRecord ok %v, record ok %v bad %v problems %v", body, pok, ok, bad, slow.Problems)
	}
	if !pok {
		if len(nodes) != 1 || nodes[0] != prefix[0] {
			t.Fatalf("record % x: declined, nodes %v", body, nodes)
		}
		return false
	}
	// plainRecord's indexes count from its arena's start.
	got := nodes[1:]
	for j := range got {
		got[j].End--
	}
	if pnext != next || !slices.Equal(got, slow.Nodes) {
		t.Fatalf("record % x: plainRecord next %d nodes\n%+v\nrecord next %d nodes\n%+v", body, pnext, got, next, slow.Nodes)
	}
	return true
}

// plainRecord decodes a record exactly as record does when it says it
// can (samePlain), and declines every other. Records are random, then
// randomly damaged, in a view and on the wire.
func TestPlainRecordIsRecord(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 1))
	plain, declined := 0, 0
	for i := range 20000 {
		body := mutate(r, randomRecord(r))
		if r.IntN(3) == 0 {
			body = append(body, randomRecord(r)...)
		}
		a := area{path: "records[0]", wireOff: -1}
		if i%2 == 1 {
			a = area{virtual: true, wireOff: 61, path: "records[0].decompressed"}
		}
		if samePlain(t, body, int32(61+r.IntN(100)), a, int32(r.IntN(5))) {
			plain++
		} else {
			declined++
		}
	}
	t.Logf("%d plain, %d declined", plain, declined)
	if plain < 5000 || declined < 5000 {
		t.Errorf("%d records plain, %d declined: the test does not try both enough", plain, declined)
	}
}

// FuzzPlainRecord checks plainRecord against record (samePlain) on any
// bytes.
func FuzzPlainRecord(f *testing.F) {
	r := rand.New(rand.NewPCG(14, 2))
	for range 16 {
		f.Add(randomRecord(r))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		samePlain(t, body, 61, area{path: "records[0]", wireOff: -1}, 0)
		samePlain(t, body, 0, area{virtual: true, wireOff: 61, path: "records[0].decompressed"}, 3)
	})
}

// plainRecords is n records without headers (key "k" and the record's
// index, a value of 20 bytes), offset deltas 0, 1…
func plainRecords(n int) []byte {
	var b []byte
	for i := range n {
		body := []byte{0, 0}
		body = wire.AppendVarint(body, int32(i))
		body = append(wire.AppendVarint(body, 2), 'k', byte(i))
		body = append(wire.AppendVarint(body, 20), "twenty bytes of data"...)
		body = wire.AppendVarint(body, 0)
		b = append(wire.AppendVarint(b, int32(len(body))), body...)
	}
	return b
}

func zstdOf(t *testing.T, p []byte) []byte {
	e, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return e.EncodeAll(p, nil)
}

func lz4Of(p []byte) []byte {
	var buf bytes.Buffer
	w := lz4.NewWriter(&buf)
	w.Write(p)
	w.Close()
	return buf.Bytes()
}

// batchOf is a RecordBatch v2 at base whose records section is payload
// (compressed with codec), saying it holds count records.
func batchOf(base int64, codec Attributes, count int, payload []byte) []byte {
	return RawBatch{BaseOffset: base, Attributes: codec, LastOffsetDelta: int32(count - 1), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Count: int32(count), Records: payload}.Bytes()
}

// The node arena is sized from the batch headers: for records without
// headers, uncompressed or not, the estimate is the nodes made, the
// root apart (14 a batch, 2 more for a compressed payload and its view,
// 8 a record); a count the bytes cannot hold is bounded by them (7 bytes
// a record, or 4 of compressed payload), and the whole by a node a byte.
func TestEstimateNodes(t *testing.T) {
	est := func(data []byte, o Options) int {
		n, _ := estimateNodes(data, o)
		return n
	}
	recs := plainRecords(100)
	data := slices.Concat(batchOf(0, 0, 100, recs), batchOf(100, 4, 100, zstdOf(t, recs)), batchOf(200, 3, 100, lz4Of(recs)))
	tr := Decode(data, Options{})
	if len(tr.Problems) > 0 {
		t.Fatal(tr.Problems)
	}
	got, lead := estimateNodes(data, Options{})
	if want := 3*14 + 2*2 + 300*8; got != want || lead != 14 || len(tr.Nodes) != want+1 {
		t.Errorf("estimate %d (%d before the first record), want %d; %d nodes decoded", got, lead, want, len(tr.Nodes))
	}
	if got := est(data, Options{MaxNodes: 1000}); got != 1000 {
		t.Errorf("estimate %d under MaxNodes 1000", got)
	}
	if got := est(data, Options{MaxDecompressed: -1}); got != 14+100*8+2*16 {
		t.Errorf("estimate %d, payloads not decompressed", got)
	}
	// 2^30 records said, in 700 bytes uncompressed (100 at most, and a
	// node a byte), or 40 compressed (10 at most).
	lying := batchOf(0, 0, 1<<30, make([]byte, 700))
	if got := est(lying, Options{}); got != len(lying)+16 {
		t.Errorf("estimate %d for 2^30 records in 700 bytes", got)
	}
	lying = batchOf(0, 4, 1<<30, make([]byte, 40))
	if got := est(lying, Options{}); got != 16+10*8 {
		t.Errorf("estimate %d for 2^30 records in 40 compressed bytes", got)
	}
	// A negative count, bytes that are not an entry.
	junk := append(batchOf(0, 0, -5, nil), make([]byte, 400)...)
	if got, lead := estimateNodes(junk, Options{}); got != 14+100 || lead != got {
		t.Errorf("estimate %d (%d before a record) for a batch then 400 zero bytes", got, lead)
	}
	// Legacy messages, then batches of one of the smallest records.
	one := batchOf(0, 0, 1, []byte{12, 0, 0, 0, 1, 1, 0})
	legacy := Legacy{Magic: 1, Value: []byte("v")}.Bytes()
	if got, lead := estimateNodes(slices.Concat(legacy, legacy, bytes.Repeat(one, 10)), Options{}); got != 2*10+10*(14+8) || lead != 2*10+14 {
		t.Errorf("estimate %d (%d before the first record) for 2 legacy messages and 10 batches of a record", got, lead)
	}
}

// recordsWithHeaders is n records of h headers each (key "k" and the
// record's index, a value of 20 random bytes; header keys and values of
// a byte).
func recordsWithHeaders(n, h int) []byte {
	r := rand.New(rand.NewPCG(uint64(n), uint64(h)))
	var b []byte
	for i := range n {
		body := []byte{0, 0}
		body = wire.AppendVarint(body, int32(i))
		body = append(wire.AppendVarint(body, 2), 'k', byte(i))
		body = wire.AppendVarint(body, 20)
		for range 20 {
			body = append(body, byte(r.IntN(256)))
		}
		body = wire.AppendVarint(body, int32(h))
		for range h {
			body = append(wire.AppendVarint(body, 1), 'h')
			body = append(wire.AppendVarint(body, 1), 'v')
		}
		b = append(wire.AppendVarint(b, int32(len(body))), body...)
	}
	return b
}

// The first record sizes the arena: records of 3 headers (14 nodes, not
// the 8 estimated) make an arena of about their nodes, grown once when
// the first record is decoded (growing as it fills would leave it up to
// a quarter larger); a first record of many headers in a batch that says
// it holds 2^30 records grows it by no more than a node a byte.
func TestFirstRecordSizesTheArena(t *testing.T) {
	for _, codec := range []Attributes{0, 4} {
		recs := recordsWithHeaders(1000, 3)
		payload := recs
		if codec != 0 {
			payload = zstdOf(t, recs)
		}
		data := slices.Concat(batchOf(0, codec, 1000, payload), batchOf(1000, codec, 1000, payload))
		tr := Decode(data, Options{})
		if len(tr.Problems) > 0 {
			t.Fatal(tr.Problems)
		}
		if n := len(tr.Nodes); n != 1+2*(14+int(codec/2)+1000*14) || cap(tr.Nodes)-n > 256 {
			t.Errorf("codec %d: %d nodes, an arena of %d", codec, n, cap(tr.Nodes))
		}
	}
	lying := batchOf(0, 0, 1<<30, recordsWithHeaders(1, 100))
	if tr := Decode(lying, Options{}); cap(tr.Nodes) > len(lying)+16+256 {
		t.Errorf("an arena of %d nodes for %d bytes", cap(tr.Nodes), len(lying))
	}
}

// A batch whose count lies and whose first record does not decode keeps
// the arena its header suggested before the first record, and does not
// grow it to the estimate (a node a byte here): 4096 zero bytes said to
// be 2^31-1 records make a tree of 18 nodes.
func TestUndecodedFirstRecordDoesNotSizeTheArena(t *testing.T) {
	data := RawBatch{Count: 1<<31 - 1, LastOffsetDelta: 1<<31 - 2, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: make([]byte, 4096)}.Bytes()
	tr := Decode(data, Options{})
	if len(tr.Problems) == 0 || len(tr.Nodes) > 32 {
		t.Fatalf("%d nodes, problems %v", len(tr.Nodes), tr.Problems)
	}
	est, lead := estimateNodes(data, Options{})
	if cap(tr.Nodes) > 1+firstReserve(est, lead, false) {
		t.Errorf("an arena of %d nodes for %d nodes decoded from %d bytes", cap(tr.Nodes), len(tr.Nodes), len(data))
	}
}

// Decode decompresses into an array it reuses: a tree's Virtual is its
// own, and another decode does not change it.
func TestVirtualIsTheTreesOwn(t *testing.T) {
	a, b := plainRecords(50), plainRecords(60)
	b[3] = 'x'
	ta := Decode(batchOf(0, 4, 50, zstdOf(t, a)), Options{})
	tb := Decode(batchOf(0, 3, 60, lz4Of(b)), Options{})
	tc := Decode(batchOf(0, 0, 60, b), Options{})
	if !bytes.Equal(ta.Virtual, a) || !bytes.Equal(tb.Virtual, b) || tc.Virtual != nil {
		t.Errorf("virtual bytes %d, %d, %d", len(ta.Virtual), len(tb.Virtual), len(tc.Virtual))
	}
	if len(ta.Problems)+len(tb.Problems)+len(tc.Problems) > 0 {
		t.Errorf("problems %v %v %v", ta.Problems, tb.Problems, tc.Problems)
	}
}

// zstdAll (one DecodeAll call) gives what the stream gives, or declines:
// on frames that state their size and frames that do not, corrupted ones,
// and ones past the room it may take.
func TestZstdAllIsTheStream(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	stream := func(p []byte, limit int64) ([]byte, error) {
		rd, err := getReader(4, p)
		if err != nil {
			return nil, err
		}
		defer rd.put()
		return readLimited(nil, rd, limit)
	}
	took := 0
	for i := range 400 {
		raw := make([]byte, r.IntN(200000))
		for k := range raw {
			raw[k] = byte(r.IntN(1 + i%7))
		}
		var p []byte
		if i%2 == 0 {
			p = zstdOf(t, raw)
		} else {
			var buf bytes.Buffer
			w, _ := zstd.NewWriter(&buf)
			w.Write(raw)
			w.Close()
			p = buf.Bytes() // a stream's frame: no content size
		}
		if i%5 == 4 && len(p) > 0 {
			p[r.IntN(len(p))] ^= byte(1 + r.IntN(255))
		}
		hold := int64(r.IntN(300000))
		got, ok := zstdAll([]byte("prefix"), p, hold)
		want, err := stream(p, hold)
		switch {
		case !ok:
			if !bytes.Equal(got, []byte("prefix")) {
				t.Fatalf("case %d: declined, dst changed", i)
			}
		case err != nil:
			t.Fatalf("case %d: zstdAll took %d bytes, the stream fails: %v", i, len(got), err)
		case !bytes.Equal(got[6:], want) || !bytes.Equal(got[:6], []byte("prefix")):
			t.Fatalf("case %d: zstdAll %d bytes, the stream %d", i, len(got)-6, len(want))
		default:
			took++
		}
	}
	if took < 100 {
		t.Errorf("zstdAll decoded %d of 400", took)
	}
}

// A frame whose stated size is far past its payload (1 MiB of zeros in a
// few hundred bytes, or a lie) is left to the stream, with no room made
// for what it states.
func TestZstdAllMakesNoRoomForAStatedSize(t *testing.T) {
	p := zstdOf(t, make([]byte, 1<<20))
	if len(p)*32 >= 1<<20 {
		t.Fatalf("payload of %d bytes: not past 32 bytes a byte", len(p))
	}
	got, ok := zstdAll(nil, p, 64<<20)
	if ok || cap(got) > 64<<10 {
		t.Fatalf("ok %v, room for %d bytes made for a %d-byte payload", ok, cap(got), len(p))
	}
	d, _, err := decompress(nil, 4, p, 2, 64<<20)
	if err != nil || len(d) != 1<<20 {
		t.Errorf("the stream gave %d bytes, %v; want %d", len(d), err, 1<<20)
	}
}
