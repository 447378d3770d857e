// Package hexdump reads bytes written as hex text: plain hex ("0000004f
// 0034", "00:00:00:4f", "0x00 0x34") and the hex dumps that tools print
// with an offset column and often an ASCII column — xxd, hexdump -C, od
// -Ax -tx1 (and od's octal or decimal offsets), Wireshark's "Copy as Hex
// Dump" ("0000   00 00 00 31 …   ...1") and kwire's own byte grid, whose
// title and column header lines ("byte layout (…)", "0  1  2 … F") are
// skipped.
//
// A dump is recognised by its offsets: every line starts with an offset of
// 4 to 16 hex digits, and each offset is the previous one plus the bytes of
// the line before (in hex, octal or decimal, whichever fits every line), so
// the offsets say how many hex columns of each line are bytes and where the
// ASCII column starts, even when it holds hex-looking text. A line "*"
// (hexdump, od and xxd -a squeezing repeated lines) repeats the line before
// up to the next offset. Text that is not such a dump is read as plain hex.
// Lines that all start with the same blanks, or with "> " (a quoted mail),
// are read without them. A C array as xxd -i writes it ("unsigned char
// x[] = { 0x00, 0x01 };" and "unsigned int x_len = 2;") is read as the
// plain hex between its braces, checked against x_len when present.
//
// Dumps of 2- or 4-byte words are refused, naming what they are: od -x, od
// -tx2, od's default octal words and hexdump without -C write words in the
// machine's byte order (little-endian on most machines: the bytes of each
// word swapped), xxd -e too, which its ASCII column tells from xxd -g4.
//
// Errors are *SyntaxError, naming the line and column of the character
// that is wrong.
package hexdump

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxBytes bounds what Parse returns: 100 MiB, kwire's default frame limit.
// Only a "*" line (a squeezed repeat, whose length the next offset states)
// can describe more bytes than the text holds.
const MaxBytes = 100 << 20

// SyntaxError is hex text that does not read as bytes. Line and Col are
// 1-based (Col counts characters, not bytes); Msg says what is wrong.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

// Error renders "line 3, column 7: "g" is not a hex digit".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// Parse returns the bytes that text writes as hex: a hex dump with offsets
// when text is one (see the package comment), else plain hex — pairs of hex
// digits, with white space, ':' and ',' anywhere between pairs and an
// optional 0x prefix on each run of digits. Empty text (or white space) is
// no bytes. The error is a *SyntaxError.
func Parse(text []byte) ([]byte, error) {
	if out, ok, err := cArray(string(text)); ok {
		return out, err
	}
	lines := dedent(splitLines(string(text)))
	if d, ok, err := dump(lines); ok || err != nil {
		return d, err
	}
	return plain(lines)
}

// LooksLikeHex reports whether file contents are meant as hex text rather
// than raw bytes: UTF-8 text without control characters other than white
// space, more of whose other characters are hex digits than not. A Kafka frame under 16 MiB starts with a zero
// byte, so raw frames never look like hex; hex text with a typo does.
func LooksLikeHex(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	if cArrayRE.Match(b) {
		return true
	}
	digits, other := 0, 0
	for _, r := range string(b) {
		switch {
		case isSpace(r):
		case r < 0x20 || r == 0x7f || unicode.IsControl(r):
			return false
		case r < utf8.RuneSelf && isHexDigit(byte(r)):
			digits++
		default:
			other++
		}
	}
	return digits > other
}

// line is one line of the text, without its line break.
type line struct {
	n    int // 1-based line number
	text string
	cut  int // the characters cut from its start (see dedent)
}

func splitLines(s string) []line {
	var ls []line
	for i, t := range strings.Split(s, "\n") {
		ls = append(ls, line{n: i + 1, text: strings.TrimSuffix(t, "\r")})
	}
	return ls
}

