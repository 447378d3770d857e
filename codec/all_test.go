package codec_test

import (
	"bytes"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
	"github.com/kwire/kwire/tree"
)

// encodeSmallest encodes the smallest instance of m at v, framed for
// requests and responses, as a record otherwise.
func encodeSmallest(c *codec.Codec, m *spec.Message, v int16) (*tree.Tree, error) {
	return encode(c, m, v, instance.Smallest(m, v))
}

// encode encodes body: framed for requests and responses, else as a record.
func encode(c *codec.Codec, m *spec.Message, v int16, body *tree.Tree) (*tree.Tree, error) {
	if m.Type == spec.Request || m.Type == spec.Response {
		return c.Encode(m, v, nil, body)
	}
	return c.EncodeRecord(m, v, body)
}

// decode decodes what encode wrote.
func decode(c *codec.Codec, m *spec.Message, v int16, b []byte) (*tree.Tree, error) {
	switch m.Type {
	case spec.Request:
		return c.DecodeRequest(b)
	case spec.Response:
		return c.DecodeResponse(b, m, v)
	}
	return c.DecodeRecord(b, m, v)
}

// checkTiling asserts that the wire leaves of t cover t.Bytes exactly, in
// order, with no gap and no overlap, and that every group spans its
// children. Decompressed views (FlagVirtual subtrees, whose offsets are in
// t.Virtual) are checked apart: each Decompressed group's leaves tile its
// own range of t.Virtual, and a group's span covers its wire children
// only.
func checkTiling(t *testing.T, name string, tr *tree.Tree) {
	t.Helper()
	next := int32(0)
	ok := true
	tr.Leaves(func(i int32) bool {
		n := &tr.Nodes[i]
		if n.Off != next || n.Size < 0 {
			t.Errorf("%s: leaf %d (%s %q) at [%d,+%d) but the previous leaf ended at %d", name, i, n.Kind(), tr.Name(i), n.Off, n.Size, next)
			ok = false
			return false
		}
		next = n.Off + n.Size
		return true
	})
	if ok && next != int32(len(tr.Bytes)) {
		t.Errorf("%s: leaves end at %d, bytes are %d long", name, next, len(tr.Bytes))
	}
	for i := range tr.Nodes {
		n := &tr.Nodes[i]
		if n.End <= int32(i) || int(n.End) > len(tr.Nodes) {
			t.Fatalf("%s: node %d has End %d", name, i, n.End)
		}
		if tr.IsLeaf(int32(i)) {
			continue
		}
		virtual := n.Flags()&tree.FlagVirtual != 0
		if n.Kind() == tree.Decompressed {
			if !virtual {
				t.Errorf("%s: Decompressed node %d is not flagged virtual", name, i)
			}
			checkVirtualTiling(t, name, tr, int32(i))
		}
		first, last := int32(-1), int32(-1)
		tr.Children(int32(i), func(c int32) bool {
			if virtual || tr.Nodes[c].Flags()&tree.FlagVirtual == 0 {
				if first < 0 {
					first = c
				}
				last = c
			}
			return true
		})
		if first < 0 {
			t.Errorf("%s: group %d (%s) has only virtual children", name, i, n.Kind())
			continue
		}
		fn, ln := &tr.Nodes[first], &tr.Nodes[last]
		if fn.Off != n.Off || ln.Off+ln.Size != n.Off+n.Size {
			t.Errorf("%s: group %d (%s) [%d,+%d) does not span its children [%d..%d)", name, i, n.Kind(), n.Off, n.Size, fn.Off, ln.Off+ln.Size)
		}
	}
}

// checkVirtualTiling asserts that the leaves under Decompressed node g,
// all virtual, tile its range of tr.Virtual.
func checkVirtualTiling(t *testing.T, name string, tr *tree.Tree, g int32) {
	t.Helper()
	n := &tr.Nodes[g]
	if n.Off < 0 || int(n.Off)+int(n.Size) > len(tr.Virtual) {
		t.Errorf("%s: Decompressed node %d [%d,+%d) is outside the %d virtual bytes", name, g, n.Off, n.Size, len(tr.Virtual))
		return
	}
	next := n.Off
	for k := g + 1; k < n.End; k++ {
		c := &tr.Nodes[k]
		if c.Flags()&tree.FlagVirtual == 0 {
			t.Errorf("%s: node %d under Decompressed node %d is not flagged virtual", name, k, g)
			return
		}
		if c.End != k+1 {
			continue
		}
		if c.Off != next || c.Size < 0 {
			t.Errorf("%s: virtual leaf %d (%s %q) at [%d,+%d) but the previous one ended at %d", name, k, c.Kind(), tr.Name(k), c.Off, c.Size, next)
			return
		}
		next = c.Off + c.Size
	}
	if next != n.Off+n.Size {
		t.Errorf("%s: the leaves of Decompressed node %d end at %d, it ends at %d", name, g, next, n.Off+n.Size)
	}
}

