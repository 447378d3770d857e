package spec

import (
	"fmt"
	"iter"
	"strings"

	"github.com/kwire/kwire/spec/bundle"
)

// VersionSpan says which embedded Kafka releases have one version of a
// message. The embedded releases are the last patch release of each minor
// (and 3.9.1), so a span is known to the minor: First is the oldest
// embedded release with the version, which need not be the release that
// introduced it.
type VersionSpan struct {
	Version int16
	// First and Last are the oldest and the newest embedded releases
	// ("3.0.2", "4.4.0") whose spec has the version.
	First, Last string
	// FirstIsOldest is true when First is the oldest embedded release: the
	// version may be older than every embedded release.
	FirstIsOldest bool
	// Removed is the oldest embedded release newer than Last ("4.0.2"), ""
	// when Last is the newest embedded release.
	Removed string
	// Unstable are the runs of embedded releases, oldest first, whose spec
	// has the version as the API's unstable version (latestVersionUnstable:
	// a broker offers it only with unstable API versions enabled).
	Unstable []ReleaseRun
	// FirstStable is the oldest embedded release that has the version and
	// does not mark it unstable: First when Unstable is empty, "" when the
	// version was never stable.
	FirstStable string
	// Names are the runs of embedded releases, oldest first, in which the
	// message had another name than the one asked about (an API renamed
	// keeps its key), by BaseName ("ListClientMetricsResources").
	Names []NameRun
	// Of is, for an internal topic's record (Message.Topic), the embedded
	// releases that carry that topic's record specs (Set.Carries), oldest
	// first ("3.9.1", "3.9.2", "4.0.2", …): the only ones the span looks
	// at, so First, Last and Removed are among them. Nil for every other
	// message.
	Of []string
}

// ReleaseRun is a run of consecutive embedded releases, oldest first.
type ReleaseRun struct {
	First, Last string
}

// Words renders the run by minor release as VersionSpan.Words does, without
// "Kafka": "3.5–3.6", "4.1".
func (r ReleaseRun) Words() string {
	first, last := releaseLabel(r.First, true), releaseLabel(r.Last, false)
	if r.First == r.Last {
		if first != last {
			return r.First // one patch release of a minor that has two
		}
		return first
	}
	if first == last {
		return first // 3.9.1–3.9.2: every embedded patch of the minor
	}
	return first + "–" + last
}

// NameRun is a run of embedded releases in which a message had name Name.
type NameRun struct {
	Name string
	ReleaseRun
}

func runsWords(rs []ReleaseRun) string {
	var ws []string
	for _, r := range rs {
		ws = append(ws, r.Words())
	}
	return strings.Join(ws, ", ")
}

// Words renders the span by minor release: "Kafka ≤3.0–3.9 (removed in
// 4.0)", "Kafka 3.7–4.4", "Kafka 4.4". "≤3.0" says that the oldest
// embedded release (3.0.2) already has the version. A release is named in
// full when the minor alone would stand for another embedded patch of it
// ("3.9.2" first, when 3.9.1 lacks the version). A version some releases
// mark unstable starts at FirstStable and names them: "Kafka 3.7–4.4
// (unstable in 3.5–3.6)"; one never stable says only that: "unstable in
// Kafka 3.9–4.0 (removed in 4.1)". Other names of the message follow:
// "Kafka 3.7–4.4 (as ListClientMetricsResources in 3.7–4.0)".
func (s VersionSpan) Words() string {
	var w string
	var notes []string
	switch {
	case s.Of != nil:
		w, notes = s.recordWords()
	case len(s.Unstable) == 0:
		w = "Kafka " + ReleaseRun{s.First, s.Last}.Words()
		if s.FirstIsOldest {
			w = "Kafka ≤" + strings.TrimPrefix(w, "Kafka ")
		}
	case s.FirstStable == "":
		w = "unstable in Kafka " + runsWords(s.Unstable)
	default:
		w = "Kafka " + ReleaseRun{s.FirstStable, s.Last}.Words()
		notes = append(notes, "unstable in "+runsWords(s.Unstable))
	}
	for _, n := range s.Names {
		notes = append(notes, "as "+n.Name+" in "+n.Words())
	}
	if s.Removed != "" {
		notes = append(notes, "removed in "+releaseLabel(s.Removed, true))
	}
	if len(notes) > 0 {
		w += " (" + strings.Join(notes, "; ") + ")"
	}
	return w
}

// recordWords is the start of Words for a span of an internal topic's
// record (Of), and its note: "≤" marks a version already in the oldest
// release of Of, which is named when it is not the oldest embedded
// release: "Kafka ≤3.5–4.4" and "3.5: the oldest embedded release with this
// topic's specs"; "Kafka 4.1–4.4"; "Kafka ≤3.0–4.4".
func (s VersionSpan) recordWords() (string, []string) {
	w := "Kafka " + ReleaseRun{s.First, s.Last}.Words()
	if len(s.Of) == 0 || s.First != s.Of[0] {
		return w, nil
	}
	w = "Kafka ≤" + strings.TrimPrefix(w, "Kafka ")
	if rs := bundle.Releases(); s.Of[0] != rs[len(rs)-1] {
		return w, []string{releaseLabel(s.Of[0], true) + ": the oldest embedded release with this topic's specs"}
	}
	return w, nil
}

