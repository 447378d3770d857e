package evolve

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
)

// setOf parses spec texts (one message each) into a set, failing on any
// spec error.
func setOf(t *testing.T, side string, specs ...string) *spec.Set {
	t.Helper()
	var files []bundle.File
	for i, s := range specs {
		name := fmt.Sprintf("%s%d.json", side, i)
		if rest, ok := strings.CutPrefix(s, inGroupCoordinator); ok {
			// A file of the group coordinator's: its records are
			// __consumer_offsets'.
			s, name = rest, "group-coordinator/"+name
		}
		files = append(files, bundle.File{Path: name, Data: []byte(s)})
	}
	s, errs := spec.NewSet(files)
	if errs.HasErrors() {
		t.Fatalf("%s specs do not load: %v", side, errs)
	}
	return s
}

// inGroupCoordinator before a spec's text puts its file in a
// group-coordinator directory (see setOf).
const inGroupCoordinator = "group-coordinator:"

// recordKey is a coordinator record key spec of the group coordinator:
// typ "data" (3.9's form, the versions being the record types) or
// "coordinator-key" with top's apiKey.
func recordKey(typ, top, fields string) string {
	if top != "" {
		top = ", " + top
	}
	return inGroupCoordinator + `{"name": "OffsetCommitKey", "type": "` + typ + `", "flexibleVersions": "none"` + top + `, "fields": [` + fields + `]}`
}

// thing is a data spec with validVersions 0-3 and flexibleVersions 2+
// unless top overrides keys (later keys win, as in Kafka).
func thing(top, fields string) string {
	if top != "" {
		top = ", " + top
	}
	return `{"name": "Thing", "type": "data", "validVersions": "0-3", "flexibleVersions": "2+"` + top + `, "fields": [` + fields + `]}`
}

// req is a request spec with api key 200, validVersions 0-3, flexible 2+.
func req(top, fields string) string {
	if top != "" {
		top = ", " + top
	}
	return `{"name": "ThingRequest", "type": "request", "apiKey": 200, "listeners": ["broker"], "validVersions": "0-3", "flexibleVersions": "2+"` + top + `, "fields": [` + fields + `]}`
}

// brief renders a finding without positions: "severity rule Subject: msg
// [kafka verdict]".
func brief(f Finding) string {
	return fmt.Sprintf("%s %s %s: %s [%s]", f.Severity, f.Rule, f.Subject(), f.Msg, f.Kafka)
}

func briefs(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, brief(f))
	}
	return out
}

const (
	fA    = `{"name": "A", "type": "int32", "versions": "0+"}`
	fB    = `{"name": "B", "type": "int32", "versions": "0+"}`
	fS    = `{"name": "S", "type": "string", "versions": "0+"}`
	fTag0 = `{"name": "T", "type": "int32", "versions": "2+", "taggedVersions": "2+", "tag": 0, "default": -1}`
)

