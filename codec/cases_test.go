package codec_test

// The wire cases of docs/wire-cases.md (rules of the format that Kafka
// clients, brokers and proxies have got wrong, ids C01…) as fixed byte vectors, plus bad-input
// tests: truncation, absurd counts, non-Kafka frames, unknown keys and
// versions.

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// ---- helpers ----

var kafka440 = sync.OnceValues(func() (*spec.Set, error) { return spec.Embedded("4.4.0") })

// specs returns Kafka 4.4.0's specs and a fresh (non-strict) codec.
func specs(t testing.TB) (*spec.Set, *codec.Codec) {
	t.Helper()
	s, err := kafka440()
	if err != nil {
		t.Fatal(err)
	}
	return s, codec.New(s)
}

func msg(t testing.TB, s *spec.Set, name string) *spec.Message {
	t.Helper()
	m := s.Message(name)
	if m == nil {
		t.Fatalf("no message %s", name)
	}
	return m
}

// hexBytes decodes hex written with spaces for reading.
func hexBytes(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// framed prefixes b with its int32 size.
func framed(b []byte) []byte {
	out := make([]byte, 4, 4+len(b))
	out[0], out[1], out[2], out[3] = byte(len(b)>>24), byte(len(b)>>16), byte(len(b)>>8), byte(len(b))
	return append(out, b...)
}

// null is a null value in an obj; utag is an unknown tagged field.
type null struct{}

type utag struct {
	tag  int64
	data []byte
}

// obj describes a struct value by field name; the key "_tags" holds
// []utag, written into the value tree in the order given.
type obj map[string]any

// valueOf builds a value tree of kind (Body or Header) for struct st.
func valueOf(st *spec.Struct, kind tree.Kind, o obj) *tree.Tree {
	t := &tree.Tree{}
	b := tree.Builder{T: t}
	b.Open(tree.Node{S: tree.NewShape(kind, tree.WireNone, tree.StructRef(st), 0)})
	fill(&b, st, o)
	b.Close(0)
	return t
}

func fill(b *tree.Builder, st *spec.Struct, o obj) {
	used := 0
	for _, f := range st.Fields {
		if v, ok := o[f.Name]; ok {
			used++
			put(b, f, v)
		}
	}
	if tags, ok := o["_tags"]; ok {
		used++
		for _, u := range tags.([]utag) {
			b.LeafTag(uint32(u.tag), u.data)
		}
	}
	if used != len(o) {
		panic(fmt.Sprintf("value for %s names a field it does not have: %v", st.Name, o))
	}
}

func put(b *tree.Builder, f *spec.Field, v any) {
	kind := map[spec.Kind]tree.Kind{spec.KindStruct: tree.Struct, spec.KindArray: tree.Array, spec.KindRecords: tree.Records}[f.Type.Kind]
	if kind == 0 {
		kind = tree.Field
	}
	if _, ok := v.(null); ok {
		b.LeafData(tree.Node{S: tree.NewShape(kind, tree.WireNone, tree.FieldRef(f), 0).With(tree.FlagNull)}, nil)
		return
	}
	switch kind {
	case tree.Struct:
		b.Open(tree.Node{S: tree.NewShape(tree.Struct, tree.WireNone, tree.FieldRef(f), 0)})
		fill(b, f.Type.Struct, v.(obj))
		b.Close(0)
	case tree.Array:
		b.Open(tree.Node{S: tree.NewShape(tree.Array, tree.WireNone, tree.FieldRef(f), 0)})
		switch es := v.(type) {
		case []obj:
			for _, e := range es {
				b.Open(tree.Node{S: tree.NewShape(tree.Element, tree.WireNone, tree.StructRef(f.Type.Struct), 0)})
				fill(b, f.Type.Struct, e)
				b.Close(0)
			}
		case []any:
			for _, e := range es {
				scalarLeaf(b, tree.Node{S: tree.NewShape(tree.Element, tree.WireNone, 0, 0)}, e)
			}
		default:
			panic(fmt.Sprintf("%s: array value %T", f.Name, v))
		}
		b.Close(0)
	default:
		scalarLeaf(b, tree.Node{S: tree.NewShape(kind, tree.WireNone, tree.FieldRef(f), 0)}, v)
	}
}

func scalarLeaf(b *tree.Builder, n tree.Node, v any) {
	switch x := v.(type) {
	case int:
		b.LeafNum(n, int64(x))
	case int64:
		b.LeafNum(n, x)
	case bool:
		if x {
			b.LeafNum(n, 1)
		} else {
			b.LeafNum(n, 0)
		}
	case float64:
		b.LeafNum(n, int64(math.Float64bits(x)))
	case string:
		b.LeafData(n, []byte(x))
	case []byte:
		b.LeafData(n, x)
	case [16]byte:
		b.LeafData(n, x[:])
	default:
		panic(fmt.Sprintf("scalar value %T", v))
	}
}

// nodeAt follows a path such as "Topics[0].Partitions[0].LastOffset" from
// struct-like node i of a span or value tree; -1 when a step is absent.
func nodeAt(t *tree.Tree, i int32, path string) int32 {
	for _, seg := range strings.Split(path, ".") {
		name, idx := seg, -1
		if k := strings.IndexByte(seg, '['); k >= 0 {
			name = seg[:k]
			idx, _ = strconv.Atoi(seg[k+1 : len(seg)-1])
		}
		found := int32(-1)
		t.Fields(i, func(c int32) bool {
			if f := t.Field(c); f != nil && f.Name == name {
				found = c
				return false
			}
			return true
		})
		if found < 0 {
			return -1
		}
		i = found
		if idx >= 0 {
			j, el := 0, int32(-1)
			t.Elements(i, func(c int32) bool {
				if j == idx {
					el = c
					return false
				}
				j++
				return true
			})
			if el < 0 {
				return -1
			}
			i = el
		}
	}
	return i
}

// valNode is a node with the values a tree reads from its bytes.
type valNode struct {
	tree.Node
	Num  int64
	Data []byte
}

// valOf returns node i of tr with its values.
func valOf(tr *tree.Tree, i int32) *valNode {
	return &valNode{Node: tr.Nodes[i], Num: tr.Num(i), Data: tr.Data(i)}
}

// dataOf returns the contents of node n.
func dataOf(_ *tree.Tree, n *valNode) []byte { return n.Data }

// bodyNode returns the node at path under the body of span tree t.
func bodyNode(t testing.TB, tr *tree.Tree, path string) *valNode {
	t.Helper()
	i := nodeAt(tr, tr.Part(tree.Body), path)
	if i < 0 {
		t.Fatalf("no %s in the decoded body", path)
	}
	return valOf(tr, i)
}

// decodeAs decodes a framed request or response of m at version v.
func decodeAs(c *codec.Codec, m *spec.Message, v int16, b []byte) (*tree.Tree, error) {
	if m.Type == spec.Request {
		return c.DecodeRequest(b)
	}
	return c.DecodeResponse(b, m, v)
}

// reencode encodes the header and body of decoded tree dec again.
func reencode(c *codec.Codec, dec *tree.Tree) (*tree.Tree, error) {
	var hdr *tree.Tree
	if h := dec.Part(tree.Header); h >= 0 {
		hdr = dec.Sub(h)
	}
	return c.Encode(dec.Message, dec.Version, hdr, dec.Sub(dec.Part(tree.Body)))
}

func headerSpec(s *spec.Set, m *spec.Message) *spec.Message {
	if m.Type == spec.Request {
		return s.RequestHeader()
	}
	return s.ResponseHeader()
}

func sameBytes(t testing.TB, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("%s:\n got %x\nwant %x", what, got, want)
	}
}

// ---- the cases, as byte-exact vectors ----

// wireCase is a framed message and its value: encoding the value gives
// exactly the bytes, decoding the bytes gives exactly the value (decoded,
// when the wire leaves a default out), the leaves tile the bytes, and
// re-encoding the decoded tree gives the bytes again.
type wireCase struct {
	name    string
	msg     string
	version int16
	header  obj    // header value; nil: the codec's default header
	hex     string // header + body (full: with the size prefix)
	full    bool
	body    obj
	decoded obj // expected decoded body when it differs from body
}

