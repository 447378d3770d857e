package instance_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

var releases = []string{"4.4.0", "3.9.1"}

const seeds = 20

func newRand(seed uint64, v int16) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(v)))
}

func encode(c *codec.Codec, m *spec.Message, v int16, hdr, body *tree.Tree) (*tree.Tree, error) {
	if m.Type == spec.Request || m.Type == spec.Response {
		return c.Encode(m, v, hdr, body)
	}
	return c.EncodeRecord(m, v, body)
}

func decode(c *codec.Codec, m *spec.Message, v int16, b []byte) (*tree.Tree, error) {
	switch m.Type {
	case spec.Request:
		return c.DecodeRequest(b)
	case spec.Response:
		return c.DecodeResponse(b, m, v)
	}
	return c.DecodeRecord(b, m, v)
}

// TestRandomRoundTrip encodes random instances of every message of both
// embedded releases at every valid version and checks that
//   - encoding succeeds;
//   - the bytes decode, and the decoded value equals the instance once the
//     instance's tagged fields that hold exactly their default are removed
//     (Kafka does not write those, so a decoder cannot see them; see
//     withoutDefaultTags);
//   - re-encoding the decoded value (header included) gives the same bytes;
//   - records fields decode as whole RecordBatches with valid CRCs;
//   - the same seed gives the same instance and the same bytes;
//
// and that, across all instances, the generator reached the corners of
// the domain listed in coverage.
func TestRandomRoundTrip(t *testing.T) {
	var cov coverage
	start := time.Now()
	instances, genTime := 0, time.Duration(0)
	for _, rel := range releases {
		s, err := spec.Embedded(rel)
		if err != nil {
			t.Fatal(err)
		}
		c := codec.New(s)
		pairs := 0
		for _, m := range s.Messages {
			for v := m.ValidVersions.Lo; !m.ValidVersions.Empty() && v <= m.ValidVersions.Hi; v++ {
				pairs++
				for seed := range uint64(seeds) {
					name := fmt.Sprintf("%s %s v%d seed %d", rel, m.Name, v, seed)
					g0 := time.Now()
					inst := instance.Random(m, v, newRand(seed, v), instance.RandomOptions{})
					genTime += time.Since(g0)
					instances++
					if !roundTrip(t, c, m, v, inst, name, &cov) {
						continue
					}
					// Reproducible: the same seed draws the same tree and bytes.
					again := instance.Random(m, v, newRand(seed, v), instance.RandomOptions{})
					if !slices.Equal(inst.Nodes, again.Nodes) || !bytes.Equal(inst.Bytes, again.Bytes) {
						t.Errorf("%s: the same seed drew a different instance", name)
					}
					e1, err1 := encode(c, m, v, nil, inst)
					e2, err2 := encode(c, m, v, nil, again)
					if err1 != nil || err2 != nil || !bytes.Equal(e1.Bytes, e2.Bytes) {
						t.Errorf("%s: the same seed encoded to different bytes", name)
					}
				}
			}
		}
		if pairs < 500 {
			t.Errorf("Kafka %s: only %d (message, version) pairs", rel, pairs)
		}
		t.Logf("Kafka %s: %d (message, version) pairs × %d seeds", rel, pairs, seeds)
	}
	t.Logf("%d instances in %v (generation alone %v, %.0f instances/s)", instances, time.Since(start).Round(time.Millisecond), genTime.Round(time.Millisecond), float64(instances)/genTime.Seconds())
	cov.check(t)
}

