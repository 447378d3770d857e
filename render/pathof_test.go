package render_test

import (
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// The value API's paths (tree.PathOf) are the JSON view's (Index.Path) for
// every node a Value reaches, in the smallest instance of every request
// and response at every version (records, tagged fields and nullable
// structs included).
func TestPathOfIsTheJSONPath(t *testing.T) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	checked := 0
	for _, m := range s.Messages {
		if m.Type != spec.Request && m.Type != spec.Response {
			continue
		}
		for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
			tr, err := c.Encode(m, v, nil, instance.Smallest(m, v))
			if err != nil {
				t.Fatalf("%s v%d: %v", m.Name, v, err)
			}
			x := render.NewIndex(tr)
			for i := range tr.Nodes {
				switch tr.Nodes[i].Kind() {
				case tree.Header, tree.Body, tree.Field, tree.Struct, tree.Array, tree.Element, tree.Records, tree.FrameField, tree.RecordBatch:
				default:
					continue
				}
				if got, want := tr.PathOf(int32(i)).String(), x.Path(int32(i)); got != want {
					t.Fatalf("%s v%d node %d: PathOf %q, Index.Path %q", m.Name, v, i, got, want)
				}
				checked++
			}
		}
	}
	if checked < 9000 {
		t.Errorf("only %d nodes checked", checked)
	}
}
