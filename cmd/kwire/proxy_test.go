package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// syncBuffer is a bytes.Buffer safe for the proxy's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const proxyMetadataV12 = `{"throttleTimeMs":0,"brokers":[{"nodeId":1,"host":"broker-a.internal","port":9092,"rack":null}],"clusterId":"abc","controllerId":1,"topics":[{"errorCode":3,"name":"missing","topicId":"AAAAAAAAAAAAAAAAAAAAAA","isInternal":false,"partitions":[],"topicAuthorizedOperations":-2147483648}]}`

// frameOf encodes a framed request (request) or response of api at ver.
func frameOf(t *testing.T, c *codec.Codec, api string, request bool, ver int16, corr int32, body string) []byte {
	t.Helper()
	rq, rs, err := c.Set.Lookup(api)
	if err != nil {
		t.Fatal(err)
	}
	m, h := rs, codec.ResponseHeaderValue(c.Set.ResponseHeader(), corr)
	if request {
		m, h = rq, codec.RequestHeaderValue(c.Set.RequestHeader(), rq.APIKey, ver, corr, "cmd-test")
	}
	var b *tree.Tree
	if body != "" {
		if b, err = codec.FromJSON([]byte(body), m, ver); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := c.Encode(m, ver, h, b)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Bytes
}

// fakeKafka answers ApiVersions and Metadata v12 requests with responses
// encoded by kwire's codec, and echoes what is not a Kafka frame.
func fakeKafka(t *testing.T) string {
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(set)
	return testnet.Serve(t, nil, func(conn net.Conn) {
		for {
			fr, err := testnet.ReadFrame(conn, 1<<20)
			if errors.Is(err, testnet.ErrSize) {
				conn.Write(fr) // not Kafka: echo it all
				io.Copy(conn, conn)
				return
			}
			if err != nil {
				return
			}
			tr, err := c.DecodeRequest(fr)
			if err != nil {
				continue
			}
			body := ""
			if tr.Message.APIKey == 3 {
				body = proxyMetadataV12
			}
			conn.Write(frameOf(t, c, tr.Message.BaseName(), false, tr.Version, int32(binary.BigEndian.Uint32(fr[8:])), body))
		}
	})
}

// proxyCommand runs `kwire proxy --listen 127.0.0.1:0 args…` in-process
// (without that --listen when args have one)
// and returns its address and a function that stops it (as SIGINT would)
// and returns its exit code and output.
func proxyCommand(t *testing.T, args ...string) (string, func() result) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	old := proxyContext
	proxyContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	t.Cleanup(func() { cancel(); proxyContext = old })
	return startProxyCommand(t, cancel, args...)
}

var proxyingRE = regexp.MustCompile(`proxying (\S+) to`)

// startProxyCommand starts the command; stop calls interrupt and waits for
// the command to end.
func startProxyCommand(t *testing.T, interrupt func(), args ...string) (string, func() result) {
	t.Helper()
	out, errb := &syncBuffer{}, &syncBuffer{}
	e := &env{stdin: strings.NewReader(""), stdout: out, stderr: errb, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	if !slices.Contains(args, "--listen") {
		args = append([]string{"--listen", "127.0.0.1:0"}, args...)
	}
	go func() { done <- run(append([]string{"proxy"}, args...), e) }()
	for {
		if m := proxyingRE.FindStringSubmatch(errb.String()); m != nil {
			return m[1], func() result {
				interrupt()
				code := await(t, done, "end of kwire proxy after the interrupt")
				return result{code, out.String(), errb.String()}
			}
		}
		select {
		case code := <-done:
			t.Fatalf("kwire proxy exited %d: %s", code, errb.String())
		default:
			time.Sleep(time.Millisecond)
		}
	}
}

// talk sends frames on a new connection to addr, reads one response per
// frame, then closes the connection; it returns the bytes read.
func talk(t *testing.T, addr string, frames ...[]byte) []byte {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var got []byte
	for _, f := range frames {
		if _, err := conn.Write(f); err != nil {
			t.Fatal(err)
		}
		fr, err := testnet.ReadFrame(conn, math.MaxInt32)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fr...)
	}
	conn.(*net.TCPConn).CloseWrite()
	io.Copy(io.Discard, conn)
	return got
}

func proxyCodec(t *testing.T) *codec.Codec {
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	return codec.New(set)
}