var apiVersionsBody = obj{"ErrorCode": 0, "ApiKeys": []obj{}, "ThrottleTimeMs": 0}

func with(o obj, kv ...any) obj {
	out := obj{}
	for k, v := range o {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func endQuorumBody(port int) obj {
	return obj{
		"ClusterId": "",
		"Topics": []obj{{"TopicName": "", "Partitions": []obj{{
			"PartitionIndex": 0, "LeaderId": 0, "LeaderEpoch": 0,
			"PreferredCandidates": []obj{{"CandidateId": 0, "CandidateDirectoryId": [16]byte{}}},
		}}}},
		"LeaderEndpoints": []obj{{"Name": "", "Host": "", "Port": port}},
	}
}

var wireCases = []wireCase{
	// C01
	{
		name: "ApiVersions v3 request header v2 has a tag buffer but an int16-length client_id",
		msg:  "ApiVersionsRequest", version: 3,
		header: obj{"RequestApiKey": 18, "RequestApiVersion": 3, "CorrelationId": 101, "ClientId": "adminclient-1"},
		hex:    "0012 0003 00000065 000d 61646d696e636c69656e742d31 00   12 6170616368652d6b61666b612d6a617661 06 322e382e30 00",
		body:   obj{"ClientSoftwareName": "apache-kafka-java", "ClientSoftwareVersion": "2.8.0"},
	},
	{
		name: "a null client_id in request header v2 is ffff and decodes as null",
		msg:  "ApiVersionsRequest", version: 3,
		header: obj{"RequestApiKey": 18, "RequestApiVersion": 3, "CorrelationId": 101, "ClientId": null{}},
		hex:    "0012 0003 00000065 ffff 00   12 6170616368652d6b61666b612d6a617661 06 322e382e30 00",
		body:   obj{"ClientSoftwareName": "apache-kafka-java", "ClientSoftwareVersion": "2.8.0"},
	},
	{
		name: "the frame size excludes its own 4 bytes (reference: 53-byte ApiVersionsRequest v3)",
		msg:  "ApiVersionsRequest", version: 3, full: true,
		header: obj{"RequestApiKey": 18, "RequestApiVersion": 3, "CorrelationId": 0, "ClientId": "adminclient-1"},
		hex:    "00000031 0012 0003 00000000 000d 61646d696e636c69656e742d31 00 12 6170616368652d6b61666b612d6a617661 06 332e392e30 00",
		body:   obj{"ClientSoftwareName": "apache-kafka-java", "ClientSoftwareVersion": "3.9.0"},
	},
	// C02
	{
		name: "ApiVersions response header is v0 even at v3: no tag byte after the correlation id",
		msg:  "ApiVersionsResponse", version: 3,
		header: obj{"CorrelationId": 7},
		hex:    "00000007   0000 03 0000 0000 0009 00 0003 0000 000c 00 00000000 00",
		body: obj{"ErrorCode": 0, "ThrottleTimeMs": 0, "ApiKeys": []obj{
			{"ApiKey": 0, "MinVersion": 0, "MaxVersion": 9},
			{"ApiKey": 3, "MinVersion": 0, "MaxVersion": 12},
		}},
	},
	// C04
	{
		name: "a known tag and an unknown tag 9 are both kept and written back in order",
		msg:  "ApiVersionsResponse", version: 3,
		header: obj{"CorrelationId": 0},
		hex:    "00000000   0000 02 0012 0000 0003 00 00000000   02 01 08 0000000000000005 09 02 abcd",
		body: obj{"ErrorCode": 0, "ThrottleTimeMs": 0,
			"ApiKeys":                []obj{{"ApiKey": 18, "MinVersion": 0, "MaxVersion": 3}},
			"FinalizedFeaturesEpoch": 5,
			"_tags":                  []utag{{9, []byte{0xab, 0xcd}}},
		},
	},
	// C06
	{
		name: "a tagged field equal to its default -1 is left out: the tag section is 00",
		msg:  "ApiVersionsResponse", version: 3, header: obj{"CorrelationId": 0},
		hex:     "00000000   0000 01 00000000   00",
		body:    with(apiVersionsBody, "FinalizedFeaturesEpoch", -1),
		decoded: apiVersionsBody,
	},
	{
		name: "a tagged int64 of 0 differs from its default -1 and is written",
		msg:  "ApiVersionsResponse", version: 3, header: obj{"CorrelationId": 0},
		hex:  "00000000   0000 01 00000000   01 01 08 0000000000000000",
		body: with(apiVersionsBody, "FinalizedFeaturesEpoch", 0),
	},
	{
		name: "a tagged bool true is tag 3, size 1, 01",
		msg:  "ApiVersionsResponse", version: 3, header: obj{"CorrelationId": 0},
		hex:  "00000000   0000 01 00000000   01 03 01 01",
		body: with(apiVersionsBody, "ZkMigrationReady", true),
	},
	{
		name: "a tagged bool false equals its default and is left out",
		msg:  "ApiVersionsResponse", version: 3, header: obj{"CorrelationId": 0},
		hex:     "00000000   0000 01 00000000   00",
		body:    with(apiVersionsBody, "ZkMigrationReady", false),
		decoded: apiVersionsBody,
	},
	{
		name: "several tagged fields are written in ascending tag order",
		msg:  "ApiVersionsResponse", version: 3, header: obj{"CorrelationId": 0},
		hex:  "00000000   0000 01 00000000   03 01 08 0000000000000002 03 01 01 07 00",
		body: with(apiVersionsBody, "ZkMigrationReady", true, "FinalizedFeaturesEpoch", 2, "_tags", []utag{{7, []byte{}}}),
	},
	// C08
	{
		name: "a null nullable struct is the int8 marker ff, not a uvarint 00",
		msg:  "ConsumerGroupHeartbeatResponse", version: 0, header: obj{"CorrelationId": 0},
		hex: "00000000 00   00000000 0000 00 03 6d31 00000005 00001388 ff 00",
		body: obj{"ThrottleTimeMs": 0, "ErrorCode": 0, "ErrorMessage": null{}, "MemberId": "m1",
			"MemberEpoch": 5, "HeartbeatIntervalMs": 5000, "Assignment": null{}},
	},
	{
		name: "a present but empty nullable struct is marker 01, an empty array 01 and its tags 00",
		msg:  "ConsumerGroupHeartbeatResponse", version: 0, header: obj{"CorrelationId": 0},
		hex: "00000000 00   00000000 0000 00 03 6d31 00000005 00001388 01 01 00 00",
		body: obj{"ThrottleTimeMs": 0, "ErrorCode": 0, "ErrorMessage": null{}, "MemberId": "m1",
			"MemberEpoch": 5, "HeartbeatIntervalMs": 5000, "Assignment": obj{"TopicPartitions": []obj{}}},
	},
	// C09 (compact nullable bytes)
	{
		name: "compact nullable bytes: null is 00",
		msg:  "EnvelopeRequest", version: 0,
		header: obj{"RequestApiKey": 58, "RequestApiVersion": 0, "CorrelationId": 0, "ClientId": ""},
		hex:    "003a 0000 00000000 0000 00   01 00 01 00",
		body:   obj{"RequestData": []byte{}, "RequestPrincipal": null{}, "ClientHostAddress": []byte{}},
	},
	{
		name: "compact nullable bytes: empty is 01",
		msg:  "EnvelopeRequest", version: 0,
		header: obj{"RequestApiKey": 58, "RequestApiVersion": 0, "CorrelationId": 0, "ClientId": ""},
		hex:    "003a 0000 00000000 0000 00   01 01 01 00",
		body:   obj{"RequestData": []byte{}, "RequestPrincipal": []byte{}, "ClientHostAddress": []byte{}},
	},
	// C20 (uint16 through a real field) and the reference's smallest instance
	{
		name: "uint16 Port 0 (reference: 62-byte smallest EndQuorumEpochRequest v1)",
		msg:  "EndQuorumEpochRequest", version: 1, full: true,
		header: obj{"RequestApiKey": 54, "RequestApiVersion": 1, "CorrelationId": 0, "ClientId": ""},
		hex:    "0000003a00360001000000000000000102010200000000000000000000000002000000000000000000000000000000000000000000000002010100000000",
		body:   endQuorumBody(0),
	},
	{
		name: "uint16 Port ffff is 65535, not -1",
		msg:  "EndQuorumEpochRequest", version: 1,
		header: obj{"RequestApiKey": 54, "RequestApiVersion": 1, "CorrelationId": 0, "ClientId": ""},
		hex:    "0036 0001 00000000 0000 00   01 02 01 02 00000000 00000000 00000000 02 00000000 00000000000000000000000000000000 00 00 00 02 01 01 ffff 00 00",
		body:   endQuorumBody(65535),
	},
	{
		name: "uint16 Port c350 is 50000",
		msg:  "EndQuorumEpochRequest", version: 1,
		header: obj{"RequestApiKey": 54, "RequestApiVersion": 1, "CorrelationId": 0, "ClientId": ""},
		hex:    "0036 0001 00000000 0000 00   01 02 01 02 00000000 00000000 00000000 02 00000000 00000000000000000000000000000000 00 00 00 02 01 01 c350 00 00",
		body:   endQuorumBody(50000),
	},
}

func TestWireCases(t *testing.T) {
	s, c := specs(t)
	for _, wc := range wireCases {
		t.Run(wc.name, func(t *testing.T) {
			m := msg(t, s, wc.msg)
			want := hexBytes(t, wc.hex)
			if !wc.full {
				want = framed(want)
			}
			var hdr *tree.Tree
			if wc.header != nil {
				hdr = valueOf(headerSpec(s, m).Root, tree.Header, wc.header)
			}
			enc, err := c.Encode(m, wc.version, hdr, valueOf(m.Root, tree.Body, wc.body))
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			sameBytes(t, "encoded", enc.Bytes, want)
			checkTiling(t, "encoded", enc)

			dec, err := decodeAs(c, m, wc.version, want)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			checkTiling(t, "decoded", dec)
			if dec.Message != m || dec.Version != wc.version {
				t.Errorf("decoded as %s v%d", dec.Message.Name, dec.Version)
			}
			exp := wc.body
			if wc.decoded != nil {
				exp = wc.decoded
			}
			if d := tree.Diff(valueOf(m.Root, tree.Body, exp), 0, dec, dec.Part(tree.Body)); d != "" {
				t.Errorf("decoded body differs: %s", d)
			}
			if hdr != nil {
				if d := tree.Diff(hdr, 0, dec, dec.Part(tree.Header)); d != "" {
					t.Errorf("decoded header differs: %s", d)
				}
			}
			again, err := reencode(c, dec)
			if err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			sameBytes(t, "re-encoded", again.Bytes, want)
		})
	}
}

// TestHeaderVersions: C01/C02's header rules as the codec writes them (the
// rules themselves, for every version, are package frame's and tested
// there).
func TestHeaderVersions(t *testing.T) {
	s, c := specs(t)
	// The response header's tag byte is there for a flexible response (C08)
	// and not for ApiVersions (C02).
	enc, err := c.Encode(s.Response(18), 3, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h := enc.Nodes[enc.Part(tree.Header)]; h.Size != 4 || enc.HeaderVersion != 0 {
		t.Errorf("ApiVersionsResponse v3 header is %d bytes (v%d), want 4 (v0)", h.Size, enc.HeaderVersion)
	}
	enc, err = c.Encode(s.Response(68), 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h := enc.Nodes[enc.Part(tree.Header)]; h.Size != 5 || enc.HeaderVersion != 1 {
		t.Errorf("ConsumerGroupHeartbeatResponse v0 header is %d bytes (v%d), want 5 (v1)", h.Size, enc.HeaderVersion)
	}
}

// TestSmallestMatchesReference: the smallest instances of the reference's
// section 8 encode to exactly its bytes.
func TestSmallestMatchesReference(t *testing.T) {
	s, c := specs(t)
	cases := []struct {
		name string
		msg  string
		v    int16
		hex  string
	}{
		{"VoteRequest v2 is 83 bytes", "VoteRequest", 2, "0000004f00340002000000000000000100000000020102" + strings.Repeat("00", 57) + "000000"},
		{"VoteResponse v2 is 32 bytes", "VoteResponse", 2, "0000001c00000000000000020102000000000000000000000000000000000000"},
		{"EndQuorumEpochRequest v1 is 62 bytes", "EndQuorumEpochRequest", 1, "0000003a00360001000000000000000102010200000000000000000000000002000000000000000000000000000000000000000000000002010100000000"},
		{"EndQuorumEpochResponse v1 is 31 bytes", "EndQuorumEpochResponse", 1, "0000001b000000000000000201020000000000000000000000000000000000"},
	}
	for _, tc := range cases {
		m := msg(t, s, tc.msg)
		enc, err := c.Encode(m, tc.v, nil, instance.Smallest(m, tc.v))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sameBytes(t, tc.name, enc.Bytes, hexBytes(t, tc.hex))
	}
}

// C04's decoded values, checked one by one as well as by Diff.
func TestUnknownTagIsKeptByteForByte(t *testing.T) {
	s, c := specs(t)
	b := framed(hexBytes(t, "00000000 0000 02 0012 0000 0003 00 00000000 02 01 08 0000000000000005 09 02 abcd"))
	dec, err := c.DecodeResponse(b, s.Response(18), 3)
	if err != nil {
		t.Fatal(err)
	}
	if n := bodyNode(t, dec, "FinalizedFeaturesEpoch"); n.Num != 5 {
		t.Errorf("FinalizedFeaturesEpoch = %d, want 5", n.Num)
	}
	if n := bodyNode(t, dec, "ApiKeys[0].ApiKey"); n.Num != 18 {
		t.Errorf("ApiKeys[0].ApiKey = %d", n.Num)
	}
	if n := bodyNode(t, dec, "ApiKeys[0].MaxVersion"); n.Num != 3 {
		t.Errorf("ApiKeys[0].MaxVersion = %d", n.Num)
	}
	var unknown []*valNode
	dec.Fields(dec.Part(tree.Body), func(i int32) bool {
		if dec.Nodes[i].Kind() == tree.UnknownTag {
			unknown = append(unknown, valOf(dec, i))
		}
		return true
	})
	if len(unknown) != 1 || unknown[0].Num != 9 || hex.EncodeToString(dataOf(dec, unknown[0])) != "abcd" || unknown[0].Off != 33 || unknown[0].Size != 4 {
		t.Fatalf("unknown tags: %+v", unknown)
	}
}

// ---- C05: tag sections ----

const tagsOnlySpec = `{ "type": "data", "name": "TagsOnly", "validVersions": "0-1", "flexibleVersions": "1+", "fields": [] }`

// smallSet wraps spec texts into a Set.
func smallSet(t testing.TB, texts ...string) *spec.Set {
	t.Helper()
	var files []bundle.File
	for i, text := range texts {
		files = append(files, bundle.File{Path: fmt.Sprintf("X%d.json", i), Data: []byte(text)})
	}
	s, errs := spec.NewSet(files)
	if len(errs) != 0 {
		t.Fatalf("spec problems: %v", errs)
	}
	return s
}

func TestTagSections(t *testing.T) {
	s := smallSet(t, tagsOnlySpec)
	m := s.Message("TagsOnly")
	c := codec.New(s)
	strict := codec.New(s)
	strict.Strict = true

	writes := []struct {
		name string
		tags []utag
		hex  string
	}{
		{"raw tags given as 5 then 2 are written ascending with uvarint sizes", []utag{{5, []byte{0, 1}}, {2, []byte{0, 7}}}, "02 02 02 0007 05 02 0001"},
		{"tag 0 is a legal tag", []utag{{0, []byte{1, 2}}}, "01 00 02 0102"},
		{"no tags is the single byte 00", nil, "00"},
		{"an empty payload has size 00", []utag{{3, []byte{}}}, "01 03 00"},
		{"tag 128 takes a two-byte uvarint", []utag{{128, []byte{0xaa}}}, "01 8001 01 aa"},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			o := obj{}
			if w.tags != nil {
				o["_tags"] = w.tags
			}
			enc, err := c.EncodeRecord(m, 1, valueOf(m.Root, tree.Body, o))
			if err != nil {
				t.Fatal(err)
			}
			want := hexBytes(t, w.hex)
			sameBytes(t, "tag section", enc.Bytes, want)
			checkTiling(t, "encoded", enc)
			dec, err := strict.DecodeRecord(want, m, 1)
			if err != nil {
				t.Fatalf("strict decode: %v", err)
			}
			checkTiling(t, "decoded", dec)
			if d := tree.Diff(valueOf(m.Root, tree.Body, o), 0, dec, dec.Part(tree.Body)); d != "" {
				t.Errorf("decoded differs: %s", d)
			}
		})
	}

	t.Run("tags out of order are an error in strict mode", func(t *testing.T) {
		in := hexBytes(t, "02 05 02 0001 02 02 0007")
		_, err := strict.DecodeRecord(in, m, 1)
		var we *wire.Error
		if !errors.As(err, &we) || we.Offset != 5 || we.Path != "TagsOnly._tagged_fields" || we.Msg != "tag 2 after tag 5: tags must be in ascending order" {
			t.Fatalf("err = %v", err)
		}
		// Kafka accepts them; so does the default codec, and writing the
		// value back gives the canonical order.
		dec, err := c.DecodeRecord(in, m, 1)
		if err != nil {
			t.Fatalf("non-strict decode: %v", err)
		}
		again, err := c.EncodeRecord(m, 1, dec.Sub(dec.Part(tree.Body)))
		if err != nil {
			t.Fatal(err)
		}
		sameBytes(t, "re-encoded", again.Bytes, hexBytes(t, "02 02 02 0007 05 02 0001"))
	})

	t.Run("a duplicate tag is an error in strict mode and cannot be written", func(t *testing.T) {
		in := hexBytes(t, "02 02 01 aa 02 01 bb")
		_, err := strict.DecodeRecord(in, m, 1)
		var we *wire.Error
		if !errors.As(err, &we) || we.Offset != 4 || we.Msg != "duplicate tag 2" {
			t.Fatalf("err = %v", err)
		}
		dec, err := c.DecodeRecord(in, m, 1)
		if err != nil {
			t.Fatalf("non-strict decode: %v", err)
		}
		_, err = c.EncodeRecord(m, 1, dec.Sub(dec.Part(tree.Body)))
		var ee *codec.EncodeError
		if !errors.As(err, &ee) || ee.Path != "TagsOnly._tagged_fields" || ee.Msg != "tag 2 is given twice" {
			t.Fatalf("encoding a duplicate: %v", err)
		}
	})

	t.Run("unknown tags cannot be written in a non-flexible version", func(t *testing.T) {
		_, err := c.EncodeRecord(m, 0, valueOf(m.Root, tree.Body, obj{"_tags": []utag{{1, []byte{1}}}}))
		var ee *codec.EncodeError
		if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "unknown tagged field 1 cannot be written in non-flexible version 0") {
			t.Fatalf("err = %v", err)
		}
	})

	t.Run("a tag size past the end is an error at the size", func(t *testing.T) {
		_, err := c.DecodeRecord(hexBytes(t, "01 05 03 0001"), m, 1)
		var we *wire.Error
		if !errors.As(err, &we) || we.Offset != 2 || we.Msg != "tag 5: size 3: need 3 bytes, have 2" {
			t.Fatalf("err = %v", err)
		}
	})
}

// C05 through a real message: the response header v1 of a flexible
// response carries unknown tags, and the tag numbers of known fields cannot
// be reused by unknown ones.
func TestTagSectionsInRealMessages(t *testing.T) {
	s, c := specs(t)
	m := s.Response(68)
	hdr := valueOf(s.ResponseHeader().Root, tree.Header, obj{"CorrelationId": 7, "_tags": []utag{{5, []byte{0, 1}}, {2, []byte{0, 7}}}})
	enc, err := c.Encode(m, 0, hdr, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := enc.Nodes[enc.Part(tree.Header)]
	sameBytes(t, "response header v1", enc.Bytes[h.Off:h.Off+h.Size], hexBytes(t, "00000007 02 02 02 0007 05 02 0001"))

	strict := codec.New(s)
	strict.Strict = true
	bad := append([]byte(nil), enc.Bytes...)
	copy(bad[h.Off+4:], hexBytes(t, "02 05 02 0001 02 02 0007"))
	if _, err := c.DecodeResponse(bad, m, 0); err != nil {
		t.Errorf("non-strict: %v", err)
	}
	_, err = strict.DecodeResponse(bad, m, 0)
	var we *wire.Error
	if !errors.As(err, &we) || we.Path != "ResponseHeader._tagged_fields" || we.Offset != int(h.Off)+4+5 {
		t.Errorf("strict: %v", err)
	}

	body := with(apiVersionsBody, "FinalizedFeaturesEpoch", 5, "_tags", []utag{{1, []byte{0}}})
	_, err = c.Encode(s.Response(18), 3, nil, valueOf(s.Response(18).Root, tree.Body, body))
	var ee *codec.EncodeError
	if !errors.As(err, &ee) || ee.Msg != "tag 1 is given twice" {
		t.Errorf("unknown tag 1 beside FinalizedFeaturesEpoch (tag 1): %v", err)
	}

	// A known tag in a version that lacks its field is an error, not an
	// unknown tag (VoteResponse v0 has no NodeEndpoints, tag 0).
	vr := s.Response(52)
	frame := framed(hexBytes(t, "00000000 00   0000 02 01 02 "+strings.Repeat("00", 15)+" 00 00   01 00 01 00"))
	_, err = c.DecodeResponse(frame, vr, 0)
	if !errors.As(err, &we) || !strings.Contains(we.Msg, "tag 0 (NodeEndpoints) is not valid for version 0") {
		t.Errorf("tag 0 in VoteResponse v0: %v", err)
	}
}

// C08's tagged form: a nullable struct in a tagged field has a uvarint
// presence marker, and a struct equal to its default is left out.
func TestNullableStructMarkers(t *testing.T) {
	const text = `{ "type": "data", "name": "NS", "validVersions": "0", "flexibleVersions": "0+", "fields": [
	  { "name": "P", "type": "Pos", "versions": "0+", "nullableVersions": "0+", "default": "null",
	    "fields": [ { "name": "Y", "type": "int8", "versions": "0+" } ] },
	  { "name": "T", "type": "Tagged", "versions": "0+", "nullableVersions": "0+", "tag": 0, "taggedVersions": "0+",
	    "fields": [ { "name": "Y", "type": "int8", "versions": "0+" } ] } ] }`
	s := smallSet(t, text)
	m := s.Message("NS")
	c := codec.New(s)
	cases := []struct {
		name    string
		v       obj
		hex     string
		decoded obj
	}{
		{"positional null is ff; tagged null (default is not null) is tag 0, size 1, 00", obj{"P": null{}, "T": null{}}, "ff 01 00 01 00", nil},
		{"present structs: 01 then the fields; the tagged one has size 3", obj{"P": obj{"Y": 1}, "T": obj{"Y": 1}}, "01 01 00   01 00 03 01 01 00", nil},
		{"a tagged struct equal to a fresh empty struct is left out", obj{"P": obj{"Y": 0}, "T": obj{"Y": 0}}, "01 00 00   00", obj{"P": obj{"Y": 0}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			enc, err := c.EncodeRecord(m, 0, valueOf(m.Root, tree.Body, tc.v))
			if err != nil {
				t.Fatal(err)
			}
			want := hexBytes(t, tc.hex)
			sameBytes(t, "encoded", enc.Bytes, want)
			dec, err := c.DecodeRecord(want, m, 0)
			if err != nil {
				t.Fatal(err)
			}
			exp := tc.v
			if tc.decoded != nil {
				exp = tc.decoded
			}
			if d := tree.Diff(valueOf(m.Root, tree.Body, exp), 0, dec, dec.Part(tree.Body)); d != "" {
				t.Errorf("decoded differs: %s", d)
			}
		})
	}
	// Kafka reads any negative marker as null and 0 as present.
	markers := []struct {
		hex  string
		null bool
	}{{"80 00", true}, {"fe 00", true}, {"00 00 00 00", false}, {"7f 05 00 00", false}}
	for _, mk := range markers {
		dec, err := c.DecodeRecord(hexBytes(t, mk.hex), m, 0)
		if err != nil {
			t.Errorf("%s: %v", mk.hex, err)
			continue
		}
		if n := bodyNode(t, dec, "P"); n.Null() != mk.null {
			t.Errorf("marker %s: null = %v, want %v", mk.hex[:2], n.Null(), mk.null)
		}
	}
}

// C08 in its real message: Kafka's reader takes marker 00 as present and any
// negative marker as null; kwire does too, and writes them back as 01 / ff.
func TestConsumerGroupHeartbeatMarkers(t *testing.T) {
	s, c := specs(t)
	m := s.Response(68)
	for _, tc := range []struct {
		marker, canon string
		null          bool
	}{{"00", "01", false}, {"80", "ff", true}} {
		tail := "01 00 00"
		if tc.null {
			tail = "00"
		}
		in := framed(hexBytes(t, "00000000 00   00000000 0000 00 03 6d31 00000005 00001388 "+tc.marker+" "+tail))
		dec, err := c.DecodeResponse(in, m, 0)
		if err != nil {
			t.Fatalf("marker %s: %v", tc.marker, err)
		}
		if n := bodyNode(t, dec, "Assignment"); n.Null() != tc.null {
			t.Errorf("marker %s: null %v", tc.marker, n.Null())
		}
		again, err := reencode(c, dec)
		if err != nil {
			t.Fatal(err)
		}
		want := framed(hexBytes(t, "00000000 00   00000000 0000 00 03 6d31 00000005 00001388 "+tc.canon+" "+tail))
		sameBytes(t, "canonical marker", again.Bytes, want)
	}
}

// ---- C07: compact strings ----

func TestCompactStrings(t *testing.T) {
	const text = `{ "type": "data", "name": "Str", "validVersions": "0", "flexibleVersions": "0+", "fields": [
	  { "name": "S", "type": "string", "versions": "0+" },
	  { "name": "N", "type": "int16", "versions": "0+" },
	  { "name": "Opt", "type": "string", "versions": "0+", "nullableVersions": "0+" } ] }`
	s := smallSet(t, text)
	m := s.Message("Str")
	c := codec.New(s)

	in := hexBytes(t, "04 616263 002a 00 00")
	dec, err := c.DecodeRecord(in, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := bodyNode(t, dec, "S"); string(dataOf(dec, n)) != "abc" || n.Null() || n.Size != 4 || n.Wire() != tree.WireCompactString {
		t.Errorf("S = %+v", *n)
	}
	if n := bodyNode(t, dec, "N"); n.Num != 42 || n.Off != 4 {
		t.Errorf("N = %+v", *n)
	}
	if n := bodyNode(t, dec, "Opt"); !n.Null() || dataOf(dec, n) != nil {
		t.Errorf("Opt = %+v, want null", *n)
	}
	enc, err := c.EncodeRecord(m, 0, valueOf(m.Root, tree.Body, obj{"S": "abc", "N": 42, "Opt": null{}}))
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "encoded", enc.Bytes, in)
	enc, err = c.EncodeRecord(m, 0, valueOf(m.Root, tree.Body, obj{"S": "", "N": -1, "Opt": ""}))
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "empty strings", enc.Bytes, hexBytes(t, "01 ffff 01 00"))

	_, err = c.DecodeRecord(hexBytes(t, "00 002a 00 00"), m, 0)
	var we *wire.Error
	if !errors.As(err, &we) || we.Error() != "Str.S at 0x0000: null value for a non-nullable string" {
		t.Errorf("null for S: %v", err)
	}
	_, err = c.EncodeRecord(m, 0, valueOf(m.Root, tree.Body, obj{"S": null{}}))
	var ee *codec.EncodeError
	if !errors.As(err, &ee) || ee.Error() != "Str.S: null value for a non-nullable string" {
		t.Errorf("encoding null S: %v", err)
	}
	// A compact length past the end names the field and the shortfall.
	_, err = c.DecodeRecord(hexBytes(t, "05 616263"), m, 0)
	if !errors.As(err, &we) || we.Error() != "Str.S at 0x0001: length 4: need 4 bytes, have 3" {
		t.Errorf("short string: %v", err)
	}
	// Kafka's 32767-byte limit holds for compact strings too.
	long := append(wire.AppendUvarint(nil, 32768+1), bytes.Repeat([]byte{'a'}, 32768)...)
	_, err = c.DecodeRecord(append(long, 0, 0, 0, 0), m, 0)
	if !errors.As(err, &we) || !strings.Contains(we.Msg, "longer than Kafka's limit of 32767") {
		t.Errorf("32768-byte string: %v", err)
	}
	_, err = c.EncodeRecord(m, 0, valueOf(m.Root, tree.Body, obj{"S": strings.Repeat("a", 32768)}))
	if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "longer than Kafka's limit") {
		t.Errorf("encoding a 32768-byte string: %v", err)
	}
}

