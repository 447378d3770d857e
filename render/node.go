package render

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"unicode/utf8"

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
// Renderers compute it top-down while walking; the exported Node* functions
// find it by descending from the root.
type ctx struct {
	parent int32
	hdr    uint8
	region region
}

// childCtx is the ctx of node i whose parent p has ctx pc (p = -1 and a
// zero pc for the root).
func childCtx(t *tree.Tree, p int32, pc ctx, i int32) ctx {
	c := ctx{parent: p, hdr: pc.hdr, region: pc.region}
	n := &t.Nodes[i]
	switch n.Kind {
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
// subtrees of earlier siblings.
func ctxOf(t *tree.Tree, i int32) ctx {
	c := childCtx(t, -1, ctx{}, 0)
	for j := int32(0); j != i; {
		k := j + 1
		for k < i && t.Nodes[k].End <= i && t.Nodes[k].End > k {
			k = t.Nodes[k].End
		}
		c = childCtx(t, j, c, k)
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
func NodeName(t *tree.Tree, i int32) string {
	if !valid(t, i) {
		return ""
	}
	return nodeName(t, i, ctxOf(t, i))
}

// NodeType is the type column of node i: "message v1" for the root, the
// header version ("v2"), "struct" for the body, the spec's type string for
// fields ("string", "[]TopicData", "uuid"), protocol type names for header
// fields ("nullable_string"), the wire encoding of synthetic leaves
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

func nodeName(t *tree.Tree, i int32, c ctx) string {
	n := &t.Nodes[i]
	ref := tree.RefOf(n.Ref)
	if ref.Name != "" {
		return syntheticName(n, ref.Name)
	}
	switch n.Kind {
	case tree.Message, tree.Body:
		return messageName(t, n, ref.Struct)
	case tree.Frame:
		return "Frame"
	case tree.Header:
		if ref.Struct != nil {
			return ref.Struct.Name
		}
		return "Header"
	case tree.Field, tree.Struct, tree.Array, tree.Records:
		if ref.Field == nil {
			return n.Kind.String()
		}
		if c.hdr != hdrNone {
			return snake(ref.Field.Name)
		}
		return ref.Field.Name
	case tree.Element:
		idx := "[" + strconv.Itoa(int(n.Index)) + "]"
		if ref.Struct != nil {
			return ref.Struct.Name + idx
		}
		return idx
	case tree.Length:
		return "length"
	case tree.Presence:
		return "presence"
	case tree.TagCount:
		return "count"
	case tree.Tag, tree.UnknownTag:
		return "tag " + strconv.FormatInt(n.Num, 10)
	case tree.TagNumber:
		return "tag"
	case tree.TagSize:
		return "size"
	case tree.Record:
		return "Record[" + strconv.Itoa(int(n.Index)) + "]"
	case tree.Raw:
		return "raw"
	}
	return n.Kind.String()
}

// syntheticName is the display name of a node with a synthetic name (frame
// fields, record batch fields): the name itself, or for the nodes that
// repeat it composed with the node's index or magic ("Record[0]",
// "headerKey[1]", "LegacyMessage v1").
func syntheticName(n *tree.Node, name string) string {
	switch {
	case n.Kind == tree.Record && name == "Record",
		n.Kind == tree.BatchField && (name == "headerKey" || name == "headerValue"):
		return name + "[" + strconv.Itoa(int(n.Index)) + "]"
	case n.Kind == tree.RecordBatch && name == "LegacyMessage":
		return name + " v" + strconv.FormatInt(n.Num, 10)
	}
	return name
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
	return n.Kind.String()
}

// snake turns a header field name into the protocol's snake_case
// ("RequestApiKey" -> "request_api_key").
func snake(s string) string {
	b := make([]byte, 0, len(s)+4)
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
	return string(b)
}

func nodeType(t *tree.Tree, i int32, c ctx) string {
	n := &t.Nodes[i]
	ref := tree.RefOf(n.Ref)
	switch n.Kind {
	case tree.Message:
		if t.Message == nil {
			return "message"
		}
		return "message v" + strconv.FormatInt(n.Num, 10)
	case tree.Frame:
		return ""
	case tree.Header:
		return "v" + strconv.FormatInt(n.Num, 10)
	case tree.Body:
		return "struct"
	case tree.Field, tree.Struct, tree.Array, tree.Records:
		if ref.Field == nil {
			return wireType(n.Wire)
		}
		if c.hdr != hdrNone {
			return headerType(t, n, ref.Field)
		}
		return ref.Field.TypeString
	case tree.Element:
		if ref.Struct != nil {
			return ref.Struct.Name
		}
		return wireType(n.Wire)
	case tree.TagSection:
		if t.Nodes[i].End > i+1 {
			return "section"
		}
	case tree.Tag:
		return "tagged field"
	case tree.UnknownTag:
		return "unknown tag"
	case tree.RecordBatch:
		if n.Num == 2 {
			return "RecordBatch v2"
		}
		return "magic " + strconv.FormatInt(n.Num, 10)
	case tree.Record:
		return "Record"
	}
	return n.Wire.String()
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

// headerType names a header field's type as the protocol guide does
// ("int16", "nullable_string", "compact_string").
func headerType(t *tree.Tree, n *tree.Node, f *spec.Field) string {
	hv := t.HeaderVersion
	switch n.Wire {
	case tree.WireString, tree.WireCompactString:
		s := "string"
		if hv >= 0 && f.NullableIn(hv) {
			s = "nullable_string"
		}
		if n.Wire == tree.WireCompactString {
			s = "compact_" + s
		}
		return s
	}
	return f.TypeString
}

func nodeValue(t *tree.Tree, i int32, c ctx) string {
	n := &t.Nodes[i]
	switch n.Kind {
	case tree.Field:
		if c.hdr == hdrRequest {
			if f := t.Field(i); f != nil && f.Name == "RequestApiKey" {
				return withAPIName(t, n.Num, spec.Request)
			}
		}
		return scalarText(n, t.Data(i))
	case tree.Element:
		if t.Struct(i) != nil {
			return "struct"
		}
		return scalarText(n, t.Data(i))
	case tree.Struct:
		if n.Null {
			return "null"
		}
		return "struct"
	case tree.Array:
		if n.Null {
			return "null"
		}
		return count(int64(n.Index), "element", "elements")
	case tree.Records:
		if n.Null {
			return "null"
		}
		return count(int64(len(t.Data(i))), "byte", "bytes")
	case tree.Length:
		return lengthText(n)
	case tree.Presence:
		if (n.Wire == tree.WireUvarint && n.Num == 0) || n.Num < 0 {
			return strconv.FormatInt(n.Num, 10) + " (null)"
		}
		return strconv.FormatInt(n.Num, 10) + " (present)"
	case tree.TagSection:
		if n.End > i+1 {
			return count(n.Num, "field", "fields")
		}
		return "0"
	case tree.TagCount, tree.TagNumber, tree.TagSize:
		return strconv.FormatInt(n.Num, 10)
	case tree.FrameField:
		if t.Name(i) == "api_key" {
			return withAPIName(t, n.Num, spec.Metadata)
		}
		return strconv.FormatInt(n.Num, 10)
	case tree.BatchField:
		if n.Wire == tree.WireUint32 && t.Name(i) == "crc" {
			return "0x" + hex8(uint32(n.Num))
		}
		return scalarText(n, t.Data(i))
	case tree.Raw:
		return hexText(t.Data(i))
	}
	return ""
}

// withAPIName appends the API's (or metadata record's) name to an api key
// when the tree's message has that key: "54 (EndQuorumEpoch)".
func withAPIName(t *tree.Tree, key int64, typ spec.MessageType) string {
	s := strconv.FormatInt(key, 10)
	m := t.Message
	if m == nil || int64(m.APIKey) != key {
		return s
	}
	if typ == spec.Metadata && m.Type == spec.Metadata {
		return s + " (" + m.Name + ")"
	}
	if typ == spec.Request && (m.Type == spec.Request || m.Type == spec.Response) {
		return s + " (" + m.BaseName() + ")"
	}
	return s
}

func count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// lengthText shows a length prefix as it is on the wire: compact lengths
// are n+1 with 0 for null, the others n with -1 for null.
func lengthText(n *tree.Node) string {
	if n.Wire == tree.WireUvarint {
		if n.Num < 0 {
			return "0 (compact, null)"
		}
		return strconv.FormatInt(n.Num+1, 10) + " (compact, n+1)"
	}
	if n.Num < 0 {
		return strconv.FormatInt(n.Num, 10) + " (null)"
	}
	return strconv.FormatInt(n.Num, 10)
}

// scalarText is the value of leaf n by its wire encoding; d is its
// contents (Tree.Data).
func scalarText(n *tree.Node, d []byte) string {
	switch n.Wire {
	case tree.WireBool:
		if n.Num != 0 {
			return "true"
		}
		return "false"
	case tree.WireFloat64:
		return strconv.FormatFloat(math.Float64frombits(uint64(n.Num)), 'g', -1, 64)
	case tree.WireUUID:
		return uuidText(d)
	case tree.WireString:
		if n.Null {
			return "null (int16 len=-1)"
		}
		return quoteText(d) + " (int16 len=" + strconv.Itoa(len(d)) + ")"
	case tree.WireCompactString:
		if n.Null {
			return "null (compact, 0)"
		}
		return quoteText(d) + " (compact, len+1=" + strconv.Itoa(len(d)+1) + ")"
	case tree.WireBytes:
		if n.Null {
			return "null (int32 len=-1)"
		}
		return hexText(d) + " (int32 len=" + strconv.Itoa(len(d)) + ")"
	case tree.WireCompactBytes:
		if n.Null {
			return "null (compact, 0)"
		}
		return hexText(d) + " (compact, len+1=" + strconv.Itoa(len(d)+1) + ")"
	case tree.WireVarBytes:
		if n.Null {
			return "null (varint len=-1)"
		}
		return recordBytesText(d) + " (varint len=" + strconv.Itoa(len(d)) + ")"
	case tree.WireRaw:
		return hexText(d)
	}
	return strconv.FormatInt(n.Num, 10)
}

// maxShown bounds how many bytes of a string or byte value a row shows.
const (
	maxShownString = 64
	maxShownBytes  = 16
)

// quoteText quotes a string value, cut after maxShownString bytes (at a
// rune boundary) with "…" after the closing quote.
func quoteText(b []byte) string {
	if len(b) <= maxShownString {
		return strconv.Quote(string(b))
	}
	cut := maxShownString
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "…"
}

// hexText shows bytes as "0x" and the hex of up to maxShownBytes bytes,
// then "…" when there are more; "empty" for none.
func hexText(b []byte) string {
	if len(b) == 0 {
		return "empty"
	}
	if len(b) <= maxShownBytes {
		return "0x" + hex.EncodeToString(b)
	}
	return "0x" + hex.EncodeToString(b[:maxShownBytes]) + "…"
}

// recordBytesText shows a record key, value or header: quoted when it is
// printable UTF-8 text (the common case for keys and JSON values), else
// as hex.
func recordBytesText(b []byte) string {
	if len(b) > 0 && printable(b) {
		return quoteText(b)
	}
	return hexText(b)
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

func hex8(v uint32) string {
	var b [8]byte
	for k := 7; k >= 0; k-- {
		b[k] = hexDigits[v&15]
		v >>= 4
	}
	return string(b[:])
}

// uuidText formats 16 bytes as 8-4-4-4-12 hex digits.
func uuidText(d []byte) string {
	if len(d) != 16 {
		return hexText(d)
	}
	var b [36]byte
	p := 0
	for k, x := range d {
		if k == 4 || k == 6 || k == 8 || k == 10 {
			b[p] = '-'
			p++
		}
		b[p], b[p+1] = hexDigits[x>>4], hexDigits[x&15]
		p += 2
	}
	return string(b[:])
}

func nodeAbout(t *tree.Tree, i int32, c ctx) string {
	n := &t.Nodes[i]
	ref := tree.RefOf(n.Ref)
	if ref.Name != "" {
		if s, ok := syntheticAbout(t, i, c, ref); ok {
			return s
		}
	}
	switch n.Kind {
	case tree.Frame:
		return frameAbout(t, i)
	case tree.FrameField:
		return frameFieldAbout(t, ref.Name)
	case tree.Header:
		if c.hdr == hdrResponse {
			return "common response header"
		}
		return "common request header"
	case tree.Body:
		return "message body, version " + strconv.FormatInt(n.Num, 10)
	case tree.Field, tree.Struct, tree.Array, tree.Records:
		if ref.Field == nil {
			return ""
		}
		if c.hdr != hdrNone {
			return headerAbout(ref.Field.Name, c.hdr)
		}
		return ref.Field.About
	case tree.Length:
		return lengthAbout(t, n, c)
	case tree.Presence:
		if n.Wire == tree.WireUvarint {
			return "nullable struct marker: 0 null, 1 present"
		}
		return "nullable struct marker: -1 null, 1 present"
	case tree.TagSection, tree.TagCount:
		if n.Kind == tree.TagSection && n.End > i+1 {
			return "tagged fields of " + tagOwner(c)
		}
		return "number of tagged fields in " + tagOwner(c)
	case tree.Tag:
		if ref.Field != nil {
			return "tagged field " + ref.Field.Name
		}
		return "tagged field"
	case tree.UnknownTag:
		return "tagged field unknown to the spec, kept as raw bytes"
	case tree.TagNumber:
		return "tag number"
	case tree.TagSize:
		return "bytes of the tagged value that follow"
	case tree.Raw:
		return count(int64(n.Size), "byte", "bytes") + ", not decoded"
	}
	return ""
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
	if metadata {
		return "KRaft metadata record frame"
	}
	return "length-delimited framing"
}

// syntheticAbout is the about text of a node with a synthetic name (frame
// fields, record batches, their fields and raw parts), composed from the
// Ref's static text and the node's values; ok is false when the text is
// the one nodeAbout derives from the node's kind.
func syntheticAbout(t *tree.Tree, i int32, c ctx, ref tree.Ref) (string, bool) {
	n := &t.Nodes[i]
	switch n.Kind {
	case tree.Frame, tree.FrameField:
		// kwire's own texts ("…, patched after encoding" for samples).
		return "", false
	case tree.RecordBatch:
		switch ref.Name {
		case "RecordBatch":
			return batchAbout(t, i), true
		case "LegacyMessage":
			return "message set entry, magic " + strconv.FormatInt(n.Num, 10) + ", " + strconv.Itoa(int(n.Size)) + " bytes", true
		}
	case tree.Record:
		// "Record[i]" says it all.
		return "", true
	case tree.BatchField:
		inBatch := c.parent >= 0 && t.Name(c.parent) == "RecordBatch"
		switch {
		case inBatch && ref.Name == "crc":
			return ref.About + ": " + crcText(n), true
		case inBatch && ref.Name == "attributes":
			return describeAttributes(n.Num), true
		case ref.Name == "key", ref.Name == "value", ref.Name == "headersCount", ref.Name == "headerKey", ref.Name == "headerValue":
			// The name and the value say what these are.
			return "", true
		}
	case tree.Raw:
		switch ref.Name {
		case "partial batch":
			return partialBatchAbout(t.Data(i)), true
		case "records":
			return compressionName(batchAttributes(t, c.parent)&7) + " records payload, not decoded here", true
		case "trailing":
			// "N bytes, not decoded", as for any raw bytes.
			return "", false
		}
	}
	return ref.About, ref.About != ""
}

// batchAbout describes a RecordBatch v2: its size and whether its CRC-32C
// matches (the computed CRC is kept on its crc leaf).
func batchAbout(t *tree.Tree, i int32) string {
	n := &t.Nodes[i]
	s := "RecordBatch v2, " + strconv.Itoa(int(n.Size)) + " bytes"
	if n.Flags&tree.FlagBadCRC == 0 {
		return s + ", CRC valid"
	}
	s += ", CRC INVALID"
	if crc := batchChild(t, i, "crc"); crc >= 0 {
		s += " (computed 0x" + hex8(uint32(t.Nodes[crc].Index)) + ")"
	}
	return s
}

// crcText says whether a RecordBatch v2 crc leaf (stored CRC in Num,
// computed CRC in Index) is valid.
func crcText(n *tree.Node) string {
	if n.Flags&tree.FlagBadCRC != 0 {
		return "INVALID, computed 0x" + hex8(uint32(n.Index))
	}
	return "valid (0x" + hex8(uint32(n.Index)) + ")"
}

// batchChild returns the child of RecordBatch node i with synthetic name
// name, or -1.
func batchChild(t *tree.Tree, i int32, name string) int32 {
	r := int32(-1)
	t.Children(i, func(c int32) bool {
		if t.Name(c) == name {
			r = c
			return false
		}
		return true
	})
	return r
}

// batchAttributes returns the attributes of RecordBatch node i (0 when it
// has none).
func batchAttributes(t *tree.Tree, i int32) int64 {
	if i < 0 {
		return 0
	}
	if a := batchChild(t, i, "attributes"); a >= 0 {
		return t.Nodes[a].Num
	}
	return 0
}

// partialBatchAbout says why the bytes at the end of a records field do not
// hold a whole batch.
func partialBatchAbout(d []byte) string {
	if len(d) < 17 {
		return strconv.Itoa(len(d)) + " bytes: too short for a batch header"
	}
	length := int32(binary.BigEndian.Uint32(d[8:]))
	return "batch length " + strconv.Itoa(int(length)) + ", " + strconv.Itoa(len(d)-12) + " bytes present"
}

// compressionName names the compression codec of attributes bits 0-2.
func compressionName(c int64) string {
	switch c {
	case 0:
		return "uncompressed"
	case 1:
		return "gzip"
	case 2:
		return "snappy"
	case 3:
		return "lz4"
	case 4:
		return "zstd"
	}
	return "compression " + strconv.FormatInt(c, 10)
}

// describeAttributes spells out a RecordBatch v2's attributes: compression
// (bits 0-2), timestamp type (bit 3), transactional (bit 4), control (bit
// 5) and delete horizon (bit 6).
func describeAttributes(v int64) string {
	s := compressionName(v & 7)
	if v&8 != 0 {
		s += ", LogAppendTime"
	} else {
		s += ", CreateTime"
	}
	if v&16 != 0 {
		s += ", transactional"
	}
	if v&32 != 0 {
		s += ", control"
	}
	if v&64 != 0 {
		s += ", delete horizon"
	}
	return s
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

// lengthAbout says what follows an array's or records' length prefix.
func lengthAbout(t *tree.Tree, n *tree.Node, c ctx) string {
	if c.parent >= 0 && t.Nodes[c.parent].Kind == tree.Records {
		if n.Num < 0 {
			return "null records"
		}
		if n.Num == 1 {
			return "1 byte of records follows"
		}
		return strconv.FormatInt(n.Num, 10) + " bytes of records follow"
	}
	switch {
	case n.Num < 0:
		return "null array"
	case n.Num == 0:
		return "no elements follow"
	case n.Num == 1 && t.Sample:
		return "one sample element follows"
	case n.Num == 1:
		return "1 element follows"
	}
	return strconv.FormatInt(n.Num, 10) + " elements follow"
}
