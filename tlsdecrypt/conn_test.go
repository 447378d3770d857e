package tlsdecrypt_test

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tlsdecrypt"
	"github.com/kwire/kwire/tlsdecrypt/tlstest"
)

// kafkaFrames returns an ApiVersions v3 and a Metadata v12 request and
// their responses, encoded by the codec.
func kafkaFrames(t *testing.T) (reqs, resps [][]byte) {
	t.Helper()
	set, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	cd := codec.New(set)
	for i, c := range []struct {
		api string
		ver int16
	}{{"ApiVersions", 3}, {"Metadata", 12}} {
		req, _, _ := set.Lookup(c.api)
		resp := set.Response(req.APIKey)
		corr := int32(7 + i)
		rq, err := cd.Encode(req, c.ver, codec.RequestHeaderValue(set.RequestHeader(), req.APIKey, c.ver, corr, "tls-client"), instance.Smallest(req, c.ver))
		if err != nil {
			t.Fatal(err)
		}
		rs, err := cd.Encode(resp, c.ver, codec.ResponseHeaderValue(set.ResponseHeader(), corr), instance.Smallest(resp, c.ver))
		if err != nil {
			t.Fatal(err)
		}
		reqs, resps = append(reqs, rq.Bytes), append(resps, rs.Bytes)
	}
	return reqs, resps
}

// decrypt runs a session's TCP streams through a Conn, chunk bytes at a
// time (0: each write whole), and returns each direction's plaintext and
// the problems and sessions reported.
func decrypt(t *testing.T, s *tlstest.Session, keylog []byte, chunk int) (plain [2][]byte, notes []string) {
	t.Helper()
	kl, bad, err := tlsdecrypt.ParseKeyLog(bytes.NewReader(keylog))
	if err != nil || len(bad) != 0 {
		t.Fatalf("key log: %v %v", err, bad)
	}
	c := tlsdecrypt.New(tlsdecrypt.Options{
		KeyLog: kl,
		Data:   func(d tlsdecrypt.Dir, p []byte, _ time.Time) { plain[d] = append(plain[d], p...) },
		Problem: func(d tlsdecrypt.Dir, off int64, _ time.Time, msg string) {
			notes = append(notes, fmt.Sprintf("%s %d: %s", d, off, msg))
		},
		Session: func(s *tlsdecrypt.Session, _ time.Time) { notes = append(notes, "session "+s.SuiteName) },
	})
	for _, w := range s.Writes {
		d := tlsdecrypt.ServerToClient
		if w.FromClient {
			d = tlsdecrypt.ClientToServer
		}
		p := w.Data
		for len(p) > 0 {
			n := len(p)
			if chunk > 0 {
				n = min(n, chunk)
			}
			c.Data(d, p[:n], time.Time{})
			p = p[n:]
		}
	}
	c.End(tlsdecrypt.ClientToServer, time.Time{})
	c.End(tlsdecrypt.ServerToClient, time.Time{})
	return plain, notes
}

// Real sessions of every suite Go's crypto/tls lets a client choose, each
// decrypted from its TCP bytes and key log: the plaintext of both
// directions is exactly the Kafka frames written, fed whole or a byte at a
// time or in 7-byte pieces.
func TestRealSessions(t *testing.T) {
	reqs, resps := kafkaFrames(t)
	for _, c := range []struct {
		name  string
		cfg   *tls.Config
		suite string
	}{
		{"1.3", &tls.Config{MinVersion: tls.VersionTLS13}, "TLS_AES_128_GCM_SHA256"},
		{"1.2-aes128", &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}}, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"},
		{"1.2-aes256", &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}}, "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"},
		{"1.2-chacha", &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}}, "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := tlstest.Run(t, c.cfg, reqs, resps)
			want := [2][]byte{bytes.Join(reqs, nil), bytes.Join(resps, nil)}
			for _, chunk := range []int{0, 1, 7} {
				plain, notes := decrypt(t, s, s.KeyLog, chunk)
				if !bytes.Equal(plain[0], want[0]) || !bytes.Equal(plain[1], want[1]) {
					t.Fatalf("chunk %d: plaintext\n%x\n%x\nwant\n%x\n%x", chunk, plain[0], plain[1], want[0], want[1])
				}
				if len(notes) != 1 || notes[0] != "session "+c.suite {
					t.Fatalf("chunk %d: notes %q", chunk, notes)
				}
			}
		})
	}
}

// A session whose secrets are not in the key log (which holds another
// session's) is reported once, naming its client random; nothing is
// decrypted.
func TestMissingKeys(t *testing.T) {
	reqs, resps := kafkaFrames(t)
	a := tlstest.Run(t, &tls.Config{MinVersion: tls.VersionTLS13}, reqs, resps)
	b := tlstest.Run(t, &tls.Config{MinVersion: tls.VersionTLS13}, reqs, resps)
	plain, notes := decrypt(t, a, b.KeyLog, 0)
	if len(plain[0])+len(plain[1]) != 0 {
		t.Fatalf("plaintext %x %x", plain[0], plain[1])
	}
	cr := a.ClientBytes[11 : 11+32]
	want := fmt.Sprintf("server→client 0: TLS session client_random=%x (server_name kafka.test): no keys in the key log; this connection is not decoded further", cr)
	if len(notes) != 2 || notes[0] != "session TLS_AES_128_GCM_SHA256" || notes[1] != want {
		t.Fatalf("notes %q\nwant %q", notes, want)
	}
}

