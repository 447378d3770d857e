package spec

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kwire/kwire/spec/bundle"
)

// spanWords lists the spans of the message named name in Kafka 4.4.0 as
// "vN words", grouped as OtherSpans groups them.
func spanWords(t *testing.T, name string) string {
	t.Helper()
	s, err := Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	m := s.Message(name)
	if m == nil {
		t.Fatalf("no %s in 4.4.0", name)
	}
	sp, err := EmbeddedSpans(m)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range sp {
		w := x.Words()
		if n := len(out); n > 0 && strings.HasSuffix(out[n-1], " "+w) {
			// v3-9 style runs keep the text short.
			head, _, _ := strings.Cut(out[n-1], " ")
			lo, _, _ := strings.Cut(strings.TrimPrefix(head, "v"), "-")
			out[n-1] = fmt.Sprintf("v%s-%d %s", lo, x.Version, w)
			continue
		}
		out = append(out, fmt.Sprintf("v%d %s", x.Version, w))
	}
	return strings.Join(out, "; ")
}

// The embedded releases each version of a message is in, checked by hand
// against the spec files' own "Version N …" comments (Produce v10 is
// KIP-951 in 3.7, v12 KIP-890 in 4.0; Vote v1 KIP-853 in 3.9; KIP-896
// removed the lowest versions in 4.0; ShareFetch v0 was KIP-932's early
// access in 3.9 and 4.0).
func TestEmbeddedSpans(t *testing.T) {

	for name, want := range map[string]string{
		"ProduceRequest":             "v0-2 Kafka ≤3.0–3.9 (removed in 4.0); v3-9 Kafka ≤3.0–4.4; v10 Kafka 3.7–4.4; v11 Kafka 3.8–4.4; v12 Kafka 4.0–4.4; v13 Kafka 4.1–4.4",
		"VoteRequest":                "v0 Kafka ≤3.0–4.4; v1 Kafka 3.9–4.4; v2 Kafka 4.0–4.4",
		"LeaderAndIsrRequest":        "v0-5 Kafka ≤3.0–3.9 (removed in 4.0); v6 Kafka 3.2–3.9 (removed in 4.0); v7 Kafka 3.4–3.9 (removed in 4.0)",
		"ShareFetchRequest":          "v0 unstable in Kafka 3.9–4.0 (removed in 4.1); v1 Kafka 4.1–4.4; v2 Kafka 4.2–4.4",
		"ListConfigResourcesRequest": "v0 Kafka 3.7–4.4 (as ListClientMetricsResources in 3.7–4.0); v1 Kafka 4.1–4.4", // api key 74
		"AlterPartitionRequest":      "v0 Kafka ≤3.0–3.9 (as AlterIsr in 3.0–3.1; removed in 4.0); v1 Kafka 3.2–3.9 (removed in 4.0); v2 Kafka 3.3–4.4; v3 Kafka 3.5–4.4",
		// latestVersionUnstable: the first stable release, then the
		// unstable ones; a version never stable says only that.
		"AddPartitionsToTxnResponse":        "v0-3 Kafka ≤3.0–4.4; v4 Kafka 3.6–4.4 (unstable in 3.5); v5 Kafka 3.8–4.4",
		"ConsumerGroupDescribeRequest":      "v0 Kafka 3.8–4.4 (unstable in 3.7); v1 Kafka 4.0–4.4",
		"ConsumerGroupHeartbeatRequest":     "v0 Kafka 3.7–4.4 (unstable in 3.5–3.6); v1 Kafka 4.0–4.4",
		"OffsetCommitRequest":               "v0-1 Kafka ≤3.0–3.9 (removed in 4.0); v2-8 Kafka ≤3.0–4.4; v9 Kafka 3.7–4.4 (unstable in 3.6); v10 Kafka 4.2–4.4 (unstable in 4.1)",
		"OffsetFetchRequest":                "v0 Kafka ≤3.0–3.9 (removed in 4.0); v1-8 Kafka ≤3.0–4.4; v9 Kafka 3.7–4.4; v10 Kafka 4.2–4.4 (unstable in 4.1)",
		"StreamsGroupDescribeRequest":       "v0 Kafka 4.2–4.4 (unstable in 4.1); v1 Kafka 4.4",
		"ShareGroupHeartbeatRequest":        "v0 unstable in Kafka 3.9–4.0 (removed in 4.1); v1 Kafka 4.1–4.4",
		"ReadShareGroupStateSummaryRequest": "v0 Kafka 4.1–4.4 (unstable in 3.9–4.0); v1 Kafka 4.2–4.4",
		"InitProducerIdResponse":            "v0-4 Kafka ≤3.0–4.4; v5 Kafka 3.8–4.4; v6 unstable in Kafka 4.1–4.4",
		"RequestHeader":                     "v0 Kafka ≤3.0–3.9 (removed in 4.0); v1-2 Kafka ≤3.0–4.4",
		"PartitionRecord":                   "v0 Kafka ≤3.0–4.4; v1-2 Kafka 3.7–4.4",
		"StreamsGroupHeartbeatRequest":      "v0 Kafka 4.2–4.4 (unstable in 4.1); v1 Kafka 4.4",
		// Internal topics' records: the releases whose jars carry the
		// topic's specs (the broker jar's group and transaction records
		// up to 3.4 and 3.8, then the coordinators'; the share
		// coordinator's from 4.0; storage from 3.0); 3.x's "data" keys'
		// versions are record types, 4.1 brought coordinator-key specs.
		"OffsetCommitValue":              "v0-3 Kafka ≤3.0–4.4; v4 Kafka 3.4–4.4",
		"GroupMetadataValue":             "v0-3 Kafka ≤3.0–4.4; v4 Kafka 3.4–4.4",
		"TransactionLogValue":            "v0 Kafka ≤3.0–4.4; v1 Kafka 3.4–4.4",
		"OffsetCommitKey":                "v0 Kafka 4.1–4.4",
		"ShareSnapshotValue":             "v0 Kafka ≤4.0–4.4 (4.0: the oldest embedded release with this topic's specs)",
		"RemoteLogSegmentMetadataRecord": "v0 Kafka ≤3.0–4.4",
	} {
		if got := spanWords(t, name); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	s, _ := Embedded("4.4.0")
	sp, _ := EmbeddedSpans(s.Message("ProduceRequest"))
	if !reflect.DeepEqual(sp[0], VersionSpan{Version: 0, First: "3.0.2", Last: "3.9.2", FirstIsOldest: true, Removed: "4.0.2", FirstStable: "3.0.2"}) {
		t.Errorf("ProduceRequest v0: %+v", sp[0])
	}
	if !reflect.DeepEqual(sp[12], VersionSpan{Version: 12, First: "4.0.2", Last: "4.4.0", FirstStable: "4.0.2"}) {
		t.Errorf("ProduceRequest v12: %+v", sp[12])
	}
	sp, _ = EmbeddedSpans(s.Message("ShareFetchRequest"))
	if !reflect.DeepEqual(sp[0], VersionSpan{Version: 0, First: "3.9.1", Last: "4.0.2", Removed: "4.1.2", Unstable: []ReleaseRun{{"3.9.1", "4.0.2"}}}) {
		t.Errorf("ShareFetchRequest v0: %+v", sp[0])
	}
	sp, _ = EmbeddedSpans(s.Message("ListConfigResourcesRequest"))
	if !reflect.DeepEqual(sp[0], VersionSpan{Version: 0, First: "3.7.2", Last: "4.4.0", FirstStable: "3.7.2", Names: []NameRun{{"ListClientMetricsResources", ReleaseRun{"3.7.2", "4.0.2"}}}}) {
		t.Errorf("ListConfigResourcesRequest v0: %+v", sp[0])
	}
	sp, _ = EmbeddedSpans(s.Message("OffsetCommitValue"))
	of := []string{"3.0.2", "3.1.2", "3.2.3", "3.3.2", "3.4.1", "3.5.2", "3.6.2", "3.7.2", "3.8.1", "3.9.1", "3.9.2", "4.0.2", "4.1.2", "4.2.2", "4.3.2", "4.4.0"}
	if len(sp) != 5 || !reflect.DeepEqual(sp[4], VersionSpan{Version: 4, First: "3.4.1", Last: "4.4.0", FirstStable: "3.4.1", Of: of}) {
		t.Errorf("OffsetCommitValue: %+v", sp)
	}
}

// A release is named by its minor unless an older (for a first) or newer
// (for a last) embedded patch of that minor would be meant: 3.9.1 and
// 3.9.2 are both embedded.
func TestReleaseLabel(t *testing.T) {
	for _, c := range []struct {
		r     string
		first bool
		want  string
	}{
		{"3.9.1", true, "3.9"}, {"3.9.2", true, "3.9.2"}, {"3.9.2", false, "3.9"}, {"3.9.1", false, "3.9.1"},
		{"4.0.2", true, "4.0"}, {"4.0.2", false, "4.0"}, {"3.0.2", true, "3.0"}, {"9.9.9", true, "9.9.9"},
	} {
		if got := releaseLabel(c.r, c.first); got != c.want {
			t.Errorf("releaseLabel(%s, %v) = %s, want %s", c.r, c.first, got, c.want)
		}
	}
	if w := (VersionSpan{First: "3.9.2", Last: "3.9.2", Removed: "4.0.2"}).Words(); w != "Kafka 3.9.2 (removed in 4.0)" {
		t.Errorf("Words = %s", w)
	}
	if w := (VersionSpan{First: "3.9.1", Last: "3.9.1", Removed: "3.9.2"}).Words(); w != "Kafka 3.9.1 (removed in 3.9.2)" {
		t.Errorf("Words = %s", w)
	}
	if got, want := SpanLegend(), "Kafka A–B: the embedded releases whose spec has the version, from the first that does not mark it unstable (latestVersionUnstable), by minor (kwire embeds the last patch release of each minor from 3.0 to 4.4); ≤3.0: already in the oldest embedded release, 3.0.2."; got != want {
		t.Errorf("SpanLegend() = %s", got)
	}
}

// A span is a run: no version of any message of any embedded release
// leaves the releases between its First and Last (so First, Last and
// Removed say all), and every version an embedded release has is in its
// message's spans there.
func TestEmbeddedSpansHaveNoGaps(t *testing.T) {
	sets, err := EmbeddedAll()
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]int{}
	for i, r := range bundle.Releases() {
		index[r] = i // newest first
	}
	checked := 0
	for _, s := range sets {
		for _, m := range s.Messages {
			sp, err := EmbeddedSpans(m)
			if err != nil {
				t.Fatal(err)
			}
			for v := m.ValidVersions.Lo; !m.ValidVersions.Empty() && v <= m.ValidVersions.Hi; v++ {
				found := false
				for _, x := range sp {
					found = found || x.Version == v && index[x.First] >= index[s.Release] && index[s.Release] >= index[x.Last]
				}
				if !found {
					t.Errorf("%s %s v%d: not within its spans %+v", s.Release, m.Name, v, sp)
				}
			}
			if s.Release != "4.4.0" {
				continue // the rest once per message, from the newest
			}
			for _, x := range sp {
				next := index[x.Last] - 1 // the release Removed must be
				for i := index[x.Last]; i <= index[x.First]; i++ {
					if x.Of != nil && !slices.Contains(x.Of, sets[i].Release) {
						continue // a release without the topic's record specs
					}
					o := sameMessage(sets[i], m)
					if o == nil || !o.ValidVersions.Contains(x.Version) {
						t.Errorf("%s v%d: %s lacks it, within %s–%s", m.Name, x.Version, sets[i].Release, x.First, x.Last)
					}
				}
				if x.Of != nil {
					if k := slices.Index(x.Of, x.Last); k+1 < len(x.Of) {
						next = index[x.Of[k+1]]
					}
				}
				if x.Removed != "" && index[x.Removed] != next {
					t.Errorf("%s v%d: removed in %s, not the release after %s", m.Name, x.Version, x.Removed, x.Last)
				}
				checked++
			}
		}
	}
	if checked < 700 { // 799 with the specs of 4.4.0's three jars
		t.Errorf("%d spans checked", checked)
	}
}

