package main

import (
	"fmt"
	"time"

	"github.com/kwire/kwire/site"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle/pins"
)

// siteCmd is `kwire site --out DIR`: write the Kafka protocol atlas, a
// self-contained static site (see package site for its layout).
type siteCmd struct {
	Out     string `help:"Directory to write the site to (created when missing; files of the site are overwritten)." required:"" placeholder:"DIR" type:"path"`
	Workers int    `help:"Pages rendered at once (default: one per CPU)." placeholder:"N"`
	Quiet   bool   `help:"Do not print what was written."`
}

func (a *app) site(c *siteCmd) error {
	start := time.Now()
	sets, err := a.siteSets()
	if err != nil {
		return err
	}
	s := site.New(sets...)
	st, err := s.Generate(c.Out, c.Workers)
	if err != nil {
		return err
	}
	if !c.Quiet {
		fmt.Fprintf(a.stdout, "wrote %d files (%.1f MB) for %v to %s in %s; open %s/index.html\n",
			st.Files, float64(st.Bytes)/1e6, s.Releases(), c.Out, time.Since(start).Round(time.Millisecond), c.Out)
	}
	if n := len(a.problems.Errors()); n > 0 {
		return fmt.Errorf("%d spec %s above: the site lacks the messages of the files that did not load", n, plural(n, "error", "errors"))
	}
	return nil
}

// siteSets are the spec sets of the site: the one --kafka or --specs
// names, else the featured embedded releases (pins.Featured: 4.4.0 and
// 3.9.1), newest first.
func (a *app) siteSets() ([]*spec.Set, error) {
	if a.cli.Kafka != "" || a.cli.Specs != "" {
		set, err := a.loadSet()
		if err != nil {
			return nil, err
		}
		return []*spec.Set{set}, nil
	}
	var sets []*spec.Set
	for _, r := range pins.Featured() {
		s, err := spec.Embedded(r)
		if err != nil {
			return nil, err
		}
		sets = append(sets, s)
	}
	return sets, nil
}
