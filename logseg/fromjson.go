package logseg

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// FromJSON reads data, the JSON of message m at version v, into a value
// tree for cd.EncodeRecord, as codec.FromJSONDropped does (its dropped
// paths too), and also in the forms Read's records show an internal
// topic's value in (Record.Data, the "data" of `kwire log --format json`),
// so that what a record's line shows encodes back to the record's bytes:
//
//   - in a GroupMetadataValue, a member's "subscription" or "assignment"
//     given as {"version":N,"data":{…}}: the converter JSON of the
//     ConsumerProtocolSubscription or ConsumerProtocolAssignment at version
//     N, whose bytes are the int16 N then that message, as Kafka's
//     ConsumerProtocol writes them (base64 bytes are read as they are);
//   - in a TransactionLogValue, "transactionStatus" given by its state's
//     name ("CompleteCommit", records.TransactionStateName) as well as by
//     its id.
//
// Errors are codec's: *codec.JSONError with the JSON path
// ("$.members[0].subscription.data.topics") and the byte offset in data,
// or *codec.VersionError.
func FromJSON(cd *codec.Codec, data []byte, m *spec.Message, v int16) (*tree.Tree, []string, error) {
	if m == nil || m.Name != "GroupMetadataValue" && m.Name != "TransactionLogValue" || !m.ValidVersions.Contains(v) {
		return codec.FromJSONDropped(data, m, v)
	}
	spans, ok := jsonSpans(data)
	if !ok {
		return codec.FromJSONDropped(data, m, v) // malformed: codec says where
	}
	var edits []jsonEdit
	for _, s := range spans {
		var text []byte
		var err error
		switch {
		case m.Name == "TransactionLogValue" && s.path == "$.transactionStatus" && data[s.start] == '"':
			text, err = transactionStatusJSON(data, s)
		case m.Name == "GroupMetadataValue" && data[s.start] == '{' && consumerSpan(s.path) != "":
			text, err = consumerProtocolJSON(cd, data, s, spans)
		default:
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		edits = append(edits, jsonEdit{start: s.start, end: s.end, text: text})
	}
	if len(edits) == 0 {
		return codec.FromJSONDropped(data, m, v)
	}
	var out []byte
	from := 0
	for _, e := range edits {
		out = append(append(out, data[from:e.start]...), e.text...)
		from = e.end
	}
	out = append(out, data[from:]...)
	t, dropped, err := codec.FromJSONDropped(out, m, v)
	var je *codec.JSONError
	if errors.As(err, &je) && je.Offset >= 0 {
		e := *je
		e.Offset = originalOffset(edits, je.Offset)
		err = &e
	}
	return t, dropped, err
}

// jsonSpan is a JSON value of a document: its path ("$.members[0].subscription")
// and its bytes, data[start:end].
type jsonSpan struct {
	path       string
	start, end int
}

// jsonEdit replaces data[start:end] with text.
type jsonEdit struct {
	start, end int
	text       []byte
}

// originalOffset maps offset off of the edited text back to data's: an
// offset in a replacement is where the replaced value starts.
func originalOffset(edits []jsonEdit, off int) int {
	shift := 0
	for _, e := range edits {
		ns := e.start + shift
		ne := ns + len(e.text)
		switch {
		case off < ns:
			return off - shift
		case off < ne:
			return e.start
		}
		shift += len(e.text) - (e.end - e.start)
	}
	return off - shift
}

// jsonSpans lists the values of the JSON document data up to depth 4 with
// their paths, in document order; false when data is not one JSON value or
// nests deeper than codec.MaxJSONDepth.
func jsonSpans(data []byte) ([]jsonSpan, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var spans []jsonSpan
	var walk func(path string, depth int) bool
	walk = func(path string, depth int) bool {
		if depth > codec.MaxJSONDepth {
			return false // too deep: codec says where
		}
		start := int(dec.InputOffset())
		for start < len(data) && strings.IndexByte(" \t\r\n,:", data[start]) >= 0 {
			start++
		}
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, err := dec.Token()
				key, ok := k.(string)
				if err != nil || !ok || !walk(path+"."+key, depth+1) {
					return false
				}
			}
			if _, err := dec.Token(); err != nil {
				return false
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if !walk(path+"["+strconv.Itoa(i)+"]", depth+1) {
					return false
				}
			}
			if _, err := dec.Token(); err != nil {
				return false
			}
		}
		if depth <= 4 {
			spans = append(spans, jsonSpan{path: path, start: start, end: int(dec.InputOffset())})
		}
		return true
	}
	if !walk("$", 0) {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	// Children were appended before their parents: document order.
	slices.SortStableFunc(spans, func(a, b jsonSpan) int { return a.start - b.start })
	return spans, true
}

// consumerSpan is the consumer protocol message of a GroupMetadataValue
// member's field at path ("$.members[0].subscription"), "" for another path.
func consumerSpan(path string) string {
	rest, ok := strings.CutPrefix(path, "$.members[")
	if !ok {
		return ""
	}
	_, field, ok := strings.Cut(rest, "].")
	if !ok || strings.ContainsAny(field, ".[") {
		return ""
	}
	return protocolNames[field]
}

