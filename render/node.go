package render

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// region is the part of a message a node belongs to; views colour by it.
type region uint8

const (
	regionNone region = iota
	regionFrame
	regionHeader
	regionBody
	regionBatch
	regionRecord
	regionTags
)

var regionNames = [...]string{"", "frame", "header", "body", "RecordBatch", "Record", "tagged_fields"}

func (r region) String() string { return regionNames[r] }

// Header kinds carried in ctx.hdr.
const (
	hdrNone uint8 = iota
	hdrRequest
	hdrResponse
)

// ctx is what a node's strings depend on beyond the node itself: its
// parent, whether it lies in a request or response header, and its region.
// Renderers compute it top-down while walking; an Index records it for
// every node in one pass; the exported Node* functions find it by
// descending from the root.
type ctx struct {
	parent int32
	hdr    uint8
	region region
	// ver is the version of the message the node's fields belong to (the
	// root's, or an embedded message's): it says which fields are
	// nullable.
	ver int16
	// ord is the node's index among its parent's children of its kind (a
	// batch field's: of its name): an element's, a record's, a record
	// header key's or value's (see ordinals).
	ord int32
	// base is the offset the inner messages of the nearest Decompressed
	// view at or above the node are relative to (records.OffsetBase),
	// found once for the view: found for each inner message of a magic 1
	// wrapper, it looked at all of them (a wrapper of a million took
	// decode 225 s).
	base int64
}

// ordinals counts a node's children by kind as a walker passes them, for
// the index each shows (ctx.ord): elements, records (from the first a
// part of records.DecodeParts continues with, tree.Tree.RecordBase),
// record header keys and values.
type ordinals struct{ elem, rec, hk, hv int32 }

// newOrdinals returns the counts before the first child of node p.
func newOrdinals(t *tree.Tree, p int32) ordinals { return ordinals{rec: t.RecordBase(p)} }

// next returns child k's index among its kind and counts it.
func (o *ordinals) next(t *tree.Tree, k int32) int32 {
	var c *int32
	switch t.Nodes[k].Kind() {
	case tree.Element:
		c = &o.elem
	case tree.Record:
		c = &o.rec
	case tree.BatchField:
		switch t.Name(k) {
		case "headerKey":
			c = &o.hk
		case "headerValue":
			c = &o.hv
		}
	}
	if c == nil {
		return 0
	}
	*c++
	return *c - 1
}

// childCtx is the ctx of node i whose parent p has ctx pc (p = -1, a
// zero pc and nil o for the root); o counts p's children up to i (i is
// counted).
func childCtx(t *tree.Tree, p int32, pc ctx, i int32, o *ordinals) ctx {
	c := ctx{parent: p, hdr: pc.hdr, region: pc.region, ver: pc.ver, base: pc.base}
	if o != nil {
		c.ord = o.next(t, i)
	}
	if p < 0 {
		c.ver = t.Version
	}
	n := &t.Nodes[i]
	switch n.Kind() {
	case tree.Decompressed:
		c.base = records.OffsetBase(t, i)
	case tree.Message, tree.Frame:
		c.region = regionFrame
	case tree.Header:
		c.region = regionHeader
		c.hdr = hdrRequest
		if st := t.Struct(i); st != nil && st.Name == "ResponseHeader" {
			c.hdr = hdrResponse
		}
	case tree.Body:
		c.region = regionBody
		c.ver = int16(t.Num(i))
	case tree.Embedded:
		c.ver = int16(t.Num(i))
	case tree.TagSection:
		c.region = regionTags
	case tree.RecordBatch:
		c.region = regionBatch
	case tree.Record:
		c.region = regionRecord
	}
	return c
}

// ctxOf finds node i's ctx by descending from the root, jumping over the
// subtrees of earlier siblings: it costs the number of i's ancestors and
// of their earlier siblings, up to the whole tree (see Index).
func ctxOf(t *tree.Tree, i int32) ctx {
	c := childCtx(t, -1, ctx{}, 0, nil)
	for j := int32(0); j != i; {
		o := newOrdinals(t, j)
		k := j + 1
		for k < i && t.Nodes[k].End <= i && t.Nodes[k].End > k {
			o.next(t, k)
			k = t.Nodes[k].End
		}
		c = childCtx(t, j, c, k, &o)
		j = k
	}
	return c
}

// valid reports whether i names a node of t.
func valid(t *tree.Tree, i int32) bool { return t != nil && i >= 0 && int(i) < len(t.Nodes) }

// NodeName is the name shown for node i: a spec field name ("Topics"), an
// element ("TopicData[0]", or "[0]" for a primitive), a header field in
// snake_case ("client_id"), or a synthetic name ("Frame", "size",
// "length", "tagged_fields", "RecordBatch", "Record[0]"…).
//
// NodeName and the other Node* functions work out node i's context on
// every call, which can take a walk over most of the tree: to ask about
// many nodes of one tree, build an Index.
func NodeName(t *tree.Tree, i int32) string {
	if !valid(t, i) {
		return ""
	}
	return nodeName(t, i, ctxOf(t, i))
}