// C07 through a real message: VoteRequest v2's ClusterId is nullable,
// TopicName is not.
func TestCompactNullInVoteRequest(t *testing.T) {
	s, c := specs(t)
	m := s.Request(52)
	enc, err := c.Encode(m, 2, nil, instance.Smallest(m, 2))
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte(nil), enc.Bytes...)
	if b[15] != 0x01 || b[21] != 0x01 {
		t.Fatalf("ClusterId/TopicName are not at 15/21: %x", b[:24])
	}
	b[15] = 0x00
	dec, err := c.DecodeRequest(b)
	if err != nil {
		t.Fatal(err)
	}
	if n := bodyNode(t, dec, "ClusterId"); !n.Null() {
		t.Errorf("ClusterId 00 decodes as %q, want null", dataOf(dec, n))
	}
	b[15], b[21] = 0x01, 0x00
	_, err = c.DecodeRequest(b)
	if err == nil || err.Error() != "VoteRequest.Topics[0].TopicName at 0x0015: null value for a non-nullable string" {
		t.Errorf("null TopicName: %v", err)
	}
}

// ---- C09: null vs empty records ----

func TestRecordsNullAndEmpty(t *testing.T) {
	s, c := specs(t)
	m := s.Response(1)
	const path = "Responses[0].Partitions[0].Records"
	cases := []struct {
		name    string
		version int16
		null    bool
		hex     string
	}{
		{"Fetch v11 null records are ffffffff, not an error", 11, true, "ffffffff"},
		{"Fetch v11 empty records are 00000000", 11, false, "00000000"},
		{"Fetch v12 null records are 00", 12, true, "00"},
		{"Fetch v12 empty records are 01", 12, false, "01"},
		{"Fetch v18 null records are 00", 18, true, "00"},
	}
	decoded := map[int16][]*tree.Tree{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := instance.Smallest(m, tc.version)
			i := nodeAt(v, 0, path)
			if i < 0 {
				t.Fatal("no Records in the smallest instance")
			}
			v.Nodes[i].Size = 0 // empty: a value leaf holds its bytes
			if tc.null {
				v.Nodes[i].SetNull(true)
			}
			enc, err := c.Encode(m, tc.version, nil, v)
			if err != nil {
				t.Fatal(err)
			}
			r := enc.Nodes[nodeAt(enc, enc.Part(tree.Body), path)]
			sameBytes(t, "records field", enc.Bytes[r.Off:r.Off+r.Size], hexBytes(t, tc.hex))
			dec, err := c.DecodeResponse(enc.Bytes, m, tc.version)
			if err != nil {
				t.Fatal(err)
			}
			checkTiling(t, "decoded", dec)
			n := bodyNode(t, dec, path)
			if n.Null() != tc.null || len(n.Data) != 0 {
				t.Errorf("decoded records: null %v, %d bytes; want null %v, 0 bytes", n.Null(), len(n.Data), tc.null)
			}
			again, err := reencode(c, dec)
			if err != nil {
				t.Fatal(err)
			}
			sameBytes(t, "re-encoded", again.Bytes, enc.Bytes)
			decoded[tc.version] = append(decoded[tc.version], dec)
		})
	}
	for _, v := range []int16{11, 12} {
		if ds := decoded[v]; len(ds) == 2 {
			if d := tree.Diff(ds[0], ds[0].Part(tree.Body), ds[1], ds[1].Part(tree.Body)); !strings.Contains(d, "Records: null true vs false") {
				t.Errorf("v%d: null and empty records should differ, Diff = %q", v, d)
			}
		}
	}
}

