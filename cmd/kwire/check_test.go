package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"
	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/clientcheck/clientchecktest"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/spec"
)

// checkCases are the planted client faults, encoded with the default
// release's specs.
func checkCases(t *testing.T) []clientchecktest.Case {
	t.Helper()
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := clientchecktest.Cases(set)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// scriptedBroker plays the broker's side of each case, one case per
// connection in the order they are accepted: it reads each request of the
// script (which must be the bytes the client sent) and writes each
// response.
func scriptedBroker(t *testing.T, cases []clientchecktest.Case) string {
	scripts := make(chan []clientchecktest.Step, len(cases))
	for _, c := range cases {
		scripts <- c.Steps
	}
	return testnet.Serve(t, nil, func(conn net.Conn) {
		var steps []clientchecktest.Step
		select {
		case steps = <-scripts:
		default:
			return
		}
		for _, s := range steps {
			if s.Client {
				fr, err := testnet.ReadFrame(conn, 1<<20)
				if err != nil {
					return
				}
				if !bytes.Equal(fr, s.Frame) {
					t.Errorf("the broker got % x, the client sent % x", fr, s.Frame)
				}
			} else if _, err := conn.Write(s.Frame); err != nil {
				return
			}
		}
		io.Copy(io.Discard, conn)
	})
}

// playClient plays the client's side of a case on a new connection to
// addr: it writes each request and reads each response (which must be the
// bytes the broker sent), in the script's order, then closes and waits
// for the other side to close.
func playClient(t *testing.T, addr string, steps []clientchecktest.Step) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, s := range steps {
		if s.Client {
			if _, err := conn.Write(s.Frame); err != nil {
				t.Fatal(err)
			}
		} else if fr, err := testnet.ReadFrame(conn, 1<<20); err != nil {
			t.Fatal(err)
		} else if !bytes.Equal(fr, s.Frame) {
			t.Errorf("the client got % x, the broker sent % x", fr, s.Frame)
		}
	}
	conn.(*net.TCPConn).CloseWrite()
	io.Copy(io.Discard, conn)
}

// checkJSON checks the JSON lines of a --check --stats run over the cases,
// connection i+1 being case i: each case's one finding is on the exchange
// of its correlation id with its rule, path and offsets, no other exchange
// has any, there is no problem line, and the rule counts add up.
func checkJSON(t *testing.T, out string, cases []clientchecktest.Case) {
	t.Helper()
	type finding struct {
		Rule        string `json:"rule"`
		Path        string `json:"path"`
		Offset      int64  `json:"stream_offset"`
		FrameOffset int    `json:"frame_offset"`
		Message     string `json:"message"`
	}
	type line struct {
		Type    string `json:"type"`
		Kind    string `json:"kind"`
		Conn    uint64 `json:"conn"`
		Corr    int32  `json:"correlation_id"`
		Request *struct {
			Offset int64 `json:"stream_offset"`
		} `json:"request"`
		Findings []finding `json:"findings"`
		Message  string    `json:"message"`
	}
	got := map[uint64][]finding{}
	rules := map[string]int64{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var j line
		var probe struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(l), &probe); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if probe.Type == "exchange" {
			if err := json.Unmarshal([]byte(l), &j); err != nil {
				t.Fatalf("%v: %s", err, l)
			}
		}
		switch probe.Type {
		case "problem":
			t.Errorf("problem: %s", l)
		case "exchange":
			if len(j.Findings) == 0 {
				continue
			}
			c := cases[j.Conn-1]
			if j.Corr != c.Corr {
				t.Errorf("%s: findings on correlation id %d: %s", c.Name, j.Corr, l)
			}
			for _, f := range j.Findings {
				if j.Request == nil || f.Offset != j.Request.Offset+int64(f.FrameOffset) {
					t.Errorf("%s: stream offset %d is not the request's plus %d", c.Name, f.Offset, f.FrameOffset)
				}
			}
			got[j.Conn] = append(got[j.Conn], j.Findings...)
		case "stats_rule":
			var r struct {
				Rule     string `json:"rule"`
				Findings int64  `json:"findings"`
			}
			json.Unmarshal([]byte(l), &r)
			rules[r.Rule] = r.Findings
		}
	}
	want := map[string]int64{}
	for i, c := range cases {
		fs := got[uint64(i+1)]
		want[c.Rule.String()]++
		if len(fs) != 1 || fs[0].Rule != c.Rule.String() || fs[0].FrameOffset != c.Offset || fs[0].Path != c.Path {
			t.Errorf("%s: findings %+v; want %s at %d %s", c.Name, fs, c.Rule, c.Offset, c.Path)
		}
	}
	if len(rules) != 8 {
		t.Errorf("stats_rule lines for %d rules, want 8", len(rules))
	}
	for r, n := range rules {
		if n != want[r] {
			t.Errorf("stats_rule %s: %d findings, want %d", r, n, want[r])
		}
	}
}

