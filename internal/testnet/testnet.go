// Package testnet is the loopback plumbing kwire's tests share: a server
// that hands every connection it accepts on 127.0.0.1 to a handler, an echo
// server, a TLS front for a plaintext server, and the reading of one
// size-prefixed Kafka frame. Everything a server starts ends with the test.
package testnet

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/kwire/kwire/frame"
)

// Listen listens on 127.0.0.1 at a port the system picks, behind TLS with
// sc when sc is not nil. Failures end the test.
func Listen(t testing.TB, sc *tls.Config) net.Listener {
	t.Helper()
	var ln net.Listener
	var err error
	if sc != nil {
		ln, err = tls.Listen("tcp", "127.0.0.1:0", sc)
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// Serve listens as Listen does and runs handle on every connection it
// accepts, each in a goroutine of its own, closing the connection when
// handle returns. When the test ends the listener is closed and Serve waits
// for every handler to return (a handler must return once its connection's
// peer is gone). It returns the address, 127.0.0.1:PORT.
func Serve(t testing.TB, sc *tls.Config, handle func(conn net.Conn)) string {
	t.Helper()
	ln := Listen(t, sc)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer conn.Close()
				handle(conn)
			})
		}
	})
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().String()
}

// CloseWrite half-closes conn (a *net.TCPConn or a *tls.Conn) for writing;
// a connection that cannot half-close is left as it is.
func CloseWrite(conn net.Conn) {
	if c, ok := conn.(interface{ CloseWrite() error }); ok {
		c.CloseWrite()
	}
}

// Echo starts a server (Serve, behind TLS with sc when sc is not nil) that
// writes back every byte it reads, through a buffer of 256 KiB, and
// half-closes when its client does. It returns the address.
func Echo(t testing.TB, sc *tls.Config) string {
	t.Helper()
	return Serve(t, sc, func(conn net.Conn) {
		buf := make([]byte, 256<<10)
		// The struct hides conn's ReadFrom/WriteTo, so that the copy
		// goes through buf.
		io.CopyBuffer(conn, struct{ io.Reader }{conn}, buf)
		CloseWrite(conn)
	})
}

// Front starts a server that terminates TLS with sc and relays the bytes of
// each connection to and from a new plaintext connection to upstream, as a
// broker's TLS listener in front of a plaintext one would. A connection
// whose upstream cannot be dialled is closed. It returns the address.
func Front(t testing.TB, sc *tls.Config, upstream string) string {
	t.Helper()
	return Serve(t, sc, func(c net.Conn) {
		up, err := net.Dial("tcp", upstream)
		if err != nil {
			return
		}
		defer up.Close()
		go func() { io.Copy(up, c); CloseWrite(up) }()
		io.Copy(c, up)
	})
}

// ErrSize is the error of ReadFrame for a size that is negative or over the
// limit.
var ErrSize = errors.New("frame size out of range")

// ReadFrame reads one frame from r: a 4-byte big-endian size, then that
// many bytes. It returns the frame with its size. A size that is negative
// or over max gives the 4 size bytes alone and an error wrapping ErrSize;
// a reader that ends before the first byte gives io.EOF, one that ends
// later io.ErrUnexpectedEOF.
func ReadFrame(r io.Reader, max int32) ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	size, _ := frame.Size(h[:])
	if size < 0 || size > max {
		return h[:], fmt.Errorf("%w: %d bytes (at most %d)", ErrSize, size, max)
	}
	fr := make([]byte, 4+int(size))
	copy(fr, h[:])
	if _, err := io.ReadFull(r, fr[4:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return fr, nil
}
