package exchange_test

import (
	"os"
	"time"

	"github.com/kwire/kwire/exchange"
	"github.com/kwire/kwire/flow"
)

// An exchange that flow decoded becomes one audit line: the Tracker
// carries the SASL principal of the connection's SaslAuthenticate to the
// Produce after it.
func Example() {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	frame := func(at time.Time, size int) *flow.Frame {
		return &flow.Frame{Start: at, End: at, Size: size}
	}
	var tr exchange.Tracker
	tr.Record(&flow.Exchange{API: "SaslAuthenticate", APIKey: 36, Version: 2, CorrelationID: 3,
		Mechanism: "SCRAM-SHA-512", User: "alice", Request: frame(t0, 80), Response: frame(t0, 60)}, 1, "10.0.0.1:5555", "10.0.0.2:9092")
	r := tr.Record(&flow.Exchange{API: "Produce", APIKey: 0, Version: 9, CorrelationID: 4, ClientID: "app-1",
		ClientSoftwareName: "apache-kafka-java", ClientSoftwareVersion: "4.0.0",
		Topics:  []flow.TopicPartitions{{Topic: "orders", Partitions: []int32{0, 2}}},
		Errors:  []flow.ErrorCode{{Code: 6, Name: "NOT_LEADER_OR_FOLLOWER", Path: "ProduceResponse.Responses[0].PartitionResponses[1].ErrorCode"}},
		Request: frame(t0, 512), Response: frame(t0.Add(2*time.Millisecond), 96)}, 1, "10.0.0.1:5555", "10.0.0.2:9092")
	a, _ := exchange.OpenAudit("-", os.Stdout, exchange.AuditOptions{})
	a.Write(r)
	a.Close()
	// Output:
	// {"time":"2026-01-02T03:04:05Z","conn":1,"client":"10.0.0.1:5555","broker":"10.0.0.2:9092","api":"Produce","api_key":0,"version":9,"correlation_id":4,"client_id":"app-1","client_software_name":"apache-kafka-java","client_software_version":"4.0.0","sasl_mechanism":"SCRAM-SHA-512","sasl_principal":"alice","sasl_token":false,"topics":[{"name":"orders","partitions":[0,2]}],"errors":[{"code":6,"name":"NOT_LEADER_OR_FOLLOWER","path":"ProduceResponse.Responses[0].PartitionResponses[1].ErrorCode"}],"request_bytes":512,"response_bytes":96,"latency_ns":2000000,"no_response":false,"no_response_expected":false,"decoded_with":""}
}
