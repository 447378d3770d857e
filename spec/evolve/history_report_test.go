package evolve

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kwire/kwire/spec"
)

func TestHistoryText(t *testing.T) {
	set, _ := spec.Embedded("4.4")
	req, resp, err := set.Lookup("Vote")
	if err != nil {
		t.Fatal(err)
	}
	if resp == nil {
		resp = set.Response(req.APIKey)
	}
	var b bytes.Buffer
	if err := WriteHistoryText(&b, "Kafka 4.4.0", APIHistory(req, resp), nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"VoteRequest (request, api key 52) in Kafka 4.4.0: valid versions 0-2, flexible 0+\n  v0  lowest valid version; first flexible version\n  v1\n",
		"      + VoterId int32 (ignorable, default -1): The replica id of the voter receiving the request.\n",
		"      // Version 1 adds voter key and directory id (KIP-853)  (line 21)\n",
		"  v2\n      + Topics.Partitions.PreVote bool: Whether the request is a PreVote request (not persisted) or not.\n      // Version 2 adds PreVote field and renames candidate to replica  (line 22)\n",
		"\nVoteResponse (response, api key 52) in Kafka 4.4.0",
		"      + NodeEndpoints []NodeEndpoint (tagged 1+, tag 0): Endpoints for all current-leaders enumerated in PartitionData.\n",
		"  v2  no field changes\n      // Version 2 handles PreVote requests  (line 21)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("history of Vote lacks %q:\n%s", want, out)
		}
	}

	// A message without valid versions gets the caller's hint.
	req, resp, _ = set.Lookup("LeaderAndIsr")
	if resp == nil {
		resp = set.Response(req.APIKey)
	}
	b.Reset()
	WriteHistoryText(&b, "Kafka 4.4.0", APIHistory(req, nil), func(m *spec.Message) string { return "(hint for " + m.Name + ")" })
	if want := "LeaderAndIsrRequest (request, api key 4) in Kafka 4.4.0: valid versions none, flexible none\n  no valid versions (hint for LeaderAndIsrRequest)\n"; b.String() != want {
		t.Errorf("history of LeaderAndIsr:\n%q\nwant\n%q", b.String(), want)
	}
}

func TestChangeLines(t *testing.T) {
	f := &spec.Field{Name: "X", TypeString: "string", Versions: spec.Versions{Lo: 0, Hi: 1}, NullableVersions: spec.Versions{Lo: 1, Hi: spec.MaxVersion}, About: "An x."}
	tg := &spec.Field{Name: "T", TypeString: "int32", HasTag: true, Tag: 3, TaggedVersions: spec.Versions{Lo: 2, Hi: spec.MaxVersion}, NullableVersions: spec.None, Ignorable: true, Default: "-1"}
	for _, c := range []struct {
		c    Change
		want string
	}{
		{Change{Kind: "added", Path: "A.X", Field: f}, "+ A.X string (nullable 1+): An x."},
		{Change{Kind: "added", Path: "T", Field: tg}, "+ T int32 (tagged 2+, tag 3, ignorable, default -1)"},
		{Change{Kind: "removed", Path: "A.X", Field: f}, "- A.X string (versions 0-1)"},
		{Change{Kind: "nullable", Path: "A.X", Field: f}, "~ A.X becomes nullable (nullableVersions 1+)"},
		{Change{Kind: "not-nullable", Path: "A.X", Field: f}, "~ A.X is no longer nullable (nullableVersions 1+)"},
		{Change{Kind: "tagged", Path: "T", Field: tg}, "~ T becomes tagged, tag 3 (taggedVersions 2+)"},
	} {
		if got := c.c.Line(); got != c.want {
			t.Errorf("%s: %q, want %q", c.c.Kind, got, c.want)
		}
	}
}