// consumerProtocolJSON is the base64 JSON string of the consumer protocol
// bytes that span s of data gives as {"version":N,"data":{…}}.
func consumerProtocolJSON(cd *codec.Codec, data []byte, s jsonSpan, spans []jsonSpan) ([]byte, error) {
	name := consumerSpan(s.path)
	pm := cd.Set.Message(name)
	if pm == nil {
		return nil, &codec.JSONError{Path: s.path, Msg: fmt.Sprintf("no %s in %s to encode an object with", name, cd.Set.Release), Offset: s.start}
	}
	var ver, body *jsonSpan
	for k := range spans {
		c := &spans[k]
		rest, ok := strings.CutPrefix(c.path, s.path+".")
		if !ok || strings.ContainsAny(rest, ".[") {
			continue
		}
		switch {
		case rest == "version" && ver == nil:
			ver = c
		case rest == "data" && body == nil:
			body = c
		case rest == "version" || rest == "data":
			return nil, &codec.JSONError{Path: c.path, Msg: fmt.Sprintf("duplicate key %q", rest), Offset: c.start}
		default:
			return nil, &codec.JSONError{Path: c.path, Msg: fmt.Sprintf("unknown key %q: %s is its bytes as base64, or {\"version\":N,\"data\":{…}} (%s at version N)", rest, s.path, name), Offset: c.start}
		}
	}
	if ver == nil || body == nil {
		return nil, &codec.JSONError{Path: s.path, Msg: fmt.Sprintf("expected its bytes as base64, or {\"version\":N,\"data\":{…}} (%s at version N)", name), Offset: s.start}
	}
	n, err := strconv.ParseInt(string(data[ver.start:ver.end]), 10, 16)
	if err != nil {
		return nil, &codec.JSONError{Path: ver.path, Msg: fmt.Sprintf("expected an integer (int16), got %s", data[ver.start:ver.end]), Offset: ver.start}
	}
	v := int16(n)
	if !pm.ValidVersions.Contains(v) {
		return nil, &codec.JSONError{Path: ver.path, Msg: fmt.Sprintf("%s has no version %d (valid versions %s)", name, v, pm.ValidVersions), Offset: ver.start}
	}
	vt, err := codec.FromJSON(data[body.start:body.end], pm, v)
	if err != nil {
		var je *codec.JSONError
		if errors.As(err, &je) {
			e := *je
			e.Path = body.path + strings.TrimPrefix(je.Path, "$")
			if e.Offset >= 0 {
				e.Offset += body.start
			}
			return nil, &e
		}
		return nil, err
	}
	et, err := cd.EncodeRecord(pm, v, vt)
	if err != nil {
		return nil, &codec.JSONError{Path: body.path, Msg: err.Error(), Offset: body.start, Err: err}
	}
	b := append(binary.BigEndian.AppendUint16(nil, uint16(v)), et.Bytes...)
	return []byte(`"` + base64.StdEncoding.EncodeToString(b) + `"`), nil
}

// transactionStatusJSON is the id of the transaction state that span s of
// data names (a JSON string), as JSON.
func transactionStatusJSON(data []byte, s jsonSpan) ([]byte, error) {
	var name string
	if err := json.Unmarshal(data[s.start:s.end], &name); err != nil {
		return nil, &codec.JSONError{Path: s.path, Msg: err.Error(), Offset: s.start, Err: err}
	}
	var names []string
	for id := int64(0); ; id++ {
		n, ok := records.TransactionStateName(id)
		if !ok {
			break
		}
		if n == name {
			return strconv.AppendInt(nil, id, 10), nil
		}
		names = append(names, n)
	}
	return nil, &codec.JSONError{Path: s.path, Msg: fmt.Sprintf("expected an integer (int8) or a transaction state's name (%s), got %q", strings.Join(names, ", "), name), Offset: s.start}
}

// DumpLogJSON is data, the JSON of a record value of message typ as Read's
// records show it (Record.Data), as kafka-dump-log's decoders print it: in
// a GroupMetadataValue, each member's subscription and assignment shown as
// {"version":N,"data":{…}} is the data alone (kafka-dump-log leaves the
// version out). Other JSON is data as given; so is JSON that does not
// parse.
func DumpLogJSON(typ string, data []byte) []byte {
	if typ != "GroupMetadataValue" {
		return data
	}
	spans, ok := jsonSpans(data)
	if !ok {
		return data
	}
	var out []byte
	from := 0
	for _, s := range spans {
		if data[s.start] != '{' || consumerSpan(s.path) == "" {
			continue
		}
		for _, c := range spans {
			if c.path == s.path+".data" {
				out = append(append(out, data[from:s.start]...), data[c.start:c.end]...)
				from = s.end
			}
		}
	}
	return append(out, data[from:]...)
}
