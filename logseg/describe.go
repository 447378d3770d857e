package logseg

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// Record is one record of a listing, described: the record, where it is,
// and what its value holds.
type Record struct {
	// File is the file's path.
	File string
	// BatchOffset is the offset of its batch (LogBatch.BaseOffset).
	BatchOffset int64
	// Control is set for a record of a control batch.
	Control bool
	records.LogRecord
	// Type names what the value holds: a control record's type
	// ("SnapshotHeader", "COMMIT"…) or a metadata record's message
	// ("TopicRecord"); "" for another data record.
	Type string
	// Version is the version the message was decoded at.
	Version int16
	// Data is the decoded message as Kafka's converter JSON, nil when
	// none.
	Data []byte
	// Topic is the internal topic the record's file holds, whose key and
	// value were decoded as its records (Window.Topic); "" for another log.
	Topic spec.Topic
	// RecordType, KeyType, KeyVersion and KeyData are the decoded key of
	// an internal topic's coordinator record: its record type (the key's
	// int16 prefix), its message name, the version its body was read at
	// and its Kafka converter JSON. KeyData is nil when the key did not
	// decode (KeyErr), RecordType -1.
	RecordType int16
	KeyType    string
	KeyVersion int16
	KeyData    []byte
	// KeyErr says why an internal topic's key did not decode, as Err does
	// for the value ("record_type at 0x0045: …").
	KeyErr error
	// Tombstone marks an internal topic's record whose value is null: the
	// deletion of its key.
	Tombstone bool
	// DecodedWith is the embedded release whose specs decoded an internal
	// topic's key or value when the codec's release has no spec of its
	// record type or value version ("4.4.0"); "" when the codec's did.
	DecodedWith string
	// Note says what did not decode inside a value that did: the consumer
	// protocol bytes of a GroupMetadataValue's member ("members[0].
	// assignment.AssignedPartitions at 0x0152: …"), which Data keeps as
	// base64.
	Note string
	// Err says why the value did not decode as what it should hold: the
	// first problem the window's decode reported in the value, its path
	// below the value and its offset the file's ("frame_version at
	// 0x0045: …", as Read's Summary has it), or "null value".
	Err error
}

// Describe describes record r of batch b of the window: a control
// record's message, or in a metadata file (or wherever the value is one:
// IsMetadataRecord) a data record's metadata record, decoded with the window's codec as type, version and Kafka
// converter JSON.
func (w *Window) Describe(b *records.LogBatch, r records.LogRecord) Record {
	d := Record{File: w.File, BatchOffset: b.BaseOffset, Control: b.Control, LogRecord: r, RecordType: -1}
	if w.Topic != "" && !b.Control {
		w.describeInternal(&d)
		return d
	}
	d.Type, d.Version, d.Data, d.Err = describeValue(w.codec, r, b.Control, w.Metadata, w.showSecrets, w.decoded)
	if d.Err != nil {
		if p, ok := w.valueProblem(r); ok {
			d.Err = errors.New(p)
		}
	}
	return d
}

// valueProblem is the first problem the decode of the window reported in
// the value of record r, as "frame_version at 0x0045: msg": its path
// below the value, its offset the file's (as the problems of Read's
// Summary have them).
func (w *Window) valueProblem(r records.LogRecord) (string, bool) {
	return w.fieldProblem(r, "value")
}

// fieldProblem is the first problem the decode of the window reported in
// the key or value (field) of record r, as valueProblem has it.
func (w *Window) fieldProblem(r records.LogRecord, field string) (string, bool) {
	t := w.Tree
	v := int32(-1)
	t.Children(r.Node, func(c int32) bool {
		if t.Name(c) == field {
			v = c
			return false
		}
		return true
	})
	if v < 0 {
		return "", false
	}
	n := &t.Nodes[v]
	virtual := n.Flags()&tree.FlagVirtual != 0
	for _, p := range t.Problems {
		at := p.Off
		if virtual {
			at = p.VOff
		} else if p.VOff >= 0 {
			continue
		}
		// A problem at the end of the field (its bytes ran out) is the
		// field's when its path says so.
		end := at == n.Off+n.Size && n.Size > 0 && strings.Contains(p.Path, "."+field+".")
		if (at < n.Off || at >= n.Off+max(n.Size, 1)) && !end {
			continue
		}
		q := shiftProblem(p, "", w.Off, w.batches, w.virtual)
		if _, rest, ok := strings.Cut(q.Path, "."+field+"."); ok {
			q.Path = rest
		} else {
			q.Path = field
		}
		return q.String(), true
	}
	return "", false
}