// A capture that starts after the handshake, and one that loses bytes in
// the middle of the server's stream.
func TestMidStreamAndGap(t *testing.T) {
	reqs, resps := kafkaFrames(t)
	s := tlstest.Run(t, &tls.Config{MaxVersion: tls.VersionTLS12}, reqs, resps)
	kl, _, _ := tlsdecrypt.ParseKeyLog(bytes.NewReader(s.KeyLog))
	var notes []string
	c := tlsdecrypt.New(tlsdecrypt.Options{KeyLog: kl, Problem: func(d tlsdecrypt.Dir, off int64, _ time.Time, msg string) {
		notes = append(notes, fmt.Sprintf("%s %d: %s", d, off, msg))
	}})
	last := s.Writes[len(s.Writes)-1]
	c.Data(tlsdecrypt.ClientToServer, last.Data, time.Time{})
	c.Data(tlsdecrypt.ClientToServer, last.Data, time.Time{})
	want := []string{"client→server 0: TLS: the capture starts inside a TLS session (no ClientHello captured), so its keys cannot be found; this connection is not decoded further"}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Fatalf("notes %q", notes)
	}

	notes = nil
	var plain [2][]byte
	c = tlsdecrypt.New(tlsdecrypt.Options{KeyLog: kl,
		Data: func(d tlsdecrypt.Dir, p []byte, _ time.Time) { plain[d] = append(plain[d], p...) },
		Problem: func(d tlsdecrypt.Dir, off int64, _ time.Time, msg string) {
			notes = append(notes, fmt.Sprintf("%s %d: %s", d, off, msg))
		}})
	// Everything but the server's stream from its last 10 bytes but 3:
	// the gap falls inside the record of the last response.
	srv, gapAt := 0, int64(0)
	for _, w := range s.Writes {
		if w.FromClient {
			c.Data(tlsdecrypt.ClientToServer, w.Data, time.Time{})
			continue
		}
		if srv+len(w.Data) == len(s.ServerBytes) && len(w.Data) > 20 {
			c.Data(tlsdecrypt.ServerToClient, w.Data[:10], time.Time{})
			gapAt = int64(srv + 10)
			c.Gap(tlsdecrypt.ServerToClient, 7, time.Time{})
			c.Data(tlsdecrypt.ServerToClient, w.Data[17:], time.Time{})
		} else {
			c.Data(tlsdecrypt.ServerToClient, w.Data, time.Time{})
		}
		srv += len(w.Data)
	}
	if !bytes.Equal(plain[0], bytes.Join(reqs, nil)) || !bytes.Equal(plain[1], resps[0]) {
		t.Fatalf("plaintext %x\n%x", plain[0], plain[1])
	}
	cr := s.ClientBytes[11 : 11+32]
	want = []string{fmt.Sprintf("server→client %d: TLS: 7 bytes missing inside the TLS stream of TLS session client_random=%x (server_name kafka.test): records are lost; this direction is not decrypted further", gapAt, cr)}
	if gapAt == 0 || strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Fatalf("notes %q\nwant %q", notes, want)
	}
}

// Key log lines that do not parse are reported with their numbers; the
// others are used.
func TestParseKeyLog(t *testing.T) {
	cr := strings.Repeat("ab", 32)
	in := "# a comment\n\n" +
		"CLIENT_RANDOM " + cr + " " + strings.Repeat("01", 48) + "\n" +
		"CLIENT_RANDOM " + cr + "\n" +
		"CLIENT_RANDOM zz " + strings.Repeat("01", 48) + "\n" +
		"CLIENT_RANDOM " + cr + " 0102\n" +
		"EXPORTER_SECRET " + cr + " 0102\n" +
		"garbage here now\n" +
		"SERVER_TRAFFIC_SECRET_0 " + cr + " " + strings.Repeat("02", 32) + "\n"
	kl, bad, err := tlsdecrypt.ParseKeyLog(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range bad {
		got = append(got, e.Error())
	}
	want := []string{
		"key log line 4: 2 fields, want 3 (label, client random, secret)",
		`key log line 5: client random "zz" is not 32 bytes of hex`,
		"key log line 6: master secret of 2 bytes, want 48",
		`key log line 8: "garbage" is not a key log label`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s := kl.Lookup(bytes.Repeat([]byte{0xab}, 32))
	if kl.Len() != 1 || s == nil || !bytes.Equal(s.Master, bytes.Repeat([]byte{1}, 48)) || !bytes.Equal(s.ServerTraffic0, bytes.Repeat([]byte{2}, 32)) {
		t.Fatalf("%d sessions, %+v", kl.Len(), s)
	}
}
