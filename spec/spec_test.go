package spec_test

import (
	"strings"
	"testing"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
)

func TestParseVersions(t *testing.T) {
	cases := []struct {
		in      string
		want    spec.Versions
		present bool
		err     bool
		str     string
	}{
		{"", spec.None, false, false, "none"},
		{"   ", spec.None, false, false, "none"},
		{"none", spec.None, true, false, "none"},
		{"0+", spec.Versions{Lo: 0, Hi: 32767}, true, false, "0+"},
		{"3+", spec.Versions{Lo: 3, Hi: 32767}, true, false, "3+"},
		{"32767+", spec.Versions{Lo: 32767, Hi: 32767}, true, false, "32767+"},
		{"5", spec.Versions{Lo: 5, Hi: 5}, true, false, "5"},
		{" 2 ", spec.Versions{Lo: 2, Hi: 2}, true, false, "2"},
		{"0-2", spec.Versions{Lo: 0, Hi: 2}, true, false, "0-2"},
		{"4-18", spec.Versions{Lo: 4, Hi: 18}, true, false, "4-18"},
		// "3-1" is silently an empty range, as in Kafka's generator.
		{"3-1", spec.None, true, false, "none"},
		// Only outer spaces are trimmed: inner spaces are a number error.
		{"1 - 3", spec.None, true, true, ""},
		{"+", spec.None, true, true, ""},
		{"-1", spec.None, true, true, ""},
		{"1-", spec.None, true, true, ""},
		{"+3", spec.None, true, true, ""},
		{"1-+3", spec.None, true, true, ""},
		{"32768", spec.None, true, true, ""},
		{"0-32768", spec.None, true, true, ""},
		{"x", spec.None, true, true, ""},
		{"0x1", spec.None, true, true, ""},
	}
	for _, c := range cases {
		v, present, err := spec.ParseVersions(c.in)
		if (err != nil) != c.err {
			t.Errorf("ParseVersions(%q): err = %v, want error %v", c.in, err, c.err)
			continue
		}
		if c.err {
			if !strings.Contains(err.Error(), "invalid version") {
				t.Errorf("ParseVersions(%q): error %q does not say the version is invalid", c.in, err)
			}
			continue
		}
		if v != c.want || present != c.present {
			t.Errorf("ParseVersions(%q) = %v, %v; want %v, %v", c.in, v, present, c.want, c.present)
		}
		if v.String() != c.str {
			t.Errorf("ParseVersions(%q).String() = %q, want %q", c.in, v.String(), c.str)
		}
	}
}

func TestVersionsMethods(t *testing.T) {
	r := spec.Versions{Lo: 2, Hi: 5}
	for v, want := range map[int16]bool{1: false, 2: true, 5: true, 6: false} {
		if r.Contains(v) != want {
			t.Errorf("%v.Contains(%d) = %v", r, v, !want)
		}
	}
	if !spec.None.Empty() || spec.None.Contains(0) || spec.None.OpenEnded() {
		t.Error("None is not empty")
	}
	if !spec.All.OpenEnded() || r.OpenEnded() {
		t.Error("OpenEnded")
	}
	if got := r.Intersect(spec.Versions{Lo: 4, Hi: 32767}); got != (spec.Versions{Lo: 4, Hi: 5}) {
		t.Errorf("Intersect = %v", got)
	}
	if got := r.Intersect(spec.Versions{Lo: 6, Hi: 7}); got != spec.None {
		t.Errorf("disjoint Intersect = %v, want none", got)
	}
	if !r.ContainsRange(spec.Versions{Lo: 3, Hi: 4}) || r.ContainsRange(spec.Versions{Lo: 3, Hi: 6}) || !r.ContainsRange(spec.None) {
		t.Error("ContainsRange")
	}
}