// releaseLabel names embedded release r by its minor ("3.7" for 3.7.2)
// when r is the oldest (first) or the newest (!first) embedded release of
// that minor, else in full.
func releaseLabel(r string, first bool) string {
	minor := r
	if p := strings.Split(r, "."); len(p) > 2 {
		minor = p[0] + "." + p[1]
	}
	var same []string // newest first
	for _, x := range bundle.Releases() {
		if strings.HasPrefix(x, minor+".") {
			same = append(same, x)
		}
	}
	if len(same) == 0 {
		return r
	}
	if first && same[len(same)-1] == r || !first && same[0] == r {
		return minor
	}
	return r
}

// SpanLegend explains VersionSpan.Words in one sentence: "Kafka A–B: the
// embedded releases whose spec has the version, from the first that does
// not mark it unstable …; ≤3.0: already in the oldest embedded release,
// 3.0.2."
func SpanLegend() string {
	rs := bundle.Releases()
	if len(rs) == 0 {
		return ""
	}
	oldest, newest := rs[len(rs)-1], rs[0]
	return fmt.Sprintf("Kafka A–B: the embedded releases whose spec has the version, from the first that does not mark it unstable (latestVersionUnstable), by minor (kwire embeds the last patch release of each minor from %s to %s); ≤%s: already in the oldest embedded release, %s.",
		releaseLabel(oldest, true), releaseLabel(newest, false), releaseLabel(oldest, true), oldest)
}

// sameMessage returns the message of s that is m in another release: an
// API's request or response, or a metadata record, by api key (an API
// renamed keeps its key: ListClientMetricsResources is ListConfigResources
// from 4.1); an internal topic's record by its topic and api key
// (remote-log-metadata) or name (a coordinator record's value, "data" or
// "coordinator-value", whose versions are versions in both; a key only of
// the same type, a "data" key's versions being record types); any other
// message by name; nil when s has none.
func sameMessage(s *Set, m *Message) *Message {
	if m.Topic != "" {
		if !m.Topic.Coordinator() {
			return s.TopicRecord(m.Topic, m.APIKey)
		}
		o := s.Message(m.Name)
		if o == nil || o.Topic != m.Topic || o.IsRecordValue() != m.IsRecordValue() || o.IsRecordKey() && o.Type != m.Type {
			return nil
		}
		return o
	}
	if m.APIKey >= 0 {
		switch m.Type {
		case Request:
			return s.Request(m.APIKey)
		case Response:
			return s.Response(m.APIKey)
		case Metadata:
			return s.MetadataRecord(m.APIKey)
		}
	}
	o := s.Message(m.Name)
	if o != nil && o.Type != m.Type {
		return nil
	}
	return o
}

// EmbeddedSpans returns, for every version that some embedded release has
// of message m (found as sameMessage finds it), the embedded releases that
// have it (with those that mark it unstable and those where the message had
// another name), lowest version first. An internal topic's record is looked
// for only in the releases that hold that topic's record specs (Of). It
// parses every embedded release (once per process, see Embedded).
func EmbeddedSpans(m *Message) ([]VersionSpan, error) {
	sets, err := EmbeddedAll()
	if err != nil {
		return nil, err
	}
	var of []string
	if m.Topic != "" {
		var with []*Set // newest first, as sets
		for _, s := range sets {
			if len(s.RecordTypes(m.Topic)) > 0 {
				with = append(with, s)
				of = append([]string{s.Release}, of...)
			}
		}
		sets = with
	}
	byVersion := map[int16]*VersionSpan{}
	lo, hi := int16(MaxVersion), int16(-1)
	// The index in sets of the release that last extended each version's
	// last Unstable and Names run: a run goes on only from the release
	// just older (index + 1).
	unstableAt, nameAt := map[int16]int{}, map[int16]int{}
	name := m.BaseName()
	// Oldest release first: First is set once, Last and Removed move on.
	for i := len(sets) - 1; i >= 0; i-- {
		s := sets[i]
		o := sameMessage(s, m)
		var vv Versions = None
		if o != nil {
			vv = o.ValidVersions
		}
		for v, sp := range byVersion {
			if !vv.Contains(v) && sp.Removed == "" {
				sp.Removed = s.Release
			}
		}
		for v := int(vv.Lo); !vv.Empty() && v <= int(vv.Hi); v++ {
			ver := int16(v)
			sp := byVersion[ver]
			if sp == nil {
				sp = &VersionSpan{Version: ver, First: s.Release, FirstIsOldest: of == nil && i == len(sets)-1, Of: of}
				byVersion[ver] = sp
				lo, hi = min(lo, ver), max(hi, ver)
			}
			// A version that comes back after a release without it keeps
			// its First; Removed is that of its last run.
			sp.Last, sp.Removed = s.Release, ""
			if s.UnstableVersion(o) == ver {
				if at, ok := unstableAt[ver]; ok && at == i+1 {
					sp.Unstable[len(sp.Unstable)-1].Last = s.Release
				} else {
					sp.Unstable = append(sp.Unstable, ReleaseRun{s.Release, s.Release})
				}
				unstableAt[ver] = i
			} else if sp.FirstStable == "" {
				sp.FirstStable = s.Release
			}
			if n := o.BaseName(); n != name {
				if at, ok := nameAt[ver]; ok && at == i+1 && sp.Names[len(sp.Names)-1].Name == n {
					sp.Names[len(sp.Names)-1].Last = s.Release
				} else {
					sp.Names = append(sp.Names, NameRun{n, ReleaseRun{s.Release, s.Release}})
				}
				nameAt[ver] = i
			}
		}
	}
	var out []VersionSpan
	for v := lo; v <= hi; v++ {
		if sp := byVersion[v]; sp != nil {
			out = append(out, *sp)
		}
	}
	return out, nil
}

