package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/coordstate"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/internal/progress"
	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/render"
	lines "github.com/kwire/kwire/report"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

type logCmd struct {
	Paths    []string `arg:"" help:"Log segments (*.log), KRaft snapshots (*.checkpoint), directories holding them, or - (a segment on standard input)."`
	Type     string   `help:"Show only metadata records of this type (PartitionRecord), or internal topics' records whose key or value is (OffsetCommitKey)." placeholder:"NAME" predictor:"record"`
	Offset   string   `help:"Show only records with offsets in A..B (inclusive; either end may be empty)." placeholder:"A..B"`
	Format   string   `help:"Output format: text, or json (one line per record and per problem)." enum:"text,json" default:"text"`
	Tree     bool     `help:"Print the full tree of each file instead of one line per batch and record (with --format json, one line a file: {\"type\":\"tree\",\"file\":…,\"page\":…})."`
	Metadata bool     `help:"Decode data record values as KRaft metadata records (the default for __cluster_metadata and .checkpoint files)."`
	Decoder  string   `help:"Decode every data record as: offsets (__consumer_offsets), transactions (__transaction_state), share-state (__share_group_state), remote-log-metadata, metadata; by default as the partition directory's name says." placeholder:"KIND" predictor:"decoder"`
	State    bool     `help:"Replay the records of internal topics and print the state they leave: committed offsets, groups and members, transactions, share-group state (tables, or JSON lines)."`
	// MaxDecompressed bounds each compressed record payload (bytes).
	MaxDecompressed int64 `help:"Most bytes one compressed record batch may expand to." default:"268435456" placeholder:"BYTES"`
	// MaxDecompressedTotal bounds the compressed payloads of one file
	// together (bytes); nil: logMaxDecompressedTotal, or with --tree
	// records.DefaultMaxView (the tree holds them).
	MaxDecompressedTotal *int64 `help:"Most bytes the compressed record batches of one file may expand to together; past it batches are reported, not decompressed (default: 1073741824; with --tree 33554432, since the tree shown holds them)." placeholder:"BYTES"`
	// MaxTreeBytes bounds the bytes of a file that --tree holds.
	MaxTreeBytes int64 `help:"With --tree: most bytes of one file the tree shows (it holds them); past them, the tree ends at the last whole batch within them, and a notice says so." default:"33554432" placeholder:"BYTES"`
	// MaxNodes bounds the nodes of a file's tree (--tree), and of a
	// legacy wrapper's inner messages (held whole).
	MaxNodes int `help:"Most nodes (16 bytes each) the records of one file may make in the tree shown (--tree), and the inner messages of one legacy compressed message (read whole); past it the rest is reported, not decoded." default:"524288" placeholder:"N"`
	// MaxRecords bounds the records of one compressed batch.
	MaxRecords int64 `help:"Most records one compressed record batch may hold (0: 8 Ki and 2 a byte of its compressed records; more are reported as a bomb, not listed)." default:"0" placeholder:"N"`
	// MaxRecordBytes bounds one record of a large compressed batch.
	MaxRecordBytes int64 `help:"Most bytes one record of a compressed record batch that expands to more than 8 MiB may take to be decoded (it is held whole); a longer record is reported and its bytes are not listed." default:"16777216" placeholder:"BYTES"`
}

// logMaxDecompressedTotal is what the compressed batches of one file
// may expand to together by default when they are listed (bytes): a
// window's views are held at a time, not the file's.
const logMaxDecompressedTotal = 1 << 30

// logWindow is the window logseg.Read reads files with. A variable for
// tests.
var logWindow = logseg.DefaultWindow

