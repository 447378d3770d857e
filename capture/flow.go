package capture

import (
	"io"
	"slices"
	"time"

	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/spec"

	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/tlsdecrypt"
)

// FlowOptions configure DecodeFlows.
type FlowOptions struct {
	// Assembler are the reassembly options (Ports: the Kafka server ports).
	Assembler Options
	// Flow configures each connection's decoder (package flow); Unsynced
	// is set for a connection whose handshake was not captured, which
	// starts mid-stream.
	Flow flow.Options
	// OnOpen, when not nil, is called as a connection starts, before its
	// first event.
	OnOpen func(c *Conn, t time.Time)
	// OnEvent receives each connection's exchanges and problems, in the
	// order of the capture.
	OnEvent func(c *Conn, e flow.Event)
	// OnClose, when not nil, is called once a connection has ended (its
	// Close event: FIN both ways, an RST, Assembler.IdleTimeout, the end of
	// the capture), after its last event; reason is the Close's. DecodeFlows
	// holds nothing of c after it: a caller keeping state per connection
	// frees it here, so that memory stays bounded over a long capture.
	OnClose func(c *Conn, t time.Time, reason string)
	// KeyLog, when not nil, decrypts TLS: a connection whose first bytes
	// are a TLS record goes through a tlsdecrypt.Conn with these secrets,
	// and the application data it decrypts goes to the flow decoder
	// (whose stream offsets then count plaintext bytes).
	KeyLog *tlsdecrypt.KeyLog
	// OnTLS, when not nil, receives what the TLS decryption says about a
	// connection: its session once the ServerHello is read (problem
	// false: "TLS 1.3 TLS_AES_128_GCM_SHA256 session client_random=…"),
	// and what cannot be decrypted (problem true; the message starts with
	// "TLS").
	OnTLS func(c *Conn, t time.Time, msg string, problem bool)
	// Detect, when not nil, finds Kafka by the bytes: a connection with
	// no end on a port of KafkaPorts is decoded only when the first bytes
	// its client sends are a Kafka request of these specs
	// (frame.Recognize); the others are counted in FlowTotals.NotKafka by
	// what their first bytes are, and OnOpen, OnEvent and OnClose are not
	// called for them. Assembler.Ports should then be empty (every
	// connection followed). The events of a connection are held while it is
	// judged: up to detectMax bytes (and the segment that crosses it) in up
	// to detectMax events.
	Detect *spec.Set
	// KafkaPorts are the ports whose connections are decoded whatever
	// their first bytes (with Detect; without it Assembler.Ports decides).
	KafkaPorts []uint16
}

// detectMax is the number of bytes of a connection held while Detect
// judges it: a request header with a client id of up to about 4 KiB.
const detectMax = 4096

// FlowTotals sum the decoders' flow.Stats over every connection, both
// directions together.
type FlowTotals struct {
	// Exchanges, Problems and Notices sum flow.Stats's.
	Exchanges, Problems, Notices int64
	// Bytes is the bytes reassembled, Skipped those not decoded (over-limit
	// frames, bytes skipped while resynchronising, streams that are not
	// Kafka), Missing those missing from the capture.
	Bytes, Skipped, Missing int64
	// NotKafka counts the streams found to speak another protocol, by
	// protocol ("TLS", "HTTP"); with Detect also the connections not
	// decoded, by what their first bytes are (frame.Recognition.Short:
	// "TLS", "HTTP", "text", "binary").
	NotKafka map[string]int
	// Connections counts the connections decoded, and Ports them by the
	// server's port; Found are the ports among them where Detect found
	// Kafka (not in KafkaPorts).
	Connections int
	Ports       map[uint16]int
	Found       map[uint16]bool
}