// Distinct after a round trip: compact nullable bytes (EnvelopeRequest).
func TestNullAndEmptyBytesStayDistinct(t *testing.T) {
	_, c := specs(t)
	var got []*tree.Tree
	for _, hx := range []string{"01 00 01 00", "01 01 01 00"} {
		dec, err := c.DecodeRequest(framed(hexBytes(t, "003a 0000 00000000 0000 00 "+hx)))
		if err != nil {
			t.Fatal(err)
		}
		again, err := reencode(c, dec)
		if err != nil {
			t.Fatal(err)
		}
		dec2, err := c.DecodeRequest(again.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, dec2)
	}
	if d := tree.Diff(got[0], got[0].Part(tree.Body), got[1], got[1].Part(tree.Body)); d != "RequestPrincipal: null true vs false" {
		t.Errorf("Diff(null, empty) = %q", d)
	}
	_, err := c.DecodeRequest(framed(hexBytes(t, "003a 0000 00000000 0000 00   00 00 01 00")))
	if err == nil || err.Error() != "EnvelopeRequest.RequestData at 0x000f: null value for a non-nullable bytes" {
		t.Errorf("null RequestData: %v", err)
	}
}

// ---- C18 through the codec: uvarint lengths ----

func TestUvarintLengthErrors(t *testing.T) {
	s, c := specs(t)
	m := s.Response(68)
	cases := []struct {
		name string
		body string
		want string
	}{
		{"a compact length 80 80 then the end is a truncated uvarint", "00000000 0000 00 8080", "ConsumerGroupHeartbeatResponse.MemberId at 0x0010: truncated uvarint: need 3 bytes, have 2"},
		{"a compact length of six bytes is too long", "00000000 0000 00 ffffffffff01", "ConsumerGroupHeartbeatResponse.MemberId at 0x0010: uvarint too long: more than 5 bytes"},
		{"a tag count cut short", "00000000 0000 00 01 00000000 00000000 ff 80", "ConsumerGroupHeartbeatResponse._tagged_fields at 0x001a: truncated uvarint: need 2 bytes, have 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.DecodeResponse(framed(hexBytes(t, "00000000 00 "+tc.body)), m, 0)
			var we *wire.Error
			if !errors.As(err, &we) || err.Error() != tc.want {
				t.Errorf("err = %v\nwant %s", err, tc.want)
			}
		})
	}
}

