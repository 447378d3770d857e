package codec

// The JSON of Kafka's generated <Name>DataJsonConverter classes
// (generator/…/JsonConverterGenerator.java), written from and read into
// kwire trees. The format, from the reference (section 6):
//
//   - keys are lowerCaseFirst(spec name) in spec order; fields absent in the
//     version are omitted, tagged fields only when they differ from their
//     default (the wire's rule);
//   - bool true/false; every integer kind, int64 and uint32 included, a plain
//     JSON number; float64 a JSON floating-point number (0 is 0.0);
//   - uuid the 22-character base64url text of Uuid.toString, bytes standard
//     base64 with padding, null null, structs objects, arrays arrays;
//   - records "" (serializeRecords=true) or "<name>SizeInBytes": N
//     (serializeRecords=false); unknown tagged fields are never written.
//
// Nothing here uses reflection: ToJSON walks the spec beside the tree and
// appends text; FromJSON tokenizes with encoding/json's Decoder into a flat
// list of values, then builds the value tree in spec order from it.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// RecordsMode says how ToJSON writes a records field.
type RecordsMode uint8

const (
	// RecordsBase64 writes the records' bytes as standard base64 with
	// padding. Kafka's converter never writes records this way, but its
	// reader accepts base64 there (MessageUtil.jsonNodeToBinary), so the
	// JSON keeps every byte and FromJSON reads it back.
	RecordsBase64 RecordsMode = iota
	// RecordsEmpty writes "" (an empty binary node), what Kafka's
	// converter writes with serializeRecords=true: the records are never
	// rendered. FromJSON reads "" back as empty records.
	RecordsEmpty
	// RecordsSize writes "<fieldName>SizeInBytes": N in place of the field,
	// what Kafka's converter writes with serializeRecords=false (the
	// broker's request log does so for Produce requests and Fetch
	// responses). The bytes are lost: FromJSON refuses such JSON.
	RecordsSize
	// RecordsMarked writes, between the quotes of the records' string,
	// a marker in place of their base64: the byte 0x01, the records
	// node's index in the tree in decimal, the byte 0x01 — bytes ToJSON
	// never writes otherwise (it escapes control characters in
	// strings). For a writer that streams the base64 in its place
	// (render.Member.Tree) rather than hold it: not JSON text as it is.
	RecordsMarked
)

// RecordsMarker is the byte around a records node's index in the JSON
// that RecordsMarked writes.
const RecordsMarker = 0x01

// JSONOptions choose how kwire renders what Kafka's converter cannot.
type JSONOptions struct {
	// Records: how a records field is written: RecordsBase64 (default;
	// Kafka's reader accepts base64 for records), RecordsEmpty ("" — what
	// Kafka's converter writes with serializeRecords=true), RecordsSize
	// (Kafka's serializeRecords=false: key "<fieldName>SizeInBytes": N in
	// place of the field). A null records field is null in every mode.
	Records RecordsMode
	// UnknownTags: also write unknown tagged fields as
	// "_unknownTaggedFields": [{"tag":9,"data":"<base64>"}] (Kafka drops
	// them and ignores the key on read), after the struct's fields, in the
	// tree's order.
	UnknownTags bool
}

// unknownTagsKey is the key of unknown tagged fields (JSONOptions.UnknownTags).
const unknownTagsKey = "_unknownTaggedFields"

// JSONError is JSON that does not fit a message (FromJSON), or a value that
// Kafka's converter could not write (ToJSON). Path is a JSON path from the
// root object, e.g. $.topics[0].partitions[0].lastOffset; Msg says what was
// expected and what was found. Offset is the byte offset in the input where
// the offending JSON value starts (for a missing field, the enclosing
// object; for malformed JSON, where the syntax error is), or -1 when there
// is no input (ToJSON).
// Err, when not nil, is the error behind Msg (a base64 or uuid decoding
// error), for errors.As and errors.Is.
type JSONError struct {
	Path   string
	Msg    string
	Offset int
	Err    error
	// Missing is the field a mandatory value of which is missing ("missing:
	// the field is mandatory in version N"), nil for other errors: a
	// caller may say which versions lack it.
	Missing *spec.Field
}

// Error renders the JSON path and the problem: "$.topics[0].lastOffset: …".
func (e *JSONError) Error() string { return e.Path + ": " + e.Msg }

// Unwrap returns Err.
func (e *JSONError) Unwrap() error { return e.Err }

// jsonPath renders p as the JSON path of an error ("$.topics[0].lastOffset"),
// keys quoted as Kafka's converter writes strings, cut by cutMiddle.
func jsonPath(p tree.Path) string {
	b := p.AppendJSON(nil, AppendJSONString[string])
	if len(b) <= MaxJSONErrorPath {
		return string(b)
	}
	// Cut before converting: a path of a long key is not copied whole.
	head, tail := cutPoints(b, MaxJSONErrorPath)
	return string(b[:head]) + cutMark + string(b[tail:])
}

// cutMark is what cutMiddle puts where it cut.
const cutMark = "…"

// cutPoints returns where cutMiddle cuts b, longer than n bytes: it keeps
// b[:head] and b[tail:].
func cutPoints[S string | []byte](b S, n int) (head, tail int) {
	keep := n - len(cutMark)
	head, tail = keep/2, len(b)-(keep-keep/2)
	for head > 0 && !utf8.RuneStart(b[head]) {
		head--
	}
	for tail < len(b) && !utf8.RuneStart(b[tail]) {
		tail++
	}
	return head, tail
}

// MaxJSONDepth bounds how deeply FromJSON's input may nest objects and
// arrays (the root object is depth 1). The deepest message of the embedded
// specs nests 10 levels in this JSON (StreamsGroupDescribeResponse); a
// document nested deeper is refused as soon as its opening bracket is read,
// with the path so far, before anything below it is held.
const MaxJSONDepth = 64

// MaxJSONErrorPath bounds the JSON path a *JSONError names, in bytes: a
// longer path (long keys) keeps its start and its end around "…".
const MaxJSONErrorPath = 256

// cutMiddle returns s when it is at most n bytes, else its first and last
// bytes around "…" (n bytes in all, cut at UTF-8 character boundaries).
func cutMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := cutPoints(s, n)
	return s[:head] + cutMark + s[tail:]
}

// appendKey appends lowerCaseFirst(name), the JSON key of a spec field
// (MessageGenerator.lowerCaseFirst: "ClusterId" -> "clusterId", "NS" -> "nS").
func appendKey(b []byte, name string) []byte { return tree.AppendJSONKey(b, name) }

// isKey reports whether key is lowerCaseFirst(name), without allocating.
func isKey(key, name string) bool {
	if len(key) != len(name) || name == "" {
		return false
	}
	c := name[0]
	if c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	return key[0] == c && key[1:] == name[1:]
}

func lowerFirst(name string) string { return string(appendKey(nil, name)) }

