package site

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/evolve"
)

// Site is the atlas of one or more spec sets. Its pages are rendered on
// demand (Render, FS) or all at once (Generate); it is safe for concurrent
// use.
type Site struct {
	rels  []*release
	pages map[string]pageRef
	paths []string
}

// release is one spec set of the site and its entries.
type release struct {
	slug    string
	set     *spec.Set
	codec   *codec.Codec
	entries []*entry
	byName  map[string]*entry
}

// entryKind says which section of the index an entry belongs to.
type entryKind uint8

const (
	kindAPI entryKind = iota
	kindHeader
	kindMetadata
	kindData
)

// entry is one API (its request and response) or one other message type:
// a directory of the site.
type entry struct {
	rel  *release
	name string
	kind entryKind
	// req is the request of an API, or the message of any other kind;
	// resp is the response of an API. Either may be nil in a draft.
	req, resp *spec.Message

	once sync.Once
	hist [2]*evolve.MessageHistory
}

// primary is the message whose versions the entry's pages follow.
func (e *entry) primary() *spec.Message {
	if e.req != nil {
		return e.req
	}
	return e.resp
}

// versions are the entry's valid versions (empty for removed APIs).
func (e *entry) versions() spec.Versions { return e.primary().ValidVersions }

// history returns the version histories of the request (or message) and the
// response, computed once, with the embedded releases that have each
// version (evolve.AddSpans; without them when the embedded releases do not
// load).
func (e *entry) history() [2]*evolve.MessageHistory {
	e.once.Do(func() {
		hs := evolve.APIHistory(e.req, e.resp) // in that order, without the nil ones
		if evolve.AddSpans(hs) != nil {
			for _, h := range hs {
				h.Spans = nil
			}
		}
		for k, m := range []*spec.Message{e.req, e.resp} {
			if m != nil {
				e.hist[k], hs = hs[0], hs[1:]
			}
		}
	})
	return e.hist
}

// pageFile is the file name of the entry's version pages.
func (e *entry) pageFile() string {
	if e.kind == kindAPI {
		return "request.html"
	}
	return "record.html"
}

// versionPath is the path of version v's page from the site root.
func (e *entry) versionPath(v int16) string {
	return e.rel.slug + "/" + e.name + "/v" + strconv.Itoa(int(v)) + "/" + e.pageFile()
}

// pageKind says what a path of the site holds.
type pageKind uint8

const (
	pageTop pageKind = iota
	pageRelease
	pageEntry
	pageVersion
	pageResponseStub
	pageAsset
)

// pageRef locates a page: its kind, release, entry and version.
type pageRef struct {
	kind pageKind
	rel  *release
	e    *entry
	v    int16
}

var slugRE = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// New returns the atlas of sets, one release each (an embedded release is
// named by its version, specs from a path "specs", "specs-2"… in order).
func New(sets ...*spec.Set) *Site {
	s := &Site{pages: map[string]pageRef{}}
	seen := map[string]bool{}
	for _, set := range sets {
		slug := slugRE.ReplaceAllString(set.Release, "-")
		if slug == "" || slug == "." || slug == ".." {
			slug = "specs"
		}
		for base, n := slug, 2; seen[slug]; n++ {
			slug = base + "-" + strconv.Itoa(n)
		}
		seen[slug] = true
		s.rels = append(s.rels, newRelease(slug, set))
	}
	s.add("index.html", pageRef{kind: pageTop})
	for _, a := range assetNames {
		s.add("assets/"+a, pageRef{kind: pageAsset})
	}
	for _, r := range s.rels {
		s.add(r.slug+"/index.html", pageRef{kind: pageRelease, rel: r})
		for _, e := range r.entries {
			s.add(r.slug+"/"+e.name+"/index.html", pageRef{kind: pageEntry, rel: r, e: e})
			vv := e.versions()
			for v := int(vv.Lo); v <= int(vv.Hi); v++ {
				s.add(e.versionPath(int16(v)), pageRef{kind: pageVersion, rel: r, e: e, v: int16(v)})
				if e.kind == kindAPI {
					s.add(r.slug+"/"+e.name+"/v"+strconv.Itoa(v)+"/response.html", pageRef{kind: pageResponseStub, rel: r, e: e, v: int16(v)})
				}
			}
		}
	}
	return s
}