// ---- C20: uint16 range on encode ----

func TestUint16RangeErrorsNameTheField(t *testing.T) {
	s, c := specs(t)
	m := s.Request(54)
	for _, port := range []int{65536, -1, 1 << 20} {
		_, err := c.Encode(m, 1, nil, valueOf(m.Root, tree.Body, endQuorumBody(port)))
		var ee *codec.EncodeError
		want := fmt.Sprintf("value %d is out of range for uint16 (0..65535)", port)
		if !errors.As(err, &ee) || ee.Path != "EndQuorumEpochRequest.LeaderEndpoints[0].Port" || ee.Msg != want {
			t.Errorf("Port %d: err = %v", port, err)
		}
	}
	// The same holds for the other range-checked kinds.
	const text = `{ "type": "data", "name": "R", "validVersions": "0", "flexibleVersions": "none", "fields": [
	  { "name": "U32", "type": "uint32", "versions": "0+" },
	  { "name": "I8", "type": "int8", "versions": "0+" },
	  { "name": "I16", "type": "int16", "versions": "0+" },
	  { "name": "I32", "type": "int32", "versions": "0+" } ] }`
	rs := smallSet(t, text)
	rm := rs.Message("R")
	rc := codec.New(rs)
	enc, err := rc.EncodeRecord(rm, 0, valueOf(rm.Root, tree.Body, obj{"U32": int64(1<<32 - 1), "I8": -128, "I16": -32768, "I32": int64(-1 << 31)}))
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "limits", enc.Bytes, hexBytes(t, "ffffffff 80 8000 80000000"))
	dec, err := rc.DecodeRecord(enc.Bytes, rm, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := bodyNode(t, dec, "U32"); n.Num != 1<<32-1 {
		t.Errorf("uint32 ffffffff decodes as %d", n.Num)
	}
	for _, bad := range []obj{{"U32": int64(1 << 32)}, {"U32": -1}, {"I8": 128}, {"I16": 32768}, {"I32": int64(1 << 31)}} {
		_, err := rc.EncodeRecord(rm, 0, valueOf(rm.Root, tree.Body, bad))
		var ee *codec.EncodeError
		if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "out of range") {
			t.Errorf("%v: err = %v", bad, err)
		}
	}
}