// ---- writing ----

// ToJSON renders the struct-like node i of t (a decoded span tree's Body or
// Header node, or a value tree's root) for message m at version v, exactly
// as Kafka's <Name>DataJsonConverter.write(obj, v) would (keys
// lowerCaseFirst(spec name), spec order, fields absent in v omitted, tagged
// fields only when non-default by Kafka's rule, int64 as plain numbers,
// float64 as JSON floats (0 → 0.0), uuid as base64url without padding (22
// chars), bytes as standard base64 with padding, null as null, structs as
// objects, arrays as arrays). Appends to dst.
//
// Fields a value tree leaves out take their default, as when encoding.
// Strings are escaped as Jackson escapes them (", \, and control
// characters: \b \t \n \f \r, else \u00XX; nothing else), with invalid
// UTF-8 replaced by U+FFFD as Java's String decoding does (Java may use one
// U+FFFD where Go uses several for a truncated sequence). float64 is written
// as Java's Double.toString writes it (100.0, 1.0E10, 1.0E-4, 4.9E-324), and
// NaN and ±Infinity as the strings "NaN", "Infinity" and "-Infinity", as
// Jackson does; the oracle compares numbers, not their text.
//
// Like Kafka's writer, ToJSON fails (*JSONError) when a field absent in v is
// not ignorable but holds a non-default value, and on values no Kafka
// object can hold: null in a non-nullable field, integers out of their
// kind's range, a uuid that is not 16 bytes, unknown tagged fields (with
// UnknownTags) in a non-flexible version. On error dst is returned as given.
func ToJSON(dst []byte, t *tree.Tree, i int32, m *spec.Message, v int16, o JSONOptions) ([]byte, error) {
	if !m.ValidVersions.Contains(v) {
		return dst, &VersionError{Message: m.Name, Version: v, Valid: m.ValidVersions}
	}
	if o.Records > RecordsMarked {
		return dst, fmt.Errorf("codec.ToJSON: unknown RecordsMode %d", o.Records)
	}
	if t == nil || i < 0 || int(i) >= len(t.Nodes) {
		return dst, fmt.Errorf("codec.ToJSON: no node %d in the tree", i)
	}
	switch k := t.Nodes[i].Kind(); k {
	case tree.Body, tree.Header, tree.Struct, tree.Element:
	default:
		return dst, fmt.Errorf("codec.ToJSON: node %d is a %s node, not a message body or header (use t.Part(tree.Body))", i, k)
	}
	if st := t.Struct(i); st != nil && st != m.Root {
		return dst, fmt.Errorf("codec.ToJSON: node %d holds a %s, not a %s", i, st.Name, m.Name)
	}
	w := &jsonWriter{t: t, v: v, flexible: m.Flexible(v), o: o, buf: dst}
	w.def.v = t
	w.object(m.Root, i)
	if w.err != nil {
		return dst, w.err
	}
	return w.buf, nil
}

// jsonWriter appends the JSON of a tree.
type jsonWriter struct {
	t        *tree.Tree
	v        int16
	flexible bool
	o        JSONOptions
	buf      []byte
	path     tree.Path
	// kids holds the field nodes of the structs being written, a stack of
	// one run per open object.
	kids []jsonKid
	def  encoder // for isDefault, Kafka's non-default test
	err  error
}

// jsonKid is a field node of a struct: its spec field (nil for an unknown
// tagged field) and its index, or -1 once written.
type jsonKid struct {
	f *spec.Field
	n int32
}

func (w *jsonWriter) fail(format string, args ...any) {
	if w.err == nil {
		w.err = &JSONError{Path: jsonPath(w.path), Msg: fmt.Sprintf(format, args...), Offset: -1}
	}
}

// key appends the separator and the key of spec field name.
func (w *jsonWriter) key(name, suffix string, first *bool) {
	if !*first {
		w.buf = append(w.buf, ',')
	}
	*first = false
	w.buf = append(w.buf, '"')
	w.buf = appendKey(w.buf, name)
	w.buf = append(w.buf, suffix...)
	w.buf = append(w.buf, '"', ':')
}

// object writes struct st from node i (-1: every field at its default).
func (w *jsonWriter) object(st *spec.Struct, i int32) {
	base := len(w.kids)
	if i >= 0 {
		w.t.Fields(i, func(c int32) bool {
			var f *spec.Field
			if w.t.Nodes[c].Kind() != tree.UnknownTag {
				if f = w.t.Field(c); f == nil {
					return true
				}
				// A tag read twice: the last value wins, as in Kafka.
				for k := base; k < len(w.kids); k++ {
					if w.kids[k].f == f {
						w.kids[k].n = c
						return true
					}
				}
			}
			w.kids = append(w.kids, jsonKid{f, c})
			return true
		})
	}
	end := len(w.kids)
	w.buf = append(w.buf, '{')
	first := true
	cur := base
	for _, f := range st.Fields {
		// Trees list fields in spec order (tagged ones may come last), so
		// a cursor finds most; anything else falls back to a scan.
		n := int32(-1)
		for k := cur; k < end; k++ {
			if w.kids[k].f == f && w.kids[k].n >= 0 {
				n, w.kids[k].n = w.kids[k].n, -1
				cur = k + 1
				break
			}
		}
		if n < 0 {
			for k := base; k < cur; k++ {
				if w.kids[k].f == f && w.kids[k].n >= 0 {
					n, w.kids[k].n = w.kids[k].n, -1
					break
				}
			}
		}
		w.path.Push(f.Name)
		w.field(f, n, &first)
		w.path.Pop()
		if w.err != nil {
			return
		}
	}
	tags := 0
	for k := base; k < end; k++ {
		kid := w.kids[k]
		if kid.f != nil {
			if kid.n >= 0 {
				what := "which " + st.Name + " does not have"
				for _, f := range st.Fields {
					if f == kid.f {
						what = "twice"
					}
				}
				w.fail("the tree holds field %s %s", kid.f.Name, what)
				return
			}
			continue
		}
		if !w.o.UnknownTags {
			continue
		}
		w.path.PushKey(unknownTagsKey)
		w.path.PushIndex(tags)
		if !w.flexible {
			w.fail("unknown tagged field %d cannot exist in non-flexible version %d", w.t.Num(kid.n), w.v)
			return
		}
		w.path = w.path[:len(w.path)-2]
		if tags == 0 {
			if !first {
				w.buf = append(w.buf, ',')
			}
			first = false
			w.buf = append(w.buf, `"`+unknownTagsKey+`":[`...)
		} else {
			w.buf = append(w.buf, ',')
		}
		w.buf = append(w.buf, `{"tag":`...)
		w.buf = strconv.AppendInt(w.buf, w.t.Num(kid.n), 10)
		w.buf = append(w.buf, `,"data":"`...)
		w.buf = base64.StdEncoding.AppendEncode(w.buf, w.t.Data(kid.n))
		w.buf = append(w.buf, `"}`...)
		tags++
	}
	if tags > 0 {
		w.buf = append(w.buf, ']')
	}
	w.buf = append(w.buf, '}')
	w.kids = w.kids[:base]
}

