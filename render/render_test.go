package render

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (not the seed extracts)")

// seedVectors are the seed vectors of docs/wire-cases.md: the frames of the
// seed pages (testdata/seed00*).
var seedVectors = []struct {
	name    string
	version int16
	hex     string
}{
	{"EndQuorumEpochRequest", 1, "0000003a00360001000000000000000102010200000000000000000000000002000000000000000000000000000000000000000000000002010100000000"},
	{"EndQuorumEpochResponse", 1, "0000001b000000000000000201020000000000000000000000000000000000"},
	{"VoteRequest", 2, "0000004f00340002000000000000000100000000020102000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
	{"VoteResponse", 2, "0000001c00000000000000020102000000000000000000000000000000000000"},
}

func embedded(t testing.TB, release string) *spec.Set {
	t.Helper()
	s, err := spec.Embedded(release)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// smallest encodes the smallest instance of a message (framed for a
// request or response, with the metadata frame for a record) as a sample.
func smallest(t testing.TB, s *spec.Set, m *spec.Message, v int16) *tree.Tree {
	t.Helper()
	c := codec.New(s)
	var tr *tree.Tree
	var err error
	if m.Type == spec.Request || m.Type == spec.Response {
		tr, err = c.Encode(m, v, nil, instance.Smallest(m, v))
	} else {
		tr, err = c.EncodeRecord(m, v, instance.Smallest(m, v))
	}
	if err != nil {
		t.Fatalf("%s v%d: %v", m.Name, v, err)
	}
	tr.Sample = true
	return tr
}

func smallestByName(t testing.TB, s *spec.Set, name string, v int16) *tree.Tree {
	t.Helper()
	m := s.Message(name)
	if m == nil {
		t.Fatalf("no spec %s", name)
	}
	return smallest(t, s, m, v)
}

func treeText(t testing.TB, tr *tree.Tree) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteTree(&b, tr, Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := readTestdata(t, name)
	if got != want {
		t.Errorf("%s differs (run go test ./render/ -update and review the diff):\n%s", name, firstDiff(got, want))
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for k := 0; k < max(len(g), len(w)); k++ {
		var gl, wl string
		if k < len(g) {
			gl = g[k]
		}
		if k < len(w) {
			wl = w[k]
		}
		if gl != wl {
			return "line " + strconv.Itoa(k+1) + ":\n got: " + strings.ReplaceAll(gl, " ", "·") + "\nwant: " + strings.ReplaceAll(wl, " ", "·")
		}
	}
	return "(no line differs)"
}

func TestSeedPageEndQuorumEpochV1ObjectTreesAreReproducedExactly(t *testing.T) {
	s := embedded(t, "4.4.0")
	for _, c := range []struct{ msg, seed string }{
		{"EndQuorumEpochRequest", "seed000_endquorumepoch_v1_request.txt"},
		{"EndQuorumEpochResponse", "seed000_endquorumepoch_v1_response.txt"},
	} {
		t.Run(c.msg, func(t *testing.T) {
			got := seedTypes(treeText(t, smallestByName(t, s, c.msg, 1)))
			want := readTestdata(t, c.seed)
			if got != want {
				t.Errorf("object tree differs from seed 000:\n%s", firstDiff(got, want))
			}
		})
	}
}

// seedTypes types the body fields of a text tree as the seed pages do:
// "string" where kwire writes "nullable_string" for a string that is
// nullable at the version (as the header's client_id, which the seed pages
// type nullable_string too), padded to the same width. TestNullableTypes
// checks kwire's types.
func seedTypes(tree string) string {
	lines := strings.Split(tree, "\n")
	for k, l := range lines {
		if !strings.Contains(l, "client_id") {
			lines[k] = strings.ReplaceAll(l, "nullable_string", "string         ")
		}
	}
	return strings.Join(lines, "\n")
}

// collapse joins fields with single spaces, as the flattened seed page 001
// shows its text tree.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestSeedPageVoteV2ObjectTreesMatchRowByRow(t *testing.T) {
	s := embedded(t, "4.4.0")
	for _, c := range []struct{ msg, seed string }{
		{"VoteRequest", "seed001_vote_v2_request.flat.txt"},
		{"VoteResponse", "seed001_vote_v2_response.flat.txt"},
	} {
		t.Run(c.msg, func(t *testing.T) {
			got := seedTypes(treeText(t, smallestByName(t, s, c.msg, 2)))
			rest := collapse(readTestdata(t, c.seed))
			rows := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			for k, r := range rows {
				row := collapse(r)
				if !strings.HasPrefix(rest, row) {
					n := min(len(rest), len(row)+20)
					t.Fatalf("row %d:\n got: %s\nseed: %s", k, row, rest[:n])
				}
				rest = strings.TrimPrefix(rest[len(row):], " ")
			}
			if rest != "" {
				t.Errorf("seed rows left over: %s", rest)
			}
		})
	}
}

func TestDecodedSeedVectorsRenderLikeTheEncodedInstances(t *testing.T) {
	s := embedded(t, "4.4.0")
	c := codec.New(s)
	for _, v := range seedVectors {
		t.Run(v.name, func(t *testing.T) {
			b, _ := hex.DecodeString(v.hex)
			m := s.Message(v.name)
			var dt *tree.Tree
			var err error
			if m.Type == spec.Request {
				dt, err = c.DecodeRequest(b)
			} else {
				dt, err = c.DecodeResponse(b, m, v.version)
			}
			if err != nil {
				t.Fatal(err)
			}
			dt.Sample = true
			et := smallest(t, s, m, v.version)
			if got, want := treeText(t, dt), treeText(t, et); got != want {
				t.Errorf("decoded tree renders differently:\n%s", firstDiff(got, want))
			}
		})
	}
}

func apiPage(t testing.TB, s *spec.Set, base string, v int16) *Page {
	t.Helper()
	return &Page{Set: s, Sides: []Side{
		{Label: "Request", Tree: smallestByName(t, s, base+"Request", v)},
		{Label: "Response", Tree: smallestByName(t, s, base+"Response", v)},
	}}
}

func decodeJSON(t *testing.T, p *Page) map[string]any {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSON(&b, p); err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, b.String())
	}
	return out
}

