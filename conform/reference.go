package conform

import (
	"slices"

	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/tree"
)

// ReferenceBehaviour is something Apache Kafka itself does on purpose that
// the rules would otherwise report. A probe of API Key at a version in
// [Min, Max] (of one of Kinds, all when empty) matches when it ends with
// Outcome (and, for KafkaError, the error Error) — for Outcome Found, when
// every finding has the rule Rule and Explains (when not nil) accepts the
// exchange. A matching probe is reported as Reference, naming Name, and is
// not a finding. A reference of Outcome Closed also covers the versions
// [Min, Max] in the ApiVersions answer when the release no longer defines
// them (Kafka announces them for old clients and closes on them). Each is
// documented in docs/conform.md.
type ReferenceBehaviour struct {
	Name     string
	Key      int16
	Min, Max int16
	Kinds    []string
	Outcome  Outcome
	Error    string
	Rule     string
	Explains func(req, resp *tree.Tree) bool
}

// References are Kafka's own reference behaviours (Kafka 4.x):
//   - produce-v0-2: Kafka 4.0 removed Produce v0-2 (KIP-896) but still
//     announces v0 so that old librdkafka clients connect; a request at
//     v0-2 is answered by closing the connection.
//   - metadata-ids-first: a Metadata v12+ request that names any topic by
//     id is answered for the topics named by id only; topics named by name
//     alone (a zero id) in the same request are left out.
var References = []ReferenceBehaviour{
	{Name: "produce-v0-2", Key: 0, Min: 0, Max: 2, Outcome: Closed},
	{Name: "metadata-ids-first", Key: 3, Min: 12, Max: 32767, Outcome: Found, Rule: "unanswered", Explains: idsFirst},
}

// idsFirst reports whether req names a topic by id and resp answers every
// topic req names by id: what Kafka answers to a Metadata request that
// mixes ids and names.
func idsFirst(req, resp *tree.Tree) bool {
	asked, _ := topicsOf(req)
	byID := slices.DeleteFunc(slices.Clone(asked), func(a topicAsked) bool { return a.id == [16]byte{} })
	if len(byID) == 0 || len(byID) == len(asked) {
		return false
	}
	return len(unansweredOf(byID, req, resp, render.NewIndex(resp))) == 0
}

// reference returns the name of the reference behaviour p matches, "" when
// none does.
func (e *engine) reference(p *Probe, req, resp *tree.Tree) string {
	for _, rb := range e.o.References {
		if rb.Key != p.Key || p.Version < rb.Min || p.Version > rb.Max || rb.Outcome != p.Outcome ||
			rb.Error != "" && rb.Error != p.Error || len(rb.Kinds) > 0 && !slices.Contains(rb.Kinds, p.Kind) {
			continue
		}
		if rb.Outcome == Found {
			if slices.ContainsFunc(p.Findings, func(f Finding) bool { return f.Rule != rb.Rule }) ||
				rb.Explains != nil && (req == nil || resp == nil || !rb.Explains(req, resp)) {
				continue
			}
		}
		return rb.Name
	}
	return ""
}

// announcedOnPurpose returns the reference behaviour that explains api key
// k announced from version lo though the release defines it from validLo
// only: one of Outcome Closed covering [lo, validLo-1].
func announcedOnPurpose(refs []ReferenceBehaviour, k, lo, validLo int16) string {
	for _, rb := range refs {
		if rb.Key == k && rb.Outcome == Closed && rb.Min <= lo && rb.Max >= validLo-1 {
			return rb.Name
		}
	}
	return ""
}
