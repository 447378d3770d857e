package site

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDirServesOnlyInside plants links in a served directory: those whose
// target stays inside are served, every other one answers 404 and no byte
// of what lies outside reaches the body.
func TestDirServesOnlyInside(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "site")
	write := func(name, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "page.html"), "inside page")
	write(filepath.Join(root, "sub", "a.html"), "inside sub")
	write(filepath.Join(base, "outside.txt"), "OUTSIDE-SECRET")
	write(filepath.Join(base, "outdir", "index.html"), "OUTSIDE-DIR")
	link("/etc/passwd", "passwd")
	link("../outside.txt", "up.txt")
	link("../outdir", "outdir")
	link("nothing-here.html", "dangling.html")
	link(filepath.Join(root, "page.html"), "absolute-inside.html")
	link("page.html", "same.html")
	link("../page.html", "sub/back.html")
	link("sub", "subdir")
	link("sub/../../outside.txt", "through.txt")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.html"), 0o644); err != nil {
		t.Fatal(err)
	}

	dir, c, err := Dir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv := httptest.NewServer(New(embedded(t, "4.4.0")).Handler(dir, nil))
	defer srv.Close()
	cl := srv.Client()
	cl.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, tc := range []struct {
		path string
		code int
		body string // the whole body when 200, a part of it when 404
	}{
		{"/page.html", 200, "inside page"},
		{"/page", 200, "inside page"},
		{"/same.html", 200, "inside page"},
		{"/sub/back", 200, "inside page"},
		{"/subdir/a.html", 200, "inside sub"},
		{"/passwd", 404, "404: no page passwd in this site"},
		{"/up.txt", 404, "404: no page up.txt"},
		{"/through.txt", 404, "404: no page through.txt"},
		{"/outdir/", 404, "404: no page outdir/index.html"},
		{"/outdir/index.html", 404, "404: no page outdir/index.html"},
		{"/outdir", 404, "404: no page outdir"},
		{"/dangling.html", 404, "404: no page dangling.html"},
		{"/dangling", 404, "404: no page dangling"},
		{"/absolute-inside.html", 404, "404: no page absolute-inside.html"},
		{"/fifo.html", 404, "404: no page fifo.html"},
		{"/sub", 404, "404: no page sub"},
		{"/..%2foutside.txt", 404, "404: no page outside.txt"},
		{"/sub/..%2f..%2foutside.txt", 404, "404: no page outside.txt"},
	} {
		resp, err := cl.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := string(b)
		if resp.StatusCode != tc.code {
			t.Errorf("GET %s: %d, want %d (%q)", tc.path, resp.StatusCode, tc.code, body)
			continue
		}
		if tc.code == 200 && body != tc.body || tc.code != 200 && !strings.Contains(body, tc.body) {
			t.Errorf("GET %s: body %q, want %q", tc.path, body, tc.body)
		}
		for _, leak := range []string{"OUTSIDE", "root:"} {
			if strings.Contains(body, leak) {
				t.Errorf("GET %s: the body holds %q from outside the directory", tc.path, leak)
			}
		}
	}
}

func mustDir(t *testing.T, path string) fs.FS {
	t.Helper()
	d, c, err := Dir(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return d
}
