package main

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/exchange"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/spec"
)

var metricsRE = regexp.MustCompile(`metrics on http://(\S+)/metrics`)

// kwire proxy with --metrics, --audit and --parquet: the series count the
// exchanges while it runs; a real SIGTERM while a client is connected, and
// a request in the grace period after it, lose no audit line and no
// Parquet row: each output has one per exchange that the proxy printed.
func TestProxyServiceOutputsLoseNothingOnSIGTERM(t *testing.T) {
	up := fakeKafka(t)
	dir := t.TempDir()
	audit, pq := filepath.Join(dir, "audit.log"), filepath.Join(dir, "pq")
	out, errb := &syncBuffer{}, &syncBuffer{}
	e := &env{stdin: strings.NewReader(""), stdout: out, stderr: errb, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"proxy", "--listen", "127.0.0.1:0", "--upstream", up, "--format", "json", "--grace", "20s",
			"--metrics", "127.0.0.1:0", "--metrics-topics", "--audit", audit, "--parquet", pq}, e)
	}()
	var addr, murl string
	for addr == "" {
		if m := proxyingRE.FindStringSubmatch(errb.String()); m != nil {
			addr = m[1]
			murl = "http://" + metricsRE.FindStringSubmatch(errb.String())[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("kwire proxy exited %d: %s", code, errb.String())
		case <-time.After(time.Millisecond):
		}
	}
	set, _ := spec.Embedded("")
	c := codec.New(set)
	md := func(corr int32) []byte {
		return frameOf(t, c, "Metadata", true, 12, corr, `{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"orders"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`)
	}
	ask := func(conn net.Conn, corr int32) {
		if _, err := conn.Write(md(corr)); err != nil {
			t.Fatal(err)
		}
		if _, err := testnet.ReadFrame(conn, math.MaxInt32); err != nil {
			t.Fatal(err)
		}
	}
	// One connection asks and closes; one stays open across the SIGTERM.
	talk(t, addr, md(1), md(2), md(3))
	open, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	for corr := int32(10); corr < 15; corr++ {
		ask(open, corr)
	}
	// The series count the 8 requests and responses, and the topic, once
	// the decoder has seen the last response (it is forwarded first).
	wants := []string{`kwire_requests_total{api="Metadata",client_software="",principal="",version="12"} 8`,
		`kwire_responses_total{api="Metadata",client_software="",principal="",version="12"} 8`,
		`kwire_response_latency_seconds_count{api="Metadata"} 8`, `kwire_topic_requests_total{topic="orders"} 8`, "kwire_connections_open 1"}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		body, missing := get(t, murl+"/metrics"), ""
		for _, want := range wants {
			if !strings.Contains(body, want) {
				missing = want
			}
		}
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in\n%s", missing, body)
		}
	}
	if h := get(t, murl+"/healthz"); h != "ok\n" {
		t.Errorf("/healthz %q", h)
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	// In the grace period /readyz says no (once the signal is handled:
	// polled, not slept on, so that a loaded machine does not fail it) and
	// the open connection goes on.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		resp, err := http.Get(murl + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusServiceUnavailable {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz in the grace period: %v %v", resp, err)
		}
	}
	ask(open, 15)
	open.Close()
	if code := await(t, done, "end of kwire proxy after SIGTERM"); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}

	// The exchanges the proxy printed.
	var printed []int32
	for _, l := range strings.Split(out.String(), "\n") {
		var x struct {
			Type string `json:"type"`
			Corr int32  `json:"correlation_id"`
		}
		if json.Unmarshal([]byte(l), &x) == nil && x.Type == "exchange" {
			printed = append(printed, x.Corr)
		}
	}
	if len(printed) != 9 {
		t.Fatalf("%d exchanges printed:\n%s", len(printed), out.String())
	}
	f, err := os.Open(audit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []exchange.Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r exchange.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		lines = append(lines, r)
	}
	files, _ := filepath.Glob(filepath.Join(pq, "*.parquet"))
	var rows []exchange.Record
	for _, f := range files {
		rs, err := parquet.ReadFile[exchange.Record](f)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rs...)
	}
	for name, got := range map[string][]exchange.Record{"audit": lines, "parquet": rows} {
		if len(got) != len(printed) {
			t.Errorf("%s: %d records, %d exchanges printed", name, len(got), len(printed))
			continue
		}
		seen := map[int32]bool{}
		for _, r := range got {
			seen[r.CorrelationID] = true
			if r.API != "Metadata" || r.Version != 12 || r.Broker != up || len(r.Topics) != 1 || r.Topics[0].Name != "orders" || r.LatencyNs == nil {
				t.Errorf("%s: %+v", name, r)
			}
		}
		for _, corr := range printed {
			if !seen[corr] {
				t.Errorf("%s: no record of correlation id %d", name, corr)
			}
		}
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// --audit - writes the audit lines to standard output among the proxy's,
// whole; --metrics that is no HOST:PORT is a usage error, one in use a
// finding.
func TestProxyAuditToStdout(t *testing.T) {
	up := fakeKafka(t)
	set, _ := spec.Embedded("")
	c := codec.New(set)
	var frames [][]byte
	for corr := int32(1); corr <= 20; corr++ {
		frames = append(frames, frameOf(t, c, "Metadata", true, 12, corr, `{"topics":[],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`))
	}
	addr, stop := proxyCommand(t, "--upstream", up, "--format", "json", "--audit", "-")
	talk(t, addr, frames...)
	talk(t, addr, frames...)
	r := stop()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var exchanges, audits int
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var x struct {
			Type  string `json:"type"`
			Token *bool  `json:"sasl_token"`
		}
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatalf("a line that is not JSON: %q", l)
		}
		switch {
		case x.Type == "exchange":
			exchanges++
		case x.Type == "" && x.Token != nil:
			audits++
		}
	}
	if exchanges != 40 || audits != 40 {
		t.Errorf("%d exchange lines, %d audit lines:\n%s", exchanges, audits, r.stdout)
	}
	if r := kwire(t, "proxy", "--listen", "127.0.0.1:0", "--upstream", up, "--metrics", "9464"); r.code != 2 || !strings.Contains(r.stderr, `--metrics "9464"`) {
		t.Errorf("--metrics 9464: exit %d, %s", r.code, r.stderr)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if r := kwire(t, "proxy", "--listen", "127.0.0.1:0", "--upstream", up, "--metrics", busy.Addr().String()); r.code != 1 || !strings.Contains(r.stderr, "address already in use") {
		t.Errorf("--metrics in use: exit %d, %s", r.code, r.stderr)
	}
}
