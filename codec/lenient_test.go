package codec_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// TestKafkaLenientLengths: Kafka's generated readers take any negative
// length or count as null, and compute a compact length as a 32-bit
// readUnsignedVarint()-1, so uvarints from 0x80000001 up are null too.
// Each input below was read as null by Kafka 4.4.0's own classes.
func TestKafkaLenientLengths(t *testing.T) {
	s, c := specs(t)
	// smallest returns the framed smallest request, patched by edit.
	smallest := func(name string, v int16, edit func(b []byte) []byte) []byte {
		m := s.Message(name)
		enc, err := c.Encode(m, v, nil, instance.Smallest(m, v))
		if err != nil {
			t.Fatal(err)
		}
		b := edit(append([]byte(nil), enc.Bytes...))
		copy(b, framed(b[4:])[:4])
		return b
	}
	cases := []struct {
		name string
		in   []byte
		path string
	}{
		{"an int16 string length of -2 is null (ProduceRequest v3 TransactionalId)",
			smallest("ProduceRequest", 3, func(b []byte) []byte { b[14], b[15] = 0xff, 0xfe; return b }), "TransactionalId"},
		{"a compact length uvarint of 0xffffffff is null (VoteRequest v2 ClusterId)",
			smallest("VoteRequest", 2, func(b []byte) []byte {
				return append(append(b[:15:15], 0xff, 0xff, 0xff, 0xff, 0x0f), b[16:]...)
			}), "ClusterId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dec, err := c.DecodeRequest(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			checkTiling(t, tc.name, dec)
			if n := bodyNode(t, dec, tc.path); !n.Null() {
				t.Errorf("%s decodes as %+v, want null", tc.path, *n)
			}
		})
	}

	// An int32 array count of -2 is null (MetadataRequest v4 Topics).
	m := s.Message("MetadataRequest")
	v := instance.Smallest(m, 4)
	ti := nodeAt(v, 0, "Topics")
	nullLeaf(v, ti)
	enc, err := c.Encode(m, 4, nil, v)
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte(nil), enc.Bytes...)
	at := bytes.Index(b[14:], []byte{0xff, 0xff, 0xff, 0xff}) + 14
	b[at+3] = 0xfe
	dec, err := c.DecodeRequest(b)
	if err != nil {
		t.Fatal(err)
	}
	if n := bodyNode(t, dec, "Topics"); !n.Null() {
		t.Errorf("Topics with count -2 decodes as %+v, want null", *n)
	}
	// A non-nullable field still refuses any negative length.
	vb := smallest("VoteRequest", 2, func(b []byte) []byte {
		// TopicName (non-nullable compact string) at 0x15: 0 means null.
		b[0x15] = 0x00
		return b
	})
	_, err = c.DecodeRequest(vb)
	var we *wire.Error
	if !errors.As(err, &we) || we.Path != "VoteRequest.Topics[0].TopicName" {
		t.Errorf("null TopicName: %v, want an error at VoteRequest.Topics[0].TopicName", err)
	}
}

// TestDuplicateTagLastWins: Kafka reads a known tag twice and keeps the
// last value; kwire's tree shows both and its value is the last one.
// ApiVersionsResponse v3 with FinalizedFeaturesEpoch (tag 1) as 5, then 6.
func TestDuplicateTagLastWins(t *testing.T) {
	s, c := specs(t)
	m := s.Message("ApiVersionsResponse")
	body := hexBytes(t, "0000 01 00000000 02 01 08 0000000000000005 01 08 0000000000000006")
	in := framed(append(hexBytes(t, "00000007"), body...))
	dec, err := c.DecodeResponse(in, m, 3)
	if err != nil {
		t.Fatal(err)
	}
	f := m.Root.Fields
	var epoch int32 = -1
	for _, x := range f {
		if x.Name == "FinalizedFeaturesEpoch" {
			epoch = dec.Lookup(dec.Part(tree.Body), x)
		}
	}
	if epoch < 0 || dec.Num(epoch) != 6 {
		t.Fatalf("FinalizedFeaturesEpoch = node %d, want the last value 6", epoch)
	}
	again, err := reencode(c, dec)
	if err != nil {
		t.Fatal(err)
	}
	want := framed(append(hexBytes(t, "00000007"), hexBytes(t, "0000 01 00000000 01 01 08 0000000000000006")...))
	sameBytes(t, "re-encoded", again.Bytes, want)
	c.Strict = true
	if _, err := c.DecodeResponse(in, m, 3); err == nil {
		t.Error("strict decoding accepted a duplicate tag")
	}
}

