// Package proxy is a pass-through TCP proxy for Kafka connections that
// decodes the traffic beside the forwarding, with package flow.
//
// Every byte read from one side is written to the other at once and
// unchanged: the proxy never waits for a whole frame, and decoding never
// slows forwarding. Each connection has a decoder goroutine fed through a
// bounded queue of read buffers; when the decoder falls behind and holds
// every buffer, the bytes read are forwarded but not decoded, counted in
// ConnStats.Undecoded and reported to the decoder as a gap (a flow.Gap
// problem), after which it resynchronises. The only exception to "bytes
// unchanged" is Options.RewriteAdvertised, which gives every broker a
// listener of its own and rewrites the broker addresses of the responses
// that carry them (see AddressFields; it holds those responses, only those
// and only at the versions that have such fields, until they are whole).
//
// TLS is a property of the connections, not of the forwarding: with
// Options.TLS every connection accepted is a TLS server connection, with
// Options.UpstreamTLS every upstream connection is a TLS client connection,
// and the proxy forwards, counts, hashes and decodes the plaintext inside.
// Each handshake runs in its connection's goroutine, bounded by
// Options.HandshakeTimeout; a failed one is that connection's Failed event
// (a *HandshakeError naming the side and the cause).
//
// A client's half-close is passed on (CloseWrite) so that each side sees the
// other's end of stream; a connection ends when both directions have ended
// or either side fails.
package proxy

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/tree"
)

