package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
	"github.com/kwire/kwire/spec/lint"
)

type lintCmd struct {
	Paths  []string `arg:"" optional:"" name:"path" help:"Spec files (drafts copied from a KIP page too), directories or .jar/.zip archives; without one, the --specs path or the embedded release of --kafka."`
	Format string   `help:"Output format: text (file:line:col: severity: message [rule]) or json (an array of problems, with their fixes)." enum:"text,json" default:"text"`
	Fix    bool     `help:"Also write a copy of each file with the unambiguous fixes applied, to FILE.fixed or --out, and say what changed."`
	Out    string   `help:"With --fix and one file: write the fixed copy here." placeholder:"FILE"`
}

// lintInput is one thing to lint: the files of a path or of a release.
type lintInput struct {
	name  string
	files []bundle.File
	whole bool // a directory, archive or release: the rules across files apply
	fixOK bool // --fix may write next to its files
}

func (a *app) lint(c *lintCmd) error {
	inputs, err := a.lintInputs(c)
	if err != nil {
		return err
	}
	if c.Out != "" && !c.Fix {
		return usagef("--out needs --fix")
	}
	if c.Fix {
		for _, in := range inputs {
			if !in.fixOK {
				return usagef("--fix writes fixed copies of files and of a directory's files, not of %s", in.name)
			}
		}
		if c.Out != "" && (len(inputs) != 1 || len(inputs[0].files) != 1 || inputs[0].whole) {
			return usagef("--out names one fixed copy: give one file")
		}
	}
	var problems spec.ErrorList
	var rows []lintJSON
	var fixLines []string
	for _, in := range inputs {
		r := lint.Check(in.files, in.whole)
		problems = append(problems, r.Problems...)
		applied := map[*spec.Error]bool{}
		if c.Fix {
			for _, f := range r.Files {
				lines, done, err := a.writeFixed(c, f)
				if err != nil {
					return err
				}
				fixLines = append(fixLines, lines...)
				for _, x := range done {
					applied[x.Problem] = true
				}
			}
			// Say which errors --fix left alone, so that a run that
			// writes nothing does not pass for one that had nothing to do.
			for _, p := range r.Problems.Errors() {
				if !applied[p] {
					fixLines = append(fixLines, fmt.Sprintf("%s: no automatic fix for this error [%s]: edit the file", p.Pos, p.Rule))
				}
			}
		}
		if c.Format == "json" {
			fixOf := map[*spec.Error]*spec.Fix{}
			for _, f := range r.Files {
				for _, x := range f.Fixes {
					fixOf[x.Problem] = x
				}
			}
			for _, p := range r.Problems {
				rows = append(rows, lintRow(p, fixOf[p], applied[p], r))
			}
		}
	}
	if c.Format == "json" {
		if rows == nil {
			rows = []lintJSON{}
		}
		b, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%s\n", b)
		for _, l := range fixLines {
			fmt.Fprintln(a.stderr, l)
		}
	} else {
		for _, p := range problems {
			fmt.Fprintln(a.stdout, p)
		}
		for _, l := range fixLines {
			fmt.Fprintln(a.stdout, l)
		}
	}
	nerr := len(problems.Errors())
	summary := fmt.Sprintf("lint: %s, %s", lintCount(nerr, "error", "errors"), lintCount(len(problems)-nerr, "warning", "warnings"))
	if nerr > 0 {
		return fmt.Errorf("%s", summary) // exit 1
	}
	fmt.Fprintf(a.stderr, "kwire: %s\n", summary)
	return nil
}

func lintCount(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, plural(n, one, many))
}