// TestEveryMessageSmallestRoundTrip walks every message of every embedded
// release, every valid version: the smallest instance encodes, decodes to
// the same value, re-encodes to the same bytes, and the tree's leaves tile
// the bytes.
// pairsPerRelease is the number of (message, version) pairs of each
// embedded release: 740 in 3.9.1 and 744 in 4.4.0, as the oracle counts
// them (README), 38 and 64 of them the internal topics' records (which
// every release embeds as far as its jars hold them: 3.0.2's 16, 4.1.2 to
// 4.4.0's 64).
var pairsPerRelease = map[string]int{"4.4.0": 744, "4.3.2": 728, "4.2.2": 721, "4.1.2": 705, "4.0.2": 667,
	"3.9.2": 740, "3.9.1": 740, "3.8.1": 689, "3.7.2": 666, "3.6.2": 633, "3.5.2": 627,
	"3.4.1": 603, "3.3.2": 586, "3.2.3": 566, "3.1.2": 552, "3.0.2": 547}

func TestEveryMessageSmallestRoundTrip(t *testing.T) {
	want := pairsPerRelease
	if len(bundle.Releases()) != len(want) {
		t.Errorf("releases %v, want the %d of the table", bundle.Releases(), len(want))
	}
	for _, rel := range bundle.Releases() {
		s, err := spec.Embedded(rel)
		if err != nil {
			t.Fatal(err)
		}
		c := codec.New(s)
		checked, prefixed := 0, 0
		for _, m := range s.Messages {
			for v := m.ValidVersions.Lo; !m.ValidVersions.Empty() && v <= m.ValidVersions.Hi; v++ {
				name := rel + " " + m.Name + " v" + itoa(int(v))
				enc, err := encodeSmallest(c, m, v)
				if err != nil {
					t.Errorf("%s: encode: %v", name, err)
					continue
				}
				checkTiling(t, name, enc)
				dec, err := decode(c, m, v, enc.Bytes)
				if err != nil {
					t.Errorf("%s: decode: %v", name, err)
					continue
				}
				if p, ok := m.Prefix(v); ok {
					// A coordinator record key or value: its int16 prefix
					// (record type or version) says the version it is read at.
					if got := int16(enc.Bytes[0])<<8 | int16(enc.Bytes[1]); got != p || dec.Version != v {
						t.Errorf("%s: prefix %d, decoded at v%d; want prefix %d, v%d", name, got, dec.Version, p, v)
					}
					prefixed++
				}
				body := dec.Part(tree.Body)
				if d := tree.Diff(instance.Smallest(m, v), 0, dec, body); d != "" {
					t.Errorf("%s: decoded value differs: %s", name, d)
				}
				// Re-encode the decoded value (header included).
				var again *tree.Tree
				if m.Type == spec.Request || m.Type == spec.Response {
					var hdr *tree.Tree
					if h := dec.Part(tree.Header); h >= 0 && m.Type == spec.Request {
						hdr = dec.Sub(h)
					}
					again, err = c.Encode(m, v, hdr, dec.Sub(body))
				} else {
					again, err = c.EncodeRecord(m, v, dec.Sub(body))
				}
				if err != nil || !bytes.Equal(again.Bytes, enc.Bytes) {
					t.Errorf("%s: re-encoding the decoded value gives different bytes (err %v)", name, err)
				}
				checked++
			}
		}
		t.Logf("Kafka %s: %d (message, version) pairs checked, %d of them coordinator record keys and values", rel, checked, prefixed)
		// 4.4.0: 22+1+2 keys at v0, 30+2+2 value versions (see
		// internaltopic's round trip); 3.9.1: 11 group "data" keys
		// (OffsetCommitKey with 2 versions) and TransactionLogKey (13), 11
		// group values (OffsetCommitValue's and GroupMetadataValue's 5
		// versions, 9 of one) and TransactionLogValue's 2 (21).
		if want := map[string]int{"4.4.0": 25 + 34, "3.9.1": 13 + 21}[rel]; want != 0 && prefixed != want {
			t.Errorf("Kafka %s: %d coordinator record (spec, version) pairs, want %d", rel, prefixed, want)
		}
		if checked != want[rel] {
			t.Errorf("Kafka %s: %d (message, version) pairs checked, want %d", rel, checked, want[rel])
		}
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// TestBodyAlone checks EncodeBody/DecodeBody against the body span of the
// framed encoding, for every message of the newest release.
func TestBodyAlone(t *testing.T) {
	s, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	for _, m := range s.Messages {
		for v := m.ValidVersions.Lo; !m.ValidVersions.Empty() && v <= m.ValidVersions.Hi; v++ {
			framed, err := encodeSmallest(c, m, v)
			if err != nil {
				t.Fatal(err)
			}
			bi := framed.Part(tree.Body)
			want := framed.Bytes[framed.Nodes[bi].Off : framed.Nodes[bi].Off+framed.Nodes[bi].Size]
			bare, err := c.EncodeBody(m, v, instance.Smallest(m, v))
			if err != nil || !bytes.Equal(bare.Bytes, want) {
				t.Fatalf("%s v%d: EncodeBody = %x (err %v), want the framed body %x", m.Name, v, bare.Bytes, err, want)
			}
			checkTiling(t, m.Name, bare)
			dec, err := c.DecodeBody(want, m, v)
			if err != nil {
				t.Fatalf("%s v%d: DecodeBody: %v", m.Name, v, err)
			}
			if d := tree.Diff(instance.Smallest(m, v), 0, dec, dec.Part(tree.Body)); d != "" {
				t.Fatalf("%s v%d: %s", m.Name, v, d)
			}
		}
	}
}
