package site

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
)

// DecodeQuery is what the decode page's form asks for.
type DecodeQuery struct {
	// Hex is the pasted bytes as hex text (spaces, ':' and 0x prefixes
	// allowed, as `kwire decode --hex` takes them).
	Hex string
	// API names what the bytes are (empty: a request, by its header).
	API string
	// Version is the version of the bytes, or nil.
	Version *int16
	// Response says the bytes are a framed response.
	Response bool
	// Context is the request's: what a handler wrapping the site's put
	// in it reaches its DecodeFunc.
	Context context.Context
}

// DecodeFunc decodes the bytes of a query against set as `kwire decode`
// does. It returns the page, possibly partial with an error, or nil and an
// error about the query.
type DecodeFunc func(set *spec.Set, q DecodeQuery) (*render.Page, error)

// MaxDecodeHex bounds the hex text the decode page accepts (characters):
// 512 Ki, frames of 256 KiB. The page of a frame shows every byte, at
// about 200 bytes of memory a byte while it is made: a request takes 64
// MiB at most.
const MaxDecodeHex = 512 << 10

// Dir opens the directory path (one written by Generate) for Handler. Only
// names that resolve inside path are served: a symbolic link is followed
// when it is relative and its target stays inside the directory (a link
// between two pages of the site), while a link that leaves the directory
// (through "..", or an absolute one, even to a file inside), a dangling link
// and anything that is not a regular file (a directory, a device, a named
// pipe, a socket) are refused, so the server answers 404 as for a missing
// page. A hard link is a name of the file itself, which no open can tell
// from its other names: one inside path is served. The directory is opened
// once: renaming it later does not move what is served, and the returned
// closer releases it.
func Dir(path string) (fs.FS, io.Closer, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, nil, err
	}
	return r.FS(), r, nil
}

// Handler serves the site over HTTP: the files of dir (a directory opened
// by Dir, written by Generate) when dir is not nil, else every page
// rendered on demand. Of dir only regular files are served.
// A path may leave out ".html" (…/Vote/v2/request) or name a directory
// (…/4.4.0/). When decode is not nil, /decode is a page where pasted hex is
// decoded on the server into the same view as the atlas pages, and the
// site's front page links to it.
func (s *Site) Handler(dir fs.FS, decode DecodeFunc) http.Handler {
	mux := http.NewServeMux()
	if decode != nil {
		mux.HandleFunc("/decode", func(w http.ResponseWriter, r *http.Request) {
			s.serveDecode(w, r, decode)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		p := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
		if p == "" || p == "index.html" {
			var b bytes.Buffer
			o := newOut(&b)
			s.writeTop(o, decode != nil)
			if o.flush() == nil {
				serveBytes(w, r, "index.html", b.Bytes())
				return
			}
		}
		switch {
		case strings.HasSuffix(r.URL.Path, "/"):
			p += "/index.html"
		case s.exists(dir, p):
		case s.exists(dir, p+".html"):
			p += ".html"
		case s.exists(dir, p+"/index.html"):
			http.Redirect(w, r, path.Base(p)+"/", http.StatusMovedPermanently)
			return
		}
		b, err := s.read(dir, p)
		if err != nil {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte("404: no page " + p + " in this site\n"))
			return
		}
		serveBytes(w, r, p, b)
	})
	return mux
}

func (s *Site) exists(dir fs.FS, p string) bool {
	if dir == nil {
		return s.Has(p)
	}
	fi, err := fs.Stat(dir, p)
	return err == nil && fi.Mode().IsRegular()
}

func (s *Site) read(dir fs.FS, p string) ([]byte, error) {
	if dir == nil {
		return s.RenderBytes(p)
	}
	if !s.exists(dir, p) {
		return nil, fs.ErrNotExist
	}
	// The name was a regular file when stat'ed; check the file opened, so
	// that a file swapped for something else in between is not read.
	f, err := dir.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fs.ErrNotExist
	}
	return io.ReadAll(f)
}

