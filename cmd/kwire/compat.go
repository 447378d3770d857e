package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/kwire/kwire/internal/cli"
	"github.com/kwire/kwire/internal/hint"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
	"github.com/kwire/kwire/spec/evolve"
)

// compatCmd is `kwire compat OLD NEW`: the evolution rules between two
// sets of specs (see evolve.CompatRules).
type compatCmd struct {
	Old      string `arg:"" optional:"" help:"The old specs: a directory, a .jar/.zip, one spec file, or an embedded release (3.9, 4.4.0). Instead of OLD and NEW, --kafka and --specs may be given twice, old first."`
	New      string `arg:"" optional:"" help:"The new specs, as OLD."`
	Format   string `help:"Output format: text or json." enum:"text,json" default:"text"`
	Severity string `help:"Show findings of at least this severity: info (all), compatible, incompatible." enum:"info,compatible,incompatible" default:"info"`
	Common   bool   `help:"Compare only the messages both sides have (automatic when a side is a single spec file)."`

	// sources are the --kafka and --specs values of the command line in
	// order (kong keeps only the last of a repeated flag), set by
	// AfterApply.
	sources []source
	scanned bool
}

// diffCmd is `kwire diff --kafka A --kafka B`: one line per API or message
// whose versions or fields differ.
type diffCmd struct {
	Old    string `arg:"" optional:"" help:"The old specs: a directory, a .jar/.zip, one spec file, or an embedded release (3.9, 4.4.0). Instead of OLD and NEW, --kafka and --specs may be given twice, old first."`
	New    string `arg:"" optional:"" help:"The new specs, as OLD."`
	Format string `help:"Output format: text or json." enum:"text,json" default:"text"`
	Common bool   `help:"Compare only the messages both sides have (automatic when a side is a single spec file)."`

	sources []source
	scanned bool
}

// historyCmd is `kwire history NAME`: what each version of a message
// changed, with the spec's own comments.
type historyCmd struct {
	Name   string `arg:"" help:"An API (Vote, VoteRequest, vote, 52; shows its request and response) or a record or data type (PartitionRecord)." predictor:"message"`
	Format string `help:"Output format: text or json." enum:"text,json" default:"text"`
}

// source is one side of a comparison: an embedded release (Flag
// "kafka"), a path ("specs"), or an argument that is either ("arg").
type source = cli.FlagValue

// AfterApply collects every --kafka and --specs of the command line: the
// global flags keep only their last value.
func (c *compatCmd) AfterApply(ctx *kong.Context) error {
	c.sources, c.scanned = cli.FlagValues(ctx.Args, "kafka", "specs"), true
	return nil
}

// AfterApply collects every --kafka and --specs of the command line.
func (c *diffCmd) AfterApply(ctx *kong.Context) error {
	c.sources, c.scanned = cli.FlagValues(ctx.Args, "kafka", "specs"), true
	return nil
}

// sides returns the old and new sources: the flags' (in order), then the
// positional arguments; there must be two in all.
func (a *app) sides(scanned bool, flags []source, oldArg, newArg string) (source, source, error) {
	all := flags
	if !scanned { // called without kong's hook (tests): the flags kong kept
		all = nil
		if a.cli.Kafka != "" {
			all = append(all, source{Flag: "kafka", Value: a.cli.Kafka})
		}
		if a.cli.Specs != "" {
			all = append(all, source{Flag: "specs", Value: a.cli.Specs})
		}
	}
	for _, s := range []string{oldArg, newArg} {
		if s != "" {
			all = append(all, source{Flag: "arg", Value: s})
		}
	}
	if len(all) != 2 {
		var got []string
		for _, s := range all {
			got = append(got, s.String())
		}
		return source{}, source{}, usagef("give two sets of specs to compare, old then new: OLD NEW (paths or embedded releases), or --kafka/--specs twice (got %d: %s)", len(all), strings.Join(got, ", "))
	}
	return all[0], all[1], nil
}

// releaseLike reports whether s reads as a release number ("4.5", "3.9.1"):
// such a side that is not embedded is an unknown release (usage), as with
// --kafka; any other missing side is a missing path (a finding).
func releaseLike(s string) bool {
	return strings.Trim(s, "0123456789.") == "" && strings.Contains(s, ".")
}