// roundTrip runs the checks of TestRandomRoundTrip on one instance.
func roundTrip(t *testing.T, c *codec.Codec, m *spec.Message, v int16, inst *tree.Tree, name string, cov *coverage) bool {
	t.Helper()
	cov.value(inst, v, m.Flexible(v))
	enc, err := encode(c, m, v, nil, inst)
	if err != nil {
		t.Errorf("%s: encode: %v", name, err)
		return false
	}
	dec, err := decode(c, m, v, enc.Bytes)
	if err != nil {
		t.Errorf("%s: decode: %v\n% x", name, err, enc.Bytes)
		return false
	}
	body := dec.Part(tree.Body)
	if d := tree.Diff(withoutDefaultTags(inst, v, m.Flexible(v)), 0, dec, body); d != "" {
		t.Errorf("%s: decoded value differs: %s\n% x", name, d, enc.Bytes)
		return false
	}
	var hdr *tree.Tree
	if h := dec.Part(tree.Header); h >= 0 && m.Type == spec.Request {
		hdr = dec.Sub(h)
	}
	again, err := encode(c, m, v, hdr, dec.Sub(body))
	if err != nil {
		t.Errorf("%s: re-encoding the decoded value: %v", name, err)
		return false
	}
	if !bytes.Equal(again.Bytes, enc.Bytes) {
		t.Errorf("%s: re-encoding the decoded value gives different bytes\n% x\n% x", name, enc.Bytes, again.Bytes)
		return false
	}
	if msg := checkRecords(dec); msg != "" {
		t.Errorf("%s: %s", name, msg)
		return false
	}
	cov.wire(dec)
	return true
}

// withoutDefaultTags returns a copy of value tree t without the tagged
// fields (at version v of a flexible message) whose value equals their
// default, at any depth: Kafka omits them on the wire, so the decoded value
// lacks them. Comparing with the pruned copy keeps every other value
// checked; the byte comparison of the re-encoding covers the rest.
func withoutDefaultTags(t *tree.Tree, v int16, flexible bool) *tree.Tree {
	out := &tree.Tree{Bytes: t.Bytes, Message: t.Message, Version: t.Version, HeaderVersion: t.HeaderVersion}
	b := tree.Builder{T: out}
	var copyNode func(i int32)
	copyNode = func(i int32) {
		if t.IsLeaf(i) {
			b.Leaf(t.Nodes[i])
			return
		}
		b.Open(t.Nodes[i])
		t.Children(i, func(c int32) bool {
			if f := t.Field(c); f != nil && flexible && f.TaggedIn(v) && isDefault(t, c, f) {
				return true
			}
			copyNode(c)
			return true
		})
		b.Close(0)
	}
	copyNode(0)
	return out
}

// isDefault reports whether node i of t holds field f's default, by the
// rule Kafka uses to omit tagged fields (FieldSpec.generateNonDefaultValueCheck):
// scalars equal to the default, strings and uuids equal to it, bytes and
// arrays empty, records null, structs equal to a fresh struct (every field
// default, no unknown tags); a "null" default is met by null only.
func isDefault(t *tree.Tree, i int32, f *spec.Field) bool {
	n := &t.Nodes[i]
	if f.DefaultNull || f.Type.Kind == spec.KindRecords {
		return n.Null()
	}
	if n.Null() {
		return false
	}
	switch f.Type.Kind {
	case spec.KindFloat64:
		return math.Float64frombits(uint64(t.Num(i))) == f.DefaultFloat
	case spec.KindUUID:
		return bytes.Equal(t.Data(i), f.DefaultUUID[:])
	case spec.KindString:
		return string(t.Data(i)) == f.DefaultString
	case spec.KindBytes:
		return len(t.Data(i)) == 0
	case spec.KindArray:
		empty := true
		t.Elements(i, func(int32) bool { empty = false; return false })
		return empty
	case spec.KindStruct:
		def := true
		t.Fields(i, func(c int32) bool {
			cf := t.Field(c)
			def = t.Nodes[c].Kind() != tree.UnknownTag && cf != nil && isDefault(t, c, cf)
			return def
		})
		return def
	}
	return t.Num(i) == f.DefaultInt
}

