package codec_test

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// readmeVote is README's VoteRequest v2 (header: correlation id 7, client
// id "cli") and its body in Kafka's converter JSON.
const (
	readmeVoteHex  = "0000006600340002000000070003636c6900036b770000000102135f5f636c75737465725f6d6574616461746102000000000000000300000002000000000000000000000000000000010000000000000000000000000000000000000003000000000000007801000000"
	readmeVoteJSON = `{"clusterId":"kw","voterId":1,"topics":[{"topicName":"__cluster_metadata","partitions":[{"partitionIndex":0,"replicaEpoch":3,"replicaId":2,"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAQ","voterDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","lastOffsetEpoch":3,"lastOffset":120,"preVote":true}]}]}`
)

func embedded(t testing.TB) *spec.Set {
	t.Helper()
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The README's Vote request built in Go encodes to the README's bytes, as
// the same body read from JSON does.
func TestBuilderReadmeVote(t *testing.T) {
	s := embedded(t)
	vote := s.Request(52)
	c := codec.New(s)
	body, err := codec.NewBuilder(vote, 2).
		Set("ClusterId", "kw").
		Set("VoterId", 1).
		Set("Topics[0].TopicName", "__cluster_metadata").
		Set("Topics[0].Partitions[0].PartitionIndex", 0).
		Set("Topics[0].Partitions[0].ReplicaEpoch", int32(3)).
		Set("Topics[0].Partitions[0].ReplicaId", int64(2)).
		Set("Topics[0].Partitions[0].ReplicaDirectoryId", "00000000-0000-0000-0000-000000000001").
		Set("Topics[0].Partitions[0].VoterDirectoryId", [16]byte{}).
		Set("VoteRequest.Topics[0].Partitions[0].LastOffsetEpoch", uint8(3)).
		Set("Topics[0].Partitions[0].LastOffset", 120).
		Set("Topics[0].Partitions[0].PreVote", true).
		Tree()
	if err != nil {
		t.Fatal(err)
	}
	hdr := codec.RequestHeaderValue(s.RequestHeader(), 52, 2, 7, "cli")
	got, err := c.Encode(vote, 2, hdr, body)
	if err != nil {
		t.Fatal(err)
	}
	if h := hex.EncodeToString(got.Bytes); h != readmeVoteHex {
		t.Fatalf("built:\n got %s\nwant %s", h, readmeVoteHex)
	}
	fromJSON, err := codec.FromJSON([]byte(readmeVoteJSON), vote, 2)
	if err != nil {
		t.Fatal(err)
	}
	if d := tree.Diff(body, 0, fromJSON, 0); d != "" {
		t.Errorf("built and JSON values differ: %s", d)
	}
	// The built value reads back with the value API.
	v, err := body.Get("VoteRequest.Topics[0].Partitions[0].LastOffset")
	if err != nil || v.Int() != 120 {
		t.Errorf("Get LastOffset = %d, %v; want 120", v.Int(), err)
	}
	if v, _ := body.Get("Topics[0].Partitions[0].ReplicaDirectoryId"); v.String() != "00000000-0000-0000-0000-000000000001" {
		t.Errorf("ReplicaDirectoryId = %s", v)
	}
}

// A value that leaves fields out encodes as its ToJSON (which writes the
// defaults out) read back does: unset fields take the defaults FromJSON
// and the encoder use. Covers a scalar array, a tagged field, null and a
// float64.
func TestBuilderDefaultsAsJSON(t *testing.T) {
	s := embedded(t)
	c := codec.New(s)
	cases := []struct {
		msg  *spec.Message
		v    int16
		sets [][2]any
		want string // the encoded body in hex, when checked
	}{
		{s.Request(15), 5, [][2]any{{"Groups[0]", "g1"}, {"Groups[1]", "g2"}, {"IncludeAuthorizedOperations", true}}, "030367310367320100"},
		{s.Response(18), 3, [][2]any{{"ApiKeys[0].ApiKey", 18}, {"ApiKeys[0].MaxVersion", 4}, {"FinalizedFeaturesEpoch", 5}}, ""},
		{s.Response(3), 12, [][2]any{{"Topics[0].Name", nil}, {"Topics[0].TopicId", "01234567-89ab-cdef-0123-456789abcdef"}}, ""},
		{s.Request(49), 1, [][2]any{{"Entries[0].Entity[0].EntityType", "user"}, {"Entries[0].Ops[0].Key", "producer_byte_rate"}, {"Entries[0].Ops[0].Value", 1024.5}}, ""},
	}
	for _, tc := range cases {
		b := codec.NewBuilder(tc.msg, tc.v)
		for _, kv := range tc.sets {
			b.Set(kv[0].(string), kv[1])
		}
		body, err := b.Tree()
		if err != nil {
			t.Fatalf("%s: %v", tc.msg.Name, err)
		}
		built, err := c.EncodeBody(tc.msg, tc.v, body)
		if err != nil {
			t.Fatalf("%s: %v", tc.msg.Name, err)
		}
		js, err := codec.ToJSON(nil, body, 0, tc.msg, tc.v, codec.JSONOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.msg.Name, err)
		}
		back, err := codec.FromJSON(js, tc.msg, tc.v)
		if err != nil {
			t.Fatalf("%s: %s: %v", tc.msg.Name, js, err)
		}
		viaJSON, err := c.EncodeBody(tc.msg, tc.v, back)
		if err != nil {
			t.Fatalf("%s: %v", tc.msg.Name, err)
		}
		if hex.EncodeToString(built.Bytes) != hex.EncodeToString(viaJSON.Bytes) {
			t.Errorf("%s: built %x, via JSON %s: %x", tc.msg.Name, built.Bytes, js, viaJSON.Bytes)
		}
		if h := hex.EncodeToString(built.Bytes); tc.want != "" && h != tc.want {
			t.Errorf("%s: %s, want %s", tc.msg.Name, h, tc.want)
		}
		// Every value set reads back from the decoded bytes.
		dec, err := c.DecodeBody(built.Bytes, tc.msg, tc.v)
		if err != nil {
			t.Fatalf("%s: %v", tc.msg.Name, err)
		}
		for _, kv := range tc.sets {
			v, err := dec.Get(kv[0].(string))
			if err != nil {
				t.Errorf("%s: %s: %v", tc.msg.Name, kv[0], err)
				continue
			}
			var got any
			switch x := kv[1].(type) {
			case nil:
				got = nil
				if !v.IsNull() {
					t.Errorf("%s: %s is not null", tc.msg.Name, kv[0])
				}
				continue
			case string:
				got = v.String()
			case int:
				got = int(v.Int())
			case bool:
				got = v.Bool()
			case float64:
				got = v.Float()
			default:
				t.Fatalf("no check for %T", x)
			}
			if got != kv[1] {
				t.Errorf("%s: %s = %v, want %v", tc.msg.Name, kv[0], got, kv[1])
			}
		}
	}
}