// IsType reports whether the record is a data record whose value holds
// the metadata record of that name (any case), or an internal topic's
// record whose key or value is a message of that name.
func (d *Record) IsType(name string) bool {
	return !d.Control && (strings.EqualFold(d.Type, name) || d.KeyType != "" && strings.EqualFold(d.KeyType, name))
}

// describeValue decodes a record's value: a control record's message or a
// framed metadata record, as type, version and Kafka converter JSON. name
// is "" for a data record of another log.
func describeValue(cd *codec.Codec, r records.LogRecord, control, metadata, showSecrets bool, decoded valueTrees) (name string, version int16, data []byte, err error) {
	var m *spec.Message
	var vt *tree.Tree
	switch {
	case control:
		ct := r.ControlType()
		name = records.ControlTypeName(ct)
		if mn := records.ControlMessage(ct); mn != "" && cd != nil {
			m = cd.Set.Message(mn)
		}
		if m == nil || r.ValueNull {
			return name, 0, nil, nil
		}
	case metadata && cd != nil:
		if r.ValueNull {
			return "", 0, nil, errors.New("null value")
		}
	default:
		if vt = metadataRecord(cd, r.Value); vt == nil {
			return "", 0, nil, nil
		}
	}
	if vt == nil {
		var ok bool
		if vt, err, ok = decoded.get(r.Value, m); !ok {
			// Not decoded with the window (a file not known for a
			// metadata log): decoded here.
			vt, err = cd.DecodeRecord(r.Value, m, 0)
		}
	}
	if vt.Message != nil {
		name, version = vt.Message.Name, vt.Version
	}
	if err != nil {
		return name, version, nil, err
	}
	vt = secret.Redacted(vt, secret.Options{Show: showSecrets})
	body := vt.Part(tree.Body)
	if body < 0 {
		body = 0
	}
	data, err = codec.ToJSON(nil, vt, body, vt.Message, vt.Version, codec.JSONOptions{})
	return name, version, data, err
}

// IsMetadataRecord reports whether value is a KRaft metadata record by
// its content, wherever it was read from: it decodes whole with cd as a
// framed metadata record (frame version 1, a known api key and version)
// without a problem. Describe and ReadWhole decode such a data record
// value as a metadata record in any file, so that its credentials are
// redacted even when the file's path does not say it is a metadata log
// (a copy, standard input). False for a nil codec or an empty value.
func IsMetadataRecord(cd *codec.Codec, value []byte) bool {
	return metadataRecord(cd, value) != nil
}

// metadataRecord is the decode of value when IsMetadataRecord, else nil.
func metadataRecord(cd *codec.Codec, value []byte) *tree.Tree {
	if cd == nil || len(value) == 0 {
		return nil
	}
	// The frame first, as DecodeRecord reads it: most values are not one,
	// and say so without a decode.
	r := wire.Reader{Buf: value}
	fv, key := r.Uvarint(), r.Uvarint()
	if r.Failed() || fv != 1 || key > 32767 || cd.Set.MetadataRecord(int16(key)) == nil {
		return nil
	}
	t, err := cd.DecodeRecord(value, nil, 0)
	if err != nil || len(t.Problems) > 0 {
		return nil
	}
	return t
}