func TestParseType(t *testing.T) {
	cases := []struct {
		in   string
		kind spec.Kind
		elem spec.Kind
		name string
		err  string
	}{
		{"int32", spec.KindInt32, 0, "", ""},
		{"uint16", spec.KindUint16, 0, "", ""},
		{"bool", spec.KindBool, 0, "", ""},
		{"float64", spec.KindFloat64, 0, "", ""},
		{"uuid", spec.KindUUID, 0, "", ""},
		{"records", spec.KindRecords, 0, "", ""},
		{"bytes", spec.KindBytes, 0, "", ""},
		{"string", spec.KindString, 0, "", ""},
		{"[]int32", spec.KindArray, spec.KindInt32, "", ""},
		{"[]string", spec.KindArray, spec.KindString, "", ""},
		{"[]TopicData", spec.KindArray, spec.KindStruct, "TopicData", ""},
		{"Assignment", spec.KindStruct, 0, "Assignment", ""},
		// A capitalised primitive is a struct name for Kafka too.
		{"Int32", spec.KindStruct, 0, "Int32", ""},
		{"[][]int32", 0, 0, "", "arrays of arrays"},
		{"[]records", 0, 0, "", "arrays of records"},
		{"booleanbool", 0, 0, "", `unknown type "booleanbool"`},
		{"INT32x", spec.KindStruct, 0, "INT32x", ""},
		{"int", 0, 0, "", `unknown type "int"`},
		{"", 0, 0, "", `unknown type ""`},
		{"[]", 0, 0, "", `unknown type ""`},
		{"Topic_Data", 0, 0, "", `unknown type "Topic_Data"`},
	}
	for _, c := range cases {
		typ, err := spec.ParseType(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseType(%q): err = %v, want one containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseType(%q): %v", c.in, err)
			continue
		}
		if typ.Kind != c.kind || typ.Elem != c.elem || typ.Name != c.name {
			t.Errorf("ParseType(%q) = {%v %v %q}, want {%v %v %q}", c.in, typ.Kind, typ.Elem, typ.Name, c.kind, c.elem, c.name)
		}
	}
}

// badSpec has three problems on three lines; the loader must report all of
// them in one pass, each at its file:line:col.
const badSpec = `{
  "apiKey": 9000,
  "type": "request",
  "name": "BadRequest",
  "validVersions": "0-1",
  "flexibleVersions": "0+",
  "fields": [
    { "name": "A", "type": "int32", "versions": "0+", "abuot": "typo" },
    { "name": "B", "type": "booleanbool", "versions": "0+" },
    { "name": "C", "type": "int32", "versions": "0+", "default": "x" }
  ]
}
`

func TestLoaderReportsEveryProblemWithPosition(t *testing.T) {
	m, errs := spec.ParseMessage("Bad.json", []byte(badSpec))
	if m == nil {
		t.Fatal("no message returned alongside the problems")
	}
	want := []struct {
		pos  string
		rule string
		msg  string
		hint string
	}{
		// the key "abuot" starts at column 55 of line 8
		{"Bad.json:8:55", "unknown-key", `unknown key "abuot" in field`, `did you mean "about"?`},
		// the type's value string starts at column 28 of line 9
		{"Bad.json:9:28", "bad-type", `field "B": unknown type "booleanbool"`, `did you mean "bool"?`},
		// a bad default is reported at the field's opening brace
		{"Bad.json:10:5", "bad-default", `field "C": default "x" is not a valid int32`, ""},
	}
	if len(errs) != len(want) || !errs.HasErrors() {
		t.Fatalf("got %d problems, want %d:\n%v", len(errs), len(want), errs)
	}
	for i, w := range want {
		e := errs[i]
		if e.Pos.String() != w.pos || e.Rule != w.rule || e.Msg != w.msg || e.Hint != w.hint || e.Severity != spec.SeverityError {
			t.Errorf("problem %d = %s %s %q hint %q; want %s %s %q hint %q", i, e.Pos, e.Rule, e.Msg, e.Hint, w.pos, w.rule, w.msg, w.hint)
		}
	}
	if got, want := errs[0].Error(), `Bad.json:8:55: error: unknown key "abuot" in field; did you mean "about"? [unknown-key]`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if n := strings.Count(errs.Error(), "\n"); n != 2 {
		t.Errorf("ErrorList.Error() has %d line breaks, want 2 (one line a problem)", n)
	}
	// A set built from the file leaves it out and returns the same problems.
	s, all := spec.NewSet([]bundle.File{{Path: "Bad.json", Data: []byte(badSpec)}})
	if len(s.Messages) != 0 || len(all) != 3 || s.Request(9000) != nil {
		t.Errorf("NewSet: %d messages, %d problems", len(s.Messages), len(all))
	}
	if all.Err() == nil {
		t.Error("ErrorList.Err() is nil for a list with errors")
	}
}