// dedent cuts what every line that is not blank starts with: the same
// blanks (a dump indented in a message or a document), or "> " (a quoted
// mail or comment), then blanks.
func dedent(ls []line) []line {
	prefix := func(cut func(string) string) bool {
		p, any := "", false
		for _, l := range ls {
			if strings.TrimSpace(l.text) == "" {
				continue
			}
			q := l.text[:len(l.text)-len(cut(l.text))]
			if !any {
				p, any = q, true
			}
			for !strings.HasPrefix(q, p) {
				p = p[:len(p)-1]
			}
		}
		if p == "" {
			return false
		}
		for k, l := range ls {
			if strings.HasPrefix(l.text, p) {
				ls[k].text, ls[k].cut = l.text[len(p):], ls[k].cut+utf8.RuneCountInString(p)
			}
		}
		return true
	}
	quoted := true
	for _, l := range ls {
		if t := strings.TrimSpace(l.text); t != "" && !strings.HasPrefix(t, ">") {
			quoted = false
		}
	}
	if quoted {
		prefix(func(t string) string { return strings.TrimPrefix(strings.TrimLeft(t, " \t"), ">") })
	}
	prefix(func(t string) string { return strings.TrimLeft(t, " \t") })
	return ls
}

func isSpace(r rune) bool { return unicode.IsSpace(r) }

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// col is the 1-based character column of byte index i of s.
func col(s string, i int) int { return utf8.RuneCountInString(s[:i]) + 1 }

// errAt is a *SyntaxError at byte index i of l.
func errAt(l line, i int, format string, args ...any) error {
	return &SyntaxError{Line: l.n, Col: l.cut + col(l.text, i), Msg: fmt.Sprintf(format, args...)}
}

// badChar is the error for the character at byte index i of l.
func badChar(l line, i int) error {
	r, _ := utf8.DecodeRuneInString(l.text[i:])
	if r == '*' && strings.TrimSpace(l.text) == "*" {
		return errAt(l, i, `"*" stands for repeated lines, and without an offset column nothing says how many: dump with offsets, or without squeezing (od -v, hexdump -v, xxd without -a)`)
	}
	return errAt(l, i, "%q is not a hex digit", string(r))
}

