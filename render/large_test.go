package render

import (
	"io"
	"runtime"
	"sync"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// largeKeys is the number of ApiKeys in the large page: 300,000 elements
// of 6 bytes, a 1.8 MB response.
const largeKeys = 300_000

// largeResponse encodes an ApiVersionsResponse v0 with n ApiKeys and
// decodes it again, as `kwire decode --api ApiVersions --response` would.
func largeResponse(t testing.TB, n int) (*spec.Set, []byte, *tree.Tree) {
	t.Helper()
	s := embedded(t, "4.4.0")
	m := s.Message("ApiVersionsResponse")
	var keys *spec.Field
	for _, f := range m.Root.Fields {
		if f.Name == "ApiKeys" {
			keys = f
		}
	}
	if keys == nil {
		t.Fatal("ApiVersionsResponse has no ApiKeys")
	}
	v := &tree.Tree{}
	b := tree.Builder{T: v}
	b.Open(tree.Node{S: tree.NewShape(tree.Body, tree.WireNone, tree.StructRef(m.Root), 0)})
	b.Open(tree.Node{S: tree.NewShape(tree.Array, tree.WireNone, tree.FieldRef(keys), 0)})
	st := keys.Type.Struct
	refs := make([]int32, 0, len(st.Fields))
	for _, f := range st.Fields {
		if f.Versions.Contains(0) {
			refs = append(refs, tree.FieldRef(f))
		}
	}
	for k := 0; k < n; k++ {
		b.Open(tree.Node{S: tree.NewShape(tree.Element, tree.WireNone, tree.StructRef(st), 0)})
		for j, r := range refs {
			b.LeafNum(tree.Node{S: tree.NewShape(tree.Field, tree.WireNone, r, 0)}, int64((k+j)%32768))
		}
		b.Close(0)
	}
	b.Close(0)
	b.Close(0)
	c := codec.New(s)
	enc, err := c.Encode(m, 0, nil, v)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.DecodeResponse(enc.Bytes, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	return s, enc.Bytes, tr
}

var large struct {
	once  sync.Once
	set   *spec.Set
	bytes []byte
	tree  *tree.Tree
}

func largePage(t testing.TB) (*Page, int) {
	t.Helper()
	large.once.Do(func() { large.set, large.bytes, large.tree = largeResponse(t, largeKeys) })
	if large.tree == nil {
		t.Fatal("no large tree")
	}
	return &Page{Set: large.set, Sides: []Side{{Label: "Response", Tree: large.tree}}}, len(large.bytes)
}

// allocated returns the bytes fn allocates on the heap.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// maxAllocFactor bounds what rendering a page may allocate, as a multiple
// of the size of its message. The views need a fixed buffer, and the
// coloured hex grid a region per byte: nothing per node, and nothing that
// grows with the output, which is 75 (text) to 350 (JSON) times the size
// of the large page's message. Rendering it used to allocate 117 (text)
// and 2200 (JSON) times its size; it now allocates 0.04 times (1.04 with
// colour).
const maxAllocFactor = 4

func TestRenderingALargePageStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes and renders a 1.8 MB message")
	}
	p, size := largePage(t)
	if size < largeKeys*6 {
		t.Fatalf("message is %d bytes", size)
	}
	for _, c := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"text", func(w io.Writer) error { return WriteText(w, p, Options{}) }},
		{"text in colour", func(w io.Writer) error { return WriteText(w, p, Options{Color: true}) }},
		{"json", func(w io.Writer) error { return WriteJSON(w, p) }},
		{"tree", func(w io.Writer) error { return WriteTree(w, p.Sides[0].Tree, Options{}) }},
	} {
		var out countWriter
		var err error
		got := allocated(func() { err = c.write(&out) })
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes written, at most %d at once; %d bytes allocated (%.2f times the %d-byte message)", c.name, out.n, out.most, got, float64(got)/float64(size), size)
		if got > uint64(maxAllocFactor*size) {
			t.Errorf("%s: rendering a %d-byte message allocated %d bytes, more than %d times its size", c.name, size, got, maxAllocFactor)
		}
		if out.n < int64(50*size) || out.most > sinkSize {
			t.Errorf("%s: %d bytes written, up to %d at once: want the page written a buffer of at most %d bytes at a time", c.name, out.n, out.most, sinkSize)
		}
	}
}

// countWriter counts what is written to it, and the largest write.
type countWriter struct{ n, most int64 }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.most = max(w.most, int64(len(p)))
	return len(p), nil
}

// BenchmarkLargePage renders the 1.8 MB ApiVersionsResponse v0 with
// 300,000 ApiKeys (1.5 million nodes) as text and as JSON, and indexes
// its tree and asks it every node's region and path.
func BenchmarkLargePage(b *testing.B) {
	p, size := largePage(b)
	tr := p.Sides[0].Tree
	for _, c := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"text", func(w io.Writer) error { return WriteText(w, p, Options{}) }},
		{"json", func(w io.Writer) error { return WriteJSON(w, p) }},
		{"index", func(io.Writer) error {
			x := NewIndex(tr)
			for i := range tr.Nodes {
				_ = x.Region(int32(i))
				_ = x.Path(int32(i))
			}
			return nil
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if err := c.write(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
