package evolve

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kwire/kwire/spec"
)

func TestNotes(t *testing.T) {
	text := `// Licensed to the Apache Software Foundation (ASF) under one or more
// The ASF licenses this file to You under the Apache License, Version 2.0
//
// limitations under the License.

// Version 1 adds the Foo field
{
  "name": "FooRequest",
  // Versions 0-3 were removed in Apache Kafka 4.0, Version 4 is the new baseline.
  //
  // Starting in Version 5, the requester must be able to handle Kafka Log
  // Message format version 1.
  // Version 6 adds Bar.  Starting in version 6, ordering
  // matters.
  // Version 7 is the same as version 6.
  //
  // This comment names no version.
  "validVersions": "4-7"
}`
	var got []string
	for _, n := range Notes([]byte(text)) {
		got = append(got, fmt.Sprintf("%d %s %s", n.Line, n.Versions, n.Text))
	}
	want := []string{
		"6 1 Version 1 adds the Foo field",
		"9 0-3 Versions 0-3 were removed in Apache Kafka 4.0, Version 4 is the new baseline.",
		"11 5 Starting in Version 5, the requester must be able to handle Kafka Log Message format version 1.",
		"13 6 Version 6 adds Bar.  Starting in version 6, ordering matters.",
		"15 7 Version 7 is the same as version 6.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("notes:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	// Without a license header, the first comment block counts.
	if n := Notes([]byte("// Version 2 adds X\n{}")); len(n) != 1 || n[0].Versions != (spec.Versions{Lo: 2, Hi: 2}) {
		t.Errorf("notes without license = %+v", n)
	}
}

// historyOf returns the history of an embedded release's message.
func historyOf(t *testing.T, release, name string) *MessageHistory {
	t.Helper()
	s, err := spec.Embedded(release)
	if err != nil {
		t.Fatal(err)
	}
	m := s.Message(name)
	if m == nil {
		t.Fatalf("no %s in %s", name, release)
	}
	return History(m)
}

// summary renders a version's history on one line.
func summary(v VersionHistory) string {
	var parts []string
	if v.Lowest {
		parts = append(parts, "lowest")
	}
	if v.FirstFlexible {
		parts = append(parts, "first-flexible")
	}
	if v.Deprecated {
		parts = append(parts, "deprecated")
	}
	for _, c := range v.Changes {
		parts = append(parts, c.Kind+" "+c.Path)
	}
	for _, n := range v.Notes {
		parts = append(parts, fmt.Sprintf("// %d: %s", n.Line, n.Text))
	}
	return fmt.Sprintf("v%d: %s", v.Version, strings.Join(parts, "; "))
}

func checkHistory(t *testing.T, h *MessageHistory, want ...string) {
	t.Helper()
	var got []string
	for _, v := range h.Versions {
		got = append(got, summary(v))
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s: no %q in\n  %s", h.Message.Name, w, strings.Join(got, "\n  "))
		}
	}
}

func TestHistoryVote(t *testing.T) {
	// KIP-853 (v1: voter key and directory ids), KIP-996 (v2: PreVote).
	checkHistory(t, historyOf(t, "4.4", "VoteRequest"),
		"v0: lowest; first-flexible",
		"v1: added VoterId; added Topics.Partitions.ReplicaDirectoryId; added Topics.Partitions.VoterDirectoryId; // 21: Version 1 adds voter key and directory id (KIP-853)",
		"v2: added Topics.Partitions.PreVote; // 22: Version 2 adds PreVote field and renames candidate to replica")
	checkHistory(t, historyOf(t, "4.4", "VoteResponse"),
		"v1: added NodeEndpoints; // 20: Version 1 adds leader endpoint (KIP-853)",
		"v2: // 21: Version 2 handles PreVote requests")
	checkHistory(t, historyOf(t, "3.9", "VoteRequest"),
		"v1: added VoterId; added Topics.Partitions.CandidateDirectoryId; added Topics.Partitions.VoterDirectoryId; // 21: Version 1 adds voter key and candidate directory id (KIP-853)")
	if n := len(historyOf(t, "3.9", "VoteRequest").Versions); n != 2 {
		t.Errorf("3.9 VoteRequest has %d versions in its history, want 2", n)
	}
}

