package proxy

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/internal/testcert"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/internal/tlsconf"
)

// tlsSetup is a CA, a proxy listener certificate (proxy.test), a broker
// certificate (broker.test, 127.0.0.1) and a client certificate, all
// signed by the CA, and a second CA that signed none of them.
type tlsSetup struct {
	ca, other                 *testcert.CA
	proxyCert, proxyKey       string
	brokerCert, brokerKey     string
	clientCert, clientKey     string
	strangerCert, strangerKey string
}

func newTLSSetup(t *testing.T) *tlsSetup {
	s := &tlsSetup{ca: testcert.New(t), other: testcert.New(t)}
	s.proxyCert, s.proxyKey = s.ca.Leaf("proxy", "proxy.test", "127.0.0.1")
	s.brokerCert, s.brokerKey = s.ca.Leaf("broker", "broker.test", "127.0.0.1")
	s.clientCert, s.clientKey = s.ca.Leaf("client", "client.test")
	s.strangerCert, s.strangerKey = s.other.Leaf("stranger", "proxy.test", "broker.test", "127.0.0.1")
	return s
}

// must(t)(c, err) is c, or ends the test with err.
func must(t *testing.T) func(*tls.Config, error) *tls.Config {
	return func(c *tls.Config, err error) *tls.Config {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

// tlsBroker is a fake broker behind a TLS listener with sc.
func tlsBroker(t *testing.T, sc *tls.Config) *fakeBroker {
	ln, err := tls.Listen("tcp", "127.0.0.1:0", sc)
	if err != nil {
		t.Fatal(err)
	}
	return newFakeBrokerOn(t, ln)
}

// dialAny connects to the proxy, with TLS when cc is not nil.
func dialAny(t *testing.T, p *Proxy, cc *tls.Config) net.Conn {
	t.Helper()
	if cc == nil {
		return dial(t, p)
	}
	c, err := tls.Dial("tcp", p.Addr().String(), cc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// exchange sends four requests through cl and reads their answers; the
// bytes sent and received.
func exchange(t *testing.T, c *codec.Codec, cl net.Conn) (sent, got []byte) {
	t.Helper()
	var s, g bytes.Buffer
	for i, r := range []struct {
		api string
		ver int16
	}{{"ApiVersions", 3}, {"Metadata", 12}, {"FindCoordinator", 6}, {"ApiVersions", 0}} {
		req := encodeFrame(t, c, r.api, true, r.ver, int32(100+i), "client-1", "")
		s.Write(req)
		if _, err := cl.Write(req); err != nil {
			t.Fatal(err)
		}
		g.Write(readFrame(t, cl))
	}
	return s.Bytes(), g.Bytes()
}

// Every combination of TLS on the listener and to the upstream (with
// client certificates on both sides in the last) forwards the plaintext
// unchanged, counts and hashes it, and decodes it.
func TestTLSModes(t *testing.T) {
	s := newTLSSetup(t)
	c := codec.New(testSet)
	for _, k := range []struct {
		name             string
		listen, upstream bool
		mtls             bool
	}{
		{"tls-to-plaintext", true, false, false},
		{"plaintext-to-tls", false, true, false},
		{"tls-to-tls", true, true, false},
		{"mtls-to-mtls", true, true, true},
	} {
		t.Run(k.name, func(t *testing.T) {
			o := Options{Codec: c, Hash: true}
			var cc *tls.Config
			clientCA := ""
			if k.mtls {
				clientCA = s.ca.CertFile
			}
			if k.listen {
				o.TLS = must(t)(tlsconf.Server(s.proxyCert, s.proxyKey, clientCA))
				cert, key := "", ""
				if k.mtls {
					cert, key = s.clientCert, s.clientKey
				}
				cc = must(t)(tlsconf.Client(s.ca.CertFile, "proxy.test", cert, key, false))
			}
			fb := newFakeBroker(t)
			if k.upstream {
				fb = tlsBroker(t, must(t)(tlsconf.Server(s.brokerCert, s.brokerKey, clientCA)))
				cert, key := "", ""
				if k.mtls {
					// The proxy presents the client certificate upstream.
					cert, key = s.clientCert, s.clientKey
				}
				o.UpstreamTLS = must(t)(tlsconf.Client(s.ca.CertFile, "broker.test", cert, key, false))
			}
			p, col := start(t, o, fb.addr())
			cl := dialAny(t, p, cc)
			sent, got := exchange(t, c, cl)
			if cw, ok := cl.(interface{ CloseWrite() error }); ok {
				cw.CloseWrite()
			}
			if rest, err := io.ReadAll(cl); len(rest) != 0 || err != nil {
				t.Fatalf("after the last response: %d bytes, %v", len(rest), err)
			}
			cl.Close()
			ev := col.waitClosed(t, 1)[1]
			if ev.Kind != Closed || ev.Err != nil {
				t.Fatalf("%v: %v", ev.Kind, ev.Err)
			}
			st := ev.Stats
			upRead, upWrote := fb.conn(0)
			if !bytes.Equal(upRead, sent) || !bytes.Equal(upWrote, got) {
				t.Fatalf("bytes changed on the way: upstream read %d of %d, client got %d of %d", len(upRead), len(sent), len(got), len(upWrote))
			}
			c2s, s2c := flow.ClientToServer, flow.ServerToClient
			if st.Read != [2]int64{int64(len(sent)), int64(len(got))} || st.Written != st.Read {
				t.Errorf("counts read %v written %v, want %d and %d", st.Read, st.Written, len(sent), len(got))
			}
			if st.ReadSHA256[c2s] != sum(sent) || st.WrittenSHA256[c2s] != sum(upRead) || st.ReadSHA256[s2c] != sum(upWrote) || st.WrittenSHA256[s2c] != sum(got) {
				t.Errorf("hashes differ")
			}
			xs, ps := col.flows(1)
			if len(ps) != 0 || len(xs) != 4 {
				t.Fatalf("exchanges %d, problems %v", len(xs), ps)
			}
			want := []string{"ApiVersions v3 #100", "Metadata v12 #101", "FindCoordinator v6 #102", "ApiVersions v0 #103"}
			for i, x := range xs {
				if s := fmt.Sprintf("%s v%d #%d", x.API, x.Version, x.CorrelationID); s != want[i] || x.Response == nil || x.Response.Err != nil {
					t.Errorf("exchange %d: %s, want %s with its response", i, s, want[i])
				}
			}
		})
	}
}

// failure waits for the Failed event of a connection and returns its
// error and the error's text.
func failure(t *testing.T, col *collector) (string, error) {
	t.Helper()
	for _, e := range col.waitClosed(t, 1) {
		if e.Kind != Failed {
			t.Fatalf("%v, want failed (err %v)", e.Kind, e.Err)
		}
		var he *HandshakeError
		if !errors.As(e.Err, &he) {
			t.Fatalf("%T %v, not a HandshakeError", e.Err, e.Err)
		}
		return e.Err.Error(), e.Err
	}
	return "", nil
}

// A failed handshake with a client is one Failed event naming the client
// and the cause, and the proxy goes on serving: a good TLS connection
// made afterwards works.
func TestClientHandshakeFaults(t *testing.T) {
	s := newTLSSetup(t)
	c := codec.New(testSet)
	fb := newFakeBroker(t)
	good := must(t)(tlsconf.Client(s.ca.CertFile, "proxy.test", s.clientCert, s.clientKey, false))
	for _, k := range []struct {
		name     string
		clientCA bool
		run      func(t *testing.T, addr string)
		want     string
	}{
		{"plaintext", false, func(t *testing.T, addr string) {
			cl, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			cl.Write(encodeFrame(t, c, "ApiVersions", true, 3, 1, "plain", ""))
			io.ReadAll(cl)
		}, "TLS handshake: client sent plaintext (looks like a Kafka request: ApiVersions v3)"},
		{"http", false, func(t *testing.T, addr string) {
			cl, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			cl.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
			io.ReadAll(cl)
		}, "TLS handshake: client sent plaintext (looks like HTTP)"},
		{"unknown CA", false, func(t *testing.T, addr string) {
			_, err := tls.Dial("tcp", addr, must(t)(tlsconf.Client(s.other.CertFile, "proxy.test", "", "", false)))
			if err == nil || !strings.Contains(err.Error(), "x509: certificate signed by unknown authority") {
				t.Errorf("client: %v", err)
			}
		}, "TLS handshake: remote error: tls: bad certificate (the client refused the proxy's certificate)"},
		{"wrong name", false, func(t *testing.T, addr string) {
			_, err := tls.Dial("tcp", addr, must(t)(tlsconf.Client(s.ca.CertFile, "elsewhere.test", "", "", false)))
			if err == nil || !strings.Contains(err.Error(), "not elsewhere.test") {
				t.Errorf("client: %v", err)
			}
		}, "TLS handshake: remote error: tls: bad certificate (the client refused the proxy's certificate)"},
		{"no client certificate", true, func(t *testing.T, addr string) {
			cl, err := tls.Dial("tcp", addr, must(t)(tlsconf.Client(s.ca.CertFile, "proxy.test", "", "", false)))
			if err == nil {
				// TLS 1.3: the refusal shows on the first read.
				_, err = cl.Read(make([]byte, 1))
				cl.Close()
			}
			if err == nil || !strings.Contains(err.Error(), "certificate required") {
				t.Errorf("client: %v", err)
			}
		}, "TLS handshake: tls: client didn't provide a certificate"},
		{"stranger's certificate", true, func(t *testing.T, addr string) {
			cc := must(t)(tlsconf.Client(s.ca.CertFile, "proxy.test", s.strangerCert, s.strangerKey, false))
			// Send it although the proxy names the CAs it accepts.
			cc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cc.Certificates[0], nil }
			cl, err := tls.Dial("tcp", addr, cc)
			if err == nil {
				_, err = cl.Read(make([]byte, 1))
				cl.Close()
			}
			if err == nil {
				t.Error("client: no error")
			}
		}, "TLS handshake: x509: certificate signed by unknown authority"},
		{"silent", false, func(t *testing.T, addr string) {
			cl, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			io.ReadAll(cl) // the proxy gives up and closes
		}, "TLS handshake: no handshake within 300ms"},
	} {
		t.Run(k.name, func(t *testing.T) {
			clientCA := ""
			if k.clientCA {
				clientCA = s.ca.CertFile
			}
			o := Options{Codec: c, HandshakeTimeout: 300 * time.Millisecond, TLS: must(t)(tlsconf.Server(s.proxyCert, s.proxyKey, clientCA))}
			p, col := start(t, o, fb.addr())
			k.run(t, p.Addr().String())
			msg, err := failure(t, col)
			if !strings.HasPrefix(msg, "client 127.0.0.1:") || !strings.HasSuffix(msg, k.want) {
				t.Errorf("got %q, want client 127.0.0.1:PORT: %s", msg, k.want)
			}
			if plain := strings.Contains(k.want, "plaintext"); errors.Is(err, ErrPlaintext) != plain {
				t.Errorf("errors.Is(err, ErrPlaintext) is %v", !plain)
			}
			// The proxy goes on.
			cl := dialAny(t, p, good)
			exchange(t, c, cl)
			cl.Close()
			if e := col.waitClosed(t, 1); e[2].Kind != Closed || e[2].Err != nil {
				t.Errorf("next connection: %+v", e)
			}
		})
	}
}

// A silent client does not hold up accepting others: a connection made
// while it waits is served.
func TestSilentClientDoesNotBlockAccept(t *testing.T) {
	s := newTLSSetup(t)
	c := codec.New(testSet)
	fb := newFakeBroker(t)
	o := Options{Codec: c, TLS: must(t)(tlsconf.Server(s.proxyCert, s.proxyKey, ""))}
	p, col := start(t, o, fb.addr())
	silent, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	cl := dialAny(t, p, must(t)(tlsconf.Client(s.ca.CertFile, "proxy.test", "", "", false)))
	exchange(t, c, cl)
	cl.Close()
	if e := col.waitClosed(t, 1); e[2].Kind != Closed {
		t.Errorf("%+v", e)
	}
	silent.Close()
	if msg, _ := failure(t, col); !strings.HasSuffix(msg, "TLS handshake: the client closed the connection") {
		t.Errorf("silent: %q", msg)
	}
}

// plainServer accepts connections and runs serve on each.
func plainServer(t *testing.T, serve func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, ln, serve)
}

// tlsServer is plainServer behind a TLS listener with sc (closing a
// connection sends close_notify).
func tlsServer(t *testing.T, sc *tls.Config, serve func(net.Conn)) string {
	ln, err := tls.Listen("tcp", "127.0.0.1:0", sc)
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, ln, serve)
}

// serveOn runs serve on each connection of ln in turn, closing it after,
// until the test ends; it returns ln's address.
func serveOn(t *testing.T, ln net.Listener, serve func(net.Conn)) string {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			serve(c)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

// A failed handshake with the upstream is one Failed event naming the
// broker and the cause; the client's connection is closed and the proxy
// goes on.
func TestUpstreamHandshakeFaults(t *testing.T) {
	s := newTLSSetup(t)
	c := codec.New(testSet)
	broker := tlsBroker(t, must(t)(tlsconf.Server(s.brokerCert, s.brokerKey, "")))
	mtlsBroker := tlsBroker(t, must(t)(tlsconf.Server(s.brokerCert, s.brokerKey, s.ca.CertFile)))
	// A plaintext broker closes a connection whose first size prefix is
	// too large (a ClientHello read as a size), after reading it.
	plaintext := plainServer(t, func(c net.Conn) {
		var hdr [5]byte
		if _, err := io.ReadFull(c, hdr[:]); err == nil {
			io.CopyN(io.Discard, c, int64(hdr[3])<<8|int64(hdr[4]))
		}
	})
	// A plaintext broker that resets the connection after reading the
	// ClientHello.
	resetter := plainServer(t, func(c net.Conn) {
		var hdr [5]byte
		if _, err := io.ReadFull(c, hdr[:]); err == nil {
			io.CopyN(io.Discard, c, int64(hdr[3])<<8|int64(hdr[4]))
		}
		c.(*net.TCPConn).SetLinger(0)
	})
	// A plaintext server that speaks first.
	talker := plainServer(t, func(c net.Conn) {
		c.Write([]byte{0, 0, 0, 4, 0, 0, 0, 1})
		io.Copy(io.Discard, c)
	})
	for _, k := range []struct {
		name     string
		upstream string
		cfg      *tls.Config
		want     string
	}{
		{"unknown CA", broker.addr(), must(t)(tlsconf.Client(s.other.CertFile, "", "", "", false)), "TLS handshake: x509: certificate signed by unknown authority"},
		{"wrong name", broker.addr(), must(t)(tlsconf.Client(s.ca.CertFile, "other.test", "", "", false)), "TLS handshake: x509: certificate is valid for broker.test, not other.test"},
		{"plaintext broker", plaintext, must(t)(tlsconf.Client(s.ca.CertFile, "", "", "", false)), "TLS handshake: the broker closed the connection (is it a plaintext listener?)"},
		{"plaintext broker resets", resetter, must(t)(tlsconf.Client(s.ca.CertFile, "", "", "", false)), "TLS handshake: the broker closed the connection (is it a plaintext listener?)"},
		{"plaintext answer", talker, must(t)(tlsconf.Client(s.ca.CertFile, "", "", "", false)), "TLS handshake: the broker answered in plaintext (looks like a Kafka response of 4 bytes)"},
	} {
		t.Run(k.name, func(t *testing.T) {
			p, col := start(t, Options{Codec: c, UpstreamTLS: k.cfg}, k.upstream)
			cl := dial(t, p)
			if rest, _ := io.ReadAll(cl); len(rest) != 0 {
				t.Errorf("client got %d bytes", len(rest))
			}
			cl.Close()
			msg, err := failure(t, col)
			if want := "upstream " + k.upstream + ": " + k.want; msg != want {
				t.Errorf("got  %q\nwant %q", msg, want)
			}
			if plain := strings.Contains(k.want, "answered in plaintext"); errors.Is(err, ErrPlaintext) != plain {
				t.Errorf("errors.Is(err, ErrPlaintext) is %v", !plain)
			}
		})
	}
	// With TLS 1.3 a broker refuses a missing client certificate after
	// the client's side of the handshake is done: the connection ends on
	// the proxy's first read from the broker, with the broker's alert.
	p, col := start(t, Options{Codec: c, UpstreamTLS: must(t)(tlsconf.Client(s.ca.CertFile, "", "", "", false))}, mtlsBroker.addr())
	cl := dial(t, p)
	io.ReadAll(cl)
	cl.Close()
	if e := col.waitClosed(t, 1)[1]; e.Kind != Closed || e.Err == nil || e.Err.Error() != "s2c: read: remote error: tls: certificate required" {
		t.Errorf("%v: %v", e.Kind, e.Err)
	}
	// The server name defaults to the host dialled (127.0.0.1, in the
	// broker's certificate), and the insecure mode accepts any.
	for _, cfg := range []*tls.Config{must(t)(tlsconf.Client(s.ca.CertFile, "", "", "", false)), must(t)(tlsconf.Client("", "", "", "", true))} {
		p, col := start(t, Options{Codec: c, UpstreamTLS: cfg}, broker.addr())
		cl := dial(t, p)
		exchange(t, c, cl)
		cl.Close()
		if e := col.waitClosed(t, 1); e[1].Kind != Closed || e[1].Err != nil {
			t.Errorf("%+v", e[1])
		}
	}
}

// Megabytes through TLS on both sides (reads of many records at once,
// the records of a write sent together) come back unchanged, with the
// proxy's counts and hashes of the plaintext equal to the client's.
func TestTLSLargeTransfer(t *testing.T) {
	s := newTLSSetup(t)
	echo := testnet.Echo(t, must(t)(tlsconf.Server(s.brokerCert, s.brokerKey, "")))
	o := Options{Hash: true, TLS: must(t)(tlsconf.Server(s.proxyCert, s.proxyKey, "")), UpstreamTLS: must(t)(tlsconf.Client(s.ca.CertFile, "broker.test", "", "", false))}
	p, col := start(t, o, echo)
	data := make([]byte, 3<<20+12345)
	for i := range data {
		data[i] = byte(i*7 + i>>11)
	}
	cl := dialAny(t, p, must(t)(tlsconf.Client(s.ca.CertFile, "proxy.test", "", "", false))).(*tls.Conn)
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(cl); got <- b }()
	// Writes of odd sizes, then the end (close_notify right after data).
	for off := 0; off < len(data); {
		n := min(len(data)-off, 1+off%200000)
		if _, err := cl.Write(data[off : off+n]); err != nil {
			t.Fatal(err)
		}
		off += n
	}
	cl.CloseWrite()
	if b := <-got; !bytes.Equal(b, data) {
		t.Fatalf("got %d bytes back, want the %d sent", len(b), len(data))
	}
	cl.Close()
	ev := col.waitClosed(t, 1)[1]
	st := ev.Stats
	n := int64(len(data))
	if ev.Err != nil || st.Read != [2]int64{n, n} || st.Written != st.Read {
		t.Fatalf("err %v, read %v, written %v", ev.Err, st.Read, st.Written)
	}
	h := sum(data)
	if st.ReadSHA256 != [2][32]byte{h, h} || st.WrittenSHA256 != st.ReadSHA256 {
		t.Error("hashes differ from the data's")
	}
}
