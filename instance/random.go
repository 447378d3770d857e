package instance

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"unicode/utf8"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// RandomOptions bound the instances Random draws. A zero or negative field
// takes its default.
type RandomOptions struct {
	// MaxElems is the most elements of an array, and the most records of a
	// RecordBatch (default 3).
	MaxElems int
	// MaxBytes is the most bytes of a string, a bytes value, a record key,
	// value or header, and an unknown tagged field's payload (default 24).
	// Strings never exceed Kafka's limit of 32767 bytes whatever it says.
	MaxBytes int
	// MaxDepth is the deepest struct nesting at which arrays still get
	// several elements (default 8): deeper arrays hold at most one, so that
	// instances stay small whatever the spec. The embedded Kafka specs nest
	// structs at most five deep, so the default only bounds drafts.
	MaxDepth int
}

// Defaults of RandomOptions.
const (
	DefaultMaxElems = 3
	DefaultMaxBytes = 24
	DefaultMaxDepth = 8
)

// maxString is Kafka's limit on a string's UTF-8 length (Short.MAX_VALUE).
const maxString = 32767

func (o RandomOptions) withDefaults() RandomOptions {
	if o.MaxElems <= 0 {
		o.MaxElems = DefaultMaxElems
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	return o
}

// Random returns a random valid instance of m's body at version v, drawn
// from r, as a value tree shaped like Smallest's (fields in spec order,
// tagged fields among them, unknown tagged fields last in their struct).
// The same r state and options give the same tree, so a seeded
// rand.New(rand.NewPCG(seed, seq)) reproduces an instance.
//
// Every field present at v gets a value from across its domain:
//   - integers: 0, ±1, the type's minimum and maximum, small and uniform
//     values (uint16 0..65535, uint32 0..2^32-1);
//   - float64: 0, ±1, fractions, huge and tiny (subnormal) magnitudes of
//     both signs, never NaN, ±Inf or -0, which JSON cannot carry (NaN, Inf)
//     or which a default check cannot tell from 0 (-0);
//   - bool false and true; uuid zero and random;
//   - strings: empty, ASCII, JSON-escaped characters, and multi-byte UTF-8
//     (2-, 3- and 4-byte runes, emoji), always valid UTF-8, never over
//     32767 bytes; bytes: empty and random;
//   - null wherever the field is nullable at v (strings, bytes, arrays,
//     structs, records);
//   - arrays of 0, 1 or several elements; records null (if nullable),
//     empty, or one or two uncompressed RecordBatch v2 (see RecordBatch).
//
// In flexible versions, tagged fields are absent, present with a random
// value, or present with exactly their default (which the encoder omits,
// as Kafka does), and every struct sometimes carries unknown tagged fields:
// tags above all the struct's known tags, ascending and distinct, with
// small random payloads. Fields not in v are absent.
func Random(m *spec.Message, v int16, r *rand.Rand, o RandomOptions) *tree.Tree {
	t := &tree.Tree{Message: m, Version: v, HeaderVersion: -1, Nodes: make([]tree.Node, 0, 64), Bytes: make([]byte, 0, 256)}
	g := gen{r: r, o: o.withDefaults(), b: tree.Builder{T: t}, v: v, flexible: m.Flexible(v)}
	g.b.Open(tree.Node{S: bodyShape(m, v)})
	g.fields(m.Root, 0)
	g.b.Close(0)
	return t
}

// shapeElement is the shape of a scalar array element of a value tree.
var shapeElement = tree.NewShape(tree.Element, tree.WireNone, 0, 0)

// bodyShape is the shape of the Body of a value of m at version v.
func bodyShape(m *spec.Message, v int16) tree.Shape {
	aux := int32(v)
	if !m.ValidVersions.Contains(v) {
		aux = -1
	}
	return tree.NewShape(tree.Body, tree.WireNone, tree.StructRef(m.Root), aux)
}

// gen draws one instance.
type gen struct {
	r        *rand.Rand
	o        RandomOptions
	b        tree.Builder
	v        int16
	flexible bool
	scratch  []byte
	// onPath holds the structs being built around the current field: a
	// struct that contains itself gets no element or null there.
	onPath []*spec.Struct
}

// recursive reports whether f's struct is already being built.
func (g *gen) recursive(f *spec.Field) bool {
	return f.Type.Struct != nil && slices.Contains(g.onPath, f.Type.Struct)
}

// chance reports true with probability 1/n.
func (g *gen) chance(n int) bool { return g.r.IntN(n) == 0 }

// fields appends the fields of struct st present at g.v, then (flexible
// versions) maybe some unknown tagged fields.
func (g *gen) fields(st *spec.Struct, depth int) {
	g.onPath = append(g.onPath, st)
	defer func() { g.onPath = g.onPath[:len(g.onPath)-1] }()
	for _, f := range st.Fields {
		if !f.Versions.Contains(g.v) {
			continue
		}
		if g.flexible && f.TaggedIn(g.v) {
			switch g.r.IntN(3) {
			case 0: // absent
			case 1:
				g.field(f, depth)
			case 2:
				g.defaultField(f, depth)
			}
			continue
		}
		g.field(f, depth)
	}
	if g.flexible && g.chance(5) {
		g.unknownTags(st)
	}
}

// unknownTags appends 1 to 3 unknown tagged fields, numbered above every
// tag st knows (in any version: a known tag out of its versions is an
// error, not an unknown tag), ascending and distinct.
func (g *gen) unknownTags(st *spec.Struct) {
	tag := int64(-1)
	for _, f := range st.Fields {
		if f.HasTag && int64(f.Tag) > tag {
			tag = int64(f.Tag)
		}
	}
	n := 1 + g.r.IntN(3)
	for range n {
		switch g.r.IntN(8) {
		case 0:
			tag += 100 + int64(g.r.IntN(20000)) // a multi-byte uvarint tag
		default:
			tag += 1 + int64(g.r.IntN(3))
		}
		g.b.LeafTag(uint32(tag), g.randBytes(min(g.o.MaxBytes, 8)))
	}
}

// field appends a random value of field f.
func (g *gen) field(f *spec.Field, depth int) {
	ref := tree.FieldRef(f)
	nullable := f.NullableIn(g.v)
	switch f.Type.Kind {
	case spec.KindArray:
		if nullable && g.chance(6) {
			g.b.Leaf(tree.Node{S: tree.NewShape(tree.Array, tree.WireNone, ref, 0).With(tree.FlagNull)})
			return
		}
		n := g.count(depth)
		if g.recursive(f) {
			n = 0
		}
		g.b.Open(tree.Node{S: tree.NewShape(tree.Array, tree.WireNone, ref, 0)})
		for range n {
			if f.Type.Elem == spec.KindStruct {
				g.b.Open(tree.Node{S: tree.NewShape(tree.Element, tree.WireNone, tree.StructRef(f.Type.Struct), 0)})
				g.fields(f.Type.Struct, depth+1)
				g.b.Close(0)
			} else {
				g.scalar(f.Type.Elem, tree.Node{S: shapeElement}, false)
			}
		}
		g.b.Close(0)
	case spec.KindStruct:
		if nullable && (g.chance(4) || g.recursive(f)) {
			g.b.Leaf(tree.Node{S: tree.NewShape(tree.Struct, tree.WireNone, ref, 0).With(tree.FlagNull)})
			return
		}
		g.b.Open(tree.Node{S: tree.NewShape(tree.Struct, tree.WireNone, ref, 0)})
		g.fields(f.Type.Struct, depth+1)
		g.b.Close(0)
	case spec.KindRecords:
		n := tree.Node{S: tree.NewShape(tree.Records, tree.WireNone, ref, 0)}
		switch k := g.r.IntN(6); {
		case k == 0 && nullable:
			n.SetNull(true)
			g.b.LeafData(n, nil)
		case k <= 1:
			g.b.LeafData(n, nil) // empty
		default:
			g.scratch = appendBatch(g.scratch[:0], g.r, g.r.IntN(g.o.MaxElems+1), g.o.MaxBytes)
			if g.chance(3) {
				g.scratch = appendBatch(g.scratch, g.r, g.r.IntN(g.o.MaxElems+1), g.o.MaxBytes)
			}
			g.b.LeafData(n, g.scratch)
		}
	default:
		g.scalar(f.Type.Kind, tree.Node{S: tree.NewShape(tree.Field, tree.WireNone, ref, 0)}, nullable)
	}
}

// count draws an array length: 0, 1 or several (at most one below
// MaxDepth).
func (g *gen) count(depth int) int {
	hi := g.o.MaxElems
	if depth >= 2*g.o.MaxDepth {
		return 0 // a struct that contains itself: stop growing
	}
	if depth >= g.o.MaxDepth {
		hi = min(hi, 1)
	}
	switch k := g.r.IntN(10); {
	case k < 2:
		return 0
	case k < 5 || hi < 2:
		return min(1, hi)
	default:
		return 2 + g.r.IntN(hi-1)
	}
}

// scalar appends leaf n holding a random value of kind k (null sometimes
// when nullable).
func (g *gen) scalar(k spec.Kind, n tree.Node, nullable bool) {
	var num int64
	switch k {
	case spec.KindBool:
		num = int64(g.r.IntN(2))
	case spec.KindInt8:
		num = g.intIn(math.MinInt8, math.MaxInt8)
	case spec.KindInt16:
		num = g.intIn(math.MinInt16, math.MaxInt16)
	case spec.KindUint16:
		num = g.intIn(0, math.MaxUint16)
	case spec.KindInt32:
		num = g.intIn(math.MinInt32, math.MaxInt32)
	case spec.KindUint32:
		num = g.intIn(0, math.MaxUint32)
	case spec.KindInt64:
		num = g.intIn(math.MinInt64, math.MaxInt64)
	case spec.KindFloat64:
		num = int64(math.Float64bits(g.float()))
	case spec.KindUUID:
		var u [16]byte
		if !g.chance(4) {
			binary.BigEndian.PutUint64(u[:], g.r.Uint64())
			binary.BigEndian.PutUint64(u[8:], g.r.Uint64())
		}
		g.b.LeafData(n, u[:])
		return
	case spec.KindString, spec.KindBytes:
		if nullable && g.chance(5) {
			n.SetNull(true)
			g.b.LeafData(n, nil)
			return
		}
		if k == spec.KindString {
			g.b.LeafData(n, g.str(min(g.o.MaxBytes, maxString)))
		} else {
			g.b.LeafData(n, g.randBytes(g.o.MaxBytes))
		}
		return
	}
	g.b.LeafNum(n, num)
}

// intIn draws an integer in [lo, hi] (lo <= 0 < hi): 0, 1, -1, the bounds,
// a small value or a uniform one.
func (g *gen) intIn(lo, hi int64) int64 {
	switch g.r.IntN(8) {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		if lo < 0 {
			return -1
		}
		return hi - 1
	case 3:
		return lo
	case 4:
		return hi
	case 5:
		return max(lo, int64(g.r.IntN(256))-128)
	}
	if lo == math.MinInt64 && hi == math.MaxInt64 {
		return int64(g.r.Uint64())
	}
	return lo + int64(g.r.Uint64N(uint64(hi-lo)+1))
}

// specialFloats are finite float64 values at the edges of the domain.
var specialFloats = [...]float64{
	0, 1, -1, 0.5, -2.5, math.Pi,
	math.MaxFloat64, -math.MaxFloat64,
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
	0x1p-1022,                        // the smallest normal
	1e300, -1e-300, 9007199254740993, // 2^53+1 rounds to 2^53
}

// float draws a finite float64 other than -0.
func (g *gen) float() float64 {
	if g.chance(2) {
		return specialFloats[g.r.IntN(len(specialFloats))]
	}
	f := math.Ldexp(g.r.Float64()+0.5, g.r.IntN(2000)-1000)
	if g.chance(2) {
		f = -f
	}
	return f
}

// Rune pools of strings: printable ASCII, characters JSON escapes, and
// 2-, 3- and 4-byte UTF-8.
var (
	asciiRunes  = []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ._-:/")
	escapeRunes = []rune("\"\\\n\t\r\x00\x1f\x7f</>&")
	wideRunes   = []rune("éßñΩжא€中文日本語한\u2028\u2029\ufeff\ufffd😀🎉𝄞🇩🇪👩‍💻")
)

// str draws a valid UTF-8 string of at most max bytes: empty, ASCII, or
// mixed with escapes and multi-byte runes (never cut inside a rune).
func (g *gen) str(max int) []byte {
	out := g.scratch[:0]
	kind := g.r.IntN(5)
	if kind == 0 || max == 0 {
		return out
	}
	n := 1 + g.r.IntN(max)
	for {
		var c rune
		switch {
		case kind == 1 || g.chance(2):
			c = asciiRunes[g.r.IntN(len(asciiRunes))]
		case g.chance(4):
			c = escapeRunes[g.r.IntN(len(escapeRunes))]
		default:
			c = wideRunes[g.r.IntN(len(wideRunes))]
		}
		if len(out)+utf8.RuneLen(c) > n {
			break
		}
		out = utf8.AppendRune(out, c)
	}
	g.scratch = out
	return out
}

// randBytes draws empty or random bytes, at most max.
func (g *gen) randBytes(max int) []byte {
	out := g.scratch[:0]
	if max == 0 || g.chance(4) {
		return out
	}
	n := 1 + g.r.IntN(max)
	for range n {
		out = append(out, byte(g.r.Uint32()))
	}
	g.scratch = out
	return out
}

// defaultField appends field f holding exactly its default value (as
// Kafka's FieldSpec.fieldDefault defines it): the encoder omits such a
// tagged field, and a decoder restores it.
func (g *gen) defaultField(f *spec.Field, depth int) {
	ref := tree.FieldRef(f)
	null := tree.NullIf(f.DefaultNull)
	switch f.Type.Kind {
	case spec.KindArray:
		g.b.LeafData(tree.Node{S: tree.NewShape(tree.Array, tree.WireNone, ref, 0).With(null)}, nil)
	case spec.KindStruct:
		n := tree.Node{S: tree.NewShape(tree.Struct, tree.WireNone, ref, 0).With(null)}
		if n.Null() {
			g.b.LeafData(n, nil)
			return
		}
		g.b.Open(n)
		g.defaultFields(f.Type.Struct, depth+1)
		g.b.Close(0)
	case spec.KindRecords:
		g.b.LeafData(tree.Node{S: tree.NewShape(tree.Records, tree.WireNone, ref, 0).With(tree.NullIf(f.NullableIn(g.v)))}, nil)
	default:
		g.defaultScalar(f, tree.Node{S: tree.NewShape(tree.Field, tree.WireNone, ref, 0).With(null)})
	}
}

// defaultFields appends every positional field of st at its default (a
// fresh struct); tagged fields are left out, which is the same value.
func (g *gen) defaultFields(st *spec.Struct, depth int) {
	for _, f := range st.Fields {
		if f.Versions.Contains(g.v) && !(g.flexible && f.TaggedIn(g.v)) {
			g.defaultField(f, depth)
		}
	}
}

// defaultScalar appends leaf n holding f's default scalar value.
func (g *gen) defaultScalar(f *spec.Field, n tree.Node) {
	switch f.Type.Kind {
	case spec.KindFloat64:
		g.b.LeafNum(n, int64(math.Float64bits(f.DefaultFloat)))
	case spec.KindUUID:
		g.b.LeafData(n, f.DefaultUUID[:])
	case spec.KindString:
		g.b.LeafData(n, []byte(f.DefaultString))
	case spec.KindBytes:
		g.b.LeafData(n, nil)
	default:
		g.b.LeafNum(n, f.DefaultInt)
	}
}

// RecordBatch returns one random uncompressed RecordBatch v2 holding the
// given number of records, drawn from r: random base offset, leader epoch,
// timestamps and producer fields (or -1), attributes 0, then the records
// (attributes 0, timestamp and offset deltas, null or random key and value,
// 0 to 2 headers), with batchLength, lastOffsetDelta, recordsCount and the
// CRC-32C over attributes..end all correct.
func RecordBatch(r *rand.Rand, records int) []byte {
	return appendBatch(nil, r, max(records, 0), DefaultMaxBytes)
}

// appendBatch appends a RecordBatch v2 of n records (keys, values and
// headers of at most maxBytes bytes) to dst.
func appendBatch(dst []byte, r *rand.Rand, n, maxBytes int) []byte {
	start := len(dst)
	baseTs := int64(r.Uint64N(1 << 42)) // milliseconds, up to the 2100s
	producerID, epoch, seq := int64(-1), int16(-1), int32(-1)
	if r.IntN(2) == 0 {
		producerID, epoch, seq = int64(r.Uint64N(1<<40)), int16(r.IntN(1<<15)), int32(r.IntN(1<<20))
	}
	lastDelta := max(n-1, 0)
	dst = wire.AppendInt64(dst, int64(r.Uint64N(1<<40))) // baseOffset
	dst = wire.AppendInt32(dst, 0)                       // batchLength, set below
	dst = wire.AppendInt32(dst, int32(r.IntN(1<<16))-1)  // partitionLeaderEpoch
	dst = append(dst, 2)                                 // magic
	dst = wire.AppendUint32(dst, 0)                      // crc, set below
	dst = wire.AppendInt16(dst, 0)                       // attributes: uncompressed, CreateTime
	dst = wire.AppendInt32(dst, int32(lastDelta))
	dst = wire.AppendInt64(dst, baseTs)
	maxTsAt := len(dst)
	dst = wire.AppendInt64(dst, baseTs) // maxTimestamp, set below
	dst = wire.AppendInt64(dst, producerID)
	dst = wire.AppendInt16(dst, epoch)
	dst = wire.AppendInt32(dst, seq)
	dst = wire.AppendInt32(dst, int32(n))
	maxDelta := int64(0)
	var rec []byte
	for i := range n {
		delta := int64(r.IntN(5000))
		maxDelta = max(maxDelta, delta)
		rec = rec[:0]
		rec = append(rec, 0) // attributes
		rec = wire.AppendVarlong(rec, delta)
		rec = wire.AppendVarint(rec, int32(i))
		rec = appendVarBytes(rec, r, maxBytes, true, false) // key
		rec = appendVarBytes(rec, r, maxBytes, true, false) // value
		h := r.IntN(3)
		rec = wire.AppendVarint(rec, int32(h))
		for range h {
			rec = appendVarBytes(rec, r, maxBytes, false, true)
			rec = appendVarBytes(rec, r, maxBytes, true, false)
		}
		dst = wire.AppendVarint(dst, int32(len(rec)))
		dst = append(dst, rec...)
	}
	b := dst[start:]
	binary.BigEndian.PutUint64(b[maxTsAt-start:], uint64(baseTs+maxDelta))
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
	binary.BigEndian.PutUint32(b[17:], codec.CRC32C(b[21:]))
	return dst
}

// appendVarBytes appends a varint length and contents: null (-1)
// sometimes when nullable, else empty, random bytes or, when text is set,
// printable ASCII (record header keys are strings and never null).
func appendVarBytes(dst []byte, r *rand.Rand, maxBytes int, nullable, text bool) []byte {
	if nullable && r.IntN(4) == 0 {
		return wire.AppendVarint(dst, -1)
	}
	n := r.IntN(maxBytes + 1)
	dst = wire.AppendVarint(dst, int32(n))
	for range n {
		if text {
			dst = append(dst, byte(asciiRunes[r.IntN(len(asciiRunes))]))
		} else {
			dst = append(dst, byte(r.Uint32()))
		}
	}
	return dst
}