var nodeKeys = []string{"name", "kind", "type", "value", "text", "offset", "size", "about", "path", "region", "children"}

// checkNodes checks every node has the stable keys and a children array,
// and collects nodes by path.
func checkNodes(t *testing.T, n map[string]any, byPath map[string]map[string]any) {
	t.Helper()
	for _, k := range nodeKeys {
		if _, ok := n[k]; !ok {
			t.Fatalf("node %v has no key %q", n["path"], k)
		}
	}
	byPath[n["path"].(string)] = n
	kids, ok := n["children"].([]any)
	if !ok {
		t.Fatalf("node %v: children is %T, want an array", n["path"], n["children"])
	}
	for _, c := range kids {
		checkNodes(t, c.(map[string]any), byPath)
	}
}

func TestJSONHasTheStableKeysAndTheSeedVectors(t *testing.T) {
	s := embedded(t, "4.4.0")
	for _, c := range []struct {
		base    string
		version int16
		flex    string
		valid   string
		key     float64
	}{{"EndQuorumEpoch", 1, "1+", "0-1", 54}, {"Vote", 2, "0+", "0-2", 52}} {
		t.Run(c.base, func(t *testing.T) {
			out := decodeJSON(t, apiPage(t, s, c.base, c.version))
			want := map[string]any{"api_key": c.key, "name": c.base, "version": float64(c.version), "flexible_versions": c.flex, "valid_versions": c.valid}
			for k, v := range want {
				if out[k] != v {
					t.Errorf("%s = %v, want %v", k, out[k], v)
				}
			}
			for _, side := range []string{"request", "response"} {
				sd, ok := out[side].(map[string]any)
				if !ok {
					t.Fatalf("no %q object", side)
				}
				for _, v := range seedVectors {
					if v.name == c.base+strings.ToUpper(side[:1])+side[1:] && sd["hex"] != v.hex {
						t.Errorf("%s hex = %v, want %s", side, sd["hex"], v.hex)
					}
				}
				if sd["size"] != float64(len(sd["hex"].(string))/2) {
					t.Errorf("%s size %v does not match its hex", side, sd["size"])
				}
				for _, k := range []string{"header_version", "tree", "error"} {
					if _, ok := sd[k]; !ok {
						t.Errorf("%s has no key %q", side, k)
					}
				}
				root := sd["tree"].(map[string]any)
				byPath := map[string]map[string]any{}
				checkNodes(t, root, byPath)
				var kinds []string
				for _, ch := range root["children"].([]any) {
					kinds = append(kinds, ch.(map[string]any)["kind"].(string))
				}
				if strings.Join(kinds, ",") != "frame,header,body" {
					t.Errorf("%s root children are %v, want frame, header, body", side, kinds)
				}
			}
		})
	}
}