// DecodeFlows reads r's packets to the end, reassembles the TCP connections
// on the Kafka ports and decodes each with a flow.Conn, reporting its
// exchanges and problems to o.OnEvent. It returns the assembler's Stats,
// the decoders' totals and the error that stopped the reading (nil at the
// end of the capture): what came before it is decoded and reported, and
// the connections open then are closed as at the end of a capture.
func DecodeFlows(r *Reader, o FlowOptions) (Stats, FlowTotals, error) {
	tot := FlowTotals{NotKafka: map[string]int{}, Ports: map[uint16]int{}, Found: map[uint16]bool{}}
	// held are the events of the connections Detect has not judged yet.
	held := map[*Conn]*heldConn{}
	decoders := map[*Conn]*flow.Conn{}
	// tlsConns holds the decrypting Conn of each TLS connection, and nil
	// for a connection found not to be TLS; a connection not in it has
	// had no data yet.
	tlsConns := map[*Conn]*tlsdecrypt.Conn{}
	tlsNote := func(c *Conn, t time.Time, msg string, problem bool) {
		if o.OnTLS != nil {
			o.OnTLS(c, t, msg, problem)
		}
	}
	var handle func(e *Event)
	handle = func(e *Event) {
		if e.Kind == EventOpen {
			if o.Detect != nil && !slices.Contains(o.KafkaPorts, e.Conn.Server.Port()) && !slices.Contains(o.KafkaPorts, e.Conn.Client.Port()) && held[e.Conn] == nil {
				held[e.Conn] = &heldConn{open: *e}
				return
			}
			tot.Connections++
			tot.Ports[e.Conn.Server.Port()]++
			if o.OnOpen != nil {
				o.OnOpen(e.Conn, e.Time)
			}
			fo := o.Flow
			fo.Unsynced = fo.Unsynced || !e.Conn.SawSYN
			c := e.Conn
			decoders[c] = flow.New(fo, func(ev flow.Event) {
				if o.OnEvent != nil {
					o.OnEvent(c, ev)
				}
			})
			return
		}
		if h := held[e.Conn]; h != nil {
			switch h.add(e, o.Detect) {
			case detectDecode:
				tot.Found[e.Conn.Server.Port()] = true
				handle(&h.open) // held: opens the decoder
				delete(held, e.Conn)
				for i := range h.events {
					handle(&h.events[i])
				}
			case detectWait:
			case detectIgnore:
				if !h.ignored && h.what != "" {
					tot.NotKafka[h.what]++
				}
				h.ignored, h.events = true, nil
			}
			if e.Kind == EventClose {
				delete(held, e.Conn)
			}
			return
		}
		fc := decoders[e.Conn]
		if fc == nil {
			return
		}
		tc, decided := tlsConns[e.Conn]
		if !decided && o.KeyLog != nil && (e.Kind == EventData || e.Kind == EventGap) {
			if e.Kind == EventData && tlsdecrypt.Looks(e.Data) {
				c := e.Conn
				tc = tlsdecrypt.New(tlsdecrypt.Options{
					KeyLog: o.KeyLog,
					Data:   func(d tlsdecrypt.Dir, p []byte, t time.Time) { fc.Data(flow.Dir(d), p, t) },
					Problem: func(d tlsdecrypt.Dir, off int64, t time.Time, msg string) {
						tlsNote(c, t, msg, true)
					},
					Session: func(s *tlsdecrypt.Session, t time.Time) { tlsNote(c, t, s.String(), false) },
				})
			}
			tlsConns[e.Conn] = tc
		}
		switch e.Kind {
		case EventData:
			if tc != nil {
				tc.Data(tlsdecrypt.Dir(e.Dir), e.Data, e.Time)
				break
			}
			fc.Data(flow.Dir(e.Dir), e.Data, e.Time)
		case EventGap:
			if tc != nil {
				tc.Gap(tlsdecrypt.Dir(e.Dir), e.Gap, e.Time)
				break
			}
			fc.Gap(flow.Dir(e.Dir), e.Gap, e.Time)
		case EventEnd:
			if tc != nil {
				tc.End(tlsdecrypt.Dir(e.Dir), e.Time)
			}
			fc.End(flow.Dir(e.Dir), e.Time)
		case EventClose:
			if tc != nil {
				tc.End(tlsdecrypt.ClientToServer, e.Time)
				tc.End(tlsdecrypt.ServerToClient, e.Time)
			}
			delete(tlsConns, e.Conn)
			fc.Close(e.Time)
			st := fc.Stats()
			tot.Exchanges += st.Exchanges
			tot.Problems += st.Problems
			tot.Notices += st.Notices
			for d := range 2 {
				tot.Bytes += st.Bytes[d]
				tot.Skipped += st.Skipped[d]
				tot.Missing += st.Missing[d]
				if st.NotKafka[d] != "" {
					tot.NotKafka[st.NotKafka[d]]++
				}
			}
			delete(decoders, e.Conn)
			if o.OnClose != nil {
				o.OnClose(e.Conn, e.Time, e.Reason)
			}
		}
	}
	asm := NewAssembler(o.Assembler, handle)
	var readErr error
	for {
		p, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = err
			break
		}
		asm.Add(&p)
	}
	asm.Flush()
	return asm.Stats(), tot, readErr
}

// heldConn is a connection Detect is judging: its events so far (their
// data copied), or ignored once judged not Kafka.
type heldConn struct {
	open    Event
	events  []Event
	bytes   int
	ignored bool
	what    string // what the bytes are, once judged not Kafka
}

// detectVerdict is what heldConn.add decides.
type detectVerdict uint8

const (
	detectWait   detectVerdict = iota // hold the events, judge again
	detectDecode                      // Kafka: decode, replaying the events held
	detectIgnore                      // not Kafka (what names it)
)

// add holds e and judges the connection. A connection is judged by
// its client's first bytes, or by the server's when the client sent none
// by the end; past detectMax bytes or at its close it is judged on what
// came.
func (h *heldConn) add(e *Event, set *spec.Set) detectVerdict {
	if h.ignored {
		return detectIgnore
	}
	c := *e
	if e.Kind == EventData {
		// Whole: the events are replayed if the connection is Kafka.
		c.Data = append([]byte(nil), e.Data...)
		h.bytes += len(e.Data)
	}
	h.events = append(h.events, c)
	var first [2][]byte
	for _, ev := range h.events {
		if ev.Kind == EventData && len(first[ev.Dir]) < detectMax {
			first[ev.Dir] = append(first[ev.Dir], ev.Data...)
		}
	}
	done := e.Kind == EventClose || h.bytes >= detectMax || len(h.events) >= detectMax
	r := frame.Recognize(set, first[ClientToServer])
	switch {
	case r.Protocol == frame.KafkaRequest:
		return detectDecode
	case !done && (r.More || len(first[ClientToServer]) == 0):
		return detectWait
	case len(first[ClientToServer]) == 0 && len(first[ServerToClient]) > 0:
		r = frame.Recognize(set, first[ServerToClient])
	}
	if len(first[ClientToServer])+len(first[ServerToClient]) > 0 {
		h.what = r.Short()
	}
	return detectIgnore
}
