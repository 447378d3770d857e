package tree

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"

	"github.com/kwire/kwire/spec"
)

// Value is one value of a tree, found by its path (Tree.Get) or by
// navigating (Field, Elem) from another: a message part (frame, header,
// body), a struct, an array or one of its elements, a field, records, or
// a record batch and its fields. It works on decoded span trees and on
// value trees (FromJSON's, a codec Builder's) alike.
//
// A Value carries the first error met on the way to it: Field and Elem of
// a Value with an error return it again, the getters (Int, String…)
// return the zero value, and Err and the As* getters return the error, a
// *PathError naming the path and what was wrong. So a chain of steps
// needs one check at its end:
//
//	n, err := t.Root().Field("VoteRequest").Field("Topics").Elem(0).Field("ClusterId").AsString()
//
// The zero Value is an error ("no value").
type Value struct {
	t *Tree
	i int32
	// arr is the array node of an element, else -1: a scalar element's
	// type is its array's element type.
	arr int32
	err error
}

// Root returns the tree's root: for a decoded frame the message (whose
// parts are named as in the JSON view: Frame, the header's struct name,
// the message name), for a value tree its root struct.
func (t *Tree) Root() Value {
	if t == nil || len(t.Nodes) == 0 {
		return Value{t: t, i: -1, arr: -1, err: &PathError{Reason: WrongKind, Msg: errNoTree.Error()}}
	}
	return Value{t: t, i: 0, arr: -1}
}

// At returns the value of node i, for callers that walk the arena
// (nodes of every kind are accepted; the getters say when a node holds
// no value of the kind asked for).
func (t *Tree) At(i int32) Value {
	if t == nil || i < 0 || int(i) >= len(t.Nodes) {
		return Value{t: t, i: -1, arr: -1, err: &PathError{Reason: IndexOutOfRange, Msg: fmt.Sprintf("node %d is not in the tree", i)}}
	}
	v := Value{t: t, i: i, arr: -1}
	if t.Nodes[i].Kind() == Element {
		v.arr = t.parentOf(i)
	}
	return v
}

// Get returns the value at path, in the dotted notation of the JSON
// view's "path" (see Path):
//
//	VoteRequest.Topics[0].Partitions[0].LastOffset   a body field
//	RequestHeader.CorrelationId                      a header field
//	Frame.size                                       the size prefix
//	FetchResponse.Responses[0].Partitions[0].Records[1].baseOffset
//	                                                 the second record batch's base offset
//
// The first step names a part of a decoded frame: "Frame", the header
// (RequestHeader, ResponseHeader) or the body (the message's name); the
// body's fields may also be named without it. In a value tree the first
// step may name the root (the message's name) or one of its fields.
// Tagged fields are named like the others, without the tag section.
//
// Errors (*PathError) name the path up to the step that failed and say
// why: a syntax error (BadPath), a name that is not a field there, with
// the closest names (NoSuchField), an index past the last element, with
// the number of elements (IndexOutOfRange), an index into a value that
// is not an array or a name into one that is not a struct (WrongKind).
func (t *Tree) Get(path string) (Value, error) {
	p, err := ParsePath(path)
	if err != nil {
		return Value{t: t, i: -1, arr: -1, err: err}, err
	}
	v := t.Root()
	if v.err != nil {
		return v, v.err
	}
	k := 0
	switch n := &t.Nodes[0]; {
	case n.Kind() == Message && v.partOf(p[0].Name) < 0 && !p[0].IsIndex():
		// A body field without the message name.
		if b := t.Find(0, Body); b >= 0 {
			v.i = b
		}
	case n.Kind() != Message && !p[0].IsIndex() && p[0].Name == v.name() && len(p) > 1:
		k = 1
	}
	for ; k < len(p); k++ {
		s := p[k]
		if s.IsIndex() {
			v = v.elem(int(s.Index), givenPath(p[:k+1]))
		} else if k+1 < len(p) && p[k+1].IsIndex() && v.indexedNames() {
			// "Record[2]", "headerKey[1]": a name repeated with an index.
			v = v.indexed(s.Name, p[k+1].Index, givenPath(p[:k+2]))
			k++
		} else {
			v = v.field(s.Name, givenPath(p[:k+1]))
		}
		if v.err != nil {
			return v, v.err
		}
	}
	return v, nil
}