func TestJSONValuesAndPaths(t *testing.T) {
	s := embedded(t, "4.4.0")
	out := decodeJSON(t, apiPage(t, s, "Vote", 2))
	byPath := map[string]map[string]any{}
	checkNodes(t, out["request"].(map[string]any)["tree"].(map[string]any), byPath)
	for path, want := range map[string]any{
		"VoteRequest.Topics[0].Partitions[0].PreVote":            false,
		"VoteRequest.Topics[0].Partitions[0].ReplicaDirectoryId": "00000000-0000-0000-0000-000000000000",
		"VoteRequest.ClusterId":                                  "",
		"VoteRequest.Topics":                                     float64(1),
		"VoteRequest.Topics.length":                              float64(2),
		"VoteRequest.Topics[0]":                                  nil,
		"RequestHeader.ClientId":                                 "",
		"RequestHeader.RequestApiKey":                            float64(52),
		"Frame.size":                                             float64(79),
		"VoteRequest._tagged_fields":                             float64(0),
	} {
		n, ok := byPath[path]
		if !ok {
			t.Errorf("no node with path %s", path)
			continue
		}
		if n["value"] != want {
			t.Errorf("%s value = %#v, want %#v", path, n["value"], want)
		}
	}
	if n := byPath["RequestHeader.RequestApiKey"]; n["text"] != "52 (Vote)" || n["name"] != "request_api_key" || n["region"] != "header" {
		t.Errorf("api key node = %v", n)
	}
	if n := byPath["VoteRequest.ClusterId"]; n["text"] != `"" (compact, len+1=1)` || n["offset"] != float64(15) || n["size"] != float64(1) {
		t.Errorf("ClusterId node = %v", n)
	}
}

func TestJSONOfARecordTypeHasOneRecordSide(t *testing.T) {
	s := embedded(t, "4.4.0")
	tr := smallestByName(t, s, "PartitionRecord", 0)
	out := decodeJSON(t, &Page{Set: s, Sides: []Side{{Label: "Record", Tree: tr}}})
	if out["type"] != "metadata" || out["name"] != "PartitionRecord" || out["api_key"] != float64(3) {
		t.Errorf("record page = type %v name %v api_key %v", out["type"], out["name"], out["api_key"])
	}
	rec, ok := out["record"].(map[string]any)
	if !ok || rec["header_version"] != nil {
		t.Fatalf("record side = %v", out["record"])
	}
	if _, ok := out["request"]; ok {
		t.Error("a record page has a request side")
	}
}

// TestNodeFunctionsAgreeWithTheTreeRows checks the exported per-node
// functions (which find a node's context on their own) against the rows
// of WriteTree (which compute it while walking), for every node.
func TestNodeFunctionsAgreeWithTheTreeRows(t *testing.T) {
	s := embedded(t, "4.4.0")
	trees := []*tree.Tree{
		smallestByName(t, s, "VoteRequest", 2),
		smallestByName(t, s, "ProduceRequest", 3),
		smallestByName(t, s, "PartitionRecord", 0),
		taggedVoteResponse(t, s),
	}
	for _, tr := range trees {
		rows := treeRows(tr)
		if len(rows) != len(tr.Nodes) {
			t.Fatalf("%s: %d rows for %d nodes", tr.Message.Name, len(rows), len(tr.Nodes))
		}
		for i := range tr.Nodes {
			r := rows[i]
			id := int32(i)
			val := NodeValue(tr, id)
			if val != "" {
				val = "= " + val
			}
			got := [4]string{NodeName(tr, id), NodeType(tr, id), val, NodeAbout(tr, id)}
			want := [4]string{r.cells[0], r.cells[1], r.cells[2], r.cells[4]}
			if got != want || NodeRegion(tr, id) != r.region.String() {
				t.Errorf("%s node %d: functions say %q/%s, row says %q/%s", tr.Message.Name, i, got, NodeRegion(tr, id), want, r.region)
			}
		}
	}
}

