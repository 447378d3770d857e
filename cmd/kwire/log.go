package main

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

type logCmd struct {
	Paths    []string `arg:"" help:"Log segments (*.log), KRaft snapshots (*.checkpoint) or directories holding them."`
	Type     string   `help:"Show only metadata records of this type (PartitionRecord)." placeholder:"NAME"`
	Offset   string   `help:"Show only records with offsets in A..B (inclusive; either end may be empty)." placeholder:"A..B"`
	Format   string   `help:"Output format: text, or json (one line per record)." enum:"text,json" default:"text"`
	Tree     bool     `help:"Print the full tree of each file instead of one line per batch and record."`
	Metadata bool     `help:"Decode data record values as KRaft metadata records (the default for __cluster_metadata and .checkpoint files)."`
	// MaxDecompressed bounds each compressed record payload (bytes).
	MaxDecompressed int64 `help:"Most bytes one compressed record batch may expand to." default:"268435456" placeholder:"BYTES"`
}

// offsetRange is an inclusive range of offsets.
type offsetRange struct{ lo, hi int64 }

func parseOffsetRange(s string) (offsetRange, error) {
	r := offsetRange{lo: -1 << 63, hi: 1<<63 - 1}
	if s == "" {
		return r, nil
	}
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		return r, usagef("--offset %q: want A..B", s)
	}
	var err error
	if a != "" {
		if r.lo, err = strconv.ParseInt(a, 10, 64); err != nil {
			return r, usagef("--offset %q: %q is not an offset", s, a)
		}
	}
	if b != "" {
		if r.hi, err = strconv.ParseInt(b, 10, 64); err != nil {
			return r, usagef("--offset %q: %q is not an offset", s, b)
		}
	}
	if r.lo > r.hi {
		return r, usagef("--offset %q: the range is empty (%d > %d)", s, r.lo, r.hi)
	}
	return r, nil
}

func (r offsetRange) has(o int64) bool { return o >= r.lo && o <= r.hi }