// plain reads plain hex.
func plain(lines []line) ([]byte, error) {
	var out []byte
	var hi byte // the first digit of a pair, when odd is set
	odd := false
	var last line // the line and index of that digit, for errors
	lastAt := 0
	for _, l := range lines {
		s := l.text
		for i := 0; i < len(s); {
			r, w := utf8.DecodeRuneInString(s[i:])
			c := s[i]
			prevSep := i == 0 || isSep(s[i-1])
			switch {
			case r == ':' || r == ',' || isSpace(r):
				i += w
				continue
			case c == '0' && i+1 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') && prevSep:
				if odd {
					return nil, errAt(last, lastAt, "a lone hex digit: write each byte as two digits")
				}
				i += 2
				continue
			case r >= utf8.RuneSelf || !isHexDigit(c):
				return nil, badChar(l, i)
			}
			if odd && prevSep {
				// A new run of digits while the last run was odd.
				return nil, errAt(last, lastAt, "a lone hex digit: write each byte as two digits")
			}
			if !odd {
				hi, odd, last, lastAt = unhex(c), true, l, i
			} else {
				out = append(out, hi<<4|unhex(c))
				odd = false
			}
			i++
		}
	}
	if odd {
		return nil, errAt(last, lastAt, "a lone hex digit: write each byte as two digits (the text has an odd number of hex digits)")
	}
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

func isSep(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f', ':', ',':
		return true
	}
	return c >= utf8.RuneSelf // a Unicode space copied from a web page
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// dline is one line of a dump as read before the offsets are checked.
type dline struct {
	l      line
	star   bool   // a "*" line
	offset string // the offset's digits
	colon  bool   // the offset is followed by ':' (xxd)
	toks   []tok  // the white-space separated words after the offset, up to a '|'
	pipe   bool   // an ASCII column in '|' (hexdump -C)
	// gapAt is the index in toks of the first word after a gap of two or
	// more spaces (or a tab) following a word: where an ASCII column
	// starts, on a line whose hex columns are not padded by offsets. -1
	// when there is none.
	gapAt int
	n     int // the bytes of the line, once the offsets are checked
}

// tok is a word of a dump line: its byte index in the line and its text.
type tok struct {
	at   int
	text string
}

// hexWord reports whether s is an even number of hex digits.
func hexWord(s string) bool {
	if len(s) == 0 || len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return true
}

// columnHeader reports whether s is the column header of kwire's byte grid
// ("0  1  2 … F": single hex digits counting up from 0) or its title line
// ("byte layout (83 bytes, 16 bytes per row)").
func columnHeader(s string) bool {
	if strings.HasPrefix(strings.TrimSpace(s), "byte layout (") {
		return true
	}
	f := strings.Fields(s)
	if len(f) < 2 {
		return false
	}
	for i, w := range f {
		if len(w) != 1 || !isHexDigit(w[0]) || int(unhex(w[0])) != i%16 {
			return false
		}
	}
	return true
}

// readDumpLine reads l as a dump line; false when it does not start with
// an offset.
func readDumpLine(l line) (dline, bool) {
	s := l.text
	d := dline{l: l, gapAt: -1}
	if strings.TrimSpace(s) == "*" {
		d.star = true
		return d, true
	}
	i := 0
	for i < len(s) && isHexDigit(s[i]) {
		i++
	}
	if i < 4 || i > 16 {
		return d, false
	}
	d.offset = s[:i]
	if i < len(s) && s[i] == ':' {
		d.colon = true
		i++
	}
	if i < len(s) && s[i] != ' ' && s[i] != '\t' {
		return d, false
	}
	gap := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ':
			gap++
			i++
		case c == '\t':
			gap += 2
			i++
		case c == '|':
			d.pipe = true
			return d, true
		default:
			j := i
			for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '|' {
				j++
			}
			if gap >= 2 && len(d.toks) > 0 && d.gapAt < 0 {
				d.gapAt = len(d.toks)
			}
			d.toks = append(d.toks, tok{i, s[i:j]})
			gap = 0
			i = j
		}
	}
	return d, true
}

// hexCols returns how many leading words of d are hex columns when no
// offset says: those before a '|' column, else before the first wide gap,
// and of those the leading hex words; at most width bytes when width > 0.
// Its second result is the byte count.
func (d *dline) hexCols(width int) (int, int) {
	end := len(d.toks)
	if !d.pipe && d.gapAt >= 0 {
		end = d.gapAt
	}
	k, n := 0, 0
	for k < end {
		w := d.toks[k].text
		if !d.pipe && d.gapAt < 0 && !hexWord(w) {
			break // an ASCII column after one space: no gap marks it
		}
		if width > 0 && n+len(w)/2 > width {
			break
		}
		n += len(w) / 2
		k++
	}
	return k, n
}

