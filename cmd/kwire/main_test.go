package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/hexdump"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
)

// The seed vectors (docs/wire-cases.md): whole frames of the smallest
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

func listJSON(t *testing.T, args ...string) map[string]spec.ListRow {
	t.Helper()
	var rows []spec.ListRow
	out := mustRun(t, append(args, "list", "--format", "json")...)
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("list --format json is not JSON: %v\n%s", err, out)
	}
	byName := map[string]spec.ListRow{}
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

func TestListJSONHasNullAPIKeyAndEmptyListeners(t *testing.T) {
	out := mustRun(t, "list", "--format", "json")
	var raw []map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, r := range raw {
		if r["name"] == "RequestHeader" {
			// Every row has every key: null where a type has no api key.
			if v, ok := r["api_key"]; !ok || v != nil {
				t.Errorf("RequestHeader api_key = %v (present %v), want null", v, ok)
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

// The records of the internal topics are listed with their record types:
// 4.4's coordinator-key/-value specs by api key, 3.9's "data" specs by
// their versions.
func TestListInternalTopicRecords(t *testing.T) {
	for _, c := range []struct {
		rel, name, typ, topic, rts, row string
	}{
		{"4.4", "OffsetCommitValue", "coordinator-value", "__consumer_offsets", "1", "1 OffsetCommitValue coordinator-value 0-4 4+ -"},
		{"4.4", "LegacyOffsetCommitKey", "coordinator-key", "__consumer_offsets", "0", "0 LegacyOffsetCommitKey coordinator-key 0 none -"},
		{"4.4", "ShareUpdateKey", "coordinator-key", "__share_group_state", "1", "1 ShareUpdateKey coordinator-key 0 none -"},
		{"4.4", "RemotePartitionDeleteMetadataRecord", "metadata", "__remote_log_metadata", "", "2 RemotePartitionDeleteMetadataRecord metadata 0 0+ -"},
		{"3.9.1", "OffsetCommitKey", "data", "__consumer_offsets", "0-1", "0-1 OffsetCommitKey data 0-1 none -"},
		{"3.9.1", "TransactionLogValue", "data", "__transaction_state", "0", "0 TransactionLogValue data 0-1 1+ -"},
	} {
		r := listJSON(t, "--kafka", c.rel)[c.name]
		if r.Type != c.typ || r.Topic != c.topic || r.RecordTypes != c.rts {
			t.Errorf("%s %s = %+v, want type %s, topic %s, record types %q", c.rel, c.name, r, c.typ, c.topic, c.rts)
		}
		found := false
		for _, l := range strings.Split(mustRun(t, "--kafka", c.rel, "list"), "\n") {
			found = found || strings.Join(strings.Fields(l), " ") == c.row
		}
		if !found {
			t.Errorf("kwire list --kafka %s has no row %q", c.rel, c.row)
		}
	}
	if r := listJSON(t)["Vote"]; r.Topic != "" || r.RecordTypes != "" {
		t.Errorf("Vote = %+v: topic or record types set", r)
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
		if f[1] == "coordinator-key" {
			// The internal topics' records come last, in an order of
			// their own (by topic, then record type).
			break
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

func TestDecodeNoBytes(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	mustWrite(t, empty, nil)
	blank := filepath.Join(dir, "blank.hex")
	mustWrite(t, blank, []byte(" \n\n"))
	for _, c := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"-"}, "", "kwire: no bytes to decode: standard input is empty\n"},
		{[]string{empty}, "", "kwire: no bytes to decode: " + empty + " is empty\n"},
		{[]string{blank}, "", "kwire: no bytes to decode: " + blank + " holds no hex digits\n"},
	} {
		r := kwireIn(t, c.stdin, append([]string{"decode"}, c.args...)...)
		if r.code != 1 || r.stderr != c.want || r.stdout != "" {
			t.Errorf("decode %v: exit %d, stderr %q, stdout %q; want 1, %q", c.args, r.code, r.stderr, r.stdout, c.want)
		}
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
		// hexdump -C of the frame, as the tool prints it (squeezed).
		{"hexdump -C", []string{"-"}, []byte(`00000000  00 00 00 4f 00 34 00 02  00 00 00 00 00 00 00 01  |...O.4..........|
00000010  00 00 00 00 02 01 02 00  00 00 00 00 00 00 00 00  |................|
00000020  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|
*
00000050  00 00 00                                          |...|
00000053
`)},
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
		{[]string{"decode", "--hex", " "}, 2},
	} {
		if r := kwire(t, c.args...); r.code != c.code || r.stderr == "" {
			t.Errorf("kwire %s: exit %d (stderr %q), want %d", strings.Join(c.args, " "), r.code, r.stderr, c.code)
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
	short := mustRun(t, "version")
	out := mustRun(t, "version", "--jars")
	if !strings.HasPrefix(out, "kwire ") {
		t.Errorf("version output starts %q", out)
	}
	if n := strings.Count(short, "\n"); n != 2+len(bundle.Releases())+1 {
		t.Errorf("version prints %d lines, want one per release (%d) and 3 more:\n%s", n, len(bundle.Releases()), short)
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
	b, err := hexdump.Parse([]byte(s))
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
		p, err := firstPage(set, b)
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

// smallestVoteV2JSON is the smallest VoteRequest v2 in the format of
// Kafka's VoteRequestDataJsonConverter: the body of the seed vector.
const smallestVoteV2JSON = `{"clusterId":"","voterId":0,"topics":[{"topicName":"","partitions":[{"partitionIndex":0,"replicaEpoch":0,"replicaId":0,"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","voterDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","lastOffsetEpoch":0,"lastOffset":0,"preVote":false}]}]}`

// withStdin runs kwire with stdin holding in.
func withStdin(t *testing.T, in string, args ...string) result {
	t.Helper()
	return kwireEnv(t, &env{stdin: strings.NewReader(in)}, args...)
}

func TestEncodeOfTheSmallestVoteRequestIsTheSeed(t *testing.T) {
	if want := "0000004f00340002000000000000000100000000020102" + strings.Repeat("0", 114) + "000000"; voteRequestV2 != want {
		t.Fatalf("the seed constant is not the issue's vector")
	}
	r := withStdin(t, smallestVoteV2JSON, "encode", "Vote", "--version", "2", "-")
	if r.code != 0 || r.stdout != voteRequestV2+"\n" || r.stderr != "" {
		t.Errorf("encode: exit %d, stderr %q\n got %q\nwant %q", r.code, r.stderr, r.stdout, voteRequestV2+"\n")
	}
	// From a file, by every name of the API.
	file := filepath.Join(t.TempDir(), "vote.json")
	mustWrite(t, file, []byte(smallestVoteV2JSON+"\n"))
	for _, name := range []string{"VoteRequest", "vote", "52"} {
		if out := mustRun(t, "encode", name, "--version", "2", "--request", file); out != voteRequestV2+"\n" {
			t.Errorf("encode %s: %q", name, out)
		}
	}
	// show --format kafka prints the same JSON: a template for encode.
	lines := strings.Split(mustRun(t, "show", "Vote", "--version", "2", "--format", "kafka"), "\n")
	if len(lines) != 3 || lines[0] != smallestVoteV2JSON || !strings.HasPrefix(lines[1], `{"errorCode":0,`) || lines[2] != "" {
		t.Errorf("show --format kafka: %q; want the request's line, then the response's", lines)
	}
}

func TestEncodeDecodeRoundTrips(t *testing.T) {
	const batch = "AAAAAAAAAAAAAAAxAAAAAAJZX7fdAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==" // an empty RecordBatch v2
	for _, c := range []struct {
		name       string
		encode     []string
		decode     []string
		json       string
		hexPrefix  string
		sideOfPage string
	}{
		{"VoteRequest v2", []string{"Vote", "--version", "2"}, nil,
			`{"clusterId":"abc","voterId":2,"topics":[{"topicName":"__cluster_metadata","partitions":[{"partitionIndex":0,"replicaEpoch":5,"replicaId":1,"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAQ","voterDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","lastOffsetEpoch":4,"lastOffset":9007199254740993,"preVote":true}]}],"_unknownTaggedFields":[{"tag":9,"data":"AQI="}]}`,
			"00000068003400020000000000", "request"},
		{"VoteRequest v0, a nullable string null", []string{"Vote", "--version", "0"}, nil,
			`{"clusterId":null,"topics":[{"topicName":"t","partitions":[]}]}`, "", "request"},
		{"ApiVersionsResponse v3 with a tagged field", []string{"ApiVersions", "--version", "3", "--response"}, []string{"--api", "ApiVersions", "--response", "--version", "3"},
			`{"errorCode":0,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0,"finalizedFeaturesEpoch":5}`,
			"0000001d00000000", "response"},
		{"ApiVersionsResponse named by its response", []string{"ApiVersionsResponse", "--version", "3"}, []string{"--api", "ApiVersionsResponse", "--version", "3"},
			`{"errorCode":35,"apiKeys":[],"throttleTimeMs":0}`, "", "response"},
		{"PartitionRecord v2 with its KRaft frame", []string{"PartitionRecord", "--version", "2"}, []string{"--api", "PartitionRecord"},
			`{"partitionId":3,"topicId":"AAAAAAAAAAAAAAAAAAAAAQ","replicas":[1,2],"isr":[1],"removingReplicas":[],"addingReplicas":[2],"leader":1,"leaderEpoch":7,"partitionEpoch":9,"directories":["AAAAAAAAAAAAAAAAAAAAAA","AAAAAAAAAAAAAAAAAAAAAA"]}`,
			"010302", "record"},
		{"LeaderChangeMessage, a bare data type", []string{"LeaderChangeMessage", "--version", "0"}, []string{"--api", "LeaderChangeMessage", "--version", "0"},
			`{"version":0,"leaderId":1,"voters":[{"voterId":1}],"grantingVoters":[]}`, "00000000000102", "record"},
		{"ProduceRequest v9 with records as base64", []string{"Produce", "--version", "9"}, nil,
			`{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[{"name":"t","partitionData":[{"index":0,"records":"` + batch + `"}]}]}`,
			"0000005b0000000900000000", "request"},
	} {
		enc := withStdin(t, c.json, append([]string{"encode"}, append(c.encode, "-")...)...)
		if enc.code != 0 || enc.stderr != "" || !strings.HasPrefix(enc.stdout, c.hexPrefix) || !regexp.MustCompile(`^[0-9a-f]+\n$`).MatchString(enc.stdout) {
			t.Errorf("%s: encode: exit %d, stderr %q, stdout %q (want one line of lower-case hex starting %s)", c.name, enc.code, enc.stderr, enc.stdout, c.hexPrefix)
			continue
		}
		dec := withStdin(t, enc.stdout, append([]string{"decode", "--format", "kafka"}, append(c.decode, "-")...)...)
		if dec.code != 0 || dec.stdout != c.json+"\n" {
			t.Errorf("%s: decode --format kafka: exit %d, stderr %q\n got %s\nwant %s", c.name, dec.code, dec.stderr, dec.stdout, c.json)
		}
		// The page JSON carries the same object under "json".
		page := withStdin(t, enc.stdout, append([]string{"decode", "--format", "json"}, append(c.decode, "-")...)...)
		var p map[string]json.RawMessage
		var side struct {
			JSON       json.RawMessage `json:"json"`
			HeaderJSON json.RawMessage `json:"header_json"`
		}
		if err := json.Unmarshal([]byte(page.stdout), &p); err != nil {
			t.Errorf("%s: page: %v", c.name, err)
			continue
		}
		if err := json.Unmarshal(p[c.sideOfPage], &side); err != nil {
			t.Errorf("%s: page side %s: %v", c.name, c.sideOfPage, err)
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, side.JSON); err != nil || compact.String() != c.json {
			t.Errorf("%s: the page's %s.json is %s (%v)", c.name, c.sideOfPage, side.JSON, err)
		}
		if hasHeader := string(side.HeaderJSON) != "null"; hasHeader != (c.sideOfPage != "record") {
			t.Errorf("%s: header_json %s", c.name, side.HeaderJSON)
		}
	}
}

func TestEncodeRawWritesTheBytes(t *testing.T) {
	r := withStdin(t, smallestVoteV2JSON, "encode", "Vote", "--version", "2", "--raw", "-")
	if r.code != 0 || r.stdout != string(mustHex(t, voteRequestV2)) {
		t.Errorf("--raw: exit %d, stderr %q, stdout %x", r.code, r.stderr, r.stdout)
	}
	// Raw bytes decode back.
	if d := withStdin(t, r.stdout, "decode", "--format", "kafka", "-"); d.stdout != smallestVoteV2JSON+"\n" {
		t.Errorf("decode of the raw bytes: exit %d, %q", d.code, d.stdout)
	}
	// --format text and json print the page of the encoded message.
	page := withStdin(t, smallestVoteV2JSON, "encode", "Vote", "--version", "2", "--format", "json", "-")
	if page.code != 0 || sides(t, page.stdout)["Request"] != voteRequestV2 {
		t.Errorf("encode --format json: exit %d, stderr %q", page.code, page.stderr)
	}
	if text := withStdin(t, smallestVoteV2JSON, "encode", "Vote", "--version", "2", "--format", "text", "-"); text.code != 0 || !strings.Contains(text.stdout, "LastOffset") {
		t.Errorf("encode --format text: exit %d, stderr %q", text.code, text.stderr)
	}
}

func TestEncodeHeaderJSON(t *testing.T) {
	const h = `{"requestApiKey":52,"requestApiVersion":2,"correlationId":7,"clientId":"cli"}`
	r := withStdin(t, smallestVoteV2JSON, "encode", "Vote", "--version", "2", "--header-json", h, "-")
	// size 0x52, api key 52, version 2, correlation id 7, client id "cli" (int16 length 3).
	if r.code != 0 || !strings.HasPrefix(r.stdout, "00000052"+"0034"+"0002"+"00000007"+"0003636c69"+"00") {
		t.Fatalf("--header-json: exit %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
	var p struct {
		Request struct {
			HeaderJSON json.RawMessage `json:"header_json"`
		} `json:"request"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "decode", "--format", "json", "--hex", r.stdout)), &p); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if json.Compact(&compact, p.Request.HeaderJSON); compact.String() != h {
		t.Errorf("header_json of the decoded request = %s, want %s", p.Request.HeaderJSON, h)
	}
	// A response header: the correlation id.
	resp := withStdin(t, `{"errorCode":0,"apiKeys":[],"throttleTimeMs":0}`, "encode", "ApiVersions", "--response", "--version", "3", "--header-json", `{"correlationId":258}`, "-")
	if resp.code != 0 || !strings.HasPrefix(resp.stdout, "0000000c"+"00000102") {
		t.Errorf("response --header-json: exit %d, stderr %q, stdout %q", resp.code, resp.stderr, resp.stdout)
	}
	for _, c := range []struct {
		header string
		code   int
		says   string
	}{
		{`{"requestApiKey":0,"requestApiVersion":2,"correlationId":7,"clientId":"cli"}`, 1, "$.requestApiKey: 0, but VoteRequest has api key 52"},
		{`{"requestApiKey":52,"requestApiVersion":1,"correlationId":7,"clientId":"cli"}`, 1, "$.requestApiVersion: 1, but --version is 2"},
		{`{"requestApiKey":52,"requestApiVersion":2}`, 1, "$.correlationId: missing"},
		{`{"requestApiKey":52,"requestApiVersion":2,"correlationId":7,"clientId":"cli","clientID":"x"}`, 1, "$.clientID: unknown field"},
		{`{"requestApiKey":52`, 2, "malformed JSON"},
	} {
		r := withStdin(t, smallestVoteV2JSON, "encode", "Vote", "--version", "2", "--header-json", c.header, "-")
		if r.code != c.code || !strings.Contains(r.stderr, "--header-json") || !strings.Contains(r.stderr, c.says) || r.stdout != "" {
			t.Errorf("--header-json %s: exit %d, stderr %q; want %d saying %q", c.header, r.code, r.stderr, c.code, c.says)
		}
	}
}

func TestEncodeBadJSONNamesThePath(t *testing.T) {
	vote := func(partition string) string {
		return `{"clusterId":"","voterId":0,"topics":[{"topicName":"","partitions":[{` + partition + `}]}]}`
	}
	const ok = `"partitionIndex":0,"replicaEpoch":0,"replicaId":0,"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","voterDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","lastOffsetEpoch":0`
	for _, c := range []struct {
		class string
		args  []string
		json  string
		says  []string
	}{
		{"malformed JSON", []string{"Vote", "--version", "2"}, `{"clusterId":"","voterId":0,"topics":[{"topicName":""`,
			[]string{"kwire: $.topics[0]: malformed JSON", "(at stdin:1:"}},
		{"unknown field", []string{"Vote", "--version", "2"}, vote(ok + `,"lastOffset":0,"lastoffset":1`),
			[]string{"kwire: $.topics[0].partitions[0].lastoffset: unknown field", `did you mean "lastOffset"`}},
		{"wrong type", []string{"Vote", "--version", "2"}, vote(ok + `,"lastOffset":"12"`),
			[]string{"kwire: $.topics[0].partitions[0].lastOffset: expected an integer (int64), got the string \"12\""}},
		{"int16 out of range", []string{"Produce", "--version", "9"}, `{"transactionalId":null,"acks":40000,"timeoutMs":0,"topicData":[]}`,
			[]string{"kwire: $.acks: 40000 is out of range for int16"}},
		{"uint16 -1", []string{"BrokerRegistration", "--version", "4"},
			`{"brokerId":0,"clusterId":"","incarnationId":"AAAAAAAAAAAAAAAAAAAAAA","listeners":[{"name":"","host":"","port":-1,"securityProtocol":0}],"features":[],"rack":null,"isMigratingZkBroker":false,"logDirs":[],"previousBrokerEpoch":-1}`,
			[]string{"kwire: $.listeners[0].port: -1 is out of range for uint16"}},
		{"null where not nullable", []string{"Vote", "--version", "2"}, `{"clusterId":"","voterId":0,"topics":[{"topicName":null,"partitions":[]}]}`,
			[]string{"kwire: $.topics[0].topicName: null, but the field is not nullable"}},
		{"a field not in this version, not default", []string{"Vote", "--version", "1"}, vote(ok + `,"lastOffset":0,"preVote":true`),
			[]string{"kwire: $.topics[0].partitions[0].preVote: the field is not in version 1"}},
		{"a missing mandatory field", []string{"Vote", "--version", "2"}, vote(ok),
			[]string{"kwire: $.topics[0].partitions[0].lastOffset: missing"}},
		{"not an object", []string{"Vote", "--version", "2"}, `[]`,
			[]string{"kwire: $: expected an object (VoteRequest)"}},
	} {
		r := withStdin(t, c.json, append([]string{"encode"}, append(c.args, "-")...)...)
		if r.code != 1 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and one line on stderr", c.class, r.code, r.stdout, r.stderr)
		}
		for _, s := range c.says {
			if !strings.Contains(r.stderr, s) {
				t.Errorf("%s: stderr %q does not say %q", c.class, r.stderr, s)
			}
		}
	}
	// A default value of a field not in the version is what Kafka's writer
	// accepts too: nothing is lost, so it is not an error.
	if r := withStdin(t, vote(ok+`,"lastOffset":0,"preVote":false`), "encode", "Vote", "--version", "1", "-"); r.code != 0 {
		t.Errorf("preVote false at v1: exit %d, stderr %q", r.code, r.stderr)
	}
	// The location is file:line:col of the offending value.
	file := filepath.Join(t.TempDir(), "body.json")
	mustWrite(t, file, []byte("{\"clusterId\": \"\",\n \"voterId\": true, \"topics\": []}\n"))
	if r := kwire(t, "encode", "Vote", "--version", "2", file); r.code != 1 || !strings.HasSuffix(r.stderr, "(at "+file+":2:13)\n") {
		t.Errorf("location: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestEncodeUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "vote.json")
	mustWrite(t, file, []byte(smallestVoteV2JSON))
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"encode", "Vote", file}, 2, "--version"},
		{[]string{"encode", "Vote", "--version", "2"}, 2, "file"},
		{[]string{"encode", "Votee", "--version", "2", file}, 1, `did you mean "Vote"`},
		{[]string{"encode", "Vote", "--version", "7", file}, 1, "no version 7"},
		{[]string{"encode", "LeaderAndIsr", "--version", "0", file}, 1, "--kafka 3.9"},
		{[]string{"encode", "Vote", "--version", "2", "--request", "--response", file}, 2, "--request"},
		{[]string{"encode", "VoteResponse", "--version", "2", "--request", file}, 2, "drop --request"},
		{[]string{"encode", "PartitionRecord", "--version", "2", "--response", file}, 2, "not an API"},
		{[]string{"encode", "PartitionRecord", "--version", "2", "--header-json", "{}", file}, 2, "without a header"},
		{[]string{"encode", "Vote", "--version", "2", "--raw", "--format", "text", file}, 2, "--raw"},
		{[]string{"encode", "Vote", "--version", "2", filepath.Join(filepath.Dir(file), "missing.json")}, 1, "missing.json"},
	} {
		r := kwire(t, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.says) || r.stdout != "" {
			t.Errorf("kwire %s: exit %d, stderr %q; want %d saying %q", strings.Join(c.args, " "), r.code, r.stderr, c.code, c.says)
		}
	}
}

func TestDecodeFormatKafkaOfBadBytesPrintsNothing(t *testing.T) {
	r := kwire(t, "decode", "--format", "kafka", "--hex", voteRequestV2[:100])
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "ReplicaDirectoryId") {
		t.Errorf("truncated frame as kafka JSON: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// addedKeys matches the members render.WritePageJSON adds to a side of the
// indented page JSON.
var addedKeys = regexp.MustCompile(`,\n    "json": (?:null|\{(?s:.*?)\n    \}),\n    "header_json": (?:null|\{(?s:.*?)\n    \})`)

func TestPageJSONIsRendersPagePlusTheKafkaJSON(t *testing.T) {
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	v := int16(2)
	vote, err := showPage(set, "Vote", &v, "")
	if err != nil {
		t.Fatal(err)
	}
	record, err := showPage(set, "PartitionRecord", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	partial, _ := firstPage(set, mustHex(t, voteRequestV2[:100]))
	for _, c := range []struct {
		name  string
		p     *render.Page
		added int
		nulls int
	}{
		{"Vote", vote, 2, 0},
		{"PartitionRecord", record, 1, 1},
		{"a partial decode", partial, 1, 2},
	} {
		var page bytes.Buffer
		if err := render.WriteJSON(&page, c.p); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		err := render.WritePageJSON(&out, c.p, render.Options{})
		got := out.Bytes()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		added := addedKeys.FindAllString(string(got), -1)
		if len(added) != c.added || strings.Count(strings.Join(added, ""), ": null") != c.nulls {
			t.Errorf("%s: added %q; want %d sides, %d nulls", c.name, added, c.added, c.nulls)
		}
		if rest := addedKeys.ReplaceAllString(string(got), ""); rest != page.String() {
			t.Errorf("%s: without the added keys the page differs from render's:\n%s", c.name, rest)
		}
	}
}

// Every message of the newest release, at its highest version: the JSON of
// its smallest instance (show --format kafka) encodes to show's bytes.
func TestShowKafkaJSONEncodesToTheShowBytes(t *testing.T) {
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, row := range listJSON(t) {
		if row.ValidVersions == "none" {
			continue
		}
		p, err := showPage(set, row.Name, nil, "")
		if err != nil {
			t.Fatalf("show %s: %v", row.Name, err)
		}
		for k := range p.Sides {
			s := &p.Sides[k]
			body, _, err := codec.ConverterJSON(set, s.Tree, s.Err)
			if err != nil || body == nil {
				t.Errorf("%s %s: JSON %q, %v", row.Name, s.Label, body, err)
				continue
			}
			args := []string{"encode", s.Tree.Message.Name, "--version", strconv.Itoa(int(s.Tree.Version)), "-"}
			r := withStdin(t, string(body), args...)
			if want := string(hexOf(s.Tree.Bytes)) + "\n"; r.code != 0 || r.stdout != want {
				t.Errorf("kwire %s < %s: exit %d, stderr %q\n got %s want %s", strings.Join(args, " "), body, r.code, r.stderr, r.stdout, want)
			}
			n++
		}
	}
	if n < 200 {
		t.Errorf("only %d messages encoded", n)
	}
}

func TestDecodeFindingsExitOne(t *testing.T) {
	// Produce v3 with its records' CRC byte flipped: shown, and exit 1.
	r := kwire(t, "show", "Produce", "--version", "3", "--request", "--format", "json")
	var page struct {
		Request struct{ Hex string } `json:"request"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &page); err != nil {
		t.Fatal(err)
	}
	b := []byte(page.Request.Hex)
	// The crc of the batch starts 17 bytes into it, 0x39 into the frame.
	crc := 2 * 0x39
	b[crc], b[crc+1] = '0', '0'
	r = kwire(t, "decode", "--hex", string(b))
	if r.code != 1 || !strings.Contains(r.stderr, "Records[0].crc at 0x0039: CRC-32C 0x005fb7dd stored, 0x595fb7dd computed") || !strings.Contains(r.stdout, "INVALID") {
		t.Errorf("bad CRC: exit %d, stderr %q", r.code, r.stderr)
	}
	// Hex text with a typo: the error names the character and where.
	dir := t.TempDir()
	file := filepath.Join(dir, "typo.txt")
	if err := os.WriteFile(file, []byte("0000 001c\n00 zz"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = kwire(t, "decode", file)
	if want := "kwire: " + file + `:2:4: "z" is not a hex digit (read as hex text: it looks like hex)` + "\n"; r.code != 1 || r.stderr != want {
		t.Errorf("typo: exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
	// Text that is not hex is read as raw bytes: the error says so.
	if err := os.WriteFile(file, []byte("ProduceRequest v3"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = kwire(t, "decode", file)
	if r.code != 1 || !strings.Contains(r.stderr, "the input is text but not hex") {
		t.Errorf("text: exit %d, stderr %q", r.code, r.stderr)
	}
	// Response bytes decoded as a request of the API --api names.
	r = kwire(t, "decode", "--api", "Vote", "--version", "2", "--hex", "0000001c00000000000000020102000000000000000000000000000000000000")
	if r.code != 1 || !strings.Contains(r.stderr, "add --response") {
		t.Errorf("response as request: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestEncodeWarnsWhatKafkaDropsOrDoesNotCheck(t *testing.T) {
	// voterId does not exist in VoteRequest v0; it is ignorable, so Kafka
	// drops it: kwire does too, and says so.
	r := kwireIn(t, `{"clusterId":null,"voterId":42,"topics":[]}`, "encode", "Vote", "--version", "0", "-")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "0000000e0034000000000000000000000100" ||
		!strings.Contains(r.stderr, "warning: $.voterId: VoteRequest v0 has no such field; it is ignorable") {
		t.Errorf("ignorable field: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// Records that are not a record batch are written as given, with a warning.
	r = kwireIn(t, `{"transactionalId":null,"acks":0,"timeoutMs":0,"topicData":[{"name":"t","partitionData":[{"index":0,"records":"AQI="}]}]}`, "encode", "Produce", "--version", "3", "-")
	if r.code != 0 || !strings.HasSuffix(strings.TrimSpace(r.stdout), "000000020102") || !strings.Contains(r.stderr, "not whole record batches") {
		t.Errorf("bad records: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestDecodeStrict(t *testing.T) {
	// ApiVersionsResponse v3 with tag 1 twice: Kafka (and kwire) keep the
	// last; --strict refuses it.
	in := "00000020 00000007 0000 01 00000000 02 01 08 0000000000000005 01 08 0000000000000006"
	if r := kwire(t, "decode", "--api", "ApiVersions", "--response", "--version", "3", "--format", "kafka", "--hex", in); r.code != 0 || !strings.Contains(r.stdout, `"finalizedFeaturesEpoch":6`) {
		t.Errorf("lenient: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := kwire(t, "decode", "--strict", "--api", "ApiVersions", "--response", "--version", "3", "--hex", in); r.code != 1 || !strings.Contains(r.stderr, "duplicate tag 1") {
		t.Errorf("strict: exit %d, stderr %q", r.code, r.stderr)
	}
}

// kwireIn runs the command with stdin holding in.
func kwireIn(t *testing.T, in string, args ...string) result {
	t.Helper()
	return kwireEnv(t, &env{stdin: strings.NewReader(in)}, args...)
}

// seed returns the path of the shared seed draft whose name starts with
// prefix, or skips the test when the seeds are not beside the repository.
func seed(t *testing.T, prefix string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "seeds", prefix+"_*.txt"))
	if len(m) != 1 {
		t.Skipf("no seed %s_*.txt beside the repository", prefix)
	}
	return m[0]
}

// copyTo copies file into dir and returns the copy's path.
func copyTo(t *testing.T, file, dir string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.Base(file))
	mustWrite(t, p, b)
	return p
}

// ruleLines returns the lines of out that end in [rule].
func ruleLines(out, rule string) []string {
	var l []string
	for _, s := range strings.Split(out, "\n") {
		if strings.HasSuffix(s, "["+rule+"]") {
			l = append(l, s)
		}
	}
	return l
}

// TestLintSeed004: the KIP page copy with four objects: the title line,
// the four "booleanbool" types and the two "ignoreable" keys at their
// line:col; --fix writes a copy that loads and shows IsLeaderRecovering.
func TestLintSeed004(t *testing.T) {
	f := copyTo(t, seed(t, "004"), t.TempDir())
	r := kwire(t, "lint", f)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", r.code, r.stderr)
	}
	want := map[string][]string{
		"text-outside": {f + `:1:1: error: text outside the spec objects: "Page History" (Kafka's generator accepts only one JSON object in a file) [text-outside]`},
		"bad-type": {
			f + `:79:47: error: field "IsLeaderRecovering": unknown type "booleanbool"; did you mean "bool"? [bad-type]`,
			f + `:108:51: error: field "IsLeaderRecovering": unknown type "booleanbool"; did you mean "bool"? [bad-type]`,
			f + `:144:51: error: field "IsLeaderRecovering": unknown type "booleanbool"; did you mean "bool"? [bad-type]`,
			f + `:176:47: error: field "IsLeaderRecovering": unknown type "booleanbool"; did you mean "bool"? [bad-type]`,
		},
		"unknown-key": {
			f + `:108:104: error: unknown key "ignoreable" in field; did you mean "ignorable"? [unknown-key]`,
			f + `:144:104: error: unknown key "ignoreable" in field; did you mean "ignorable"? [unknown-key]`,
		},
	}
	for rule, lines := range want {
		if got := ruleLines(r.stdout, rule); strings.Join(got, "\n") != strings.Join(lines, "\n") {
			t.Errorf("%s:\n%s\nwant:\n%s", rule, strings.Join(got, "\n"), strings.Join(lines, "\n"))
		}
	}
	r = kwire(t, "lint", "--fix", f)
	fixed := f + ".fixed"
	if r.code != 1 || !strings.Contains(r.stdout, f+`:79:47: fixed: type "booleanbool" → "bool" [bad-type]`) ||
		!strings.Contains(r.stdout, f+`:108:104: fixed: key "ignoreable" → "ignorable" [unknown-key]`) ||
		!strings.Contains(r.stdout, "wrote "+fixed+": 9 fixes; it has 0 errors and 5 warnings") {
		t.Fatalf("lint --fix: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := kwire(t, "lint", fixed); r.code != 0 {
		t.Errorf("lint of the fixed copy: exit %d\n%s", r.code, r.stdout)
	}
	r = kwire(t, "--specs", fixed, "show", "LeaderAndIsr", "--version", "6")
	if r.code != 0 || !strings.Contains(r.stdout, "IsLeaderRecovering") {
		t.Errorf("show LeaderAndIsr v6 from the fixed copy: exit %d\n%s", r.code, r.stderr)
	}
}

// TestLintSeed003: the fragment without braces: the missing opening brace
// at the first key; --fix adds the braces and the copy shows
// InactiveObservers.
func TestLintSeed003(t *testing.T) {
	f := copyTo(t, seed(t, "003"), t.TempDir())
	r := kwire(t, "lint", f)
	want := []string{
		f + `:3:1: error: the spec object has no opening brace: the text looks like a fragment of one, as copied from a page [missing-brace]`,
		f + `:65:2: error: the spec object has no closing brace [missing-brace]`,
	}
	if got := ruleLines(r.stdout, "missing-brace"); r.code != 1 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("exit %d:\n%s", r.code, r.stdout)
	}
	out := filepath.Join(t.TempDir(), "DescribeQuorumResponse.json")
	r = kwire(t, "lint", "--fix", "--out", out, f)
	if !strings.Contains(r.stdout, f+":3:1: fixed: added the opening brace [missing-brace]") || !strings.Contains(r.stdout, "wrote "+out+": 3 fixes; it has 0 errors") {
		t.Fatalf("lint --fix --out: exit %d\n%s", r.code, r.stdout)
	}
	r = kwire(t, "--specs", out, "show", "DescribeQuorum", "--version", "3", "--response")
	if r.code != 0 || !strings.Contains(r.stdout, "InactiveObservers") {
		t.Errorf("show DescribeQuorum v3 from the fixed copy: exit %d\n%s", r.code, r.stderr)
	}
}

// TestLintDraftLoadsWithSpecs: a draft with text around its objects loads
// with --specs after its problems are reported.
func TestLintDraftLoadsWithSpecs(t *testing.T) {
	rel, err := bundle.Load("")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString("Vote (from the KIP page)\n\n")
	for _, n := range []string{"VoteRequest.json", "VoteResponse.json"} {
		f, _ := rel.Find("common/message/" + n)
		b.Write(f.Data)
		b.WriteString("\nsome text between\n")
	}
	p := filepath.Join(t.TempDir(), "vote-draft.txt")
	mustWrite(t, p, b.Bytes())
	r := kwire(t, "--specs", p, "show", "Vote", "--version", "2", "--format", "json")
	if r.code != 0 || sides(t, r.stdout)["Request"] != voteRequestV2 {
		t.Fatalf("show from the draft: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, p+":1:1: error: text outside the spec objects") || strings.Count(r.stderr, "[text-outside]") != 3 {
		t.Errorf("the text is not reported once a stretch:\n%s", r.stderr)
	}
}

func TestLintJSONAndExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "Bad.json")
	mustWrite(t, bad, []byte(`{"type": "data", "name": "Bad", "validVersions": "0", "flexibleVersions": "0+", "fields": [
  {"name": "A", "type": "booleanbool", "versions": "0+", "about": "a"},
  {"name": "B", "type": "int32", "versions": "0+"}
]}`))
	r := kwire(t, "lint", "--format", "json", bad)
	if r.code != 1 || !strings.Contains(r.stderr, "kwire: lint: 1 error, 1 warning") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var rows []lintJSON
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
	if len(rows) != 2 {
		t.Fatalf("rows: %+v", rows)
	}
	a, b := rows[0], rows[1]
	if a.File != bad || a.Line != 2 || a.Col != 25 || a.Severity != "error" || a.Rule != "bad-type" || a.Hint != `did you mean "bool"?` ||
		a.Fix == nil || a.Fix.Applied || a.Fix.Description != `type "booleanbool" → "bool"` ||
		len(a.Fix.Edits) != 1 || a.Fix.Edits[0] != (lintEditJSON{Line: 2, Col: 25, EndLine: 2, EndCol: 38, New: `"bool"`}) {
		t.Errorf("row 0: %+v %+v", a, a.Fix)
	}
	if b.Rule != "missing-about" || b.Severity != "warning" || b.Fix != nil || b.Line != 3 || b.Col != 3 {
		t.Errorf("row 1: %+v", b)
	}
	// Only warnings: exit 0.
	ok := filepath.Join(dir, "Ok.json")
	mustWrite(t, ok, []byte(`{"type": "data", "name": "Ok", "validVersions": "0", "flexibleVersions": "0+", "fields": [
  {"name": "B", "type": "int32", "versions": "0+"}]}`))
	if r := kwire(t, "lint", ok); r.code != 0 || !strings.Contains(r.stdout, "[missing-about]") || !strings.Contains(r.stderr, "0 errors, 1 warning") {
		t.Errorf("warnings only: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := kwire(t, "lint", "--format", "json", ok, "--fix"); r.code != 0 || strings.TrimSpace(r.stdout) == "[]" {
		t.Errorf("json with --fix and nothing to fix: exit %d %s", r.code, r.stdout)
	}
	if _, err := os.Stat(ok + ".fixed"); err == nil {
		t.Error("--fix wrote a copy of a file with nothing to fix")
	}
	// --fix with json marks the fixes made.
	r = kwire(t, "lint", "--format", "json", "--fix", bad)
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || rows[0].Fix == nil || !rows[0].Fix.Applied || !strings.Contains(r.stderr, "wrote "+bad+".fixed") {
		t.Errorf("json --fix: %s\n%s", r.stdout, r.stderr)
	}
	// A directory: its files by path; dir --fix writes next to each.
	if r := kwire(t, "lint", dir); r.code != 1 || !strings.Contains(r.stdout, bad+":2:25: error:") {
		t.Errorf("lint of a directory: exit %d\n%s", r.code, r.stdout)
	}
	// Usage.
	for _, args := range [][]string{
		{"lint", "--out", "x", bad},
		{"lint", "--fix", "--out", "x", bad, ok},
		{"lint", "--fix", "/tmp/jars/kafka-clients-4.4.0.jar"},
		{"--specs", dir, "lint", bad},
		{"lint", "--kafka", "9.9"},
	} {
		if args[1] == "--fix" && args[2] == "/tmp/jars/kafka-clients-4.4.0.jar" {
			if _, err := os.Stat(args[2]); err != nil {
				continue
			}
		}
		if r := kwire(t, args...); r.code != 2 {
			t.Errorf("kwire %s: exit %d, want 2 (%s)", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if r := kwire(t, "lint", filepath.Join(dir, "nowhere.json")); r.code != 1 {
		t.Errorf("a missing file: exit %d, want 1", r.code)
	}
}

// TestLintEmbeddedReleases: kwire lint --kafka R has no error on either
// embedded release (docs/lint.md explains the warnings).
func TestLintEmbeddedReleases(t *testing.T) {
	for _, rel := range []string{"4.4", "3.9"} {
		r := kwire(t, "--kafka", rel, "lint")
		if r.code != 0 || strings.Contains(r.stdout, ": error: ") {
			t.Errorf("lint --kafka %s: exit %d\n%s", rel, r.code, r.stdout)
		}
	}
	if r := kwire(t, "--kafka", "4.4", "lint"); !strings.Contains(r.stderr, "kwire: lint: 0 errors, 10 warnings") {
		t.Errorf("lint --kafka 4.4: %s", r.stderr)
	}
}

// gzipBatch is a RecordBatch v2 (gzip) holding n records of a 100-byte value.
func gzipBatch(t *testing.T, n int) []byte {
	var recs []byte
	for i := 0; i < n; i++ {
		var r []byte
		r = append(r, 0)                     // attributes
		r = binary.AppendVarint(r, 0)        // timestampDelta
		r = binary.AppendVarint(r, int64(i)) // offsetDelta
		r = binary.AppendVarint(r, -1)       // key: null
		r = binary.AppendVarint(r, 100)      // value length
		r = append(r, bytes.Repeat([]byte{'a'}, 100)...)
		r = binary.AppendVarint(r, 0) // headers
		recs = binary.AppendVarint(recs, int64(len(r)))
		recs = append(recs, r...)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(recs)
	w.Close()
	h := make([]byte, 61)
	binary.BigEndian.PutUint32(h[8:], uint32(49+z.Len()))
	h[16] = 2
	binary.BigEndian.PutUint16(h[21:], 1) // gzip
	binary.BigEndian.PutUint32(h[23:], uint32(n-1))
	binary.BigEndian.PutUint32(h[57:], uint32(n))
	b := append(h, z.Bytes()...)
	binary.BigEndian.PutUint32(b[17:], codec.CRC32C(b[21:]))
	return b
}

func TestDecodeMaxDecompressed(t *testing.T) {
	// Produce v3 carrying one gzip batch of 50 records (5 KB inflated).
	r := kwire(t, "show", "Produce", "--version", "3", "--request", "--format", "json")
	var page struct {
		Request struct{ Hex string } `json:"request"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &page); err != nil {
		t.Fatal(err)
	}
	frame := mustHex(t, page.Request.Hex)
	batch := gzipBatch(t, 50)
	// The smallest Produce v3 ends with its 61-byte batch and its int32 length.
	frame = append(frame[:len(frame)-65], binary.BigEndian.AppendUint32(nil, uint32(len(batch)))...)
	frame = append(frame, batch...)
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	in := hex.EncodeToString(frame)
	if r := kwire(t, "decode", "--hex", in); r.code != 0 || !strings.Contains(r.stdout, "Record[49]") {
		t.Fatalf("gzip batch: exit %d, stderr %q", r.code, r.stderr)
	}
	r = kwire(t, "decode", "--max-decompressed", "1000", "--hex", in)
	if r.code != 1 || !strings.Contains(r.stderr, "problem in the records") {
		t.Errorf("--max-decompressed 1000: exit %d, stderr %q", r.code, r.stderr)
	}
	// 0 and less mean nothing: a usage error.
	for _, v := range []string{"0", "-1"} {
		if r := kwire(t, "decode", "--max-decompressed="+v, "--hex", in); r.code != 2 || r.stderr != "kwire: --max-decompressed "+v+": must be positive\n" {
			t.Errorf("--max-decompressed %s: exit %d, stderr %q", v, r.code, r.stderr)
		}
	}
}

// firstPage decodes b as `kwire decode` does without flags and returns
// the first page.
func firstPage(set *spec.Set, b []byte) (*render.Page, error) {
	pages, err := render.Decode(set, render.Claim{}, b)
	if len(pages) == 0 {
		return nil, err
	}
	return pages[0], err
}

func TestDecodeSaysWhatTheBytesMayBe(t *testing.T) {
	// A response decoded as a request: the form that decodes a response.
	r := kwire(t, "decode", "--hex", voteResponseV2)
	const want = "kwire: RequestHeader.RequestApiVersion at 0x0006: ProduceRequest has no version 0 (valid versions: 3-13); the bytes do not read as a request header (RequestHeader.ClientId at 0x000c: need 260 bytes, have 20): these may be the bytes of a response: decode them with --api NAME --response --version N\n"
	if r.code != 1 || r.stderr != want || r.stdout != "" {
		t.Errorf("response as request: exit %d, stderr %q; want only the hint, no page (stdout %.200q)", r.code, r.stderr, r.stdout)
	}
	// With --api, the hint to add --response alone: no page of the bytes
	// as the request their header seems to name.
	if r := kwire(t, "decode", "--api", "Vote", "--hex", voteResponseV2); r.code != 1 || r.stdout != "" || !strings.HasSuffix(r.stderr, "if these bytes are a response, add --response\n") {
		t.Errorf("response as request with --api: exit %d, stderr %q", r.code, r.stderr)
	}
	// Produce v0 that decodes in Kafka 3.9: the hint to use it.
	p0 := "00000017 0000 0000 00000007 0003 616263 0001 00000000 00000000"
	if r := kwire(t, "decode", "--hex", p0); r.code != 1 || !strings.HasSuffix(r.stderr, "(valid versions: 3-13); the bytes decode as ProduceRequest v0 of Kafka 3.9.2: try --kafka 3.9; or these may be the bytes of a response: decode them with --api NAME --response --version N\n") {
		t.Errorf("Produce v0: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := kwire(t, "--kafka", "3.9", "decode", "--hex", p0); r.code != 0 {
		t.Errorf("Produce v0 in 3.9: exit %d, stderr %q", r.code, r.stderr)
	}
	// An ApiVersions response in the v0 layout, asked at v3.
	av0 := "00000010 00000000 0023 00000001 0012 0000 0003"
	r = kwire(t, "decode", "--api", "ApiVersions", "--response", "--version", "3", "--hex", av0)
	if r.code != 0 || !strings.Contains(r.stdout, "ApiVersionsResponse v0, response header v0, 20 bytes on the wire\nnote: decoded as v0, not v3:") || r.stderr != "" {
		t.Errorf("ApiVersions v0: exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	// The same with error code 0: the version asked is likely wrong.
	r = kwire(t, "decode", "--api", "ApiVersions", "--response", "--version", "3", "--hex", strings.Replace(av0, "0023", "0000", 1))
	if r.code != 0 || !strings.Contains(r.stdout, "; the error code is 0 (NONE), not 35 (UNSUPPORTED_VERSION): error code 0 in the v0 layout is the answer to a v0 request, so the version asked, v3, is likely wrong\n") {
		t.Errorf("ApiVersions v0 with error code 0: exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	r = kwire(t, "decode", "--api", "ApiVersions", "--response", "--version", "3", "--format", "kafka", "--hex", av0)
	if r.code != 0 || r.stdout != `{"errorCode":35,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":3}]}`+"\n" || !strings.HasPrefix(r.stderr, "kwire: note: decoded as v0, not v3") {
		t.Errorf("ApiVersions v0 as kafka JSON: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestDecodeSeveralFrames(t *testing.T) {
	two := voteRequestV2 + voteRequestV2
	one := mustRun(t, "decode", "--hex", voteRequestV2)
	r := kwire(t, "decode", "--hex", two)
	want := "frame 1 of 2, at 0x0000 of the input\n\n" + one + "\nframe 2 of 2, at 0x0053 of the input\n\n" + one
	if r.code != 0 || r.stdout != want {
		t.Errorf("two frames: exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	r = kwire(t, "decode", "--format", "kafka", "--hex", two)
	if line := strings.TrimSpace(mustRun(t, "decode", "--format", "kafka", "--hex", voteRequestV2)); r.code != 0 || r.stdout != line+"\n"+line+"\n" {
		t.Errorf("two frames as kafka JSON: exit %d, %q", r.code, r.stdout)
	}
	// A response after a request (both directions of a connection).
	r = kwire(t, "decode", "--hex", voteRequestV2+voteResponseV2)
	if r.code != 1 || !strings.HasPrefix(r.stderr, "kwire: frame 2 (at 0x0053 of the input): RequestHeader.RequestApiVersion at 0x0006: ProduceRequest has no version 0") ||
		!strings.HasSuffix(r.stderr, "decode them with --api NAME --response --version N (kwire pcap reads both directions of connections from a capture)\n") ||
		strings.Count(r.stdout, "frame 2 of 2, at 0x0053 of the input") != 1 {
		t.Errorf("request and response: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A terminal that reports no width (script(1)'s pseudo-terminal without a
// real one) is as wide as $COLUMNS says; a reported width wins.
func TestTerminalWidth(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "COLUMNS" {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		reported int
		columns  string
		want     int
	}{{0, "80", 80}, {0, " 100 ", 100}, {120, "80", 120}, {0, "", 0}, {0, "-3", 0}, {0, "wide", 0}} {
		if got := terminalWidth(c.reported, env(c.columns)); got != c.want {
			t.Errorf("terminalWidth(%d, COLUMNS=%q) = %d, want %d", c.reported, c.columns, got, c.want)
		}
	}
}
