package evolve

import (
	"fmt"
	"io"
	"strings"

	"github.com/kwire/kwire/spec"
)

// APIHistory is the History of an API's request and response (either may
// be nil), or of one other message as req. A response's highest version is
// marked unstable when its request's is (latestVersionUnstable is a key of
// the request spec only).
func APIHistory(req, resp *spec.Message) []*MessageHistory {
	var hs []*MessageHistory
	for _, m := range []*spec.Message{req, resp} {
		if m == nil {
			continue
		}
		h := History(m)
		if m.Type == spec.Response && req != nil && req.LatestVersionUnstable {
			for i := range h.Versions {
				h.Versions[i].Unstable = h.Versions[i].Version == m.ValidVersions.Hi
			}
		}
		hs = append(hs, h)
	}
	return hs
}

// FieldFacts describes a field for a history line: its type, then what
// matters on the wire in parentheses ("int32 (ignorable, default -1)",
// "[]NodeEndpoint (tagged 1+, tag 0)").
func FieldFacts(f *spec.Field) string {
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

// Line renders a change on one line: "+ Path facts: about" for a field
// added, "- Path type (versions V)" for one removed, "~ Path …" for a
// change of nullability or taggedness.
func (c Change) Line() string {
	f := c.Field
	switch c.Kind {
	case "added":
		s := "+ " + c.Path + " " + FieldFacts(f)
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

// WriteHistoryText prints each history: a heading naming the message, its
// type, api key (a coordinator record's record type and topic), the set it is from (in, e.g. "Kafka 4.4.0") and its valid,
// flexible and deprecated versions; then per version its marks, changes
// (Change.Line) and the spec's comments about it with their lines; then the
// comments on versions that are not valid. With Spans, each version's line
// ends with its span's words, the versions of other embedded releases are
// listed with theirs, and SpanLegend() ends the text. For a message without valid
// versions it prints "no valid versions", then " " and noVersions(m) when
// noVersions is not nil (a hint of where it has some).
func WriteHistoryText(w io.Writer, in string, hs []*MessageHistory, noVersions func(*spec.Message) string) error {
	spans := false
	for i, h := range hs {
		m := h.Message
		if i > 0 {
			fmt.Fprintln(w)
		}
		key := ""
		switch {
		case m.VersionPrefixed() && !m.RecordTypes.Empty():
			key = fmt.Sprintf(", record type %s of %s", m.RecordTypes, m.Topic.TopicName())
		case m.APIKey >= 0:
			key = fmt.Sprintf(", api key %d", m.APIKey)
		}
		fmt.Fprintf(w, "%s (%s%s) in %s: valid versions %s, flexible %s", m.Name, m.Type, key, in, m.ValidVersions, m.FlexibleVersions)
		if !m.DeprecatedVersions.Empty() {
			fmt.Fprintf(w, ", deprecated %s", m.DeprecatedVersions)
		}
		fmt.Fprintln(w)
		if len(h.Versions) == 0 {
			hint := ""
			if noVersions != nil {
				hint = " " + noVersions(m)
			}
			fmt.Fprintln(w, "  no valid versions"+hint)
		}
		for _, v := range h.Versions {
			marks := v.Marks("unstable (latestVersionUnstable)")
			if s, ok := h.Span(v.Version); ok {
				marks = append(marks, s.Words())
				spans = true
			}
			fmt.Fprintf(w, "  v%d", v.Version)
			if len(marks) > 0 {
				fmt.Fprintf(w, "  %s", strings.Join(marks, "; "))
			}
			fmt.Fprintln(w)
			for _, c := range v.Changes {
				fmt.Fprintf(w, "      %s\n", c.Line())
			}
			for _, n := range v.Notes {
				fmt.Fprintf(w, "      // %s  (line %d)\n", n.Text, n.Line)
			}
		}
		if other := h.OtherSpans(); len(other) > 0 {
			fmt.Fprintf(w, "  versions not in %s, in other embedded releases:\n", in)
			for _, g := range other {
				fmt.Fprintf(w, "    v%s  %s\n", g.Versions, g.Words)
			}
			spans = true
		}
		if len(h.Other) > 0 {
			fmt.Fprintln(w, "  comments on versions that are not valid:")
			for _, n := range h.Other {
				fmt.Fprintf(w, "      // %s  (line %d)\n", n.Text, n.Line)
			}
		}
	}
	if spans {
		fmt.Fprintf(w, "\n%s\n", spec.SpanLegend())
	}
	return nil
}

// NoteJSON is a spec comment about versions in the JSON of
// WriteHistoryJSON.
type NoteJSON struct {
	Versions string `json:"versions"`
	Line     int    `json:"line"`
	Text     string `json:"text"`
}

// ChangeJSON is a Change in the JSON of WriteHistoryJSON.
type ChangeJSON struct {
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

// VersionJSON is a VersionHistory in the JSON of WriteHistoryJSON.
type VersionJSON struct {
	Version       int16        `json:"version"`
	Lowest        bool         `json:"lowest"`
	Flexible      bool         `json:"flexible"`
	FirstFlexible bool         `json:"first_flexible"`
	Deprecated    bool         `json:"deprecated"`
	Unstable      bool         `json:"unstable"`
	Changes       []ChangeJSON `json:"changes"`
	Notes         []NoteJSON   `json:"notes"`
	// Releases is the version's span of embedded releases (with Spans).
	Releases *SpanJSON `json:"releases,omitempty"`
}

// SpanJSON is a VersionSpan in the JSON of WriteHistoryJSON: the oldest
// and newest embedded releases with the version, whether the oldest is
// the oldest embedded release, and the first one after without it; for a
// version some releases mark unstable, the runs of them and the first
// release with it stable (absent when none is); the runs of releases in
// which the message had another name.
type SpanJSON struct {
	Version       int16         `json:"version"`
	First         string        `json:"first"`
	FirstIsOldest bool          `json:"first_is_oldest_embedded"`
	Last          string        `json:"last"`
	Removed       string        `json:"removed,omitempty"`
	Unstable      []RunJSON     `json:"unstable,omitempty"`
	FirstStable   string        `json:"first_stable,omitempty"`
	OtherNames    []NameRunJSON `json:"other_names,omitempty"`
	// Of are, for an internal topic's record, the embedded releases
	// holding that topic's record specs, the only ones looked at.
	Of    []string `json:"of,omitempty"`
	Words string   `json:"words"`
}

// RunJSON is a ReleaseRun: the oldest and newest embedded release of it.
type RunJSON struct {
	First string `json:"first"`
	Last  string `json:"last"`
}

// NameRunJSON is a NameRun: the name and its run of embedded releases.
type NameRunJSON struct {
	Name  string `json:"name"`
	First string `json:"first"`
	Last  string `json:"last"`
}

func spanJSON(s spec.VersionSpan) *SpanJSON {
	j := &SpanJSON{Version: s.Version, First: s.First, FirstIsOldest: s.FirstIsOldest, Last: s.Last, Removed: s.Removed, Of: s.Of, Words: s.Words()}
	for _, r := range s.Unstable {
		j.Unstable = append(j.Unstable, RunJSON{r.First, r.Last})
	}
	if len(s.Unstable) > 0 {
		j.FirstStable = s.FirstStable
	}
	for _, n := range s.Names {
		j.OtherNames = append(j.OtherNames, NameRunJSON{n.Name, n.First, n.Last})
	}
	return j
}

// HistoryJSON is a MessageHistory in the JSON of WriteHistoryJSON.
type HistoryJSON struct {
	Message          string        `json:"message"`
	Type             string        `json:"type"`
	APIKey           *int16        `json:"api_key,omitempty"`
	ValidVersions    string        `json:"valid_versions"`
	FlexibleVersions string        `json:"flexible_versions"`
	Versions         []VersionJSON `json:"versions"`
	OtherNotes       []NoteJSON    `json:"other_notes"`
	// OtherVersions are the spans of the versions other embedded releases
	// have and this message does not (with Spans).
	OtherVersions []*SpanJSON `json:"other_versions,omitempty"`
}

func notesJSON(ns []Note) []NoteJSON {
	out := []NoteJSON{}
	for _, n := range ns {
		out = append(out, NoteJSON{n.Versions.String(), n.Line, n.Text})
	}
	return out
}

// WriteHistoryJSON writes the histories as a HistoryJSON array, indented.
func WriteHistoryJSON(w io.Writer, hs []*MessageHistory) error {
	out := []HistoryJSON{}
	for _, h := range hs {
		m := h.Message
		j := HistoryJSON{Message: m.Name, Type: string(m.Type), ValidVersions: m.ValidVersions.String(),
			FlexibleVersions: m.FlexibleVersions.String(), Versions: []VersionJSON{}, OtherNotes: notesJSON(h.Other)}
		if m.APIKey >= 0 {
			k := m.APIKey
			j.APIKey = &k
		}
		for _, v := range h.Versions {
			vj := VersionJSON{Version: v.Version, Lowest: v.Lowest, Flexible: v.Flexible, FirstFlexible: v.FirstFlexible,
				Deprecated: v.Deprecated, Unstable: v.Unstable, Changes: []ChangeJSON{}, Notes: notesJSON(v.Notes)}
			if s, ok := h.Span(v.Version); ok {
				vj.Releases = spanJSON(s)
			}
			for _, c := range v.Changes {
				f := c.Field
				cj := ChangeJSON{Kind: c.Kind, Path: c.Path, Type: f.TypeString, Versions: f.Versions.String(), Default: f.Default, About: f.About}
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
		for _, s := range h.Spans {
			if !m.ValidVersions.Contains(s.Version) {
				j.OtherVersions = append(j.OtherVersions, spanJSON(s))
			}
		}
		out = append(out, j)
	}
	return writeIndented(w, out)
}