// lintInputs resolves what to lint: the paths, or --specs, or the embedded
// release of --kafka (the newest by default).
func (a *app) lintInputs(c *lintCmd) ([]lintInput, error) {
	paths := c.Paths
	if len(paths) > 0 && a.cli.Specs != "" {
		return nil, usagef("--specs and paths both name what to lint: give one")
	}
	if len(paths) > 0 && a.cli.Kafka != "" {
		return nil, usagef("--kafka and paths both name what to lint: give one")
	}
	if len(paths) == 0 && a.cli.Specs != "" {
		paths = []string{a.cli.Specs}
	}
	if len(paths) == 0 {
		r, err := bundle.Load(a.cli.Kafka)
		if err != nil {
			return nil, usageError{Err: err}
		}
		return []lintInput{{name: "embedded Kafka " + r.Version, files: r.Files, whole: true}}, nil
	}
	var out []lintInput
	for _, p := range paths {
		files, err := bundle.ReadPath(p)
		if err != nil {
			return nil, err
		}
		info, _ := os.Stat(p)
		dir := info != nil && info.IsDir()
		archive := !dir && (hasSuffixFold(p, ".jar") || hasSuffixFold(p, ".zip"))
		out = append(out, lintInput{name: p, files: files, whole: dir || archive, fixOK: !archive})
	}
	return out, nil
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// writeFixed writes the fixed copy of one file, when it has fixes and
// they do not make it worse, and returns a line for each change and one
// for the copy, and the fixes made.
func (a *app) writeFixed(c *lintCmd, f *lint.File) ([]string, []*spec.Fix, error) {
	if len(f.Fixes) == 0 && c.Out != "" {
		return []string{fmt.Sprintf("%s: nothing to fix: no copy written to %s", f.Name, c.Out)}, nil, nil
	} else if len(f.Fixes) == 0 {
		return nil, nil, nil
	}
	out := c.Out
	if out == "" {
		out = filepath.Join(f.File.Source, filepath.FromSlash(f.File.Path))
		if info, err := os.Stat(f.File.Source); err == nil && !info.IsDir() {
			out = f.File.Source
		}
		out += ".fixed"
	}
	fixed := f.Fixed(out)
	if fixed.Worse != "" {
		return []string{fmt.Sprintf("%s: not fixed, no copy written to %s: %s", f.Name, out, fixed.Worse)}, nil, nil
	}
	var lines []string
	for _, x := range fixed.Done {
		lines = append(lines, fmt.Sprintf("%s: fixed: %s [%s]", x.Pos, x.Desc, x.Rule))
	}
	if err := os.WriteFile(out, fixed.Data, 0o644); err != nil {
		return nil, nil, err
	}
	nerr := len(fixed.Problems.Errors())
	lines = append(lines, fmt.Sprintf("wrote %s: %s; it has %s and %s", out, lintCount(len(fixed.Done), "fix", "fixes"), lintCount(nerr, "error", "errors"), lintCount(len(fixed.Problems)-nerr, "warning", "warnings")))
	return lines, fixed.Done, nil
}

// lintJSON is one problem of `kwire lint --format json`.
type lintJSON struct {
	File     string       `json:"file"`
	Line     int          `json:"line,omitempty"`
	Col      int          `json:"col,omitempty"`
	Severity string       `json:"severity"`
	Rule     string       `json:"rule"`
	Message  string       `json:"message"`
	Hint     string       `json:"hint,omitempty"`
	Fix      *lintFixJSON `json:"fix,omitempty"`
}

type lintFixJSON struct {
	Description string         `json:"description"`
	Edits       []lintEditJSON `json:"edits"`
	// Applied is true when --fix wrote the fixed copy with this fix.
	Applied bool `json:"applied,omitempty"`
}

// lintEditJSON replaces the text from line:col up to end_line:end_col
// (exclusive; the same position for an insertion) with new.
type lintEditJSON struct {
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	EndLine int    `json:"end_line"`
	EndCol  int    `json:"end_col"`
	New     string `json:"new"`
}

func lintRow(p *spec.Error, fix *spec.Fix, applied bool, r *lint.Report) lintJSON {
	row := lintJSON{File: p.Pos.File, Line: p.Pos.Line, Col: p.Pos.Col, Severity: p.Severity.String(), Rule: p.Rule, Message: p.Msg, Hint: p.Hint}
	if fix == nil {
		return row
	}
	var data []byte
	for _, f := range r.Files {
		if f.Name == p.Pos.File {
			data = f.File.Data
		}
	}
	fj := &lintFixJSON{Description: fix.Desc, Applied: applied}
	for _, e := range fix.Edits {
		l, c := lineCol(data, e.Off)
		el, ec := lineCol(data, e.End)
		fj.Edits = append(fj.Edits, lintEditJSON{Line: l, Col: c, EndLine: el, EndCol: ec, New: e.New})
	}
	row.Fix = fj
	return row
}

// lineCol is the 1-based line and byte column of offset off of data.
func lineCol(data []byte, off int) (int, int) {
	line, start := 1, 0
	for i := 0; i < off && i < len(data); i++ {
		if data[i] == '\n' {
			line, start = line+1, i+1
		}
	}
	return line, off - start + 1
}
