package capture

import (
	"fmt"
	"net/netip"
	"slices"
	"time"
)

// DefaultMaxBuffered is Options.MaxBuffered when it is 0 (bytes per
// direction of one connection).
const DefaultMaxBuffered = 4 << 20

// Dir is the direction of a half of a connection.
type Dir uint8

const (
	// ClientToServer is the client's half: requests.
	ClientToServer Dir = iota
	// ServerToClient is the server's half: responses.
	ServerToClient
)

// String returns "client→server" or "server→client".
func (d Dir) String() string {
	if d == ServerToClient {
		return "server→client"
	}
	return "client→server"
}

// Conn is one TCP connection of a capture.
type Conn struct {
	// ID numbers the connections from 1 in the order their first packet
	// came.
	ID int
	// Client and Server are the two ends.
	Client, Server netip.AddrPort
	// SawSYN says the handshake (the client's SYN or the server's SYN-ACK)
	// was captured: both streams start at their first byte. Without it the
	// connection was already open when the capture started and both streams
	// start mid-way (at their first captured segments).
	SawSYN bool
	// ByPort says the client and server were told apart by Options.Ports,
	// not by a captured SYN or SYN-ACK.
	ByPort bool
	// Start is the timestamp of the connection's first packet.
	Start time.Time
}

// String returns "client→server", as "10.0.0.1:53000→10.0.0.2:9092".
func (c *Conn) String() string { return c.Client.String() + "→" + c.Server.String() }

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EventOpen is a new connection, at its first SYN or data segment.
	EventOpen EventKind = iota + 1
	// EventData is the next bytes of one direction's stream, in order.
	EventData
	// EventGap is bytes of one direction's stream that the capture lacks:
	// the next Data event starts Gap bytes later in the stream.
	EventGap
	// EventEnd is one direction's FIN, once every byte before it came.
	EventEnd
	// EventClose is the end of a connection: both FINs, an RST, a new
	// connection on the same ports, Options.IdleTimeout without a packet,
	// or the end of the capture. No event of the connection follows, and
	// the Assembler holds nothing of it any more.
	EventClose
)