// TestCompatRules has one minimal pair of specs per rule, and the exact
// findings each pair gives.
func TestCompatRules(t *testing.T) {
	cases := []struct {
		rule     string
		old, new []string
		want     []string
	}{
		{"type-changed (width)", []string{thing("", fA+`,{"name": "P", "type": "uint16", "versions": "0+"}`)}, []string{thing("", fA+`,{"name": "P", "type": "int32", "versions": "0+"}`)},
			[]string{"incompatible type-changed Thing v0-3 P: type uint16 → int32: 2 → 4 bytes on the wire [rejects]"}},
		{"type-changed (same width)", []string{thing("", `{"name": "P", "type": "int16", "versions": "0+"}`)}, []string{thing("", `{"name": "P", "type": "uint16", "versions": "0+"}`)},
			[]string{"incompatible type-changed Thing v0-3 P: type int16 → uint16: the same 2 bytes read as another type [rejects]"}},
		{"type-changed (nested, array element)", []string{thing("", `{"name": "Items", "type": "[]Item", "versions": "0+", "fields": [{"name": "X", "type": "int32", "versions": "0+"}]}`)},
			[]string{thing("", `{"name": "Items", "type": "[]Item", "versions": "0+", "fields": [{"name": "X", "type": "int64", "versions": "0+"}]}`)},
			[]string{"incompatible type-changed Thing v0-3 Items.X: type int32 → int64: 4 → 8 bytes on the wire [rejects]"}},
		{"type-changed (array of primitives)", []string{thing("", `{"name": "L", "type": "[]int32", "versions": "0+"}`)}, []string{thing("", `{"name": "L", "type": "[]int64", "versions": "0+"}`)},
			[]string{"incompatible type-changed Thing v0-3 L: type []int32 → []int64 [rejects]"}},
		{"type-renamed", []string{thing("", `{"name": "Items", "type": "[]Item", "versions": "0+", "fields": [{"name": "X", "type": "int32", "versions": "0+"}]}`)},
			[]string{thing("", `{"name": "Items", "type": "[]Entry", "versions": "0+", "fields": [{"name": "X", "type": "int32", "versions": "0+"}]}`)},
			[]string{"compatible type-renamed Thing v0-3 Items: type []Item → []Entry (the same layout, compared field by field) [rejects]"}},
		{"field-added", []string{thing("", fA)}, []string{thing("", fA+","+fB)},
			[]string{"incompatible field-added Thing v0-3 B: positional field B (int32) is new [rejects]"}},
		{"field-added (versions extended down)", []string{thing("", fA+`,{"name": "B", "type": "int32", "versions": "2+"}`)}, []string{thing("", fA+`,{"name": "B", "type": "int32", "versions": "1+"}`)},
			[]string{"incompatible field-added Thing v1 B: positional field B (int32) is new at this version: versions 2+ → 1+ [rejects]"}},
		{"field-added (new version only: fine)", []string{thing("", fA)}, []string{thing(`"validVersions": "0-4"`, fA+`,{"name": "B", "type": "int32", "versions": "4+"}`)},
			[]string{"info versions-added Thing v4: version 4 added: validVersions 0-3 → 0-4 [accepts]"}},
		{"field-removed", []string{thing("", fA+","+fB)}, []string{thing("", fA)},
			[]string{"incompatible field-removed Thing v0-3 B: positional field B (int32) is no longer on the wire [rejects]"}},
		{"field-removed (versions ended early)", []string{thing("", fA+","+fB)}, []string{thing("", fA+`,{"name": "B", "type": "int32", "versions": "0-1"}`)},
			[]string{"incompatible field-removed Thing v2-3 B: positional field B (int32) is no longer on the wire at this version: versions 0+ → 0-1 [rejects]"}},
		{"field-reordered (types differ)", []string{thing("", fA+","+fS)}, []string{thing("", fS+","+fA)},
			[]string{"incompatible field-reordered Thing v0-3: positional fields reordered: A, S → S, A [rejects]"}},
		{"field-reordered (same types: Kafka sees renames)", []string{thing("", fA+","+fB)}, []string{thing("", fB+","+fA)},
			[]string{"incompatible field-reordered Thing v0-3: positional fields reordered: A, B → B, A [accepts]"}},
		{"field-renamed", []string{thing("", fA+","+fB)}, []string{thing("", fA+`,{"name": "C", "type": "int32", "versions": "0+"}`)},
			[]string{"compatible field-renamed Thing v0-3 C: renamed from B (same position) [accepts]"}},
		{"field-renamed (tagged, same tag)", []string{thing("", fA+","+fTag0)}, []string{thing("", fA+`,{"name": "U", "type": "int32", "versions": "2+", "taggedVersions": "2+", "tag": 0, "default": -1}`)},
			[]string{"compatible field-renamed Thing v2-3 U: renamed from T (same tag 0) [accepts]"}},
		{"nullable-narrowed", []string{thing("", `{"name": "S", "type": "string", "versions": "0+", "nullableVersions": "0+"}`)}, []string{thing("", `{"name": "S", "type": "string", "versions": "0+", "nullableVersions": "2+"}`)},
			[]string{"incompatible nullable-narrowed Thing v0-1 S: no longer nullable: nullableVersions 0+ → 2+ [rejects]"}},
		{"nullable-widened", []string{thing("", `{"name": "S", "type": "string", "versions": "0+", "nullableVersions": "2+"}`)}, []string{thing("", `{"name": "S", "type": "string", "versions": "0+", "nullableVersions": "1+"}`)},
			[]string{"incompatible nullable-widened Thing v1 S: now nullable: nullableVersions 2+ → 1+ []"}},
		{"nullable-widened (struct: a presence byte)", []string{thing("", `{"name": "St", "type": "Sub", "versions": "0+", "fields": [`+fA+`]}`)}, []string{thing("", `{"name": "St", "type": "Sub", "versions": "0+", "nullableVersions": "0+", "fields": [`+fA+`]}`)},
			[]string{"incompatible nullable-widened Thing v0-3 St: now nullable: nullableVersions none → 0+ (a nullable struct has a presence byte on the wire) []"}},
		{"default-changed", []string{thing("", `{"name": "A", "type": "int32", "versions": "0+", "default": -1}`)}, []string{thing("", `{"name": "A", "type": "int32", "versions": "0+", "default": 0}`)},
			[]string{"compatible default-changed Thing v0-3 A: default -1 → 0 [rejects]"}},
		{"default spelled otherwise (no finding)", []string{thing("", `{"name": "A", "type": "int32", "versions": "0+", "default": "0x10"}`)}, []string{thing("", `{"name": "A", "type": "int32", "versions": "0+", "default": 16}`)},
			[]string{}},
		{"tagged-default-changed", []string{thing("", fA+","+fTag0)}, []string{thing("", fA+`,{"name": "T", "type": "int32", "versions": "2+", "taggedVersions": "2+", "tag": 0, "default": 0}`)},
			[]string{"incompatible tagged-default-changed Thing v2-3 T: default -1 → 0: a value equal to 0 is now omitted, and old readers take it for -1 [rejects]"}},
		{"tag-changed", []string{thing("", fTag0+`,{"name": "U", "type": "int32", "versions": "2+", "taggedVersions": "2+", "tag": 1}`)},
			[]string{thing("", `{"name": "T", "type": "int32", "versions": "2+", "taggedVersions": "2+", "tag": 1, "default": -1},{"name": "U", "type": "int32", "versions": "2+", "taggedVersions": "2+", "tag": 0}`)},
			[]string{"incompatible tag-changed Thing v2-3 T: tag 0 → 1 [accepts]", "incompatible tag-changed Thing v2-3 U: tag 1 → 0 [accepts]"}},
		{"tagging-changed", []string{thing("", fA+","+fB)}, []string{thing("", fA+`,{"name": "B", "type": "int32", "versions": "0+", "taggedVersions": "2+", "tag": 0}`)},
			[]string{"incompatible tagging-changed Thing v2-3 B: positional → tagged (tag 0): taggedVersions none → 2+ [accepts]"}},
		{"tagged-field-added", []string{thing("", fA)}, []string{thing("", fA+","+fTag0)},
			[]string{"compatible tagged-field-added Thing v2-3 T: tagged field T (tag 0, int32) is new [rejects]"}},
		{"tagged-field-removed", []string{thing("", fA+","+fTag0)}, []string{thing("", fA)},
			[]string{"compatible tagged-field-removed Thing v2-3 T: tagged field T (tag 0, int32) is gone [rejects]"}},
		{"flexible-dropped", []string{thing("", fS)}, []string{thing(`"flexibleVersions": "3+"`, fS)},
			[]string{"incompatible flexible-dropped Thing v2: no longer flexible: flexibleVersions 2+ → 3+ [rejects]"}},
		{"flexible-added", []string{thing("", fS)}, []string{thing(`"flexibleVersions": "1+"`, fS)},
			[]string{"incompatible flexible-added Thing v1: now flexible: flexibleVersions 2+ → 1+ [accepts]"}},
		{"field-flexible-changed", []string{thing("", `{"name": "S", "type": "string", "versions": "0+", "flexibleVersions": "none"}`)}, []string{thing("", fS)},
			[]string{"incompatible field-flexible-changed Thing v2-3 S: now flexible (a varint length instead of an int16/int32): field flexibleVersions none → (the message's) [accepts]"}},
		{"versions-removed", []string{thing("", fA)}, []string{thing(`"validVersions": "1-3"`, fA)},
			[]string{"incompatible versions-removed Thing v0: version 0 removed: validVersions 0-3 → 1-3 [accepts]"}},
		{"top-versions-removed", []string{thing("", fA)}, []string{thing(`"validVersions": "0-2"`, fA)},
			[]string{"incompatible top-versions-removed Thing v3: version 3 removed: validVersions 0-3 → 0-2 [rejects]"}},
		{"top-versions-removed (all: a removed API)", []string{req("", fA)}, []string{`{"name": "ThingRequest", "type": "request", "apiKey": 200, "validVersions": "none"}`},
			[]string{"incompatible top-versions-removed ThingRequest v0-3: every version removed: validVersions 0-3 → none (the API was removed) [rejects]"}},
		{"versions-added", []string{thing("", fA)}, []string{thing(`"validVersions": "0-5"`, fA)},
			[]string{"info versions-added Thing v4-5: versions 4-5 added: validVersions 0-3 → 0-5 [accepts]"}},
		{"deprecated-changed", []string{thing("", fA)}, []string{thing(`"deprecatedVersions": "0-1"`, fA)},
			[]string{"info deprecated-changed Thing v0-3: deprecated versions among the shared 0-3: none → 0-1 (deprecatedVersions none → 0-1) [accepts]"}},
		{"listeners-changed", []string{req("", fA)}, []string{req(`"listeners": ["broker", "controller"]`, fA)},
			[]string{"info listeners-changed ThingRequest: listeners [broker] → [broker, controller] [accepts]"}},
		{"unstable-changed", []string{req("", fA)}, []string{req(`"latestVersionUnstable": true`, fA)},
			[]string{"info unstable-changed ThingRequest: latestVersionUnstable set: v3 may still change [accepts]"}},
		{"an unstable version may change", []string{req(`"latestVersionUnstable": true`, fA)}, []string{req(`"latestVersionUnstable": true`, fA+`,{"name": "B", "type": "int32", "versions": "3+"}`)},
			[]string{"compatible field-added ThingRequest v3 B: positional field B (int32) is new (v3 was unstable in the old specs: latestVersionUnstable) [rejects]"}},
		{"message-renamed", []string{req("", fA)}, []string{strings.Replace(req("", fA), "ThingRequest", "OtherRequest", 1)},
			[]string{"compatible message-renamed OtherRequest: renamed from ThingRequest (same type and api key 200) [rejects]"}},
		{"api-key-changed", []string{req("", fA)}, []string{req(`"apiKey": 201`, fA)},
			[]string{"incompatible api-key-changed ThingRequest: api key 200 → 201 [rejects]"}},
		{"message-type-changed", []string{thing("", fA)}, []string{thing(`"type": "header"`, fA)},
			[]string{"incompatible message-type-changed Thing: type data → header [rejects]"}},
		{"record-form-changed, record-type-moved", []string{recordKey("data", `"validVersions": "0-1"`, `{"name": "group", "type": "string", "versions": "0-1"}`)},
			[]string{recordKey("coordinator-key", `"apiKey": 1, "validVersions": "0"`, `{"name": "group", "type": "string", "versions": "0"}`),
				strings.Replace(recordKey("coordinator-key", `"apiKey": 0, "validVersions": "0"`, `{"name": "group", "type": "string", "versions": "0"}`), "OffsetCommitKey", "LegacyOffsetCommitKey", 1)},
			[]string{"info message-added LegacyOffsetCommitKey: new coordinator-key LegacyOffsetCommitKey (api key 0) (valid versions 0) []",
				"info record-form-changed OffsetCommitKey: type data → coordinator-key, record types 0-1 → 1 []",
				"info record-type-moved OffsetCommitKey: record type 0 of __consumer_offsets is now LegacyOffsetCommitKey's []"}},
		{"record-type-removed, record-type-added", []string{recordKey("data", `"validVersions": "3-4"`, fS)},
			[]string{recordKey("coordinator-key", `"apiKey": 5, "validVersions": "0"`, fS)},
			[]string{"info record-form-changed OffsetCommitKey: type data → coordinator-key, record types 3-4 → 5 []",
				"incompatible record-type-removed OffsetCommitKey: record type 3 of __consumer_offsets has no spec in the new ones []",
				"incompatible record-type-removed OffsetCommitKey: record type 4 of __consumer_offsets has no spec in the new ones []",
				"info record-type-added OffsetCommitKey: record type 5 of __consumer_offsets []"}},
		{"a key's body across forms: at its record type's versions", []string{recordKey("data", `"validVersions": "3"`, `{"name": "group", "type": "string", "versions": "3"}`)},
			[]string{recordKey("coordinator-key", `"apiKey": 3, "validVersions": "0"`, `{"name": "group", "type": "int32", "versions": "0"}`)},
			[]string{"info record-form-changed OffsetCommitKey: type data → coordinator-key, record types 3 → 3 []",
				"incompatible type-changed OffsetCommitKey v0 group: type string → int32 [rejects]"}},
		{"message-removed and message-added", []string{thing("", fA)}, []string{strings.Replace(thing("", fA), `"Thing"`, `"Other"`, 1)},
			[]string{"info message-added Other: new data Other (valid versions 0-3) []", "incompatible message-removed Thing: data Thing (old0.json) is not in the new specs (valid versions were 0-3) []"}},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			got := briefs(Compat(setOf(t, "old", c.old...), setOf(t, "new", c.new...)))
			if !slices.Equal(got, c.want) {
				t.Errorf("findings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
			for _, w := range c.want {
				seen[strings.Fields(w)[1]] = true
			}
		})
	}
	for _, r := range CompatRules {
		if !seen[r.ID] {
			t.Errorf("rule %s has no test case", r.ID)
		}
	}
}

