package testnet

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/kwire/kwire/internal/testcert"
	"github.com/kwire/kwire/internal/tlsconf"
)

func TestReadFrame(t *testing.T) {
	for _, c := range []struct {
		name, in string
		max      int32
		want     string
		err      error
	}{
		{"one frame", "\x00\x00\x00\x03abcrest", 16, "\x00\x00\x00\x03abc", nil},
		{"empty frame", "\x00\x00\x00\x00", 16, "\x00\x00\x00\x00", nil},
		{"at the limit", "\x00\x00\x00\x02ab", 2, "\x00\x00\x00\x02ab", nil},
		{"over the limit", "\x00\x00\x00\x03abc", 2, "\x00\x00\x00\x03", ErrSize},
		{"negative", "\xff\xff\xff\xffabc", 16, "\xff\xff\xff\xff", ErrSize},
		{"nothing", "", 16, "", io.EOF},
		{"cut in the size", "\x00\x00", 16, "", io.ErrUnexpectedEOF},
		{"cut in the body", "\x00\x00\x00\x03ab", 16, "", io.ErrUnexpectedEOF},
	} {
		got, err := ReadFrame(strings.NewReader(c.in), c.max)
		if string(got) != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%s: ReadFrame = %q, %v; want %q, %v", c.name, got, err, c.want, c.err)
		}
	}
}

// roundTrip writes msg on conn, half-closes it and returns all it reads.
func roundTrip(t *testing.T, conn net.Conn, msg []byte) []byte {
	t.Helper()
	defer conn.Close()
	go func() { conn.Write(msg); CloseWrite(conn) }()
	got, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// tlsConfigs are a server's config for 127.0.0.1 and a client's that
// trusts it.
func tlsConfigs(t *testing.T) (sc, cc *tls.Config) {
	t.Helper()
	ca := testcert.New(t, "127.0.0.1")
	cert, key := ca.Leaf("server", "127.0.0.1")
	sc, err := tlsconf.Server(cert, key, "")
	if err != nil {
		t.Fatal(err)
	}
	cc, err = tlsconf.Client(ca.CertFile, "", "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	return sc, cc
}

func TestEchoAndFront(t *testing.T) {
	msg := bytes.Repeat([]byte("kwire "), 100_000) // over Echo's buffer
	conn, err := net.Dial("tcp", Echo(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := roundTrip(t, conn, msg); !bytes.Equal(got, msg) {
		t.Errorf("echo: %d bytes back, want the %d sent", len(got), len(msg))
	}

	sc, cc := tlsConfigs(t)
	for name, addr := range map[string]string{"TLS echo": Echo(t, sc), "front": Front(t, sc, Echo(t, nil))} {
		tc, err := tls.Dial("tcp", addr, cc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := roundTrip(t, tc, msg); !bytes.Equal(got, msg) {
			t.Errorf("%s: %d bytes back, want the %d sent", name, len(got), len(msg))
		}
	}
}

func TestFrontWithoutUpstreamCloses(t *testing.T) {
	sc, cc := tlsConfigs(t)
	// Nothing listens on port 1: the front closes the connection before
	// the handshake.
	if tc, err := tls.Dial("tcp", Front(t, sc, "127.0.0.1:1"), cc); err == nil {
		tc.Close()
		t.Fatal("TLS handshake through a front without upstream succeeded")
	}
}
