package render

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/tree"
)

// WriteJSON writes the page as one JSON object, indented by two spaces
// per level and ended by a newline:
//
//	{"api_key":54,"name":"EndQuorumEpoch","type":"api","version":1,
//	 "flexible_versions":"1+","valid_versions":"0-1",
//	 "request":{"message":…,"version":1,"size":62,"hex":"…","header_version":2,"error":null,"tree":{…}},
//	 "response":{…}}
//
// Each side is keyed by its lower-cased label ("request", "response",
// "record"). A tree node is {"name","kind","type","value","text","offset",
// "size","about","path","region","children"}: value is the JSON-native
// value (number, string, bool or null; a uuid as 8-4-4-4-12; bytes as hex;
// an array's element count; null for structs and other groups), text the
// row's "= …" text without "= ", path the field path
// ("VoteRequest.Topics[0].PreVote", "RequestHeader.ClientId"), children
// always present. Keys are stable: absent values are null.
//
// Records add keys only where they have something to say, so that other
// pages are unchanged: a node in a decompressed view has "virtual": true
// after "size" (its offset and size are in the decompressed bytes); a
// side whose tree has decompressed views has "virtual_size" and
// "virtual_hex" (those bytes) before "tree"; a side whose tree has
// problems has "problems" before "tree", a list of {"offset",
// "virtual_offset", "path", "message", "notice"} (see tree.Problem).
// Likewise a page of an input of several frames (Page.Frames > 0) has
// "frame", "frames" and "input_offset" after "valid_versions", and a
// side with a Note has "note" after "error".
//
// The JSON is written as the tree is walked, through a buffer of at most
// 64 KiB: memory does not grow with the output (a page's JSON is a few
// hundred times the size of its message).
func WriteJSON(w io.Writer, p *Page) error { return WriteJSONMembers(w, p, nil) }

// A Member is a key and value that WriteJSONMembers adds to a side.
type Member struct {
	Key string
	// JSON is the value as JSON text, or nil for null. It is indented to
	// fit the page.
	JSON []byte
	// Tree, when set, is the tree whose records nodes the markers of JSON
	// name (codec.RecordsMarked): each marker is written as the standard
	// base64 of its node's bytes, streamed, so that the value's records
	// are never held as text. JSON is then the compact JSON that
	// codec.ToJSON writes.
	Tree *tree.Tree
}

// WriteJSONMembers is WriteJSON with members added to each side's object
// after its own keys, as `kwire decode` adds the side's body in Kafka's
// converter format: members(k, s) returns those of side k (none when
// members is nil). The page is streamed, so when members fails, or returns
// a value that is not JSON, part of the page has been written: the error
// says the rest is missing.
func WriteJSONMembers(w io.Writer, p *Page, members func(k int, s *Side) ([]Member, error)) error {
	return WriteJSONWith(w, p, Options{}, members)
}

