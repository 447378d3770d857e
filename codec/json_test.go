package codec_test

// Tests of ToJSON/FromJSON against the JSON of Kafka's generated
// JsonConverters (reference section 6): the reference's worked examples,
// round trips over every message of both embedded releases, tagged fields,
// unknown tags, records modes, float64 text and every class of bad input.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
	"github.com/kwire/kwire/tree"
)

// ---- helpers (prefixed j to stay out of the other test files' way) ----

// The value builder of cases_test.go, under this file's names.
type (
	jo    = obj
	jtag  = utag
	jnull = null
)

var jbuild = valueOf

func jrelease(t testing.TB, rel string) (*spec.Set, *codec.Codec) {
	t.Helper()
	s, err := spec.Embedded(rel)
	if err != nil {
		t.Fatal(err)
	}
	return s, codec.New(s)
}

// toJSON renders value tree val (root 0) and fails the test on error.
func toJSON(t testing.TB, val *tree.Tree, m *spec.Message, v int16, o codec.JSONOptions) string {
	t.Helper()
	b, err := codec.ToJSON(nil, val, 0, m, v, o)
	if err != nil {
		t.Fatalf("%s v%d: ToJSON: %v", m.Name, v, err)
	}
	return string(b)
}

// viaWire encodes val, decodes the bytes and renders the decoded body.
func viaWire(t testing.TB, c *codec.Codec, m *spec.Message, v int16, val *tree.Tree, o codec.JSONOptions) string {
	t.Helper()
	enc, err := encode(c, m, v, val)
	if err != nil {
		t.Fatalf("%s v%d: encode: %v", m.Name, v, err)
	}
	dec, err := decode(c, m, v, enc.Bytes)
	if err != nil {
		t.Fatalf("%s v%d: decode: %v", m.Name, v, err)
	}
	b, err := codec.ToJSON(nil, dec, dec.Part(tree.Body), m, v, o)
	if err != nil {
		t.Fatalf("%s v%d: ToJSON of the decoded tree: %v", m.Name, v, err)
	}
	return string(b)
}

// sameWire asserts that two value trees encode to the same bytes.
func sameWire(t testing.TB, c *codec.Codec, m *spec.Message, v int16, a, b *tree.Tree) {
	t.Helper()
	ea, err := encode(c, m, v, a)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	eb, err := encode(c, m, v, b)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	if string(ea.Bytes) != string(eb.Bytes) {
		t.Errorf("%s v%d: bytes differ:\n%x\n%x", m.Name, v, ea.Bytes, eb.Bytes)
	}
}

func uuidOf(hi, lo uint64) [16]byte {
	var u [16]byte
	for i := 0; i < 8; i++ {
		u[i] = byte(hi >> (56 - 8*i))
		u[8+i] = byte(lo >> (56 - 8*i))
	}
	return u
}

// ---- the reference's worked examples ----

