// Package client is kwire's minimal Kafka client: one TCP connection to one
// broker or controller, the ApiVersions handshake (KIP-35, KIP-511), version
// negotiation, and request/response calls on span trees of any API of a spec
// set. It exists so that `kwire call` and kwire's live tests can talk to a
// real Kafka without a client library: requests are encoded and responses
// decoded by package codec, so what is sent and received is exactly what
// kwire shows.
//
// A Conn may speak TLS (Options.TLS) and authenticate with SASL PLAIN or
// SCRAM (Options.SASL). It is not a general-purpose client: no pipelining
// (one request in flight), no retries, no re-authentication (KIP-368);
// errors are returned as they come.
package client

import (
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

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/internal/tlsconf"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// ApiVersions is api key 18; UNSUPPORTED_VERSION is error code 35.
const (
	apiVersionsKey     = 18
	unsupportedVersion = 35
)

// ErrClosed and ErrTimeout are wrapped by the errors of a call (and of
// Dial) that ended because the node closed the connection or did not
// answer in time (errors.Is), so that callers can tell those outcomes from
// a response that does not decode.
var (
	ErrClosed  = errors.New("the node closed the connection")
	ErrTimeout = errors.New("timed out")
)

// NotKafkaError is the error of a response whose first bytes are another
// protocol's (frame.Recognize: a TLS record, HTTP or other text): the node
// at Addr is not a plaintext Kafka listener.
type NotKafkaError struct {
	// Addr is the node's address.
	Addr string
	// Found is what the bytes are (Protocol TLS or Text).
	Found frame.Recognition
	// Err is the error reading them as a frame gives (*codec.FrameError).
	Err error
}

func (e *NotKafkaError) Error() string {
	return fmt.Sprintf("the node at %s answered with %s, not a Kafka response (%v)", e.Addr, e.Found, e.Err)
}

func (e *NotKafkaError) Unwrap() error { return e.Err }

// SpeaksTLS reports whether the node at addr answers a TLS ClientHello
// with TLS (a ServerHello or an alert), within timeout: for saying "add
// TLS" when a plaintext connection was closed without an answer. The
// server's certificate is not checked (nothing is sent after the
// handshake).
func SpeaksTLS(ctx context.Context, addr string, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer nc.Close()
	tc := tls.Client(nc, &tls.Config{InsecureSkipVerify: true, ServerName: "kwire-probe"}) // #nosec: a probe, no data
	err = tc.HandshakeContext(ctx)
	// An alert the node sent is a net.OpError "remote error".
	var oe *net.OpError
	return err == nil || errors.As(err, &oe) && oe.Op == "remote error"
}

// Probe asks the node at addr what it speaks, within timeout: it sends
// an HTTP HEAD request line and says what the first bytes of the answer
// are (frame.Recognize with set); Unknown when none came. For saying what
// a node that did not answer a Kafka request in time is.
func Probe(ctx context.Context, set *spec.Set, addr string, timeout time.Duration) frame.Recognition {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return frame.Recognition{}
	}
	defer nc.Close()
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
	}
	if _, err := io.WriteString(nc, "HEAD / HTTP/1.0\r\n\r\n"); err != nil {
		return frame.Recognition{}
	}
	buf := make([]byte, 64)
	n, _ := io.ReadAtLeast(nc, buf, len(buf))
	return frame.Recognize(set, buf[:n])
}

// CorrelationError is the error of a response whose correlation id is not
// the request's: the connection is out of step (and closed).
type CorrelationError struct{ Got, Want int32 }

func (e *CorrelationError) Error() string {
	return fmt.Sprintf("response correlation id %d, want %d (the connection is out of step and was closed)", e.Got, e.Want)
}

// kindError is an error of a kind (ErrClosed, ErrTimeout) with its own
// message.
type kindError struct {
	msg         string
	kind, cause error
}

func (e *kindError) Error() string   { return e.msg }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.cause} }

// Range is a closed range of versions [Min, Max] of one api key, as a broker
// announces it in ApiVersionsResponse.ApiKeys.
type Range struct{ Min, Max int16 }

// Options configure Dial.
type Options struct {
	// ClientID is the request header's client_id ("kwire" when empty).
	ClientID string
	// SoftwareName and SoftwareVersion go in ApiVersionsRequest v3+
	// (ClientSoftwareName/Version, KIP-511); "kwire" and "dev" when empty.
	SoftwareName, SoftwareVersion string
	// Timeout bounds the connect and each call when the context has no
	// earlier deadline (10 s when 0).
	Timeout time.Duration
	// MaxFrame is the largest response frame accepted (codec.DefaultMaxFrame
	// when 0); a larger size prefix fails the call before any allocation.
	MaxFrame int
	// TLS, when not nil, is the configuration of a TLS connection (see
	// internal/tlsconf.Client); its ServerName defaults to the host of the
	// address dialled. nil: plaintext.
	TLS *tls.Config
	// SASL, when not nil, is the authentication performed after the
	// ApiVersions handshake and before any other request.
	SASL *SASL
}

