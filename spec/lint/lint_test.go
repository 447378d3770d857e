package lint_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
	"github.com/kwire/kwire/spec/lint"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// msg is a data spec of versions 0-3 (flexible from 0) whose fields, given
// as text, start on line 2, column 1.
func msg(fields string) string {
	return "{\"type\": \"data\", \"name\": \"T\", \"validVersions\": \"0-3\", \"flexibleVersions\": \"0+\", \"fields\": [\n" + fields + "\n]}\n"
}

// withCommon is msg with commonStructs (on the line after the fields).
func withCommon(fields, common string) string {
	return "{\"type\": \"data\", \"name\": \"T\", \"validVersions\": \"0-3\", \"flexibleVersions\": \"0+\", \"fields\": [\n" + fields + "\n], \"commonStructs\": [\n" + common + "\n]}\n"
}

func lintLines(files ...bundle.File) []string {
	var out []string
	for _, p := range lint.Check(files, len(files) > 1).Problems {
		out = append(out, p.Error())
	}
	return out
}

// lintCases: for each rule, a minimal bad input and the exact problems.
var lintCases = []struct {
	rule  string
	input string
	want  []string
}{
	// JSON syntax and drafts (spec/draft.go, spec/draftjson.go).
	{"json-syntax", msg(`{"name": "A", "type": "int32", "versions": "0+", "about": "a",}`), []string{
		"T.json:2:62: error: trailing comma before '}': Kafka's JSON reader (Jackson) rejects it [json-syntax]",
	}},
	{"json-syntax", msg(`{"name": "A", "type": 'int32', "versions": "0+", "about": "a"}`), []string{
		"T.json:2:23: error: a string in single quotes: JSON (and Kafka's Jackson) needs double quotes [json-syntax]",
	}},
	{"json-syntax", msg(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"}` + "\n" + `{"name": "B", "type": "int32", "versions": "0+", "about": "b"}`), []string{
		"T.json:3:1: error: missing ',' between array elements [json-syntax]",
	}},
	{"json-syntax", msg(`{"name": "A", "type": "int32",` + "\u00a0\u00a0" + `"versions": "0+", "about": "a"}`), []string{
		"T.json:2:31: error: 2 non-breaking spaces (U+00A0, as web pages have): JSON allows only plain spaces, tabs and line breaks [json-syntax]",
	}},
	{"json-syntax", msg(`{"name": "A", "type": “int32”, "versions": "0+", "about": "a"}`), []string{
		"T.json:2:23: error: a string in curly quotes (“…”, as web pages and word processors write them): JSON needs straight double quotes [json-syntax]",
	}},
	{"json-syntax", msg(`{"name": "A", "type": int32, "versions": "0+", "about": "a"}`), []string{
		"T.json:2:23: error: invalid value \"int32\": want a string in double quotes, a number, true, false or null [json-syntax]",
	}},
	{"json-syntax", msg(`{"name": "A", "type": "int32, "versions": "0+", "about": "a"}`), []string{
		"T.json:2:32: error: unexpected \"versions\" after a value: want ',' or '}' [json-syntax]",
	}},
	{"json-syntax", "// nothing but a comment\n", []string{
		"T.json:1:1: error: the file holds no spec object (Kafka's generator needs one JSON object) [json-syntax]",
	}},
	{"text-outside", "Page History\n\n" + msg(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"}`) + "Powered by a wiki\n", []string{
		"T.json:1:1: error: text outside the spec objects: \"Page History\" (Kafka's generator accepts only one JSON object in a file) [text-outside]",
		"T.json:6:1: error: text outside the spec objects: \"Powered by a wiki\" (Kafka's generator accepts only one JSON object in a file) [text-outside]",
	}},
	{"missing-brace", "\"type\": \"data\", \"name\": \"T\",\n\"validVersions\": \"0\", \"flexibleVersions\": \"0+\"\n", []string{
		"T.json:1:1: error: the spec object has no opening brace: the text looks like a fragment of one, as copied from a page [missing-brace]",
		"T.json:2:47: error: the spec object has no closing brace [missing-brace]",
	}},
	{"comment-swallows", msg(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"}, // Version 1 adds B. {"name": "B", "type": "int32", "versions": "1+", "about": "b"}`), []string{
		"T.json:2:65: error: this // comment runs to the end of its line and swallows the spec text after it, from 2:86 to the end of the line (62 bytes): {\"name\": \"B\", \"type\": \"int32\", \"versi…; the line breaks after the comment were lost, as when a spec is copied from a web page [comment-swallows]",
	}},
	{"several-objects", msg(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"}`) + strings.Replace(msg(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"}`), `"T"`, `"U"`, 1), []string{
		"T.json:4:1: warning: this file holds 2 spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own; split the file before putting the specs into Kafka [several-objects]",
	}},
	// The loader's rules (spec/parse.go).
	{"unknown-key", msg(`{"name": "A", "type": "int32", "versions": "0+", "ignoreable": true, "about": "a"}`), []string{
		"T.json:2:50: error: unknown key \"ignoreable\" in field; did you mean \"ignorable\"? [unknown-key]",
	}},
	{"missing-key", `{"type": "data", "validVersions": "0", "flexibleVersions": "0+"}`, []string{
		"T.json:1:1: error: the message has no \"name\" [missing-key]",
	}},
	{"missing-key", msg(`{"name": "A", "type": "int32", "about": "a"}`), []string{
		"T.json:2:1: error: field \"A\" has no \"versions\" [missing-key]",
	}},
	{"bad-value", msg(`{"name": "A", "type": "int32", "versions": "0+", "ignorable": "maybe", "about": "a"}`), []string{
		"T.json:2:63: error: \"ignorable\" must be true or false [bad-value]",
	}},
	{"bad-versions", msg(`{"name": "A", "type": "int32", "versions": "1 - 3", "about": "a"}`), []string{
		"T.json:2:44: error: versions: invalid version range \"1 - 3\": want \"none\", \"N\", \"N+\" or \"A-B\" [bad-versions]",
	}},
	{"bad-versions", `{"type": "data", "name": "T", "validVersions": "0+", "flexibleVersions": "1-2"}`, []string{
		"T.json:1:48: error: validVersions \"0+\" does not specify a maximum version [bad-versions]",
		"T.json:1:74: error: flexibleVersions must be open-ended (\"N+\") or \"none\", found \"1-2\" [bad-versions]",
	}},
	{"bad-message-type", `{"type": "reqest", "name": "T", "validVersions": "0", "flexibleVersions": "0+"}`, []string{
		"T.json:1:10: error: unknown message type \"reqest\": want one of request, response, header, metadata, data, coordinator-key, coordinator-value; did you mean \"request\"? [bad-message-type]",
	}},
	{"bad-name", `{"apiKey": 90, "type": "request", "name": "Frob", "validVersions": "0", "flexibleVersions": "0+"}`, []string{
		"T.json:1:43: error: a request's name must end in \"Request\", found \"Frob\" [bad-name]",
	}},
	{"bad-name", msg(`{"name": "a_b", "type": "int32", "versions": "0+", "about": "a"}`), []string{
		"T.json:2:10: error: invalid field name \"a_b\": want a letter then letters or digits [bad-name]",
	}},
	{"bad-listener", `{"apiKey": 90, "type": "response", "name": "FrobResponse", "listeners": ["broker", "zk"], "validVersions": "0", "flexibleVersions": "0+"}`, []string{
		"T.json:1:60: error: listeners are allowed on requests only, not on a response [bad-listener]",
		"T.json:1:84: error: unknown listener \"zk\": want one of zkBroker, broker, controller [bad-listener]",
	}},
	{"bad-type", msg(`{"name": "A", "type": "booleanbool", "versions": "0+", "about": "a"}`), []string{
		"T.json:2:23: error: field \"A\": unknown type \"booleanbool\"; did you mean \"bool\"? [bad-type]",
	}},
	{"bad-type", msg(`{"name": "A", "type": "[][]int32", "versions": "0+", "about": "a"}`), []string{
		"T.json:2:23: error: field \"A\": arrays of arrays are not allowed: \"[][]int32\"; did you mean \"[]int32\"? [bad-type]",
	}},
	{"bad-nullable", msg(`{"name": "A", "type": "int32", "versions": "0+", "nullableVersions": "0+", "about": "a"}`), []string{
		"T.json:2:70: error: field \"A\" of type int32 cannot be nullable [bad-nullable]",
	}},
	{"bad-flexible", msg(`{"name": "A", "type": "int32", "versions": "0+", "flexibleVersions": "none", "about": "a"}`), []string{
		"T.json:2:70: error: field \"A\": a flexibleVersions override is allowed only on string or bytes [bad-flexible]",
	}},
	{"bad-flexible", strings.Replace(msg(`{"name": "A", "type": "string", "versions": "0+", "flexibleVersions": "1+", "about": "a"}`), `"flexibleVersions": "0+"`, `"flexibleVersions": "2+"`, 1), []string{
		"T.json:2:71: error: field \"A\": flexibleVersions 1+ must lie within the message's flexibleVersions 2+ [bad-flexible]",
	}},
	{"bad-zerocopy", msg(`{"name": "A", "type": "string", "versions": "0+", "zeroCopy": true, "about": "a"}`), []string{
		"T.json:2:63: error: field \"A\": zeroCopy is allowed on bytes only [bad-zerocopy]",
	}},
	{"bad-entity-type", msg(`{"name": "A", "type": "string", "versions": "0+", "entityType": "topic", "about": "a"}`), []string{
		"T.json:2:65: error: field \"A\": unknown entityType \"topic\": want one of unknown, transactionalId, producerId, groupId, topicName, brokerId [bad-entity-type]",
	}},
	{"bad-entity-type", msg(`{"name": "A", "type": "[]string", "versions": "0+", "entityType": "brokerId", "about": "a"}`), []string{
		"T.json:2:67: error: field \"A\": entityType brokerId needs type int32 (or an array of int32), found []string [bad-entity-type]",
	}},
	{"bad-fields", msg(`{"name": "A", "type": "int32", "versions": "0+", "about": "a", "fields": []}`), []string{
		"T.json:2:64: error: field \"A\" of type int32 cannot have fields [bad-fields]",
	}},
	{"bad-tag", msg(`{"name": "A", "type": "int32", "versions": "0+", "tag": 0, "about": "a"}`), []string{
		"T.json:2:1: error: field \"A\" has a tag but no taggedVersions [bad-tag]",
	}},
	{"bad-tag", msg(`{"name": "A", "type": "int32", "versions": "0+", "taggedVersions": "1+", "about": "a"}`), []string{
		"T.json:2:1: error: field \"A\" has taggedVersions but no tag [bad-tag]",
	}},
	{"bad-tag", msg(`{"name": "A", "type": "int32", "versions": "0+", "tag": 1, "taggedVersions": "0+", "about": "a"}`), []string{
		"T.json:2:1: error: tags in T must be contiguous from 0: tag 0 is missing (field \"A\" has tag 1) [bad-tag]",
	}},
	{"bad-tag", strings.Replace(msg(`{"name": "A", "type": "int32", "versions": "0+", "tag": 0, "taggedVersions": "0+", "about": "a"}`), `"flexibleVersions": "0+"`, `"flexibleVersions": "2+"`, 1), []string{
		"T.json:2:1: error: field \"A\": taggedVersions 0+ are not all flexible versions (flexibleVersions 2+) [bad-tag]",
	}},
	{"duplicate-tag", msg(`{"name": "A", "type": "int32", "versions": "0+", "tag": 0, "taggedVersions": "0+", "about": "a"},` + "\n" + `{"name": "B", "type": "int32", "versions": "0+", "tag": 0, "taggedVersions": "0+", "about": "b"}`), []string{
		"T.json:3:1: error: tag 0 is used twice in T [duplicate-tag]",
	}},
	{"bad-mapkey", msg(`{"name": "A", "type": "int32", "versions": "0+", "mapKey": true, "about": "a"}`), []string{
		"T.json:2:1: error: field \"A\": mapKey cannot be set on top-level fields [bad-mapkey]",
	}},
	{"duplicate-field", msg(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"},` + "\n" + `{"name": "A", "type": "int8", "versions": "0+", "about": "b"}`), []string{
		"T.json:3:1: error: field \"A\" appears twice in T [duplicate-field]",
	}},
	{"duplicate-struct", msg(`{"name": "A", "type": "S", "versions": "0+", "about": "a", "fields": [{"name": "X", "type": "int8", "versions": "0+", "about": "x"}]},` + "\n" + `{"name": "B", "type": "S", "versions": "0+", "about": "b", "fields": [{"name": "X", "type": "int8", "versions": "0+", "about": "x"}]}`), []string{
		"T.json:3:1: error: struct \"S\" is specified twice [duplicate-struct]",
	}},
	{"empty-struct", msg(`{"name": "A", "type": "Int32", "versions": "0+", "about": "a"}`), []string{
		"T.json:2:1: warning: field \"A\": type \"Int32\" names no struct of this file; Kafka treats it as an empty struct; did you mean \"int32\"? (type names are case-sensitive) [empty-struct]",
	}},
	{"recursive-struct", withCommon(`{"name": "A", "type": "S", "versions": "0+", "about": "a"}`, `{"name": "S", "versions": "0+", "fields": [{"name": "Next", "type": "S", "versions": "0+", "about": "n"}]}`), []string{
		"T.json:4:44: error: field \"Next\" makes struct \"S\" contain itself: Kafka's generated constructor would never return; make the field nullable with \"default\": \"null\", or an array [recursive-struct]",
	}},
	{"bad-default", msg(`{"name": "A", "type": "int8", "versions": "0+", "default": "200", "about": "a"}`), []string{
		"T.json:2:1: error: field \"A\": default \"200\" is not a valid int8 [bad-default]",
	}},
	{"bad-default", msg(`{"name": "A", "type": "string", "versions": "0+", "default": "null", "about": "a"}`), []string{
		"T.json:2:1: error: field \"A\": a null default needs nullableVersions to cover all versions 0+ [bad-default]",
	}},
	// lint's own rules (lint.go).
	{"duplicate-key", msg(`{"name": "A", "type": "int32", "versions": "0+", "versions": "1+", "about": "a"}`), []string{
		"T.json:2:50: warning: key \"versions\" appears twice in this object; Kafka's JSON reader keeps the last value [duplicate-key]",
	}},
	{"null-default", msg(`{"name": "A", "type": "[]int32", "versions": "0+", "default": null, "about": "a"}`), []string{
		"T.json:2:63: warning: field \"A\": \"default\": null is the same as no default: the field defaults to an empty array, not to null; for a null default write \"default\": \"null\", a string (it needs nullableVersions to cover the field's versions) [null-default]",
	}},
	{"reversed-versions", msg(`{"name": "A", "type": "int32", "versions": "3-1", "about": "a"}`), []string{
		"T.json:2:44: warning: versions \"3-1\" holds no version: Kafka reads \"A-B\" with B below A as \"none\"; did you mean \"1-3\"? (\"none\" if no version is meant) [reversed-versions]",
	}},
	{"missing-key", `{"type": "metadata", "name": "FrobRecord", "validVersions": "0", "flexibleVersions": "0+"}`, []string{
		"T.json:1:1: error: the metadata has no \"apiKey\": Kafka's MetadataRecordTypeGenerator needs one [missing-key]",
	}},
	{"missing-key", withCommon(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"}`, `{"versions": "0+", "fields": []}`), []string{
		"T.json:4:1: error: a commonStruct has no \"name\" [missing-key]",
	}},
	{"bad-name", withCommon(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"}`, `{"name": "s", "versions": "0+", "fields": []}`), []string{
		"T.json:4:1: warning: commonStruct \"s\" is never used by the message's fields (Kafka still generates a class for it) [unused-common-struct]",
		"T.json:4:10: error: commonStruct name \"s\" must start with an upper-case letter (Kafka's StructRegistry) [bad-name]",
	}},
	{"bad-common-struct", withCommon(`{"name": "A", "type": "S", "versions": "0+", "about": "a"}`, `{"name": "S", "versions": "0+", "fields": [{"name": "B", "type": "[]Inner", "versions": "0+", "about": "b", "fields": [{"name": "X", "type": "int8", "versions": "0+", "about": "x"}]}]}`), []string{
		"T.json:4:109: error: field \"B\" of commonStruct \"S\" defines struct \"Inner\" inline: Kafka's generator does not look for struct definitions inside commonStructs; declare \"Inner\" in commonStructs [bad-common-struct]",
	}},
	{"bad-common-struct", withCommon(`{"name": "A", "type": "S", "versions": "0+", "about": "a"}`, `{"name": "S", "versions": "0+", "fields": [{"name": "B", "type": "Int64", "versions": "0+", "about": "b"}]}`), []string{
		"T.json:4:44: error: field \"B\" of commonStruct \"S\" uses struct \"Int64\", which the message does not define: Kafka's generator fails (\"Unable to locate a specification for the structure\"); did you mean \"int64\"? (type names are case-sensitive) [bad-common-struct]",
	}},
	{"duplicate-struct", msg(`{"name": "A", "type": "[]S", "versions": "0+", "about": "a", "fields": [{"name": "X", "type": "int8", "versions": "0+", "about": "x"}]},` + "\n" + `{"name": "B", "type": "S", "versions": "0+", "about": "b"}`), []string{
		"T.json:3:1: error: field \"B\" uses struct \"S\" again (field \"A\" at 2:1 has it already): Kafka's generator allows one use of an inline struct; declare \"S\" in commonStructs to share it [duplicate-struct]",
	}},
	{"unused-common-struct", withCommon(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"}`, `{"name": "S", "versions": "0+", "fields": []}`), []string{
		"T.json:4:1: warning: commonStruct \"S\" is never used by the message's fields (Kafka still generates a class for it) [unused-common-struct]",
	}},
	{"missing-about", msg(`{"name": "A", "type": "int32", "versions": "0+"}`), []string{
		"T.json:2:1: warning: field \"A\" has no \"about\": Kafka's protocol documentation shows it [missing-about]",
	}},
	{"never-present", msg(`{"name": "A", "type": "int32", "versions": "5+", "about": "a"}`), []string{
		"T.json:2:44: warning: field \"A\" has versions 5+, but they start after the message's last valid version 3: the field is never on the wire [never-present]",
	}},
	{"never-present", msg(`{"name": "A", "type": "[]S", "versions": "2+", "about": "a", "fields": [{"name": "B", "type": "int32", "versions": "0-1", "about": "b"}]}`), []string{
		"T.json:2:116: warning: field \"B\" has versions 0-1, but struct \"S\" exists only in versions 2-3: the field is never on the wire [never-present]",
	}},
	{"versions-outside", msg(`{"name": "A", "type": "int32", "versions": "0-5", "about": "a"}`), []string{
		"T.json:2:44: warning: field \"A\" has versions 0-5, past the message's last valid version 3: versions outside validVersions 0-3 do not exist [versions-outside]",
	}},
	{"nullable-outside", msg(`{"name": "A", "type": "string", "versions": "0-1", "nullableVersions": "2+", "about": "a"}`), []string{
		"T.json:2:72: warning: field \"A\": nullableVersions 2+ lie outside its versions 0-1, so it is never nullable [nullable-outside]",
	}},
	{"nullable-outside", msg(`{"name": "A", "type": "string", "versions": "1+", "nullableVersions": "0-2", "about": "a"}`), []string{
		"T.json:2:71: warning: field \"A\": nullableVersions 0-2 reach outside its versions 1+; Kafka ignores the versions outside (the field is nullable in 1-2); write \"1-2\" [nullable-outside]",
	}},
	{"ignored-fields", msg(`{"name": "A", "type": "[]int32", "versions": "0+", "about": "a", "fields": []}`), []string{
		"T.json:2:66: warning: field \"A\" of type []int32 has \"fields\", which Kafka ignores: only structs and arrays of structs have fields [ignored-fields]",
	}},
	{"ignored-default", msg(`{"name": "A", "type": "records", "versions": "0+", "nullableVersions": "0+", "default": "x", "about": "a"}`), []string{
		"T.json:2:89: warning: field \"A\": Kafka ignores the default of a records field (it is always null) [ignored-default]",
	}},
	{"mapkey-no-effect", msg(`{"name": "A", "type": "S", "versions": "0+", "about": "a", "fields": [{"name": "K", "type": "int32", "versions": "0+", "mapKey": true, "about": "k"}]}`), []string{
		"T.json:2:130: warning: field \"K\": mapKey has no effect, since struct \"S\" is not the element of an array [mapkey-no-effect]",
	}},
}

