package capture_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture"
	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/report"
	"github.com/kwire/kwire/spec"
)

// Read a capture and print its Kafka exchanges: the assembler turns the
// packets into each connection's two byte streams, and a flow decoder per
// connection turns those into exchanges (DecodeFlows does both; an
// Assembler alone gives the streams to any other decoder).
func Example() {
	set, err := spec.Embedded("4.4")
	if err != nil {
		panic(err)
	}
	cd := codec.New(set)

	// A small capture, built here: one connection to port 9092 with its
	// handshake, the smallest ApiVersions v3 request (25 bytes, cut in
	// segments of 20) and response, and its close: 9 packets.
	req, _, _ := set.Lookup("ApiVersions")
	resp := set.Response(req.APIKey)
	rq, _ := cd.Encode(req, 3, codec.RequestHeaderValue(set.RequestHeader(), req.APIKey, 3, 7, "example"), instance.Smallest(req, 3))
	rs, _ := cd.Encode(resp, 3, codec.ResponseHeaderValue(set.ResponseHeader(), 7), instance.Smallest(resp, 3))
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 5000, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	c.Handshake()
	c.Send(true, rq.Bytes, 20)
	c.T = c.T.Add(time.Millisecond) // packets are 1 ms apart: the response comes 2 ms after the request
	c.Send(false, rs.Bytes, 0)
	c.Close()
	file, err := f.Bytes()
	if err != nil {
		panic(err)
	}

	// Read it back: DecodeFlows reassembles each connection on port 9092
	// and decodes its two streams with a flow.Conn.
	r, err := capture.Open(bytes.NewReader(file))
	if err != nil {
		panic(err)
	}
	st, totals, err := capture.DecodeFlows(r, capture.FlowOptions{
		Assembler: capture.Options{Ports: []uint16{9092}},
		Flow:      flow.Options{Codec: cd},
		OnEvent: func(c *capture.Conn, e flow.Event) {
			switch x := e.(type) {
			case *flow.Exchange:
				fmt.Println(report.ExchangeLine(c.String(), x))
			case *flow.Problem:
				fmt.Println(report.ProblemLine(c.String(), x))
			}
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d packets, %d connection, %d exchange, %d bytes\n", r.Format(), st.Packets, st.Connections, totals.Exchanges, totals.Bytes)
	// Output:
	// 10.0.0.1:50000→10.0.0.2:9092  ApiVersions(18) v3  corr 7  client "example"  req 25 B  resp 23 B  2.000 ms
	// pcap: 9 packets, 1 connection, 1 exchange, 48 bytes
}
