package tlsdecrypt_test

import (
	"bytes"
	"crypto/sha256"
	"strconv"
	"testing"
	"time"

	"github.com/kwire/kwire/tlsdecrypt"
)

// Any bytes in either direction, after a ClientHello or not, neither panic
// nor make the Conn hold more than a record and a handshake message.
// testdata/fuzz/FuzzConn holds worstShapes(100).
func FuzzConn(f *testing.F) {
	cr := bytes.Repeat([]byte{0x11}, 32)
	ch := handshakeRecord(1, append(append([]byte{3, 3}, cr...), 0, 0, 2, 0x13, 0x01, 1, 0))
	sh := handshakeRecord(2, append(append([]byte{3, 3}, cr...), 0, 0x13, 0x01, 0, 0, 6, 0, 43, 0, 2, 3, 4))
	f.Add(ch, sh, uint8(3))
	f.Add(ch, []byte{22, 3, 3, 0, 4, 2, 0, 0, 0}, uint8(1))
	f.Add([]byte{23, 3, 3, 0, 0}, []byte{}, uint8(0))
	kl, _, _ := tlsdecrypt.ParseKeyLog(bytes.NewReader([]byte("CLIENT_HANDSHAKE_TRAFFIC_SECRET " + string(bytes.Repeat([]byte("11"), 32)) + " " + string(bytes.Repeat([]byte("22"), 32)) + "\nSERVER_HANDSHAKE_TRAFFIC_SECRET " + string(bytes.Repeat([]byte("11"), 32)) + " " + string(bytes.Repeat([]byte("22"), 32)) + "\n")))
	f.Fuzz(func(t *testing.T, c2s, s2c []byte, chunk uint8) {
		c := tlsdecrypt.New(tlsdecrypt.Options{KeyLog: kl, Data: func(tlsdecrypt.Dir, []byte, time.Time) {}, Problem: func(tlsdecrypt.Dir, int64, time.Time, string) {}})
		n := int(chunk) + 1
		for len(c2s) > 0 || len(s2c) > 0 {
			a, b := min(n, len(c2s)), min(n, len(s2c))
			c.Data(tlsdecrypt.ClientToServer, c2s[:a], time.Time{})
			c.Data(tlsdecrypt.ServerToClient, s2c[:b], time.Time{})
			c2s, s2c = c2s[a:], s2c[b:]
		}
		c.Gap(tlsdecrypt.ServerToClient, 3, time.Time{})
		c.End(tlsdecrypt.ClientToServer, time.Time{})
	})
}

// worstShape is an input of FuzzConn: both directions and the size of the
// pieces they arrive in, less one.
type worstShape struct {
	name     string
	c2s, s2c []byte
	chunk    uint8
}

// worstShapes are the inputs of FuzzConn, n units long, that make Conn do
// the most work a byte: a handshake message of up to MaxHandshake bytes
// arriving a byte a record (each record completes a record and appends to
// the message), records without a body, a ChangeCipherSpec record after
// another once the TLS 1.3 keys are set, HelloRetryRequests one after
// another, all in 1-byte pieces. Each is a ClientHello then n of its unit.
// Conn's work is linear in each (BenchmarkConnWorstShapes); the issue of a
// FuzzConn run that ended in "context deadline exceeded" was Go 1.26's
// fuzz coordinator (go.dev/issue/75804), not an input (see fuzz/run).
func worstShapes(n int) []worstShape {
	cr := bytes.Repeat([]byte{0x11}, 32)
	ch := handshakeRecord(1, append(append([]byte{3, 3}, cr...), 0, 0, 2, 0x13, 0x01, 1, 0))
	sh := handshakeRecord(2, append(append([]byte{3, 3}, cr...), 0, 0x13, 0x01, 0, 0, 6, 0, 43, 0, 2, 3, 4))
	hrr := sha256.Sum256([]byte("HelloRetryRequest"))
	hr := handshakeRecord(2, append(append([]byte{3, 3}, hrr[:]...), 0, 0x13, 0x01, 0, 0, 6, 0, 43, 0, 2, 3, 4))
	rep := func(head []byte, unit []byte) []byte {
		out := append([]byte{}, head...)
		for range n {
			out = append(out, unit...)
		}
		return out
	}
	// A certificate message (type 11) of MaxHandshake-1 bytes, its header
	// in a record of its own.
	big := append(append([]byte{}, ch...), 22, 3, 3, 0, 4, 11, 3, 0xff, 0xff)
	return []worstShape{
		{"a handshake message a byte a record", rep(big, []byte{22, 3, 3, 0, 1, 7}), nil, 0},
		{"records without a body", rep(ch, []byte{22, 3, 3, 0, 0}), nil, 0},
		{"ChangeCipherSpec records under TLS 1.3 keys", rep(ch, []byte{20, 3, 3, 0, 1, 1}), sh, 0},
		{"HelloRetryRequests", ch, rep(nil, hr), 0},
	}
}

// BenchmarkConnWorstShapes feeds Conn worstShapes of 1 MB or so: the
// figures (MB/s) stay those of small inputs when Conn's work is linear.
func BenchmarkConnWorstShapes(b *testing.B) {
	kl, _, _ := tlsdecrypt.ParseKeyLog(bytes.NewReader([]byte("CLIENT_HANDSHAKE_TRAFFIC_SECRET " + string(bytes.Repeat([]byte("11"), 32)) + " " + string(bytes.Repeat([]byte("22"), 32)) + "\nSERVER_HANDSHAKE_TRAFFIC_SECRET " + string(bytes.Repeat([]byte("11"), 32)) + " " + string(bytes.Repeat([]byte("22"), 32)) + "\n")))
	for _, n := range []int{1000, 200000} {
		for _, w := range worstShapes(n) {
			b.Run(w.name+"/"+strconv.Itoa(n), func(b *testing.B) {
				b.SetBytes(int64(len(w.c2s) + len(w.s2c)))
				for b.Loop() {
					c := tlsdecrypt.New(tlsdecrypt.Options{KeyLog: kl})
					c2s, s2c := w.c2s, w.s2c
					for len(c2s) > 0 || len(s2c) > 0 {
						a, d := min(int(w.chunk)+1, len(c2s)), min(int(w.chunk)+1, len(s2c))
						c.Data(tlsdecrypt.ClientToServer, c2s[:a], time.Time{})
						c.Data(tlsdecrypt.ServerToClient, s2c[:d], time.Time{})
						c2s, s2c = c2s[a:], s2c[d:]
					}
				}
			})
		}
	}
}
