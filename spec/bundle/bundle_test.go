package bundle

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/spec/bundle/pins"
)

func TestReleasesMatchPins(t *testing.T) {
	got := Releases()
	// The last patch release of every minor from 3.0 to 4.4, and 3.9.1 (the
	// release the oracle judges besides the newest).
	want := []string{"4.4.0", "4.3.2", "4.2.2", "4.1.2", "4.0.2", "3.9.2", "3.9.1", "3.8.1",
		"3.7.2", "3.6.2", "3.5.2", "3.4.1", "3.3.2", "3.2.3", "3.1.2", "3.0.2"}
	if !slices.Equal(got, want) {
		t.Fatalf("Releases() = %v, want %v", got, want)
	}
	if want := pins.Releases(); !slices.Equal(got, want) {
		t.Fatalf("Releases() = %v, pinned releases %v", got, want)
	}
}

// filesPerJar is the number of spec files each release's jars hold, in
// the order of the artifacts (by coordinate): kafka-clients,
// kafka-group-coordinator (from 3.5), kafka-metadata, kafka-raft,
// kafka-share-coordinator (from 4.0), kafka-storage,
// kafka-transaction-coordinator (from 3.9) and the broker jar kafka_2.13
// (up to 3.8: the group's and the transaction log's records up to 3.4, the
// transaction log's from 3.5).
var filesPerJar = map[string][]int{
	"4.4.0": {203, 44, 27, 1, 4, 5, 2}, "4.3.2": {198, 44, 26, 1, 4, 5, 2}, "4.2.2": {197, 44, 26, 1, 4, 5, 2},
	"4.1.2": {197, 44, 26, 1, 4, 5, 2}, "4.0.2": {186, 32, 26, 1, 4, 5, 2}, "3.9.2": {186, 22, 25, 1, 4, 2},
	"3.9.1": {186, 22, 25, 1, 4, 2}, "3.8.1": {162, 16, 25, 1, 4, 2}, "3.7.2": {158, 16, 25, 1, 4, 2},
	"3.6.2": {146, 16, 24, 1, 4, 2}, "3.5.2": {146, 16, 20, 1, 4, 2}, "3.4.1": {144, 20, 1, 4, 6},
	"3.3.2": {144, 19, 1, 4, 6}, "3.2.3": {144, 19, 1, 4, 6}, "3.1.2": {144, 17, 1, 4, 6}, "3.0.2": {144, 17, 1, 3, 6},
}