// TestCompatC20 is case C20 of docs/wire-cases.md: a field goes uint16 → int32
// at the same versions, which is wire-incompatible.
func TestCompatC20(t *testing.T) {
	dir := filepath.Join("testdata", "c20")
	old, errs, err := spec.FromPath(filepath.Join(dir, "old"))
	if err != nil || errs.HasErrors() {
		t.Fatal(err, errs)
	}
	nw, errs, err := spec.FromPath(filepath.Join(dir, "new"))
	if err != nil || errs.HasErrors() {
		t.Fatal(err, errs)
	}
	fs := Compat(old, nw)
	if len(fs) != 1 {
		t.Fatalf("findings = %q, want exactly the type change", briefs(fs))
	}
	f := fs[0]
	if f.Rule != "type-changed" || f.Severity != Incompatible || f.Message != "RegisterEndpointRequest" || f.Path != "Port" ||
		f.Versions != (spec.Versions{Lo: 0, Hi: 1}) || f.Msg != "type uint16 → int32: 2 → 4 bytes on the wire" {
		t.Errorf("finding = %s", brief(f))
	}
	if f.OldPos.Line != 13 || f.NewPos.Line != 15 || !strings.HasSuffix(f.NewPos.File, "RegisterEndpointRequest.json") {
		t.Errorf("positions = %s, %s; want the Port fields (old line 13, new line 15)", f.OldPos, f.NewPos)
	}
	if want := "RegisterEndpointRequest.json:15:5: incompatible: RegisterEndpointRequest v0-1 Port: type uint16 → int32: 2 → 4 bytes on the wire [type-changed]"; !strings.HasSuffix(f.String(), want) {
		t.Errorf("String() = %q, want it to end with %q", f.String(), want)
	}
}