// Err returns the error met on the way to v, or nil.
func (v Value) Err() error { return v.err }

// Tree returns the tree v is in.
func (v Value) Tree() *Tree { return v.t }

// Node returns v's node index in Tree().Nodes, or -1 for a Value with an
// error.
func (v Value) Node() int32 {
	if v.err != nil {
		return -1
	}
	return v.i
}

// Path returns v's path in the dotted notation, as the JSON view's "path"
// names it (it walks the tree from the root: use it for messages, not
// per value of a large walk).
func (v Value) Path() string {
	if v.err != nil || v.t == nil {
		return ""
	}
	return v.t.PathOf(v.i).String()
}

// Kind returns the kind of v's node (Field, Struct, Array, Element…);
// KindInvalid for a Value with an error.
func (v Value) Kind() Kind {
	if v.err != nil {
		return KindInvalid
	}
	return v.t.Nodes[v.i].Kind()
}

// Spec returns v's spec field (nil for message parts, elements and
// synthetic nodes).
func (v Value) Spec() *spec.Field {
	if v.err != nil {
		return nil
	}
	return v.t.Field(v.i)
}

// Field returns the field of struct v named name: a spec field name
// (tagged fields included) for a header, body, struct or struct element;
// a part's name for a decoded message (see Get); a synthetic name
// ("size", "baseOffset") for a frame, record batch or record. Its cost is
// that of v's children: the error's path (a walk from the root) is
// computed only when the step fails.
func (v Value) Field(name string) Value {
	if v.err != nil {
		return v
	}
	return v.field(name, stepPath(v.i, Name(name)))
}

// Elem returns element i of array v (the i-th record batch of records v),
// at the cost of the i children before it (the error's path is computed
// only when the step fails).
func (v Value) Elem(i int) Value {
	if v.err != nil {
		return v
	}
	return v.elem(i, stepPath(v.i, Index(i)))
}

// Len returns the number of elements of array v (0 when null), the number
// of record batches of records v in a span tree, the length of string or
// bytes v; 0 for other values and for a Value with an error.
func (v Value) Len() int {
	if v.err != nil {
		return 0
	}
	n := &v.t.Nodes[v.i]
	switch {
	case n.Null():
		return 0
	case n.Kind() == Array:
		k := 0
		v.t.Elements(v.i, func(int32) bool { k++; return true })
		return k
	case n.Kind() == Records && !v.t.IsLeaf(v.i):
		return v.t.count(v.i, RecordBatch)
	}
	switch v.kind() {
	case spec.KindString, spec.KindBytes, spec.KindRecords:
		return len(v.t.Data(v.i))
	}
	return 0
}

// IsNull reports whether v is null (a null string, bytes, array, struct
// or records); false for a Value with an error.
func (v Value) IsNull() bool { return v.err == nil && v.t.Nodes[v.i].Null() }

// Int returns integer v (int8…int64, uint16, uint32, varints, lengths);
// 0 when v is not an integer or has an error (see AsInt).
func (v Value) Int() int64 { n, _ := v.AsInt(); return n }

// AsInt is Int with the error: v's own, or a WrongKind *PathError when v
// is not an integer.
func (v Value) AsInt() (int64, error) {
	if v.err != nil {
		return 0, v.err
	}
	switch v.kind() {
	case spec.KindInt8, spec.KindInt16, spec.KindUint16, spec.KindInt32, spec.KindUint32, spec.KindInt64:
		return v.t.Num(v.i), nil
	}
	return 0, v.wrongKind("an integer")
}

// Uint returns integer v as a uint64; 0 when v is not an integer, is
// negative or has an error (see AsUint).
func (v Value) Uint() uint64 { n, _ := v.AsUint(); return n }

// AsUint is Uint with the error (a WrongKind *PathError for a negative
// value too).
func (v Value) AsUint() (uint64, error) {
	n, err := v.AsInt()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, &PathError{Path: v.Path(), Reason: WrongKind, Msg: fmt.Sprintf("%d is negative, not an unsigned integer", n)}
	}
	return uint64(n), nil
}

// Bool returns bool v; false when v is not a bool or has an error (see
// AsBool).
func (v Value) Bool() bool { b, _ := v.AsBool(); return b }

