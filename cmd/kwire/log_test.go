package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
)

const topicID = "3q2-796tze-XDVRl4oy0qA" // base64url of 16 bytes

// metadataValue encodes a framed metadata record from its converter JSON.
func metadataValue(t *testing.T, name string, version int16, js string) []byte {
	t.Helper()
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	m := set.Message(name)
	v, err := codec.FromJSON([]byte(js), m, version)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := codec.New(set).EncodeRecord(m, version, v)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Bytes
}

func unhexT(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// logFixtures writes a __cluster_metadata segment (the reference's
// FeatureLevelRecord batch, then a TopicRecord + PartitionRecord batch)
// and a snapshot (SnapshotHeader, one data batch, SnapshotFooter).
func logFixtures(t *testing.T) (segment, snapshot string, topicBatch []byte) {
	dir := filepath.Join(t.TempDir(), "__cluster_metadata-0")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	feature := records.Batch{LeaderEpoch: 1, Records: []records.KeyValue{{Value: unhexT(t, "010c00116d657461646174612e76657273696f6e001400")}}}.Bytes()
	if len(feature) != 91 {
		t.Fatalf("feature batch %d bytes, want 91", len(feature))
	}
	topic := metadataValue(t, "TopicRecord", 0, `{"name":"t1","topicId":"`+topicID+`"}`)
	part := metadataValue(t, "PartitionRecord", 0, `{"partitionId":2,"topicId":"`+topicID+`","replicas":[1,2,3],"isr":[1,2],"removingReplicas":[],"addingReplicas":[],"leader":1,"leaderEpoch":0,"partitionEpoch":0}`)
	topicBatch = records.Batch{BaseOffset: 1, LeaderEpoch: 1, Timestamp: 1700000000000, Records: []records.KeyValue{{Value: topic}, {Value: part}}}.Bytes()
	segment = filepath.Join(dir, "00000000000000000000.log")
	if err := os.WriteFile(segment, append(append([]byte{}, feature...), topicBatch...), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := records.Batch{LeaderEpoch: 1, Control: true, Records: []records.KeyValue{{Key: unhexT(t, "00000003"), Value: unhexT(t, "0000000000000000271000")}}}.Bytes()
	snap = append(snap, records.Batch{BaseOffset: 1, LeaderEpoch: 1, Records: []records.KeyValue{{Value: topic}, {Value: part}}}.Bytes()...)
	snap = append(snap, records.Batch{BaseOffset: 3, LeaderEpoch: 1, Control: true, Records: []records.KeyValue{{Key: unhexT(t, "00000004"), Value: unhexT(t, "000000")}}}.Bytes()...)
	snapshot = filepath.Join(t.TempDir(), "00000000000000000010-0000000001.checkpoint")
	if err := os.WriteFile(snapshot, snap, 0o644); err != nil {
		t.Fatal(err)
	}
	return segment, snapshot, topicBatch
}

func TestLogSegmentText(t *testing.T) {
	seg, _, _ := logFixtures(t)
	out := mustRun(t, "log", seg)
	t.Log("\n" + out)
	for _, want := range []string{
		"batch 0  records 1  attributes 0x0000  epoch 1  magic 2  CRC valid\n",
		`  offset 0  CreateTime 0  FeatureLevelRecord v0 {"name":"metadata.version","featureLevel":20}`,
		"batch 1  records 2  attributes 0x0000  epoch 1  magic 2  CRC valid\n",
		`  offset 1  CreateTime 1700000000000  TopicRecord v0 {"name":"t1","topicId":"` + topicID + `"}`,
		`  offset 2  CreateTime 1700000000000  PartitionRecord v0 {"partitionId":2,"topicId":"` + topicID + `","replicas":[1,2,3],"isr":[1,2]`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q", want)
		}
	}
	// The directory gives the same listing.
	if dirOut := mustRun(t, "log", filepath.Dir(seg)); dirOut != out {
		t.Errorf("directory listing differs:\n%s", dirOut)
	}
}

func TestLogSnapshotAndFilters(t *testing.T) {
	_, snap, _ := logFixtures(t)
	out := mustRun(t, "log", snap)
	t.Log("\n" + out)
	for _, want := range []string{
		"batch 0  records 1  attributes 0x0020  epoch 1  magic 2  CRC valid  control\n",
		`  offset 0  CreateTime 0  SnapshotHeaderRecord v0 {"version":0,"lastContainedLogTimestamp":10000}`,
		`  offset 1  CreateTime 0  TopicRecord v0 {"name":"t1"`,
		`  offset 2  CreateTime 0  PartitionRecord v0 {"partitionId":2`,
		`  offset 3  CreateTime 0  SnapshotFooterRecord v0 {"version":0}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q", want)
		}
	}
	typed := mustRun(t, "log", snap, "--type", "PartitionRecord")
	if n := strings.Count(typed, "\n"); n != 1 || !strings.Contains(typed, `"replicas":[1,2,3]`) {
		t.Errorf("--type PartitionRecord:\n%s", typed)
	}
	ranged := mustRun(t, "log", snap, "--offset", "1..2")
	if strings.Contains(ranged, "offset 0 ") || strings.Contains(ranged, "offset 3 ") || !strings.Contains(ranged, "offset 1  CreateTime 0  TopicRecord") || !strings.Contains(ranged, "offset 2  CreateTime 0  PartitionRecord") {
		t.Errorf("--offset 1..2:\n%s", ranged)
	}
	open := mustRun(t, "log", snap, "--offset", "3..")
	if strings.Contains(open, "offset 2 ") || !strings.Contains(open, "offset 3  CreateTime 0  SnapshotFooterRecord") {
		t.Errorf("--offset 3..:\n%s", open)
	}
	if r := kwire(t, "log", snap, "--offset", "x"); r.code != 2 {
		t.Errorf("--offset x: exit %d", r.code)
	}
	if r := kwire(t, "log", snap, "--type", "NoSuchRecord"); r.code != 1 {
		t.Errorf("--type NoSuchRecord: exit %d", r.code)
	}
}

func TestLogJSONLines(t *testing.T) {
	_, snap, _ := logFixtures(t)
	out := mustRun(t, "log", snap, "--format", "json", "--type", "PartitionRecord")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	var e struct {
		Offset      int64  `json:"offset"`
		BatchOffset int64  `json:"batch_offset"`
		Type        string `json:"type"`
		Version     int16  `json:"version"`
		Data        struct {
			PartitionID int32   `json:"partitionId"`
			TopicID     string  `json:"topicId"`
			Replicas    []int32 `json:"replicas"`
			Leader      int32   `json:"leader"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil {
		t.Fatal(err)
	}
	if e.Offset != 2 || e.BatchOffset != 1 || e.Type != "PartitionRecord" || e.Version != 0 || e.Data.PartitionID != 2 || e.Data.TopicID != topicID || len(e.Data.Replicas) != 3 || e.Data.Leader != 1 {
		t.Errorf("%s", lines[0])
	}
	all := mustRun(t, "log", snap, "--format", "json")
	if n := strings.Count(all, "\n"); n != 4 {
		t.Errorf("%d JSON lines, want 4:\n%s", n, all)
	}
	// --tree: the file's tree as one line of page JSON (it wrote the text
	// tree among JSON lines).
	tr := mustRun(t, "log", snap, "--tree", "--format", "json")
	var line struct {
		Type string `json:"type"`
		File string `json:"file"`
		Page struct {
			Records struct {
				Size int `json:"size"`
				Tree struct {
					Children []struct {
						Name string `json:"name"`
					} `json:"children"`
				} `json:"tree"`
			} `json:"records"`
		} `json:"page"`
	}
	if strings.Count(tr, "\n") != 1 || json.Unmarshal([]byte(tr), &line) != nil {
		t.Fatalf("log --tree --format json:\n%.2000s", tr)
	}
	st, _ := os.Stat(snap)
	if r := line.Page.Records; line.Type != "tree" || line.File != snap || r.Size != int(st.Size()) || len(r.Tree.Children) == 0 || r.Tree.Children[0].Name != "RecordBatch" {
		t.Errorf("log --tree --format json: %+v", line)
	}
}

func TestLogDataRecordsAndBadCRC(t *testing.T) {
	dir := t.TempDir()
	b := records.Batch{BaseOffset: 7, Records: []records.KeyValue{{Key: []byte("k"), Value: []byte{0xff, 0x00}}}}.Bytes()
	path := filepath.Join(dir, "00000000000000000007.log")
	// A partial batch at the end is a notice, not a failure.
	if err := os.WriteFile(path, append(append([]byte{}, b...), b[:20]...), 0o644); err != nil {
		t.Fatal(err)
	}
	// In JSON, the notice is a line among the records.
	r := kwire(t, "log", path, "--format", "json")
	if r.code != 0 || r.stdout != `{"file":"`+path+`","offset":7,"batch_offset":7,"timestamp_type":"CreateTime","timestamp":0,"key":"k","value_base64":"/wA="}`+"\n"+
		`{"type":"notice","kind":"records","file":"`+path+`","file_offset":71,"path":"00000000000000000007.log[1]","message":"00000000000000000007.log[1] at 0x0047: partial batch: batchLength 59, 8 bytes present"}`+"\n" || r.stderr != "" {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	b[30] ^= 0xff // baseTimestamp: covered by the CRC
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r = kwire(t, "log", path)
	if r.code != 1 || !strings.Contains(r.stdout, "CRC INVALID") || !strings.Contains(r.stderr, "CRC-32C") {
		t.Errorf("bad CRC: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := kwire(t, "log", path, "--tree"); r.code != 1 || !strings.Contains(r.stdout, "RecordBatch") {
		t.Errorf("--tree: exit %d\n%s", r.code, r.stdout)
	}
}

// Several files in text: each is named on a line before its batches, since
// offsets start again in each; one file has no such line.
func TestLogNamesEachFileOfSeveral(t *testing.T) {
	seg, snap, _ := logFixtures(t)
	out := mustRun(t, "log", seg, snap)
	i, j := strings.Index(out, "== "+seg+"\n"), strings.Index(out, "== "+snap+"\n")
	if i != 0 || j < 0 || !strings.Contains(out[:j], "batch 1  records 2") || !strings.Contains(out[j:], "batch 0  records 1") {
		t.Fatalf("headers at %d and %d:\n%s", i, j, out)
	}
	if one := mustRun(t, "log", seg); strings.Contains(one, "== ") {
		t.Fatalf("one file named:\n%s", one)
	}
}

// An inverted --offset range selects nothing: a usage error, not an empty
// listing.
func TestLogInvertedOffsetRange(t *testing.T) {
	seg, _, _ := logFixtures(t)
	if r := kwire(t, "log", "--offset", "5..2", seg); r.code != 2 || !strings.Contains(r.stderr, "empty") {
		t.Fatalf("exit %d %q", r.code, r.stderr)
	}
	// Batch 0 holds no record in the range: not even its line.
	want := "batch 1  records 2  attributes 0x0000  epoch 1  magic 2  CRC valid\n" +
		`  offset 1  CreateTime 1700000000000  TopicRecord v0 {"name":"t1","topicId":"3q2-796tze-XDVRl4oy0qA"}` + "\n"
	if r := kwire(t, "log", "--offset", "1..1", seg); r.code != 0 || r.stdout != want {
		t.Fatalf("1..1: exit %d\n%s", r.code, r.stdout)
	}
}

// What is not a listing says what was found and exits 1: an empty
// directory, one without segments, an empty file, bytes without a record
// batch, a directory whose segments hold none. An empty segment next to
// others (a broker's newly rolled one) and a partial batch after a whole
// one (a broker appending) are notices.
func TestLogSaysWhatWasFound(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string, data []byte) string {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if data != nil {
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	b := records.Batch{BaseOffset: 3, Records: []records.KeyValue{{Value: []byte("x")}}}.Bytes()
	empty := filepath.Dir(mk("empty/x", nil))
	noSegs := filepath.Dir(mk("nosegs/00000000000000000000.index", []byte{}))
	emptyFile := mk("e.log", []byte{})
	random := mk("r.log", []byte("this is not a log segment at all"))
	onlyEmpty := filepath.Dir(mk("t-0/00000000000000000000.log", []byte{}))
	mk("t-1/00000000000000000000.log", b)
	mk("t-1/00000000000000000005.log", []byte{})
	tail := mk("tail.log", append(append([]byte{}, b...), b[:30]...))
	for _, c := range []struct {
		path   string
		code   int
		stderr string
	}{
		{empty, 1, "kwire: dir " + empty + ": no log segments (*.log) or snapshots (*.checkpoint)\n"},
		{noSegs, 1, "kwire: dir " + noSegs + ": no log segments (*.log) or snapshots (*.checkpoint)\n"},
		{emptyFile, 1, emptyFile + ": error: empty file: no record batches\nkwire: 1 problem in the records (above)\n"},
		{random, 1, random + ": error: no record batch at offset 0: r.log[0] at 0x0000: unknown magic 103 (Kafka knows 0, 1 and 2): 32 bytes skipped from 0x0000 to the end\nkwire: 1 problem in the records (above)\n"},
		{onlyEmpty, 1, onlyEmpty + "/00000000000000000000.log: notice: empty file: no record batches\n" + onlyEmpty + ": error: no record batch in its 1 file (*.log, *.checkpoint)\nkwire: 1 problem in the records (above)\n"},
		{filepath.Join(root, "t-1"), 0, filepath.Join(root, "t-1", "00000000000000000005.log") + ": notice: empty file: no record batches\n"},
		{tail, 0, tail + ": notice: tail.log[1] at 0x0045: partial batch: batchLength 57, 18 bytes present\n"},
	} {
		r := kwire(t, "log", c.path)
		if r.code != c.code || r.stderr != c.stderr {
			t.Errorf("log %s: exit %d, want %d\n got %q\nwant %q", c.path, r.code, c.code, r.stderr, c.stderr)
		}
	}
	for _, args := range [][]string{{"log", "-"}, {"log", "--tree", "-"}} {
		if r := withStdin(t, "", args...); r.code != 1 || r.stderr != "-: error: standard input is empty: no record batches\nkwire: 1 problem in the records (above)\n" {
			t.Errorf("%q of empty standard input: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if r := kwire(t, "log", "--tree", random); r.code != 1 || !strings.Contains(r.stderr, "no record batch at offset 0") || !strings.Contains(r.stdout, "+-- skipped  raw  = 0x74686973206973206e6f742061206c6f…  [0x0000, 32B]") {
		t.Errorf("--tree of random bytes: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Text and JSON lines show each record's timestamp with its type and its
// headers.
func TestLogTimestampsAndHeaders(t *testing.T) {
	b := records.Batch{BaseOffset: 0, Timestamp: 1700000000000, Records: []records.KeyValue{
		{Key: []byte("k"), Value: []byte("abc"), Headers: []records.Header{{Key: "h1", Value: []byte("v")}, {Key: "h2", ValueNull: true}}},
	}}.Bytes()
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	want := "batch 0  records 1  attributes 0x0000  epoch 0  magic 2  CRC valid\n" +
		`  offset 0  CreateTime 1700000000000  key "k"  value "abc"  headers "h1"="v" "h2"=null` + "\n"
	if got := mustRun(t, "log", path); got != want {
		t.Errorf("text:\n%s\nwant\n%s", got, want)
	}
	wantJSON := `{"file":` + string(must(json.Marshal(path))) + `,"offset":0,"batch_offset":0,"timestamp_type":"CreateTime","timestamp":1700000000000,"key":"k","value":"abc","headers":[{"key":"h1","value":"v"},{"key":"h2"}]}` + "\n"
	if got := mustRun(t, "log", path, "--format", "json"); got != wantJSON {
		t.Errorf("json:\n%s\nwant\n%s", got, wantJSON)
	}
}

// twoBatches is a segment of two batches (offsets 0 and 1), 0x90 bytes.
func twoBatches(t *testing.T) []byte {
	t.Helper()
	a := records.Batch{BaseOffset: 0, Timestamp: 1700000000000, Records: []records.KeyValue{{Key: []byte("k1"), Value: []byte("abc")}}}.Bytes()
	b := records.Batch{BaseOffset: 1, Timestamp: 1700000000000, Records: []records.KeyValue{{Value: []byte{1, 2, 3}}}}.Bytes()
	seg := append(a, b...)
	if len(seg) != 0x90 {
		t.Fatalf("segment of %d bytes, want 0x90", len(seg))
	}
	return seg
}

const twoBatchesText = "batch 0  records 1  attributes 0x0000  epoch 0  magic 2  CRC valid\n" +
	`  offset 0  CreateTime 1700000000000  key "k1"  value "abc"` + "\n" +
	"batch 1  records 1  attributes 0x0000  epoch 0  magic 2  CRC valid\n" +
	"  offset 1  CreateTime 1700000000000  key null  value 0x010203\n"

// Random bytes inside a segment are an error at their offset; the batches
// after them are listed (from a file and from standard input alike).
func TestLogSkipsBytesThatAreNotABatch(t *testing.T) {
	seg := twoBatches(t)
	junk := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range junk {
		junk[i] = byte(rng.Uint32())
	}
	magic := int8(junk[16])
	if magic >= 0 && magic <= 2 {
		t.Fatalf("junk with magic %d", magic)
	}
	data := append(append(append([]byte{}, seg...), junk...), seg...)
	path := filepath.Join(t.TempDir(), "mid.log")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	msg := fmt.Sprintf("[2] at 0x0090: unknown magic %d (Kafka knows 0, 1 and 2): 4096 bytes skipped from 0x0090 to 0x1090\n", magic)
	r := kwire(t, "log", path)
	if r.code != 1 || r.stdout != twoBatchesText+twoBatchesText || r.stderr != path+": error: mid.log"+msg+"kwire: 1 problem in the records (above)\n" {
		t.Errorf("file: exit %d\n%s\n%q", r.code, r.stdout, r.stderr)
	}
	in := kwireIn(t, string(data), "log", "-")
	if in.code != 1 || in.stdout != twoBatchesText+twoBatchesText || in.stderr != "-: error: stdin"+msg+"kwire: 1 problem in the records (above)\n" {
		t.Errorf("stdin: exit %d\n%s\n%q", in.code, in.stdout, in.stderr)
	}
	// In JSON the problem is a line between the records it lies between.
	js := kwire(t, "log", path, "--format", "json")
	lines := strings.Split(js.stdout, "\n")
	want := `{"type":"problem","kind":"records","file":` + string(must(json.Marshal(path))) + `,"file_offset":144,"path":"mid.log[2]","message":"mid.log` + strings.TrimSuffix(msg, "\n") + `"}`
	if js.code != 1 || len(lines) != 6 || lines[4] != want || js.stderr != `kwire: 1 problem in the records (the "problem" lines of the output)`+"\n" {
		t.Errorf("json: exit %d\n%s\nwant line 5\n%s\n%s", js.code, js.stdout, want, js.stderr)
	}
	if r := kwireIn(t, "", "log", "-", "-"); r.code != 2 {
		t.Errorf("- twice: exit %d %q", r.code, r.stderr)
	}
}

// Zero bytes at the end of a segment (preallocated) are one notice; a
// snapshot cut short is an error.
func TestLogZeroBytesAndCutSnapshots(t *testing.T) {
	seg := twoBatches(t)
	dir := t.TempDir()
	zeros := filepath.Join(dir, "00000000000000000000.log")
	if err := os.WriteFile(zeros, append(append([]byte{}, seg...), make([]byte, 40)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := kwire(t, "log", zeros); r.code != 0 || r.stdout != twoBatchesText || r.stderr != zeros+": notice: 00000000000000000000.log[2] at 0x0090: 40 zero bytes from 0x0090 to the end\n" {
		t.Errorf("zeros: exit %d\n%s\n%q", r.code, r.stdout, r.stderr)
	}
	_, snap, _ := logFixtures(t)
	data, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, filepath.Base(snap))
	if err := os.WriteFile(cut, data[:len(data)-5], 0o644); err != nil {
		t.Fatal(err)
	}
	footer := len(data) - 75 // the SnapshotFooter batch: 61 bytes and a record of 14
	want := fmt.Sprintf("%s: error: %s[2] at 0x%04x: partial batch: batchLength 63, 58 bytes present: the records end inside it\nkwire: 1 problem in the records (above)\n", cut, filepath.Base(cut), footer)
	if r := kwire(t, "log", cut); r.code != 1 || r.stderr != want {
		t.Errorf("cut snapshot: exit %d\n%q\nwant %q", r.code, r.stderr, want)
	}
}

// A value that is not a metadata record names what it is, where (the
// file's offset) and shows its bytes as --values says, in text and JSON.
func TestLogBadMetadataValue(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "__cluster_metadata-0")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "00000000000000000000.log")
	if err := os.WriteFile(path, twoBatches(t), 0o644); err != nil {
		t.Fatal(err)
	}
	r := kwire(t, "log", path)
	wantOut := "batch 0  records 1  attributes 0x0000  epoch 0  magic 2  CRC valid\n" +
		`  offset 0  CreateTime 1700000000000  not a metadata record: frame_version at 0x0045: metadata record frame version 97 is not supported (want 1)  value "abc"` + "\n" +
		"batch 1  records 1  attributes 0x0000  epoch 0  magic 2  CRC valid\n" +
		"  offset 1  CreateTime 1700000000000  TopicRecord v3: TopicRecord at 0x008c: TopicRecord has no version 3 (valid versions: 0)  value 0x010203\n"
	wantErr := path + ": error: 00000000000000000000.log[0].Record[0].value.frame_version at 0x0045: metadata record frame version 97 is not supported (want 1)\n" +
		path + ": error: 00000000000000000000.log[1].Record[0].value.TopicRecord at 0x008c: TopicRecord has no version 3 (valid versions: 0)\n" +
		"kwire: 2 problems in the records (above)\n"
	if r.code != 1 || r.stdout != wantOut || r.stderr != wantErr {
		t.Errorf("text: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := kwire(t, "log", path, "--values", "hex"); !strings.Contains(r.stdout, `(want 1)  value 0x616263`+"\n") {
		t.Errorf("--values hex:\n%s", r.stdout)
	}
	f := `{"file":` + string(must(json.Marshal(path)))
	wantJSON := f + `,"offset":0,"batch_offset":0,"timestamp_type":"CreateTime","timestamp":1700000000000,"key":"k1","value":"abc","error":"frame_version at 0x0045: metadata record frame version 97 is not supported (want 1)"}` + "\n" +
		f + `,"offset":1,"batch_offset":1,"timestamp_type":"CreateTime","timestamp":1700000000000,"type":"TopicRecord","version":3,"value_base64":"AQID","error":"TopicRecord at 0x008c: TopicRecord has no version 3 (valid versions: 0)"}` + "\n" +
		`{"type":"problem","kind":"records","file":` + string(must(json.Marshal(path))) + `,"file_offset":69,"path":"00000000000000000000.log[0].Record[0].value.frame_version","message":"00000000000000000000.log[0].Record[0].value.frame_version at 0x0045: metadata record frame version 97 is not supported (want 1)"}` + "\n" +
		`{"type":"problem","kind":"records","file":` + string(must(json.Marshal(path))) + `,"file_offset":140,"path":"00000000000000000000.log[1].Record[0].value.TopicRecord","message":"00000000000000000000.log[1].Record[0].value.TopicRecord at 0x008c: TopicRecord has no version 3 (valid versions: 0)"}` + "\n"
	if r := kwire(t, "log", path, "--format", "json"); r.code != 1 || r.stdout != wantJSON || r.stderr != `kwire: 2 problems in the records (the "problem" lines of the output)`+"\n" {
		t.Errorf("json: exit %d\n%s\nwant\n%s\nstderr %s", r.code, r.stdout, wantJSON, r.stderr)
	}
}

// Index files are named as what they are; --type names only the files
// that have a matching record; --max-decompressed must be positive.
func TestLogWrongInputsAndHeaders(t *testing.T) {
	seg, snap, _ := logFixtures(t)
	idx := filepath.Join(t.TempDir(), "00000000000000000000.index")
	if err := os.WriteFile(idx, make([]byte, 16), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := kwire(t, "log", idx); r.code != 1 || r.stdout != "" || r.stderr != idx+": error: an offset index (*.index), not a log segment (*.log) or a KRaft snapshot (*.checkpoint)\nkwire: 1 problem in the records (above)\n" {
		t.Errorf("index: exit %d %q", r.code, r.stderr)
	}
	// Both files hold a TopicRecord: both are named.
	typed := mustRun(t, "log", seg, snap, "--type", "TopicRecord")
	if want := "== " + seg + "\n" + `  offset 1  CreateTime 1700000000000  TopicRecord v0 {"name":"t1","topicId":"` + topicID + `"}` + "\n" +
		"== " + snap + "\n" + `  offset 1  CreateTime 0  TopicRecord v0 {"name":"t1","topicId":"` + topicID + `"}` + "\n"; typed != want {
		t.Errorf("--type TopicRecord:\n%s\nwant\n%s", typed, want)
	}
	if got := mustRun(t, "log", seg, snap, "--type", "FeatureLevelRecord"); got != "== "+seg+"\n"+`  offset 0  CreateTime 0  FeatureLevelRecord v0 {"name":"metadata.version","featureLevel":20}`+"\n" {
		t.Errorf("--type FeatureLevelRecord: the snapshot, which has none, is named:\n%s", got)
	}
	for _, v := range []string{"0", "-1"} {
		if r := kwire(t, "log", seg, "--max-decompressed="+v); r.code != 2 || r.stderr != "kwire: --max-decompressed "+v+": must be positive\n" {
			t.Errorf("--max-decompressed %s: exit %d %q", v, r.code, r.stderr)
		}
	}
}

// A batch of many records comes in parts (logseg.Window.Continued): its
// line is printed once, before its first record, and with --offset before
// the first record in the range, whichever part holds it.
func TestLogBatchInParts(t *testing.T) {
	seg := testseg.ZstdSegment(30000, 30000)
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "log", path)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 30001 || lines[0] != "batch 0  records 30000  attributes 0x0004 (zstd, CreateTime)  epoch 0  magic 2  CRC valid" ||
		!strings.HasPrefix(lines[30000], `  offset 29999  CreateTime 1700000029999  key "key-29999"  value 0x`) {
		t.Errorf("%d lines: %q … %q", len(lines), lines[0], lines[len(lines)-1])
	}
	ranged := mustRun(t, "log", path, "--offset", "25000..25001")
	if want := "batch 0  records 30000  attributes 0x0004 (zstd, CreateTime)  epoch 0  magic 2  CRC valid\n" + lines[25001] + "\n" + lines[25002] + "\n"; ranged != want {
		t.Errorf("--offset 25000..25001:\n%s\nwant\n%s", ranged, want)
	}
}

// A filter that keeps no record says so, and which offsets were read,
// instead of printing nothing.
func TestLogFilterThatKeepsNothingSaysSo(t *testing.T) {
	const seg = "../../docs/examples/__consumer_offsets-21"
	for _, c := range []struct {
		args []string
		note string
	}{
		{[]string{"--offset", "9999..10000"}, "kwire: note: no record matched --offset 9999..10000: the 6 records read have offsets 0..5\n"},
		{[]string{"--type", "PartitionRecord", "--format", "json"}, "kwire: note: no record matched --type PartitionRecord: the 6 records read have offsets 0..5\n"},
	} {
		r := kwire(t, append([]string{"log", seg}, c.args...)...)
		if r.code != 0 || r.stdout != "" || r.stderr != c.note {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want the note %q", c.args, r.code, r.stdout, r.stderr, c.note)
		}
	}
	// A filter that keeps records: no note.
	if r := kwire(t, "log", seg, "--offset", "2..2"); r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "offset 2 ") {
		t.Errorf("--offset 2..2: exit %d, stderr %q", r.code, r.stderr)
	}
}
