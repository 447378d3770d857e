package metrics_test

import (
	"fmt"

	"github.com/kwire/kwire/exchange"
	"github.com/kwire/kwire/metrics"
)

// Count two exchange records and read the requests series back from the
// registry, as /metrics serves it.
func Example() {
	m := metrics.New(metrics.Options{})
	lat := int64(2_000_000)
	for range 2 {
		m.Exchange(&exchange.Record{API: "Produce", Version: 9, RequestBytes: 512, ResponseBytes: 96, LatencyNs: &lat,
			ClientSoftwareName: "apache-kafka-java", ClientSoftwareVersion: "4.0.0", Principal: "alice", Broker: "10.0.0.2:9092"})
	}
	fams, _ := m.Registry().Gather()
	for _, f := range fams {
		if f.GetName() != "kwire_requests_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				fmt.Printf("%s=%q ", l.GetName(), l.GetValue())
			}
			fmt.Println(s.GetCounter().GetValue())
		}
	}
	// Output:
	// api="Produce" client_software="apache-kafka-java 4.0.0" principal="alice" version="9" 2
}
