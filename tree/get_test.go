package tree_test

import (
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// voteFrame is README's VoteRequest v2 (correlation id 7, client id "cli",
// LastOffset 120).
const voteFrame = "0000006600340002000000070003636c6900036b770000000102135f5f636c75737465725f6d6574616461746102000000000000000300000002000000000000000000000000000000010000000000000000000000000000000000000003000000000000007801000000"

func decodeVote(t *testing.T) *tree.Tree {
	t.Helper()
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := hex.DecodeString(voteFrame)
	tr, err := codec.New(s).DecodeRequest(b)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestGet(t *testing.T) {
	tr := decodeVote(t)
	for _, tc := range []struct{ path, want string }{
		{"VoteRequest.Topics[0].Partitions[0].LastOffset", "120"},
		{"Topics[0].Partitions[0].LastOffset", "120"}, // the body's fields without the message name
		{"RequestHeader.CorrelationId", "7"},
		{"RequestHeader.ClientId", "cli"},
		{"RequestHeader.RequestApiKey", "52"},
		{"Frame.size", "102"},
		{"VoteRequest.ClusterId", "kw"},
		{"VoteRequest.Topics[0].TopicName", "__cluster_metadata"},
		{"VoteRequest.Topics[0].Partitions[0].ReplicaDirectoryId", "00000000-0000-0000-0000-000000000001"},
		{"VoteRequest.Topics[0].Partitions[0].PreVote", "true"},
		{"VoteRequest.Topics", "<array>"},
		{"VoteRequest.Topics[0]", "<element>"},
	} {
		v, err := tr.Get(tc.path)
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		if v.String() != tc.want {
			t.Errorf("%s = %q, want %q", tc.path, v.String(), tc.want)
		}
	}
	v, _ := tr.Get("VoteRequest.Topics[0].Partitions[0].LastOffset")
	if v.Int() != 120 || v.Uint() != 120 || v.Path() != "VoteRequest.Topics[0].Partitions[0].LastOffset" || v.Spec().Name != "LastOffset" {
		t.Errorf("LastOffset: Int %d Uint %d Path %q", v.Int(), v.Uint(), v.Path())
	}
	if n, err := v.AsInt(); n != 120 || err != nil {
		t.Errorf("AsInt = %d, %v", n, err)
	}
	if v, _ := tr.Get("VoteRequest.Topics[0].Partitions[0].PreVote"); !v.Bool() {
		t.Errorf("PreVote = false")
	}
	u, _ := tr.Get("VoteRequest.Topics[0].Partitions[0].ReplicaDirectoryId")
	if u.UUID() != [16]byte{15: 1} {
		t.Errorf("ReplicaDirectoryId = %x", u.UUID())
	}
	topics := tr.Root().Field("VoteRequest").Field("Topics")
	if topics.Len() != 1 || topics.Elem(0).Field("Partitions").Len() != 1 || topics.Elem(0).Field("TopicName").Len() != len("__cluster_metadata") {
		t.Errorf("Len: topics %d", topics.Len())
	}
	// Navigation gives the same values as paths; an error travels down a
	// chain and comes out at its end.
	if n := topics.Elem(0).Field("Partitions").Elem(0).Field("LastOffset").Int(); n != 120 {
		t.Errorf("chained LastOffset = %d", n)
	}
	bad := topics.Elem(3).Field("Partitions").Elem(0).Field("LastOffset")
	if bad.Int() != 0 || bad.IsNull() || bad.Err() == nil || bad.Err().Error() != "VoteRequest.Topics[3]: index 3 out of range: Topics (an array of TopicData) has 1 element" {
		t.Errorf("chained error = %v", bad.Err())
	}
}

func TestGetErrors(t *testing.T) {
	tr := decodeVote(t)
	for _, tc := range []struct {
		path   string
		reason tree.ErrorReason
		want   string
	}{
		{"VoteRequest.Topics[0].Partitions[5]", tree.IndexOutOfRange, "VoteRequest.Topics[0].Partitions[5]: index 5 out of range: Partitions (an array of PartitionData) has 1 element"},
		{"VoteRequest.Topics[0].Partitions[0].LastOfset", tree.NoSuchField, `VoteRequest.Topics[0].Partitions[0].LastOfset: no such field in Partitions[0] (a struct (PartitionData)); did you mean "LastOffset"?`},
		{"RequestHeader.CorrelationID", tree.NoSuchField, `RequestHeader.CorrelationID: no such field in RequestHeader (a struct (RequestHeader)); did you mean "CorrelationId"?`},
		{"VoteRequest.ClusterId[0]", tree.WrongKind, "VoteRequest.ClusterId[0]: not an array: ClusterId (a string) has no elements"},
		{"VoteRequest.VoterId.X", tree.WrongKind, "VoteRequest.VoterId.X: not a struct: VoterId (an int32) has no fields"},
		{"VoteRequest.Topics[0]]", tree.BadPath, "VoteRequest.Topics[0]]: at character 21: ] without ["},
		{"Topics[x]", tree.BadPath, `Topics[x]: at character 7: index "x" is not a number from 0 on`},
		{"Nope", tree.NoSuchField, `Nope: no such field in VoteRequest (a struct (VoteRequest))`},
	} {
		v, err := tr.Get(tc.path)
		var pe *tree.PathError
		if !errors.As(err, &pe) || pe.Reason != tc.reason || err.Error() != tc.want {
			t.Errorf("%s:\n got %v (%v)\nwant %s (%v)", tc.path, err, pe, tc.want, tc.reason)
		}
		if v.Err() != err || v.Int() != 0 {
			t.Errorf("%s: the Value does not carry the error", tc.path)
		}
	}
	// Getters of the wrong kind.
	name, _ := tr.Get("VoteRequest.Topics[0].TopicName")
	_, err := name.AsInt()
	var pe *tree.PathError
	if !errors.As(err, &pe) || pe.Reason != tree.WrongKind || err.Error() != "VoteRequest.Topics[0].TopicName: not an integer: it is a string" || name.Int() != 0 {
		t.Errorf("AsInt of a string: %v", err)
	}
	off, _ := tr.Get("VoteRequest.Topics[0].Partitions[0].LastOffset")
	if _, err := off.AsString(); err == nil || err.Error() != "VoteRequest.Topics[0].Partitions[0].LastOffset: not a string: it is an int64" {
		t.Errorf("AsString of an int64: %v", err)
	}
	for _, f := range []func() error{
		func() error { _, err := off.AsBool(); return err },
		func() error { _, err := off.AsFloat(); return err },
		func() error { _, err := off.AsBytes(); return err },
		func() error { _, err := off.AsUUID(); return err },
	} {
		if err := f(); !errors.As(err, &pe) || pe.Reason != tree.WrongKind {
			t.Errorf("getter of an int64: %v", err)
		}
	}
	if _, err := tr.Root().Field("Frame").Field("size").AsUint(); err != nil {
		t.Errorf("AsUint of the size: %v", err)
	}
}

// The paths of the value API are the JSON view's: PathOf of every node a
// Value reaches names it back (Get of the path is the same node).
func TestPathOfRoundTrip(t *testing.T) {
	tr := decodeVote(t)
	n := 0
	for i := range tr.Nodes {
		switch tr.Nodes[i].Kind() {
		case tree.Header, tree.Body, tree.Field, tree.Struct, tree.Array, tree.Element, tree.FrameField:
		default:
			continue
		}
		p := tr.PathOf(int32(i)).String()
		v, err := tr.Get(p)
		if err != nil || v.Node() != int32(i) {
			t.Errorf("node %d: path %q gives node %d, %v", i, p, v.Node(), err)
		}
		n++
	}
	if n != 22 {
		t.Errorf("%d value nodes, want 22", n)
	}
}

// The Set methods edit a Sub tree for encoding again, leaving the decoded
// frame as it was.
func TestSet(t *testing.T) {
	s, _ := spec.Embedded("4.4.0")
	tr := decodeVote(t)
	orig := hex.EncodeToString(tr.Bytes)
	hdr, body := tr.Sub(tr.Part(tree.Header)), tr.Sub(tr.Part(tree.Body))
	set := func(path string, f func(v tree.Value) error) {
		v, err := body.Get(path)
		if err == nil {
			err = f(v)
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	set("VoteRequest.Topics[0].TopicName", func(v tree.Value) error { return v.SetString("t") })
	set("Topics[0].Partitions[0].LastOffset", func(v tree.Value) error { return v.SetInt(121) })
	set("Topics[0].Partitions[0].PreVote", func(v tree.Value) error { return v.SetBool(false) })
	set("ClusterId", func(v tree.Value) error { return v.SetString("kafka") })
	out, err := codec.New(s).Encode(tr.Message, tr.Version, hdr, body)
	if err != nil {
		t.Fatal(err)
	}
	want := "0000005800340002000000070003636c6900066b61666b610000000102027402000000000000000300000002000000000000000000000000000000010000000000000000000000000000000000000003000000000000007900000000"
	if got := hex.EncodeToString(out.Bytes); got != want {
		t.Errorf("edited:\n got %s\nwant %s", got, want)
	}
	if hex.EncodeToString(tr.Bytes) != orig {
		t.Errorf("the decoded frame changed")
	}
	if v, _ := tr.Get("VoteRequest.ClusterId"); v.String() != "kw" {
		t.Errorf("the decoded tree's ClusterId is %q", v)
	}
	v, _ := body.Get("VoteRequest.VoterId")
	var pe *tree.PathError
	if err := v.SetInt(1 << 31); !errors.As(err, &pe) || err.Error() != "VoteRequest.VoterId: value 2147483648 is out of range for int32 (-2147483648..2147483647)" {
		t.Errorf("SetInt out of range: %v", err)
	}
	if err := v.SetString("x"); err == nil || err.Error() != "VoteRequest.VoterId: not a string: it is an int32" {
		t.Errorf("SetString of an int32: %v", err)
	}
}

// A node is 16 bytes, the size every memory bound counts with.
func TestNodeIsSixteenBytes(t *testing.T) {
	if tree.NodeSize != 16 {
		t.Errorf("a node takes %d bytes", tree.NodeSize)
	}
}

// Shapes interned from many goroutines at once are each what was asked
// for, read without a lock while others grow the table (go test -race).
func TestShapesConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 500 {
				ref := tree.NameRef(fmt.Sprintf("shape-test-%d", k%50), "")
				s := tree.NewShape(tree.BatchField, tree.Wire(1+k%18), ref, int32(g))
				n := tree.Node{S: s.With(tree.FlagVirtual)}
				if n.Kind() != tree.BatchField || n.Wire() != tree.Wire(1+k%18) || n.Ref() != ref || n.Aux() != int32(g) || n.Flags() != tree.FlagVirtual {
					t.Errorf("shape %d of goroutine %d reads back as %v %v %d %d %v", k, g, n.Kind(), n.Wire(), n.Ref(), n.Aux(), n.Flags())
					return
				}
			}
		}()
	}
	wg.Wait()
}

// The zero node's shape is the empty one whatever was interned first: no
// wire, Ref or aux (the shape NewShape gives past its bound, too).
func TestZeroShapeIsEmpty(t *testing.T) {
	tree.NewShape(tree.BatchField, tree.WireInt32, tree.NameRef("zero-shape-test", ""), 7)
	var n tree.Node
	if n.Kind() != tree.KindInvalid || n.Wire() != tree.WireNone || n.Ref() != 0 || n.Aux() != 0 {
		t.Errorf("zero node: %v %v %d %d", n.Kind(), n.Wire(), n.Ref(), n.Aux())
	}
	if s := tree.NewShape(tree.KindInvalid, tree.WireNone, 0, 0); s != 0 {
		t.Errorf("the empty shape is %#x, not 0", uint32(s))
	}
}

// TestDataOfATagWithNegativeSizes: an unknown tag group whose number and
// size leaves, or a records group whose length leaf (a tree built or
// edited by hand), have negative sizes read as their whole span, not a
// panic.
func TestDataOfATagWithNegativeSizes(t *testing.T) {
	tr := &tree.Tree{Bytes: []byte{7, 1, 0xaa}}
	b := tree.Builder{T: tr}
	b.Open(tree.Node{S: tree.NewShape(tree.UnknownTag, tree.WireNone, 0, 0)})
	b.Leaf(tree.Node{Off: 0, Size: -1, S: tree.NewShape(tree.TagNumber, tree.WireUvarint, 0, 0)})
	b.Leaf(tree.Node{Off: 1, Size: -5, S: tree.NewShape(tree.TagSize, tree.WireUvarint, 0, 0)})
	b.Leaf(tree.Node{Off: 2, Size: 1, S: tree.NewShape(tree.Raw, tree.WireRaw, 0, 0)})
	b.Close(3)
	if got := tr.Data(0); string(got) != string(tr.Bytes) {
		t.Fatalf("Data = %x, want %x", got, tr.Bytes)
	}
	rec := &tree.Tree{Bytes: []byte{0, 0, 0, 1, 0xaa}}
	b = tree.Builder{T: rec}
	b.Open(tree.Node{S: tree.NewShape(tree.Records, tree.WireBytes, 0, 0)})
	b.Leaf(tree.Node{Off: 0, Size: -2, S: tree.NewShape(tree.Length, tree.WireInt32, 0, 0)})
	b.Leaf(tree.Node{Off: 4, Size: 1, S: tree.NewShape(tree.Raw, tree.WireRaw, 0, 0)})
	b.Close(5)
	if got := rec.Data(0); string(got) != string(rec.Bytes) {
		t.Fatalf("records Data = %x, want %x", got, rec.Bytes)
	}
}