func TestLintRules(t *testing.T) {
	for _, c := range lintCases {
		t.Run(c.rule, func(t *testing.T) {
			got := lintLines(bundle.File{Path: "T.json", Data: []byte(c.input)})
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("input:\n%s\ngot:\n%s\nwant:\n%s", c.input, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			found := false
			for _, g := range got {
				found = found || strings.HasSuffix(g, "["+c.rule+"]")
			}
			if !found {
				t.Errorf("no %s problem", c.rule)
			}
		})
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (go test ./spec -run %s -update rewrites it):\ngot:\n%s\nwant:\n%s", p, t.Name(), got, want)
	}
}

// TestLintDrafts: drafts as copied from a page (testdata/*.txt): the
// exact problems, the fixes made, the fixed copy, and that it loads.
func TestLintDrafts(t *testing.T) {
	for _, c := range []struct {
		name   string
		before []string // the messages of the draft that load
		loaded []string // the messages of the fixed copy that load
	}{
		// booleanbool keeps the request from loading until fixed.
		{"fragment", nil, []string{"FrobnicateRequest"}},
		// The draft's own problems do not keep FrobRequest from loading
		// ("Int32" is Kafka's empty struct, a warning); FrobResponse's
		// nullable bool has no fix.
		{"several", []string{"FrobRequest"}, []string{"FrobRequest"}},
		// Two schema blocks of a page that lost its line breaks: each
		// "// Version N" comment swallows the rest of its line. The loader
		// reads past (the comments end where the spec text begins); the
		// fixed copy has the line breaks back.
		{"flattened", []string{"VoteRequest", "VoteResponse"}, []string{"VoteRequest", "VoteResponse"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			r := lint.Check([]bundle.File{{Path: c.name + ".txt", Data: data}}, false)
			var b strings.Builder
			for _, p := range r.Problems {
				b.WriteString(p.Error() + "\n")
			}
			fixed, done := lint.ApplyFixes(data, r.Files[0].Fixes)
			for _, f := range done {
				b.WriteString(f.Pos.String() + ": fixed: " + f.Desc + " [" + f.Rule + "]\n")
			}
			golden(t, c.name+".want", []byte(b.String()))
			golden(t, c.name+".fixed", fixed)
			// Before fixing, the draft loads what has no error of its own.
			s, _ := spec.NewSet([]bundle.File{{Path: c.name + ".txt", Data: data}})
			if got := names(s); got != strings.Join(c.before, " ") {
				t.Errorf("the draft loads %q before fixing, want %q", got, c.before)
			}
			s, errs := spec.NewSet([]bundle.File{{Path: c.name + ".fixed", Data: fixed}})
			if got := names(s); got != strings.Join(c.loaded, " ") {
				t.Errorf("the fixed copy loads %q, want %q; problems:\n%v", got, c.loaded, errs)
			}
			for _, e := range errs {
				if e.Rule == "json-syntax" || e.Rule == "text-outside" || e.Rule == "missing-brace" || e.Rule == "comment-swallows" {
					t.Errorf("the fixed copy still has %v", e)
				}
			}
		})
	}
}

func names(s *spec.Set) string {
	var out []string
	for _, m := range s.Messages {
		out = append(out, m.Name)
	}
	return strings.Join(out, " ")
}

// TestLintAcrossFiles: the rules that need several files of one set.
func TestLintAcrossFiles(t *testing.T) {
	req := `{"apiKey": 90, "type": "request", "name": "FrobRequest", "validVersions": "0", "flexibleVersions": "0+"}`
	got := lintLines(
		bundle.File{Path: "FrobRequest.json", Data: []byte(req)},
		bundle.File{Path: "Frob2Request.json", Data: []byte(strings.Replace(req, "FrobRequest", "Frob2Request", 1))},
		bundle.File{Path: "Frob3Request.json", Data: []byte(strings.Replace(req, `"apiKey": 90`, `"apiKey": 91`, 1))},
	)
	want := []string{
		`Frob2Request.json:1:1: error: request "Frob2Request" has api key 90, already used by "FrobRequest" [duplicate-api-key]`,
		`Frob3Request.json:1:1: error: message "FrobRequest" is also defined in FrobRequest.json [duplicate-message]`,
		`FrobRequest.json:1:1: error: request "FrobRequest" (api key 90) has no response spec: Kafka's ApiMessageTypeGenerator needs both [unpaired-api]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// One file alone (a draft with one side) is not a whole set.
	if got := lintLines(bundle.File{Path: "FrobRequest.json", Data: []byte(req)}); len(got) != 0 {
		t.Errorf("a lone request: %v", got)
	}
}

// TestEmbeddedReleasesLint: both embedded releases have no lint error, and
// exactly the warnings docs/lint.md explains.
func TestEmbeddedReleasesLint(t *testing.T) {
	want := map[string]map[string]int{
		// Two fields without "about" (AlterShareGroupOffsetsResponse and
		// DescribeShareGroupOffsetsResponse Partitions) and three of
		// ConsumerGroupRegularExpressionValue; ShareFetchRequest's
		// PartitionMaxBytes is v0-only and v0 was removed; four
		// "default": null of the group coordinator's records
		// (ConsumerGroupMemberMetadataValue's ClassicMemberMetadata…).
		"4.4.0": {"missing-about": 5, "never-present": 1, "null-default": 4},
		// 138 fields without "about" (added in later releases; 28 of them
		// in the group and transaction coordinators' records);
		// DescribeTopicPartitions* repeat "versions" in three fields; one
		// "default": null (ConsumerGroupMemberMetadataValue).
		"3.9.1": {"missing-about": 138, "duplicate-key": 3, "null-default": 1},
	}
	for rel, rules := range want {
		r, err := bundle.Load(rel)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, p := range lint.Check(r.Files, true).Problems {
			if p.Severity == spec.SeverityError {
				t.Errorf("Kafka %s: %v", rel, p)
			}
			got[p.Rule]++
		}
		if len(got) != len(rules) {
			t.Errorf("Kafka %s: warnings by rule %v, want %v", rel, got, rules)
		}
		for k, n := range rules {
			if got[k] != n {
				t.Errorf("Kafka %s: %d %s warnings, want %d", rel, got[k], k, n)
			}
		}
	}
}

func TestApplyFixesSkipsOverlaps(t *testing.T) {
	src := []byte("abcdef")
	fixes := []*spec.Fix{
		{Desc: "c→X", Edits: []spec.Edit{{Off: 2, End: 3, New: "X"}}},
		{Desc: "bcd→", Edits: []spec.Edit{{Off: 1, End: 4}}},
		{Desc: "insert before f, delete e", Edits: []spec.Edit{{Off: 5, End: 5, New: "<"}, {Off: 4, End: 5}}},
	}
	out, done := lint.ApplyFixes(src, fixes)
	// The fix that starts first wins an overlap.
	if string(out) != "a<f" || len(done) != 2 || done[0].Desc != "bcd→" {
		t.Errorf("ApplyFixes = %q, %d applied", out, len(done))
	}
}

// TestFragmentPositions: problems inside a fragment (whose parse inserts
// an opening brace) keep the columns of the file.
func TestFragmentPositions(t *testing.T) {
	text := "\"type\": \"data\", \"name\": \"T\", \"validVersions\": \"0\", \"flexibleVersions\": \"0+\",\n\"fields\": [{\"name\": \"A\", \"type\": \"int33\", \"versions\": \"0+\", \"about\": \"a\"}]\n"
	m, errs := spec.ParseMessage("F.json", []byte(text))
	if m == nil || m.Name != "T" {
		t.Fatalf("no message from the fragment: %v", errs)
	}
	want := []string{
		"F.json:1:1: error: the spec object has no opening brace: the text looks like a fragment of one, as copied from a page [missing-brace]",
		"F.json:2:34: error: field \"A\": unknown type \"int33\"; did you mean \"int32\"? [bad-type]",
		"F.json:2:75: error: the spec object has no closing brace [missing-brace]",
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if m.Pos.String() != "F.json:1:1" || m.Root.Fields[0].Pos.String() != "F.json:2:12" {
		t.Errorf("positions: message %s, field %s", m.Pos, m.Root.Fields[0].Pos)
	}
}

// TestLintFixesOnlyUnambiguous: a name is fixed only when one candidate is
// close (or only the case differs).
func TestLintFixesOnlyUnambiguous(t *testing.T) {
	for _, c := range []struct {
		field, fix string // fix "" when none is wanted
	}{
		{`{"name": "A", "type": "booleanbool", "versions": "0+", "about": "a"}`, `type "booleanbool" → "bool"`},
		{`{"name": "A", "type": "strnig", "versions": "0+", "about": "a"}`, `type "strnig" → "string"`},
		{`{"name": "A", "type": "int33", "versions": "0+", "about": "a"}`, ""}, // int32, int8, uint32
		{`{"name": "A", "type": "string", "versions": "0+", "entitytype": "topicName", "about": "a"}`, `key "entitytype" → "entityType"`},
		{`{"name": "A", "type": "int32", "versions": "0+", "ignoreable": true, "ignorable": true, "about": "a"}`, ""}, // the key is there
		{`{"name": "A", "type": "[]Int32", "versions": "0+", "about": "a"}`, `type "[]Int32" → "[]int32"`},
	} {
		r := lint.Check([]bundle.File{{Path: "T.json", Data: []byte(msg(c.field))}}, false)
		var got []string
		for _, f := range r.Files[0].Fixes {
			got = append(got, f.Desc)
		}
		if strings.Join(got, "; ") != c.fix {
			t.Errorf("%s: fixes %q, want %q", c.field, got, c.fix)
		}
	}
}

// FuzzLint: any bytes lint without a panic, and the fixes apply.
func FuzzLint(f *testing.F) {
	for _, c := range lintCases {
		f.Add([]byte(c.input))
	}
	for _, n := range []string{"fragment.txt", "several.txt", "flattened.txt"} {
		if b, err := os.ReadFile(filepath.Join("testdata", n)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\"a\": [1, {\"b\": 'c'"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := lint.Check([]bundle.File{{Path: "F.json", Data: data}}, false)
		out, _ := lint.ApplyFixes(data, r.Files[0].Fixes)
		lint.Check([]bundle.File{{Path: "F.json", Data: out}}, false)
	})
}

// A fixed copy that would hold fewer fields, or more errors, than the
// file is refused (FixedCopy.Worse); one that is better is not.
func TestFixedCopyRefusedWhenWorse(t *testing.T) {
	src := msg(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"}, {"name": "B", "type": "int32", "versions": "0+", "about": "b"},`)
	f := &lint.File{Name: "T.json", File: bundle.File{Path: "T.json", Data: []byte(src)}}
	// Putting line 2 in a /* */ comment drops both fields.
	l2, l3 := strings.Index(src, "\n")+1, strings.LastIndex(src, "\n]")
	f.Fixes = []*spec.Fix{{Rule: "x", Desc: "x", Edits: []spec.Edit{{Off: l2, End: l2, New: "/* "}, {Off: l3, End: l3, New: " */"}}}}
	if c := f.Fixed("T.json"); c.Worse != "the fixed copy holds 0 fields, the file 2: a fix would put spec text inside a comment" {
		t.Errorf("fields dropped: %q", c.Worse)
	}
	// Doubling the type's quote: one error more, no field less.
	q := strings.Index(src, `"int32"`)
	f.Fixes = []*spec.Fix{{Rule: "x", Desc: "x", Edits: []spec.Edit{{Off: q, End: q + 1, New: `"i`}}}}
	if c := f.Fixed("T.json"); c.Worse != "the fixed copy has 2 errors, the file 1" {
		t.Errorf("more errors: %q\n%v", c.Worse, c.Problems)
	}
	// The real fix of the trailing comma.
	r := lint.Check([]bundle.File{{Path: "T.json", Data: []byte(src)}}, false)
	if c := r.Files[0].Fixed("T.json"); c.Worse != "" || len(c.Done) != 1 || len(c.Problems) != 0 {
		t.Errorf("the trailing comma: %q, %d fixes, %v", c.Worse, len(c.Done), c.Problems)
	}
}