// kwire proxy --check finds each planted client fault on its request, at
// its offsets and path, and nothing else; it forwards every byte as it
// came; the findings make the exit status 1.
func TestProxyCheckPlantedFaults(t *testing.T) {
	cases := checkCases(t)
	up := scriptedBroker(t, cases)
	addr, stop := proxyCommand(t, "--upstream", up, "--check", "--stats", "--format", "json")
	for _, c := range cases {
		playClient(t, addr, c.Steps)
	}
	r := stop()
	if r.code != 1 || !strings.Contains(r.stderr, fmt.Sprintf("have %d findings", len(cases))) {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	checkJSON(t, r.stdout, cases)
}

// The text output prints each finding on a line of its own under its
// exchange, and --stats counts them per API version, client and rule.
func TestProxyCheckText(t *testing.T) {
	cases := checkCases(t)
	var pick []clientchecktest.Case
	for _, c := range cases {
		if c.Name == "overlong-varint" || c.Name == "correlation-reused" {
			pick = append(pick, c)
		}
	}
	up := scriptedBroker(t, pick)
	addr, stop := proxyCommand(t, "--upstream", up, "--check", "--stats")
	for _, c := range pick {
		playClient(t, addr, c.Steps)
	}
	r := stop()
	if r.code != 1 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	t.Log("\n" + r.stdout)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)  #1 127\.0\.0\.1:\d+  Metadata\(3\) v12  corr 1 .*\n.*  #1 127\.0\.0\.1:\d+  finding: Metadata\(3\) v12 corr 1: overlong-varint at stream offset 18 \(frame offset 18\) MetadataRequest\.Topics\.length: uvarint written in 2 bytes where 1 byte would do$`),
		regexp.MustCompile(`(?m)  #2 127\.0\.0\.1:\d+  finding: Metadata\(3\) v12 corr 7: correlation-reused at stream offset \d+ \(frame offset 8\) RequestHeader\.CorrelationId: correlation id 7 is that of a request still awaiting its response$`),
		regexp.MustCompile(`(?m)^Metadata\(3\) v12 +4 +\d+ +\d+ +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +2$`),
		regexp.MustCompile(`(?m)^overlong-varint +1$`),
		regexp.MustCompile(`(?m)^correlation-reused +1$`),
		regexp.MustCompile(`(?m)^header-version +0$`),
	} {
		if !want.MatchString(r.stdout) {
			t.Errorf("output does not match %s", want)
		}
	}
	if n := strings.Count(r.stdout, "finding:"); n != 2 {
		t.Errorf("%d finding lines", n)
	}
}

// kwire pcap --check finds the same faults in a capture of the same
// conversations, at the same offsets.
func TestPcapCheckPlantedFaults(t *testing.T) {
	cases := checkCases(t)
	f := capturetest.NewPcapng(layers.LinkTypeEthernet)
	at := pcapT0
	for i, c := range cases {
		cv := capturetest.NewConv(f, fmt.Sprintf("10.0.0.1:%d", 50000+i), "10.0.0.2:9092", 1000, 900000, at)
		cv.Handshake()
		for _, s := range c.Steps {
			cv.Send(s.Client, s.Frame, 100)
		}
		cv.Close()
		at = cv.T.Add(time.Second)
	}
	path := writeCapture(t, f)
	r := kwire(t, "pcap", path, "--check", "--stats", "--format", "json")
	if r.code != 1 || !strings.Contains(r.stderr, fmt.Sprintf("have %d findings", len(cases))) {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	checkJSON(t, r.stdout, cases)
	// Without --check: no findings, and the faults that are problems
	// anyway (a CRC, a count, bytes that do not decode) are problems.
	r = kwire(t, "pcap", path, "--format", "json")
	if strings.Contains(r.stdout, `"findings"`) {
		t.Errorf("findings without --check")
	}
	if n := strings.Count(r.stdout, `"type":"problem"`); n != 5 {
		t.Errorf("%d problems without --check, want 5 (two header versions, crc, records count, trailing bytes):\n%s", n, r.stdout)
	}
}
