package render

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// This file keeps the straightforward renderers the streaming ones
// replaced, as the reference they must agree with byte for byte: the text
// tree built as a slice of rows of strings, and the JSON built compact in
// memory and then indented by encoding/json.

// row is one line of the object tree.
type row struct {
	lead   string    // the tree drawing before the name
	cells  [5]string // name, type, value ("= …"), range, about
	region region
}

// treeRows lays out t's nodes as rows, pre-order.
func treeRows(t *tree.Tree) []row {
	rows := make([]row, 0, len(t.Nodes))
	var walk func(i int32, c ctx, lead, childLead string)
	walk = func(i int32, c ctx, lead, childLead string) {
		rows = append(rows, nodeRow(t, i, c, lead))
		end := t.Nodes[i].End
		o := newOrdinals(t, i)
		for k := i + 1; k < end; {
			next := t.Nodes[k].End
			if next <= k {
				break
			}
			if next >= end {
				walk(k, childCtx(t, i, c, k, &o), childLead+"+-- ", childLead+"    ")
			} else {
				walk(k, childCtx(t, i, c, k, &o), childLead+"+-- ", childLead+"|   ")
			}
			k = next
		}
	}
	walk(0, childCtx(t, -1, ctx{}, 0, nil), "", "")
	return rows
}

func nodeRow(t *tree.Tree, i int32, c ctx, lead string) row {
	r := row{lead: lead, region: c.region}
	n := &t.Nodes[i]
	r.cells[0] = nodeName(t, i, c)
	r.cells[1] = nodeType(t, i, c)
	if v := nodeValue(t, i, c); v != "" {
		r.cells[2] = "= " + v
	}
	r.cells[3] = string(appendRange(nil, n.Off, n.Size))
	if n.Flags()&tree.FlagVirtual != 0 {
		r.cells[3] = "[v" + r.cells[3][1:]
	}
	r.cells[4] = nodeAbout(t, i, c)
	return r
}

// referenceTree is WriteTree's output, from treeRows.
func referenceTree(t *tree.Tree, color bool) string {
	if t == nil || len(t.Nodes) == 0 {
		return ""
	}
	rows := treeRows(t)
	var widths [5]int
	for k := range rows {
		r := &rows[k]
		widths[0] = max(widths[0], len(r.lead)+utf8.RuneCountInString(r.cells[0]))
		for c := 1; c < 5; c++ {
			widths[c] = max(widths[c], utf8.RuneCountInString(r.cells[c]))
		}
	}
	var b []byte
	for k := range rows {
		r := &rows[k]
		b = append(b, r.lead...)
		if color {
			b = append(b, colorOf(r.region)...)
		}
		start := len(b)
		used := len(r.lead)
		for c := 0; c < 5; c++ {
			if widths[c] == 0 {
				continue
			}
			b = append(b, r.cells[c]...)
			for pad := widths[c] + 2 - used - utf8.RuneCountInString(r.cells[c]); pad > 0; pad-- {
				b = append(b, ' ')
			}
			used = 0
		}
		end := len(b)
		for end > start && b[end-1] == ' ' {
			end--
		}
		b = b[:end]
		if color {
			b = append(b, colorReset...)
		}
		b = append(b, '\n')
	}
	return string(b)
}