// NodeType is the type column of node i: "message v1" for the root, the
// header version ("v2"), "struct" for the body, the spec's type string for
// fields ("string", "[]TopicData", "uuid"; a string or bytes field that is
// nullable at the message's version is "nullable_string" or
// "nullable_bytes"), protocol type names for header fields
// ("nullable_string"), the wire encoding of synthetic leaves
// ("uvarint", "int32"), "RecordBatch v2" for a batch.
func NodeType(t *tree.Tree, i int32) string {
	if !valid(t, i) {
		return ""
	}
	return nodeType(t, i, ctxOf(t, i))
}

// NodeValue is the text after "= " on node i's row (`"" (compact,
// len+1=1)`, "1 element", "54 (EndQuorumEpoch)", "struct"), or "" when the
// row has no value (the root, frame, header, body, batch rows).
func NodeValue(t *tree.Tree, i int32) string {
	if !valid(t, i) {
		return ""
	}
	return nodeValue(t, i, ctxOf(t, i))
}

// NodeAbout is the description of node i: the spec's about text for
// fields, kwire's own text for header fields and synthetic nodes
// ("number of tagged fields in this struct"), "" when there is none.
func NodeAbout(t *tree.Tree, i int32) string {
	if !valid(t, i) {
		return ""
	}
	return nodeAbout(t, i, ctxOf(t, i))
}

// NodeRegion is the part of the message node i belongs to: "frame",
// "header", "body", "RecordBatch", "Record" or "tagged_fields" (the
// innermost one wins, so a header's tag section is "tagged_fields"). The
// root counts as "frame".
func NodeRegion(t *tree.Tree, i int32) string {
	if !valid(t, i) {
		return ""
	}
	return ctxOf(t, i).region.String()
}

// The cell functions below append a node's texts to b rather than return
// strings, so that the views can write a row or a JSON node straight into
// their output buffer without a heap object per cell. nodeName, nodeType,
// nodeValue and nodeAbout are their string forms, for the Node* functions
// and the Index.

func nodeName(t *tree.Tree, i int32, c ctx) string { return string(appendName(nil, t, i, c)) }
func nodeType(t *tree.Tree, i int32, c ctx) string { return string(appendType(nil, t, i, c)) }
func nodeValue(t *tree.Tree, i int32, c ctx) string {
	return string(appendValueText(nil, t, i, c, ValuesAuto))
}
func nodeAbout(t *tree.Tree, i int32, c ctx) string { return string(appendAbout(nil, t, i, c)) }

// appendName appends the name shown for node i (see NodeName).
func appendName(b []byte, t *tree.Tree, i int32, c ctx) []byte {
	n := &t.Nodes[i]
	ref := tree.RefOf(n.Ref())
	if ref.Name != "" {
		return appendSyntheticName(b, t, i, c, ref.Name)
	}
	switch n.Kind() {
	case tree.Message, tree.Body:
		return append(b, messageName(t, n, ref.Struct)...)
	case tree.Frame:
		return append(b, "Frame"...)
	case tree.Header:
		if ref.Struct != nil {
			return append(b, ref.Struct.Name...)
		}
		return append(b, "Header"...)
	case tree.Field, tree.Struct, tree.Array, tree.Records:
		if ref.Field == nil {
			return append(b, n.Kind().String()...)
		}
		if c.hdr != hdrNone {
			return appendSnake(b, ref.Field.Name)
		}
		return append(b, ref.Field.Name...)
	case tree.Element:
		if ref.Struct != nil {
			b = append(b, ref.Struct.Name...)
		}
		return appendIndex(b, c.ord)
	case tree.Length:
		return append(b, "length"...)
	case tree.Presence:
		return append(b, "presence"...)
	case tree.TagCount:
		return append(b, "count"...)
	case tree.Tag, tree.UnknownTag:
		return strconv.AppendInt(append(b, "tag "...), t.Num(i), 10)
	case tree.TagNumber:
		return append(b, "tag"...)
	case tree.TagSize:
		return append(b, "size"...)
	case tree.Record:
		return appendIndex(append(b, "Record"...), c.ord)
	case tree.Raw:
		return append(b, "raw"...)
	case tree.Embedded:
		if ref.Struct != nil {
			return append(b, ref.Struct.Name...)
		}
	}
	return append(b, n.Kind().String()...)
}

// appendIndex appends "[k]".
func appendIndex(b []byte, k int32) []byte {
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(k), 10)
	return append(b, ']')
}

