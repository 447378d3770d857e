package tree

import (
	"errors"
	"strconv"
	"strings"
)

// A Step is one step of a field path: a name (a message, header, field or
// synthetic node's name, or a JSON object key), or an element index.
type Step struct {
	// Name is the step's name; "" for an index step.
	Name string
	// Index is the element index of an index step, -1 for a name step.
	Index int32
	// Key marks a name that is a JSON object key as it is written (a key
	// of the user's JSON, "_unknownTaggedFields", "<field>SizeInBytes"):
	// JSON writes it as it is rather than as the lower-cased-first key of
	// a spec name.
	Key bool
}

// Name returns the name step name.
func Name(name string) Step { return Step{Name: name, Index: -1} }

// Index returns the index step [i].
func Index(i int) Step { return Step{Index: int32(i)} }

// IsIndex reports whether s is an index step.
func (s Step) IsIndex() bool { return s.Index >= 0 }

// Path is a field path, built step by step (Push, PushIndex, Pop) and
// written in each of the notations kwire uses:
//
//	Append, String  VoteRequest.Topics[0].Partitions[0].LastOffset  (the JSON view's "path", error messages, Tree.Get)
//	AppendJSON      $.topics[0].partitions[0].lastOffset            (paths into Kafka's converter JSON)
//	AppendAnchor    Topics.0.Partitions.0.LastOffset                (ids in the atlas's pages)
//
// A Path is a slice: Push appends to it, so a path that is extended while
// another holds a prefix of it must be copied first (Clone).
type Path []Step

// Push appends name step name.
func (p *Path) Push(name string) { *p = append(*p, Name(name)) }

// PushKey appends name step name that is a JSON object key as written (see
// Step.Key).
func (p *Path) PushKey(key string) { *p = append(*p, Step{Name: key, Index: -1, Key: true}) }

// PushIndex appends index step [i].
func (p *Path) PushIndex(i int) { *p = append(*p, Index(i)) }

// Pop removes the last step.
func (p *Path) Pop() { *p = (*p)[:len(*p)-1] }

// Clone returns a copy of p that does not share its steps.
func (p Path) Clone() Path { return append(Path(nil), p...) }

// Append appends p in the dotted notation: names joined by ".", indexes
// as "[i]" after the step before them ("VoteRequest.Topics[0].PreVote").
func (p Path) Append(b []byte) []byte {
	for k, s := range p {
		b = appendDotted(b, s, k == 0)
	}
	return b
}

// AppendStep appends step s to b, which holds a path in the dotted
// notation ("" for the empty path): the one rule of that notation, for
// callers that compose paths straight into a buffer.
func AppendStep(b []byte, s Step) []byte { return appendDotted(b, s, len(b) == 0) }

func appendDotted(b []byte, s Step, first bool) []byte {
	if s.Index >= 0 {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(s.Index), 10)
		return append(b, ']')
	}
	if !first {
		b = append(b, '.')
	}
	return append(b, s.Name...)
}

// String is p in the dotted notation (see Append).
func (p Path) String() string { return string(p.Append(nil)) }

// AppendJSON appends p as a JSON path from the root object, "$" then each
// step: a spec name as ".key" with key its lower-cased-first form (Kafka's
// MessageGenerator.lowerCaseFirst: "ClusterId" is "clusterId"), a Key
// name as ".key" when it is an identifier and as ["key"] (a JSON string)
// otherwise, an index as "[i]" ("$.topics[0].partitions[0].lastOffset").
// quote appends a key as a JSON string, quotes included (nil:
// strconv.AppendQuote), so that a path shows a key as the JSON writer it
// goes with would.
func (p Path) AppendJSON(b []byte, quote func(b []byte, s string) []byte) []byte {
	if quote == nil {
		quote = strconv.AppendQuote
	}
	b = append(b, '$')
	for _, s := range p {
		switch {
		case s.Index >= 0:
			b = appendDotted(b, s, false)
		case !s.Key:
			b = append(b, '.')
			b = AppendJSONKey(b, s.Name)
		case isIdent(s.Name):
			b = append(b, '.')
			b = append(b, s.Name...)
		default:
			b = append(b, '[')
			b = quote(b, s.Name)
			b = append(b, ']')
		}
	}
	return b
}