// Options configure a Proxy.
type Options struct {
	// Listen is the address to listen on ("127.0.0.1:19092"; port 0 picks
	// a free one, see Proxy.Addr).
	Listen string
	// Upstream is the broker's address ("127.0.0.1:9092").
	Upstream string
	// Codec decodes the traffic (package flow). nil forwards without
	// decoding.
	Codec *codec.Codec
	// MaxFrame is the largest frame size prefix decoded (see
	// flow.Options.MaxFrame; 0: the codec's). Larger frames are forwarded
	// and reported, not decoded. It also bounds the responses held for
	// RewriteAdvertised.
	MaxFrame int
	// KeepTrees keeps the decoded span trees in the exchanges reported
	// (flow.Options.KeepTrees).
	KeepTrees bool
	// ShowSecrets keeps credentials in the trees kept; by default they are
	// redacted (flow.Options.ShowSecrets). The bytes forwarded are never
	// changed.
	ShowSecrets bool
	// Fallback picks the spec set that decodes what Codec's set does not
	// accept (flow.Options.Fallback); nil for none.
	Fallback flow.Fallback
	// Check judges the clients' requests (flow.Options.Check): the
	// exchanges reported carry their findings. The bytes forwarded are
	// never changed.
	Check bool
	// Touched lists in each exchange the topics and partitions its request
	// names (flow.Options.Touched).
	Touched bool
	// RewriteAdvertised routes every broker through the proxy. The proxy
	// learns the brokers (node id and address) from the responses it
	// forwards, opens a listener for each node id as it appears (ports
	// from BrokerPorts) whose connections go to that node's address as
	// last learned, and rewrites every broker address of a response (the
	// structs listed by AddressFields) to the proxy's host and that
	// node's port, re-encoding the response and its size prefix. The
	// bootstrap listener (Listen) still goes to Upstream. A node that gets
	// no listener (no port left) is written as the bootstrap address and
	// reported (a Learned event with Err).
	RewriteAdvertised bool
	// BrokerPorts are the ports of the per-broker listeners (the zero
	// range: free ports), on the host of Listen.
	BrokerPorts PortRange
	// Advertise is the "host:port" of the bootstrap listener as clients
	// reach it; its host is written for every broker, with the port of
	// the broker's listener. "" means the listen address (with an
	// unspecified IP replaced by 127.0.0.1).
	Advertise string
	// OnEvent receives the proxy's events. It is called from the
	// connections' decoder goroutines (and, for Opened and Failed, their
	// forwarding goroutines), concurrently for different connections, and
	// must be safe for that; a slow OnEvent slows decoding, never
	// forwarding.
	OnEvent func(Event)
	// Hash computes the SHA-256 of the bytes read from and written to each
	// side (ConnStats). It costs CPU on the forwarding path.
	Hash bool
	// BufferSize is the most one read takes (128 KiB when 0). Reads fill
	// buffers of 4 times that, shared with the decoder; a connection
	// holds one per direction, more (up to QueueBuffers) while its
	// decoder is behind.
	BufferSize int
	// QueueBuffers is the number of buffers per direction that the decoder
	// may hold before bytes go undecoded. When 0, as many as a quarter of
	// MaxDecodeMemoryConn holds, at least 2: with the defaults, 32
	// buffers of 512 KiB, 16 MiB per direction (about 50 ms of 300 MB/s,
	// for a decoder that the scheduler leaves waiting).
	QueueBuffers int
	// MaxDecodeMemory bounds the memory that decoding takes over all
	// connections together (bytes; 4 GiB when 0, negative for no bound):
	// each connection decoded reserves MaxDecodeMemoryConn of it while it
	// is open. A connection that finds not enough of it left is forwarded
	// as any other but not decoded, and its Opened event says so once
	// (Err, a *NotDecodedError). Forwarding never waits for decoding.
	MaxDecodeMemory int64
	// MaxDecodeMemoryConn bounds what decoding one connection takes
	// (bytes; 64 MiB when 0) besides the frames it holds (MaxFrame, one a
	// direction): in the tree of each frame, a quarter for the
	// decompressed views of its records (records.Options.
	// MaxDecompressedTotal, and MaxDecompressed at most that) and a
	// quarter for the nodes of its records (MaxNodes, at tree.NodeSize
	// bytes a node); records past that are reported in the frame's problems, not
	// decoded. The other half is the read buffers the decoder may hold,
	// a quarter per direction, unless QueueBuffers says otherwise. A payload past its limit (a decompression bomb) takes about
	// 40 MiB at most while it is counted. With KeepTrees, the trees of
	// the requests awaiting their responses take at most another half
	// (flow.HeldTrees); a request past it comes without its tree.
	MaxDecodeMemoryConn int64
	// Grace is how long Serve lets open connections run after its context
	// is cancelled before closing them (5s when 0; negative: close at
	// once).
	Grace time.Duration
	// DialTimeout bounds connecting upstream (10s when 0).
	DialTimeout time.Duration
	// Dial connects to the upstream (a net.Dialer's DialContext when nil).
	// Its context ends after DialTimeout, or when the proxy closes its
	// connections; cancelling Serve's context alone does not end it.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// TLS, when not nil, terminates TLS on the proxy's listeners (the
	// bootstrap one and every broker's): every
	// client connection accepted is a TLS server connection with this
	// configuration (see internal/tlsconf), and the proxy forwards, hashes
	// and decodes the plaintext inside. nil: the listener is plaintext.
	TLS *tls.Config
	// UpstreamTLS, when not nil, makes every upstream connection a TLS
	// client connection with this configuration. When its ServerName is
	// "", the host of the address dialled is verified.
	UpstreamTLS *tls.Config
	// HandshakeTimeout bounds each TLS handshake, with the client and with
	// the upstream (10s when 0). Handshakes run in each connection's own
	// goroutine and never hold up accepting others.
	HandshakeTimeout time.Duration
}

// EventKind says what an Event reports.
type EventKind uint8

const (
	// Opened: a client connected and the upstream connection is made.
	Opened EventKind = iota + 1
	// Flow: an exchange or problem decoded from the connection (Event.Flow).
	Flow
	// Closed: the connection ended; Event.Stats has its counts and Err
	// the error that ended it, if any.
	Closed
	// Failed: a client connected but the connection could not be made
	// (Err): the upstream could not be reached, or a TLS handshake failed
	// (a *HandshakeError); the client connection is closed.
	Failed
	// Learned: RewriteAdvertised learned a broker (Event.Broker) from a
	// response of connection Conn: a new node id and its listener, or a
	// node's new address; Err when the node could get no listener.
	Learned
)