// AsBool is Bool with the error.
func (v Value) AsBool() (bool, error) {
	if v.err != nil {
		return false, v.err
	}
	if v.kind() != spec.KindBool {
		return false, v.wrongKind("a bool")
	}
	return v.t.Num(v.i) != 0, nil
}

// Float returns float64 v; 0 when v is not a float64 or has an error (see
// AsFloat).
func (v Value) Float() float64 { f, _ := v.AsFloat(); return f }

// AsFloat is Float with the error.
func (v Value) AsFloat() (float64, error) {
	if v.err != nil {
		return 0, v.err
	}
	if v.kind() != spec.KindFloat64 {
		return 0, v.wrongKind("a float64")
	}
	return math.Float64frombits(uint64(v.t.Num(v.i))), nil
}

// String returns string v's contents ("" when null). For other values it
// returns a text form of the value, so that a Value prints well: an
// integer in decimal, a bool as true or false, a float64 as Go formats
// it, a uuid as 8-4-4-4-12 hex digits, bytes and records in hex, null as
// "null", a struct or array as "<kind>", a Value with an error as
// "<error: …>". AsString accepts strings only.
func (v Value) String() string {
	if v.err != nil {
		return "<error: " + v.err.Error() + ">"
	}
	n := &v.t.Nodes[v.i]
	if n.Null() {
		return "null"
	}
	switch v.kind() {
	case spec.KindString:
		return string(v.t.Data(v.i))
	case spec.KindBool:
		return strconv.FormatBool(v.t.Num(v.i) != 0)
	case spec.KindInt8, spec.KindInt16, spec.KindUint16, spec.KindInt32, spec.KindUint32, spec.KindInt64:
		return strconv.FormatInt(v.t.Num(v.i), 10)
	case spec.KindFloat64:
		return strconv.FormatFloat(math.Float64frombits(uint64(v.t.Num(v.i))), 'g', -1, 64)
	case spec.KindUUID:
		u := v.UUID()
		h := hex.EncodeToString(u[:])
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	case spec.KindBytes, spec.KindRecords:
		return hex.EncodeToString(v.t.Data(v.i))
	}
	return "<" + n.Kind().String() + ">"
}

// AsString returns string v's contents ("" when null), or the error: v's
// own, or a WrongKind *PathError when v is not a string.
func (v Value) AsString() (string, error) {
	if v.err != nil {
		return "", v.err
	}
	if v.kind() != spec.KindString {
		return "", v.wrongKind("a string")
	}
	return string(v.t.Data(v.i)), nil
}

// Bytes returns the contents of bytes or records v (nil when null, or
// when v is not bytes or has an error; see AsBytes). The slice is the
// tree's memory: do not modify it.
func (v Value) Bytes() []byte { b, _ := v.AsBytes(); return b }

// AsBytes is Bytes with the error.
func (v Value) AsBytes() ([]byte, error) {
	if v.err != nil {
		return nil, v.err
	}
	switch v.kind() {
	case spec.KindBytes, spec.KindRecords:
		return v.t.Data(v.i), nil
	}
	return nil, v.wrongKind("bytes")
}

// UUID returns uuid v; the zero uuid when v is not a uuid or has an error
// (see AsUUID).
func (v Value) UUID() [16]byte { u, _ := v.AsUUID(); return u }

// AsUUID is UUID with the error.
func (v Value) AsUUID() ([16]byte, error) {
	var u [16]byte
	if v.err != nil {
		return u, v.err
	}
	if v.kind() != spec.KindUUID {
		return u, v.wrongKind("a uuid")
	}
	copy(u[:], v.t.Data(v.i))
	return u, nil
}

// wrongKind is the error of a getter that wanted a value of kind want.
func (v Value) wrongKind(want string) error {
	return &PathError{Path: v.Path(), Reason: WrongKind, Msg: "not " + want + ": it is " + v.describe()}
}

// describe names v's type for error messages: the spec type ("a string",
// "an array of TopicData"), else the node kind.
func (v Value) describe() string {
	n := &v.t.Nodes[v.i]
	var what string
	switch k := v.kind(); {
	case n.Kind() == Array:
		what = "an array"
		if f := v.t.Field(v.i); f != nil && f.Type.Name != "" {
			what += " of " + f.Type.Name
		}
	case k == spec.KindStruct || k == spec.KindInvalid && v.t.Struct(v.i) != nil:
		what = "a struct"
		if st := v.t.Struct(v.i); st != nil {
			what += " (" + st.Name + ")"
		}
	case k != spec.KindInvalid:
		what = article(k.String())
	default:
		what = "a " + n.Kind().String() + " node"
	}
	if n.Null() {
		what += " (null)"
	}
	return what
}