// field writes field f of a struct from node n (-1: its default), or
// nothing when Kafka's writer leaves it out.
func (w *jsonWriter) field(f *spec.Field, n int32, first *bool) {
	if !f.Versions.Contains(w.v) {
		// JsonConverterGenerator.generateWrite applies the wire's
		// non-ignorable check (FieldSpec.generateNonIgnorableFieldCheck).
		if n >= 0 && !f.Ignorable && !w.def.isDefault(f, n) {
			w.fail("the field is not in version %d and is not ignorable, but holds a non-default value (Kafka's converter throws UnsupportedVersionException)", w.v)
		}
		return
	}
	if f.TaggedIn(w.v) && (n < 0 || w.def.isDefault(f, n)) {
		return
	}
	if f.Type.Kind == spec.KindRecords {
		w.records(f, n, first)
		return
	}
	w.key(f.Name, "", first)
	w.value(f, n)
}

// isNull reports whether field f's value at node n (-1: its default) is null.
func (w *jsonWriter) isNull(f *spec.Field, n int32) bool {
	if n < 0 {
		return f.DefaultNull || f.Type.Kind == spec.KindRecords
	}
	return w.t.Nodes[n].Null()
}

func (w *jsonWriter) null(f *spec.Field) {
	if !f.NullableIn(w.v) {
		w.fail("null, but the field is not nullable in version %d", w.v)
		return
	}
	w.buf = append(w.buf, "null"...)
}

func (w *jsonWriter) value(f *spec.Field, n int32) {
	switch f.Type.Kind {
	case spec.KindStruct:
		if w.isNull(f, n) {
			w.null(f)
			return
		}
		w.object(f.Type.Struct, n)
	case spec.KindArray:
		if w.isNull(f, n) {
			w.null(f)
			return
		}
		w.buf = append(w.buf, '[')
		if n >= 0 {
			k := 0
			w.t.Elements(n, func(c int32) bool {
				if k > 0 {
					w.buf = append(w.buf, ',')
				}
				w.path.PushIndex(k)
				if f.Type.Elem == spec.KindStruct {
					w.object(f.Type.Struct, c)
				} else {
					w.scalar(nil, f.Type.Elem, c)
				}
				w.path.Pop()
				k++
				return w.err == nil
			})
		}
		w.buf = append(w.buf, ']')
	default:
		w.scalar(f, f.Type.Kind, n)
	}
}

// records writes a records field as JSONOptions.Records says.
func (w *jsonWriter) records(f *spec.Field, n int32, first *bool) {
	if w.isNull(f, n) {
		w.key(f.Name, "", first)
		w.null(f)
		return
	}
	data := w.t.Data(n)
	switch w.o.Records {
	case RecordsSize:
		w.key(f.Name, "SizeInBytes", first)
		w.buf = strconv.AppendInt(w.buf, int64(len(data)), 10)
	case RecordsEmpty:
		w.key(f.Name, "", first)
		w.buf = append(w.buf, `""`...)
	case RecordsMarked:
		w.key(f.Name, "", first)
		w.buf = append(w.buf, '"', RecordsMarker)
		w.buf = strconv.AppendInt(w.buf, int64(n), 10)
		w.buf = append(w.buf, RecordsMarker, '"')
	default:
		w.key(f.Name, "", first)
		w.buf = append(w.buf, '"')
		w.buf = base64.StdEncoding.AppendEncode(w.buf, data)
		w.buf = append(w.buf, '"')
	}
}

// intRange is the range of values of an integer kind.
func intRange(k spec.Kind) (lo, hi int64) {
	switch k {
	case spec.KindInt8:
		return math.MinInt8, math.MaxInt8
	case spec.KindInt16:
		return math.MinInt16, math.MaxInt16
	case spec.KindUint16:
		return 0, math.MaxUint16
	case spec.KindInt32:
		return math.MinInt32, math.MaxInt32
	case spec.KindUint32:
		return 0, math.MaxUint32
	}
	return math.MinInt64, math.MaxInt64
}

// scalar writes a value of kind k from node n, or f's default when n is
// -1 (f is nil for array elements, which always have a node).
func (w *jsonWriter) scalar(f *spec.Field, k spec.Kind, n int32) {
	var num int64
	var data []byte
	null := false
	if n >= 0 {
		num, data, null = w.t.Num(n), w.t.Data(n), w.t.Nodes[n].Null()
	} else {
		switch k {
		case spec.KindFloat64:
			num = int64(math.Float64bits(f.DefaultFloat))
		case spec.KindUUID:
			data = f.DefaultUUID[:]
		case spec.KindString:
			data, null = []byte(f.DefaultString), f.DefaultNull
		case spec.KindBytes:
			null = f.DefaultNull
		default:
			num = f.DefaultInt
		}
	}
	if n >= 0 && w.t.Nodes[n].Flags()&tree.FlagSecret != 0 && !null {
		// A credential redacted by package secret.
		w.buf = AppendJSONString(w.buf, secret.Text(w.t.DataLen(n)))
		return
	}
	if null && (k == spec.KindString || k == spec.KindBytes) {
		if f == nil {
			w.fail("null array element: Kafka's array elements cannot be null")
			return
		}
		w.null(f)
		return
	}
	switch k {
	case spec.KindBool:
		if num != 0 {
			w.buf = append(w.buf, "true"...)
		} else {
			w.buf = append(w.buf, "false"...)
		}
	case spec.KindInt8, spec.KindInt16, spec.KindUint16, spec.KindInt32, spec.KindUint32, spec.KindInt64:
		if lo, hi := intRange(k); num < lo || num > hi {
			w.fail("value %d is out of range for %s (%d..%d)", num, k, lo, hi)
			return
		}
		w.buf = strconv.AppendInt(w.buf, num, 10)
	case spec.KindFloat64:
		w.buf = appendJavaDouble(w.buf, math.Float64frombits(uint64(num)))
	case spec.KindUUID:
		var u [16]byte
		if len(data) != 0 && len(data) != 16 {
			w.fail("a uuid is 16 bytes, have %d", len(data))
			return
		}
		copy(u[:], data)
		w.buf = append(w.buf, '"')
		w.buf = base64.RawURLEncoding.AppendEncode(w.buf, u[:])
		w.buf = append(w.buf, '"')
	case spec.KindString:
		w.buf = AppendJSONString(w.buf, data)
	case spec.KindBytes:
		w.buf = append(w.buf, '"')
		w.buf = base64.StdEncoding.AppendEncode(w.buf, data)
		w.buf = append(w.buf, '"')
	}
}

const hexDigits = "0123456789ABCDEF"

