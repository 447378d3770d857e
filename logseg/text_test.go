package logseg

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAutoTextQuotesAsStrconv checks appendAutoText's quick path for
// plain ASCII against what it stands for — strconv.AppendQuote of text
// that printable takes, hex of anything else — on every byte alone, on
// every pair around the edges ('"', '\\', DEL, 0x1f, 0x80) and on random
// strings of mostly printable bytes.
func TestAutoTextQuotesAsStrconv(t *testing.T) {
	want := func(b []byte) []byte {
		if printable(b) {
			return strconv.AppendQuote(nil, string(b))
		}
		return hex.AppendEncode([]byte("0x"), b)
	}
	check := func(b []byte) {
		t.Helper()
		if got, w := appendAutoText(nil, b), want(b); !bytes.Equal(got, w) {
			t.Fatalf("%x: got %s, want %s", b, got, w)
		}
	}
	check(nil)
	for c := range 256 {
		check([]byte{byte(c)})
		check([]byte{'a', byte(c), 'z'})
	}
	for _, c := range []byte{'"', '\\', 0x7f, 0x1f, 0x20, 0x7e, 0x80, 0xc3} {
		for d := range 256 {
			check([]byte{c, byte(d)})
		}
	}
	r := rand.New(rand.NewPCG(3, 9))
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			if r.IntN(10) == 0 {
				b[i] = byte(r.IntN(256))
			} else {
				b[i] = byte(0x20 + r.IntN(0x5f))
			}
		}
		check(b)
	}
}