const forwardSpec = `{
  // Outer refers to Later, Later to Last: both defined further down.
  "type": "data",
  "name": "Fwd",
  "validVersions": "0",
  "flexibleVersions": "0+",
  "fields": [
    { "name": "Outer", "type": "[]Later", "versions": "0+" }
  ],
  "commonStructs": [
    { "name": "Later", "versions": "0+", "fields": [
      { "name": "Inner", "type": "Last", "versions": "0+" }
    ]},
    { "name": "Last", "versions": "0+", "fields": [
      { "name": "X", "type": "int8", "versions": "0+" }
    ]}
  ]
}`

func TestForwardCommonStructReferences(t *testing.T) {
	m, errs := spec.ParseMessage("Fwd.json", []byte(forwardSpec))
	if len(errs) != 0 {
		t.Fatalf("problems: %v", errs)
	}
	later, last := m.Structs["Later"], m.Structs["Last"]
	if later == nil || last == nil || !later.Common || !last.Common {
		t.Fatalf("structs: %v", m.Structs)
	}
	outer := m.Root.Fields[0]
	if outer.Type.Kind != spec.KindArray || outer.Type.Struct != later {
		t.Errorf("Outer resolves to %p, want Later %p", outer.Type.Struct, later)
	}
	inner := later.Fields[0]
	if inner.Type.Kind != spec.KindStruct || inner.Type.Struct != last {
		t.Errorf("Later.Inner resolves to %p, want Last %p", inner.Type.Struct, last)
	}
	if len(last.Fields) != 1 || last.Fields[0].Name != "X" || last.Pos.String() != "Fwd.json:14:5" {
		t.Errorf("Last = %d fields at %s", len(last.Fields), last.Pos)
	}

	// A name that no struct of the file defines is Kafka's empty struct:
	// a warning, not an error.
	m, errs = spec.ParseMessage("Typo.json", []byte(strings.Replace(forwardSpec, `"type": "Last"`, `"type": "Lasst"`, 1)))
	if errs.HasErrors() || len(errs) != 1 || errs[0].Rule != "empty-struct" || errs[0].Severity != spec.SeverityWarning || errs[0].Pos.String() != "Typo.json:12:7" {
		t.Fatalf("problems: %v", errs)
	}
	if st := m.Structs["Lasst"]; st == nil || len(st.Fields) != 0 {
		t.Errorf("Lasst = %+v", st)
	}
}

func TestMoreLoaderRules(t *testing.T) {
	cases := []struct {
		name   string
		fields string
		rule   string
		msg    string
	}{
		{"tags must be contiguous", `{ "name": "A", "type": "int32", "versions": "0+", "tag": 1, "taggedVersions": "0+" }`, "bad-tag", "tag 0 is missing"},
		{"a tag needs taggedVersions", `{ "name": "A", "type": "int32", "versions": "0+", "tag": 0 }`, "bad-tag", "has a tag but no taggedVersions"},
		{"int32 cannot be nullable", `{ "name": "A", "type": "int32", "versions": "0+", "nullableVersions": "0+" }`, "bad-nullable", "cannot be nullable"},
		{"a bad version range", `{ "name": "A", "type": "int32", "versions": "1 - 3" }`, "bad-versions", `invalid version range "1 - 3"`},
		{"duplicate field names", `{ "name": "A", "type": "int32", "versions": "0+" }, { "name": "A", "type": "int8", "versions": "0+" }`, "duplicate-field", `field "A" appears twice`},
		{"uint16 default out of range", `{ "name": "A", "type": "uint16", "versions": "0+", "default": "65536" }`, "bad-default", "not a valid uint16"},
		{"int8 default out of range", `{ "name": "A", "type": "int8", "versions": "0+", "default": "128" }`, "bad-default", "not a valid int8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := `{"type": "data", "name": "T", "validVersions": "0-3", "flexibleVersions": "0+", "fields": [` + c.fields + `]}`
			_, errs := spec.ParseMessage("T.json", []byte(text))
			found := false
			for _, e := range errs {
				if e.Rule == c.rule && strings.Contains(e.Msg, c.msg) && e.Pos.Line == 1 && e.Pos.Col > 1 {
					found = true
				}
			}
			if !found {
				t.Errorf("want a %s problem containing %q, got %v", c.rule, c.msg, errs)
			}
		})
	}
	// Valid defaults parse to their values.
	text := `{"type": "data", "name": "T", "validVersions": "0", "flexibleVersions": "0+", "fields": [
	  { "name": "A", "type": "int32", "versions": "0+", "default": "-1" },
	  { "name": "B", "type": "int32", "versions": "0+", "default": "0x7fffffff" },
	  { "name": "C", "type": "bool", "versions": "0+", "default": "true" },
	  { "name": "D", "type": "uint16", "versions": "0+", "default": "65535" },
	  { "name": "E", "type": "string", "versions": "0+", "nullableVersions": "0+", "default": "null" }]}`
	m, errs := spec.ParseMessage("T.json", []byte(text))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	f := m.Root.Fields
	if f[0].DefaultInt != -1 || f[1].DefaultInt != 0x7fffffff || f[2].DefaultInt != 1 || f[3].DefaultInt != 65535 || !f[4].DefaultNull {
		t.Errorf("defaults: %d %d %d %d %v", f[0].DefaultInt, f[1].DefaultInt, f[2].DefaultInt, f[3].DefaultInt, f[4].DefaultNull)
	}
}

