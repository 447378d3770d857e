package logseg_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
)

// writeFile writes data at dir/rel, making its directories.
func writeFile(t *testing.T, dir, rel string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func oneBatch(base int64) []byte {
	return records.Batch{BaseOffset: base, Records: []records.KeyValue{{Value: []byte("x")}}}.Bytes()
}

func TestExpandOrdersSegmentsThenPartitions(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{
		"t-10/00000000000000000000.log",
		"t-2/00000000000000000100.log",
		"t-2/00000000000000000000.log",
		"t-2/00000000000000000000.index",
		"t-2/00000000000000000000.log.deleted",
		"a-0/00000000000000000000.log",
		"t-2/nested-1/00000000000000000007.log",
		"__cluster_metadata-0/00000000000000000010-0000000001.checkpoint",
		"00000000000000000003.log",
		"meta.properties",
	} {
		writeFile(t, root, rel, oneBatch(0))
	}
	one := filepath.Join(root, "t-2", "00000000000000000000.index")
	srcs, err := logseg.Expand([]string{root, one})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range srcs[0].Files {
		got = append(got, filepath.ToSlash(strings.TrimPrefix(f, root+string(filepath.Separator))))
	}
	want := []string{
		"00000000000000000003.log",
		"__cluster_metadata-0/00000000000000000010-0000000001.checkpoint",
		"a-0/00000000000000000000.log",
		"t-2/00000000000000000000.log",
		"t-2/00000000000000000100.log",
		"t-2/nested-1/00000000000000000007.log",
		"t-10/00000000000000000000.log",
	}
	if !reflect.DeepEqual(got, want) || !srcs[0].Dir || srcs[0].Path != root {
		t.Errorf("walk %q, want %q", got, want)
	}
	// A file named on its own is itself, whatever its name.
	if len(srcs) != 2 || srcs[1].Dir || !reflect.DeepEqual(srcs[1].Files, []string{one}) {
		t.Errorf("file source %+v", srcs[1])
	}
	if !logseg.IsMetadata(srcs[0].Files[1]) || logseg.IsMetadata(srcs[0].Files[2]) {
		t.Error("IsMetadata: want the snapshot only")
	}
}

func TestExpandRefusesDirectoriesWithoutSegments(t *testing.T) {
	empty := t.TempDir()
	other := t.TempDir()
	writeFile(t, other, "t-0/00000000000000000000.index", nil)
	for _, dir := range []string{empty, other} {
		_, err := logseg.Expand([]string{dir})
		if err == nil || err.Error() != "dir "+dir+": no log segments (*.log) or snapshots (*.checkpoint)" {
			t.Errorf("%s: %v", dir, err)
		}
	}
	if _, err := logseg.Expand([]string{filepath.Join(empty, "nope.log")}); !os.IsNotExist(err) {
		t.Errorf("missing path: %v", err)
	}
}

// findings is the Findings of the file at path as text lines.
func findings(t *testing.T, path string, walked bool) string {
	t.Helper()
	sum, err := logseg.Read(path, logseg.Options{}, func(*logseg.Window) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range sum.Findings(walked) {
		kind := "error"
		if p.Notice {
			kind = "notice"
		}
		b.WriteString(kind + ": " + p.String() + "\n")
	}
	return b.String()
}

func TestFindingsSayWhatAFileHeld(t *testing.T) {
	dir := t.TempDir()
	b := oneBatch(7)
	for _, c := range []struct {
		name   string
		data   []byte
		walked bool
		want   string
	}{
		{"empty.log", nil, false, "error: empty file: no record batches\n"},
		{"empty.log", nil, true, "notice: empty file: no record batches\n"},
		{"short.log", []byte{1, 2, 3, 4, 5}, false, "error: no record batch at offset 0: short.log[0] at 0x0000: partial batch: 5 bytes, too short for a batch header\n"},
		// In a directory, a first batch being written is a notice.
		{"short.log", []byte{1, 2, 3, 4, 5}, true, "notice: short.log[0] at 0x0000: partial batch: 5 bytes, too short for a batch header\n"},
		{"long.log", append(make([]byte, 8), 0x7f, 0, 0, 0, 9), false, "error: no record batch at offset 0: long.log[0] at 0x0000: batchLength 2130706432 runs past the end and is more than a batch can be (104857600 bytes): 13 bytes skipped from 0x0000 to the end\n"},
		{"first.log", b[:40], false, "error: no record batch at offset 0: first.log[0] at 0x0000: partial batch: batchLength 57, 28 bytes present\n"},
		{"magic.log", append(append(make([]byte, 8), 0, 0, 0, 20), append([]byte{0, 0, 0, 0, 7}, make([]byte, 15)...)...), false, "error: no record batch at offset 0: magic.log[0] at 0x0000: unknown magic 7 (Kafka knows 0, 1 and 2): 32 bytes skipped from 0x0000 to the end\n"},
		// Random bytes before a batch, zero bytes after it: a segment
		// preallocated (file.preallocate) is a notice.
		{"junk.log", append(append([]byte("not a batch, not a batch, not a batch"), b...), make([]byte, 12)...), false, "error: junk.log[0] at 0x0000: unknown magic 32 (Kafka knows 0, 1 and 2): 37 bytes skipped from 0x0000 to 0x0025\nnotice: junk.log[1] at 0x006a: 12 zero bytes from 0x006a to the end\n"},
		{"zeros.log", make([]byte, 4096), false, "error: no record batch at offset 0: zeros.log[0] at 0x0000: 4096 zero bytes from 0x0000 to the end\n"},
		{"zeros.log", make([]byte, 4096), true, "notice: zeros.log[0] at 0x0000: 4096 zero bytes from 0x0000 to the end\n"},
		// A snapshot is never appended to: cut, it is an error.
		{"00000000000000000010-0000000001.checkpoint", append(append([]byte{}, b...), b[:20]...), false, "error: 00000000000000000010-0000000001.checkpoint[1] at 0x0045: partial batch: batchLength 57, 8 bytes present: the records end inside it\n"},
		{"00000000000000000010-0000000001.checkpoint", append(append([]byte{}, b...), make([]byte, 12)...), false, "error: 00000000000000000010-0000000001.checkpoint[1] at 0x0045: 12 zero bytes from 0x0045 to the end\n"},
		// Not read: the other files of a partition directory.
		{"00000000000000000000.index", b, false, "error: an offset index (*.index), not a log segment (*.log) or a KRaft snapshot (*.checkpoint)\n"},
		{"00000000000000000000.timeindex", b, false, "error: a time index (*.timeindex), not a log segment (*.log) or a KRaft snapshot (*.checkpoint)\n"},
		// A broker appending: a batch, then the start of the next.
		{"tail.log", append(append([]byte{}, b...), b[:20]...), false, "notice: tail.log[1] at 0x0045: partial batch: batchLength 57, 8 bytes present\n"},
		{"good.log", b, false, ""},
		// Counts of one byte are singular.
		{"one.log", append(append([]byte{}, b...), 0), false, "notice: one.log[1] at 0x0045: partial batch: 1 byte, too short for a batch header\n"},
		{"onejunk.log", append([]byte("x"), b...), false, "error: onejunk.log[0] at 0x0000: batchLength 117440512, but a batch starts 1 byte after this one: 1 byte skipped from 0x0000 to 0x0001\n"},
	} {
		if got := findings(t, writeFile(t, dir, c.name, c.data), c.walked); got != c.want {
			t.Errorf("%s (walked %v):\n got %q\nwant %q", c.name, c.walked, got, c.want)
		}
	}
	// Empty standard input is named as such, by Read and ReadWhole.
	o := logseg.Options{Stdin: strings.NewReader("")}
	sum, err := logseg.Read("-", o, func(*logseg.Window) error { return nil })
	if ps := sum.Findings(false); err != nil || !sum.Stdin || len(ps) != 1 || ps[0].Notice || ps[0].String() != "standard input is empty: no record batches" {
		t.Errorf("empty standard input: %v, %v", ps, err)
	}
	o.Stdin = strings.NewReader("")
	_, sum, err = logseg.ReadWhole("-", o)
	if ps := sum.Findings(true); err != nil || !sum.Stdin || len(ps) != 1 || ps[0].Notice || ps[0].String() != "standard input is empty: no record batches" {
		t.Errorf("empty standard input, whole: %v, %v", ps, err)
	}
	src := logseg.Source{Path: dir, Dir: true, Files: []string{"a", "b"}}
	if ps := src.Findings(0); len(ps) != 1 || ps[0].Notice || ps[0].String() != "no record batch in its 2 files (*.log, *.checkpoint)" {
		t.Errorf("directory without batches: %v", ps)
	}
	if ps := src.Findings(1); ps != nil {
		t.Errorf("directory with a batch: %v", ps)
	}
	if ps := (logseg.Source{Path: "x.log", Files: []string{"x.log"}}).Findings(0); ps != nil {
		t.Errorf("file source: %v", ps)
	}
}

// listing is every line a Read of path with window w gives: the text lines
// of its batches and records, then its problems.
func listing(t *testing.T, path string, o logseg.Options) (lines []string, windows int) {
	t.Helper()
	sum, err := logseg.Read(path, o, func(w *logseg.Window) error {
		windows++
		for i := range w.Batches {
			b := &w.Batches[i]
			if i > 0 || !w.Continued {
				lines = append(lines, logseg.BatchText(b))
			}
			for _, r := range b.Records {
				d := w.Describe(b, r)
				lines = append(lines, string(d.AppendText(nil, render.ValuesAuto)))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sum.Problems {
		lines = append(lines, p.String())
	}
	return lines, windows
}

// A file read a window at a time lists and reports exactly what a decode
// of the whole file does: batch indexes, offsets and decompressed offsets
// of its problems are the file's.
func TestReadWindowsMatchTheWholeFile(t *testing.T) {
	seg := testseg.Mixed()

	path := writeFile(t, t.TempDir(), "00000000000000000000.log", seg)

	tr, sum, err := logseg.ReadWhole(path, logseg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Batches != 14 || sum.Size != int64(len(seg)) || len(tr.Bytes) != len(seg) {
		t.Fatalf("whole: %d batches, %d bytes", sum.Batches, sum.Size)
	}
	// The default window: the twelve whole entries, then from the first
	// bytes that are not an entry to the end.
	whole, n := listing(t, path, logseg.Options{})
	if n != 2 {
		t.Fatalf("default window: %d windows", n)
	}
	text := strings.Join(whole, "\n")
	for _, want := range []string{
		"00000000000000000000.log[6].crc at 0x",
		"00000000000000000000.log[11].decompressed.Record[0] at 0x",
		"(decompressed v0x",
		"batch 100  records 0  attributes 0x0000  epoch 0  magic 2  CRC valid\nbatch 200  records 0  attributes 0x0000  epoch 0  magic 2  CRC valid\n",
		"batch 30  records 1  attributes 0x0000  epoch 0  magic 2  CRC INVALID",
		`  offset 35  CreateTime 1000  key "k"  value "v"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("whole file: no %q in\n%s", want, text)
		}
	}
	if !strings.HasSuffix(text, "\n00000000000000000000.log[12] at 0x05a1: batchLength -16 is negative: 12 bytes skipped from 0x05a1 to 0x05ad\n"+
		"00000000000000000000.log[13] at 0x05ea: unknown magic -91 (Kafka knows 0, 1 and 2): 300 bytes skipped from 0x05ea to 0x0716\n"+
		"00000000000000000000.log[14] at 0x0753: 40 zero bytes from 0x0753 to the end") {
		t.Errorf("whole file: the last problems are not the bytes skipped and the zero bytes:\n%s", text)
	}
	var wholeProblems []string
	for _, p := range sum.Problems {
		wholeProblems = append(wholeProblems, p.String())
	}
	if !reflect.DeepEqual(whole[len(whole)-len(wholeProblems):], wholeProblems) {
		t.Errorf("Read's problems differ from ReadWhole's:\n%q\n%q", whole, wholeProblems)
	}
	// A stream (standard input) read a byte at a time gives the same.
	for _, w := range []int{0, 1, 100} {
		var got []string
		sum, err := logseg.ReadFrom(iotest.OneByteReader(bytes.NewReader(seg)), path, logseg.Options{Window: w}, func(w *logseg.Window) error {
			for i := range w.Batches {
				b := &w.Batches[i]
				got = append(got, logseg.BatchText(b))
				for _, r := range b.Records {
					d := w.Describe(b, r)
					got = append(got, string(d.AppendText(nil, render.ValuesAuto)))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range sum.Problems {
			got = append(got, p.String())
		}
		if !reflect.DeepEqual(got, whole) || sum.Size != int64(len(seg)) || sum.Batches != 14 {
			t.Errorf("stream, window %d: %d bytes, %d batches:\n%s", w, sum.Size, sum.Batches, strings.Join(got, "\n"))
		}
	}
	for _, w := range []int{1, 100, 200, 1000} {
		got, n := listing(t, path, logseg.Options{Window: w})
		if !reflect.DeepEqual(got, whole) {
			t.Errorf("window %d:\n%s\nwant\n%s", w, strings.Join(got, "\n"), text)
		}
		if w == 1 && n != 14 {
			// (Bytes that are not an entry, more than the window, are
			// skipped without one.)
			t.Errorf("window 1: %d windows, want one per batch (14)", n)
		}
	}
}

// A batch of many records is listed a part at a time (Window.Continued),
// and a batch whose payload decompresses to more than 8 MiB streamed
// a piece at a time: the listing and problems are those of the whole
// file, whose tree holds every record.
func TestReadPartsMatchTheWholeFile(t *testing.T) {
	big := testseg.ZstdSegment(200000, 200000) // about 10 MiB decompressed
	seg := append(append(append(testseg.FatGzipBatch(0), oneBatch(1)...), big...), testseg.FatGzipBatch(300000)...)
	path := writeFile(t, t.TempDir(), "00000000000000000000.log", seg)
	tr, sum, err := logseg.ReadWhole(path, logseg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, b := range records.LogBatches(tr) {
		want = append(want, logseg.BatchText(&b))
		for _, r := range b.Records {
			d := logseg.Record{LogRecord: r, BatchOffset: b.BaseOffset, Err: nil}
			want = append(want, string(d.AppendText(nil, render.ValuesAuto)))
		}
	}
	for _, p := range sum.Problems {
		want = append(want, p.String())
	}
	if len(want) != 200000+3+4+2 || sum.Batches != 4 || len(sum.Problems) != 2 {
		t.Fatalf("whole: %d lines, %d batches", len(want), sum.Batches)
	}
	continued := 0
	_, err = logseg.Read(path, logseg.Options{}, func(w *logseg.Window) error {
		if w.Continued {
			continued++
		}
		return nil
	})
	if err != nil || continued < 10 {
		t.Errorf("%d windows continue a batch (%v)", continued, err)
	}
	got, _ := listing(t, path, logseg.Options{})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%d lines, want %d", len(got), len(want))
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("line %d: %q, want %q", i, got[i], want[i])
			}
		}
	}
}

// legacyMessage is a magic 0 or 1 entry at offset, timestamp ts for
// magic 1.
func legacyMessage(offset int64, magic, attrs byte, ts int64, key, value []byte) []byte {
	return records.Legacy{Offset: offset, Magic: int8(magic), Attributes: int8(attrs), Timestamp: ts, Key: key, Value: value}.Bytes()
}

// lines lists a file in text and in JSON lines.
func lines(t *testing.T, path string, o logseg.Options, v render.Values) (text, js string) {
	t.Helper()
	var tb, jb []byte
	_, err := logseg.Read(path, o, func(w *logseg.Window) error {
		for i := range w.Batches {
			b := &w.Batches[i]
			tb = append(append(tb, logseg.BatchText(b)...), '\n')
			for _, r := range b.Records {
				d := w.Describe(b, r)
				tb = d.AppendText(tb, v)
				var err error
				if jb, err = d.AppendJSON(jb, v); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(tb), string(jb)
}

// Record lines carry the timestamp with its type (none for magic 0) and
// the headers, their values shown as --values shows keys and values.
func TestRecordLinesTimestampsAndHeaders(t *testing.T) {
	dir := t.TempDir()
	v2 := records.Batch{BaseOffset: 0, Timestamp: 1700000000000, Records: []records.KeyValue{
		{Key: []byte("k"), Value: []byte(`{"a": 1}`), Headers: []records.Header{{Key: "h1", Value: []byte("x")}, {Key: "h 2", ValueNull: true}, {Key: "h3", Value: []byte{0xff}}}},
		{Value: []byte("abc"), TimestampDelta: 42},
	}}.Bytes()
	appendTime := append([]byte{}, v2...)
	appendTime[22] |= 0x08 // LogAppendTime
	binary.BigEndian.PutUint32(appendTime[17:], records.CRC32C(appendTime[21:]))
	binary.BigEndian.PutUint64(appendTime, 2)
	binary.BigEndian.PutUint32(appendTime[17:], records.CRC32C(appendTime[21:]))
	legacy := append(legacyMessage(4, 0, 0, 0, []byte("m0"), []byte("v0")), legacyMessage(5, 1, 0, 1600000000000, nil, []byte("v1"))...)
	path := writeFile(t, dir, "00000000000000000000.log", append(append(v2, appendTime...), legacy...))

	text, js := lines(t, path, logseg.Options{}, render.ValuesAuto)
	wantText := `batch 0  records 2  attributes 0x0000  epoch 0  magic 2  CRC valid
  offset 0  CreateTime 1700000000000  key "k"  value "{\"a\": 1}"  headers "h1"="x" "h 2"=null "h3"=0xff
  offset 1  CreateTime 1700000000042  key null  value "abc"
batch 2  records 2  attributes 0x0008 (uncompressed, LogAppendTime)  epoch 0  magic 2  CRC valid
  offset 2  LogAppendTime 1700000000042  key "k"  value "{\"a\": 1}"  headers "h1"="x" "h 2"=null "h3"=0xff
  offset 3  LogAppendTime 1700000000042  key null  value "abc"
batch 4  records 1  attributes 0x0000  epoch 0  magic 0  CRC valid
  offset 4  key "m0"  value "v0"
batch 5  records 1  attributes 0x0000  epoch 0  magic 1  CRC valid
  offset 5  CreateTime 1600000000000  key null  value "v1"
`
	if text != wantText {
		t.Errorf("text:\n%s\nwant\n%s", text, wantText)
	}
	f := `{"file":` + strings.ReplaceAll(`"`+path+`"`, `\`, `\\`)
	wantJSON := f + `,"offset":0,"batch_offset":0,"timestamp_type":"CreateTime","timestamp":1700000000000,"key":"k","value":"{\"a\": 1}","headers":[{"key":"h1","value":"x"},{"key":"h 2"},{"key":"h3","value_base64":"/w=="}]}
` + f + `,"offset":1,"batch_offset":0,"timestamp_type":"CreateTime","timestamp":1700000000042,"value":"abc"}
` + f + `,"offset":2,"batch_offset":2,"timestamp_type":"LogAppendTime","timestamp":1700000000042,"key":"k","value":"{\"a\": 1}","headers":[{"key":"h1","value":"x"},{"key":"h 2"},{"key":"h3","value_base64":"/w=="}]}
` + f + `,"offset":3,"batch_offset":2,"timestamp_type":"LogAppendTime","timestamp":1700000000042,"value":"abc"}
` + f + `,"offset":4,"batch_offset":4,"key":"m0","value":"v0"}
` + f + `,"offset":5,"batch_offset":5,"timestamp_type":"CreateTime","timestamp":1600000000000,"value":"v1"}
`
	if js != wantJSON {
		t.Errorf("json:\n%s\nwant\n%s", js, wantJSON)
	}

	// --values json and hex reach header values too.
	text, js = lines(t, path, logseg.Options{}, render.ValuesJSON)
	if !strings.Contains(text, `  offset 0  CreateTime 1700000000000  key "k" (not JSON)  value {"a":1}  headers "h1"="x" (not JSON) "h 2"=null "h3"=0xff (not JSON)`+"\n") ||
		!strings.Contains(js, `"key":"k","value_json":{"a":1},"headers":[{"key":"h1","value":"x"},{"key":"h 2"},{"key":"h3","value_base64":"/w=="}]}`) {
		t.Errorf("--values json:\n%s\n%s", text, js)
	}
	text, js = lines(t, path, logseg.Options{}, render.ValuesHex)
	if !strings.Contains(text, `key 0x6b  value 0x7b2261223a20317d  headers "h1"=0x78 "h 2"=null "h3"=0xff`+"\n") ||
		!strings.Contains(js, `"headers":[{"key":"h1","value_hex":"78"},{"key":"h 2"},{"key":"h3","value_hex":"ff"}]}`) {
		t.Errorf("--values hex:\n%s\n%s", text, js)
	}
}

// In a metadata file, a record's value is its decoded metadata record; a
// control record's value its control message.
func TestDescribeMetadataAndControlRecords(t *testing.T) {
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	feature := []byte{0x01, 0x0c, 0x00, 0x11, 'm', 'e', 't', 'a', 'd', 'a', 't', 'a', '.', 'v', 'e', 'r', 's', 'i', 'o', 'n', 0x00, 0x14, 0x00}
	snap := records.Batch{LeaderEpoch: 1, Control: true, Records: []records.KeyValue{{Key: []byte{0, 0, 0, 3}, Value: []byte{0, 0, 0, 0, 0, 0, 0, 0, 0x27, 0x10, 0}}}}.Bytes()
	snap = append(snap, records.Batch{BaseOffset: 1, Timestamp: 5, Records: []records.KeyValue{{Value: feature}, {Value: nil}}}.Bytes()...)
	// A value that is not a metadata record (frame version 2), in a batch
	// of its own: its problem is named at its offset in the file.
	snap = append(snap, records.Batch{BaseOffset: 3, Timestamp: 5, Records: []records.KeyValue{{Value: []byte{0x02, 0x7e, 0x7f}}}}.Bytes()...)
	at := fmt.Sprintf("0x%04x", bytes.Index(snap, []byte{0x02, 0x7e, 0x7f}))
	path := writeFile(t, t.TempDir(), "00000000000000000010-0000000001.checkpoint", snap)
	wantText := `batch 0  records 1  attributes 0x0020  epoch 1  magic 2  CRC valid  control
  offset 0  CreateTime 0  SnapshotHeaderRecord v0 {"version":0,"lastContainedLogTimestamp":10000}
batch 1  records 2  attributes 0x0000  epoch 0  magic 2  CRC valid
  offset 1  CreateTime 5  FeatureLevelRecord v0 {"name":"metadata.version","featureLevel":20}
  offset 2  CreateTime 5  not a metadata record: null value
batch 3  records 1  attributes 0x0000  epoch 0  magic 2  CRC valid
  offset 3  CreateTime 5  not a metadata record: frame_version at ` + at + `: metadata record frame version 2 is not supported (want 1)  value 0x027e7f
`
	// The same in one window and in a window a batch.
	for _, w := range []int{0, 1} {
		o := logseg.Options{Codec: codec.New(set), Window: w}
		text, js := lines(t, path, o, render.ValuesAuto)
		if text != wantText {
			t.Errorf("window %d, text:\n%s\nwant\n%s", w, text, wantText)
		}
		for _, want := range []string{
			`"offset":0,"batch_offset":0,"control":true,"timestamp_type":"CreateTime","timestamp":0,"type":"SnapshotHeaderRecord","version":0,"data":{"version":0,"lastContainedLogTimestamp":10000}}`,
			`"offset":1,"batch_offset":1,"timestamp_type":"CreateTime","timestamp":5,"type":"FeatureLevelRecord","version":0,"data":{"name":"metadata.version","featureLevel":20}}`,
			`"offset":2,"batch_offset":1,"timestamp_type":"CreateTime","timestamp":5,"error":"null value"}`,
			`"offset":3,"batch_offset":3,"timestamp_type":"CreateTime","timestamp":5,"value_base64":"An5/","error":"frame_version at ` + at + `: metadata record frame version 2 is not supported (want 1)"}`,
		} {
			if !strings.Contains(js, want) {
				t.Errorf("window %d: no %s in\n%s", w, want, js)
			}
		}
		// The problem is the one the Summary reports, at the same offset.
		sum, err := logseg.Read(path, o, func(*logseg.Window) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.Problems) != 1 || sum.Problems[0].String() != "00000000000000000010-0000000001.checkpoint[2].Record[0].value.frame_version at "+at+": metadata record frame version 2 is not supported (want 1)" {
			t.Errorf("window %d: problems %v", w, sum.Problems)
		}
	}
	// Without a codec the values stay bytes; the control record is named.
	// Bytes that are not printable text are shown as hex, as in the tree.
	text, _ := lines(t, path, logseg.Options{}, render.ValuesAuto)
	if !strings.Contains(text, "  offset 0  CreateTime 0  SNAPSHOT_HEADER\n") || !strings.Contains(text, "  offset 1  CreateTime 5  key null  value 0x010c00116d657461646174612e76657273696f6e001400\n") {
		t.Errorf("without a codec:\n%s", text)
	}
}

// Zero bytes that run to the end of a segment (space a broker
// preallocated) are counted, not held: Read reports what ReadWhole does,
// with no window holding them. Zero bytes that do not run to the end are
// decoded as they are.
func TestPreallocatedTailIsNotHeld(t *testing.T) {
	dir := t.TempDir()
	zeros := make([]byte, 3<<20)
	for _, c := range []struct {
		name string
		seg  []byte
		most int
	}{
		{"00000000000000000000.log", append(oneBatch(0), zeros...), 1 << 10},
		{"00000000000000000001.log", append(append(oneBatch(0), zeros...), oneBatch(1)...), len(zeros) + 200},
		{"00000000000000000002.log", zeros[:100], 0},
	} {
		path := writeFile(t, dir, c.name, c.seg)
		_, whole, err := logseg.ReadWhole(path, logseg.Options{})
		if err != nil {
			t.Fatal(err)
		}
		most := 0
		sum, err := logseg.Read(path, logseg.Options{Window: 64 << 10}, func(w *logseg.Window) error {
			most = max(most, len(w.Tree.Bytes))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// (The tree.Problem offsets in Summary are the windows'.)
		brief := func(s logseg.Summary) string {
			out := fmt.Sprintf("%d bytes, %d batches", s.Size, s.Batches)
			for _, p := range s.Problems {
				out += fmt.Sprintf("; %s at %d notice %v", p, p.Off, p.Notice)
			}
			return out
		}
		if got, want := brief(sum), brief(whole); got != want || len(whole.Problems) != 1 {
			t.Errorf("%s: Read %s\nReadWhole %s", c.name, got, want)
		}
		if most > c.most {
			t.Errorf("%s: a window of %d bytes", c.name, most)
		}
	}
}