// Conn is one connection to a Kafka node after the ApiVersions handshake.
// Calls are serialised; a Conn is safe for concurrent use.
type Conn struct {
	codec *codec.Codec
	opts  Options
	addr  string

	mu   sync.Mutex
	nc   net.Conn
	corr int32
	// sp splits the responses read into rbuf (its input between calls).
	sp   frame.Splitter
	rbuf []byte
	// fed is the count of bytes fed to sp; chunk the last bytes fed (in
	// rbuf), from stream offset fed-len(chunk): a frame that is not one
	// is judged by its first bytes there (frame.Recognize).
	fed   int64
	chunk []byte

	// versions is the broker's ApiVersionsResponse.ApiKeys by api key.
	versions map[int16]Range
	// apiVersionsVersion is the ApiVersions version the handshake ended with.
	apiVersionsVersion int16
	// handshake is the last ApiVersions exchange of the handshake.
	handshake *Exchange
	// session is what SASL authentication established (nil without).
	session *Session
	// topics are the topic names by id the responses gave, with which the
	// records of internal topics are decoded (flow.Topics).
	topics flow.Topics
}

// Exchange is one request and its response on a Conn.
type Exchange struct {
	// Request is the encoded request frame's span tree (its Bytes are the
	// frame as sent); Response the decoded response frame (nil when none
	// arrived).
	Request, Response *tree.Tree
	// Sent is when the request was written; Latency how long the response
	// took to arrive after that.
	Sent    time.Time
	Latency time.Duration
}

// Dial connects to addr (host:port), performs the TLS handshake (with
// o.TLS), the ApiVersions handshake and SASL authentication (with o.SASL),
// in that order. ApiVersions: it sends the highest ApiVersionsRequest
// version of c's specs and, when the node answers UNSUPPORTED_VERSION
// (with its own ApiVersions range in a v0 response, KIP-511), retries once
// at the highest version both support.
// Errors: connection failures (net errors), a failed TLS handshake
// ("TLS handshake: " and crypto/tls's cause; when the node closed the
// connection, "is it a plaintext listener?" after it), timeouts, a
// response that does not decode (*wire.Error, with byte offset and field
// path), a non-zero ApiVersions error code, a refused SASL mechanism or
// authentication (*SASLError).
func Dial(ctx context.Context, addr string, c *codec.Codec, o Options) (*Conn, error) {
	if o.ClientID == "" {
		o.ClientID = "kwire"
	}
	o.SoftwareName = softwareText(o.SoftwareName, "kwire")
	o.SoftwareVersion = softwareText(o.SoftwareVersion, "dev")
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.MaxFrame <= 0 {
		o.MaxFrame = codec.DefaultMaxFrame
	}
	ctx, cancel := withTimeout(ctx, o.Timeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if o.TLS != nil {
		if nc, err = tlsHandshake(ctx, nc, addr, o.TLS); err != nil {
			return nil, err
		}
	}
	cn := &Conn{codec: c, opts: o, addr: addr, nc: nc, rbuf: make([]byte, 64<<10)}
	cn.sp.Max = o.MaxFrame
	err = cn.handshakeVersions(ctx)
	if err == nil && o.SASL != nil {
		err = cn.authenticate(ctx, o.SASL)
	}
	if err != nil {
		cn.Close()
		return nil, err
	}
	return cn, nil
}

// tlsHandshake runs the client side of a TLS handshake on nc (closed on
// failure), with the host of addr as the server name unless cfg has one.
func tlsHandshake(ctx context.Context, nc net.Conn, addr string, cfg *tls.Config) (net.Conn, error) {
	tc := tls.Client(nc, tlsconf.ForAddr(cfg, addr))
	if err := tc.HandshakeContext(ctx); err != nil {
		nc.Close()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
			return nil, fmt.Errorf("TLS handshake: %w (the node closed the connection: is it a plaintext listener?)", err)
		}
		return nil, fmt.Errorf("TLS handshake: %w", err)
	}
	return tc, nil
}