// checkRecords checks that every non-empty records field of decoded tree
// t holds whole, uncompressed RecordBatch v2 with valid CRCs and as many
// Record nodes as their recordsCount: nothing left as raw bytes.
func checkRecords(t *tree.Tree) string {
	for i := range t.Nodes {
		if t.Nodes[i].Kind() != tree.Records || t.Nodes[i].Null() {
			continue
		}
		msg := ""
		t.Children(int32(i), func(c int32) bool {
			n := &t.Nodes[c]
			switch n.Kind() {
			case tree.Length:
				return true
			case tree.RecordBatch:
			default:
				msg = fmt.Sprintf("records field holds a %s node", n.Kind())
				return false
			}
			if n.Flags()&tree.FlagBadCRC != 0 || t.Magic(c) != 2 {
				msg = fmt.Sprintf("batch at %d: bad CRC or magic %d", n.Off, t.Magic(c))
				return false
			}
			records, count := int64(0), int64(-1)
			t.Children(c, func(x int32) bool {
				switch t.Nodes[x].Kind() {
				case tree.Record:
					records++
				case tree.BatchField:
					if t.Name(x) == "recordsCount" {
						count = t.Num(x)
					}
				default:
					msg = fmt.Sprintf("batch at %d holds a %s node", n.Off, t.Nodes[x].Kind())
				}
				return msg == ""
			})
			if msg == "" && records != count {
				msg = fmt.Sprintf("batch at %d: %d records decoded, recordsCount %d", n.Off, records, count)
			}
			return msg == ""
		})
		if msg != "" {
			return msg
		}
	}
	return ""
}

// coverage counts the corners of the domain the generator reached.
type coverage struct {
	nullString, emptyString, nonASCIIString, fourByteRune int
	negInt64, minInt64, maxUint16, maxUint32, minInt8     int
	hugeFloat, tinyFloat, negFloat                        int
	zeroUUID, randomUUID, boolTrue                        int
	emptyArray, bigArray, nullArray                       int
	nullStruct, nullRecords, nullBytes, emptyRecords      int
	defaultTag                                            int
	// On the wire (decoded trees):
	tag, unknownTag, record, twoBatches int
	// Never wanted: invalid UTF-8 strings; NaN, ±Inf or -0 floats.
	invalidUTF8, badFloat int
}

// value counts what value tree t holds.
func (cv *coverage) value(t *tree.Tree, v int16, flexible bool) {
	for i := range t.Nodes {
		n := &t.Nodes[i]
		f := t.Field(int32(i))
		if f == nil {
			continue
		}
		if flexible && f.TaggedIn(v) && isDefault(t, int32(i), f) {
			cv.defaultTag++
		}
		switch n.Kind() {
		case tree.Array:
			count := 0
			t.Elements(int32(i), func(int32) bool { count++; return true })
			switch {
			case n.Null():
				cv.nullArray++
			case count == 0:
				cv.emptyArray++
			case count >= 2:
				cv.bigArray++
			}
		case tree.Struct:
			if n.Null() {
				cv.nullStruct++
			}
		case tree.Records:
			if n.Null() {
				cv.nullRecords++
			} else if t.DataLen(int32(i)) == 0 {
				cv.emptyRecords++
			}
		case tree.Field:
			d := t.Data(int32(i))
			switch f.Type.Kind {
			case spec.KindString:
				switch {
				case n.Null():
					cv.nullString++
				case len(d) == 0:
					cv.emptyString++
				case !utf8.Valid(d):
					cv.invalidUTF8++
				default:
					if strings.ContainsFunc(string(d), func(r rune) bool { return r >= utf8.RuneSelf }) {
						cv.nonASCIIString++
					}
					if strings.ContainsFunc(string(d), func(r rune) bool { return utf8.RuneLen(r) == 4 }) {
						cv.fourByteRune++
					}
				}
			case spec.KindBytes:
				if n.Null() {
					cv.nullBytes++
				}
			case spec.KindInt64:
				if t.Num(int32(i)) < 0 {
					cv.negInt64++
				}
				if t.Num(int32(i)) == math.MinInt64 {
					cv.minInt64++
				}
			case spec.KindUint16:
				if t.Num(int32(i)) == math.MaxUint16 {
					cv.maxUint16++
				}
			case spec.KindUint32:
				if t.Num(int32(i)) == math.MaxUint32 {
					cv.maxUint32++
				}
			case spec.KindInt8:
				if t.Num(int32(i)) == math.MinInt8 {
					cv.minInt8++
				}
			case spec.KindFloat64:
				x := math.Float64frombits(uint64(t.Num(int32(i))))
				switch {
				case math.IsNaN(x) || math.IsInf(x, 0) || (x == 0 && math.Signbit(x)):
					cv.badFloat++
				case math.Abs(x) > 1e300:
					cv.hugeFloat++
				case x != 0 && math.Abs(x) < 1e-300:
					cv.tinyFloat++
				}
				if x < 0 {
					cv.negFloat++
				}
			case spec.KindUUID:
				if bytes.Equal(d, make([]byte, 16)) {
					cv.zeroUUID++
				} else {
					cv.randomUUID++
				}
			case spec.KindBool:
				if t.Num(int32(i)) == 1 {
					cv.boolTrue++
				}
			}
		}
	}
}

