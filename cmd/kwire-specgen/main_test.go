package main

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/spec/bundle/pins"
)

// testJar builds a small jar and a pin that matches it.
func testJar(t *testing.T) ([]byte, pins.Pin) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range [][2]string{
		{"META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n"},
		{"common/message/", ""},
		{"common/message/B.json", "// b\n{\"name\": \"B\"}\n"},
		{"common/message/A.json", "// a <&>\n{\"name\": \"A\"}\n"},
		{"common/message/README.md", "not a spec"},
		{"common/metadata/C.json", "{}"},
		{"other/D.json", "{}"},
	} {
		w, err := zw.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, e[1])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	return buf.Bytes(), pins.Pin{Release: "9.9.9", GroupID: "org.example", ArtifactID: "demo", SHA256: hex.EncodeToString(sum[:])}
}

func TestExtract(t *testing.T) {
	jar, p := testJar(t)
	files, err := extract(jar, p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
		sum := sha256.Sum256([]byte(f.Text))
		if f.SHA256 != hex.EncodeToString(sum[:]) || f.Artifact != "org.example:demo:9.9.9" {
			t.Errorf("%s: bad record %+v", f.Path, f)
		}
	}
	if want := "common/message/A.json common/message/B.json common/metadata/C.json"; strings.Join(got, " ") != want {
		t.Fatalf("extracted %v, want %s", got, want)
	}
	if files[0].Text != "// a <&>\n{\"name\": \"A\"}\n" {
		t.Errorf("A.json text = %q", files[0].Text)
	}
}

func TestEncodeDeterministic(t *testing.T) {
	jar, p := testJar(t)
	files, err := extract(jar, p)
	if err != nil {
		t.Fatal(err)
	}
	doc := &document{GeneratedBy: generatedBy, Notice: notice, Release: "9.9.9",
		Artifacts: []docArtifact{{Coord: p.Coord(), URL: p.URL(), SHA256: p.SHA256, Files: len(files)}},
		Files:     files}
	a, err := encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("encode is not deterministic")
	}
	zr, err := gzip.NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() || zr.Name != "" || zr.Comment != "" {
		t.Errorf("gzip header carries run-dependent data: %+v", zr.Header)
	}
	var back document
	if err := json.NewDecoder(zr).Decode(&back); err != nil {
		t.Fatal(err)
	}
	if back.Files[0].Text != files[0].Text || back.Release != "9.9.9" {
		t.Errorf("round trip lost data: %+v", back.Files[0])
	}
}

func TestFetch(t *testing.T) {
	jar, p := testJar(t)
	served := jar
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		if r.URL.Path != "/org/example/demo/9.9.9/demo-9.9.9.jar" {
			http.NotFound(w, r)
			return
		}
		w.Write(served)
	}))
	defer srv.Close()
	cache := filepath.Join(t.TempDir(), "cache")
	f := &fetcher{client: srv.Client(), repo: srv.URL, cache: cache, log: io.Discard}
	ctx := context.Background()

	// Download, verify, and fill the cache.
	got, err := f.fetch(ctx, p)
	if err != nil || !bytes.Equal(got, jar) {
		t.Fatalf("fetch = %d bytes, %v", len(got), err)
	}
	if cached, err := os.ReadFile(filepath.Join(cache, "demo-9.9.9.jar")); err != nil || !bytes.Equal(cached, jar) {
		t.Fatalf("cache not filled: %v", err)
	}
	// Served from the cache.
	if _, err := f.fetch(ctx, p); err != nil || hits != 1 {
		t.Fatalf("second fetch: %v, %d downloads", err, hits)
	}
	// A corrupt cached jar is refused, not replaced.
	if err := os.WriteFile(filepath.Join(cache, "demo-9.9.9.jar"), []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.fetch(ctx, p); err == nil || !strings.Contains(err.Error(), "sha256 mismatch") {
		t.Fatalf("tampered cache: err = %v", err)
	}
	// A download with the wrong digest is refused and not cached.
	f.cache = ""
	served = append([]byte(nil), jar...)
	served[len(served)-1] ^= 1
	if _, err := f.fetch(ctx, p); err == nil || !strings.Contains(err.Error(), "sha256 mismatch") {
		t.Fatalf("tampered download: err = %v", err)
	}
	// HTTP errors are reported.
	p.ArtifactID = "absent"
	if _, err := f.fetch(ctx, p); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("missing artifact: err = %v", err)
	}
}