func TestRegions(t *testing.T) {
	s := embedded(t, "4.4.0")
	tr := smallestByName(t, s, "ProduceRequest", 3)
	seen := map[string]bool{}
	for i := range tr.Nodes {
		seen[NodeRegion(tr, int32(i))] = true
		if k := tr.Nodes[i].Kind(); k == tree.BatchField && NodeRegion(tr, int32(i)) != "RecordBatch" {
			t.Errorf("batch field %s in region %s", NodeName(tr, int32(i)), NodeRegion(tr, int32(i)))
		}
	}
	for _, r := range []string{"frame", "header", "body", "RecordBatch"} {
		if !seen[r] {
			t.Errorf("no node in region %s", r)
		}
	}
	v := smallestByName(t, s, "VoteRequest", 2)
	hdrTags := v.Nodes[v.Part(tree.Header)].End - 1
	if got := NodeRegion(v, hdrTags); got != "tagged_fields" {
		t.Errorf("header tag section region = %s", got)
	}
	if NodeRegion(v, -1) != "" || NodeName(v, int32(len(v.Nodes))) != "" {
		t.Error("out-of-range nodes should give empty strings")
	}
}

func TestRecordsAreShownAsRecordBatchNodes(t *testing.T) {
	s := embedded(t, "4.4.0")
	tr := smallestByName(t, s, "ProduceRequest", 3)
	found := false
	for i := range tr.Nodes {
		if tr.Nodes[i].Kind() == tree.RecordBatch {
			found = true
			if NodeType(tr, int32(i)) != "RecordBatch v2" || NodeName(tr, int32(i)) != "RecordBatch" {
				t.Errorf("batch row = %s %s", NodeName(tr, int32(i)), NodeType(tr, int32(i)))
			}
		}
	}
	if !found {
		t.Fatal("Produce v3 has no RecordBatch node")
	}
	golden(t, "produce_v3_request.tree.txt", treeText(t, tr))
}

