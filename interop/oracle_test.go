// Package interop holds kwire's interop tests: the oracle harness, which
// checks kwire against Kafka's own generated Java serializers and
// JsonConverters (interop/oracle, a Maven project). Tests only; nothing
// here is built into kwire.
//
// The tests are skipped unless KWIRE_ORACLE=1; interop/run.sh builds the
// Java side and runs them. For each featured embedded release
// (pins.Featured: 4.4.0 and 3.9.1; KWIRE_ORACLE_RELEASES names others):
//
//   - kwire -> Kafka: kwire writes, for every message and every valid
//     version, the smallest instance and KWIRE_ORACLE_RANDOM random ones
//     (default 100) as body bytes plus its JSON; Kafka reads the bytes
//     (every byte consumed), writes them back identically, renders the same
//     JSON, and reads kwire's JSON back into the same bytes. Requests and
//     responses also go as kwire's frame (a random header) with the header
//     version kwire chose, metadata records as kwire's record value frame;
//     Kafka checks the header version, size, header, body offset and bytes.
//     Kafka compares the record batches it finds in records fields with
//     kwire's summary of them, and must accept every CRC kwire wrote.
//   - Kafka -> kwire: Kafka writes its default instance and
//     KWIRE_ORACLE_KAFKA_RANDOM random ones (default: KWIRE_ORACLE_RANDOM)
//     of every message class and version; kwire decodes them, renders
//     Kafka's JSON, re-encodes Kafka's bytes, and reads Kafka's JSON back
//     into them. kwire also decodes and re-writes Kafka's frames, and
//     compares Kafka's summary of its record batches with its own.
//
// Records fields and unknown tagged fields, which Kafka's JSON cannot
// carry, are compared by bytes (and records batch by batch) and counted as
// "limited". A run fails when it could pass vacuously (see vacuity).
package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle/pins"
	"github.com/kwire/kwire/tree"
)

// config is read from the environment.
type config struct {
	random      int    // kwire random instances per (message, version)
	kafkaRandom int    // Kafka random instances per (class, version)
	seed        uint64 // base seed of both sides
	dir         string // where case and result files go ("" = a temp dir)
	releases    []string
}

func loadConfig(t *testing.T) config {
	t.Helper()
	if os.Getenv("KWIRE_ORACLE") != "1" {
		t.Skip("the oracle needs Java and the Maven-built harness: run interop/run.sh (or set KWIRE_ORACLE=1)")
	}
	num := func(name string, def int) int {
		s := os.Getenv(name)
		if s == "" {
			return def
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			t.Fatalf("%s=%q: want a number >= 0", name, s)
		}
		return n
	}
	c := config{random: num("KWIRE_ORACLE_RANDOM", 100), seed: uint64(num("KWIRE_ORACLE_SEED", 1)), dir: os.Getenv("KWIRE_ORACLE_DIR")}
	c.kafkaRandom = num("KWIRE_ORACLE_KAFKA_RANDOM", c.random)
	c.releases = pins.Featured()
	if s := os.Getenv("KWIRE_ORACLE_RELEASES"); s != "" {
		c.releases = strings.Split(s, ",")
	}
	return c
}

// harness is the built oracle of one release: its jar and class path.
type harness struct {
	release   string
	classpath string
}

func findHarness(release string) (*harness, error) {
	dir := filepath.Join("oracle", "target", "kafka-"+release)
	cp, err := os.ReadFile(filepath.Join(dir, "classpath.txt"))
	jar := filepath.Join(dir, "oracle.jar")
	if _, jerr := os.Stat(jar); err != nil || jerr != nil {
		return nil, fmt.Errorf("the oracle harness for Kafka %s is not built (%s): run interop/run.sh, or mvn -q -f interop/oracle/pom.xml -Dkafka.version=%s package", release, dir, release)
	}
	abs, err := filepath.Abs(jar)
	if err != nil {
		return nil, err
	}
	return &harness{release: release, classpath: abs + string(os.PathListSeparator) + strings.TrimSpace(string(cp))}, nil
}

func javaBin() string {
	if h := os.Getenv("JAVA_HOME"); h != "" {
		return filepath.Join(h, "bin", "java")
	}
	return "java"
}

// run runs the harness's Oracle main with args, in one JVM.
func (h *harness) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, javaBin(), append([]string{"-Xmx1g", "-cp", h.classpath, "Oracle"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("java Oracle %s (Kafka %s): %v\n%s", args[0], h.release, err, out.String())
	}
	return strings.TrimSpace(out.String()), err
}