// AppendJSONKey appends lowerCaseFirst(name), the JSON key of a spec
// field in Kafka's converter JSON ("ClusterId" is "clusterId", "NS" is
// "nS").
func AppendJSONKey(b []byte, name string) []byte {
	if name == "" {
		return b
	}
	c := name[0]
	if c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	return append(append(b, c), name[1:]...)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// AppendAnchor appends p as an HTML id: steps joined by ".", an index as
// its number ("Topics.0.Partitions.0.LastOffset"), and in names "[" as
// ".", "]" dropped and white space as "_", so that the id has no
// characters a URL fragment would escape.
func (p Path) AppendAnchor(b []byte) []byte {
	for k, s := range p {
		if k > 0 {
			b = append(b, '.')
		}
		if s.Index >= 0 {
			b = strconv.AppendInt(b, int64(s.Index), 10)
			continue
		}
		for i := 0; i < len(s.Name); i++ {
			switch c := s.Name[i]; c {
			case '[':
				b = append(b, '.')
			case ']':
			case ' ', '\t', '\n':
				b = append(b, '_')
			default:
				b = append(b, c)
			}
		}
	}
	return b
}

// ParsePath reads a path in the dotted notation: names separated by ".",
// each optionally followed by indexes "[i]" ("VoteRequest.Topics[0].
// Partitions[0].LastOffset", "Topics[0][1]"). A name is any run of
// characters other than ".", "[" and "]"; an index is a decimal number
// below 2^31. Errors (*PathError with Reason BadPath) say where the
// syntax is wrong.
func ParsePath(s string) (Path, error) {
	var p Path
	bad := func(at int, msg string) (Path, error) {
		return nil, &PathError{Path: s, Reason: BadPath, Msg: "at character " + strconv.Itoa(at) + ": " + msg}
	}
	if s == "" {
		return bad(0, "empty path")
	}
	for i := 0; i < len(s); {
		switch {
		case s[i] == '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return bad(i, "[ without ]")
			}
			n, err := strconv.ParseInt(s[i+1:i+j], 10, 32)
			if err != nil || n < 0 || s[i+1] == '+' {
				return bad(i+1, "index "+strconv.Quote(s[i+1:i+j])+" is not a number from 0 on")
			}
			p = append(p, Index(int(n)))
			i += j + 1
			switch {
			case i < len(s) && s[i] == ']':
				return bad(i, "] without [")
			case i < len(s) && s[i] != '.' && s[i] != '[':
				return bad(i, "a . is missing before the name")
			}
		case s[i] == '.' && i > 0 && i+1 < len(s):
			i++
			fallthrough
		default:
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' && s[j] != ']' {
				j++
			}
			if j == i && j < len(s) && s[j] == ']' {
				return bad(i, "] without [")
			}
			if j == i {
				return bad(i, "a name is missing")
			}
			p = append(p, Name(s[i:j]))
			i = j
		}
	}
	return p, nil
}

// ErrorReason is what kind of path error a PathError is.
type ErrorReason uint8

// Path error reasons.
const (
	// BadPath is a path whose syntax is wrong.
	BadPath ErrorReason = iota + 1
	// NoSuchField is a name step that names no field (or header, body,
	// frame field) of the value it is applied to.
	NoSuchField
	// IndexOutOfRange is an index at or past the number of elements.
	IndexOutOfRange
	// WrongKind is a step or getter that does not fit the value: an index
	// into a value that is not an array, a name into one that is not a
	// struct, Int of a string.
	WrongKind
)

var reasonNames = [...]string{"", "bad path", "no such field", "index out of range", "wrong kind"}

// String names the reason ("no such field").
func (r ErrorReason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "path error"
}

// PathError is a path that does not lead to a value, or a value that is
// not of the kind asked for. Path is the path up to and including the
// step that failed, in the dotted notation ("VoteRequest.Topics[0].
// Partitions[5]"); Reason says what kind of error it is and Msg what was
// wrong ("index 5 out of range: Partitions has 1 element").
type PathError struct {
	Path   string
	Reason ErrorReason
	Msg    string
}

// Error renders "path: msg".
func (e *PathError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// errNoTree is the error of a Value of no tree.
var errNoTree = errors.New("no value: the tree is nil or empty")
