package codec_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

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
		a, errA := direct.AppendEncode(nil, m, v, nil, body)
		b, errB := general.AppendEncode(nil, m, v, nil, body)
		if fmt.Sprint(errA) != fmt.Sprint(errB) || !bytes.Equal(a, b) {
			t.Fatalf("%s v%d, %s: direct path wrote %x (%v), general %x (%v)", m.Name, v, what, a, errA, b, errB)
		}
		if errA != nil {
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
			}
		}
	}
	t.Logf("%d encodings, %d refused; direct path taken at the root of %d decodes", cases, failed, taken)
	if cases < 5000 || failed == 0 || taken < cases/20 {
		t.Errorf("%d encodings, %d refused, direct path taken at %d roots: the comparison covers too little", cases, failed, taken)
	}
}

// edit sets random values into about one leaf in four of value body (a
// Sub tree of a decode): numbers (some out of any range, through the
// node), strings, bools (some as bytes other than 0 and 1 in the
// decoded bytes), and null on any node.
func edit(r *rand.Rand, body *tree.Tree) {
	for i := range int32(len(body.Nodes)) {
		if r.IntN(4) != 0 {
			continue
		}
		v := body.At(i)
		switch f := v.Spec(); {
		case r.IntN(8) == 0:
			body.Nodes[i].SetNull(true)
		case f == nil || body.Nodes[i].End != i+1:
		case f.Type.Kind == spec.KindString:
			_ = v.SetString(fmt.Sprint(r.Uint32()))
		case f.Type.Kind == spec.KindBool && r.IntN(2) == 0:
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