func TestCompatSameSetsHaveNoFindings(t *testing.T) {
	for _, r := range bundle.Releases() {
		s, err := spec.Embedded(r)
		if err != nil {
			t.Fatal(err)
		}
		if fs := Compat(s, s); len(fs) != 0 {
			t.Errorf("Kafka %s against itself: %q", r, briefs(fs))
		}
	}
	// The same files parsed twice (distinct pointers) compare equal too.
	rel, err := bundle.Load("4.4")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := spec.NewSet(rel.Files)
	b, _ := spec.NewSet(rel.Files)
	if fs := Compat(a, b); len(fs) != 0 {
		t.Errorf("4.4 parsed twice: %q", briefs(fs))
	}
}

func TestCompatOptions(t *testing.T) {
	old := setOf(t, "old", thing("", fA), strings.Replace(thing("", fA), `"Thing"`, `"Gone"`, 1))
	nw := setOf(t, "new", thing("", fA+","+fB))
	got := briefs(CompatWith(old, nw, CompatOptions{Common: true}))
	want := []string{"incompatible field-added Thing v0-3 B: positional field B (int32) is new [rejects]"}
	if !slices.Equal(got, want) {
		t.Errorf("Common: %q, want %q", got, want)
	}
	got = briefs(CompatWith(old, nw, CompatOptions{Skip: func(m *spec.Message) bool { return m.Name == "Thing" }}))
	want = []string{"incompatible message-removed Gone: data Gone (old1.json) is not in the new specs (valid versions were 0-3) []"}
	if !slices.Equal(got, want) {
		t.Errorf("Skip: %q, want %q", got, want)
	}
}

