package proxy

import (
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/tlsconf"
)

// fakeCluster is brokers on loopback that answer Metadata v12,
// FindCoordinator v4 (the coordinator is node 2), DescribeCluster v1 and
// Produce v11 (with NodeEndpoints) with the cluster's address table, and
// ApiVersions with its defaults.
type fakeCluster struct {
	t     *testing.T
	c     *codec.Codec
	mu    sync.Mutex
	addrs map[int32]string // the address table, by node id
	nodes map[int32]*fakeNode
	// tls, when set, makes the brokers started after it TLS listeners.
	tls *tls.Config
}

// fakeNode is one broker of a fakeCluster.
type fakeNode struct {
	id    int32
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	// apis are the requests received, by connection.
	apis [][]string
	// sent are the responses written.
	sent [][]byte
	wg   sync.WaitGroup
}

func newFakeCluster(t *testing.T, ids ...int32) *fakeCluster {
	fc := &fakeCluster{t: t, c: codec.New(testSet), addrs: map[int32]string{}, nodes: map[int32]*fakeNode{}}
	for _, id := range ids {
		fc.start(id)
	}
	return fc
}

// start runs a broker for node id on a new port and puts it in the table.
func (fc *fakeCluster) start(id int32) *fakeNode {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fc.t.Fatal(err)
	}
	if fc.tls != nil {
		ln = tls.NewListener(ln, fc.tls)
	}
	n := &fakeNode{id: id, ln: ln}
	fc.mu.Lock()
	fc.addrs[id], fc.nodes[id] = ln.Addr().String(), n
	fc.mu.Unlock()
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			n.mu.Lock()
			n.conns = append(n.conns, conn)
			n.apis = append(n.apis, nil)
			k := len(n.apis) - 1
			n.mu.Unlock()
			n.wg.Add(1)
			go func() { defer n.wg.Done(); fc.serve(n, conn, k) }()
		}
	}()
	fc.t.Cleanup(n.stop)
	return n
}

// stop closes the broker's listener and connections: it goes away.
func (n *fakeNode) stop() {
	n.ln.Close()
	n.mu.Lock()
	for _, c := range n.conns {
		c.Close()
	}
	n.mu.Unlock()
	n.wg.Wait()
}

// requests returns the api names node n received on each connection.
func (n *fakeNode) requests() [][]string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out [][]string
	for _, a := range n.apis {
		out = append(out, slices.Clone(a))
	}
	return out
}

// body is the response body of api key at ver with the brokers at
// addrs (host:port by node id).
func clusterBody(key, ver int16, addrs map[int32]string) string {
	var ids []int32
	for id := range addrs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	hp := func(id int32) string {
		h, p, _ := net.SplitHostPort(addrs[id])
		return fmt.Sprintf(`"host":%q,"port":%s`, h, p)
	}
	var list []string
	switch key {
	case 0: // Produce v11
		for _, id := range ids {
			list = append(list, fmt.Sprintf(`{"nodeId":%d,%s,"rack":null}`, id, hp(id)))
		}
		return `{"responses":[],"throttleTimeMs":0,"nodeEndpoints":[` + strings.Join(list, ",") + `]}`
	case 3: // Metadata v12
		for _, id := range ids {
			list = append(list, fmt.Sprintf(`{"nodeId":%d,%s,"rack":"r%d"}`, id, hp(id), id))
		}
		return `{"throttleTimeMs":0,"brokers":[` + strings.Join(list, ",") + `],"clusterId":"abc","controllerId":1,"topics":[]}`
	case 10: // FindCoordinator v4
		return `{"throttleTimeMs":0,"coordinators":[{"key":"g1","nodeId":2,` + hp(2) + `,"errorCode":0,"errorMessage":null}]}`
	case 60: // DescribeCluster v1
		for _, id := range ids {
			list = append(list, fmt.Sprintf(`{"brokerId":%d,%s,"rack":null}`, id, hp(id)))
		}
		return `{"throttleTimeMs":0,"errorCode":0,"errorMessage":null,"endpointType":1,"clusterId":"abc","controllerId":1,"brokers":[` + strings.Join(list, ",") + `],"clusterAuthorizedOperations":-2147483648}`
	}
	return ""
}