// referenceText is WriteText's output, its tree from referenceTree.
func referenceText(t *testing.T, p *Page, o Options) string {
	var b strings.Builder
	b.Write(appendSummary(nil, p, o))
	for _, s := range p.Sides {
		b.WriteString("\n" + s.Label + "\n\n")
		if tr := s.Tree; tr != nil && len(tr.Nodes) > 0 {
			b.WriteString(sideTitle(tr) + "\n\nbyte layout (" + strconv.Itoa(len(tr.Bytes)) + " bytes, 16 bytes per row)\n\n")
			if err := WriteHex(&b, tr, o); err != nil {
				t.Fatal(err)
			}
			if len(tr.Virtual) > 0 {
				b.WriteString("\ndecompressed bytes (" + strconv.Itoa(len(tr.Virtual)) + " bytes, not on the wire: the v offsets of the tree)\n\n")
				if err := WriteHex(&b, &tree.Tree{Bytes: tr.Virtual}, Options{}); err != nil {
					t.Fatal(err)
				}
			}
			b.WriteString("\nobject tree\n\n" + referenceTree(tr, o.Color))
			if len(tr.Problems) > 0 {
				b.WriteString("\nproblems in the records\n\n")
				for _, p := range tr.Problems {
					kind := "error"
					if p.Notice {
						kind = "note"
					}
					b.WriteString("  " + kind + ": " + p.String() + "\n")
				}
			}
		}
		if s.Err != nil {
			if s.Tree != nil && len(s.Tree.Nodes) > 0 {
				b.WriteString("\n")
			}
			b.WriteString("error: " + s.Err.Error() + "\n")
		}
	}
	return b.String()
}

// referenceJSON is WriteJSON's output: the page built compact, then
// indented by json.Indent.
func referenceJSON(t *testing.T, p *Page) string { return referenceMembers(t, p, nil) }

// referenceMembers is WriteJSONMembers's output: the members are added to
// the compact page.
func referenceMembers(t *testing.T, p *Page, members func(k int, s *Side) ([]Member, error)) string {
	in := pageInfo(p)
	b := []byte(`{"api_key":`)
	b = appendIntOrNull(b, int64(in.key), in.key >= 0)
	b = append(b, `,"name":`...)
	b = appendStringOrNull(b, in.name, in.msg != nil)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, in.typ)
	b = append(b, `,"version":`...)
	b = appendIntOrNull(b, int64(in.version), in.msg != nil)
	flex, valid := "", ""
	if in.msg != nil {
		flex, valid = in.msg.FlexibleVersions.String(), in.msg.ValidVersions.String()
		if in.api {
			flex, valid = versionsText(in.req, in.resp, flexibleOf), versionsText(in.req, in.resp, validOf)
		}
	}
	b = append(b, `,"flexible_versions":`...)
	b = appendStringOrNull(b, flex, flex != "")
	b = append(b, `,"valid_versions":`...)
	b = appendStringOrNull(b, valid, valid != "")
	for k, s := range p.Sides {
		b = append(b, ',')
		b = appendJSONString(b, sideKey(s.Label, k))
		b = append(b, ':')
		b = refSide(b, &s)
		if members != nil {
			ms, err := members(k, &s)
			if err != nil {
				t.Fatal(err)
			}
			b = b[:len(b)-1]
			for _, m := range ms {
				b = append(b, ',')
				b = appendJSONString(b, m.Key)
				b = append(b, ':')
				if m.JSON == nil {
					b = append(b, "null"...)
				} else {
					b = append(b, m.JSON...)
				}
			}
			b = append(b, '}')
		}
	}
	b = append(b, '}')
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	return out.String()
}