// logFiles expands the paths: a directory gives its *.log and *.checkpoint
// files, in the order of their base offsets (Kafka names them by their
// zero-padded base or end offset, so name order is offset order), then
// those of its subdirectories, walked the same way, partition directories
// ("topic-2") in the order of topic and partition number ("t-2" before
// "t-10"). Symbolic links to directories are not followed inside a walk.
func logFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		if out, err = walkLogDir(p, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// walkLogDir appends the log files of dir and of its subdirectories to
// out (see logFiles).
func walkLogDir(dir string, out []string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names, dirs []string
	for _, e := range ents {
		switch n := e.Name(); {
		case e.IsDir():
			dirs = append(dirs, n)
		case e.Type().IsRegular() && (strings.HasSuffix(n, ".log") || strings.HasSuffix(n, ".checkpoint")):
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, filepath.Join(dir, n))
	}
	sort.Slice(dirs, func(i, j int) bool { return partitionLess(dirs[i], dirs[j]) })
	for _, d := range dirs {
		if out, err = walkLogDir(filepath.Join(dir, d), out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// partitionLess orders directory names as partition directories: by topic,
// then by partition number ("orders-2" before "orders-10"); names that do
// not end in "-N" by name.
func partitionLess(a, b string) bool {
	ta, pa, oka := splitPartition(a)
	tb, pb, okb := splitPartition(b)
	if oka && okb && ta == tb {
		return pa < pb
	}
	if oka && okb {
		return ta < tb
	}
	return a < b
}

// splitPartition splits a partition directory name "topic-N".
func splitPartition(name string) (topic string, partition int64, ok bool) {
	k := strings.LastIndexByte(name, '-')
	if k < 0 {
		return "", 0, false
	}
	n, err := strconv.ParseInt(name[k+1:], 10, 32)
	if err != nil || n < 0 {
		return "", 0, false
	}
	return name[:k], n, true
}

// isMetadataLog says whether a file holds KRaft metadata records.
func isMetadataLog(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return strings.HasSuffix(path, ".checkpoint") || strings.Contains(filepath.Dir(abs), "__cluster_metadata")
}

func (a *app) log(c *logCmd) error {
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	rng, err := parseOffsetRange(c.Offset)
	if err != nil {
		return err
	}
	if c.Type != "" {
		if m := set.Message(c.Type); m == nil || m.Type != spec.Metadata {
			return a.notLoaded(fmt.Errorf("--type %s: no metadata record type of that name in %s", c.Type, describe(set)))
		}
	}
	files, err := logFiles(c.Paths)
	if err != nil {
		return err
	}
	values, err := render.ParseValues(a.cli.Values)
	if err != nil {
		return usageError{err}
	}
	cd := codec.New(set)
	prog := a.logProgress(files)
	defer prog.done()
	failed := 0
	for _, f := range files {
		// Several files in text: a line naming each, since offsets start
		// again in each segment and snapshot (JSON lines carry "file").
		if len(files) > 1 && c.Format != "json" {
			fmt.Fprintf(prog.output(a.stdout), "== %s\n", f)
		}
		o := cd.RecordsOptions()
		o.MaxDecompressed = c.MaxDecompressed
		o.Metadata = c.Metadata || isMetadataLog(f)
		o.Path = filepath.Base(f)
		var problems []logProblem
		if c.Tree {
			// One tree of the whole file.
			data, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			t := records.Decode(data, o)
			prog.add(int64(len(data)))
			if err := render.WriteTree(prog.output(a.stdout), t, a.renderOptions()); err != nil {
				return err
			}
			for _, p := range t.Problems {
				problems = append(problems, logProblem{p, int64(p.Off)})
			}
		} else {
			var err error
			problems, err = a.logFile(cd, f, o, c, rng, values, prog)
			if err != nil {
				return err
			}
		}
		for _, p := range problems {
			kind := "error"
			if p.Notice {
				kind = "notice"
			} else {
				failed++
			}
			fmt.Fprintf(prog.output(a.stderr), "%s: %s: %s\n", f, kind, p)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d problems in the records (above)", failed)
	}
	return nil
}

// logWindow is about the most bytes of a log file that `kwire log` reads
// and decodes at once, when not printing the whole tree: batches are
// independent, so a file is read a window of whole batches at a time (one
// batch larger than the window is read whole). A variable for tests.
var logWindow = 8 << 20

// logFile lists the batches and records of one file, reading it a window
// at a time, and returns its problems with the offsets and batch indexes
// they would have had in a decode of the whole file.
func (a *app) logFile(cd *codec.Codec, file string, o records.Options, c *logCmd, rng offsetRange, values render.Values, prog *progress) ([]logProblem, error) {
	fh, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	var (
		problems []logProblem
		buf      []byte
		off      int64
		batches  int
		virtual  int
	)
	for size := fi.Size(); off < size; {
		buf, err = nextLogWindow(fh, off, size, buf)
		if err != nil {
			return nil, err
		}
		t := records.Decode(buf, o)
		for _, p := range t.Problems {
			problems = append(problems, shiftProblem(p, o.Path, off, batches, virtual))
		}
		if err := a.logRecords(cd, file, t, o.Metadata, c, rng, values, prog.output(a.stdout)); err != nil {
			return nil, err
		}
		prog.add(int64(len(buf)))
		t.Children(0, func(k int32) bool {
			if t.Nodes[k].Kind == tree.RecordBatch {
				batches++
			}
			return true
		})
		virtual += len(t.Virtual)
		off += int64(len(buf))
	}
	return problems, nil
}

// nextLogWindow reads the log entries of file (size bytes) from off: as
// many whole entries (offset, length, then length bytes) as fit in
// logWindow bytes, at least one, or the rest of the file from an entry
// whose length is negative or goes past the end. buf is reused.
func nextLogWindow(f io.ReaderAt, off, size int64, buf []byte) ([]byte, error) {
	const overhead = 12 // baseOffset int64, length int32
	want := min(max(int64(logWindow), overhead), size-off)
	buf, err := readAt(f, buf, off, want)
	if err != nil {
		return nil, err
	}
	if want < overhead {
		// Less than a header left: the end of the file.
		return buf, nil
	}
	end := int64(0)
	for {
		if end+overhead > int64(len(buf)) {
			return buf[:end], nil
		}
		length := int64(int32(binary.BigEndian.Uint32(buf[end+8:])))
		total := overhead + length
		switch {
		case length < 0 || off+end+total > size:
			// The format cannot say where this entry ends: the decoder
			// takes the rest of the file as one entry, and so does the
			// window.
			return readAt(f, buf, off, size-off)
		case end+total <= int64(len(buf)):
			end += total
		case end > 0:
			return buf[:end], nil
		default:
			// One entry larger than the window.
			return readAt(f, buf, off, total)
		}
	}
}

// readAt reads n bytes of f at off into buf (grown as needed).
func readAt(f io.ReaderAt, buf []byte, off, n int64) ([]byte, error) {
	if int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := f.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, err
	}
	return buf, nil
}

// logProblem is a problem of a log file, at byte Off of the file (which
// may lie past the int32 offsets of a tree).
type logProblem struct {
	tree.Problem
	Off int64
}

func (p logProblem) String() string {
	if p.Off == int64(int32(p.Off)) {
		q := p.Problem
		q.Off = int32(p.Off)
		return q.String()
	}
	s := fmt.Sprintf("%s at 0x%x", cmp.Or(p.Path, "records"), p.Off)
	if p.VOff >= 0 {
		s += fmt.Sprintf(" (decompressed v0x%04x)", uint32(p.VOff))
	}
	return s + ": " + p.Msg
}

// shiftProblem places a problem of a window that starts at byte off of
// the file, after batches earlier entries and virtual decompressed bytes,
// as a decode of the whole file reports it: offsets moved, and the entry
// index after the path prefix ("x.log[3]…") counted from the file's start.
func shiftProblem(p tree.Problem, prefix string, off int64, batches, virtual int) logProblem {
	if p.VOff >= 0 {
		p.VOff += int32(virtual)
	}
	if rest, ok := strings.CutPrefix(p.Path, prefix+"["); ok {
		if k := strings.IndexByte(rest, ']'); k > 0 {
			if n, err := strconv.Atoi(rest[:k]); err == nil {
				p.Path = prefix + "[" + strconv.Itoa(n+batches) + rest[k:]
			}
		}
	}
	return logProblem{p, off + int64(p.Off)}
}

// logEntry is one JSON line of `kwire log --format json`.
type logEntry struct {
	File        string          `json:"file"`
	Offset      int64           `json:"offset"`
	BatchOffset int64           `json:"batch_offset"`
	Control     bool            `json:"control,omitempty"`
	Type        string          `json:"type,omitempty"`
	Version     *int16          `json:"version,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`
	Key         *string         `json:"key,omitempty"`
	KeyBase64   *string         `json:"key_base64,omitempty"`
	KeyHex      *string         `json:"key_hex,omitempty"`
	KeyJSON     json.RawMessage `json:"key_json,omitempty"`
	Value       *string         `json:"value,omitempty"`
	ValueBase64 *string         `json:"value_base64,omitempty"`
	ValueHex    *string         `json:"value_hex,omitempty"`
	ValueJSON   json.RawMessage `json:"value_json,omitempty"`
	Error       string          `json:"error,omitempty"`
}

// describeRecord decodes a record's value: a control record's message or
// a framed metadata record, as type, version and Kafka converter JSON.
// name is "" for a data record of another log.
func describeRecord(cd *codec.Codec, r records.LogRecord, control, metadata bool) (name string, version int16, data []byte, err error) {
	var m *spec.Message
	switch {
	case control:
		ct := r.ControlType()
		name = records.ControlTypeName(ct)
		if mn := records.ControlMessage(ct); mn != "" {
			m = cd.Set.Message(mn)
		}
		if m == nil || r.ValueNull {
			return name, 0, nil, nil
		}
	case metadata:
		if r.ValueNull {
			return "", 0, nil, errors.New("null value: not a metadata record")
		}
	default:
		return "", 0, nil, nil
	}
	vt, err := cd.DecodeRecord(r.Value, m, 0)
	if vt.Message != nil {
		name, version = vt.Message.Name, vt.Version
	}
	if err != nil {
		return name, version, nil, err
	}
	body := vt.Part(tree.Body)
	if body < 0 {
		body = 0
	}
	data, err = codec.ToJSON(nil, vt, body, vt.Message, vt.Version, codec.JSONOptions{})
	return name, version, data, err
}

func (a *app) logRecords(cd *codec.Codec, file string, t *tree.Tree, metadata bool, c *logCmd, rng offsetRange, values render.Values, w io.Writer) error {
	var out bytes.Buffer
	for _, b := range records.LogBatches(t) {
		if c.Format == "text" && c.Type == "" {
			crc := "valid"
			if !b.CRCValid {
				crc = "INVALID"
			}
			kind := ""
			if b.Control {
				kind = "  control"
			}
			fmt.Fprintf(&out, "batch %d  records %d  attributes 0x%04x  epoch %d  magic %d  CRC %s%s\n", b.BaseOffset, b.Count, b.Attributes, b.LeaderEpoch, b.Magic, crc, kind)
		}
		for _, r := range b.Records {
			if !rng.has(r.Offset) {
				continue
			}
			name, ver, data, err := describeRecord(cd, r, b.Control, metadata)
			if c.Type != "" && (b.Control || !strings.EqualFold(name, c.Type)) {
				continue
			}
			if c.Format == "json" {
				e := logEntry{File: file, Offset: r.Offset, BatchOffset: b.BaseOffset, Control: b.Control, Type: name, Data: data}
				if name != "" {
					e.Version = &ver
				}
				if err != nil {
					e.Error = err.Error()
				}
				if data == nil && !b.Control {
					e.Key, e.KeyBase64, e.KeyHex, e.KeyJSON = jsonBytes(r.Key, r.KeyNull, values)
					e.Value, e.ValueBase64, e.ValueHex, e.ValueJSON = jsonBytes(r.Value, r.ValueNull, values)
				}
				line, jerr := json.Marshal(e)
				if jerr != nil {
					return jerr
				}
				out.Write(line)
				out.WriteByte('\n')
				continue
			}
			fmt.Fprintf(&out, "  offset %d  ", r.Offset)
			switch {
			case err != nil:
				fmt.Fprintf(&out, "%s: %v", name, err)
			case name != "" && data != nil:
				fmt.Fprintf(&out, "%s v%d %s", name, ver, data)
			case name != "":
				fmt.Fprintf(&out, "%s", name)
			default:
				fmt.Fprintf(&out, "key %s  value %s", recordText(r.Key, r.KeyNull, values), recordText(r.Value, r.ValueNull, values))
			}
			out.WriteByte('\n')
		}
	}
	_, err := w.Write(out.Bytes())
	return err
}

// textOrBase64 gives b as text when it is valid UTF-8, else as base64.
func textOrBase64(b []byte, null bool) (text, b64 *string) {
	if null {
		return nil, nil
	}
	if utf8.Valid(b) {
		s := string(b)
		return &s, nil
	}
	s := base64.StdEncoding.EncodeToString(b)
	return nil, &s
}

// jsonBytes gives a data record's key or value for a JSON line, in the
// member --values chooses: auto, text when it is UTF-8 and base64 else
// ("key", "key_base64"); utf8, text whatever it holds (bytes that are not
// UTF-8 become U+FFFD); hex ("key_hex"); base64; json, the value itself
// when it parses as JSON ("key_json"), else as auto. Null gives none.
func jsonBytes(b []byte, null bool, v render.Values) (text, b64, hx *string, js json.RawMessage) {
	if null {
		return nil, nil, nil, nil
	}
	switch v {
	case render.ValuesUTF8:
		s := string(b)
		return &s, nil, nil, nil
	case render.ValuesHex:
		s := hex.EncodeToString(b)
		return nil, nil, &s, nil
	case render.ValuesBase64:
		s := base64.StdEncoding.EncodeToString(b)
		return nil, &s, nil, nil
	case render.ValuesJSON:
		if c := compactJSON(b); c != nil {
			return nil, nil, nil, c
		}
	}
	text, b64 = textOrBase64(b, false)
	return text, b64, nil, nil
}

// compactJSON is b without white space between its tokens when it is one
// JSON value, else nil.
func compactJSON(b []byte) []byte {
	var c bytes.Buffer
	if len(b) == 0 || json.Compact(&c, b) != nil {
		return nil
	}
	return c.Bytes()
}

// showBytes shows a key or value on a text line: quoted when it is UTF-8,
// else as hex.
func showBytes(b []byte, null bool) string {
	if null {
		return "null"
	}
	if utf8.Valid(b) {
		return strconv.Quote(string(b))
	}
	return "0x" + fmt.Sprintf("%x", b)
}

// recordText shows a data record's key or value on a text line as
// --values chooses: auto (showBytes), utf8 (quoted, \x escapes for bytes
// that are not UTF-8), hex ("0x…", "empty"), base64 ("base64:…",
// "empty"), json (compacted when it parses as JSON, else as auto followed
// by "(not JSON)").
func recordText(b []byte, null bool, v render.Values) string {
	if null {
		return "null"
	}
	switch v {
	case render.ValuesUTF8:
		return strconv.Quote(string(b))
	case render.ValuesHex:
		if len(b) == 0 {
			return "empty"
		}
		return "0x" + hex.EncodeToString(b)
	case render.ValuesBase64:
		if len(b) == 0 {
			return "empty"
		}
		return "base64:" + base64.StdEncoding.EncodeToString(b)
	case render.ValuesJSON:
		if c := compactJSON(b); c != nil {
			return string(c)
		}
		return showBytes(b, false) + " (not JSON)"
	}
	return showBytes(b, false)
}

// progressMin is the total size of the files from which `kwire log` shows
// a progress bar (on a terminal). A variable for tests.
var progressMin int64 = 64 << 20

// stderrTerminal reports whether w, kwire's standard error, is a terminal.
// A variable for tests.
var stderrTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress is the progress bar of `kwire log` on standard error, or
// nothing (a nil bar) when the input is small or standard error is not a
// terminal.
type progress struct {
	bar    *progressbar.ProgressBar
	stderr io.Writer
	// shared is set when stdout is a terminal too: the bar is cleared
	// before each write to either, and drawn again on the next add.
	shared bool
}

// logProgress starts the progress bar for reading files, when their total
// size is at least progressMin and standard error is a terminal.
func (a *app) logProgress(files []string) *progress {
	if !stderrTerminal(a.stderr) {
		return &progress{}
	}
	var total int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			total += fi.Size()
		}
	}
	if total < progressMin {
		return &progress{}
	}
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription("reading"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	return &progress{bar: bar, stderr: a.stderr, shared: a.terminal}
}

// add counts n more bytes read.
func (p *progress) add(n int64) {
	if p.bar != nil {
		p.bar.Add64(n)
	}
}

// output returns w, clearing the bar first when w is standard error or
// shares its terminal.
func (p *progress) output(w io.Writer) io.Writer {
	if p.bar != nil && (w == p.stderr || p.shared) {
		p.bar.Clear()
	}
	return w
}

// done removes the bar.
func (p *progress) done() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
