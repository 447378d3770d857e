package codec_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// TestDirectEncodeIsTheGeneralOne checks the encoder's direct path (a
// value whose nodes are the plan's, in order) against its general path
// (codec.NewGeneral), byte for byte and error for error, on random
// values of every message and version: the value trees, their decodes
// re-encoded, those decodes edited (numbers and strings set, nodes made
// null) and encoded at every other version of their message (fields
// absent, missing or of other types). It also checks that the direct
// path is taken, at the root, for most decodes re-encoded.
func TestDirectEncodeIsTheGeneralOne(t *testing.T) {
	s, direct := specs(t)
	general := codec.NewGeneral(s)
	r := rand.New(rand.NewPCG(7, 14))
	cases, taken, failed := 0, 0, 0
	same := func(what string, m *spec.Message, v int16, body *tree.Tree) []byte {
		t.Helper()
		cases++
		a, err := bothPaths(t, direct, general, what, m, v, body)
		if err != nil {
			failed++
			return nil
		}
		return a
	}
	for _, m := range s.Messages {
		if m.Type != spec.Request && m.Type != spec.Response {
			continue
		}
		for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
			for range 3 {
				val := instance.Random(m, v, r, instance.RandomOptions{})
				enc := same("a value tree", m, v, val)
				if enc == nil {
					continue
				}
				dec, err := decodeAs(direct, m, v, enc)
				if err != nil {
					t.Fatalf("%s v%d: %v", m.Name, v, err)
				}
				body := dec.Sub(dec.Part(tree.Body))
				if !bytes.Equal(same("its decode", m, v, body), enc) {
					t.Fatalf("%s v%d: the decode re-encodes to other bytes", m.Name, v)
				}
				if codec.DirectTaken(direct, m, v, body) {
					taken++
				}
				for w := m.ValidVersions.Lo; w <= m.ValidVersions.Hi; w++ {
					if w != v {
						same(fmt.Sprintf("its decode at v%d", w), m, w, body)
					}
				}
				edit(r, body)
				same("its decode edited", m, v, body)
				edit(r, val)
				same("the value tree edited", m, v, val)
			}
		}
	}
	t.Logf("%d encodings, %d refused; direct path taken at the root of %d decodes", cases, failed, taken)
	if cases < 5000 || failed == 0 || taken < cases/20 {
		t.Errorf("%d encodings, %d refused, direct path taken at %d roots: the comparison covers too little", cases, failed, taken)
	}
}

// bothPaths encodes value body of m at version v with codec direct and
// with general (codec.NewGeneral) and fails t, naming what, unless they
// write the same bytes and the same error, which it returns.
func bothPaths(t *testing.T, direct, general *codec.Codec, what string, m *spec.Message, v int16, body *tree.Tree) ([]byte, error) {
	t.Helper()
	a, errA := direct.AppendEncode(nil, m, v, nil, body)
	b, errB := general.AppendEncode(nil, m, v, nil, body)
	if fmt.Sprint(errA) != fmt.Sprint(errB) || !bytes.Equal(a, b) {
		t.Fatalf("%s v%d, %s: direct path wrote %x (%v), general %x (%v)", m.Name, v, what, a, errA, b, errB)
	}
	return a, errA
}

// edit sets random values into about one node in four of value body (a
// value tree, or a Sub tree of a decode): numbers (some out of any range,
// through the node), strings, bools (some as bytes other than 0 and 1 in
// its bytes), null on any node, sizes changed, and FlagValue,
// FlagVirtual or FlagNum set or cleared.
func edit(r *rand.Rand, body *tree.Tree) {
	for i := range int32(len(body.Nodes)) {
		if r.IntN(4) != 0 {
			continue
		}
		v := body.At(i)
		switch f := v.Spec(); {
		case r.IntN(8) == 0:
			body.Nodes[i].SetNull(true)
		case r.IntN(8) == 0:
			// A size that is not its field's.
			body.Nodes[i].Size += int32(r.IntN(5)) - 2
		case r.IntN(8) == 0:
			// A flag that changes where or how its value is read: the
			// leaf's bytes are not a value's, a value's are not, or they
			// are in Virtual.
			flags := [...]tree.Flags{tree.FlagValue, tree.FlagVirtual, tree.FlagNum}
			n := &body.Nodes[i]
			if fl := flags[r.IntN(len(flags))]; n.Flags()&fl != 0 {
				n.ClearFlags(fl)
			} else {
				n.AddFlags(fl)
			}
		case f == nil || body.Nodes[i].End != i+1:
		case f.Type.Kind == spec.KindString:
			_ = v.SetString(fmt.Sprint(r.Uint32()))
		case f.Type.Kind == spec.KindBool && r.IntN(2) == 0 && body.Nodes[i].Flags()&tree.FlagNum == 0 && body.Nodes[i].Off >= 0 && int(body.Nodes[i].Off) < len(body.Bytes):
			// A true that is not 1, as some clients write it: written 1.
			body.Bytes[body.Nodes[i].Off] = byte(2 + r.IntN(254))
		case f.Type.Kind == spec.KindBool:
			_ = v.SetBool(r.IntN(2) == 0)
		case r.IntN(4) == 0:
			// A number no setter would hold: encoding refuses it.
			n := &body.Nodes[i]
			n.Off, n.Size = -1, 0x7fff
			n.S = n.S.With(tree.FlagNum)
		default:
			_ = v.SetInt(int64(r.IntN(200)) - 100)
		}
	}
}

// TestDirectEncodeWritesEachNodeOnce re-encodes a decoded struct nested
// 60 deep, an unknown tagged field in every level: the direct path
// leaves each level at its tag section to the general path, which goes
// on from there. (When the general path wrote a level again from its
// first field, every level doubled the work of the levels inside it:
// 2^60 struct writes, a re-encode that never ends.)
func TestDirectEncodeWritesEachNodeOnce(t *testing.T) {
	s := smallSet(t, recursiveSpec)
	m := s.Message("Rec")
	c := codec.New(s)
	const depth = 60
	// Root's Kids: one kid, 60 times; the innermost Kids empty; a tag
	// section of one unknown tag (7: payload 01) in each of the 61 Nodes;
	// the body's tag section empty.
	in := hexBytes(t, strings.Repeat("02", depth)+"01"+strings.Repeat("01070101", depth+1)+"00")
	dec, err := c.DecodeRecord(in, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *tree.Tree, 1)
	go func() {
		enc, err := c.EncodeRecord(m, 0, dec.Sub(dec.Part(tree.Body)))
		if err != nil {
			t.Error(err)
		}
		done <- enc
	}()
	select {
	case enc := <-done:
		if enc != nil && !bytes.Equal(enc.Bytes, in) {
			t.Fatalf("re-encoded as %x, want %x", enc.Bytes, in)
		}
	case <-time.After(time.Minute):
		t.Fatal("re-encoding 61 nested structs did not end within a minute")
	}
}
