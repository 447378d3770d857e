package logseg

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/kwire/kwire/render"
)

// valuePiece is the most bytes of a record's value that a line written in
// pieces (Lister) encodes at once: a value larger than it is written as it
// is encoded, not built whole in the line first.
const valuePiece = 48 << 10

// pieces writes out a line being built, between the pieces of a large
// value: flush takes the line's bytes so far and returns the room to go
// on with (empty when it wrote them). Its first error stops the writing;
// nil pieces build the line whole.
type pieces struct {
	flush func(dst []byte) ([]byte, error)
	err   error
}

// done hands dst to flush, unless an error came before.
func (p *pieces) done(dst []byte) []byte {
	if p.err != nil {
		return dst
	}
	dst, p.err = p.flush(dst)
	return dst
}

// streams reports whether a value of n bytes is written in pieces by p.
func (p *pieces) streams(n int) bool { return p != nil && p.flush != nil && n > valuePiece }

// The forms a value takes in a line (bytesJSON, appendBytesText).
const (
	formText = iota
	formBase64
	formHex
	formJSON
)

// valueForm is the form v gives b in a JSON line (bytesJSON).
func valueForm(b []byte, v render.Values) int {
	switch v {
	case render.ValuesUTF8:
		return formText
	case render.ValuesHex:
		return formHex
	case render.ValuesBase64:
		return formBase64
	case render.ValuesJSON:
		if compactJSON(b) != nil {
			return formJSON
		}
	}
	if printable(b) {
		return formText
	}
	return formBase64
}

// appendPieces appends b encoded by enc to dst a piece of at most
// valuePiece bytes at a time, writing the line out (p) after each: what
// enc appends for b whole, when its encoding of a piece does not depend on
// the others but for where they are cut (grain: a multiple of it, for
// base64's groups of 3; text: at the start of a UTF-8 sequence, so that
// no character is cut).
func appendPieces(dst, b []byte, grain int, text bool, enc func(dst, piece []byte) []byte, p *pieces) []byte {
	for len(b) > 0 && p.err == nil {
		n := min(len(b), valuePiece/grain*grain)
		if text && n < len(b) {
			// Back to the start of a sequence, at most 3 bytes: a
			// longer run of continuation bytes holds no character.
			for k := n; k > n-utf8.UTFMax && k > 0; k-- {
				if utf8.RuneStart(b[k]) {
					n = k
					break
				}
			}
		}
		dst = enc(dst, b[:n])
		b = b[n:]
		dst = p.done(dst)
	}
	return dst
}

// appendJSONStringBody appends what json.Marshal writes of string(b)
// between its quotes.
func appendJSONStringBody(dst, b []byte) []byte {
	if jsonPlain(b) {
		return append(dst, b...)
	}
	q, _ := json.Marshal(string(b))
	return append(dst, q[1:len(q)-1]...)
}

// appendQuoteBody appends what strconv.Quote writes of string(b) between
// its quotes.
func appendQuoteBody(dst, b []byte) []byte {
	if plainASCII(b) {
		return append(dst, b...)
	}
	n := len(dst)
	dst = strconv.AppendQuote(dst, string(b))
	copy(dst[n:], dst[n+1:len(dst)-1])
	return dst[:len(dst)-2]
}

// appendJSONValue appends the body of b's JSON string in form f (text,
// base64, hex) in pieces.
func appendJSONValue(dst, b []byte, f int, p *pieces) []byte {
	switch f {
	case formHex:
		return appendPieces(dst, b, 1, false, hex.AppendEncode, p)
	case formBase64:
		return appendPieces(dst, b, 3, false, base64.StdEncoding.AppendEncode, p)
	}
	return appendPieces(dst, b, 1, true, appendJSONStringBody, p)
}

// appendTextValue is appendBytesText of a value b (not null, not empty) in
// pieces, for the forms that can be cut: hex, base64, text quoted (utf8,
// and auto's printable text, json's when b is not JSON); false when v's
// form for b cannot (json's compacted JSON).
func appendTextValue(dst, b []byte, v render.Values, p *pieces) ([]byte, bool) {
	switch v {
	case render.ValuesUTF8:
		dst = appendPieces(append(dst, '"'), b, 1, true, appendQuoteBody, p)
		return append(dst, '"'), true
	case render.ValuesHex:
		return appendPieces(append(dst, "0x"...), b, 1, false, hex.AppendEncode, p), true
	case render.ValuesBase64:
		return appendPieces(append(dst, "base64:"...), b, 3, false, base64.StdEncoding.AppendEncode, p), true
	case render.ValuesJSON:
		if compactJSON(b) != nil {
			return dst, false
		}
		dst, _ = appendTextValue(dst, b, render.ValuesAuto, p)
		return append(dst, " (not JSON)"...), true
	}
	if printable(b) {
		dst = appendPieces(append(dst, '"'), b, 1, true, appendQuoteBody, p)
		return append(dst, '"'), true
	}
	return appendPieces(append(dst, "0x"...), b, 1, false, hex.AppendEncode, p), true
}

// jsonPlain reports whether b is printable ASCII that json.Marshal writes
// in a string as it is: not '"', '\\', nor '<', '>' and '&', which it
// escapes for HTML.
func jsonPlain(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