func refSide(b []byte, s *Side) []byte {
	t := s.Tree
	b = append(b, `{"message":`...)
	hasMsg := t != nil && t.Message != nil
	if hasMsg {
		b = appendJSONString(b, t.Message.Name)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"version":`...)
	if hasMsg {
		b = strconv.AppendInt(b, int64(t.Version), 10)
	} else {
		b = append(b, "null"...)
	}
	var data []byte
	if t != nil {
		data = t.Bytes
	}
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, int64(len(data)), 10)
	b = append(b, `,"hex":"`...)
	b = hex.AppendEncode(b, data)
	b = append(b, `","header_version":`...)
	b = appendIntOrNull(b, int64(headerVersion(t)), t != nil && t.HeaderVersion >= 0)
	b = append(b, `,"error":`...)
	if s.Err != nil {
		b = appendJSONString(b, s.Err.Error())
	} else {
		b = append(b, "null"...)
	}
	if t != nil && len(t.Virtual) > 0 {
		b = append(b, `,"virtual_size":`...)
		b = strconv.AppendInt(b, int64(len(t.Virtual)), 10)
		b = append(b, `,"virtual_hex":"`...)
		b = hex.AppendEncode(b, t.Virtual)
		b = append(b, '"')
	}
	if t != nil && len(t.Problems) > 0 {
		b = append(b, `,"problems":[`...)
		for k, p := range t.Problems {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"offset":`...)
			b = strconv.AppendInt(b, int64(p.Off), 10)
			b = append(b, `,"virtual_offset":`...)
			b = appendIntOrNull(b, int64(p.VOff), p.VOff >= 0)
			b = append(b, `,"path":`...)
			b = appendJSONString(b, p.Path)
			b = append(b, `,"message":`...)
			b = appendJSONString(b, p.Msg)
			b = append(b, `,"notice":`...)
			b = strconv.AppendBool(b, p.Notice)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"tree":`...)
	if t == nil || len(t.Nodes) == 0 {
		b = append(b, "null"...)
	} else {
		b = refNode(b, t, 0, childCtx(t, -1, ctx{}, 0, nil), "", "")
	}
	return append(b, '}')
}

func refNode(b []byte, t *tree.Tree, i int32, c ctx, parentPath, structPath string) []byte {
	n := &t.Nodes[i]
	path := refPath(t, i, c, parentPath, structPath)
	b = append(b, `{"name":`...)
	b = appendJSONString(b, nodeName(t, i, c))
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, n.Kind().String())
	b = append(b, `,"type":`...)
	b = appendJSONString(b, nodeType(t, i, c))
	b = append(b, `,"value":`...)
	b = refValue(b, t, i)
	b = append(b, `,"text":`...)
	b = appendJSONString(b, nodeValue(t, i, c))
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(n.Off), 10)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, int64(n.Size), 10)
	if n.Flags()&tree.FlagVirtual != 0 {
		b = append(b, `,"virtual":true`...)
	}
	b = append(b, `,"about":`...)
	b = appendJSONString(b, nodeAbout(t, i, c))
	b = append(b, `,"path":`...)
	b = appendJSONString(b, path)
	b = append(b, `,"region":`...)
	b = appendJSONString(b, c.region.String())
	b = append(b, `,"children":[`...)
	if structLike(t, i) {
		structPath = path
	}
	batch := 0
	o := newOrdinals(t, i)
	for k := i + 1; k < n.End && t.Nodes[k].End > k; k = t.Nodes[k].End {
		if k > i+1 {
			b = append(b, ',')
		}
		pp := path
		if t.Nodes[k].Kind() == tree.RecordBatch {
			pp = path + "[" + strconv.Itoa(batch) + "]"
			batch++
		}
		b = refNode(b, t, k, childCtx(t, i, c, k, &o), pp, structPath)
	}
	return append(b, "]}"...)
}

func refPath(t *tree.Tree, i int32, c ctx, parentPath, structPath string) string {
	join := func(a, b string) string {
		if a == "" {
			return b
		}
		return a + "." + b
	}
	n := &t.Nodes[i]
	switch n.Kind() {
	case tree.Message:
		return ""
	case tree.Frame, tree.Header, tree.Body:
		if c.parent > 0 {
			return join(parentPath, nodeName(t, i, c))
		}
		return nodeName(t, i, c)
	case tree.Field, tree.Struct, tree.Array, tree.Records:
		if f := t.Field(i); f != nil {
			return join(structPath, f.Name)
		}
	case tree.Element:
		return parentPath + "[" + strconv.Itoa(int(t.Ordinal(i))) + "]"
	case tree.TagSection:
		return join(parentPath, "_tagged_fields")
	case tree.Tag, tree.UnknownTag:
		return join(parentPath, "tag"+strconv.FormatInt(t.Num(i), 10))
	case tree.RecordBatch:
		return parentPath
	}
	return join(parentPath, nodeName(t, i, c))
}

