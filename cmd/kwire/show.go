package main

import (
	"fmt"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
)

func (a *app) show(c *showCmd) error {
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	only := ""
	switch {
	case c.Request:
		only = "request"
	case c.Response:
		only = "response"
	}
	p, err := showPage(set, c.Name, c.Version, only)
	if err != nil {
		return a.notLoaded(err)
	}
	return a.writePage(p, c.Format)
}

// showPage builds the page of `kwire show`: the smallest legal instance of
// an API's request and response at version (nil: the highest valid
// version), or of a record or data type. only limits an API to its
// "request" or "response" side.
func showPage(set *spec.Set, name string, version *int16, only string) (*render.Page, error) {
	req, resp, err := render.Resolve(set, name)
	if err != nil {
		return nil, err
	}
	cd := codec.New(set)
	p := &render.Page{Set: set}
	if !render.IsAPI(req) && !render.IsAPI(resp) {
		if only != "" {
			return nil, usagef("%s is a %s type, not an API: it has no request or response side (drop --%s)", req.Name, req.Type, only)
		}
		v, err := pickVersion(set, req, version)
		if err != nil {
			return nil, err
		}
		t, err := cd.EncodeRecord(req, v, instance.Smallest(req, v))
		if err != nil {
			return nil, fmt.Errorf("encoding the smallest %s v%d: %w", req.Name, v, err)
		}
		t.Sample = true
		p.Sides = append(p.Sides, render.Side{Label: "Record", Tree: t})
		return p, nil
	}
	primary := req
	if primary == nil || only == "response" && resp != nil {
		primary = resp
	}
	v, err := pickVersion(set, primary, version)
	if err != nil {
		return nil, err
	}
	for _, s := range []struct {
		label string
		m     *spec.Message
	}{{"Request", req}, {"Response", resp}} {
		if only != "" && only != strings.ToLower(s.label) {
			continue
		}
		if s.m == nil {
			if only == "" {
				continue // a draft with one side: show what there is
			}
			return nil, fmt.Errorf("%s has no %s spec in %s", primary.BaseName(), only, render.SetName(set))
		}
		if s.m != primary && !s.m.ValidVersions.Contains(v) {
			return nil, fmt.Errorf("%s has no version %d in %s (valid versions: %s), though %s has", s.m.Name, v, render.SetName(set), s.m.ValidVersions, primary.Name)
		}
		t, err := cd.Encode(s.m, v, nil, instance.Smallest(s.m, v))
		if err != nil {
			return nil, fmt.Errorf("encoding the smallest %s v%d: %w", s.m.Name, v, err)
		}
		t.Sample = true
		p.Sides = append(p.Sides, render.Side{Label: s.label, Tree: t})
	}
	return p, nil
}

// pickVersion returns want when m has that version, or m's highest valid
// version when want is nil. The error names the valid versions and the
// embedded releases that have what was asked for.
func pickVersion(set *spec.Set, m *spec.Message, want *int16) (int16, error) {
	vv := m.ValidVersions
	switch {
	case want == nil && vv.Empty():
		return 0, fmt.Errorf("%s has no valid versions in %s %s", m.Name, render.SetName(set), removedHint(set, m))
	case want == nil:
		return vv.Hi, nil
	case !vv.Contains(*want):
		return 0, fmt.Errorf("%s has no version %d in %s (valid versions: %s)%s", m.Name, *want, render.SetName(set), vv, elsewhere(set, m.Name, want))
	}
	return *want, nil
}

// removedHint explains a message without valid versions and names the
// embedded releases that have some: `(its spec says validVersions "none":
// the API was removed); Kafka 3.9.1 has versions 0-7: try --kafka 3.9`.
// show's error and history's text both end with it.
func removedHint(set *spec.Set, m *spec.Message) string {
	return `(its spec says validVersions "none": the API was removed)` + elsewhere(set, m.Name, nil)
}

// elsewhere names the other embedded releases where message name has
// version v (any version when v is nil), as a hint to append to an error:
// "; Kafka 3.9.1 has versions 0-7: try --kafka 3.9".
func elsewhere(set *spec.Set, name string, v *int16) string {
	var hints []string
	for _, r := range bundle.Releases() {
		if r == set.Release {
			continue
		}
		other, err := spec.Embedded(r)
		if err != nil {
			continue
		}
		m := other.Message(name)
		if m == nil || m.ValidVersions.Empty() || v != nil && !m.ValidVersions.Contains(*v) {
			continue
		}
		hints = append(hints, fmt.Sprintf("Kafka %s has versions %s: try --kafka %s", r, m.ValidVersions, bundle.Flag(r)))
	}
	if len(hints) == 0 {
		return ""
	}
	return "; " + strings.Join(hints, "; ")
}

// renderOptions are the render options of --color and --values, fitted
// to the terminal's width.
func (a *app) renderOptions() render.Options {
	v, err := render.ParseValues(a.cli.Values)
	if err != nil {
		v = render.ValuesAuto // kong's enum has checked it
	}
	return render.Options{Color: a.color(), Values: v, Width: a.width}
}