// AppendJSONString appends s as a JSON string, escaped as Jackson's
// generator escapes it: '"', '\\', the short escapes \b \t \n \f \r, other
// control characters as \u00XX (upper-case hex), everything else as UTF-8
// ('/', DEL, U+2028 and non-ASCII unescaped). Invalid UTF-8 becomes U+FFFD.
// (Go's strconv.Quote is Go syntax, and json.Marshal also escapes <, >, &
// and U+2028/9; neither matches.) It is the one JSON string writer of kwire:
// the converter JSON, the trees' JSON (package render) and the exchange
// records (package exchange) all use it.
func AppendJSONString[S ~[]byte | ~string](b []byte, s S) []byte {
	return append(AppendJSONChars(append(b, '"'), s), '"')
}

// AppendJSONChars appends s escaped as AppendJSONString escapes it, without
// the quotes, so that a long value may be written chunk by chunk: a chunk
// that ends inside a UTF-8 sequence has that sequence's bytes replaced by
// U+FFFD, so callers cut at rune boundaries.
func AppendJSONChars[S ~[]byte | ~string](b []byte, s S) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\t':
				b = append(b, '\\', 't')
			case '\n':
				b = append(b, '\\', 'n')
			case '\f':
				b = append(b, '\\', 'f')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		var rb [utf8.UTFMax]byte
		r, size := utf8.DecodeRune(rb[:copy(rb[:], s[i:min(i+utf8.UTFMax, len(s))])])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
			i++
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// appendJavaDouble appends d as Java's Double.toString (JDK 19+) writes it,
// which is what Jackson writes for a DoubleNode: the shortest decimal that
// reads back as d (two digits when a two-digit decimal is closer than the
// shortest one-digit one, so 4.9E-324 rather than 5E-324); plain
// notation with at least one fraction digit for 1e-3 <= |d| < 1e7
// ("100.0", "0.001"), else d.dddE±n ("1.0E10", "1.0E-4"). NaN and the
// infinities are written as the strings Jackson writes for them.
func appendJavaDouble(b []byte, d float64) []byte {
	switch {
	case math.IsNaN(d):
		return append(b, `"NaN"`...)
	case math.IsInf(d, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(d, -1):
		return append(b, `"-Infinity"`...)
	case d == 0:
		if math.Signbit(d) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	var tmp [32]byte
	digits, exp := decimalDigits(strconv.AppendFloat(tmp[:0], d, 'e', -1, 64))
	if len(digits) == 1 {
		var tmp2 [32]byte
		s2 := strconv.AppendFloat(tmp2[:0], d, 'e', 1, 64)
		if f, err := strconv.ParseFloat(string(s2), 64); err == nil && f == d {
			if d2, e2 := decimalDigits(s2); len(d2) == 2 && d2[1] != '0' {
				digits, exp = d2, e2
			}
		}
	}
	if d < 0 {
		b = append(b, '-')
	}
	if a := math.Abs(d); a >= 1e-3 && a < 1e7 {
		if exp < 0 {
			b = append(b, '0', '.')
			for k := exp + 1; k < 0; k++ {
				b = append(b, '0')
			}
			return append(b, digits...)
		}
		if len(digits) <= exp+1 {
			b = append(b, digits...)
			for k := len(digits); k <= exp; k++ {
				b = append(b, '0')
			}
			return append(b, '.', '0')
		}
		b = append(b, digits[:exp+1]...)
		b = append(b, '.')
		return append(b, digits[exp+1:]...)
	}
	b = append(b, digits[0], '.')
	if len(digits) > 1 {
		b = append(b, digits[1:]...)
	} else {
		b = append(b, '0')
	}
	b = append(b, 'E')
	return strconv.AppendInt(b, int64(exp), 10)
}

// decimalDigits splits strconv's 'e' format ("-1.2345e+06") into the
// significant digits ("12345") and the decimal exponent (6).
func decimalDigits(s []byte) ([]byte, int) {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	e := bytes.IndexByte(s, 'e')
	mant, exp := s[:e], s[e+1:]
	x, _ := strconv.Atoi(string(exp))
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	return digits, x
}

// ---- reading ----

// jsonKind is the type of a JSON value.
type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonFalse
	jsonTrue
	jsonNumber
	jsonString
	jsonObject
	jsonArray
)

// jsonVal is one JSON value of a document tokenized into a flat pre-order
// list: the children of an object or array follow it, up to end.
type jsonVal struct {
	off int32 // byte offset where the value starts
	end int32 // index just past the value's subtree
	idx int32 // index in a parent array
	// text is a string's contents or a number's text: jsonVals.text
	// [text, text+textLen), or jsonVals.long[text] when textLen is -1.
	text, textLen int32
	key           uint16 // key in a parent object: jsonVals.keys[key-1]; 0 for none
	kind          jsonKind
}

// jsonVals are the values of a JSON text in order, 24 bytes each, in
// chunks of jsonChunk: grown without copying (a 13.7 MB Produce's 1.2
// million values, as 64-byte values doubled, took 150 MB at once); the
// texts of strings and numbers are in one array, the object keys in a
// table of the distinct ones.
type jsonVals struct {
	chunks [][]jsonVal
	n      int32
	text   []byte
	long   []string
	keys   []string
	keyIdx map[string]uint16
}

const jsonChunk = 1 << 12

// maxJSONKeys bounds the distinct object keys of a JSON text (a Kafka
// message has a few dozen).
const maxJSONKeys = 1<<16 - 1

// at is value i.
func (vs *jsonVals) at(i int32) *jsonVal { return &vs.chunks[i/jsonChunk][i%jsonChunk] }

// len is the number of values.
func (vs *jsonVals) len() int32 { return vs.n }

// add appends v.
func (vs *jsonVals) add(v jsonVal) {
	if vs.n%jsonChunk == 0 {
		vs.chunks = append(vs.chunks, make([]jsonVal, 0, jsonChunk))
	}
	c := &vs.chunks[len(vs.chunks)-1]
	*c = append(*c, v)
	vs.n++
}

// textOf is value i's text (a string's contents, a number's digits): a
// view of the texts' array, which is not written again once tokenized.
func (vs *jsonVals) textOf(i int32) string {
	v := vs.at(i)
	switch {
	case v.textLen < 0:
		return vs.long[v.text]
	case v.textLen == 0:
		return ""
	}
	return unsafe.String(&vs.text[v.text], int(v.textLen))
}

// keyOf is value i's key in its parent object, "" for none.
func (vs *jsonVals) keyOf(i int32) string {
	if k := vs.at(i).key; k > 0 {
		return vs.keys[k-1]
	}
	return ""
}

// keyIndex is key's index in the keys' table plus one, added when new;
// false when the table is full.
func (vs *jsonVals) keyIndex(key string) (uint16, bool) {
	if k, ok := vs.keyIdx[key]; ok {
		return k, true
	}
	if len(vs.keys) >= maxJSONKeys {
		return 0, false
	}
	if vs.keyIdx == nil {
		vs.keyIdx = map[string]uint16{}
	}
	vs.keys = append(vs.keys, key)
	vs.keyIdx[key] = uint16(len(vs.keys))
	return uint16(len(vs.keys)), true
}

// setText stores s as v's text: in the texts' array, or, when long, as
// it is (textLen -1, text its index in long).
func (vs *jsonVals) setText(v *jsonVal, s string) {
	if len(s) > longText {
		v.text, v.textLen = int32(len(vs.long)), -1
		vs.long = append(vs.long, s)
		return
	}
	v.text, v.textLen = int32(len(vs.text)), int32(len(s))
	vs.text = append(vs.text, s...)
}

// longText is the length past which a text is kept as the string the
// tokenizer made, not copied (a records field's base64 of 71 MB was held
// twice).
const longText = 4 << 10

// checkJSONText refuses text that a string field could not carry
// faithfully: bytes that are not UTF-8 (Go's decoder and Kafka's would both
// replace them, differently) and \u escapes of lone UTF-16 surrogates
// (Kafka's encoder writes them as '?'). Nothing is replaced silently.
func checkJSONText(data []byte) *JSONError {
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return &JSONError{Path: "$", Msg: fmt.Sprintf("the JSON is not valid UTF-8 at byte %d (0x%02x)", off, data[off]), Offset: off}
	}
	in := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			in = !in
		case in && c == '\\' && i+1 < len(data):
			if data[i+1] != 'u' || i+5 >= len(data) {
				i++
				continue
			}
			u, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 16)
			if err != nil {
				i++
				continue
			}
			switch {
			case u >= 0xd800 && u < 0xdc00:
				if i+11 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
					if lo, err := strconv.ParseUint(string(data[i+8:i+12]), 16, 16); err == nil && lo >= 0xdc00 && lo < 0xe000 {
						i += 11
						continue
					}
				}
				fallthrough
			case u >= 0xdc00 && u < 0xe000:
				return &JSONError{Path: "$", Msg: fmt.Sprintf("a lone UTF-16 surrogate \\u%04x at byte %d: it is no character, and Kafka would write it as '?'", u, i), Offset: i}
			}
			i += 5
		}
	}
	return nil
}