// caseSeq is the PCG stream of random case i of (message, version): the
// case's id reproduces it.
func caseSeq(msg string, v int16, i int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d/%d", msg, v, i)
	return h.Sum64()
}

// caseID names a kwire case: kwire/<message>/v<version>/<smallest|r<i>>.
func caseID(msg string, v int16, i int) string {
	if i < 0 {
		return fmt.Sprintf("kwire/%s/v%d/smallest", msg, v)
	}
	return fmt.Sprintf("kwire/%s/v%d/r%d", msg, v, i)
}

// caseType is the type a case of m is judged and counted as: the spec's
// type, but "coordinator-key" or "coordinator-value" for every internal
// topic's coordinator record key or value (3.9's are "data" specs), whose
// frame is the int16 prefix.
func caseType(m *spec.Message) string {
	switch {
	case m.IsRecordKey():
		return string(spec.CoordinatorKey)
	case m.IsRecordValue():
		return string(spec.CoordinatorValue)
	}
	return string(m.Type)
}

// buildCase encodes value val of m at v into a case: body bytes, kwire's
// JSON (records as base64, unknown tags kept), kwire's frame (a header
// drawn from hr) and kwire's summary of the record batches.
func buildCase(c *codec.Codec, m *spec.Message, v int16, id string, val *tree.Tree, hr *rand.Rand) (*kcase, error) {
	enc, err := c.EncodeBody(m, v, val)
	if err != nil {
		return nil, fmt.Errorf("%s: encode: %w", id, err)
	}
	js, err := codec.ToJSON(nil, enc, enc.Part(tree.Body), m, v, codec.JSONOptions{UnknownTags: true})
	if err != nil {
		return nil, fmt.Errorf("%s: ToJSON: %w", id, err)
	}
	kc := &kcase{ID: id, Message: m.Name, Type: caseType(m), Version: v, Hex: hex.EncodeToString(enc.Bytes), JSON: js}
	if err := addFrame(c, m, v, val, hr, kc); err != nil {
		return nil, fmt.Errorf("%s: frame: %w", id, err)
	}
	if err := addRecords(c, m, v, enc, kc); err != nil {
		return nil, fmt.Errorf("%s: records: %w", id, err)
	}
	return kc, nil
}

// writeCases writes the cases of every message and valid version of s to
// path, and returns them by id (without their JSON, to keep memory small).
func writeCases(c *codec.Codec, s *spec.Set, cfg config, path string) (map[string]*kcase, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	byID := map[string]*kcase{}
	for _, m := range s.Messages {
		if m.ValidVersions.Empty() {
			continue
		}
		for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
			for i := -1; i < cfg.random; i++ {
				id := caseID(m.Name, v, i)
				var val *tree.Tree
				if i < 0 {
					val = instance.Smallest(m, v)
				} else {
					val = instance.Random(m, v, rand.New(rand.NewPCG(cfg.seed, caseSeq(m.Name, v, i))), instance.RandomOptions{})
				}
				kc, err := buildCase(c, m, v, id, val, rand.New(rand.NewPCG(cfg.seed, headerSeq(m.Name, v, i))))
				if err != nil {
					return nil, err
				}
				line, err := json.Marshal(kc)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", id, err)
				}
				w.Write(line)
				w.WriteByte('\n')
				kc.JSON = nil
				byID[id] = kc
			}
		}
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return byID, f.Close()
}

// eachLine calls fn with every line of a JSONL file.
func eachLine(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := fn(sc.Bytes()); err != nil {
			return err
		}
	}
	return sc.Err()
}

// releaseReport is the outcome of one release.
type releaseReport struct {
	release   string
	byDir     map[string]*tally
	elapsed   time.Duration
	jvm       time.Duration
	jvmOutput string
	// problems are ways the run could have passed vacuously (see vacuity).
	problems []string
}

// notFromKafka lists the (message, version) pairs kwire knows that Kafka's
// generator cannot write, keyed "Message/version" (or "Message" for every
// version), with the reason. None today: every message kwire knows has a
// generated Kafka class at every valid version. An entry whose pair does
// reach kwire is itself reported, so the list cannot go stale.
var notFromKafka = map[string]string{}