func TestProxyTextLines(t *testing.T) {
	up := fakeKafka(t)
	c := proxyCodec(t)
	addr, stop := proxyCommand(t, "--upstream", up)
	req1, req2 := frameOf(t, c, "ApiVersions", true, 3, 7, ""), frameOf(t, c, "Metadata", true, 12, 8, "")
	got := talk(t, addr, req1, req2)
	resp2 := frameOf(t, c, "Metadata", false, 12, 8, proxyMetadataV12)
	resp1 := got[:len(got)-len(resp2)]
	r := stop()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	t.Log("\n" + r.stdout)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, want := range []*regexp.Regexp{
		regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}  #1 127\.0\.0\.1:\d+  opened to ` + regexp.QuoteMeta(up) + `$`),
		regexp.MustCompile(`  #1 127\.0\.0\.1:\d+  ApiVersions\(18\) v3  corr 7  client "cmd-test"  req ` + strconv.Itoa(len(req1)) + ` B  resp ` + strconv.Itoa(len(resp1)) + ` B  \d+\.\d{3} ms$`),
		regexp.MustCompile(`  #1 127\.0\.0\.1:\d+  Metadata\(3\) v12  corr 8  client "cmd-test"  req ` + strconv.Itoa(len(req2)) + ` B  resp ` + strconv.Itoa(len(resp2)) + ` B  \d+\.\d{3} ms  errors UNKNOWN_TOPIC_OR_PARTITION\(3\) at MetadataResponse\.Topics\[0\]\.ErrorCode$`),
		regexp.MustCompile(`  #1 127\.0\.0\.1:\d+  closed: ` + strconv.Itoa(len(req1)+len(req2)) + ` B from the client, ` + strconv.Itoa(len(got)) + ` B from the broker$`),
	} {
		if !want.MatchString(lines[i]) {
			t.Errorf("line %d: %q does not match %s", i, lines[i], want)
		}
	}
}

func TestProxyJSONWithTrees(t *testing.T) {
	up := fakeKafka(t)
	c := proxyCodec(t)
	addr, stop := proxyCommand(t, "--upstream", up, "--format", "json", "--tree")
	req := frameOf(t, c, "Metadata", true, 12, 5, "")
	resp := talk(t, addr, req)
	r := stop()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		types = append(types, m["type"].(string)+"/"+strOf(m["event"]))
		if m["type"] != "exchange" {
			continue
		}
		if m["api"] != "Metadata" || m["api_key"] != 3.0 || m["version"] != 12.0 || m["correlation_id"] != 5.0 || m["client_id"] != "cmd-test" {
			t.Errorf("exchange %v", m)
		}
		if lat, ok := m["latency_ns"].(float64); !ok || lat <= 0 {
			t.Errorf("latency %v", m["latency_ns"])
		}
		rq, rs := m["request"].(map[string]any), m["response"].(map[string]any)
		if rq["size"] != float64(len(req)) || rs["size"] != float64(len(resp)) || rq["stream_offset"] != 0.0 {
			t.Errorf("frames %v %v", rq["size"], rs["size"])
		}
		errs := m["errors"].([]any)
		if len(errs) != 1 || errs[0].(map[string]any)["name"] != "UNKNOWN_TOPIC_OR_PARTITION" {
			t.Errorf("errors %v", errs)
		}
		tr, ok := rs["tree"].(map[string]any)
		if !ok || !strings.Contains(string(mustJSON(t, tr)), `"broker-a.internal"`) {
			t.Errorf("response tree missing")
		}
		if js, ok := rs["json"].(map[string]any); !ok || js["clusterId"] != "abc" {
			t.Errorf("response json %v", rs["json"])
		}
	}
	if strings.Join(types, " ") != "connection/opened exchange/ connection/closed" {
		t.Errorf("lines %v", types)
	}
}

func strOf(v any) string {
	s, _ := v.(string)
	return s
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// C19 through the command: reported with the exact size, forwarded
// unchanged, and other connections are served.
func TestProxyTLSClient(t *testing.T) {
	up := fakeKafka(t)
	c := proxyCodec(t)
	addr, stop := proxyCommand(t, "--upstream", up)
	tls := []byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conn.Write(tls)
	back := make([]byte, len(tls))
	if _, err := io.ReadFull(conn, back); err != nil || !bytes.Equal(back, tls) {
		t.Fatalf("%v %x", err, back)
	}
	talk(t, addr, frameOf(t, c, "ApiVersions", true, 3, 1, ""))
	conn.Close()
	r := stop()
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	t.Log("\n" + r.stdout)
	for _, want := range []string{
		"  #1 127.0.0.1:",
		"not-kafka: c2s at stream offset 0: frame size 352518912 is not a Kafka frame (limit 104857600): these bytes look like TLS, not Kafka; this direction is no longer decoded",
		"not-kafka: s2c at stream offset 0: frame size 352518912",
		"  #2 127.0.0.1:",
		"ApiVersions(18) v3  corr 1",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q", want)
		}
	}
}

