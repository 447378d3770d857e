package site

import (
	"bufio"
	"io"
	"strconv"
)

// out writes a page through one buffer, keeping the first error. Rows of
// the grid and the tree are composed by hand (html/template would cost a
// reflection walk per row); the page frame goes through templates.
type out struct {
	w   *bufio.Writer
	err error
}

func newOut(w io.Writer) *out {
	if bw, ok := w.(*bufio.Writer); ok {
		return &out{w: bw}
	}
	return &out{w: bufio.NewWriterSize(w, 32<<10)}
}

// s writes raw HTML.
func (o *out) s(ss ...string) {
	for _, x := range ss {
		o.w.WriteString(x)
	}
}

// e writes text, escaped for element content and quoted attribute values.
func (o *out) e(x string) {
	last := 0
	for i := 0; i < len(x); i++ {
		var rep string
		switch x[i] {
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '&':
			rep = "&amp;"
		case '"':
			rep = "&#34;"
		case '\'':
			rep = "&#39;"
		default:
			continue
		}
		o.w.WriteString(x[last:i])
		o.w.WriteString(rep)
		last = i + 1
	}
	o.w.WriteString(x[last:])
}

// eb is e for bytes.
func (o *out) eb(x []byte) { o.e(string(x)) }

// d writes an integer.
func (o *out) d(n int) {
	var b [20]byte
	o.w.Write(strconv.AppendInt(b[:0], int64(n), 10))
}

// t executes template name of the page templates with data.
func (o *out) t(name string, data any) {
	if err := tmpl.ExecuteTemplate(o.w, name, data); err != nil && o.err == nil {
		o.err = err
	}
}

func (o *out) flush() error {
	if err := o.w.Flush(); err != nil && o.err == nil {
		o.err = err
	}
	return o.err
}

// hexDigits are the lower-case hex digits.
const hexDigits = "0123456789abcdef"

// hex4 writes n as at least four hex digits ("004f").
func (o *out) hex4(n int) {
	var b [16]byte
	s := strconv.AppendInt(b[:0], int64(n), 16)
	for i := len(s); i < 4; i++ {
		o.w.WriteByte('0')
	}
	o.w.Write(s)
}

// hexn writes n in hex without padding ("4f").
func (o *out) hexn(n int) {
	var b [16]byte
	o.w.Write(strconv.AppendInt(b[:0], int64(n), 16))
}