// vacuity lists what would let the run pass without judging: frames not
// checked for every request, response and metadata record case, no record
// batch compared in a direction, or a (message, version) kwire knows
// missing from a direction.
func (r *releaseReport) vacuity(s *spec.Set) []string {
	var out []string
	for _, dir := range []string{kwireToKafka, kafkaToKwire} {
		t := r.byDir[dir]
		framed := []string{"request", "response", "metadata"}
		if len(s.RecordTypes(spec.TopicOffsets)) > 0 {
			framed = append(framed, "coordinator-key", "coordinator-value")
		}
		for _, ty := range framed {
			c := t.byType[ty]
			switch {
			case c == nil:
				out = append(out, fmt.Sprintf("%s: no %s cases at all", dir, ty))
			case c.frames != c.cases:
				out = append(out, fmt.Sprintf("%s: %d frames checked for %d %s cases", dir, c.frames, c.cases, ty))
			}
		}
		if t.all.batches == 0 {
			out = append(out, dir+": no record batch was compared")
		}
	}
	for _, m := range s.Messages {
		if m.ValidVersions.Empty() {
			continue
		}
		for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
			key := m.Name + "/" + strconv.Itoa(int(v))
			if !r.byDir[kwireToKafka].all.triples[key] {
				out = append(out, fmt.Sprintf("%s: kwire wrote no case of %s v%d", kwireToKafka, m.Name, v))
			}
			reason, listed := notFromKafka[key]
			if !listed {
				reason, listed = notFromKafka[m.Name]
			}
			switch got := r.byDir[kafkaToKwire].all.triples[key]; {
			case !got && !listed:
				out = append(out, fmt.Sprintf("%s: Kafka wrote no instance of %s v%d, and notFromKafka gives no reason", kafkaToKwire, m.Name, v))
			case got && listed:
				out = append(out, fmt.Sprintf("%s: notFromKafka says %s v%d cannot come from Kafka (%s), yet it did", kafkaToKwire, m.Name, v, reason))
			}
		}
	}
	return out
}

