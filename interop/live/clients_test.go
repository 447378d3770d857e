package live

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/internal/kafkatest"
)

// hashedConn counts and hashes what one side of a connection wrote and
// read, as that side saw it.
type hashedConn struct {
	net.Conn
	mu          sync.Mutex
	wrote, read hash.Hash
	nw, nr      int64
	closed      bool
	log         *connLog
}

func (h *hashedConn) Write(p []byte) (int, error) {
	n, err := h.Conn.Write(p)
	h.mu.Lock()
	h.wrote.Write(p[:n])
	h.nw += int64(n)
	h.mu.Unlock()
	return n, err
}

func (h *hashedConn) Read(p []byte) (int, error) {
	n, err := h.Conn.Read(p)
	h.mu.Lock()
	h.read.Write(p[:n])
	h.nr += int64(n)
	h.mu.Unlock()
	return n, err
}

// Close half-closes the connection and, in the background, reads what is
// still on its way until the other end closes too (at most 10 s), so that
// the hash covers every byte that reached this side, read by the client or
// not (a consumer closing with a fetch in flight), then closes.
func (h *hashedConn) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	h.mu.Unlock()
	tc, ok := h.Conn.(halfCloser)
	if !ok {
		err := h.Conn.Close()
		h.log.done(h)
		return err
	}
	tc.CloseWrite()
	go func() {
		tc.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 32<<10)
		for {
			if _, err := h.Read(buf); err != nil {
				break
			}
		}
		tc.Close()
		h.log.done(h)
	}()
	return nil
}

// halfCloser is a connection that can close its writing side alone: a
// *net.TCPConn, or a *tls.Conn (close_notify).
type halfCloser interface {
	net.Conn
	CloseWrite() error
}

// summary is "<bytes c2s>:<sha256 c2s>/<bytes s2c>:<sha256 s2c>" of the
// connection, with c2s what the client sent.
func (h *hashedConn) summary(clientSide bool) string {
	w := fmt.Sprintf("%d:%s", h.nw, hex.EncodeToString(h.wrote.Sum(nil))[:16])
	r := fmt.Sprintf("%d:%s", h.nr, hex.EncodeToString(h.read.Sum(nil))[:16])
	if clientSide {
		return w + "/" + r
	}
	return r + "/" + w
}

// connLog collects the summaries of closed connections of one side.
type connLog struct {
	mu         sync.Mutex
	clientSide bool
	sums       []string
	open       int
	recs       []connRec
}

// connRec is what one side of one closed connection saw: its local
// address and the byte count and SHA-256 (hex) of each direction.
type connRec struct {
	local          string
	c2sN, s2cN     int64
	c2sSum, s2cSum string
}

func (l *connLog) wrap(c net.Conn) *hashedConn {
	l.mu.Lock()
	l.open++
	l.mu.Unlock()
	return &hashedConn{Conn: c, wrote: sha256.New(), read: sha256.New(), log: l}
}

func (l *connLog) done(h *hashedConn) {
	l.mu.Lock()
	l.open--
	l.sums = append(l.sums, h.summary(l.clientSide))
	r := connRec{local: h.Conn.LocalAddr().String()}
	w, rd := hex.EncodeToString(h.wrote.Sum(nil)), hex.EncodeToString(h.read.Sum(nil))
	if l.clientSide {
		r.c2sN, r.c2sSum, r.s2cN, r.s2cSum = h.nw, w, h.nr, rd
	} else {
		r.c2sN, r.c2sSum, r.s2cN, r.s2cSum = h.nr, rd, h.nw, w
	}
	l.recs = append(l.recs, r)
	l.mu.Unlock()
}

func (l *connLog) snapshot() (open int, sums []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := slices.Clone(l.sums)
	sort.Strings(s)
	return l.open, s
}