// FromJSON reads JSON in that format into a value tree for m at v (root
// kind Body for messages, Header for header specs), as Kafka's
// converter.read does but stricter: mandatory fields (present and not
// tagged in v) must be there; missing non-mandatory ones take their
// default; keys of fields that exist in other versions are accepted and
// ignored exactly like Kafka (see below) — but a key that names no field
// of the struct at any version is an error (Kafka ignores it; kwire says
// so, since nothing may be dropped silently), except
// "_unknownTaggedFields" (read back as UnknownTag nodes) and
// "<records>SizeInBytes".
//
// The value tree lists the fields of v in spec order, whatever the key
// order; a tagged field is in it only when its key is given (absent, it is
// at its default, as on the wire). A key of a field that exists only in
// other versions is parsed and type-checked at v as Kafka's reader does
// (its generated code reads every field it knows, whatever the version) and
// is then left out of the tree, which holds the fields of v alone. When such
// a field is not ignorable and its value is not the default, FromJSON fails:
// Kafka's reader would keep the value and its writer would then throw
// UnsupportedVersionException, so dropping it would lose it silently.
//
// Errors (*JSONError{Path, Msg}) name the JSON path
// ($.topics[0].partitions[0].lastOffset) and what was expected: malformed
// JSON (with its byte offset), an unknown or duplicate key (Jackson would
// keep the last), a missing mandatory field, the wrong JSON type, an
// integer out of range for int8/int16/uint16/int32/uint32/int64 (never
// wrapped), a floating-point number where an integer is needed or an
// integer where a float64 is (Kafka's reader rejects 1 for float64; write
// 1.0), null where the field is not nullable at v, bad base64, a uuid that
// is not 22 base64url characters of 16 bytes, a string over 32767 UTF-8
// bytes, and "<records>SizeInBytes" without the records themselves. As an
// extension float64 also accepts the strings "NaN", "Infinity" and
// "-Infinity", which is how Jackson (and ToJSON) writes those values.
func FromJSON(data []byte, m *spec.Message, v int16) (*tree.Tree, error) {
	t, _, err := FromJSONDropped(data, m, v)
	return t, err
}

// FromJSONDropped is FromJSON that also returns the JSON paths of the
// ignorable fields whose value is not the default but which do not exist in
// version v: Kafka's converter and writer drop them without a word; kwire
// drops them too (the bytes are Kafka's) and tells the caller.
func FromJSONDropped(data []byte, m *spec.Message, v int16) (*tree.Tree, []string, error) {
	if !m.ValidVersions.Contains(v) {
		return nil, nil, &VersionError{Message: m.Name, Version: v, Valid: m.ValidVersions}
	}
	if jerr := checkJSONText(data); jerr != nil {
		return nil, nil, jerr
	}
	vals, jerr := tokenizeJSON(data)
	if jerr != nil {
		return nil, nil, jerr
	}
	t := &tree.Tree{Message: m, Version: v, HeaderVersion: -1, Nodes: make([]tree.Node, 0, vals.len()+1)}
	r := &jsonReader{vals: vals, v: v, flexible: m.Flexible(v), b: tree.Builder{T: t}}
	r.def.v = t
	if vals.at(0).kind != jsonObject {
		return nil, nil, r.typeErr(0, "an object ("+m.Name+")")
	}
	kind := tree.Body
	if m.Type == spec.Header {
		kind = tree.Header
	}
	r.b.Open(tree.Node{S: partShape(kind, m.Root, m, v)})
	if err := r.fields(m.Root, 0); err != nil {
		return nil, nil, err
	}
	r.b.Close(0)
	return t, r.dropped, nil
}

