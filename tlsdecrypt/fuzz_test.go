package tlsdecrypt_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/kwire/kwire/tlsdecrypt"
)

// Any bytes in either direction, after a ClientHello or not, neither panic
// nor make the Conn hold more than a record and a handshake message.
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