// BatchText is a batch's line of a text listing (without a line end):
// "batch 5  records 3  attributes 0x0000  epoch 0  magic 2  CRC valid",
// with "  control" after it for a control batch. Attributes with other
// bits set are spelled out after their hex: "attributes 0x0001 (gzip,
// CreateTime)" (records.Attributes.AppendText).
func BatchText(b *records.LogBatch) string {
	crc := "valid"
	if !b.CRCValid {
		crc = "INVALID"
	}
	kind := ""
	if b.Control {
		kind = "  control"
	}
	attrs := fmt.Sprintf("0x%04x", uint16(b.Attributes))
	if a := records.Attributes(b.Attributes); a&^0x20 != 0 { // control is said at the end
		attrs += " (" + string(a.AppendText(nil, b.Magic)) + ")"
	}
	return fmt.Sprintf("batch %d  records %d  attributes %s  epoch %d  magic %d  CRC %s%s", b.BaseOffset, b.Count, attrs, b.LeaderEpoch, b.Magic, crc, kind)
}

// AppendText appends the record's line of a text listing, with its line
// end: "  offset 5  CreateTime 1700000000000  " (no timestamp for magic 0),
// then the decoded record ("TopicRecord v0 {…}", a control record's
// type), or what did not decode with why and its value as v shows it
// ("not a metadata record: frame_version at 0x0045: …  value 0x0203",
// "TopicRecord v0: TopicRecord.name at 0x0050: …  value 0x…"), or the key
// and value as v shows them ("key \"k\"  value 0x00ff"), then its headers when it has any ("  headers
// \"h1\"=\"x\" \"h2\"=null": keys quoted, values as v shows them).
// An internal topic's coordinator record shows its key and value
// decoded ("OffsetCommitKey {…}  OffsetCommitValue v3 {…}", "…  deleted
// (null value)" for a tombstone, "  note: …" after a value whose member's
// consumer protocol bytes did not decode), or why they did not with their
// bytes ("not a record of __consumer_offsets: key at 0x0083: …  key 0x…
// value 0x…", "OffsetCommitKey {…}  OffsetCommitValue: … value 0x…").
func (d *Record) AppendText(dst []byte, v render.Values) []byte {
	return d.appendText(dst, v, nil)
}

// appendValueText appends the record's value as appendBytesText does, in
// pieces written out by p when it is large (pieces.streams).
func (d *Record) appendValueText(dst []byte, v render.Values, p *pieces) []byte {
	if !d.ValueNull && p.streams(len(d.Value)) {
		if out, ok := appendTextValue(dst, d.Value, v, p); ok {
			return out
		}
	}
	return appendBytesText(dst, d.Value, d.ValueNull, v)
}

// appendText is AppendText, a large value written out in pieces by p.
func (d *Record) appendText(dst []byte, v render.Values, p *pieces) []byte {
	// strconv, not fmt: these are every record's, a listing's most
	// frequent writes.
	dst = strconv.AppendInt(append(dst, "  offset "...), d.Offset, 10)
	dst = append(dst, "  "...)
	if d.TimestampType != records.NoTimestampType {
		dst = append(append(dst, d.TimestampType.String()...), ' ')
		dst = append(strconv.AppendInt(dst, d.Timestamp, 10), "  "...)
	}
	switch {
	case d.Topic.Coordinator() && !d.Control:
		dst = d.appendInternal(dst, v)
	case d.Err != nil:
		if d.Type == "" && d.Topic != "" {
			dst = append(dst, "not a record of "+d.Topic.TopicName()...)
		} else if d.Type == "" {
			dst = append(dst, "not a metadata record"...)
		} else {
			dst = fmt.Appendf(dst, "%s v%d", d.Type, d.Version)
		}
		dst = fmt.Appendf(dst, ": %v", d.Err)
		if !d.ValueNull {
			dst = d.appendValueText(append(dst, "  value "...), v, p)
		}
	case d.Type != "" && d.Data != nil:
		dst = fmt.Appendf(dst, "%s v%d %s", d.Type, d.Version, d.Data)
	case d.Type != "":
		dst = append(dst, d.Type...)
	default:
		dst = appendBytesText(append(dst, "key "...), d.Key, d.KeyNull, v)
		dst = d.appendValueText(append(dst, "  value "...), v, p)
	}
	if d.DecodedWith != "" {
		dst = fmt.Appendf(dst, "  (decoded with Kafka %s's specs)", d.DecodedWith)
	}
	if len(d.Headers) > 0 {
		dst = append(dst, "  headers"...)
		for _, h := range d.Headers {
			dst = append(dst, ' ')
			dst = strconv.AppendQuote(dst, h.Key)
			dst = append(dst, '=')
			dst = appendBytesText(dst, h.Value, h.ValueNull, v)
		}
	}
	return append(dst, '\n')
}

