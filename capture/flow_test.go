package capture_test

import (
	"bytes"
	"errors"
	"fmt"
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

// Three connections: one with its handshake and an ApiVersions exchange,
// one whose server speaks TLS, and the first one's exchange again captured
// without its handshake. DecodeFlows reports
// each connection's start and events and sums the decoders' counts.
func TestDecodeFlows(t *testing.T) {
	set, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	cd := codec.New(set)
	req, _, _ := set.Lookup("ApiVersions")
	resp := set.Response(req.APIKey)
	rq, _ := cd.Encode(req, 3, codec.RequestHeaderValue(set.RequestHeader(), req.APIKey, 3, 7, "t"), instance.Smallest(req, 3))
	rs, _ := cd.Encode(resp, 3, codec.ResponseHeaderValue(set.ResponseHeader(), 7), instance.Smallest(resp, 3))
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	a := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 5000, t0)
	a.Handshake()
	a.Send(true, rq.Bytes, 10)
	a.Send(false, rs.Bytes, 0)
	a.Close()
	b := capturetest.NewConv(f, "10.0.0.3:50001", "10.0.0.2:9092", 77, 88, t0.Add(time.Second))
	b.Handshake()
	tls := []byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28} // a TLS alert
	b.Send(false, tls, 0)
	b.Close()
	c := capturetest.NewConv(f, "10.0.0.4:50002", "10.0.0.2:9092", 99, 111, t0.Add(2*time.Second))
	c.Send(true, rq.Bytes, 0)
	c.Send(false, rs.Bytes, 0)
	c.Close()
	file, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}

	var got []string
	decode := func(file []byte) (capture.Stats, capture.FlowTotals, error) {
		got = nil
		r, err := capture.Open(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		return capture.DecodeFlows(r, capture.FlowOptions{
			Assembler: capture.Options{Ports: []uint16{9092}},
			Flow:      flow.Options{Codec: cd},
			OnOpen: func(c *capture.Conn, at time.Time) {
				got = append(got, fmt.Sprintf("open %s syn=%v at +%v", c, c.SawSYN, at.Sub(t0)))
			},
			OnEvent: func(c *capture.Conn, e flow.Event) {
				switch x := e.(type) {
				case *flow.Exchange:
					got = append(got, fmt.Sprintf("%s %s v%d corr %d req %d resp %d", c, x.API, x.Version, x.CorrelationID, x.Request.Size, x.Response.Size))
				case *flow.Problem:
					got = append(got, fmt.Sprintf("%s %s %s", c, x.Kind, x.Protocol))
				}
			},
		})
	}
	st, tot, err := decode(file)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"open 10.0.0.1:50000→10.0.0.2:9092 syn=true at +0s",
		"10.0.0.1:50000→10.0.0.2:9092 ApiVersions v3 corr 7 req 19 resp 23",
		"open 10.0.0.3:50001→10.0.0.2:9092 syn=true at +1s",
		"10.0.0.3:50001→10.0.0.2:9092 not-kafka TLS",
		"open 10.0.0.4:50002→10.0.0.2:9092 syn=false at +2s",
		"10.0.0.4:50002→10.0.0.2:9092 ApiVersions v3 corr 7 req 19 resp 23",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events\n%q\nwant\n%q", got, want)
	}
	if st.Connections != 3 || st.Packets != (3+2+1+3)+(3+1+3)+(1+1+3) {
		t.Errorf("stats %+v", st)
	}
	if tot.Exchanges != 2 || tot.Problems != 1 || tot.Bytes != int64(2*(len(rq.Bytes)+len(rs.Bytes))+len(tls)) || tot.Skipped != int64(len(tls)) ||
		tot.Missing != 0 || len(tot.NotKafka) != 1 || tot.NotKafka["TLS"] != 1 {
		t.Errorf("totals %+v", tot)
	}

	// A file cut inside a packet: the packets before are decoded, the
	// connection closed at the end, and the read error returned.
	_, tot, err = decode(file[:len(file)-3])
	var fe *capture.FormatError
	if !errors.As(err, &fe) || !fe.Truncated {
		t.Fatalf("error %v, want a truncated *FormatError", err)
	}
	if len(got) != 6 || tot.Exchanges != 2 {
		t.Errorf("before the cut: %q, %+v", got, tot)
	}
}