func TestLoadAll(t *testing.T) {
	for _, v := range Releases() {
		t.Run(v, func(t *testing.T) {
			r, err := Load(v)
			if err != nil {
				t.Fatal(err)
			}
			if r.Version != v {
				t.Fatalf("Version = %q, want %q", r.Version, v)
			}

			// The artifacts are exactly the pinned ones.
			var want []Artifact
			for _, p := range pins.All() {
				if p.Release == v {
					want = append(want, Artifact{Coord: p.Coord(), URL: p.URL(), SHA256: p.SHA256})
				}
			}
			if len(r.Artifacts) != len(want) {
				t.Fatalf("%d artifacts, want %d", len(r.Artifacts), len(want))
			}
			total := 0
			for i, a := range r.Artifacts {
				w := want[i]
				if a.Coord != w.Coord || a.URL != w.URL || a.SHA256 != w.SHA256 {
					t.Errorf("artifact %d = %+v, want pin %+v", i, a, w)
				}
				if want := filesPerJar[v][i]; a.Files != want {
					t.Errorf("artifact %s has %d files, want %d", a.Coord, a.Files, want)
				}
				total += a.Files
			}
			if total != len(r.Files) {
				t.Errorf("artifacts count %d files, release has %d", total, len(r.Files))
			}

			// Every file is intact, named, and in a spec directory.
			seen := map[string]bool{}
			for _, f := range r.Files {
				if seen[f.Path] {
					t.Errorf("duplicate path %s", f.Path)
				}
				seen[f.Path] = true
				dirs := pins.SpecDirs()
				if strings.HasPrefix(f.Source, "kafka-storage-") {
					dirs = []string{"message/"}
				}
				if !slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(f.Path, d) }) || !strings.HasSuffix(f.Path, ".json") {
					t.Errorf("unexpected path %s of %s", f.Path, f.Source)
				}
				if !strings.HasPrefix(f.Source, "kafka-") && !strings.HasPrefix(f.Source, "kafka_2.13-") || !strings.HasSuffix(f.Source, "-"+v+".jar") {
					t.Errorf("%s: unexpected source %q", f.Path, f.Source)
				}
				// Kafka 4.1's AlterShareGroupOffsetsResponse.json was
				// released without its license header.
				if !bytes.Contains(f.Data, []byte("Licensed to the Apache Software Foundation")) &&
					(v != "4.1.2" || f.Path != "common/message/AlterShareGroupOffsetsResponse.json") {
					t.Errorf("%s: license header missing", f.Path)
				}
			}

			quorumState := "common/message/QuorumStateData.json"
			if v == "3.0.2" { // renamed in Kafka 3.1
				quorumState = "common/message/QuorumState.json"
			}
			where := map[string]string{
				"common/message/VoteRequest.json":         "kafka-clients-" + v + ".jar",
				"common/metadata/PartitionRecord.json":    "kafka-metadata-" + v + ".jar",
				quorumState:                               "kafka-raft-" + v + ".jar",
				"common/message/ProduceRequest.json":      "kafka-clients-" + v + ".jar",
				"common/metadata/FeatureLevelRecord.json": "kafka-metadata-" + v + ".jar",
			}
			// The internal topics' records (see pins.go), in the jars of
			// the releases that have them.
			where["common/message/OffsetCommitValue.json"] = "kafka-group-coordinator-" + v + ".jar"
			if v < "3.5" {
				where["common/message/OffsetCommitValue.json"] = "kafka_2.13-" + v + ".jar"
			}
			where["common/message/TransactionLogValue.json"] = "kafka-transaction-coordinator-" + v + ".jar"
			if v < "3.9" {
				where["common/message/TransactionLogValue.json"] = "kafka_2.13-" + v + ".jar"
			}
			if v >= "4" {
				where["common/message/ShareSnapshotValue.json"] = "kafka-share-coordinator-" + v + ".jar"
				where["message/ProducerSnapshot.json"] = "kafka-storage-" + v + ".jar"
			}
			if v >= "4.1" {
				where["common/message/OffsetCommitKey.json"] = "kafka-group-coordinator-" + v + ".jar"
			}
			if v >= "3.1" {
				where["message/RemoteLogSegmentMetadataUpdateRecord.json"] = "kafka-storage-" + v + ".jar"
			} else {
				where["message/RemoteLogSegmentMetadataUpdate.json"] = "kafka-storage-" + v + ".jar"
			}
			for path, source := range where {
				f, ok := r.Find(path)
				if !ok {
					t.Errorf("%s missing", path)
					continue
				}
				if f.Source != source {
					t.Errorf("%s: source %q, want %q", path, f.Source, source)
				}
			}
		})
	}
}

// TestFileDigests checks each file's bytes against the digest recorded for
// it in the raw bundle, independently of Load's own verification.
func TestFileDigests(t *testing.T) {
	for _, v := range Releases() {
		raw, err := embedded.ReadFile(pins.BundleName(v))
		if err != nil {
			t.Fatal(err)
		}
		doc := decodeRaw(t, raw)
		r, err := Load(v)
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Files) != len(r.Files) {
			t.Fatalf("%s: %d files in document, %d loaded", v, len(doc.Files), len(r.Files))
		}
		for i, df := range doc.Files {
			sum := sha256.Sum256(r.Files[i].Data)
			if got := hex.EncodeToString(sum[:]); got != df.SHA256 || r.Files[i].Path != df.Path || string(r.Files[i].Data) != df.Text {
				t.Errorf("%s %s: loaded file does not match document (sha256 %s, recorded %s)", v, df.Path, got, df.SHA256)
			}
		}
		if doc.Notice == "" || !strings.Contains(doc.Notice, "Apache License") {
			t.Errorf("%s: notice missing or incomplete: %q", v, doc.Notice)
		}
		if !strings.HasPrefix(doc.GeneratedBy, "kwire-specgen") {
			t.Errorf("%s: generated_by = %q", v, doc.GeneratedBy)
		}
		if len(raw) >= 1<<20 {
			t.Errorf("%s: bundle is %d bytes, want well under 1 MiB", v, len(raw))
		}
		// Deterministic gzip header: no modification time, no name.
		if len(raw) < 10 || !bytes.Equal(raw[4:8], []byte{0, 0, 0, 0}) || raw[3] != 0 {
			t.Errorf("%s: gzip header has mtime or flags set: % x", v, raw[:10])
		}
	}
}

