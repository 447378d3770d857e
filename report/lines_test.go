package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kwire/kwire/capture"
	"github.com/kwire/kwire/proxy"
)

func TestSummary(t *testing.T) {
	st := capture.Stats{Packets: 12, Connections: 1, Retransmitted: 3, OutOfOrder: 1, OtherPorts: 4, Undecodable: 1, FirstUndecodable: "packet 9: not IPv4"}
	tot := capture.FlowTotals{Exchanges: 1, Problems: 2, Bytes: 358, Skipped: 24, Missing: 10, NotKafka: map[string]int{"TLS": 1, "SSH": 2, "HTTP": 2, "AMQP": 1}}
	var b bytes.Buffer
	if err := WriteSummary(&b, capture.FormatPcapng, st, tot, []uint16{9092, 19092}); err != nil {
		t.Fatal(err)
	}
	want := "\npcapng: 12 packets; 1 connection on port 9092,19092, 1 exchange, 2 problems\n" +
		"bytes: 358 reassembled, 24 not decoded, 10 missing from the capture, 3 retransmitted; 1 segment out of order\n" +
		"not Kafka: 1 stream looks like TLS\n" +
		"not Kafka: 2 streams look like HTTP\n" +
		"not Kafka: 1 stream looks like AMQP\n" +
		"not Kafka: 2 streams look like SSH\n" +
		"ignored: 4 TCP packets on other ports, 0 not TCP, 1 that do not decode (first: packet 9: not IPv4)\n"
	if b.String() != want {
		t.Errorf("WriteSummary:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	WriteSummary(&b, capture.FormatPcap, capture.Stats{}, capture.FlowTotals{}, []uint16{9092})
	if want := "\npcap: 0 packets; 0 connections on port 9092, 0 exchanges, 0 problems\nbytes: 0 reassembled, 0 not decoded, 0 missing from the capture, 0 retransmitted; 0 segments out of order\n"; b.String() != want {
		t.Errorf("empty summary:\n%q\nwant\n%q", b.String(), want)
	}

	// --port given, nothing on it, connections elsewhere: the hint.
	b.Reset()
	WriteSummary(&b, capture.FormatPcap, capture.Stats{Packets: 5, OtherPorts: 5}, capture.FlowTotals{}, []uint16{9092})
	if want := "\npcap: 5 packets; 0 connections on port 9092, 0 exchanges, 0 problems\nbytes: 0 reassembled, 0 not decoded, 0 missing from the capture, 0 retransmitted; 0 segments out of order\n" +
		"ignored: 5 TCP packets on other ports, 0 not TCP, 0 that do not decode\n" +
		"hint: no connection on the --port ports; without --port, Kafka is found on any port by its clients' first bytes\n"; b.String() != want {
		t.Errorf("nothing on --port:\n%s\nwant\n%s", b.String(), want)
	}
	// Without --port: the ports where Kafka was found, or why none.
	for _, c := range []struct {
		tot  capture.FlowTotals
		want string
	}{
		{capture.FlowTotals{Connections: 1, Exchanges: 3, Ports: map[uint16]int{19092: 1}, Found: map[uint16]bool{19092: true}},
			"1 connection on port 19092 (Kafka found by its first bytes), 3 exchanges"},
		{capture.FlowTotals{Connections: 3, Exchanges: 3, Ports: map[uint16]int{9092: 2, 19092: 1}, Found: map[uint16]bool{19092: true}},
			"3 connections on ports 9092 (2), 19092 (1, Kafka found by its first bytes), 3 exchanges"},
		{capture.FlowTotals{Connections: 1, Exchanges: 3, Ports: map[uint16]int{9092: 1}},
			"1 connection on port 9092, 3 exchanges"},
		{capture.FlowTotals{NotKafka: map[string]int{"HTTP": 1}},
			"no Kafka connection (none on port 9092, and no other connection's first bytes are a Kafka request), 0 exchanges"},
	} {
		b.Reset()
		WriteSummary(&b, capture.FormatPcap, capture.Stats{Packets: 9, Connections: 2}, c.tot, nil)
		if !strings.HasPrefix(b.String(), "\npcap: 9 packets; "+c.want+", 0 problems\n") {
			t.Errorf("without --port:\n%s\nwant first line …%s", b.String(), c.want)
		}
		if hint := strings.Contains(b.String(), "hint: no connection began with a Kafka request"); hint != (c.tot.Connections == 0) {
			t.Errorf("without --port, hint %v:\n%s", hint, b.String())
		}
	}

	j, _ := json.Marshal(NewSummary(capture.FormatPcap, st, capture.FlowTotals{Connections: 1, Exchanges: 1, Bytes: 5, NotKafka: map[string]int{}}, errors.New("cut")))
	if want := `{"type":"summary","format":"pcap","packets":12,"not_tcp":0,"undecodable":1,"other_ports":4,"connections":1,"exchanges":1,"problems":0,"notices":0,"bytes":5,"bytes_not_decoded":0,"bytes_missing":0,"bytes_retransmitted":3,"segments_out_of_order":1,"not_kafka":{},"error":"cut"}`; string(j) != want {
		t.Errorf("summary JSON\n%s\nwant\n%s", j, want)
	}
}

func TestConnectionLines(t *testing.T) {
	st := &proxy.ConnStats{Read: [2]int64{53, 101}, Written: [2]int64{53, 99}}
	for _, c := range []struct {
		e        proxy.Event
		text, js string
	}{
		{proxy.Event{Kind: proxy.Opened, Conn: 1, Client: "127.0.0.1:53422", Upstream: "127.0.0.1:9092", Time: t0},
			"2026-01-02 03:04:05.000100  #1 c  opened to 127.0.0.1:9092",
			`{"type":"connection","event":"opened","time":"2026-01-02T03:04:05.0001Z","conn":1,"client":"127.0.0.1:53422","server":"127.0.0.1:9092","error":null}`},
		{proxy.Event{Kind: proxy.Opened, Conn: 5, Client: "127.0.0.1:53430", Upstream: "b2:9092", Time: t0, Broker: &proxy.Broker{Node: 2, Addr: "b2:9092", Listen: "127.0.0.1:20002"}},
			"2026-01-02 03:04:05.000100  #1 c  opened to broker 2 at b2:9092",
			`{"type":"connection","event":"opened","time":"2026-01-02T03:04:05.0001Z","conn":5,"client":"127.0.0.1:53430","server":"b2:9092","node":2,"listen":"127.0.0.1:20002","error":null}`},
		{proxy.Event{Kind: proxy.Opened, Conn: 9, Client: "c", Upstream: "b:9092", Time: t0, Err: &proxy.NotDecodedError{Limit: 4 << 30, Decoding: 64}},
			"2026-01-02 03:04:05.000100  #1 c  opened to b:9092 (not decoded: the proxy's decoding memory (4294967296 bytes) is taken by the 64 connections being decoded)",
			`{"type":"connection","event":"opened","time":"2026-01-02T03:04:05.0001Z","conn":9,"client":"c","server":"b:9092","error":"not decoded: the proxy's decoding memory (4294967296 bytes) is taken by the 64 connections being decoded"}`},
		{proxy.Event{Kind: proxy.Failed, Conn: 2, Client: "c", Upstream: "b:9092", Time: t0, Err: errors.New("connection refused")},
			"2026-01-02 03:04:05.000100  #1 c  failed: connection refused",
			`{"type":"connection","event":"failed","time":"2026-01-02T03:04:05.0001Z","conn":2,"client":"c","server":"b:9092","error":"connection refused"}`},
		{proxy.Event{Kind: proxy.Closed, Conn: 1, Client: "c", Upstream: "b", Time: t0, Stats: st},
			"2026-01-02 03:04:05.000100  #1 c  closed: 53 B from the client, 101 B from the broker",
			`{"type":"connection","event":"closed","time":"2026-01-02T03:04:05.0001Z","conn":1,"client":"c","server":"b","bytes_read":[53,101],"bytes_written":[53,99],"bytes_not_decoded":[0,0],"error":null}`},
		{proxy.Event{Kind: proxy.Closed, Conn: 1, Client: "c", Upstream: "b", Time: t0, Err: errors.New("reset"),
			Stats: &proxy.ConnStats{Read: [2]int64{10, 20}, Undecoded: [2]int64{0, 7}, Rewritten: 2}},
			"2026-01-02 03:04:05.000100  #1 c  closed: 10 B from the client, 20 B from the broker, 7 B not decoded (decoder behind), 2 responses rewritten (reset)",
			`{"type":"connection","event":"closed","time":"2026-01-02T03:04:05.0001Z","conn":1,"client":"c","server":"b","bytes_read":[10,20],"bytes_written":[0,0],"bytes_not_decoded":[0,7],"responses_rewritten":2,"error":"reset"}`},
		{proxy.Event{Kind: proxy.Closed, Conn: 1, Client: "c", Upstream: "b", Time: t0, Err: &proxy.BrokerClosedError{Unanswered: true, Hint: " try --upstream-tls"},
			Stats: &proxy.ConnStats{Read: [2]int64{38, 0}, Written: [2]int64{38, 0}, Rewritten: 1}},
			"2026-01-02 03:04:05.000100  #1 c  closed: 38 B from the client, 0 B from the broker, 1 response rewritten (the broker closed without answering (a TLS listener? try --upstream-tls))",
			`{"type":"connection","event":"closed","time":"2026-01-02T03:04:05.0001Z","conn":1,"client":"c","server":"b","bytes_read":[38,0],"bytes_written":[38,0],"bytes_not_decoded":[0,0],"responses_rewritten":1,"error":"the broker closed without answering (a TLS listener? try --upstream-tls)"}`},
		{proxy.Event{Kind: proxy.Learned, Conn: 1, Client: "c", Upstream: "b2:9092", Time: t0, Broker: &proxy.Broker{Node: 2, Addr: "b2:9092", Listen: "127.0.0.1:20002"}},
			"2026-01-02 03:04:05.000100  #1 c  broker 2 at b2:9092: listening on 127.0.0.1:20002",
			`{"type":"connection","event":"learned","time":"2026-01-02T03:04:05.0001Z","conn":1,"client":"c","server":"b2:9092","node":2,"listen":"127.0.0.1:20002","error":null}`},
		{proxy.Event{Kind: proxy.Learned, Conn: 3, Client: "c", Upstream: "b2b:9092", Time: t0, Broker: &proxy.Broker{Node: 2, Addr: "b2b:9092", Listen: "127.0.0.1:20002", Moved: true, Previous: "b2:9092"}},
			"2026-01-02 03:04:05.000100  #1 c  broker 2 moved from b2:9092 to b2b:9092: listening on 127.0.0.1:20002",
			`{"type":"connection","event":"learned","time":"2026-01-02T03:04:05.0001Z","conn":3,"client":"c","server":"b2b:9092","node":2,"listen":"127.0.0.1:20002","previous":"b2:9092","error":null}`},
		{proxy.Event{Kind: proxy.Learned, Conn: 1, Client: "c", Upstream: "b3:9092", Time: t0, Broker: &proxy.Broker{Node: 3, Addr: "b3:9092"}, Err: errors.New("no port left in 20001-20002 (2 taken by brokers); advertised as the bootstrap address 127.0.0.1:19092")},
			"2026-01-02 03:04:05.000100  #1 c  broker 3 at b3:9092: no listener: no port left in 20001-20002 (2 taken by brokers); advertised as the bootstrap address 127.0.0.1:19092",
			`{"type":"connection","event":"learned","time":"2026-01-02T03:04:05.0001Z","conn":1,"client":"c","server":"b3:9092","node":3,"error":"no port left in 20001-20002 (2 taken by brokers); advertised as the bootstrap address 127.0.0.1:19092"}`},
	} {
		if got := ConnectionLine("#1 c", c.e); got != c.text {
			t.Errorf("ConnectionLine =\n%s\nwant\n%s", got, c.text)
		}
		if j, _ := json.Marshal(NewConnection(c.e)); string(j) != c.js {
			t.Errorf("NewConnection =\n%s\nwant\n%s", j, c.js)
		}
	}
	if got := ConnectionLine("#1 c", proxy.Event{Kind: proxy.Flow}); got != "" {
		t.Errorf("ConnectionLine of a flow event = %q", got)
	}
}

// WriteProxyEvent writes a connection's event as ConnectionLine (text) or
// NewConnection (JSON), one line each, named by connection and client;
// an event with nothing to show writes nothing.
func TestWriteProxyEvent(t *testing.T) {
	e := proxy.Event{Kind: proxy.Learned, Conn: 4, Client: "127.0.0.1:5000", Upstream: "b2:9092", Time: t0, Broker: &proxy.Broker{Node: 2, Addr: "b2:9092", Listen: "127.0.0.1:20002"}}
	var b bytes.Buffer
	if err := WriteProxyEvent(&b, e, EventOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := "2026-01-02 03:04:05.000100  #4 127.0.0.1:5000  broker 2 at b2:9092: listening on 127.0.0.1:20002\n"; b.String() != want {
		t.Errorf("text %q, want %q", b.String(), want)
	}
	b.Reset()
	WriteProxyEvent(&b, e, EventOptions{JSON: true})
	if want := `{"type":"connection","event":"learned","time":"2026-01-02T03:04:05.0001Z","conn":4,"client":"127.0.0.1:5000","server":"b2:9092","node":2,"listen":"127.0.0.1:20002","error":null}` + "\n"; b.String() != want {
		t.Errorf("JSON %q, want %q", b.String(), want)
	}
	b.Reset()
	for _, o := range []EventOptions{{}, {JSON: true}} {
		if WriteProxyEvent(&b, proxy.Event{Kind: proxy.Flow}, o); b.Len() != 0 {
			t.Errorf("a flow event without a flow: %q", b.String())
		}
	}
}