// jsonLine is one JSON line of a listing.
type jsonLine struct {
	File          string          `json:"file"`
	Offset        int64           `json:"offset"`
	BatchOffset   int64           `json:"batch_offset"`
	Control       bool            `json:"control,omitempty"`
	TimestampType string          `json:"timestamp_type,omitempty"`
	Timestamp     *int64          `json:"timestamp,omitempty"`
	RecordType    *int16          `json:"record_type,omitempty"`
	KeyType       string          `json:"key_type,omitempty"`
	KeyVersion    *int16          `json:"key_version,omitempty"`
	KeyData       json.RawMessage `json:"key_data,omitempty"`
	KeyError      string          `json:"key_error,omitempty"`
	Tombstone     bool            `json:"tombstone,omitempty"`
	Type          string          `json:"type,omitempty"`
	Version       *int16          `json:"version,omitempty"`
	Data          json.RawMessage `json:"data,omitempty"`
	Key           *string         `json:"key,omitempty"`
	KeyBase64     *string         `json:"key_base64,omitempty"`
	KeyHex        *string         `json:"key_hex,omitempty"`
	KeyJSON       json.RawMessage `json:"key_json,omitempty"`
	Value         *string         `json:"value,omitempty"`
	ValueBase64   *string         `json:"value_base64,omitempty"`
	ValueHex      *string         `json:"value_hex,omitempty"`
	ValueJSON     json.RawMessage `json:"value_json,omitempty"`
	Headers       []jsonHeader    `json:"headers,omitempty"`
	Error         string          `json:"error,omitempty"`
	Note          string          `json:"note,omitempty"`
	DecodedWith   string          `json:"decoded_with,omitempty"`
}

// jsonHeader is one header of a JSON line.
type jsonHeader struct {
	Key         string          `json:"key"`
	Value       *string         `json:"value,omitempty"`
	ValueBase64 *string         `json:"value_base64,omitempty"`
	ValueHex    *string         `json:"value_hex,omitempty"`
	ValueJSON   json.RawMessage `json:"value_json,omitempty"`
}

// AppendJSON appends the record's JSON line, with its line end. Members,
// in order: "file", "offset", "batch_offset", "control" (true only),
// "timestamp_type" ("CreateTime", "LogAppendTime") and "timestamp" (ms;
// neither for magic 0), "type", "version" and "data" of a decoded record,
// "error"'s text when its value did not decode ("frame_version at 0x0045:
// …", the offset the file's); a data record that is not decoded (or whose
// metadata record did not decode) has its key and value in the member v names ("key"/"value" text,
// "key_base64"…, "key_hex"…, "key_json"…; see bytesJSON; none when null).
// "headers", when it has any, is a list of {"key": …} objects with the
// value in the same members. An internal topic's coordinator record has,
// after "timestamp", "record_type" (the key's int16 prefix), "key_type",
// "key_version" and "key_data" (converter JSON) of its key, or
// "key_error" and its key and value as bytes when the key did not
// decode; "tombstone": true for a null value; its value's "type",
// "version" and "data" (no "version" when it did not decode: "error" and
// the value's bytes); "note" when a member's consumer protocol bytes did
// not decode; "decoded_with" (Record.DecodedWith) when another embedded
// release's specs decoded it. Its text line ends "(decoded with Kafka
// 4.4.0's specs)" then.
func (d *Record) AppendJSON(dst []byte, v render.Values) ([]byte, error) {
	return d.appendJSON(dst, v, nil)
}