// String returns "open", "data", "gap", "end" or "close".
func (k EventKind) String() string {
	switch k {
	case EventOpen:
		return "open"
	case EventData:
		return "data"
	case EventGap:
		return "gap"
	case EventEnd:
		return "end"
	case EventClose:
		return "close"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is what an Assembler reports, in the order the capture shows it.
type Event struct {
	// Kind says what happened.
	Kind EventKind
	// Conn is the connection; the pointer stays the same for all its
	// events, so it can key a map until its Close.
	Conn *Conn
	// Dir is the direction of Data, Gap and End events.
	Dir Dir
	// Time is the timestamp of the packet that carried the data, or that
	// made the assembler report the gap, end or close.
	Time time.Time
	// Packet is that packet's number in the file (0 for what Flush reports).
	Packet int
	// Offset is the stream offset (bytes from the direction's first byte
	// after its SYN, or from the first byte captured when it started
	// mid-way) of Data or of the first missing byte of a Gap.
	Offset int64
	// Data holds a Data event's bytes; valid only during the callback.
	Data []byte
	// Gap is the number of missing bytes of a Gap event.
	Gap int64
	// Reason says why a Gap, End or Close happened: "segments missing",
	// "snap length", "FIN", "RST from server", "end of capture", …
	Reason string
}

// Options configure an Assembler.
type Options struct {
	// Ports are the server ports: a connection is followed only when one
	// of its ends uses one of them (every connection when Ports is empty),
	// and without a captured SYN the end using it is the server.
	Ports []uint16
	// MaxBuffered bounds the out-of-order bytes held for one direction of
	// a connection (DefaultMaxBuffered when 0). Beyond it the earliest hole
	// is declared a Gap.
	MaxBuffered int
	// IdleTimeout, when positive, closes a connection (Close event with
	// reason "idle") once a packet of the capture comes this long (capture
	// time) after the connection's last packet, so that the connections
	// whose end the capture lacks are freed; a later packet of it starts a
	// new, mid-stream connection. 0 keeps connections open to the end.
	IdleTimeout time.Duration
}

// Stats counts what an Assembler saw.
type Stats struct {
	// Packets is the number of packets added.
	Packets int
	// NotTCP counts packets that are not TCP over IPv4 or IPv6 (ARP, UDP,
	// ICMP, IPv4 fragments).
	NotTCP int
	// Undecodable counts packets whose headers do not decode, or whose
	// link type is not supported; FirstUndecodable describes the first.
	Undecodable      int
	FirstUndecodable string
	// OtherPorts counts TCP packets of connections with no port in
	// Options.Ports.
	OtherPorts int
	// Connections is the number of connections followed.
	Connections int
	// Bytes is the number of stream bytes delivered in Data events.
	Bytes int64
	// Retransmitted counts payload bytes received again (and not
	// delivered again).
	Retransmitted int64
	// OutOfOrder counts segments that came before bytes preceding them.
	OutOfOrder int
	// Gaps and GapBytes count Gap events and their bytes.
	Gaps     int
	GapBytes int64
	// Forced counts gaps declared because a direction's buffered
	// out-of-order data exceeded Options.MaxBuffered.
	Forced int
	// BeforeStart counts payload bytes of a direction that started
	// mid-way which precede its first captured segment (ignored).
	BeforeStart int64
}

// pend is a segment waiting for the bytes before it.
type pend struct {
	seq  uint32
	data []byte
	cut  int
	time time.Time
	pkt  int
}

// half is one direction of a connection.
type half struct {
	started bool
	next    uint32 // sequence number of the next byte expected
	offset  int64  // stream offset of next
	pending []pend // sorted by sequence number from next
	held    int    // bytes in pending
	fin     bool
	finSeq  uint32
	ended   bool
	midway  bool   // started without its SYN
	first   uint32 // sequence number of the first byte, when midway
}

// conn is a followed connection.
type conn struct {
	c      Conn
	halves [2]half
	last   time.Time // timestamp of the connection's last packet
	isn    uint32    // client's initial sequence number, when SawSYN
}

type connKey struct{ a, b netip.AddrPort }

func keyOf(s, d netip.AddrPort) connKey {
	if s.Addr().Less(d.Addr()) || s.Addr() == d.Addr() && s.Port() < d.Port() {
		return connKey{s, d}
	}
	return connKey{d, s}
}

// Assembler reassembles the TCP connections of a capture. It is not safe
// for concurrent use.
type Assembler struct {
	opts  Options
	emit  func(*Event)
	dec   decoder
	conns map[connKey]*conn
	stats Stats
	ev    Event
	last  time.Time // timestamp of the last packet added
	swept time.Time // when idle connections were last looked for
}

// NewAssembler returns an Assembler that reports to emit, synchronously
// from Add and Flush. The Event passed is reused: copy what must outlive
// the call.
func NewAssembler(o Options, emit func(*Event)) *Assembler {
	if o.MaxBuffered <= 0 {
		o.MaxBuffered = DefaultMaxBuffered
	}
	return &Assembler{opts: o, emit: emit, conns: map[connKey]*conn{}}
}

// Stats returns the counts so far.
func (a *Assembler) Stats() Stats { return a.stats }

func (a *Assembler) isPort(p uint16) bool { return slices.Contains(a.opts.Ports, p) }

// Add takes the next packet of the capture.
func (a *Assembler) Add(p *Packet) {
	a.stats.Packets++
	a.last = p.Time
	s, err := a.dec.decode(p)
	if err != nil {
		if _, ok := err.(errNotTCP); ok {
			a.stats.NotTCP++
			return
		}
		a.stats.Undecodable++
		if a.stats.FirstUndecodable == "" {
			a.stats.FirstUndecodable = fmt.Sprintf("packet %d at file offset %d: %v", p.Num, p.Offset, err)
		}
		return
	}
	a.sweep(p)
	if len(a.opts.Ports) > 0 && !a.isPort(s.src.Port()) && !a.isPort(s.dst.Port()) {
		a.stats.OtherPorts++
		return
	}
	k := keyOf(s.src, s.dst)
	c := a.conns[k]
	if c != nil && s.syn && !s.ackFlag && c.c.Client == s.src {
		if !c.c.SawSYN || s.seq != c.isn {
			a.close(c, p, "new SYN on the same ports")
			c = nil
		}
	}
	if c == nil {
		if !s.syn && len(s.payload) == 0 && s.cut == 0 {
			return // nothing to follow yet (an ACK, a FIN or RST of an unseen stream)
		}
		c = &conn{}
		a.stats.Connections++
		c.c.ID = a.stats.Connections
		c.c.Start = p.Time
		switch {
		case s.syn && !s.ackFlag:
			c.c.Client, c.c.Server, c.c.SawSYN, c.isn = s.src, s.dst, true, s.seq
		case s.syn:
			c.c.Client, c.c.Server, c.c.SawSYN, c.isn = s.dst, s.src, true, s.ack-1
		case a.isPort(s.dst.Port()) || len(a.opts.Ports) == 0:
			c.c.Client, c.c.Server, c.c.ByPort = s.src, s.dst, true
		default:
			c.c.Client, c.c.Server, c.c.ByPort = s.dst, s.src, true
		}
		a.conns[k] = c
		a.ev = Event{Kind: EventOpen, Conn: &c.c, Time: p.Time, Packet: p.Num}
		a.emit(&a.ev)
	}
	c.last = p.Time
	d := ClientToServer
	if s.src != c.c.Client {
		d = ServerToClient
	}
	h := &c.halves[d]
	if s.syn {
		if !h.started {
			h.started, h.next = true, s.seq+1
		}
		if d == ServerToClient && s.ackFlag {
			if ch := &c.halves[ClientToServer]; !ch.started {
				ch.started, ch.next = true, s.ack
			}
		}
		s.seq++
	}
	if s.ackFlag {
		a.acked(c, 1-d, s.ack, p)
	}
	a.segment(c, d, h, &s, p)
	if s.rst {
		reason := "RST from client"
		if d == ServerToClient {
			reason = "RST from server"
		}
		a.close(c, p, reason)
		return
	}
	if c.halves[0].ended && c.halves[1].ended {
		a.close(c, p, "FIN both ways")
	}
}

// segment handles the payload and FIN of one segment of half h.
func (a *Assembler) segment(c *conn, d Dir, h *half, s *segment, p *Packet) {
	if !h.started {
		if len(s.payload) == 0 && s.cut == 0 {
			return
		}
		h.started, h.next, h.midway, h.first = true, s.seq, true, s.seq
	}
	data, cut, seq := s.payload, s.cut, s.seq
	if s.fin && !h.fin {
		h.fin, h.finSeq = true, seq+uint32(len(data)+cut)
	}
	if n := len(data) + cut; n > 0 {
		rel := int32(seq - h.next)
		if rel < 0 {
			skip := int(-rel)
			if h.midway {
				if before := int32(h.first - seq); before > 0 {
					b := min(int(before), skip, len(data))
					a.stats.BeforeStart += int64(b)
					a.stats.Retransmitted -= int64(b) // counted again by old below
				}
			}
			if skip >= n {
				a.old(h, int64(len(data)))
				data, cut = nil, 0
			} else {
				a.old(h, int64(min(skip, len(data))))
				if skip <= len(data) {
					data = data[skip:]
				} else {
					cut -= skip - len(data)
					data = nil
				}
				seq = h.next
			}
			rel = 0
		}
		if len(data)+cut > 0 {
			if rel == 0 {
				a.deliver(c, d, h, data, cut, p.Time, p.Num)
				a.drain(c, d, h)
			} else {
				a.stats.OutOfOrder++
				a.hold(h, pend{seq: seq, data: append([]byte(nil), data...), cut: cut, time: p.Time, pkt: p.Num})
				for (h.held > a.opts.MaxBuffered || len(h.pending) > max(a.opts.MaxBuffered/64, 64)) && len(h.pending) > 0 {
					a.stats.Forced++
					a.skipTo(c, d, h, h.pending[0].seq, h.pending[0].time, h.pending[0].pkt, fmt.Sprintf("segments missing; gave up waiting with %d bytes buffered", h.held))
					a.drain(c, d, h)
				}
			}
		}
	}
	a.checkEnd(c, d, h, p.Time, p.Num)
}

// acked takes the peer's acknowledgement of half d up to (not including)
// sequence number ack: bytes the peer received that the capture lacks will
// not be sent again, so the hole is declared at once rather than waited for.
func (a *Assembler) acked(c *conn, d Dir, ack uint32, p *Packet) {
	h := &c.halves[d]
	if !h.started || h.ended {
		return
	}
	if h.fin && int32(ack-h.finSeq) > 0 {
		ack = h.finSeq // the FIN's own sequence number is no data
	}
	for int32(ack-h.next) > 0 {
		end, t, num := ack, p.Time, p.Num
		if len(h.pending) > 0 && int32(h.pending[0].seq-ack) < 0 {
			// the hole ends where the held data starts, which came then
			end, t, num = h.pending[0].seq, h.pending[0].time, h.pending[0].pkt
		}
		if end == h.next {
			a.drain(c, d, h)
			continue
		}
		a.gap(c, d, h, int64(int32(end-h.next)), t, num, "segments missing (acknowledged by the peer, not captured)")
		a.drain(c, d, h)
	}
	a.checkEnd(c, d, h, p.Time, p.Num)
}

// old counts bytes already delivered, or from before a mid-way start.
func (a *Assembler) old(h *half, n int64) {
	if n <= 0 {
		return
	}
	a.stats.Retransmitted += n
}

// hold inserts a segment into h.pending in sequence order.
func (a *Assembler) hold(h *half, s pend) {
	rel := s.seq - h.next
	i := len(h.pending)
	for i > 0 && h.pending[i-1].seq-h.next > rel {
		i--
	}
	h.pending = slices.Insert(h.pending, i, s)
	h.held += len(s.data)
}

// deliver reports data (and then cut missing bytes) at h.next.
func (a *Assembler) deliver(c *conn, d Dir, h *half, data []byte, cut int, t time.Time, pkt int) {
	if len(data) > 0 {
		a.ev = Event{Kind: EventData, Conn: &c.c, Dir: d, Time: t, Packet: pkt, Offset: h.offset, Data: data}
		a.emit(&a.ev)
		a.stats.Bytes += int64(len(data))
		h.offset += int64(len(data))
		h.next += uint32(len(data))
	}
	if cut > 0 {
		a.gap(c, d, h, int64(cut), t, pkt, "snap length")
	}
}

// gap reports n missing bytes at h.next and moves past them.
func (a *Assembler) gap(c *conn, d Dir, h *half, n int64, t time.Time, pkt int, reason string) {
	a.ev = Event{Kind: EventGap, Conn: &c.c, Dir: d, Time: t, Packet: pkt, Offset: h.offset, Gap: n, Reason: reason}
	a.emit(&a.ev)
	a.stats.Gaps++
	a.stats.GapBytes += n
	h.offset += n
	h.next += uint32(n)
}

// skipTo declares the bytes from h.next to seq missing.
func (a *Assembler) skipTo(c *conn, d Dir, h *half, seq uint32, t time.Time, pkt int, reason string) {
	if n := int32(seq - h.next); n > 0 {
		a.gap(c, d, h, int64(n), t, pkt, reason)
	}
}

// drain delivers the pending segments that have become contiguous.
func (a *Assembler) drain(c *conn, d Dir, h *half) {
	for len(h.pending) > 0 {
		s := h.pending[0]
		rel := int32(s.seq - h.next)
		if rel > 0 {
			return
		}
		h.pending = h.pending[1:]
		h.held -= len(s.data)
		skip := int(-rel)
		data, cut := s.data, s.cut
		if skip >= len(data)+cut {
			a.old(h, int64(len(data)))
			continue
		}
		a.old(h, int64(min(skip, len(data))))
		if skip <= len(data) {
			data = data[skip:]
		} else {
			cut -= skip - len(data)
			data = nil
		}
		a.deliver(c, d, h, data, cut, s.time, s.pkt)
	}
	h.pending = nil
}

// checkEnd reports h's end once its FIN's sequence number is reached.
func (a *Assembler) checkEnd(c *conn, d Dir, h *half, t time.Time, pkt int) {
	if h.fin && !h.ended && h.next == h.finSeq && len(h.pending) == 0 {
		h.ended = true
		a.ev = Event{Kind: EventEnd, Conn: &c.c, Dir: d, Time: t, Packet: pkt, Offset: h.offset, Reason: "FIN"}
		a.emit(&a.ev)
	}
}

// flush declares every hole of h missing and delivers what it holds,
// up to its FIN when one came.
func (a *Assembler) flush(c *conn, d Dir, h *half, t time.Time, pkt int, reason string) {
	for len(h.pending) > 0 {
		a.skipTo(c, d, h, h.pending[0].seq, h.pending[0].time, h.pending[0].pkt, reason)
		a.drain(c, d, h)
	}
	if h.fin && !h.ended {
		a.skipTo(c, d, h, h.finSeq, t, pkt, reason)
		a.checkEnd(c, d, h, t, pkt)
	}
}

// close flushes both halves of c and reports its end.
func (a *Assembler) close(c *conn, p *Packet, reason string) {
	t, num := a.last, 0
	if p != nil {
		t, num = p.Time, p.Num
	}
	for d := range c.halves {
		a.flush(c, Dir(d), &c.halves[d], t, num, "segments missing before the "+closeWhat(reason))
	}
	a.ev = Event{Kind: EventClose, Conn: &c.c, Time: t, Packet: num, Reason: reason}
	a.emit(&a.ev)
	delete(a.conns, keyOf(c.c.Client, c.c.Server))
}

func closeWhat(reason string) string {
	switch reason {
	case "end of capture", "FIN both ways":
		return reason
	case "idle":
		return "idle timeout"
	}
	if len(reason) >= 3 && reason[:3] == "RST" {
		return "RST"
	}
	return "close"
}

// Flush ends the capture: every connection still open has its holes
// declared missing, its buffered data delivered and a Close event with
// reason "end of capture", in the order of the connections' IDs.
func (a *Assembler) Flush() {
	open := make([]*conn, 0, len(a.conns))
	for _, c := range a.conns {
		open = append(open, c)
	}
	slices.SortFunc(open, func(x, y *conn) int { return x.c.ID - y.c.ID })
	for _, c := range open {
		a.close(c, nil, "end of capture")
	}
}

// sweep closes the connections idle for Options.IdleTimeout at packet p's
// time, in the order of their IDs. It looks at most every quarter of the
// timeout, so a connection is closed between 1 and 1.25 timeouts after its
// last packet.
func (a *Assembler) sweep(p *Packet) {
	idle := a.opts.IdleTimeout
	if idle <= 0 {
		return
	}
	if a.swept.IsZero() || p.Time.Before(a.swept) {
		a.swept = p.Time
		return
	}
	if p.Time.Sub(a.swept) < idle/4 {
		return
	}
	a.swept = p.Time
	var old []*conn
	for _, c := range a.conns {
		if p.Time.Sub(c.last) >= idle {
			old = append(old, c)
		}
	}
	slices.SortFunc(old, func(x, y *conn) int { return x.c.ID - y.c.ID })
	for _, c := range old {
		a.close(c, p, "idle")
	}
}

// Open returns the number of connections open (followed and not closed).
func (a *Assembler) Open() int { return len(a.conns) }