// appendSyntheticName appends the display name of a node with a synthetic
// name (frame fields, record batch fields): the name itself, or for the
// nodes that repeat it composed with the node's index or magic
// ("Record[0]", "headerKey[1]", "LegacyMessage v1").
func appendSyntheticName(b []byte, t *tree.Tree, i int32, c ctx, name string) []byte {
	n := t.Nodes[i]
	b = append(b, name...)
	switch {
	case n.Kind() == tree.Record && name == "Record",
		n.Kind() == tree.BatchField && (name == "headerKey" || name == "headerValue"):
		return appendIndex(b, c.ord)
	case n.Kind() == tree.RecordBatch && name == "LegacyMessage":
		return strconv.AppendInt(append(b, " v"...), int64(t.Magic(i)), 10)
	}
	return b
}

// messageName names the root and body rows: the message's name, or the
// struct's when the tree has no message.
func messageName(t *tree.Tree, n *tree.Node, st *spec.Struct) string {
	if t.Message != nil {
		return t.Message.Name
	}
	if st != nil {
		return st.Name
	}
	return n.Kind().String()
}

// appendSnake appends a header field name in the protocol's snake_case
// ("RequestApiKey" -> "request_api_key").
func appendSnake(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= 'A' && ch <= 'Z' {
			if i > 0 {
				b = append(b, '_')
			}
			ch += 'a' - 'A'
		}
		b = append(b, ch)
	}
	return b
}

// appendType appends the type column of node i (see NodeType).
func appendType(b []byte, t *tree.Tree, i int32, c ctx) []byte {
	n := &t.Nodes[i]
	switch n.Kind() {
	case tree.Message:
		if t.Message == nil {
			return append(b, "message"...)
		}
		b = strconv.AppendInt(append(b, "message v"...), int64(t.NodeVersion(i)), 10)
		return appendInvalidPrefix(b, t, i)
	case tree.Frame:
		return b
	case tree.Header:
		return strconv.AppendInt(append(b, 'v'), int64(t.NodeVersion(i)), 10)
	case tree.Body:
		return append(b, "struct"...)
	case tree.Field, tree.Struct, tree.Array, tree.Records:
		f := t.Field(i)
		if f == nil {
			return append(b, wireType(n.Wire())...)
		}
		if c.hdr != hdrNone {
			return appendHeaderType(b, t, n, f)
		}
		if (f.TypeString == "string" || f.TypeString == "bytes") && f.NullableIn(c.ver) {
			// As the header's client_id: the type says null is allowed.
			b = append(b, "nullable_"...)
		}
		return append(b, f.TypeString...)
	case tree.Element:
		if st := t.Struct(i); st != nil {
			return append(b, st.Name...)
		}
		return append(b, wireType(n.Wire())...)
	case tree.TagSection:
		if n.End > i+1 {
			return append(b, "section"...)
		}
	case tree.Tag:
		return append(b, "tagged field"...)
	case tree.UnknownTag:
		return append(b, "unknown tag"...)
	case tree.RecordBatch:
		if t.Magic(i) == 2 {
			return append(b, "RecordBatch v2"...)
		}
		return strconv.AppendInt(append(b, "magic "...), int64(t.Magic(i)), 10)
	case tree.Record:
		return append(b, "Record"...)
	case tree.Decompressed:
		return records.Compression(t.Compression(i)).AppendName(b)
	case tree.Embedded:
		switch embeddedPrefix(t, i) {
		case "record_type":
			return strconv.AppendInt(append(b, "coordinator key v"...), int64(t.NodeVersion(i)), 10)
		case "version":
			b = strconv.AppendInt(append(b, "coordinator value v"...), int64(t.NodeVersion(i)), 10)
			return appendInvalidPrefix(b, t, i)
		case "prefix":
			return strconv.AppendInt(append(b, "message v"...), int64(t.NodeVersion(i)), 10)
		}
		if embeddedFramed(t, i) {
			return strconv.AppendInt(append(b, "metadata record v"...), int64(t.NodeVersion(i)), 10)
		}
		return strconv.AppendInt(append(b, "message v"...), int64(t.NodeVersion(i)), 10)
	}
	return append(b, n.Wire().String()...)
}

// invalidPrefix reports whether Message or Embedded node i holds a
// coordinator record value whose int16 prefix names a version its spec
// lacks: the node's version is the prefix's, and its body is left
// undecoded.
func invalidPrefix(t *tree.Tree, i int32) bool {
	if embeddedPrefix(t, i) != "version" {
		return false
	}
	st := t.Struct(i)
	return st != nil && !st.Versions.Contains(t.NodeVersion(i))
}

// appendInvalidPrefix appends " (not a valid version)" when node i's
// version is a coordinator record value prefix its spec lacks
// (invalidPrefix).
func appendInvalidPrefix(b []byte, t *tree.Tree, i int32) []byte {
	if invalidPrefix(t, i) {
		b = append(b, " (not a valid version)"...)
	}
	return b
}

// embeddedFramed reports whether Embedded node i holds a KRaft metadata
// record with its frame (its first child is the Frame).
func embeddedFramed(t *tree.Tree, i int32) bool {
	return t.Nodes[i].End > i+1 && t.Nodes[i+1].Kind() == tree.Frame
}