// String names the kind ("opened", "flow", "closed", "failed").
func (k EventKind) String() string {
	switch k {
	case Opened:
		return "opened"
	case Flow:
		return "flow"
	case Closed:
		return "closed"
	case Failed:
		return "failed"
	case Learned:
		return "learned"
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Event is what a Proxy reports about one connection.
type Event struct {
	Kind EventKind
	// Conn numbers the connection (from 1, in accept order).
	Conn uint64
	// Client is the client's address, Upstream the broker's (for Learned,
	// the broker's address as the response gave it).
	Client, Upstream string
	// Time is when the event happened (for Flow, when the proxy saw the
	// data).
	Time time.Time
	// Flow is the *flow.Exchange or *flow.Problem (Kind Flow).
	Flow flow.Event
	// Stats are the connection's counts (Kind Closed).
	Stats *ConnStats
	// Err is why the connection could not be made (Failed), what ended
	// the connection other than the client's end of stream (Closed; a
	// *BrokerClosedError when the broker ended it), or why a
	// broker got no listener (Learned).
	Err error
	// Broker is the broker learned (Kind Learned); for Opened, Failed
	// and Closed of a connection accepted on a broker's listener
	// (RewriteAdvertised), that broker: its node id, the address dialled
	// and the listener. nil for the bootstrap listener's connections.
	Broker *Broker
}

// ConnStats count one connection's traffic, per direction (indexed by
// flow.Dir: ClientToServer is read from the client and written upstream).
type ConnStats struct {
	Conn             uint64
	Client, Upstream string
	Opened, Closed   time.Time
	// Read and Written are the bytes read from the source side and written
	// to the destination side of each direction. They differ only where
	// RewriteAdvertised changed responses, or when a side failed.
	Read, Written [2]int64
	// ReadSHA256 and WrittenSHA256 are the SHA-256 of those bytes (with
	// Options.Hash; else zero).
	ReadSHA256, WrittenSHA256 [2][sha256.Size]byte
	// Undecoded is the number of bytes forwarded but not decoded because
	// the decoder was behind.
	Undecoded [2]int64
	// Rewritten is the number of responses RewriteAdvertised changed.
	Rewritten int
	// Flow is the decoder's count (zero without a Codec).
	Flow flow.Stats
}

// Proxy forwards connections from its listener to the upstream broker.
type Proxy struct {
	o         Options
	ln        net.Listener
	advHost   string
	advPort   int32
	nextID    atomic.Uint64
	mu        sync.Mutex
	conns     map[*conn]struct{}
	wg        sync.WaitGroup
	closed    chan struct{}
	closeOnce sync.Once
	// dialCtx bounds the upstream dials: it ends when the open connections
	// are closed (Close, or Serve after the grace period), not when Serve's
	// context is cancelled, so that a connection accepted before a graceful
	// stop is still served. hard is set (under mu) at the same moment.
	dialCtx    context.Context
	dialCancel context.CancelFunc
	hard       bool
	// plan is where the responses carry broker addresses.
	plan addressPlan
	// boot is the bootstrap listener's route (to Options.Upstream).
	boot *route
	// rmu guards routes (the brokers' listeners, by node id), failed (the
	// address of each node that got no listener, reported) and stopped
	// (no listener opens any more); acceptWG counts the brokers' accept
	// loops.
	rmu      sync.Mutex
	routes   map[int32]*route
	failed   map[int32]string
	stopped  bool
	acceptWG sync.WaitGroup

	// decodeLeft is what is left of MaxDecodeMemory (under mu), decoding
	// the number of connections holding some of it.
	decodeLeft int64
	decoding   int
	// arenas are the node arenas of the connections' decoders when trees
	// are not kept (flow.Options.Reuse): shared and bounded, so that an
	// idle connection keeps none (300 open connections that had each sent
	// a 60 KB header bomb kept 200 KB of arena each).
	arenas flow.TreePool
	// names are the topic names by id that every connection's decoder
	// learns and reads (flow.Options.Names).
	names flow.Names
	// releasing is set while a releaseMemory is due; released is when
	// the last one ran (Unix nanoseconds).
	releasing atomic.Bool
	released  atomic.Int64
}

// New listens on o.Listen and returns the proxy; Serve starts accepting.
func New(o Options) (*Proxy, error) {
	if o.Upstream == "" {
		return nil, errors.New("proxy: no upstream address")
	}
	if o.BufferSize <= 0 {
		o.BufferSize = 128 << 10
	}
	if o.Grace == 0 {
		o.Grace = 5 * time.Second
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 10 * time.Second
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = defaultHandshakeTimeout
	}
	if o.Dial == nil {
		o.Dial = (&net.Dialer{}).DialContext
	}
	if o.MaxFrame <= 0 {
		o.MaxFrame = codec.DefaultMaxFrame
		if o.Codec != nil && o.Codec.MaxFrame > 0 {
			o.MaxFrame = o.Codec.MaxFrame
		}
	}
	if o.MaxDecodeMemoryConn <= 0 {
		o.MaxDecodeMemoryConn = DefaultMaxDecodeMemoryConn
	}
	if o.QueueBuffers <= 0 {
		o.QueueBuffers = int(max(2, o.MaxDecodeMemoryConn/4/int64(4*o.BufferSize)))
	}
	if o.MaxDecodeMemory == 0 {
		o.MaxDecodeMemory = DefaultMaxDecodeMemory
	}
	if o.Codec != nil {
		o.Codec = boundedCodec(o.Codec, o.MaxDecodeMemoryConn/4)
	}
	if o.RewriteAdvertised && o.Codec == nil {
		return nil, errors.New("proxy: RewriteAdvertised needs a Codec")
	}
	if pr := o.BrokerPorts; pr != (PortRange{}) && (pr.First < 1 || pr.Last > 65535 || pr.First > pr.Last) {
		return nil, fmt.Errorf("proxy: BrokerPorts %d-%d is not a range of ports", pr.First, pr.Last)
	}
	p := &Proxy{o: o, conns: map[*conn]struct{}{}, closed: make(chan struct{}), routes: map[int32]*route{}, failed: map[int32]string{}, decodeLeft: o.MaxDecodeMemory}
	ln, err := p.listen(o.Listen)
	if err != nil {
		return nil, err
	}
	p.ln = ln
	p.boot = &route{node: -1, ln: ln, addr: o.Upstream}
	p.dialCtx, p.dialCancel = context.WithCancel(context.Background())
	if o.RewriteAdvertised {
		adv := o.Advertise
		if adv == "" {
			adv = ln.Addr().String()
		}
		host, port, err := splitHostPort(adv)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("proxy: advertised address %q: %v", adv, err)
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			host = "127.0.0.1"
		}
		p.advHost, p.advPort = host, port
		p.plan = newAddressPlan(o.Codec)
	}
	return p, nil
}

func splitHostPort(s string) (string, int32, error) {
	host, ps, err := net.SplitHostPort(s)
	if err != nil {
		return "", 0, err
	}
	var port int32
	if _, err := fmt.Sscanf(ps, "%d", &port); err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("bad port %q", ps)
	}
	return host, port, nil
}

