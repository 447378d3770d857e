package tlsdecrypt_test

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/kwire/kwire/tlsdecrypt"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The traffic keys of RFC 8448's simple 1-RTT handshake (section 3).
func TestTrafficKeysRFC8448(t *testing.T) {
	s := tlsdecrypt.LookupSuite(tls.TLS_AES_128_GCM_SHA256)
	for _, c := range []struct{ secret, key, iv string }{
		{"b67b7d690cc16c4e75e54213cb2d37b4e9c912bcded9105d42befd59d391ad38", "3fce516009c21727d0f2e4e86ee403bc", "5d313eb2671276ee13000b30"},
		{"b3eddb126e067f35a780b3abf45e2d8f3b1a950738f52e9600746a0e27a55a21", "dbfaa693d1762c5b666af5d950258d01", "5bd3c71b836e0b76bb73265f"},
		{"a11af9f05531f856ad47116b45a950328204b4f44bfb6b3a4b4f1f3fcb631643", "9f02283b6c9c07efc26bb9f2ac92e356", "cf782b88dd83549aadf1e984"},
	} {
		key, iv, err := s.TrafficKeys(unhex(t, c.secret))
		if err != nil || hex.EncodeToString(key) != c.key || hex.EncodeToString(iv) != c.iv {
			t.Errorf("%s: key %x iv %x %v, want %s %s", c.secret, key, iv, err, c.key, c.iv)
		}
	}
}