// The newest embedded release with a request version, found with or
// without the request's name (the name lets releases be passed over by
// reading one file).
func TestNewestEmbeddedWith(t *testing.T) {
	for _, c := range []struct {
		key, v     int16
		name, skip string
		want       string
	}{
		{0, 2, "ProduceRequest", "4.4.0", "3.9.2"},
		{0, 2, "", "4.4.0", "3.9.2"},
		{0, 2, "ProduceRequest", "3.9.2", "3.9.1"},
		{0, 13, "ProduceRequest", "3.0.2", "4.4.0"},
		{78, 0, "ShareFetchRequest", "4.4.0", "4.0.2"},
		{74, 0, "ListConfigResourcesRequest", "4.4.0", "4.3.2"},
		{74, 0, "ListClientMetricsResourcesRequest", "4.4.0", "4.3.2"}, // the name until 4.0: no such file in 4.3.2, which is parsed
		{4, 7, "LeaderAndIsrRequest", "4.4.0", "3.9.2"},
		{4, 6, "LeaderAndIsrRequest", "3.9.2", "3.9.1"},
		{0, 99, "ProduceRequest", "4.4.0", ""},
	} {
		got := ""
		if s := NewestEmbeddedWith(c.key, c.v, c.name, c.skip); s != nil {
			got = s.Release
		}
		if got != c.want {
			t.Errorf("NewestEmbeddedWith(%d, %d, %q, %s) = %q, want %q", c.key, c.v, c.name, c.skip, got, c.want)
		}
	}
	for _, c := range []struct {
		r, name string
		key, v  int16
		want    bool
	}{
		{"3.9.2", "ProduceRequest", 0, 2, true},
		{"4.3.2", "ProduceRequest", 0, 2, false},
		{"4.0.2", "ListConfigResourcesRequest", 74, 0, true}, // no such file: parse
		{"4.4.0", "ProduceRequest", 1, 2, true},              // another api key: parse
		{"4.4.0", "ProduceResponse", 0, 2, true},             // not a request: parse
	} {
		if got := fileMayAccept(c.r, c.name, c.key, c.v); got != c.want {
			t.Errorf("fileMayAccept(%s, %s, %d, %d) = %v", c.r, c.name, c.key, c.v, got)
		}
	}
}

// releasesWords names a run of consecutive embedded releases by minor, and
// releases with gaps between them in full.
func TestReleasesWords(t *testing.T) {
	for _, c := range []struct {
		rs   []string
		want string
	}{
		{[]string{"4.4.0", "4.3.2", "4.2.2", "4.1.2", "4.0.2"}, "4.0–4.4"},
		{[]string{"4.4.0"}, "4.4"},
		{[]string{"3.9.2", "3.9.1"}, "3.9"},
		{[]string{"4.4.0", "3.9.1"}, "4.4.0 and 3.9.1"},
		{[]string{"4.4.0", "4.2.2", "3.0.2"}, "4.4.0, 4.2.2 and 3.0.2"},
	} {
		if got := releasesWords(c.rs); got != c.want {
			t.Errorf("releasesWords(%v) = %q, want %q", c.rs, got, c.want)
		}
	}
}