// Addr is the address the proxy listens on.
func (p *Proxy) Addr() net.Addr { return p.ln.Addr() }

// Serve accepts connections until ctx is cancelled or Close is called.
// On cancellation it stops accepting, lets open connections run for
// Options.Grace, then closes them; it returns once every connection has
// ended and its Closed event has been reported. It returns nil after a
// cancellation or Close, else the listener's error.
func (p *Proxy) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { p.closeListeners() })
	defer stop()
	var err error
	if aerr := p.accept(p.ln, p.boot); aerr != nil {
		select {
		case <-p.closed:
		default:
			if ctx.Err() == nil {
				err = aerr
			}
		}
	}
	p.closeListeners()
	p.acceptWG.Wait()
	if ctx.Err() != nil && p.o.Grace > 0 {
		done := make(chan struct{})
		go func() { p.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(p.o.Grace):
		case <-p.closed:
		}
	}
	p.closeConns()
	p.wg.Wait()
	return err
}

// Close stops the proxy at once: the listeners and every open connection
// are closed (their Closed events are still reported, from Serve).
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() { close(p.closed) })
	err := p.closeListeners()
	p.closeConns()
	return err
}

// Active is the number of connections open now.
func (p *Proxy) Active() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// DecodeMemory is the decoding memory that the connections being decoded
// hold now (bytes: Options.MaxDecodeMemoryConn each), and how many they
// are; 0, 0 when MaxDecodeMemory does not bound it.
func (p *Proxy) DecodeMemory() (bytes int64, conns int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return int64(p.decoding) * p.o.MaxDecodeMemoryConn, p.decoding
}

func (p *Proxy) closeConns() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hard = true
	p.dialCancel()
	for c := range p.conns {
		c.abort()
	}
}

func (p *Proxy) emit(e Event) {
	if p.o.OnEvent != nil {
		p.o.OnEvent(e)
	}
}

