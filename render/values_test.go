package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kwire/kwire/tree"
)

// valuesTree is a Produce v3 request of one batch: record 0 has key "k1",
// a JSON value with white space and headers h1="7" and h2=null; record 1
// a null key and the value 00 01.
func valuesTree(t *testing.T) *tree.Tree {
	t.Helper()
	recs := append(recordV2(0, []byte("k1"), []byte("{ \"a\": [1, 2],\n \"s\": \"x y\" }"), header{[]byte("h1"), []byte("7")}, header{[]byte("h2"), nil}),
		recordV2(1, nil, []byte{0, 1})...)
	return decodeRequest(t, embedded(t, "4.4.0"), produceRequest(3, batchV2(0, 2, recs, false)))
}

// valueTexts lists "name = value" for the key, value and header nodes of
// tr, in tree order, as NodeValueWith gives them.
func valueTexts(tr *tree.Tree, o Options) []string {
	var out []string
	x := NewIndex(tr)
	for i := range tr.Nodes {
		id := int32(i)
		switch n := NodeName(tr, id); {
		case n == "key", n == "value", strings.HasPrefix(n, "header"):
			v := NodeValueWith(tr, id, o)
			if x.ValueWith(id, o) != v {
				v += " (index disagrees)"
			}
			out = append(out, n+" = "+v)
		}
	}
	return out
}

func TestValuesForms(t *testing.T) {
	tr := valuesTree(t)
	for _, c := range []struct {
		v    Values
		want []string
	}{
		{ValuesAuto, []string{
			`key = "k1" (varint len=2)`, `value = 0x7b202261223a205b312c20325d2c0a20… (varint len=28)`, `headersCount = 2`,
			`headerKey[0] = "h1" (varint len=2)`, `headerValue[0] = "7" (varint len=1)`, `headerKey[1] = "h2" (varint len=2)`, `headerValue[1] = null (varint len=-1)`,
			`key = null (varint len=-1)`, `value = 0x0001 (varint len=2)`, `headersCount = 0`}},
		{ValuesUTF8, []string{
			`key = "k1" (varint len=2)`, `value = "{ \"a\": [1, 2],\n \"s\": \"x y\" }" (varint len=28)`, `headersCount = 2`,
			`headerKey[0] = "h1" (varint len=2)`, `headerValue[0] = "7" (varint len=1)`, `headerKey[1] = "h2" (varint len=2)`, `headerValue[1] = null (varint len=-1)`,
			`key = null (varint len=-1)`, `value = "\x00\x01" (varint len=2)`, `headersCount = 0`}},
		{ValuesHex, []string{
			`key = 0x6b31 (varint len=2)`, `value = 0x7b202261223a205b312c20325d2c0a20… (varint len=28)`, `headersCount = 2`,
			`headerKey[0] = "h1" (varint len=2)`, `headerValue[0] = 0x37 (varint len=1)`, `headerKey[1] = "h2" (varint len=2)`, `headerValue[1] = null (varint len=-1)`,
			`key = null (varint len=-1)`, `value = 0x0001 (varint len=2)`, `headersCount = 0`}},
		{ValuesBase64, []string{
			`key = base64:azE= (varint len=2)`, `value = base64:eyAiYSI6IFsxLCAyXSwKICJzIjogInggeSIgfQ== (varint len=28)`, `headersCount = 2`,
			`headerKey[0] = "h1" (varint len=2)`, `headerValue[0] = base64:Nw== (varint len=1)`, `headerKey[1] = "h2" (varint len=2)`, `headerValue[1] = null (varint len=-1)`,
			`key = null (varint len=-1)`, `value = base64:AAE= (varint len=2)`, `headersCount = 0`}},
		{ValuesJSON, []string{
			`key = "k1" (varint len=2, not JSON)`, `value = {"a":[1,2],"s":"x y"} (varint len=28)`, `headersCount = 2`,
			`headerKey[0] = "h1" (varint len=2)`, `headerValue[0] = 7 (varint len=1)`, `headerKey[1] = "h2" (varint len=2)`, `headerValue[1] = null (varint len=-1)`,
			`key = null (varint len=-1)`, `value = 0x0001 (varint len=2, not JSON)`, `headersCount = 0`}},
	} {
		got := valueTexts(tr, Options{Values: c.v})
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.v, got, c.want)
		}
	}
	// The default is what NodeValue always showed.
	for i := range tr.Nodes {
		if a, b := NodeValue(tr, int32(i)), NodeValueWith(tr, int32(i), Options{}); a != b {
			t.Errorf("node %d: NodeValue %q, NodeValueWith auto %q", i, a, b)
		}
	}
}

