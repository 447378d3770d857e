package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"time"

	"github.com/kwire/kwire/hexdump"
	"github.com/kwire/kwire/internal/cli"
	"github.com/kwire/kwire/internal/hint"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/site"
	"github.com/kwire/kwire/spec"
)

// serveCmd is `kwire serve`: the atlas over HTTP, pages rendered on demand
// (or the files of a site written by `kwire site`), plus a decode page.
type serveCmd struct {
	Addr string `help:"Address to listen on." default:"127.0.0.1:8080" placeholder:"HOST:PORT"`
	Dir  string `help:"Serve the files of a site written by kwire site instead of rendering pages on demand." placeholder:"DIR" type:"existingdir"`
}

func (a *app) serve(c *serveCmd) error {
	if err := cli.HostPort("addr", c.Addr, true); err != nil {
		return err
	}
	sets, err := a.siteSets()
	if err != nil {
		return err
	}
	var dir fs.FS
	if c.Dir != "" {
		d, closer, err := site.Dir(c.Dir)
		if err != nil {
			return err
		}
		defer closer.Close()
		dir = d
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serveMemoryLimit)
	}
	h := siteHandler(sets, dir)
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	srv := newServer(h)
	fmt.Fprintf(a.stdout, "serving the Kafka protocol atlas on http://%s/ (decode page: http://%s/decode); Ctrl-C stops\n", ln.Addr(), ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// serveTimeouts bound a request's time: reading its header, reading all
// of it, and writing its answer (a decode's work is bounded by
// serveDecode's budget). A variable for tests.
var serveTimeouts = struct{ header, read, write time.Duration }{10 * time.Second, 30 * time.Second, 60 * time.Second}

// newServer is the HTTP server of kwire serve for h, with serveTimeouts.
func newServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: serveTimeouts.header, ReadTimeout: serveTimeouts.read, WriteTimeout: serveTimeouts.write}
}

// siteHandler is the handler of kwire serve: the site of sets (the files
// of dir, opened by site.Dir, when dir is not nil) and its decode page.
//
// A request to the decode page holds one of serveDecodes from before its
// decode to after its page is written (the page is the larger part of
// its memory: rendered outside the hold, eight at once took the server
// 146 MiB over its baseline); one that finds none free within serveWait
// is answered that the server is busy.
func siteHandler(sets []*spec.Set, dir fs.FS) http.Handler {
	h := site.New(sets...).Handler(dir, serveDecode)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/decode" {
			h.ServeHTTP(w, r)
			return
		}
		wait := time.NewTimer(serveWait)
		defer wait.Stop()
		select {
		case serveDecodes <- struct{}{}:
			defer func() { <-serveDecodes }()
			r = r.WithContext(context.WithValue(r.Context(), decodeHold{}, true))
		case <-wait.C:
			r = r.WithContext(context.WithValue(r.Context(), decodeHold{}, false))
		}
		h.ServeHTTP(w, r)
	})
}

// decodeHold is the key of what siteHandler says of a request to the
// decode page: true, it holds one of serveDecodes; false, it found none.
type decodeHold struct{}

// Bounds of one request to the decode page, whose hex site.MaxDecodeHex
// bounds: what its compressed records may decompress to together
// (bytes), and the nodes of each frame's records (about 300 bytes of the
// page a node, and 1.5 KB of the server's memory while it is made: 16 Ki
// nodes are a 5 MB page and 25 MiB; 64 Ki took 100 MiB).
const (
	serveMaxDecompressed = 8 << 20
	serveMaxNodes        = 1 << 14
)

// serveMemoryLimit is kwire serve's soft limit of the Go heap
// (runtime/debug.SetMemoryLimit), unless GOMEMLIMIT sets another: the
// collector runs before the garbage of one decode and the next together
// double the heap (six header bombs one after the other took the server
// 155 MiB over its baseline; with the limit 49).
const serveMemoryLimit = 64 << 20

// serveDecodes bounds the decodes the decode page runs at once: one,
// each within the bounds above (a decode takes at most about 0.3 s on 2
// cores; two at once took the server 135 MiB over its baseline, one 47);
// a request that finds none free within serveWait is answered that the
// server is busy.
var serveDecodes = make(chan struct{}, 1)

// serveWait is how long a request to the decode page waits for a free
// decode. A variable for tests.
var serveWait = 10 * time.Second

// serveDecode decodes the decode page's hex as `kwire decode` does, within
// the bounds of one request (serveMaxDecompressed, serveMaxNodes), at most
// cap(serveDecodes) at once (held by siteHandler for the whole request).
func serveDecode(set *spec.Set, q site.DecodeQuery) (*render.Page, error) {
	b, err := hexdump.Parse([]byte(q.Hex))
	if err != nil {
		return nil, fmt.Errorf("hex: %v", err)
	}
	// siteHandler, the only way here, says whether the request holds
	// its turn.
	held := q.Context != nil && q.Context.Value(decodeHold{}) == true
	if !held {
		return nil, fmt.Errorf("the server is decoding %d %s, its most at once: try again", cap(serveDecodes), plural(cap(serveDecodes), "request", "requests"))
	}
	pages, err := render.Decode(set, render.Claim{API: q.API, Version: q.Version, Response: q.Response, MaxDecompressed: serveMaxDecompressed, MaxNodes: serveMaxNodes}, b)
	if render.HintOnly(pages, err) {
		pages = nil // the hint alone, as kwire decode prints it
	}
	err = hint.DecodeForm(set, err) // the page's form, not flags
	if len(pages) == 0 {
		var u usageError
		if errors.As(err, &u) {
			return nil, u.Err
		}
		return nil, err
	}
	for i := range pages[0].Sides {
		pages[0].Sides[i].Err = hint.DecodeForm(set, pages[0].Sides[i].Err)
	}
	if err == nil && len(pages) > 1 {
		err = fmt.Errorf("the bytes hold %d frames: this page shows the first (kwire decode shows them all)", len(pages))
	}
	return pages[0], err
}
