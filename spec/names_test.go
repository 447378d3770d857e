package spec

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite names.txt from the embedded releases")

// names.txt is what embeddedNamesText makes of the embedded releases, so
// that the hints it serves say what parsing every release would say.
func TestEmbeddedNames(t *testing.T) {
	sets, err := EmbeddedAll()
	if err != nil {
		t.Fatal(err)
	}
	want := embeddedNamesText(sets)
	if *update {
		if err := os.WriteFile("names.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if namesText != want {
		t.Fatal("names.txt is out of date with the embedded releases: go test ./spec -run TestEmbeddedNames -update")
	}
	if names() == nil {
		t.Fatal("names.txt does not parse or lists other releases than the embedded ones")
	}
}

// The index answers as parsing the release would: for each release and
// name, has is yes exactly when lookup finds it, hasRecord exactly when
// that is an internal topic's record.
func TestNameIndexAgreesWithLookup(t *testing.T) {
	sets, err := EmbeddedAll()
	if err != nil {
		t.Fatal(err)
	}
	ix := names()
	if ix == nil {
		t.Fatal("no index")
	}
	for _, s := range sets {
		for _, name := range []string{"Nope", "Vote", "vote", " Produce ", "VoteRequest", "ListConfigResources", "ListClientMetricsResources",
			"listclientmetricsresourcesresponse", "ShareSnapshotValue", "OffsetCommitValue", "0", "74", "99", "-1", "40000",
			"PartitionRecord", "LeaderChangeMessage", "RemoteLogSegmentMetadataRecord", "ConsumerGroupHeartbeat", "ShareFetch"} {
			m, _, err := s.lookup(name)
			want := indexNo
			if err == nil {
				want = indexYes
			}
			if got := ix.has(s.Release, name); got != want {
				t.Errorf("%s has(%q) = %d, lookup: %v", s.Release, name, got, err)
			}
			want = indexNo
			if err == nil && m != nil && m.Topic != "" {
				want = indexYes
			}
			if got := ix.hasRecord(s.Release, name); got != want {
				t.Errorf("%s hasRecord(%q) = %d, want %d", s.Release, name, got, want)
			}
		}
	}
	if got := ix.has("9.9.9", "Vote"); got != indexUnknown {
		t.Errorf("has of a release the index lacks = %d, want unknown", got)
	}
	var none *nameIndex
	if got := none.has("4.4.0", "Vote"); got != indexUnknown {
		t.Errorf("has without an index = %d, want unknown", got)
	}
}

// NewestEmbeddedMessage, which reads the index, finds what looking in
// every parsed release newest first finds.
func TestNewestEmbeddedMessageAgreesWithEveryRelease(t *testing.T) {
	sets, err := EmbeddedAll()
	if err != nil {
		t.Fatal(err)
	}
	v := func(x int16) *int16 { return &x }
	for _, skip := range []string{"4.4.0", "3.0.2", "3.9.1"} {
		for _, c := range []struct {
			name string
			v    *int16
		}{{"ProduceRequest", v(2)}, {"ProduceRequest", v(13)}, {"produceRequest", nil}, {"ProduceRequest", v(99)},
			{"ControlledShutdownRequest", nil}, {"LeaderAndIsrRequest", v(7)}, {"ShareSnapshotValue", nil},
			{"OffsetCommitValue", v(4)}, {"Nope", nil}, {"VoteRequest", v(2)}, {"ListClientMetricsResourcesRequest", nil}} {
			var wantSet string
			for _, s := range sets {
				if s.Release == skip {
					continue
				}
				m := s.Message(c.name)
				if m != nil && !m.ValidVersions.Empty() && (c.v == nil || m.ValidVersions.Contains(*c.v)) {
					wantSet = s.Release
					break
				}
			}
			s, m := NewestEmbeddedMessage(c.name, c.v, skip)
			got := ""
			if s != nil {
				got = s.Release
				if m != s.Message(c.name) {
					t.Errorf("%s %v skip %s: message is not that of %s", c.name, c.v, skip, got)
				}
			}
			if got != wantSet {
				t.Errorf("NewestEmbeddedMessage(%s, %v, %s) = %q, want %q", c.name, c.v, skip, got, wantSet)
			}
		}
	}
}
