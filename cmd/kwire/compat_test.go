package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kwire/kwire/internal/cli"
	"github.com/kwire/kwire/spec/evolve"
)

// c20 is case C20's pair of specs (a field goes uint16 → int32 in place).
var c20 = filepath.Join("..", "..", "spec", "evolve", "testdata", "c20")

// needCommand skips a test of a command that cli.go does not register yet.
func needCommand(t *testing.T, field string) {
	t.Helper()
	if _, ok := reflect.TypeOf(kwireCLI{}).FieldByName(field); !ok {
		t.Skipf("the %s command is not registered in cli.go yet", strings.ToLower(field))
	}
}

func TestScanSources(t *testing.T) {
	got := cli.FlagValues([]string{"--kafka", "3.9", "compat", "--format", "json", "--specs=dir", "--kafka=4.4", "--", "--kafka", "x"}, "kafka", "specs")
	want := []source{{Flag: "kafka", Value: "3.9"}, {Flag: "specs", Value: "dir"}, {Flag: "kafka", Value: "4.4"}}
	if !slices.Equal(got, want) {
		t.Errorf("FlagValues = %v, want %v", got, want)
	}
}

func TestCompatC20Command(t *testing.T) {
	needCommand(t, "Compat")
	for _, args := range [][]string{
		{"compat", filepath.Join(c20, "old"), filepath.Join(c20, "new")},
		{"compat", filepath.Join(c20, "old", "RegisterEndpointRequest.json"), filepath.Join(c20, "new", "RegisterEndpointRequest.json")},
		{"--specs", filepath.Join(c20, "old"), "compat", "--specs", filepath.Join(c20, "new")},
	} {
		r := kwire(t, args...)
		if r.code != 1 {
			t.Errorf("kwire %v: exit %d, want 1 (incompatible); stderr %s", args, r.code, r.stderr)
		}
		want := regexp.MustCompile(`(?m)RegisterEndpointRequest\.json:15:5: incompatible: RegisterEndpointRequest v0-1 Port: type uint16 → int32: 2 → 4 bytes on the wire \[type-changed\]$`)
		if !want.MatchString(r.stdout) {
			t.Errorf("kwire %v: stdout lacks the type change:\n%s", args, r.stdout)
		}
		if !strings.Contains(r.stdout, "1 incompatible, 0 compatible, 0 info") || !strings.Contains(r.stderr, "1 incompatible change from") {
			t.Errorf("kwire %v: summary or status missing:\n%s\n%s", args, r.stdout, r.stderr)
		}
	}
}

