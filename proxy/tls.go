package proxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/internal/tlsconf"
)

// HandshakeError is a TLS handshake that failed, with a client of the
// proxy's listener (Side "client") or with the upstream broker (Side
// "upstream"). The connection it belongs to is reported Failed with it;
// other connections go on.
type HandshakeError struct {
	// Side is "client" or "upstream"; Addr is that side's address.
	Side, Addr string
	// Err is the cause: what crypto/tls said (a certificate verification
	// error is given as its x509 error), or what the peer sent instead of
	// TLS (ErrPlaintext), or a timeout (Options.HandshakeTimeout).
	Err error
}

// Error reads "client 127.0.0.1:5555: TLS handshake: <cause>".
func (e *HandshakeError) Error() string {
	return fmt.Sprintf("%s %s: TLS handshake: %v", e.Side, e.Addr, e.Err)
}

// Unwrap returns Err.
func (e *HandshakeError) Unwrap() error { return e.Err }

// ErrPlaintext is the cause of a HandshakeError when the peer's first
// bytes are not a TLS record: a client speaking plaintext Kafka to a TLS
// listener, or a broker answering in plaintext.
var ErrPlaintext = errors.New("plaintext, not TLS")

// plaintextError says what a peer sent instead of a TLS record, from its
// first bytes (at least the 5 of a record header).
type plaintextError struct {
	side  string
	first []byte
	name  func(key int16) string
}

func (e *plaintextError) Error() string {
	what := "client sent plaintext"
	if e.side == "upstream" {
		what = "the broker answered in plaintext"
	}
	return what + " (" + e.looks() + ")"
}

func (e *plaintextError) Is(target error) bool { return target == ErrPlaintext }

// looks says what the first bytes look like: a Kafka request (api and
// version from its header), HTTP, or just the bytes.
func (e *plaintextError) looks() string {
	b := e.first
	if frame.Sniff(b) == "HTTP" {
		return "looks like HTTP"
	}
	if size, ok := frame.Size(b); ok && size >= 8 && e.side == "client" {
		if key, ver, ok := frame.RequestAPI(b); ok && key >= 0 && ver >= 0 {
			if n := e.name(key); n != "" {
				return fmt.Sprintf("looks like a Kafka request: %s v%d", n, ver)
			}
		}
	}
	if size, ok := frame.Size(b); ok && size >= 4 && e.side == "upstream" {
		return fmt.Sprintf("looks like a Kafka response of %d bytes", size)
	}
	return fmt.Sprintf("first bytes % x", b)
}

// apiName names an api key with the codec's spec set ("" when unknown or
// without a codec).
func (p *Proxy) apiName(key int16) string {
	if p.o.Codec == nil || p.o.Codec.Set == nil {
		return ""
	}
	if m := p.o.Codec.Set.Request(key); m != nil {
		return m.BaseName()
	}
	return ""
}

// acceptTLS runs the server handshake with a client of any of the proxy's
// listeners (Options.TLS), bounded by Options.HandshakeTimeout and by a
// hard close of the proxy. Without Options.TLS it returns c as is. On
// failure the caller closes c (after reporting, so that the report comes
// before the client sees the end).
func (p *Proxy) acceptTLS(c net.Conn) (net.Conn, error) {
	if p.o.TLS == nil {
		return c, nil
	}
	u := newUnder(c, p.o.BufferSize)
	tc := tls.Server(u, p.o.TLS)
	if err := p.handshake(tc); err != nil {
		return nil, &HandshakeError{Side: "client", Addr: c.RemoteAddr().String(), Err: p.cause("client", err, u)}
	}
	u.first = nil
	return &tlsConn{Conn: tc, u: u}, nil
}

// dialUpstream connects to the broker at addr and, with
// Options.UpstreamTLS, runs the client handshake (server name: the
// config's, else addr's host).
func (p *Proxy) dialUpstream(ctx context.Context, addr string) (net.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, p.o.DialTimeout)
	c, err := p.o.Dial(dctx, "tcp", addr)
	cancel()
	if err != nil && ctx.Err() != nil {
		return nil, errStopping
	}
	if err != nil || p.o.UpstreamTLS == nil {
		return c, err
	}
	cfg := tlsconf.ForAddr(p.o.UpstreamTLS, addr)
	u := newUnder(c, p.o.BufferSize)
	tc := tls.Client(u, cfg)
	if err := p.handshake(tc); err != nil {
		c.Close()
		return nil, &HandshakeError{Side: "upstream", Addr: addr, Err: p.cause("upstream", err, u)}
	}
	u.first = nil
	return &tlsConn{Conn: tc, u: u}, nil
}

// handshake runs tc's handshake within HandshakeTimeout; a hard close of
// the proxy ends it too.
func (p *Proxy) handshake(tc *tls.Conn) error {
	ctx, cancel := context.WithTimeout(p.dialCtx, p.o.HandshakeTimeout)
	defer cancel()
	err := tc.HandshakeContext(ctx)
	switch {
	case err == nil:
	case p.dialCtx.Err() != nil:
		return errStopping
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("no handshake within %v", p.o.HandshakeTimeout)
	}
	return err
}

