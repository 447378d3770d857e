package evolve

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"github.com/kwire/kwire/spec"
)

// Note is one of a spec file's own comments about a version ("// Version 2
// adds PreVote field…"), with its continuation lines joined.
type Note struct {
	// Versions are the versions the comment names first ("Versions 0-3
	// were removed…" is 0-3).
	Versions spec.Versions
	// Line is the 1-based line of the comment's first line in the file.
	Line int
	Text string
}

// Change is one difference between a version of a message and the version
// before it.
type Change struct {
	// Kind is "added", "removed", "nullable" (became nullable), "not-nullable"
	// (no longer nullable) or "tagged" (a positional field became tagged).
	Kind string
	// Path is the field's dotted path from the top level.
	Path  string
	Field *spec.Field
}

// VersionHistory is what one valid version of a message changed.
type VersionHistory struct {
	Version int16
	// Lowest is true for the lowest valid version, which has no previous
	// version to compare with (Changes is empty).
	Lowest bool
	// FirstFlexible is true when this is the first flexible version.
	FirstFlexible bool
	Flexible      bool
	Deprecated    bool
	// Unstable is true for the latest version of a request marked
	// latestVersionUnstable (the caller sets it for responses).
	Unstable bool
	Changes  []Change
	// Notes are the spec's comments that name this version first.
	Notes []Note
}

// Marks names what is notable about the version, in the order history views
// list them: "lowest valid version", "first flexible version" (or
// "flexible" for a lowest version that is), "deprecated", unstable (the
// caller's label for latestVersionUnstable), "no field changes".
func (vh *VersionHistory) Marks(unstable string) []string {
	var marks []string
	if vh.Lowest {
		marks = append(marks, "lowest valid version")
	}
	if vh.FirstFlexible {
		marks = append(marks, "first flexible version")
	} else if vh.Lowest && vh.Flexible {
		marks = append(marks, "flexible")
	}
	if vh.Deprecated {
		marks = append(marks, "deprecated")
	}
	if vh.Unstable {
		marks = append(marks, unstable)
	}
	if !vh.Lowest && len(vh.Changes) == 0 {
		marks = append(marks, "no field changes")
	}
	return marks
}

// MessageHistory is the history of one message, version by version.
type MessageHistory struct {
	Message  *spec.Message
	Versions []VersionHistory
	// Other are the spec's version comments about versions that are not
	// valid (removed versions, usually).
	Other []Note
	// Spans are the embedded releases that have each version of the
	// message, valid here or not (EmbeddedSpans), lowest version first;
	// nil until AddSpans.
	Spans []spec.VersionSpan
}

// Span returns the span of version v, reporting whether h.Spans has one.
func (h *MessageHistory) Span(v int16) (spec.VersionSpan, bool) {
	for _, s := range h.Spans {
		if s.Version == v {
			return s, true
		}
	}
	return spec.VersionSpan{}, false
}

// OtherSpans returns the spans of the versions h's message does not have
// (removed, or not yet added), consecutive versions with the same words
// joined: [{"0-2", "Kafka ≤3.0–3.9 (removed in 4.0)"}].
func (h *MessageHistory) OtherSpans() []SpanGroup {
	var out []SpanGroup
	for _, s := range h.Spans {
		if h.Message.ValidVersions.Contains(s.Version) {
			continue
		}
		w := s.Words()
		if n := len(out); n > 0 && out[n-1].Words == w && out[n-1].Versions.Hi == s.Version-1 {
			out[n-1].Versions.Hi = s.Version
			continue
		}
		out = append(out, SpanGroup{Versions: spec.Versions{Lo: s.Version, Hi: s.Version}, Words: w})
	}
	return out
}

// SpanGroup is a run of versions with the same VersionSpan words.
type SpanGroup struct {
	Versions spec.Versions
	Words    string
}

// AddSpans sets the Spans of each history (EmbeddedSpans).
func AddSpans(hs []*MessageHistory) error {
	for _, h := range hs {
		sp, err := spec.EmbeddedSpans(h.Message)
		if err != nil {
			return err
		}
		h.Spans = sp
	}
	return nil
}

