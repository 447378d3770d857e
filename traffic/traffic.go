// Package traffic judges and counts the exchanges that kwire pcap and kwire
// proxy decode (package flow), the same way for both: which to print
// (Filter), statistics per API version and per client (WriteStats), and
// which clients use an API or version that a target release does not
// accept (WriteUpgrade).
//
// A Watcher is fed every exchange and problem of every connection, in
// each connection's order, and Closed when a connection ends. Exchange and
// Problem say whether the filters keep the event; only kept exchanges are
// counted in the statistics and checked for the upgrade, so that
// "--client app-* --stats" describes app-*'s traffic. Statistics and the
// upgrade check read request trees (a client's ApiVersions request, topic
// names): the decoder must keep trees (flow.Options.KeepTrees) when
// NeedsTrees says so.
//
// Clients are told apart by the host of their address (without the port:
// the connections of one client process are counted together), their
// client id and the ClientSoftwareName and ClientSoftwareVersion of the
// last ApiVersions request (v3+) seen on the connection ("" before it, or
// when the capture started after it).
package traffic

import (
	"net"

	"github.com/kwire/kwire/clientcheck"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/proxy"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// Conn identifies the connection of an event: the number the command gives
// it and the client's address ("10.0.0.1:50000").
type Conn struct {
	ID     uint64
	Client string
}

// Options configure a Watcher.
type Options struct {
	// Filter chooses the events printed, counted and checked.
	Filter Filter
	// Stats collects the statistics of WriteStats. The latencies are kept
	// for exact percentiles: 8 bytes per exchange counted.
	Stats bool
	// Upgrade is the release to check clients against (WriteUpgrade); nil
	// checks nothing.
	Upgrade *spec.Set
	// Check says the exchanges carry the findings of the check of the
	// clients' requests (flow.Options.Check): the statistics count them,
	// per API version, per client and per rule (Findings).
	Check bool
}

// Watcher applies the filters and collects the statistics and the upgrade
// check. It is not safe for concurrent use: a proxy calls it under its
// lock.
type Watcher struct {
	o     Options
	conns map[uint64]*connState
	apis  map[apiKey]*apiStats
	cls   map[clientKey]*clientStats
	upg   map[upgradeKey]int64
	// rules count the findings by rule (Options.Check).
	rules map[clientcheck.Rule]int64
}

// connState is what a Watcher knows of an open connection.
type connState struct {
	host, swName, swVersion string
	// topics are the topic names by id learned from the connection's
	// responses.
	topics map[[16]byte]string
}

// New returns a Watcher.
func New(o Options) *Watcher {
	return &Watcher{o: o, conns: map[uint64]*connState{}, apis: map[apiKey]*apiStats{},
		cls: map[clientKey]*clientStats{}, upg: map[upgradeKey]int64{}, rules: map[clientcheck.Rule]int64{}}
}

// NeedsTrees reports whether the Watcher reads request and response trees
// (a topic filter, statistics or an upgrade check): the decoder must then
// keep them (flow.Options.KeepTrees).
func (w *Watcher) NeedsTrees() bool {
	return w.o.Filter.Topic != "" || w.o.Stats || w.o.Upgrade != nil
}

// Filtering reports whether a filter is set: connection lines and notices,
// which are not exchanges, are then not printed.
func (w *Watcher) Filtering() bool { return w.o.Filter.Active() }

func (w *Watcher) conn(c Conn) *connState {
	s := w.conns[c.ID]
	if s == nil {
		host, _, err := net.SplitHostPort(c.Client)
		if err != nil {
			host = c.Client
		}
		s = &connState{host: host}
		w.conns[c.ID] = s
	}
	return s
}

// Exchange notes exchange x of connection c and reports whether the
// filters keep it (it is then counted and checked).
func (w *Watcher) Exchange(c Conn, x *flow.Exchange) bool {
	s := w.conn(c)
	s.learn(x)
	if !w.o.Filter.exchange(s, x) {
		return false
	}
	if w.o.Stats {
		w.count(s, x)
	}
	if w.o.Upgrade != nil {
		w.check(s, x)
	}
	return true
}

// Keep is Exchange or Problem for an exchange or a problem; for nil (a
// line that is neither: a connection's start or end, a notice) it reports
// whether no filter is set.
func (w *Watcher) Keep(c Conn, e flow.Event) bool {
	switch x := e.(type) {
	case *flow.Exchange:
		return w.Exchange(c, x)
	case *flow.Problem:
		return w.Problem(c, x)
	}
	return !w.Filtering()
}

// KeepProxy is Keep for an event of kwire proxy (its exchange or problem,
// or nil for a connection line), and forgets the connection when the event
// is its end.
func (w *Watcher) KeepProxy(e proxy.Event) bool {
	c := Conn{ID: e.Conn, Client: e.Client}
	keep := w.Keep(c, e.Flow)
	if e.Kind == proxy.Closed {
		w.Closed(c)
	}
	return keep
}

// Problem reports whether the filters keep problem p (see Filter).
func (w *Watcher) Problem(c Conn, p *flow.Problem) bool { return w.o.Filter.problem(p) }

// Closed forgets connection c (its topic ids); what was counted stays.
func (w *Watcher) Closed(c Conn) { delete(w.conns, c.ID) }

// learn reads what x tells of its connection: the client software of an
// ApiVersions request, the topic ids of a response.
func (s *connState) learn(x *flow.Exchange) {
	if x.APIKey == apiVersionsKey && x.Request != nil && x.Request.Tree != nil {
		t := x.Request.Tree
		if b := t.Part(tree.Body); b >= 0 {
			s.swName, s.swVersion = "", ""
			t.Fields(b, func(i int32) bool {
				if f := t.Field(i); f != nil {
					switch f.Name {
					case "ClientSoftwareName":
						s.swName = string(t.Data(i))
					case "ClientSoftwareVersion":
						s.swVersion = string(t.Data(i))
					}
				}
				return true
			})
		}
	}
	if x.Response != nil && x.Response.Tree != nil {
		flow.TopicNames(x.Response.Tree, func(id [16]byte, name string) {
			if s.topics == nil {
				s.topics = map[[16]byte]string{}
			}
			s.topics[id] = name
		})
	}
}

// apiVersionsKey is ApiVersions' api key.
const apiVersionsKey = 18

// eachTopic calls fn with each topic name of t and the name of each topic id
// that s learned, until fn returns true.
func (s *connState) eachTopic(t *tree.Tree, fn func(name string) bool) bool {
	if t == nil {
		return false
	}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.Kind() != tree.Field || n.Flags()&tree.FlagVirtual != 0 {
			continue
		}
		f := t.Field(int32(i))
		if f == nil {
			continue
		}
		switch {
		case f.IsTopicName():
			if fn(string(t.Data(int32(i)))) {
				return true
			}
		case f.IsTopicID():
			if id := t.Data(int32(i)); len(id) == 16 {
				if name, ok := s.topics[[16]byte(id)]; ok && fn(name) {
					return true
				}
			}
		}
	}
	return false
}
