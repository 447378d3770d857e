package bundle

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kwire/kwire/spec/bundle/format"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
)

//go:embed *.bundle.gz
var embedded embed.FS

// File is one spec file as read from a source.
type File struct {
	// Source names where the file came from: the jar's file name for an
	// embedded release (e.g. "kafka-clients-4.4.0.jar"), or, for ReadPath,
	// the path that was given (a directory, an archive or the file itself).
	Source string
	// Path is the slash-separated name of the file within Source, e.g.
	// "common/message/VoteRequest.json": the entry name in a jar or zip, the
	// path relative to a directory, or the base name of a single file.
	Path string
	// Data holds the file's bytes, verbatim. For an embedded release the
	// slice is shared between callers of Load and must not be modified.
	Data []byte
}

// Artifact describes one pinned jar an embedded release was extracted from.
type Artifact struct {
	// Coord is the Maven coordinate, e.g. "org.apache.kafka:kafka-clients:4.4.0".
	Coord string
	// URL is the jar's download URL on Maven Central.
	URL string
	// SHA256 is the lower-case hex SHA-256 digest of the jar.
	SHA256 string
	// Files is the number of spec files taken from the jar.
	Files int
}

// Release is the set of spec files of one Apache Kafka release.
type Release struct {
	// Version is the Kafka release version, e.g. "4.4.0".
	Version string
	// Artifacts lists the jars the files were taken from, sorted by Coord.
	Artifacts []Artifact
	// Files holds the spec files, sorted by artifact, then by path.
	Files []File
}

// Find returns the file of r whose Path is p, reporting whether it exists.
func (r *Release) Find(p string) (File, bool) {
	for _, f := range r.Files {
		if f.Path == p {
			return f, true
		}
	}
	return File{}, false
}

// The bundle's layout (package format), named as this file uses it.
type (
	document    = format.Document
	docArtifact = format.Artifact
	docFile     = format.File
)

// entry is one embedded release, decoded at most once.
type entry struct {
	version string
	name    string // embedded file name
	once    sync.Once
	rel     *Release
	err     error
}

// index lists the embedded releases, newest first.
var index = sync.OnceValue(func() []*entry {
	names, err := fs.Glob(embedded, "kafka-*.bundle.gz")
	if err != nil {
		panic(err) // the pattern is valid
	}
	var es []*entry
	for _, n := range names {
		v := strings.TrimSuffix(strings.TrimPrefix(n, "kafka-"), ".bundle.gz")
		es = append(es, &entry{version: v, name: n})
	}
	slices.SortFunc(es, func(a, b *entry) int { return compareVersions(b.version, a.version) })
	return es
})

// Flag is the shortest --kafka value that selects embedded release r
// (Load's argument): "3.9" for "3.9.1" when no newer 3.9.x is embedded,
// else r itself.
func Flag(r string) string {
	parts := strings.Split(r, ".")
	if len(parts) > 2 {
		short := strings.Join(parts[:2], ".")
		if e := find(short); e != nil && e.version == r {
			return short
		}
	}
	return r
}

// find returns the newest embedded release that release names (see Load),
// or nil. It decodes nothing.
func find(release string) *entry {
	minor := isMinor(release)
	for _, e := range index() {
		if release == "" || e.version == release || minor && strings.HasPrefix(e.version, release+".") {
			return e
		}
	}
	return nil
}