// ---- bad input ----

// TestTruncatedBodyNamesTheField: the smallest Vote v2 request cut to end
// three bytes into LastOffset, with a size prefix that matches, fails at
// LastOffset's offset with need/have.
func TestTruncatedBodyNamesTheField(t *testing.T) {
	s, c := specs(t)
	m := s.Request(52)
	enc, err := c.Encode(m, 2, nil, instance.Smallest(m, 2))
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte(nil), enc.Bytes[:0x47+3]...)
	copy(b, framed(b[4:])[:4])
	if hex.EncodeToString(b[:4]) != "00000046" {
		t.Fatalf("size prefix %x", b[:4])
	}
	dec, err := c.DecodeRequest(b)
	var we *wire.Error
	if !errors.As(err, &we) {
		t.Fatalf("err = %v (%T), want *wire.Error", err, err)
	}
	if we.Offset != 0x47 || we.Path != "VoteRequest.Topics[0].Partitions[0].LastOffset" || we.Need != 8 || we.Have != 3 {
		t.Errorf("got %+v", *we)
	}
	if got, want := err.Error(), "VoteRequest.Topics[0].Partitions[0].LastOffset at 0x0047: need 8 bytes, have 3"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	// The partial tree is consistent and ends where decoding stopped.
	if dec == nil || dec.Message != m {
		t.Fatal("no partial tree")
	}
	// and the bytes from there on are one "undecoded" leaf: the partial
	// tree still tiles its input.
	checkTiling(t, "partial tree", dec)
	var leaves []int32
	dec.Leaves(func(i int32) bool { leaves = append(leaves, i); return true })
	last, prev := leaves[len(leaves)-1], leaves[len(leaves)-2]
	if n := dec.Nodes[prev]; n.Off+n.Size != 0x47 || dec.Field(prev) == nil || dec.Field(prev).Name != "LastOffsetEpoch" {
		t.Errorf("last decoded leaf %+v, want LastOffsetEpoch ending at 0x47", n)
	}
	if n := dec.Nodes[last]; n.Kind() != tree.Raw || dec.Name(last) != "undecoded" || n.Off != 0x47 || n.Size != 3 {
		t.Errorf("tail leaf %+v %q, want the 3 undecoded bytes at 0x47", n, dec.Name(last))
	}

	// Without adjusting the size prefix, the frame itself is short: what is
	// there is decoded, and the error names both the field and the frame.
	_, err = c.DecodeRequest(enc.Bytes[:0x47+3])
	var fe *codec.FrameError
	if !errors.As(err, &fe) || fe.Size != 79 || fe.Have != 70 || !errors.As(err, &we) || we.Offset != 0x47 ||
		err.Error() != "VoteRequest.Topics[0].Partitions[0].LastOffset at 0x0047: need 8 bytes, have 3 (truncated frame: the size prefix says 79 bytes follow, 70 are present)" {
		t.Errorf("short frame: %v", err)
	}

	// Every cut point fails cleanly, at or before the cut.
	for n := 0; n < len(enc.Bytes); n++ {
		cut := append([]byte(nil), enc.Bytes[:n]...)
		if n >= 4 {
			copy(cut, framed(cut[4:])[:4])
		}
		part, err := c.DecodeRequest(cut)
		checkTiling(t, fmt.Sprintf("cut at %d", n), part)
		if errors.As(err, &we) {
			if we.Offset > n {
				t.Errorf("cut at %d: error offset %d is past the end", n, we.Offset)
			}
		} else if !errors.As(err, &fe) || n >= 8 {
			t.Errorf("cut at %d: err = %v", n, err)
		}
	}
}