func TestReleaseDifferences(t *testing.T) {
	old, err := Load("3.9.1")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := Load("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	// LeaderAndIsr was removed in Kafka 4.0. The 4.x jars still ship
	// LeaderAndIsrRequest.json, but only as a stub whose validVersions is
	// "none"; 3.9.1 has the real definition.
	const lai = "common/message/LeaderAndIsrRequest.json"
	const removed = `"validVersions": "none"`
	if f, ok := old.Find(lai); !ok {
		t.Errorf("3.9.1 lacks %s", lai)
	} else if bytes.Contains(f.Data, []byte(removed)) || !bytes.Contains(f.Data, []byte(`"fields"`)) {
		t.Errorf("3.9.1 %s is not a full definition", lai)
	}
	if f, ok := cur.Find(lai); ok && !bytes.Contains(f.Data, []byte(removed)) {
		t.Errorf("4.4.0 %s still defines versions", lai)
	}

	// The one spec difference between 3.9.1 and 3.9.2: JoinGroup v0-v1 are
	// no longer deprecated. (Both have the internal topics' records.)
	const jg, dep = "common/message/JoinGroupRequest.json", `"deprecatedVersions": "0-1"`
	if p, err := Load("3.9.2"); err != nil {
		t.Fatal(err)
	} else {
		for _, f := range p.Files {
			o, _ := old.Find(f.Path)
			if same := bytes.Equal(o.Data, f.Data); same != (f.Path != jg) {
				t.Errorf("%s: same in 3.9.1 and 3.9.2: %v", f.Path, same)
			}
		}
		f, _ := p.Find(jg)
		o, _ := old.Find(jg)
		if !bytes.Contains(o.Data, []byte(dep)) || bytes.Contains(f.Data, []byte(dep)) || len(p.Files) != len(old.Files) {
			t.Errorf("3.9.2 %s: want %s dropped", jg, dep)
		}
	}

	// Files that exist in only one of the releases.
	for _, c := range []struct {
		r    *Release
		path string
		want bool
	}{
		{old, "common/message/ListClientMetricsResourcesRequest.json", true},
		{cur, "common/message/ListClientMetricsResourcesRequest.json", false},
		{old, "common/message/StreamsGroupHeartbeatRequest.json", false},
		{cur, "common/message/StreamsGroupHeartbeatRequest.json", true},
		{old, "common/metadata/ClearElrRecord.json", false},
		{cur, "common/metadata/ClearElrRecord.json", true},
	} {
		if _, ok := c.r.Find(c.path); ok != c.want {
			t.Errorf("%s has %s: %v, want %v", c.r.Version, c.path, ok, c.want)
		}
	}
}

func TestLoadSelect(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "4.4.0"},
		{"4.4", "4.4.0"},
		{"4.4.0", "4.4.0"},
		{"3.9", "3.9.2"},
		{"3.9.2", "3.9.2"},
		{"3.9.1", "3.9.1"},
		{"3.6", "3.6.2"},
		{"3.6.2", "3.6.2"},
		{"3.0", "3.0.2"},
		{"4.0", "4.0.2"},
	} {
		r, err := Load(c.in)
		if err != nil {
			t.Errorf("Load(%q): %v", c.in, err)
			continue
		}
		if r.Version != c.want {
			t.Errorf("Load(%q).Version = %q, want %q", c.in, r.Version, c.want)
		}
	}
	// Only a minor or an exact embedded release names one.
	for _, in := range []string{"2.0", "2.8.2", "3.6.1", "4.4.1", "3.9.10", "4.", "44", "x", "3", "4", "v3.6", "v4.4.0", " 3.6", "3.6 ", "3.6.x", "3.6.2.0", ".6", "3.+6"} {
		_, err := Load(in)
		if err == nil {
			t.Errorf("Load(%q) succeeded", in)
			continue
		}
		for _, v := range []string{"4.4.0", "3.9.1", "3.6.2", "3.0.2"} {
			if !strings.Contains(err.Error(), v) {
				t.Errorf("Load(%q) error %q does not list %s", in, err, v)
			}
		}
	}
}