func serveBytes(w http.ResponseWriter, r *http.Request, name string, b []byte) {
	h := w.Header()
	ct := mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) {
	case ".html":
		ct = "text/html; charset=utf-8"
	case ".js":
		ct = "text/javascript; charset=utf-8"
	case ".css":
		ct = "text/css; charset=utf-8"
	}
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	if strings.HasPrefix(name, "assets/") {
		// The style sheet and script are shared by every page: let the
		// browser keep them while one browses.
		h.Set("Cache-Control", "public, max-age=600")
	}
	h.Set("Content-Length", strconv.Itoa(len(b)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(b)
}

// serveDecode serves the decode page: the form, and when it holds hex,
// the decoded message in the view of the atlas pages.
func (s *Site) serveDecode(w http.ResponseWriter, r *http.Request, decode DecodeFunc) {
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, MaxDecodeHex+64<<10)
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	f := decodeForm{Hex: r.Form.Get("hex"), API: strings.TrimSpace(r.Form.Get("api")), Version: strings.TrimSpace(r.Form.Get("version")), Response: r.Form.Get("response") != ""}
	f.Release = r.Form.Get("release")
	var rel *release
	for _, x := range s.rels {
		if x.slug == f.Release {
			rel = x
		}
	}
	if rel == nil && len(s.rels) > 0 {
		rel = s.rels[0]
		f.Release = rel.slug
	}
	for _, x := range s.rels {
		f.Releases = append(f.Releases, decodeRelease{Name: x.slug, Selected: x == rel})
	}
	var (
		page *render.Page
		err  error
	)
	status := http.StatusOK
	if strings.TrimSpace(f.Hex) != "" && rel != nil {
		q := DecodeQuery{Hex: f.Hex, API: f.API, Response: f.Response, Context: r.Context()}
		if f.Version != "" {
			v, perr := strconv.ParseInt(f.Version, 10, 16)
			if perr != nil {
				err = errors.New("version: not a number from 0 to 32767")
			} else {
				v16 := int16(v)
				q.Version = &v16
			}
		}
		switch {
		case err != nil:
		case len(f.Hex) > MaxDecodeHex:
			err = errors.New("too much hex: the decode page takes at most " + strconv.Itoa(MaxDecodeHex) + " characters")
		default:
			page, err = decode(rel.set, q)
		}
		if page == nil && err != nil {
			status = http.StatusUnprocessableEntity
		}
	}
	var b bytes.Buffer
	o := newOut(&b)
	s.writeDecode(o, rel, f, page, err)
	if ferr := o.flush(); ferr != nil {
		http.Error(w, ferr.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	if status != http.StatusOK {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		w.Write(b.Bytes())
		return
	}
	serveBytes(w, r, "decode.html", b.Bytes())
}

// decodeForm is the decode page's form, as filled in.
type decodeForm struct {
	Hex, API, Version string
	Response          bool
	Release           string
	Releases          []decodeRelease
}

type decodeRelease struct {
	Name     string
	Selected bool
}

// writeDecode writes the decode page: the form, then the decoded page's
// sides (or the error).
func (s *Site) writeDecode(o *out, rel *release, f decodeForm, page *render.Page, err error) {
	o.t("head", headData{Title: "Decode", Crumbs: []crumb{{"decode", "Decode"}}, Desc: "Decode the bytes of a Kafka request, response or record."})
	o.t("decode-form", f)
	if page == nil && err != nil {
		o.s(`<p class="err" role="alert">`)
		o.e(err.Error())
		o.s("</p>\n")
	}
	if page != nil {
		o.s(`<div class="sides one" id="result">` + "\n")
		for i, ps := range page.Sides {
			sd := side{Side: ps, body: "q", id: "decoded"}
			if i > 0 {
				sd.id = "decoded" + strconv.Itoa(i)
				sd.prefix = sd.id + "."
			}
			if ps.Tree != nil && ps.Tree.Message != nil {
				sd.m = ps.Tree.Message
				if sd.m.Type == spec.Response {
					sd.body = "p"
				}
			}
			writeSide(o, sd, func() {
				if sd.m == nil || rel == nil {
					return
				}
				if e := rel.byName[strings.ToLower(sd.m.BaseName())]; e != nil && e.versions().Contains(ps.Tree.Version) {
					o.s(`<p>The smallest `)
					o.e(e.name)
					o.s(` v`)
					o.d(int(ps.Tree.Version))
					o.s(` in the atlas: <a href="`, e.versionPath(ps.Tree.Version))
					if sd.m.Type == spec.Response {
						o.s("#response")
					}
					o.s(`">`)
					o.e(e.name)
					o.s(" v")
					o.d(int(ps.Tree.Version))
					o.s("</a>.</p>\n")
				}
				writeSpec(o, sd.m)
			})
		}
		o.s("</div>\n")
	}
	var rels []*release
	if rel != nil {
		rels = append(rels, rel)
	}
	o.t("foot", s.foot("", rels...))
}
