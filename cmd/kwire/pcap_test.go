package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
)

var pcapT0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// kafkaFrames encodes the frames of the test conversations with kwire's
// codec.
type kafkaFrames struct {
	set *spec.Set
	cd  *codec.Codec
}

func newKafkaFrames(t *testing.T) *kafkaFrames {
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	return &kafkaFrames{set: set, cd: codec.New(set)}
}

// request encodes a framed request of api name at version v.
func (k *kafkaFrames) request(t *testing.T, name string, v int16, corr int32, body string) []byte {
	t.Helper()
	m := k.set.Message(name + "Request")
	bv, err := codec.FromJSON([]byte(body), m, v)
	if err != nil {
		t.Fatalf("%s v%d: %v", name, v, err)
	}
	h := codec.RequestHeaderValue(k.set.RequestHeader(), m.APIKey, v, corr, "kwire-test")
	tr, err := k.cd.Encode(m, v, h, bv)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Bytes
}

// response encodes a framed response.
func (k *kafkaFrames) response(t *testing.T, name string, v int16, corr int32, body string) []byte {
	t.Helper()
	m := k.set.Message(name + "Response")
	b, err := codec.FromJSON([]byte(body), m, v)
	if err != nil {
		t.Fatalf("%s v%d: %v", name, v, err)
	}
	tr, err := k.cd.Encode(m, v, codec.ResponseHeaderValue(k.set.ResponseHeader(), corr), b)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Bytes
}

// conversation is ApiVersions v3, Metadata v12 (answered with
// UNKNOWN_TOPIC_OR_PARTITION) and Produce v9 with a RecordBatch.
type conversation struct {
	apiReq, apiResp, mdReq, mdResp, prReq, prResp []byte
}

func newConversation(t *testing.T) conversation {
	k := newKafkaFrames(t)
	batch := records.Batch{BaseOffset: 0, Timestamp: 1700000000000, Records: []records.KeyValue{{Key: []byte("k"), Value: []byte("hello")}}}.Bytes()
	return conversation{
		apiReq:  k.request(t, "ApiVersions", 3, 101, `{"clientSoftwareName":"kwire","clientSoftwareVersion":"1.0"}`),
		apiResp: k.response(t, "ApiVersions", 3, 101, `{"errorCode":0,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0}`),
		mdReq:   k.request(t, "Metadata", 12, 102, `{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"missing"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`),
		mdResp: k.response(t, "Metadata", 12, 102, `{"throttleTimeMs":0,"brokers":[{"nodeId":1,"host":"localhost","port":9092,"rack":null}],"clusterId":"c","controllerId":1,`+
			`"topics":[{"errorCode":3,"name":"missing","topicId":"AAAAAAAAAAAAAAAAAAAAAA","isInternal":false,"partitions":[],"topicAuthorizedOperations":-2147483648}]}`),
		prReq: k.request(t, "Produce", 9, 103, `{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[{"name":"t","partitionData":[{"index":0,"records":"`+
			base64.StdEncoding.EncodeToString(batch)+`"}]}]}`),
		prResp: k.response(t, "Produce", 9, 103, `{"responses":[{"name":"t","partitionResponses":[{"index":0,"errorCode":0,"baseOffset":42,"logAppendTimeMs":-1,"logStartOffset":0,"recordErrors":[],"errorMessage":null}]}],"throttleTimeMs":0}`),
	}
}

// writeCapture writes the file's bytes to a temporary file.
func writeCapture(t *testing.T, f *capturetest.File) string {
	t.Helper()
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "c.pcap")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// exchanges writes the three exchanges: requests split in segments of at
// most mss bytes, each response 2 ms after its request's last segment.
func (cv conversation) exchanges(c *capturetest.Conv, mss int) {
	for _, x := range [][2][]byte{{cv.apiReq, cv.apiResp}, {cv.mdReq, cv.mdResp}, {cv.prReq, cv.prResp}} {
		c.Send(true, x[0], mss)
		c.T = c.T.Add(time.Millisecond) // 2 ms after the request's last segment
		c.Send(false, x[1], 0)
	}
}