// WriteJSONWith is WriteJSONMembers with options: o.Values chooses how the
// "value" and "text" of record keys, values and header values are written
// (o.Color is not used). With a Values other than ValuesAuto, such a node
// (when not null) has one more key after "value": "value_encoding", the
// form its value is in: "utf8" (a string), "hex" (a string of hex
// digits), "base64" (a string) or "json" (the value itself, any JSON). With
// ValuesJSON, bytes that are not JSON are written as ValuesAuto's text
// shows them, printable text as "utf8" and the rest as "hex", and their
// "text" ends in ", not JSON)". With ValuesAuto the output is WriteJSON's.
func WriteJSONWith(w io.Writer, p *Page, o Options, members func(k int, s *Side) ([]Member, error)) error {
	j := jsonWriter{sink: newSink(w, jsonSize(p)), values: o.Values}
	in := pageInfo(p)
	j.b = append(j.b, "{\n  \"api_key\": "...)
	j.b = appendIntOrNull(j.b, int64(in.key), in.key >= 0)
	j.key(1, "name")
	j.b = appendStringOrNull(j.b, in.name, in.msg != nil)
	j.key(1, "type")
	j.b = appendJSONString(j.b, in.typ)
	j.key(1, "version")
	j.b = appendIntOrNull(j.b, int64(in.version), in.msg != nil)
	flex, valid := "", ""
	if in.msg != nil {
		flex, valid = in.msg.FlexibleVersions.String(), in.msg.ValidVersions.String()
		if in.api {
			flex, valid = versionsText(in.req, in.resp, flexibleOf), versionsText(in.req, in.resp, validOf)
		}
	}
	j.key(1, "flexible_versions")
	j.b = appendStringOrNull(j.b, flex, flex != "")
	j.key(1, "valid_versions")
	j.b = appendStringOrNull(j.b, valid, valid != "")
	if p.Frames > 0 {
		j.key(1, "frame")
		j.b = strconv.AppendInt(j.b, int64(p.Frame), 10)
		j.key(1, "frames")
		j.b = strconv.AppendInt(j.b, int64(p.Frames), 10)
		j.key(1, "input_offset")
		j.b = strconv.AppendInt(j.b, int64(p.Offset), 10)
	}
	for k := range p.Sides {
		if j.err != nil {
			break
		}
		j.b = append(j.b, ",\n  "...)
		j.b = appendJSONString(j.b, sideKey(p.Sides[k].Label, k))
		j.b = append(j.b, ": "...)
		j.side(&p.Sides[k])
		if members != nil && j.err == nil {
			ms, err := members(k, &p.Sides[k])
			if err != nil {
				j.err = err
				break
			}
			j.members(ms)
		}
		j.newline(1)
		j.b = append(j.b, '}')
	}
	j.b = append(j.b, "\n}\n"...)
	return j.close()
}

// jsonWriter writes a page's JSON.
type jsonWriter struct {
	*sink
	t *tree.Tree
	// cell holds one text (a name, an about…) on its way to being escaped.
	cell []byte
	// steps holds the paths of the nodes being written, root first; a
	// node knows its own and its parent's and struct's as spans of it.
	steps tree.Path
	// indented holds a Member's value, indented.
	indented bytes.Buffer
	// values is how record keys, values and header values are written.
	values Values
}

// jsonSize guesses the size of p's JSON, for the size of the buffer: a
// few hundred bytes a node, two a message byte.
func jsonSize(p *Page) int {
	n := 1 << 10
	for _, s := range p.Sides {
		if s.Tree != nil {
			n += 400*len(s.Tree.Nodes) + 2*len(s.Tree.Bytes)
		}
	}
	return n
}

// span is a node's path: steps[lo:hi].
type span struct{ lo, hi int }

// newline starts a line indented by depth levels.
func (j *jsonWriter) newline(depth int) {
	j.b = append(j.b, '\n')
	j.pad(2 * depth)
}

// key starts the next key of an object at depth: `,\n  "name": `.
func (j *jsonWriter) key(depth int, name string) {
	j.b = append(j.b, ',')
	j.newline(depth)
	j.b = append(j.b, '"')
	j.b = append(j.b, name...)
	j.b = append(j.b, `": `...)
}

// sideKey is a side's JSON key: its label in lower case, or "side<k>".
func sideKey(label string, k int) string {
	if label == "" {
		return "side" + strconv.Itoa(k)
	}
	return strings.ToLower(label)
}

