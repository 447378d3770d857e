// Command kwire-specgen builds the spec bundles embedded by package
// github.com/kwire/kwire/spec/bundle.
//
// For every Apache Kafka release pinned in spec/bundle/pins/pins.go it fetches the
// pinned jars (kafka-clients, kafka-metadata, kafka-raft and, for some
// releases, the group, transaction and share coordinators' and kafka-storage)
// from Maven Central, refuses any jar whose SHA-256 digest differs from its
// pin, extracts the *.json entries under each jar's spec directories
// (common/message/ and common/metadata/; message/ for kafka-storage) verbatim, and
// writes them to <out>/kafka-<version>.bundle.gz: a gzip-compressed JSON
// document, built deterministically so that regenerating it from the same
// jars gives byte-identical output.
//
// Usage:
//
//	kwire-specgen -out DIR [-cache DIR] [-repo URL] [-check]
//
// The -cache directory is consulted for <artifact>-<version>.jar before
// downloading, and downloaded jars are stored there; it defaults to
// $KWIRE_SPECGEN_CACHE. With -check nothing is written: the command fails if
// a bundle in -out differs from what it would write.
package main

import (
	"archive/zip"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/kwire/kwire/spec/bundle/format"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kwire/kwire/spec/bundle/pins"
)

// generatedBy is recorded in every bundle. It holds nothing that varies
// between runs, so that output stays reproducible.
const generatedBy = "kwire-specgen (github.com/kwire/kwire/cmd/kwire-specgen)"

// notice is the attribution recorded in every bundle.
const notice = "The files in this bundle are Apache Kafka's message specifications, " +
	"Copyright The Apache Software Foundation, licensed under the Apache License, Version 2.0 " +
	"(https://www.apache.org/licenses/LICENSE-2.0). Their bytes are unmodified, license headers " +
	"included; kwire-specgen derived this bundle by extracting them from the Apache Kafka release " +
	"jars listed under \"artifacts\". Apache Kafka is a trademark of The Apache Software Foundation."

const (
	maxJarSize  = 512 << 20 // bound on a downloaded jar
	maxSpecSize = 16 << 20  // bound on one spec file
)

func main() {
	out := flag.String("out", "", "directory to write kafka-<version>.bundle.gz files to (required)")
	cache := flag.String("cache", os.Getenv("KWIRE_SPECGEN_CACHE"), "directory of cached jars, used before downloading and filled by downloads (default $KWIRE_SPECGEN_CACHE)")
	repo := flag.String("repo", pins.MavenRepository, "Maven repository base URL to download from (the sha256 pins are enforced regardless)")
	check := flag.Bool("check", false, "write nothing; fail if a bundle in -out differs from the generated one")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: kwire-specgen -out DIR [-cache DIR] [-repo URL] [-check]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	f := &fetcher{
		client: &http.Client{Timeout: 10 * time.Minute},
		repo:   strings.TrimSuffix(*repo, "/"),
		cache:  *cache,
		log:    os.Stderr,
	}
	if err := run(context.Background(), f, *out, *check); err != nil {
		fmt.Fprintln(os.Stderr, "kwire-specgen:", err)
		os.Exit(1)
	}
}

// run generates every pinned release into out, or with check compares.
func run(ctx context.Context, f *fetcher, out string, check bool) error {
	var stale []string
	for _, release := range pins.Releases() {
		data, err := build(ctx, f, release)
		if err != nil {
			return err
		}
		name := filepath.Join(out, pins.BundleName(release))
		old, err := os.ReadFile(name)
		same := err == nil && bytes.Equal(old, data)
		switch {
		case same:
			fmt.Fprintf(f.log, "%s: unchanged (%d bytes)\n", name, len(data))
		case check:
			fmt.Fprintf(f.log, "%s: out of date\n", name)
			stale = append(stale, name)
		default:
			if err := writeFile(name, data); err != nil {
				return err
			}
			fmt.Fprintf(f.log, "%s: written (%d bytes)\n", name, len(data))
		}
	}
	if len(stale) > 0 {
		return fmt.Errorf("out of date: %s (run go generate ./spec/bundle)", strings.Join(stale, ", "))
	}
	return nil
}

// The bundle's layout (package format), named as this file uses it.
type (
	document    = format.Document
	docArtifact = format.Artifact
	docFile     = format.File
)