// exchangeLines returns the output lines that are exchanges, problems or
// notices (those starting with a timestamp), without the timestamp.
func outputLines(out string) []string {
	var ls []string
	ts := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}  `)
	for _, l := range strings.Split(out, "\n") {
		if ts.MatchString(l) {
			ls = append(ls, ts.ReplaceAllString(l, ""))
		}
	}
	return ls
}

func wantOutput(t *testing.T, out string, want ...string) {
	t.Helper()
	got := outputLines(out)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s\nfull output:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), out)
	}
}

func TestPcapExchanges(t *testing.T) {
	cv := newConversation(t)
	conn := "#1 10.0.0.1:50000→10.0.0.2:9092"
	for _, mk := range []func(layers.LinkType) *capturetest.File{capturetest.NewPcap, capturetest.NewPcapng} {
		f := mk(layers.LinkTypeEthernet)
		c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 900000, pcapT0)
		c.Handshake()
		cv.exchanges(c, 20)
		c.Close()
		p := writeCapture(t, f)
		out := mustRun(t, "pcap", p)
		wantOutput(t, out,
			conn+`  ApiVersions(18) v3  corr 101  client "kwire-test"  req `+itoa(len(cv.apiReq))+` B  resp 23 B  2.000 ms`,
			conn+`  Metadata(3) v12  corr 102  client "kwire-test"  req `+itoa(len(cv.mdReq))+` B  resp `+itoa(len(cv.mdResp))+` B  2.000 ms  errors UNKNOWN_TOPIC_OR_PARTITION(3) at MetadataResponse.Topics[0].ErrorCode`,
			conn+`  Produce(0) v9  corr 103  client "kwire-test"  req `+itoa(len(cv.prReq))+` B  resp `+itoa(len(cv.prResp))+` B  2.000 ms`)
		if !strings.Contains(out, "1 connection on port 9092, 3 exchanges, 0 problems") || !strings.Contains(out, "0 not decoded, 0 missing") {
			t.Errorf("summary:\n%s", out)
		}

		// JSON lines: exchanges then the summary.
		out = mustRun(t, "pcap", "--format", "json", "--tree", p)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 4 {
			t.Fatalf("%d JSON lines:\n%s", len(lines), out)
		}
		var x struct {
			Type          string `json:"type"`
			API           string `json:"api"`
			CorrelationID int32  `json:"correlation_id"`
			LatencyNs     int64  `json:"latency_ns"`
			Errors        []struct {
				Code int16  `json:"code"`
				Name string `json:"name"`
			} `json:"errors"`
			Response struct {
				Body json.RawMessage `json:"json"`
			} `json:"response"`
		}
		if err := json.Unmarshal([]byte(lines[1]), &x); err != nil {
			t.Fatal(err)
		}
		if x.Type != "exchange" || x.API != "Metadata" || x.CorrelationID != 102 || x.LatencyNs != 2e6 ||
			len(x.Errors) != 1 || x.Errors[0].Name != "UNKNOWN_TOPIC_OR_PARTITION" || !strings.Contains(string(x.Response.Body), `"errorCode":3`) {
			t.Errorf("exchange JSON %s", lines[1])
		}
		var s struct {
			Type      string `json:"type"`
			Exchanges int    `json:"exchanges"`
			Packets   int    `json:"packets"`
		}
		if err := json.Unmarshal([]byte(lines[3]), &s); err != nil || s.Type != "summary" || s.Exchanges != 3 {
			t.Errorf("summary JSON %s (%v)", lines[3], err)
		}

		// --tree prints the object trees.
		out = mustRun(t, "pcap", "--tree", p)
		if !strings.Contains(out, "ApiVersionsRequest") || !strings.Contains(out, "RecordBatch") || !strings.Contains(out, "correlation_id") {
			t.Errorf("--tree output lacks trees:\n%.2000s", out)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestPcapOutOfOrderRetransmitIPv6Loopback(t *testing.T) {
	cv := newConversation(t)
	f := capturetest.NewPcapng(layers.LinkTypeNull)
	c := capturetest.NewConv(f, "[::1]:41000", "[::1]:19092", 7, 0xffffff00, pcapT0) // the server's numbers wrap
	c.Handshake()
	a := c.Seg(true, cv.apiReq[:10])
	b := c.Seg(true, cv.apiReq[10:30])
	rest := c.Seg(true, cv.apiReq[30:])
	c.Put(b)
	c.Put(a)
	c.Put(a) // retransmission
	end := c.Put(rest)
	c.T = end.Add(3 * time.Millisecond)
	c.Send(false, cv.apiResp[:5], 0)
	c.Send(false, cv.apiResp[5:], 0)
	out := mustRun(t, "pcap", "--port", "19092", writeCapture(t, f))
	wantOutput(t, out, `#1 [::1]:41000→[::1]:19092  ApiVersions(18) v3  corr 101  client "kwire-test"  req `+itoa(len(cv.apiReq))+` B  resp 23 B  4.000 ms`)
	if !strings.Contains(out, "10 retransmitted; 1 segment out of order") {
		t.Errorf("summary:\n%s", out)
	}
}

