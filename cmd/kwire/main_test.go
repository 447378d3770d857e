package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
)

// The seed pages' vectors (DESIGN.md): whole frames of the smallest
// instances of VoteRequest and VoteResponse v2.
const (
	voteRequestV2  = "0000004f00340002000000000000000100000000020102" + "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000" + "000000"
	voteResponseV2 = "0000001c00000000000000020102000000000000000000000000000000000000"
)

type result struct {
	code           int
	stdout, stderr string
}

// kwire runs the command in-process, as `kwire args…` would, with stdout
// not a terminal, NO_COLOR unset and stdin empty.
func kwire(t *testing.T, args ...string) result {
	t.Helper()
	return kwireEnv(t, &env{stdin: strings.NewReader("")}, args...)
}

func kwireEnv(t *testing.T, e *env, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	e.stdout, e.stderr = &out, &errb
	if e.getenv == nil {
		e.getenv = func(string) string { return "" }
	}
	if e.stdin == nil {
		e.stdin = strings.NewReader("")
	}
	code := run(args, e)
	return result{code, out.String(), errb.String()}
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	r := kwire(t, args...)
	if r.code != 0 {
		t.Fatalf("kwire %s: exit %d, stderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout
}

func listJSON(t *testing.T, args ...string) map[string]listRow {
	t.Helper()
	var rows []listRow
	out := mustRun(t, append(args, "list", "--format", "json")...)
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("list --format json is not JSON: %v\n%s", err, out)
	}
	byName := map[string]listRow{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	return byName
}

func TestListJSONHasOneRowPerAPI(t *testing.T) {
	rows := listJSON(t)
	vote, ok := rows["Vote"]
	if !ok {
		t.Fatal("no row named Vote")
	}
	if vote.APIKey == nil || *vote.APIKey != 52 || vote.Type != "api" || vote.ValidVersions != "0-2" ||
		vote.FlexibleVersions != "0+" || strings.Join(vote.Listeners, ",") != "controller" {
		t.Errorf("Vote row = %+v (api key %v), want api key 52, type api, 0-2, 0+, [controller]", vote, vote.APIKey)
	}
	for _, name := range []string{"VoteRequest", "VoteResponse"} {
		if _, ok := rows[name]; ok {
			t.Errorf("row %s: an API is one row named without its suffix", name)
		}
	}
	if r := rows["LeaderAndIsr"]; r.ValidVersions != "none" {
		t.Errorf("4.x LeaderAndIsr valid_versions = %q, want none (removed, still listed)", r.ValidVersions)
	}
	if r := rows["PartitionRecord"]; r.Type != "metadata" || r.APIKey == nil || *r.APIKey != 3 {
		t.Errorf("PartitionRecord row = %+v, want a metadata record with api key 3", r)
	}
	if r := rows["RequestHeader"]; r.Type != "header" || r.APIKey != nil || r.Listeners == nil {
		t.Errorf("RequestHeader row = %+v, want a header without api key and with listeners []", r)
	}
}

func TestListJSONOmitsMissingAPIKeyAndKeepsEmptyListeners(t *testing.T) {
	out := mustRun(t, "list", "--format", "json")
	var raw []map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, r := range raw {
		if r["name"] == "RequestHeader" {
			if _, ok := r["api_key"]; ok {
				t.Errorf("RequestHeader has api_key %v, want it omitted", r["api_key"])
			}
			if l, ok := r["listeners"].([]any); !ok || len(l) != 0 {
				t.Errorf("RequestHeader listeners = %#v, want []", r["listeners"])
			}
		}
	}
}

func TestListOf39HasLeaderAndIsr(t *testing.T) {
	r := listJSON(t, "--kafka", "3.9")["LeaderAndIsr"]
	if r.ValidVersions != "0-7" || r.APIKey == nil || *r.APIKey != 4 {
		t.Errorf("3.9 LeaderAndIsr = %+v, want api key 4, valid 0-7", r)
	}
}

func TestListTextIsATableOfAPIsThenHeadersThenRecords(t *testing.T) {
	out := mustRun(t, "list")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "KEY NAME TYPE VALID FLEXIBLE LISTENERS" {
		t.Fatalf("header = %q", lines[0])
	}
	col := strings.Index(lines[0], "NAME")
	rank := map[string]int{"api": 0, "header": 1, "metadata": 2}
	last, sawVote := -1, false
	for _, l := range lines[1:] {
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing space in %q", l)
		}
		if len(l) <= col || l[col-1] != ' ' {
			t.Fatalf("NAME column not aligned at %d in %q", col, l)
		}
		f := strings.Fields(l[col:])
		r, ok := rank[f[1]]
		if !ok {
			r = 3
		}
		if r < last {
			t.Errorf("%q: a %s after a later kind", l, f[1])
		}
		last = r
		if f[0] == "Vote" {
			sawVote = true
			if got := strings.Join(strings.Fields(l), " "); got != "52 Vote api 0-2 0+ controller" {
				t.Errorf("Vote row = %q", got)
			}
		}
	}
	if !sawVote {
		t.Error("no Vote row")
	}
}

// sides returns the hex of each side of a page printed by --format json,
// by label.
func sides(t *testing.T, out string) map[string]string {
	t.Helper()
	var page map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	m := map[string]string{}
	for _, label := range []string{"Request", "Response", "Record"} {
		var side struct {
			Hex *string `json:"hex"`
		}
		if raw, ok := page[strings.ToLower(label)]; ok {
			if err := json.Unmarshal(raw, &side); err != nil || side.Hex == nil {
				t.Fatalf("side %s has no hex (%v): %s", label, err, raw)
			}
			m[label] = *side.Hex
		}
	}
	return m
}

func TestShowVoteV2IsTheSeedVector(t *testing.T) {
	got := sides(t, mustRun(t, "show", "Vote", "--version", "2", "--format", "json"))
	if got["Request"] != voteRequestV2 {
		t.Errorf("request hex\n got %s\nwant %s", got["Request"], voteRequestV2)
	}
	if got["Response"] != voteResponseV2 {
		t.Errorf("response hex\n got %s\nwant %s", got["Response"], voteResponseV2)
	}
}

func TestShowDefaultsToTheHighestVersion(t *testing.T) {
	a := mustRun(t, "show", "Vote", "--format", "json")
	b := mustRun(t, "show", "Vote", "--version", "2", "--format", "json")
	if a != b {
		t.Error("show Vote differs from show Vote --version 2 (Kafka 4.4's highest)")
	}
}

func TestShowEveryNameOfAnAPIGivesTheSamePage(t *testing.T) {
	want := mustRun(t, "show", "Vote", "--format", "json")
	for _, name := range []string{"VoteRequest", "vote", "52", "VoteResponse", "VOTE"} {
		if got := mustRun(t, "show", name, "--format", "json"); got != want {
			t.Errorf("show %s differs from show Vote", name)
		}
	}
}

func TestShowSucceeds(t *testing.T) {
	for _, args := range [][]string{
		{"show", "Vote", "--version", "2"},
		{"show", "DescribeQuorum", "--version", "2", "--response"},
		{"show", "LeaderAndIsr", "--kafka", "3.9"},
		{"--kafka", "3.9.1", "show", "LeaderAndIsr", "--version", "0"},
		{"show", "PartitionRecord"},
		{"show", "PartitionRecord", "--format", "json"},
		{"show", "Produce", "--version", "3"},
		{"show", "ApiVersions", "--request"},
		{"show", "RequestHeader"},
	} {
		r := kwire(t, args...)
		if r.code != 0 || r.stdout == "" || r.stderr != "" {
			t.Errorf("kwire %s: exit %d, %d bytes out, stderr %q", strings.Join(args, " "), r.code, len(r.stdout), r.stderr)
		}
	}
}

func TestShowOneSide(t *testing.T) {
	got := sides(t, mustRun(t, "show", "DescribeQuorum", "--version", "2", "--response", "--format", "json"))
	if _, ok := got["Response"]; !ok || len(got) != 1 {
		t.Errorf("--response page has sides %v, want only Response", got)
	}
	got = sides(t, mustRun(t, "show", "Vote", "--request", "--format", "json"))
	if got["Request"] != voteRequestV2 || len(got) != 1 {
		t.Errorf("--request page has sides %v, want only the Vote v2 request", got)
	}
	got = sides(t, mustRun(t, "show", "PartitionRecord", "--format", "json"))
	if _, ok := got["Record"]; !ok || len(got) != 1 {
		t.Errorf("record page has sides %v, want only Record", got)
	}
}

func TestShowErrorsAreOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		says []string
	}{
		{[]string{"show", "Votee"}, 1, []string{`"Votee"`, `did you mean "Vote"`, "kwire list", "Produce"}},
		{[]string{"show", "9999"}, 1, []string{"9999", "api keys"}},
		{[]string{"show", "Vote", "--version", "9"}, 1, []string{"no version 9", "0-2"}},
		{[]string{"show", "LeaderAndIsr"}, 1, []string{"no valid versions", "--kafka 3.9", "0-7"}},
		{[]string{"show", "LeaderAndIsr", "--kafka", "3.9", "--version", "8"}, 1, []string{"no version 8", "0-7"}},
		{[]string{"show", "Vote", "--request", "--response"}, 2, []string{"--request", "--response"}},
		{[]string{"show", "PartitionRecord", "--response"}, 2, []string{"not an API"}},
		{[]string{"show", "Vote", "--format", "yaml"}, 2, []string{"--format"}},
		{[]string{"--kafka", "2.8", "show", "Vote"}, 2, []string{"2.8", "4.4.0", "3.9.1"}},
		{[]string{"show"}, 2, []string{"name"}},
		{[]string{"frobnicate"}, 2, []string{"frobnicate"}},
	} {
		r := kwire(t, c.args...)
		if r.code != c.code {
			t.Errorf("kwire %s: exit %d, want %d (stderr %q)", strings.Join(c.args, " "), r.code, c.code, r.stderr)
		}
		if n := strings.Count(r.stderr, "\n"); n != 1 {
			t.Errorf("kwire %s: %d lines on stderr, want 1:\n%s", strings.Join(c.args, " "), n, r.stderr)
		}
		for _, s := range c.says {
			if !strings.Contains(r.stderr, s) {
				t.Errorf("kwire %s: stderr %q does not say %q", strings.Join(c.args, " "), r.stderr, s)
			}
		}
		if r.stdout != "" {
			t.Errorf("kwire %s: printed %q on stdout", strings.Join(c.args, " "), r.stdout)
		}
	}
}