// embeddedPrefix says what the int16 prefix that Embedded node i's Frame
// holds is: an internal topic's record key's record type
// ("record_type"), a coordinator record value's version ("version"),
// another message's version ("prefix": a consumer protocol message in a
// GroupMetadataValue); "" for no such prefix.
func embeddedPrefix(t *tree.Tree, i int32) string {
	if !embeddedFramed(t, i) || t.Nodes[i+1].End != i+3 || t.Nodes[i+2].Wire() != tree.WireInt16 {
		return ""
	}
	switch name := t.Name(i + 2); {
	case name == "record_type":
		return name
	case name == "version" && strings.Contains(t.About(i+2), "coordinator"):
		return name
	case name == "version":
		return "prefix"
	}
	return ""
}

// wireType names a value's type from its wire encoding (primitive array
// elements, fields without a spec).
func wireType(w tree.Wire) string {
	switch w {
	case tree.WireString, tree.WireCompactString:
		return "string"
	case tree.WireBytes, tree.WireCompactBytes, tree.WireVarBytes:
		return "bytes"
	}
	return w.String()
}

// appendHeaderType appends a header field's type as the protocol guide
// names it ("int16", "nullable_string", "compact_string").
func appendHeaderType(b []byte, t *tree.Tree, n *tree.Node, f *spec.Field) []byte {
	switch n.Wire() {
	case tree.WireString, tree.WireCompactString:
		if n.Wire() == tree.WireCompactString {
			b = append(b, "compact_"...)
		}
		if hv := t.HeaderVersion; hv >= 0 && f.NullableIn(hv) {
			b = append(b, "nullable_"...)
		}
		return append(b, "string"...)
	}
	return append(b, f.TypeString...)
}

// appendValueText appends the text after "= " on node i's row (see
// NodeValue), with record keys, values and header values in the form v
// chooses; nothing when the row has no value.
func appendValueText(b []byte, t *tree.Tree, i int32, c ctx, v Values) []byte {
	n := &t.Nodes[i]
	if n.Flags()&tree.FlagSecret != 0 && !n.Null() {
		return append(b, secret.Text(t.DataLen(i))...)
	}
	switch n.Kind() {
	case tree.Field:
		if c.hdr == hdrRequest {
			if f := t.Field(i); f != nil && f.Name == "RequestApiKey" {
				return appendWithAPIName(b, t, t.Num(i), spec.Request)
			}
		}
		return appendScalarText(b, n, t.Num(i), t.Data(i))
	case tree.Element:
		if t.Struct(i) != nil {
			return append(b, "struct"...)
		}
		return appendScalarText(b, n, t.Num(i), t.Data(i))
	case tree.Struct:
		if n.Null() {
			return append(b, "null"...)
		}
		return append(b, "struct"...)
	case tree.Array:
		if n.Null() {
			return append(b, "null"...)
		}
		return appendCount(b, int64(t.Count(i)), "element", "elements")
	case tree.Records:
		if n.Null() {
			return append(b, "null"...)
		}
		return appendCount(b, int64(len(t.Data(i))), "byte", "bytes")
	case tree.Length:
		return appendLengthText(b, n, t.Num(i))
	case tree.Presence:
		b = strconv.AppendInt(b, t.Num(i), 10)
		if (n.Wire() == tree.WireUvarint && t.Num(i) == 0) || t.Num(i) < 0 {
			return append(b, " (null)"...)
		}
		return append(b, " (present)"...)
	case tree.TagSection:
		if n.End > i+1 {
			return appendCount(b, t.Num(i), "field", "fields")
		}
		return append(b, '0')
	case tree.TagCount, tree.TagNumber, tree.TagSize:
		return strconv.AppendInt(b, t.Num(i), 10)
	case tree.FrameField:
		if t.Name(i) == "api_key" {
			return appendWithAPIName(b, t, t.Num(i), spec.Metadata)
		}
		return strconv.AppendInt(b, t.Num(i), 10)
	case tree.BatchField:
		if n.Wire() == tree.WireUint32 && t.Name(i) == "crc" {
			return appendHex8(append(b, "0x"...), uint32(t.Num(i)))
		}
		if v != ValuesAuto && recordBytes(t, i) {
			d := t.Data(i)
			if n.Wire() == tree.WireBytes {
				return appendRecordValueText(b, d, v, " (int32 len=", len(d))
			}
			return appendRecordValueText(b, d, v, " (varint len=", len(d))
		}
		if n.Wire() == tree.WireBytes && !n.Null() {
			// A legacy message's key or value: text when printable, as
			// the keys and values of v2 records.
			d := t.Data(i)
			return appendLen(appendRecordBytesText(b, d), " (int32 len=", len(d))
		}
		return appendScalarText(b, n, t.Num(i), t.Data(i))
	case tree.Raw:
		return appendHexText(b, t.Data(i))
	case tree.Decompressed:
		return appendCount(b, int64(n.Size), "byte", "bytes")
	}
	return b
}