func (fc *fakeCluster) serve(n *fakeNode, conn net.Conn, k int) {
	defer conn.Close()
	for {
		var hdr [4]byte
		if _, err := io.ReadFull(conn, hdr[:]); err != nil {
			return
		}
		fr := make([]byte, 4+binary.BigEndian.Uint32(hdr[:]))
		copy(fr, hdr[:])
		if _, err := io.ReadFull(conn, fr[4:]); err != nil {
			return
		}
		t, err := fc.c.DecodeRequest(fr)
		if err != nil {
			return
		}
		key := int16(binary.BigEndian.Uint16(fr[4:]))
		corr := int32(binary.BigEndian.Uint32(fr[8:]))
		fc.mu.Lock()
		body := clusterBody(key, t.Version, fc.addrs)
		fc.mu.Unlock()
		resp := encodeFrame(fc.t, fc.c, t.Message.BaseName(), false, t.Version, corr, "", body)
		n.mu.Lock()
		n.apis[k] = append(n.apis[k], t.Message.BaseName())
		n.sent = append(n.sent, resp)
		n.mu.Unlock()
		if _, err := conn.Write(resp); err != nil {
			return
		}
	}
}

// versions are the versions the client below asks for.
var clusterVersions = map[string]int16{"ApiVersions": 3, "Metadata": 12, "FindCoordinator": 4, "DescribeCluster": 1, "Produce": 11}

// call sends a request of api on conn and returns the response.
func call(t *testing.T, c *codec.Codec, conn net.Conn, api string, corr int32) []byte {
	t.Helper()
	if _, err := conn.Write(encodeFrame(t, c, api, true, clusterVersions[api], corr, "follower", "")); err != nil {
		t.Fatal(err)
	}
	return readFrame(t, conn)
}

// brokersOf decodes a Metadata v12 response into host:port by node id.
func brokersOf(t *testing.T, c *codec.Codec, resp []byte) map[int32]string {
	t.Helper()
	tr, err := c.DecodeResponse(resp, c.Set.Message("MetadataResponse"), 12)
	if err != nil {
		t.Fatal(err)
	}
	bs := tr.Root().Field("MetadataResponse").Field("Brokers")
	out := map[int32]string{}
	for i := range bs.Len() {
		b := bs.Elem(i)
		out[int32(b.Field("NodeId").Int())] = net.JoinHostPort(b.Field("Host").String(), fmt.Sprint(b.Field("Port").Int()))
	}
	return out
}

