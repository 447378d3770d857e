package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/alecthomas/kong"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
)

// compatCmd is `kwire compat OLD NEW`: the evolution rules between two
// sets of specs (see spec.CompatRules).
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
	Name   string `arg:"" help:"An API (Vote, VoteRequest, vote, 52; shows its request and response) or a record or data type (PartitionRecord)."`
	Format string `help:"Output format: text or json." enum:"text,json" default:"text"`
}

// source is one side of a comparison: an embedded release (--kafka), a
// path (--specs), or an argument that is either.
type source struct {
	kind  string // "kafka", "specs" or "arg"
	value string
}

func (s source) String() string {
	if s.kind == "arg" {
		return s.value
	}
	return "--" + s.kind + " " + s.value
}

// AfterApply collects every --kafka and --specs of the command line: the
// global flags keep only their last value.
func (c *compatCmd) AfterApply(ctx *kong.Context) error {
	c.sources, c.scanned = scanSources(ctx.Args), true
	return nil
}

// AfterApply collects every --kafka and --specs of the command line.
func (c *diffCmd) AfterApply(ctx *kong.Context) error {
	c.sources, c.scanned = scanSources(ctx.Args), true
	return nil
}

// scanSources returns the values of --kafka and --specs in args, in order,
// in both the "--kafka 3.9" and the "--kafka=3.9" forms, up to "--".
func scanSources(args []string) []source {
	var out []source
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		for _, kind := range []string{"kafka", "specs"} {
			flag := "--" + kind
			switch {
			case a == flag && i+1 < len(args):
				out = append(out, source{kind, args[i+1]})
				i++
			case strings.HasPrefix(a, flag+"="):
				out = append(out, source{kind, a[len(flag)+1:]})
			}
		}
	}
	return out
}

