package logseg

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/render"
)

// A record's line written in pieces (a value larger than valuePiece, as a
// Lister writes it) is byte for byte the line built whole, in JSON and
// text, for every --values form: hex, base64, utf8, auto's text and
// binary, json's fallback (not streamed when the value is JSON); text with characters of 2 to 4 bytes, quotes,
// HTML characters, control characters and bytes that are not UTF-8 cut
// across pieces. Each write holds at most a piece's encoding and the
// line's start, not the line: a value of 1.1 MB in hex took one write of
// 2.2 MB.
func TestLinesInPieces(t *testing.T) {
	var text, mixed bytes.Buffer
	for text.Len() < 1<<20+12345 {
		text.WriteString(`a<b>&"q"\ é€😀 `)
		mixed.WriteString("x\x00é\xff€\xe2\x82😀\n")
	}
	values := map[string][]byte{
		"ascii":  bytes.Repeat([]byte("0123456789abcdef"), 70000),
		"text":   text.Bytes(),
		"mixed":  mixed.Bytes(),
		"binary": bytes.Repeat([]byte{0, 1, 2, 0xfe, 0xff}, 220001),
		"json":   []byte(`{"a":` + strings.Repeat(" ", 1<<20) + `1}`),
	}
	forms := []render.Values{render.ValuesAuto, render.ValuesUTF8, render.ValuesHex, render.ValuesBase64, render.ValuesJSON}
	for name, value := range values {
		for _, v := range forms {
			d := &Record{File: "a.log", LogRecord: records.LogRecord{Offset: 7, Key: []byte("k"), Value: value, Headers: []records.Header{{Key: "h", Value: []byte("x")}}}}
			whole, err := d.AppendJSON([]byte("before\n"), v)
			if err != nil {
				t.Fatal(err)
			}
			for _, js := range []bool{true, false} {
				if !js {
					whole = d.AppendText([]byte("before\n"), v)
				}
				var out bytes.Buffer
				most := 0
				p := &pieces{flush: func(b []byte) ([]byte, error) {
					most = max(most, len(b))
					out.Write(b)
					return b[:0], nil
				}}
				var line []byte
				if js {
					line, err = d.appendJSON([]byte("before\n"), v, p)
					if err != nil {
						t.Fatal(err)
					}
				} else {
					line = d.appendText([]byte("before\n"), v, p)
				}
				most = max(most, len(line))
				out.Write(line)
				if !bytes.Equal(out.Bytes(), whole) {
					t.Errorf("%s, %s, json %v: the line in pieces differs from the line whole", name, v, js)
				}
				if js && !json.Valid(whole[len("before\n"):]) {
					t.Errorf("%s, %s: not JSON", name, v)
				}
				// Whole only where json keeps the value as JSON; a
				// byte is at most 6 in a JSON string ("\u0000").
				if limit := 6*valuePiece + 200; most > limit && !(v == render.ValuesJSON && name == "json") {
					t.Errorf("%s, %s, json %v: a write of %d bytes, want at most %d", name, v, js, most, limit)
				}
			}
		}
	}
}

// A write that fails ends the line: its error is returned.
func TestLineInPiecesWriteError(t *testing.T) {
	d := &Record{LogRecord: records.LogRecord{Value: bytes.Repeat([]byte("v"), 4*valuePiece)}}
	bad := errors.New("disk full")
	p := &pieces{flush: func(b []byte) ([]byte, error) { return b[:0], bad }}
	if _, err := d.appendJSON(nil, render.ValuesHex, p); err != bad {
		t.Errorf("json: %v", err)
	}
	p.err = nil
	d.appendText(nil, render.ValuesHex, p)
	if p.err != bad {
		t.Errorf("text: %v", p.err)
	}
}
