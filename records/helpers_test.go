package records_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// unhex decodes hex with spaces.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rec is a record to write into a v2 batch.
type rec struct {
	key, value []byte
	headers    [][2][]byte
}

func appendVarBytes(b, p []byte) []byte {
	if p == nil {
		return wire.AppendVarint(b, -1)
	}
	return append(wire.AppendVarint(b, int32(len(p))), p...)
}

// recordBytes is record r at offset delta i (timestamp delta 10*i).
func recordBytes(i int, r rec) []byte {
	body := []byte{0}
	body = wire.AppendVarlong(body, int64(i)*10)
	body = wire.AppendVarint(body, int32(i))
	body = appendVarBytes(body, r.key)
	body = appendVarBytes(body, r.value)
	body = wire.AppendVarint(body, int32(len(r.headers)))
	for _, h := range r.headers {
		body = appendVarBytes(body, h[0])
		body = appendVarBytes(body, h[1])
	}
	return append(wire.AppendVarint(nil, int32(len(body))), body...)
}

// recordsBytes is the uncompressed records of rs, offset deltas 0, 1…
func recordsBytes(rs []rec) []byte {
	var b []byte
	for i, r := range rs {
		b = append(b, recordBytes(i, r)...)
	}
	return b
}

// batch describes a RecordBatch v2's header.
type batch struct {
	baseOffset  int64
	leaderEpoch int32
	attrs       int16
	lastDelta   int32
	baseTs      int64
	producerID  int64
	epoch       int16
	seq         int32
	count       int32
}

// bytes is the batch with payload, its CRC computed.
func (h batch) bytes(payload []byte) []byte {
	return records.RawBatch{BaseOffset: h.baseOffset, LeaderEpoch: h.leaderEpoch, Attributes: records.Attributes(h.attrs),
		LastOffsetDelta: h.lastDelta, BaseTimestamp: h.baseTs, MaxTimestamp: h.baseTs, ProducerID: h.producerID,
		ProducerEpoch: h.epoch, BaseSequence: h.seq, Count: h.count, Records: payload}.Bytes()
}

// dataBatch is a batch of rs at baseOffset, compressed with codec (and
// compress when codec is not 0).
func dataBatch(baseOffset int64, codec int16, rs []rec, compress func([]byte) []byte) []byte {
	payload := recordsBytes(rs)
	if codec != 0 {
		payload = compress(payload)
	}
	return batch{baseOffset: baseOffset, attrs: codec, lastDelta: int32(len(rs) - 1), baseTs: 1000, producerID: -1, epoch: -1, seq: -1, count: int32(len(rs))}.bytes(payload)
}

// legacyMessage is a magic 0 or 1 entry at offset with attributes attrs.
func legacyMessage(offset int64, magic byte, attrs byte, key, value []byte) []byte {
	return records.Legacy{Offset: offset, Magic: int8(magic), Attributes: int8(attrs), Timestamp: 1234, Key: key, Value: value}.Bytes()
}

func gzipBytes(p []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(p)
	w.Close()
	return buf.Bytes()
}

// xerialBytes frames p as snappy-java's SnappyOutputStream does: the
// magic, version words, then chunks of at most chunk bytes of input.
func xerialBytes(p []byte, chunk int) []byte {
	out := append([]byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}, 0, 0, 0, 1, 0, 0, 0, 1)
	for len(p) > 0 {
		n := min(chunk, len(p))
		c := snappy.Encode(nil, p[:n])
		out = binary.BigEndian.AppendUint32(out, uint32(len(c)))
		out = append(out, c...)
		p = p[n:]
	}
	return out
}

func lz4Bytes(p []byte) []byte {
	var buf bytes.Buffer
	w := lz4.NewWriter(&buf)
	w.Write(p)
	w.Close()
	return buf.Bytes()
}

func zstdBytes(p []byte) []byte {
	e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	defer e.Close()
	return e.EncodeAll(p, nil)
}

// checkTiles asserts that tr's wire leaves tile tr.Bytes, that each
// Decompressed group's leaves tile its range of tr.Virtual, and that each
// group spans its children (virtual ones apart).
func checkTiles(t testing.TB, tr *tree.Tree) {
	t.Helper()
	next := int32(0)
	tr.Leaves(func(i int32) bool {
		n := &tr.Nodes[i]
		if n.Off != next {
			t.Fatalf("leaf %d (%s %q) at %d, previous ended at %d", i, n.Kind(), tr.Name(i), n.Off, next)
		}
		next += n.Size
		return true
	})
	if int(next) != len(tr.Bytes) {
		t.Fatalf("leaves end at %d of %d bytes", next, len(tr.Bytes))
	}
	for i := range tr.Nodes {
		n := &tr.Nodes[i]
		if n.End <= int32(i) || int(n.End) > len(tr.Nodes) {
			t.Fatalf("node %d: End %d", i, n.End)
		}
		if n.End == int32(i)+1 {
			continue
		}
		virtual := n.Flags()&tree.FlagVirtual != 0
		if n.Kind() == tree.Decompressed {
			vn := n.Off
			for k := int32(i) + 1; k < n.End; k++ {
				c := &tr.Nodes[k]
				if c.Flags()&tree.FlagVirtual == 0 {
					t.Fatalf("node %d under Decompressed %d not virtual", k, i)
				}
				if c.End == k+1 {
					if c.Off != vn {
						t.Fatalf("virtual leaf %d (%q) at %d, previous ended at %d", k, tr.Name(k), c.Off, vn)
					}
					vn += c.Size
				}
			}
			if vn != n.Off+n.Size || int(vn) > len(tr.Virtual) {
				t.Fatalf("Decompressed %d: leaves end at %d, it is [%d,+%d) of %d", i, vn, n.Off, n.Size, len(tr.Virtual))
			}
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
		f, l := &tr.Nodes[first], &tr.Nodes[last]
		if f.Off != n.Off || l.Off+l.Size != n.Off+n.Size {
			t.Fatalf("group %d (%s %q) [%d,+%d) does not span its children", i, n.Kind(), tr.Name(int32(i)), n.Off, n.Size)
		}
	}
}

// find returns the nodes named name (synthetic or struct) of kind k.
func find(tr *tree.Tree, k tree.Kind, name string) []int32 {
	var out []int32
	for i := range tr.Nodes {
		if tr.Nodes[i].Kind() != k {
			continue
		}
		n := tr.Name(int32(i))
		if n == "" {
			if st := tr.Struct(int32(i)); st != nil {
				n = st.Name
			} else if f := tr.Field(int32(i)); f != nil {
				n = f.Name
			}
		}
		if n == name {
			out = append(out, int32(i))
		}
	}
	return out
}

// child returns the child of node i named name, or -1.
func child(tr *tree.Tree, i int32, name string) int32 {
	r := int32(-1)
	tr.Children(i, func(c int32) bool {
		n := tr.Name(c)
		if n == "" {
			if f := tr.Field(c); f != nil {
				n = f.Name
			}
		}
		if n == name {
			r = c
			return false
		}
		return true
	})
	return r
}

// problems renders tr's problems one a line.
func problems(tr *tree.Tree) string {
	var b strings.Builder
	for _, p := range tr.Problems {
		if p.Notice {
			b.WriteString("note: ")
		}
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return b.String()
}