func TestPcapMidStreamResync(t *testing.T) {
	cv := newConversation(t)
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 5555, 6666, pcapT0)
	// No handshake: the capture starts with the last 17 bytes of some
	// earlier request, then whole exchanges.
	c.Send(true, []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"), 0)
	cv.exchanges(c, 0)
	out := mustRun(t, "pcap", writeCapture(t, f))
	conn := "#1 10.0.0.1:50000→10.0.0.2:9092"
	wantOutput(t, out,
		conn+"  mid-stream: the capture starts inside this connection (no handshake captured); server by its port 9092; searching both directions for the first plausible frame",
		conn+"  resync: c2s at stream offset 0: skipped 17 bytes to a plausible frame at stream offset 17",
		conn+`  ApiVersions(18) v3  corr 101  client "kwire-test"  req `+itoa(len(cv.apiReq))+` B  resp 23 B  2.000 ms`,
		conn+`  Metadata(3) v12  corr 102  client "kwire-test"  req `+itoa(len(cv.mdReq))+` B  resp `+itoa(len(cv.mdResp))+` B  2.000 ms  errors UNKNOWN_TOPIC_OR_PARTITION(3) at MetadataResponse.Topics[0].ErrorCode`,
		conn+`  Produce(0) v9  corr 103  client "kwire-test"  req `+itoa(len(cv.prReq))+` B  resp `+itoa(len(cv.prResp))+` B  2.000 ms`)
}

func TestPcapGapInTheMiddle(t *testing.T) {
	cv := newConversation(t)
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1, 1, pcapT0)
	c.Handshake()
	c.Send(true, cv.apiReq, 0)
	c.Send(false, cv.apiResp, 0)
	c.Send(true, cv.mdReq[:20], 0)
	c.Seg(true, cv.mdReq[20:30]) // lost: never written
	c.Send(true, cv.mdReq[30:], 0)
	c.Send(false, cv.mdResp, 0) // acknowledges the whole request
	c.Send(true, cv.prReq, 0)
	c.Send(false, cv.prResp, 0)
	out := mustExit(t, 1, "pcap", writeCapture(t, f))
	conn := "#1 10.0.0.1:50000→10.0.0.2:9092"
	off := itoa(len(cv.apiReq))
	wantOutput(t, out,
		conn+`  ApiVersions(18) v3  corr 101  client "kwire-test"  req `+itoa(len(cv.apiReq))+` B  resp 23 B  1.000 ms`,
		conn+"  gap: c2s at stream offset "+itoa(len(cv.apiReq)+20)+": 10 bytes missing; the frame at stream offset "+off+" is lost, the stream stays in step",
		// the frame's client id was in the lost bytes
		conn+`  Metadata(3) v12  corr 102  req `+itoa(len(cv.mdReq))+` B  resp `+itoa(len(cv.mdResp))+` B  1.000 ms  errors UNKNOWN_TOPIC_OR_PARTITION(3) at MetadataResponse.Topics[0].ErrorCode  (request did not decode)`,
		conn+`  Produce(0) v9  corr 103  client "kwire-test"  req `+itoa(len(cv.prReq))+` B  resp `+itoa(len(cv.prResp))+` B  1.000 ms`)
	if !strings.Contains(out, "10 missing from the capture") {
		t.Errorf("summary:\n%s", out)
	}
}