// TestEmbeddedReleasesLoadClean: every embedded release parses with no
// error and no warning, and holds the messages kwire's tests rely on.
func TestEmbeddedReleasesLoadClean(t *testing.T) {
	rels := bundle.Releases()
	if len(rels) < 2 {
		t.Fatalf("releases: %v", rels)
	}
	for _, rel := range rels {
		s, err := spec.Embedded(rel)
		if err != nil {
			t.Fatalf("Embedded(%q): %v", rel, err)
		}
		if s.Release != rel {
			t.Errorf("Embedded(%q).Release = %q", rel, s.Release)
		}
		r, err := bundle.Load(rel)
		if err != nil {
			t.Fatal(err)
		}
		s2, errs := spec.NewSet(r.Files)
		if len(errs) != 0 {
			t.Errorf("Kafka %s: %d problems, first: %v", rel, len(errs), errs[0])
		}
		if len(s2.Messages) != len(r.Files) {
			t.Errorf("Kafka %s: %d messages from %d files", rel, len(s2.Messages), len(r.Files))
		}
		req, resp := s.Request(18), s.Response(18)
		if req == nil || resp == nil || req.Name != "ApiVersionsRequest" || resp.Name != "ApiVersionsResponse" {
			t.Fatalf("Kafka %s: api key 18 = %v %v", rel, req, resp)
		}
		if req.FlexibleVersions != (spec.Versions{Lo: 3, Hi: spec.MaxVersion}) {
			t.Errorf("Kafka %s: ApiVersionsRequest flexible %v", rel, req.FlexibleVersions)
		}
		if s.RequestHeader() == nil || s.ResponseHeader() == nil {
			t.Errorf("Kafka %s: headers missing", rel)
		}
		if vote, _, err := s.Lookup("vote"); err != nil || vote.APIKey != 52 || vote.BaseName() != "Vote" {
			t.Errorf("Kafka %s: Lookup(vote) = %v, %v", rel, vote, err)
		}
	}
	s, _ := spec.Embedded("")
	if s.Release != "4.4.0" {
		t.Errorf("Embedded(\"\") = %s", s.Release)
	}
	if s.Request(52).ValidVersions != (spec.Versions{Lo: 0, Hi: 2}) {
		t.Errorf("Kafka %s VoteRequest valid versions %v, want 0-2", s.Release, s.Request(52).ValidVersions)
	}
	if _, _, err := s.Lookup("Vot"); err == nil || !strings.Contains(err.Error(), `did you mean "Vote"?`) {
		t.Errorf("Lookup(Vot) = %v", err)
	}
}

func TestEmbeddedAllNewestFirst(t *testing.T) {
	sets, err := spec.EmbeddedAll()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sets {
		got = append(got, s.Release)
	}
	if strings.Join(got, " ") != "4.4.0 4.3.2 4.2.2 4.1.2 4.0.2 3.9.2 3.9.1 3.8.1 3.7.2 3.6.2 3.5.2 3.4.1 3.3.2 3.2.3 3.1.2 3.0.2" {
		t.Errorf("releases %v", got)
	}
	if s, _ := spec.Embedded("4.4"); s != sets[0] {
		t.Error("EmbeddedAll does not share Embedded's sets")
	}
}
