package evolve

import (
	"slices"
	"sort"
	"strings"

	"github.com/kwire/kwire/spec"
)

// DiffRow summarises how one API (its request and response together) or one
// other message differs between two sets of specs, from Compat's findings.
type DiffRow struct {
	// Kind is "api" for a request/response pair, else the message type.
	Kind string
	// APIKey is the api key, or -1.
	APIKey int16
	// Name is the API's name without Request/Response, or the message's
	// name, in the new specs (the old ones when removed); OldName is the old
	// name of a renamed API or message.
	Name, OldName string
	// Status is "added", "removed" (also when every version was removed),
	// "renamed" or "changed".
	Status string
	// OldVersions and NewVersions are the valid versions (of the request,
	// for an API).
	OldVersions, NewVersions spec.Versions
	// Removed and Added are the versions that went and came; Changed the
	// versions both sides have where a field differs (on the wire or only in
	// its name).
	Removed, Added, Changed []spec.Versions
	// Counts of findings by impact.
	Incompatible, Compatible, Info int
	// Other lists the rules of findings that do not concern versions or
	// fields: listeners-changed, deprecated-changed, unstable-changed.
	Other []string
	// Records lists the rules of findings about a coordinator record key's
	// or value's spec form and record types: record-form-changed,
	// record-type-moved, record-type-removed, record-type-added.
	Records []string
}

// Substantive reports whether the row concerns presence, versions, fields
// or a coordinator record's form and record types, not only listeners,
// deprecation or stability marks.
func (r *DiffRow) Substantive() bool {
	return r.Status != "changed" || len(r.Removed) > 0 || len(r.Added) > 0 || len(r.Changed) > 0 || len(r.Records) > 0
}

// metaRules are the findings that leave versions and fields alone.
var metaRules = map[string]bool{"listeners-changed": true, "deprecated-changed": true, "unstable-changed": true}

// Diff groups Compat's findings into one row per API or message that
// differs, in the order of the findings.
func Diff(old, new *spec.Set, findings []Finding) []DiffRow {
	type key struct {
		kind string
		api  int16
		name string
	}
	var rows []*DiffRow
	byKey := map[key]*DiffRow{}
	for _, f := range findings {
		k := key{kind: string(f.Type), api: -1, name: f.Message}
		if (f.Type == spec.Request || f.Type == spec.Response) && f.APIKey >= 0 {
			k = key{kind: "api", api: f.APIKey}
		}
		r := byKey[k]
		if r == nil {
			r = &DiffRow{Kind: k.kind, APIKey: f.APIKey, Name: f.Message, Status: "changed", OldVersions: spec.None, NewVersions: spec.None}
			if k.kind == "api" {
				r.Name = apiName(f.Message)
				oq, nq := apiSide(old, f.APIKey, f.OldMessage, f.Message), apiSide(new, f.APIKey, "", f.Message)
				if oq != nil {
					r.OldVersions = oq.ValidVersions
					if on := apiName(oq.Name); on != r.Name {
						r.OldName = on
					}
				}
				if nq != nil {
					r.NewVersions = nq.ValidVersions
				} else if oq != nil {
					r.Name = apiName(oq.Name)
				}
			} else {
				if m := old.Message(f.OldMessage); m != nil {
					r.OldVersions = m.ValidVersions
				} else if m := old.Message(f.Message); m != nil {
					r.OldVersions = m.ValidVersions
				}
				if m := new.Message(f.Message); m != nil && f.Rule != "message-removed" {
					r.NewVersions = m.ValidVersions
				}
				r.OldName = f.OldMessage
				if r.OldName == r.Name {
					r.OldName = ""
				}
			}
			byKey[k] = r
			rows = append(rows, r)
		}
		switch f.Severity {
		case Incompatible:
			r.Incompatible++
		case CompatibleChange:
			r.Compatible++
		default:
			r.Info++
		}
		switch {
		case f.Rule == "message-added":
			r.Status = "added"
		case f.Rule == "message-removed":
			r.Status = "removed"
		case f.Rule == "message-renamed" && r.Status == "changed":
			r.Status = "renamed"
		case f.Rule == "versions-removed" || f.Rule == "top-versions-removed":
			r.Removed = addRange(r.Removed, f.Versions)
		case f.Rule == "versions-added":
			r.Added = addRange(r.Added, f.Versions)
		case metaRules[f.Rule]:
			if !slices.Contains(r.Other, f.Rule) {
				r.Other = append(r.Other, f.Rule)
			}
		case strings.HasPrefix(f.Rule, "record-"):
			if !slices.Contains(r.Records, f.Rule) {
				r.Records = append(r.Records, f.Rule)
			}
		case !f.Versions.Empty():
			r.Changed = addRange(r.Changed, f.Versions)
		}
	}
	out := make([]DiffRow, 0, len(rows))
	for _, r := range rows {
		if r.Status == "changed" && r.NewVersions.Empty() && !r.OldVersions.Empty() {
			r.Status = "removed"
		}
		out = append(out, *r)
	}
	return out
}

// apiName is a request's or response's name without the suffix.
func apiName(name string) string {
	return strings.TrimSuffix(strings.TrimSuffix(name, "Request"), "Response")
}

// apiSide returns the request of the API (or its response when there is
// no request spec), found by api key or by one of the names.
func apiSide(s *spec.Set, key int16, names ...string) *spec.Message {
	if m := s.Request(key); m != nil {
		return m
	}
	if m := s.Response(key); m != nil {
		return m
	}
	for _, n := range names {
		if m := s.Message(n); n != "" && m != nil {
			return m
		}
	}
	return nil
}

// addRange adds vs to a sorted list of disjoint ranges, merging ranges that
// overlap or touch.
func addRange(rs []spec.Versions, vs spec.Versions) []spec.Versions {
	if vs.Empty() {
		return rs
	}
	rs = append(rs, vs)
	sort.Slice(rs, func(i, j int) bool { return rs[i].Lo < rs[j].Lo })
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if int(r.Lo) <= int(last.Hi)+1 {
			last.Hi = max(last.Hi, r.Hi)
			continue
		}
		out = append(out, r)
	}
	return out
}