// wire counts what decoded tree t holds on the wire.
func (cv *coverage) wire(t *tree.Tree) {
	for i := range t.Nodes {
		switch t.Nodes[i].Kind() {
		case tree.Tag:
			cv.tag++
		case tree.UnknownTag:
			cv.unknownTag++
		case tree.Record:
			cv.record++
		case tree.Records:
			batches := 0
			t.Children(int32(i), func(c int32) bool {
				if t.Nodes[c].Kind() == tree.RecordBatch {
					batches++
				}
				return true
			})
			if batches >= 2 {
				cv.twoBatches++
			}
		}
	}
}

func (cv *coverage) check(t *testing.T) {
	t.Helper()
	t.Logf("coverage: %+v", *cv)
	need := []struct {
		what string
		n    int
	}{
		{"null string", cv.nullString},
		{"empty string", cv.emptyString},
		{"non-ASCII string", cv.nonASCIIString},
		{"string with a 4-byte rune (emoji)", cv.fourByteRune},
		{"negative int64", cv.negInt64},
		{"int64 min", cv.minInt64},
		{"uint16 65535", cv.maxUint16},
		{"int8 -128", cv.minInt8},
		{"huge float64", cv.hugeFloat},
		{"tiny float64", cv.tinyFloat},
		{"negative float64", cv.negFloat},
		{"zero uuid", cv.zeroUUID},
		{"random uuid", cv.randomUUID},
		{"bool true", cv.boolTrue},
		{"empty array", cv.emptyArray},
		{"array of ≥2 elements", cv.bigArray},
		{"null array", cv.nullArray},
		{"null nullable struct", cv.nullStruct},
		{"null records", cv.nullRecords},
		{"empty records", cv.emptyRecords},
		{"null bytes", cv.nullBytes},
		{"tagged field at its default", cv.defaultTag},
		{"present tagged field (on the wire)", cv.tag},
		{"unknown tagged field (on the wire)", cv.unknownTag},
		{"records field with ≥1 record", cv.record},
		{"records field with 2 batches", cv.twoBatches},
	}
	for _, x := range need {
		if x.n == 0 {
			t.Errorf("no instance had a %s", x.what)
		}
	}
	if cv.invalidUTF8 != 0 || cv.badFloat != 0 {
		t.Errorf("%d strings were invalid UTF-8 and %d float64 values NaN, Inf or -0", cv.invalidUTF8, cv.badFloat)
	}
}

