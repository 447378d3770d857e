package live

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

// socket is one line of /proc/net/tcp or tcp6: the ports of its two ends,
// its state (01 established) and inode.
type socket struct {
	local, remote int
	state, inode  string
}

// sockets reads the TCP sockets of the machine's (the network
// namespace's) IPv4 and IPv6 tables.
func sockets() ([]socket, error) {
	var all []socket
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, err
		}
		lines := strings.Split(string(b), "\n")
		for _, l := range lines[1:] {
			fs := strings.Fields(l)
			if len(fs) < 10 {
				continue
			}
			port := func(a string) int {
				i := strings.LastIndexByte(a, ':')
				p, _ := strconv.ParseInt(a[i+1:], 16, 32)
				return int(p)
			}
			all = append(all, socket{local: port(fs[1]), remote: port(fs[2]), state: fs[3], inode: fs[9]})
		}
	}
	return all, nil
}

// ownsSocket reports whether process pid has the socket of that inode
// open.
func ownsSocket(pid int, inode string) bool {
	d := fmt.Sprintf("/proc/%d/fd", pid)
	es, err := os.ReadDir(d)
	if err != nil {
		return false
	}
	want := "socket:[" + inode + "]"
	for _, e := range es {
		if l, err := os.Readlink(filepath.Join(d, e.Name())); err == nil && l == want {
			return true
		}
	}
	return false
}

func portOf(addr string) int {
	_, p, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(p)
	return n
}

// secureTap stands in front of one broker's TLS listener, advertised in
// its place: it terminates TLS, hashes the plaintext each way (the
// broker's side of each connection, as in tap) and speaks TLS to the
// broker. With origin set, it checks that each connection it accepts
// comes from a socket of that process (the kwire proxy).
type secureTap struct {
	addr   string
	log    *connLog
	origin atomic.Int64
	mu     sync.Mutex
	out    map[int]bool // local ports of the tap's connections to the broker
	alien  []string     // connections not from origin
	failed []string     // connections the tap could not forward
}

func startSecureTap(t *testing.T, upstream string, server, client *tls.Config) *secureTap {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	st := &secureTap{addr: l.Addr().String(), log: &connLog{clientSide: true}, out: map[int]bool{}}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if pid := st.origin.Load(); pid != 0 {
				st.checkOrigin(int(pid), c)
			}
			go st.serve(c, upstream, server, client)
		}
	}()
	return st
}

// fail records a connection the tap could not forward.
func (st *secureTap) fail(why string) {
	st.mu.Lock()
	st.failed = append(st.failed, why)
	st.mu.Unlock()
}

func (st *secureTap) checkOrigin(pid int, c net.Conn) {
	peer, self := portOf(c.RemoteAddr().String()), portOf(c.LocalAddr().String())
	socks, err := sockets()
	ok := false
	for _, s := range socks {
		if s.local == peer && s.remote == self && ownsSocket(pid, s.inode) {
			ok = true
		}
	}
	if !ok {
		st.mu.Lock()
		st.alien = append(st.alien, fmt.Sprintf("%s (not a socket of the proxy, pid %d; %v)", c.RemoteAddr(), pid, err))
		st.mu.Unlock()
	}
}

func (st *secureTap) serve(c net.Conn, upstream string, server, client *tls.Config) {
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sc := tls.Server(c, server)
	if err := sc.HandshakeContext(ctx); err != nil {
		st.fail(fmt.Sprintf("TLS from %s: %v", c.RemoteAddr(), err))
		return
	}
	var d net.Dialer
	u, err := d.DialContext(ctx, "tcp", upstream)
	if err != nil {
		st.fail(err.Error())
		return
	}
	st.mu.Lock()
	st.out[portOf(u.LocalAddr().String())] = true
	st.mu.Unlock()
	cfg := client.Clone()
	cfg.ServerName, _, _ = net.SplitHostPort(upstream)
	uc := tls.Client(u, cfg)
	if err := uc.HandshakeContext(ctx); err != nil {
		u.Close()
		st.fail(fmt.Sprintf("TLS to the broker: %v", err))
		return
	}
	// h hashes what the tap forwards to the broker (written) and back
	// (read): the plaintext the broker's side of the connection saw.
	h := st.log.wrap(uc)
	done := make(chan struct{})
	go func() {
		io.Copy(h, sc)
		uc.CloseWrite()
		// A broker may leave a connection that ends inside a SASL
		// exchange open: give it a few seconds to close its side.
		uc.SetReadDeadline(time.Now().Add(3 * time.Second))
		close(done)
	}()
	io.Copy(sc, h)
	sc.CloseWrite()
	<-done
	uc.Close()
	st.log.done(h)
}

