package metrics_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kwire/kwire/exchange"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/metrics"
	"github.com/kwire/kwire/proxy"
)

// BenchmarkServicePerExchange is what kwire proxy --metrics --audit FILE
// adds to each exchange decoded: the record (exchange.Tracker), the
// series (Metrics.Proxy) and the audit line (Audit.Write, to a file);
// metrics alone and audit alone beside it. Its ns/op times the exchanges
// of a MB is the CPU the outputs add per MB of that traffic.
func BenchmarkServicePerExchange(b *testing.B) {
	t0 := time.Now()
	x := &flow.Exchange{API: "Produce", APIKey: 0, Version: 9, CorrelationID: 4, ClientID: "app-1",
		ClientSoftwareName: "apache-kafka-java", ClientSoftwareVersion: "4.0.0",
		Topics:  []flow.TopicPartitions{{Topic: "orders", Partitions: []int32{0, 2}}},
		Errors:  []flow.ErrorCode{{Code: 6, Name: "NOT_LEADER_OR_FOLLOWER", Path: "ProduceResponse.Responses[0].PartitionResponses[1].ErrorCode"}},
		Request: &flow.Frame{Start: t0, End: t0, Size: 512}, Response: &flow.Frame{Start: t0, End: t0.Add(time.Millisecond), Size: 96}}
	e := proxy.Event{Kind: proxy.Flow, Conn: 1, Client: "10.0.0.1:5555", Upstream: "10.0.0.2:9092", Time: t0, Flow: x}
	for _, k := range []struct {
		name           string
		metrics, audit bool
	}{{"metrics+audit", true, true}, {"metrics", true, false}, {"audit", false, true}} {
		b.Run(k.name, func(b *testing.B) {
			var tr exchange.Tracker
			m := metrics.New(metrics.Options{Topics: true})
			a, err := exchange.OpenAudit(filepath.Join(b.TempDir(), "audit.log"), nil, exchange.AuditOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				r := tr.Proxy(e)
				if k.metrics {
					m.Proxy(e, r)
				}
				if k.audit {
					a.Write(r)
				}
			}
		})
	}
}