// findingsOf39to44 compares the embedded 3.9.1 and 4.4.0 releases.
func findingsOf39to44(t *testing.T) (*spec.Set, *spec.Set, []Finding) {
	t.Helper()
	old, err := spec.Embedded("3.9.1")
	if err != nil {
		t.Fatal(err)
	}
	nw, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	return old, nw, Compat(old, nw)
}

// TestCompatKafka39To44 checks the comparison of the embedded releases
// against facts read by hand in the two releases' spec files.
func TestCompatKafka39To44(t *testing.T) {
	_, _, fs := findingsOf39to44(t)
	has := func(want string) {
		t.Helper()
		for _, f := range fs {
			if brief(f) == want {
				return
			}
		}
		t.Errorf("no finding %q", want)
	}
	// The ZooKeeper-era controller APIs are stubs with validVersions
	// "none" in 4.x ("This request was removed in Apache Kafka 4.0").
	for _, api := range []struct{ name, vs string }{{"LeaderAndIsr", "0-7"}, {"StopReplica", "0-4"}, {"UpdateMetadata", "0-8"}, {"ControlledShutdown", "0-3"}} {
		for _, side := range []string{"Request", "Response"} {
			has(fmt.Sprintf("incompatible top-versions-removed %s%s v%s: every version removed: validVersions %s → none (the API was removed) [rejects]", api.name, side, api.vs, api.vs))
		}
	}
	// KIP-896: Produce 0-2 went in 4.0 (the spec still says why it keeps
	// answering them in ApiVersions, but validVersions is 3-13), Fetch 0-3.
	has("incompatible versions-removed ProduceRequest v0-2: versions 0-2 removed: validVersions 0-11 → 3-13 [accepts]")
	has("info versions-added ProduceRequest v12-13: versions 12-13 added: validVersions 0-11 → 3-13 [accepts]")
	has("incompatible versions-removed FetchRequest v0-3: versions 0-3 removed: validVersions 0-17 → 4-18 [accepts]")
	has("info versions-added FetchRequest v18: version 18 added: validVersions 0-17 → 4-18 [accepts]")
	// Request header v0 was only used by ControlledShutdown v0.
	has("incompatible versions-removed RequestHeader v0: version 0 removed: validVersions 0-2 → 1-2 [accepts]")
	// KIP-996 PreVote: Vote v2; its candidate fields were renamed replica.
	has("info versions-added VoteRequest v2: version 2 added: validVersions 0-1 → 0-2 [accepts]")
	has("info versions-added VoteResponse v2: version 2 added: validVersions 0-1 → 0-2 [accepts]")
	has("compatible field-renamed VoteRequest v0-1 Topics.Partitions.ReplicaEpoch: renamed from CandidateEpoch (same position) [accepts]")
	has("compatible field-renamed VoteRequest v0-1 Topics.Partitions.ReplicaId: renamed from CandidateId (same position) [accepts]")
	has("compatible field-renamed VoteRequest v1 Topics.Partitions.ReplicaDirectoryId: renamed from CandidateDirectoryId (same position) [accepts]")
	// ListClientMetricsResources is not gone: api key 74 is now
	// ListConfigResources, whose v0 keeps the old layout (KIP-1142).
	has("compatible message-renamed ListConfigResourcesRequest: renamed from ListClientMetricsResourcesRequest (same type and api key 74) [rejects]")
	has("compatible message-renamed ListConfigResourcesResponse: renamed from ListClientMetricsResourcesResponse (same type and api key 74) [rejects]")
	has("compatible type-renamed ListConfigResourcesResponse v0 ConfigResources: type []ClientMetricsResource → []ConfigResource (the same layout, compared field by field) [rejects]")
	has("compatible field-renamed ListConfigResourcesResponse v0 ConfigResources.ResourceName: renamed from Name (same position) [accepts]")
	has("compatible field-renamed TxnOffsetCommitRequest v3-4 GenerationIdOrMemberEpoch: renamed from GenerationId (same position) [accepts]")
	// Share group APIs were unstable (latestVersionUnstable) in 3.9: their
	// v0 went, and ReadShareGroupStateSummaryResponse v0 gained LeaderEpoch.
	has("compatible versions-removed ShareFetchRequest v0: version 0 removed: validVersions 0 → 1-2 (v0 was unstable in the old specs: latestVersionUnstable) [accepts]")
	has("compatible field-added ReadShareGroupStateSummaryResponse v0 Results.Partitions.LeaderEpoch: positional field LeaderEpoch (int32) is new (v0 was unstable in the old specs: latestVersionUnstable) [rejects]")
	has("info unstable-changed ShareFetchRequest: latestVersionUnstable cleared: the latest version is now stable [accepts]")
	// ZooKeeper listeners went in 4.0.
	has("info listeners-changed ProduceRequest: listeners [zkBroker, broker] → [broker] [accepts]")
	has("info message-added StreamsGroupHeartbeatRequest: new request StreamsGroupHeartbeatRequest (api key 88) (valid versions 0-1) []")
	has("info message-added ClearElrRecord: new metadata ClearElrRecord (api key 28) (valid versions 0) []")

	// The incompatible findings, counted by hand from the two releases'
	// validVersions: 20 APIs lost their lowest versions (Produce, Fetch,
	// ListOffsets, OffsetCommit, OffsetFetch, CreateTopics, DeleteTopics,
	// OffsetForLeaderEpoch, WriteTxnMarkers, DescribeAcls, CreateAcls,
	// DeleteAcls, DescribeConfigs, AlterReplicaLogDirs, DescribeLogDirs,
	// Create/Renew/Expire/DescribeDelegationToken, AlterPartition): 40
	// findings, request and response; RequestHeader v0: 1; 4 APIs removed,
	// request and response: 8. No field changed on the wire in a version
	// both releases have, except in the unstable ReadShareGroupStateSummary
	// v0 (checked with an independent script over the spec files).
	n := map[Impact]int{}
	rules := map[string]int{}
	for _, f := range fs {
		n[f.Severity]++
		if f.Severity == Incompatible {
			rules[f.Rule]++
		}
	}
	// The internal topics' records add 3: record type 9 of
	// __consumer_offsets (ShareGroupPartitionMetadataKey and -Value) is
	// gone, and ShareGroupMetadataValue v0 gained a positional
	// MetadataHash (share groups were early access in 3.9). Their change
	// of spec form ("data" → coordinator-key/-value) is no break.
	if n[Incompatible] != 52 || rules["versions-removed"] != 41 || rules["top-versions-removed"] != 8 || rules["message-removed"] != 2 || rules["field-added"] != 1 {
		t.Errorf("incompatible findings: %d by rule %v, want 52: 41 versions-removed, 8 top-versions-removed, 2 message-removed, 1 field-added", n[Incompatible], rules)
	}
	// 4 field renames in Vote and TxnOffsetCommit, 2 message renames and 3
	// field-level renames in ListConfigResources, 8 unstable v0s removed,
	// 1 field added to an unstable v0; and 11 tagged fields added to
	// records (TransactionLogValue 4, OffsetCommitValue's topicId,
	// ConsumerGroupMetadataValue 1, ConsumerGroupTargetAssignmentMetadataValue
	// 1, ConsumerGroupCurrentMemberAssignmentValue 2, the two
	// remote-log-metadata records' TxnIndexEmpty).
	if n[CompatibleChange] != 29 {
		t.Errorf("compatible changes: %d, want 29", n[CompatibleChange])
	}
	if rules := infoRules(fs); rules["record-form-changed"] != 22 || rules["record-type-moved"] != 2 {
		t.Errorf("info findings by rule %v, want 22 record-form-changed (11 record types, key and value), 2 record-type-moved (record type 0 → LegacyOffsetCommitKey/-Value)", rules)
	}
}

