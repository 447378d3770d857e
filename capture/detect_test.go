package capture_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture"
	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
)

// With Detect, a connection on another port is decoded from its first
// byte when its client's first bytes are a Kafka request, however they
// are cut into segments (one byte each, a header with a 600-byte client
// id) and however large the first segment (past the bytes held while
// judging): no byte is lost. The others are counted by what they are.
func TestDecodeFlowsDetect(t *testing.T) {
	set, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	cd := codec.New(set)
	req, _, _ := set.Lookup("ApiVersions")
	resp := set.Response(req.APIKey)
	rs, _ := cd.Encode(resp, 3, codec.ResponseHeaderValue(set.ResponseHeader(), 7), instance.Smallest(resp, 3))
	long := strings.Repeat("c", 600)
	rq, _ := cd.Encode(req, 3, codec.RequestHeaderValue(set.RequestHeader(), req.APIKey, 3, 7, long), instance.Smallest(req, 3))
	md, _, _ := set.Lookup("Metadata")
	body := instance.Smallest(md, 12)
	big, _ := cd.Encode(md, 12, codec.RequestHeaderValue(set.RequestHeader(), md.APIKey, 12, 8, strings.Repeat("b", 6000)), body)
	mdr := set.Response(md.APIKey)
	bigResp, _ := cd.Encode(mdr, 12, codec.ResponseHeaderValue(set.ResponseHeader(), 8), instance.Smallest(mdr, 12))

	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	a := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:19092", 1000, 5000, t0)
	a.Handshake()
	a.Send(true, rq.Bytes, 1) // one byte a segment
	a.Send(false, rs.Bytes, 0)
	a.Close()
	b := capturetest.NewConv(f, "10.0.0.1:50001", "10.0.0.2:29092", 1, 2, t0.Add(time.Second))
	b.Handshake()
	b.Send(true, big.Bytes, 1<<16) // one segment past what is held while judging
	b.Send(false, bigResp.Bytes, 0)
	b.Close()
	h := capturetest.NewConv(f, "10.0.0.1:50002", "10.0.0.3:8080", 1, 2, t0.Add(2*time.Second))
	h.Handshake()
	h.Send(true, []byte("GET / HTTP/1.1\r\n\r\n"), 0)
	h.Close()
	s := capturetest.NewConv(f, "10.0.0.1:50003", "10.0.0.4:25", 1, 2, t0.Add(3*time.Second))
	s.Handshake()
	s.Send(false, []byte("220 mail ESMTP\r\n"), 0) // the server speaks first
	s.Close()
	file, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	r, err := capture.Open(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	_, tot, err := capture.DecodeFlows(r, capture.FlowOptions{
		Flow:   flow.Options{Codec: cd},
		Detect: set, KafkaPorts: []uint16{9092},
		OnOpen: func(c *capture.Conn, at time.Time) { got = append(got, fmt.Sprintf("open %s", c)) },
		OnEvent: func(c *capture.Conn, e flow.Event) {
			switch x := e.(type) {
			case *flow.Exchange:
				got = append(got, fmt.Sprintf("%s %s corr %d req %d resp %d", c, x.API, x.CorrelationID, x.Request.Size, x.Response.Size))
			case *flow.Problem:
				got = append(got, fmt.Sprintf("%s problem %s", c, x))
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"open 10.0.0.1:50000→10.0.0.2:19092",
		fmt.Sprintf("10.0.0.1:50000→10.0.0.2:19092 ApiVersions corr 7 req %d resp %d", len(rq.Bytes), len(rs.Bytes)),
		"open 10.0.0.1:50001→10.0.0.2:29092",
		fmt.Sprintf("10.0.0.1:50001→10.0.0.2:29092 Metadata corr 8 req %d resp %d", len(big.Bytes), len(bigResp.Bytes)),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if tot.Connections != 2 || tot.Ports[19092] != 1 || tot.Ports[29092] != 1 || !tot.Found[19092] || !tot.Found[29092] ||
		tot.NotKafka["HTTP"] != 1 || tot.NotKafka["text"] != 1 || len(tot.NotKafka) != 2 || tot.Exchanges != 2 || tot.Problems != 0 {
		t.Errorf("totals %+v", tot)
	}
}