// loadSource loads one side. Problems in spec files are printed to stderr
// and kept in a.problems. single reports a side that is one spec file.
func (a *app) loadSource(s source) (set *spec.Set, single bool, err error) {
	kind := s.Flag
	if kind == "arg" {
		if _, err := os.Stat(s.Value); err == nil {
			kind = "specs"
		} else if _, err := bundle.Load(s.Value); err == nil {
			kind = "kafka"
		} else if releaseLike(s.Value) {
			return nil, false, usagef("%q is neither a file or directory nor an embedded release (embedded: %s)", s.Value, strings.Join(bundle.Releases(), ", "))
		} else {
			return nil, false, fmt.Errorf("%s: no such file or directory, nor an embedded release (embedded: %s)", s.Value, strings.Join(bundle.Releases(), ", "))
		}
	}
	if kind == "kafka" {
		set, err := spec.Embedded(s.Value)
		if err != nil {
			return nil, false, usageError{Err: err}
		}
		return set, false, nil
	}
	set, problems, err := spec.FromPath(s.Value)
	if err != nil {
		return nil, false, err
	}
	for _, p := range problems {
		fmt.Fprintln(a.stderr, p)
	}
	a.problems = append(a.problems, problems...)
	if fi, err := os.Stat(s.Value); err == nil && !fi.IsDir() && strings.HasSuffix(strings.ToLower(s.Value), ".json") {
		single = true
	}
	return set, single, nil
}

// loadSide loads one side and refuses one without messages: it would
// compare as every message added or removed. That is a finding about the
// specs (exit 1), as when --specs files keep list's or show's messages from
// loading.
func (a *app) loadSide(side string, s source) (*spec.Set, bool, error) {
	before := len(a.problems.Errors())
	set, single, err := a.loadSource(s)
	if err != nil {
		return nil, false, fmt.Errorf("the %s specs: %w", side, err)
	} else if len(set.Messages) > 0 {
		return set, single, nil
	}
	why := "no spec loaded"
	if n := len(a.problems.Errors()) - before; n > 0 {
		why = fmt.Sprintf("%d spec %s above", n, plural(n, "error", "errors"))
	}
	return nil, false, fmt.Errorf("the %s specs, %s, hold no message (%s): nothing to compare", side, s, why)
}

// label names a side in output: "Kafka 3.9.1", or the path as given.
func label(s source, set *spec.Set) string {
	if set.Release != "" {
		return "Kafka " + set.Release
	}
	return s.Value
}

// compare loads both sides and compares them.
func (a *app) compare(scanned bool, flags []source, oldArg, newArg string, common bool) (*evolve.Comparison, error) {
	oldSrc, newSrc, err := a.sides(scanned, flags, oldArg, newArg)
	if err != nil {
		return nil, err
	}
	old, single1, err := a.loadSide("old", oldSrc)
	if err != nil {
		return nil, err
	}
	nw, single2, err := a.loadSide("new", newSrc)
	if err != nil {
		return nil, err
	}
	opt := evolve.CompatOptions{Common: common || single1 || single2, Skip: evolve.BorrowedHeaders(old, nw)}
	return evolve.Compare(old, nw, label(oldSrc, old), label(newSrc, nw), opt), nil
}

func (a *app) compat(c *compatCmd) error {
	cmp, err := a.compare(c.scanned, c.sources, c.Old, c.New, c.Common)
	if err != nil {
		return err
	}
	least, _ := evolve.ParseImpact(c.Severity)
	if c.Format == "json" {
		err = cmp.WriteJSON(a.stdout, least)
	} else {
		err = cmp.WriteText(a.stdout, least)
	}
	if err != nil {
		return err
	}
	// The incompatible findings (exit 1), and spec errors that left
	// messages out of the comparison.
	return errors.Join(cmp.Incompatible("--common"), a.missingFromComparison())
}

// missingFromComparison says that spec errors left messages out.
func (a *app) missingFromComparison() error {
	if n := len(a.problems.Errors()); n > 0 {
		return fmt.Errorf("%d spec %s above: the messages of the files that did not load are missing from the comparison", n, plural(n, "error", "errors"))
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (a *app) diff(c *diffCmd) error {
	cmp, err := a.compare(c.scanned, c.sources, c.Old, c.New, c.Common)
	if err != nil {
		return err
	}
	rows := evolve.Diff(cmp.Old, cmp.New, cmp.Findings)
	if c.Format == "json" {
		// The rows are a JSON array: the internal topics not compared
		// are said beside it.
		for _, l := range cmp.NotComparedLines() {
			fmt.Fprintf(a.stderr, "kwire: note: %s\n", l)
		}
		err = evolve.WriteDiffJSON(a.stdout, rows)
	} else {
		err = cmp.WriteDiffText(a.stdout, rows)
	}
	if err != nil {
		return err
	}
	return a.missingFromComparison()
}

func (a *app) history(c *historyCmd) error {
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	req, resp, err := render.Resolve(set, c.Name)
	if err != nil {
		return a.notLoaded(err)
	}
	hs := evolve.APIHistory(req, resp)
	if err := evolve.AddSpans(hs); err != nil {
		return err
	}
	if c.Format == "json" {
		err = evolve.WriteHistoryJSON(a.stdout, hs)
	} else {
		err = evolve.WriteHistoryText(a.stdout, render.SetName(set), hs, func(m *spec.Message) string { return hint.Removed(set, m) })
	}
	// An API without valid versions (removed) is still a full answer: the
	// history says so, names the release that has it, and exits 0.
	return err
}