func TestJSONKafkaWorkedExamples(t *testing.T) {
	s39, c39 := jrelease(t, "3.9.1")
	s44, c44 := jrelease(t, "4.4.0")

	t.Run("VoteRequest v1 as in the reference (3.9.1 field names)", func(t *testing.T) {
		m := msg(t, s39, "VoteRequest")
		val := jbuild(m.Root, tree.Body, jo{"ClusterId": "abc", "VoterId": 2, "Topics": []jo{{
			"TopicName": "__cluster_metadata",
			"Partitions": []jo{{"PartitionIndex": 0, "CandidateEpoch": 5, "CandidateId": 1,
				"CandidateDirectoryId": uuidOf(0, 1), "LastOffsetEpoch": 4, "LastOffset": 100}},
		}}})
		want := `{"clusterId":"abc","voterId":2,"topics":[{"topicName":"__cluster_metadata","partitions":[{"partitionIndex":0,"candidateEpoch":5,"candidateId":1,"candidateDirectoryId":"AAAAAAAAAAAAAAAAAAAAAQ","voterDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","lastOffsetEpoch":4,"lastOffset":100}]}]}`
		if got := toJSON(t, val, m, 1, codec.JSONOptions{}); got != want {
			t.Errorf("value tree:\n got %s\nwant %s", got, want)
		}
		if got := viaWire(t, c39, m, 1, val, codec.JSONOptions{}); got != want {
			t.Errorf("decoded tree:\n got %s\nwant %s", got, want)
		}
		back, err := codec.FromJSON([]byte(want), m, 1)
		if err != nil {
			t.Fatal(err)
		}
		sameWire(t, c39, m, 1, val, back)
	})

	t.Run("VoteRequest v2 appends preVote to the partition (4.4.0 field names)", func(t *testing.T) {
		m := msg(t, s44, "VoteRequest")
		val := jbuild(m.Root, tree.Body, jo{"ClusterId": "abc", "VoterId": 2, "Topics": []jo{{
			"TopicName": "__cluster_metadata",
			"Partitions": []jo{{"PartitionIndex": 0, "ReplicaEpoch": 5, "ReplicaId": 1,
				"ReplicaDirectoryId": uuidOf(0, 1), "LastOffsetEpoch": 4, "LastOffset": 100, "PreVote": true}},
		}}})
		want := `{"clusterId":"abc","voterId":2,"topics":[{"topicName":"__cluster_metadata","partitions":[{"partitionIndex":0,"replicaEpoch":5,"replicaId":1,"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAQ","voterDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","lastOffsetEpoch":4,"lastOffset":100,"preVote":true}]}]}`
		if got := viaWire(t, c44, m, 2, val, codec.JSONOptions{}); got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
		// At v1 PreVote (not ignorable, now true) cannot be written.
		_, err := codec.ToJSON(nil, val, 0, m, 1, codec.JSONOptions{})
		wantErr(t, err, "$.topics[0].partitions[0].preVote", "the field is not in version 1 and is not ignorable, but holds a non-default value (Kafka's converter throws UnsupportedVersionException)")
	})

	for _, s := range []*spec.Set{s39, s44} {
		c := codec.New(s)
		t.Run("VoteRequest v0 drops the ignorable voterId "+s.Release, func(t *testing.T) {
			m := msg(t, s, "VoteRequest")
			val := jbuild(m.Root, tree.Body, jo{"VoterId": 7, "Topics": []jo{{"TopicName": "t", "Partitions": []jo{}}}})
			want := `{"clusterId":null,"topics":[{"topicName":"t","partitions":[]}]}`
			if got := toJSON(t, val, m, 0, codec.JSONOptions{}); got != want {
				t.Errorf("\n got %s\nwant %s", got, want)
			}
			if got := viaWire(t, c, m, 0, val, codec.JSONOptions{}); got != want {
				t.Errorf("decoded:\n got %s\nwant %s", got, want)
			}
		})
		t.Run("ApiVersionsRequest v3 and v2 "+s.Release, func(t *testing.T) {
			m := msg(t, s, "ApiVersionsRequest")
			val := jbuild(m.Root, tree.Body, jo{"ClientSoftwareName": "apache-kafka-java", "ClientSoftwareVersion": "3.9.0"})
			if got, want := viaWire(t, c, m, 3, val, codec.JSONOptions{}), `{"clientSoftwareName":"apache-kafka-java","clientSoftwareVersion":"3.9.0"}`; got != want {
				t.Errorf("v3:\n got %s\nwant %s", got, want)
			}
			if got, want := toJSON(t, val, m, 2, codec.JSONOptions{}), `{}`; got != want {
				t.Errorf("v2: got %s, want %s", got, want)
			}
			back, err := codec.FromJSON([]byte(`{}`), m, 2)
			if err != nil || len(back.Nodes) != 1 || back.Nodes[0].Kind() != tree.Body {
				t.Errorf("FromJSON {} at v2: %v, %d nodes", err, len(back.Nodes))
			}
		})
		t.Run("RequestHeader v2 "+s.Release, func(t *testing.T) {
			hs := s.RequestHeader()
			want := `{"requestApiKey":18,"requestApiVersion":3,"correlationId":7,"clientId":"producer-1"}`
			hdr := codec.RequestHeaderValue(hs, 18, 3, 7, "producer-1")
			if got := toJSON(t, hdr, hs, 2, codec.JSONOptions{}); got != want {
				t.Errorf("value tree:\n got %s\nwant %s", got, want)
			}
			// The Header node of a decoded ApiVersionsRequest v3.
			m := msg(t, s, "ApiVersionsRequest")
			enc, err := c.Encode(m, 3, hdr, nil)
			if err != nil {
				t.Fatal(err)
			}
			dec, err := c.DecodeRequest(enc.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			got, err := codec.ToJSON(nil, dec, dec.Part(tree.Header), hs, dec.HeaderVersion, codec.JSONOptions{})
			if err != nil || string(got) != want || dec.HeaderVersion != 2 {
				t.Errorf("decoded header v%d: %s (%v)", dec.HeaderVersion, got, err)
			}
			back, err := codec.FromJSON([]byte(want), hs, 2)
			if err != nil {
				t.Fatal(err)
			}
			if back.Nodes[0].Kind() != tree.Header {
				t.Errorf("root kind %s, want header", back.Nodes[0].Kind())
			}
			if d := tree.Diff(hdr, 0, back, 0); d != "" {
				t.Errorf("FromJSON differs: %s", d)
			}
		})
	}
}

// ---- every message, every version ----

// TestJSONRoundTripEveryMessage walks the smallest instance of every
// message of every embedded release at every valid version: value → JSON →
// value gives the same value, and that value → bytes → decoded tree → JSON
// gives the same JSON.
func TestJSONRoundTripEveryMessage(t *testing.T) {
	releases := bundle.Releases()
	for _, want := range []string{"4.4.0", "3.9.1"} {
		found := false
		for _, r := range releases {
			found = found || r == want
		}
		if !found {
			t.Errorf("release %s is not embedded (have %v)", want, releases)
		}
	}
	for _, rel := range releases {
		s, c := jrelease(t, rel)
		pairs := 0
		for _, m := range s.Messages {
			for v := m.ValidVersions.Lo; !m.ValidVersions.Empty() && v <= m.ValidVersions.Hi; v++ {
				name := fmt.Sprintf("%s %s v%d", rel, m.Name, v)
				val := instance.Smallest(m, v)
				js, err := codec.ToJSON(nil, val, 0, m, v, codec.JSONOptions{})
				if err != nil {
					t.Errorf("%s: ToJSON: %v", name, err)
					continue
				}
				if !json.Valid(js) {
					t.Errorf("%s: invalid JSON %s", name, js)
					continue
				}
				back, err := codec.FromJSON(js, m, v)
				if err != nil {
					t.Errorf("%s: FromJSON(%s): %v", name, js, err)
					continue
				}
				if d := tree.Diff(val, 0, back, 0); d != "" {
					t.Errorf("%s: value -> JSON -> value differs: %s\n%s", name, d, js)
					continue
				}
				enc, err := encode(c, m, v, back)
				if err != nil {
					t.Errorf("%s: encode: %v", name, err)
					continue
				}
				dec, err := decode(c, m, v, enc.Bytes)
				if err != nil {
					t.Errorf("%s: decode: %v", name, err)
					continue
				}
				again, err := codec.ToJSON(nil, dec, dec.Part(tree.Body), m, v, codec.JSONOptions{})
				if err != nil || string(again) != string(js) {
					t.Errorf("%s: JSON -> value -> bytes -> JSON differs (%v):\n%s\n%s", name, err, js, again)
				}
				pairs++
			}
		}
		if want := pairsPerRelease[rel]; pairs != want {
			t.Errorf("Kafka %s: %d pairs round-tripped, want %d", rel, pairs, want)
		}
	}
}

// ---- every kind, on a spec of its own ----

// jsonKindsSpec has a field of every kind (uint32 and []float64 have no
// user in Kafka's own specs), a nullable struct, tagged fields and fields
// of some versions only.
const jsonKindsSpec = `{
  "type": "data", "name": "JsonKinds", "validVersions": "0-2", "flexibleVersions": "1+",
  "fields": [
    { "name": "B", "type": "bool", "versions": "0+" },
    { "name": "I8", "type": "int8", "versions": "0+" },
    { "name": "I16", "type": "int16", "versions": "0+" },
    { "name": "U16", "type": "uint16", "versions": "0+" },
    { "name": "I32", "type": "int32", "versions": "0+" },
    { "name": "U32", "type": "uint32", "versions": "0+" },
    { "name": "I64", "type": "int64", "versions": "0+" },
    { "name": "F64", "type": "float64", "versions": "0+" },
    { "name": "Id", "type": "uuid", "versions": "0+" },
    { "name": "NS", "type": "int32", "versions": "0+" },
    { "name": "S", "type": "string", "versions": "0+", "nullableVersions": "2+" },
    { "name": "Raw", "type": "bytes", "versions": "0+", "nullableVersions": "0+" },
    { "name": "Floats", "type": "[]float64", "versions": "0+" },
    { "name": "Blobs", "type": "[]bytes", "versions": "0+" },
    { "name": "Ids", "type": "[]uuid", "versions": "0+" },
    { "name": "Flags", "type": "[]bool", "versions": "0+" },
    { "name": "Opt", "type": "Point", "versions": "0+", "nullableVersions": "0+", "fields": [
      { "name": "X", "type": "int32", "versions": "0+" } ] },
    { "name": "Later", "type": "int32", "versions": "2+", "default": "-1" },
    { "name": "Gone", "type": "string", "versions": "0-1", "ignorable": true },
    { "name": "Kept", "type": "int64", "versions": "0", "default": "-1" },
    { "name": "Note", "type": "string", "versions": "1+", "nullableVersions": "1+", "default": "null",
      "taggedVersions": "1+", "tag": 0 },
    { "name": "Where", "type": "Pos", "versions": "1+", "nullableVersions": "1+",
      "taggedVersions": "1+", "tag": 1, "fields": [
      { "name": "Y", "type": "int32", "versions": "1+" } ] }
  ]
}`

func jsonKinds(t testing.TB) (*spec.Message, *codec.Codec) {
	t.Helper()
	s, errs := spec.NewSet([]bundle.File{{Path: "JsonKinds.json", Data: []byte(jsonKindsSpec)}})
	if len(errs) != 0 {
		t.Fatalf("spec problems: %v", errs)
	}
	return s.Message("JsonKinds"), codec.New(s)
}

func TestJSONEveryKind(t *testing.T) {
	m, c := jsonKinds(t)
	var id [16]byte
	for i := range id {
		id[i] = byte(i)
	}
	full := jo{"B": true, "I8": -128, "I16": 32767, "U16": 65535, "I32": math.MinInt32, "U32": int64(math.MaxUint32),
		"I64": int64(math.MinInt64), "F64": 1e10, "Id": id, "NS": 3, "S": "a\"b\\c\n\t\x01\x7fé/<\u2028",
		"Raw": []byte{1, 2}, "Floats": []any{0.0, -0.5, 1e-4}, "Blobs": []any{[]byte{}, []byte{0xff}},
		"Ids": []any{[16]byte{}}, "Flags": []any{true, false}, "Opt": jo{"X": 1}, "Later": 5,
		"Note": "n", "Where": jo{"Y": 2}}
	const fullV2 = `{"b":true,"i8":-128,"i16":32767,"u16":65535,"i32":-2147483648,"u32":4294967295,` +
		`"i64":-9223372036854775808,"f64":1.0E10,"id":"AAECAwQFBgcICQoLDA0ODw","nS":3,` +
		`"s":"a\"b\\c\n\t\u0001` + "\x7fé/<\u2028" + `","raw":"AQI=","floats":[0.0,-0.5,1.0E-4],"blobs":["","/w=="],` +
		`"ids":["AAAAAAAAAAAAAAAAAAAAAA"],"flags":[true,false],"opt":{"x":1},"later":5,"note":"n","where":{"y":2}}`
	val := jbuild(m.Root, tree.Body, full)
	if got := toJSON(t, val, m, 2, codec.JSONOptions{}); got != fullV2 {
		t.Errorf("v2:\n got %s\nwant %s", got, fullV2)
	}
	if got := viaWire(t, c, m, 2, val, codec.JSONOptions{}); got != fullV2 {
		t.Errorf("v2 decoded:\n got %s\nwant %s", got, fullV2)
	}
	back, err := codec.FromJSON([]byte(fullV2), m, 2)
	if err != nil {
		t.Fatal(err)
	}
	if d := tree.Diff(val, 0, back, 0); d != "" {
		t.Errorf("FromJSON differs: %s", d)
	}
	sameWire(t, c, m, 2, val, back)

	// Defaults: every field left out of the value tree.
	empty := jbuild(m.Root, tree.Body, jo{})
	for _, tc := range []struct {
		v    int16
		want string
	}{
		{0, `{"b":false,"i8":0,"i16":0,"u16":0,"i32":0,"u32":0,"i64":0,"f64":0.0,"id":"AAAAAAAAAAAAAAAAAAAAAA","nS":0,"s":"","raw":"","floats":[],"blobs":[],"ids":[],"flags":[],"opt":{"x":0},"gone":"","kept":-1}`},
		{1, `{"b":false,"i8":0,"i16":0,"u16":0,"i32":0,"u32":0,"i64":0,"f64":0.0,"id":"AAAAAAAAAAAAAAAAAAAAAA","nS":0,"s":"","raw":"","floats":[],"blobs":[],"ids":[],"flags":[],"opt":{"x":0},"gone":""}`},
		{2, `{"b":false,"i8":0,"i16":0,"u16":0,"i32":0,"u32":0,"i64":0,"f64":0.0,"id":"AAAAAAAAAAAAAAAAAAAAAA","nS":0,"s":"","raw":"","floats":[],"blobs":[],"ids":[],"flags":[],"opt":{"x":0},"later":-1}`},
	} {
		if got := toJSON(t, empty, m, tc.v, codec.JSONOptions{}); got != tc.want {
			t.Errorf("defaults v%d:\n got %s\nwant %s", tc.v, got, tc.want)
		}
		if got := viaWire(t, c, m, tc.v, empty, codec.JSONOptions{}); got != tc.want {
			t.Errorf("defaults v%d decoded:\n got %s\nwant %s", tc.v, got, tc.want)
		}
	}

	t.Run("nulls", func(t *testing.T) {
		val := jbuild(m.Root, tree.Body, jo{"S": jnull{}, "Raw": jnull{}, "Opt": jnull{}, "Note": jnull{}, "Where": jnull{}})
		got := toJSON(t, val, m, 2, codec.JSONOptions{})
		// Note's default is null: omitted. Where's default is an empty
		// struct, so null differs from it and is written.
		for _, frag := range []string{`"s":null,`, `"raw":null,`, `"opt":null,`, `"where":null}`} {
			if !strings.Contains(got, frag) {
				t.Errorf("missing %s in %s", frag, got)
			}
		}
		if strings.Contains(got, `"note"`) {
			t.Errorf("note (null, its default) written: %s", got)
		}
		if again := viaWire(t, c, m, 2, val, codec.JSONOptions{}); again != got {
			t.Errorf("decoded:\n got %s\nwant %s", again, got)
		}
		back, err := codec.FromJSON([]byte(got), m, 2)
		if err != nil {
			t.Fatal(err)
		}
		sameWire(t, c, m, 2, val, back)
		// S is not nullable at v1.
		_, err = codec.ToJSON(nil, val, 0, m, 1, codec.JSONOptions{})
		wantErr(t, err, "$.s", "null, but the field is not nullable in version 1")
	})

	t.Run("a tagged struct equal to an empty one is omitted", func(t *testing.T) {
		val := jbuild(m.Root, tree.Body, jo{"Where": jo{"Y": 0}, "Note": ""})
		got := toJSON(t, val, m, 1, codec.JSONOptions{})
		if strings.Contains(got, `"where"`) || !strings.HasSuffix(got, `"gone":"","note":""}`) {
			t.Errorf("got %s", got)
		}
	})
}

// TestJSONFloat64 checks that float64 is written as Java's Double.toString
// writes it and reads back to the same bits.
func TestJSONFloat64(t *testing.T) {
	m, _ := jsonKinds(t)
	for _, tc := range []struct {
		d    float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{100, "100.0"},
		{-2.5, "-2.5"},
		{0.1, "0.1"},
		{1.0 / 3, "0.3333333333333333"},
		{123456.789, "123456.789"},
		{9999999, "9999999.0"},
		{1e7, "1.0E7"},
		{1e10, "1.0E10"},
		{0.001, "0.001"},
		{0.00123, "0.00123"},
		{1e-4, "1.0E-4"},
		{1.5e300, "1.5E300"},
		{math.MaxFloat64, "1.7976931348623157E308"},
		{math.SmallestNonzeroFloat64, "4.9E-324"},
		{math.Float64frombits(4), "2.0E-323"},
		{math.Inf(1), `"Infinity"`},
		{math.Inf(-1), `"-Infinity"`},
		{math.NaN(), `"NaN"`},
	} {
		val := jbuild(m.Root, tree.Body, jo{"F64": tc.d})
		got := toJSON(t, val, m, 0, codec.JSONOptions{})
		if !strings.Contains(got, `"f64":`+tc.want+`,`) {
			t.Errorf("%v: got %s, want \"f64\":%s", tc.d, got, tc.want)
			continue
		}
		back, err := codec.FromJSON([]byte(got), m, 0)
		if err != nil {
			t.Errorf("%v: FromJSON: %v", tc.d, err)
			continue
		}
		var bits uint64
		back.Fields(0, func(c int32) bool {
			if f := back.Field(c); f != nil && f.Name == "F64" {
				bits = uint64(back.Num(c))
			}
			return true
		})
		if d := math.Float64frombits(bits); !(d == tc.d && math.Signbit(d) == math.Signbit(tc.d) || math.IsNaN(d) && math.IsNaN(tc.d)) {
			t.Errorf("%s read back as %v", tc.want, d)
		}
	}
}

// ---- tagged fields ----

func TestJSONTaggedFields(t *testing.T) {
	s, c := jrelease(t, "4.4.0")
	m := msg(t, s, "ApiVersionsResponse")
	apiKeys := []jo{{"ApiKey": 18, "MinVersion": 0, "MaxVersion": 4}}

	set := jbuild(m.Root, tree.Body, jo{"ErrorCode": 0, "ApiKeys": apiKeys, "ThrottleTimeMs": 0,
		"FinalizedFeaturesEpoch": 5, "ZkMigrationReady": true,
		"FinalizedFeatures": []jo{{"Name": "metadata.version", "MaxVersionLevel": 20, "MinVersionLevel": 1}}})
	const setV3 = `{"errorCode":0,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0,` +
		`"finalizedFeaturesEpoch":5,"finalizedFeatures":[{"name":"metadata.version","maxVersionLevel":20,"minVersionLevel":1}],"zkMigrationReady":true}`
	if got := toJSON(t, set, m, 3, codec.JSONOptions{}); got != setV3 {
		t.Errorf("non-default tags:\n got %s\nwant %s", got, setV3)
	}
	if got := viaWire(t, c, m, 3, set, codec.JSONOptions{}); got != setV3 {
		t.Errorf("non-default tags, decoded:\n got %s\nwant %s", got, setV3)
	}
	back, err := codec.FromJSON([]byte(setV3), m, 3)
	if err != nil {
		t.Fatal(err)
	}
	sameWire(t, c, m, 3, set, back)
	// At v2 the tagged fields do not exist; they are ignorable, so dropped.
	if got, want := toJSON(t, set, m, 2, codec.JSONOptions{}), `{"errorCode":0,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0}`; got != want {
		t.Errorf("v2:\n got %s\nwant %s", got, want)
	}

	defaults := jbuild(m.Root, tree.Body, jo{"ErrorCode": 0, "ApiKeys": apiKeys, "ThrottleTimeMs": 0,
		"SupportedFeatures": []jo{}, "FinalizedFeaturesEpoch": -1, "ZkMigrationReady": false})
	const defV3 = `{"errorCode":0,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0}`
	if got := toJSON(t, defaults, m, 3, codec.JSONOptions{}); got != defV3 {
		t.Errorf("default tags:\n got %s\nwant %s", got, defV3)
	}
	if got := viaWire(t, c, m, 3, defaults, codec.JSONOptions{}); got != defV3 {
		t.Errorf("default tags, decoded:\n got %s\nwant %s", got, defV3)
	}
	// Tagged fields given at their default are read, and written as before.
	back, err = codec.FromJSON([]byte(`{"errorCode":0,"apiKeys":[],"throttleTimeMs":0,"finalizedFeaturesEpoch":-1,"zkMigrationReady":false}`), m, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toJSON(t, back, m, 3, codec.JSONOptions{}), `{"errorCode":0,"apiKeys":[],"throttleTimeMs":0}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}

	// Nullable tagged fields whose default is null: [] differs from null.
	pc := msg(t, s, "PartitionChangeRecord")
	val := jbuild(pc.Root, tree.Body, jo{"PartitionId": 0, "TopicId": [16]byte{}, "Isr": []any{}, "Leader": 3,
		"Replicas": jnull{}, "AddingReplicas": []any{1, 2}, "LeaderRecoveryState": -1})
	const pcV0 = `{"partitionId":0,"topicId":"AAAAAAAAAAAAAAAAAAAAAA","isr":[],"leader":3,"addingReplicas":[1,2]}`
	if got := viaWire(t, c, pc, 0, val, codec.JSONOptions{}); got != pcV0 {
		t.Errorf("PartitionChangeRecord:\n got %s\nwant %s", got, pcV0)
	}
	back, err = codec.FromJSON([]byte(pcV0), pc, 0)
	if err != nil {
		t.Fatal(err)
	}
	sameWire(t, c, pc, 0, val, back)
}

// ---- unknown tagged fields ----

func TestJSONUnknownTags(t *testing.T) {
	s, c := jrelease(t, "4.4.0")
	m := msg(t, s, "ApiVersionsResponse")
	val := jbuild(m.Root, tree.Body, jo{"ErrorCode": 0, "ThrottleTimeMs": 0,
		"ApiKeys": []jo{{"ApiKey": 18, "MinVersion": 0, "MaxVersion": 4, "_tags": []jtag{{7, []byte{}}}}},
		"_tags":   []jtag{{9, []byte{0xaa, 0xbb}}, {40, []byte{1}}}})
	const plain = `{"errorCode":0,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0}`
	const kept = `{"errorCode":0,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4,"_unknownTaggedFields":[{"tag":7,"data":""}]}],` +
		`"throttleTimeMs":0,"_unknownTaggedFields":[{"tag":9,"data":"qrs="},{"tag":40,"data":"AQ=="}]}`
	if got := viaWire(t, c, m, 3, val, codec.JSONOptions{}); got != plain {
		t.Errorf("without UnknownTags (Kafka drops them):\n got %s\nwant %s", got, plain)
	}
	if got := viaWire(t, c, m, 3, val, codec.JSONOptions{UnknownTags: true}); got != kept {
		t.Errorf("with UnknownTags:\n got %s\nwant %s", got, kept)
	}
	back, err := codec.FromJSON([]byte(kept), m, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d := tree.Diff(val, 0, back, 0); d != "" {
		t.Errorf("FromJSON differs: %s", d)
	}
	sameWire(t, c, m, 3, val, back)
	back, err = codec.FromJSON([]byte(plain), m, 3)
	if err != nil {
		t.Fatal(err)
	}
	for k := range back.Nodes {
		if back.Nodes[k].Kind() == tree.UnknownTag {
			t.Errorf("JSON without the key gave unknown tag %d", back.Num(int32(k)))
		}
	}

	// Unknown tags cannot exist in a non-flexible version.
	_, err = codec.ToJSON(nil, val, 0, m, 2, codec.JSONOptions{UnknownTags: true})
	wantErr(t, err, "$.apiKeys[0]._unknownTaggedFields[0]", "unknown tagged field 7 cannot exist in non-flexible version 2")
	if _, err := codec.ToJSON(nil, val, 0, m, 2, codec.JSONOptions{}); err != nil {
		t.Errorf("without UnknownTags they are dropped as Kafka does: %v", err)
	}
}

// ---- records ----

func TestJSONRecords(t *testing.T) {
	s, c := jrelease(t, "4.4.0")
	m := msg(t, s, "ProduceRequest")
	batch := instance.EmptyBatch()
	b64 := base64.StdEncoding.EncodeToString(batch)
	for _, v := range []int16{3, 9} {
		val := jbuild(m.Root, tree.Body, jo{"TransactionalId": jnull{}, "Acks": -1, "TimeoutMs": 1000,
			"TopicData": []jo{{"Name": "t", "PartitionData": []jo{{"Index": 0, "Records": batch}, {"Index": 1, "Records": jnull{}}}}}})
		json := func(first string) string {
			return `{"transactionalId":null,"acks":-1,"timeoutMs":1000,"topicData":[{"name":"t","partitionData":[{"index":0,` +
				first + `},{"index":1,"records":null}]}]}`
		}
		for _, tc := range []struct {
			mode codec.RecordsMode
			want string
		}{
			{codec.RecordsBase64, json(`"records":"` + b64 + `"`)},
			{codec.RecordsEmpty, json(`"records":""`)},
			{codec.RecordsSize, json(`"recordsSizeInBytes":61`)},
		} {
			o := codec.JSONOptions{Records: tc.mode}
			if got := toJSON(t, val, m, v, o); got != tc.want {
				t.Errorf("v%d mode %d:\n got %s\nwant %s", v, tc.mode, got, tc.want)
			}
			if got := viaWire(t, c, m, v, val, o); got != tc.want {
				t.Errorf("v%d mode %d, decoded:\n got %s\nwant %s", v, tc.mode, got, tc.want)
			}
		}
		// Base64 reads back byte for byte.
		back, err := codec.FromJSON([]byte(json(`"records":"`+b64+`"`)), m, v)
		if err != nil {
			t.Fatal(err)
		}
		if d := tree.Diff(val, 0, back, 0); d != "" {
			t.Errorf("v%d base64: %s", v, d)
		}
		// "" reads back as empty (not null) records.
		back, err = codec.FromJSON([]byte(json(`"records":""`)), m, v)
		if err != nil {
			t.Fatal(err)
		}
		d := tree.Diff(val, 0, back, 0)
		if !strings.HasPrefix(d, "TopicData[0].PartitionData[0].Records: ") || !strings.HasSuffix(d, ` vs ""`) {
			t.Errorf("v%d empty: diff %q", v, d)
		}
		for k := range back.Nodes {
			if n := back.Nodes[k]; n.Kind() == tree.Records && !n.Null() && back.DataLen(int32(k)) != 0 {
				t.Errorf("v%d empty: records node %+v", v, n)
			}
		}
		// The size alone cannot be read back; beside the records it must agree.
		_, err = codec.FromJSON([]byte(json(`"recordsSizeInBytes":61`)), m, v)
		wantErr(t, err, "$.topicData[0].partitionData[0].records", "missing: only recordsSizeInBytes is given (Kafka's serializeRecords=false); the records' bytes are not in the JSON")
		if _, err := codec.FromJSON([]byte(json(`"records":"`+b64+`","recordsSizeInBytes":61`)), m, v); err != nil {
			t.Errorf("records with a matching size: %v", err)
		}
		_, err = codec.FromJSON([]byte(json(`"records":"","recordsSizeInBytes":61`)), m, v)
		wantErr(t, err, "$.topicData[0].partitionData[0].recordsSizeInBytes", "61, but the records hold 0 bytes")
	}
}

// ---- bad input ----

// wantErr asserts that err is a *codec.JSONError with this path and message.
func wantErr(t testing.TB, err error, path, msg string) {
	t.Helper()
	var je *codec.JSONError
	if !errors.As(err, &je) {
		t.Errorf("want JSONError %s: %s; got %v", path, msg, err)
		return
	}
	if je.Path != path || je.Msg != msg {
		t.Errorf("got error\n  %s: %s\nwant\n  %s: %s", je.Path, je.Msg, path, msg)
	}
	if je.Error() != path+": "+msg {
		t.Errorf("Error() = %q", je.Error())
	}
}

func TestJSONBadInput(t *testing.T) {
	s, _ := jrelease(t, "4.4.0")
	kinds, _ := jsonKinds(t)
	const part = `"partitionIndex":0,"replicaEpoch":5,"replicaId":1,"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAQ","voterDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","lastOffsetEpoch":4,"lastOffset":100`
	const vote = `{"clusterId":"abc","voterId":2,"topics":[{"topicName":"t","partitions":[{` + part + `}]}]}`
	if _, err := codec.FromJSON([]byte(vote), msg(t, s, "VoteRequest"), 1); err != nil {
		t.Fatalf("the good VoteRequest: %v", err)
	}
	edit := func(old, new string) string {
		if !strings.Contains(vote, old) {
			panic(old)
		}
		return strings.Replace(vote, old, new, 1)
	}
	// kindsV2 is a JsonKinds v2 value with one member replaced.
	kindsV2 := func(old, new string) string {
		base := `{"b":false,"i8":0,"i16":0,"u16":0,"i32":0,"u32":0,"i64":0,"f64":0.0,"id":"AAAAAAAAAAAAAAAAAAAAAA","nS":0,"s":"","raw":"","floats":[],"blobs":[],"ids":[],"flags":[],"opt":{"x":0},"later":-1}`
		if !strings.Contains(base, old) {
			panic(old)
		}
		return strings.Replace(base, old, new, 1)
	}
	long := strings.Repeat("x", 32768)
	cases := []struct {
		name    string
		msg     *spec.Message
		v       int16
		json    string
		path    string
		message string
	}{
		// Malformed JSON.
		{"a trailing comma", nil, 1, `{"clusterId":"abc",}`, "$", "malformed JSON at byte 19: invalid character '}' looking for beginning of object key string"},
		{"input that stops inside an array", nil, 1, `{"clusterId":"abc","topics":[{"topicName":"t"}`, "$.topics[1]", "malformed JSON at byte 46: unexpected end of input"},
		{"a missing colon", nil, 1, edit(`"lastOffset":100`, `"lastOffset" 100`), "$.topics[0].partitions[0].lastOffset", "malformed JSON at byte 246: invalid character '1' after object key"},
		{"two values", nil, 1, `{} {}`, "$", "malformed JSON at byte 3: unexpected data after the top-level value"},
		{"nothing", nil, 1, ``, "$", "malformed JSON at byte 0: unexpected end of input"},
		{"the root is not an object", nil, 1, `[]`, "$", "expected an object (VoteRequest), got an array"},
		// Keys.
		{"an unknown key, with a suggestion", nil, 1, edit(`"lastOffset":100`, `"lastOfset":100`), "$.topics[0].partitions[0].lastOfset", `unknown field: PartitionData has no field with this key in any version; did you mean "lastOffset"?`},
		{"an unknown key", nil, 1, edit(`"topicName":"t"`, `"topicName":"t","weird key":1`), `$.topics[0]["weird key"]`, "unknown field: TopicData has no field with this key in any version"},
		{"keys are case-sensitive", nil, 1, edit(`"clusterId"`, `"ClusterId"`), "$.ClusterId", `unknown field: VoteRequest has no field with this key in any version; did you mean "clusterId"?`},
		{"a duplicate key", nil, 1, edit(`"voterId":2`, `"voterId":2,"voterId":3`), "$.voterId", `duplicate key "voterId" (Kafka's reader would keep the last one)`},
		{"a missing mandatory field", nil, 1, edit(`,"lastOffset":100`, ``), "$.topics[0].partitions[0].lastOffset", "missing: the field is mandatory in version 1"},
		// Types.
		{"a string for an int64", nil, 1, edit(`"lastOffset":100`, `"lastOffset":"100"`), "$.topics[0].partitions[0].lastOffset", `expected an integer (int64), got the string "100"`},
		{"a float for an int64", nil, 1, edit(`"lastOffset":100`, `"lastOffset":1.5`), "$.topics[0].partitions[0].lastOffset", "expected an integer (int64), got the floating-point number 1.5"},
		{"an exponent for an int32", nil, 1, edit(`"partitionIndex":0`, `"partitionIndex":1e2`), "$.topics[0].partitions[0].partitionIndex", "expected an integer (int32), got the floating-point number 1e2"},
		{"an object for an array", nil, 1, edit(`"partitions":[{`+part+`}]`, `"partitions":{}`), "$.topics[0].partitions", "expected an array, got an object"},
		{"a number for an array element struct", nil, 1, edit(`"partitions":[{`+part+`}]`, `"partitions":[7]`), "$.topics[0].partitions[0]", "expected an object (PartitionData), got the number 7"},
		{"a number for a string", nil, 1, edit(`"topicName":"t"`, `"topicName":7`), "$.topics[0].topicName", "expected a string, got the number 7"},
		{"a number for a bool", kinds, 2, kindsV2(`"b":false`, `"b":0`), "$.b", "expected true or false (bool), got the number 0"},
		{"an integer for a float64", kinds, 2, kindsV2(`"f64":0.0`, `"f64":1`), "$.f64", "expected a floating-point number (float64) such as 1.0, got the integer 1 (Kafka's reader rejects integers here)"},
		{"a string for a float64", kinds, 2, kindsV2(`"f64":0.0`, `"f64":"1.0"`), "$.f64", `expected a floating-point number (float64), got the string "1.0"`},
		{"a float64 out of range", kinds, 2, kindsV2(`"f64":0.0`, `"f64":1e400`), "$.f64", "1e400 is out of range for float64"},
		// Integer ranges.
		{"int8 128 (Kafka maps 128..256 by subtracting 128)", kinds, 2, kindsV2(`"i8":0`, `"i8":128`), "$.i8", "128 is out of range for int8 (-128..127)"},
		{"int8 -129", kinds, 2, kindsV2(`"i8":0`, `"i8":-129`), "$.i8", "-129 is out of range for int8 (-128..127)"},
		{"int16 32768", kinds, 2, kindsV2(`"i16":0`, `"i16":32768`), "$.i16", "32768 is out of range for int16 (-32768..32767)"},
		{"uint16 65536", kinds, 2, kindsV2(`"u16":0`, `"u16":65536`), "$.u16", "65536 is out of range for uint16 (0..65535)"},
		{"uint16 -1", kinds, 2, kindsV2(`"u16":0`, `"u16":-1`), "$.u16", "-1 is out of range for uint16 (0..65535)"},
		{"int32 2147483648", nil, 1, edit(`"partitionIndex":0`, `"partitionIndex":2147483648`), "$.topics[0].partitions[0].partitionIndex", "2147483648 is out of range for int32 (-2147483648..2147483647)"},
		{"uint32 4294967296", kinds, 2, kindsV2(`"u32":0`, `"u32":4294967296`), "$.u32", "4294967296 is out of range for uint32 (0..4294967295)"},
		{"uint32 -1", kinds, 2, kindsV2(`"u32":0`, `"u32":-1`), "$.u32", "-1 is out of range for uint32 (0..4294967295)"},
		{"int64 2^63", nil, 1, edit(`"lastOffset":100`, `"lastOffset":9223372036854775808`), "$.topics[0].partitions[0].lastOffset", "9223372036854775808 is out of range for int64 (-9223372036854775808..9223372036854775807)"},
		// Nulls.
		{"null for a non-nullable string", nil, 1, edit(`"topicName":"t"`, `"topicName":null`), "$.topics[0].topicName", "null, but the field is not nullable in version 1"},
		{"null for an int", nil, 1, edit(`"voterId":2`, `"voterId":null`), "$.voterId", "null, but the field is not nullable in version 1"},
		{"null for a non-nullable array", nil, 1, edit(`"partitions":[{`+part+`}]`, `"partitions":null`), "$.topics[0].partitions", "null, but the field is not nullable in version 1"},
		{"null for a string nullable only from v2", kinds, 1, strings.Replace(kindsV2(`"s":""`, `"s":null`), `,"later":-1`, ``, 1), "$.s", "null, but the field is not nullable in version 1"},
		{"a null array element", kinds, 2, kindsV2(`"flags":[]`, `"flags":[true,null]`), "$.flags[1]", "null, but array elements cannot be null"},
		// Base64, uuids, strings.
		{"bad base64", kinds, 2, kindsV2(`"raw":""`, `"raw":"AQI"`), "$.raw", "bad base64 (standard alphabet, padded): illegal base64 data at input byte 0"},
		{"base64url where base64 is needed", kinds, 2, kindsV2(`"blobs":[]`, `"blobs":["-w=="]`), "$.blobs[0]", "bad base64 (standard alphabet, padded): illegal base64 data at input byte 0"},
		{"a line break in base64", kinds, 2, kindsV2(`"raw":""`, `"raw":"AQ\n=="`), "$.raw", "bad base64 (standard alphabet, padded): line break at input byte 2"},
		{"a number for bytes", kinds, 2, kindsV2(`"raw":""`, `"raw":1`), "$.raw", "expected bytes as a base64 string, got the number 1"},
		{"a short uuid", nil, 1, edit(`"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAQ"`, `"replicaDirectoryId":"AAAA"`), "$.topics[0].partitions[0].replicaDirectoryId", `expected a uuid: 22 base64url characters without padding, got "AAAA" (4 characters)`},
		{"a padded uuid", nil, 1, edit(`"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAQ"`, `"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAQ=="`), "$.topics[0].partitions[0].replicaDirectoryId", `expected a uuid: 22 base64url characters without padding, got "AAAAAAAAAAAAAAAAAAAAAQ==" (24 characters)`},
		{"a uuid in the standard alphabet", nil, 1, edit(`"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAQ"`, `"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAA+Q"`), "$.topics[0].partitions[0].replicaDirectoryId", `expected a uuid: "AAAAAAAAAAAAAAAAAAAA+Q" is not 22 base64url characters of 16 bytes (illegal base64 data at input byte 20)`},
		{"a uuid as 8-4-4-4-12", kinds, 2, kindsV2(`"id":"AAAAAAAAAAAAAAAAAAAAAA"`, `"id":"00000000-0000-0000-0000-000000000000"`), "$.id", `expected a uuid: 22 base64url characters without padding, got "00000000-0000-0000-0000-000000000000" (36 characters)`},
		{"a string of 32768 bytes", nil, 1, edit(`"topicName":"t"`, `"topicName":"`+long+`"`), "$.topics[0].topicName", "string of 32768 UTF-8 bytes is longer than Kafka's limit of 32767"},
		// Fields of other versions.
		{"another version's key still has to have the right type", nil, 0, `{"clusterId":null,"voterId":"x","topics":[]}`, "$.voterId", `expected an integer (int32), got the string "x"`},
		{"a non-ignorable field of other versions with a value", msg(t, s, "EndQuorumEpochResponse"), 0, `{"errorCode":0,"topics":[],"nodeEndpoints":[{"nodeId":1,"host":"h","port":9092}]}`, "$.nodeEndpoints", "the field is not in version 0 and is not ignorable, so its non-default value cannot be written at this version (Kafka's reader accepts it, its writer then throws UnsupportedVersionException)"},
		// Unknown tagged fields.
		{"unknown tags in a non-flexible version", msg(t, s, "ApiVersionsRequest"), 2, `{"_unknownTaggedFields":[{"tag":9,"data":"qrs="}]}`, "$._unknownTaggedFields[0]", "unknown tagged fields exist only in flexible versions; version 2 is not flexible"},
		{"an unknown tag that is a known tag", msg(t, s, "ApiVersionsResponse"), 3, `{"errorCode":0,"apiKeys":[],"throttleTimeMs":0,"_unknownTaggedFields":[{"tag":1,"data":""}]}`, "$._unknownTaggedFields[0].tag", "tag 1 is the tag of finalizedFeaturesEpoch, so it is not unknown"},
		{"an unknown tag given twice", msg(t, s, "ApiVersionsRequest"), 3, `{"clientSoftwareName":"","clientSoftwareVersion":"","_unknownTaggedFields":[{"tag":9,"data":""},{"data":"","tag":9}]}`, "$._unknownTaggedFields[1].tag", "tag 9 is given twice"},
		{"an unknown tag without data", msg(t, s, "ApiVersionsRequest"), 3, `{"clientSoftwareName":"","clientSoftwareVersion":"","_unknownTaggedFields":[{"tag":9}]}`, "$._unknownTaggedFields[0].data", `missing: an unknown tagged field needs "data"`},
		{"an unknown tag with another key", msg(t, s, "ApiVersionsRequest"), 3, `{"clientSoftwareName":"","clientSoftwareVersion":"","_unknownTaggedFields":[{"tag":9,"data":"","size":0}]}`, "$._unknownTaggedFields[0].size", `unknown field: an unknown tagged field has only "tag" and "data"`},
		{"unknown tags that are not an array", msg(t, s, "ApiVersionsRequest"), 3, `{"clientSoftwareName":"","clientSoftwareVersion":"","_unknownTaggedFields":{}}`, "$._unknownTaggedFields", `expected an array of {"tag":N,"data":"<base64>"} objects, got an object`},
	}
	// Offset is where the offending value starts.
	_, err := codec.FromJSON([]byte(edit(`"lastOffset":100`, `"lastOffset":"100"`)), msg(t, s, "VoteRequest"), 1)
	var je *codec.JSONError
	if !errors.As(err, &je) || je.Offset != strings.Index(vote, `"lastOffset":100`)+len(`"lastOffset":`) {
		t.Errorf("offset of a wrong value: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.msg
			if m == nil {
				m = msg(t, s, "VoteRequest")
			}
			tr, err := codec.FromJSON([]byte(tc.json), m, tc.v)
			if err == nil {
				t.Fatalf("no error; got %d nodes", len(tr.Nodes))
			}
			wantErr(t, err, tc.path, tc.message)
		})
	}
}

// TestJSONOtherVersionKeys checks that keys of fields absent in the version
// are accepted and left out of the value, as Kafka's reader accepts them.
func TestJSONOtherVersionKeys(t *testing.T) {
	s, c := jrelease(t, "4.4.0")
	m := msg(t, s, "VoteRequest")
	got, err := codec.FromJSON([]byte(`{"topics":[],"voterId":7,"clusterId":null}`), m, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := jbuild(m.Root, tree.Body, jo{"ClusterId": jnull{}, "Topics": []jo{}})
	if d := tree.Diff(want, 0, got, 0); d != "" {
		t.Errorf("voterId at v0 (ignorable) should be dropped: %s", d)
	}
	sameWire(t, c, m, 0, want, got)
	// A non-ignorable field of other versions at its default is accepted.
	er := msg(t, s, "EndQuorumEpochResponse")
	if _, err := codec.FromJSON([]byte(`{"errorCode":0,"topics":[],"nodeEndpoints":[]}`), er, 0); err != nil {
		t.Errorf("nodeEndpoints [] at v0: %v", err)
	}
}

func TestJSONErrorsOfToJSON(t *testing.T) {
	s, c := jrelease(t, "4.4.0")
	m := msg(t, s, "VoteRequest")
	kinds, _ := jsonKinds(t)

	val := jbuild(m.Root, tree.Body, jo{"Topics": []jo{{"TopicName": jnull{}}}})
	_, err := codec.ToJSON(nil, val, 0, m, 1, codec.JSONOptions{})
	wantErr(t, err, "$.topics[0].topicName", "null, but the field is not nullable in version 1")

	er := msg(t, s, "EndQuorumEpochResponse")
	val = jbuild(er.Root, tree.Body, jo{"NodeEndpoints": []jo{{"NodeId": 1, "Host": "h", "Port": 9092}}})
	_, err = codec.ToJSON(nil, val, 0, er, 0, codec.JSONOptions{})
	wantErr(t, err, "$.nodeEndpoints", "the field is not in version 0 and is not ignorable, but holds a non-default value (Kafka's converter throws UnsupportedVersionException)")

	val = jbuild(kinds.Root, tree.Body, jo{"I8": 200})
	_, err = codec.ToJSON(nil, val, 0, kinds, 0, codec.JSONOptions{})
	wantErr(t, err, "$.i8", "value 200 is out of range for int8 (-128..127)")

	val = jbuild(kinds.Root, tree.Body, jo{"Ids": []any{[]byte{1, 2}}})
	_, err = codec.ToJSON(nil, val, 0, kinds, 0, codec.JSONOptions{})
	wantErr(t, err, "$.ids[0]", "a uuid is 16 bytes, have 2")

	// Appends to dst, and leaves dst as it was on error.
	dst := []byte("prefix ")
	out, err := codec.ToJSON(dst, jbuild(kinds.Root, tree.Body, jo{"I8": 300}), 0, kinds, 0, codec.JSONOptions{})
	if err == nil || string(out) != "prefix " {
		t.Errorf("on error: %q, %v", out, err)
	}
	out, err = codec.ToJSON(dst, codec.RequestHeaderValue(s.RequestHeader(), 18, 3, 7, ""), 0, s.RequestHeader(), 1, codec.JSONOptions{})
	if err != nil || string(out) != `prefix {"requestApiKey":18,"requestApiVersion":3,"correlationId":7,"clientId":""}` {
		t.Errorf("append: %q, %v", out, err)
	}

	// Only struct-like nodes of the message can be rendered.
	enc, err := c.Encode(m, 1, nil, instance.Smallest(m, 1))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := c.DecodeRequest(enc.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := codec.ToJSON(nil, dec, 0, m, 1, codec.JSONOptions{}); err == nil {
		t.Errorf("the Message node rendered without error")
	}
	if _, err := codec.ToJSON(nil, dec, dec.Part(tree.Header), m, 1, codec.JSONOptions{}); err == nil {
		t.Errorf("the header rendered as a VoteRequest without error")
	}
	if _, err := codec.ToJSON(nil, dec, dec.Part(tree.Body), m, 7, codec.JSONOptions{}); err == nil {
		t.Errorf("version 7 rendered without error")
	}
	if _, err := codec.FromJSON([]byte(`{}`), m, 7); err == nil {
		t.Errorf("FromJSON at version 7 without error")
	}
}

// TestJSONKeyOrder checks that FromJSON builds fields in spec order,
// whatever the order of the keys.
func TestJSONKeyOrder(t *testing.T) {
	s, c := jrelease(t, "3.9.1")
	m := msg(t, s, "VoteRequest")
	a, err := codec.FromJSON([]byte(`{"clusterId":"abc","voterId":2,"topics":[{"topicName":"t","partitions":[]}]}`), m, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := codec.FromJSON([]byte(` { "topics" : [ { "partitions" : [ ] , "topicName" : "t" } ] , "voterId" : 2 , "clusterId" : "abc" } `), m, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := tree.Diff(a, 0, b, 0); d != "" {
		t.Errorf("key order changed the value: %s", d)
	}
	for k := range a.Nodes {
		if a.Nodes[k].Ref() != b.Nodes[k].Ref() || a.Nodes[k].Kind() != b.Nodes[k].Kind() {
			t.Errorf("node %d: %s vs %s", k, a.Nodes[k].Kind(), b.Nodes[k].Kind())
		}
	}
	sameWire(t, c, m, 1, a, b)
}

// TestJSONStrings checks Jackson's escaping and the reading of escapes.
func TestJSONStrings(t *testing.T) {
	m, _ := jsonKinds(t)
	for _, tc := range []struct {
		s    string
		want string // the JSON text
		read string // what FromJSON reads back ("" means s)
	}{
		{"plain", `"plain"`, ""},
		{"\"\\/", `"\"\\/"`, ""},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`, ""},
		{"\x00\x1f\x7f", `"\u0000\u001F` + "\x7f\"", ""},
		{"<&>\u2028é😀", "\"<&>\u2028é😀\"", ""},
		// Invalid UTF-8 becomes U+FFFD, as in the Java String Kafka decodes.
		{"bad \xff utf-8 \xe2\x82", "\"bad \uFFFD utf-8 \uFFFD\uFFFD\"", "bad \uFFFD utf-8 \uFFFD\uFFFD"},
	} {
		val := jbuild(m.Root, tree.Body, jo{"S": tc.s})
		got := toJSON(t, val, m, 0, codec.JSONOptions{})
		if !strings.Contains(got, `"s":`+tc.want+`,`) {
			t.Errorf("%q: got %s, want \"s\":%s", tc.s, got, tc.want)
			continue
		}
		back, err := codec.FromJSON([]byte(got), m, 0)
		if err != nil {
			t.Errorf("%q: %v", tc.s, err)
			continue
		}
		var read string
		back.Fields(0, func(c int32) bool {
			if f := back.Field(c); f != nil && f.Name == "S" {
				read = string(back.Data(c))
			}
			return true
		})
		want := tc.read
		if want == "" {
			want = tc.s
		}
		if read != want {
			t.Errorf("%q read back as %q", tc.s, read)
		}
	}
}

// The JSON string "NaN" becomes Java's canonical NaN bits, so the bytes
// kwire writes for it are the bytes Kafka writes (found by the oracle:
// Go's math.NaN() is 0x7ff8000000000001).
func TestJSONNaNIsJavaNaN(t *testing.T) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	m := s.Message("ClientQuotaRecord")
	v, err := codec.FromJSON([]byte(`{"entity":[],"key":"k","value":"NaN","remove":false}`), m, 0)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := codec.New(s).EncodeBody(m, 0, v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(enc.Bytes, []byte{0x7f, 0xf8, 0, 0, 0, 0, 0, 0}) {
		t.Fatalf("NaN encodes as %x, want Java's 7ff8000000000000", enc.Bytes)
	}
}

// Text a string could not carry faithfully is refused, never replaced:
// bytes that are not UTF-8, and \u escapes of lone surrogates (Kafka's
// encoder would write '?'). A surrogate pair is a character and is fine.
func TestFromJSONRefusesUnfaithfulText(t *testing.T) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	m := s.Message("VoteRequest")
	for _, tc := range []struct{ in, want string }{
		{`{"clusterId":"a\ud800b","voterId":0,"topics":[]}`, `$: a lone UTF-16 surrogate \ud800 at byte 15: it is no character, and Kafka would write it as '?'`},
		{`{"clusterId":"\udc00","voterId":0,"topics":[]}`, `$: a lone UTF-16 surrogate \udc00 at byte 14: it is no character, and Kafka would write it as '?'`},
		{"{\"clusterId\":\"a\xffb\",\"voterId\":0,\"topics\":[]}", `$: the JSON is not valid UTF-8 at byte 15 (0xff)`},
	} {
		_, err := codec.FromJSON([]byte(tc.in), m, 2)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: err %v, want %s", tc.in, err, tc.want)
		}
	}
	if _, err := codec.FromJSON([]byte(`{"clusterId":"\ud83d\ude00","voterId":0,"topics":[]}`), m, 2); err != nil {
		t.Errorf("a surrogate pair: %v", err)
	}
}