// isMinor reports whether r is a minor release, "3.6": two dot-separated
// decimal numbers.
func isMinor(r string) bool {
	a, b, ok := strings.Cut(r, ".")
	return ok && isNumber(a) && isNumber(b)
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// notEmbedded is Load's error for release: the embedded releases, and for
// a patch release of an embedded minor ("3.9.0") that minor's last one.
func notEmbedded(release string) error {
	avail := strings.Join(Releases(), ", ")
	if avail == "" {
		avail = "none"
	}
	msg := fmt.Sprintf("no embedded Kafka release matches %q (embedded: %s)", release, avail)
	if p := strings.Split(release, "."); len(p) == 3 && isMinor(p[0]+"."+p[1]) && isNumber(p[2]) {
		if e := find(p[0] + "." + p[1]); e != nil {
			msg += fmt.Sprintf(": Kafka %s is not embedded; try --kafka %s.%s (its minor's last patch release, %s), or --specs with Kafka %s's kafka-clients jar", release, p[0], p[1], e.version, release)
		}
	}
	return errors.New(msg)
}

// Resolve returns the version of the embedded release that release names
// as Load would select it ("3.6" → "3.6.2"), without decompressing any
// bundle, and whether one matches.
func Resolve(release string) (string, bool) {
	if e := find(release); e != nil {
		return e.version, true
	}
	return "", false
}

// Releases returns the versions of the embedded releases, newest first,
// e.g. ["4.4.0", "3.9.1"].
func Releases() []string {
	var vs []string
	for _, e := range index() {
		vs = append(vs, e.version)
	}
	return vs
}

// Load returns the embedded release named by release: an embedded version
// exactly ("4.4.0", "3.9.1"), or a minor ("3.6"), which selects the newest
// embedded patch release of it (3.6.2); "" selects the newest release.
// Nothing else names one ("4", "v3.6", " 3.6"). The error for an unknown
// release lists the embedded ones and, for a patch release of an embedded
// minor ("3.9.0"), suggests that minor.
//
// The bundle is decompressed and verified on first use and cached; every call
// returns a fresh Release whose File.Data slices are shared and must not be
// modified.
func Load(release string) (*Release, error) {
	if e := find(release); e != nil {
		e.once.Do(func() { e.rel, e.err = decode(e.name, e.version) })
		if e.err != nil {
			return nil, e.err
		}
		r := *e.rel
		r.Artifacts = slices.Clone(r.Artifacts)
		r.Files = slices.Clone(r.Files)
		return &r, nil
	}
	return nil, notEmbedded(release)
}

// decode reads and verifies the embedded bundle name.
func decode(name, version string) (*Release, error) {
	fail := func(format string, args ...any) (*Release, error) {
		return nil, fmt.Errorf("bundle: %s: "+format, append([]any{name}, args...)...)
	}
	raw, err := embedded.ReadFile(name)
	if err != nil {
		return fail("%v", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return fail("%v", err)
	}
	dec := json.NewDecoder(zr)
	dec.DisallowUnknownFields()
	var doc document
	if err := dec.Decode(&doc); err != nil {
		return fail("decode: %v", err)
	}
	if err := zr.Close(); err != nil {
		return fail("%v", err)
	}
	if doc.Release != version {
		return fail("holds release %q, want %q", doc.Release, version)
	}
	rel := &Release{Version: doc.Release}
	source := map[string]string{} // coord -> jar file name
	count := map[string]int{}
	for _, a := range doc.Artifacts {
		rel.Artifacts = append(rel.Artifacts, Artifact(a))
		source[a.Coord] = path.Base(a.URL)
	}
	for _, f := range doc.Files {
		src, ok := source[f.Artifact]
		if !ok {
			return fail("file %s: unknown artifact %q", f.Path, f.Artifact)
		}
		sum := sha256.Sum256([]byte(f.Text))
		if hex.EncodeToString(sum[:]) != f.SHA256 {
			return fail("file %s: sha256 mismatch", f.Path)
		}
		count[f.Artifact]++
		rel.Files = append(rel.Files, File{Source: src, Path: f.Path, Data: []byte(f.Text)})
	}
	for _, a := range doc.Artifacts {
		if count[a.Coord] != a.Files {
			return fail("artifact %s: has %d files, header says %d", a.Coord, count[a.Coord], a.Files)
		}
	}
	if len(rel.Files) == 0 {
		return nil, errors.New("bundle: " + name + ": no files")
	}
	return rel, nil
}

// compareVersions orders dot-separated versions numerically component by
// component; non-numeric components compare as strings.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, errx := strconv.Atoi(as[i])
		y, erry := strconv.Atoi(bs[i])
		var c int
		if errx == nil && erry == nil {
			c = cmp.Compare(x, y)
		} else {
			c = strings.Compare(as[i], bs[i])
		}
		if c != 0 {
			return c
		}
	}
	return len(as) - len(bs)
}

// WriteReleases writes to w a line per embedded release, newest first: its
// version, the --kafka value that selects it (Flag) and how many spec files
// it holds, in aligned columns (two-space indent). With jars, each release's
// line is followed by a line per Artifact: its Maven coordinate and sha256.
// The error is Load's or w's.
func WriteReleases(w io.Writer, jars bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range Releases() {
		rel, err := Load(r)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "  %s\t--kafka %s\t%d spec files\n", r, Flag(r), len(rel.Files))
		if jars {
			for _, art := range rel.Artifacts {
				fmt.Fprintf(tw, "\t%s\tsha256 %s\n", art.Coord, art.SHA256)
			}
		}
	}
	return tw.Flush()
}
