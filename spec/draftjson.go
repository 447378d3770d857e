package spec

// One spec object of a draft (see draft.go) as the loader reads it: its
// parse buffer (piece) and the strict JSON syntax check that fills it, what
// Kafka's Jackson rejects and hujson accepts, with the repairs and
// insertions that let the loader go on.

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// insertion records that n bytes were inserted at offset at of a parse
// buffer (before the source byte that follows them).
type insertion struct{ at, n int }

// piece is one spec object found in a file: its span in the source and the
// parse buffer the loader reads (the source with everything outside the
// span blanked, syntax repaired in place, missing braces and commas
// inserted). ins maps buffer offsets back to the source.
type piece struct {
	start, end int
	buf        []byte
	ins        []insertion
	// shift[k] is the number of bytes inserted before ins[k].
	shift []int
}

// toSrc maps an offset of the parse buffer to the source (an offset in
// inserted bytes to the source byte they precede).
func (pc *piece) toSrc(off int) int {
	k := sort.Search(len(pc.ins), func(k int) bool { return pc.ins[k].at+pc.ins[k].n > off })
	if k < len(pc.ins) && pc.ins[k].at <= off {
		return pc.ins[k].at - pc.shift[k]
	}
	return off - pc.before(k)
}

// toBuf maps a source offset to the parse buffer (after the bytes
// inserted before it).
func (pc *piece) toBuf(off int) int {
	k := sort.Search(len(pc.ins), func(k int) bool { return pc.ins[k].at-pc.shift[k] > off })
	return off + pc.before(k)
}

// before is the number of bytes inserted by ins[:k].
func (pc *piece) before(k int) int {
	if k == len(pc.ins) {
		if k == 0 {
			return 0
		}
		return pc.shift[k-1] + pc.ins[k-1].n
	}
	return pc.shift[k]
}

// pieceParser checks one object's syntax strictly, collecting in-place
// repairs and insertions for its parse buffer.
type pieceParser struct {
	s       *scanner
	start   int
	repairs []Edit // same-length replacements in the buffer
	inserts []Edit // insertions (Off == End) into the buffer
	failed  bool
}

func (pp *pieceParser) fail(off int, format string, args ...any) {
	if pp.failed {
		return
	}
	pp.failed = true
	pp.s.report(SeverityError, off, "json-syntax", "", format, args...)
}

// nbsp reports the non-breaking spaces (U+00A0, as web pages have) of the
// run of blanks at off, once for the run, and repairs them.
func (pp *pieceParser) nbsp(off int) {
	for _, r := range pp.repairs {
		if r.Off == off {
			return
		}
	}
	src := pp.s.src
	var edits []Edit
	for i := off; i < len(src); {
		switch {
		case src[i] == 0xc2 && i+1 < len(src) && src[i+1] == 0xa0:
			edits = append(edits, Edit{Off: i, End: i + 2, New: " "})
			pp.repairs = append(pp.repairs, Edit{Off: i, End: i + 2, New: "  "})
			i += 2
			continue
		case src[i] == ' ' || src[i] == '\t':
			i++
			continue
		}
		break
	}
	what := "a non-breaking space (U+00A0, as web pages have)"
	if len(edits) > 1 {
		what = fmt.Sprintf("%d non-breaking spaces (U+00A0, as web pages have)", len(edits))
	}
	e := pp.s.report(SeverityError, off, "json-syntax", "", "%s: JSON allows only plain spaces, tabs and line breaks", what)
	pp.s.fix(e, strings.TrimPrefix(what, "a ")+" → plain spaces", edits...)
}

func (pp *pieceParser) tok(i int) token { return pp.s.token(i, true) }

func describeTok(src []byte, t token) string {
	switch t.kind {
	case tEOF:
		return "the end of the file"
	case tWord:
		return fmt.Sprintf("%q", src[t.start:t.end])
	}
	r, _ := utf8.DecodeRune(src[t.start:])
	return fmt.Sprintf("%q", r)
}

// object parses the object that starts at off (its '{', or its first key
// when fragment) and returns its piece (nil when its syntax is beyond
// repair) and the offset after it.
func (s *scanner) object(off int, fragment bool) (*piece, int) {
	pp := &pieceParser{s: s, start: off}
	s.cur = pp
	defer func() { s.cur = nil }()
	var end int
	var closed bool
	if fragment {
		e := s.report(SeverityError, off, "missing-brace", "", "the spec object has no opening brace: the text looks like a fragment of one, as copied from a page")
		ins := Edit{Off: off, End: off, New: "{ "}
		if ls := s.lines[s.pos(off).Line-1]; isBlank(s.src[ls:off]) {
			ins = Edit{Off: ls, End: ls, New: "{\n"}
		}
		s.fix(e, "added the opening brace", ins)
		pp.inserts = append(pp.inserts, Edit{Off: off, End: off, New: "{"})
		end, closed = pp.members(off, true)
	} else {
		end, closed = pp.members(off+1, true)
	}
	if pp.failed {
		return nil, s.skipBalanced(off, fragment)
	}
	if !closed {
		e := s.report(SeverityError, end, "missing-brace", "", "the spec object has no closing brace")
		s.fix(e, "added the closing brace", Edit{Off: end, End: end, New: "\n}"})
		pp.inserts = append(pp.inserts, Edit{Off: end, End: end, New: "}"})
	}
	return pp.build(end), end
}