// TestRecordBatch parses RecordBatch's output by the layout of
// DefaultRecordBatch (independently of the codec), then checks that the
// codec's record spans see whole records and a valid CRC.
func TestRecordBatch(t *testing.T) {
	for n := range 6 {
		for seed := range uint64(50) {
			b := instance.RecordBatch(rand.New(rand.NewPCG(seed, uint64(n))), n)
			name := fmt.Sprintf("%d records, seed %d", n, seed)
			if len(b) < 61 {
				t.Fatalf("%s: %d bytes, shorter than the 61-byte header", name, len(b))
			}
			be := binary.BigEndian
			if got := int(int32(be.Uint32(b[8:]))); got != len(b)-12 {
				t.Errorf("%s: batchLength %d, want %d", name, got, len(b)-12)
			}
			if b[16] != 2 {
				t.Errorf("%s: magic %d", name, b[16])
			}
			if got, want := be.Uint32(b[17:]), codec.CRC32C(b[21:]); got != want {
				t.Errorf("%s: crc %08x, want %08x", name, got, want)
			}
			if a := be.Uint16(b[21:]); a != 0 {
				t.Errorf("%s: attributes %#x, want 0", name, a)
			}
			if got, want := int32(be.Uint32(b[23:])), int32(max(n-1, 0)); got != want {
				t.Errorf("%s: lastOffsetDelta %d, want %d", name, got, want)
			}
			if got := int(int32(be.Uint32(b[57:]))); got != n {
				t.Errorf("%s: recordsCount %d, want %d", name, got, n)
			}
			if n == 0 && len(b) != 61 {
				t.Errorf("%s: an empty batch has %d bytes, want 61", name, len(b))
			}
			baseTs, maxTs := int64(be.Uint64(b[27:])), int64(be.Uint64(b[35:]))
			p, maxDelta := 61, int64(0)
			for i := range n {
				rec, next, err := parseRecord(b, p)
				if err != "" {
					t.Fatalf("%s: record %d at %d: %s", name, i, p, err)
				}
				if rec.offsetDelta != int64(i) || rec.attributes != 0 {
					t.Errorf("%s: record %d: offsetDelta %d, attributes %d", name, i, rec.offsetDelta, rec.attributes)
				}
				maxDelta = max(maxDelta, rec.timestampDelta)
				p = next
			}
			if p != len(b) {
				t.Errorf("%s: records end at %d, the batch at %d", name, p, len(b))
			}
			if maxTs != baseTs+maxDelta {
				t.Errorf("%s: maxTimestamp %d, want %d", name, maxTs, baseTs+maxDelta)
			}

			// The codec's view of the same bytes.
			tr := &tree.Tree{Bytes: b}
			bl := tree.Builder{T: tr}
			bl.Open(tree.Node{S: tree.NewShape(tree.Records, tree.WireNone, 0, 0)})
			codec.AppendRecordSpans(&bl, b, 0)
			bl.Close(int32(len(b)))
			batches, records := 0, 0
			for i := range tr.Nodes {
				switch tr.Nodes[i].Kind() {
				case tree.RecordBatch:
					batches++
					if tr.Nodes[i].Flags()&tree.FlagBadCRC != 0 {
						t.Errorf("%s: the codec finds a bad CRC", name)
					}
				case tree.Record:
					records++
				case tree.Raw:
					t.Errorf("%s: the codec leaves raw bytes at %d", name, tr.Nodes[i].Off)
				}
			}
			if batches != 1 || records != n {
				t.Errorf("%s: the codec sees %d batches and %d records", name, batches, records)
			}
		}
	}
}

type record struct {
	attributes                  byte
	timestampDelta, offsetDelta int64
}

// parseRecord reads the Record v2 at b[p:] (DefaultRecord layout): varint
// length, attributes, varlong timestampDelta, varint offsetDelta, key and
// value (varint length, -1 null), varint header count, headers (key never
// null and valid UTF-8, value maybe null).
func parseRecord(b []byte, p int) (record, int, string) {
	var rec record
	varint := func() (int64, bool) {
		u, n := binary.Uvarint(b[p:])
		if n <= 0 {
			return 0, false
		}
		p += n
		return int64(u>>1) ^ -int64(u&1), true
	}
	length, ok := varint()
	if !ok || length < 0 || p+int(length) > len(b) {
		return rec, 0, "bad length"
	}
	end := p + int(length)
	rec.attributes = b[p]
	p++
	rec.timestampDelta, _ = varint()
	rec.offsetDelta, _ = varint()
	field := func(nullable, text bool) string {
		n, ok := varint()
		switch {
		case !ok || n < -1 || p+int(n) > end:
			return "bad varbytes length"
		case n == -1 && !nullable:
			return "null header key"
		case n >= 0 && text && !utf8.Valid(b[p:p+int(n)]):
			return "header key is not UTF-8"
		}
		p += max(int(n), 0)
		return ""
	}
	if e := field(true, false); e != "" {
		return rec, 0, "key: " + e
	}
	if e := field(true, false); e != "" {
		return rec, 0, "value: " + e
	}
	h, ok := varint()
	if !ok || h < 0 {
		return rec, 0, "bad header count"
	}
	for range h {
		if e := field(false, true); e != "" {
			return rec, 0, "header key: " + e
		}
		if e := field(true, false); e != "" {
			return rec, 0, "header value: " + e
		}
	}
	if p != end {
		return rec, 0, fmt.Sprintf("record ends at %d, its length says %d", p, end)
	}
	return rec, end, ""
}

