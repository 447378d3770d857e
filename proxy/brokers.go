package proxy

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PortRange is the ports the per-broker listeners of RewriteAdvertised
// take, First to Last inclusive. The zero PortRange takes free ports.
type PortRange struct{ First, Last int }

// ParsePortRange parses "FIRST-LAST" (both in 1-65535, FIRST <= LAST); a
// single port "P" is the range P-P. The error says what is wrong.
func ParsePortRange(s string) (PortRange, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		b = a
	}
	first, err1 := strconv.Atoi(a)
	last, err2 := strconv.Atoi(b)
	switch {
	case err1 != nil || err2 != nil:
		return PortRange{}, fmt.Errorf("%q is not FIRST-LAST (two port numbers)", s)
	case first < 1 || last > 65535:
		return PortRange{}, fmt.Errorf("%q: ports are 1-65535", s)
	case first > last:
		return PortRange{}, fmt.Errorf("%q: the first port is after the last", s)
	}
	return PortRange{first, last}, nil
}

// UnmarshalText parses b with ParsePortRange (for flag parsers).
func (r *PortRange) UnmarshalText(b []byte) error {
	pr, err := ParsePortRange(string(b))
	if err == nil {
		*r = pr
	}
	return err
}

// String is "FIRST-LAST", or "free ports" for the zero range.
func (r PortRange) String() string {
	if r == (PortRange{}) {
		return "free ports"
	}
	return fmt.Sprintf("%d-%d", r.First, r.Last)
}

// Broker is what a Broker event reports: a node id learned from a
// response, where the broker is and where the proxy listens for it.
type Broker struct {
	// Node is the broker's node id.
	Node int32
	// Addr is the broker's address ("host:port") as the response gave it.
	Addr string
	// Listen is the proxy's listener for the node ("" when none could be
	// opened: Event.Err says why).
	Listen string
	// Moved says the node was known at another address (Previous), which
	// its listener no longer forwards to.
	Moved    bool
	Previous string
}

// route is where the connections accepted by one listener go: the
// bootstrap listener's to Options.Upstream (node -1), a broker's to the
// broker's address as last learned.
type route struct {
	node int32
	ln   net.Listener
	port int32 // the port written for the node
	mu   sync.Mutex
	addr string
}

func (r *route) upstream() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addr
}

// listen opens a listener on addr: the one place the proxy listens (the
// bootstrap listener and every broker's). Every connection accepted, on
// any listener, goes through handle: the same TLS (acceptTLS) and the same
// dialing (dialUpstream, to the listener's route).
func (p *Proxy) listen(addr string) (net.Listener, error) {
	return net.Listen("tcp", addr)
}

// brokerPort returns the port to write for node id node at host:port (as
// a response gave it), learning the node: a node seen for the first time
// gets a listener, a node seen at a new address has its listener forward
// there. c is the connection whose response taught it (for events). When
// no listener can be opened (the proxy is stopping, or no port is left)
// it returns the bootstrap port, reporting the cause once per node and
// address.
func (p *Proxy) brokerPort(c *conn, node int32, host string, port int32) int32 {
	addr := net.JoinHostPort(host, strconv.Itoa(int(port)))
	p.rmu.Lock()
	defer p.rmu.Unlock()
	if r := p.routes[node]; r != nil {
		r.mu.Lock()
		prev := r.addr
		r.addr = addr
		r.mu.Unlock()
		if prev != addr {
			p.emitBroker(c, Broker{Node: node, Addr: addr, Listen: r.ln.Addr().String(), Moved: true, Previous: prev}, nil)
		}
		return r.port
	}
	if p.stopped {
		return p.advPort
	}
	ln, err := p.brokerListener()
	if err != nil {
		if p.failed[node] != addr {
			p.failed[node] = addr
			p.emitBroker(c, Broker{Node: node, Addr: addr}, fmt.Errorf("%v; advertised as the bootstrap address %s", err, net.JoinHostPort(p.advHost, strconv.Itoa(int(p.advPort)))))
		}
		return p.advPort
	}
	delete(p.failed, node)
	r := &route{node: node, ln: ln, port: int32(ln.Addr().(*net.TCPAddr).Port), addr: addr}
	p.routes[node] = r
	p.acceptWG.Add(1)
	go func() { defer p.acceptWG.Done(); p.accept(ln, r) }()
	p.emitBroker(c, Broker{Node: node, Addr: addr, Listen: ln.Addr().String()}, nil)
	return r.port
}

// brokerListener opens a listener for a new broker on the bootstrap
// listener's host: the first port of Options.BrokerPorts that no broker
// has and that can be listened on, or a free port. Called with rmu held.
func (p *Proxy) brokerListener() (net.Listener, error) {
	host, _, _ := net.SplitHostPort(p.ln.Addr().String())
	pr := p.o.BrokerPorts
	if pr == (PortRange{}) {
		return p.listen(net.JoinHostPort(host, "0"))
	}
	taken := map[int32]bool{}
	for _, r := range p.routes {
		taken[r.port] = true
	}
	var lastErr error
	for port := pr.First; port <= pr.Last; port++ {
		if taken[int32(port)] {
			continue
		}
		ln, err := p.listen(net.JoinHostPort(host, strconv.Itoa(port)))
		if err == nil {
			return ln, nil
		}
		lastErr = err
	}
	msg := fmt.Sprintf("no port left in %s (%d taken by brokers", pr, len(taken))
	if lastErr != nil {
		msg += fmt.Sprintf(", the others not free: %v", lastErr)
	}
	return nil, errors.New(msg + ")")
}

func (p *Proxy) emitBroker(c *conn, b Broker, err error) {
	e := Event{Kind: Learned, Time: time.Now(), Upstream: b.Addr, Broker: &b, Err: err}
	if c != nil {
		e.Conn, e.Client = c.id, c.stats.Client
	}
	p.emit(e)
}

// accept hands the connections of ln to handle, to route r, until ln is
// closed; it returns the listener's error.
func (p *Proxy) accept(ln net.Listener, r *route) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		p.wg.Add(1)
		go p.handle(c, p.nextID.Add(1), r)
	}
}

// closeListeners closes the bootstrap listener and every broker's; no
// broker listener opens after it.
func (p *Proxy) closeListeners() error {
	p.rmu.Lock()
	p.stopped = true
	for _, r := range p.routes {
		r.ln.Close()
	}
	p.rmu.Unlock()
	return p.ln.Close()
}

// Brokers returns the brokers learned so far, by node id, with the
// address of each one's listener.
func (p *Proxy) Brokers() map[int32]Broker {
	p.rmu.Lock()
	defer p.rmu.Unlock()
	m := make(map[int32]Broker, len(p.routes))
	for id, r := range p.routes {
		m[id] = Broker{Node: id, Addr: r.upstream(), Listen: r.ln.Addr().String()}
	}
	return m
}
