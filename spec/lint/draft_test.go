package lint_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
	"github.com/kwire/kwire/spec/evolve"
	"github.com/kwire/kwire/spec/lint"
)

// TestSeveralObjectsSeverity: a file read on its own (whatever its name,
// as `kwire lint FILE`, `--specs FILE` and the fixed copy of a draft are)
// holding two objects is a warning, and both load; the same file in a
// directory or an archive, as Kafka's generator compiles it, is an error.
func TestSeveralObjectsSeverity(t *testing.T) {
	two := msg(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"}`) + strings.Replace(msg(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"}`), `"T"`, `"U"`, 1)
	for _, c := range []struct {
		file bundle.File
		want string
	}{
		{bundle.File{Path: "T.json"}, "T.json:4:1: warning: this file holds 2 spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own; split the file before putting the specs into Kafka [several-objects]"},
		{bundle.File{Path: "T.txt"}, "T.txt:4:1: warning: this file holds 2 spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own; split the file before putting the specs into Kafka [several-objects]"},
		{bundle.File{Source: "d/T.json", Path: "T.json"}, "d/T.json:4:1: warning: this file holds 2 spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own; split the file before putting the specs into Kafka [several-objects]"},
		{bundle.File{Source: "d", Path: "T.json"}, "d/T.json:4:1: error: this file holds 2 spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own [several-objects]"},
		{bundle.File{Source: "specs.jar", Path: "common/message/T.json"}, "specs.jar!/common/message/T.json:4:1: error: this file holds 2 spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own [several-objects]"},
	} {
		c.file.Data = []byte(two)
		r := lint.Check([]bundle.File{c.file}, false)
		if got := r.Problems.Error(); got != c.want {
			t.Errorf("%s in %q:\n got %s\nwant %s", c.file.Path, c.file.Source, got, c.want)
		}
		s, _ := spec.NewSet([]bundle.File{c.file})
		if got := names(s); got != "T U" || len(s.Unloaded) != 0 {
			t.Errorf("%s in %q: loaded %q, unloaded %v; want both, none", c.file.Path, c.file.Source, got, s.Unloaded)
		}
	}
}

// TestUnloaded: Set.Unloaded names the objects left out (an error of their
// own, JSON beyond repair, a name taken), not the files' own problems.
func TestUnloaded(t *testing.T) {
	good := `{"type": "data", "name": "T", "validVersions": "0", "flexibleVersions": "0+"}`
	for _, c := range []struct {
		name, text string
		loaded     string
		unloaded   []string
	}{
		{"text around, two objects", "Title\n" + good + "\nbetween\n" + strings.Replace(good, `"T"`, `"U"`, 1) + "\n", "T U", nil},
		{"an error of its own", good + "\n" + strings.Replace(good, `"data"`, `"dta"`, 1) + "\n", "T", []string{"F.txt:2:1"}},
		{"JSON beyond repair", good + "\n" + `{"type": "data", "name": "U", "validVersions": 0x1}` + "\n", "T", []string{"F.txt:2:1"}},
		{"a name taken", good + "\n" + good + "\n", "T", []string{"F.txt:2:1"}},
	} {
		s, errs := spec.NewSet([]bundle.File{{Path: "F.txt", Data: []byte(c.text)}})
		var un []string
		for _, p := range s.Unloaded {
			un = append(un, p.String())
		}
		if names(s) != c.loaded || strings.Join(un, " ") != strings.Join(c.unloaded, " ") {
			t.Errorf("%s: loaded %q, unloaded %q; want %q, %q\n%v", c.name, names(s), un, c.loaded, c.unloaded, errs)
		}
	}
}

// flatten joins the lines of a spec file into one, as a web page that
// lost the line breaks shows it, after its license header (the comment
// lines before the object).
func flatten(data []byte) []byte {
	lines := strings.Split(string(data), "\n")
	i := 0
	for i < len(lines) && (strings.HasPrefix(strings.TrimSpace(lines[i]), "//") || strings.TrimSpace(lines[i]) == "") {
		i++
	}
	var b strings.Builder
	for _, l := range lines[i:] {
		b.WriteString(strings.TrimSpace(l))
		b.WriteByte(' ')
	}
	return []byte(b.String())
}

// TestFlattenedReleasesRestored: every spec file of four embedded releases
// (the newest, 4.1.2 with its one file without a licence header, 3.9.1,
// the oldest), flattened to one line, gets only comment-swallows errors (one
// a run of comments that swallows spec text, none of the contradictory
// trailing-comma or missing-brace ones), and its --fix copy lints without
// error and loads to the same specs, on the wire, as the file itself.
func TestFlattenedReleasesRestored(t *testing.T) {
	testFlattened(t, flatten, map[string]int{"4.4.0": 191, "4.1.2": 173, "3.9.1": 153, "3.0.2": 113}, false)
}

// TestFlattenedWholeRestored: the same with the licence header flattened
// onto the object's line too (`tr '\n' ' '`): one more comment-swallows
// error a file, at the header's last // comment, whose fix breaks the
// line before the object's '{'.
func TestFlattenedWholeRestored(t *testing.T) {
	whole := func(data []byte) []byte { return bytes.ReplaceAll(data, []byte("\n"), []byte(" ")) }
	testFlattened(t, whole, map[string]int{"4.4.0": 477, "4.1.2": 451, "3.9.1": 393, "3.0.2": 284}, true)
}

// testFlattened lints every file of the releases in swallows flattened,
// and the fixed copies; header says that each file that has a licence
// header has one error of it swallowing the object.
func testFlattened(t *testing.T, flatten func([]byte) []byte, swallows map[string]int, header bool) {
	for _, rel := range bundle.Releases() {
		if _, ok := swallows[rel]; !ok {
			continue
		}
		r, err := bundle.Load(rel)
		if err != nil {
			t.Fatal(err)
		}
		var orig, fixed []bundle.File
		n := 0
		for _, f := range r.Files {
			flat := flatten(f.Data)
			lr := lint.Check([]bundle.File{{Path: f.Path, Data: flat}}, false)
			objects := 0
			for _, p := range lr.Problems.Errors() {
				if p.Rule != "comment-swallows" {
					t.Errorf("Kafka %s, %s flattened: %v", rel, f.Path, p)
				}
				if strings.Contains(p.Msg, "swallows the spec object after it") {
					objects++
				}
				n++
			}
			hasHeader := bytes.HasPrefix(bytes.TrimSpace(f.Data), []byte("//"))
			if want := map[bool]int{true: 1}[header && hasHeader]; objects != want {
				t.Errorf("Kafka %s, %s flattened: %d errors of a comment swallowing the object, want %d", rel, f.Path, objects, want)
			}
			out, _ := lint.ApplyFixes(flat, lr.Files[0].Fixes)
			if errs := lint.Check([]bundle.File{{Path: f.Path, Data: out}}, false).Problems.Errors(); len(errs) > 0 {
				t.Errorf("Kafka %s, %s flattened and fixed: %v\n%s", rel, f.Path, errs, out)
			}
			// The jar a file came from says which internal topic's
			// records it defines (kafka-storage's "metadata" records
			// share api keys with KRaft's).
			orig = append(orig, bundle.File{Source: f.Source, Path: f.Path, Data: f.Data})
			fixed = append(fixed, bundle.File{Source: f.Source, Path: f.Path, Data: out})
		}
		if n != swallows[r.Version] {
			t.Errorf("Kafka %s flattened: %d comment-swallows errors, want %d", r.Version, n, swallows[r.Version])
		}
		a, _ := spec.NewSet(orig)
		b, errs := spec.NewSet(fixed)
		if len(a.Messages) != len(r.Files) || len(b.Messages) != len(a.Messages) || errs.HasErrors() {
			t.Errorf("Kafka %s: %d files, %d messages, %d once flattened and fixed (%v)", r.Version, len(r.Files), len(a.Messages), len(b.Messages), errs.Errors())
		}
		for _, f := range evolve.Compat(a, b) {
			t.Errorf("Kafka %s flattened and fixed: %s", r.Version, f.String())
		}
	}
}

// TestFlattenedVote: the two schema blocks of a page that lost their line
// breaks (testdata/flattened.txt, see its README): each block alone
// lints without any problem once fixed, and the fixed copy holds the same
// Vote specs, on the wire, as Kafka 4.4.0's.
func TestFlattenedVote(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "flattened.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "{") {
			blocks = append(blocks, l+"\n")
		}
	}
	want := []string{
		"B.json:1:88: error: this // comment runs to the end of its line and swallows the spec text after it, from 1:208 to the end of the line (1788 bytes): \"validVersions\": \"0-2\", \"flexibleVers…; the line breaks after the comment were lost, as when a spec is copied from a web page [comment-swallows]",
		"B.json:1:61: error: this // comment runs to the end of its line and swallows the spec text after it, from 1:143 to the end of the line (1618 bytes): \"validVersions\": \"0-2\", \"flexibleVers…; the line breaks after the comment were lost, as when a spec is copied from a web page [comment-swallows]",
	}
	if len(blocks) != 2 {
		t.Fatalf("%d blocks in flattened.txt, want 2", len(blocks))
	}
	for i, b := range blocks {
		r := lint.Check([]bundle.File{{Path: "B.json", Data: []byte(b)}}, false)
		if got := r.Problems.Error(); got != want[i] {
			t.Errorf("block %d:\n got %s\nwant %s", i+1, got, want[i])
		}
		out, done := lint.ApplyFixes([]byte(b), r.Files[0].Fixes)
		if len(done) != 1 || done[0].Desc != "restored the line breaks after the 2 comments of the line" {
			t.Errorf("block %d: fixes %v", i+1, done)
		}
		if after := lint.Check([]bundle.File{{Path: "B.json", Data: out}}, false).Problems; len(after) != 0 {
			t.Errorf("block %d fixed:\n%v\n%s", i+1, after, out)
		}
	}
	fixed, err := os.ReadFile(filepath.Join("testdata", "flattened.fixed"))
	if err != nil {
		t.Fatal(err)
	}
	got, errs := spec.NewSet([]bundle.File{{Path: "flattened.fixed", Data: fixed}})
	if errs.HasErrors() || names(got) != "VoteRequest VoteResponse" {
		t.Fatalf("the fixed copy loads %q: %v", names(got), errs)
	}
	rel, err := bundle.Load("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	var vote []bundle.File
	for _, n := range []string{"VoteRequest.json", "VoteResponse.json"} {
		f, ok := rel.Find("common/message/" + n)
		if !ok {
			t.Fatalf("no %s in Kafka 4.4.0", n)
		}
		vote = append(vote, f)
	}
	kafka, _ := spec.NewSet(vote)
	for _, f := range evolve.Compat(kafka, got) {
		t.Errorf("the fixed copy differs from Kafka 4.4.0: %s", f.String())
	}
}

// TestCommentSwallowsSplits: where a // comment that swallows spec text
// ends, and what its fix writes: a licence header joined onto the object
// (whole, or onto its '{' alone), a /* */ comment in the swallowed text, a
// non-breaking space before the swallowed key, and a comment that quotes
// a key and value (the split is where no further fix is needed). Each
// fixed copy lints clean and holds field F.
func TestCommentSwallowsSplits(t *testing.T) {
	const obj = `{ "type": "data", "name": "T", "validVersions": "0-1", "flexibleVersions": "0+", "fields": [ { "name": "F", "type": "int32", "versions": "0+", "about": "f" } ] }`
	for _, c := range []struct {
		name, src, lint, fixed string
	}{
		{"header on the object's line", "// Copyright A. // Licensed B. " + obj + "\n",
			"T.json:1:17: error: this // comment runs to the end of its line and swallows the spec object after it, from 1:32 to the end of the line (161 bytes): { \"type\": \"data\", \"name\": \"T\", \"valid…; the line breaks after the comment were lost, as when a spec is copied from a web page [comment-swallows]",
			"// Copyright A. // Licensed B.\n" + obj + "\n"},
		{"header on the '{' line", "// Licensed B. {\n" + obj[2:] + "\n",
			"T.json:1:1: error: this // comment runs to the end of its line and swallows the spec object after it, from 1:16 to the end of the line (1 byte): {; the line breaks after the comment were lost, as when a spec is copied from a web page [comment-swallows]",
			"// Licensed B.\n{\n" + obj[2:] + "\n"},
		{"a /* */ comment after the split", `{ "type": "data", "name": "T", "validVersions": "0-1", "flexibleVersions": "0+", "fields": [ { "name": "F", "type": "int32", "versions": "0+", // Version 1 "about": "f" /* x */ } ] }` + "\n",
			"T.json:1:144: error: this // comment runs to the end of its line and swallows the spec text after it, from 1:157 to the end of the line (26 bytes): \"about\": \"f\" /* x */ } ] }; the line breaks after the comment were lost, as when a spec is copied from a web page [comment-swallows]",
			`{ "type": "data", "name": "T", "validVersions": "0-1", "flexibleVersions": "0+", "fields": [ { "name": "F", "type": "int32", "versions": "0+", // Version 1` + "\n" + `"about": "f" /* x */ } ] }` + "\n"},
		{"a non-breaking space before the key", "{ \"type\": \"data\", \"name\": \"T\", // Version 1\u00a0\"validVersions\": \"0-1\", \"flexibleVersions\": \"0+\", \"fields\": [ { \"name\": \"F\", \"type\": \"int32\", \"versions\": \"0+\", \"about\": \"f\" } ] }\n",
			"T.json:1:32: error: this // comment runs to the end of its line and swallows the spec text after it, from 1:46 to the end of the line (130 bytes): \"validVersions\": \"0-1\", \"flexibleVers…; the line breaks after the comment were lost, as when a spec is copied from a web page [comment-swallows]",
			"{ \"type\": \"data\", \"name\": \"T\", // Version 1\n\"validVersions\": \"0-1\", \"flexibleVersions\": \"0+\", \"fields\": [ { \"name\": \"F\", \"type\": \"int32\", \"versions\": \"0+\", \"about\": \"f\" } ] }\n"},
		{"a comment that quotes a key", `{ "type": "data", "name": "T", // Version 1 adds "F": true "validVersions": "0-1", "flexibleVersions": "0+", "fields": [ { "name": "F", "type": "int32", "versions": "0+", "about": "f" } ] }` + "\n",
			"T.json:1:32: error: this // comment runs to the end of its line and swallows the spec text after it, from 1:60 to the end of the line (130 bytes): \"validVersions\": \"0-1\", \"flexibleVers…; the line breaks after the comment were lost, as when a spec is copied from a web page [comment-swallows]",
			`{ "type": "data", "name": "T", // Version 1 adds "F": true` + "\n" + `"validVersions": "0-1", "flexibleVersions": "0+", "fields": [ { "name": "F", "type": "int32", "versions": "0+", "about": "f" } ] }` + "\n"},
	} {
		r := lint.Check([]bundle.File{{Path: "T.json", Data: []byte(c.src)}}, false)
		if got := r.Problems.Error(); got != c.lint {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.lint)
		}
		out, _ := lint.ApplyFixes([]byte(c.src), r.Files[0].Fixes)
		if string(out) != c.fixed {
			t.Errorf("%s: fixed\n%q\nwant\n%q", c.name, out, c.fixed)
		}
		s, errs := spec.NewSet([]bundle.File{{Path: "T.json", Data: out}})
		if after := lint.Check([]bundle.File{{Path: "T.json", Data: out}}, false).Problems; len(after) != 0 || len(errs) != 0 || s.Message("T") == nil || len(s.Message("T").Root.Fields) != 1 {
			t.Errorf("%s: the fixed copy: %v %v", c.name, after, errs)
		}
	}
}