func refValue(b []byte, t *tree.Tree, i int32) []byte {
	n := &t.Nodes[i]
	switch n.Kind() {
	case tree.Array:
		return appendIntOrNull(b, int64(t.Count(i)), !n.Null())
	case tree.Records:
		return appendIntOrNull(b, int64(len(t.Data(i))), !n.Null())
	case tree.Length:
		if n.Wire() == tree.WireUvarint {
			return strconv.AppendInt(b, max(t.Num(i)+1, 0), 10)
		}
		return strconv.AppendInt(b, t.Num(i), 10)
	case tree.Element:
		if t.Struct(i) != nil {
			return append(b, "null"...)
		}
		return refScalar(b, n, t.Num(i), t.Data(i))
	case tree.Field, tree.Presence, tree.TagCount, tree.TagNumber, tree.TagSize, tree.BatchField, tree.FrameField, tree.Raw:
		return refScalar(b, n, t.Num(i), t.Data(i))
	case tree.TagSection:
		if n.End == i+1 {
			return append(b, '0')
		}
	}
	return append(b, "null"...)
}

func refScalar(b []byte, n *tree.Node, num int64, d []byte) []byte {
	switch n.Wire() {
	case tree.WireBool:
		return strconv.AppendBool(b, num != 0)
	case tree.WireFloat64:
		f := math.Float64frombits(uint64(num))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return appendJSONString(b, strconv.FormatFloat(f, 'g', -1, 64))
		}
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	case tree.WireUUID:
		return appendJSONString(b, string(appendUUID(nil, d)))
	case tree.WireString, tree.WireCompactString:
		if n.Null() {
			return append(b, "null"...)
		}
		return appendJSONString(b, string(d))
	case tree.WireBytes, tree.WireCompactBytes, tree.WireVarBytes, tree.WireRaw:
		if n.Null() {
			return append(b, "null"...)
		}
		b = append(b, '"')
		b = hex.AppendEncode(b, d)
		return append(b, '"')
	}
	return strconv.AppendInt(b, num, 10)
}

// referencePages are pages of every kind of node: smallest and random
// instances of every message version (random ones with long strings and
// bytes, encoded, decoded and cut short), record batches, tagged fields,
// and sides without a tree.
func referencePages(t *testing.T, each func(name string, p *Page)) {
	for _, release := range []string{"4.4.0", "3.9.1"} {
		s := embedded(t, release)
		c := codec.New(s)
		for _, m := range s.Messages {
			if m.Type == spec.Header {
				continue
			}
			label := map[spec.MessageType]string{spec.Request: "Request", spec.Response: "Response"}[m.Type]
			if label == "" {
				label = "Record"
			}
			side := func(tr *tree.Tree, err error) *Page {
				return &Page{Set: s, Sides: []Side{{Label: label, Tree: tr, Err: err}}}
			}
			for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
				name := m.Name + " v" + strconv.Itoa(int(v))
				each(name+" smallest", side(smallest(t, s, m, v), nil))
				r := rand.New(rand.NewPCG(uint64(v), 7))
				val := instance.Random(m, v, r, instance.RandomOptions{MaxBytes: 700})
				var enc *tree.Tree
				var err error
				if m.Type == spec.Request || m.Type == spec.Response {
					enc, err = c.Encode(m, v, nil, val)
				} else {
					enc, err = c.EncodeRecord(m, v, val)
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				each(name+" random", side(enc, nil))
				for _, cut := range []int{len(enc.Bytes), len(enc.Bytes) / 2} {
					in := enc.Bytes[:cut]
					var dec *tree.Tree
					switch m.Type {
					case spec.Request:
						dec, err = c.DecodeRequest(in)
					case spec.Response:
						dec, err = c.DecodeResponse(in, m, v)
					default:
						dec, err = c.DecodeRecord(in, m, v)
					}
					each(name+" decoded "+strconv.Itoa(cut), side(dec, err))
				}
			}
		}
	}
	s := embedded(t, "4.4.0")
	each("records", &Page{Set: s, Sides: []Side{{Label: "Request", Tree: recordsV3(t, s)}}})
	each("compressed records", &Page{Set: s, Sides: []Side{{Label: "Request", Tree: recordsCompressed(t, s)}}})
	each("tagged", &Page{Set: s, Sides: []Side{{Label: "Response", Tree: taggedVoteResponse(t, s)}}})
	each("no trees", &Page{Sides: []Side{{Label: "Request", Err: errors.New("no \"bytes\"\n")}, {}}})
}