func TestProxyFrameOverMaxFrameAndRewrite(t *testing.T) {
	up := fakeKafka(t)
	c := proxyCodec(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	addr, stop := proxyCommand(t, "--upstream", up, "--max-frame", "1000", "--rewrite-advertised", "--broker-ports", fmt.Sprintf("%d-%d", port, port+1))
	big := make([]byte, 4+2000)
	binary.BigEndian.PutUint32(big, 2000)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conn.Write(big)
	conn.Close()
	resp := talk(t, addr, frameOf(t, c, "Metadata", true, 12, 3, ""))
	r := stop()
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	t.Log("\n" + r.stdout)
	if !strings.Contains(r.stdout, "frame-too-large: c2s at stream offset 0: frame size 2000 is over the limit of 1000 bytes") {
		t.Error("no frame-too-large line")
	}
	if !strings.Contains(r.stdout, "1 response rewritten") {
		t.Error("no rewrite")
	}
	if !strings.Contains(r.stdout, fmt.Sprintf("  broker 1 at broker-a.internal:9092: listening on 127.0.0.1:%d\n", port)) {
		t.Error("no line for broker 1's listener")
	}
	m := c.Set.Message("MetadataResponse")
	tr, err := c.DecodeResponse(resp, m, 12)
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ := net.SplitHostPort(addr)
	b := tr.Root().Field("MetadataResponse").Field("Brokers").Elem(0)
	if h, p := b.Field("Host").String(), b.Field("Port").Int(); h != host || p != int64(port) {
		t.Errorf("broker 1 advertised at %s:%d, want %s:%d", h, p, host, port)
	}
}

// A real SIGINT ends the command cleanly (exit 0).
func TestProxySIGINT(t *testing.T) {
	up := fakeKafka(t)
	addr, stop := startProxyCommand(t, func() { syscall.Kill(os.Getpid(), syscall.SIGINT) }, "--upstream", up, "--grace", "0s")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A TLS record header, echoed: the connection is through the proxy.
	conn.Write([]byte{0x16, 3, 1, 0})
	if _, err := io.ReadFull(conn, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	r := stop()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "not-kafka: c2s at stream offset 0") || !strings.Contains(r.stdout, "#1 127.0.0.1:") || !strings.Contains(r.stdout, "closed: 4 B from the client, 4 B from the broker") {
		t.Errorf("output:\n%s", r.stdout)
	}
}

// An address that cannot work is refused at start (exit 2, one line
// naming the flag), not on every connection.
func TestProxyRefusesBadAddressesAtStart(t *testing.T) {
	old := proxyLookup
	proxyLookup = func(_ context.Context, host string) ([]string, error) {
		if host == "broker-a.internal" {
			return []string{"10.0.0.7"}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	t.Cleanup(func() { proxyLookup = old })
	// A malformed address is a usage error (2); a well-formed one whose
	// host does not resolve is a finding (1), as call's unreachable peer.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--upstream", "nohost"}, 2, `kwire: --upstream "nohost": missing port in address (want host:port)`},
		{[]string{"--upstream", "nohost:9092"}, 1, `kwire: --upstream "nohost:9092": host "nohost" does not resolve (no such host)`},
		{[]string{"--upstream", "broker-a.internal:99999"}, 2, `kwire: --upstream "broker-a.internal:99999": port 99999 is out of range (1-65535)`},
		{[]string{"--upstream", "broker-a.internal:9092", "--listen", "nohost:19092"}, 1, `kwire: --listen "nohost:19092": host "nohost" does not resolve (no such host)`},
		{[]string{"--upstream", "broker-a.internal:9092", "--listen", "127.0.0.1"}, 2, `kwire: --listen "127.0.0.1": missing port in address (want host:port)`},
		{[]string{"--upstream", "broker-a.internal:9092", "--rewrite-advertised", "--advertise", "proxy:x"}, 2, `kwire: --advertise "proxy:x": port "x" is not a number`},
		{[]string{"--upstream", "broker-a.internal:9092", "--rewrite-advertised", "--broker-ports", "20005-20001"}, 2, `kwire: --broker-ports: "20005-20001": the first port is after the last (see kwire proxy --help)`},
		{[]string{"--upstream", "broker-a.internal:9092", "--rewrite-advertised", "--broker-ports", "0-3"}, 2, `kwire: --broker-ports: "0-3": ports are 1-65535 (see kwire proxy --help)`},
		{[]string{"--upstream", "http://broker-a.internal:9092"}, 2, `kwire: --upstream "http://broker-a.internal:9092": want host:port, not a URL (broker-a.internal:9092)`},
		{[]string{"--upstream", "broker-a.internal:9092", "--listen", "192.0.2.1:19092"}, 1, `kwire: --listen "192.0.2.1:19092": not an address of this machine`},
		{[]string{"--listen", "127.0.0.1:0"}, 2, `kwire: missing flags: --upstream=HOST:PORT (see kwire proxy --help)`},
	} {
		r := kwire(t, append([]string{"proxy"}, c.args...)...)
		if r.code != c.code || r.stderr != c.want+"\n" || r.stdout != "" {
			t.Errorf("kwire proxy %s: exit %d, stdout %q, stderr %q; want exit %d and %q", strings.Join(c.args, " "), r.code, r.stdout, r.stderr, c.code, c.want)
		}
	}
}

// A --listen port in use is a fact about the machine: exit 1.
func TestProxyListenInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	r := kwire(t, "proxy", "--listen", addr, "--upstream", "10.0.0.7:9092")
	if want := "kwire: --listen \"" + addr + "\": the address is already in use\n"; r.code != 1 || r.stderr != want || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", r.code, r.stdout, r.stderr, want)
	}
}