// chunk is a piece of one direction's stream handed to the decoder, or
// (release) a read buffer to put back in the free list once the pieces
// before it are decoded.
type chunk struct {
	d  flow.Dir
	b  []byte
	at time.Time
	// gap bytes before b were not handed over; toFrame says b begins a
	// frame (flow.Conn.GapToFrame).
	gap     int64
	toFrame bool
	end     bool
	release []byte
}

// firstFrame follows b, the next bytes of a direction, with sp (a Splitter
// that buffers no frame: Max < 0) and returns the offset in b of the first
// frame that starts in it, or -1. After a negative size prefix sp has
// stopped (frames can no longer be found) and it returns -1.
func firstFrame(sp *frame.Splitter, b []byte) int {
	base := sp.Offset()
	first := int64(-1)
	sp.Feed(b)
	for ev := sp.Next(); ev.Kind != frame.None; ev = sp.Next() {
		switch {
		case ev.Kind == frame.Negative:
			for sp.Next().Kind != frame.None {
			}
			return -1
		case first < 0 && ev.Off >= base:
			first = ev.Off
		}
	}
	if p := sp.Pending(); first < 0 && p.State == frame.InFrame && p.Off >= base {
		first = p.Off
	}
	if first < 0 {
		return -1
	}
	return int(first - base)
}

// queueItems bounds the chunks waiting for a connection's decoder.
const queueItems = 4096

// conn is one proxied connection.
type conn struct {
	p            *Proxy
	id           uint64
	client, up   net.Conn
	stats        ConnStats
	queue        chan chunk
	free         [2]chan []byte
	alloc        [2]int
	rw           *rewriter
	track        *tracker
	abortOnce    sync.Once
	errMu        sync.Mutex
	err          error
	rh, wh       [2]hash.Hash
	upstreamAddr string
	// ended is set for a direction when its source ended its stream;
	// brokerFirst when the upstream did so while the client's side was
	// open; first holds the upstream's first bytes (up to 3).
	ended       [2]atomic.Bool
	brokerFirst atomic.Bool
	first       []byte
}

// Defaults of Options.MaxDecodeMemory and MaxDecodeMemoryConn.
const (
	DefaultMaxDecodeMemory     = 4 << 30
	DefaultMaxDecodeMemoryConn = 64 << 20
)

// NotDecodedError says why a connection is forwarded without being
// decoded (Event.Err of its Opened event): the decoding memory of the
// proxy is taken by the connections being decoded.
type NotDecodedError struct {
	// Limit is Options.MaxDecodeMemory; Decoding is the number of
	// connections holding it.
	Limit    int64
	Decoding int
}

// Error reads "not decoded: the proxy's decoding memory (4294967296
// bytes) is taken by the 64 connections being decoded".
func (e *NotDecodedError) Error() string {
	return fmt.Sprintf("not decoded: the proxy's decoding memory (%d bytes) is taken by the %d connections being decoded", e.Limit, e.Decoding)
}

// boundedCodec is a codec of c's specs and options whose records
// decoding keeps each tree's decompressed views and record nodes within
// n bytes each.
func boundedCodec(c *codec.Codec, n int64) *codec.Codec {
	b := codec.New(c.Set)
	b.MaxFrame, b.Strict, b.Records = c.MaxFrame, c.Strict, c.Records
	r := &b.Records
	if r.MaxDecompressedTotal <= 0 || r.MaxDecompressedTotal > n {
		r.MaxDecompressedTotal = n
	}
	if r.MaxDecompressed == 0 || r.MaxDecompressed > n {
		r.MaxDecompressed = n
	}
	if nodes := int(n / int64(tree.NodeSize)); r.MaxNodes <= 0 || r.MaxNodes > nodes {
		r.MaxNodes = nodes
	}
	return b
}

// BrokerClosedError is what ended a connection whose broker ended it: an
// end of stream from the upstream while the client's side was still open
// (Event.Err of a Closed event).
type BrokerClosedError struct {
	// Unanswered is set when the upstream was plaintext, the client had
	// sent bytes and the broker sent nothing or a TLS record (its first
	// bytes 0x15 0x03 or 0x16 0x03) before it closed: most likely a TLS
	// listener.
	Unanswered bool
	// Hint, when set, follows "a TLS listener?" (what to do about it in
	// the caller's terms).
	Hint string
}

