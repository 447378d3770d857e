package evolve

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kwire/kwire/spec"
)

// Comparison is two sets of specs, the labels that name them in output
// ("Kafka 3.9.1", or a path) and Compat's findings between them: what
// `kwire compat` and `kwire diff` print.
type Comparison struct {
	Old, New           *spec.Set
	OldLabel, NewLabel string
	Findings           []Finding
	// NotCompared are the internal topics whose records were left out
	// because only one side carries their specs (Uncarried).
	NotCompared []NotCompared
}

// Compare runs CompatWith on old and new and keeps the labels.
func Compare(old, new *spec.Set, oldLabel, newLabel string, opt CompatOptions) *Comparison {
	return &Comparison{Old: old, New: new, OldLabel: oldLabel, NewLabel: newLabel, Findings: CompatWith(old, new, opt), NotCompared: Uncarried(old, new)}
}

// BorrowedHeaders is a CompatOptions.Skip that leaves out RequestHeader and
// ResponseHeader where a set loaded from a path borrowed them from the
// newest embedded release (see FromPath): they are not part of what is
// compared. nil when no set borrowed them.
func BorrowedHeaders(sets ...*spec.Set) func(*spec.Message) bool {
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

// Counts is the number of findings of each impact.
func (c *Comparison) Counts() map[Impact]int {
	n := map[Impact]int{}
	for _, f := range c.Findings {
		n[f.Severity]++
	}
	return n
}

// Incompatible is the error of a comparison with incompatible findings
// ("2 incompatible changes from Kafka 3.9.1 to Kafka 4.4.0"), nil without.
// When the new specs are not a release and messages were removed, it adds
// that comparing only the messages both sides have may be meant (hint is
// how to ask for that).
func (c *Comparison) Incompatible(hint string) error {
	n := c.Counts()[Incompatible]
	if n == 0 {
		return nil
	}
	more := ""
	if c.New.Release == "" && slices.ContainsFunc(c.Findings, func(f Finding) bool { return f.Rule == "message-removed" }) {
		more = " (if the new specs hold only some messages, " + hint + " compares only the messages both sides have)"
	}
	return fmt.Errorf("%d incompatible %s from %s to %s%s", n, plural(n, "change", "changes"), c.OldLabel, c.NewLabel, more)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// WriteText prints "OLD → NEW", the internal topics not compared
// (NotComparedLines), the findings at least as grave as least
// (Finding.String), one a line, and a summary line of the counts and of how
// many findings Kafka's own evolution checker would judge otherwise.
func (c *Comparison) WriteText(w io.Writer, least Impact) error {
	fmt.Fprintf(w, "%s → %s\n", c.OldLabel, c.NewLabel)
	for _, l := range c.NotComparedLines() {
		fmt.Fprintln(w, l)
	}
	disagree := 0
	for _, f := range c.Findings {
		if f.KafkaNote() != "" {
			disagree++
		}
		if f.Severity <= least {
			fmt.Fprintln(w, f.String())
		}
	}
	n := c.Counts()
	_, err := fmt.Fprintf(w, "%d incompatible, %d compatible, %d info; Kafka's own evolution checker would judge %d of them otherwise\n",
		n[Incompatible], n[CompatibleChange], n[Info], disagree)
	return err
}

// FindingJSON is a finding in the JSON of WriteJSON.
type FindingJSON struct {
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

// NewFindingJSON describes f for WriteJSON.
func NewFindingJSON(f Finding) FindingJSON {
	j := FindingJSON{Message: f.Message, OldMessage: f.OldMessage, Type: string(f.Type), Path: f.Path, Rule: f.Rule,
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

// CompatJSON is the object WriteJSON writes: both sets' Source, the counts
// by impact name and the findings at least as grave as asked.
type CompatJSON struct {
	Old      string         `json:"old"`
	New      string         `json:"new"`
	Counts   map[string]int `json:"counts"`
	Findings []FindingJSON  `json:"findings"`
	// NotCompared are the internal topics whose records were not compared
	// (Comparison.NotCompared); absent when there are none.
	NotCompared []NotComparedJSON `json:"not_compared,omitempty"`
}

// WriteJSON writes CompatJSON, indented, with the findings at least as
// grave as least.
func (c *Comparison) WriteJSON(w io.Writer, least Impact) error {
	out := CompatJSON{Old: c.Old.Source, New: c.New.Source, Counts: map[string]int{}, Findings: []FindingJSON{}, NotCompared: c.notComparedJSON()}
	n := c.Counts()
	for _, i := range []Impact{Incompatible, CompatibleChange, Info} {
		out.Counts[i.String()] = n[i]
	}
	for _, f := range c.Findings {
		if f.Severity <= least {
			out.Findings = append(out.Findings, NewFindingJSON(f))
		}
	}
	return writeIndented(w, out)
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func rangesString(rs []spec.Versions) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ",")
}

// WriteDiffText prints "OLD → NEW", the internal topics not compared
// (NotComparedLines), a table of one row per API or message
// whose presence, versions or fields differ (rows of Diff), and a summary
// line: how many were added, removed, renamed and changed, and how many
// more differ only in listeners, deprecatedVersions or
// latestVersionUnstable.
func (c *Comparison) WriteDiffText(w io.Writer, rows []DiffRow) error {
	fmt.Fprintf(w, "%s → %s\n", c.OldLabel, c.NewLabel)
	for _, l := range c.NotComparedLines() {
		fmt.Fprintln(w, l)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tKEY\tNAME\tSTATUS\tVERSIONS\tREMOVED\tADDED\tCHANGED IN\tFINDINGS")
	status := map[string]int{}
	metaOnly := 0
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
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

// DiffRowJSON is a DiffRow in the JSON of WriteDiffJSON.
type DiffRowJSON struct {
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
	Records      []string `json:"records,omitempty"`
}

// WriteDiffJSON writes every row (those that differ only in listeners or
// flags too) as a DiffRowJSON array, indented.
func WriteDiffJSON(w io.Writer, rows []DiffRow) error {
	strs := func(rs []spec.Versions) []string {
		out := []string{}
		for _, r := range rs {
			out = append(out, r.String())
		}
		return out
	}
	out := []DiffRowJSON{}
	for _, r := range rows {
		j := DiffRowJSON{Kind: r.Kind, Name: r.Name, OldName: r.OldName, Status: r.Status,
			OldVersions: r.OldVersions.String(), NewVersions: r.NewVersions.String(),
			Removed: strs(r.Removed), Added: strs(r.Added), Changed: strs(r.Changed),
			Incompatible: r.Incompatible, Compatible: r.Compatible, Info: r.Info, Other: append([]string{}, r.Other...), Records: r.Records}
		if r.APIKey >= 0 {
			k := r.APIKey
			j.APIKey = &k
		}
		out = append(out, j)
	}
	return writeIndented(w, out)
}
