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
