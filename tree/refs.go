package tree

import (
	"math"

	"github.com/kwire/kwire/spec"
)

// Ref is what a node refers to besides its bytes: its spec field, its
// struct definition, and a display name and about text for synthetic nodes
// (frame fields, record batch fields). Nodes hold a Ref's id (an int32)
// rather than pointers, so that a tree is one pointer-free slice the
// garbage collector never scans.
type Ref struct {
	Field  *spec.Field
	Struct *spec.Struct
	Name   string
	About  string
}

// registry interns Refs process-wide: the same (field, struct, name,
// about) always gets the same id; id 0 is the empty Ref.
var registry = func() *interner[Ref] {
	r := &interner[Ref]{}
	r.id(Ref{}, math.MaxInt32)
	return r
}()

// refs is the registry's refs, by id.
func refs() []Ref { return registry.all() }

// Intern returns the id of r, registering it on first use. Codecs intern
// their refs when they compile a plan, never per node.
func Intern(r Ref) int32 {
	id, _ := registry.id(r, math.MaxInt32)
	return id
}

// FieldRef returns the id of the Ref for spec field f.
func FieldRef(f *spec.Field) int32 {
	if f == nil {
		return 0
	}
	var st *spec.Struct
	if f.Type.Struct != nil {
		st = f.Type.Struct
	}
	return Intern(Ref{Field: f, Struct: st})
}

// StructRef returns the id of the Ref for struct st (message bodies,
// headers, array elements).
func StructRef(st *spec.Struct) int32 { return Intern(Ref{Struct: st}) }

// NameRef returns the id of a synthetic node's name and about text.
func NameRef(name, about string) int32 { return Intern(Ref{Name: name, About: about}) }

// RefOf returns the Ref with id id (the empty Ref for an unknown id).
func RefOf(id int32) Ref {
	rs := refs()
	if id < 0 || int(id) >= len(rs) {
		return Ref{}
	}
	return rs[id]
}