// tokenizeJSON reads one JSON value with encoding/json's Decoder into a
// flat list (vals[0] is the root), rejecting malformed JSON and anything
// after the value.
func tokenizeJSON(data []byte) (*jsonVals, *JSONError) {
	if len(data) > math.MaxInt32 {
		return nil, &JSONError{Path: "$", Msg: fmt.Sprintf("%s of JSON: more than a Kafka message can take (2 GiB)", wire.Bytes(len(data))), Offset: -1}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type open struct {
		i       int32 // the container's index in vals
		n       int   // values so far
		obj     bool
		key     uint16 // an object's pending key (jsonVal.key)
		haveKey bool
	}
	var (
		vals  = &jsonVals{}
		stack []open
	)
	malformed := func(off int, msg string) *JSONError {
		// The path of the value being read when the error came.
		var p tree.Path
		for k, o := range stack {
			if k > 0 {
				if stack[k-1].obj {
					p.PushKey(vals.keyOf(o.i))
				} else {
					p.PushIndex(int(vals.at(o.i).idx))
				}
			}
			if k == len(stack)-1 {
				if o.obj && o.haveKey {
					p.PushKey(vals.keys[o.key-1])
				} else if !o.obj {
					p.PushIndex(o.n)
				}
			}
		}
		return &JSONError{Path: jsonPath(p), Msg: fmt.Sprintf("malformed JSON at byte %d: %s", off, msg), Offset: off}
	}
	add := func(v jsonVal) {
		v.end = vals.len() + 1
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.obj {
				v.key, top.haveKey = top.key, false
			} else {
				v.idx = int32(top.n)
			}
			top.n++
		}
		vals.add(v)
	}
	for {
		off := int(dec.InputOffset())
		for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		off32 := int32(off)
		tok, err := dec.Token()
		if err == io.EOF && len(stack) == 0 && vals.len() > 0 {
			return vals, nil
		}
		if err != nil {
			var se *json.SyntaxError
			switch {
			case errors.As(err, &se):
				return nil, malformed(int(se.Offset), se.Error())
			case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
				return nil, malformed(len(data), "unexpected end of input")
			default:
				return nil, malformed(off, err.Error())
			}
		}
		if len(stack) == 0 && vals.len() > 0 {
			return nil, malformed(off, "unexpected data after the top-level value")
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				if len(stack) >= MaxJSONDepth {
					e := malformed(off, "")
					e.Msg = fmt.Sprintf("objects and arrays nested deeper than %d levels at byte %d (Kafka's messages nest a few)", MaxJSONDepth, off)
					return nil, e
				}
				k := jsonArray
				if tok == '{' {
					k = jsonObject
				}
				add(jsonVal{kind: k, off: off32})
				stack = append(stack, open{i: vals.len() - 1, obj: tok == '{'})
			default:
				vals.at(stack[len(stack)-1].i).end = vals.len()
				stack = stack[:len(stack)-1]
			}
		case string:
			if top := len(stack) - 1; top >= 0 && stack[top].obj && !stack[top].haveKey {
				k, ok := vals.keyIndex(tok)
				if !ok {
					return nil, malformed(off, fmt.Sprintf("more than %d distinct object keys (a Kafka message has a few dozen)", maxJSONKeys))
				}
				stack[top].key, stack[top].haveKey = k, true
				continue
			}
			v := jsonVal{kind: jsonString, off: off32}
			vals.setText(&v, tok)
			add(v)
		case json.Number:
			v := jsonVal{kind: jsonNumber, off: off32}
			vals.setText(&v, string(tok))
			add(v)
		case bool:
			k := jsonFalse
			if tok {
				k = jsonTrue
			}
			add(jsonVal{kind: k, off: off32})
		case nil:
			add(jsonVal{kind: jsonNull, off: off32})
		}
	}
}

// jsonReader builds a value tree from tokenized JSON.
type jsonReader struct {
	vals     *jsonVals
	v        int16
	flexible bool
	b        tree.Builder
	path     tree.Path
	def      encoder // for isDefault
	// other is > 0 while reading the value of a field that is not in the
	// version (see otherVersion).
	other int
	// dropped lists the JSON paths of ignorable fields with a non-default
	// value that do not exist in the version (Kafka drops them silently).
	dropped []string
}

func (r *jsonReader) push(key string, lower bool) {
	if lower {
		r.path.Push(key)
	} else {
		r.path.PushKey(key)
	}
}
func (r *jsonReader) pushIdx(i int) { r.path.PushIndex(i) }
func (r *jsonReader) pop()          { r.path.Pop() }

// errAt is an error about JSON value c at the current path.
func (r *jsonReader) errAt(c int32, format string, args ...any) *JSONError {
	return &JSONError{Path: jsonPath(r.path), Msg: fmt.Sprintf(format, args...), Offset: int(r.vals.at(c).off)}
}

// describe says what JSON value c is, for error messages.
func (r *jsonReader) describe(c int32) string {
	v := r.vals.at(c)
	switch v.kind {
	case jsonNull:
		return "null"
	case jsonTrue:
		return "true"
	case jsonFalse:
		return "false"
	case jsonNumber:
		return "the number " + r.vals.textOf(c)
	case jsonString:
		s := r.vals.textOf(c)
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return "the string " + string(AppendJSONString(nil, s))
	case jsonObject:
		return "an object"
	}
	return "an array"
}

func (r *jsonReader) typeErr(c int32, want string) *JSONError {
	return r.errAt(c, "expected %s, got %s", want, r.describe(c))
}

func (r *jsonReader) nullErr(c int32) *JSONError {
	return r.errAt(c, "null, but the field is not nullable in version %d", r.v)
}