func TestDecodeOfTheSeedIsTheShowPage(t *testing.T) {
	want := mustRun(t, "show", "Vote", "--version", "2", "--request", "--format", "json")
	got := mustRun(t, "decode", "--hex", voteRequestV2, "--format", "json")
	if sampleless(t, got) != sampleless(t, want) {
		t.Errorf("decode of the seed:\n%s\nshow Vote --request:\n%s", got, want)
	}
	// The same with --api and --version (checked), in other hex spellings.
	spaced := strings.Join(chunks(voteRequestV2, 8), " \n")
	colons := "0x" + strings.Join(chunks(voteRequestV2, 2), ":")
	for _, args := range [][]string{
		{"decode", "--api", "Vote", "--version", "2", "--hex", spaced, "--format", "json"},
		{"decode", "--api", "52", "--hex", colons, "--format", "json"},
	} {
		if got := mustRun(t, args...); got != mustRun(t, "decode", "--hex", voteRequestV2, "--format", "json") {
			t.Errorf("kwire %s differs from decode --hex", strings.Join(args, " "))
		}
	}
}

func TestDecodeResponse(t *testing.T) {
	want := mustRun(t, "show", "Vote", "--version", "2", "--response", "--format", "json")
	for _, args := range [][]string{
		{"decode", "--response", "--api", "Vote", "--version", "2", "--hex", voteResponseV2, "--format", "json"},
		{"decode", "--api", "VoteResponse", "--version", "2", "--hex", voteResponseV2, "--format", "json"},
	} {
		if got := mustRun(t, args...); sampleless(t, got) != sampleless(t, want) {
			t.Errorf("kwire %s:\n%s\nwant\n%s", strings.Join(args, " "), got, want)
		}
	}
}

