package tree

import (
	"sync"

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

// registry interns Refs process-wide: the same (field, struct, name, about)
// always gets the same id. Id 0 is the empty Ref.
var registry = struct {
	sync.RWMutex
	refs []Ref
	ids  map[Ref]int32
}{refs: []Ref{{}}, ids: map[Ref]int32{{}: 0}}

// Intern returns the id of r, registering it on first use. Codecs intern
// their refs when they compile a plan, never per node.
func Intern(r Ref) int32 {
	registry.RLock()
	id, ok := registry.ids[r]
	registry.RUnlock()
	if ok {
		return id
	}
	registry.Lock()
	defer registry.Unlock()
	if id, ok := registry.ids[r]; ok {
		return id
	}
	id = int32(len(registry.refs))
	registry.refs = append(registry.refs, r)
	registry.ids[r] = id
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
	registry.RLock()
	defer registry.RUnlock()
	if id < 0 || int(id) >= len(registry.refs) {
		return Ref{}
	}
	return registry.refs[id]
}
