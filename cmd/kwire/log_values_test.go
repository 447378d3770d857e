package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/records"
)

// dataLog writes a segment of one batch at offset 5 whose records have
// key "k" and value {"a": 1}, a null key and value 00 ff, key "" and
// value "7".
func dataLog(t *testing.T) string {
	t.Helper()
	b := records.Batch{BaseOffset: 5, Records: []records.KeyValue{
		{Key: []byte("k"), Value: []byte(`{"a": 1}`)},
		{Value: []byte{0, 0xff}},
		{Key: []byte{}, Value: []byte("7")},
	}}.Bytes()
	path := filepath.Join(t.TempDir(), "00000000000000000005.log")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLogValuesText(t *testing.T) {
	path := dataLog(t)
	for _, c := range []struct {
		values string
		want   []string
	}{
		{"auto", []string{`key "k"  value "{\"a\": 1}"`, `key null  value 0x00ff`, `key ""  value "7"`}},
		{"utf8", []string{`key "k"  value "{\"a\": 1}"`, `key null  value "\x00\xff"`, `key ""  value "7"`}},
		{"hex", []string{`key 0x6b  value 0x7b2261223a20317d`, `key null  value 0x00ff`, `key empty  value 0x37`}},
		{"base64", []string{`key base64:aw==  value base64:eyJhIjogMX0=`, `key null  value base64:AP8=`, `key empty  value base64:Nw==`}},
		{"json", []string{`key "k" (not JSON)  value {"a":1}`, `key null  value 0x00ff (not JSON)`, `key "" (not JSON)  value 7`}},
	} {
		args := []string{"log", path}
		if c.values != "auto" {
			args = append(args, "--values", c.values)
		}
		want := "batch 5  records 3  attributes 0x0000  epoch 0  magic 2  CRC valid\n" +
			"  offset 5  CreateTime 0  " + c.want[0] + "\n  offset 6  CreateTime 0  " + c.want[1] + "\n  offset 7  CreateTime 0  " + c.want[2] + "\n"
		if got := mustRun(t, args...); got != want {
			t.Errorf("--values %s:\n got %q\nwant %q", c.values, got, want)
		}
	}
	if r := kwire(t, "log", path, "--values", "yaml"); r.code != 2 {
		t.Errorf("--values yaml: exit %d", r.code)
	}
}

func TestLogValuesJSON(t *testing.T) {
	path := dataLog(t)
	head := func(off int) string {
		return `{"file":` + string(must(json.Marshal(path))) + `,"offset":` + strconv.Itoa(off) + `,"batch_offset":5,"timestamp_type":"CreateTime","timestamp":0,`
	}
	for _, c := range []struct {
		values string
		want   []string
	}{
		{"auto", []string{`"key":"k","value":"{\"a\": 1}"}`, `"value_base64":"AP8="}`, `"key":"","value":"7"}`}},
		{"utf8", []string{`"key":"k","value":"{\"a\": 1}"}`, `"value":"\u0000\ufffd"}`, `"key":"","value":"7"}`}},
		{"hex", []string{`"key_hex":"6b","value_hex":"7b2261223a20317d"}`, `"value_hex":"00ff"}`, `"key_hex":"","value_hex":"37"}`}},
		{"base64", []string{`"key_base64":"aw==","value_base64":"eyJhIjogMX0="}`, `"value_base64":"AP8="}`, `"key_base64":"","value_base64":"Nw=="}`}},
		{"json", []string{`"key":"k","value_json":{"a":1}}`, `"value_base64":"AP8="}`, `"key":"","value_json":7}`}},
	} {
		got := mustRun(t, "log", path, "--format", "json", "--values", c.values)
		want := head(5) + c.want[0] + "\n" + head(6) + c.want[1] + "\n" + head(7) + c.want[2] + "\n"
		if got != want {
			t.Errorf("--values %s:\n got %s\nwant %s", c.values, got, want)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestLogTreeAndDecodeValues(t *testing.T) {
	path := dataLog(t)
	out := mustRun(t, "log", path, "--tree", "--values", "json")
	for _, want := range []string{`= {"a":1} (varint len=8)`, `= 0x00ff (varint len=2, not JSON)`, `= 7 (varint len=1)`, `= "k" (varint len=1, not JSON)`} {
		if !strings.Contains(out, want) {
			t.Errorf("--tree --values json: no %q in\n%s", want, out)
		}
	}
	// decode and show take --values too: a Produce v3 request holding
	// the batch.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	req := produceV3(raw)
	r := kwireIn(t, string(req), "decode", "-", "--values", "base64")
	if r.code != 0 || !strings.Contains(r.stdout, "= base64:eyJhIjogMX0= (varint len=8)") || !strings.Contains(r.stdout, "= base64:aw== (varint len=1)") {
		t.Errorf("decode --values base64: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = kwireIn(t, string(req), "decode", "-", "--values", "json", "--format", "json")
	var page struct {
		Request struct {
			Tree json.RawMessage `json:"tree"`
		} `json:"request"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &page); r.code != 0 || err != nil {
		t.Fatalf("decode --format json --values json: exit %d, %v\n%s", r.code, err, r.stderr)
	}
	if !bytes.Contains(page.Request.Tree, []byte(`"value_encoding": "json"`)) || !strings.Contains(r.stdout, `"text": "{\"a\":1} (varint len=8)"`) {
		t.Errorf("decode --format json --values json:\n%s", r.stdout)
	}
	// show's pages have a records field with an empty batch: unchanged.
	if a, b := mustRun(t, "show", "Produce"), mustRun(t, "show", "Produce", "--values", "hex"); a != b {
		t.Error("show Produce differs with --values hex")
	}
}

// produceV3 frames a ProduceRequest v3 of one partition holding records.
func produceV3(recs []byte) []byte {
	str := func(b []byte, s string) []byte {
		return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...)
	}
	m := binary.BigEndian.AppendUint16(nil, 0)
	m = binary.BigEndian.AppendUint16(m, 3)
	m = binary.BigEndian.AppendUint32(m, 7)
	m = str(m, "cli")
	m = binary.BigEndian.AppendUint16(m, 0xffff)
	m = binary.BigEndian.AppendUint16(m, 1)
	m = binary.BigEndian.AppendUint32(m, 1000)
	m = binary.BigEndian.AppendUint32(m, 1)
	m = str(m, "topic")
	m = binary.BigEndian.AppendUint32(m, 1)
	m = binary.BigEndian.AppendUint32(m, 0)
	m = binary.BigEndian.AppendUint32(m, uint32(len(recs)))
	m = append(m, recs...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(m))), m...)
}

// A file read a window at a time lists and reports exactly what a decode
// of the whole file does.
func TestLogWindowsMatchTheWholeFile(t *testing.T) {
	seg := testseg.Mixed()

	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	whole := kwire(t, "log", path)
	wholeJSON := kwire(t, "log", path, "--format", "json")
	if whole.code != 1 || !strings.Contains(whole.stderr, "CRC") || !strings.Contains(whole.stderr, "(decompressed v0x") || !strings.HasSuffix(whole.stderr, "\n"+path+": error: 00000000000000000000.log[12] at 0x05a1: batchLength -16 is negative: 12 bytes skipped from 0x05a1 to 0x05ad\n"+
		path+": error: 00000000000000000000.log[13] at 0x05ea: unknown magic -91 (Kafka knows 0, 1 and 2): 300 bytes skipped from 0x05ea to 0x0716\n"+
		path+": notice: 00000000000000000000.log[14] at 0x0753: 40 zero bytes from 0x0753 to the end\n"+
		"kwire: 9 problems in the records (above)\n") || !strings.HasSuffix(whole.stdout, "batch 100  records 0  attributes 0x0000  epoch 0  magic 2  CRC valid\nbatch 200  records 0  attributes 0x0000  epoch 0  magic 2  CRC valid\n") {
		t.Fatalf("whole file: exit %d\n%s\n%s", whole.code, whole.stdout, whole.stderr)
	}
	defer func(w int) { logWindow = w }(logWindow)
	for _, w := range []int{1, 100, 200, 1000} {
		logWindow = w
		if got := kwire(t, "log", path); got != whole {
			t.Errorf("window %d:\n%s\n%s\nwant\n%s\n%s", w, got.stdout, got.stderr, whole.stdout, whole.stderr)
		}
		if got := kwire(t, "log", path, "--format", "json"); got != wholeJSON {
			t.Errorf("window %d, json:\n%s\nwant\n%s", w, got.stdout, wholeJSON.stdout)
		}
	}
}

func TestLogDirectoryWalk(t *testing.T) {
	root := t.TempDir()
	write := func(rel string, base int64) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b := records.Batch{BaseOffset: base, Records: []records.KeyValue{{Value: []byte("x")}}}.Bytes()
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("t-10/00000000000000000000.log", 0)
	write("t-2/00000000000000000100.log", 100)
	write("t-2/00000000000000000000.log", 0)
	write("t-2/00000000000000000000.index", 0)
	write("t-2/00000000000000000000.log.deleted", 0)
	write("a-0/00000000000000000000.log", 0)
	write("t-2/nested-1/00000000000000000007.log", 7)
	write("00000000000000000003.log", 3)
	write("meta.properties", 0)
	out := mustRun(t, "log", root, "--format", "json")
	var files []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct{ File string }
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		files = append(files, strings.TrimPrefix(e.File, root+string(filepath.Separator)))
	}
	want := []string{
		"00000000000000000003.log",
		"a-0/00000000000000000000.log",
		"t-2/00000000000000000000.log",
		"t-2/00000000000000000100.log",
		"t-2/nested-1/00000000000000000007.log",
		"t-10/00000000000000000000.log",
	}
	for k := range want {
		want[k] = filepath.FromSlash(want[k])
	}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("files %q, want %q", files, want)
	}
}

func TestLogProgressOnlyOnATerminal(t *testing.T) {
	seg, _, _ := logFixtures(t)
	defer func(m int64) { progressMin = m }(progressMin)
	progressMin = 1 // every input is large
	plain := kwire(t, "log", seg)
	if plain.code != 0 || plain.stderr != "" {
		t.Fatalf("stderr not a terminal: exit %d, stderr %q", plain.code, plain.stderr)
	}
	// Standard error a file that is not a terminal: no bar either.
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"log", seg}, &env{stdin: strings.NewReader(""), stdout: &out, stderr: f, getenv: func(string) string { return "" }}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	f.Close()
	if b, _ := os.ReadFile(f.Name()); len(b) != 0 || out.String() != plain.stdout {
		t.Errorf("stderr file holds %q", b)
	}
	// On a terminal (pretended), the bar is drawn on stderr and stdout is
	// the same.
	defer func(f func(w io.Writer) bool) { stderrTerminal = f }(stderrTerminal)
	stderrTerminal = func(io.Writer) bool { return true }
	defer func(w int) { logWindow = w }(logWindow)
	logWindow = 100 // the first batch, then the second: the bar shows 36% and is cleared at the end
	term := kwire(t, "log", seg)
	if term.stdout != plain.stdout || !strings.Contains(term.stderr, "reading") || !strings.Contains(term.stderr, " 36% |") || !strings.HasSuffix(term.stderr, "\r") {
		t.Errorf("terminal: stdout same %v, stderr %q", term.stdout == plain.stdout, term.stderr)
	}
	progressMin = 1 << 40
	if small := kwire(t, "log", seg); small.stderr != "" {
		t.Errorf("small input on a terminal: stderr %q", small.stderr)
	}
}
