// Package instance builds message values to encode: the smallest legal
// instance of any message at any version (the rule of Smallest; its seed
// vectors are listed in docs/wire-cases.md), and seeded random valid
// instances (Random, RecordBatch) for round-trip tests, fuzzing and the
// oracle harness.
package instance

import (
	"encoding/binary"
	"slices"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// EmptyBatch is the empty RecordBatch v2 of the smallest instance: 61 bytes,
// every numeric field 0 except batchLength 49 and magic 2, and the CRC-32C
// of its 40 zero bytes from attributes to the end, 0x595fb7dd.
func EmptyBatch() []byte {
	b := make([]byte, 61)
	binary.BigEndian.PutUint32(b[8:], 49)
	b[16] = 2
	binary.BigEndian.PutUint32(b[17:], codec.CRC32C(b[21:]))
	return b
}

// Smallest returns the smallest legal instance of m's body at version v, as
// a value tree: numeric fields 0 (even where the default is -1), bool false,
// uuid zero, strings and bytes empty (never null), every array with exactly
// one (smallest) element, nullable structs present, records holding one
// EmptyBatch, tagged fields omitted, fields not in v absent.
func Smallest(m *spec.Message, v int16) *tree.Tree {
	t := &tree.Tree{Message: m, Version: v, HeaderVersion: -1, Sample: true}
	b := tree.Builder{T: t}
	b.Open(tree.Node{S: bodyShape(m, v)})
	structFields(&b, m.Root, v, m.Flexible(v), nil)
	b.Close(0)
	return t
}

// structFields appends the smallest value of every positional field of st.
// path holds the structs being built around st: a struct that contains
// itself (through an array or a nullable struct, legal in a spec) gets no
// element and null there instead of growing without end, so the instance
// stays small whatever the recursion (Kafka's own specs have none).
func structFields(b *tree.Builder, st *spec.Struct, v int16, flexible bool, path []*spec.Struct) {
	path = append(path, st)
	for _, f := range st.Fields {
		if !f.Versions.Contains(v) || (flexible && f.TaggedIn(v)) {
			continue
		}
		recursive := f.Type.Struct != nil && slices.Contains(path, f.Type.Struct)
		switch f.Type.Kind {
		case spec.KindArray:
			if recursive {
				b.LeafData(tree.Node{S: tree.NewShape(tree.Array, tree.WireNone, tree.FieldRef(f), 0)}, nil)
				continue
			}
			b.Open(tree.Node{S: tree.NewShape(tree.Array, tree.WireNone, tree.FieldRef(f), 0)})
			if f.Type.Elem == spec.KindStruct {
				b.Open(tree.Node{S: tree.NewShape(tree.Element, tree.WireNone, tree.StructRef(f.Type.Struct), 0)})
				structFields(b, f.Type.Struct, v, flexible, path)
				b.Close(0)
			} else {
				scalar(b, f.Type.Elem, tree.Node{S: shapeElement})
			}
			b.Close(0)
		case spec.KindStruct:
			if recursive && f.NullableIn(v) {
				b.LeafData(tree.Node{S: tree.NewShape(tree.Struct, tree.WireNone, tree.FieldRef(f), 0).With(tree.FlagNull)}, nil)
				continue
			}
			b.Open(tree.Node{S: tree.NewShape(tree.Struct, tree.WireNone, tree.FieldRef(f), 0)})
			if !recursive { // else left to its defaults (the loader refuses
				// a struct that contains itself with a non-null default)
				structFields(b, f.Type.Struct, v, flexible, path)
			}
			b.Close(0)
		case spec.KindRecords:
			b.LeafData(tree.Node{S: tree.NewShape(tree.Records, tree.WireNone, tree.FieldRef(f), 0)}, EmptyBatch())
		default:
			scalar(b, f.Type.Kind, tree.Node{S: tree.NewShape(tree.Field, tree.WireNone, tree.FieldRef(f), 0)})
		}
	}
}

var zeroUUID [16]byte

// scalar appends leaf n holding the zero value of kind k.
func scalar(b *tree.Builder, k spec.Kind, n tree.Node) {
	switch k {
	case spec.KindUUID:
		b.LeafData(n, zeroUUID[:])
	case spec.KindString, spec.KindBytes:
		b.LeafData(n, nil)
	default:
		b.LeafNum(n, 0)
	}
}