// A patch release of an embedded minor that is not embedded itself: the
// error suggests the minor and --specs.
func TestLoadSuggestsTheMinor(t *testing.T) {
	_, err := Load("3.9.0")
	want := `no embedded Kafka release matches "3.9.0" (embedded: ` + strings.Join(Releases(), ", ") + `): Kafka 3.9.0 is not embedded; try --kafka 3.9 (its minor's last patch release, 3.9.2), or --specs with Kafka 3.9.0's kafka-clients jar`
	if err == nil || err.Error() != want {
		t.Errorf("Load(3.9.0) = %v\nwant %s", err, want)
	}
	_, err = Load("2.8.2") // no embedded 2.8
	if want := `no embedded Kafka release matches "2.8.2" (embedded: ` + strings.Join(Releases(), ", ") + ")"; err == nil || err.Error() != want {
		t.Errorf("Load(2.8.2) = %v\nwant %s", err, want)
	}
}

func TestLoadReturnsCopies(t *testing.T) {
	a, err := Load("4.4")
	if err != nil {
		t.Fatal(err)
	}
	a.Files = a.Files[:0]
	a.Artifacts[0].Coord = "mutated"
	b, err := Load("4.4")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Files) == 0 || b.Artifacts[0].Coord == "mutated" {
		t.Fatal("changes to a loaded Release leak into later Loads")
	}
}

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		sign int
	}{
		{"4.4.0", "3.9.1", 1},
		{"3.10.0", "3.9.1", 1},
		{"3.9.1", "3.9.1", 0},
		{"3.9", "3.9.1", -1},
	} {
		got := compareVersions(c.a, c.b)
		if (got > 0) != (c.sign > 0) || (got < 0) != (c.sign < 0) {
			t.Errorf("compareVersions(%q, %q) = %d, want sign %d", c.a, c.b, got, c.sign)
		}
	}
}

func TestReadPathDir(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("common/message/B.json", "// b\n{}")
	write("common/message/A.json", "// a\n{}")
	write("common/metadata/deep/C.JSON", "{}")
	write("notes.txt", "not a spec")
	write("README.md", "# no")

	files, err := ReadPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		if f.Source != dir {
			t.Errorf("%s: Source = %q, want %q", f.Path, f.Source, dir)
		}
		got = append(got, f.Path)
	}
	want := []string{"common/message/A.json", "common/message/B.json", "common/metadata/deep/C.JSON"}
	if !slices.Equal(got, want) {
		t.Fatalf("paths = %v, want %v", got, want)
	}
	if string(files[0].Data) != "// a\n{}" {
		t.Errorf("A.json data = %q", files[0].Data)
	}

	// A single file of any extension is read as is.
	txt := filepath.Join(dir, "notes.txt")
	files, err = ReadPath(txt)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Source != txt || files[0].Path != "notes.txt" || string(files[0].Data) != "not a spec" {
		t.Errorf("ReadPath(%s) = %+v", txt, files)
	}

	// A directory without spec files is an error naming it.
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPath(empty); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("ReadPath(empty dir) error = %v, want one naming %s", err, empty)
	}
	missing := filepath.Join(dir, "missing.json")
	if _, err := ReadPath(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("ReadPath(missing) error = %v, want one naming %s", err, missing)
	}
}