func TestPageOfAMetadataRecord(t *testing.T) {
	s := embedded(t, "4.4.0")
	tr := smallestByName(t, s, "PartitionRecord", 2)
	var b bytes.Buffer
	if err := WriteText(&b, &Page{Set: s, Sides: []Side{{Label: "Record", Tree: tr}}}, Options{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "partitionrecord_v2.page.txt", b.String())
}

func TestPageOfEndQuorumEpochV1(t *testing.T) {
	s := embedded(t, "4.4.0")
	var b bytes.Buffer
	if err := WriteText(&b, apiPage(t, s, "EndQuorumEpoch", 1), Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"API key            54 (EndQuorumEpoch)",
		"Encoded at         v1",
		"Flexible versions  1+",
		"Headers            req v2, resp v1",
		"Request versions   0-1",
		"Response versions  0-1",
		"Request size       62 bytes",
		"Response size      31 bytes",
		"EndQuorumEpochRequest v1, request header v2, 62 bytes on the wire",
		"EndQuorumEpochResponse v1, response header v1, 31 bytes on the wire",
		"byte layout (62 bytes, 16 bytes per row)",
		"0000  00 00 00 3a 00 36 00 01 00 00 00 00 00 00 00 01  ...:.6..........\n",
		"0030  00 00 00 00 00 00 00 02 01 01 00 00 00 00        ..............\n",
		"object tree\n\nEndQuorumEpochRequest ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	golden(t, "endquorumepoch_v1.page.txt", out)
}

func TestTaggedFieldsAndUnknownTags(t *testing.T) {
	s := embedded(t, "4.4.0")
	golden(t, "vote_v2_response_tagged.tree.txt", treeText(t, taggedVoteResponse(t, s)))
}

// taggedVoteResponse encodes a VoteResponse v2 whose body carries the
// tagged NodeEndpoints field and an unknown tag 7.
func taggedVoteResponse(t testing.TB, s *spec.Set) *tree.Tree {
	t.Helper()
	m := s.Message("VoteResponse")
	field := func(st *spec.Struct, name string) *spec.Field {
		for _, f := range st.Fields {
			if f.Name == name {
				return f
			}
		}
		t.Fatalf("no field %s", name)
		return nil
	}
	v := &tree.Tree{}
	b := tree.Builder{T: v}
	b.Open(tree.Node{S: tree.NewShape(tree.Body, tree.WireNone, tree.StructRef(m.Root), 0)})
	ne := field(m.Root, "NodeEndpoints")
	st := ne.Type.Struct
	b.Open(tree.Node{S: tree.NewShape(tree.Array, tree.WireNone, tree.FieldRef(ne), 0)})
	b.Open(tree.Node{S: tree.NewShape(tree.Element, tree.WireNone, tree.StructRef(st), 0)})
	b.LeafNum(tree.Node{S: tree.NewShape(tree.Field, tree.WireNone, tree.FieldRef(field(st, "NodeId")), 0)}, 1)
	b.LeafData(tree.Node{S: tree.NewShape(tree.Field, tree.WireNone, tree.FieldRef(field(st, "Host")), 0)}, []byte("broker-1.example.com"))
	b.LeafNum(tree.Node{S: tree.NewShape(tree.Field, tree.WireNone, tree.FieldRef(field(st, "Port")), 0)}, 9092)
	b.Close(0)
	b.Close(0)
	b.LeafTag(7, []byte{1, 2, 3})
	b.Close(0)
	tr, err := codec.New(s).Encode(m, 2, nil, v)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestWriteTextAndJSONForEveryMessageVersionAndSide(t *testing.T) {
	for _, release := range []string{"4.4.0", "3.9.1"} {
		s := embedded(t, release)
		pages := 0
		for _, m := range s.Messages {
			switch m.Type {
			case spec.Response:
				continue // on its request's page
			case spec.Header:
				continue // framed with every request and response
			}
			for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
				p := &Page{Set: s}
				if m.Type == spec.Request {
					p.Sides = append(p.Sides, Side{Label: "Request", Tree: smallest(t, s, m, v)})
					if r := s.Response(m.APIKey); r != nil && r.ValidVersions.Contains(v) {
						p.Sides = append(p.Sides, Side{Label: "Response", Tree: smallest(t, s, r, v)})
					}
				} else {
					p.Sides = append(p.Sides, Side{Label: "Record", Tree: smallest(t, s, m, v)})
				}
				checkPage(t, p)
				pages++
			}
		}
		if pages < 200 {
			t.Errorf("%s: only %d pages", release, pages)
		}
		if release == "3.9.1" && s.Message("LeaderAndIsrRequest") == nil {
			t.Error("3.9.1 has no LeaderAndIsr")
		}
	}
}

func checkPage(t *testing.T, p *Page) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteText(&b, p, Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	tr := p.Sides[0].Tree
	want := []string{"Encoded at         v", tr.Message.Name + " v", "object tree", "byte layout ("}
	switch {
	case tr.Message.VersionPrefixed():
		want = append(want, "Record type  ", "Topic  ", "+-- Frame ")
	case tr.Message.APIKey >= 0:
		want = append(want, "API key  ")
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Fatalf("%s v%d: page lacks %q", tr.Message.Name, tr.Version, w)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Fatalf("%s v%d: escape codes without colour", tr.Message.Name, tr.Version)
	}
	b.Reset()
	if err := WriteJSON(&b, p); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b.Bytes()) {
		t.Fatalf("%s v%d: invalid JSON", tr.Message.Name, tr.Version)
	}
}

func TestColourOnlyWhenAskedFor(t *testing.T) {
	s := embedded(t, "4.4.0")
	p := apiPage(t, s, "Produce", 3)
	tr := p.Sides[0].Tree
	for _, color := range []bool{false, true} {
		o := Options{Color: color}
		var page, tre, hx bytes.Buffer
		if err := WriteText(&page, p, o); err != nil {
			t.Fatal(err)
		}
		if err := WriteTree(&tre, tr, o); err != nil {
			t.Fatal(err)
		}
		if err := WriteHex(&hx, tr, o); err != nil {
			t.Fatal(err)
		}
		for name, out := range map[string]string{"WriteText": page.String(), "WriteTree": tre.String(), "WriteHex": hx.String()} {
			if has := strings.Contains(out, "\x1b["); has != color {
				t.Errorf("%s with Color=%v: escape codes present = %v", name, color, has)
			}
		}
		if color {
			// Colour must not change the text itself.
			var plain bytes.Buffer
			WriteTree(&plain, tr, Options{})
			if stripANSI(tre.String()) != plain.String() {
				t.Error("coloured tree differs from the plain one once escapes are removed")
			}
			for _, c := range []string{regionColors[regionBatch], regionColors[regionHeader], regionColors[regionFrame]} {
				if !strings.Contains(hx.String(), c) {
					t.Errorf("hex grid lacks colour %q", c)
				}
			}
		}
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for k := 0; k < len(s); k++ {
		if s[k] == 0x1b {
			for k < len(s) && s[k] != 'm' {
				k++
			}
			continue
		}
		b.WriteByte(s[k])
	}
	return b.String()
}

func TestHexRowsHaveOffsetsAndAnASCIIColumn(t *testing.T) {
	s := embedded(t, "4.4.0")
	var b bytes.Buffer
	if err := WriteHex(&b, smallestByName(t, s, "VoteResponse", 2), Options{}); err != nil {
		t.Fatal(err)
	}
	want := "       0  1  2  3  4  5  6  7  8  9  A  B  C  D  E  F\n" +
		"0000  00 00 00 1c 00 00 00 00 00 00 00 02 01 02 00 00  ................\n" +
		"0010  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................\n"
	if b.String() != want {
		t.Errorf("hex:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestAPartialDecodeShowsItsTreeThenTheError(t *testing.T) {
	s := embedded(t, "4.4.0")
	c := codec.New(s)
	full, _ := hex.DecodeString(seedVectors[2].hex)
	cut := append([]byte{0, 0, 0, 0x20}, full[4:0x24]...) // size says 32, the body stops inside a uuid
	tr, err := c.DecodeRequest(cut)
	if err == nil {
		t.Fatal("truncated request decoded without error")
	}
	var b bytes.Buffer
	if werr := WriteText(&b, &Page{Set: s, Sides: []Side{{Label: "Request", Tree: tr, Err: err}}}, Options{}); werr != nil {
		t.Fatal(werr)
	}
	out := b.String()
	if !strings.Contains(out, "+-- ReplicaId ") || !strings.HasSuffix(out, "error: "+err.Error()+"\n") {
		t.Errorf("partial page:\n%s", out)
	}
	if !json.Valid(mustJSON(t, &Page{Sides: []Side{{Label: "Request", Tree: tr, Err: err}}})) {
		t.Error("invalid JSON for a partial tree")
	}
	// Nothing decodable at all: a side without a tree.
	b.Reset()
	if werr := WriteText(&b, &Page{Sides: []Side{{Label: "Request", Err: errors.New("no bytes")}}}, Options{}); werr != nil || !strings.Contains(b.String(), "error: no bytes") {
		t.Errorf("page without a tree: %q %v", b.String(), werr)
	}
}

func mustJSON(t *testing.T, p *Page) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSON(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestValueTexts(t *testing.T) {
	for _, c := range []struct {
		name string
		n    tree.Node
		num  int64
		data []byte
		want string
	}{
		{"compact string length is len+1", tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireCompactString, 0, 0)}, 0, []byte("ab"), `"ab" (compact, len+1=3)`},
		{"compact null string is 0", tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireCompactString, 0, 0).With(tree.FlagNull)}, 0, nil, "null (compact, 0)"},
		{"int16 null string is -1", tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireString, 0, 0).With(tree.FlagNull)}, 0, nil, "null (int16 len=-1)"},
		{"bytes are hex", tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireBytes, 0, 0)}, 0, []byte{0xca, 0xfe}, "0xcafe (int32 len=2)"},
		{"empty bytes", tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireCompactBytes, 0, 0)}, 0, []byte{}, "empty (compact, len+1=1)"},
		{"long bytes are cut after 16", tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireRaw, 0, 0)}, 0, make([]byte, 17), "0x" + strings.Repeat("00", 16) + "…"},
		{"bool", tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireBool, 0, 0)}, 1, nil, "true"},
		{"float64", tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireFloat64, 0, 0)}, 0x3ff8000000000000, nil, "1.5"},
		{"negative int", tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireInt32, 0, 0)}, -1, nil, "-1"},
		{"uuid", tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireUUID, 0, 0)}, 0, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, "00010203-0405-0607-0809-0a0b0c0d0e0f"},
		{"record value text is quoted", tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireVarBytes, 0, 0)}, 0, []byte(`{"a":1}`), `"{\"a\":1}" (varint len=7)`},
		{"record value binary is hex", tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireVarBytes, 0, 0)}, 0, []byte{0, 1}, "0x0001 (varint len=2)"},
		{"long strings are cut", tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireCompactString, 0, 0)}, 0, bytes.Repeat([]byte("x"), 70), `"` + strings.Repeat("x", 64) + `"… (compact, len+1=71)`},
	} {
		// The contents live in the tree's Bytes, as in a decoded tree.
		tr := &tree.Tree{Bytes: []byte("prefix")}
		b := tree.Builder{T: tr}
		i := b.LeafData(c.n, c.data)
		if got := scalarText(&tr.Nodes[i], c.num, tr.Data(i)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		n    tree.Node
		num  int64
		want string
	}{
		{tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireUvarint, 0, 0)}, 2, "3 (compact, n+1)"},
		{tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireUvarint, 0, 0)}, -1, "0 (compact, null)"},
		{tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireInt32, 0, 0)}, -1, "-1 (null)"},
		{tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireInt32, 0, 0)}, 3, "3"},
	} {
		if got := lengthText(&c.n, c.num); got != c.want {
			t.Errorf("length %+v: got %s, want %s", c.n, got, c.want)
		}
	}
}