// TestPcapTLS is case C19: a TLS alert read as a frame size.
func TestPcapTLS(t *testing.T) {
	f := capturetest.NewPcapng(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1, 1, pcapT0)
	c.Handshake()
	c.Send(true, []byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28}, 0)
	c.Close()
	p := writeCapture(t, f)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	r := kwire(t, "pcap", p)
	runtime.ReadMemStats(&ms1)
	if r.code != 1 || r.stderr != "kwire: "+p+": the conversations have problems (above)\n" {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := ms1.TotalAlloc - ms0.TotalAlloc; n > 64<<20 {
		t.Errorf("allocated %d bytes for a 7-byte stream", n)
	}
	if !strings.Contains(r.stdout, "frame size 352518912") || !strings.Contains(r.stdout, "TLS") {
		t.Errorf("output:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "not Kafka: 1 stream looks like TLS") {
		t.Errorf("summary:\n%s", r.stdout)
	}
	out := mustExit(t, 1, "pcap", "--format", "json", p)
	if !strings.Contains(out, `"kind":"not-kafka"`) || !strings.Contains(out, `"size":352518912`) || !strings.Contains(out, `"protocol":"TLS"`) {
		t.Errorf("JSON:\n%s", out)
	}
}

func TestPcapOtherPortsIgnored(t *testing.T) {
	cv := newConversation(t)
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	web := capturetest.NewConv(f, "10.0.0.1:50001", "10.0.0.3:443", 1, 1, pcapT0)
	web.Handshake()
	web.Send(true, []byte("\x16\x03\x01\x02\x00 a TLS client hello"), 0)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1, 1, pcapT0.Add(time.Second))
	c.Handshake()
	c.Send(true, cv.apiReq, 0)
	c.Send(false, cv.apiResp, 0)
	out := mustRun(t, "pcap", "--port", "9092", writeCapture(t, f))
	if ls := outputLines(out); len(ls) != 1 || !strings.Contains(ls[0], "ApiVersions(18) v3") {
		t.Errorf("lines %q", ls)
	}
	if !strings.Contains(out, "ignored: 4 TCP packets on other ports") {
		t.Errorf("summary:\n%s", out)
	}
}

// Without --port, Kafka is found on any port by the client's first bytes
// (frame.Recognize), decoded, and the port named; the other connections
// are counted by what they are. --port restricts, and says where to look
// when nothing is on its ports.
func TestPcapFindsKafkaOnAnyPort(t *testing.T) {
	cv := newConversation(t)
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	web := capturetest.NewConv(f, "10.0.0.1:50001", "10.0.0.3:443", 1, 1, pcapT0)
	web.Handshake()
	web.Send(true, []byte("\x16\x03\x01\x02\x00 a TLS client hello"), 0)
	web.Close()
	h := capturetest.NewConv(f, "10.0.0.1:50002", "10.0.0.4:8080", 1, 1, pcapT0)
	h.Handshake()
	h.Send(true, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), 0)
	h.Send(false, []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), 0)
	h.Close()
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:19092", 1000, 900000, pcapT0.Add(time.Second))
	c.Handshake()
	cv.exchanges(c, 20) // requests in segments of 20 bytes: judged across segments
	c.Close()
	p := writeCapture(t, f)
	conn := "#3 10.0.0.1:50000→10.0.0.2:19092"
	out := mustRun(t, "pcap", p)
	wantOutput(t, out,
		conn+`  ApiVersions(18) v3  corr 101  client "kwire-test"  req `+itoa(len(cv.apiReq))+` B  resp 23 B  2.000 ms`,
		conn+`  Metadata(3) v12  corr 102  client "kwire-test"  req `+itoa(len(cv.mdReq))+` B  resp `+itoa(len(cv.mdResp))+` B  2.000 ms  errors UNKNOWN_TOPIC_OR_PARTITION(3) at MetadataResponse.Topics[0].ErrorCode`,
		conn+`  Produce(0) v9  corr 103  client "kwire-test"  req `+itoa(len(cv.prReq))+` B  resp `+itoa(len(cv.prResp))+` B  2.000 ms`)
	for _, want := range []string{
		"\npcap: ", " packets; 1 connection on port 19092 (Kafka found by its first bytes), 3 exchanges, 0 problems\n",
		"\nnot Kafka: 1 stream looks like TLS\nnot Kafka: 1 stream looks like HTTP\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ignored:") {
		t.Errorf("nothing is ignored for its port:\n%s", out)
	}
	if !strings.HasSuffix(out, "\nnot Kafka: 1 stream looks like HTTP\nhint: --keylog FILE decrypts TLS with the secrets an SSLKEYLOGFILE holds (with --port PORT for a port other than 9092)\n") {
		t.Errorf("no --keylog hint for the TLS stream:\n%s", out)
	}
	// JSON counts the connection decoded.
	js := mustRun(t, "pcap", "--format", "json", p)
	if !strings.Contains(js, `"connections":1,"exchanges":3,`) || !strings.Contains(js, `"not_kafka":{"HTTP":1,"TLS":1}`) {
		t.Errorf("JSON summary:\n%s", js)
	}
	// --port restricts: the port given decodes, another finds nothing and
	// says where to look.
	if out := mustRun(t, "pcap", "--port", "19092", p); len(outputLines(out)) != 3 {
		t.Errorf("--port 19092:\n%s", out)
	}
	out = mustRun(t, "pcap", "--port", "9092", p)
	if !strings.Contains(out, "0 connections on port 9092") || !strings.HasSuffix(out, "\nhint: no connection on the --port ports; without --port, Kafka is found on any port by its clients' first bytes\n") {
		t.Errorf("--port 9092:\n%s", out)
	}
	// No Kafka at all: the summary says so and how a capture started
	// mid-connection is read.
	f = capturetest.NewPcap(layers.LinkTypeEthernet)
	h = capturetest.NewConv(f, "10.0.0.1:50002", "10.0.0.4:8080", 1, 1, pcapT0)
	h.Handshake()
	h.Send(true, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), 0)
	h.Close()
	out = mustRun(t, "pcap", writeCapture(t, f))
	if !strings.Contains(out, "; no Kafka connection (none on port 9092, and no other connection's first bytes are a Kafka request), 0 exchanges, 0 problems\n") ||
		!strings.HasSuffix(out, "\nhint: no connection began with a Kafka request; for Kafka on a port other than 9092 whose connections started before the capture, give --port PORT\n") {
		t.Errorf("no Kafka:\n%s", out)
	}
}