func TestDecodeRecords(t *testing.T) {
	want := mustRun(t, "show", "PartitionRecord", "--format", "json")
	hex := sides(t, want)["Record"]
	got := mustRun(t, "decode", "--api", "PartitionRecord", "--hex", hex, "--format", "json")
	if sampleless(t, got) != sampleless(t, want) {
		t.Errorf("decode of the smallest PartitionRecord:\n%s\nwant\n%s", got, want)
	}
	if r := kwire(t, "decode", "--api", "PartitionRecord", "--version", "1", "--hex", hex); r.code != 1 || !strings.Contains(r.stderr, "v2, not v1") {
		t.Errorf("--version 1 on a v2 record: exit %d, stderr %q", r.code, r.stderr)
	}
	topic := sides(t, mustRun(t, "show", "TopicRecord", "--format", "json"))["Record"]
	if r := kwire(t, "decode", "--api", "PartitionRecord", "--hex", topic); r.code != 1 || !strings.Contains(r.stderr, "TopicRecord (api key 2), not PartitionRecord (api key 3)") || !strings.Contains(r.stdout, "TopicId") {
		t.Errorf("a TopicRecord decoded as PartitionRecord: exit %d, stderr %q; want 1, the types named, the TopicRecord shown", r.code, r.stderr)
	}
	// A data type has no frame: its version must be given.
	data := sides(t, mustRun(t, "show", "LeaderChangeMessage", "--format", "json"))["Record"]
	if r := kwire(t, "decode", "--api", "LeaderChangeMessage", "--hex", data); r.code != 2 || !strings.Contains(r.stderr, "--version") {
		t.Errorf("data type without --version: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := kwire(t, "decode", "--api", "LeaderChangeMessage", "--version", "1", "--hex", data); r.code != 0 {
		t.Errorf("data type with --version: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := kwire(t, "decode", "--api", "LeaderChangeMessage", "--version", "0", "--hex", data); r.code != 1 || !strings.Contains(r.stderr, "LeaderChangeMessage.") {
		t.Errorf("v1 bytes decoded as v0: exit %d, stderr %q; want 1 and a field path", r.code, r.stderr)
	}
}

func TestDecodeTruncatedFrameNamesOffsetAndPath(t *testing.T) {
	// The seed cut 3 bytes into LastOffset (at 0x47), its size prefix
	// patched to match, so that the frame is whole but the body short.
	cut := "00000046" + voteRequestV2[8:2*(0x47+3)]
	r := kwire(t, "decode", "--hex", cut)
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	const want = "VoteRequest.Topics[0].Partitions[0].LastOffset at 0x0047: need 8 bytes, have 3"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q does not say %q", r.stderr, want)
	}
	if !strings.Contains(r.stdout, "LastOffsetEpoch") {
		t.Errorf("the partial tree is not printed:\n%s", r.stdout)
	}
	// A frame shorter than its size prefix says.
	r = kwire(t, "decode", "--hex", voteRequestV2[:100], "--format", "json")
	if r.code != 1 || !strings.Contains(r.stderr, "truncated frame: the size prefix says 79 bytes follow, 46 are present") || !strings.Contains(r.stderr, "ReplicaDirectoryId at 0x0023") || !strings.Contains(r.stdout, "size") {
		t.Errorf("short frame: exit %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
}

func TestDecodeChecksAPIAndVersion(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--api", "Produce"}, 1, "not ProduceRequest"},
		{[]string{"--api", "Vote", "--version", "1"}, 1, "not v1"},
		{[]string{"--version", "2"}, 0, ""},
		{[]string{"--response"}, 2, "--api"},
		{[]string{"--response", "--api", "Vote"}, 2, "--version"},
		{[]string{"--response", "--api", "Vote", "--version", "7"}, 1, "no version 7"},
		{[]string{"--api", "Nope"}, 1, `"Nope"`},
	} {
		r := kwire(t, append([]string{"decode", "--hex", voteRequestV2}, c.args...)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.says) {
			t.Errorf("decode %s: exit %d, stderr %q; want exit %d saying %q", strings.Join(c.args, " "), r.code, r.stderr, c.code, c.says)
		}
	}
}

func TestDecodeInputs(t *testing.T) {
	want := mustRun(t, "decode", "--hex", voteRequestV2, "--format", "json")
	dir := t.TempDir()
	raw := filepath.Join(dir, "vote.bin")
	mustWrite(t, raw, mustHex(t, voteRequestV2))
	hexFile := filepath.Join(dir, "vote.hex")
	mustWrite(t, hexFile, []byte(strings.Join(chunks(voteRequestV2, 32), "\n")+"\n"))
	for _, c := range []struct {
		name  string
		args  []string
		stdin []byte
	}{
		{"raw file", []string{raw}, nil},
		{"hex file", []string{hexFile}, nil},
		{"raw stdin", []string{"-"}, mustHex(t, voteRequestV2)},
		{"hex stdin", []string{"-"}, []byte("0x" + voteRequestV2 + "\n")},
	} {
		r := kwireEnv(t, &env{stdin: bytes.NewReader(c.stdin)}, append([]string{"decode", "--format", "json"}, c.args...)...)
		if r.code != 0 || r.stdout != want {
			t.Errorf("%s: exit %d, stderr %q, same page: %v", c.name, r.code, r.stderr, r.stdout == want)
		}
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"decode"}, 2},
		{[]string{"decode", "--hex", "zz"}, 2},
		{[]string{"decode", "--hex", "000"}, 2},
		{[]string{"decode", "--hex", "00", raw}, 2},
		{[]string{"decode", filepath.Join(dir, "missing")}, 1},
	} {
		if r := kwire(t, c.args...); r.code != c.code || r.stderr == "" {
			t.Errorf("kwire %s: exit %d (stderr %q), want %d", strings.Join(c.args, " "), r.code, r.stderr, c.code)
		}
	}
}