// TestTagSizeNotChecked: Kafka does not check a known tag's size prefix;
// kwire decodes the value, flags the Tag node, and re-encodes the right
// size. Strict decoding refuses it.
func TestTagSizeNotChecked(t *testing.T) {
	s, c := specs(t)
	m := s.Message("ApiVersionsResponse")
	// FinalizedFeaturesEpoch (int64, 8 bytes) with a size prefix of 5.
	in := framed(append(hexBytes(t, "00000007"), hexBytes(t, "0000 01 00000000 01 01 05 0000000000000009")...))
	dec, err := c.DecodeResponse(in, m, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkTiling(t, "size mismatch", dec)
	found := false
	for i := range dec.Nodes {
		if n := &dec.Nodes[i]; n.Kind() == tree.Tag {
			found = n.Flags()&tree.FlagSizeMismatch != 0
		}
	}
	if !found {
		t.Error("the Tag node does not carry FlagSizeMismatch")
	}
	again, err := reencode(c, dec)
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "re-encoded", again.Bytes, framed(append(hexBytes(t, "00000007"), hexBytes(t, "0000 01 00000000 01 01 08 0000000000000009")...)))
	strict := codec.New(s)
	strict.Strict = true
	if _, err := strict.DecodeResponse(in, m, 3); err == nil {
		t.Error("strict decoding accepted a tag whose size is wrong")
	}
}

// nullLeaf turns value node i into a null leaf, dropping its children and
// fixing the End of the nodes around them.
func nullLeaf(v *tree.Tree, i int32) {
	end := v.Nodes[i].End
	drop := end - (i + 1)
	v.Nodes = append(v.Nodes[:i+1], v.Nodes[end:]...)
	for k := range v.Nodes {
		if n := &v.Nodes[k]; int32(k) != i && n.End >= end {
			n.End -= drop
		}
	}
	v.Nodes[i].End = i + 1
	v.Nodes[i].SetNull(true)
}

// ControlledShutdownRequest v0 (Kafka 3.9.1) uses request header v0: no
// client id, 8 bytes; v1 uses header v1. Checked against Kafka 3.9.1's own
// classes by the oracle review.
func TestControlledShutdownV0HeaderV0(t *testing.T) {
	s, err := spec.Embedded("3.9.1")
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	m := s.Request(7)
	for v, want := range map[int16]struct {
		hv   int16
		size int32
	}{0: {0, 8}, 1: {1, 10}} {
		enc, err := c.Encode(m, v, nil, instance.Smallest(m, v))
		if err != nil {
			t.Fatal(err)
		}
		h := enc.Part(tree.Header)
		if enc.HeaderVersion != want.hv || enc.Nodes[h].Size != want.size {
			t.Errorf("v%d: header v%d of %d bytes, want v%d of %d", v, enc.HeaderVersion, enc.Nodes[h].Size, want.hv, want.size)
		}
		dec, err := c.DecodeRequest(enc.Bytes)
		if err != nil || dec.HeaderVersion != want.hv {
			t.Errorf("v%d: decoded header v%d (err %v)", v, dec.HeaderVersion, err)
		}
	}
}

// Kafka reads any non-zero bool byte as true.
func TestBoolByteTwoIsTrue(t *testing.T) {
	_, c := specs(t)
	m := c.Set.Message("VoteRequest")
	enc, err := c.Encode(m, 2, nil, instance.Smallest(m, 2))
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte(nil), enc.Bytes...)
	b[0x4f] = 0x02 // PreVote
	dec, err := c.DecodeRequest(b)
	if err != nil {
		t.Fatal(err)
	}
	if n := bodyNode(t, dec, "Topics[0].Partitions[0].PreVote"); n.Num != 1 {
		t.Errorf("PreVote byte 02 decodes as %d, want true (1)", n.Num)
	}
}

// The JSON view of a tag read twice shows the last value, as Kafka does.
func TestDuplicateTagJSONLastWins(t *testing.T) {
	s, c := specs(t)
	m := s.Message("ApiVersionsResponse")
	in := framed(append(hexBytes(t, "00000007"), hexBytes(t, "0000 01 00000000 02 01 08 0000000000000005 01 08 0000000000000006")...))
	dec, err := c.DecodeResponse(in, m, 3)
	if err != nil {
		t.Fatal(err)
	}
	js, err := codec.ToJSON(nil, dec, dec.Part(tree.Body), m, 3, codec.JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"errorCode":0,"apiKeys":[],"throttleTimeMs":0,"finalizedFeaturesEpoch":6}`; string(js) != want {
		t.Errorf("JSON %s, want %s", js, want)
	}
}