// NewestEmbeddedWith returns the newest embedded release, other than
// release skip, whose request of api key key accepts version v; nil when
// none does. name is the request's name in some release
// ("ProduceRequest"), or "": a release not parsed yet whose file of that
// name is the request of api key key without version v is passed over
// after parsing that one file, so that usually only the release returned
// is parsed whole (a file that is missing, does not parse or is another
// message leads to parsing the release).
func NewestEmbeddedWith(key, v int16, name, skip string) *Set {
	return newestEmbedded(skip, func(r string) bool {
		_, parsed := embedded.Load(r)
		return parsed || name == "" || fileMayAccept(r, name, key, v)
	}, func(s *Set) bool {
		m := s.Request(key)
		return m != nil && m.ValidVersions.Contains(v)
	})
}

// NewestEmbeddedWithRecord returns the newest embedded release, other than
// release skip, that has the key spec of record type rt of internal topic t
// and, when v >= 0, a value spec of rt that accepts version v; nil when
// none does. It parses the releases it passes over (see Embedded).
func NewestEmbeddedWithRecord(t Topic, rt, v int16, skip string) *Set {
	return newestEmbedded(skip, nil, func(s *Set) bool {
		if s.RecordKey(t, rt) == nil {
			return false
		}
		if v < 0 {
			return true
		}
		m := s.RecordValue(t, rt)
		return m != nil && m.ValidVersions.Contains(v)
	})
}

// newestEmbedded returns the newest embedded release other than skip that
// may (nil may: all may) and, parsed, has.
func newestEmbedded(skip string, may func(release string) bool, has func(*Set) bool) *Set {
	for s := range embeddedExcept(skip, may) {
		if has(s) {
			return s
		}
	}
	return nil
}

// embeddedExcept yields the embedded releases other than skip, newest
// first, parsed; may (nil: every release may) is asked before a release
// is parsed, and a release that does not load is passed over.
func embeddedExcept(skip string, may func(release string) bool) iter.Seq[*Set] {
	return func(yield func(*Set) bool) {
		for _, r := range bundle.Releases() {
			if r == skip || may != nil && !may(r) {
				continue
			}
			if s, err := Embedded(r); err == nil && !yield(s) {
				return
			}
		}
	}
}

// EmbeddedOwner returns the message whose top-level struct is st among the
// embedded releases parsed so far, and its release's Set; nil, nil when
// none is (st from specs loaded from a path, or from no message's root).
func EmbeddedOwner(st *Struct) (*Message, *Set) {
	var om *Message
	var os *Set
	embedded.Range(func(_, v any) bool {
		s := v.(*Set)
		if m := s.Message(st.Name); m != nil && m.Root == st {
			om, os = m, s
			return false
		}
		return true
	})
	return om, os
}

// fileMayAccept reports whether release r's common/message/<name>.json
// may be the request of api key key with version v: false only when that
// file parses and says otherwise.
func fileMayAccept(r, name string, key, v int16) bool {
	rel, err := bundle.Load(r)
	if err != nil {
		return true
	}
	f, ok := rel.Find("common/message/" + name + ".json")
	if !ok {
		return true
	}
	m, errs := ParseMessage(f.Path, f.Data)
	if m == nil || errs.HasErrors() {
		return true
	}
	return m.Type != Request || m.APIKey != key || m.ValidVersions.Contains(v)
}

// UnstableVersion is the version that the API of m (a request or response
// of s) marks unstable (the highest valid version when the request has
// latestVersionUnstable), or -1.
func (s *Set) UnstableVersion(m *Message) int16 {
	req := m
	if m.Type == Response && m.APIKey >= 0 {
		req = s.Request(m.APIKey)
	}
	if req == nil || req.Type != Request || !req.LatestVersionUnstable || m.ValidVersions.Empty() {
		return -1
	}
	return m.ValidVersions.Hi
}