func TestJSONStringEscaping(t *testing.T) {
	in := "a\"b\\c\n\x01é\xff"
	got := string(appendJSONString(nil, in))
	var back string
	if err := json.Unmarshal([]byte(got), &back); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if back != "a\"b\\c\n\x01é\ufffd" {
		t.Errorf("round trip = %q", back)
	}
}

func BenchmarkWriteTreeProduceV3(b *testing.B) {
	s := embedded(b, "4.4.0")
	tr := smallestByName(b, s, "ProduceRequest", 3)
	var out bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		WriteTree(&out, tr, Options{})
	}
}

// A coordinator record value whose int16 prefix holds a version the spec
// lacks: the summary says that version and that it is not valid, not
// the v0 the undecoded tree keeps; a valid prefix reads as before.
func TestEncodedAtOfInvalidValuePrefix(t *testing.T) {
	s := embedded(t, "4.4.0")
	m := s.Message("OffsetCommitValue")
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{[]byte{0x00, 0x09, 0x00}, "  Encoded at         v9 (its prefix; not a valid version)\n"},
		{[]byte{0x00, 0x03, 0x00}, "  Encoded at         v3\n"},
	} {
		tr, err := codec.New(s).DecodeRecord(c.b, m, 0)
		var b bytes.Buffer
		if werr := WriteText(&b, &Page{Set: s, Sides: []Side{{Label: "Record", Tree: tr, Err: err}}}, Options{}); werr != nil {
			t.Fatal(werr)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("% x: no %q in:\n%s", c.b, c.want, b.String())
		}
	}
}