func TestValuesInTheTreeView(t *testing.T) {
	tr := valuesTree(t)
	var auto, js bytes.Buffer
	if err := WriteTree(&auto, tr, Options{}); err != nil {
		t.Fatal(err)
	}
	if auto.String() != treeText(t, tr) {
		t.Error("WriteTree with zero Options differs")
	}
	if err := WriteTree(&js, tr, Options{Values: ValuesJSON}); err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(js.String(), "\n") {
		if strings.Contains(l, "+-- value ") && strings.Contains(l, `"a"`) {
			row = collapse(l)
		}
	}
	if want := `| +-- value varbytes = {"a":[1,2],"s":"x y"} (varint len=28) [0x0074, 29B]`; !strings.HasSuffix(row, want) {
		t.Errorf("value row %q, want it to end in %q", row, want)
	}
	// Only key, value and header value rows change.
	a, j := strings.Split(auto.String(), "\n"), strings.Split(js.String(), "\n")
	if len(a) != len(j) {
		t.Fatalf("%d rows, %d with json", len(a), len(j))
	}
	changed := 0
	for k := range a {
		if collapse(a[k]) != collapse(j[k]) {
			changed++
		}
	}
	if changed != 4 { // key, value, headerValue[0] of record 0; value of record 1
		t.Errorf("%d rows changed, want 4:\n%s", changed, js.String())
	}
}

func TestValuesTruncated(t *testing.T) {
	long := bytes.Repeat([]byte("ab"), 40) // 80 bytes
	for _, c := range []struct {
		v    Values
		d    []byte
		want string
	}{
		{ValuesBase64, long, "base64:" + strings.Repeat("YWJhYmFi", 8) + "… (varint len=80)"},
		{ValuesBase64, []byte{}, "empty (varint len=0)"},
		{ValuesUTF8, []byte{}, `"" (varint len=0)`},
		{ValuesHex, []byte{}, "empty (varint len=0)"},
		{ValuesJSON, []byte{}, "empty (varint len=0, not JSON)"},
		{ValuesJSON, []byte(`"` + string(long) + `"`), `"` + string(long) + `" (varint len=82)`},
		{ValuesJSON, []byte("[" + strings.Repeat(`"é", `, 60) + "1]"), "[" + strings.Repeat(`"é",`, 51) + "… (varint len=363)"},
	} {
		if got := string(appendRecordValueText(nil, c.d, c.v, " (varint len=", len(c.d))); got != c.want {
			t.Errorf("%s % .12x…:\n got %q\nwant %q", c.v, c.d, got, c.want)
		}
	}
}

// jsonNode finds the node object at path in a page's JSON tree.
func jsonNode(n map[string]any, path string) map[string]any {
	if n["path"] == path {
		return n
	}
	kids, _ := n["children"].([]any)
	for _, k := range kids {
		if m, ok := k.(map[string]any); ok {
			if f := jsonNode(m, path); f != nil {
				return f
			}
		}
	}
	return nil
}