// Error reads "the broker closed the connection", or when Unanswered "the
// broker closed without answering (a TLS listener?)", Hint before the
// ")".
func (e *BrokerClosedError) Error() string {
	if e.Unanswered {
		return "the broker closed without answering (a TLS listener?" + e.Hint + ")"
	}
	return "the broker closed the connection"
}

// looksTLS says whether b, the first bytes from a side, begin a TLS
// alert or handshake record.
func looksTLS(b []byte) bool {
	return len(b) >= 2 && (b[0] == 0x15 || b[0] == 0x16) && b[1] == 0x03
}

func (p *Proxy) handle(client net.Conn, id uint64, r *route) {
	defer p.wg.Done()
	clientAddr := client.RemoteAddr().String()
	addr := r.upstream()
	// Report a failure before closing the client, so that its report
	// comes before whatever the client does next.
	var br *Broker
	if r.node >= 0 {
		br = &Broker{Node: r.node, Addr: addr, Listen: r.ln.Addr().String()}
	}
	failed := func(err error) {
		if br != nil {
			err = fmt.Errorf("broker %d: %w", r.node, err)
		}
		p.emit(Event{Kind: Failed, Conn: id, Client: clientAddr, Upstream: addr, Time: time.Now(), Err: err, Broker: br})
	}
	raw := client
	client, err := p.acceptTLS(raw)
	if err != nil {
		failed(err)
		raw.Close()
		return
	}
	up, err := p.dialUpstream(p.dialCtx, addr)
	if err != nil {
		failed(err)
		client.Close()
		return
	}
	c := &conn{p: p, id: id, client: client, up: up}
	c.stats = ConnStats{Conn: id, Client: client.RemoteAddr().String(), Upstream: up.RemoteAddr().String(), Opened: time.Now()}
	p.mu.Lock()
	if p.hard {
		p.mu.Unlock()
		client.Close()
		up.Close()
		return
	}
	p.conns[c] = struct{}{}
	decode, reserved := p.o.Codec != nil, false
	var notDecoded error
	if decode && p.o.MaxDecodeMemory > 0 {
		if p.decodeLeft < p.o.MaxDecodeMemoryConn {
			decode = false
			notDecoded = &NotDecodedError{Limit: p.o.MaxDecodeMemory, Decoding: p.decoding}
		} else {
			p.decodeLeft -= p.o.MaxDecodeMemoryConn
			p.decoding++
			reserved = true
		}
	}
	p.mu.Unlock()
	p.emit(Event{Kind: Opened, Conn: id, Client: c.stats.Client, Upstream: c.stats.Upstream, Time: c.stats.Opened, Broker: br, Err: notDecoded})
	if p.o.Hash {
		for i := range 2 {
			c.rh[i], c.wh[i] = sha256.New(), sha256.New()
		}
	}
	if p.o.RewriteAdvertised {
		c.track = newTracker(p.o.MaxFrame, p.plan)
		c.rw = newRewriter(p, c.track, c)
	}
	decoded := make(chan flow.Stats, 1)
	if decode {
		n := p.o.QueueBuffers
		c.queue = make(chan chunk, queueItems)
		c.free[0], c.free[1] = make(chan []byte, n), make(chan []byte, n)
		go c.decode(decoded)
	} else {
		decoded <- flow.Stats{}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.pipe(flow.ClientToServer, client, up) }()
	go func() { defer wg.Done(); c.pipe(flow.ServerToClient, up, client) }()
	wg.Wait()
	client.Close()
	up.Close()
	if c.queue != nil {
		close(c.queue)
	}
	c.stats.Flow = <-decoded
	p.mu.Lock()
	delete(p.conns, c)
	if reserved {
		// Its decoder is done (c.stats.Flow came from it).
		p.decodeLeft += p.o.MaxDecodeMemoryConn
		p.decoding--
	}
	p.mu.Unlock()
	c.stats.Closed = time.Now()
	if p.o.Hash {
		for i := range 2 {
			c.rh[i].Sum(c.stats.ReadSHA256[i][:0])
			c.wh[i].Sum(c.stats.WrittenSHA256[i][:0])
		}
	}
	if c.rw != nil {
		c.stats.Rewritten = c.rw.count
	}
	if c.err == nil && c.brokerFirst.Load() {
		c.err = &BrokerClosedError{Unanswered: p.o.UpstreamTLS == nil && c.stats.Read[flow.ClientToServer] > 0 && (c.stats.Read[flow.ServerToClient] == 0 || looksTLS(c.first))}
	}
	st := c.stats
	p.emit(Event{Kind: Closed, Conn: id, Client: st.Client, Upstream: st.Upstream, Time: st.Closed, Stats: &st, Err: c.err, Broker: br})
	if st.Flow.Held[0]+st.Flow.Held[1] >= releaseHeld {
		p.releaseMemory()
	}
}

