package traffic_test

import (
	"bytes"
	"fmt"
	"os"

	"github.com/kwire/kwire/capture"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/traffic"
	"github.com/kwire/kwire/traffic/traffictest"
)

// A capture's exchanges go through a Watcher: it keeps those of the
// filters, and checks the clients against Kafka 4.4.
func Example() {
	b, _ := traffictest.Clients()
	cr, _ := capture.Open(bytes.NewReader(b))
	set, _ := spec.Embedded("4.4")
	w, err := traffic.Setup(set, traffic.Settings{APIs: []string{"Produce"}, Upgrade: "4.4"})
	if err != nil {
		fmt.Println(err)
		return
	}
	capture.DecodeFlows(cr, capture.FlowOptions{
		Assembler: capture.Options{Ports: []uint16{9092}},
		Flow:      flow.Options{Codec: codec.New(set), KeepTrees: w.NeedsTrees(), Fallback: flow.EmbeddedFallbacks(set)},
		OnEvent: func(c *capture.Conn, e flow.Event) {
			if x, ok := e.(*flow.Exchange); ok && w.Keep(traffic.Conn{ID: uint64(c.ID), Client: c.Client.String()}, e) {
				fmt.Printf("#%d %s v%d %q\n", c.ID, x.API, x.Version, x.ClientID)
			}
		},
	})
	w.WriteUpgrade(os.Stdout, true)
	// Output:
	// #1 Produce v2 "legacy-app"
	// #1 Produce v2 "legacy-app"
	// #2 Produce v9 "billing"
	// {"type":"upgrade","client":"10.0.0.1","client_id":"legacy-app","software_name":"librdkafka","software_version":"1.9.2","api":"Produce","version":2,"count":2,"accepted_versions":"3-13"}
}
