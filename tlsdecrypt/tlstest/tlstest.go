// Package tlstest runs real TLS sessions (crypto/tls client and server on
// loopback TCP, with KeyLogWriter) for tests, and records the bytes each
// end wrote on the wire and the key log they wrote.
package tlstest

import (
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/kwire/kwire/internal/testcert"
)

// Write is what one end wrote on the TCP connection, in one call.
type Write struct {
	FromClient bool
	Data       []byte
}

// Session is a recorded session.
type Session struct {
	// Writes are the TCP writes of both ends in the order they happened
	// (a response is written after its request was read, so each
	// direction's order and the causal order of the two hold).
	Writes []Write
	// KeyLog is what the client's KeyLogWriter received.
	KeyLog []byte
	// ClientBytes and ServerBytes are each direction's whole TCP stream.
	ClientBytes, ServerBytes []byte
}

type recorder struct {
	mu sync.Mutex
	s  *Session
}

type recConn struct {
	net.Conn
	r      *recorder
	client bool
}

func (c *recConn) Write(p []byte) (int, error) {
	c.r.mu.Lock()
	c.r.s.Writes = append(c.r.s.Writes, Write{FromClient: c.client, Data: bytes.Clone(p)})
	if c.client {
		c.r.s.ClientBytes = append(c.r.s.ClientBytes, p...)
	} else {
		c.r.s.ServerBytes = append(c.r.s.ServerBytes, p...)
	}
	c.r.mu.Unlock()
	return c.Conn.Write(p)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// Run makes a TLS session between a crypto/tls client configured by
// client (RootCAs, ServerName and KeyLogWriter are set here; set versions
// and suites) and a server: the client writes each request and reads the
// response of the same length, the server reads each request and writes
// its response; then the client closes (close_notify). Failures end the
// test.
func Run(t testing.TB, client *tls.Config, requests, responses [][]byte) *Session {
	t.Helper()
	ca := testcert.New(t, "kafka.test")
	certFile, keyFile := ca.Leaf("kafka.test")
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s := &Session{}
	rec := &recorder{s: s}
	kl := &lockedBuffer{}
	srvErr := make(chan error, 1)
	go func() {
		raw, err := ln.Accept()
		if err != nil {
			srvErr <- err
			return
		}
		defer raw.Close()
		sc := tls.Server(&recConn{Conn: raw, r: rec}, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: client.MinVersion, MaxVersion: client.MaxVersion})
		for i, q := range requests {
			got := make([]byte, len(q))
			if _, err := io.ReadFull(sc, got); err != nil {
				srvErr <- err
				return
			}
			if !bytes.Equal(got, q) {
				srvErr <- io.ErrUnexpectedEOF
				return
			}
			if _, err := sc.Write(responses[i]); err != nil {
				srvErr <- err
				return
			}
		}
		_, err = io.ReadAll(sc)
		srvErr <- err
	}()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	cfg := client.Clone()
	cfg.RootCAs, cfg.ServerName, cfg.KeyLogWriter = ca.Pool, "kafka.test", kl
	cc := tls.Client(&recConn{Conn: raw, r: rec, client: true}, cfg)
	for i, q := range requests {
		if _, err := cc.Write(q); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(responses[i]))
		if _, err := io.ReadFull(cc, got); err != nil {
			t.Fatal(err)
		}
	}
	cc.Close()
	if err := <-srvErr; err != nil {
		t.Fatalf("server: %v", err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	kl.mu.Lock()
	s.KeyLog = bytes.Clone(kl.b.Bytes())
	kl.mu.Unlock()
	return s
}