func article(s string) string {
	if s != "" && (s[0] == 'i' || s[0] == 'u' || s[0] == 'a' || s[0] == 'e' || s[0] == 'o') {
		return "an " + s
	}
	return "a " + s
}

// kind returns the spec kind of v's value: its field's type, its array's
// element type, else what its wire encoding holds.
func (v Value) kind() spec.Kind {
	t := v.t
	n := &t.Nodes[v.i]
	switch n.Kind() {
	case Struct:
		return spec.KindStruct
	case Array:
		return spec.KindArray
	case Records:
		return spec.KindRecords
	case Element:
		if t.Struct(v.i) != nil {
			return spec.KindStruct
		}
		if v.arr >= 0 {
			if f := t.Field(v.arr); f != nil {
				return f.Type.Elem
			}
		}
	case Field:
		if f := t.Field(v.i); f != nil {
			return f.Type.Kind
		}
	case Message, Frame, Header, Body, Embedded, TagSection, Tag, RecordBatch, Record, Decompressed:
		return spec.KindInvalid
	}
	return wireKind(n.Wire())
}

// wireKind is the spec kind a wire encoding holds.
func wireKind(w Wire) spec.Kind {
	switch w {
	case WireBool:
		return spec.KindBool
	case WireInt8:
		return spec.KindInt8
	case WireInt16:
		return spec.KindInt16
	case WireUint16:
		return spec.KindUint16
	case WireInt32:
		return spec.KindInt32
	case WireUint32:
		return spec.KindUint32
	case WireInt64, WireUvarint, WireVarint, WireVarlong:
		return spec.KindInt64
	case WireFloat64:
		return spec.KindFloat64
	case WireUUID:
		return spec.KindUUID
	case WireString, WireCompactString:
		return spec.KindString
	case WireBytes, WireCompactBytes, WireVarBytes, WireRaw:
		return spec.KindBytes
	}
	return spec.KindInvalid
}

// name is the name v's node goes by in a path's first step: a message
// part's name, or a value tree root's message or struct name.
func (v Value) name() string {
	t := v.t
	n := &t.Nodes[v.i]
	switch n.Kind() {
	case Frame:
		return "Frame"
	case Header:
		if st := t.Struct(v.i); st != nil {
			return st.Name
		}
		return "Header"
	case Body, Message:
		if t.Message != nil {
			return t.Message.Name
		}
		if st := t.Struct(v.i); st != nil {
			return st.Name
		}
	}
	if s := t.Name(v.i); s != "" {
		return s
	}
	if f := t.Field(v.i); f != nil {
		return f.Name
	}
	return ""
}

// partOf returns the child of message root v named name (Frame, the
// header's struct name, the message name), or -1.
func (v Value) partOf(name string) int32 {
	r := int32(-1)
	v.t.Children(v.i, func(c int32) bool {
		switch v.t.Nodes[c].Kind() {
		case Frame, Header, Body:
			if (Value{t: v.t, i: c}).name() == name {
				r = c
				return false
			}
		}
		return true
	})
	return r
}

// structLike reports whether node i's field children are its fields.
func (t *Tree) structLike(i int32) bool {
	switch t.Nodes[i].Kind() {
	case Header, Body, Struct, Embedded:
		return true
	case Element:
		return t.Struct(i) != nil
	}
	return false
}

// errPath is the path of a step's result, for its errors only: a path
// given whole (Get's), or a node's path plus one step (Field's, Elem's),
// which walks the tree from the root and so is computed only when the
// step fails; a walk of n values thus costs n steps, not n times the
// nodes before each.
type errPath struct {
	given Path
	node  int32 // the node stepped from, when lazy
	step  Step
	lazy  bool
}

func givenPath(p Path) errPath { return errPath{given: p} }

func stepPath(node int32, s Step) errPath { return errPath{node: node, step: s, lazy: true} }

// path returns the path, walking t for a lazy one.
func (e errPath) path(t *Tree) Path {
	if !e.lazy {
		return e.given
	}
	return append(t.PathOf(e.node), e.step)
}