// members calls fn for each member of object o.
func (r *jsonReader) members(o int32, fn func(c int32) error) error {
	for c := o + 1; c < r.vals.at(o).end; c = r.vals.at(c).end {
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

// fieldByKey returns the index of st's field whose key is key, or -1.
func fieldByKey(st *spec.Struct, key string) int {
	for k, f := range st.Fields {
		if isKey(key, f.Name) {
			return k
		}
	}
	return -1
}

// fields reads object o as struct st into the open group.
func (r *jsonReader) fields(st *spec.Struct, o int32) error {
	slots := make([]int32, len(st.Fields))
	for k := range slots {
		slots[k] = -1
	}
	var sizes []int32 // "<records>SizeInBytes" members, by field
	unknown := int32(-1)
	err := r.members(o, func(c int32) error {
		key := r.vals.keyOf(c)
		dup := func() error {
			r.push(key, false)
			defer r.pop()
			return r.errAt(c, "duplicate key %s (Kafka's reader would keep the last one)", cutMiddle(string(AppendJSONString(nil, key)), MaxJSONErrorPath))
		}
		if key == unknownTagsKey {
			if unknown >= 0 {
				return dup()
			}
			unknown = c
			return nil
		}
		if k := fieldByKey(st, key); k >= 0 {
			if slots[k] >= 0 {
				return dup()
			}
			slots[k] = c
			return nil
		}
		if name, ok := strings.CutSuffix(key, "SizeInBytes"); ok {
			if k := fieldByKey(st, name); k >= 0 && st.Fields[k].Type.Kind == spec.KindRecords {
				if sizes == nil {
					sizes = make([]int32, len(st.Fields))
					for j := range sizes {
						sizes[j] = -1
					}
				}
				if sizes[k] >= 0 {
					return dup()
				}
				sizes[k] = c
				return nil
			}
		}
		keys := make([]string, len(st.Fields))
		for k, f := range st.Fields {
			keys[k] = lowerFirst(f.Name)
		}
		msg := fmt.Sprintf("unknown field: %s has no field with this key in any version", st.Name)
		if s := spec.Suggest(key, keys); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		r.push(key, false)
		defer r.pop()
		return r.errAt(c, "%s", msg)
	})
	if err != nil {
		return err
	}
	for k, f := range st.Fields {
		c := slots[k]
		r.push(f.Name, true)
		var err error
		switch {
		case !f.Versions.Contains(r.v):
			switch {
			case c < 0:
			case r.other > 0:
				// Inside a field of other versions: kept until that
				// field's default check, then dropped with it.
				err = r.value(f, c, !f.NullableVersions.Empty())
			default:
				err = r.otherVersion(f, c)
			}
		case c < 0 && f.TaggedIn(r.v):
			// Absent: the default, as on the wire.
		case c < 0 && sizes != nil && sizes[k] >= 0:
			err = r.errAt(sizes[k], "missing: only %sSizeInBytes is given (Kafka's serializeRecords=false); the records' bytes are not in the JSON", lowerFirst(f.Name))
		case c < 0:
			e := r.errAt(o, "missing: the field is mandatory in version %d", r.v)
			e.Missing = f
			err = e
		default:
			err = r.value(f, c, f.NullableIn(r.v))
		}
		if err == nil && sizes != nil && sizes[k] >= 0 && (c >= 0 || !f.Versions.Contains(r.v)) {
			err = r.recordsSize(f, c >= 0 && f.Versions.Contains(r.v), sizes[k])
		}
		r.pop()
		if err != nil {
			return err
		}
	}
	if unknown >= 0 {
		return r.unknownTags(st, unknown)
	}
	return nil
}

// otherVersion checks the value c of field f, which does not exist in the
// version being read, and leaves it out of the tree.
func (r *jsonReader) otherVersion(f *spec.Field, c int32) error {
	t := r.b.T
	mark, bmark := int32(len(t.Nodes)), len(t.Bytes)
	r.other++
	defer func() { r.other-- }()
	if err := r.value(f, c, !f.NullableVersions.Empty()); err != nil {
		return err
	}
	if !r.def.isDefault(f, mark) {
		if !f.Ignorable {
			return r.errAt(c, "the field is not in version %d and is not ignorable, so its non-default value cannot be written at this version (Kafka's reader accepts it, its writer then throws UnsupportedVersionException)", r.v)
		}
		r.dropped = append(r.dropped, r.errAt(c, "").Path)
	}
	r.b.Truncate(mark)
	t.Bytes = t.Bytes[:bmark]
	return nil
}

// recordsSize checks a "<records>SizeInBytes" member s of records field f:
// an int32 that, when built is set (the records were given and are in the
// tree as its last leaf), matches their size.
func (r *jsonReader) recordsSize(f *spec.Field, built bool, s int32) error {
	ri := int32(len(r.b.T.Nodes) - 1)
	n := r.b.T.Nodes[ri]
	r.pop()
	r.push(lowerFirst(f.Name)+"SizeInBytes", false)
	if r.vals.at(s).kind != jsonNumber {
		return r.typeErr(s, "an integer (int32)")
	}
	size, err := r.integer(spec.KindInt32, s)
	switch {
	case err != nil:
		return err
	case !built:
		return nil
	case n.Null():
		return r.errAt(s, "%d, but the records are null", size)
	case size != int64(r.b.T.DataLen(ri)):
		return r.errAt(s, "%d, but the records hold %s", size, wire.Bytes(r.b.T.DataLen(ri)))
	}
	return nil
}

// value reads JSON value c as field f into the open group.
func (r *jsonReader) value(f *spec.Field, c int32, nullable bool) error {
	jv := r.vals.at(c)
	ref := tree.FieldRef(f)
	if jv.kind == jsonNull {
		var k tree.Kind
		switch f.Type.Kind {
		case spec.KindStruct:
			k = tree.Struct
		case spec.KindArray:
			k = tree.Array
		case spec.KindRecords:
			k = tree.Records
		case spec.KindString, spec.KindBytes:
			k = tree.Field
		}
		if !nullable || k == 0 {
			return r.nullErr(c)
		}
		r.b.LeafData(tree.Node{S: tree.NewShape(k, tree.WireNone, ref, 0).With(tree.FlagNull)}, nil)
		return nil
	}
	switch f.Type.Kind {
	case spec.KindStruct:
		if jv.kind != jsonObject {
			return r.typeErr(c, "an object ("+f.Type.Struct.Name+")")
		}
		r.b.Open(tree.Node{S: tree.NewShape(tree.Struct, tree.WireNone, ref, 0)})
		if err := r.fields(f.Type.Struct, c); err != nil {
			return err
		}
		r.b.Close(0)
	case spec.KindArray:
		if jv.kind != jsonArray {
			return r.typeErr(c, "an array")
		}
		r.b.Open(tree.Node{S: tree.NewShape(tree.Array, tree.WireNone, ref, 0)})
		count := 0
		for e := c + 1; e < jv.end; e = r.vals.at(e).end {
			r.pushIdx(count)
			if f.Type.Elem == spec.KindStruct {
				if r.vals.at(e).kind != jsonObject {
					return r.typeErr(e, "an object ("+f.Type.Struct.Name+")")
				}
				r.b.Open(tree.Node{S: tree.NewShape(tree.Element, tree.WireNone, tree.StructRef(f.Type.Struct), 0)})
				if err := r.fields(f.Type.Struct, e); err != nil {
					return err
				}
				r.b.Close(0)
			} else {
				if r.vals.at(e).kind == jsonNull {
					return r.errAt(e, "null, but array elements cannot be null")
				}
				num, data, err := r.scalar(f.Type.Elem, e)
				if err != nil {
					return err
				}
				valueLeaf(&r.b, tree.Node{S: shapeValueElement}, f.Type.Elem, num, data)
			}
			r.pop()
			count++
		}
		r.b.Close(0)
	case spec.KindRecords:
		if jv.kind != jsonString {
			return r.typeErr(c, "records as a base64 string")
		}
		data, err := r.base64(c)
		if err != nil {
			return err
		}
		r.b.LeafData(tree.Node{S: tree.NewShape(tree.Records, tree.WireNone, ref, 0)}, data)
	default:
		num, data, err := r.scalar(f.Type.Kind, c)
		if err != nil {
			return err
		}
		valueLeaf(&r.b, tree.Node{S: tree.NewShape(tree.Field, tree.WireNone, ref, 0)}, f.Type.Kind, num, data)
	}
	return nil
}

// scalar reads non-null JSON value c as a value of kind k: the leaf's
// number or its contents.
func (r *jsonReader) scalar(k spec.Kind, c int32) (int64, []byte, error) {
	jv := r.vals.at(c)
	switch k {
	case spec.KindBool:
		switch jv.kind {
		case jsonTrue:
			return 1, nil, nil
		case jsonFalse:
			return 0, nil, nil
		}
		return 0, nil, r.typeErr(c, "true or false (bool)")
	case spec.KindInt8, spec.KindInt16, spec.KindUint16, spec.KindInt32, spec.KindUint32, spec.KindInt64:
		n, err := r.integer(k, c)
		return n, nil, err
	case spec.KindFloat64:
		d, err := r.float(c)
		return int64(math.Float64bits(d)), nil, err
	case spec.KindUUID:
		if jv.kind != jsonString {
			return 0, nil, r.typeErr(c, "a uuid (a string of 22 base64url characters)")
		}
		if len(r.vals.textOf(c)) != 22 {
			return 0, nil, r.errAt(c, "expected a uuid: 22 base64url characters without padding, got %s (%d characters)", r.describe(c)[len("the string "):], len(r.vals.textOf(c)))
		}
		u, err := base64.RawURLEncoding.Strict().DecodeString(r.vals.textOf(c))
		if err != nil || len(u) != 16 || strings.ContainsAny(r.vals.textOf(c), "\r\n") {
			je := r.errAt(c, "expected a uuid: %s is not 22 base64url characters of 16 bytes (%v)", r.describe(c)[len("the string "):], err)
			je.Err = err
			return 0, nil, je
		}
		return 0, u, nil
	case spec.KindString:
		if jv.kind != jsonString {
			return 0, nil, r.typeErr(c, "a string")
		}
		if len(r.vals.textOf(c)) > maxString {
			return 0, nil, r.errAt(c, "string of %d UTF-8 bytes is longer than Kafka's limit of %d", len(r.vals.textOf(c)), maxString)
		}
		return 0, []byte(r.vals.textOf(c)), nil
	case spec.KindBytes:
		if jv.kind != jsonString {
			return 0, nil, r.typeErr(c, "bytes as a base64 string")
		}
		data, err := r.base64(c)
		return 0, data, err
	}
	return 0, nil, r.errAt(c, "a %s cannot be read as a scalar", k)
}

// base64 decodes JSON string c as standard base64 with padding (Jackson's
// default variant, which Kafka's jsonNodeToBinary uses).
func (r *jsonReader) base64(c int32) ([]byte, error) {
	s := r.vals.textOf(c)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return nil, r.errAt(c, "bad base64 (standard alphabet, padded): line break at input byte %d", i)
	}
	data, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		je := r.errAt(c, "bad base64 (standard alphabet, padded): %v", err)
		je.Err = err
		return nil, je
	}
	return data, nil
}