func isBlank(b []byte) bool { return len(bytes.Trim(b, " \t\r")) == 0 }

// skipBalanced returns the end of the object at off by bracket matching
// alone (after a syntax error), or the end of the file.
func (s *scanner) skipBalanced(off int, fragment bool) int {
	depth := 0
	if fragment {
		depth = 1
	}
	for i := off; i < len(s.src); {
		t := s.token(i, false)
		switch t.kind {
		case tEOF:
			return len(s.src)
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth <= 0 {
				return t.end
			}
		}
		i = t.end
	}
	return len(s.src)
}

// members parses an object's members from i (after its '{'). top marks the
// spec object itself, whose closing brace may be missing: then closed is
// false and end is where the brace belongs (after the last value).
func (pp *pieceParser) members(i int, top bool) (end int, closed bool) {
	src := pp.s.src
	first, comma, prevEnd := true, -1, i
	for !pp.failed {
		t := pp.tok(i)
		switch {
		case t.kind == '}':
			pp.trailingComma(comma, '}')
			return t.end, true
		case t.kind == ',':
			if first || comma >= 0 {
				pp.fail(t.start, "unexpected ',': a key in double quotes or '}' must come first")
				return t.end, false
			}
			comma, i = t.start, t.end
		case t.isString() && (comma >= 0 || first || pp.tok(t.end).kind == ':'):
			if !first && comma < 0 {
				pp.missingComma(prevEnd, t.start, "members")
			}
			pp.checkString(t)
			colon := pp.tok(t.end)
			if colon.kind != ':' {
				pp.fail(colon.start, "expected ':' after the key %s, found %s", src[t.start:t.end], describeTok(src, colon))
				return colon.start, false
			}
			prevEnd = pp.value(colon.end)
			i, comma, first = prevEnd, -1, false
		case top && !first && comma < 0:
			// After a complete member comes something that is not part of
			// the object: its closing brace is missing.
			return prevEnd, false
		case top && !first && comma >= 0 && !t.isString():
			// A trailing comma, then the end of the fragment.
			pp.trailingComma(comma, '}')
			return comma, false
		case t.kind == tEOF:
			pp.fail(t.start, "unexpected end of the file: the object is not closed")
			return t.start, false
		case !first && comma < 0:
			pp.fail(t.start, "unexpected %s after a value: want ',' or '}'", describeTok(src, t))
			return t.start, false
		default:
			pp.fail(t.start, "unexpected %s: want a key in double quotes or '}'", describeTok(src, t))
			return t.start, false
		}
	}
	return i, false
}

func (pp *pieceParser) trailingComma(comma int, closer byte) {
	if comma < 0 {
		return
	}
	e := pp.s.report(SeverityError, comma, "json-syntax", "", "trailing comma before '%c': Kafka's JSON reader (Jackson) rejects it", closer)
	pp.s.fix(e, "removed the trailing comma", Edit{Off: comma, End: comma + 1})
	pp.repairs = append(pp.repairs, Edit{Off: comma, End: comma + 1, New: " "})
}

func (pp *pieceParser) missingComma(prevEnd, next int, what string) {
	e := pp.s.report(SeverityError, next, "json-syntax", "", "missing ',' between %s", what)
	pp.s.fix(e, "added the missing comma", Edit{Off: prevEnd, End: prevEnd, New: ","})
	pp.inserts = append(pp.inserts, Edit{Off: prevEnd, End: prevEnd, New: ","})
}

// checkString reports a string's problems; single and curly quotes are
// repaired when the content allows.
func (pp *pieceParser) checkString(t token) {
	src := pp.s.src
	if t.bad != "" {
		pp.fail(t.start, "%s", t.bad)
		return
	}
	switch t.kind {
	case tSingle:
		body := src[t.start+1 : t.end-1]
		e := pp.s.report(SeverityError, t.start, "json-syntax", "", "a string in single quotes: JSON (and Kafka's Jackson) needs double quotes")
		if bytes.ContainsAny(body, "\"\\") {
			pp.failed = true
			return
		}
		pp.s.fix(e, fmt.Sprintf("'%s' → \"%s\"", body, body), Edit{Off: t.start, End: t.start + 1, New: `"`}, Edit{Off: t.end - 1, End: t.end, New: `"`})
		pp.repairs = append(pp.repairs, Edit{Off: t.start, End: t.start + 1, New: `"`}, Edit{Off: t.end - 1, End: t.end, New: `"`})
	case tCurly:
		body := src[t.start+3 : t.end-3]
		e := pp.s.report(SeverityError, t.start, "json-syntax", "", "a string in curly quotes (“…”, as web pages and word processors write them): JSON needs straight double quotes")
		pp.s.fix(e, fmt.Sprintf("“%s” → \"%s\"", body, body), Edit{Off: t.start, End: t.start + 3, New: `"`}, Edit{Off: t.end - 3, End: t.end, New: `"`})
		pp.repairs = append(pp.repairs, Edit{Off: t.start, End: t.start + 3, New: `  "`}, Edit{Off: t.end - 3, End: t.end, New: `"  `})
	}
}