func TestPcapBadFiles(t *testing.T) {
	cv := newConversation(t)
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1, 1, pcapT0)
	c.Handshake()
	c.Send(true, cv.apiReq, 0)
	c.Send(false, cv.apiResp, 0)
	c.Send(true, cv.mdReq, 0)
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	trunc := filepath.Join(dir, "trunc.pcap")
	os.WriteFile(trunc, b[:len(b)-5], 0o644)
	r := kwire(t, "pcap", trunc)
	if r.code != 1 || !strings.Contains(r.stderr, "trunc.pcap is truncated: packet 6 at file offset") ||
		!strings.Contains(r.stderr, "the file ends inside the packet's") {
		t.Errorf("truncated: exit %d, stderr %s", r.code, r.stderr)
	}
	// What came before is printed.
	if !strings.Contains(r.stdout, "ApiVersions(18) v3") {
		t.Errorf("truncated: stdout\n%s", r.stdout)
	}

	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("these are not packets\n"), 0o644)
	r = kwire(t, "pcap", text)
	if r.code != 1 || !strings.Contains(r.stderr, "notes.txt: file header: not a pcap or pcapng capture") || r.stdout != "" {
		t.Errorf("not a capture: exit %d, stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	r = kwire(t, "pcap", filepath.Join(dir, "absent.pcap"))
	if r.code != 1 {
		t.Errorf("absent file: exit %d", r.code)
	}
	r = kwire(t, "pcap", "--max-frame", "0", trunc)
	if r.code != 2 {
		t.Errorf("--max-frame 0: exit %d", r.code)
	}
}

// --values reaches the trees of `kwire pcap --tree`: the Produce record's
// value "hello" as hex.
func TestPcapTreeHonoursValues(t *testing.T) {
	cv := newConversation(t)
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 900000, pcapT0)
	c.Handshake()
	cv.exchanges(c, 1400)
	c.Close()
	p := writeCapture(t, f)
	if out := mustRun(t, "pcap", "--tree", p); !strings.Contains(out, `"hello"`) {
		t.Fatalf("auto: no \"hello\":\n%s", out)
	}
	out := mustRun(t, "--values", "hex", "pcap", "--tree", p)
	if !strings.Contains(out, "0x68656c6c6f") || strings.Contains(out, `"hello"`) {
		t.Fatalf("--values hex:\n%s", out)
	}
}

// In json the problems are lines of standard output: the error says so.
func TestPcapJSONProblemsWhere(t *testing.T) {
	f := capturetest.NewPcapng(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1, 1, pcapT0)
	c.Handshake()
	c.Send(true, []byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28}, 0)
	c.Close()
	p := writeCapture(t, f)
	r := kwire(t, "pcap", p, "--format", "json")
	if want := "kwire: " + p + `: the conversations have problems (the "problem" lines of the output)` + "\n"; r.code != 1 || r.stderr != want {
		t.Errorf("exit %d, stderr %q; want exit 1, %q", r.code, r.stderr, want)
	}
	if n := strings.Count(r.stdout, `{"type":"problem",`); n != 1 {
		t.Errorf("%d problem lines in:\n%s", n, r.stdout)
	}
}