func TestCompatReleases(t *testing.T) {
	needCommand(t, "Compat")
	r := kwire(t, "compat", "--kafka", "3.9.1", "--kafka", "4.4", "--format", "json")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", r.code, r.stderr)
	}
	var out struct {
		Old, New string
		Counts   map[string]int
		Findings []evolve.FindingJSON
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
	if out.Counts["incompatible"] != 52 || out.Counts["compatible"] != 29 {
		t.Errorf("counts = %v, want 52 incompatible and 29 compatible (see evolve.TestCompatKafka39To44)", out.Counts)
	}
	if !strings.Contains(out.Old, "3.9.1") || !strings.Contains(out.New, "4.4.0") {
		t.Errorf("old %q, new %q", out.Old, out.New)
	}
	found := false
	for _, f := range out.Findings {
		if f.Message == "LeaderAndIsrRequest" && f.Rule == "top-versions-removed" && f.Versions == "0-7" && f.Severity == "incompatible" && f.APIKey != nil && *f.APIKey == 4 {
			found = true
		}
	}
	if !found {
		t.Error("no finding that LeaderAndIsrRequest 0-7 was removed")
	}

	// Positional releases, only the incompatible findings.
	r = kwire(t, "compat", "3.9.1", "4.4", "--severity", "incompatible")
	if r.code != 1 || strings.Contains(r.stdout, " info: ") || strings.Contains(r.stdout, " compatible: ") || !strings.Contains(r.stdout, "52 incompatible, 29 compatible") {
		t.Errorf("--severity incompatible: exit %d\n%s", r.code, r.stdout)
	}
	if r := kwire(t, "compat", "--kafka", "4.4", "--kafka", "4.4.0"); r.code != 0 || !strings.Contains(r.stdout, "0 incompatible, 0 compatible, 0 info") {
		t.Errorf("4.4 against itself: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestCompatUsage(t *testing.T) {
	needCommand(t, "Compat")
	for _, args := range [][]string{
		{"compat", "--kafka", "3.9"},
		{"compat", "3.9", "4.4", "--kafka", "4.4"},
		{"compat", "4.5", "4.4"},
		{"compat", "--kafka", "2.8", "--kafka", "4.4"},
	} {
		if r := kwire(t, args...); r.code != 2 {
			t.Errorf("kwire %v: exit %d, want 2 (usage); stderr %s", args, r.code, r.stderr)
		}
	}
}

func TestCompatDraftAgainstRelease(t *testing.T) {
	needCommand(t, "Compat")
	// A directory of drafts against a whole release: everything else is
	// "removed" unless --common, and the status says so.
	r := kwire(t, "compat", "--kafka", "4.4", "--specs", filepath.Join(c20, "new"))
	if r.code != 1 || !strings.Contains(r.stderr, "--common") {
		t.Errorf("without --common: exit %d, stderr %s", r.code, r.stderr)
	}
	r = kwire(t, "compat", "--common", filepath.Join(c20, "old"), filepath.Join(c20, "new"))
	if r.code != 1 || strings.Contains(r.stdout, "RequestHeader") {
		t.Errorf("--common: exit %d\n%s", r.code, r.stdout)
	}
}

func TestDiffCommand(t *testing.T) {
	needCommand(t, "Diff")
	out := mustRun(t, "diff", "--kafka", "3.9.1", "--kafka", "4.4")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^api +4 +LeaderAndIsr +removed +0-7 → none +0-7 +- +- +2 incompatible$`),
		regexp.MustCompile(`(?m)^api +0 +Produce +changed +0-11 → 3-13 +0-2 +12-13 +- +2 incompatible, 3 info$`),
		regexp.MustCompile(`(?m)^api +52 +Vote +changed +0-1 → 0-2 +- +2 +0-1 +3 compatible, 2 info$`),
		regexp.MustCompile(`(?m)^api +74 +ListConfigResources \(was ListClientMetricsResources\) +renamed +0 → 0-1 `),
		regexp.MustCompile(`(?m)^coordinator-key +1 +OffsetCommitKey +changed +0-1 → 0 +- +- +- +2 info$`),
		regexp.MustCompile(`(?m)^Kafka 3.9.1 carries no __share_group_state specs: not compared$`),
		regexp.MustCompile(`(?m)^37 added, 6 removed, 1 renamed, 69 changed; 28 more differ only in listeners`),
	} {
		if !want.MatchString(out) {
			t.Errorf("diff lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "AddOffsetsToTxn") {
		t.Error("diff lists an API whose only change is its listeners")
	}
	var rows []evolve.DiffRowJSON
	if err := json.Unmarshal([]byte(mustRun(t, "diff", "3.9.1", "4.4", "--format", "json")), &rows); err != nil {
		t.Fatal(err)
	}
	// 113 with versions, fields or records' forms (see
	// evolve.TestDiffKafka39To44), 28 listeners or flags only.
	if len(rows) != 141 {
		t.Errorf("diff --format json has %d rows, want 141 (113 with versions, fields or record forms, 28 listeners or flags only)", len(rows))
	}
}

// The README's diff and compat of releases: an internal topic's records
// are compared where both releases carry its specs, and a topic one side
// lacks is named, not its records called added (issue 25: 67 rows of
// 3.9 → 4.4 and 56 findings of 4.3 → 4.4 were).
func TestDiffAndCompatOfInternalTopics(t *testing.T) {
	needCommand(t, "Diff")
	out := mustRun(t, "diff", "--kafka", "3.9", "--kafka", "4.4")
	if !strings.HasPrefix(out, "Kafka 3.9.2 → Kafka 4.4.0\nKafka 3.9.2 carries no __share_group_state specs: not compared\n") {
		t.Errorf("diff head:\n%s", out[:min(len(out), 300)])
	}
	for _, name := range []string{"OffsetCommitKey", "OffsetCommitValue", "GroupMetadataKey", "TransactionLogKey", "TransactionLogValue", "ShareSnapshotKey", "RemoteLogSegmentMetadataRecord"} {
		if regexp.MustCompile(`(?m)^\S+ +\S+ +` + name + ` +added `).MatchString(out) {
			t.Errorf("diff calls %s added", name)
		}
	}
	if !regexp.MustCompile(`(?m)^coordinator-key +1 +OffsetCommitKey +changed +0-1 → 0 `).MatchString(out) {
		t.Errorf("diff lacks OffsetCommitKey changed:\n%s", out)
	}
	r := kwire(t, "diff", "--kafka", "3.9", "--kafka", "4.4", "--format", "json")
	if r.code != 0 || r.stderr != "kwire: note: Kafka 3.9.2 carries no __share_group_state specs: not compared\n" {
		t.Errorf("diff --format json: exit %d, stderr %q", r.code, r.stderr)
	}
	r = kwire(t, "compat", "--kafka", "4.3", "--kafka", "4.4")
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.Contains(l, "[message-added]") && !strings.Contains(l, "kafka-clients-4.4.0.jar") && !strings.Contains(l, "kafka-metadata-4.4.0.jar") {
			t.Errorf("compat 4.3 → 4.4: %s", l)
		}
	}
	if strings.Contains(r.stdout, "not compared") {
		t.Errorf("compat 4.3 → 4.4: both carry every topic:\n%s", r.stdout)
	}
	r = kwire(t, "compat", "--kafka", "3.0", "--kafka", "4.4", "--format", "json")
	var js evolve.CompatJSON
	if err := json.Unmarshal([]byte(r.stdout), &js); err != nil {
		t.Fatal(err)
	}
	// 3.0.2's broker jar holds the group's and the transaction log's
	// records; the share coordinator came in 4.0.
	if got := fmt.Sprint(js.NotCompared); got != "[{__share_group_state old Kafka 3.0.2 carries no __share_group_state specs: not compared}]" {
		t.Errorf("compat 3.0 → 4.4 not_compared %s", got)
	}
}

func TestHistoryCommand(t *testing.T) {
	needCommand(t, "History")
	out := mustRun(t, "history", "Vote")
	for _, want := range []string{
		"VoteRequest (request, api key 52) in Kafka 4.4.0: valid versions 0-2, flexible 0+\n  v0  lowest valid version; first flexible version; Kafka ≤3.0–4.4\n  v1  Kafka 3.9–4.4\n",
		"      + VoterId int32 (ignorable, default -1): The replica id of the voter receiving the request.\n",
		"      // Version 1 adds voter key and directory id (KIP-853)  (line 21)\n",
		"  v2  Kafka 4.0–4.4\n      + Topics.Partitions.PreVote bool: Whether the request is a PreVote request (not persisted) or not.\n      // Version 2 adds PreVote field and renames candidate to replica  (line 22)\n",
		"VoteResponse (response, api key 52)",
		"      + NodeEndpoints []NodeEndpoint (tagged 1+, tag 0): Endpoints for all current-leaders enumerated in PartitionData.\n",
		"  v2  no field changes; Kafka 4.0–4.4\n      // Version 2 handles PreVote requests  (line 21)\n",
		"\nKafka A–B: the embedded releases whose spec has the version, from the first that does not mark it unstable (latestVersionUnstable), by minor (kwire embeds the last patch release of each minor from 3.0 to 4.4); ≤3.0: already in the oldest embedded release, 3.0.2.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("history Vote lacks %q:\n%s", want, out)
		}
	}
	// The versions a release does not have yet, with the releases that do.
	out = mustRun(t, "--kafka", "3.6", "history", "Produce")
	if want := "  versions not in Kafka 3.6.2, in other embedded releases:\n    v10  Kafka 3.7–4.4\n    v11  Kafka 3.8–4.4\n    v12  Kafka 4.0–4.4\n    v13  Kafka 4.1–4.4\n\nProduceResponse (response, api key 0) in Kafka 3.6.2: valid versions 0-9, flexible 9+\n"; !strings.Contains(out, want) {
		t.Errorf("--kafka 3.6 history Produce lacks %q:\n%s", want, out)
	}
	var js []evolve.HistoryJSON
	if err := json.Unmarshal([]byte(mustRun(t, "history", "Produce", "--format", "json")), &js); err != nil || len(js) != 2 || len(js[0].OtherVersions) != 3 ||
		!reflect.DeepEqual(*js[0].OtherVersions[2], evolve.SpanJSON{Version: 2, First: "3.0.2", FirstIsOldest: true, Last: "3.9.2", Removed: "4.0.2", Words: "Kafka ≤3.0–3.9 (removed in 4.0)"}) ||
		!reflect.DeepEqual(*js[0].Versions[10].Releases, evolve.SpanJSON{Version: 13, First: "4.1.2", Last: "4.4.0", Words: "Kafka 4.1–4.4"}) {
		t.Errorf("history Produce --format json: %v %+v", err, js)
	}
	out = mustRun(t, "--kafka", "4.4", "history", "FetchRequest")
	if !strings.Contains(out, "  versions not in Kafka 4.4.0, in other embedded releases:\n    v0-3  Kafka ≤3.0–3.9 (removed in 4.0)\n  comments on versions") {
		t.Errorf("history FetchRequest lacks the removed versions:\n%s", out)
	}
	if !strings.Contains(out, "comments on versions that are not valid:\n      // Versions 0-3 were removed in Apache Kafka 4.0, Version 4 is the new baseline.  (line 21)") {
		t.Errorf("history FetchRequest lacks the removed versions' comment:\n%s", out)
	}
	var hs []evolve.HistoryJSON
	if err := json.Unmarshal([]byte(mustRun(t, "history", "52", "--format", "json")), &hs); err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 || len(hs[0].Versions) != 3 || hs[0].Versions[2].Changes[0].Path != "Topics.Partitions.PreVote" || hs[0].Versions[2].Notes[0].Line != 22 {
		t.Errorf("history --format json = %+v", hs)
	}
	if r := kwire(t, "history", "NoSuchApi"); r.code != 1 {
		t.Errorf("unknown name: exit %d, want 1", r.code)
	}
}

// A side whose specs all failed to load is refused, naming the side and the
// path, instead of comparing as every message added (exit 1: a finding
// about the specs, as for list and show).
func TestCompatRefusesASideWithoutMessages(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Broken.json"), []byte("{bad"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compat", dir, "4.4"}, "kwire: the old specs, " + dir + ", hold no message (1 spec error above): nothing to compare\n"},
		{[]string{"compat", "--kafka", "4.4", "--specs", dir}, "kwire: the new specs, --specs " + dir + ", hold no message (1 spec error above): nothing to compare\n"},
		{[]string{"diff", "4.4", dir}, "kwire: the new specs, " + dir + ", hold no message (1 spec error above): nothing to compare\n"},
	} {
		r := kwire(t, c.args...)
		lines := strings.SplitAfter(r.stderr, "\n")
		if r.code != 1 || r.stdout != "" || len(lines) != 3 || !strings.Contains(lines[0], "Broken.json:1:1: error") || lines[1] != c.want {
			t.Errorf("kwire %v: exit %d, stdout %q, stderr %q; want exit 1 and %q", c.args, r.code, r.stdout, r.stderr, c.want)
		}
	}
}

// history of an API removed in the default release gives the same hint as
// show: the newest embedded release that has it.
func TestHistoryOfARemovedAPINamesTheReleaseThatHasIt(t *testing.T) {
	hint := `  no valid versions (its spec says validVersions "none": the API was removed); Kafka 3.9.2 has versions 0-7: try --kafka 3.9` + "\n"
	// The versions of the embedded releases that have it, by minor.
	spans := "  versions not in Kafka 4.4.0, in other embedded releases:\n" +
		"    v0-5  Kafka ≤3.0–3.9 (removed in 4.0)\n" +
		"    v6  Kafka 3.2–3.9 (removed in 4.0)\n" +
		"    v7  Kafka 3.4–3.9 (removed in 4.0)\n"
	want := "LeaderAndIsrRequest (request, api key 4) in Kafka 4.4.0: valid versions none, flexible none\n" + hint + spans +
		"\nLeaderAndIsrResponse (response, api key 4) in Kafka 4.4.0: valid versions none, flexible none\n" + hint + spans +
		"\nKafka A–B: the embedded releases whose spec has the version, from the first that does not mark it unstable (latestVersionUnstable), by minor (kwire embeds the last patch release of each minor from 3.0 to 4.4); ≤3.0: already in the oldest embedded release, 3.0.2.\n"
	// Exit 0: the removal is part of the answer, not an error.
	if r := kwire(t, "history", "LeaderAndIsr"); r.code != 0 || r.stdout != want || r.stderr != "" {
		t.Errorf("history LeaderAndIsr: exit %d, stderr %q\n%s\nwant\n%s", r.code, r.stderr, r.stdout, want)
	}
	if r := kwire(t, "--kafka", "3.9", "history", "LeaderAndIsr"); r.code != 0 {
		t.Errorf("history LeaderAndIsr in 3.9: exit %d, %s", r.code, r.stderr)
	}
	r := kwire(t, "show", "LeaderAndIsr")
	if !strings.HasSuffix(r.stderr, strings.TrimPrefix(hint, "  no valid versions")) {
		t.Errorf("show LeaderAndIsr: %q does not end with history's hint", r.stderr)
	}
}

// A name another release has under another api key's name (api key 74:
// ListClientMetricsResources up to 4.0, ListConfigResources from 4.1) gets
// both, in show and history; compat names the side whose path is empty.
func TestRenamedAPIAndEmptySide(t *testing.T) {
	const tail = "; ListClientMetricsResources is api key 74 in Kafka 4.0.2 (try --kafka 4.0), named ListConfigResources in Kafka 4.4.0\n"
	for _, cmd := range []string{"show", "history"} {
		if r := kwire(t, cmd, "ListClientMetricsResources"); r.code != 1 || !strings.HasSuffix(r.stderr, tail) {
			t.Errorf("%s: exit %d, %q", cmd, r.code, r.stderr)
		}
	}
	empty := t.TempDir()
	if r := kwire(t, "compat", "4.4", empty); r.code != 1 || r.stderr != "kwire: the new specs: "+empty+": no *.json files found\n" {
		t.Errorf("compat 4.4 EMPTY: exit %d, %q", r.code, r.stderr)
	}
}