// side writes side s, an object at depth 1 whose keys are at depth 2.
func (j *jsonWriter) side(s *Side) {
	t := s.Tree
	hasMsg := t != nil && t.Message != nil
	j.b = append(j.b, "{\n    \"message\": "...)
	if hasMsg {
		j.b = appendJSONString(j.b, t.Message.Name)
	} else {
		j.b = append(j.b, "null"...)
	}
	j.key(2, "version")
	if hasMsg {
		j.b = strconv.AppendInt(j.b, int64(t.Version), 10)
	} else {
		j.b = append(j.b, "null"...)
	}
	var data []byte
	if t != nil {
		data = t.Bytes
	}
	j.key(2, "size")
	j.b = strconv.AppendInt(j.b, int64(len(data)), 10)
	j.key(2, "hex")
	j.b = append(j.b, '"')
	j.hexChars(data)
	j.b = append(j.b, '"')
	j.key(2, "header_version")
	j.b = appendIntOrNull(j.b, int64(headerVersion(t)), t != nil && t.HeaderVersion >= 0)
	j.key(2, "error")
	if s.Err != nil {
		j.b = append(j.b, '"')
		j.jsonChars([]byte(s.Err.Error()))
		j.b = append(j.b, '"')
	} else {
		j.b = append(j.b, "null"...)
	}
	if s.Note != "" {
		j.key(2, "note")
		j.b = appendJSONString(j.b, s.Note)
	}
	if t != nil && len(t.Virtual) > 0 {
		// The decompressed bytes that virtual nodes refer to.
		j.key(2, "virtual_size")
		j.b = strconv.AppendInt(j.b, int64(len(t.Virtual)), 10)
		j.key(2, "virtual_hex")
		j.b = append(j.b, '"')
		j.hexChars(t.Virtual)
		j.b = append(j.b, '"')
	}
	if t != nil && len(t.Problems) > 0 {
		j.key(2, "problems")
		j.b = append(j.b, '[')
		for k, p := range t.Problems {
			if k > 0 {
				j.b = append(j.b, ',')
			}
			j.newline(3)
			j.b = append(j.b, '{')
			j.newline(4)
			j.b = append(j.b, `"offset": `...)
			j.b = strconv.AppendInt(j.b, int64(p.Off), 10)
			j.key(4, "virtual_offset")
			j.b = appendIntOrNull(j.b, int64(p.VOff), p.VOff >= 0)
			j.key(4, "path")
			j.b = appendJSONString(j.b, p.Path)
			j.key(4, "message")
			j.b = appendJSONString(j.b, p.Msg)
			j.key(4, "notice")
			j.b = strconv.AppendBool(j.b, p.Notice)
			j.newline(3)
			j.b = append(j.b, '}')
			j.spill()
		}
		j.newline(2)
		j.b = append(j.b, ']')
	}
	j.key(2, "tree")
	if t == nil || len(t.Nodes) == 0 {
		j.b = append(j.b, "null"...)
	} else {
		j.t = t
		j.steps = j.steps[:0]
		j.node(0, childCtx(t, -1, ctx{}, 0, nil), 3, span{}, span{}, -1)
	}
}

// members writes ms as further keys of a side (which are at depth 2).
func (j *jsonWriter) members(ms []Member) {
	for _, m := range ms {
		j.b = append(j.b, ',')
		j.newline(2)
		j.b = appendJSONString(j.b, m.Key)
		j.b = append(j.b, ": "...)
		if m.JSON == nil {
			j.b = append(j.b, "null"...)
			continue
		}
		if m.Tree != nil {
			if err := j.indentMarked(m.JSON, m.Tree); err != nil {
				j.err = fmt.Errorf("the page's %q: %w", m.Key, err)
				return
			}
			continue
		}
		j.indented.Reset()
		// json.Indent keeps trailing spaces, which would not be there had
		// the value been part of the page.
		if err := json.Indent(&j.indented, bytes.TrimRight(m.JSON, " \t\r\n"), "    ", "  "); err != nil {
			j.err = fmt.Errorf("the page's %q: %w", m.Key, err)
			return
		}
		j.raw(j.indented.Bytes())
	}
}

// indentMarked writes src, compact JSON as codec.ToJSON writes it, indented
// as json.Indent would with a prefix of four spaces and an indent of two,
// each records marker in its strings (codec.RecordsMarked) written as the
// base64 of that node of t, in chunks.
func (j *jsonWriter) indentMarked(src []byte, t *tree.Tree) error { return j.marked(src, t, true) }