func TestDiffKafka39To44(t *testing.T) {
	old, nw, fs := findingsOf39to44(t)
	rows := Diff(old, nw, fs)
	by := map[string]DiffRow{}
	status := map[string]int{}
	for _, r := range rows {
		by[r.Name] = r
		if r.Substantive() {
			status[r.Status]++
		}
	}
	check := func(name, want string) {
		t.Helper()
		r, ok := by[name]
		if !ok {
			t.Errorf("no row %s", name)
			return
		}
		got := fmt.Sprintf("%s %d %s old=%s %s → %s removed=%v added=%v changed=%v %d/%d/%d", r.Kind, r.APIKey, r.Status, r.OldName, r.OldVersions, r.NewVersions,
			r.Removed, r.Added, r.Changed, r.Incompatible, r.Compatible, r.Info)
		if got != want {
			t.Errorf("row %s:\n got %s\nwant %s", name, got, want)
		}
	}
	check("LeaderAndIsr", "api 4 removed old= 0-7 → none removed=[0-7] added=[] changed=[] 2/0/0")
	check("Produce", "api 0 changed old= 0-11 → 3-13 removed=[0-2] added=[12-13] changed=[] 2/0/3")
	check("Vote", "api 52 changed old= 0-1 → 0-2 removed=[] added=[2] changed=[0-1] 0/3/2")
	check("ListConfigResources", "api 74 renamed old=ListClientMetricsResources 0 → 0-1 removed=[] added=[1] changed=[0] 0/5/2")
	check("RequestHeader", "header -1 changed old= 0-2 → 1-2 removed=[0] added=[] changed=[] 1/0/0")
	check("ClearElrRecord", "metadata 28 added old= none → 0 removed=[] added=[] changed=[] 0/0/1")
	check("OffsetCommitKey", "coordinator-key 1 changed old= 0-1 → 0 removed=[] added=[] changed=[] 0/0/2")
	check("OffsetCommitValue", "coordinator-value 1 changed old= 0-4 → 0-4 removed=[] added=[] changed=[4] 0/1/2")
	// The records add 25 specs (24 of the group coordinator and
	// ProducerSnapshot), remove 2 (record type 9) and change 24: the 22
	// keys and values whose spec form changed (6 values of them with new
	// fields too) and the 2 remote-log-metadata records. The share
	// coordinator's 4 are not compared: 3.9.1 carries none.
	for _, name := range []string{"ShareSnapshotKey", "ShareSnapshotValue", "ShareUpdateKey", "ShareUpdateValue"} {
		if r, ok := by[name]; ok {
			t.Errorf("row %s %s: 3.9.1 carries no __share_group_state specs", name, r.Status)
		}
	}
	if want := map[string]int{"added": 37, "removed": 6, "renamed": 1, "changed": 69}; fmt.Sprint(status) != fmt.Sprint(want) {
		t.Errorf("rows by status = %v, want %v", status, want)
	}
}

