package spec_test

import (
	"strings"
	"testing"

	"github.com/kwire/kwire/spec"
)

// A name that only another embedded release has: the error says which
// api key it is there and what this release names it, or that this
// release lacks it.
func TestLookupNamesOtherRelease(t *testing.T) {
	s44, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	s39, err := spec.Embedded("3.9.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		set        *spec.Set
		name, tail string
	}{
		{s44, "ListClientMetricsResources", "; ListClientMetricsResources is api key 74 in Kafka 4.0.2 (try --kafka 4.0), named ListConfigResources in Kafka 4.4.0"},
		{s44, "listclientmetricsresourcesresponse", "; ListClientMetricsResources is api key 74 in Kafka 4.0.2 (try --kafka 4.0), named ListConfigResources in Kafka 4.4.0"},
		{s39, "ListConfigResources", "; ListConfigResources is api key 74 in Kafka 4.4.0 (try --kafka 4.4), named ListClientMetricsResources in Kafka 3.9.1"},
		{s44, "NoSuchApi", ")"},
	} {
		_, _, err := c.set.Lookup(c.name)
		if err == nil || !strings.HasPrefix(err.Error(), `unknown API or message "`+c.name+`" in Kafka `+c.set.Release) || !strings.HasSuffix(err.Error(), c.tail) {
			t.Errorf("%s in %s: %v", c.name, c.set.Release, err)
		}
	}
}

// A record spec of an internal topic that only some releases' jars hold
// names those releases, not a near name.
func TestLookupOfARecordOtherReleasesHold(t *testing.T) {
	for _, c := range []struct{ release, name, want string }{
		// kafka-share-coordinator was first published for 4.0.
		{"3.9", "ShareSnapshotValue", `unknown API or message "ShareSnapshotValue" in Kafka 3.9.2: ShareSnapshotValue is a coordinator-value record of __share_group_state whose spec is embedded in Kafka 4.0–4.4 only (try --kafka 4.4)`},
	} {
		s, err := spec.Embedded(c.release)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Lookup(c.name); err == nil || err.Error() != c.want {
			t.Errorf("Lookup(%s) = %v\nwant %s", c.name, err, c.want)
		}
	}
	n, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	if m, _, err := n.Lookup("OffsetCommitValue"); err != nil || m.Topic != spec.TopicOffsets {
		t.Errorf("4.4 Lookup(OffsetCommitValue) = %v, %v", m, err)
	}
}
