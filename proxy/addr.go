package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"syscall"
)

// AddrError is an address of Options that cannot work: not "host:port"
// (a URL, say), a port out of range, a host that does not resolve, or a
// Listen address that is not this machine's or is in use.
type AddrError struct {
	// Option is the Options field: "Listen", "Upstream" or "Advertise".
	Option string
	// Addr is the address as given.
	Addr string
	// Err says what is wrong with it.
	Err error
}

// Error reads `proxy: Upstream address "nohost": missing port (want host:port)`.
func (e *AddrError) Error() string {
	return fmt.Sprintf("proxy: %s address %q: %v", e.Option, e.Addr, e.Err)
}

// Unwrap returns what is wrong with the address.
func (e *AddrError) Unwrap() error { return e.Err }

// CheckAddrs checks the addresses of o before a proxy starts, so that a
// mistake is one error at start instead of a failure on every connection:
//
//   - Listen (when not empty) is "host:port" with a port in 0-65535 (0
//     picks a free one) and a host that is empty (every interface) or
//     resolves; an IP address (or none) must be this machine's, and the
//     port free: it is listened on and closed at once;
//   - Upstream is "host:port" with a host and a port in 1-65535, and the
//     host resolves;
//   - Advertise (when not empty) is "host:port" with a host and a port in
//     1-65535. Its host is not resolved: clients resolve it, and their
//     view of names may differ from the proxy's.
//
// Each host is resolved once, with lookup (net.DefaultResolver.LookupHost
// when nil); a host given as an IP address is not looked up. The proxy
// still dials Upstream by name, so that a broker whose address changes is
// followed. The error is an *AddrError; its Err is a *ResolveError when
// the address is well formed but its host does not resolve, a
// *ListenError when Listen is well formed but cannot be listened on.
func CheckAddrs(ctx context.Context, o Options, lookup func(ctx context.Context, host string) ([]string, error)) error {
	if lookup == nil {
		lookup = net.DefaultResolver.LookupHost
	}
	check := func(option, addr string, listen, resolve bool) error {
		if err := checkAddr(ctx, addr, listen, resolve, lookup); err != nil {
			return &AddrError{Option: option, Addr: addr, Err: err}
		}
		return nil
	}
	if o.Listen != "" {
		if err := check("Listen", o.Listen, true, true); err != nil {
			return err
		}
	}
	if err := check("Upstream", o.Upstream, false, true); err != nil {
		return err
	}
	if o.Advertise != "" {
		if err := check("Advertise", o.Advertise, false, false); err != nil {
			return err
		}
	}
	return nil
}

// checkAddr checks one "host:port": listen allows an empty host and port
// 0; resolve looks the host up.
func checkAddr(ctx context.Context, addr string, listen, resolve bool, lookup func(context.Context, string) ([]string, error)) error {
	if addr == "" {
		return errors.New("empty (want host:port)")
	}
	if u, err := url.Parse(addr); err == nil && u.Scheme != "" && u.Host != "" {
		return fmt.Errorf("want host:port, not a URL (%s)", u.Host)
	}
	host, ps, err := net.SplitHostPort(addr)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			return fmt.Errorf("%s (want host:port)", ae.Err)
		}
		return err
	}
	lo := 1
	if listen {
		lo = 0
	}
	port, err := strconv.Atoi(ps)
	switch {
	case ps == "":
		return errors.New("no port (want host:port)")
	case err != nil:
		return fmt.Errorf("port %q is not a number", ps)
	case port < lo || port > 65535:
		return fmt.Errorf("port %d is out of range (%d-65535)", port, lo)
	}
	if host == "" && !listen {
		return errors.New("no host (want host:port)")
	}
	if listen && (host == "" || net.ParseIP(host) != nil) {
		return probeListen(addr)
	}
	if !resolve || net.ParseIP(host) != nil {
		return nil
	}
	addrs, err := lookup(ctx, host)
	if err == nil && len(addrs) == 0 {
		err = errors.New("no addresses")
	}
	if err != nil {
		return &ResolveError{Host: host, Err: err}
	}
	return nil
}

// probeListen listens on addr and closes the listener at once: an
// address that is not this machine's, or a port in use, fails here rather
// than when the proxy starts.
// The error is a *ListenError.
func probeListen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	switch {
	case err == nil:
		return ln.Close()
	case errors.Is(err, syscall.EADDRINUSE):
		return &ListenError{Err: errors.New("the address is already in use")}
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return &ListenError{Err: errors.New("not an address of this machine")}
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return &ListenError{Err: oe.Err}
	}
	return &ListenError{Err: err}
}

// ListenError is a Listen address that is well formed but cannot be
// listened on here: not an address of this machine, a port in use, or
// another refusal of the system (an *AddrError's Err). It is a fact about
// the machine, not about the address's form.
type ListenError struct {
	// Err says why: "the address is already in use", "not an address of
	// this machine", or the system's error.
	Err error
}

// Error returns Err's text.
func (e *ListenError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *ListenError) Unwrap() error { return e.Err }

// Advertised is the address RewriteAdvertised writes into responses for
// the bootstrap listener ("127.0.0.1:19093"); "" without
// RewriteAdvertised. anyInterface says that it stands for a listener on
// every interface (0.0.0.0 or ::, with no Options.Advertise), which
// clients on other machines cannot reach at that address.
func (p *Proxy) Advertised() (addr string, anyInterface bool) {
	if !p.o.RewriteAdvertised {
		return "", false
	}
	addr = net.JoinHostPort(p.advHost, strconv.Itoa(int(p.advPort)))
	if p.o.Advertise != "" {
		return addr, false
	}
	host, _, err := net.SplitHostPort(p.ln.Addr().String())
	ip := net.ParseIP(host)
	return addr, err == nil && ip != nil && ip.IsUnspecified()
}

// ResolveError is an address whose host does not resolve: the address is
// well formed, but the name finds no host (an *AddrError's Err).
type ResolveError struct {
	// Host is the host name as given.
	Host string
	// Err is the resolver's error.
	Err error
}

// Error reads `host "nohost.invalid" does not resolve (no such host)`.
func (e *ResolveError) Error() string {
	var de *net.DNSError
	if errors.As(e.Err, &de) && de.IsNotFound {
		return fmt.Sprintf("host %q does not resolve (no such host)", e.Host)
	}
	return fmt.Sprintf("host %q does not resolve: %v", e.Host, e.Err)
}

// Unwrap returns the resolver's error.
func (e *ResolveError) Unwrap() error { return e.Err }