// integer reads JSON value c as an integer of kind k, refusing fractions,
// exponents and values out of the kind's range. (Kafka's
// MessageUtil.jsonNodeToByte maps 128..256 to 0..128 by subtracting 128; a
// quirk kwire does not copy: such values are out of range for int8.)
func (r *jsonReader) integer(k spec.Kind, c int32) (int64, error) {
	jv := r.vals.at(c)
	if jv.kind != jsonNumber {
		return 0, r.typeErr(c, "an integer ("+k.String()+")")
	}
	if strings.ContainsAny(r.vals.textOf(c), ".eE") {
		return 0, r.errAt(c, "expected an integer (%s), got the floating-point number %s", k, r.vals.textOf(c))
	}
	lo, hi := intRange(k)
	n, err := strconv.ParseInt(r.vals.textOf(c), 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, r.errAt(c, "%s is out of range for %s (%d..%d)", r.vals.textOf(c), k, lo, hi)
	}
	return n, nil
}

// javaNaN is the bits of Java's canonical Double.NaN.
var javaNaN = math.Float64frombits(0x7ff8000000000000)

// float reads JSON value c as a float64: a number written with a '.' or an
// exponent, as Kafka's reader demands (isFloatingPointNumber), or one of
// the strings Jackson writes for NaN and the infinities.
func (r *jsonReader) float(c int32) (float64, error) {
	jv := r.vals.at(c)
	switch jv.kind {
	case jsonString:
		switch r.vals.textOf(c) {
		case "NaN":
			// Java's Double.NaN (0x7ff8000000000000), not Go's math.NaN()
			// (0x7ff8000000000001): the bytes must be what Kafka writes.
			return javaNaN, nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
	case jsonNumber:
		if !strings.ContainsAny(r.vals.textOf(c), ".eE") {
			return 0, r.errAt(c, "expected a floating-point number (float64) such as %s.0, got the integer %s (Kafka's reader rejects integers here)", r.vals.textOf(c), r.vals.textOf(c))
		}
		d, err := strconv.ParseFloat(r.vals.textOf(c), 64)
		if err != nil {
			return 0, r.errAt(c, "%s is out of range for float64", r.vals.textOf(c))
		}
		return d, nil
	}
	return 0, r.typeErr(c, "a floating-point number (float64)")
}

// unknownTags reads "_unknownTaggedFields" (value u) of struct st as
// UnknownTag leaves.
func (r *jsonReader) unknownTags(st *spec.Struct, u int32) error {
	r.push(unknownTagsKey, false)
	defer r.pop()
	const want = `an array of {"tag":N,"data":"<base64>"} objects`
	if r.vals.at(u).kind != jsonArray {
		return r.typeErr(u, want)
	}
	seen := map[int64]bool{}
	i := 0
	for e := u + 1; e < r.vals.at(u).end; e = r.vals.at(e).end {
		r.pushIdx(i)
		if !r.flexible {
			return r.errAt(e, "unknown tagged fields exist only in flexible versions; version %d is not flexible", r.v)
		}
		if r.vals.at(e).kind != jsonObject {
			return r.typeErr(e, want)
		}
		tag, data := int32(-1), int32(-1)
		err := r.members(e, func(c int32) error {
			key := r.vals.keyOf(c)
			r.push(key, false)
			defer r.pop()
			switch key {
			case "tag", "data":
				p := &tag
				if key == "data" {
					p = &data
				}
				if *p >= 0 {
					return r.errAt(c, "duplicate key %q", key)
				}
				*p = c
				return nil
			}
			return r.errAt(c, `unknown field: an unknown tagged field has only "tag" and "data"`)
		})
		if err != nil {
			return err
		}
		for _, k := range [2]struct {
			name string
			c    int32
		}{{"tag", tag}, {"data", data}} {
			if k.c < 0 {
				r.push(k.name, false)
				return r.errAt(e, "missing: an unknown tagged field needs %q", k.name)
			}
		}
		r.push("tag", false)
		n, err := r.integer(spec.KindUint32, tag)
		if err != nil {
			return err
		}
		for _, f := range st.Fields {
			if f.HasTag && int64(f.Tag) == n {
				return r.errAt(tag, "tag %d is the tag of %s, so it is not unknown", n, lowerFirst(f.Name))
			}
		}
		if seen[n] {
			return r.errAt(tag, "tag %d is given twice", n)
		}
		seen[n] = true
		r.pop()
		r.push("data", false)
		if r.vals.at(data).kind != jsonString {
			return r.typeErr(data, "a base64 string")
		}
		payload, err := r.base64(data)
		if err != nil {
			return err
		}
		r.pop()
		r.b.LeafTag(uint32(n), payload)
		r.pop()
		i++
	}
	return nil
}