// value parses one value at i and returns the offset after it.
func (pp *pieceParser) value(i int) int {
	src := pp.s.src
	t := pp.tok(i)
	switch {
	case t.kind == '{':
		end, closed := pp.members(t.end, false)
		if !closed {
			pp.fail(t.start, "the object opened here is not closed")
		}
		return end
	case t.kind == '[':
		return pp.array(t)
	case t.isString():
		pp.checkString(t)
		return t.end
	case t.kind == tWord:
		w := string(src[t.start:t.end])
		if w != "true" && w != "false" && w != "null" && !isJSONNumber(w) {
			pp.fail(t.start, "invalid value %q: want a string in double quotes, a number, true, false or null", w)
		}
		return t.end
	case t.kind == tEOF:
		pp.fail(t.start, "unexpected end of the file: a value is missing")
	default:
		pp.fail(t.start, "unexpected %s: want a value", describeTok(src, t))
	}
	return t.start
}

func (pp *pieceParser) array(open token) int {
	src := pp.s.src
	i, first, comma, prevEnd := open.end, true, -1, open.end
	for !pp.failed {
		t := pp.tok(i)
		switch {
		case t.kind == ']':
			pp.trailingComma(comma, ']')
			return t.end
		case t.kind == ',':
			if first || comma >= 0 {
				pp.fail(t.start, "unexpected ',': a value must come first")
				return t.end
			}
			comma, i = t.start, t.end
		case t.kind == tEOF:
			pp.fail(open.start, "the array opened here is not closed")
			return t.start
		case t.kind == '}' || t.kind == ':':
			pp.fail(t.start, "unexpected %s in an array", describeTok(src, t))
			return t.start
		default:
			if !first && comma < 0 {
				pp.missingComma(prevEnd, t.start, "array elements")
			}
			prevEnd = pp.value(i)
			i, comma, first = prevEnd, -1, false
		}
	}
	return i
}

// isJSONNumber reports whether w is a number in JSON's grammar (Jackson
// rejects leading zeros, a leading '+', NaN and hex).
func isJSONNumber(w string) bool {
	i := 0
	if i < len(w) && w[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(w) && w[i] >= '0' && w[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(w) && w[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(w) && w[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(w) && (w[i] == 'e' || w[i] == 'E') {
		i++
		if i < len(w) && (w[i] == '+' || w[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(w)
}

// build makes the piece's parse buffer: the source with everything outside
// [start, end) blanked (line breaks kept, so positions stay), the repairs
// made and the insertions inserted.
func (pp *pieceParser) build(end int) *piece {
	src := pp.s.src
	pc := &piece{start: pp.start, end: end}
	whole := len(pp.repairs) == 0 && len(pp.inserts) == 0 && len(pp.s.d.pieces) == 0 && len(pp.s.cuts) == 0 &&
		onlyBlanksAndComments(pp.s, 0, pp.start) && onlyBlanksAndComments(pp.s, end, len(src))
	if whole {
		pc.buf = src
		return pc
	}
	b := make([]byte, len(src))
	for i, c := range src {
		switch {
		case i >= pp.start && i < end:
			b[i] = c
		case c == '\n' || c == '\r':
			b[i] = c
		default:
			b[i] = ' '
		}
	}
	for _, r := range pp.repairs {
		copy(b[r.Off:r.End], r.New)
	}
	ins := append([]Edit(nil), pp.inserts...)
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].Off < ins[j].Off })
	var out []byte
	last := 0
	for _, e := range ins {
		out = append(out, b[last:e.Off]...)
		pc.shift = append(pc.shift, len(out)-e.Off)
		pc.ins = append(pc.ins, insertion{at: len(out), n: len(e.New)})
		out = append(out, e.New...)
		last = e.Off
	}
	pc.buf = append(out, b[last:]...)
	return pc
}

// onlyBlanksAndComments reports whether src[from:to] holds nothing but
// whitespace and comments.
func onlyBlanksAndComments(s *scanner, from, to int) bool {
	return s.skip(from, false) >= to && !bytes.Contains(s.src[from:to], []byte("\u00a0"))
}