// sides returns the old and new sources: the flags' (in order), then the
// positional arguments; there must be two in all.
func (a *app) sides(scanned bool, flags []source, oldArg, newArg string) (source, source, error) {
	all := flags
	if !scanned { // called without kong's hook (tests): the flags kong kept
		all = nil
		if a.cli.Kafka != "" {
			all = append(all, source{"kafka", a.cli.Kafka})
		}
		if a.cli.Specs != "" {
			all = append(all, source{"specs", a.cli.Specs})
		}
	}
	for _, s := range []string{oldArg, newArg} {
		if s != "" {
			all = append(all, source{"arg", s})
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

// loadSource loads one side. Problems in spec files are printed to stderr
// and kept in a.problems. single reports a side that is one spec file.
func (a *app) loadSource(s source) (set *spec.Set, single bool, err error) {
	kind := s.kind
	if kind == "arg" {
		if _, err := os.Stat(s.value); err == nil {
			kind = "specs"
		} else if _, err := bundle.Load(s.value); err == nil {
			kind = "kafka"
		} else {
			return nil, false, usagef("%q is neither a file or directory nor an embedded release (embedded: %s)", s.value, strings.Join(bundle.Releases(), ", "))
		}
	}
	if kind == "kafka" {
		set, err := spec.Embedded(s.value)
		if err != nil {
			return nil, false, usageError{err}
		}
		return set, false, nil
	}
	set, problems, err := spec.FromPath(s.value)
	if err != nil {
		return nil, false, err
	}
	for _, p := range problems {
		fmt.Fprintln(a.stderr, p)
	}
	a.problems = append(a.problems, problems...)
	if fi, err := os.Stat(s.value); err == nil && !fi.IsDir() && strings.HasSuffix(strings.ToLower(s.value), ".json") {
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
	if err != nil || len(set.Messages) > 0 {
		return set, single, err
	}
	why := "no spec loaded"
	if n := len(a.problems.Errors()) - before; n > 0 {
		why = fmt.Sprintf("%d spec %s above", n, plural(n, "error", "errors"))
	}
	return nil, false, fmt.Errorf("the %s specs, %s, hold no message (%s): nothing to compare", side, s, why)
}

// comparison is both sides, their labels ("Kafka 3.9.1" or the path as
// given) and spec.Compat's findings.
type comparison struct {
	old, new           *spec.Set
	oldLabel, newLabel string
	findings           []spec.Finding
}

// label names a side in output: "Kafka 3.9.1", or the path as given.
func label(s source, set *spec.Set) string {
	if set.Release != "" {
		return "Kafka " + set.Release
	}
	return s.value
}

func (a *app) compare(scanned bool, flags []source, oldArg, newArg string, common bool) (*comparison, error) {
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
	opt := spec.CompatOptions{Common: common || single1 || single2, Skip: borrowedHeaders(old, nw)}
	return &comparison{old, nw, label(oldSrc, old), label(newSrc, nw), spec.CompatWith(old, nw, opt)}, nil
}

// borrowedHeaders skips RequestHeader and ResponseHeader when a side loaded
// from a path borrowed them from the newest embedded release (see
// spec.FromPath): they are not part of what is compared.
func borrowedHeaders(sets ...*spec.Set) func(*spec.Message) bool {
	newest, err := spec.Embedded("")
	if err != nil {
		return nil
	}
	skip := map[string]bool{}
	for _, s := range sets {
		if s.Release != "" {
			continue
		}
		for _, name := range []string{"RequestHeader", "ResponseHeader"} {
			if m := s.Message(name); m != nil && m == newest.Message(name) {
				skip[name] = true
			}
		}
	}
	if len(skip) == 0 {
		return nil
	}
	return func(m *spec.Message) bool { return skip[m.Name] }
}

func (a *app) compat(c *compatCmd) error {
	cmp, err := a.compare(c.scanned, c.sources, c.Old, c.New, c.Common)
	if err != nil {
		return err
	}
	least, _ := spec.ParseImpact(c.Severity)
	if c.Format == "json" {
		err = writeCompatJSON(a.stdout, cmp, least)
	} else {
		err = writeCompatText(a.stdout, cmp, least)
	}
	if err != nil {
		return err
	}
	return a.compatStatus(cmp)
}

// compatStatus is the command's error: the incompatible findings (exit 1),
// or spec errors that left messages out of the comparison.
func (a *app) compatStatus(cmp *comparison) error {
	var errs []error
	if n := count(cmp.findings)[spec.Incompatible]; n > 0 {
		hint := ""
		if cmp.new.Release == "" && slices.ContainsFunc(cmp.findings, func(f spec.Finding) bool { return f.Rule == "message-removed" }) {
			hint = " (if the new specs hold only some messages, --common compares only the messages both sides have)"
		}
		errs = append(errs, fmt.Errorf("%d incompatible %s from %s to %s%s", n, plural(n, "change", "changes"), cmp.oldLabel, cmp.newLabel, hint))
	}
	if n := len(a.problems.Errors()); n > 0 {
		errs = append(errs, fmt.Errorf("%d spec errors above: the messages of the files that did not load are missing from the comparison", n))
	}
	return errors.Join(errs...)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func count(fs []spec.Finding) map[spec.Impact]int {
	n := map[spec.Impact]int{}
	for _, f := range fs {
		n[f.Severity]++
	}
	return n
}

// writeCompatText prints the findings at least as grave as least, one a
// line, and a summary line.
func writeCompatText(w io.Writer, cmp *comparison, least spec.Impact) error {
	fmt.Fprintf(w, "%s → %s\n", cmp.oldLabel, cmp.newLabel)
	disagree := 0
	for _, f := range cmp.findings {
		if f.KafkaNote() != "" {
			disagree++
		}
		if f.Severity <= least {
			fmt.Fprintln(w, f.String())
		}
	}
	n := count(cmp.findings)
	_, err := fmt.Fprintf(w, "%d incompatible, %d compatible, %d info; Kafka's own evolution checker would judge %d of them otherwise\n",
		n[spec.Incompatible], n[spec.CompatibleChange], n[spec.Info], disagree)
	return err
}

// findingJSON is a finding in `kwire compat --format json`.
type findingJSON struct {
	Message    string `json:"message"`
	OldMessage string `json:"old_message,omitempty"`
	Type       string `json:"type"`
	APIKey     *int16 `json:"api_key,omitempty"`
	Versions   string `json:"versions,omitempty"`
	Path       string `json:"path,omitempty"`
	Rule       string `json:"rule"`
	Severity   string `json:"severity"`
	Kafka      string `json:"kafka_checker,omitempty"`
	Msg        string `json:"msg"`
	OldPos     string `json:"old_pos,omitempty"`
	NewPos     string `json:"new_pos,omitempty"`
}

func toFindingJSON(f spec.Finding) findingJSON {
	j := findingJSON{Message: f.Message, OldMessage: f.OldMessage, Type: string(f.Type), Path: f.Path, Rule: f.Rule,
		Severity: f.Severity.String(), Kafka: f.Kafka, Msg: f.Msg}
	if f.APIKey >= 0 {
		k := f.APIKey
		j.APIKey = &k
	}
	if !f.Versions.Empty() {
		j.Versions = f.Versions.String()
	}
	if f.OldPos.File != "" {
		j.OldPos = f.OldPos.String()
	}
	if f.NewPos.File != "" {
		j.NewPos = f.NewPos.String()
	}
	return j
}

func writeCompatJSON(w io.Writer, cmp *comparison, least spec.Impact) error {
	out := struct {
		Old      string         `json:"old"`
		New      string         `json:"new"`
		Counts   map[string]int `json:"counts"`
		Findings []findingJSON  `json:"findings"`
	}{Old: cmp.old.Source, New: cmp.new.Source, Counts: map[string]int{}, Findings: []findingJSON{}}
	for _, i := range []spec.Impact{spec.Incompatible, spec.CompatibleChange, spec.Info} {
		out.Counts[i.String()] = count(cmp.findings)[i]
	}
	for _, f := range cmp.findings {
		if f.Severity <= least {
			out.Findings = append(out.Findings, toFindingJSON(f))
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func (a *app) diff(c *diffCmd) error {
	cmp, err := a.compare(c.scanned, c.sources, c.Old, c.New, c.Common)
	if err != nil {
		return err
	}
	rows := spec.Diff(cmp.old, cmp.new, cmp.findings)
	if c.Format == "json" {
		err = writeDiffJSON(a.stdout, rows)
	} else {
		err = writeDiffText(a.stdout, cmp, rows)
	}
	if err != nil {
		return err
	}
	if n := len(a.problems.Errors()); n > 0 {
		return fmt.Errorf("%d spec errors above: the messages of the files that did not load are missing from the comparison", n)
	}
	return nil
}

func rangesString(rs []spec.Versions) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ",")
}

// writeDiffText prints one line per API or message whose presence,
// versions or fields differ, and a summary.
func writeDiffText(w io.Writer, cmp *comparison, rows []spec.DiffRow) error {
	fmt.Fprintf(w, "%s → %s\n", cmp.oldLabel, cmp.newLabel)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tKEY\tNAME\tSTATUS\tVERSIONS\tREMOVED\tADDED\tCHANGED IN\tFINDINGS")
	status := map[string]int{}
	metaOnly := 0
	for _, r := range rows {
		if !r.Substantive() {
			metaOnly++
			continue
		}
		status[r.Status]++
		key := ""
		if r.APIKey >= 0 {
			key = strconv.Itoa(int(r.APIKey))
		}
		name := r.Name
		if r.OldName != "" {
			name += " (was " + r.OldName + ")"
		}
		var counts []string
		for _, c := range []struct {
			n    int
			what string
		}{{r.Incompatible, "incompatible"}, {r.Compatible, "compatible"}, {r.Info, "info"}} {
			if c.n > 0 {
				counts = append(counts, fmt.Sprintf("%d %s", c.n, c.what))
			}
		}
		dash := func(s string) string {
			if s == "" {
				return "-"
			}
			return s
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s → %s\t%s\t%s\t%s\t%s\n", r.Kind, dash(key), name, r.Status, r.OldVersions, r.NewVersions,
			dash(rangesString(r.Removed)), dash(rangesString(r.Added)), dash(rangesString(r.Changed)), strings.Join(counts, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var parts []string
	for _, s := range []string{"added", "removed", "renamed", "changed"} {
		parts = append(parts, fmt.Sprintf("%d %s", status[s], s))
	}
	line := strings.Join(parts, ", ")
	if metaOnly > 0 {
		line += fmt.Sprintf("; %d more differ only in listeners, deprecatedVersions or latestVersionUnstable (kwire compat lists them)", metaOnly)
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

// diffRowJSON is a row of `kwire diff --format json`.
type diffRowJSON struct {
	Kind         string   `json:"kind"`
	APIKey       *int16   `json:"api_key,omitempty"`
	Name         string   `json:"name"`
	OldName      string   `json:"old_name,omitempty"`
	Status       string   `json:"status"`
	OldVersions  string   `json:"old_versions"`
	NewVersions  string   `json:"new_versions"`
	Removed      []string `json:"removed"`
	Added        []string `json:"added"`
	Changed      []string `json:"changed"`
	Incompatible int      `json:"incompatible"`
	Compatible   int      `json:"compatible"`
	Info         int      `json:"info"`
	Other        []string `json:"other"`
}

func writeDiffJSON(w io.Writer, rows []spec.DiffRow) error {
	strs := func(rs []spec.Versions) []string {
		out := []string{}
		for _, r := range rs {
			out = append(out, r.String())
		}
		return out
	}
	out := []diffRowJSON{}
	for _, r := range rows {
		j := diffRowJSON{Kind: r.Kind, Name: r.Name, OldName: r.OldName, Status: r.Status,
			OldVersions: r.OldVersions.String(), NewVersions: r.NewVersions.String(),
			Removed: strs(r.Removed), Added: strs(r.Added), Changed: strs(r.Changed),
			Incompatible: r.Incompatible, Compatible: r.Compatible, Info: r.Info, Other: append([]string{}, r.Other...)}
		if r.APIKey >= 0 {
			k := r.APIKey
			j.APIKey = &k
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func (a *app) history(c *historyCmd) error {
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	req, resp, err := resolve(set, c.Name)
	if err != nil {
		return a.notLoaded(err)
	}
	var hs []*spec.MessageHistory
	for _, m := range []*spec.Message{req, resp} {
		if m == nil {
			continue
		}
		h := spec.History(m)
		if m.Type == spec.Response && req != nil && req.LatestVersionUnstable {
			for i := range h.Versions {
				h.Versions[i].Unstable = h.Versions[i].Version == m.ValidVersions.Hi
			}
		}
		hs = append(hs, h)
	}
	if c.Format == "json" {
		return writeHistoryJSON(a.stdout, hs)
	}
	return writeHistoryText(a.stdout, set, hs)
}

// fieldFacts describes a field for history: type and the keys that
// matter on the wire.
func fieldFacts(f *spec.Field) string {
	var facts []string
	if f.HasTag {
		facts = append(facts, fmt.Sprintf("tagged %s, tag %d", f.TaggedVersions, f.Tag))
	}
	if !f.NullableVersions.Empty() {
		facts = append(facts, "nullable "+f.NullableVersions.String())
	}
	if f.Ignorable {
		facts = append(facts, "ignorable")
	}
	if f.Default != "" {
		facts = append(facts, "default "+f.Default)
	}
	s := f.TypeString
	if len(facts) > 0 {
		s += " (" + strings.Join(facts, ", ") + ")"
	}
	return s
}

func changeLine(c spec.Change) string {
	f := c.Field
	switch c.Kind {
	case "added":
		s := "+ " + c.Path + " " + fieldFacts(f)
		if f.About != "" {
			s += ": " + f.About
		}
		return s
	case "removed":
		return fmt.Sprintf("- %s %s (versions %s)", c.Path, f.TypeString, f.Versions)
	case "nullable":
		return fmt.Sprintf("~ %s becomes nullable (nullableVersions %s)", c.Path, f.NullableVersions)
	case "not-nullable":
		return fmt.Sprintf("~ %s is no longer nullable (nullableVersions %s)", c.Path, f.NullableVersions)
	case "tagged":
		return fmt.Sprintf("~ %s becomes tagged, tag %d (taggedVersions %s)", c.Path, f.Tag, f.TaggedVersions)
	}
	return c.Kind + " " + c.Path
}

func writeHistoryText(w io.Writer, set *spec.Set, hs []*spec.MessageHistory) error {
	for i, h := range hs {
		m := h.Message
		if i > 0 {
			fmt.Fprintln(w)
		}
		key := ""
		if m.APIKey >= 0 {
			key = fmt.Sprintf(", api key %d", m.APIKey)
		}
		fmt.Fprintf(w, "%s (%s%s) in %s: valid versions %s, flexible %s", m.Name, m.Type, key, describe(set), m.ValidVersions, m.FlexibleVersions)
		if !m.DeprecatedVersions.Empty() {
			fmt.Fprintf(w, ", deprecated %s", m.DeprecatedVersions)
		}
		fmt.Fprintln(w)
		if len(h.Versions) == 0 {
			fmt.Fprintln(w, "  no valid versions "+removedHint(set, m))
		}
		for _, v := range h.Versions {
			marks := v.Marks("unstable (latestVersionUnstable)")
			fmt.Fprintf(w, "  v%d", v.Version)
			if len(marks) > 0 {
				fmt.Fprintf(w, "  %s", strings.Join(marks, "; "))
			}
			fmt.Fprintln(w)
			for _, c := range v.Changes {
				fmt.Fprintf(w, "      %s\n", changeLine(c))
			}
			for _, n := range v.Notes {
				fmt.Fprintf(w, "      // %s  (line %d)\n", n.Text, n.Line)
			}
		}
		if len(h.Other) > 0 {
			fmt.Fprintln(w, "  comments on versions that are not valid:")
			for _, n := range h.Other {
				fmt.Fprintf(w, "      // %s  (line %d)\n", n.Text, n.Line)
			}
		}
	}
	return nil
}

type noteJSON struct {
	Versions string `json:"versions"`
	Line     int    `json:"line"`
	Text     string `json:"text"`
}

type changeJSON struct {
	Kind             string `json:"kind"`
	Path             string `json:"path"`
	Type             string `json:"type"`
	Versions         string `json:"versions"`
	NullableVersions string `json:"nullable_versions,omitempty"`
	TaggedVersions   string `json:"tagged_versions,omitempty"`
	Tag              *int32 `json:"tag,omitempty"`
	Default          string `json:"default,omitempty"`
	About            string `json:"about,omitempty"`
}

type versionJSON struct {
	Version       int16        `json:"version"`
	Lowest        bool         `json:"lowest"`
	Flexible      bool         `json:"flexible"`
	FirstFlexible bool         `json:"first_flexible"`
	Deprecated    bool         `json:"deprecated"`
	Unstable      bool         `json:"unstable"`
	Changes       []changeJSON `json:"changes"`
	Notes         []noteJSON   `json:"notes"`
}

type historyJSON struct {
	Message          string        `json:"message"`
	Type             string        `json:"type"`
	APIKey           *int16        `json:"api_key,omitempty"`
	ValidVersions    string        `json:"valid_versions"`
	FlexibleVersions string        `json:"flexible_versions"`
	Versions         []versionJSON `json:"versions"`
	OtherNotes       []noteJSON    `json:"other_notes"`
}

func notesJSON(ns []spec.Note) []noteJSON {
	out := []noteJSON{}
	for _, n := range ns {
		out = append(out, noteJSON{n.Versions.String(), n.Line, n.Text})
	}
	return out
}

func writeHistoryJSON(w io.Writer, hs []*spec.MessageHistory) error {
	out := []historyJSON{}
	for _, h := range hs {
		m := h.Message
		j := historyJSON{Message: m.Name, Type: string(m.Type), ValidVersions: m.ValidVersions.String(),
			FlexibleVersions: m.FlexibleVersions.String(), Versions: []versionJSON{}, OtherNotes: notesJSON(h.Other)}
		if m.APIKey >= 0 {
			k := m.APIKey
			j.APIKey = &k
		}
		for _, v := range h.Versions {
			vj := versionJSON{Version: v.Version, Lowest: v.Lowest, Flexible: v.Flexible, FirstFlexible: v.FirstFlexible,
				Deprecated: v.Deprecated, Unstable: v.Unstable, Changes: []changeJSON{}, Notes: notesJSON(v.Notes)}
			for _, c := range v.Changes {
				f := c.Field
				cj := changeJSON{Kind: c.Kind, Path: c.Path, Type: f.TypeString, Versions: f.Versions.String(), Default: f.Default, About: f.About}
				if !f.NullableVersions.Empty() {
					cj.NullableVersions = f.NullableVersions.String()
				}
				if f.HasTag {
					t := f.Tag
					cj.Tag, cj.TaggedVersions = &t, f.TaggedVersions.String()
				}
				vj.Changes = append(vj.Changes, cj)
			}
			j.Versions = append(j.Versions, vj)
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
