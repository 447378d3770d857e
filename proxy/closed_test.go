package proxy

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/internal/tlsconf"
)

// A broker that ends the connection while the client's side is open is
// named on the Closed event; one that closes without answering a
// plaintext request, or answers with a TLS record, is most likely a TLS
// listener.
func TestBrokerClosedIsNamed(t *testing.T) {
	c := codec.New(testSet)
	req := encodeFrame(t, c, "ApiVersions", true, 3, 7, "x", "")
	alert := []byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x50}
	answer := []byte{0, 0, 0, 4, 0, 0, 0, 7}
	for _, k := range []struct {
		name  string
		reply []byte
		want  string
	}{
		{"no answer", nil, "the broker closed without answering (a TLS listener?)"},
		{"TLS alert", alert, "the broker closed without answering (a TLS listener?)"},
		{"answered", answer, "the broker closed the connection"},
	} {
		t.Run(k.name, func(t *testing.T) {
			// The broker reads the whole request (so that its close is an
			// end of stream, not a reset), replies and closes.
			up := plainServer(t, func(conn net.Conn) {
				if _, err := testnet.ReadFrame(conn, 1<<20); err == nil {
					conn.Write(k.reply)
				}
				conn.Close()
			})
			p, col := start(t, Options{Codec: c}, up)
			cl := dial(t, p)
			if _, err := cl.Write(req); err != nil {
				t.Fatal(err)
			}
			// The broker's end reaches the client, which is then idle.
			got, err := io.ReadAll(cl)
			if err != nil || string(got) != string(k.reply) {
				t.Fatalf("client got %x, %v", got, err)
			}
			e := col.waitClosed(t, 1)[1]
			cl.Close()
			if e.Kind != Closed || e.Err == nil || e.Err.Error() != k.want {
				t.Fatalf("%v: %v, want %q", e.Kind, e.Err, k.want)
			}
			if e.Stats.Read != [2]int64{int64(len(req)), int64(len(k.reply))} {
				t.Errorf("read %v", e.Stats.Read)
			}
		})
	}
	// Over TLS to the broker, an unanswered close says only that it
	// closed; a client that closes first ends the connection with no Err.
	e := (&BrokerClosedError{Unanswered: true, Hint: " try --upstream-tls"}).Error()
	if e != "the broker closed without answering (a TLS listener? try --upstream-tls)" {
		t.Errorf("%q", e)
	}
	echo := testnet.Echo(t, nil)
	p, col := start(t, Options{Codec: c}, echo)
	cl := dial(t, p)
	cl.Write(req)
	io.ReadFull(cl, make([]byte, len(req)))
	cl.Close()
	if ev := col.waitClosed(t, 1)[1]; ev.Kind != Closed || ev.Err != nil {
		t.Errorf("client first: %v %v", ev.Kind, ev.Err)
	}
}

// A broker that ends the connection ends a TLS client's at once too: the
// client gets the answer and the end of stream (close_notify), and the
// connection is Closed without the client writing again, whether the
// upstream is plaintext or TLS.
func TestBrokerCloseEndsTLSClientConnection(t *testing.T) {
	s := newTLSSetup(t)
	c := codec.New(testSet)
	req := encodeFrame(t, c, "ApiVersions", true, 3, 7, "x", "")
	answer := []byte{0, 0, 0, 4, 0, 0, 0, 7}
	serve := func(conn net.Conn) {
		if _, err := testnet.ReadFrame(conn, 1<<20); err == nil {
			conn.Write(answer)
		}
	}
	for _, upTLS := range []bool{false, true} {
		t.Run(fmt.Sprintf("upstream-tls=%t", upTLS), func(t *testing.T) {
			o := Options{Codec: c, TLS: must(t)(tlsconf.Server(s.proxyCert, s.proxyKey, ""))}
			var up string
			if upTLS {
				up = tlsServer(t, must(t)(tlsconf.Server(s.brokerCert, s.brokerKey, "")), serve)
				o.UpstreamTLS = must(t)(tlsconf.Client(s.ca.CertFile, "broker.test", "", "", false))
			} else {
				up = plainServer(t, serve)
			}
			p, col := start(t, o, up)
			cl := dialAny(t, p, must(t)(tlsconf.Client(s.ca.CertFile, "proxy.test", "", "", false)))
			defer cl.Close()
			if _, err := cl.Write(req); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(cl)
			if err != nil || !bytes.Equal(got, answer) {
				t.Fatalf("client got %x, %v", got, err)
			}
			// The client stays idle: only the proxy can end the
			// connection now. (The bound only keeps a regression from
			// hanging the test; the end comes at once.)
			select {
			case e := <-col.closed:
				if e.Kind != Closed || e.Err == nil || e.Err.Error() != "the broker closed the connection" {
					t.Fatalf("%v: %v", e.Kind, e.Err)
				}
				if e.Stats.Read != [2]int64{int64(len(req)), int64(len(answer))} {
					t.Errorf("read %v", e.Stats.Read)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the connection is still open 20 s after the broker closed it")
			}
		})
	}
}