// A client that follows the addresses the proxy writes reaches brokers 1,
// 2 and 3 each through its own proxy port; every response is the broker's
// with the addresses (and only those) rewritten; responses without one
// are the broker's bytes.
func TestEveryBrokerThroughItsOwnPort(t *testing.T) {
	fc := newFakeCluster(t, 1, 2, 3)
	c := fc.c
	p, col := start(t, Options{Codec: c, RewriteAdvertised: true, Hash: true}, fc.addrs[1])
	boot := dial(t, p)
	meta := call(t, c, boot, "Metadata", 1)
	adv := brokersOf(t, c, meta)
	if len(adv) != 3 {
		t.Fatalf("brokers %v", adv)
	}
	seen := map[string]bool{p.Addr().String(): true}
	for id, a := range adv {
		if h, _, _ := net.SplitHostPort(a); h != "127.0.0.1" || seen[a] || a == fc.addrs[id] {
			t.Errorf("broker %d advertised at %s (bootstrap %s, real %s)", id, a, p.Addr(), fc.addrs[id])
		}
		seen[a] = true
		if b := p.Brokers()[id]; b.Listen != a || b.Addr != fc.addrs[id] {
			t.Errorf("broker %d: %+v", id, b)
		}
	}
	// The whole response is the broker's with the proxy's addresses.
	if want := encodeFrame(t, c, "Metadata", false, 12, 1, "", clusterBody(3, 12, adv)); string(meta) != string(want) {
		t.Errorf("Metadata:\n got %x\nwant %x", meta, want)
	}
	for id := int32(1); id <= 3; id++ {
		conn, err := net.Dial("tcp", adv[id])
		if err != nil {
			t.Fatal(err)
		}
		av := call(t, c, conn, "ApiVersions", 10)
		for k, api := range []string{"Metadata", "FindCoordinator", "DescribeCluster", "Produce"} {
			got := call(t, c, conn, api, int32(11+k))
			key := c.Set.Message(api + "Request").APIKey
			if want := encodeFrame(t, c, api, false, clusterVersions[api], int32(11+k), "", clusterBody(key, clusterVersions[api], adv)); string(got) != string(want) {
				t.Errorf("broker %d %s:\n got %x\nwant %x", id, api, got, want)
			}
		}
		conn.Close()
		// Not rewritten: the broker's bytes.
		n := fc.nodes[id]
		n.mu.Lock()
		first := n.sent[len(n.sent)-5]
		n.mu.Unlock()
		if string(av) != string(first) {
			t.Errorf("broker %d ApiVersions:\n got %x\nwant %x", id, av, first)
		}
	}
	boot.Close()
	col.waitClosed(t, 4)
	// Each broker got its connection, and the bootstrap's went to broker 1.
	want := map[int32]string{
		1: "[[Metadata] [ApiVersions Metadata FindCoordinator DescribeCluster Produce]]",
		2: "[[ApiVersions Metadata FindCoordinator DescribeCluster Produce]]",
		3: "[[ApiVersions Metadata FindCoordinator DescribeCluster Produce]]",
	}
	for id, w := range want {
		if got := fmt.Sprint(fc.nodes[id].requests()); got != w {
			t.Errorf("broker %d got %s, want %s", id, got, w)
		}
	}
	// Learned: one event per broker, from connection 1.
	var learned []string
	col.mu.Lock()
	for _, e := range col.events {
		if e.Kind == Learned {
			learned = append(learned, fmt.Sprintf("#%d %d %s %s %v", e.Conn, e.Broker.Node, e.Broker.Addr, e.Broker.Listen, e.Err))
		}
	}
	col.mu.Unlock()
	wantL := []string{}
	for id := int32(1); id <= 3; id++ {
		wantL = append(wantL, fmt.Sprintf("#1 %d %s %s <nil>", id, fc.addrs[id], adv[id]))
	}
	if !slices.Equal(learned, wantL) {
		t.Errorf("learned\n%s\nwant\n%s", strings.Join(learned, "\n"), strings.Join(wantL, "\n"))
	}
	// The connections of broker N's listener (2, 3, 4) name broker N, its
	// address and the listener; the bootstrap's (1) names none.
	var conns []string
	col.mu.Lock()
	for _, e := range col.events {
		if e.Kind == Opened || e.Kind == Closed {
			s := fmt.Sprintf("%v #%d", e.Kind, e.Conn)
			if b := e.Broker; b != nil {
				s += fmt.Sprintf(" broker %d %s %s", b.Node, b.Addr, b.Listen)
			}
			conns = append(conns, s)
		}
	}
	col.mu.Unlock()
	slices.Sort(conns)
	wantC := []string{"closed #1", "opened #1"}
	for id := int32(1); id <= 3; id++ {
		for _, k := range []string{"closed", "opened"} {
			wantC = append(wantC, fmt.Sprintf("%s #%d broker %d %s %s", k, id+1, id, fc.addrs[id], adv[id]))
		}
	}
	slices.Sort(wantC)
	if !slices.Equal(conns, wantC) {
		t.Errorf("connections\n%s\nwant\n%s", strings.Join(conns, "\n"), strings.Join(wantC, "\n"))
	}
}

// learnedLines are the Learned events so far, as "node addr listen err".
func learnedLines(col *collector) []string {
	col.mu.Lock()
	defer col.mu.Unlock()
	var out []string
	for _, e := range col.events {
		if e.Kind == Learned {
			b := e.Broker
			s := fmt.Sprintf("%d %s %q", b.Node, b.Addr, b.Listen)
			if b.Moved {
				s += " moved from " + b.Previous
			}
			if e.Err != nil {
				s += ": " + e.Err.Error()
			}
			out = append(out, s)
		}
	}
	return out
}