// build returns the bundle of one release.
func build(ctx context.Context, f *fetcher, release string) ([]byte, error) {
	var ps []pins.Pin
	for _, p := range pins.All() {
		if p.Release == release {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b pins.Pin) int { return cmp.Compare(a.Coord(), b.Coord()) })
	doc := document{GeneratedBy: generatedBy, Notice: notice, Release: release}
	seen := map[string]string{} // path -> coord
	for _, p := range ps {
		jar, err := f.fetch(ctx, p)
		if err != nil {
			return nil, err
		}
		files, err := extract(jar, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.FileName(), err)
		}
		for _, df := range files {
			if other, dup := seen[df.Path]; dup {
				return nil, fmt.Errorf("release %s: %s is in both %s and %s", release, df.Path, other, p.Coord())
			}
			seen[df.Path] = p.Coord()
		}
		doc.Artifacts = append(doc.Artifacts, docArtifact{Coord: p.Coord(), URL: p.URL(), SHA256: p.SHA256, Files: len(files)})
		doc.Files = append(doc.Files, files...)
	}
	return encode(&doc)
}

// extract returns the spec files of a jar, sorted by path.
func extract(jar []byte, p pins.Pin) ([]docFile, error) {
	zr, err := zip.NewReader(bytes.NewReader(jar), int64(len(jar)))
	if err != nil {
		return nil, err
	}
	var files []docFile
	for _, e := range zr.File {
		if e.FileInfo().IsDir() || !strings.HasSuffix(e.Name, ".json") || !inSpecDir(e.Name, p) {
			continue
		}
		data, err := readEntry(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		if !utf8.Valid(data) {
			return nil, fmt.Errorf("%s: not valid UTF-8; it cannot be stored verbatim as JSON text", e.Name)
		}
		sum := sha256.Sum256(data)
		files = append(files, docFile{Artifact: p.Coord(), Path: e.Name, SHA256: hex.EncodeToString(sum[:]), Text: string(data)})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.json entries under %s", strings.Join(p.SpecDirs(), " or "))
	}
	slices.SortFunc(files, func(a, b docFile) int { return cmp.Compare(a.Path, b.Path) })
	for i := 1; i < len(files); i++ {
		if files[i].Path == files[i-1].Path {
			return nil, fmt.Errorf("duplicate entry %s", files[i].Path)
		}
	}
	return files, nil
}

// inSpecDir reports whether the jar entry name lies in one of p's spec
// directories.
func inSpecDir(name string, p pins.Pin) bool {
	for _, d := range p.SpecDirs() {
		if strings.HasPrefix(name, d) {
			return true
		}
	}
	return false
}

func readEntry(e *zip.File) ([]byte, error) {
	rc, err := e.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxSpecSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSpecSize {
		return nil, errors.New("entry too large")
	}
	return data, nil
}

// encode returns the deterministic gzip of doc's JSON: the gzip header has
// no name, comment or modification time, and the compression level is fixed.
func encode(doc *document) ([]byte, error) {
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	zw.Header = gzip.Header{OS: 255} // zero ModTime and no Name: nothing run-dependent
	if _, err := zw.Write(js.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return gz.Bytes(), nil
}

// writeFile replaces name with data atomically.
func writeFile(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".kwire-specgen-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// fetcher obtains pinned jars from a cache directory or a Maven repository,
// always verifying their SHA-256 digests against the pins.
type fetcher struct {
	client *http.Client
	repo   string // Maven repository base URL, without trailing slash
	cache  string // cache directory, or ""
	log    io.Writer
}

// fetch returns the verified bytes of the jar p.
func (f *fetcher) fetch(ctx context.Context, p pins.Pin) ([]byte, error) {
	if f.cache != "" {
		name := filepath.Join(f.cache, p.FileName())
		data, err := os.ReadFile(name)
		switch {
		case err == nil:
			if err := verify(data, p); err != nil {
				return nil, fmt.Errorf("%s: %w (delete it to download again)", name, err)
			}
			return data, nil
		case !errors.Is(err, os.ErrNotExist):
			return nil, err
		}
	}
	url := f.repo + strings.TrimPrefix(p.URL(), pins.MavenRepository)
	fmt.Fprintf(f.log, "downloading %s\n", url)
	data, err := f.download(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", url, err)
	}
	if err := verify(data, p); err != nil {
		return nil, fmt.Errorf("download %s: %w", url, err)
	}
	if f.cache != "" {
		if err := os.MkdirAll(f.cache, 0o755); err != nil {
			return nil, err
		}
		if err := writeFile(filepath.Join(f.cache, p.FileName()), data); err != nil {
			return nil, err
		}
	}
	return data, nil
}

func (f *fetcher) download(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "kwire-specgen")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP status %s", resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJarSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxJarSize {
		return nil, errors.New("response too large")
	}
	return data, nil
}

// verify refuses data unless its SHA-256 digest is the one pinned for p.
func verify(data []byte, p pins.Pin) error {
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != p.SHA256 {
		return fmt.Errorf("sha256 mismatch for %s: got %s, pinned %s; refusing to use it", p.Coord(), got, p.SHA256)
	}
	return nil
}
