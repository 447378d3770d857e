package live

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kwire/kwire/internal/kafkatest"
	"github.com/kwire/kwire/internal/testcert"
	"github.com/kwire/kwire/internal/tlsconf"
)

// secretPassword is a password made for one test run, so that a search of
// the outputs for it finds nothing else.
func secretPassword(t *testing.T, user string) string {
	t.Helper()
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return user + "-pw-" + hex.EncodeToString(b[:])
}

// createSpreadTopics creates topics of one partition per broker, partition
// i's one replica (so its leader) on the i-th broker, and checks in
// Metadata that the leaders are so.
func createSpreadTopics(t *testing.T, c *kafkatest.Cluster, names ...string) {
	t.Helper()
	brokers := c.Brokers()
	var assign []string
	for i, b := range brokers {
		assign = append(assign, fmt.Sprintf(`{"partitionIndex":%d,"brokerIds":[%d]}`, i, b.ID))
	}
	var topics []string
	for _, n := range names {
		topics = append(topics, fmt.Sprintf(`{"name":%q,"numPartitions":-1,"replicationFactor":-1,"assignments":[%s],"configs":[]}`, n, strings.Join(assign, ",")))
	}
	var resp struct {
		Topics []struct {
			Name      string `json:"name"`
			ErrorCode int16  `json:"errorCode"`
		} `json:"topics"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	body := fmt.Sprintf(`{"topics":[%s],"timeoutMs":30000,"validateOnly":false}`, strings.Join(topics, ","))
	if err := callJSON(ctx, c.Bootstrap, "CreateTopics", body, &resp); err != nil {
		t.Fatal(err)
	}
	for _, tp := range resp.Topics {
		if tp.ErrorCode != 0 {
			t.Fatalf("CreateTopics: %+v", resp)
		}
	}
	// Every broker learns the leaders from the metadata log; wait until
	// each partition's leader is its broker in every broker's Metadata.
	var want []string
	for i, b := range brokers {
		want = append(want, fmt.Sprintf("%d:%d", i, b.ID))
	}
	for _, b := range brokers {
		for _, n := range names {
			var got []string
			deadline := time.Now().Add(30 * time.Second)
			for got = partitionLeaders(b.BrokerAddr, n); strings.Join(got, ",") != strings.Join(want, ","); got = partitionLeaders(b.BrokerAddr, n) {
				if time.Now().After(deadline) {
					t.Fatalf("topic %s in broker %d's Metadata: leaders %v, want %v", n, b.ID, got, want)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
}

// partitionLeaders asks addr for topic's Metadata: "partition:leader" in
// partition order (the error when there is one).
func partitionLeaders(addr, topic string) []string {
	var resp struct {
		Topics []struct {
			ErrorCode  int16 `json:"errorCode"`
			Partitions []struct {
				PartitionIndex int32 `json:"partitionIndex"`
				LeaderID       int32 `json:"leaderId"`
			} `json:"partitions"`
		} `json:"topics"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	body := fmt.Sprintf(`{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":%q}],"allowAutoTopicCreation":false,"includeClusterAuthorizedOperations":false,"includeTopicAuthorizedOperations":false}`, topic)
	if err := callJSON(ctx, addr, "Metadata", body, &resp); err != nil {
		return []string{err.Error()}
	}
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 {
		return []string{fmt.Sprintf("Metadata: %+v", resp)}
	}
	ps := make([]string, len(resp.Topics[0].Partitions))
	for _, p := range resp.Topics[0].Partitions {
		if int(p.PartitionIndex) >= len(ps) {
			return []string{fmt.Sprintf("Metadata: %+v", resp)}
		}
		ps[p.PartitionIndex] = fmt.Sprintf("%d:%d", p.PartitionIndex, p.LeaderID)
	}
	return ps
}

// franzSpread produces n records with franz-go to topic's partitions in
// turn (record i to partition i mod partitions) and consumes them back,
// checking each partition's records, in order; opts say how to connect
// (seed brokers, TLS, SASL, dialer).
func franzSpread(t *testing.T, topic string, partitions, n int, opts ...kgo.Opt) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pc, err := kgo.NewClient(append([]kgo.Opt{kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(5 * time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var perr error
	var pmu sync.Mutex
	for i := 0; i < n; i++ {
		wg.Add(1)
		r := &kgo.Record{Key: []byte(recordKey(i)), Value: []byte(recordValue(i)), Partition: int32(i % partitions)}
		pc.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				pmu.Lock()
				perr = err
				pmu.Unlock()
			}
			wg.Done()
		})
	}
	wg.Wait()
	pc.Close()
	if perr != nil {
		t.Fatalf("produce: %v", perr)
	}

	cc, err := kgo.NewClient(append([]kgo.Opt{kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	next := make([]int, partitions) // the next offset expected per partition
	for got := 0; got < n; {
		fs := cc.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d: %v", got, n, err)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch: %v", err) })
		fs.EachRecord(func(r *kgo.Record) {
			p := int(r.Partition)
			i := next[p]*partitions + p
			if p >= partitions || r.Offset != int64(next[p]) || string(r.Key) != recordKey(i) || string(r.Value) != recordValue(i) {
				t.Fatalf("partition %d record at offset %d: key %q, want offset %d key %q", p, r.Offset, r.Key, next[p], recordKey(i))
			}
			next[p]++
			got++
		})
	}
}

// A 3-broker cluster with SSL and SASL_SSL listeners (SASL PLAIN and
// SCRAM-SHA-512), first reached directly and then through `kwire proxy`.
//
// Directly: franz-go produces to and consumes from partitions led by each
// of the three brokers over SSL and over SASL_SSL as a PLAIN and as a
// SCRAM-SHA-512 user; a wrong password is refused; kwire call reaches a
// broker with TLS and SCRAM-SHA-512.
//
// Through the proxy: each broker advertises its SASL_SSL listener at a
// tap (a TLS-terminating forwarder with no kwire code) that hashes the
// plaintext the broker's side of each connection saw. kwire proxy
// terminates TLS from the clients, speaks TLS to the taps and, with
// --rewrite-advertised, gives each broker a port of --broker-ports.
// franz-go (SCRAM-SHA-512) and sarama (PLAIN) produce and consume through
// it, their TLS their own so that they hash the plaintext they sent and
// received on each connection. Each client connection's bytes must equal
// those of one broker-side connection: requests always, responses where
// the proxy rewrote none (else their count is the proxy's). Each
// connection a tap accepts must be a socket of the kwire proxy process,
// and each connection to a broker's SSL or SASL_SSL port must come from a
// tap. kwire call with TLS and SCRAM-SHA-512 reaches the cluster through
// the proxy too. The proxy's output (JSON lines with trees), kwire call's
// and the test's artefacts (KWIRE_ARTIFACTS: the node logs among them) hold
// neither password in any form.
func TestSecureCluster(t *testing.T) {
	kafkatest.Require(t)
	alicePw, bobPw := secretPassword(t, "alice"), secretPassword(t, "bob")
	forms := append(secretForms("alice", alicePw), secretForms("bob", bobPw)...)
	out := kafkatest.ArtifactDir(t)
	if out == "" {
		out = t.TempDir()
	}
	// Registered before the cluster starts, so run after it has stopped
	// and copied its node logs into the artefacts.
	t.Cleanup(func() {
		n := searchSecrets(t, forms, out)
		t.Logf("%d output and artefact files searched for the passwords", n)
	})
	ca := testcert.New(t, "127.0.0.1", "localhost")
	tc, err := tlsconf.Client(ca.CertFile, "", "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	tapCert, tapKey := ca.Leaf("tap")
	tapServer, err := tlsconf.Server(tapCert, tapKey, "")
	if err != nil {
		t.Fatal(err)
	}
	taps := map[int]*secureTap{}
	real := map[string]string{} // advertised SASL_SSL address → the broker's
	c := kafkatest.Start(t, kafkatest.Config{
		Controllers: 1, Brokers: 3, Heap: "320m", CA: ca,
		Listeners:  []string{kafkatest.SSL, kafkatest.SASLSSL},
		PlainUsers: map[string]string{"alice": alicePw},
		ScramUsers: map[string]string{"bob": bobPw},
		AdvertisedAddr: func(id int, listener, addr string) string {
			if listener != kafkatest.SASLSSL {
				return ""
			}
			taps[id] = startSecureTap(t, addr, tapServer, tc)
			real[taps[id].addr] = addr
			return taps[id].addr
		},
	})
	createSpreadTopics(t, c, "secure-ssl", "secure-plain", "secure-scram", "proxied-franz", "proxied-sarama")
	brokers := c.Brokers()
	seeds := func(listener string) kgo.Opt {
		var s []string
		for _, b := range brokers {
			s = append(s, b.Listeners[listener])
		}
		return kgo.SeedBrokers(s...)
	}
	// Direct clients dial the brokers' own SASL_SSL listeners, not the
	// taps they advertise.
	direct := kgo.Dialer(tlsDial(tc, nil, func(addr string) string {
		if r, ok := real[addr]; ok {
			return r
		}
		return addr
	}))
	const n = 3000
	t.Run("direct/ssl", func(t *testing.T) {
		franzSpread(t, "secure-ssl", 3, n, seeds(kafkatest.SSL), kgo.DialTLSConfig(tc.Clone()))
	})
	t.Run("direct/sasl-plain", func(t *testing.T) {
		franzSpread(t, "secure-plain", 3, n, seeds(kafkatest.SASLSSL), direct,
			kgo.SASL(plain.Auth{User: "alice", Pass: alicePw}.AsMechanism()))
	})
	t.Run("direct/sasl-scram-sha-512", func(t *testing.T) {
		franzSpread(t, "secure-scram", 3, n, seeds(kafkatest.SASLSSL), direct,
			kgo.SASL(scram.Auth{User: "bob", Pass: bobPw}.AsSha512Mechanism()))
	})
	t.Run("direct/wrong-password", func(t *testing.T) {
		cl, err := kgo.NewClient(seeds(kafkatest.SASLSSL), direct,
			kgo.SASL(scram.Auth{User: "bob", Pass: alicePw}.AsSha512Mechanism()))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err = cl.Ping(ctx)
		if err == nil || !strings.Contains(err.Error(), "SASL_AUTHENTICATION_FAILED") {
			t.Fatalf("a wrong SCRAM password: %v, want SASL_AUTHENTICATION_FAILED", err)
		}
	})
	scramEnv := []string{"KWIRE_SASL_PASSWORD=" + bobPw}
	callArgs := func(bootstrap string) []string {
		return []string{"call", "--bootstrap", bootstrap, "--tls", "--tls-ca", ca.CertFile,
			"--sasl-mechanism", "SCRAM-SHA-512", "--sasl-user", "bob", "Metadata"}
	}
	// checkCall runs kwire call Metadata at bootstrap and checks that it
	// lists the three brokers at want(node id) and the topics.
	checkCall := func(t *testing.T, name, bootstrap string, want func(id int) string) {
		stdout, stderr, err := kwireRun(t, scramEnv, callArgs(bootstrap)...)
		os.WriteFile(filepath.Join(out, name+".out"), []byte(stdout+stderr), 0o644)
		if err != nil {
			t.Fatalf("kwire call: %v\n%s%s", err, stdout, stderr)
		}
		for _, b := range brokers {
			host, port, _ := net.SplitHostPort(want(b.ID))
			if !strings.Contains(stdout, host) || !strings.Contains(stdout, port) {
				t.Errorf("kwire call Metadata does not list broker %d at %s:\n%s", b.ID, want(b.ID), stdout)
			}
		}
		if !strings.Contains(stdout, "proxied-franz") {
			t.Errorf("kwire call Metadata does not list topic proxied-franz:\n%s", stdout)
		}
	}
	t.Run("direct/kwire-call", func(t *testing.T) {
		checkCall(t, "call-direct", brokers[0].Listeners[kafkatest.SASLSSL], func(id int) string { return c.Node(id).Advertised[kafkatest.SASLSSL] })
	})
	if t.Failed() {
		return
	}

	// Through kwire proxy.
	proxyCert, proxyKey := ca.Leaf("proxy")
	first := freePortRange(t, 10)
	// The service outputs too: metrics scraped by a real Prometheus, the
	// audit log, the Parquet files (service_test.go).
	svcArgs, metricsAddr := serviceArgs(t, out)
	prom := startPrometheus(t, metricsAddr)
	proxy, proxyAddr := runProxy(t, out, append([]string{"--listen", "127.0.0.1:0", "--upstream", brokers[0].Advertised[kafkatest.SASLSSL],
		"--rewrite-advertised", "--broker-ports", fmt.Sprintf("%d-%d", first, first+9),
		"--tls-cert", proxyCert, "--tls-key", proxyKey,
		"--upstream-tls", "--upstream-ca", ca.CertFile, "--upstream-server-name", "localhost",
		"--format", "json", "--tree", "--check"}, svcArgs...)...)
	for _, tp := range taps {
		tp.origin.Store(int64(proxy.Process.Pid))
	}
	// Every connection to a broker's SSL or SASL_SSL port, seen from the
	// broker's end, must come from a tap.
	brokerPorts := map[int]int{}
	for _, b := range brokers {
		brokerPorts[portOf(b.Listeners[kafkatest.SSL])] = b.ID
		brokerPorts[portOf(b.Listeners[kafkatest.SASLSSL])] = b.ID
	}
	var peersMu sync.Mutex
	peers := map[int]int{} // peer port → broker id, established to a TLS listener
	sweep := func() {
		socks, err := sockets()
		if err != nil {
			t.Error(err)
			return
		}
		peersMu.Lock()
		defer peersMu.Unlock()
		for _, s := range socks {
			if id, ok := brokerPorts[s.local]; ok && s.state == "01" && s.remote != 0 {
				peers[s.remote] = id
			}
		}
	}
	stopSweep := make(chan struct{})
	sweepDone := make(chan struct{})
	go func() {
		defer close(sweepDone)
		for {
			sweep()
			select {
			case <-stopSweep:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()

	clientSide := &connLog{clientSide: true}
	var dialed sync.Map
	viaProxy := tlsDial(tc, clientSide, func(addr string) string { dialed.Store(addr, true); return addr })
	const pn = 6000
	t.Run("proxy/franz-go-scram-sha-512", func(t *testing.T) {
		franzSpread(t, "proxied-franz", 3, pn, kgo.SeedBrokers(proxyAddr), kgo.Dialer(viaProxy),
			kgo.SASL(scram.Auth{User: "bob", Pass: bobPw}.AsSha512Mechanism()))
	})
	t.Run("proxy/sarama-plain", func(t *testing.T) {
		cfg := sarama.NewConfig()
		cfg.Version = sarama.V4_0_0_0
		cfg.ClientID = "kwire-live-sarama"
		cfg.Net.Proxy.Enable = true
		cfg.Net.Proxy.Dialer = saramaDialer(viaProxy)
		cfg.Net.SASL.Enable = true
		cfg.Net.SASL.Mechanism = sarama.SASLTypePlaintext
		cfg.Net.SASL.User, cfg.Net.SASL.Password = "alice", alicePw
		saramaSpread(t, proxyAddr, "proxied-sarama", 3, pn, cfg)
	})
	t.Run("proxy/kwire-call", func(t *testing.T) {
		// The brokers' addresses in the response are the proxy's.
		learned := map[int]string{}
		b, _ := os.ReadFile(filepath.Join(out, "proxy.jsonl"))
		for _, l := range bytes.Split(b, []byte("\n")) {
			var pl proxyLine
			if json.Unmarshal(l, &pl) == nil && pl.Event == "learned" && pl.Node != nil && pl.Listen != "" {
				learned[int(*pl.Node)] = pl.Listen
			}
		}
		checkCall(t, "call-proxy", proxyAddr, func(id int) string { return learned[id] })
	})

	// Every client connection has closed; wait for the taps to see both
	// ends too, then stop the proxy.
	var brokerSide []connRec
	deadline := time.Now().Add(20 * time.Second)
	for {
		open, _ := clientSide.snapshot()
		tapOpen := 0
		for _, tp := range taps {
			o, _ := tp.log.snapshot()
			tapOpen += o
		}
		if open == 0 && tapOpen == 0 || time.Now().After(deadline) {
			if open != 0 || tapOpen != 0 {
				t.Errorf("connections still open: %d at the clients, %d at the brokers", open, tapOpen)
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(stopSweep)
	<-sweepDone
	checkPrometheus(t, prom, out, []string{"alice", "bob"}, forms)
	stopProxy(t, proxy)
	checkAudit(t, out, []string{"PLAIN alice", "SCRAM-SHA-512 bob"})
	checkParquet(t, out)

	for _, tp := range taps {
		tp.log.mu.Lock()
		brokerSide = append(brokerSide, tp.log.recs...)
		tp.log.mu.Unlock()
		tp.mu.Lock()
		for _, a := range tp.alien {
			t.Errorf("a broker's tap accepted a connection from %s", a)
		}
		for _, f := range tp.failed {
			t.Errorf("a broker's tap: %s", f)
		}
		peersMu.Lock()
		for p := range peers {
			if tp.out[p] {
				delete(peers, p)
			}
		}
		peersMu.Unlock()
		tp.mu.Unlock()
	}
	for p, id := range peers {
		t.Errorf("broker %d had a TLS connection from port %d, not a tap's", id, p)
	}

	// The proxy's account of each connection.
	b, err := os.ReadFile(filepath.Join(out, "proxy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	closed := map[string]proxyLine{}
	listens := map[string]bool{proxyAddr: true}
	apis := map[string]int{}
	users := map[string]bool{}
	rules := 0
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var pl proxyLine
		if err := json.Unmarshal(l, &pl); err != nil {
			t.Fatalf("kwire proxy printed %q: %v", l, err)
		}
		switch {
		case pl.Type == "connection" && pl.Event == "closed":
			closed[pl.Client] = pl
		case pl.Type == "connection" && pl.Event == "learned":
			if pl.Listen == "" || pl.Node == nil {
				t.Errorf("kwire proxy: %s", l)
			} else {
				listens[pl.Listen] = true
			}
		case pl.Type == "connection" && pl.Event == "failed":
			t.Errorf("kwire proxy: %s", l)
		case pl.Type == "stats_rule":
			rules++
			if string(pl.Findings) != "0" {
				t.Errorf("kwire proxy --check: %s", l)
			}
		case pl.Type == "exchange" && pl.API != nil:
			apis[*pl.API]++
			if len(pl.Findings) > 0 {
				t.Errorf("kwire proxy --check: the clients' request has findings: %s", l)
			}
			if pl.Mechanism != "" {
				users[pl.Mechanism+" "+pl.User] = true
			}
		case pl.Type == "problem" && pl.Kind != "truncated":
			t.Errorf("kwire proxy: %s", l)
		}
	}
	if rules != 8 {
		t.Errorf("kwire proxy --check --stats printed %d stats_rule lines, want 8", rules)
	}
	if len(listens) != 1+len(brokers) {
		t.Errorf("kwire proxy listened on %v, want its listener and one per broker", listens)
	}
	dialed.Range(func(k, _ any) bool {
		if !listens[k.(string)] {
			t.Errorf("a client dialled %s, not one of the proxy's listeners %v", k, listens)
		}
		return true
	})
	if !users["PLAIN alice"] || !users["SCRAM-SHA-512 bob"] {
		t.Errorf("SASL exchanges seen by the proxy name %v, want PLAIN alice and SCRAM-SHA-512 bob", users)
	}
	if apis["Produce"] == 0 || apis["Fetch"] == 0 || apis["SaslAuthenticate"] == 0 {
		t.Errorf("decoded exchanges by api: %v", apis)
	}
	clientSide.mu.Lock()
	clients := clientSide.recs
	clientSide.mu.Unlock()
	hashed, counted := matchConnections(t, clients, brokerSide, closed)
	t.Logf("%d client connections through the proxy, %d at the brokers; broker-to-client bytes identical by SHA-256: %d B, by count (responses rewritten): %d B; exchanges by api: %v",
		len(clients), len(brokerSide), hashed, counted, apis)
}
