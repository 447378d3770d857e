package spec

import (
	"fmt"
	"sort"
	"strings"
)

// Severity of a spec problem.
type Severity uint8

// Severities: an Error makes the spec unusable (Kafka's generator rejects
// it); a Warning is legal but probably a mistake.
const (
	SeverityError Severity = iota
	SeverityWarning
)

// String is "error" or "warning".
func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// Error is one problem found in a spec file, at a file:line:col position.
// Rule is a stable identifier ("unknown-key", "bad-type"…) and Hint an
// optional suggestion ("did you mean \"bool\"?").
type Error struct {
	Pos      Pos
	Severity Severity
	Rule     string
	Msg      string
	Hint     string
}

// Error renders "file:line:col: error: message; hint [rule]".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s: %s", e.Pos, e.Severity, e.Msg)
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	if e.Rule != "" {
		fmt.Fprintf(&b, " [%s]", e.Rule)
	}
	return b.String()
}

// ErrorList collects every problem of one or more files, in the manner of
// go/scanner.ErrorList. It is an error only when it holds at least one
// entry of SeverityError (see Err).
type ErrorList []*Error

// Error renders every entry, one a line.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Sort orders the list by file, line and column.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// HasErrors reports whether any entry is an error (not a warning).
func (l ErrorList) HasErrors() bool {
	for _, e := range l {
		if e.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Errors returns only the entries of SeverityError.
func (l ErrorList) Errors() ErrorList {
	var out ErrorList
	for _, e := range l {
		if e.Severity == SeverityError {
			out = append(out, e)
		}
	}
	return out
}

// Err returns the list's errors (warnings dropped) as an error, or nil when
// there are none.
func (l ErrorList) Err() error {
	if e := l.Errors(); len(e) > 0 {
		return e
	}
	return nil
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