// appendWithAPIName appends an api key, followed by the API's (or metadata
// record's) name when the tree's message has that key: "54
// (EndQuorumEpoch)".
func appendWithAPIName(b []byte, t *tree.Tree, key int64, typ spec.MessageType) []byte {
	b = strconv.AppendInt(b, key, 10)
	m := t.Message
	if m == nil || int64(m.APIKey) != key {
		return b
	}
	if typ == spec.Metadata && m.Type == spec.Metadata {
		return append(append(append(b, " ("...), m.Name...), ')')
	}
	if typ == spec.Request && (m.Type == spec.Request || m.Type == spec.Response) {
		return append(append(append(b, " ("...), m.BaseName()...), ')')
	}
	return b
}

// appendCount appends "1 one" or "n many".
func appendCount(b []byte, n int64, one, many string) []byte {
	if n == 1 {
		return append(append(b, "1 "...), one...)
	}
	b = strconv.AppendInt(b, n, 10)
	b = append(b, ' ')
	return append(b, many...)
}

// lengthText shows length prefix n, whose value is num, as it is on the
// wire: compact lengths are num+1 with 0 for null, the others num with -1
// for null.
func lengthText(n *tree.Node, num int64) string { return string(appendLengthText(nil, n, num)) }

func appendLengthText(b []byte, n *tree.Node, num int64) []byte {
	if n.Wire() == tree.WireUvarint {
		if num < 0 {
			return append(b, "0 (compact, null)"...)
		}
		return append(strconv.AppendInt(b, num+1, 10), " (compact, n+1)"...)
	}
	b = strconv.AppendInt(b, num, 10)
	if num < 0 {
		return append(b, " (null)"...)
	}
	return b
}

// scalarText is the value of leaf n by its wire encoding; num is its
// integer (Tree.Num), d its contents (Tree.Data).
func scalarText(n *tree.Node, num int64, d []byte) string {
	return string(appendScalarText(nil, n, num, d))
}

func appendScalarText(b []byte, n *tree.Node, num int64, d []byte) []byte {
	switch n.Wire() {
	case tree.WireBool:
		if num != 0 {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case tree.WireFloat64:
		return strconv.AppendFloat(b, math.Float64frombits(uint64(num)), 'g', -1, 64)
	case tree.WireUUID:
		return appendUUID(b, d)
	case tree.WireString:
		if n.Null() {
			return append(b, "null (int16 len=-1)"...)
		}
		return appendLen(appendQuoteText(b, d), " (int16 len=", len(d))
	case tree.WireCompactString:
		if n.Null() {
			return append(b, "null (compact, 0)"...)
		}
		return appendLen(appendQuoteText(b, d), " (compact, len+1=", len(d)+1)
	case tree.WireBytes:
		if n.Null() {
			return append(b, "null (int32 len=-1)"...)
		}
		return appendLen(appendHexText(b, d), " (int32 len=", len(d))
	case tree.WireCompactBytes:
		if n.Null() {
			return append(b, "null (compact, 0)"...)
		}
		return appendLen(appendHexText(b, d), " (compact, len+1=", len(d)+1)
	case tree.WireVarBytes:
		if n.Null() {
			return append(b, "null (varint len=-1)"...)
		}
		return appendLen(appendRecordBytesText(b, d), " (varint len=", len(d))
	case tree.WireRaw:
		return appendHexText(b, d)
	}
	return strconv.AppendInt(b, num, 10)
}

// appendLen appends what, v and ")".
func appendLen(b []byte, what string, v int) []byte {
	b = append(b, what...)
	b = strconv.AppendInt(b, int64(v), 10)
	return append(b, ')')
}

// maxShown bounds how many bytes of a string or byte value a row shows.
const (
	maxShownString = 64
	maxShownBytes  = 16
)

// appendQuoteText appends a string value quoted, cut after maxShownString
// bytes (at a rune boundary) with "…" after the closing quote.
func appendQuoteText(b, d []byte) []byte {
	if len(d) <= maxShownString {
		return appendQuoted(b, d)
	}
	cut := maxShownString
	for cut > 0 && !utf8.RuneStart(d[cut]) {
		cut--
	}
	return append(appendQuoted(b, d[:cut]), "…"...)
}

// appendQuoted appends d as strconv.Quote quotes a string (a Go string
// literal: printable runes as they are, escapes for the rest, \x for
// bytes that are not UTF-8), without converting d to a string.
func appendQuoted(b, d []byte) []byte {
	b = append(b, '"')
	for k := 0; k < len(d); {
		ch := d[k]
		if ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\' {
			b = append(b, ch)
			k++
			continue
		}
		r, size := utf8.DecodeRune(d[k:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, '\\', 'x', hexDigits[ch>>4], hexDigits[ch&15])
		case r == '"' || r == '\\':
			b = append(b, '\\', ch)
		case r >= utf8.RuneSelf && strconv.IsPrint(r):
			b = append(b, d[k:k+size]...)
		default:
			// Control characters and unprintable runes are escaped as in a
			// rune literal ('\n', '\x7f', '\u0085'): drop its quotes.
			start := len(b)
			b = strconv.AppendQuoteRune(b, r)
			b = append(b[:start], b[start+1:len(b)-1]...)
		}
		k += size
	}
	return append(b, '"')
}