// softwareText makes s fit what brokers accept as ClientSoftwareName and
// ClientSoftwareVersion (KIP-511: letters, digits, '-' and '.', beginning and
// ending with a letter or digit; anything else is INVALID_REQUEST): other
// characters become '-', and the ends are trimmed; def when nothing is left.
func softwareText(s, def string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			b[i] = '-'
		}
	}
	t := strings.Trim(string(b), "-.")
	if t == "" {
		return def
	}
	return t
}

func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

func (cn *Conn) handshakeVersions(ctx context.Context) error {
	set := cn.codec.Set
	req := set.Request(apiVersionsKey)
	if req == nil {
		return errors.New("the specs have no ApiVersionsRequest")
	}
	v := req.ValidVersions.Hi
	for attempt := 0; attempt < 2; attempt++ {
		bt, err := cn.apiVersionsBody(req, v)
		if err != nil {
			return fmt.Errorf("ApiVersionsRequest v%d: %w", v, err)
		}
		x, err := cn.call(ctx, req, v, bt)
		if err != nil && (x == nil || x.Response == nil) {
			return fmt.Errorf("ApiVersions v%d: %w", v, err)
		}
		var got apiVersions
		if err == nil {
			got, err = readAPIVersions(x.Response)
		}
		if err != nil {
			// A node that does not support v answers with a v0 body
			// (KIP-511); decode it as such.
			resp := set.Response(apiVersionsKey)
			t, err0 := cn.codec.DecodeResponse(x.Response.Bytes, resp, 0)
			if err0 != nil {
				return fmt.Errorf("ApiVersionsResponse v%d: %w", v, err)
			}
			x.Response = t
			if got, err = readAPIVersions(t); err != nil {
				return fmt.Errorf("ApiVersionsResponse v0: %w", err)
			}
		}
		cn.handshake = x
		cn.apiVersionsVersion = v
		cn.versions = got.keys
		switch got.errorCode {
		case 0:
			return nil
		case unsupportedVersion:
			r, ok := cn.versions[apiVersionsKey]
			if !ok || attempt == 1 {
				return fmt.Errorf("ApiVersions v%d: UNSUPPORTED_VERSION and no usable ApiVersions range", v)
			}
			nv := min(r.Max, req.ValidVersions.Hi)
			if nv < r.Min || nv < req.ValidVersions.Lo {
				return fmt.Errorf("ApiVersions: the node supports v%d-%d, the specs v%d-%d", r.Min, r.Max, req.ValidVersions.Lo, req.ValidVersions.Hi)
			}
			v = nv
		default:
			return fmt.Errorf("ApiVersions v%d: error code %d", v, got.errorCode)
		}
	}
	return errors.New("ApiVersions: no agreement")
}