// parent returns the path of the step's source, for an error one step up.
func (e errPath) parent(t *Tree) errPath {
	p := e.path(t)
	return givenPath(p[:len(p)-1])
}

// field is v.Field(name) with p the path of the result, for errors.
func (v Value) field(name string, p errPath) Value {
	t := v.t
	n := &t.Nodes[v.i]
	// names gathers the names v has, for a NoSuchField error's suggestion
	// (only when the lookup fails: a found field allocates nothing).
	var names func() []string
	found := int32(-1)
	switch {
	case n.Kind() == Message:
		found = v.partOf(name)
		names = func() (out []string) {
			t.Children(v.i, func(c int32) bool {
				if k := t.Nodes[c].Kind(); k == Frame || k == Header || k == Body {
					out = append(out, (Value{t: t, i: c}).name())
				}
				return true
			})
			return out
		}
	case t.structLike(v.i):
		if n.Null() {
			return v.fail(p, WrongKind, "a null "+v.describe()[2:]+" has no fields")
		}
		t.Fields(v.i, func(c int32) bool {
			if f := t.Field(c); f != nil && t.Nodes[c].Kind() != UnknownTag && f.Name == name {
				found = c // a repeated tag: the last wins, as in Kafka's reader
			}
			return true
		})
		if found < 0 && t.Struct(v.i) != nil {
			// A field of the struct that this tree leaves out.
			for _, f := range t.Struct(v.i).Fields {
				if f.Name == name {
					return v.fail(p, NoSuchField, "the field is not in this value (a field of another version, or a tagged field left at its default)")
				}
			}
		}
		names = func() (out []string) {
			t.Fields(v.i, func(c int32) bool {
				if f := t.Field(c); f != nil && t.Nodes[c].Kind() != UnknownTag {
					out = append(out, f.Name)
				}
				return true
			})
			return out
		}
	case n.Kind() == Frame || n.Kind() == RecordBatch || n.Kind() == Record || n.Kind() == Decompressed:
		t.Children(v.i, func(c int32) bool {
			if s := t.Name(c); s != "" && s == name {
				found = c
				return false
			}
			return true
		})
		names = func() (out []string) {
			t.Children(v.i, func(c int32) bool {
				if s := t.Name(c); s != "" {
					out = append(out, s)
				}
				return true
			})
			return out
		}
	default:
		return v.fail(p, WrongKind, "not a struct: "+v.describeAt()+" has no fields")
	}
	if found < 0 {
		msg := "no such field in " + v.describeAt()
		if s := spec.Suggest(name, names()); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return v.fail(p, NoSuchField, msg)
	}
	return v.child(found)
}

// child returns the value of node c, a child of v's node (At without its
// walk from the root to find an element's array).
func (v Value) child(c int32) Value {
	r := Value{t: v.t, i: c, arr: -1}
	if v.t.Nodes[c].Kind() == Element {
		r.arr = v.i
	}
	return r
}

// describeAt names v for an error about a step below it: its name and
// what it is ("Topics[0] (a struct (TopicData))").
func (v Value) describeAt() string {
	p := v.t.PathOf(v.i)
	if len(p) == 0 {
		return v.describe()
	}
	last := p[len(p)-1:]
	if last[0].IsIndex() && len(p) > 1 {
		last = p[len(p)-2:]
	}
	return last.String() + " (" + v.describe() + ")"
}

// elem is v.Elem(i) with p the path of the result, for errors.
func (v Value) elem(i int, p errPath) Value {
	t := v.t
	n := &t.Nodes[v.i]
	want := Element
	switch n.Kind() {
	case Array:
	case Records:
		want = RecordBatch
	default:
		return v.fail(p, WrongKind, "not an array: "+v.describeAt()+" has no elements")
	}
	// The children of kind want, counted up to the i-th (all of them when
	// i is out of range, for the error).
	found, k := int32(-1), 0
	for c := v.i + 1; c < n.End; c = t.Nodes[c].End {
		if t.Nodes[c].Kind() != want {
			continue
		}
		if k == i {
			found = c
			break
		}
		k++
	}
	if found < 0 {
		what, unit := v.describeAt(), "element"
		if n.Kind() == Records {
			unit = "record batch"
		}
		if k != 1 {
			unit += "s"
		}
		return v.fail(p, IndexOutOfRange, fmt.Sprintf("index %d out of range: %s has %d %s", i, what, k, unit))
	}
	// v is the element's parent: no walk from the root to find it (At's).
	e := Value{t: t, i: found, arr: -1}
	if n.Kind() == Array {
		e.arr = v.i
	}
	return e
}

