package render

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/kwire/kwire/tree"
)

// Values chooses how the views show the bytes of record keys, record
// values and record header values (of RecordBatch v2 records and of legacy
// messages). Header keys, which Kafka defines as strings, and every other
// bytes field keep their usual form.
type Values uint8

const (
	// ValuesAuto, the default, shows printable UTF-8 text quoted and
	// anything else as hex ("0x…"), as the views always have.
	ValuesAuto Values = iota
	// ValuesUTF8 shows the bytes quoted as text whatever they hold; bytes
	// that are not UTF-8 are escaped as \xNN (in JSON, replaced by U+FFFD).
	ValuesUTF8
	// ValuesHex shows the bytes as hex ("0x…"; "empty" for none).
	ValuesHex
	// ValuesBase64 shows the bytes in standard base64 ("base64:…" in
	// the text views; "empty" for none).
	ValuesBase64
	// ValuesJSON shows bytes that parse as one JSON value as that value:
	// compacted on one line in the text views, embedded (and indented) in
	// WriteJSONWith's output. Other bytes are shown as ValuesAuto shows
	// them, marked "not JSON".
	ValuesJSON
)

var valuesNames = [...]string{"auto", "utf8", "hex", "base64", "json"}

// String is the name ParseValues reads: "auto", "utf8", "hex", "base64"
// or "json".
func (v Values) String() string {
	if int(v) < len(valuesNames) {
		return valuesNames[v]
	}
	return "Values(" + strconv.Itoa(int(v)) + ")"
}

// ParseValues reads a Values by its name ("" is auto).
func ParseValues(s string) (Values, error) {
	if s == "" {
		return ValuesAuto, nil
	}
	for k, n := range valuesNames {
		if n == s {
			return Values(k), nil
		}
	}
	return ValuesAuto, fmt.Errorf("unknown values format %q (want auto, utf8, hex, base64 or json)", s)
}

// NodeValueWith is NodeValue with the record bytes shown as o.Values
// chooses.
func NodeValueWith(t *tree.Tree, i int32, o Options) string {
	if !valid(t, i) {
		return ""
	}
	return string(appendValueText(nil, t, i, ctxOf(t, i), o.Values))
}

// ValueWith is NodeValueWith(x.Tree(), i, o).
func (x *Index) ValueWith(i int32, o Options) string {
	if !x.valid(i) {
		return ""
	}
	return string(appendValueText(nil, x.t, i, x.nodes[i].ctx, o.Values))
}

// recordBytes reports whether node i holds the bytes of a record key,
// value or header value, which Options.Values applies to.
func recordBytes(t *tree.Tree, i int32) bool {
	n := &t.Nodes[i]
	if n.Kind() != tree.BatchField || n.Null() || (n.Wire() != tree.WireVarBytes && n.Wire() != tree.WireBytes) {
		return false
	}
	switch t.Name(i) {
	case "key", "value", "headerValue":
		return true
	}
	return false
}

// maxShownJSON bounds how many bytes of a JSON value a row shows.
const maxShownJSON = 256

// appendRecordValueText appends a record key, value or header value d in
// the form v chooses, then its length note: what (" (varint len=", "
// (int32 len=") and n, with ", not JSON" when v is ValuesJSON and d is not
// JSON.
func appendRecordValueText(b, d []byte, v Values, what string, n int) []byte {
	notJSON := false
	switch v {
	case ValuesUTF8:
		b = appendQuoteText(b, d)
	case ValuesHex:
		b = appendHexText(b, d)
	case ValuesBase64:
		b = appendBase64Text(b, d)
	case ValuesJSON:
		if len(d) > 0 && json.Valid(d) {
			b = appendCompactJSON(b, d, maxShownJSON)
			break
		}
		notJSON = true
		b = appendRecordBytesText(b, d)
	default:
		b = appendRecordBytesText(b, d)
	}
	b = append(b, what...)
	b = strconv.AppendInt(b, int64(n), 10)
	if notJSON {
		b = append(b, ", not JSON"...)
	}
	return append(b, ')')
}

// appendBase64Text appends "base64:" and the standard base64 of up to
// maxShownString characters' worth of d (48 bytes), then "…" when there
// is more; "empty" for none.
func appendBase64Text(b, d []byte) []byte {
	if len(d) == 0 {
		return append(b, "empty"...)
	}
	b = append(b, "base64:"...)
	const most = maxShownString / 4 * 3
	if len(d) <= most {
		return base64.StdEncoding.AppendEncode(b, d)
	}
	return append(base64.StdEncoding.AppendEncode(b, d[:most]), "…"...)
}

// appendCompactJSON appends the valid JSON d without the white space
// between its tokens, cut after most bytes (at a rune boundary) with "…".
func appendCompactJSON(b, d []byte, most int) []byte {
	start := len(b)
	inString, escaped := false, false
	for k := 0; k < len(d); k++ {
		ch := d[k]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
			}
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			continue
		case ch == '"':
			inString = true
		}
		if len(b)-start >= most && utf8.RuneStart(ch) {
			return append(b, "…"...)
		}
		b = append(b, ch)
	}
	return b
}

// recordValue writes the JSON value of record bytes d, the "value" of a
// node whose keys are at depth, as j.values chooses, and returns the name
// of the form it used for the "value_encoding" key.
func (j *jsonWriter) recordValue(d []byte, depth int) string {
	switch j.values {
	case ValuesUTF8:
		j.b = append(j.b, '"')
		j.jsonChars(d)
		j.b = append(j.b, '"')
		return "utf8"
	case ValuesBase64:
		j.b = append(j.b, '"')
		j.base64Chars(d)
		j.b = append(j.b, '"')
		return "base64"
	case ValuesJSON:
		if len(d) > 0 && json.Valid(d) {
			j.indented.Reset()
			// d is valid, so Indent cannot fail; it keeps trailing white
			// space, which is dropped first.
			end := len(d)
			for end > 0 && (d[end-1] == ' ' || d[end-1] == '\t' || d[end-1] == '\n' || d[end-1] == '\r') {
				end--
			}
			prefix := spaces
			for len(prefix) < 2*depth {
				prefix += spaces
			}
			if err := json.Indent(&j.indented, d[:end], prefix[:2*depth], "  "); err == nil {
				j.raw(j.indented.Bytes())
				return "json"
			}
		}
		// Not JSON: as auto shows it, with the encoding saying which.
		if len(d) > 0 && printable(d) {
			j.b = append(j.b, '"')
			j.jsonChars(d)
			j.b = append(j.b, '"')
			return "utf8"
		}
	}
	j.b = append(j.b, '"')
	j.hexChars(d)
	j.b = append(j.b, '"')
	return "hex"
}

// base64Chars appends the standard base64 of d, chunk by chunk (see
// jsonChars); chunk is a multiple of 3, so the pieces join up.
func (s *sink) base64Chars(d []byte) {
	const step = chunk / 3 * 3
	for len(d) > step {
		s.b = base64.StdEncoding.AppendEncode(s.b, d[:step])
		d = d[step:]
		s.spill()
	}
	s.b = base64.StdEncoding.AppendEncode(s.b, d)
}
