package live

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/internal/kafkatest"
	"github.com/kwire/kwire/internal/tlsconf"
)

// TestKeyLog captures on loopback, with Debian's tcpdump, franz-go running
// the same workload against one combined KRaft node twice: over its
// PLAINTEXT listener and over its SSL listener with a key log
// (tls.Config.KeyLogWriter). kwire pcap --keylog decodes the SSL capture
// into the same exchanges, connection by connection, as the plaintext
// one: API, version, correlation id and whether answered. Every exchange
// decodes; every SSL connection has its TLS session found in the key log
// and no problem. Without --keylog the SSL connections are not-kafka
// problems that look like TLS, and no exchange.
//
// The workload is made of requests franz-go issues in a fixed order on
// connections it chooses deterministically: CreateTopics (its controller
// lookup is a Metadata), records produced one at a time with ProduceSync
// to a topic created before the capture, then a Metadata and a sessionless
// Fetch of the records sent to broker 1.
func TestKeyLog(t *testing.T) {
	kafkatest.Require(t)
	tcpdump, err := exec.LookPath("tcpdump")
	if err != nil {
		msg := "no tcpdump: " + err.Error() + " (apt-get install tcpdump)"
		if kafkatest.Required() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	out := kafkatest.ArtifactDir(t)
	if out == "" {
		out = t.TempDir()
	}
	c := kafkatest.Start(t, kafkatest.Config{Heap: "320m", Listeners: []string{kafkatest.SSL}})
	node := c.Brokers()[0]
	plainAddr, sslAddr := node.Listeners[kafkatest.Plaintext], node.Listeners[kafkatest.SSL]
	_, plainPort, _ := net.SplitHostPort(plainAddr)
	_, sslPort, _ := net.SplitHostPort(sslAddr)
	// The topics produced to exist, their leader known, before the
	// capture: the producer's Metadata then finds them at once.
	createSpreadTopics(t, c, "keylog-plain", "keylog-ssl")

	pcap := filepath.Join(out, "keylog.pcap")
	keylog := filepath.Join(out, "keylog.keys")
	stop := startTcpdump(t, tcpdump, pcap, "tcp port "+plainPort+" or tcp port "+sslPort)

	const n = 20
	keyFile, err := os.OpenFile(keylog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	keyLogWorkload(t, "plain", plainAddr, n)
	tc, err := tlsconf.Client(c.CA.CertFile, "", "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	tc.KeyLogWriter = keyFile
	keyLogWorkload(t, "ssl", sslAddr, n, kgo.DialTLSConfig(tc))
	if err := keyFile.Close(); err != nil {
		t.Fatal(err)
	}
	stop()
	noteCapture(t, pcap, plainPort, "")
	noteCapture(t, pcap, sslPort, keylog)

	plain := decodePcap(t, out, "plain", true, pcap, "--port", plainPort)
	ssl := decodePcap(t, out, "ssl-keylog", true, pcap, "--port", sslPort, "--keylog", keylog)
	locked := decodePcap(t, out, "ssl-no-keylog", false, pcap, "--port", sslPort)

	// Plaintext: every exchange decoded and answered, no problem.
	for _, l := range plain.problems {
		t.Errorf("plaintext capture: %s %s", l.Kind, l.Message)
	}
	if len(plain.notices) != 0 {
		t.Errorf("plaintext capture: notices %+v", plain.notices)
	}
	// SSL with the key log: one tls notice per connection naming its
	// session, no problem.
	for _, l := range ssl.problems {
		t.Errorf("SSL capture with --keylog: %s %s", l.Kind, l.Message)
	}
	sessions := map[uint64]bool{}
	for _, l := range ssl.notices {
		if l.Kind != "tls" || !strings.Contains(l.Message, "session client_random=") || sessions[l.Conn] {
			t.Errorf("SSL capture with --keylog: notice %s on #%d: %s", l.Kind, l.Conn, l.Message)
		}
		sessions[l.Conn] = true
	}
	if len(sessions) != len(ssl.conns) {
		t.Errorf("SSL capture with --keylog: %d tls sessions found for %d connections", len(sessions), len(ssl.conns))
	}
	// SSL without the key log: every connection is TLS to kwire, nothing
	// decoded.
	if len(locked.conns) != 0 {
		t.Errorf("SSL capture without --keylog: exchanges decoded: %v", locked.conns)
	}
	tlsConns := map[uint64]bool{}
	for _, l := range locked.problems {
		if l.Kind != "not-kafka" || l.Protocol != "TLS" {
			t.Errorf("SSL capture without --keylog: %s (%s) %s", l.Kind, l.Protocol, l.Message)
		}
		tlsConns[l.Conn] = true
	}
	if len(tlsConns) != len(ssl.conns) || locked.summary.Connections != len(ssl.conns) {
		t.Errorf("SSL capture without --keylog: %d connections of %d look like TLS; %d with --keylog", len(tlsConns), locked.summary.Connections, len(ssl.conns))
	}

	// The same exchanges: per connection, in order; connections compared
	// as a multiset (their order in the capture is the order of their
	// first packets).
	want, got := plain.sequences(), ssl.sequences()
	if !slices.Equal(want, got) {
		t.Errorf("exchanges per connection differ:\nplaintext:\n  %s\nSSL decrypted:\n  %s", strings.Join(want, "\n  "), strings.Join(got, "\n  "))
	}
	total := 0
	for _, ex := range plain.conns {
		total += len(ex)
	}
	apis := plain.apis()
	for _, api := range []string{"ApiVersions", "Metadata", "CreateTopics", "Produce", "Fetch"} {
		if apis[api] == 0 {
			t.Errorf("plaintext capture: no %s exchange (APIs %v)", api, apis)
		}
	}
	if apis["Produce"] != n || apis["Fetch"] != 1 {
		t.Errorf("plaintext capture: %d Produce and %d Fetch exchanges, want %d and 1", apis["Produce"], apis["Fetch"], n)
	}
	if plain.summary.Exchanges != total || ssl.summary.Exchanges != total {
		t.Errorf("summaries: %d and %d exchanges, want %d", plain.summary.Exchanges, ssl.summary.Exchanges, total)
	}
	t.Logf("%d connections, %d exchanges in each run: %v", len(plain.conns), total, apis)

	// The capture as Parquet files: DuckDB counts what --stats counts
	// (service_test.go).
	for _, run := range []struct {
		name string
		args []string
	}{{"plain", []string{"--port", plainPort}}, {"ssl", []string{"--port", sslPort, "--keylog", keylog}}} {
		dir := filepath.Join(out, "parquet-"+run.name)
		if _, stderr, err := kwireRun(t, nil, append([]string{"pcap", "--format", "parquet", "--out", dir, pcap}, run.args...)...); err != nil {
			t.Fatalf("kwire pcap --format parquet: %v\n%s", err, stderr)
		}
		stats, stderr, err := kwireRun(t, nil, append([]string{"pcap", "--stats", "--format", "json", pcap}, run.args...)...)
		if err != nil {
			t.Fatalf("kwire pcap --stats: %v\n%s", err, stderr)
		}
		checkParquetStats(t, run.name+" capture", []byte(stats), dir)
	}
}

// keyLogWorkload runs the capture's workload with a franz-go client whose
// only seed is addr: CreateTopics of keylog-<name>-created, n records
// produced one by one to keylog-<name>, a Metadata of it and one Fetch of
// its partition 0 from offset 0, which must return the n records.
func keyLogWorkload(t *testing.T, name, addr string, n int, opts ...kgo.Opt) {
	t.Helper()
	topic := "keylog-" + name
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr), kgo.ClientID("kwire-keylog"),
		// Without idempotence no InitProducerId, whose first answer
		// depends on whether the broker has its block of producer ids yet.
		kgo.DisableIdempotentWrite(), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	ct := kmsg.NewPtrCreateTopicsRequest()
	ctt := kmsg.NewCreateTopicsRequestTopic()
	ctt.Topic, ctt.NumPartitions, ctt.ReplicationFactor = topic+"-created", 1, 1
	ct.Topics = append(ct.Topics, ctt)
	ct.TimeoutMillis = 30000
	cresp, err := ct.RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("%s: CreateTopics: %v", name, err)
	}
	if len(cresp.Topics) != 1 || cresp.Topics[0].ErrorCode != 0 {
		t.Fatalf("%s: CreateTopics: %+v", name, cresp.Topics)
	}

	for i := 0; i < n; i++ {
		r := &kgo.Record{Key: []byte(recordKey(i)), Value: []byte(recordValue(i)), Partition: 0}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatalf("%s: produce record %d: %v", name, i, err)
		}
	}

	b := cl.Broker(int(node1))
	mreq := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	mreq.Topics = append(mreq.Topics, mt)
	mr, err := b.Request(ctx, mreq)
	if err != nil {
		t.Fatalf("%s: Metadata: %v", name, err)
	}
	meta := mr.(*kmsg.MetadataResponse)
	if len(meta.Topics) != 1 || meta.Topics[0].ErrorCode != 0 {
		t.Fatalf("%s: Metadata: %+v", name, meta.Topics)
	}

	freq := kmsg.NewPtrFetchRequest()
	freq.ReplicaID, freq.MaxWaitMillis, freq.MinBytes, freq.MaxBytes = -1, 500, 1, 1<<20
	freq.SessionEpoch = -1
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic, ft.TopicID = topic, meta.Topics[0].TopicID
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.Partition, fp.FetchOffset, fp.PartitionMaxBytes = 0, 0, 1<<20
	fp.CurrentLeaderEpoch, fp.LogStartOffset = -1, -1
	ft.Partitions = append(ft.Partitions, fp)
	freq.Topics = append(freq.Topics, ft)
	fr, err := b.Request(ctx, freq)
	if err != nil {
		t.Fatalf("%s: Fetch: %v", name, err)
	}
	fetch := fr.(*kmsg.FetchResponse)
	if fetch.ErrorCode != 0 || len(fetch.Topics) != 1 || len(fetch.Topics[0].Partitions) != 1 {
		t.Fatalf("%s: Fetch: error %d, %+v", name, fetch.ErrorCode, fetch.Topics)
	}
	p := fetch.Topics[0].Partitions[0]
	if p.ErrorCode != 0 || p.HighWatermark != int64(n) {
		t.Fatalf("%s: Fetch: partition error %d, high watermark %d, want %d", name, p.ErrorCode, p.HighWatermark, n)
	}
	records := 0
	for rest := p.RecordBatches; len(rest) > 0; {
		var rb kmsg.RecordBatch
		if err := rb.ReadFrom(rest); err != nil {
			t.Fatalf("%s: Fetch: record batch: %v", name, err)
		}
		records += int(rb.NumRecords)
		rest = rest[12+int(rb.Length):]
	}
	if records != n {
		t.Fatalf("%s: Fetch returned %d records, want %d", name, records, n)
	}
}