// HasField reports whether m's top-level struct has a field of that name in
// any version (ClusterId of ApiVersionsRequest exists from Kafka 4.x specs
// on, KIP-1242).
func HasField(m *spec.Message, name string) bool {
	for _, f := range m.Root.Fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

// fieldIn reports whether m's top-level struct has a field of that name in
// version v.
// apiVersionsBody is the ApiVersionsRequest body of the handshake at v:
// the client software's name and version (v3+), and no cluster id or node
// id to check (v5+).
func (cn *Conn) apiVersionsBody(req *spec.Message, v int16) (*tree.Tree, error) {
	b := codec.NewBuilder(req, v)
	if fieldIn(req, "ClientSoftwareName", v) { // v3+, KIP-511
		b.Set("ClientSoftwareName", cn.opts.SoftwareName).Set("ClientSoftwareVersion", cn.opts.SoftwareVersion)
	}
	if fieldIn(req, "ClusterId", v) { // v5+, KIP-1242: null and -1 say "not checked"
		b.Set("ClusterId", nil).Set("NodeId", -1)
	}
	return b.Tree()
}

func fieldIn(m *spec.Message, name string, v int16) bool {
	for _, f := range m.Root.Fields {
		if f.Name == name {
			return f.Versions.Contains(v)
		}
	}
	return false
}

// apiVersions is what the handshake reads of an ApiVersionsResponse.
type apiVersions struct {
	errorCode int16
	keys      map[int16]Range
}

// readAPIVersions reads the error code and the version ranges by api key
// of the ApiVersionsResponse t. Errors: no response or body, problems in
// its records, or a field that is not there (*tree.PathError).
func readAPIVersions(t *tree.Tree) (apiVersions, error) {
	if t == nil {
		return apiVersions{}, errors.New("no response")
	}
	b := t.Part(tree.Body)
	if b < 0 {
		return apiVersions{}, errors.New("response has no body")
	}
	if len(t.Errors()) > 0 {
		return apiVersions{}, errors.New(t.Errors()[0].String())
	}
	body := t.At(b)
	code, err := body.Field("ErrorCode").AsInt()
	if err != nil {
		return apiVersions{}, err
	}
	keys := body.Field("ApiKeys")
	if err := keys.Err(); err != nil {
		return apiVersions{}, err
	}
	got := apiVersions{errorCode: int16(code), keys: make(map[int16]Range, keys.Len())}
	for i := range keys.Len() {
		e := keys.Elem(i)
		k, err1 := e.Field("ApiKey").AsInt()
		lo, err2 := e.Field("MinVersion").AsInt()
		hi, err3 := e.Field("MaxVersion").AsInt()
		if err := errors.Join(err1, err2, err3); err != nil {
			return apiVersions{}, err
		}
		got.keys[int16(k)] = Range{int16(lo), int16(hi)}
	}
	return got, nil
}

// Addr is the address the Conn was dialled at.
func (cn *Conn) Addr() string { return cn.addr }

// Versions returns the version ranges the node announced, by api key.
func (cn *Conn) Versions() map[int16]Range { return cn.versions }

// Handshake returns the ApiVersions exchange the connection began with.
func (cn *Conn) Handshake() *Exchange { return cn.handshake }

// Negotiate returns the version to send request req at: the highest version
// both the specs (req.Versions) and the node support. Errors: the node does
// not announce the api key, or the ranges do not meet.
func (cn *Conn) Negotiate(req *spec.Message) (int16, error) {
	r, ok := cn.versions[req.APIKey]
	if !ok {
		return 0, fmt.Errorf("%s (api key %d): the node at %s does not support it (not in its ApiVersionsResponse)", baseName(req), req.APIKey, cn.addr)
	}
	v := min(r.Max, req.ValidVersions.Hi)
	if v < r.Min || v < req.ValidVersions.Lo {
		return 0, fmt.Errorf("%s: the node supports v%d-%d, the specs v%d-%d: no common version", baseName(req), r.Min, r.Max, req.ValidVersions.Lo, req.ValidVersions.Hi)
	}
	return v, nil
}

func baseName(m *spec.Message) string {
	return m.Name
}

// Call encodes body (a value tree of req at version, e.g. from
// codec.FromJSON) as a framed request with the next correlation id, sends
// it, and reads and decodes the response (the response spec of req's api
// key, at version). The returned Exchange has both trees even when the
// response does not decode whole (err is then the decode error and the
// response tree partial). The records of Kafka's internal topics in a
// response (a Fetch of __consumer_offsets) have their keys and values
// decoded by record type, the topic named by name or by a topic id that an
// earlier response on the Conn (Metadata) paired with its name
// (flow.Topics). Requests Kafka sends no response to (Produce with
// acks=0) are not supported. Errors: encode errors, I/O errors and timeouts
// (the Conn is then closed), a response frame over MaxFrame, a correlation
// id that does not match.
func (cn *Conn) Call(ctx context.Context, req *spec.Message, version int16, body *tree.Tree) (*Exchange, error) {
	ctx, cancel := withTimeout(ctx, cn.opts.Timeout)
	defer cancel()
	return cn.call(ctx, req, version, body)
}

func (cn *Conn) call(ctx context.Context, req *spec.Message, version int16, body *tree.Tree) (*Exchange, error) {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if cn.nc == nil {
		return nil, errors.New("connection closed")
	}
	cn.corr++
	corr := cn.corr
	set := cn.codec.Set
	hdr := codec.RequestHeaderValue(set.RequestHeader(), req.APIKey, version, corr, cn.opts.ClientID)
	rt, err := cn.codec.Encode(req, version, hdr, body)
	if err != nil {
		return nil, err
	}
	resp := set.Response(req.APIKey)
	if resp == nil {
		return nil, fmt.Errorf("the specs have no response for api key %d", req.APIKey)
	}
	// nc, not cn.nc: the cancel function may run after a failed call has
	// closed the connection (cn.nc nil).
	nc := cn.nc
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
		defer nc.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	x := &Exchange{Request: rt, Sent: time.Now()}
	if _, err := cn.nc.Write(rt.Bytes); err != nil {
		cn.closeLocked()
		return x, cn.ioError(ctx, "sending", err)
	}
	fr, err := cn.readFrame()
	if err != nil {
		cn.closeLocked()
		return x, cn.ioError(ctx, "reading the response", err)
	}
	x.Latency = time.Since(x.Sent)
	if got, ok := frame.ResponseCorrelationID(fr); ok && got != corr {
		cn.closeLocked()
		return x, &CorrelationError{Got: got, Want: corr}
	}
	t := &tree.Tree{}
	err = cn.codec.DecodeResponseWith(t, fr, resp, version, cn.topics.Options(cn.codec))
	if err == nil {
		cn.topics.Learn(t)
	}
	x.Response = t
	return x, err
}

// RoundTrip sends req, a whole request frame that kwire's specs may not
// describe (an unknown api key or version, a size over the limit), with
// the connection's next correlation id written at bytes 8-11 (where every
// request header version has it; req is changed), and returns the next
// response frame as received, not decoded. A frame shorter than 12 bytes
// is sent as it is. Errors as for Call: I/O errors and timeouts
// (ErrClosed, ErrTimeout; the Conn is then closed), a frame over MaxFrame,
// a correlation id out of step (*CorrelationError).
func (cn *Conn) RoundTrip(ctx context.Context, req []byte) ([]byte, error) {
	ctx, cancel := withTimeout(ctx, cn.opts.Timeout)
	defer cancel()
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if cn.nc == nil {
		return nil, errors.New("connection closed")
	}
	cn.corr++
	corr := cn.corr
	if len(req) >= 12 {
		req[8], req[9], req[10], req[11] = byte(corr>>24), byte(corr>>16), byte(corr>>8), byte(corr)
	}
	nc := cn.nc
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
		defer nc.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := nc.Write(req); err != nil {
		cn.closeLocked()
		return nil, cn.ioError(ctx, "sending", err)
	}
	fr, err := cn.readFrame()
	if err != nil {
		cn.closeLocked()
		return nil, cn.ioError(ctx, "reading the response", err)
	}
	if got, ok := frame.ResponseCorrelationID(fr); ok && got != corr {
		cn.closeLocked()
		return fr, &CorrelationError{Got: got, Want: corr}
	}
	return fr, nil
}

// readFrame reads one size-prefixed frame whole (prefix included), in a
// buffer of its own. A size prefix over MaxFrame (or negative) fails before
// the frame is read; the buffer grows with the bytes that arrive.
func (cn *Conn) readFrame() ([]byte, error) {
	for {
		switch ev := cn.sp.Next(); ev.Kind {
		case frame.Whole:
			return append([]byte(nil), ev.Bytes...), nil
		case frame.Head, frame.Negative:
			fe := &codec.FrameError{Size: ev.Size, Limit: cn.opts.MaxFrame, Have: 0}
			first := ev.Bytes
			if at := ev.Off - (cn.fed - int64(len(cn.chunk))); at >= 0 && at < int64(len(cn.chunk)) {
				first = cn.chunk[at:]
			}
			if r := frame.Recognize(cn.codec.Set, first); r.Protocol == frame.TLS || r.Protocol == frame.Text {
				return nil, &NotKafkaError{Addr: cn.addr, Found: r, Err: fe}
			}
			return nil, fe
		}
		n, err := cn.nc.Read(cn.rbuf)
		if n > 0 {
			cn.chunk = cn.rbuf[:n]
			cn.fed += int64(n)
			cn.sp.Feed(cn.chunk)
			continue
		}
		if err == nil {
			continue
		}
		p := cn.sp.Pending()
		if p.Off >= 0 && err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if p.Size >= 0 {
			err = fmt.Errorf("frame of %d bytes: %w", p.Size, err)
		}
		if r := frame.Recognize(cn.codec.Set, p.Bytes); len(p.Bytes) > 0 && (r.Protocol == frame.TLS || r.Protocol == frame.Text) {
			return nil, &NotKafkaError{Addr: cn.addr, Found: r, Err: err}
		}
		return nil, err
	}
}

func (cn *Conn) ioError(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return &kindError{fmt.Sprintf("%s: timed out (%s)", what, cn.addr), ErrTimeout, ctx.Err()}
		}
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &kindError{fmt.Sprintf("%s: timed out (%s)", what, cn.addr), ErrTimeout, err}
	}
	if errors.Is(err, io.EOF) {
		return &kindError{fmt.Sprintf("%s: the node at %s closed the connection", what, cn.addr), ErrClosed, err}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return &kindError{fmt.Sprintf("%s: %v", what, err), ErrClosed, err}
	}
	return fmt.Errorf("%s: %w", what, err)
}

func (cn *Conn) closeLocked() {
	if cn.nc != nil {
		cn.nc.Close()
		cn.nc = nil
	}
}

// Close closes the connection.
func (cn *Conn) Close() error {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if cn.nc == nil {
		return nil
	}
	err := cn.nc.Close()
	cn.nc = nil
	return err
}