func TestBuilderErrors(t *testing.T) {
	s := embedded(t)
	vote := s.Request(52)
	cases := []struct {
		path   string
		value  any
		reason tree.ErrorReason
		want   string
	}{
		{"Topics[0].Partitions[0].LastOfset", 1, tree.NoSuchField, `VoteRequest.Topics[0].Partitions[0].LastOfset: no such field in PartitionData; did you mean "LastOffset"?`},
		{"Topics[1].TopicName", "t", tree.IndexOutOfRange, `VoteRequest.Topics[1]: index 1 out of range: Topics has 0 element(s) so far; set the elements in order`},
		{"VoterId", "1", tree.WrongKind, `VoteRequest.VoterId: a string does not fit an int32`},
		{"Topics[0].Partitions[0].ReplicaEpoch", 1 << 31, tree.WrongKind, `VoteRequest.Topics[0].Partitions[0].ReplicaEpoch: value 2147483648 is out of range for int32 (-2147483648..2147483647)`},
		{"Topics[0].TopicName", nil, tree.WrongKind, `VoteRequest.Topics[0].TopicName: null, but the field is not nullable in version 2`},
		{"Topics", 1, tree.WrongKind, `VoteRequest.Topics: an array is set field by field or element by element (only nil, for null, is set whole)`},
		{"VoterId[0]", 1, tree.WrongKind, `VoteRequest.VoterId[0]: not an array: an index applies to an array field`},
		{"Topics[0]", 1, tree.WrongKind, `VoteRequest.Topics[0]: a struct is set field by field or element by element (only nil, for null, is set whole)`},
		{"Topics..TopicName", 1, tree.BadPath, `Topics..TopicName: at character 7: a name is missing`},
		{"Topics[0].Partitions[0].ReplicaDirectoryId", "xyz", tree.WrongKind, `VoteRequest.Topics[0].Partitions[0].ReplicaDirectoryId: "xyz" is not a uuid of 8-4-4-4-12 hex digits`},
	}
	for _, tc := range cases {
		_, err := codec.NewBuilder(vote, 2).Set(tc.path, tc.value).Set("VoterId", 2).Tree()
		var pe *tree.PathError
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %v is not a *tree.PathError", tc.path, err)
			continue
		}
		if pe.Reason != tc.reason || err.Error() != tc.want {
			t.Errorf("%s:\n got %v (%v)\nwant %s (%v)", tc.path, err, pe.Reason, tc.want, tc.reason)
		}
	}
	// A field of other versions: ClusterId is in VoteRequest from v0 on,
	// PreVote only from v2.
	_, err := codec.NewBuilder(vote, 1).Set("Topics[0].Partitions[0].PreVote", true).Tree()
	if want := "VoteRequest.Topics[0].Partitions[0].PreVote: the field is not in version 1 of VoteRequest (versions 2+)"; err == nil || err.Error() != want {
		t.Errorf("PreVote at v1: %v, want %s", err, want)
	}
	var ve *codec.VersionError
	if _, err := codec.NewBuilder(vote, 9).Tree(); !errors.As(err, &ve) {
		t.Errorf("v9: %v, want a *VersionError", err)
	}
}