// marked writes src, compact JSON as codec.ToJSON writes it, each records
// marker in its strings (codec.RecordsMarked) written as the base64 of
// that node of t, in chunks; indented as json.Indent would with a prefix
// of four spaces and an indent of two when indent is set, else as it is.
func (s *sink) marked(src []byte, t *tree.Tree, indent bool) error {
	depth := 0
	line := func() {
		if indent {
			s.b = append(s.b, '\n')
			s.pad(4 + 2*depth)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			k := i + 1
			for ; k < len(src) && src[k] != '"'; k++ {
				if src[k] == '\\' {
					k++
				}
			}
			if k >= len(src) {
				return fmt.Errorf("a string at %d does not end", i)
			}
			if k-i > 2 && src[i+1] == codec.RecordsMarker && src[k-1] == codec.RecordsMarker {
				n, err := strconv.Atoi(string(src[i+2 : k-1]))
				if err != nil || n < 0 || n >= len(t.Nodes) {
					return fmt.Errorf("a records marker at %d names no node", i)
				}
				s.b = append(s.b, '"')
				s.base64(t.Data(int32(n)))
				s.b = append(s.b, '"')
			} else if k+1-i <= chunk {
				s.b = append(s.b, src[i:k+1]...)
			} else {
				s.raw(src[i : k+1])
			}
			i = k
		case '{', '[':
			s.b = append(s.b, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				s.b = append(s.b, src[i+1])
				i++
				continue
			}
			depth++
			line()
		case '}', ']':
			depth--
			line()
			s.b = append(s.b, c)
		case ',':
			s.b = append(s.b, ',')
			line()
		case ':':
			s.b = append(s.b, ':')
			if indent {
				s.b = append(s.b, ' ')
			}
		default:
			s.b = append(s.b, c)
		}
		s.spill()
	}
	return nil
}

// base64 appends the standard base64 of d, a chunk at a time.
func (s *sink) base64(d []byte) {
	for len(d) > 0 {
		n := min(len(d), 3*chunk)
		s.b = base64.StdEncoding.AppendEncode(s.b, d[:n])
		d = d[n:]
		s.spill()
	}
}

func headerVersion(t *tree.Tree) int16 {
	if t == nil {
		return -1
	}
	return t.HeaderVersion
}

// node writes node i, whose ctx is c, and its subtree: an object whose
// keys are at depth. parent and st are the paths of its parent and of the
// struct whose fields i's field children are (tag sections and tag entries
// pass it through, so a tagged field's path is its struct's path plus its
// name, as in the codec's error paths). batch is i's position among its
// parent's record batches when i is one.
func (j *jsonWriter) node(i int32, c ctx, depth int, parent, st span, batch int) {
	t := j.t
	n := &t.Nodes[i]
	me := j.appendPath(i, c, parent, st, batch)
	j.spill()
	j.b = append(j.b, '{')
	j.newline(depth)
	j.b = append(j.b, `"name": `...)
	j.cell = appendName(j.cell[:0], t, i, c)
	j.b = appendJSONBytes(j.b, j.cell)
	j.key(depth, "kind")
	j.b = appendJSONString(j.b, n.Kind().String())
	j.key(depth, "type")
	j.cell = appendType(j.cell[:0], t, i, c)
	j.b = appendJSONBytes(j.b, j.cell)
	j.key(depth, "value")
	if j.values != ValuesAuto && recordBytes(t, i) {
		enc := j.recordValue(t.Data(i), depth)
		j.key(depth, "value_encoding")
		j.b = appendJSONString(j.b, enc)
	} else {
		j.value(i)
	}
	j.spill()
	j.key(depth, "text")
	j.cell = appendValueText(j.cell[:0], t, i, c, j.values)
	j.b = appendJSONBytes(j.b, j.cell)
	j.key(depth, "offset")
	j.b = strconv.AppendInt(j.b, int64(n.Off), 10)
	j.key(depth, "size")
	j.b = strconv.AppendInt(j.b, int64(n.Size), 10)
	if n.Flags()&tree.FlagVirtual != 0 {
		// Offset and size are in the decompressed bytes, not the wire's.
		j.key(depth, "virtual")
		j.b = append(j.b, "true"...)
	}
	j.key(depth, "about")
	j.cell = appendAbout(j.cell[:0], t, i, c)
	j.b = appendJSONBytes(j.b, j.cell)
	j.spill()
	j.key(depth, "path")
	j.cell = j.steps[me.lo:me.hi].Append(j.cell[:0])
	j.b = appendJSONBytes(j.b, j.cell)
	j.key(depth, "region")
	j.b = appendJSONString(j.b, c.region.String())
	j.key(depth, "children")
	j.b = append(j.b, '[')
	if structLike(t, i) {
		st = me
	}
	batches := 0
	o := newOrdinals(t, i)
	k := i + 1
	for ; k < n.End && t.Nodes[k].End > k && j.err == nil; k = t.Nodes[k].End {
		if k > i+1 {
			j.b = append(j.b, ',')
		}
		j.newline(depth + 1)
		b := -1
		if t.Nodes[k].Kind() == tree.RecordBatch {
			b = batches
			batches++
		}
		j.node(k, childCtx(t, i, c, k, &o), depth+2, me, st, b)
	}
	if k > i+1 {
		j.newline(depth)
	}
	j.b = append(j.b, ']')
	j.newline(depth - 1)
	j.b = append(j.b, '}')
	j.steps = j.steps[:me.lo]
}