// appendJSON is AppendJSON, a large value (pieces.streams) written out in
// pieces by p: the line is made with the value's member empty, and the
// value's encoding written where the member's string goes.
func (d *Record) appendJSON(dst []byte, v render.Values, p *pieces) ([]byte, error) {
	e := jsonLine{File: d.File, Offset: d.Offset, BatchOffset: d.BatchOffset, Control: d.Control, Type: d.Type, Data: d.Data}
	// streamed is the form of a value written in pieces (-1: none), and
	// holder the member that holds it.
	streamed := -1
	var holder **string
	if d.TimestampType != records.NoTimestampType {
		ts := d.Timestamp
		e.TimestampType, e.Timestamp = d.TimestampType.String(), &ts
	}
	if d.Type != "" && (d.Err == nil || !d.Topic.Coordinator()) {
		ver := d.Version
		e.Version = &ver
	}
	if d.Err != nil {
		e.Error = d.Err.Error()
	}
	switch {
	case d.Topic.Coordinator() && !d.Control:
		if d.RecordType >= 0 {
			rt := d.RecordType
			e.RecordType = &rt
		}
		if d.KeyType != "" {
			kv := d.KeyVersion
			e.KeyType, e.KeyVersion = d.KeyType, &kv
		}
		e.KeyData, e.Tombstone, e.Note, e.DecodedWith = d.KeyData, d.Tombstone, d.Note, d.DecodedWith
		if d.KeyErr != nil {
			e.KeyError = d.KeyErr.Error()
			e.Key, e.KeyBase64, e.KeyHex, e.KeyJSON = bytesJSON(d.Key, d.KeyNull, v)
		}
		if d.Data == nil && !d.Tombstone {
			e.Value, e.ValueBase64, e.ValueHex, e.ValueJSON = bytesJSON(d.Value, d.ValueNull, v)
		}
	case d.Data == nil && !d.Control:
		e.Key, e.KeyBase64, e.KeyHex, e.KeyJSON = bytesJSON(d.Key, d.KeyNull, v)
		if !d.ValueNull && p.streams(len(d.Value)) {
			streamed = valueForm(d.Value, v)
		}
		if streamed >= 0 && streamed != formJSON {
			switch streamed {
			case formText:
				holder = &e.Value
			case formBase64:
				holder = &e.ValueBase64
			default:
				holder = &e.ValueHex
			}
			empty := ""
			*holder = &empty
		} else {
			streamed = -1
			e.Value, e.ValueBase64, e.ValueHex, e.ValueJSON = bytesJSON(d.Value, d.ValueNull, v)
		}
	}
	for _, h := range d.Headers {
		jh := jsonHeader{Key: h.Key}
		jh.Value, jh.ValueBase64, jh.ValueHex, jh.ValueJSON = bytesJSON(h.Value, h.ValueNull, v)
		e.Headers = append(e.Headers, jh)
	}
	line, err := json.Marshal(e)
	if err != nil {
		return dst, err
	}
	if streamed < 0 {
		dst = append(dst, line...)
		return append(dst, '\n'), nil
	}
	// Where the value's string goes: the first byte where the line
	// differs from the one whose value is "x".
	x := "x"
	*holder = &x
	other, err := json.Marshal(e)
	if err != nil {
		return dst, err
	}
	at := 0
	for at < len(line) && line[at] == other[at] {
		at++
	}
	dst = appendJSONValue(append(dst, line[:at]...), d.Value, streamed, p)
	if p.err != nil {
		return dst, p.err
	}
	dst = append(dst, line[at:]...)
	return append(dst, '\n'), nil
}

// bytesJSON gives a key, value or header value for a JSON line, in the
// member v chooses: auto, text when it is printable UTF-8 (no control
// characters; empty too) and base64 else ("key",
// "key_base64"); utf8, text whatever it holds (bytes that are not UTF-8
// become U+FFFD); hex ("key_hex"); base64; json, the value itself when it
// parses as JSON ("key_json"), else as auto. Null gives none.
func bytesJSON(b []byte, null bool, v render.Values) (text, b64, hx *string, js json.RawMessage) {
	if null {
		return nil, nil, nil, nil
	}
	switch v {
	case render.ValuesUTF8:
		s := string(b)
		return &s, nil, nil, nil
	case render.ValuesHex:
		s := hex.EncodeToString(b)
		return nil, nil, &s, nil
	case render.ValuesBase64:
		s := base64.StdEncoding.EncodeToString(b)
		return nil, &s, nil, nil
	case render.ValuesJSON:
		if c := compactJSON(b); c != nil {
			return nil, nil, nil, c
		}
	}
	if printable(b) {
		s := string(b)
		return &s, nil, nil, nil
	}
	s := base64.StdEncoding.EncodeToString(b)
	return nil, &s, nil, nil
}