func TestHistoryFetchAndMetadata(t *testing.T) {
	fetch := historyOf(t, "4.4", "FetchRequest")
	checkHistory(t, fetch,
		"v4: lowest; // 30: Version 4 adds IsolationLevel.  Starting in version 4, the requestor must be able to handle Kafka log message format version 2.",
		"v12: first-flexible; added ClusterId; added Topics.Partitions.LastFetchedEpoch; // 46: Version 12 adds flexible versions support as well as epoch validation through the `LastFetchedEpoch` field",
		"v13: removed Topics.Topic; added Topics.TopicId; removed ForgottenTopicsData.Topic; added ForgottenTopicsData.TopicId; // 49: Version 13 replaces topic names with topic IDs (KIP-516). May return UNKNOWN_TOPIC_ID error code.",
		"v18: added Topics.Partitions.HighWatermark; // 60: Version 18 adds high-watermark from KIP-1166")
	if len(fetch.Other) == 0 || fetch.Other[0].Text != "Versions 0-3 were removed in Apache Kafka 4.0, Version 4 is the new baseline." {
		t.Errorf("FetchRequest notes on versions that are not valid = %+v", fetch.Other)
	}
	// ClusterId is tagged from the start; the change lists it as added.
	for _, v := range fetch.Versions {
		for _, c := range v.Changes {
			if c.Path == "ClusterId" && (!c.Field.HasTag || c.Field.Tag != 0) {
				t.Errorf("ClusterId change %+v: want the tagged field, tag 0", c)
			}
		}
	}
	checkHistory(t, historyOf(t, "4.4", "MetadataResponse"),
		"v9: first-flexible; // 37: Version 9 is the first flexible version.",
		"v11: removed ClusterAuthorizedOperations; // 41: Version 11 deprecates ClusterAuthorizedOperations. This is now exposed by the DescribeCluster API (KIP-700).",
		"v12: nullable Topics.Name; // 43: Version 12 supports topicId.")
	// Comments between the license and the opening brace count.
	checkHistory(t, historyOf(t, "4.4", "BrokerHeartbeatRequest"),
		"v2: added CordonedLogDirs; // 17: Version 2 adds the CordonedLogDirs flexible field")
	checkHistory(t, historyOf(t, "3.9.1", "JoinGroupRequest"), "v0: lowest; deprecated", "v1: deprecated; added RebalanceTimeoutMs; // 21: Version 1 adds RebalanceTimeoutMs.")
	// 3.9.2 no longer deprecates them.
	checkHistory(t, historyOf(t, "3.9.2", "JoinGroupRequest"), "v0: lowest", "v1: added RebalanceTimeoutMs; // 21: Version 1 adds RebalanceTimeoutMs.")
	if h := historyOf(t, "4.4", "LeaderAndIsrRequest"); len(h.Versions) != 0 {
		t.Errorf("removed LeaderAndIsrRequest has %d versions of history", len(h.Versions))
	}
}

func TestHistoryTaggingAndNullability(t *testing.T) {
	s := setOf(t, "h", thing(`"validVersions": "0-4"`, fA+
		`,{"name": "B", "type": "int32", "versions": "1+", "taggedVersions": "3+", "tag": 0}`+
		`,{"name": "S", "type": "string", "versions": "0+", "nullableVersions": "0-1"}`+
		`,{"name": "Items", "type": "[]Item", "versions": "0+", "fields": [{"name": "X", "type": "int32", "versions": "4+"}]}`))
	h := History(s.Message("Thing"))
	var got []string
	for _, v := range h.Versions {
		got = append(got, summary(v))
	}
	want := []string{"v0: lowest", "v1: added B", "v2: first-flexible; not-nullable S", "v3: tagged B", "v4: added Items.X"}
	if !slices.Equal(got, want) {
		t.Errorf("history:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
