package render

import (
	"bufio"
	"bytes"
	"testing"
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