func TestParseHex(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"0034", "0034", true},
		{"00 34\n\t0a", "00340a", true},
		{"00:34:0A", "00340a", true},
		{"0x0034 0X0a", "00340a", true},
		{"0x00,0x34", "0034", true},
		{"", "", true},
		{"003", "", false},
		{"0 034", "", false},
		{"00 3g", "", false},
		{"100x34", "", false},
	} {
		b, err := parseHex(c.in)
		if (err == nil) != c.ok || c.ok && string(hexOf(b)) != c.want {
			t.Errorf("parseHex(%q) = %x, %v; want %s, ok %v", c.in, b, err, c.want, c.ok)
		}
	}
}

func TestLooksLikeHex(t *testing.T) {
	for in, want := range map[string]bool{
		"0000004f 0034\n":       true,
		"0x00:0x34":             true,
		"\x00\x00\x00\x4f\x00":  false,
		"":                      false,
		" \n":                   false,
		"ProduceRequest 0034\n": false,
	} {
		if got := looksLikeHex([]byte(in)); got != want {
			t.Errorf("looksLikeHex(%q) = %v", in, got)
		}
	}
}

func TestColor(t *testing.T) {
	set := func(k, v string) func(string) string {
		return func(n string) string {
			if n == k {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		mode     string
		terminal bool
		getenv   func(string) string
		want     bool
	}{
		{"auto", true, set("", ""), true},
		{"auto", false, set("", ""), false},
		{"auto", true, set("NO_COLOR", "1"), false},
		{"auto", true, set("NO_COLOR", ""), true},
		{"always", false, set("NO_COLOR", "1"), true},
		{"never", true, set("", ""), false},
	} {
		if got := useColor(c.mode, c.terminal, c.getenv); got != c.want {
			t.Errorf("useColor(%s, terminal %v) = %v", c.mode, c.terminal, got)
		}
	}
	// End to end, on a terminal: colour unless NO_COLOR is set.
	for _, args := range [][]string{{"list"}, {"show", "Vote"}} {
		plain := kwireEnv(t, &env{terminal: true, getenv: set("NO_COLOR", "1")}, args...)
		if plain.code != 0 || strings.Contains(plain.stdout, "\x1b[") {
			t.Errorf("kwire %s on a terminal with NO_COLOR=1: exit %d, escapes: %v", args[0], plain.code, strings.Contains(plain.stdout, "\x1b["))
		}
		if never := kwireEnv(t, &env{terminal: true}, append([]string{"--color", "never"}, args...)...); strings.Contains(never.stdout, "\x1b[") {
			t.Errorf("kwire --color never %s: escapes in the output", args[0])
		}
	}
	if c := kwireEnv(t, &env{terminal: true}, "list"); !strings.Contains(c.stdout, "\x1b[") {
		t.Error("kwire list on a terminal without NO_COLOR: no colour")
	}
	if c := kwireEnv(t, &env{terminal: false}, "--color", "always", "list"); !strings.Contains(c.stdout, "\x1b[") {
		t.Error("kwire --color always list: no colour")
	}
}

func TestSpecsProblemsAreReportedAndTheRestLoads(t *testing.T) {
	rel, err := bundle.Load("")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, p := range []string{"RequestHeader.json", "ResponseHeader.json", "VoteRequest.json", "VoteResponse.json"} {
		f, ok := rel.Find("common/message/" + p)
		if !ok {
			t.Fatalf("no %s in the bundle", p)
		}
		mustWrite(t, filepath.Join(dir, p), f.Data)
	}
	mustWrite(t, filepath.Join(dir, "BrokenRequest.json"), []byte(`{
  "apiKey": 999,
  "type": "request",
  "name": "BrokenRequest",
  "validVersions": "0",
  "flexibleVersions": "none",
  "fields": [
    { "name": "Flag", "type": "booleanbool", "versions": "0+" }
  ]
}
`))
	r := kwire(t, "--specs", dir, "show", "Vote", "--version", "2", "--format", "json")
	if r.code != 0 || sides(t, r.stdout)["Request"] != voteRequestV2 {
		t.Errorf("show Vote from --specs: exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "BrokenRequest.json:8:") || !strings.Contains(r.stderr, ": error: ") {
		t.Errorf("the broken spec is not reported as file:line:col: error: …\n%s", r.stderr)
	}
	r = kwire(t, "--specs", dir, "show", "Broken")
	if r.code != 1 || !strings.Contains(r.stderr, "BrokenRequest.json:8:") || !strings.Contains(r.stderr, "did not load") {
		t.Errorf("show Broken: exit %d, stderr %q; want 1 with the spec error and a note", r.code, r.stderr)
	}
	r = kwire(t, "--specs", dir, "list")
	if r.code != 1 || !strings.Contains(r.stdout, "Vote") {
		t.Errorf("list with a broken spec: exit %d, stdout %q; want the rest listed and exit 1", r.code, r.stdout)
	}
	if r := kwire(t, "--specs", filepath.Join(dir, "nowhere"), "list"); r.code != 1 {
		t.Errorf("--specs of a missing path: exit %d, want 1", r.code)
	}
	if r := kwire(t, "--specs", dir, "--kafka", "4.4", "list"); r.code != 2 {
		t.Errorf("--specs with --kafka: exit %d, want 2", r.code)
	}
}

func TestVersionNamesTheEmbeddedReleases(t *testing.T) {
	out := mustRun(t, "version")
	if !strings.HasPrefix(out, "kwire ") {
		t.Errorf("version output starts %q", out)
	}
	for _, v := range bundle.Releases() {
		rel, err := bundle.Load(v)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, v) {
			t.Errorf("version does not name release %s", v)
		}
		for _, a := range rel.Artifacts {
			if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(a.Coord) + `\s+sha256 ` + a.SHA256 + `$`).MatchString(out) {
				t.Errorf("version does not give %s's sha256", a.Coord)
			}
		}
	}
}

func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"show", "--help"}, {"decode", "-h"}} {
		r := kwire(t, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "Usage: kwire") {
			t.Errorf("kwire %s: exit %d, stdout %q", strings.Join(args, " "), r.code, r.stdout)
		}
	}
}

