package flow

import (
	"bytes"
	"slices"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/tree"
)

// FuzzArenaTrees: the request trees a Conn reports when it keeps trees
// and recycles them through a TreePool (their arenas, decompressed views
// included, reused frame after frame; large ones decoded again when
// reported) are the trees a fresh decoding of each frame makes, redacted
// alike.
func FuzzArenaTrees(f *testing.F) {
	c := codec.New(testSet)
	var seed []byte
	for _, fr := range [][]byte{
		zstdProduce(f, c, 1, 1100), // past againMin: decoded again
		produceOf(f, c, 2, testseg.FatGzipBatch(0)),
		zstdProduce(f, c, 3, 5),
		produceOf(f, c, 4, testseg.Mixed()),
	} {
		seed = append(seed, fr...)
	}
	f.Add(seed)
	f.Add(produceOf(f, c, 6, testseg.ZstdSegment(20, 5)))
	f.Fuzz(func(t *testing.T, in []byte) {
		cd := codec.New(testSet)
		cd.MaxFrame = 8 << 20
		cd.Records.MaxDecompressed, cd.Records.MaxDecompressedTotal = 8<<20, 8<<20
		type kept struct {
			off  int64
			size int
			t    *tree.Tree
		}
		var got []kept
		conn := New(Options{Codec: cd, KeepTrees: true, Reuse: &TreePool{}, MaxFrame: 8 << 20}, func(e Event) {
			if x, ok := e.(*Exchange); ok && x.Request != nil && x.Request.Tree != nil {
				rt := x.Request.Tree
				got = append(got, kept{x.Request.Offset, x.Request.Size, &tree.Tree{Nodes: slices.Clone(rt.Nodes), Bytes: slices.Clone(rt.Bytes), Virtual: slices.Clone(rt.Virtual)}})
			}
		})
		feed(conn, ClientToServer, in, t0, 1<<16)
		conn.Close(t0)
		for _, k := range got {
			if k.off < 0 || k.off+int64(k.size) > int64(len(in)) || k.size != len(k.t.Bytes) {
				continue // a frame the stream ended inside: as much as arrived
			}
			w := &tree.Tree{}
			cd.DecodeRequestWith(w, slices.Clone(in[k.off:k.off+int64(k.size)]), (&Topics{}).Options(cd))
			secret.Redact(w, secret.Options{})
			if !slices.Equal(k.t.Nodes, w.Nodes) || !bytes.Equal(k.t.Bytes, w.Bytes) || !bytes.Equal(k.t.Virtual, w.Virtual) {
				t.Fatalf("frame at %d: %d nodes (fresh %d), %d bytes of views (fresh %d)", k.off, len(k.t.Nodes), len(w.Nodes), len(k.t.Virtual), len(w.Virtual))
			}
		}
	})
}