// dump reads lines as a hex dump with offsets. ok is false (and err nil)
// when the text is not one.
func dump(lines []line) (out []byte, ok bool, err error) {
	var ds []dline
	evidence := false
	for _, l := range lines {
		if strings.TrimSpace(l.text) == "object tree" && len(ds) > 0 {
			break // the rest of a kwire page, copied with its byte grid
		}
		if strings.TrimSpace(l.text) == "" || columnHeader(l.text) {
			continue
		}
		d, isDump := readDumpLine(l)
		if !isDump {
			return nil, false, nil
		}
		if d.colon || d.pipe || d.gapAt >= 0 {
			evidence = true
		}
		ds = append(ds, d)
	}
	if len(ds) == 0 || ds[0].star {
		return nil, false, nil
	}
	if err := octalWords(ds); err != nil && !evidence {
		return nil, true, err
	}
	if err := machineWords(ds); err != nil {
		return nil, true, err
	}
	// xxd, hexdump -C, Wireshark and kwire write hex offsets; od (the
	// only one without an ASCII column) writes octal by default, or what
	// -A says.
	radixes := []int{16, 8, 10}
	if evidence {
		radixes = radixes[:1]
	}
	var firstErr error
	for _, radix := range radixes {
		try := make([]dline, len(ds))
		copy(try, ds)
		err := layout(try, radix)
		if err == nil {
			ds = try
			if len(ds) == 1 && !evidence {
				return nil, false, nil // one line of plain hex
			}
			out, err := collect(ds)
			if err == nil {
				err = words(ds, out)
			}
			return out, true, err
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if evidence {
		return nil, true, firstErr
	}
	return nil, false, nil
}

// layout checks the offsets of ds in radix and sets each line's byte
// count (n): the next offset minus this one, or for the last line and the
// line before a "*", its hex columns up to the ASCII column. A "*" line
// gets the number of times it repeats the line before.
func layout(ds []dline, radix int) error {
	width := 0 // the bytes of the first line whose next offset says
	var prev, star *dline
	var prevOff int64
	for k := range ds {
		d := &ds[k]
		if d.star {
			if prev == nil || star != nil {
				return errAt(d.l, 0, `"*" must follow a line of bytes`)
			}
			star = d
			continue
		}
		off, err := strconv.ParseInt(d.offset, radix, 64)
		if err != nil {
			return errAt(d.l, 0, "offset %s is not a number in base %d", d.offset, radix)
		}
		if off == 0 && prev != nil && star == nil && (d.colon || d.pipe || d.gapAt >= 0) {
			// Offsets start again: a second dump after the first (two
			// frames, one after the other).
			k, n := prev.hexCols(width)
			prev.toks, prev.n = prev.toks[:k], n
			prev = nil
		}
		switch {
		case prev == nil:
		case star != nil:
			k, n := prev.hexCols(width)
			prev.toks, prev.n = prev.toks[:k], n
			if off > MaxBytes {
				return errAt(d.l, 0, "offset %s: the repeated lines make more than %d bytes", d.offset, MaxBytes)
			}
			if n == 0 || off < prevOff+2*int64(n) || (off-prevOff)%int64(n) != 0 {
				return errAt(d.l, 0, "offset %s does not end a run of lines of %d bytes repeated from offset %s", d.offset, n, prev.offset)
			}
			star.n = int((off-prevOff)/int64(n)) - 1
		default:
			n := off - prevOff
			k, sum := 0, int64(0)
			for k < len(prev.toks) && sum < n {
				sum += int64(utf8.RuneCountInString(prev.toks[k].text)+1) / 2
				k++
			}
			// The words after the bytes are the ASCII column: after a
			// wide gap, or not hex.
			ascii := k == len(prev.toks) || k == prev.gapAt || !hexWord(prev.toks[k].text)
			if n <= 0 || sum != n || !ascii {
				if _, have := prev.hexCols(0); n > 0 && int64(have) != n && 2*abs(int64(have)-n) < n && len(prev.toks) > 0 {
					// The line holds a few bytes more or fewer than
					// the offsets around it say: blame the line, not
					// the next offset.
					return errAt(prev.l, prev.toks[0].at, "this line holds %d bytes, but its offset %s and the next, %s, say %d", have, prev.offset, d.offset, n)
				}
				return errAt(d.l, 0, "offset %s is not offset %s plus the bytes of line %d", d.offset, prev.offset, prev.l.n)
			}
			prev.toks, prev.n = prev.toks[:k], int(n)
			if width == 0 {
				width = int(n)
			}
		}
		prev, prevOff, star = d, off, nil
	}
	if star != nil {
		return errAt(star.l, 0, `a "*" line needs an offset line after it`)
	}
	k, n := prev.hexCols(width)
	prev.toks, prev.n = prev.toks[:k], n
	return nil
}

// collect returns the bytes of the lines of a checked dump, with every
// hex column checked.
func collect(ds []dline) ([]byte, error) {
	out := []byte{}
	var last []byte // the bytes of the line before
	for k := range ds {
		d := &ds[k]
		if d.star {
			for range d.n {
				out = append(out, last...)
			}
			continue
		}
		start := len(out)
		for _, t := range d.toks {
			w := t.text
			for i := 0; i < len(w); i++ {
				if !isHexDigit(w[i]) {
					return nil, badChar(d.l, t.at+i)
				}
			}
			if len(w)%2 != 0 {
				return nil, errAt(d.l, t.at, "%q has an odd number of hex digits: write each byte as two digits", w)
			}
			for i := 0; i < len(w); i += 2 {
				out = append(out, unhex(w[i])<<4|unhex(w[i+1]))
			}
		}
		last = out[start:len(out):len(out)]
	}
	return out, nil
}

// Contents returns the bytes that file contents b stand for: what they
// write as hex when they look like hex text (LooksLikeHex), else b itself
// (raw bytes). text says which; the error is Parse's.
func Contents(b []byte) (out []byte, text bool, err error) {
	if !LooksLikeHex(b) {
		return b, false, nil
	}
	out, err = Parse(b)
	return out, true, err
}

// IsText reports whether b is printable ASCII text (lines of it): what a
// caller that read b as raw bytes may say was perhaps meant as hex.
func IsText(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// bytesHint says how to dump bytes rather than words.
const bytesHint = "dump bytes with xxd, od -Ax -tx1 or hexdump -C"

// octalWords is the error of od's default dump (no -t): 2-byte words in
// octal ("0000000 000000 016000 …"), or nil when ds is not one.
func octalWords(ds []dline) error {
	var first *dline
	for k := range ds {
		d := &ds[k]
		for _, t := range d.toks {
			if len(t.text) != 6 || strings.Trim(t.text, "01234567") != "" {
				return nil
			}
		}
		if first == nil && len(d.toks) > 0 {
			first = d
		}
	}
	if first == nil {
		return nil
	}
	return errAt(first.l, first.toks[0].at, "this is od's default dump: 2-byte words in octal, in the machine's byte order: %s", bytesHint)
}

// machineWords is the error of a dump without ':' after its offsets
// whose columns are all words of 2 or 4 bytes in hex (od -x, od -tx2, od
// -tx4, hexdump without -C): in the machine's byte order, swapped on a
// little-endian machine; nil for any other dump.
func machineWords(ds []dline) error {
	size := 0
	var first *dline
	for k := range ds {
		d := &ds[k]
		if d.colon || d.pipe || d.gapAt >= 0 {
			return nil
		}
		for _, t := range d.toks {
			if size == 0 {
				size = len(t.text) / 2
			}
			if len(t.text) != 2*size || !hexWord(t.text) {
				return nil
			}
		}
		if first == nil && len(d.toks) > 0 {
			first = d
		}
	}
	if first == nil || size != 2 && size != 4 || !wordOffsets(ds, size) {
		return nil
	}
	return errAt(first.l, first.toks[0].at, "this dump groups the bytes in %d-byte words (od -x, od -tx%d, hexdump without -C), in the machine's byte order, little-endian on most: %s", size, size, bytesHint)
}

// wordOffsets reports whether the offsets of ds, in hex or in octal, say
// that each line holds its words of size bytes (the last word maybe
// partly): plain hex in groups of 4 digits is not such a dump.
func wordOffsets(ds []dline, size int) bool {
	if len(ds) < 2 {
		return false
	}
next:
	for _, radix := range []int{16, 8} {
		for k := 1; k < len(ds); k++ {
			if ds[k].star || ds[k-1].star {
				continue // od's squeezed repeats: the offsets after say more
			}
			a, errA := strconv.ParseInt(ds[k-1].offset, radix, 64)
			b, errB := strconv.ParseInt(ds[k].offset, radix, 64)
			n := int64(len(ds[k-1].toks) * size)
			if errA != nil || errB != nil || b-a <= n-int64(size) || b-a > n {
				continue next
			}
		}
		return true
	}
	return false
}

// words is the error of an xxd dump (a ':' after the offset) whose hex
// columns are words of 2 or 4 bytes, read as out, when its ASCII column
// shows them little-endian (xxd -e), or, for 4-byte words, has no letter
// to tell (xxd -g4 writes them in byte order).
func words(ds []dline, out []byte) error {
	size := 0
	var first *dline
	for k := range ds {
		d := &ds[k]
		for _, t := range d.toks {
			if size == 0 {
				size = len(t.text) / 2
			}
			if len(t.text) != 2*size && k < len(ds)-1 {
				return nil
			}
		}
		if first == nil && len(d.toks) > 0 {
			first = d
		}
	}
	if first == nil || size != 2 && size != 4 {
		return nil
	}
	what := fmt.Sprintf("this dump groups the bytes in %d-byte words", size)
	if !first.colon {
		return nil
	}
	inOrder, swapped := asciiVotes(ds, out, size)
	switch {
	case swapped > inOrder:
		return errAt(first.l, first.toks[0].at, "%s, little-endian (xxd -e): its ASCII column shows the bytes in another order than its hex columns: %s", what, bytesHint)
	case inOrder == swapped && size == 4:
		return errAt(first.l, first.toks[0].at, "%s, and nothing tells whether in byte order (xxd -g4) or little-endian (xxd -e): %s", what, bytesHint)
	}
	return nil
}

// asciiVotes counts the letters and digits of the ASCII columns of ds
// that match out, and that match out with each word of size bytes
// reversed.
func asciiVotes(ds []dline, out []byte, size int) (inOrder, swapped int) {
	off := 0
	for k := range ds {
		d := &ds[k]
		if d.star || len(d.toks) == 0 {
			if d.star {
				off += d.n * len(ds[k-1].toks) * size
			}
			continue
		}
		last := d.toks[len(d.toks)-1]
		ascii := strings.TrimSpace(d.l.text[last.at+len(last.text):])
		for i := 0; i < len(ascii) && off+i < len(out); i++ {
			c := ascii[i]
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
				continue
			}
			j := off + i
			w := j - j%size
			if out[j] == c {
				inOrder++
			}
			if sw := w + size - 1 - j%size; sw < len(out) && out[sw] == c {
				swapped++
			}
		}
		off += d.n
	}
	return inOrder, swapped
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// cArrayRE matches the C array of xxd -i: group 1 the array's name, group
// 2 the text between the braces, groups 3 and 4 the length variable's name
// and value (when present).
var cArrayRE = regexp.MustCompile(`^\s*(?:static\s+)?(?:const\s+)?unsigned\s+char\s+([A-Za-z_]\w*)\s*\[\s*\d*\s*\]\s*=\s*\{([^{}]*)\}\s*;\s*(?:(?:static\s+)?(?:const\s+)?unsigned\s+int\s+([A-Za-z_]\w*)\s*=\s*(\d+)\s*;\s*)?$`)

// cArray reads text as xxd -i's C array: ok reports that it is one, out
// holds the bytes between the braces (as plain hex), and the error is a
// *SyntaxError when they do not read or when "NAME_len = N" says another
// count. Positions in errors are those of text.
func cArray(text string) (out []byte, ok bool, err error) {
	m := cArrayRE.FindStringSubmatchIndex(text)
	if m == nil || m[6] >= 0 && text[m[6]:m[7]] != text[m[2]:m[3]]+"_len" {
		return nil, false, nil
	}
	// Blank out all but the text between the braces, keeping line breaks
	// and columns.
	masked := []byte(text)
	for i := range masked {
		if (i < m[4] || i >= m[5]) && masked[i] != '\n' && masked[i] != '\r' {
			masked[i] = ' '
		}
	}
	out, err = plain(splitLines(string(masked)))
	if err != nil || m[8] < 0 {
		return out, true, err
	}
	if n, perr := strconv.Atoi(text[m[8]:m[9]]); perr != nil || n != len(out) {
		ls := splitLines(text)
		at := strings.Count(text[:m[8]], "\n")
		lineStart := strings.LastIndexByte(text[:m[8]], '\n') + 1
		return nil, true, errAt(ls[at], m[8]-lineStart, "%s says %s bytes, the array holds %d", text[m[6]:m[7]], text[m[8]:m[9]], len(out))
	}
	return out, true, nil
}
