package tree_test

import (
	"testing"

	"github.com/kwire/kwire/tree"
)

// Each notation of one path, and the dotted one read back.
func TestPathNotations(t *testing.T) {
	for _, tc := range []struct {
		path                 tree.Path
		dotted, json, anchor string
	}{
		{tree.Path{tree.Name("VoteRequest"), tree.Name("Topics"), tree.Index(0), tree.Name("Partitions"), tree.Index(0), tree.Name("LastOffset")},
			"VoteRequest.Topics[0].Partitions[0].LastOffset", "$.voteRequest.topics[0].partitions[0].lastOffset", "VoteRequest.Topics.0.Partitions.0.LastOffset"},
		{tree.Path{tree.Name("Records"), tree.Index(1), tree.Name("Record"), tree.Index(2), tree.Name("headerKey"), tree.Index(0)},
			"Records[1].Record[2].headerKey[0]", "$.records[1].record[2].headerKey[0]", "Records.1.Record.2.headerKey.0"},
		{tree.Path{tree.Name("Records"), tree.Index(0), tree.Name("LegacyMessage v1")},
			"Records[0].LegacyMessage v1", "$.records[0].legacyMessage v1", "Records.0.LegacyMessage_v1"},
		{tree.Path{tree.Index(3), tree.Name("NS")}, "[3].NS", "$[3].nS", "3.NS"},
		{nil, "", "$", ""},
	} {
		if got := tc.path.String(); got != tc.dotted {
			t.Errorf("String = %q, want %q", got, tc.dotted)
		}
		if got := string(tc.path.AppendJSON(nil, nil)); got != tc.json {
			t.Errorf("AppendJSON = %q, want %q", got, tc.json)
		}
		if got := string(tc.path.AppendAnchor(nil)); got != tc.anchor {
			t.Errorf("AppendAnchor = %q, want %q", got, tc.anchor)
		}
		var b []byte
		for _, s := range tc.path {
			b = tree.AppendStep(b, s)
		}
		if string(b) != tc.dotted {
			t.Errorf("AppendStep = %q, want %q", b, tc.dotted)
		}
		if tc.dotted == "" || tc.dotted[0] == '[' {
			continue
		}
		back, err := tree.ParsePath(tc.dotted)
		if err != nil || back.String() != tc.dotted || len(back) != len(tc.path) {
			t.Errorf("ParsePath(%q) = %v, %v", tc.dotted, back, err)
		}
	}
}

// JSON keys that are not spec names are written as they are, quoted when
// they are not identifiers; Push, PushKey, PushIndex and Pop build paths.
func TestPathJSONKeys(t *testing.T) {
	var p tree.Path
	p.Push("Topics")
	p.PushIndex(0)
	p.PushKey("_unknownTaggedFields")
	p.PushIndex(1)
	p.PushKey("data")
	if got := string(p.AppendJSON(nil, nil)); got != "$.topics[0]._unknownTaggedFields[1].data" {
		t.Errorf("got %s", got)
	}
	p.Pop()
	p.PushKey("a key")
	if got := string(p.AppendJSON(nil, nil)); got != `$.topics[0]._unknownTaggedFields[1]["a key"]` {
		t.Errorf("got %s", got)
	}
	c := p.Clone()
	p.Pop()
	p.PushKey("Other")
	if c.String() != "Topics[0]._unknownTaggedFields[1].a key" || p.String() != "Topics[0]._unknownTaggedFields[1].Other" {
		t.Errorf("Clone shares steps: %s, %s", c, p)
	}
}

func TestParsePathErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "at character 0: empty path"},
		{"A..B", "A..B: at character 2: a name is missing"},
		{"A.", "A.: at character 1: a name is missing"},
		{".A", ".A: at character 0: a name is missing"},
		{"A[", "A[: at character 1: [ without ]"},
		{"A[-1]", `A[-1]: at character 2: index "-1" is not a number from 0 on`},
		{"A[+1]", `A[+1]: at character 2: index "+1" is not a number from 0 on`},
		{"A[2147483648]", `A[2147483648]: at character 2: index "2147483648" is not a number from 0 on`},
		{"A[0]B", "A[0]B: at character 4: a . is missing before the name"},
		{"A]", "A]: at character 1: ] without ["},
	} {
		_, err := tree.ParsePath(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParsePath(%q) = %v, want %s", tc.in, err, tc.want)
		}
	}
}