// History walks the valid versions of m and reports, for each, the fields
// added and removed, those that became nullable, stopped being nullable or
// became tagged (in the top level and in every struct present in both
// versions), whether it is the first flexible version, and the spec's own
// comments about it (see Notes).
func History(m *spec.Message) *MessageHistory {
	h := &MessageHistory{Message: m}
	notes := Notes(m.Text)
	vv := m.ValidVersions
	placed := make([]bool, len(notes))
	for v := int(vv.Lo); v <= int(vv.Hi) && !vv.Empty(); v++ {
		ver := int16(v)
		vh := VersionHistory{
			Version:    ver,
			Lowest:     ver == vv.Lo,
			Flexible:   m.Flexible(ver),
			Deprecated: m.DeprecatedVersions.Contains(ver),
			Unstable:   m.LatestVersionUnstable && ver == vv.Hi,
		}
		vh.FirstFlexible = vh.Flexible && (ver == 0 || !m.Flexible(ver-1))
		if !vh.Lowest && m.Root != nil {
			vh.Changes = changes("", m.Root.Fields, ver, map[*spec.Struct]bool{})
		}
		for i, n := range notes {
			// A note belongs to the first valid version it names.
			if !placed[i] && n.Versions.Intersect(vv).Lo == ver && !n.Versions.Intersect(vv).Empty() {
				vh.Notes = append(vh.Notes, n)
				placed[i] = true
			}
		}
		h.Versions = append(h.Versions, vh)
	}
	for i, n := range notes {
		if !placed[i] {
			h.Other = append(h.Other, n)
		}
	}
	return h
}

// changes lists what changed in fs from version v-1 to v; it descends into
// struct fields present in both versions.
func changes(path string, fs []*spec.Field, v int16, seen map[*spec.Struct]bool) []Change {
	var out []Change
	for _, f := range fs {
		p := join(path, f.Name)
		now, before := f.PresentIn(v), f.PresentIn(v-1)
		switch {
		case now && !before:
			out = append(out, Change{Kind: "added", Path: p, Field: f})
			continue
		case !now && before:
			out = append(out, Change{Kind: "removed", Path: p, Field: f})
			continue
		case !now:
			continue
		}
		switch {
		case f.NullableIn(v) && !f.NullableIn(v-1):
			out = append(out, Change{Kind: "nullable", Path: p, Field: f})
		case !f.NullableIn(v) && f.NullableIn(v-1):
			out = append(out, Change{Kind: "not-nullable", Path: p, Field: f})
		}
		if f.TaggedIn(v) && !f.TaggedIn(v-1) {
			out = append(out, Change{Kind: "tagged", Path: p, Field: f})
		}
		if st := f.Type.Struct; f.Type.IsStructLike() && st != nil && !seen[st] {
			seen[st] = true
			out = append(out, changes(p, st.Fields, v, seen)...)
			delete(seen, st)
		}
	}
	return out
}

// A note starts at a comment line that begins with a version phrase, or at
// the first comment line after a blank or code line; it takes the
// versions its first line (or, failing that, the note) names first.
var (
	noteStart    = regexp.MustCompile(`(?i)^(starting (in|from|with) |from |since |in |as of )?versions? \d`)
	noteVersions = regexp.MustCompile(`(?i)\bversions? (\d+)(?:\s*(?:-|to|through)\s*(\d+))?`)
)

// Notes returns the comments of a spec file's text that name a version
// ("// Version 1 adds …", "// Starting in version 3, …", "// Versions 0-3
// were removed …"), each with its continuation lines. The license header
// (the first comment block, when it mentions a License) is skipped, and so
// are comments that name no version.
func Notes(text []byte) []Note {
	lines := bytes.Split(text, []byte("\n"))
	comment := func(l []byte) (string, bool) {
		t := strings.TrimSpace(string(l))
		if !strings.HasPrefix(t, "//") {
			return "", false
		}
		return strings.TrimSpace(strings.TrimPrefix(t, "//")), true
	}
	start := 0
	for start < len(lines) {
		if _, ok := comment(lines[start]); !ok {
			break
		}
		start++
	}
	if !bytes.Contains(bytes.Join(lines[:start], nil), []byte("License")) {
		start = 0
	}
	var notes []Note
	var cur *Note
	var first string
	flush := func() {
		if cur == nil {
			return
		}
		m := noteVersions.FindStringSubmatch(first)
		if m == nil {
			m = noteVersions.FindStringSubmatch(cur.Text)
		}
		if m != nil {
			lo, _ := strconv.Atoi(m[1])
			hi := lo
			if m[2] != "" {
				hi, _ = strconv.Atoi(m[2])
			}
			if lo <= spec.MaxVersion && hi <= spec.MaxVersion && lo <= hi {
				cur.Versions = spec.Versions{Lo: int16(lo), Hi: int16(hi)}
				notes = append(notes, *cur)
			}
		}
		cur = nil
	}
	for i := start; i < len(lines); i++ {
		t, ok := comment(lines[i])
		if !ok || t == "" {
			flush()
			continue
		}
		if cur != nil && !noteStart.MatchString(t) {
			cur.Text += " " + t
			continue
		}
		flush()
		cur, first = &Note{Line: i + 1, Text: t}, t
	}
	flush()
	return notes
}
