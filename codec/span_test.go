package codec_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// TestSpanCopyIsTheGeneralOne checks the direct path's copy of a decoded
// array of structs of fixed-size fields (spanElems) against the general
// path, byte for byte and error for error: on decodes of random values
// of every message and version, each node of those that hold such an
// array changed in one way at a time — its offset, size or end moved by
// one, its end put where no tree has one (not past the node, past the
// arena), its offset put near the int32 limit, a flag set or cleared, its
// first byte made another (a bool of 2, a length that is not the count,
// a tag section that is not empty) — so that every check the copy makes
// is met by a tree that fails it alone, and neither path reads outside
// the arena or the bytes, overflows or walks on the spot.
// It also checks that the copy is taken for some decodes.
func TestSpanCopyIsTheGeneralOne(t *testing.T) {
	s, direct := specs(t)
	general := codec.NewGeneral(s)
	r := rand.New(rand.NewPCG(21, 5))
	copies, cases, refused := 0, 0, 0
	for _, m := range s.Messages {
		if m.Type != spec.Request && m.Type != spec.Response {
			continue
		}
		for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
			// Up to four elements an array: arrays of numbers of two or
			// more, whose later elements are checked too.
			enc, dec, ok := encodeDecode(t, direct, m, v, instance.Random(m, v, r, instance.RandomOptions{MaxElems: 4}))
			if !ok {
				continue
			}
			k, c, rf := spanCase(t, direct, general, m, v, enc, dec, math.MaxInt)
			copies, cases, refused = copies+k, cases+c, refused+rf
		}
	}
	t.Logf("%d arrays copied; %d single changes, %d refused", copies, cases, refused)
	if copies < 50 || cases < 10000 {
		t.Errorf("%d arrays copied, %d changes: the comparison covers too little", copies, cases)
	}
}

// encodeDecode encodes value val of m at version v with c and decodes
// the bytes again; ok is false when c refuses val (a random value may
// not encode at every version), and a decode that fails fails t.
func encodeDecode(t *testing.T, c *codec.Codec, m *spec.Message, v int16, val *tree.Tree) (enc []byte, dec *tree.Tree, ok bool) {
	t.Helper()
	enc, err := c.AppendEncode(nil, m, v, nil, val)
	if err != nil {
		return nil, nil, false
	}
	if dec, err = decodeAs(c, m, v, enc); err != nil {
		t.Fatalf("%s v%d: %v", m.Name, v, err)
	}
	return enc, dec, true
}

// spanCase checks decode dec of bytes enc (m at version v) when its body
// holds arrays the span copy takes and has at most maxNodes nodes: the
// body re-encodes to enc, and each change of changeEach is written the
// same by the direct and the general path. It returns how many arrays
// the copy takes (0 when the body is not checked), how many changes it
// made and how many both refused.
func spanCase(t *testing.T, direct, general *codec.Codec, m *spec.Message, v int16, enc []byte, dec *tree.Tree, maxNodes int) (copies, cases, refused int) {
	t.Helper()
	body := dec.Sub(dec.Part(tree.Body))
	copies = codec.SpanCopies(direct, m, v, body)
	if copies == 0 || len(body.Nodes) > maxNodes {
		return 0, 0, 0
	}
	if got, _ := direct.AppendEncode(nil, m, v, nil, body); !bytes.Equal(got, enc) {
		t.Fatalf("%s v%d: the decode re-encodes to other bytes", m.Name, v)
	}
	cases, refused = changeEach(t, direct, general, m, v, body)
	return copies, cases, refused
}