// structLike reports whether node i's field children belong to it.
func structLike(t *tree.Tree, i int32) bool {
	switch t.Nodes[i].Kind() {
	case tree.Header, tree.Body, tree.Struct, tree.Embedded:
		return true
	case tree.Element:
		return t.Struct(i) != nil
	}
	return false
}

// appendPath appends node i's path to j.steps and returns where it is;
// parent, st and batch are as for node.
func (j *jsonWriter) appendPath(i int32, c ctx, parent, st span, batch int) span {
	lo := len(j.steps)
	j.steps = appendPathSteps(j.steps, j.t, i, c, j.steps[parent.lo:parent.hi], j.steps[st.lo:st.hi], int32(batch))
	return span{lo: lo, hi: len(j.steps)}
}

// appendPathSteps appends the steps of node i's path (see Index.Path) to
// p, given the paths of its parent and of the struct whose fields its
// field children are (tag sections and tag entries pass it through, so a
// tagged field's path is its struct's path plus its name, as in the
// codec's error paths). batch is i's position among its parent's record
// batches when i is one. parent and st may lie in p's array below len(p).
func appendPathSteps(p tree.Path, t *tree.Tree, i int32, c ctx, parent, st tree.Path, batch int32) tree.Path {
	n := &t.Nodes[i]
	switch n.Kind() {
	case tree.Message:
		return p
	case tree.Frame, tree.Header, tree.Body:
		if c.parent > 0 {
			// A metadata record's frame inside a record value.
			p = append(p, parent...)
		}
		return appendNameSteps(p, t, i, c)
	case tree.Field, tree.Struct, tree.Array, tree.Records:
		if f := t.Field(i); f != nil {
			return append(append(p, st...), tree.Name(f.Name))
		}
	case tree.Element:
		return append(append(p, parent...), tree.Index(int(c.ord)))
	case tree.TagSection:
		return append(append(p, parent...), tree.Name("_tagged_fields"))
	case tree.Tag, tree.UnknownTag:
		return append(append(p, parent...), tree.Name("tag"+strconv.FormatInt(t.Num(i), 10)))
	case tree.RecordBatch:
		// The path of a record batch is its records field's, indexed.
		p = append(p, parent...)
		if batch >= 0 {
			p = append(p, tree.Index(int(batch)))
		}
		return p
	}
	return appendNameSteps(append(p, parent...), t, i, c)
}

// appendNameSteps appends node i's name (appendName's) as path steps: a
// name repeated with an index ("Record[2]", "headerKey[1]") as a name and
// an index step.
func appendNameSteps(p tree.Path, t *tree.Tree, i int32, c ctx) tree.Path {
	n := &t.Nodes[i]
	ref := tree.RefOf(n.Ref())
	switch {
	case ref.Name != "" && (n.Kind() == tree.Record && ref.Name == "Record" ||
		n.Kind() == tree.BatchField && (ref.Name == "headerKey" || ref.Name == "headerValue")):
		return append(p, tree.Name(ref.Name), tree.Index(int(c.ord)))
	case ref.Name != "" && !(n.Kind() == tree.RecordBatch && ref.Name == "LegacyMessage"):
		return append(p, tree.Name(ref.Name))
	case ref.Name == "" && n.Kind() == tree.Record:
		return append(p, tree.Name("Record"), tree.Index(int(c.ord)))
	}
	return append(p, tree.Name(string(appendName(nil, t, i, c))))
}