func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := parseHex(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hexOf(b []byte) []byte {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return out
}

func mustWrite(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sampleless drops what differs between the JSON page of a smallest
// instance (tree.Sample: "one sample element follows") and that of the same
// bytes decoded: the about text of length prefixes and frame fields.
// Names, types, values, offsets, sizes and paths must all agree.
func sampleless(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			if k := x["kind"]; k == "length" || k == "frame_field" {
				delete(x, "about")
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDecodeEveryTruncationOfTheSeed(t *testing.T) {
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	full := mustHex(t, voteRequestV2)
	for n := 0; n < len(full); n++ {
		b := append([]byte(nil), full[:n]...)
		if n >= 4 {
			// Keep the frame whole, so that the body is what runs short.
			b[0], b[1], b[2], b[3] = 0, 0, 0, byte(n-4)
		}
		p, err := decodePage(set, "", nil, false, b)
		if p == nil || err == nil || !strings.Contains(err.Error(), " at 0x") {
			t.Fatalf("%d bytes: page %v, error %v; want the partial page and an error at an offset", n, p != nil, err)
		}
		var text, js bytes.Buffer
		if err := render.WriteText(&text, p, render.Options{Color: true}); err != nil || !strings.Contains(text.String(), err2s(p.Sides[0].Err)) {
			t.Errorf("%d bytes: text page (%v) lacks the error", n, err)
		}
		if err := render.WriteJSON(&js, p); err != nil || !json.Valid(js.Bytes()) {
			t.Errorf("%d bytes: JSON page: %v", n, err)
		}
	}
}

func err2s(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