// The response's highest version is marked unstable with its request's.
func TestAPIHistoryMarksTheUnstableResponse(t *testing.T) {
	set, _ := spec.Embedded("4.4")
	for _, req := range set.Messages {
		if req.Type != spec.Request || !req.LatestVersionUnstable || req.ValidVersions.Empty() {
			continue
		}
		resp := set.Response(req.APIKey)
		hs := APIHistory(req, resp)
		if len(hs) != 2 {
			t.Fatalf("%s: %d histories", req.Name, len(hs))
		}
		last := hs[1].Versions[len(hs[1].Versions)-1]
		if !last.Unstable || last.Version != resp.ValidVersions.Hi || hs[1].Versions[0].Unstable && len(hs[1].Versions) > 1 {
			t.Errorf("%s: versions %+v", resp.Name, hs[1].Versions)
		}
		var b bytes.Buffer
		WriteHistoryJSON(&b, hs)
		var js []HistoryJSON
		if err := json.Unmarshal(b.Bytes(), &js); err != nil || !js[1].Versions[len(js[1].Versions)-1].Unstable {
			t.Errorf("%s JSON: %v %s", req.Name, err, b.String())
		}
		return
	}
	t.Skip("no API of 4.4 has latestVersionUnstable")
}

func TestHistoryJSON(t *testing.T) {
	set, _ := spec.Embedded("4.4")
	req, resp, _ := set.Lookup("52")
	if resp == nil {
		resp = set.Response(req.APIKey)
	}
	var b bytes.Buffer
	if err := WriteHistoryJSON(&b, APIHistory(req, resp)); err != nil {
		t.Fatal(err)
	}
	var hs []HistoryJSON
	if err := json.Unmarshal(b.Bytes(), &hs); err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 || *hs[0].APIKey != 52 || len(hs[0].Versions) != 3 || hs[0].Versions[2].Changes[0].Path != "Topics.Partitions.PreVote" || hs[0].Versions[2].Notes[0].Line != 22 {
		t.Errorf("%+v", hs)
	}
	c := hs[0].Versions[1].Changes[0]
	if c.Kind != "added" || c.Type != "int32" || c.Default != "-1" || c.Tag != nil {
		t.Errorf("v1's first change %+v", c)
	}
}

// A coordinator record's heading names its record types and topic, not
// an api key (3.9.1's "data" key has none; its versions are the types).
func TestHistoryTextOfCoordinatorRecords(t *testing.T) {
	for rel, want := range map[string]string{
		"3.9.1": "OffsetCommitKey (data, record type 0-1 of __consumer_offsets) in Kafka 3.9.1: valid versions 0-1, flexible none\n",
		"4.4":   "OffsetCommitKey (coordinator-key, record type 1 of __consumer_offsets) in Kafka 4.4.0: valid versions 0, flexible none\n",
	} {
		s, err := spec.Embedded(rel)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := WriteHistoryText(&b, "Kafka "+s.Release, []*MessageHistory{History(s.Message("OffsetCommitKey"))}, nil); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), want) {
			t.Errorf("%s:\n%s\nwant first line %q", rel, b.String(), want)
		}
	}
}

// The JSON of a span names the releases that mark the version unstable,
// the first that does not, and the releases of another name.
func TestSpanJSONUnstableAndNames(t *testing.T) {
	s, _ := spec.Embedded("4.4")
	for _, c := range []struct {
		name string
		v    int
		want string
	}{
		{"ConsumerGroupHeartbeatRequest", 0, `{"version":0,"first":"3.5.2","first_is_oldest_embedded":false,"last":"4.4.0","unstable":[{"first":"3.5.2","last":"3.6.2"}],"first_stable":"3.7.2","words":"Kafka 3.7–4.4 (unstable in 3.5–3.6)"}`},
		{"InitProducerIdResponse", 6, `{"version":6,"first":"4.1.2","first_is_oldest_embedded":false,"last":"4.4.0","unstable":[{"first":"4.1.2","last":"4.4.0"}],"words":"unstable in Kafka 4.1–4.4"}`},
		{"ListConfigResourcesRequest", 0, `{"version":0,"first":"3.7.2","first_is_oldest_embedded":false,"last":"4.4.0","other_names":[{"name":"ListClientMetricsResources","first":"3.7.2","last":"4.0.2"}],"words":"Kafka 3.7–4.4 (as ListClientMetricsResources in 3.7–4.0)"}`},
	} {
		sp, err := spec.EmbeddedSpans(s.Message(c.name))
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		for _, x := range sp {
			if int(x.Version) == c.v {
				got, _ = json.Marshal(spanJSON(x))
			}
		}
		if string(got) != c.want {
			t.Errorf("%s v%d:\n got %s\nwant %s", c.name, c.v, got, c.want)
		}
	}
}