// appendHexText appends bytes as "0x" and the hex of up to maxShownBytes
// bytes, then "…" when there are more; "empty" for none.
func appendHexText(b, d []byte) []byte {
	if len(d) == 0 {
		return append(b, "empty"...)
	}
	b = append(b, "0x"...)
	if len(d) <= maxShownBytes {
		return hex.AppendEncode(b, d)
	}
	return append(hex.AppendEncode(b, d[:maxShownBytes]), "…"...)
}

// appendRecordBytesText appends a record key, value or header: quoted when
// it is printable UTF-8 text (the common case for keys and JSON values),
// else as hex.
func appendRecordBytesText(b, d []byte) []byte {
	if len(d) > 0 && printable(d) {
		return appendQuoteText(b, d)
	}
	return appendHexText(b, d)
}

func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, ch := range b {
		if ch < 0x20 || ch == 0x7f {
			return false
		}
	}
	return true
}

const hexDigits = "0123456789abcdef"

// appendHex8 appends v as 8 lower-case hex digits.
func appendHex8(b []byte, v uint32) []byte {
	var d [8]byte
	for k := 7; k >= 0; k-- {
		d[k] = hexDigits[v&15]
		v >>= 4
	}
	return append(b, d[:]...)
}

// appendUUID appends 16 bytes as 8-4-4-4-12 hex digits (other lengths as
// appendHexText does).
func appendUUID(b, d []byte) []byte {
	if len(d) != 16 {
		return appendHexText(b, d)
	}
	for k, x := range d {
		if k == 4 || k == 6 || k == 8 || k == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[x>>4], hexDigits[x&15])
	}
	return b
}

// appendAbout appends the description of node i (see NodeAbout).
func appendAbout(b []byte, t *tree.Tree, i int32, c ctx) []byte {
	n := &t.Nodes[i]
	ref := tree.RefOf(n.Ref())
	if ref.Name != "" {
		if out, ok := appendSyntheticAbout(b, t, i, c, ref); ok {
			return out
		}
	}
	switch n.Kind() {
	case tree.Frame:
		return append(b, frameAbout(t, i)...)
	case tree.FrameField:
		if c.parent >= 0 && t.Nodes[c.parent].Kind() == tree.Frame {
			switch first := t.Name(c.parent + 1); {
			case ref.Name == "record_type":
				return append(b, "coordinator record type (the key's int16 prefix)"...)
			case ref.Name == "version" && first == "version" && ref.About != "":
				// The prefix's own text: a coordinator record value's, a
				// consumer protocol message's.
				return append(b, ref.About...)
			case ref.Name == "version" && first == "version":
				return append(b, "version of the coordinator record value (its int16 prefix)"...)
			}
		}
		return append(b, frameFieldAbout(t, ref.Name)...)
	case tree.Header:
		if c.hdr == hdrResponse {
			return append(b, "common response header"...)
		}
		return append(b, "common request header"...)
	case tree.Body:
		return strconv.AppendInt(append(b, "message body, version "...), int64(t.NodeVersion(i)), 10)
	case tree.Field, tree.Struct, tree.Array, tree.Records:
		if ref.Field == nil {
			return b
		}
		if c.hdr != hdrNone {
			return append(b, headerAbout(ref.Field.Name, c.hdr)...)
		}
		return append(b, ref.Field.About...)
	case tree.Length:
		return appendLengthAbout(b, t, n, t.Num(i), c)
	case tree.Presence:
		if n.Wire() == tree.WireUvarint {
			return append(b, "nullable struct marker: 0 null, 1 present"...)
		}
		return append(b, "nullable struct marker: -1 null, 1 present"...)
	case tree.TagSection, tree.TagCount:
		if n.Kind() == tree.TagSection && n.End > i+1 {
			return append(append(b, "tagged fields of "...), tagOwner(c)...)
		}
		return append(append(b, "number of tagged fields in "...), tagOwner(c)...)
	case tree.Tag:
		if ref.Field != nil {
			return append(append(b, "tagged field "...), ref.Field.Name...)
		}
		return append(b, "tagged field"...)
	case tree.UnknownTag:
		return append(b, "tagged field unknown to the spec, kept as raw bytes"...)
	case tree.TagNumber:
		return append(b, "tag number"...)
	case tree.TagSize:
		return append(b, "bytes of the tagged value that follow"...)
	case tree.Raw:
		return append(appendCount(b, int64(n.Size), "byte", "bytes"), ", not decoded"...)
	case tree.Embedded:
		switch embeddedPrefix(t, i) {
		case "record_type":
			return strconv.AppendInt(append(b, "internal topic's record key, record type "...), t.Num(i+2), 10)
		case "version":
			return strconv.AppendInt(append(b, "internal topic's record value, version "...), int64(t.NodeVersion(i)), 10)
		case "prefix":
			return strconv.AppendInt(append(b, "message held in the bytes, version "...), int64(t.NodeVersion(i)), 10)
		}
		if embeddedFramed(t, i) {
			return strconv.AppendInt(append(b, "KRaft metadata record, version "...), int64(t.NodeVersion(i)), 10)
		}
		return strconv.AppendInt(append(b, "message held in the record, version "...), int64(t.NodeVersion(i)), 10)
	}
	return b
}