// releaseHeld is how many bytes of frames a connection must have held
// (flow.Stats.Held, both directions) for its end to return memory to the
// system.
const releaseHeld = 16 << 20

// releaseMemory returns the memory that connections no longer hold to the
// system soon (two garbage collections, then runtime/debug.FreeOSMemory
// returns the free pages), at most once a second, once for connections that
// end together: without it a large frame's buffers stay counted in the
// process's resident memory until the next collection, which an idle
// proxy may not run for minutes.
func (p *Proxy) releaseMemory() {
	if !p.releasing.CompareAndSwap(false, true) {
		return
	}
	wait := max(100*time.Millisecond, time.Until(time.Unix(0, p.released.Load()).Add(time.Second)))
	time.AfterFunc(wait, func() {
		// Two collections: the first moves the buffers pooled for reuse
		// to the pools' victim caches, the second frees them.
		runtime.GC()
		debug.FreeOSMemory()
		p.released.Store(time.Now().UnixNano())
		p.releasing.Store(false)
	})
}

// abort closes both sides, ending both directions.
func (c *conn) abort() {
	c.abortOnce.Do(func() {
		c.client.Close()
		c.up.Close()
	})
}

func (c *conn) fail(err error) {
	c.errMu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.errMu.Unlock()
	c.abort()
}

// decode runs the flow decoder over the queue until it is closed.
func (c *conn) decode(done chan<- flow.Stats) {
	p := c.p
	var arenas *flow.TreePool
	if !p.o.KeepTrees {
		// (Kept trees are read by the callback's consumers, not only
		// during it: they are not recycled.)
		arenas = &p.arenas
	}
	fc := flow.New(flow.Options{Codec: p.o.Codec, MaxFrame: p.o.MaxFrame, KeepTrees: p.o.KeepTrees, Reuse: arenas, Held: &flow.HeldTrees{Max: p.o.MaxDecodeMemoryConn / 2}, ShowSecrets: p.o.ShowSecrets, Fallback: p.o.Fallback, Names: &p.names, Check: p.o.Check, Touched: p.o.Touched}, func(e flow.Event) {
		at := time.Now()
		switch e := e.(type) {
		case *flow.Exchange:
			if e.Response != nil {
				at = e.Response.End
			} else if e.Request != nil {
				at = e.Request.End
			}
		case *flow.Problem:
			at = e.Time
		}
		p.emit(Event{Kind: Flow, Conn: c.id, Client: c.stats.Client, Upstream: c.stats.Upstream, Time: at, Flow: e})
	})
	for ch := range c.queue {
		if ch.toFrame {
			fc.GapToFrame(ch.d, ch.gap, ch.at)
		} else if ch.gap > 0 {
			fc.Gap(ch.d, ch.gap, ch.at)
		}
		if len(ch.b) > 0 {
			fc.Data(ch.d, ch.b, ch.at)
		}
		if ch.release != nil {
			c.free[ch.d] <- ch.release
		}
		if ch.end {
			fc.End(ch.d, ch.at)
		}
	}
	fc.Close(time.Now())
	done <- fc.Stats()
}

// buffer returns a read buffer (of 4 reads) for direction d that the
// decoder does not hold, or nil when it holds them all.
func (c *conn) buffer(d flow.Dir) []byte {
	select {
	case b := <-c.free[d]:
		return b
	default:
	}
	if c.alloc[d] < c.p.o.QueueBuffers {
		c.alloc[d]++
		return make([]byte, 4*c.p.o.BufferSize)
	}
	return nil
}

// send queues ch for the decoder without blocking; false when the queue
// is full.
func (c *conn) send(ch chunk) bool {
	select {
	case c.queue <- ch:
		return true
	default:
		return false
	}
}