// changeEach changes each node of decoded body (of m at version v) in
// one way at a time, as TestSpanCopyIsTheGeneralOne says, and checks
// that the direct and the general path write the same for each; it
// returns how many changes it made and how many both refused.
func changeEach(t *testing.T, direct, general *codec.Codec, m *spec.Message, v int16, body *tree.Tree) (cases, refused int) {
	t.Helper()
	flags := [...]tree.Flags{tree.FlagNull, tree.FlagNum, tree.FlagValue, tree.FlagVirtual, tree.FlagProblem}
	check := func(i int, what string, change func(n *tree.Node, b []byte)) {
		t.Helper()
		cases++
		mut := &tree.Tree{Bytes: slices.Clone(body.Bytes), Nodes: slices.Clone(body.Nodes), Virtual: body.Virtual, HeaderVersion: body.HeaderVersion}
		change(&mut.Nodes[i], mut.Bytes)
		if _, err := bothPaths(t, direct, general, fmt.Sprintf("node %d %s", i, what), m, v, mut); err != nil {
			refused++
		}
	}
	for i := 1; i < len(body.Nodes); i++ {
		for _, d := range [...]int32{-1, 1} {
			check(i, fmt.Sprintf("Off%+d", d), func(n *tree.Node, _ []byte) { n.Off += d })
			check(i, fmt.Sprintf("Size%+d", d), func(n *tree.Node, _ []byte) { n.Size += d })
			check(i, fmt.Sprintf("End%+d", d), func(n *tree.Node, _ []byte) { n.End += d })
		}
		// Ends no tree has: not past the node, past the arena.
		for _, e := range [...]int32{int32(i), 0, -1, int32(len(body.Nodes)) + 5, math.MaxInt32} {
			check(i, fmt.Sprintf("End %d", e), func(n *tree.Node, _ []byte) { n.End = e })
		}
		check(i, "Off near the int32 limit", func(n *tree.Node, _ []byte) { n.Off = math.MaxInt32 - 1 })
		for _, fl := range flags {
			check(i, fmt.Sprintf("flag %v", fl), func(n *tree.Node, _ []byte) {
				if n.Flags()&fl != 0 {
					n.ClearFlags(fl)
				} else {
					n.AddFlags(fl)
				}
			})
		}
		if o := body.Nodes[i].Off; o >= 0 && int(o) < len(body.Bytes) {
			for _, c := range [...]byte{2, 0x7f, 0x80, body.Bytes[o] + 1} {
				check(i, fmt.Sprintf("first byte %#x", c), func(_ *tree.Node, b []byte) { b[o] = c })
			}
			if l := o + body.Nodes[i].Size - 1; l > o && int(l) < len(body.Bytes) {
				check(i, "last byte +1", func(_ *tree.Node, b []byte) { b[l]++ })
			}
		}
	}
	return cases, refused
}

// TestSpanCopyOfRepeatedElements checks the span copy where it compares
// an element with one taken before (its model, or the element before
// it) rather than field by field: in decodes of values whose every
// array holds three copies of one random element, so that elements
// repeat each other's layout within an array and from array to array,
// each node changed in one way at a time as TestSpanCopyIsTheGeneralOne
// changes them, direct path against general path.
func TestSpanCopyOfRepeatedElements(t *testing.T) {
	s, direct := specs(t)
	general := codec.NewGeneral(s)
	r := rand.New(rand.NewPCG(7, 14))
	copies, cases, refused, bodies := 0, 0, 0, 0
	for _, m := range s.Messages {
		if m.Type != spec.Request && m.Type != spec.Response {
			continue
		}
		for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
			_, dec, ok := encodeDecode(t, direct, m, v, instance.Random(m, v, r, instance.RandomOptions{MaxElems: 1, MaxBytes: 6}))
			if !ok {
				continue
			}
			js, err := codec.ToJSON(nil, dec, dec.Part(tree.Body), m, v, codec.JSONOptions{})
			if err != nil {
				t.Fatalf("%s v%d: %v", m.Name, v, err)
			}
			js = repeatElems(t, js, 3)
			rep, err := codec.FromJSON(js, m, v)
			if err != nil {
				t.Fatalf("%s v%d: %v\n%s", m.Name, v, err, js)
			}
			enc, dec, ok := encodeDecode(t, direct, m, v, rep)
			if !ok {
				continue
			}
			k, c, rf := spanCase(t, direct, general, m, v, enc, dec, 4000)
			if k > 0 {
				bodies++
			}
			copies, cases, refused = copies+k, cases+c, refused+rf
		}
	}
	t.Logf("%d bodies, %d arrays copied; %d single changes, %d refused", bodies, copies, cases, refused)
	if bodies < 50 || cases < 10000 {
		t.Errorf("%d bodies, %d changes: the comparison covers too little", bodies, cases)
	}
}