// allocsAndBytes reports the mallocs and bytes one call of f allocates,
// averaged over runs.
func allocsAndBytes(runs int, f func()) (float64, uint64) {
	allocs := testing.AllocsPerRun(runs, f)
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	for i := 0; i < runs; i++ {
		f()
	}
	runtime.ReadMemStats(&b)
	return allocs, (b.TotalAlloc - a.TotalAlloc) / uint64(runs)
}

// TestAbsurdCountsFailAtOnce: a count of 2^31-1 (as int32 or uvarint)
// in a short input fails before anything proportional to the count is
// allocated.
func TestAbsurdCountsFailAtOnce(t *testing.T) {
	s, c := specs(t)
	cases := []struct {
		name  string
		frame string
		want  string
	}{
		{"an int32 array count of 2^31-1 in MetadataRequest v0", "0003 0000 00000000 0000   7fffffff",
			"MetadataRequest.Topics at 0x000e: array of 2147483647 elements cannot fit in the 0 bytes that remain"},
		// uvarint 0x80000000 - 1 wraps to 2^31-1 in Kafka's 32-bit int.
		{"a uvarint array count of 2^31-1 in MetadataRequest v12", "0003 000c 00000000 0000 00   8080808008 00 00 00",
			"MetadataRequest.Topics at 0x000f: array of 2147483647 elements cannot fit in the 3 bytes that remain"},
		{"a string length of 32767 with 2 bytes left", "0012 0003 00000000 7fff 0000", "RequestHeader.ClientId at 0x000e: length 32767: need 32767 bytes, have 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := framed(hexBytes(t, tc.frame))
			var err error
			allocs, nbytes := allocsAndBytes(20, func() { _, err = c.DecodeRequest(in) })
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v\nwant %s", err, tc.want)
			}
			if allocs > 40 || nbytes > 16<<10 {
				t.Errorf("failing took %.0f allocations, %d bytes", allocs, nbytes)
			}
		})
	}
	// Records: Produce v8 (non-flexible) with a records length of 2^31-1.
	m := s.Request(0)
	v := instance.Smallest(m, 8)
	enc, err := c.Encode(m, 8, nil, v)
	if err != nil {
		t.Fatal(err)
	}
	r := enc.Nodes[nodeAt(enc, enc.Part(tree.Body), "TopicData[0].PartitionData[0].Records")]
	b := append([]byte(nil), enc.Bytes[:r.Off]...)
	b = append(b, 0x7f, 0xff, 0xff, 0xff, 1, 2, 3)
	copy(b, framed(b[4:])[:4])
	allocs, nbytes := allocsAndBytes(20, func() { _, err = c.DecodeRequest(b) })
	var we *wire.Error
	if !errors.As(err, &we) || we.Path != "ProduceRequest.TopicData[0].PartitionData[0].Records" || we.Msg != "records of 2147483647 bytes: need 2147483647 bytes, have 3" {
		t.Errorf("records: %v", err)
	}
	if allocs > 40 || nbytes > 16<<10 {
		t.Errorf("failing took %.0f allocations, %d bytes", allocs, nbytes)
	}
}

// TestCountOfEmptyElementsIsBounded: Kafka refuses any array count larger
// than the bytes that remain, even when elements take no bytes (a struct
// whose fields all belong to later versions); otherwise four bytes could
// ask for two billion elements.
func TestCountOfEmptyElementsIsBounded(t *testing.T) {
	const text = `{ "type": "data", "name": "E", "validVersions": "0-1", "flexibleVersions": "none", "fields": [
	  { "name": "L", "type": "[]Later", "versions": "0+", "fields": [
	    { "name": "X", "type": "int8", "versions": "1+" } ] } ] }`
	s := smallSet(t, text)
	m := s.Message("E")
	c := codec.New(s)
	// Two empty elements in version 0 are legal to write...
	enc, err := c.EncodeRecord(m, 0, valueOf(m.Root, tree.Body, obj{"L": []obj{{}, {}}}))
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "two empty elements", enc.Bytes, hexBytes(t, "00000002"))
	// The tree of what was written shows them (the read back trusts the
	// encoder's own count), with no problem.
	elems := 0
	for i := range enc.Nodes {
		if enc.Nodes[i].Kind() == tree.Element {
			elems++
		}
	}
	if l := nodeAt(enc, enc.Part(tree.Body), "L"); elems != 2 || l < 0 || enc.Count(l) != 2 || len(enc.Problems) != 0 {
		t.Errorf("encoded tree: %d elements, problems %v", elems, enc.Problems)
	}
	// ...but reading a count above the bytes left is refused, as in Kafka.
	for _, in := range []string{"00000002", "7fffffff"} {
		var err error
		allocs, nbytes := allocsAndBytes(5, func() { _, err = c.DecodeRecord(hexBytes(t, in), m, 0) })
		var we *wire.Error
		if !errors.As(err, &we) || we.Path != "E.L" || !strings.Contains(we.Msg, "cannot fit in the 0 bytes that remain") {
			t.Errorf("count %s: err = %v", in, err)
		}
		if allocs > 40 || nbytes > 16<<10 {
			t.Errorf("count %s: failing took %.0f allocations, %d bytes", in, allocs, nbytes)
		}
	}
	// Counts within the remaining bytes still decode.
	dec, err := c.DecodeRecord(hexBytes(t, "00000002 05 06"), m, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := tree.Diff(valueOf(m.Root, tree.Body, obj{"L": []obj{{"X": 5}, {"X": 6}}}), 0, dec, dec.Part(tree.Body)); d != "" {
		t.Errorf("v1: %s", d)
	}
	if _, err := c.DecodeRecord(hexBytes(t, "00000000"), m, 0); err != nil {
		t.Errorf("v0 empty: %v", err)
	}
}

// TestFrameSizeOverLimit: C19, a TLS record read as a Kafka size prefix.
func TestFrameSizeOverLimit(t *testing.T) {
	s, c := specs(t)
	in := hexBytes(t, "15 03 03 00 02 02 28")
	var err error
	allocs, nbytes := allocsAndBytes(20, func() { _, err = c.DecodeRequest(in) })
	var fe *codec.FrameError
	if !errors.As(err, &fe) || fe.Size != 352518912 || fe.Limit != codec.DefaultMaxFrame || fe.Hint != "these bytes look like a TLS record, not Kafka" {
		t.Fatalf("err = %#v", err)
	}
	if want := "frame size at 0x0000: 352518912 is over the limit of 104857600 bytes (these bytes look like a TLS record, not Kafka)"; err.Error() != want {
		t.Errorf("message %q\nwant %q", err, want)
	}
	if allocs > 20 || nbytes > 4<<10 {
		t.Errorf("rejecting the frame took %.0f allocations, %d bytes", allocs, nbytes)
	}
	if _, err := c.DecodeResponse(in, s.Response(18), 3); !errors.As(err, &fe) || fe.Size != 352518912 {
		t.Errorf("response: %v", err)
	}
	// Other bad sizes.
	cases := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"a negative size", "ffffffff 00", 0, "frame size at 0x0000: -1 is negative"},
		{"HTTP is named", "47455420 2f20", 0, "frame size at 0x0000: 1195725856 is over the limit of 104857600 bytes (these bytes look like HTTP, not Kafka)"},
		{"a size over a custom limit", "00000010" + strings.Repeat("00", 16), 15, "frame size at 0x0000: 16 is over the limit of 15 bytes"},
		{"fewer than 4 bytes", "0000", 0, "size at 0x0000: need 4 bytes, have 2"},
		{"a header shorter than key and version", "00000002 0012", 0, "RequestHeader at 0x0004: need 4 bytes, have 2"},
	}
	for _, tc := range cases {
		cc := codec.New(s)
		cc.MaxFrame = tc.max
		_, err := cc.DecodeRequest(hexBytes(t, tc.in))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v\nwant %s", tc.name, err, tc.want)
		}
	}
}