// compactJSON is b without white space between its tokens when it is one
// JSON value, else nil.
func compactJSON(b []byte) []byte {
	var c bytes.Buffer
	if len(b) == 0 || json.Compact(&c, b) != nil {
		return nil
	}
	return c.Bytes()
}

// appendBytesText appends a key, value or header value to dst as a text line shows it, as v
// chooses: auto (quoted when printable UTF-8, else "0x…"), utf8 (quoted, \x escapes
// for bytes that are not UTF-8), hex ("0x…", "empty"), base64
// ("base64:…", "empty"), json (compacted when it parses as JSON, else as
// auto followed by "(not JSON)"). Null is "null".
func appendBytesText(dst, b []byte, null bool, v render.Values) []byte {
	if null {
		return append(dst, "null"...)
	}
	switch v {
	case render.ValuesUTF8:
		return strconv.AppendQuote(dst, string(b))
	case render.ValuesHex:
		if len(b) == 0 {
			return append(dst, "empty"...)
		}
		return hex.AppendEncode(append(dst, "0x"...), b)
	case render.ValuesBase64:
		if len(b) == 0 {
			return append(dst, "empty"...)
		}
		return base64.StdEncoding.AppendEncode(append(dst, "base64:"...), b)
	case render.ValuesJSON:
		if c := compactJSON(b); c != nil {
			return append(dst, c...)
		}
		return append(appendAutoText(dst, b), " (not JSON)"...)
	}
	return appendAutoText(dst, b)
}

// appendAutoText appends b quoted when it is printable UTF-8 text (no control
// characters; empty too), else as hex, as the tree views show values.
func appendAutoText(dst, b []byte) []byte {
	if plainASCII(b) {
		// What strconv.AppendQuote writes for it, without the string.
		return append(append(append(dst, '"'), b...), '"')
	}
	if printable(b) {
		return strconv.AppendQuote(dst, string(b))
	}
	return hex.AppendEncode(append(dst, "0x"...), b)
}

// plainASCII reports whether b is printable ASCII (0x20 to 0x7e) other
// than '"' and '\\': text that strconv.Quote quotes as it is.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// printable reports whether b is UTF-8 text without control characters
// (C0 and DEL), as the tree views' auto form takes text.
func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// appendInternal appends the text of an internal topic's coordinator
// record (see AppendText).
func (d *Record) appendInternal(dst []byte, v render.Values) []byte {
	if d.KeyErr != nil {
		dst = fmt.Appendf(dst, "not a record of %s: %v", d.Topic.TopicName(), d.KeyErr)
		dst = appendBytesText(append(dst, "  key "...), d.Key, d.KeyNull, v)
		return appendBytesText(append(dst, "  value "...), d.Value, d.ValueNull, v)
	}
	dst = fmt.Appendf(dst, "%s %s", d.KeyType, d.KeyData)
	switch {
	case d.Tombstone:
		return append(dst, "  deleted (null value)"...)
	case d.Err != nil && d.Type != "":
		dst = fmt.Appendf(dst, "  %s: %v", d.Type, d.Err)
		return appendBytesText(append(dst, "  value "...), d.Value, false, v)
	case d.Err != nil:
		dst = fmt.Appendf(dst, "  %v", d.Err)
		return appendBytesText(append(dst, "  value "...), d.Value, false, v)
	}
	dst = fmt.Appendf(dst, "  %s v%d %s", d.Type, d.Version, d.Data)
	if d.Note != "" {
		dst = append(append(dst, "  note: "...), d.Note...)
	}
	return dst
}