// indexedNames reports whether v's children include names repeated with
// an index (a batch's Record[i], a record's headerKey[i]).
func (v Value) indexedNames() bool {
	switch v.t.Nodes[v.i].Kind() {
	case RecordBatch, Record, Decompressed:
		return true
	}
	return false
}

// indexed returns the child of v named name with index idx ("Record[2]").
func (v Value) indexed(name string, idx int32, p errPath) Value {
	t := v.t
	found, n := int32(-1), 0
	if name == "Record" {
		n = int(t.RecordBase(v.i)) // a part's first batch counts on from an earlier part's
	}
	base := n
	t.Children(v.i, func(c int32) bool {
		nd := t.Nodes[c]
		if t.Name(c) == name || nd.Kind() == Record && name == "Record" && t.Name(c) == "" {
			if int32(n) == idx {
				found = c
			}
			n++
		}
		return found < 0
	})
	n -= base
	if found < 0 {
		if n == 0 {
			return v.field(name, p.parent(v.t))
		}
		return v.fail(p, IndexOutOfRange, fmt.Sprintf("index %d out of range: %s has %d", idx, v.describeAt(), n))
	}
	return v.child(found)
}

func (v Value) fail(p errPath, r ErrorReason, msg string) Value {
	return Value{t: v.t, i: -1, arr: -1, err: &PathError{Path: p.path(v.t).String(), Reason: r, Msg: msg}}
}

// parentOf returns node i's parent, or -1 for the root.
func (t *Tree) parentOf(i int32) int32 {
	p := int32(-1)
	for k := int32(0); k < i; {
		if t.Nodes[k].End > i {
			p = k
			k++
			continue
		}
		k = t.Nodes[k].End
	}
	return p
}

// count returns the number of direct children of node i of kind k.
func (t *Tree) count(i int32, k Kind) int {
	c := 0
	t.Children(i, func(x int32) bool {
		if t.Nodes[x].Kind() == k {
			c++
		}
		return true
	})
	return c
}

// PathOf returns node i's path as the JSON view's "path" shows it for the
// nodes a Value reaches (message parts, fields, structs, arrays and their
// elements, records and record batches, frame and batch fields):
// "VoteRequest.Topics[0].PreVote", "RequestHeader.ClientId", "Frame.size";
// a tagged field's path is its struct's plus its name. It walks down from
// the root (a cost of the node's depth times the siblings passed).
func (t *Tree) PathOf(i int32) Path {
	if t == nil || i < 0 || int(i) >= len(t.Nodes) || i == 0 && t.Nodes[0].Kind() == Message {
		return nil
	}
	var p Path
	k := int32(0)
	if t.Nodes[0].Kind() != Message {
		// A value tree: its root is named by its message or struct.
		p = append(p, Name((Value{t: t, i: 0}).name()))
	}
	for k != i {
		// The children passed on the way count the index of the next:
		// batches, elements, records, and header keys and values.
		batch, elem, rec, hk, hv := 0, 0, 0, 0, 0
		next := int32(-1)
		for c := k + 1; c < t.Nodes[k].End; c = t.Nodes[c].End {
			if c <= i && i < t.Nodes[c].End {
				next = c
				break
			}
			switch t.Nodes[c].Kind() {
			case RecordBatch:
				batch++
			case Element:
				elem++
			case Record:
				rec++
			case BatchField:
				switch t.Name(c) {
				case "headerKey":
					hk++
				case "headerValue":
					hv++
				}
			}
		}
		if next < 0 {
			return p
		}
		parent := k
		k = next
		n := t.Nodes[k]
		switch n.Kind() {
		case Frame, Header, Body:
			p = append(p, Name((Value{t: t, i: k}).name()))
		case Field, Struct, Array, Records:
			if f := t.Field(k); f != nil {
				p = append(p, Name(f.Name))
			} else {
				p = append(p, Name(n.Kind().String()))
			}
		case Element:
			p = append(p, Index(elem))
		case RecordBatch:
			p = append(p, Index(batch))
		case TagSection, Tag:
			// A tagged field's path is its struct's plus its name.
			if k == i {
				if n.Kind() == TagSection {
					p = append(p, Name("_tagged_fields"))
				} else {
					p = append(p, Name("tag"+strconv.FormatInt(t.Num(k), 10)))
				}
			}
		case UnknownTag:
			p = append(p, Name("tag"+strconv.FormatInt(t.Num(k), 10)))
		case Record:
			p = append(p, Name("Record"), Index(rec+int(t.RecordBase(parent))))
		default:
			name := t.Name(k)
			if name == "" {
				name = n.Kind().String()
			}
			p = append(p, Name(name))
			if n.Kind() == BatchField && name == "headerKey" {
				p = append(p, Index(hk))
			} else if n.Kind() == BatchField && name == "headerValue" {
				p = append(p, Index(hv))
			}
		}
	}
	return p
}