// TestRandomOptions checks the bounds: no array over MaxElems, no string or
// bytes over MaxBytes, and no string over Kafka's 32767 bytes even when
// MaxBytes is larger.
func TestRandomOptions(t *testing.T) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	for _, o := range []instance.RandomOptions{{MaxElems: 1, MaxBytes: 1}, {MaxElems: 6, MaxBytes: 100}} {
		for _, m := range s.Messages {
			if m.ValidVersions.Empty() {
				continue
			}
			v := m.ValidVersions.Hi
			for seed := range uint64(5) {
				inst := instance.Random(m, v, newRand(seed, v), o)
				for i := range inst.Nodes {
					n, f := &inst.Nodes[i], inst.Field(int32(i))
					if f == nil {
						continue
					}
					switch {
					case n.Kind() == tree.Array && inst.Count(int32(i)) > o.MaxElems:
						t.Errorf("%s v%d %+v: %s has %d elements", m.Name, v, o, f.Name, inst.Count(int32(i)))
					case n.Kind() == tree.Array && (f.Type.Elem == spec.KindString || f.Type.Elem == spec.KindBytes):
						inst.Elements(int32(i), func(e int32) bool {
							if inst.DataLen(e) > o.MaxBytes {
								t.Errorf("%s v%d %+v: an element of %s has %d bytes", m.Name, v, o, f.Name, inst.DataLen(e))
							}
							return true
						})
					case n.Kind() == tree.Field && (f.Type.Kind == spec.KindString || f.Type.Kind == spec.KindBytes):
						if inst.DataLen(int32(i)) > o.MaxBytes && !isDefaultString(inst, int32(i)) {
							t.Errorf("%s v%d %+v: %s has %d bytes", m.Name, v, o, f.Name, inst.DataLen(int32(i)))
						}
					}
				}
				if _, err := encode(c, m, v, nil, inst); err != nil {
					t.Errorf("%s v%d %+v: %v", m.Name, v, o, err)
				}
			}
		}
	}
	// A MaxBytes above Kafka's limit still yields strings Kafka accepts.
	m := s.Message("CreateTopicsRequest")
	v := m.ValidVersions.Hi
	longest := 0
	for seed := range uint64(10) {
		inst := instance.Random(m, v, newRand(seed, v), instance.RandomOptions{MaxBytes: 100000, MaxElems: 2})
		for i := range inst.Nodes {
			if f := inst.Field(int32(i)); f != nil && f.Type.Kind == spec.KindString {
				longest = max(longest, inst.DataLen(int32(i)))
			}
		}
		if _, err := encode(c, m, v, nil, inst); err != nil {
			t.Errorf("MaxBytes 100000: %v", err)
		}
	}
	if longest > 32767 || longest < 1000 {
		t.Errorf("MaxBytes 100000: longest string %d bytes, want 1000..32767", longest)
	}
}

// isDefaultString reports whether leaf i holds its field's default string
// (a tagged field's default may be longer than MaxBytes).
func isDefaultString(t *tree.Tree, i int32) bool {
	f := t.Field(i)
	return f != nil && f.Type.Kind == spec.KindString && f.DefaultString != "" && string(t.Data(i)) == f.DefaultString
}

// BenchmarkRandom draws instances of every message of Kafka 4.4.0 at its
// highest version.
func BenchmarkRandom(b *testing.B) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var ms []*spec.Message
	for _, m := range s.Messages {
		if !m.ValidVersions.Empty() {
			ms = append(ms, m)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m := ms[i%len(ms)]
		instance.Random(m, m.ValidVersions.Hi, r, instance.RandomOptions{})
	}
}