// pipe forwards direction d from src to dst until src ends or either
// fails.
//
// Reads go into a buffer shared with the decoder: each read fills the next
// part of it, is queued for the decoder (which only reads it) and is
// written to dst. When less than a read's worth is left, the buffer is
// queued for release and the next one taken. When the decoder holds every
// buffer (or its queue is full), reads go to a spare buffer and are
// counted undecoded; the decoder is told of them as a gap.
func (c *conn) pipe(d flow.Dir, src, dst net.Conn) {
	decoding := c.queue != nil
	rs := c.p.o.BufferSize
	var buf, spare []byte
	off := 0
	if decoding {
		buf = c.buffer(d)
	}
	var undecoded int64
	// fr follows the frames, so that decoding dropped while the decoder
	// is behind resumes at a frame boundary.
	fr := frame.Splitter{Max: -1}
	write := func(b []byte) error {
		n, err := dst.Write(b)
		c.stats.Written[d] += int64(n)
		if c.wh[d] != nil {
			c.wh[d].Write(b[:n])
		}
		return err
	}
	for {
		if decoding && buf != nil && len(buf)-off < rs {
			if !c.send(chunk{d: d, release: buf}) {
				c.alloc[d]-- // dropped: the garbage collector takes it
			}
			buf, off = nil, 0
		}
		if decoding && buf == nil {
			buf = c.buffer(d)
		}
		var rb []byte
		if buf != nil {
			rb = buf[off : off+rs]
		} else {
			if spare == nil {
				spare = make([]byte, rs)
			}
			rb = spare
		}
		n, rerr := src.Read(rb)
		if n > 0 {
			at := time.Now()
			data := rb[:n]
			if d == flow.ServerToClient && len(c.first) < 3 {
				c.first = append(c.first, data[:min(n, 3-len(c.first))]...)
			}
			c.stats.Read[d] += int64(n)
			if c.rh[d] != nil {
				c.rh[d].Write(data)
			}
			if decoding {
				// Queue before writing, so that a request is queued
				// before its response can be. Once behind, resume at the
				// first frame that starts in a read.
				first := firstFrame(&fr, data)
				ch := chunk{d: d, b: data, at: at, gap: undecoded}
				if undecoded > 0 && first >= 0 {
					ch.b, ch.gap, ch.toFrame = data[first:], undecoded+int64(first), true
				}
				if buf != nil && (undecoded == 0 || first >= 0 || fr.State() == frame.Stopped) && c.send(ch) {
					undecoded = 0
					off += n
					c.stats.Undecoded[d] += ch.gap
				} else {
					undecoded += int64(n)
				}
			}
			var werr error
			switch {
			case c.track != nil && d == flow.ClientToServer:
				c.track.feed(data)
				werr = write(data)
			case c.rw != nil && d == flow.ServerToClient:
				werr = c.rw.process(data, write)
			default:
				werr = write(data)
			}
			if werr != nil {
				c.fail(fmt.Errorf("%s: write: %w", d, werr))
				break
			}
		}
		if rerr != nil {
			if errors.Is(rerr, io.EOF) {
				c.ended[d].Store(true)
				brokerFirst := d == flow.ServerToClient && !c.ended[flow.ClientToServer].Load()
				if brokerFirst {
					c.brokerFirst.Store(true)
				}
				// Pass the half-close on.
				if cw, ok := dst.(interface{ CloseWrite() error }); ok {
					cw.CloseWrite()
				}
				// A broker that ends its side is done with the
				// connection (Kafka's brokers do not half-close): stop
				// reading an idle client, so that the connection ends
				// now, not at the client's next write.
				if cr, ok := dst.(interface{ CloseRead() error }); ok && brokerFirst {
					cr.CloseRead()
				}
			} else if !errors.Is(rerr, net.ErrClosed) {
				c.fail(fmt.Errorf("%s: read: %w", d, rerr))
			} else {
				c.abort()
			}
			break
		}
	}
	if decoding {
		// The end must reach the decoder: wait for room if need be (this
		// direction forwards nothing more).
		c.stats.Undecoded[d] += undecoded
		c.queue <- chunk{d: d, at: time.Now(), gap: undecoded, end: true}
	}
}