// tap is a plain TCP forwarder (no kwire code) between the proxy and the
// broker that hashes what it receives from the proxy and from the broker:
// the bytes the broker's side of each connection sent and received.
func tap(t *testing.T, upstream string) (string, *connLog) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	log := &connLog{clientSide: true} // the proxy's connection is the "client" here
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				u, err := net.Dial("tcp", upstream)
				if err != nil {
					c.Close()
					return
				}
				// h hashes, from the tap's seat, what it forwards to the
				// broker (written) and what it forwards back (read).
				h := log.wrap(u)
				done := make(chan struct{})
				go func() { io.Copy(h, c); u.(*net.TCPConn).CloseWrite(); close(done) }()
				io.Copy(c, h)
				c.(*net.TCPConn).CloseWrite()
				<-done
				u.Close()
				c.Close()
				h.log.done(h)
			}()
		}
	}()
	return l.Addr().String(), log
}

// createTopic creates a topic of one partition with kwire's own client
// (CreateTopics at the negotiated version).
func createTopic(t *testing.T, bootstrap, name string) {
	t.Helper()
	var resp struct {
		Topics []struct {
			Name      string `json:"name"`
			ErrorCode int16  `json:"errorCode"`
		} `json:"topics"`
	}
	body := fmt.Sprintf(`{"topics":[{"name":%q,"numPartitions":1,"replicationFactor":1,"assignments":[],"configs":[]}],"timeoutMs":30000,"validateOnly":false}`, name)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := callJSON(ctx, bootstrap, "CreateTopics", body, &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 {
		t.Fatalf("CreateTopics %s: %+v", name, resp)
	}
}

// clientsRecords is how many records each client produces and consumes.
const clientsRecords = 100_000

func recordKey(i int) string   { return fmt.Sprintf("key-%06d", i) }
func recordValue(i int) string { return fmt.Sprintf("value-%06d-%s", i, strings.Repeat("x", 64)) }

// Real clients through kwire's proxy: franz-go and sarama each produce and
// consume 100,000 records against the real broker, every connection they
// open redirected to the proxy, the proxy's upstream a plain hashing tap in
// front of the broker. Each connection's bytes must arrive unchanged: the
// multiset of (client→broker, broker→client) byte counts and sha256 seen by
// the clients equals the one seen at the broker's side. And the proxy must
// have decoded the traffic without a problem: every Produce and Fetch
// exchange it saw decoded whole. And the clients' requests, judged
// (proxy.Options.Check), have no finding.
func TestClientsThroughProxy(t *testing.T) {
	c := kafkatest.Shared(t)
	tapAddr, brokerSide := tap(t, c.Bootstrap)
	var mu sync.Mutex
	apis := map[string]int{}
	var problems []string
	checked := 0
	proxyAddr := startProxyWith(t, tapAddr, func(e flow.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e := e.(type) {
		case *flow.Exchange:
			checked++
			for _, f := range e.Findings {
				problems = append(problems, fmt.Sprintf("%s v%d corr %d (client %q): finding %v", e.API, e.Version, e.CorrelationID, e.ClientID, f))
			}
			ok := e.Request != nil && e.Request.Err == nil && (e.NoResponse || e.Response != nil && e.Response.Err == nil)
			if ok {
				apis[e.API]++
			} else {
				problems = append(problems, fmt.Sprintf("%s v%d corr %d did not decode whole", e.API, e.Version, e.CorrelationID))
			}
		case *flow.Problem:
			if e.Kind != flow.Truncated {
				problems = append(problems, e.String())
			}
		}
	}, true, true)
	clientSide := &connLog{clientSide: true}
	redirect := func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, proxyAddr)
		if err != nil {
			return nil, err
		}
		return clientSide.wrap(nc), nil
	}

	t.Run("franz-go", func(t *testing.T) {
		topic := "clients-franz"
		createTopic(t, c.Bootstrap, topic)
		produceConsumeFranz(t, c.Bootstrap, topic, redirect, kgo.NoCompression())
	})
	t.Run("sarama", func(t *testing.T) {
		topic := "clients-sarama"
		createTopic(t, c.Bootstrap, topic)
		produceConsumeSarama(t, c.Bootstrap, topic, redirect, clientsRecords)
	})

	// Every connection the clients opened has closed; wait for the tap to
	// see both ends too.
	deadline := time.Now().Add(20 * time.Second)
	for {
		co, cs := clientSide.snapshot()
		bo, bs := brokerSide.snapshot()
		if co == 0 && bo == 0 && len(cs) == len(bs) || time.Now().After(deadline) {
			if co != 0 || bo != 0 {
				t.Fatalf("connections still open: %d at the clients, %d at the broker", co, bo)
			}
			if !slices.Equal(cs, bs) {
				t.Fatalf("bytes differ between the clients and the broker:\nclients %v\nbroker  %v", cs, bs)
			}
			t.Logf("%d connections, bytes identical both ways: %v", len(cs), cs)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // the proxy's decoder drains behind the bytes
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("proxy: %s", p)
	}
	if apis["Produce"] == 0 || apis["Fetch"] == 0 || apis["ApiVersions"] == 0 || apis["Metadata"] == 0 {
		t.Errorf("decoded exchanges by api: %v", apis)
	}
	t.Logf("decoded exchanges by api: %v; %d requests checked", apis, checked)
}