// value writes node i's JSON-native value.
func (j *jsonWriter) value(i int32) {
	t := j.t
	n := &t.Nodes[i]
	if n.Flags()&tree.FlagSecret != 0 && !n.Null() {
		j.b = append(append(append(j.b, '"'), secret.Text(t.DataLen(i))...), '"')
		return
	}
	switch n.Kind() {
	case tree.Array:
		j.b = appendIntOrNull(j.b, int64(t.Count(i)), !n.Null())
		return
	case tree.Records:
		j.b = appendIntOrNull(j.b, int64(len(t.Data(i))), !n.Null())
		return
	case tree.Length:
		if n.Wire() == tree.WireUvarint {
			j.b = strconv.AppendInt(j.b, max(t.Num(i)+1, 0), 10)
		} else {
			j.b = strconv.AppendInt(j.b, t.Num(i), 10)
		}
		return
	case tree.Element:
		if t.Struct(i) == nil {
			j.scalar(n, t.Num(i), t.Data(i))
			return
		}
	case tree.Field, tree.Presence, tree.TagCount, tree.TagNumber, tree.TagSize, tree.BatchField, tree.FrameField, tree.Raw:
		j.scalar(n, t.Num(i), t.Data(i))
		return
	case tree.TagSection:
		if n.End == i+1 {
			j.b = append(j.b, '0')
			return
		}
	}
	j.b = append(j.b, "null"...)
}

// scalar writes leaf n's value: num is its integer (Tree.Num), d its
// contents (Tree.Data). Strings and
// bytes are written whole, in chunks.
func (j *jsonWriter) scalar(n *tree.Node, num int64, d []byte) {
	switch n.Wire() {
	case tree.WireBool:
		j.b = strconv.AppendBool(j.b, num != 0)
		return
	case tree.WireFloat64:
		f := math.Float64frombits(uint64(num))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			// "NaN", "+Inf", "-Inf": nothing to escape.
			j.b = append(j.b, '"')
			j.b = strconv.AppendFloat(j.b, f, 'g', -1, 64)
			j.b = append(j.b, '"')
			return
		}
		j.b = strconv.AppendFloat(j.b, f, 'g', -1, 64)
		return
	case tree.WireUUID:
		// Hex digits, "-", "empty" or "…": nothing to escape.
		j.b = append(j.b, '"')
		j.b = appendUUID(j.b, d)
		j.b = append(j.b, '"')
		return
	case tree.WireString, tree.WireCompactString:
		if n.Null() {
			j.b = append(j.b, "null"...)
			return
		}
		j.b = append(j.b, '"')
		j.jsonChars(d)
		j.b = append(j.b, '"')
		return
	case tree.WireBytes, tree.WireCompactBytes, tree.WireVarBytes, tree.WireRaw:
		if n.Null() {
			j.b = append(j.b, "null"...)
			return
		}
		j.b = append(j.b, '"')
		j.hexChars(d)
		j.b = append(j.b, '"')
		return
	}
	j.b = strconv.AppendInt(j.b, num, 10)
}

func appendIntOrNull(b []byte, v int64, ok bool) []byte {
	if !ok {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, v, 10)
}

func appendStringOrNull(b []byte, s string, ok bool) []byte {
	if !ok {
		return append(b, "null"...)
	}
	return appendJSONString(b, s)
}

// appendJSONString writes s as a JSON string (codec.AppendJSONString, the
// one JSON string writer).
func appendJSONString(b []byte, s string) []byte { return codec.AppendJSONString(b, s) }

// appendJSONBytes is appendJSONString for bytes.
func appendJSONBytes(b, d []byte) []byte { return codec.AppendJSONString(b, d) }

// appendJSONChars appends d escaped as appendJSONString escapes, without
// the quotes.
func appendJSONChars(b, d []byte) []byte { return codec.AppendJSONChars(b, d) }