// cause turns a handshake error into what went wrong, in the terms of the
// side that failed.
func (p *Proxy) cause(side string, err error, u *under) error {
	var rh tls.RecordHeaderError
	if errors.As(err, &rh) {
		first := u.first
		if len(first) < len(rh.RecordHeader) {
			first = rh.RecordHeader[:]
		}
		return &plaintextError{side: side, first: first, name: p.apiName}
	}
	var ve *tls.CertificateVerificationError
	if errors.As(err, &ve) {
		return ve.Err
	}
	if errors.Is(err, errStopping) {
		return err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		if side == "upstream" {
			return errors.New("the broker closed the connection (is it a plaintext listener?)")
		}
		return errors.New("the client closed the connection")
	}
	if side == "client" && strings.HasPrefix(err.Error(), "remote error: tls: ") && strings.Contains(err.Error(), "certificate") {
		return fmt.Errorf("%w (the client refused the proxy's certificate)", err)
	}
	return err
}

// errStopping is why a connection could not be made while the proxy
// closes its connections (Close, or Serve after the grace period).
var errStopping = errors.New("the proxy is stopping")

// defaultHandshakeTimeout bounds a TLS handshake when
// Options.HandshakeTimeout is 0.
const defaultHandshakeTimeout = 10 * time.Second

// tlsConn is a TLS connection of the proxy. Its reads take every record
// already received, not one (16 KiB at most) as tls.Conn's do, and its
// writes send the records of one write in one write to the connection
// under it: with large reads and writes the forwarding makes as few
// system calls with TLS as without.
type tlsConn struct {
	*tls.Conn
	u *under
	// err is a read error met after data, returned by the next Read.
	err error
}

// Read waits for data as tls.Conn.Read does, then reads on as long as
// records are already at hand (never waiting again) and b has room.
func (c *tlsConn) Read(b []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.Conn.Read(b)
	if err != nil || n == 0 {
		return n, err
	}
	c.u.noWait = true
	for n < len(b) {
		m, err := c.Conn.Read(b[n:])
		n += m
		if err != nil {
			if err != errWouldWait {
				c.err = err
			}
			break
		}
		if m == 0 {
			break
		}
	}
	c.u.noWait = false
	return n, nil
}

// Write writes b as tls.Conn.Write does, its records gathered into one
// write to the connection. When that write fails, none of b counts as
// written.
func (c *tlsConn) Write(b []byte) (int, error) {
	c.u.hold()
	n, err := c.Conn.Write(b)
	if ferr := c.u.flush(); ferr != nil {
		return 0, ferr
	}
	return n, err
}

// CloseRead stops reading from the peer (the connection under is shut for
// reading), so that a Read waiting for the peer ends with io.EOF: the
// proxy ends a client's connection when the broker ended its side, without
// waiting for the client's next write.
func (c *tlsConn) CloseRead() error {
	if cr, ok := c.u.Conn.(interface{ CloseRead() error }); ok {
		return cr.CloseRead()
	}
	return nil
}

// Close closes the connection under at once, then the tls.Conn: it never
// waits on the peer (a close_notify was sent by CloseWrite where the
// stream ended; after an error or a hard close none is owed), not even
// behind a write that the peer does not read.
func (c *tlsConn) Close() error {
	err := c.u.Conn.Close()
	c.Conn.Close()
	return err
}

// under is the connection under a tls.Conn: it reads ahead in large reads
// (crypto/tls reads about one record per read, one system call each),
// keeps the first bytes read (to say what a peer sent when it was not
// TLS), can refuse to wait for data (noWait, for tlsConn.Read), and can
// gather writes (hold, flush).
type under struct {
	net.Conn
	r *bufio.Reader
	// first are the first bytes read, until the handshake is done. Only
	// the reading goroutine touches first and noWait.
	first  []byte
	noWait bool

	mu      sync.Mutex
	holding bool
	buf     []byte
}

// firstKept is how many bytes under keeps: a Kafka request's size, api
// key and version.
const firstKept = 8

func newUnder(c net.Conn, size int) *under {
	return &under{Conn: c, r: bufio.NewReaderSize(rawReader{c}, size), first: make([]byte, 0, firstKept)}
}

// Read returns what is buffered without waiting for more, and waits only
// when nothing is (then returning errWouldWait instead with noWait).
func (u *under) Read(b []byte) (int, error) {
	if u.noWait && u.r.Buffered() == 0 {
		return 0, errWouldWait
	}
	n, err := u.r.Read(b)
	if n > 0 && u.first != nil && len(u.first) < firstKept {
		u.first = append(u.first, b[:min(n, firstKept-len(u.first))]...)
	}
	return n, err
}

// Write writes b, or gathers it while holding.
func (u *under) Write(b []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.holding {
		u.buf = append(u.buf, b...)
		return len(b), nil
	}
	return u.Conn.Write(b)
}

func (u *under) hold() {
	u.mu.Lock()
	u.holding = true
	u.mu.Unlock()
}

// flush writes what was gathered and stops holding. A write from another
// goroutine meanwhile (tls.Conn.Close's close_notify) waits for it, and
// follows it.
func (u *under) flush() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.holding = false
	if len(u.buf) == 0 {
		return nil
	}
	_, err := u.Conn.Write(u.buf)
	u.buf = u.buf[:0]
	return err
}

// errWouldWait is what under.Read returns with noWait when it has nothing:
// a temporary net.Error, after which tls.Conn keeps its state.
var errWouldWait = wouldWait{}

type wouldWait struct{}

func (wouldWait) Error() string   { return "no data at hand" }
func (wouldWait) Timeout() bool   { return true }
func (wouldWait) Temporary() bool { return true }

// rawReader hides the connection's other methods from bufio.
type rawReader struct{ c net.Conn }

func (r rawReader) Read(b []byte) (int, error) { return r.c.Read(b) }