func TestCompatRulesAreDocumented(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range CompatRules {
		if ids[r.ID] {
			t.Errorf("rule %s twice", r.ID)
		}
		ids[r.ID] = true
		if r.Doc == "" || (r.Kafka != "" && r.Kafka != KafkaRejects && r.Kafka != KafkaAccepts) {
			t.Errorf("rule %s: doc %q, kafka %q", r.ID, r.Doc, r.Kafka)
		}
	}
	for _, i := range []Impact{Incompatible, CompatibleChange, Info} {
		if p, ok := ParseImpact(i.String()); !ok || p != i {
			t.Errorf("ParseImpact(%q) = %v, %v", i, p, ok)
		}
	}
}

// infoRules counts the info findings of fs by rule.
func infoRules(fs []Finding) map[string]int {
	n := map[string]int{}
	for _, f := range fs {
		if f.Severity == Info {
			n[f.Rule]++
		}
	}
	return n
}

// compared lists the embedded release pairs whose comparison the tests of
// internal topics look at: every adjacent pair, old first, and the pairs
// of the README and of issue 25 (3.9 → 4.4, 3.0 → 4.4).
func compared(t *testing.T) [][2]*spec.Set {
	t.Helper()
	all, err := spec.EmbeddedAll() // newest first
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]*spec.Set
	for i := len(all) - 1; i > 0; i-- {
		pairs = append(pairs, [2]*spec.Set{all[i], all[i-1]})
	}
	for _, p := range [][2]string{{"3.9", "4.4"}, {"3.0", "4.4"}, {"4.4", "3.0"}} {
		o, _ := spec.Embedded(p[0])
		n, _ := spec.Embedded(p[1])
		pairs = append(pairs, [2]*spec.Set{o, n})
	}
	return pairs
}