// TestStreamingMatchesTheReference checks WriteText, WriteTree and
// WriteJSON against the reference renderers above.
func TestStreamingMatchesTheReference(t *testing.T) {
	if testing.Short() {
		t.Skip("renders every message version")
	}
	pages := 0
	referencePages(t, func(name string, p *Page) {
		pages++
		for _, o := range []Options{{}, {Color: true}} {
			var got bytes.Buffer
			if err := WriteText(&got, p, o); err != nil {
				t.Fatal(err)
			}
			if want := referenceText(t, p, o); got.String() != want {
				t.Fatalf("%s: WriteText (colour %v) differs from the reference:\n%s", name, o.Color, firstDiff(got.String(), want))
			}
			for _, s := range p.Sides {
				got.Reset()
				if err := WriteTree(&got, s.Tree, o); err != nil {
					t.Fatal(err)
				}
				if want := referenceTree(s.Tree, o.Color); got.String() != want {
					t.Fatalf("%s: WriteTree differs from the reference:\n%s", name, firstDiff(got.String(), want))
				}
			}
		}
		var got bytes.Buffer
		if err := WriteJSON(&got, p); err != nil {
			t.Fatal(err)
		}
		if want := referenceJSON(t, p); got.String() != want {
			t.Fatalf("%s: WriteJSON differs from the reference:\n%s", name, firstDiff(got.String(), want))
		}
	})
	if pages < 1000 {
		t.Errorf("only %d pages", pages)
	}
}

// TestLongValuesAreWrittenInChunks checks the JSON of strings and bytes
// longer than a chunk, with escapes and multi-byte runes (valid and
// broken) on every side of the cuts.
func TestLongValuesAreWrittenInChunks(t *testing.T) {
	pieces := []string{"a", "é", "€", "😀", "\"", "\\", "\n", "\x01", "\xff", "\xe2\x82", "\xf0\x9f\x98", "\x80\x80\x80\x80"}
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		var d []byte
		for len(d) < chunk*3+n%7 {
			d = append(d, pieces[r.IntN(len(pieces))]...)
		}
		// Start with the buffer nearly full, so that the chunks spill.
		var out bytes.Buffer
		s := newSink(&out, sinkSize)
		s.pad(sinkSize - sinkRoom - n)
		s.jsonChars(d)
		s.hexChars(d)
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		want := string(appendJSONChars([]byte(strings.Repeat(" ", sinkSize-sinkRoom-n)), d)) + hex.EncodeToString(d)
		if out.String() != want {
			t.Fatalf("chunked escaping and hex of %q differ", d)
		}
	}
}

// TestQuotedMatchesStrconv checks appendQuoted against strconv.Quote.
func TestQuotedMatchesStrconv(t *testing.T) {
	cases := []string{"", "plain", `a"b\c'd`, "\a\b\f\n\r\t\v\x00\x7f", "é€😀", "\u0085\u00ad\u2028\ufeff\U000e0001", "\xff\xfe", "\xe2\x82", "\xed\xa0\x80", "\ufffd"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		b := make([]byte, r.IntN(12))
		for k := range b {
			b[k] = byte(r.UintN(256))
		}
		cases = append(cases, string(b))
		var rs []rune
		for range r.IntN(6) {
			rs = append(rs, rune(r.IntN(0x30000)))
		}
		cases = append(cases, string(rs))
	}
	for _, c := range cases {
		if got, want := string(appendQuoted(nil, []byte(c))), strconv.Quote(c); got != want {
			t.Errorf("appendQuoted(%q) = %s, want %s", c, got, want)
		}
	}
}

