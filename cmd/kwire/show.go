package main

import (
	"fmt"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/internal/hint"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
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
		v, err := hint.PickVersion(set, req, version)
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
	v, err := hint.PickVersion(set, primary, version)
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

// renderOptions are the render options of --color and --values, fitted
// to the terminal's width.
func (a *app) renderOptions() render.Options {
	v, err := render.ParseValues(a.cli.Values)
	if err != nil {
		v = render.ValuesAuto // kong's enum has checked it
	}
	return render.Options{Color: a.color(), Values: v, Width: a.width}
}