// An internal topic's records are compared only where both releases carry
// its specs: no record is "added" or "removed" because one release's jars
// lack them, and the topics left out are the ones only one side carries.
// Before every release carried what its jars hold, 4.3 → 4.4 called 56
// coordinator and remote-log records message-added.
func TestInternalTopicsComparedWhereBothCarry(t *testing.T) {
	for _, p := range compared(t) {
		old, nw := p[0], p[1]
		c := Compare(old, nw, old.Release, nw.Release, CompatOptions{})
		var gaps []string
		for _, tp := range spec.Topics() {
			if old.Carries(tp) != nw.Carries(tp) {
				gaps = append(gaps, string(tp))
			}
		}
		var got []string
		for _, g := range c.NotCompared {
			got = append(got, string(g.Topic))
			if g.Old == old.Carries(g.Topic) {
				t.Errorf("%s → %s: %s lacking on the wrong side", old.Release, nw.Release, g.Topic)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(gaps) {
			t.Errorf("%s → %s: not compared %v, want %v", old.Release, nw.Release, got, gaps)
		}
		for _, f := range c.Findings {
			var m *spec.Message
			other := old
			switch f.Rule {
			case "message-added":
				m = nw.Message(f.Message)
			case "message-removed":
				m, other = old.Message(f.Message), nw
			default:
				continue
			}
			if m != nil && m.Topic != "" && !other.Carries(m.Topic) {
				t.Errorf("%s → %s: %s %s, though Kafka %s carries no %s specs", old.Release, nw.Release, f.Rule, f.Message, other.Release, m.Topic.TopicName())
			}
		}
	}
	// 4.3.2 → 4.4.0: both carry every topic; what is new are APIs, a
	// metadata record and a data spec of kafka-clients.
	o, _ := spec.Embedded("4.3")
	n, _ := spec.Embedded("4.4")
	var added []string
	for _, f := range Compat(o, n) {
		if f.Rule == "message-added" {
			added = append(added, f.Message)
		}
	}
	if want := "[StreamsGroupTopologyDescriptionUpdateRequest StreamsGroupTopologyDescriptionUpdateResponse UnregisterControllerRequest UnregisterControllerResponse UnregisterControllerRecord AbortedTxn]"; fmt.Sprint(added) != want {
		t.Errorf("4.3 → 4.4 message-added %v, want %s", added, want)
	}
	// 3.9.2 → 4.4.0: the records of __consumer_offsets and
	// __transaction_state changed form ("data" → coordinator-key/-value),
	// they were not added; __share_group_state is not compared.
	o, _ = spec.Embedded("3.9")
	c := Compare(o, n, "Kafka 3.9.2", "Kafka 4.4.0", CompatOptions{})
	rows := map[string]string{}
	for _, r := range Diff(o, n, c.Findings) {
		rows[r.Name] = r.Status
	}
	for _, name := range []string{"OffsetCommitKey", "OffsetCommitValue", "GroupMetadataKey", "GroupMetadataValue", "TransactionLogKey", "TransactionLogValue", "ConsumerGroupMetadataKey", "RemoteLogSegmentMetadataRecord"} {
		if rows[name] != "changed" {
			t.Errorf("3.9 → 4.4 diff: %s %q, want changed", name, rows[name])
		}
	}
	if got := c.NotComparedLines(); fmt.Sprint(got) != "[Kafka 3.9.2 carries no __share_group_state specs: not compared]" {
		t.Errorf("3.9 → 4.4 not compared: %q", got)
	}
}