func (s *Site) add(p string, r pageRef) {
	if _, dup := s.pages[p]; dup {
		return
	}
	s.pages[p] = r
	s.paths = append(s.paths, p)
}

// newRelease sorts the messages of set into entries: APIs by api key
// (named without the Request suffix), the headers, metadata records by api
// key, then the other data types by name.
func newRelease(slug string, set *spec.Set) *release {
	r := &release{slug: slug, set: set, codec: codec.New(set), byName: map[string]*entry{}}
	var apis, headers, meta, data []*entry
	for _, m := range set.Messages {
		e := &entry{rel: r, req: m, name: slugRE.ReplaceAllString(m.Name, "_")}
		switch m.Type {
		case spec.Request:
			e.kind, e.name = kindAPI, slugRE.ReplaceAllString(m.BaseName(), "_")
			if m.APIKey >= 0 {
				e.resp = set.Response(m.APIKey)
			}
			apis = append(apis, e)
		case spec.Response:
			if m.APIKey >= 0 && set.Request(m.APIKey) != nil {
				continue
			}
			// A draft with a response and no request.
			e.kind, e.name, e.req, e.resp = kindAPI, slugRE.ReplaceAllString(m.BaseName(), "_"), nil, m
			apis = append(apis, e)
		case spec.Header:
			e.kind = kindHeader
			headers = append(headers, e)
		case spec.Metadata:
			e.kind = kindMetadata
			meta = append(meta, e)
		default:
			e.kind = kindData
			data = append(data, e)
		}
	}
	sort.SliceStable(data, func(i, j int) bool { return data[i].name < data[j].name })
	for _, group := range [][]*entry{apis, headers, meta, data} {
		for _, e := range group {
			if _, dup := r.byName[strings.ToLower(e.name)]; dup {
				continue // two specs of one name in a draft: the first wins
			}
			r.byName[strings.ToLower(e.name)] = e
			r.entries = append(r.entries, e)
		}
	}
	return r
}

// Paths returns the path of every page and asset of the site, from its
// root ("index.html", "4.4.0/Vote/v2/request.html"…), in a stable order.
func (s *Site) Paths() []string { return append([]string(nil), s.paths...) }

// Releases returns the release names of the site, the top directories.
func (s *Site) Releases() []string {
	var out []string
	for _, r := range s.rels {
		out = append(out, r.slug)
	}
	return out
}

// Has reports whether p is the path of a page or asset of the site.
func (s *Site) Has(p string) bool {
	_, ok := s.pages[p]
	return ok
}

// Render writes the page or asset at path p (as Paths lists them).
func (s *Site) Render(w io.Writer, p string) error {
	ref, ok := s.pages[p]
	if !ok {
		return fmt.Errorf("site: no page %q", p)
	}
	switch ref.kind {
	case pageAsset:
		b, err := assets.ReadFile("assets/" + strings.TrimPrefix(p, "assets/"))
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	o := newOut(w)
	switch ref.kind {
	case pageTop:
		s.writeTop(o, false)
	case pageRelease:
		s.writeRelease(o, ref.rel)
	case pageEntry:
		s.writeEntry(o, ref.e)
	case pageVersion:
		s.writeVersion(o, ref.e, ref.v)
	case pageResponseStub:
		s.writeResponseStub(o, ref.e, ref.v)
	}
	return o.flush()
}

// RenderBytes returns the page or asset at path p.
func (s *Site) RenderBytes(p string) ([]byte, error) {
	var b bytes.Buffer
	if err := s.Render(&b, p); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Set returns the spec set of release name (as Releases names them), or
// nil.
func (s *Site) Set(name string) *spec.Set {
	for _, r := range s.rels {
		if r.slug == name {
			return r.set
		}
	}
	return nil
}