// freePort returns a port that was free a moment ago.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// With one port in BrokerPorts, broker 1 takes it; brokers 2 and 3 are
// each reported once and written as the bootstrap address, so that the
// client stays on the proxy.
func TestBrokerPortsExhausted(t *testing.T) {
	fc := newFakeCluster(t, 1, 2, 3)
	c := fc.c
	port := freePort(t)
	p, col := start(t, Options{Codec: c, RewriteAdvertised: true, BrokerPorts: PortRange{port, port}}, fc.addrs[1])
	boot := dial(t, p)
	adv := brokersOf(t, c, call(t, c, boot, "Metadata", 1))
	call(t, c, boot, "Metadata", 2) // reported once per broker
	bootAddr := p.Addr().String()
	want := map[int32]string{1: fmt.Sprintf("127.0.0.1:%d", port), 2: bootAddr, 3: bootAddr}
	if fmt.Sprint(adv) != fmt.Sprint(want) {
		t.Errorf("advertised %v, want %v", adv, want)
	}
	wantL := []string{fmt.Sprintf("1 %s %q", fc.addrs[1], want[1])}
	for id := int32(2); id <= 3; id++ {
		wantL = append(wantL, fmt.Sprintf("%d %s \"\": no port left in %d-%d (1 taken by brokers); advertised as the bootstrap address %s", id, fc.addrs[id], port, port, bootAddr))
	}
	if got := learnedLines(col); !slices.Equal(got, wantL) {
		t.Errorf("learned\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantL, "\n"))
	}
	// Broker 1 is reached through its port.
	conn, err := net.Dial("tcp", want[1])
	if err != nil {
		t.Fatal(err)
	}
	call(t, c, conn, "ApiVersions", 3)
	conn.Close()
	boot.Close()
	col.waitClosed(t, 2)
	if got := fmt.Sprint(fc.nodes[1].requests()); got != "[[Metadata Metadata] [ApiVersions]]" {
		t.Errorf("broker 1 got %s", got)
	}
}

// A broker advertised at an address nothing listens on: the connection to
// its listener fails with one line naming the broker and the cause; the
// proxy and the other connections go on. A broker that goes away ends its
// connections; one whose address changes is followed.
func TestBrokerUnreachableGoneAndMoved(t *testing.T) {
	fc := newFakeCluster(t, 1, 2)
	c := fc.c
	// Port 1 (tcpmux) has no listener on a test machine: a freed ephemeral
	// port could be taken again by another test's connection meanwhile.
	dead := "127.0.0.1:1"
	fc.mu.Lock()
	fc.addrs[3] = dead
	fc.mu.Unlock()
	p, col := start(t, Options{Codec: c, RewriteAdvertised: true}, fc.addrs[1])
	boot := dial(t, p)
	adv := brokersOf(t, c, call(t, c, boot, "Metadata", 1))

	// Broker 3: nothing there.
	conn3, err := net.Dial("tcp", adv[3])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn3.Read(make([]byte, 1)); err == nil {
		t.Error("connection to broker 3 not closed")
	}
	conn3.Close()
	e := col.waitClosed(t, 1)
	var failed Event
	for _, ev := range e {
		failed = ev
	}
	if failed.Kind != Failed || failed.Upstream != dead || !strings.HasPrefix(failed.Err.Error(), "broker 3: dial tcp "+dead+": ") || !strings.Contains(failed.Err.Error(), "refused") {
		t.Errorf("broker 3: %v %q %v", failed.Kind, failed.Upstream, failed.Err)
	}

	// Broker 2 goes away under an open connection.
	conn2, err := net.Dial("tcp", adv[2])
	if err != nil {
		t.Fatal(err)
	}
	call(t, c, conn2, "ApiVersions", 2)
	old2 := fc.addrs[2]
	fc.nodes[2].stop()
	if _, err := conn2.Read(make([]byte, 1)); err == nil {
		t.Error("connection to broker 2 not closed")
	}
	conn2.Close()
	col.waitClosed(t, 1)

	// The bootstrap connection goes on; broker 2 comes back at a new
	// address, learned from the next Metadata, and its listener follows.
	n2 := fc.start(2)
	adv2 := brokersOf(t, c, call(t, c, boot, "Metadata", 2))
	if adv2[2] != adv[2] {
		t.Errorf("broker 2 now at %s, was %s", adv2[2], adv[2])
	}
	conn2, err = net.Dial("tcp", adv[2])
	if err != nil {
		t.Fatal(err)
	}
	call(t, c, conn2, "ApiVersions", 3)
	conn2.Close()
	boot.Close()
	col.waitClosed(t, 2)
	if got := fmt.Sprint(n2.requests()); got != "[[ApiVersions]]" {
		t.Errorf("new broker 2 got %s", got)
	}
	want := []string{
		fmt.Sprintf("1 %s %q", fc.addrs[1], adv[1]),
		fmt.Sprintf("2 %s %q", old2, adv[2]),
		fmt.Sprintf("3 %s %q", dead, adv[3]),
		fmt.Sprintf("2 %s %q moved from %s", fc.addrs[2], adv[2], old2),
	}
	if got := learnedLines(col); !slices.Equal(got, want) {
		t.Errorf("learned\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Every broker's listener gets the bootstrap listener's TLS, and every
// broker is dialled with the upstream TLS (server name: the broker's
// host): a TLS client follows the addresses to brokers 1, 2 and 3; a
// plaintext client on a broker's listener is one failed line.
func TestEveryBrokerThroughItsOwnPortWithTLS(t *testing.T) {
	s := newTLSSetup(t)
	fc := newFakeCluster(t)
	fc.tls = must(t)(tlsconf.Server(s.brokerCert, s.brokerKey, ""))
	for id := int32(1); id <= 3; id++ {
		fc.start(id)
	}
	c := fc.c
	o := Options{Codec: c, RewriteAdvertised: true,
		TLS:         must(t)(tlsconf.Server(s.proxyCert, s.proxyKey, "")),
		UpstreamTLS: must(t)(tlsconf.Client(s.ca.CertFile, "", "", "", false))}
	p, col := start(t, o, fc.addrs[1])
	cc := must(t)(tlsconf.Client(s.ca.CertFile, "proxy.test", "", "", false))
	boot := dialAny(t, p, cc)
	adv := brokersOf(t, c, call(t, c, boot, "Metadata", 1))
	for id := int32(1); id <= 3; id++ {
		conn, err := tls.Dial("tcp", adv[id], cc)
		if err != nil {
			t.Fatalf("broker %d at %s: %v", id, adv[id], err)
		}
		call(t, c, conn, "ApiVersions", 2)
		conn.Close()
	}
	plain, err := net.Dial("tcp", adv[2])
	if err != nil {
		t.Fatal(err)
	}
	plain.Write(encodeFrame(t, c, "ApiVersions", true, 3, 9, "plain", ""))
	if _, err := plain.Read(make([]byte, 1)); err == nil {
		t.Error("a plaintext client on broker 2's TLS listener was answered")
	}
	plain.Close()
	boot.Close()
	got := col.waitClosed(t, 5)
	failed := 0
	for _, e := range got {
		if e.Kind == Failed {
			failed++
			var he *HandshakeError
			if !errors.As(e.Err, &he) || he.Side != "client" || e.Broker == nil || e.Broker.Node != 2 || !strings.HasPrefix(e.Err.Error(), "broker 2: client ") {
				t.Errorf("failed: %v (%+v)", e.Err, e.Broker)
			}
		}
	}
	if failed != 1 {
		t.Errorf("%d failed connections, want 1", failed)
	}
	for id := int32(1); id <= 3; id++ {
		want := "[[ApiVersions]]"
		if id == 1 {
			want = "[[Metadata] [ApiVersions]]"
		}
		if got := fmt.Sprint(fc.nodes[id].requests()); got != want {
			t.Errorf("broker %d got %s, want %s", id, got, want)
		}
	}
}

// Requests that get no response (Produce with acks=0; this broker answers
// no Produce) are forgotten when a later response comes, or when more
// than maxTracked wait: a Metadata after 3000 of them is still rewritten.
func TestRequestsWithoutResponseDoNotStopRewriting(t *testing.T) {
	fb := newFakeBroker(t)
	c := codec.New(testSet)
	p, col := start(t, Options{Codec: c, RewriteAdvertised: true}, fb.addr())
	cl := dial(t, p)
	var reqs []byte
	for i := range 3000 {
		reqs = append(reqs, encodeFrame(t, c, "Produce", true, 11, int32(i), "acks0", "")...)
	}
	reqs = append(reqs, encodeFrame(t, c, "Metadata", true, 12, 3000, "acks0", "")...)
	cl.Write(reqs)
	got := readFrame(t, cl)
	host, _, _ := net.SplitHostPort(p.Addr().String())
	ports := map[int32]int{}
	for id, b := range p.Brokers() {
		ports[id] = portOf(t, b.Listen)
	}
	if want := rewritten(t, c, "Metadata", 12, 3000, host, ports); string(got) != string(want) || len(ports) != 2 {
		t.Errorf("Metadata after 3000 unanswered requests:\n got %x\nwant %x", got, want)
	}
	cl.Close()
	if st := col.waitClosed(t, 1)[1].Stats; st.Rewritten != 1 {
		t.Errorf("rewritten %d", st.Rewritten)
	}
}
