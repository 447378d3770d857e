package conform

import "slices"

// ReferenceBehaviour is something Apache Kafka itself does on purpose that
// the rules would otherwise report: a probe of API Key at a version in
// [Min, Max] that ends with Outcome (and, for KafkaError, the error Error)
// is reported as Reference, naming Name, and is not a finding. Each is
// documented in docs/conform.md.
type ReferenceBehaviour struct {
	Name     string
	Key      int16
	Min, Max int16
	Outcome  Outcome
	Error    string
	// Kinds are the probe kinds it applies to (all when empty).
	Kinds []string
}

// References are Kafka's own reference behaviours (Kafka 4.x):
//   - produce-v0-2: Kafka 4.0 removed Produce v0-2 (KIP-896) but still
//     announces v0 so that old librdkafka clients that check the range
//     connect; a request at v0-2 is answered by closing the connection.
var References = []ReferenceBehaviour{
	{Name: "produce-v0-2", Key: 0, Min: 0, Max: 2, Outcome: Closed},
}

// reference returns the name of the reference behaviour p matches, "" when
// none does.
func (e *engine) reference(p *Probe) string {
	for _, rb := range e.o.References {
		if rb.Key == p.Key && p.Version >= rb.Min && p.Version <= rb.Max && rb.Outcome == p.Outcome &&
			(rb.Error == "" || rb.Error == p.Error) && (len(rb.Kinds) == 0 || slices.Contains(rb.Kinds, p.Kind)) {
			return rb.Name
		}
	}
	return ""
}
