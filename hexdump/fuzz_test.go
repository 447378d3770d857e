package hexdump

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any text parses or fails with a *SyntaxError, never panics,
// and never returns more than MaxBytes; the hex of any bytes, plain or as
// xxd -p writes it, reads back as those bytes.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.*")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("00000000  00 01  |..|\n*\n00000010\n"))
	f.Add([]byte("0000: 00 01\n0002: 02\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		b, err := Parse(text)
		var se *SyntaxError
		switch {
		case err != nil && !errors.As(err, &se):
			t.Fatalf("error %v is not a *SyntaxError", err)
		case err != nil && (se.Line < 1 || se.Col < 1):
			t.Fatalf("error %v has no place", err)
		case err == nil && len(b) > MaxBytes:
			t.Fatalf("%d bytes", len(b))
		}
		h := hex.EncodeToString(text)
		if got, err := Parse([]byte(h)); err != nil || !bytes.Equal(got, text) {
			t.Fatalf("hex of %q: %x, %v", text, got, err)
		}
	})
}
