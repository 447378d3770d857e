package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLintReadmeWalkthrough: the README's lint walkthrough on the draft it
// uses (docs/examples/leaderandisr-draft.txt, two objects with text
// around them): lint reports the problems at their line:col, --fix writes
// a copy that lints as the "wrote" line says, and the copy loads whole with
// --specs: list and show exit 0, the several-objects warning printed.
func TestLintReadmeWalkthrough(t *testing.T) {
	dir := t.TempDir()
	f := copyTo(t, filepath.Join("..", "..", "docs", "examples", "leaderandisr-draft.txt"), dir)
	problems := []string{
		f + `:1:1: error: text outside the spec objects: "Page History" (Kafka's generator accepts only one JSON object in a file) [text-outside]`,
		f + `:79:47: error: field "IsLeaderRecovering": unknown type "booleanbool"; did you mean "bool"? [bad-type]`,
		f + `:85:1: error: text outside the spec objects: "AlterIsrRequest, with the same field:" (Kafka's generator accepts only one JSON object in a file) [text-outside]`,
		f + `:87:3: warning: this file holds 2 spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own; split the file before putting the specs into Kafka [several-objects]`,
		f + `:99:7: warning: field "Topics" has no "about": Kafka's protocol documentation shows it [missing-about]`,
		f + `:102:9: warning: field "Partitions" has no "about": Kafka's protocol documentation shows it [missing-about]`,
		f + `:110:51: error: field "IsLeaderRecovering": unknown type "booleanbool"; did you mean "bool"? [bad-type]`,
		f + `:110:104: error: unknown key "ignoreable" in field; did you mean "ignorable"? [unknown-key]`,
		f + `:112:3: error: 4 non-breaking spaces (U+00A0, as web pages have): JSON allows only plain spaces, tabs and line breaks [json-syntax]`,
		f + `:120:1: error: text outside the spec objects: "Powered by a wiki" (Kafka's generator accepts only one JSON object in a file) [text-outside]`,
	}
	r := kwire(t, "lint", f)
	if want := strings.Join(problems, "\n") + "\n"; r.code != 1 || r.stdout != want || r.stderr != "kwire: lint: 7 errors, 3 warnings\n" {
		t.Fatalf("lint: exit %d\n%s%s\nwant:\n%s", r.code, r.stdout, r.stderr, want)
	}
	out := filepath.Join(dir, "leaderandisr.json")
	r = kwire(t, "lint", "--fix", "--out", out, f)
	fixes := []string{
		f + `:1:1: fixed: commented out the text outside the spec objects [text-outside]`,
		f + `:79:47: fixed: type "booleanbool" → "bool" [bad-type]`,
		f + `:85:1: fixed: commented out the text outside the spec objects [text-outside]`,
		f + `:110:51: fixed: type "booleanbool" → "bool" [bad-type]`,
		f + `:110:104: fixed: key "ignoreable" → "ignorable" [unknown-key]`,
		f + `:112:3: fixed: 4 non-breaking spaces (U+00A0, as web pages have) → plain spaces [json-syntax]`,
		f + `:120:1: fixed: commented out the text outside the spec objects [text-outside]`,
		"wrote " + out + ": 7 fixes; it has 0 errors and 3 warnings",
	}
	// The exit status is the original's.
	if want := strings.Join(append(problems, fixes...), "\n") + "\n"; r.code != 1 || r.stdout != want {
		t.Fatalf("lint --fix: exit %d\n%s\nwant:\n%s", r.code, r.stdout, want)
	}
	// The copy lints as the "wrote" line says: 0 errors, 3 warnings.
	warnings := []string{
		out + `:87:3: warning: this file holds 2 spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own; split the file before putting the specs into Kafka [several-objects]`,
		out + `:99:7: warning: field "Topics" has no "about": Kafka's protocol documentation shows it [missing-about]`,
		out + `:102:9: warning: field "Partitions" has no "about": Kafka's protocol documentation shows it [missing-about]`,
	}
	r = kwire(t, "lint", out)
	if want := strings.Join(warnings, "\n") + "\n"; r.code != 0 || r.stdout != want || r.stderr != "kwire: lint: 0 errors, 3 warnings\n" {
		t.Errorf("lint of the copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Every object of the copy loads: list exits 0 with both APIs.
	r = kwire(t, "--specs", out, "list")
	wantList := "KEY  NAME            TYPE    VALID  FLEXIBLE  LISTENERS\n" +
		"4    LeaderAndIsr    api     0-6    4+        zkBroker\n" +
		"56   AlterIsr        api     0-1    0+        zkBroker,controller\n" +
		"     RequestHeader   header  1-2    2+        -\n" +
		"     ResponseHeader  header  0-1    1+        -\n"
	if r.code != 0 || r.stdout != wantList || r.stderr != warnings[0]+"\n" {
		t.Errorf("list --specs of the copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = kwire(t, "--specs", out, "show", "LeaderAndIsr", "--version", "6")
	if r.code != 0 || !strings.Contains(r.stdout, "LeaderAndIsrRequest v6, request header v2, 107 bytes on the wire") || !regexp.MustCompile(`IsLeaderRecovering +bool +=`).MatchString(r.stdout) {
		t.Errorf("show LeaderAndIsr v6 from the copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The draft itself: nothing loads until fixed, and list says so.
	r = kwire(t, "--specs", f, "list")
	if r.code != 1 || r.stdout != "" || !strings.HasSuffix(r.stderr, "\nkwire: --specs "+f+": no spec loaded: 2 spec objects did not load (errors above)\n") {
		t.Errorf("list --specs of the draft: exit %d\n%s", r.code, r.stderr)
	}
}

// TestLintFlattenedSchemaBlocks: the Vote schema blocks of a page that lost
// the line breaks (spec/lint/testdata/flattened.txt): one comment-swallows
// error a block, at the comment's start, naming where the swallowed spec
// text begins; --fix restores the line breaks, the copy lints without
// error and gives the Vote v2 of Kafka 4.4.0: 83 and 32 bytes, the same
// frames.
func TestLintFlattenedSchemaBlocks(t *testing.T) {
	dir := t.TempDir()
	f := copyTo(t, filepath.Join("..", "..", "spec", "lint", "testdata", "flattened.txt"), dir)
	r := kwire(t, "lint", f)
	want := []string{
		f + `:2:88: error: this // comment runs to the end of its line and swallows the spec text after it, from 2:208 to the end of the line (1788 bytes): "validVersions": "0-2", "flexibleVers…; the line breaks after the comment were lost, as when a spec is copied from a web page [comment-swallows]`,
		f + `:4:61: error: this // comment runs to the end of its line and swallows the spec text after it, from 4:143 to the end of the line (1618 bytes): "validVersions": "0-2", "flexibleVers…; the line breaks after the comment were lost, as when a spec is copied from a web page [comment-swallows]`,
	}
	if got := ruleLines(r.stdout, "comment-swallows"); r.code != 1 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lint: exit %d\n%s", r.code, r.stdout)
	}
	for _, rule := range []string{"json-syntax", "missing-brace"} {
		if got := ruleLines(r.stdout, rule); len(got) > 0 {
			t.Errorf("contradictory diagnoses: %q", got)
		}
	}
	out := filepath.Join(dir, "fixed.json")
	r = kwire(t, "lint", "--fix", "--out", out, f)
	if !strings.Contains(r.stdout, f+":2:88: fixed: restored the line breaks after the 2 comments of the line [comment-swallows]\n") ||
		!strings.Contains(r.stdout, f+":4:61: fixed: restored the line breaks after the 2 comments of the line [comment-swallows]\n") ||
		!strings.Contains(r.stdout, "wrote "+out+": 4 fixes; it has 0 errors and 1 warning\n") {
		t.Fatalf("lint --fix: exit %d\n%s", r.code, r.stdout)
	}
	if r := kwire(t, "lint", out); r.code != 0 || r.stderr != "kwire: lint: 0 errors, 1 warning\n" || len(ruleLines(r.stdout, "several-objects")) != 1 {
		t.Errorf("lint of the copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = kwire(t, "--specs", out, "show", "Vote", "--version", "2")
	if r.code != 0 || !strings.Contains(r.stdout, "VoteRequest v2, request header v2, 83 bytes on the wire") || !strings.Contains(r.stdout, "VoteResponse v2, response header v1, 32 bytes on the wire") {
		t.Errorf("show Vote v2 from the copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	fixed := kwire(t, "--specs", out, "show", "Vote", "--version", "2", "--format", "json")
	kafka := kwire(t, "--kafka", "4.4.0", "show", "Vote", "--version", "2", "--format", "json")
	got, exp := sides(t, fixed.stdout), sides(t, kafka.stdout)
	if got["Request"] != exp["Request"] || got["Response"] != exp["Response"] || got["Response"] != voteResponseV2 || len(got["Request"]) != 2*83 {
		t.Errorf("Vote v2 from the copy:\n%v\nKafka 4.4.0:\n%v", got, exp)
	}
	if r := kwire(t, "--specs", out, "list"); r.code != 0 {
		t.Errorf("list --specs of the copy: exit %d\n%s", r.code, r.stderr)
	}
}

// One fix is "1 fix"; a file with nothing to fix gets no copy, and with
// --out a line says so.
func TestLintFixWording(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "T.json")
	const src = `{"type": "data", "name": "T", "validVersions": "0", "flexibleVersions": "0+", "fields": [{"name": "A", "type": "int32", "versions": "0+", "about": "a"},]}` + "\n"
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, again := filepath.Join(dir, "fixed.json"), filepath.Join(dir, "again.json")
	r := kwire(t, "lint", "--fix", "--out", out, f)
	if r.code != 1 || !strings.HasSuffix(r.stdout, f+":1:152: fixed: removed the trailing comma [json-syntax]\nwrote "+out+": 1 fix; it has 0 errors and 0 warnings\n") {
		t.Errorf("lint --fix: exit %d\n%s", r.code, r.stdout)
	}
	r = kwire(t, "lint", "--fix", "--out", again, out)
	if _, err := os.Stat(again); r.code != 0 || r.stdout != out+": nothing to fix: no copy written to "+again+"\n" || err == nil {
		t.Errorf("lint --fix of a clean file: exit %d, %v\n%s", r.code, err, r.stdout)
	}
}

// lint --fix on an error it cannot fix (a near type name that may be one
// of several) writes no copy and says so, not nothing.
func TestLintFixSaysWhatItDidNotFix(t *testing.T) {
	f := filepath.Join(t.TempDir(), "T.json")
	const src = `{"apiKey": 99, "type": "request", "listeners": ["broker"], "name": "TRequest", "validVersions": "0", "flexibleVersions": "none",
  "fields": [{ "name": "A", "type": "int33", "versions": "0+", "about": "x" }]}
`
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := kwire(t, "lint", "--fix", f)
	want := f + `:2:37: error: field "A": unknown type "int33"; did you mean "int32"? [bad-type]` + "\n" +
		f + ":2:37: no automatic fix for this error [bad-type]: edit the file\n"
	if r.code != 1 || r.stdout != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", r.code, r.stdout, want)
	}
	if _, err := os.Stat(f + ".fixed"); err == nil {
		t.Errorf("a copy was written with nothing fixed")
	}
}