// TestJSONMembersAreAddedToEachSide checks WriteJSONMembers against the
// members added to the compact page, indented with it.
func TestJSONMembersAreAddedToEachSide(t *testing.T) {
	s := embedded(t, "4.4.0")
	p := apiPage(t, s, "Vote", 2)
	p.Sides = append(p.Sides, Side{Label: "Record", Err: errors.New("none")})
	members := func(k int, sd *Side) ([]Member, error) {
		switch k {
		case 0:
			return []Member{{Key: "json", JSON: []byte(` {"a": [1, {"b": "x\"y"}, []], "c": {}}` + "\n")}, {Key: "header_json"}}, nil
		case 1:
			return []Member{{Key: "tab\there", JSON: []byte(`"` + strings.Repeat("long ", 20000) + `"`)}}, nil
		}
		return nil, nil
	}
	var got bytes.Buffer
	if err := WriteJSONMembers(&got, p, members); err != nil {
		t.Fatal(err)
	}
	if want := referenceMembers(t, p, members); got.String() != want {
		t.Fatalf("WriteJSONMembers differs from the reference:\n%s", firstDiff(got.String(), want))
	}
	for name, fn := range map[string]func(int, *Side) ([]Member, error){
		"failing":  func(int, *Side) ([]Member, error) { return nil, errors.New("no JSON") },
		"not JSON": func(int, *Side) ([]Member, error) { return []Member{{Key: "json", JSON: []byte("{")}}, nil },
	} {
		if err := WriteJSONMembers(io.Discard, p, fn); err == nil {
			t.Errorf("%s members: no error", name)
		}
	}
}

// TestIndexAgreesWithTheNodeFunctionsAndTheViews checks every answer of
// an Index against the Node* functions, the rows' tree drawing (depth)
// and the JSON's paths.
func TestIndexAgreesWithTheNodeFunctionsAndTheViews(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes every message version")
	}
	referencePages(t, func(name string, p *Page) {
		for _, s := range p.Sides {
			tr := s.Tree
			x := NewIndex(tr)
			if tr == nil || len(tr.Nodes) == 0 {
				if x.Name(0) != "" || x.Parent(0) != -1 || x.Depth(0) != -1 || x.Path(0) != "" {
					t.Errorf("%s: an Index of no nodes answers", name)
				}
				continue
			}
			rows := treeRows(tr)
			var paths []string
			var collect func(n map[string]any)
			collect = func(n map[string]any) {
				paths = append(paths, n["path"].(string))
				for _, c := range n["children"].([]any) {
					collect(c.(map[string]any))
				}
			}
			var page map[string]any
			var js bytes.Buffer
			if err := WriteJSON(&js, &Page{Sides: []Side{{Label: "side", Tree: tr}}}); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(js.Bytes(), &page); err != nil {
				t.Fatal(err)
			}
			collect(page["side"].(map[string]any)["tree"].(map[string]any))
			if len(rows) != len(tr.Nodes) || len(paths) != len(tr.Nodes) {
				t.Fatalf("%s: %d rows and %d JSON nodes for %d nodes", name, len(rows), len(paths), len(tr.Nodes))
			}
			for k := range tr.Nodes {
				i := int32(k)
				got := [6]string{x.Name(i), x.Type(i), x.Value(i), x.About(i), x.Region(i), x.Path(i)}
				want := [6]string{NodeName(tr, i), NodeType(tr, i), NodeValue(tr, i), NodeAbout(tr, i), NodeRegion(tr, i), paths[k]}
				if got != want {
					t.Fatalf("%s node %d: Index says %q, want %q", name, k, got, want)
				}
				if d := len(rows[k].lead) / 4; x.Depth(i) != d {
					t.Fatalf("%s node %d: depth %d, the row's drawing says %d", name, k, x.Depth(i), d)
				}
				if p := x.Parent(i); (k == 0) != (p == -1) || p >= i || (p >= 0 && (tr.Nodes[p].End <= i || x.Depth(p) != x.Depth(i)-1)) {
					t.Fatalf("%s node %d: parent %d", name, k, p)
				}
			}
			if x.Name(-1) != "" || x.Path(int32(len(tr.Nodes))) != "" || x.Parent(-1) != -1 || x.Tree() != tr {
				t.Errorf("%s: out-of-range nodes should give empty answers", name)
			}
		}
	})
}