func produceConsumeFranz(t *testing.T, seed, topic string, dial func(context.Context, string, string) (net.Conn, error), codec kgo.CompressionCodec) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pc, err := kgo.NewClient(kgo.SeedBrokers(seed), kgo.Dialer(dial), kgo.DefaultProduceTopic(topic),
		kgo.ProducerBatchCompression(codec), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var perr error
	var pmu sync.Mutex
	for i := 0; i < clientsRecords; i++ {
		wg.Add(1)
		pc.Produce(ctx, &kgo.Record{Key: []byte(recordKey(i)), Value: []byte(recordValue(i))}, func(_ *kgo.Record, err error) {
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

	cc, err := kgo.NewClient(kgo.SeedBrokers(seed), kgo.Dialer(dial), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	got := 0
	for got < clientsRecords {
		fs := cc.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d: %v", got, clientsRecords, err)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch: %v", err) })
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset != int64(got) || string(r.Key) != recordKey(got) || string(r.Value) != recordValue(got) {
				t.Fatalf("record %d: offset %d key %q", got, r.Offset, r.Key)
			}
			got++
		})
	}
}

// saramaDialer sends every connection sarama opens to the proxy.
type saramaDialer func(ctx context.Context, network, addr string) (net.Conn, error)

func (d saramaDialer) Dial(network, addr string) (net.Conn, error) {
	return d(context.Background(), network, addr)
}

func produceConsumeSarama(t *testing.T, seed, topic string, dial func(context.Context, string, string) (net.Conn, error), n int) {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V4_0_0_0
	cfg.ClientID = "kwire-live-sarama"
	cfg.Net.Proxy.Enable = true
	cfg.Net.Proxy.Dialer = saramaDialer(dial)
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Flush.Frequency = 5 * time.Millisecond
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest

	prod, err := sarama.NewAsyncProducer([]string{seed}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for i := 0; i < n; i++ {
			prod.Input() <- &sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder(recordKey(i)), Value: sarama.StringEncoder(recordValue(i))}
		}
	}()
	for i := 0; i < n; i++ {
		select {
		case <-prod.Successes():
		case err := <-prod.Errors():
			t.Fatalf("produce: %v", err)
		case <-time.After(time.Minute):
			t.Fatalf("produce: %d of %d acknowledged", i, n)
		}
	}
	if err := prod.Close(); err != nil {
		t.Fatal(err)
	}

	cons, err := sarama.NewConsumer([]string{seed}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	pc, err := cons.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	// sarama keeps producer order within a partition only with one request
	// in flight; compare the set of keys and each key's value instead.
	seen := make([]bool, n)
	for got := 0; got < n; got++ {
		select {
		case m := <-pc.Messages():
			var i int
			if _, err := fmt.Sscanf(string(m.Key), "key-%06d", &i); err != nil || i < 0 || i >= n || seen[i] || string(m.Value) != recordValue(i) || m.Offset != int64(got) {
				t.Fatalf("message %d: offset %d key %q", got, m.Offset, m.Key)
			}
			seen[i] = true
		case err := <-pc.Errors():
			t.Fatalf("consume: %v", err)
		case <-time.After(time.Minute):
			t.Fatalf("consumed %d of %d", got, n)
		}
	}
}
