package codec

import (
	"encoding/hex"
	"fmt"
	"math"
	"strings"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// Builder builds a value tree of a message in Go, for Encode, EncodeBody
// or EncodeRecord, without writing JSON:
//
//	b := codec.NewBuilder(s.Request(52), 2). // VoteRequest v2
//		Set("ClusterId", "kw").
//		Set("Topics[0].TopicName", "__cluster_metadata").
//		Set("Topics[0].Partitions[0].LastOffset", 120)
//	body, err := b.Tree()
//
// Paths are in the dotted notation of the JSON view and Tree.Get, from the
// message's fields (the message's name may come first:
// "VoteRequest.Topics[0]"). A field that is not set is left out of the
// tree and takes its spec default when encoding, as a tagged field left
// out of Kafka's JSON does (FromJSON); so a value built here and the same
// value read from JSON with the defaults written out encode to the same
// bytes. An array is as long as the highest index set plus one, and its
// elements are set in order (index n may be set once 0…n-1 are): an
// element not otherwise set holds its struct's defaults.
//
// Values are Go values of the field's type: bool; any Go integer type for
// int8…int64, uint16, uint32 (range-checked, never wrapped); float64 or
// float32; string; []byte for bytes and records; [16]byte or a string of
// 8-4-4-4-12 hex digits for a uuid; nil for null (a nullable string,
// bytes, records, array or struct).
//
// Set keeps the first error and ignores what follows it; Tree and Err
// return it: a *tree.PathError naming the path and what was wrong (a
// field the struct does not have, with the closest names; a field not in
// the version; an index past the end; a value of the wrong type, out of
// range, or null where the field is not nullable).
type Builder struct {
	m    *spec.Message
	v    int16
	root *bval
	err  error
}

// bval is one value being built: a field's or element's scalar, struct
// fields (by spec position) or array elements.
type bval struct {
	null   bool
	num    int64
	data   []byte
	fields []*bval
	elems  []*bval
}

// NewBuilder returns a Builder of a value of message m (a request,
// response, header or record) at version v.
func NewBuilder(m *spec.Message, v int16) *Builder {
	b := &Builder{m: m, v: v, root: &bval{}}
	if !m.ValidVersions.Contains(v) {
		b.err = &VersionError{Message: m.Name, Version: v, Valid: m.ValidVersions}
	}
	return b
}

// Err returns the first error of the Sets so far, or nil.
func (b *Builder) Err() error { return b.err }

// Set sets the value at path (see Builder) and returns b, for chaining.
func (b *Builder) Set(path string, value any) *Builder {
	if b.err != nil {
		return b
	}
	p, err := tree.ParsePath(path)
	if err != nil {
		b.err = err
		return b
	}
	if len(p) > 1 && !p[0].IsIndex() && p[0].Name == b.m.Name {
		p = p[1:]
	}
	b.err = b.set(p, value)
	return b
}

// set walks p from the root struct, creating what is missing, and sets
// the value at its end.
func (b *Builder) set(p tree.Path, value any) error {
	done := tree.Path{tree.Name(b.m.Name)}
	fail := func(r tree.ErrorReason, format string, args ...any) error {
		return &tree.PathError{Path: done.String(), Reason: r, Msg: fmt.Sprintf(format, args...)}
	}
	cur, st := b.root, b.m.Root
	var f *spec.Field // the field cur is, nil for the root and struct elements
	elem := false     // cur is an array element
	for _, s := range p {
		done = append(done, s)
		if s.IsIndex() {
			if f == nil || f.Type.Kind != spec.KindArray || elem {
				return fail(tree.WrongKind, "not an array: an index applies to an array field")
			}
			n := len(cur.elems)
			if int(s.Index) > n {
				return fail(tree.IndexOutOfRange, "index %d out of range: %s has %d element(s) so far; set the elements in order", s.Index, f.Name, n)
			}
			cur.null = false
			if int(s.Index) == n {
				cur.elems = append(cur.elems, &bval{})
			}
			cur, elem = cur.elems[s.Index], true
			if f.Type.Elem == spec.KindStruct {
				st = f.Type.Struct
			} else {
				st = nil
			}
			continue
		}
		if st == nil || f != nil && !elem && f.Type.Kind != spec.KindStruct {
			return fail(tree.WrongKind, "not a struct: a name applies to a struct's field")
		}
		var next *spec.Field
		pos := -1
		names := make([]string, 0, len(st.Fields))
		for i, sf := range st.Fields {
			names = append(names, sf.Name)
			if sf.Name == s.Name {
				next, pos = sf, i
			}
		}
		if next == nil {
			msg := "no such field in " + st.Name
			if sg := spec.Suggest(s.Name, names); sg != "" {
				msg += fmt.Sprintf("; did you mean %q?", sg)
			}
			return fail(tree.NoSuchField, "%s", msg)
		}
		if !next.Versions.Contains(b.v) {
			return fail(tree.NoSuchField, "the field is not in version %d of %s (versions %s)", b.v, b.m.Name, next.Versions)
		}
		cur.null = false
		if cur.fields == nil {
			cur.fields = make([]*bval, len(st.Fields))
		}
		if cur.fields[pos] == nil {
			cur.fields[pos] = &bval{}
		}
		cur, f, elem = cur.fields[pos], next, false
		st = next.Type.Struct
		if next.Type.Kind == spec.KindArray && next.Type.Elem != spec.KindStruct {
			st = nil
		}
	}
	if f == nil {
		return fail(tree.WrongKind, "the message is set field by field")
	}
	kind := f.Type.Kind
	if elem {
		kind = f.Type.Elem
	}
	if value == nil {
		if elem {
			return fail(tree.WrongKind, "null, but array elements cannot be null")
		}
		if kind == spec.KindStruct || kind == spec.KindArray || kind.CanBeNullable() {
			if !f.NullableIn(b.v) {
				return fail(tree.WrongKind, "null, but the field is not nullable in version %d", b.v)
			}
			*cur = bval{null: true}
			return nil
		}
		return fail(tree.WrongKind, "null, but a %s cannot be null", kind)
	}
	num, data, msg := goValue(kind, value)
	if msg != "" {
		return fail(tree.WrongKind, "%s", msg)
	}
	*cur = bval{num: num, data: data}
	return nil
}

// goValue converts Go value x to a leaf of kind k: its number and
// contents, or a message saying why it does not fit.
func goValue(k spec.Kind, x any) (int64, []byte, string) {
	bad := fmt.Sprintf("a %T does not fit %s", x, withArticle(k.String()))
	switch k {
	case spec.KindBool:
		if v, ok := x.(bool); ok {
			if v {
				return 1, nil, ""
			}
			return 0, nil, ""
		}
	case spec.KindInt8, spec.KindInt16, spec.KindUint16, spec.KindInt32, spec.KindUint32, spec.KindInt64:
		n, ok, over := goInt(x)
		if !ok {
			break
		}
		lo, hi := intRange(k)
		if over || n < lo || n > hi {
			return 0, nil, fmt.Sprintf("value %v is out of range for %s (%d..%d)", x, k, lo, hi)
		}
		return n, nil, ""
	case spec.KindFloat64:
		switch v := x.(type) {
		case float64:
			return int64(math.Float64bits(v)), nil, ""
		case float32:
			return int64(math.Float64bits(float64(v))), nil, ""
		}
	case spec.KindUUID:
		switch v := x.(type) {
		case [16]byte:
			return 0, v[:], ""
		case string:
			u, err := hex.DecodeString(strings.ReplaceAll(v, "-", ""))
			if err != nil || len(u) != 16 || len(v) != 36 || v[8] != '-' || v[13] != '-' || v[18] != '-' || v[23] != '-' {
				return 0, nil, fmt.Sprintf("%q is not a uuid of 8-4-4-4-12 hex digits", v)
			}
			return 0, u, ""
		}
	case spec.KindString:
		if v, ok := x.(string); ok {
			if len(v) > maxString {
				return 0, nil, fmt.Sprintf("string of %d bytes is longer than Kafka's limit of %d", len(v), maxString)
			}
			return 0, []byte(v), ""
		}
	case spec.KindBytes, spec.KindRecords:
		if v, ok := x.([]byte); ok {
			return 0, append([]byte{}, v...), ""
		}
	case spec.KindStruct, spec.KindArray:
		bad = fmt.Sprintf("%s is set field by field or element by element (only nil, for null, is set whole)", withArticle(k.String()))
	}
	return 0, nil, bad
}

// goInt converts a Go integer to int64; over is set for a uint64 above
// the int64 range.
func goInt(x any) (n int64, ok, over bool) {
	switch v := x.(type) {
	case int:
		return int64(v), true, false
	case int8:
		return int64(v), true, false
	case int16:
		return int64(v), true, false
	case int32:
		return int64(v), true, false
	case int64:
		return v, true, false
	case uint:
		return int64(v), true, uint64(v) > math.MaxInt64
	case uint8:
		return int64(v), true, false
	case uint16:
		return int64(v), true, false
	case uint32:
		return int64(v), true, false
	case uint64:
		return int64(v), true, v > math.MaxInt64
	}
	return 0, false, false
}

// Tree returns the value tree built so far (root: the message's Body, or
// Header for a header spec; fields in spec order), or the first error.
func (b *Builder) Tree() (*tree.Tree, error) {
	if b.err != nil {
		return nil, b.err
	}
	t := &tree.Tree{Message: b.m, Version: b.v, HeaderVersion: -1}
	tb := tree.Builder{T: t}
	kind := tree.Body
	if b.m.Type == spec.Header {
		kind = tree.Header
	}
	tb.Open(tree.Node{S: partShape(kind, b.m.Root, b.m, b.v)})
	writeFields(&tb, b.m.Root, b.root)
	tb.Close(0)
	return t, nil
}

// writeFields appends the fields of struct st that bv sets, in spec order.
func writeFields(tb *tree.Builder, st *spec.Struct, bv *bval) {
	for i, x := range bv.fields {
		if x == nil {
			continue
		}
		f := st.Fields[i]
		ref := tree.FieldRef(f)
		switch f.Type.Kind {
		case spec.KindStruct:
			if x.null {
				tb.Leaf(tree.Node{S: tree.NewShape(tree.Struct, tree.WireNone, ref, 0).With(tree.FlagNull)})
				continue
			}
			tb.Open(tree.Node{S: tree.NewShape(tree.Struct, tree.WireNone, ref, 0)})
			writeFields(tb, f.Type.Struct, x)
			tb.Close(0)
		case spec.KindArray:
			if x.null {
				tb.Leaf(tree.Node{S: tree.NewShape(tree.Array, tree.WireNone, ref, 0).With(tree.FlagNull)})
				continue
			}
			tb.Open(tree.Node{S: tree.NewShape(tree.Array, tree.WireNone, ref, 0)})
			for _, e := range x.elems {
				if f.Type.Elem == spec.KindStruct {
					tb.Open(tree.Node{S: tree.NewShape(tree.Element, tree.WireNone, tree.StructRef(f.Type.Struct), 0)})
					writeFields(tb, f.Type.Struct, e)
					tb.Close(0)
					continue
				}
				valueLeaf(tb, tree.Node{S: shapeValueElement}, f.Type.Elem, e.num, e.data)
			}
			tb.Close(0)
		case spec.KindRecords:
			tb.LeafData(tree.Node{S: tree.NewShape(tree.Records, tree.WireNone, ref, 0).With(tree.NullIf(x.null))}, x.data)
		default:
			valueLeaf(tb, tree.Node{S: tree.NewShape(tree.Field, tree.WireNone, ref, 0).With(tree.NullIf(x.null))}, f.Type.Kind, x.num, x.data)
		}
	}
}

// withArticle puts "a" or "an" before a type name ("an int32").
func withArticle(s string) string {
	if s != "" && strings.IndexByte("aeiou", s[0]) >= 0 {
		return "an " + s
	}
	return "a " + s
}

// shapeValueElement is the shape of a scalar array element of a value
// tree.
var shapeValueElement = tree.NewShape(tree.Element, tree.WireNone, 0, 0)

// valueLeaf appends value leaf n of kind k holding num (a bool, an
// integer, float64 bits) or data (a string's, bytes' or records'
// contents, a uuid), as package tree keeps a value tree's leaves.
func valueLeaf(b *tree.Builder, n tree.Node, k spec.Kind, num int64, data []byte) {
	switch k {
	case spec.KindBool, spec.KindInt8, spec.KindInt16, spec.KindUint16, spec.KindInt32, spec.KindUint32, spec.KindInt64, spec.KindFloat64:
		b.LeafNum(n, num)
	default:
		b.LeafData(n, data)
	}
}
