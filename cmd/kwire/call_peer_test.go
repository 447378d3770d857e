package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kwire/kwire/internal/fakebroker"
	"github.com/kwire/kwire/internal/testcert"
)

// kwire call to a peer that is not a plaintext Kafka listener says what the
// peer speaks and which flag to add, not a frame size or only "closed the
// connection".
func TestCallSaysWhatThePeerSpeaks(t *testing.T) {
	// A TLS listener (Go's crypto/tls closes a connection whose first
	// bytes are not a TLS record, without an alert).
	ca := testcert.New(t, "127.0.0.1")
	cert, key := ca.Leaf("broker")
	b := tlsBroker(t, cert, key, "")
	r := kwire(t, "call", "--bootstrap", b.Addr, "ApiVersions")
	if r.code != 1 || !strings.HasSuffix(r.stderr, "; the peer speaks TLS: add --tls\n") {
		t.Errorf("TLS listener: exit %d, stderr %q", r.code, r.stderr)
	}
	// With --tls it answers.
	if r := kwire(t, "call", "--bootstrap", b.Addr, "--tls", "--tls-ca", ca.CertFile, "ApiVersions"); r.code != 0 {
		t.Errorf("with --tls: exit %d, stderr %q", r.code, r.stderr)
	}

	// A peer that answers with a TLS alert record (7 bytes, then it
	// closes).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 512)
			c.Read(buf)
			c.Write([]byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0a}) // fatal unexpected_message
			c.Close()
		}
	}()
	r = kwire(t, "call", "--bootstrap", ln.Addr().String(), "ApiVersions")
	if want := "kwire: " + ln.Addr().String() + ": ApiVersions v5: reading the response: the node at " + ln.Addr().String() +
		" answered with a TLS alert (level 2, unexpected_message), not a Kafka response (frame size at 0x0000: 352518912 is over the limit of 104857600 bytes); the peer speaks TLS: add --tls\n"; r.code != 1 || r.stderr != want {
		t.Errorf("TLS alert: exit %d, stderr %q\nwant %q", r.code, r.stderr, want)
	}

	// An HTTP server answers a Kafka request with 400 Bad Request.
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer hs.Close()
	addr := strings.TrimPrefix(hs.URL, "http://")
	// Go's server waits for the end of a request line, which a Kafka
	// request does not have: the call times out, then kwire asks.
	r = kwire(t, "call", "--timeout", "1s", "--bootstrap", addr, "ApiVersions")
	if want := `kwire: ` + addr + `: ApiVersions v5: reading the response: timed out (` + addr + `); the peer speaks HTTP, not Kafka (it answers an HTTP request with "HTTP/1.0 200 OK"): is ` + addr + " a Kafka listener?\n"; r.code != 1 || r.stderr != want {
		t.Errorf("HTTP server: exit %d, stderr %q\nwant …%q", r.code, r.stderr, want)
	}
	// With a longer --timeout, kwire asks alongside after probeAfter
	// without an answer, and says so then, not at the timeout.
	r = kwire(t, "call", "--timeout", "10m", "--bootstrap", addr, "ApiVersions")
	if want := `kwire: ` + addr + `: no answer to ApiVersions in 1s (the peer sent nothing); the peer speaks HTTP, not Kafka (it answers an HTTP request with "HTTP/1.0 200 OK"): is ` + addr + " a Kafka listener?\n"; r.code != 1 || r.stderr != want {
		t.Errorf("HTTP server, --timeout 10m: exit %d, stderr %q\nwant …%q", r.code, r.stderr, want)
	}

	// A plaintext Kafka listener that closes the connection is not called
	// TLS.
	pb := fakebroker.Start(t, fakebroker.Options{})
	// One that answers after probeAfter is waited for: the probe's
	// answer (none: the broker closes on "HEAD") does not end the call.
	slow := fakebroker.Start(t, fakebroker.Options{Delay: 2 * probeAfter})
	if r := kwire(t, "call", "--bootstrap", slow.Addr, "ApiVersions"); r.code != 0 {
		t.Errorf("slow broker: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := kwire(t, "call", "--bootstrap", pb.Addr, "ApiVersions"); r.code != 0 || strings.Contains(r.stderr, "TLS") {
		t.Errorf("plaintext broker: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A peer that accepts connections and never answers is probed once: the
// dial's connection and one probe's (its HTTP request line), and the call
// ends with the dial's timeout, not after a second probe.
func TestCallProbesASilentPeerOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	conns, heads := 0, 0
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns++
			mu.Unlock()
			go func() {
				defer c.Close()
				b, _ := io.ReadAll(c) // until kwire closes it
				if strings.HasPrefix(string(b), "HEAD ") {
					mu.Lock()
					heads++
					mu.Unlock()
				}
			}()
		}
	}()
	addr := ln.Addr().String()
	r := kwire(t, "call", "--timeout", "3s", "--bootstrap", addr, "ApiVersions")
	if want := "kwire: " + addr + ": ApiVersions v5: reading the response: timed out (" + addr + ")\n"; r.code != 1 || r.stderr != want {
		t.Errorf("exit %d, stderr %q\nwant %q", r.code, r.stderr, want)
	}
	// The reads above end with kwire's closes: wait for what was sent.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := heads
		mu.Unlock()
		if n > 0 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if conns != 2 || heads != 1 {
		t.Errorf("%d connections, %d HTTP probes; want 2 and 1", conns, heads)
	}
}

// A body that lacks a field new in the version sent: the error says which
// field, and which version has none (Produce v13 names topics by id).
func TestCallBodyLackingANewField(t *testing.T) {
	b := fakebroker.Start(t, fakebroker.Options{})
	body := `{"transactionalId":null,"acks":-1,"timeoutMs":1000,"topicData":[{"name":"t","partitionData":[]}]}`
	r := kwire(t, "call", "--bootstrap", b.Addr, "--version", "13", "Produce", body)
	want := "kwire: ProduceRequest v13 body: $.topicData[0].topicId: missing: the field is mandatory in version 13; topicId is in ProduceRequest v13 and later: give it, or send --version 12\n"
	if r.code != 1 || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("exit %d, stderr %q\nwant …%q", r.code, r.stderr, want)
	}
}

// kwire conform against a TLS listener without --tls says to add it, as
// call does.
func TestConformSaysThePeerSpeaksTLS(t *testing.T) {
	ca := testcert.New(t, "127.0.0.1")
	cert, key := ca.Leaf("broker")
	b := tlsBroker(t, cert, key, "")
	r := kwire(t, "conform", b.Addr)
	if r.code != 1 || !strings.HasSuffix(r.stderr, "; the peer speaks TLS: add --tls\n") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