// node1 is the node id of kafkatest's combined node.
const node1 = 1

// startTcpdump starts tcpdump -i lo -U -w file filter, waits until it says
// it is listening, and returns the function that stops it (SIGINT, so
// that it ends the file cleanly) and waits for it to exit. Without the
// right to capture the test is skipped, or fails when
// KWIRE_KAFKA_REQUIRED=1.
func startTcpdump(t *testing.T, bin, file, filter string) (stop func()) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-i", "lo", "-U", "-w", file}, strings.Fields(filter)...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	said := make(chan string, 1)
	go func() {
		var all strings.Builder
		sc := bufio.NewScanner(stderr)
		listening := false
		for sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			if !listening && strings.Contains(sc.Text(), "listening on") {
				listening = true
				said <- ""
			}
		}
		done <- cmd.Wait()
		said <- "exited: " + all.String()
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		// SIGINT ends tcpdump without reading what the kernel still
		// holds for it: first wait until the file (written packet by
		// packet, -U) has not grown for a second.
		last, still := int64(-1), 0
		for deadline := time.Now().Add(15 * time.Second); still < 5 && time.Now().Before(deadline); {
			time.Sleep(200 * time.Millisecond)
			fi, err := os.Stat(file)
			if err == nil && fi.Size() == last {
				still++
			} else if err == nil {
				last, still = fi.Size(), 0
			}
		}
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-done:
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Errorf("tcpdump: %v", err)
			}
			// It ends with its counts: none may be dropped.
			if s := <-said; !regexp.MustCompile(`(?m)^0 packets dropped by kernel$`).MatchString(s) {
				t.Errorf("tcpdump dropped packets:\n%s", s)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill() // the tcpdump started here, by its pid
			t.Errorf("tcpdump did not end within 10s of SIGINT")
		}
	}
	t.Cleanup(stop)
	select {
	case s := <-said:
		if s != "" { // it ended before listening
			<-done
			msg := "tcpdump ended before capturing (no permission?): " + s
			stopped = true
			if kafkatest.Required() {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("tcpdump did not say it is listening within 20s")
	}
	return stop
}

type pcapLine struct {
	Type          string `json:"type"`
	Kind          string `json:"kind"`
	Conn          uint64 `json:"conn"`
	API           string `json:"api"`
	Version       int    `json:"version"`
	CorrelationID int32  `json:"correlation_id"`
	ClientID      string `json:"client_id"`
	NoResponse    bool   `json:"no_response"`
	Request       *struct {
		Error *string `json:"error"`
	} `json:"request"`
	Response *struct {
		Error *string `json:"error"`
	} `json:"response"`
	Errors []struct {
		Name string `json:"name"`
		Path string `json:"path"`
	} `json:"errors"`
	Protocol    string `json:"protocol"`
	Message     string `json:"message"`
	Connections int    `json:"connections"`
	Exchanges   int    `json:"exchanges"`
}

type pcapRun struct {
	conns             map[uint64][]pcapLine // exchanges by connection
	problems, notices []pcapLine
	summary           pcapLine
}

// sequences returns each connection's exchanges as one line
// ("ApiVersions v4 corr 0 answered, …"), sorted.
func (r *pcapRun) sequences() []string {
	var s []string
	for _, ex := range r.conns {
		var parts []string
		for _, e := range ex {
			answered := "answered"
			if e.NoResponse || e.Response == nil {
				answered = "no response"
			}
			for _, er := range e.Errors {
				answered += " " + er.Name + " at " + er.Path
			}
			parts = append(parts, fmt.Sprintf("%s v%d corr %d client %q %s", e.API, e.Version, e.CorrelationID, e.ClientID, answered))
		}
		s = append(s, strings.Join(parts, ", "))
	}
	slices.Sort(s)
	return s
}

// apis counts the exchanges by API name.
func (r *pcapRun) apis() map[string]int {
	m := map[string]int{}
	for _, ex := range r.conns {
		for _, e := range ex {
			m[e.API]++
		}
	}
	return m
}

// decodePcap runs kwire pcap --format json with args, keeps its output in
// out/keylog-<name>.json, and parses it; ok says whether kwire must exit
// with status 0. Every exchange must have decoded both ways.
func decodePcap(t *testing.T, out, name string, ok bool, args ...string) *pcapRun {
	t.Helper()
	stdout, stderr, err := kwireRun(t, nil, append([]string{"pcap", "--format", "json"}, args...)...)
	os.WriteFile(filepath.Join(out, "keylog-"+name+".json"), []byte(stdout+stderr), 0o644)
	var ee *exec.ExitError
	if (ok && err != nil) || (err != nil && !errors.As(err, &ee)) {
		t.Fatalf("kwire pcap %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	if ok && stderr != "" {
		t.Errorf("kwire pcap %s: stderr: %s", strings.Join(args, " "), stderr)
	}
	r := &pcapRun{conns: map[uint64][]pcapLine{}}
	summaries := 0
	for _, line := range bytes.Split([]byte(strings.TrimSpace(stdout)), []byte("\n")) {
		var l pcapLine
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("kwire pcap %s: %v: %s", name, err, line)
		}
		switch l.Type {
		case "exchange":
			if l.Request == nil || l.Request.Error != nil || (l.Response != nil && l.Response.Error != nil) {
				t.Errorf("kwire pcap %s: exchange not decoded: %s", name, line)
			}
			r.conns[l.Conn] = append(r.conns[l.Conn], l)
		case "problem":
			r.problems = append(r.problems, l)
		case "notice":
			r.notices = append(r.notices, l)
		case "summary":
			r.summary = l
			summaries++
		default:
			t.Errorf("kwire pcap %s: line of type %q: %s", name, l.Type, line)
		}
	}
	if summaries != 1 {
		t.Fatalf("kwire pcap %s: %d summaries:\n%s", name, summaries, stdout)
	}
	return r
}