// label13 is HKDF-Expand-Label written out by hand, SHA-256.
func label13(t *testing.T, secret []byte, label string, n int) []byte {
	t.Helper()
	full := "tls13 " + label
	info := append([]byte{byte(n >> 8), byte(n), byte(len(full))}, full...)
	info = append(info, 0)
	out, err := hkdf.Expand(sha256.New, secret, string(info), n)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sealer encrypts TLS 1.3 ChaCha20-Poly1305 records from a traffic secret.
type sealer struct {
	t      *testing.T
	secret []byte
	seq    uint64
}

func (s *sealer) record(inner byte, content []byte) []byte {
	key, iv := label13(s.t, s.secret, "key", 32), label13(s.t, s.secret, "iv", 12)
	a, err := chacha20poly1305.New(key)
	if err != nil {
		s.t.Fatal(err)
	}
	var nonce [12]byte
	copy(nonce[:], iv)
	for i := range 8 {
		nonce[4+i] ^= byte(s.seq >> (56 - 8*i))
	}
	s.seq++
	plain := append(append(bytes.Clone(content), inner), 0, 0, 0) // zero padding
	hdr := []byte{23, 3, 3, 0, 0}
	binary.BigEndian.PutUint16(hdr[3:], uint16(len(plain)+a.Overhead()))
	return a.Seal(hdr, nonce[:], plain, hdr)
}

func (s *sealer) update() {
	s.secret, s.seq = label13(s.t, s.secret, "traffic upd", 32), 0
}

func handshakeRecord(msgType byte, body []byte) []byte {
	m := append([]byte{msgType, 0, byte(len(body) >> 8), byte(len(body))}, body...)
	return append([]byte{22, 3, 1, byte(len(m) >> 8), byte(len(m))}, m...)
}

// A TLS 1.3 session with TLS_CHACHA20_POLY1305_SHA256 (crypto/tls offers
// no way to choose it) whose server sends a KeyUpdate between two
// application data records, built from records sealed by the test: both
// records decrypt, the second with the next traffic secret.
func TestTLS13ChaChaKeyUpdate(t *testing.T) {
	cr, sr := bytes.Repeat([]byte{0x11}, 32), bytes.Repeat([]byte{0x22}, 32)
	chs, shs := bytes.Repeat([]byte{0x31}, 32), bytes.Repeat([]byte{0x32}, 32)
	cts, sts := bytes.Repeat([]byte{0x41}, 32), bytes.Repeat([]byte{0x42}, 32)
	keylog := fmt.Sprintf("CLIENT_HANDSHAKE_TRAFFIC_SECRET %x %x\nSERVER_HANDSHAKE_TRAFFIC_SECRET %x %x\nCLIENT_TRAFFIC_SECRET_0 %x %x\nSERVER_TRAFFIC_SECRET_0 %x %x\n", cr, chs, cr, shs, cr, cts, cr, sts)
	kl, bad, err := tlsdecrypt.ParseKeyLog(strings.NewReader(keylog))
	if err != nil || bad != nil {
		t.Fatal(err, bad)
	}
	ch := append(append([]byte{3, 3}, cr...), 0, 0, 2, 0x13, 0x03, 1, 0)
	sh := append(append([]byte{3, 3}, sr...), 0, 0x13, 0x03, 0, 0, 6, 0, 43, 0, 2, 3, 4)
	finished := append([]byte{20, 0, 0, 32}, bytes.Repeat([]byte{9}, 32)...)

	var plain [2]string
	var notes []string
	c := tlsdecrypt.New(tlsdecrypt.Options{KeyLog: kl,
		Data: func(d tlsdecrypt.Dir, p []byte, _ time.Time) { plain[d] += string(p) },
		Problem: func(d tlsdecrypt.Dir, off int64, _ time.Time, msg string) {
			notes = append(notes, fmt.Sprintf("%s %d: %s", d, off, msg))
		},
		Session: func(s *tlsdecrypt.Session, _ time.Time) { notes = append(notes, s.String()) },
	})
	c.Data(tlsdecrypt.ClientToServer, handshakeRecord(1, ch), time.Time{})
	c.Data(tlsdecrypt.ServerToClient, handshakeRecord(2, sh), time.Time{})
	srv := &sealer{t: t, secret: shs}
	c.Data(tlsdecrypt.ServerToClient, srv.record(22, finished), time.Time{})
	srv = &sealer{t: t, secret: sts}
	c.Data(tlsdecrypt.ServerToClient, srv.record(23, []byte("before ")), time.Time{})
	c.Data(tlsdecrypt.ServerToClient, srv.record(22, []byte{24, 0, 0, 1, 0}), time.Time{}) // KeyUpdate
	srv.update()
	c.Data(tlsdecrypt.ServerToClient, srv.record(23, []byte("after")), time.Time{})
	cli := &sealer{t: t, secret: chs}
	c.Data(tlsdecrypt.ClientToServer, []byte{20, 3, 3, 0, 1, 1}, time.Time{}) // middlebox ChangeCipherSpec
	c.Data(tlsdecrypt.ClientToServer, cli.record(22, finished), time.Time{})
	cli = &sealer{t: t, secret: cts}
	c.Data(tlsdecrypt.ClientToServer, cli.record(23, []byte("request")), time.Time{})
	if plain[0] != "request" || plain[1] != "before after" {
		t.Fatalf("plaintext %q", plain)
	}
	want := fmt.Sprintf("TLS 1.3 TLS_CHACHA20_POLY1305_SHA256 session client_random=%x", cr)
	if len(notes) != 1 || notes[0] != want {
		t.Fatalf("notes %q", notes)
	}
}

// A suite kwire cannot decrypt is named.
func TestUnsupportedSuite(t *testing.T) {
	cr := bytes.Repeat([]byte{0x11}, 32)
	ch := append(append([]byte{3, 3}, cr...), 0, 0, 2, 0x00, 0x3c, 1, 0)
	sh := append(append([]byte{3, 3}, cr...), 0, 0x00, 0x3c, 0)
	var notes []string
	c := tlsdecrypt.New(tlsdecrypt.Options{Problem: func(d tlsdecrypt.Dir, off int64, _ time.Time, msg string) {
		notes = append(notes, fmt.Sprintf("%s %d: %s", d, off, msg))
	}})
	c.Data(tlsdecrypt.ClientToServer, handshakeRecord(1, ch), time.Time{})
	c.Data(tlsdecrypt.ServerToClient, handshakeRecord(2, sh), time.Time{})
	c.Data(tlsdecrypt.ServerToClient, []byte{23, 3, 3, 0, 1, 0}, time.Time{})
	want := fmt.Sprintf("server→client 0: TLS: TLS session client_random=%x uses cipher suite TLS_RSA_WITH_AES_128_CBC_SHA256 (0x003c): RSA key exchange/CBC not supported; this connection is not decoded further", cr)
	if len(notes) != 1 || notes[0] != want {
		t.Fatalf("notes %q\nwant %q", notes, want)
	}
}
