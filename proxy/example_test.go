package proxy_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/proxy"
	"github.com/kwire/kwire/spec"
)

// readFrame reads one size-prefixed Kafka frame.
func readFrame(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	fr := make([]byte, 4+binary.BigEndian.Uint32(size[:]))
	copy(fr, size[:])
	_, err := io.ReadFull(r, fr[4:])
	return fr, err
}

// A proxy in front of a broker, here an in-process fake that answers one
// ApiVersions request: the client talks to the proxy, the proxy forwards
// every byte and reports the decoded exchange.
func Example() {
	set, err := spec.Embedded("4.4")
	if err != nil {
		panic(err)
	}
	cd := codec.New(set)
	req, resp, _ := set.Lookup("ApiVersions")
	resp = set.Response(req.APIKey)

	// The fake broker: it decodes the request and answers at its version
	// and correlation id.
	broker, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer broker.Close()
	go func() {
		conn, err := broker.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		fr, err := readFrame(conn)
		if err != nil {
			return
		}
		rt, err := cd.DecodeRequest(fr)
		if err != nil {
			return
		}
		corr, _ := rt.Get("RequestHeader.CorrelationId")
		body, _ := codec.FromJSON([]byte(`{"errorCode":0,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0}`), resp, rt.Version)
		out, _ := cd.Encode(resp, rt.Version, codec.ResponseHeaderValue(set.ResponseHeader(), int32(corr.Int())), body)
		conn.Write(out.Bytes)
	}()

	// The proxy, on a free port, keeping the decoded trees.
	events := make(chan proxy.Event, 8)
	p, err := proxy.New(proxy.Options{
		Listen: "127.0.0.1:0", Upstream: broker.Addr().String(), Codec: cd, KeepTrees: true,
		OnEvent: func(e proxy.Event) { events <- e },
	})
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error)
	go func() { served <- p.Serve(ctx) }()

	// A client sends ApiVersions v3 through the proxy and reads the answer.
	client, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		panic(err)
	}
	body, _ := codec.FromJSON([]byte(`{"clientSoftwareName":"example","clientSoftwareVersion":"1.0"}`), req, 3)
	rq, _ := cd.Encode(req, 3, codec.RequestHeaderValue(set.RequestHeader(), req.APIKey, 3, 42, "example-client"), body)
	client.Write(rq.Bytes)
	answer, _ := readFrame(client)
	client.Close()
	fmt.Printf("the client got %d bytes\n", len(answer))

	// What the proxy saw, up to the connection's end.
	for e := range events {
		if e.Kind == proxy.Closed {
			fmt.Printf("closed: %d B from the client, %d B from the broker\n", e.Stats.Read[flow.ClientToServer], e.Stats.Read[flow.ServerToClient])
			break
		}
		if x, ok := e.Flow.(*flow.Exchange); ok {
			max, _ := x.Response.Tree.Get("ApiVersionsResponse.ApiKeys[0].MaxVersion")
			fmt.Printf("%s v%d, correlation id %d, client %q: request %d B, response %d B; the broker serves ApiVersions up to v%d\n",
				x.API, x.Version, x.CorrelationID, x.ClientID, x.Request.Size, x.Response.Size, max.Int())
		}
	}
	stop()
	fmt.Println("Serve returned", <-served)
	// Output:
	// the client got 23 bytes
	// ApiVersions v3, correlation id 42, client "example-client": request 42 B, response 23 B; the broker serves ApiVersions up to v4
	// closed: 42 B from the client, 23 B from the broker
	// Serve returned <nil>
}

// The broker addresses RewriteAdvertised rewrites, and a --broker-ports
// value.
func ExampleAddressFields() {
	for _, f := range proxy.AddressFields() {
		node := f.Node
		if f.ParentNode {
			node += " (of the struct holding it)"
		}
		fmt.Printf("%s: %s\n", f.Struct, node)
	}
	pr, err := proxy.ParsePortRange("19093-19099")
	fmt.Println(pr, err)
	_, err = proxy.ParsePortRange("19099-19093")
	fmt.Println(err)
	// Output:
	// ProduceResponse.NodeEndpoints: NodeId
	// FetchResponse.NodeEndpoints: NodeId
	// MetadataResponse.Brokers: NodeId
	// FindCoordinatorResponse: NodeId
	// FindCoordinatorResponse.Coordinators: NodeId
	// VoteResponse.NodeEndpoints: NodeId
	// BeginQuorumEpochResponse.NodeEndpoints: NodeId
	// EndQuorumEpochResponse.NodeEndpoints: NodeId
	// DescribeQuorumResponse.Nodes.Listeners: NodeId (of the struct holding it)
	// FetchSnapshotResponse.NodeEndpoints: NodeId
	// DescribeClusterResponse.Brokers: BrokerId
	// UpdateRaftVoterResponse.CurrentLeader: LeaderId
	// ShareFetchResponse.NodeEndpoints: NodeId
	// ShareAcknowledgeResponse.NodeEndpoints: NodeId
	// 19093-19099 <nil>
	// "19099-19093": the first port is after the last
}