// freePortRange returns the first of n consecutive loopback ports that
// were free a moment ago.
func freePortRange(t *testing.T, n int) int {
	t.Helper()
	for try := 0; try < 100; try++ {
		first := 20000 + rand.IntN(30000)
		var ls []net.Listener
		for p := first; p < first+n; p++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				break
			}
			ls = append(ls, l)
		}
		for _, l := range ls {
			l.Close()
		}
		if len(ls) == n {
			return first
		}
	}
	t.Fatalf("no %d free consecutive ports", n)
	return 0
}

// tlsDial returns a dialer that connects with TLS (config tc, the server
// name the host dialled) and hashes the plaintext of each connection in
// log (nil: no hashing); mapAddr, when not nil, chooses the address
// actually dialled.
func tlsDial(tc *tls.Config, log *connLog, mapAddr func(string) string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if mapAddr != nil {
			addr = mapAddr(addr)
		}
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cfg := tc.Clone()
		cfg.ServerName, _, _ = net.SplitHostPort(addr)
		c := tls.Client(nc, cfg)
		if err := c.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, err
		}
		if log == nil {
			return c, nil
		}
		return log.wrap(c), nil
	}
}

// saramaSpread is franzSpread with sarama: n records to topic's partitions
// in turn, then each partition consumed and checked.
func saramaSpread(t *testing.T, seed, topic string, partitions, n int, cfg *sarama.Config) {
	t.Helper()
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Flush.Frequency = 5 * time.Millisecond
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	prod, err := sarama.NewAsyncProducer([]string{seed}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for i := 0; i < n; i++ {
			prod.Input() <- &sarama.ProducerMessage{Topic: topic, Partition: int32(i % partitions), Key: sarama.StringEncoder(recordKey(i)), Value: sarama.StringEncoder(recordValue(i))}
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
	for p := 0; p < partitions; p++ {
		pc, err := cons.ConsumePartition(topic, int32(p), sarama.OffsetOldest)
		if err != nil {
			t.Fatal(err)
		}
		// sarama keeps producer order within a partition only with one
		// request in flight: check the partition's set of keys.
		want := (n - p + partitions - 1) / partitions
		seen := map[int]bool{}
		for got := 0; got < want; got++ {
			select {
			case m := <-pc.Messages():
				var i int
				if _, err := fmt.Sscanf(string(m.Key), "key-%06d", &i); err != nil || i%partitions != p || seen[i] || string(m.Value) != recordValue(i) || m.Offset != int64(got) {
					t.Fatalf("partition %d message %d: offset %d key %q", p, got, m.Offset, m.Key)
				}
				seen[i] = true
			case err := <-pc.Errors():
				t.Fatalf("consume: %v", err)
			case <-time.After(time.Minute):
				t.Fatalf("partition %d: consumed %d of %d", p, got, want)
			}
		}
		pc.Close()
	}
}

// proxyLine is the part of kwire proxy's JSON lines the test reads.
type proxyLine struct {
	Type      string    `json:"type"`
	Event     string    `json:"event"`
	Kind      string    `json:"kind"`
	Client    string    `json:"client"`
	Server    string    `json:"server"`
	API       *string   `json:"api"`
	Read      *[2]int64 `json:"bytes_read"`
	Written   *[2]int64 `json:"bytes_written"`
	Rewritten int       `json:"responses_rewritten"`
	Node      *int32    `json:"node"`
	Listen    string    `json:"listen"`
	Mechanism string    `json:"mechanism"`
	User      string    `json:"user"`
	Error     *string   `json:"error"`
	// Findings are an exchange's findings (--check), or the count of a
	// stats_rule line (--stats); Rule is the latter's rule.
	Findings json.RawMessage `json:"findings"`
	Rule     string          `json:"rule"`
}

// secretForms are the ways a password could show in an output: itself,
// in hex, and in base64 within a SASL/PLAIN token of user.
func secretForms(user, pw string) []string {
	tok := "\x00" + user + "\x00" + pw
	return []string{pw, hex.EncodeToString([]byte(pw)), strings.ToUpper(hex.EncodeToString([]byte(pw))),
		base64.StdEncoding.EncodeToString([]byte(tok)), base64.StdEncoding.EncodeToString([]byte(pw))}
}

// searchSecrets reports every file under dirs holding one of forms.
func searchSecrets(t *testing.T, forms []string, dirs ...string) (searched int) {
	t.Helper()
	for _, d := range dirs {
		filepath.Walk(d, func(path string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			searched++
			for _, f := range forms {
				if bytes.Contains(b, []byte(f)) {
					t.Errorf("%s holds a password (as %q)", path, f)
				}
			}
			return nil
		})
	}
	return searched
}

// runProxy starts `kwire proxy` with args, its standard output and error
// written to out/proxy.jsonl and out/proxy.stderr, and returns the
// process and its listen address (from its first line on standard
// error).
func runProxy(t *testing.T, out string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(kwirePath(t), append([]string{"proxy"}, args...)...)
	stdout, err := os.Create(filepath.Join(out, "proxy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdout.Close() })
	cmd.Stdout = stdout
	se, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	stderr, err := os.Create(filepath.Join(out, "proxy.stderr"))
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan string, 1)
	go func() {
		r := bufio.NewReader(se)
		l, _ := r.ReadString('\n')
		stderr.WriteString(l)
		first <- l
		io.Copy(stderr, r)
		stderr.Close()
	}()
	select {
	case l := <-first:
		var addr string
		if _, err := fmt.Sscanf(l, "kwire: proxying %s to", &addr); err != nil {
			t.Fatalf("kwire proxy: %q", l)
		}
		return cmd, addr
	case <-time.After(30 * time.Second):
		t.Fatal("kwire proxy did not start in 30s")
	}
	return nil, ""
}

// matchConnections pairs each client connection with one the brokers' side
// saw (tap logs) with the same client-to-broker bytes, and checks the
// broker-to-client bytes: identical (count and SHA-256) where the proxy
// rewrote no response on the connection, else the count the proxy read
// from the broker. Broker-side connections of the proxy's other clients
// (kwire call) must match one of its closed lines by count. It returns the
// broker-to-client bytes compared by hash and by count only.
func matchConnections(t *testing.T, clients []connRec, brokers []connRec, closed map[string]proxyLine) (hashed, counted int64) {
	t.Helper()
	used := make([]bool, len(brokers))
	for _, c := range clients {
		pl, ok := closed[c.local]
		if !ok {
			t.Errorf("client connection %s: no closed line from the proxy", c.local)
			continue
		}
		if pl.Read[0] != c.c2sN || pl.Written[1] != c.s2cN {
			t.Errorf("client connection %s: sent %d B, received %d B; the proxy read %d B from it and wrote %d B to it", c.local, c.c2sN, c.s2cN, pl.Read[0], pl.Written[1])
		}
		found := false
		for i, b := range brokers {
			if used[i] || b.c2sN != c.c2sN || b.c2sSum != c.c2sSum {
				continue
			}
			if pl.Rewritten == 0 && (b.s2cN != c.s2cN || b.s2cSum != c.s2cSum) || pl.Rewritten > 0 && b.s2cN != pl.Read[1] {
				continue
			}
			used[i], found = true, true
			if pl.Rewritten == 0 {
				hashed += c.s2cN
			} else {
				counted += c.s2cN
			}
			break
		}
		if !found {
			t.Errorf("client connection %s (%d B sent, sha256 %.16s; %d B received, sha256 %.16s; %d responses rewritten): no broker-side connection saw the same bytes",
				c.local, c.c2sN, c.c2sSum, c.s2cN, c.s2cSum, pl.Rewritten)
		}
	}
	// The proxy's other connections (kwire call's, not hashed at their
	// client) account for the broker-side connections left, by count.
	mine := map[string]bool{}
	for _, c := range clients {
		mine[c.local] = true
	}
	var others []proxyLine
	for client, pl := range closed {
		if !mine[client] {
			others = append(others, pl)
		}
	}
	for i, b := range brokers {
		if used[i] {
			continue
		}
		found := false
		for j, o := range others {
			if o.Read != nil && o.Read[0] == b.c2sN && o.Read[1] == b.s2cN {
				others = append(others[:j], others[j+1:]...)
				found = true
				break
			}
		}
		if !found {
			t.Errorf("a broker-side connection (%d B from the client, %d B to it) matches no client connection", b.c2sN, b.s2cN)
		}
	}
	return hashed, counted
}

// stopProxy sends SIGINT and waits for kwire proxy to exit 0.
func stopProxy(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("kwire proxy: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("kwire proxy did not stop within 30s of SIGINT")
	}
}