func TestValuesInTheJSONView(t *testing.T) {
	tr := valuesTree(t)
	p := &Page{Sides: []Side{{Label: "Request", Tree: tr}}}
	var plain, auto bytes.Buffer
	if err := WriteJSON(&plain, p); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONWith(&auto, p, Options{}, nil); err != nil || auto.String() != plain.String() {
		t.Fatalf("WriteJSONWith auto differs from WriteJSON (%v)", err)
	}
	if strings.Contains(plain.String(), "value_encoding") {
		t.Error("value_encoding in the default JSON")
	}
	const rec = "ProduceRequest.TopicData[0].PartitionData[0].Records[0].Record[0]."
	const rec1 = "ProduceRequest.TopicData[0].PartitionData[0].Records[0].Record[1]."
	type want struct {
		path, value, enc, text string
	}
	for _, c := range []struct {
		v    Values
		want []want
	}{
		{ValuesUTF8, []want{{rec + "key", `"k1"`, "utf8", `"k1" (varint len=2)`}, {rec1 + "value", `"\u0000\u0001"`, "utf8", `"\x00\x01" (varint len=2)`}, {rec1 + "key", "null", "", "null (varint len=-1)"}}},
		{ValuesHex, []want{{rec + "key", `"6b31"`, "hex", "0x6b31 (varint len=2)"}, {rec + "headerValue[0]", `"37"`, "hex", "0x37 (varint len=1)"}}},
		{ValuesBase64, []want{{rec + "key", `"azE="`, "base64", "base64:azE= (varint len=2)"}, {rec + "headerKey[0]", `"6831"`, "", `"h1" (varint len=2)`}}},
		{ValuesJSON, []want{
			{rec + "value", `{"a":[1,2],"s":"x y"}`, "json", `{"a":[1,2],"s":"x y"} (varint len=28)`},
			{rec + "headerValue[0]", `7`, "json", "7 (varint len=1)"},
			{rec + "key", `"k1"`, "utf8", `"k1" (varint len=2, not JSON)`},
			{rec1 + "value", `"0001"`, "hex", "0x0001 (varint len=2, not JSON)"},
		}},
	} {
		var out bytes.Buffer
		if err := WriteJSONWith(&out, p, Options{Values: c.v}, nil); err != nil {
			t.Fatal(err)
		}
		var page map[string]any
		if err := json.Unmarshal(out.Bytes(), &page); err != nil {
			t.Fatalf("%s: %v\n%s", c.v, err, out.String())
		}
		root := page["request"].(map[string]any)["tree"].(map[string]any)
		for _, w := range c.want {
			n := jsonNode(root, w.path)
			if n == nil {
				t.Errorf("%s: no node %s", c.v, w.path)
				continue
			}
			v, _ := json.Marshal(n["value"])
			enc, _ := n["value_encoding"].(string)
			if string(v) != w.value || enc != w.enc || n["text"] != w.text {
				t.Errorf("%s %s: value %s encoding %q text %q, want %s %q %q", c.v, w.path, v, enc, n["text"], w.value, w.enc, w.text)
			}
		}
	}
	// The embedded JSON is indented to its place in the page.
	var out bytes.Buffer
	if err := WriteJSONWith(&out, p, Options{Values: ValuesJSON}, nil); err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat(" ", 42)
	indented := `"value": {
` + pad + `  "a": [
` + pad + `    1,
` + pad + `    2
` + pad + `  ],
` + pad + `  "s": "x y"
` + pad + `},
` + pad + `"value_encoding": "json",`
	if !strings.Contains(out.String(), indented) {
		t.Errorf("no indented value in\n%s", out.String())
	}
}

func TestLegacyValuesForms(t *testing.T) {
	s := embedded(t, "3.9.1")
	tr := decodeRequest(t, s, produceRequest(2, legacyMessage(1, []byte("key"), []byte(`[1]`))))
	got := valueTexts(tr, Options{Values: ValuesJSON})
	want := []string{`key = "key" (int32 len=3, not JSON)`, `value = [1] (int32 len=3)`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", got, want)
	}
	got = valueTexts(tr, Options{Values: ValuesHex})
	want = []string{`key = 0x6b6579 (int32 len=3)`, `value = 0x5b315d (int32 len=3)`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseValues(t *testing.T) {
	for _, v := range []Values{ValuesAuto, ValuesUTF8, ValuesHex, ValuesBase64, ValuesJSON} {
		if got, err := ParseValues(v.String()); got != v || err != nil {
			t.Errorf("ParseValues(%q) = %v, %v", v.String(), got, err)
		}
	}
	if v, err := ParseValues(""); v != ValuesAuto || err != nil {
		t.Errorf(`ParseValues("") = %v, %v`, v, err)
	}
	if _, err := ParseValues("yaml"); err == nil || err.Error() != `unknown values format "yaml" (want auto, utf8, hex, base64 or json)` {
		t.Errorf("ParseValues(yaml): %v", err)
	}
	if s := Values(9).String(); s != "Values(9)" {
		t.Errorf("Values(9) = %q", s)
	}
}
