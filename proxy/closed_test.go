package proxy

import (
	"io"
	"net"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testnet"
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
