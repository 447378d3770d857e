package spec

// Drafts: a spec file as Kafka's generator wants it holds exactly one JSON
// object (with // and /* */ comments). A KIP draft copied from a web page
// may hold text around the object (the page's title), several objects, or
// a bare fragment whose braces were left behind. This file finds the spec
// objects of such a file, reports what is around and between them, checks
// the JSON syntax as strictly as Kafka's Jackson does (hujson, which the
// loader uses, accepts trailing commas), repairs what it can in a private
// copy so that the loader can go on, and records each unambiguous repair as
// a Fix that `kwire lint --fix` applies to the file itself.

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Edit replaces the bytes [Off, End) of a file with New (an insertion when
// Off == End).
type Edit struct {
	Off, End int
	New      string
}

// Fix is an unambiguous correction of one problem: the edits to make to
// the original file, and what they do, in words.
type Fix struct {
	// Pos is where the fix applies (its first edit).
	Pos Pos
	// Rule is the rule id of the problem it corrects.
	Rule string
	// Desc says what the fix does: `"booleanbool" → "bool"`.
	Desc  string
	Edits []Edit
	// Problem is the problem it corrects.
	Problem *Error
}

// draft is the result of scanning a file for its spec objects.
type draft struct {
	pieces []*piece
	// dropped are the offsets of the objects whose JSON is beyond repair.
	dropped []int
	errs    ErrorList
	fixes   []*Fix
}

// scanner finds the spec objects of one file.
type scanner struct {
	file  string
	src   []byte
	lines []int
	d     draft
	cur   *pieceParser // the object being parsed, if any
	// cuts maps the start of a // comment that swallows spec text (see
	// swallowed) to where the comment really ends; judged holds the
	// comments already looked at.
	cuts   map[int]int
	judged map[int]bool
	// top says that skip passes text outside every object, where a //
	// comment may swallow the '{' of the object after it (see topComment).
	top bool
}

func lineStarts(src []byte) []int {
	lines := []int{0}
	for i, c := range src {
		if c == '\n' {
			lines = append(lines, i+1)
		}
	}
	return lines
}

func posIn(file string, lines []int, off int) Pos {
	i := sort.Search(len(lines), func(i int) bool { return lines[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return Pos{File: file, Line: i + 1, Col: off - lines[i] + 1}
}

func (s *scanner) pos(off int) Pos { return posIn(s.file, s.lines, off) }

func (s *scanner) report(sev Severity, off int, rule, hint, format string, args ...any) *Error {
	e := &Error{Pos: s.pos(off), Severity: sev, Rule: rule, Msg: fmt.Sprintf(format, args...), Hint: hint}
	s.d.errs = append(s.d.errs, e)
	return e
}

func (s *scanner) fix(e *Error, desc string, edits ...Edit) {
	s.d.fixes = append(s.d.fixes, &Fix{Pos: s.pos(edits[0].Off), Rule: e.Rule, Desc: desc, Edits: edits, Problem: e})
}

// scanDraft finds the spec objects of src. A file that is one object, with
// only whitespace and comments around it, gives one piece whose buffer is
// src itself.
//
// inSet says that the file is one of a set of spec files (a directory's, an
// archive's, a release's) rather than a file read on its own.
func scanDraft(file string, src []byte, inSet bool) *draft {
	s := &scanner{file: file, src: src, lines: lineStarts(src)}
	i := 0
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) { // a UTF-8 byte order mark
		i = 3
	}
	second := -1
	for {
		s.top = true // a // comment here may swallow an object's '{'
		t := s.token(i, false)
		s.top = false
		if t.kind == tEOF {
			break
		}
		var pc *piece
		var end int
		obj := true
		switch {
		case t.kind == '{' && s.startsObject(t):
			pc, end = s.object(t.start, false)
		case t.isString() && s.token(t.end, false).kind == ':':
			pc, end = s.object(t.start, true)
		default:
			obj = false
			end = s.text(t.start)
		}
		switch {
		case pc != nil:
			s.d.pieces = append(s.d.pieces, pc)
		case obj:
			// An object whose JSON is beyond repair: it does not load.
			s.d.dropped = append(s.d.dropped, t.start)
		}
		if pc != nil && len(s.d.pieces) == 2 {
			second = pc.start
		}
		i = end
	}
	if n := len(s.d.pieces); n > 1 {
		// A file of a directory or an archive is one of a set of spec
		// files, as Kafka's generator compiles them, and the generator
		// refuses anything after the first object: an error there. A file
		// read on its own, whatever its name, is read as a draft (each
		// object a spec, as the fixed copy of a draft is): a warning.
		sev, hint := SeverityWarning, "split the file before putting the specs into Kafka"
		if inSet {
			sev, hint = SeverityError, ""
		}
		s.report(sev, second, "several-objects", hint, "this file holds %d spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own", n)
	}
	s.d.errs.Sort()
	return &s.d
}

// Token kinds: a punctuation byte itself, or one of these.
const (
	tEOF    = -1
	tString = 's' // "…"
	tSingle = 'q' // '…'
	tCurly  = 'c' // “…”
	tWord   = 'w' // true, 12, Page…
	tOther  = 'o' // any other character
)

type token struct {
	kind       int
	start, end int
	bad        string // for strings: a problem with the string's content
}

func (t token) isString() bool { return t.kind == tString || t.kind == tSingle || t.kind == tCurly }

func (s *scanner) token(i int, inPiece bool) token {
	i = s.skip(i, inPiece)
	src := s.src
	if i >= len(src) {
		return token{kind: tEOF, start: len(src), end: len(src)}
	}
	c := src[i]
	switch {
	case strings.IndexByte("{}[]:,", c) >= 0:
		return token{kind: int(c), start: i, end: i + 1}
	case c == '"' || c == '\'':
		return s.str(i, c)
	case bytes.HasPrefix(src[i:], []byte("“")) || bytes.HasPrefix(src[i:], []byte("”")):
		t := token{kind: tCurly, start: i}
		j := i + 3
		for j < len(src) && src[j] != '\n' {
			if bytes.HasPrefix(src[j:], []byte("”")) || bytes.HasPrefix(src[j:], []byte("“")) {
				t.end = j + 3
				return t
			}
			if src[j] == '"' || src[j] == '\\' {
				break
			}
			j++
		}
		return token{kind: tOther, start: i, end: i + 3}
	case isWordByte(c):
		j := i
		for j < len(src) && isWordByte(src[j]) {
			j++
		}
		return token{kind: tWord, start: i, end: j}
	}
	_, n := utf8.DecodeRune(src[i:])
	return token{kind: tOther, start: i, end: i + n}
}

func isWordByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// str scans a string quoted with q, as Jackson reads it: no raw control
// characters, only JSON's escapes. A string not closed on its line ends at
// the line's end, with bad set.
func (s *scanner) str(i int, q byte) token {
	kind := int(tString)
	if q == '\'' {
		kind = tSingle
	}
	t := token{kind: kind, start: i}
	src := s.src
	for j := i + 1; j < len(src); j++ {
		c := src[j]
		switch {
		case c == q:
			t.end = j + 1
			return t
		case c == '\n':
			t.end, t.bad = j, "unterminated string: it is not closed on its line"
			return t
		case c == '\\':
			if j+1 < len(src) && strings.IndexByte(`"\/bfnrtu`, src[j+1]) < 0 && !(q == '\'' && src[j+1] == '\'') {
				if t.bad == "" {
					t.bad = fmt.Sprintf("invalid escape \\%c in a string (JSON knows \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", src[j+1])
				}
			}
			j++
		case c < 0x20:
			if t.bad == "" {
				t.bad = fmt.Sprintf("control character U+%04X in a string: JSON needs it escaped", c)
			}
		}
	}
	t.end, t.bad = len(src), "unterminated string"
	return t
}

// skip passes whitespace and comments. Inside a piece a non-breaking space
// (as web pages have) is reported and repaired; elsewhere it is only
// skipped.
func (s *scanner) skip(i int, inPiece bool) int {
	src := s.src
	for i < len(src) {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == 0xc2 && i+1 < len(src) && src[i+1] == 0xa0:
			if inPiece && s.cur != nil {
				s.cur.nbsp(i)
			}
			i += 2
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			i = s.commentEnd(i)
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				if inPiece && s.cur != nil {
					s.cur.fail(i, "unterminated /* comment")
				}
				return len(src)
			}
			i += 2 + j + 2
		default:
			return i
		}
	}
	return i
}

// commentEnd returns where the // comment at i ends: at the end of its
// line, or, inside a spec object, where the spec text that it swallows
// begins (see swallowed).
func (s *scanner) commentEnd(i int) int {
	if end, ok := s.cuts[i]; ok {
		return end
	}
	e := len(s.src)
	if l := s.pos(i).Line; l < len(s.lines) {
		e = s.lines[l] - 1 // the line's '\n'
	}
	if s.judged[i] || s.cur == nil && !s.top {
		return e
	}
	if s.judged == nil {
		s.judged, s.cuts = map[int]bool{}, map[int]int{}
	}
	s.judged[i] = true
	if s.cur == nil {
		return s.topComment(i, e)
	}
	k := s.swallowed(i+2, e)
	if k < 0 {
		return e
	}
	// The comments that shared the line (Kafka writes "// Version N …"
	// one a line) end where the next begins, the last where the spec text
	// begins.
	cuts := []int{i}
	for j := i + 2; j+1 < k; j++ {
		if s.src[j] == '/' && s.src[j+1] == '/' && (s.src[j-1] == ' ' || s.src[j-1] == '\t') {
			cuts = append(cuts, j)
			j++
		}
	}
	cuts = append(cuts, k)
	for n := 0; n+1 < len(cuts); n++ {
		s.cuts[cuts[n]] = cuts[n+1]
		s.judged[cuts[n]] = true
	}
	what := excerpt(bytes.TrimRight(s.src[k:e], " \t\r"), 40)
	at := s.pos(k)
	e2 := s.report(SeverityError, i, "comment-swallows", "the line breaks after the comment were lost, as when a spec is copied from a web page",
		"this // comment runs to the end of its line and swallows the spec text after it, from %d:%d to the end of the line (%d %s): %s", at.Line, at.Col, e-k, plural(e-k, "byte", "bytes"), what)
	// The fix restores the line breaks: each comment on a line of its
	// own, and the spec text on the next, indented as the comment's line.
	ls := s.lines[s.pos(i).Line-1]
	indent := ls
	for indent < i && (s.src[indent] == ' ' || s.src[indent] == '\t') {
		indent++
	}
	var edits []Edit
	for _, q := range cuts[1:] {
		b := s.blankBefore(q, i)
		edits = append(edits, Edit{Off: b, End: q, New: "\n" + string(s.src[ls:indent])})
	}
	desc := "restored the line break after the comment"
	if n := len(cuts) - 1; n > 1 {
		desc = fmt.Sprintf("restored the line breaks after the %d comments of the line", n)
	}
	s.d.fixes = append(s.d.fixes, &Fix{Pos: e2.Pos, Rule: e2.Rule, Desc: desc, Edits: edits, Problem: e2})
	s.cur.inserts = append(s.cur.inserts, Edit{Off: k, End: k, New: "\n"})
	return s.cuts[i]
}

// topComment returns where the // comment at i, outside every object,
// ends (e: the end of its line): at the '{' of a spec object that it
// swallows (a licence header joined onto the object's first line, or
// onto its '{' alone), reported at the last // comment of the line, whose
// fix breaks the line before the '{'; else at e.
func (s *scanner) topComment(i, e int) int {
	src := s.src
	k := -1
	for j := i + 2; j < e; j++ {
		if src[j] == '{' && s.notJSON(j, e) < 0 && s.opensObject(j, e) {
			k = j
			break
		}
	}
	if k < 0 {
		return e
	}
	last := i
	for j := i + 2; j+1 < k; j++ {
		if src[j] == '/' && src[j+1] == '/' && (src[j-1] == ' ' || src[j-1] == '\t') {
			s.cuts[last], s.judged[j] = j, true
			last = j
			j++
		}
	}
	s.cuts[last] = k
	at := s.pos(k)
	line := e - k
	what := excerpt(bytes.TrimRight(src[k:e], " \t\r"), 40)
	err := s.report(SeverityError, last, "comment-swallows", "the line breaks after the comment were lost, as when a spec is copied from a web page",
		"this // comment runs to the end of its line and swallows the spec object after it, from %d:%d to the end of the line (%d %s): %s", at.Line, at.Col, line, plural(line, "byte", "bytes"), what)
	b := s.blankBefore(k, last)
	s.d.fixes = append(s.d.fixes, &Fix{Pos: err.Pos, Rule: err.Rule, Desc: "restored the line break before the object's '{'", Edits: []Edit{{Off: b, End: k, New: "\n"}}, Problem: err})
	return s.cuts[i]
}

// opensObject reports whether the '{' at j, on a line that ends at e,
// opens a spec object: '}' or a key follows it on its line, or in the //
// comment after it that swallows spec text (see swallowed), or first on
// the next line.
func (s *scanner) opensObject(j, e int) bool {
	src := s.src
	n := s.blank(j+1, e)
	switch {
	case n < e && (src[n] == '}' || s.keyAt(n, e) >= 0):
		return true
	case n+1 < e && src[n] == '/' && src[n+1] == '/':
		k := s.swallowed(n+2, e)
		return k >= 0 && (src[k] == '"' || src[k] == '}')
	case n >= e && e < len(src):
		le := e + 1
		for le < len(src) && src[le] != '\n' {
			le++
		}
		m := s.blank(e+1, le)
		return m < le && (src[m] == '}' || s.keyAt(m, le) >= 0)
	}
	return false
}

// blankBefore returns the start of the blanks (spaces, tabs,
// non-breaking spaces) that end at j, at least from.
func (s *scanner) blankBefore(j, from int) int {
	for j > from {
		switch {
		case s.src[j-1] == ' ' || s.src[j-1] == '\t':
			j--
		case j-2 >= from && s.src[j-2] == 0xc2 && s.src[j-1] == 0xa0:
			j -= 2
		default:
			return j
		}
	}
	return j
}

// blank returns the end of the blanks (spaces, tabs, carriage returns,
// non-breaking spaces) from i, at most to.
func (s *scanner) blank(i, to int) int {
	for i < to {
		switch {
		case s.src[i] == ' ' || s.src[i] == '\t' || s.src[i] == '\r':
			i++
		case s.src[i] == 0xc2 && i+1 < to && s.src[i+1] == 0xa0:
			i += 2
		default:
			return i
		}
	}
	return i
}

// excerpt is b when it has at most n runes, else its first n-3 runes and
// "…".
func excerpt(b []byte, n int) string {
	cut, i := 0, 0
	for r := 0; i < len(b); r++ {
		if r == n-3 {
			cut = i
		}
		if r == n {
			return string(b[:cut]) + "…"
		}
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return string(b)
}

// swallowed returns where spec text begins in the text of a // comment,
// src[from:to] (to is the end of its line), or -1 when there is none: the
// first key ("name": …), '{' before a key or '}', or '}' or ']' that
// closes nothing opened in the comment, from which the rest of the line is
// nothing but JSON: strings, numbers, true, false, null, punctuation, and
// maybe another // comment. Kafka's comments are sentences ("// Version 1
// adds IsNew."): quoted words in them are not followed by ':', and they
// hold no braces or brackets.
func (s *scanner) swallowed(from, to int) int {
	src := s.src
	depth, first := 0, -1
	for j := from; j < to; j++ {
		cand := false
		switch src[j] {
		case '"':
			end := s.keyAt(j, to)
			if end >= 0 {
				cand = true
				break
			}
			if t := s.str(j, '"'); t.bad == "" && t.end <= to {
				j = t.end - 1
			}
		case '{':
			n := s.blank(j+1, to)
			if n < to && (src[n] == '}' || s.keyAt(n, to) >= 0) {
				cand = true
			} else {
				depth++
			}
		case '[':
			depth++
		case '}', ']':
			if depth == 0 {
				cand = true
			} else {
				depth--
			}
		}
		if cand {
			bad := s.notJSON(j, to)
			ok, joins := s.wellFormed(j, to)
			if bad < 0 && ok {
				return j
			}
			if bad < 0 {
				// JSON, but it needs a further fix ("// Version 2 adds
				// "PreVote": true "validVersions": …"): a later split may
				// need none. One that does not join the next line is
				// none.
				if first < 0 && joins {
					first = j
				}
				if src[j] == '"' {
					j = s.str(j, '"').end - 1 // past the key
				}
				continue
			}
			// A later candidate before bad meets the same non-JSON text:
			// go on after it (so that a long line is read once).
			j = bad
		}
	}
	return first
}

// wellFormed reports whether the JSON tokens of src[from:to] (up to a //
// comment; notJSON has found nothing else) follow one another as JSON's
// do: no two values without a ',' between them, ':' only after a string,
// no ',' before '}' or ']' or another ','. joins is false when they end
// with a string, number or literal and the next line begins with a value
// or key: then the comment ends at its line's end, where a ',' is
// missing, and swallows nothing.
func (s *scanner) wellFormed(from, to int) (ok, joins bool) {
	src := s.src
	prev := byte(0) // 'v': a value ended; else the punctuation, 0 at first
	scalar := false // the last token is a string, number, true, false, null
	for j := from; j < to; {
		j = s.blank(j, to)
		if j >= to || src[j] == '/' && j+1 < to && src[j+1] == '/' {
			break
		}
		c := src[j]
		scalar = false
		switch {
		case c == '/': // a /* */ comment
			k := -1
			if j+2 <= to {
				k = bytes.Index(src[j+2:to], []byte("*/"))
			}
			if k < 0 { // a lone '/' or a comment not closed in the range
				return false, false
			}
			j += 2 + k + 2
			continue
		case c == '"' || isWordByte(c) || c == '{' || c == '[':
			if prev == 'v' {
				return false, true // a missing ','
			}
			if c == '{' || c == '[' {
				prev, j = c, j+1
				continue
			}
			end := j + 1
			if c == '"' {
				end = s.str(j, '"').end
			} else {
				for end < to && isWordByte(src[end]) {
					end++
				}
			}
			prev, j, scalar = 'v', end, true
			continue
		case c == ':':
			if prev != 'v' || src[s.prevNonBlank(j)] != '"' {
				return false, true
			}
			prev, j = c, j+1
		case c == ',':
			if prev == ',' || prev == ':' {
				return false, true
			}
			prev, j = c, j+1
		default: // '}' or ']'
			if prev == ',' || prev == ':' {
				return false, true
			}
			prev, j = 'v', j+1
		}
	}
	if scalar && s.valueNext(to) {
		return false, false
	}
	return true, true
}

// valueNext reports whether the first JSON text after the line break at
// nl (past blank lines and // comment lines) begins a value or a key.
func (s *scanner) valueNext(nl int) bool {
	src := s.src
	for j := nl; j < len(src); {
		j = s.blank(j, len(src))
		switch {
		case j >= len(src):
			return false
		case src[j] == '\n':
			j++
		case src[j] == '/' && j+1 < len(src) && src[j+1] == '/':
			for j < len(src) && src[j] != '\n' {
				j++
			}
		default:
			c := src[j]
			return c == '"' || c == '{' || c == '[' || isWordByte(c)
		}
	}
	return false
}

// prevNonBlank returns the offset of the last byte before j that is not a
// space or tab.
func (s *scanner) prevNonBlank(j int) int {
	j--
	for j > 0 && (s.src[j] == ' ' || s.src[j] == '\t') {
		j--
	}
	return j
}

// keyAt returns the end of the key at j (a string in double quotes, then
// ':'), or -1.
func (s *scanner) keyAt(j, to int) int {
	if s.src[j] != '"' {
		return -1
	}
	t := s.str(j, '"')
	if t.bad != "" || t.end > to {
		return -1
	}
	n := s.blank(t.end, to)
	if n < to && s.src[n] == ':' {
		return n + 1
	}
	return -1
}

// notJSON returns the offset of the first text of src[from:to] that is
// not a JSON token, or -1 when there is none up to its end or to a //
// comment.
func (s *scanner) notJSON(from, to int) int {
	src := s.src
	for j := from; j < to; {
		c := src[j]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			j++
		case c == 0xc2 && j+1 < to && src[j+1] == 0xa0: // a web page's space
			j += 2
		case c == '/' && j+1 < to && src[j+1] == '*':
			// A /* */ comment is skipped as the loader skips it.
			k := bytes.Index(src[j+2:to], []byte("*/"))
			if k < 0 {
				return j
			}
			j += 2 + k + 2
		case strings.IndexByte("{}[]:,", c) >= 0:
			j++
		case c == '"':
			t := s.str(j, '"')
			if t.bad != "" || t.end > to {
				return j
			}
			j = t.end
		case c == '/' && j+1 < to && src[j+1] == '/':
			return -1
		case isWordByte(c):
			k := j
			for k < to && isWordByte(src[k]) {
				k++
			}
			if w := string(src[j:k]); w != "true" && w != "false" && w != "null" && !isJSONNumber(w) {
				return j
			}
			j = k
		default:
			return j
		}
	}
	return -1
}

// startsObject reports whether the '{' token t opens a spec object: the
// next token is a key or '}'.
func (s *scanner) startsObject(t token) bool {
	n := s.token(t.end, false)
	if n.isString() || n.kind == '}' {
		return true
	}
	// "{ // a comment "apiKey": …" on one line: the comment swallows the
	// key (see swallowed).
	j := t.end
	for j < len(s.src) && (s.src[j] == ' ' || s.src[j] == '\t') {
		j++
	}
	if !bytes.HasPrefix(s.src[j:], []byte("//")) {
		return false
	}
	e := j
	for e < len(s.src) && s.src[e] != '\n' {
		e++
	}
	k := s.swallowed(j+2, e)
	return k >= 0 && (s.src[k] == '"' || s.src[k] == '}')
}

// text passes a stretch of text outside the spec objects that starts at
// off, reports it once, and returns where it ends: at the next line that
// starts (after blanks) a comment, an object or a key, or at a '{' that
// opens an object after nothing but punctuation on its line (", {").
func (s *scanner) text(off int) int {
	src := s.src
	end := len(src)
lines:
	for l := off; ; {
		k := l
		for k < len(src) && (src[k] == ' ' || src[k] == '\t' || src[k] == '\r') {
			k++
		}
		if l != off && k < len(src) && s.startsSomething(k) {
			end = k
			break
		}
		// A '{' after nothing but punctuation on its line (", {").
		for j := k; j < len(src) && src[j] != '\n'; j++ {
			if src[j] == '{' && !hasAlnum(src[k:j]) && s.startsObject(token{kind: '{', start: j, end: j + 1}) {
				end = j
				break lines
			}
		}
		nl := bytes.IndexByte(src[l:], '\n')
		if nl < 0 {
			break
		}
		l += nl + 1
	}
	stretch := bytes.TrimRight(src[off:end], " \t\r\n")
	what := strings.TrimSpace(string(firstLine(stretch)))
	if len(what) > 40 {
		what = what[:37] + "…"
	}
	e := s.report(SeverityError, off, "text-outside", "", "text outside the spec objects: %q (Kafka's generator accepts only one JSON object in a file)", what)
	// The fix comments the text out, line by line.
	var edits []Edit
	for l := off; l < off+len(stretch); {
		k := l
		for k < off+len(stretch) && (src[k] == ' ' || src[k] == '\t' || src[k] == '\r') {
			k++
		}
		if k < off+len(stretch) && src[k] != '\n' {
			edits = append(edits, Edit{Off: k, End: k, New: "// "})
		}
		nl := bytes.IndexByte(src[l:off+len(stretch)], '\n')
		if nl < 0 {
			break
		}
		l += nl + 1
	}
	if len(edits) > 0 {
		n := len(edits)
		desc := "commented out the text outside the spec objects"
		if n > 1 {
			desc += fmt.Sprintf(" (%d lines)", n)
		}
		if end < len(src) && !bytes.Contains(src[off+len(stretch):end], []byte("\n")) {
			// The text and what follows share a line: end the comment.
			edits = append(edits, Edit{Off: off + len(stretch), End: off + len(stretch), New: "\n"})
		}
		s.fix(e, desc, edits...)
	}
	return end
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

func hasAlnum(b []byte) bool {
	for _, c := range b {
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			return true
		}
	}
	return false
}

// startsSomething reports whether offset k starts a comment, an object or
// a key.
func (s *scanner) startsSomething(k int) bool {
	src := s.src
	if bytes.HasPrefix(src[k:], []byte("//")) || bytes.HasPrefix(src[k:], []byte("/*")) {
		return true
	}
	t := s.token(k, false)
	switch {
	case t.kind == '{':
		return s.startsObject(t)
	case t.isString():
		return s.token(t.end, false).kind == ':'
	}
	return false
}