func (a *app) log(c *logCmd) error {
	if c.MaxDecompressed <= 0 {
		return usagef("--max-decompressed %d: must be positive", c.MaxDecompressed)
	}
	total := int64(logMaxDecompressedTotal)
	if c.Tree {
		total = records.DefaultMaxView
	}
	if c.MaxDecompressedTotal != nil {
		if total = *c.MaxDecompressedTotal; total <= 0 {
			return usagef("--max-decompressed-total %d: must be positive", total)
		}
	}
	if c.MaxNodes <= 0 {
		return usagef("--max-nodes %d: must be positive", c.MaxNodes)
	}
	if c.MaxTreeBytes <= 0 {
		return usagef("--max-tree-bytes %d: must be positive", c.MaxTreeBytes)
	}
	if c.MaxRecordBytes <= 0 {
		return usagef("--max-record-bytes %d: must be positive", c.MaxRecordBytes)
	}
	if c.MaxRecords < 0 {
		return usagef("--max-records %d: must not be negative", c.MaxRecords)
	}
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	rng, err := logseg.ParseOffsetRange(c.Offset)
	if err != nil {
		return usagef("--offset %v", err)
	}
	if c.Type != "" {
		if m := set.Message(c.Type); m == nil || m.Type != spec.Metadata && m.Topic == "" {
			return a.notLoaded(fmt.Errorf("--type %s: no metadata or internal topic record type of that name in %s", c.Type, render.SetName(set)))
		}
	}
	values, err := render.ParseValues(a.cli.Values)
	if err != nil {
		return usageError{Err: err}
	}
	if ds := logseg.Decoders(); c.Decoder != "" && !slices.Contains(ds, c.Decoder) {
		return usagef("--decoder must be one of %s but got %q", strings.Join(ds, ", "), c.Decoder)
	}
	if c.Metadata && c.Decoder != "" && c.Decoder != "metadata" {
		return usagef("--metadata and --decoder %s: choose one", c.Decoder)
	}
	if c.State && (c.Tree || c.Type != "" || c.Offset != "") {
		return usagef("--state replays every record: not with --tree, --type or --offset")
	}
	srcs, err := logseg.Expand(c.Paths)
	if err != nil {
		return err
	}
	var files []string
	stdin := 0
	for _, s := range srcs {
		files = append(files, s.Files...)
		if s.Path == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usagef("- (standard input) may be named once")
	}
	for _, f := range files {
		if err := otherCommandsFile(f, "a log segment or snapshot"); err != nil {
			return err
		}
	}
	cd := codec.New(set)
	o := logseg.Options{Codec: cd, MaxDecompressed: c.MaxDecompressed, MaxDecompressedTotal: total, MaxNodes: c.MaxNodes, MaxTreeBytes: c.MaxTreeBytes, MaxRecords: c.MaxRecords, MaxRecordBytes: c.MaxRecordBytes, Metadata: c.Metadata, Decoder: c.Decoder, Window: logWindow, Stdin: a.stdin, ShowSecrets: a.cli.ShowSecrets,
		Lazy: !c.Tree} // the listing reads records' fields; only --tree shows the tree
	var state *coordstate.State
	if c.State {
		state = new(coordstate.State)
	}
	prog := a.logProgress(files)
	defer prog.Done()
	failed := 0
	// report prints problems: on standard error in text, as JSON lines
	// among the records in json.
	report := func(path string, ps []logseg.Problem) error {
		var buf []byte
		for _, p := range ps {
			kind := "error"
			if p.Notice {
				kind = "notice"
			} else {
				failed++
			}
			if c.Format == "json" {
				buf = p.AppendJSON(buf, path)
			} else {
				fmt.Fprintf(prog.Output(a.stderr), "%s: %s: %s\n", path, kind, p)
			}
		}
		_, err := prog.Output(a.stdout).Write(buf)
		return err
	}
	lister := logseg.Lister{JSON: c.Format == "json", Type: c.Type, Values: values}
	if c.Offset != "" {
		lister.Offsets = &rng
	}
	for _, s := range srcs {
		batches := 0
		for _, f := range s.Files {
			// Several files in text: a line naming each before its first
			// line, since offsets start again in each segment and snapshot
			// (JSON lines carry "file").
			header := ""
			if len(files) > 1 && c.Format != "json" {
				header = "== " + f + "\n"
			}
			var sum logseg.Summary
			if c.Tree {
				var t *tree.Tree
				if t, sum, err = logseg.ReadWhole(f, o); err != nil {
					return err
				}
				prog.Add(sum.Size)
				switch {
				case t != nil && c.Format == "json":
					// One line a file, among the problems' lines: type
					// "tree", the file, and its page JSON.
					page := &render.Page{Set: set, Sides: []render.Side{{Label: "Records", Tree: t}}}
					out := prog.Output(a.stdout)
					name, _ := json.Marshal(f)
					if _, err := fmt.Fprintf(out, `{"type":"tree","file":%s,"page":`, name); err != nil {
						return err
					}
					if err := lines.WriteCompact(out, func(w io.Writer) error { return render.WriteJSONWith(w, page, a.renderOptions(), nil) }); err != nil {
						return err
					}
					if _, err := io.WriteString(out, "}\n"); err != nil {
						return err
					}
				case t != nil:
					io.WriteString(prog.Output(a.stdout), header)
					if err := render.WriteTree(prog.Output(a.stdout), t, a.renderOptions()); err != nil {
						return err
					}
				}
			} else {
				// The parts of a window have its bytes: counted once.
				var done int64
				if sum, err = logseg.Read(f, o, func(w *logseg.Window) error {
					if end := w.Off + int64(len(w.Tree.Bytes)); end > done {
						prog.Add(end - done)
						done = end
					}
					if state != nil {
						state.AddBatches(f, w.Tree, w.Batches)
						return nil
					}
					return lister.Window(w, &header, prog.Output(a.stdout))
				}); err != nil {
					return err
				}
			}
			if err != nil {
				return err
			}
			batches += sum.Batches
			failed += sum.MoreErrors // problems past logseg.MaxProblems, not listed
			if err := report(f, sum.Findings(s.Dir)); err != nil {
				return err
			}
		}
		if err := report(s.Path, s.Findings(batches)); err != nil {
			return err
		}
	}
	if state != nil {
		var out []byte
		if c.Format == "json" {
			out = state.AppendJSON(nil)
		} else {
			out = state.AppendText(nil)
		}
		if _, err := prog.Output(a.stdout).Write(out); err != nil {
			return err
		}
	}
	if (c.Offset != "" || c.Type != "") && !c.Tree && state == nil && lister.Kept == 0 {
		// An empty listing is not a silent one: say what was read.
		var filters []string
		if c.Offset != "" {
			filters = append(filters, "--offset "+c.Offset)
		}
		if c.Type != "" {
			filters = append(filters, "--type "+c.Type)
		}
		read := "no records were read"
		if lister.Read > 0 {
			read = fmt.Sprintf("the %d %s read have offsets %d..%d", lister.Read, plural(int(lister.Read), "record", "records"), lister.First, lister.Last)
		}
		fmt.Fprintf(a.stderr, "kwire: note: no record matched %s: %s\n", strings.Join(filters, " "), read)
	}
	if failed > 0 {
		return fmt.Errorf("%d %s in the records %s", failed, plural(failed, "problem", "problems"), problemsWhere(c.Format))
	}
	return nil
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

// logProgress starts the progress bar for reading files, when their total
// size is at least progressMin and standard error is a terminal; else nil
// (no bar).
func (a *app) logProgress(files []string) *progress.Bar {
	if !stderrTerminal(a.stderr) {
		return nil
	}
	var total int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && f != "-" {
			total += fi.Size()
		}
	}
	if total < progressMin {
		return nil
	}
	return progress.New(a.stderr, total, a.terminal)
}

// otherCommandsFile returns an error saying which command reads the file
// at path when its first bytes are a format that another command reads
// (frame.RecognizeFile), expected saying what this command reads; nil
// when they are not, or the file cannot be read (the command then says
// why), or path is "-".
func otherCommandsFile(path, expected string) error {
	if path == "-" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, 17)
	n, _ := io.ReadFull(f, head)
	if ff := frame.RecognizeFile(head[:n]); ff != frame.UnknownFile && ff.Command() != "log" {
		return errors.New(ff.Hint(path, expected))
	}
	return nil
}
