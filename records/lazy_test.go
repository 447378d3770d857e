package records_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// sameAsWhole checks that decoding b with Options.Lazy gives the tree a
// whole decode gives once expanded (the same nodes, problems and
// decompressed bytes), fewer nodes before, and the same listing
// (LogBatches), record for record; it returns how many records were
// lazy.
func sameAsWhole(t *testing.T, b []byte, o records.Options) int {
	t.Helper()
	whole := records.Decode(b, o)
	o.Lazy = true
	lazy := records.Decode(b, o)
	n := 0
	for i := range lazy.Nodes {
		if records.IsLazy(lazy, int32(i)) {
			n++
		}
	}
	exp := records.Expand(lazy)
	if !slices.Equal(exp.Nodes, whole.Nodes) || !slices.Equal(exp.Problems, whole.Problems) || !bytes.Equal(exp.Virtual, whole.Virtual) {
		t.Fatalf("% x: expanded lazy tree differs from the whole tree:\n%v\n%v\nproblems %v / %v", b, exp.Nodes, whole.Nodes, exp.Problems, whole.Problems)
	}
	if n > 0 && len(lazy.Nodes) >= len(whole.Nodes) {
		t.Fatalf("% x: %d lazy records, %d nodes, whole %d", b, n, len(lazy.Nodes), len(whole.Nodes))
	}
	if got, want := recordList(records.LogBatches(lazy)), recordList(records.LogBatches(whole)); !reflect.DeepEqual(got, want) {
		t.Fatalf("% x: lazy listing\n%v\nwhole\n%v", b, got, want)
	}
	if got, want := offsets(lazy), offsets(whole); !slices.Equal(got, want) {
		t.Fatalf("% x: lazy records' offsets\n%v\nwhole\n%v", b, got, want)
	}
	return n
}

// offsets is RecordOffset and OffsetDelta of t's records, in order.
func offsets(t *tree.Tree) []string {
	var out []string
	for i := range t.Nodes {
		if t.Nodes[i].Kind() == tree.Record {
			d, ok := records.OffsetDelta(t, int32(i))
			out = append(out, fmt.Sprintf("%d/%d/%v", records.RecordOffset(t, int32(i)), d, ok))
		}
	}
	return out
}

// recordList is LogBatches' records without their node indexes (which
// differ between a lazy and a whole tree).
func recordList(bs []records.LogBatch) []string {
	var out []string
	for _, b := range bs {
		for _, r := range b.Records {
			r.Node = 0
			out = append(out, fmt.Sprintf("%+v", r))
		}
	}
	return out
}

// Lazy records are the whole decode's, made lazily: on batches of every
// compression, with headers, null keys, and then randomly damaged (so that
// records that do not read fall back to the whole decode beside lazy
// ones), and on batches decoded with specs, where no record is plain.
func TestLazyIsWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 11))
	lazy := 0
	for i := range 3000 {
		rs := sampleRecords(1 + r.IntN(12))
		var b []byte
		for range 1 + r.IntN(3) {
			switch k := r.IntN(5); k {
			case 0:
				b = append(b, dataBatch(int64(r.IntN(1000)), 0, rs, nil)...)
			case 1:
				b = append(b, dataBatch(int64(r.IntN(1000)), 4, rs, zstdBytes)...)
			case 2:
				b = append(b, dataBatch(int64(r.IntN(1000)), 3, rs, lz4Bytes)...)
			case 3:
				b = append(b, dataBatch(int64(r.IntN(1000)), 1, rs, gzipBytes)...)
			default:
				b = append(b, legacyMessage(int64(r.IntN(1000)), byte(r.IntN(2)), 0, []byte("k"), []byte("v"))...)
			}
		}
		if i%2 == 1 {
			for range 1 + r.IntN(3) {
				b[r.IntN(len(b))] ^= byte(1 << r.IntN(8))
			}
		}
		if r.IntN(4) == 0 {
			b = b[:r.IntN(len(b)+1)]
		}
		lazy += sameAsWhole(t, b, records.Options{})
	}
	if lazy < 10000 {
		t.Errorf("only %d lazy records", lazy)
	}
	// Records decoded with specs (metadata values) are not plain: none lazy.
	if n := sameAsWhole(t, kraftBatch(1, 0, []rec{{value: unhex(t, "01 0c 00 0e 6b726166742e76657273696f6e 0001 00")}}), specOptions(t, true)); n != 0 {
		t.Errorf("%d lazy records of metadata", n)
	}
}

// Expand of a tree without lazy records is the tree itself.
func TestExpandWithoutLazyRecords(t *testing.T) {
	tr := records.Decode(dataBatch(0, 0, sampleRecords(3), nil), records.Options{})
	if records.Expand(tr) != tr {
		t.Error("Expand copied a tree with no lazy records")
	}
}