// The Set methods edit a value in place, for re-encoding a tree that was
// decoded (its header and body as Sub trees, edited, then encoded again, as
// the proxy rewrites broker addresses). The node becomes a value leaf
// (FlagValue) whose Off and Size locate its new value in Bytes, not the
// bytes it was decoded from: edit the Sub trees that are encoded, not the
// span tree that is shown.
// Each returns the error of v, or a WrongKind *PathError when the value
// does not fit v's type.

// SetInt sets integer v to n, which must be in the range of v's type.
func (v Value) SetInt(n int64) error {
	if v.err != nil {
		return v.err
	}
	var lo, hi int64
	switch k := v.kind(); k {
	case spec.KindInt8:
		lo, hi = math.MinInt8, math.MaxInt8
	case spec.KindInt16:
		lo, hi = math.MinInt16, math.MaxInt16
	case spec.KindUint16:
		lo, hi = 0, math.MaxUint16
	case spec.KindInt32:
		lo, hi = math.MinInt32, math.MaxInt32
	case spec.KindUint32:
		lo, hi = 0, math.MaxUint32
	case spec.KindInt64:
		lo, hi = math.MinInt64, math.MaxInt64
	default:
		return v.wrongKind("an integer")
	}
	if n < lo || n > hi {
		return &PathError{Path: v.Path(), Reason: WrongKind, Msg: fmt.Sprintf("value %d is out of range for %s (%d..%d)", n, v.kind(), lo, hi)}
	}
	v.setNum(n)
	return nil
}

// SetBool sets bool v to b.
func (v Value) SetBool(b bool) error {
	if v.err != nil {
		return v.err
	}
	if v.kind() != spec.KindBool {
		return v.wrongKind("a bool")
	}
	if b {
		v.setNum(1)
	} else {
		v.setNum(0)
	}
	return nil
}

// SetString sets string v to s (not null). s is appended to the tree's
// Bytes, which are copied first, once per tree (Bytes may be a decoded
// frame, or shared between the Sub trees of one decoded tree: neither is
// changed).
func (v Value) SetString(s string) error {
	if v.err != nil {
		return v.err
	}
	if v.kind() != spec.KindString {
		return v.wrongKind("a string")
	}
	v.setData([]byte(s))
	return nil
}

// SetBytes sets bytes or records v to b (not null), as SetString does.
func (v Value) SetBytes(b []byte) error {
	if v.err != nil {
		return v.err
	}
	switch v.kind() {
	case spec.KindBytes, spec.KindRecords:
	default:
		return v.wrongKind("bytes")
	}
	v.setData(b)
	return nil
}

// setNum makes v's node a value leaf holding n (FlagNum).
func (v Value) setNum(n int64) {
	nd := &v.t.Nodes[v.i]
	nd.Off, nd.Size = int32(n), int32(n>>32)
	nd.S = nd.S.With(FlagNum).Without(FlagNull | FlagValue)
}

// setData makes v's node a value leaf (FlagValue, not null) holding b,
// appended to the tree's Bytes (copied first, once per tree: see
// SetString).
func (v Value) setData(b []byte) {
	t := v.t
	if !t.ownBytes {
		t.Bytes = append(make([]byte, 0, len(t.Bytes)+len(b)), t.Bytes...)
		t.ownBytes = true
	}
	n := &t.Nodes[v.i]
	n.Off, n.Size = int32(len(t.Bytes)), int32(len(b))
	n.S = n.S.With(FlagValue).Without(FlagNull | FlagNum)
	t.Bytes = append(t.Bytes, b...)
}
