package render

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// A *bufio.Writer is written into directly and left for its owner to
// flush; one too small for the views' rows is wrapped as any writer is.
func TestViewsWriteIntoABufioWriter(t *testing.T) {
	s := embedded(t, "4.4.0")
	tr := smallestByName(t, s, "FetchResponse", 17)
	want := treeText(t, tr)
	if len(want) < 2*sinkRoom {
		t.Fatalf("the tree is %d bytes, want more than %d", len(want), 2*sinkRoom)
	}
	var out bytes.Buffer
	bw := bufio.NewWriterSize(&out, 64<<10)
	bw.WriteString("before\n")
	if err := WriteTree(bw, tr, Options{}); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || bw.Buffered() != len("before\n")+len(want) {
		t.Errorf("%d bytes written, %d buffered; want 0 and %d", out.Len(), bw.Buffered(), len("before\n")+len(want))
	}
	bw.Flush()
	if out.String() != "before\n"+want {
		t.Errorf("through a bufio.Writer: %s", firstDiff(out.String(), "before\n"+want))
	}

	// A buffer smaller than the tree: flushed as it fills.
	out.Reset()
	bw = bufio.NewWriterSize(&out, 2*sinkRoom)
	if err := WriteTree(bw, tr, Options{}); err != nil {
		t.Fatal(err)
	}
	if out.Len() == 0 {
		t.Errorf("a %d-byte tree through a %d-byte buffer: nothing flushed", len(want), 2*sinkRoom)
	}
	bw.Flush()
	if out.String() != want {
		t.Errorf("through a small bufio.Writer: %s", firstDiff(out.String(), want))
	}

	// Too small to write into: wrapped, and flushed into it.
	out.Reset()
	bw = bufio.NewWriterSize(&out, 16)
	if err := WriteTree(bw, tr, Options{}); err != nil {
		t.Fatal(err)
	}
	if out.Len()+bw.Buffered() != len(want) {
		t.Errorf("through a 16-byte bufio.Writer: %d bytes written, %d buffered; want %d in all", out.Len(), bw.Buffered(), len(want))
	}
	bw.Flush()
	if out.String() != want {
		t.Errorf("through a 16-byte bufio.Writer: %s", firstDiff(out.String(), want))
	}
}

// The object tree's rows are the same whether measure's cells are cached
// for row (trees of up to maxCachedNodes nodes) or composed again: for
// every API's smallest request and response at its newest version, record
// batches with non-ASCII and non-UTF-8 keys and values, and every option
// that changes a row.
func TestTreeRowsAreTheSameFromTheCellCache(t *testing.T) {
	s := embedded(t, "4.4.0")
	trees := []*tree.Tree{recordsV3(t, s), recordsCompressed(t, s), taggedVoteResponse(t, s)}
	recs := append(recordV2(0, []byte("ключ"), []byte("значение — long enough to be cut at sixty-four bytes, in Cyrillic"), header{[]byte("h\xff"), []byte{0xff, 'a'}}),
		recordV2(1, []byte("\x00\x01"), []byte(`{"json": "värde"}`))...)
	trees = append(trees, decodeRequest(t, s, produceRequest(3, batchV2(0, 2, recs, false))))
	for _, m := range s.Messages {
		if (m.Type == spec.Request || m.Type == spec.Response) && m.ValidVersions.Hi >= m.ValidVersions.Lo {
			trees = append(trees, smallest(t, s, m, m.ValidVersions.Hi))
		}
	}
	opts := []Options{{}, {Color: true}, {Values: ValuesHex}, {Values: ValuesUTF8}, {Values: ValuesJSON}, {Values: ValuesBase64}}
	for _, w := range []int{40, 60, 80, 100, 130, 160} {
		opts = append(opts, Options{Width: w}, Options{Width: w, Color: true})
	}
	write := func(tr *tree.Tree, o Options, cached int) string {
		defer func(n int) { maxCachedNodes = n }(maxCachedNodes)
		maxCachedNodes = cached
		var b bytes.Buffer
		if err := WriteTree(&b, tr, o); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for k, tr := range trees {
		if len(tr.Nodes) > 1<<14 {
			t.Fatalf("tree %d has %d nodes", k, len(tr.Nodes))
		}
		for _, o := range opts {
			got, want := write(tr, o, 1<<14), write(tr, o, 0)
			if got != want {
				t.Errorf("tree %d (%s), %+v: cached cells give other rows:\n%s", k, sideTitle(tr), o, firstDiff(got, want))
			}
		}
	}
}

// BenchmarkWriteTreeProduceRecords renders a Produce v3 request of one
// batch of 20 records of about 100 bytes (the requests of kwire pcap's
// benchmark capture) into a *bufio.Writer, as kwire pcap --tree does.
func BenchmarkWriteTreeProduceRecords(b *testing.B) {
	s := embedded(b, "4.4.0")
	var recs []byte
	for i := range 20 {
		recs = append(recs, recordV2(i, fmt.Appendf(nil, "user-%06d", i),
			fmt.Appendf(nil, `{"id":%d,"event":"click","page":"/p/%d","ms":%d,"agent":"bench"}`, i, i%97, i*13))...)
	}
	c := codec.New(s)
	tr, err := c.DecodeRequest(produceRequest(3, batchV2(0, 20, recs, false)))
	if err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	WriteTree(&out, tr, Options{})
	b.SetBytes(int64(out.Len()))
	w := bufio.NewWriterSize(io.Discard, 64<<10)
	b.ReportAllocs()
	for b.Loop() {
		WriteTree(w, tr, Options{})
	}
}