// frameAbout describes a Frame: the int32 size prefix of a request or
// response, or the KRaft metadata record frame. A frame that failed before
// its first field has no child to tell: it is a metadata record frame only
// when the tree is known to hold a metadata record (a request whose size
// prefix is cut short has no message yet).
func frameAbout(t *tree.Tree, i int32) string {
	metadata := t.Message != nil && t.Message.Type == spec.Metadata
	if t.Nodes[i].End > i+1 {
		metadata = t.Name(i+1) == "frame_version"
	}
	if metadata && t.Message != nil && t.Message.Topic != "" {
		return "metadata record frame of " + t.Message.Topic.TopicName()
	}
	if metadata {
		return "KRaft metadata record frame"
	}
	if t.Nodes[i].End > i+1 {
		switch t.Name(i + 1) {
		case "record_type":
			return "coordinator record key prefix"
		case "version":
			if a := t.About(i + 1); a != "" && !strings.Contains(a, "coordinator") {
				return "int16 version prefix" // a consumer protocol message's
			}
			return "coordinator record value prefix"
		}
	}
	if t.Message != nil && t.Message.VersionPrefixed() {
		return "coordinator record prefix"
	}
	return "length-delimited framing"
}

// appendSyntheticAbout appends the about text of a node with a synthetic
// name (frame fields, record batches, their fields and raw parts),
// composed from the Ref's static text and the node's values; ok is false
// (and b returned as it was) when the text is the one appendAbout derives
// from the node's kind.
func appendSyntheticAbout(b []byte, t *tree.Tree, i int32, c ctx, ref tree.Ref) ([]byte, bool) {
	n := &t.Nodes[i]
	switch n.Kind() {
	case tree.Frame, tree.FrameField:
		// kwire's own texts ("…, patched after encoding" for samples).
		return b, false
	case tree.RecordBatch:
		switch ref.Name {
		case "RecordBatch":
			return appendBatchAbout(b, t, i), true
		case "LegacyMessage":
			b = strconv.AppendInt(append(b, "message set entry, magic "...), int64(t.Magic(i)), 10)
			b = append(strconv.AppendInt(append(b, ", "...), int64(n.Size), 10), " bytes"...)
			if n.Flags()&tree.FlagBadCRC != 0 {
				b = append(b, ", CRC INVALID"...)
			}
			if n.Flags()&tree.FlagVirtual != 0 && n.End > i+1 && c.parent >= 0 {
				// An inner message of a compressed wrapper: its offset
				// (magic 1: relative to the wrapper's, see Decompressed).
				f, _ := records.BatchFactsOf(t, i)
				b = strconv.AppendInt(append(b, ", offset "...), c.base+f.BaseOffset, 10)
			}
			return b, true
		}
	case tree.Record:
		// "Record[i]" says it all; inside a decompressed view, the
		// record's offset is worth saying.
		if n.Flags()&tree.FlagVirtual != 0 {
			b = strconv.AppendInt(append(b, "offset "...), records.RecordOffsetIn(t, c.parent, i), 10)
		}
		return b, true
	case tree.Decompressed:
		b = records.Compression(t.Compression(i)).AppendName(b)
		b = append(b, " payload decompressed, not wire bytes (v offsets)"...)
		if c.parent >= 0 && t.Name(c.parent) == "LegacyMessage" && t.Magic(c.parent) == 1 {
			b = strconv.AppendInt(append(b, "; inner offsets relative to "...), records.OffsetBase(t, i), 10)
		}
		return b, true
	case tree.BatchField:
		inBatch := c.parent >= 0 && t.Name(c.parent) == "RecordBatch"
		inLegacy := c.parent >= 0 && t.Name(c.parent) == "LegacyMessage"
		switch {
		case (inBatch || inLegacy) && ref.Name == "crc":
			f, _ := records.BatchFactsOf(t, c.parent)
			return appendCRCText(append(append(b, ref.About...), ": "...), f), true
		case (inBatch || inLegacy) && ref.Name == "attributes":
			f, _ := records.BatchFactsOf(t, c.parent)
			return f.Attributes.AppendText(b, f.Magic), true
		case ref.Name == "value" && n.Null() && c.parent >= 0 && t.Name(c.parent) == "Record" && coordinatorKeyed(t, c.parent):
			// A tombstone of an internal topic, as kwire log's text and
			// JSON say it.
			return append(b, "deleted (null value)"...), true
		case ref.Name == "key", ref.Name == "value", ref.Name == "headersCount", ref.Name == "headerKey", ref.Name == "headerValue":
			// The name and the value say what these are.
			return b, true
		}
	case tree.Raw:
		switch ref.Name {
		case "partial batch":
			return appendPartialBatchAbout(b, t, i), true
		case "records":
			f, _ := records.BatchFactsOf(t, c.parent)
			b = f.Attributes.Compression().AppendName(b)
			return append(b, " records payload, not decoded here"...), true
		case "compressed records":
			f, _ := records.BatchFactsOf(t, c.parent)
			b = f.Attributes.Compression().AppendName(b)
			return append(b, " records payload, decompressed below"...), true
		case "trailing":
			// "N bytes, not decoded", as for any raw bytes.
			return b, false
		}
	}
	return append(b, ref.About...), ref.About != ""
}

