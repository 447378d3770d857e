package main

import (
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/tlsdecrypt/tlstest"
)

// tlsCapture writes a capture of a recorded TLS session (each write in
// segments of at most 1000 bytes) and its key log, returning their paths.
func tlsCapture(t *testing.T, s *tlstest.Session, keylog string) (pcap, kl string) {
	t.Helper()
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 900000, pcapT0)
	c.Handshake()
	for _, w := range s.Writes {
		c.Send(w.FromClient, w.Data, 1000)
	}
	c.Close()
	kl = filepath.Join(t.TempDir(), "keys.log")
	if err := os.WriteFile(kl, []byte(keylog), 0o644); err != nil {
		t.Fatal(err)
	}
	return writeCapture(t, f), kl
}

// withoutLatency drops the latency of exchange lines, which depends on
// the packets' timestamps, not on the frames.
var latency = regexp.MustCompile(`  \d+\.\d{3} ms`)

// Real TLS 1.3 and 1.2 sessions (crypto/tls, key log from KeyLogWriter)
// carrying ApiVersions, Metadata and Produce: kwire pcap --keylog prints
// the exchanges the plaintext capture of the same frames gives, after a
// notice naming the session.
func TestPcapKeyLog(t *testing.T) {
	cv := newConversation(t)
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 900000, pcapT0)
	c.Handshake()
	cv.exchanges(c, 0)
	c.Close()
	plain := outputLines(mustRun(t, "pcap", writeCapture(t, f)))
	if len(plain) != 3 {
		t.Fatalf("plaintext run: %q", plain)
	}
	reqs := [][]byte{cv.apiReq, cv.mdReq, cv.prReq}
	resps := [][]byte{cv.apiResp, cv.mdResp, cv.prResp}
	for _, tc := range []struct {
		cfg    *tls.Config
		notice string
	}{
		{&tls.Config{MinVersion: tls.VersionTLS13}, "TLS 1.3 TLS_AES_128_GCM_SHA256"},
		{&tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}}, "TLS 1.2 TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"},
		{&tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}}, "TLS 1.2 TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"},
	} {
		s := tlstest.Run(t, tc.cfg, reqs, resps)
		p, kl := tlsCapture(t, s, "# keys\n"+string(s.KeyLog))
		got := outputLines(mustRun(t, "pcap", "--keylog", kl, p))
		conn := "#1 10.0.0.1:50000→10.0.0.2:9092"
		wantNotice := fmt.Sprintf("%s  tls: %s session client_random=%x server_name=kafka.test", conn, tc.notice, s.ClientBytes[11:43])
		if len(got) != 4 || got[0] != wantNotice {
			t.Fatalf("%s: lines\n%s\nwant first\n%s", tc.notice, strings.Join(got, "\n"), wantNotice)
		}
		for i := range plain {
			if latency.ReplaceAllString(got[i+1], "") != latency.ReplaceAllString(plain[i], "") {
				t.Errorf("%s: exchange %d\n%s\nwant\n%s", tc.notice, i, got[i+1], plain[i])
			}
		}

		// Without --keylog the connection is reported as TLS, not Kafka.
		r := kwire(t, "pcap", p)
		if r.code != 1 || !strings.Contains(r.stdout, "these bytes look like TLS, not Kafka") {
			t.Errorf("without --keylog: exit %d\n%s", r.code, r.stdout)
		}
	}
}

// A key log that lacks the session (another session's keys, malformed
// lines): the lines are reported with their numbers, the session once,
// and the run fails.
func TestPcapKeyLogMissing(t *testing.T) {
	cv := newConversation(t)
	reqs, resps := [][]byte{cv.apiReq}, [][]byte{cv.apiResp}
	a := tlstest.Run(t, &tls.Config{MinVersion: tls.VersionTLS13}, reqs, resps)
	b := tlstest.Run(t, &tls.Config{MinVersion: tls.VersionTLS13}, reqs, resps)
	p, kl := tlsCapture(t, a, string(b.KeyLog)+"CLIENT_RANDOM 00\n")
	r := kwire(t, "pcap", "--keylog", kl, p)
	conn := "#1 10.0.0.1:50000→10.0.0.2:9092"
	cr := a.ClientBytes[11:43]
	want := []string{
		fmt.Sprintf("%s  tls: TLS 1.3 TLS_AES_128_GCM_SHA256 session client_random=%x server_name=kafka.test", conn, cr),
		fmt.Sprintf("%s  tls: TLS session client_random=%x (server_name kafka.test): no keys in the key log; this connection is not decoded further", conn, cr),
	}
	if got := outputLines(r.stdout); r.code != 1 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("exit %d, lines\n%s\nwant\n%s", r.code, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantErr := fmt.Sprintf("kwire: %s: key log line 5: 2 fields, want 3 (label, client random, secret) (the other lines are used)\n", kl)
	if !strings.HasPrefix(r.stderr, wantErr) {
		t.Errorf("stderr %q\nwant prefix %q", r.stderr, wantErr)
	}
}

// A TLS connection whose handshake was not captured is reported once;
// the run fails.
func TestPcapKeyLogMidStream(t *testing.T) {
	cv := newConversation(t)
	s := tlstest.Run(t, &tls.Config{MaxVersion: tls.VersionTLS12}, [][]byte{cv.apiReq, cv.mdReq}, [][]byte{cv.apiResp, cv.mdResp})
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 900000, pcapT0)
	n := len(s.Writes)
	for _, w := range s.Writes[n-3:] {
		c.Send(w.FromClient, w.Data, 1000)
	}
	p := writeCapture(t, f)
	kl := filepath.Join(t.TempDir(), "keys.log")
	if err := os.WriteFile(kl, s.KeyLog, 0o644); err != nil {
		t.Fatal(err)
	}
	r := kwire(t, "pcap", "--keylog", kl, p)
	conn := "#1 10.0.0.1:50000→10.0.0.2:9092"
	want := []string{
		conn + "  mid-stream: the capture starts inside this connection (no handshake captured); server by its port 9092; searching both directions for the first plausible frame",
		conn + "  tls: TLS: the capture starts inside a TLS session (no ClientHello captured), so its keys cannot be found; this connection is not decoded further",
	}
	if got := outputLines(r.stdout); r.code != 1 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("exit %d, lines\n%s\nwant\n%s", r.code, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