// repeatElems returns JSON document js with every array's elements
// replaced by n copies of its first.
func repeatElems(t *testing.T, js []byte, n int) []byte {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var rep func(x any) any
	rep = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = rep(e)
			}
		case []any:
			if len(x) > 0 {
				first := rep(x[0])
				out := make([]any, n)
				for i := range out {
					out[i] = first
				}
				return out
			}
		}
		return x
	}
	out, err := json.Marshal(rep(doc))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSpanModelKeepsTheDepthLimit checks that an element taken as a
// model where arrays may nest deeper is not matched nearer the
// encoder's depth limit, where the general path refuses what it holds:
// a spec whose Node holds Nodes, a chain of 58 to 64 of them each
// holding one P of one Q, direct path against general path. The span
// trees are made here (decoding refuses such depths), node for node as
// decoding makes the chain of two.
func TestSpanModelKeepsTheDepthLimit(t *testing.T) {
	const header = `{ "type": "header", "name": "ResponseHeader", "validVersions": "0-1", "flexibleVersions": "1+",
	  "fields": [ { "name": "CorrelationId", "type": "int32", "versions": "0+" } ] }`
	const deep = `{ "apiKey": 210, "type": "response", "name": "DeepResponse", "validVersions": "0", "flexibleVersions": "0+",
	  "fields": [ { "name": "Kids", "type": "[]Node", "versions": "0+" } ],
	  "commonStructs": [
	    { "name": "Node", "versions": "0+", "fields": [
	      { "name": "Items", "type": "[]P", "versions": "0+" },
	      { "name": "Kids", "type": "[]Node", "versions": "0+" } ] },
	    { "name": "P", "versions": "0+", "fields": [ { "name": "Qs", "type": "[]Q", "versions": "0+" } ] },
	    { "name": "Q", "versions": "0+", "fields": [ { "name": "X", "type": "int32", "versions": "0+" } ] } ] }`
	s := smallSet(t, header, deep)
	m := s.Message("DeepResponse")
	direct, general := codec.New(s), codec.NewGeneral(s)
	val, err := codec.FromJSON([]byte(`{"kids":[{"items":[{"qs":[{"x":7}]}],"kids":[{"items":[{"qs":[{"x":7}]}],"kids":[]}]}]}`), m, 0)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := direct.AppendEncode(nil, m, 0, nil, val)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := direct.DecodeResponse(enc, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	two := dec.Sub(dec.Part(tree.Body)).Nodes
	body, kids, length, node, items, p, qs, q, x, tags, nodeKids :=
		two[0].S, two[1].S, two[2].S, two[3].S, two[4].S, two[6].S, two[7].S, two[9].S, two[10].S, two[11].S, two[13].S
	chain := func(levels int) *tree.Tree {
		b, ns := slices.Clone(enc[:9]), []tree.Node(nil)
		open := func(s tree.Shape) int {
			ns = append(ns, tree.Node{Off: int32(len(b)), S: s})
			return len(ns) - 1
		}
		shut := func(i int) {
			ns[i].End, ns[i].Size = int32(len(ns)), int32(len(b))-ns[i].Off
		}
		leaf := func(s tree.Shape, bs ...byte) {
			i := open(s)
			b = append(b, bs...)
			shut(i)
		}
		var add func(l int)
		add = func(l int) {
			e, it := open(node), open(items)
			leaf(length, 2)
			pi, qi := open(p), open(qs)
			leaf(length, 2)
			qq := open(q)
			leaf(x, 0, 0, 0, 7)
			leaf(tags, 0)
			shut(qq)
			shut(qi)
			leaf(tags, 0)
			shut(pi)
			shut(it)
			k := open(nodeKids)
			if l < levels {
				leaf(length, 2)
				add(l + 1)
			} else {
				leaf(length, 1)
			}
			shut(k)
			leaf(tags, 0)
			shut(e)
		}
		root := open(body)
		k := open(kids)
		leaf(length, 2)
		add(1)
		shut(k)
		leaf(tags, 0)
		shut(root)
		return &tree.Tree{Bytes: b, Nodes: ns, HeaderVersion: 1}
	}
	if got := chain(2).Nodes; !slices.Equal(got, two) {
		t.Fatalf("the chain of two is not its decode:\n%v\n%v", got, two)
	}
	for levels := 58; levels <= 64; levels++ {
		bothPaths(t, direct, general, fmt.Sprintf("a chain of %d", levels), m, 0, chain(levels))
	}
}