func TestReadPathZip(t *testing.T) {
	dir := t.TempDir()
	makeZip := func(name string, entries [][2]string) string {
		t.Helper()
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, e := range entries {
			w, err := zw.Create(e[0])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write([]byte(e[1])); err != nil {
				t.Fatal(err)
			}
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	paths := func(files []File) []string {
		var ps []string
		for _, f := range files {
			ps = append(ps, f.Path)
		}
		return ps
	}

	// Like a Kafka jar: spec files under common/ win over other JSON.
	jar := makeZip("specs.jar", [][2]string{
		{"META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n"},
		{"common/message/", ""},
		{"common/message/VoteRequest.json", "// vote\n{}"},
		{"common/message/README.md", "readme"},
		{"common/metadata/PartitionRecord.json", "{}"},
		{"other/config.json", "{}"},
	})
	files, err := ReadPath(jar)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(files), []string{"common/message/VoteRequest.json", "common/metadata/PartitionRecord.json"}; !slices.Equal(got, want) {
		t.Fatalf("jar paths = %v, want %v", got, want)
	}
	if files[0].Source != jar || string(files[0].Data) != "// vote\n{}" {
		t.Errorf("jar file 0 = %+v", files[0])
	}

	// Without a common/ directory, every JSON entry is read.
	zp := makeZip("drafts.ZIP", [][2]string{
		{"a/X.json", "{}"},
		{"Y.json", "{}"},
		{"Z.txt", "{}"},
	})
	files, err = ReadPath(zp)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(files), []string{"a/X.json", "Y.json"}; !slices.Equal(got, want) {
		t.Fatalf("zip paths = %v, want %v", got, want)
	}

	// Archives without JSON, and corrupt archives, are errors naming the path.
	none := makeZip("none.zip", [][2]string{{"a.txt", "x"}})
	if _, err := ReadPath(none); err == nil || !strings.Contains(err.Error(), none) {
		t.Errorf("ReadPath(no json) error = %v, want one naming %s", err, none)
	}
	bad := filepath.Join(dir, "bad.jar")
	if err := os.WriteFile(bad, []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPath(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("ReadPath(corrupt) error = %v, want one naming %s", err, bad)
	}
}

// TestGeneratorReproduces re-runs kwire-specgen and checks that its output is
// byte-identical to the embedded bundles. It needs the pinned jars, which it
// downloads from Maven Central unless $KWIRE_SPECGEN_CACHE holds them, so it
// only runs when KWIRE_SPECGEN_CHECK=1.
func TestGeneratorReproduces(t *testing.T) {
	if os.Getenv("KWIRE_SPECGEN_CHECK") != "1" {
		t.Skip("set KWIRE_SPECGEN_CHECK=1 to re-run kwire-specgen (may download from Maven Central)")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found")
	}
	out := t.TempDir()
	cmd := exec.Command(gobin, "run", "github.com/kwire/kwire/cmd/kwire-specgen", "-out", out)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kwire-specgen: %v", err)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var generated []string
	for _, e := range entries {
		generated = append(generated, e.Name())
	}
	var want []string
	for _, v := range Releases() {
		want = append(want, pins.BundleName(v))
	}
	slices.Sort(want)
	if !slices.Equal(generated, want) {
		t.Fatalf("generated %v, embedded %v", generated, want)
	}
	for _, name := range want {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		committed, err := embedded.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, committed) {
			t.Errorf("%s: regenerated bundle differs from the committed one (run go generate ./spec/bundle)", name)
		}
	}
}

func decodeRaw(t *testing.T, raw []byte) document {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var doc document
	if err := json.NewDecoder(zr).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestLoadConcurrent(t *testing.T) {
	done := make(chan error)
	for i := 0; i < 8; i++ {
		go func() {
			_, err := Load(Releases()[i%len(Releases())])
			done <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestFlag(t *testing.T) {
	for r, want := range map[string]string{"3.9.2": "3.9", "3.9.1": "3.9.1", "3.6.2": "3.6", "3.0.2": "3.0", "4.4.0": "4.4", "9.9.9": "9.9.9", "4.4": "4.4"} {
		if got := Flag(r); got != want {
			t.Errorf("Flag(%q) = %q, want %q", r, got, want)
		}
	}
}

// README.md's table of sizes is the embedded bundles': for every release,
// its file's bytes and its spec files, and the bytes of all of them.
func TestREADMESizes(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`\| (\d+\.\d+\.\d+) \| ([\d,]+) \| (\d+) \|`)
	got := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		if _, dup := got[m[1]]; dup {
			t.Errorf("README lists %s twice", m[1])
		}
		got[m[1]] = m[2] + " bytes, " + m[3] + " files"
	}
	total := 0
	for _, r := range Releases() {
		e := find(r)
		b, err := embedded.ReadFile(e.name)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := Load(r)
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
		if want := fmt.Sprintf("%s bytes, %d files", commas(len(b)), len(rel.Files)); got[r] != want {
			t.Errorf("README says %s: %q, want %q", r, got[r], want)
		}
		delete(got, r)
	}
	for r := range got {
		t.Errorf("README lists %s, which is not embedded", r)
	}
	if want := commas(total) + " bytes in all"; !strings.Contains(string(readme), want) {
		t.Errorf("README lacks %q", want)
	}
	if commas(840457) != "840,457" || commas(999) != "999" || commas(1000) != "1,000" {
		t.Errorf("commas: %s %s %s", commas(840457), commas(999), commas(1000))
	}
}

// commas writes n with a comma every three digits: "76,664".
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
