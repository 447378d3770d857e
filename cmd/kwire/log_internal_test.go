package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kwire/kwire/records"
)

// internalSegment writes a batch of two records as segment 0 of
// partition directory dir: an offset commit of group g1 and the
// deletion of another.
func internalSegment(t *testing.T, dir string) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), dir)
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	k0 := metadataValue(t, "OffsetCommitKey", 0, `{"group":"g1","topic":"t","partition":0}`)
	k1 := metadataValue(t, "OffsetCommitKey", 0, `{"group":"g1","topic":"t","partition":1}`)
	v := metadataValue(t, "OffsetCommitValue", 3, `{"offset":42,"leaderEpoch":0,"metadata":"","commitTimestamp":1700000000000}`)
	seg := records.Batch{Timestamp: 1700000000000, Records: []records.KeyValue{{Key: k0, Value: v}, {Key: k1, Value: v}, {Key: k1}}}.Bytes()
	f := filepath.Join(d, "00000000000000000000.log")
	if err := os.WriteFile(f, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestLogInternalTopic(t *testing.T) {
	f := internalSegment(t, "__consumer_offsets-0")
	want := `batch 0  records 3  attributes 0x0000  epoch 0  magic 2  CRC valid
  offset 0  CreateTime 1700000000000  OffsetCommitKey {"group":"g1","topic":"t","partition":0}  OffsetCommitValue v3 {"offset":42,"leaderEpoch":0,"metadata":"","commitTimestamp":1700000000000}
  offset 1  CreateTime 1700000000000  OffsetCommitKey {"group":"g1","topic":"t","partition":1}  OffsetCommitValue v3 {"offset":42,"leaderEpoch":0,"metadata":"","commitTimestamp":1700000000000}
  offset 2  CreateTime 1700000000000  OffsetCommitKey {"group":"g1","topic":"t","partition":1}  deleted (null value)
`
	if got := mustRun(t, "log", filepath.Dir(f)); got != want {
		t.Errorf("log:\n%s\nwant:\n%s", got, want)
	}
	// Another directory's name: bytes, unless --decoder says what they are.
	plain := filepath.Join(t.TempDir(), "copy-0")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	g := filepath.Join(plain, "00000000000000000000.log")
	if err := os.WriteFile(g, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := mustRun(t, "log", g); !strings.HasSuffix(got, "  offset 2  CreateTime 1700000000000  key 0x00010002673100017400000001  value null\n") {
		t.Errorf("a copy without --decoder:\n%s", got)
	}
	if got := mustRun(t, "log", "--decoder", "offsets", g); got != want {
		t.Errorf("log --decoder offsets:\n%s\nwant:\n%s", got, want)
	}
	// Standard input has no directory: --decoder says what it holds.
	if r := kwireEnv(t, &env{stdin: bytes.NewReader(data)}, "log", "--decoder", "offsets", "-"); r.code != 0 || r.stdout != want {
		t.Errorf("log --decoder offsets - (exit %d):\n%s\nwant:\n%s", r.code, r.stdout, want)
	}
	wantState := `OFFSETS
GROUP  TOPIC  PARTITION  OFFSET  LEADER EPOCH  METADATA  COMMITTED (ms)  RECORD
g1     t      0          42      0             ""        1700000000000   0
`
	if got := mustRun(t, "log", "--state", f); got != wantState {
		t.Errorf("log --state:\n%s\nwant:\n%s", got, wantState)
	}
	wantJSON := `{"type":"offset","group":"g1","topic":"t","partition":0,"offset":42,"leader_epoch":0,"metadata":"","commit_timestamp":1700000000000,"expire_timestamp":-1,"record_offset":0}` + "\n"
	if got := mustRun(t, "log", "--state", "--format", "json", f); got != wantJSON {
		t.Errorf("log --state --format json:\n%s\nwant:\n%s", got, wantJSON)
	}
	// --state on a copy or standard input without --decoder: no state,
	// and the hint of what to do.
	hint := "no state: no record of a type --state replays (a directory not named like __consumer_offsets-N: use --decoder offsets|transactions|share-state)"
	if got := mustRun(t, "log", "--state", g); got != hint+"\n" {
		t.Errorf("log --state on a copy:\n%s\nwant:\n%s", got, hint)
	}
	if r := kwireEnv(t, &env{stdin: bytes.NewReader(data)}, "log", "--state", "--format", "json", "-"); r.code != 0 || r.stdout != `{"type":"note","message":"`+hint+`"}`+"\n" {
		t.Errorf("log --state --format json - (exit %d):\n%s", r.code, r.stdout)
	}
	if got := mustRun(t, "log", "--state", "--decoder", "offsets", g); got != wantState {
		t.Errorf("log --state --decoder offsets on a copy:\n%s\nwant:\n%s", got, wantState)
	}
	if r := kwire(t, "log", "--decoder", "nope", f); r.code != 2 || !strings.Contains(r.stderr, `--decoder must be one of offsets, transactions, share-state, remote-log-metadata, metadata but got "nope"`) {
		t.Errorf("log --decoder nope: exit %d\n%s", r.code, r.stderr)
	}
	// --type: by the key's or the value's message (a tombstone has no
	// value), without batch lines as for metadata records.
	if got, want := mustRun(t, "log", "--type", "OffsetCommitKey", "--offset", "2..", f), strings.SplitAfter(want, "\n")[3]; got != want {
		t.Errorf("log --type OffsetCommitKey --offset 2..:\n%s\nwant:\n%s", got, want)
	}
	if got := mustRun(t, "log", "--type", "OffsetCommitValue", f); strings.Count(got, "\n") != 2 {
		t.Errorf("log --type OffsetCommitValue:\n%s", got)
	}
	// --tree: each key and value is its message, named as what it is.
	tree := mustRun(t, "log", "--tree", f)
	for _, re := range []string{
		`\+-- OffsetCommitKey +coordinator key v0 +\[0x0042, 13B\] +internal topic's record key, record type 1\n`,
		`\|   \+-- record_type +int16 += 1 +\[0x0042, 2B\]`,
		`\+-- OffsetCommitValue +coordinator value v3 +\[0x0050, 24B\] +internal topic's record value, version 3\n`,
		`\+-- offset +int64 += 42 +\[0x0052, 8B\]`,
	} {
		if !regexp.MustCompile(re).MatchString(tree) {
			t.Errorf("log --tree has no line %s:\n%s", re, tree)
		}
	}
	// A classic consumer group's member subscription and assignment are
	// decoded in the tree too (a real segment of Kafka 4.4.0).
	tree = mustRun(t, "log", "--tree", filepath.Join("..", "..", "docs", "examples", "__consumer_offsets-26"))
	for _, re := range []string{
		`\+-- subscription +bytes += 0x000300000001000b696e7465726e616c… \(int32 len=37\) +\[0x015c, 41B\]`,
		`\|   \+-- length +int32 += 37 +\[0x015c, 4B\]`,
		`\+-- ConsumerProtocolSubscription +message v3 +\[0x0160, 37B\] +message held in the bytes, version 3\n`,
		`\+-- Frame +\[0x0160, 2B\] +int16 version prefix\n`,
		`\+-- version +int16 += 3 +\[0x0160, 2B\] +version of the consumer protocol message \(its int16 prefix\)\n`,
		`\+-- \[0\] +string += "internal-r1" \(int16 len=11\) +\[0x0166, 13B\]`,
		`\+-- ConsumerProtocolAssignment +message v0 +\[0x0189, 35B\]`,
	} {
		if !regexp.MustCompile(re).MatchString(tree) {
			t.Errorf("log --tree has no line %s:\n%s", re, tree)
		}
	}
	for _, args := range [][]string{
		{"--state", "--tree"}, {"--state", "--offset", "1..2"}, {"--metadata", "--decoder", "offsets"}, {"--decoder", "nope"},
	} {
		if r := kwire(t, append(append([]string{"log"}, args...), f)...); r.code != 2 {
			t.Errorf("log %v: exit %d, want 2 (usage)\n%s", args, r.code, r.stderr)
		}
	}
}