// checkRelease runs both directions for one release.
func checkRelease(t *testing.T, cfg config, release string) *releaseReport {
	start := time.Now()
	s, err := spec.Embedded(release)
	if err != nil {
		t.Fatal(err)
	}
	h, err := findHarness(s.Release)
	if err != nil {
		t.Fatal(err)
	}
	dir := cfg.dir
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "kafka-"+s.Release)
	cases, results, generated := prefix+".cases.jsonl", prefix+".results.jsonl", prefix+".kafka-instances.jsonl"
	c := codec.New(s)
	byID, err := writeCases(c, s, cfg, cases)
	if err != nil {
		t.Fatal(err)
	}
	rep := &releaseReport{release: s.Release, byDir: map[string]*tally{kwireToKafka: newTally(), kafkaToKwire: newTally()}}
	jvmStart := time.Now()
	out, err := h.run(context.Background(), "run", cases, results, generated, strconv.FormatUint(cfg.seed, 10), strconv.Itoa(cfg.kafkaRandom))
	rep.jvm, rep.jvmOutput = time.Since(jvmStart), out
	if err != nil {
		t.Fatal(err)
	}

	// kwire -> Kafka
	tk := rep.byDir[kwireToKafka]
	seen := 0
	err = eachLine(results, func(line []byte) error {
		var r result
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("results line %q: %w", short(string(line)), err)
		}
		kc := byID[r.ID]
		if kc == nil {
			return fmt.Errorf("the oracle answered a case kwire did not ask: %q", r.ID)
		}
		seen++
		mm, ck := judgeResult(c, kc, &r)
		tk.record(kc.Type, kc.Message, kc.Version, mm, ck)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(byID) {
		t.Errorf("Kafka %s: kwire wrote %d cases, the oracle answered %d", s.Release, len(byID), seen)
	}

	// Kafka -> kwire
	tj := rep.byDir[kafkaToKwire]
	err = eachLine(generated, func(line []byte) error {
		var ki kinstance
		if err := json.Unmarshal(line, &ki); err != nil {
			return fmt.Errorf("instances line %q: %w", short(string(line)), err)
		}
		typ := ki.Type
		if m := s.Message(ki.Message); m != nil {
			typ = caseType(m)
		}
		mm, ck := judgeInstance(c, &ki)
		tj.record(typ, ki.Message, ki.Version, mm, ck)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep.problems = rep.vacuity(s)
	rep.elapsed = time.Since(start)
	return rep
}

// matrix renders a release's outcome: per direction and message type,
// (message, version) triples, cases, mismatches and limits; then each
// mismatch (the first maxShown in full) and a count per message, version,
// failed checks and first differing field.
func (r *releaseReport) matrix(maxShown int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Kafka %s oracle matrix (%.1fs, of which JVM %.1fs)\n", r.release, r.elapsed.Seconds(), r.jvm.Seconds())
	row := func(dir, typ string, c *counts) {
		fmt.Fprintf(&b, "  %-15s %-17s %8d %8d %10d %14d %15d %9d %13d %12d\n", dir, typ, len(c.triples), c.cases, c.mismatches,
			c.frames, c.batches, c.limited[limitRecords], c.limited[limitUnknownTags], c.limited[limitFromJSON])
	}
	fmt.Fprintf(&b, "  %-15s %-17s %8s %8s %10s %14s %15s %9s %13s %12s\n", "direction", "type", "triples", "cases", "mismatches", "frames checked", "batches checked", "records", "unknown tags", "json->bytes*")
	for _, dir := range []string{kwireToKafka, kafkaToKwire} {
		t := r.byDir[dir]
		types := []string{"request", "response", "header", "metadata", "data", "coordinator-key", "coordinator-value"}
		for _, ty := range types {
			if c := t.byType[ty]; c != nil {
				row(dir, ty, c)
			}
		}
		var others []string
		for ty := range t.byType {
			if !slices.Contains(types, ty) {
				others = append(others, ty)
			}
		}
		slices.Sort(others)
		for _, ty := range others {
			row(dir, ty, t.byType[ty])
		}
		row(dir, "all", &t.all)
	}
	b.WriteString("  triples: (message, version) pairs checked in that direction; frames checked: framed\n" +
		"  messages judged (size, header version and fields, body offset, bytes; metadata records:\n" +
		"  the record value frame; coordinator record keys and values: the int16 prefix);\n" +
		"  batches checked: record batches in records fields compared\n" +
		"  field by field and record by record (CRC-32C included); records, unknown tags: cases\n" +
		"  whose JSON Kafka cannot carry, those parts compared by bytes only; json->bytes*: cases\n" +
		"  where reading the other side's JSON back into bytes is not representable for that reason\n")
	for _, dir := range []string{kwireToKafka, kafkaToKwire} {
		t := r.byDir[dir]
		if len(t.mismatches) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  %d mismatches %s:\n", len(t.mismatches), dir)
		groups := map[string]int{}
		var order []string
		for i, m := range t.mismatches {
			k := fmt.Sprintf("%s v%d [%s] %s", m.Message, m.Version, strings.Join(m.Checks, ","), m.Path)
			if groups[k] == 0 {
				order = append(order, k)
			}
			groups[k]++
			if i < maxShown {
				fmt.Fprintf(&b, "    %s\n", m)
			}
		}
		b.WriteString("  by message, version, failed checks and first differing field:\n")
		for _, k := range order {
			fmt.Fprintf(&b, "    %5d  %s\n", groups[k], k)
		}
	}
	return b.String()
}

// TestOracle checks every message, version and direction of each featured
// release against Kafka's generated classes (see the package doc).
func TestOracle(t *testing.T) {
	cfg := loadConfig(t)
	var mu sync.Mutex
	var reports []*releaseReport
	t.Run("releases", func(t *testing.T) {
		for _, rel := range cfg.releases {
			t.Run(rel, func(t *testing.T) {
				t.Parallel()
				rep := checkRelease(t, cfg, rel)
				t.Log("\n" + rep.matrix(40))
				if rep.jvmOutput != "" {
					t.Log("oracle JVM: " + strings.ReplaceAll(rep.jvmOutput, "\n", "\n  "))
				}
				mu.Lock()
				reports = append(reports, rep)
				mu.Unlock()
				for _, dir := range []string{kwireToKafka, kafkaToKwire} {
					if n := len(rep.byDir[dir].mismatches); n > 0 {
						t.Errorf("Kafka %s, %s: %d mismatches (listed above)", rep.release, dir, n)
					}
				}
				for _, p := range rep.problems {
					t.Errorf("Kafka %s: vacuous: %s", rep.release, p)
				}
			})
		}
	})
	slices.SortFunc(reports, func(a, b *releaseReport) int { return strings.Compare(b.release, a.release) })
	var b strings.Builder
	fmt.Fprintf(&b, "\noracle summary (%d kwire random instances and %d Kafka random instances per message and version, seed %d)\n", cfg.random, cfg.kafkaRandom, cfg.seed)
	fmt.Fprintf(&b, "  %-8s %-15s %8s %8s %10s %14s %15s %9s %13s\n", "release", "direction", "triples", "cases", "mismatches", "frames checked", "batches checked", "records", "unknown tags")
	for _, r := range reports {
		for _, dir := range []string{kwireToKafka, kafkaToKwire} {
			tl := r.byDir[dir]
			fmt.Fprintf(&b, "  %-8s %-15s %8d %8d %10d %14d %15d %9d %13d\n", r.release, dir, len(tl.all.triples), tl.all.cases, tl.all.mismatches, tl.all.frames, tl.all.batches, tl.all.limited[limitRecords], tl.all.limited[limitUnknownTags])
		}
	}
	t.Log(b.String())
}