// FuzzLazy: on any bytes, a lazy decode expands to the whole decode.
func FuzzLazy(f *testing.F) {
	f.Add(dataBatch(0, 0, sampleRecords(4), nil))
	f.Add(dataBatch(7, 4, sampleRecords(5), zstdBytes))
	f.Add(unhex(f, c14))
	f.Fuzz(func(t *testing.T, b []byte) {
		sameAsWhole(t, b, records.Options{MaxDecompressed: 1 << 20})
	})
}

// A lazy record is one node; the tree of a batch of 100 has the batch's
// header leaves and 100 records.
func TestLazyRecordIsOneNode(t *testing.T) {
	rs := make([]rec, 100)
	for i := range rs {
		rs[i] = rec{key: []byte{byte(i)}, value: []byte("v")}
	}
	tr := records.Decode(dataBatch(0, 0, rs, nil), records.Options{Lazy: true})
	recordsN := 0
	for i := range tr.Nodes {
		if tr.Nodes[i].Kind() == tree.Record {
			if !records.IsLazy(tr, int32(i)) || !tr.IsLeaf(int32(i)) {
				t.Fatalf("record %d is not a lazy leaf", i)
			}
			recordsN++
		}
	}
	if recordsN != 100 || len(tr.Nodes) != 1+1+13+100 {
		t.Errorf("%d records, %d nodes", recordsN, len(tr.Nodes))
	}
}

// The records of a batch handed over in several parts (DecodeParts) are
// numbered as in the whole decode: a continued part's first record is the
// index it has in its batch (tree.Tree.FirstRecord), uncompressed,
// decompressed whole and decompressed as a stream.
func TestPartsNumberRecordsAsTheWholeDecode(t *testing.T) {
	rs := make([]rec, 3000)
	for i := range rs {
		rs[i] = rec{key: []byte(fmt.Sprint(i)), value: bytes.Repeat([]byte{byte(i)}, 40)}
	}
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"uncompressed", dataBatch(0, 0, rs, nil)},
		{"zstd", dataBatch(0, 4, rs, zstdBytes)},
		{"two batches", append(dataBatch(0, 3, rs[:1500], lz4Bytes), dataBatch(1500, 0, rs[1500:], nil)...)},
		{"zstd streamed", testseg.ZstdSegment(200000, 200000)}, // past the 8 MiB held
	} {
		var got []int32
		parts := 0
		err := records.DecodeParts(c.b, records.Options{}, 1000, func(pt *tree.Tree, _ bool) error {
			parts++
			for i := range pt.Nodes {
				if pt.Nodes[i].Kind() == tree.Record {
					got = append(got, pt.Ordinal(int32(i)))
				}
			}
			return nil
		})
		want := len(rs)
		if c.name == "zstd streamed" {
			want = 200000
		}
		if err != nil || parts < 3 || len(got) != want {
			t.Fatalf("%s: %d parts, %d records, %v", c.name, parts, len(got), err)
		}
		for k, o := range got {
			want := int32(k)
			if c.name == "two batches" && k >= 1500 {
				want -= 1500
			}
			if o != want {
				t.Fatalf("%s: record %d numbered %d in its part", c.name, k, o)
			}
		}
	}
}

// The node bounds count a lazy record as the nodes it makes whole, so a
// lazy decode stops where the whole one does: at a compressed payload's
// bound (200,000 of the smallest records, zstd, a few hundred bytes: the
// whole tree stops at about 70,000 nodes) and at Options.MaxNodes, with
// headers (two nodes each) among them; and Expand makes no more nodes than
// those bounds allow.
func TestLazyStopsWhereWholeStops(t *testing.T) {
	smallest := []byte{0x0c, 0, 0, 0, 0x01, 0x01, 0} // length 6, no key, value or header
	payload := zstdBytes(bytes.Repeat(smallest, 200000))
	bomb := batch{attrs: 4, lastDelta: 199999, producerID: -1, epoch: -1, seq: -1, count: 200000}.bytes(payload)
	if n := sameAsWhole(t, bomb, records.Options{}); n == 0 {
		t.Fatal("no lazy record")
	}
	if whole := records.Decode(bomb, records.Options{}); len(whole.Nodes) > 100000 || len(whole.Problems) == 0 {
		t.Fatalf("the bomb's whole tree has %d nodes, problems %v", len(whole.Nodes), whole.Problems)
	}
	rs := sampleRecords(40) // a header each
	b := slices.Concat(dataBatch(0, 0, rs, nil), dataBatch(40, 4, rs, zstdBytes))
	for _, max := range []int{1, 20, 57, 130, 300, 1000} {
		sameAsWhole(t, b, records.Options{MaxNodes: max})
	}
}
