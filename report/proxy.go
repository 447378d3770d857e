package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/proxy"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
)

// ConnectionLine is the text line of a proxy connection's opening, failure
// or end (proxy.Opened, Failed, Closed), after the connection's name conn:
// "opened to ADDR" ("opened to broker N at ADDR" on broker N's listener;
// then " (not decoded: …)" when the proxy does not decode it),
// "failed: ERR", or "closed: N B from the client, M B
// from the broker" with the bytes not decoded, the responses rewritten and
// what ended it when there are any; or of a broker learned from one of its
// responses (proxy.Learned): "broker N at HOST:PORT: listening on ADDR",
// "broker N moved from OLD to HOST:PORT: listening on ADDR", or "broker N
// at HOST:PORT: no listener: ERR". "" for other events.
func ConnectionLine(conn string, e proxy.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  ", Time(e.Time), conn)
	switch e.Kind {
	case proxy.Opened:
		if e.Broker != nil {
			fmt.Fprintf(&b, "opened to broker %d at %s", e.Broker.Node, e.Upstream)
		} else {
			fmt.Fprintf(&b, "opened to %s", e.Upstream)
		}
		if e.Err != nil {
			// Not decoded (a *proxy.NotDecodedError).
			fmt.Fprintf(&b, " (%v)", e.Err)
		}
	case proxy.Failed:
		fmt.Fprintf(&b, "failed: %v", e.Err)
	case proxy.Learned:
		br := e.Broker
		if br == nil {
			return ""
		}
		if br.Moved {
			fmt.Fprintf(&b, "broker %d moved from %s to %s: ", br.Node, br.Previous, br.Addr)
		} else {
			fmt.Fprintf(&b, "broker %d at %s: ", br.Node, br.Addr)
		}
		if e.Err != nil {
			fmt.Fprintf(&b, "no listener: %v", e.Err)
		} else {
			fmt.Fprintf(&b, "listening on %s", br.Listen)
		}
	case proxy.Closed:
		st := e.Stats
		fmt.Fprintf(&b, "closed: %d B from the client, %d B from the broker", st.Read[flow.ClientToServer], st.Read[flow.ServerToClient])
		if u := st.Undecoded[0] + st.Undecoded[1]; u > 0 {
			fmt.Fprintf(&b, ", %d B not decoded (decoder behind)", u)
		}
		switch {
		case st.Rewritten == 1:
			b.WriteString(", 1 response rewritten")
		case st.Rewritten > 1:
			fmt.Fprintf(&b, ", %d responses rewritten", st.Rewritten)
		}
		if e.Err != nil {
			fmt.Fprintf(&b, " (%v)", e.Err)
		}
	default:
		return ""
	}
	return b.String()
}

// Connection is a proxy connection's opening, failure or end as a JSON
// line (type "connection").
type Connection struct {
	Type string `json:"type"`
	// Event is "opened", "failed", "closed" or "learned".
	Event  string `json:"event"`
	Time   string `json:"time"`
	Conn   uint64 `json:"conn"`
	Client string `json:"client"`
	Server string `json:"server"`
	// Read, Written and Undecoded are the byte counts of each direction
	// (client to broker, broker to client) of a closed connection
	// (proxy.ConnStats).
	Read      *[2]int64 `json:"bytes_read,omitempty"`
	Written   *[2]int64 `json:"bytes_written,omitempty"`
	Undecoded *[2]int64 `json:"bytes_not_decoded,omitempty"`
	Rewritten int       `json:"responses_rewritten,omitempty"`
	// Node is the node id of a broker learned, Listen the proxy's
	// listener for it ("" when it got none), Previous its address before
	// it moved (event "learned"; Server is its address). A connection
	// accepted on a broker's listener has that broker's Node and Listen.
	Node     *int32 `json:"node,omitempty"`
	Listen   string `json:"listen,omitempty"`
	Previous string `json:"previous,omitempty"`
	// Error is why the broker could not be reached, what ended the
	// connection other than an end of stream, or (event "opened") why it
	// is not decoded; null when nothing.
	Error *string `json:"error"`
}

// NewConnection describes a proxy.Opened, Failed, Closed or Learned event.
func NewConnection(e proxy.Event) *Connection {
	j := &Connection{Type: "connection", Event: e.Kind.String(), Time: JSONTime(e.Time), Conn: e.Conn, Client: e.Client, Server: e.Upstream}
	if br := e.Broker; br != nil {
		j.Node, j.Listen, j.Previous = &br.Node, br.Listen, br.Previous
	}
	if st := e.Stats; st != nil {
		j.Read, j.Written, j.Undecoded, j.Rewritten = &st.Read, &st.Written, &st.Undecoded, st.Rewritten
	}
	if e.Err != nil {
		s := e.Err.Error()
		j.Error = &s
	}
	return j
}

// EventOptions say how WriteProxyEvent writes.
type EventOptions struct {
	// JSON writes JSON lines, not text lines.
	JSON bool
	// Trees adds each frame's object tree under an exchange's line (text),
	// or its page JSON, body and header (FrameOptions JSON and Page).
	Trees bool
	// Set is the specs the traffic is decoded with (for "header_json").
	Set    *spec.Set
	Render render.Options
}

// WriteProxyEvent writes event e of a proxy to w as kwire proxy prints
// it: its text line (ConnectionLine, WriteExchange, ProblemLine), named
// "#CONN CLIENT", or with o.JSON one JSON object and a newline
// (NewConnection, NewExchange with each frame's NewFrame, NewProblem).
// Events with nothing to show write nothing. The error is w's.
func WriteProxyEvent(w io.Writer, e proxy.Event, o EventOptions) error {
	name := fmt.Sprintf("#%d %s", e.Conn, e.Client)
	var v any
	switch e.Kind {
	case proxy.Opened, proxy.Failed, proxy.Closed, proxy.Learned:
		if !o.JSON {
			_, err := fmt.Fprintf(w, "%s\n", ConnectionLine(name, e))
			return err
		}
		v = NewConnection(e)
	case proxy.Flow:
		switch x := e.Flow.(type) {
		case *flow.Exchange:
			if !o.JSON {
				return WriteExchange(w, name, x, o.Trees, o.Render)
			}
			fo := FrameOptions{Set: o.Set, JSON: o.Trees, Page: o.Trees, Render: o.Render, Deferred: true}
			var frames []*Frame
			v = NewExchange(x, e.Conn, e.Client, e.Upstream, func(f *flow.Frame) *Frame {
				j := NewFrame(f, fo)
				frames = append(frames, j)
				return j
			})
			return WriteLine(w, v, frames...)
		case *flow.Problem:
			if !o.JSON {
				_, err := fmt.Fprintf(w, "%s\n", ProblemLine(name, x))
				return err
			}
			v = NewProblem(x, e.Conn, e.Client, e.Upstream)
		}
	}
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