// --rewrite-advertised says on the start line what it advertises, and,
// listening on every interface, that other machines need --advertise.
func TestProxyStartLineSaysAdvertised(t *testing.T) {
	_, stop := proxyCommand(t, "--listen", "0.0.0.0:0", "--upstream", "127.0.0.1:1", "--rewrite-advertised")
	r := stop()
	m := regexp.MustCompile(`^kwire: proxying (\S+):(\d+) to 127\.0\.0\.1:1 \(Kafka [0-9.]+\), advertising 127\.0\.0\.1:(\d+) \(it listens on every interface: for clients on other machines, give --advertise HOST:PORT\)\n`).FindStringSubmatch(r.stderr)
	if m == nil || m[2] != m[3] {
		t.Errorf("start line: %q", r.stderr)
	}
}

// --max-decode-memory and --max-decode-memory-conn reach the proxy: with
// 1000 bytes of each, the first connection is decoded and one opened
// while it is open is forwarded undecoded, its opened line saying so.
func TestProxyMaxDecodeMemoryFlags(t *testing.T) {
	up := fakeKafka(t)
	c := proxyCodec(t)
	addr, stop := proxyCommand(t, "--upstream", up, "--max-decode-memory", "1000", "--max-decode-memory-conn", "1000")
	first, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	req := frameOf(t, c, "ApiVersions", true, 3, 7, "")
	if _, err := first.Write(req); err != nil {
		t.Fatal(err)
	}
	if _, err := testnet.ReadFrame(first, math.MaxInt32); err != nil {
		t.Fatal(err)
	}
	talk(t, addr, frameOf(t, c, "ApiVersions", true, 3, 8, ""))
	first.Close()
	r := stop()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	t.Log("\n" + r.stdout)
	if !regexp.MustCompile(`  #1 127\.0\.0\.1:\d+  ApiVersions\(18\) v3  corr 7 `).MatchString(r.stdout) {
		t.Error("connection #1 not decoded")
	}
	if !regexp.MustCompile(`  #2 127\.0\.0\.1:\d+  opened to ` + regexp.QuoteMeta(up) + ` \(not decoded: the proxy's decoding memory \(1000 bytes\) is taken by the 1 connections being decoded\)\n`).MatchString(r.stdout) {
		t.Error("connection #2's opened line does not say it is not decoded")
	}
	if strings.Contains(r.stdout, "corr 8") {
		t.Error("connection #2 decoded")
	}
}

func TestProxyMaxDecodeMemoryUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--max-decode-memory-conn", "0"},
		{"--max-decode-memory", "1000", "--max-decode-memory-conn", "1001"},
	} {
		e := &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
		code := run(append([]string{"proxy", "--upstream", "127.0.0.1:9092", "--listen", "127.0.0.1:0"}, args...), e)
		if got, want := e.stderr.(*bytes.Buffer).String(), "kwire: --max-decode-memory-conn must be positive and at most --max-decode-memory\n"; code != 2 || !strings.HasPrefix(got, want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2, %q", args, code, got, want)
		}
	}
}