func TestUnknownKeysAndVersions(t *testing.T) {
	s, c := specs(t)
	var we *wire.Error
	_, err := c.DecodeRequest(framed(hexBytes(t, "7fff 0000 00000000 0000")))
	if !errors.As(err, &we) || we.Offset != 4 || we.Path != "RequestHeader.RequestApiKey" || we.Msg != "unknown api key 32767" {
		t.Errorf("unknown key: %v", err)
	}
	_, err = c.DecodeRequest(framed(hexBytes(t, "0012 0006 00000000 0000 00 00 00 00")))
	if !errors.As(err, &we) || we.Offset != 6 || we.Path != "RequestHeader.RequestApiVersion" || we.Msg != "ApiVersionsRequest has no version 6 (valid versions: 0-5)" {
		t.Errorf("unsupported version: %v", err)
	}
	_, err = c.DecodeRequest(framed(hexBytes(t, "0012 ffff 00000000 0000")))
	if !errors.As(err, &we) || we.Msg != "ApiVersionsRequest has no version -1 (valid versions: 0-5)" {
		t.Errorf("version -1: %v", err)
	}
	var ve *codec.VersionError
	_, err = c.DecodeResponse(framed(hexBytes(t, "00000000")), s.Response(1), 3)
	if !errors.As(err, &ve) || ve.Message != "FetchResponse" || ve.Version != 3 || ve.Valid != (spec.Versions{Lo: 4, Hi: 18}) {
		t.Errorf("Fetch response v3: %v", err)
	}
	_, err = c.Encode(s.Request(1), 19, nil, nil)
	if !errors.As(err, &ve) || err.Error() != "FetchRequest has no version 19 (valid versions: 4-18)" {
		t.Errorf("encode Fetch v19: %v", err)
	}
	_, err = c.Encode(s.Message("RequestHeader"), 1, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "not a request or response") {
		t.Errorf("encode a header as a message: %v", err)
	}
}

// TestTrailingBytesAreReported: C01's "nothing left over" — a byte after
// the body, inside or after the frame, is an error that wraps ErrTrailing.
func TestTrailingBytesAreReported(t *testing.T) {
	_, c := specs(t)
	frame := hexBytes(t, "0012 0003 00000065 000d 61646d696e636c69656e742d31 00 12 6170616368652d6b61666b612d6a617661 06 322e382e30 00")
	dec, err := c.DecodeRequest(framed(append(frame, 0xff)))
	var we *wire.Error
	if !errors.Is(err, codec.ErrTrailing) || !errors.As(err, &we) || we.Offset != 4+len(frame) || we.Path != "ApiVersionsRequest" {
		t.Errorf("a byte inside the frame: %v", err)
	}
	if dec != nil {
		checkTiling(t, "with a trailing byte", dec)
	}
	_, err = c.DecodeRequest(append(framed(frame), 0xff, 0xfe))
	if !errors.Is(err, codec.ErrTrailing) || !errors.As(err, &we) || we.Offset != 4+len(frame) || !strings.Contains(we.Msg, "2 bytes after the frame") {
		t.Errorf("bytes after the frame: %v", err)
	}
	_, err = c.DecodeRequest(append(framed(frame), 0xff))
	if !errors.As(err, &we) || we.Msg != "1 byte after the frame ("+codec.ErrTrailing.Error()+")" {
		t.Errorf("a byte after the frame: %v", err)
	}
}

// An array whose count the decoder refuses (more elements than the bytes
// left) holds no element: its count is 0 in the partial tree, whatever
// its length prefix claims, as the views showed it before values were
// read from the bytes.
func TestRefusedArrayCountsNoElements(t *testing.T) {
	_, c := specs(t)
	tr, err := c.DecodeRequest(hexBytes(t, "0000000e0003000100000000000000000005"))
	var we *wire.Error
	if !errors.As(err, &we) || !strings.Contains(we.Msg, "array of 5 elements cannot fit") {
		t.Fatalf("err = %v", err)
	}
	i := nodeAt(tr, tr.Part(tree.Body), "Topics")
	if i < 0 || tr.Count(i) != 0 || tr.Num(i+1) != 5 {
		t.Errorf("Topics node %d: count %d, length %d; want 0 and 5", i, tr.Count(i), tr.Num(i+1))
	}
}

// A codec whose records options are lazy (records.Options.Lazy) decodes
// the messages that hold records to trees that expand to the whole ones:
// random Produce requests and Fetch responses of every version, their
// records random batches, with fewer nodes when they hold records.
func TestLazyRecordsExpandToTheWholeTree(t *testing.T) {
	s, whole := specs(t)
	lazy := codec.New(s)
	lazy.Records.Lazy = true
	r := rand.New(rand.NewPCG(21, 4))
	fewer := 0
	for _, m := range []*spec.Message{s.Request(0), s.Response(1)} {
		for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
			for range 20 {
				val := instance.Random(m, v, r, instance.RandomOptions{})
				enc, err := whole.Encode(m, v, nil, val)
				if err != nil {
					t.Fatal(err)
				}
				w, err := decodeAs(whole, m, v, enc.Bytes)
				if err != nil {
					t.Fatal(err)
				}
				l, err := decodeAs(lazy, m, v, enc.Bytes)
				if err != nil {
					t.Fatal(err)
				}
				if e := records.Expand(l); !slices.Equal(e.Nodes, w.Nodes) || !slices.Equal(e.Problems, w.Problems) {
					t.Fatalf("%s v%d: the lazy tree does not expand to the whole one", m.Name, v)
				}
				if len(l.Nodes) < len(w.Nodes) {
					fewer++
				}
			}
		}
	}
	if fewer < 50 {
		t.Errorf("lazy trees smaller in %d cases only", fewer)
	}
	// With a node bound, which counts a lazy record as its whole nodes
	// across the records fields of a message: the lazy tree stops where
	// the whole one does.
	stopped := 0
	for _, max := range []int{40, 90, 200} {
		bw, bl := codec.New(s), codec.New(s)
		bw.Records.MaxNodes, bl.Records.MaxNodes, bl.Records.Lazy = max, max, true
		m := s.Request(0)
		for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
			for range 10 {
				enc, err := whole.Encode(m, v, nil, instance.Random(m, v, r, instance.RandomOptions{MaxElems: 4}))
				if err != nil {
					t.Fatal(err)
				}
				w, errW := decodeAs(bw, m, v, enc.Bytes)
				l, errL := decodeAs(bl, m, v, enc.Bytes)
				if fmt.Sprint(errW) != fmt.Sprint(errL) {
					t.Fatalf("%s v%d, %d nodes at most: lazy %v, whole %v", m.Name, v, max, errL, errW)
				}
				if errW != nil {
					continue
				}
				if e := records.Expand(l); !slices.Equal(e.Nodes, w.Nodes) || !slices.Equal(e.Problems, w.Problems) {
					t.Fatalf("%s v%d, %d nodes at most: the lazy tree does not expand to the whole one", m.Name, v, max)
				}
				if len(w.Problems) > 0 {
					stopped++
				}
			}
		}
	}
	if stopped < 20 {
		t.Errorf("the node bound stopped %d decodes only", stopped)
	}
}