// coordinatorKeyed reports whether Record node r's key holds a coordinator
// record key (an Embedded node framed by its int16 record type): r is a
// record of an internal topic, whose null value deletes that key.
func coordinatorKeyed(t *tree.Tree, r int32) bool {
	keyed := false
	t.Children(r, func(k int32) bool {
		if t.Name(k) != "key" {
			return true
		}
		t.Children(k, func(e int32) bool {
			keyed = keyed || t.Nodes[e].Kind() == tree.Embedded && embeddedPrefix(t, e) == "record_type"
			return !keyed
		})
		return false
	})
	return keyed
}

// appendBatchAbout describes a RecordBatch v2: its size and whether its
// CRC-32C matches (and if not, the CRC its bytes have).
func appendBatchAbout(b []byte, t *tree.Tree, i int32) []byte {
	f, _ := records.BatchFactsOf(t, i)
	b = strconv.AppendInt(append(b, "RecordBatch v2, "...), int64(t.Nodes[i].Size), 10)
	b = append(b, " bytes"...)
	if f.CRCValid() {
		return append(b, ", CRC valid"...)
	}
	b = appendHex8(append(b, ", CRC INVALID (computed 0x"...), f.ComputedCRC)
	return append(b, ')')
}

// appendCRCText says whether the CRC of the entry whose facts are f is
// valid.
func appendCRCText(b []byte, f records.BatchFacts) []byte {
	if !f.CRCValid() {
		return appendHex8(append(b, "INVALID, computed 0x"...), f.ComputedCRC)
	}
	return append(appendHex8(append(b, "valid (0x"...), f.ComputedCRC), ')')
}

// appendPartialBatchAbout says why the bytes of "partial batch" leaf i at
// the end of a records field do not hold a whole batch.
func appendPartialBatchAbout(b []byte, t *tree.Tree, i int32) []byte {
	length, present, ok := records.PartialBatch(t, i)
	if !ok {
		return append(strconv.AppendInt(b, int64(t.Nodes[i].Size), 10), " bytes: too short for a batch header"...)
	}
	b = strconv.AppendInt(append(b, "batch length "...), int64(length), 10)
	b = strconv.AppendInt(append(b, ", "...), int64(present), 10)
	return append(b, " bytes present"...)
}

func tagOwner(c ctx) string {
	if c.hdr != hdrNone {
		return "the header"
	}
	return "this struct"
}

func frameFieldAbout(t *tree.Tree, name string) string {
	switch name {
	case "size":
		if t.Sample {
			return "number of bytes that follow, patched after encoding"
		}
		return "number of bytes that follow"
	case "frame_version":
		return "metadata record frame version"
	case "api_key":
		return "metadata record type"
	case "version":
		return "metadata record version"
	}
	return ""
}

// headerAbout is kwire's description of a request or response header
// field (the spec's own about texts are terse).
func headerAbout(name string, hdr uint8) string {
	switch name {
	case "RequestApiKey":
		return "numeric id of the API being invoked"
	case "RequestApiVersion":
		return "version of the API being invoked"
	case "CorrelationId":
		if hdr == hdrResponse {
			return "matches the correlation_id of the request"
		}
		return "echoed back by the broker in the response"
	case "ClientId":
		return "always a non-flexible int16-prefixed string"
	}
	return ""
}

// appendLengthAbout says what follows an array's or records' length
// prefix.
func appendLengthAbout(b []byte, t *tree.Tree, n *tree.Node, num int64, c ctx) []byte {
	if c.parent >= 0 && t.Nodes[c.parent].Kind() == tree.Records {
		switch {
		case num < 0:
			return append(b, "null records"...)
		case num == 1:
			return append(b, "1 byte of records follows"...)
		}
		return append(strconv.AppendInt(b, num, 10), " bytes of records follow"...)
	}
	switch {
	case num < 0:
		return append(b, "null array"...)
	case num == 0:
		return append(b, "no elements follow"...)
	case num == 1 && t.Sample:
		return append(b, "one sample element follows"...)
	case num == 1:
		return append(b, "1 element follows"...)
	}
	return append(strconv.AppendInt(b, num, 10), " elements follow"...)
}
