package evolve

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/spec"
)

// c20Comparison compares case C20's specs (a field goes uint16 → int32 in
// place), the headers they borrowed skipped.
func c20Comparison(t *testing.T) *Comparison {
	t.Helper()
	dir := filepath.Join("testdata", "c20")
	old, errs, err := spec.FromPath(filepath.Join(dir, "old"))
	if err != nil || errs.HasErrors() {
		t.Fatal(err, errs)
	}
	nw, errs, err := spec.FromPath(filepath.Join(dir, "new"))
	if err != nil || errs.HasErrors() {
		t.Fatal(err, errs)
	}
	skip := BorrowedHeaders(old, nw)
	if skip == nil || !skip(old.RequestHeader()) || skip(old.Message("RegisterEndpointRequest")) {
		t.Fatal("BorrowedHeaders does not skip exactly the borrowed headers")
	}
	return Compare(old, nw, "old", "new", CompatOptions{Skip: skip})
}

func TestComparisonText(t *testing.T) {
	c := c20Comparison(t)
	var b bytes.Buffer
	if err := c.WriteText(&b, Info); err != nil {
		t.Fatal(err)
	}
	want := "old → new\n" +
		filepath.Join("testdata", "c20", "new", "RegisterEndpointRequest.json") + ":15:5: incompatible: RegisterEndpointRequest v0-1 Port: type uint16 → int32: 2 → 4 bytes on the wire [type-changed]\n" +
		"1 incompatible, 0 compatible, 0 info; Kafka's own evolution checker would judge 0 of them otherwise\n"
	if b.String() != want {
		t.Errorf("WriteText:\n%s\nwant\n%s", b.String(), want)
	}
	if err := c.Incompatible("--common"); err == nil || err.Error() != "1 incompatible change from old to new" {
		t.Errorf("Incompatible = %v", err)
	}
	b.Reset()
	c.WriteDiffText(&b, Diff(c.Old, c.New, c.Findings))
	want = "old → new\n" +
		"KIND  KEY  NAME              STATUS   VERSIONS   REMOVED  ADDED  CHANGED IN  FINDINGS\n" +
		"api   200  RegisterEndpoint  changed  0-1 → 0-1  -        -      0-1         1 incompatible\n" +
		"0 added, 0 removed, 0 renamed, 1 changed\n"
	if b.String() != want {
		t.Errorf("WriteDiffText:\n%s\nwant\n%s", b.String(), want)
	}
}

func TestComparisonJSON(t *testing.T) {
	c := c20Comparison(t)
	var b bytes.Buffer
	if err := c.WriteJSON(&b, Incompatible); err != nil {
		t.Fatal(err)
	}
	var got CompatJSON
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	f := got.Findings
	if len(f) != 1 || *f[0].APIKey != 200 || f[0].Rule != "type-changed" || f[0].Kafka != "rejects" || f[0].Versions != "0-1" ||
		!strings.HasSuffix(f[0].OldPos, "RegisterEndpointRequest.json:13:5") || !strings.HasSuffix(f[0].NewPos, "RegisterEndpointRequest.json:15:5") {
		t.Errorf("findings %+v", f)
	}
	if got.Counts["incompatible"] != 1 || got.Counts["compatible"] != 0 || got.Counts["info"] != 0 || !strings.HasPrefix(got.Old, filepath.Join("testdata", "c20", "old")) {
		t.Errorf("%+v", got)
	}
	if !strings.Contains(b.String(), "\n  \"counts\": {\n") {
		t.Errorf("not indented:\n%s", b.String())
	}
	b.Reset()
	if err := WriteDiffJSON(&b, Diff(c.Old, c.New, c.Findings)); err != nil {
		t.Fatal(err)
	}
	var rows []DiffRowJSON
	if err := json.Unmarshal(b.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Name != "RegisterEndpoint" || len(rows[0].Removed) != 0 || rows[0].Removed == nil || rows[0].Changed[0] != "0-1" || rows[0].Incompatible != 1 {
		t.Errorf("diff rows %+v", rows)
	}
}

// Between the embedded releases: the counts of the README, the --common
// hint only when the new side is not a release, and the rows that differ
// only in listeners left out of the text.
func TestComparisonOfReleases(t *testing.T) {
	old, _ := spec.Embedded("3.9.1")
	nw, _ := spec.Embedded("4.4")
	c := Compare(old, nw, "Kafka 3.9.1", "Kafka 4.4.0", CompatOptions{})
	n := c.Counts()
	// See TestCompatKafka39To44 for the internal topics' records' share;
	// 3.9.1 carries no __share_group_state specs, so the 4 of 4.4.0 are
	// not compared (they are no message-added findings).
	if n[Incompatible] != 52 || n[CompatibleChange] != 29 || n[Info] != 199 {
		t.Errorf("counts %v, want 52 incompatible, 29 compatible, 199 info", n)
	}
	if err := c.Incompatible("--common"); err == nil || err.Error() != "52 incompatible changes from Kafka 3.9.1 to Kafka 4.4.0" {
		t.Errorf("Incompatible = %v", err)
	}
	var b bytes.Buffer
	c.WriteDiffText(&b, Diff(old, nw, c.Findings))
	if !strings.HasPrefix(b.String(), "Kafka 3.9.1 → Kafka 4.4.0\nKafka 3.9.1 carries no __share_group_state specs: not compared\nKIND ") {
		t.Errorf("diff head:\n%s", b.String()[:200])
	}
	if !strings.HasSuffix(b.String(), "\n37 added, 6 removed, 1 renamed, 69 changed; 28 more differ only in listeners, deprecatedVersions or latestVersionUnstable (kwire compat lists them)\n") {
		t.Errorf("diff summary:\n%s", b.String()[strings.LastIndex(strings.TrimSuffix(b.String(), "\n"), "\n")+1:])
	}
	draft := &spec.Set{Source: "draft", Messages: nil}
	c = &Comparison{Old: nw, New: draft, OldLabel: "Kafka 4.4.0", NewLabel: "draft", Findings: []Finding{{Rule: "message-removed", Severity: Incompatible}}}
	if err := c.Incompatible("--common"); err == nil || !strings.HasSuffix(err.Error(), "(if the new specs hold only some messages, --common compares only the messages both sides have)") {
		t.Errorf("Incompatible of a draft = %v", err)
	}
}
