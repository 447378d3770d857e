package tree

import (
	"sync"
	"sync/atomic"

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
// always gets the same id. Id 0 is the empty Ref. refs only grows, under
// the lock, and is published whole (the slice header) after each growth,
// so that RefOf, called for every node a view shows, reads it without a
// lock.
var registry = struct {
	sync.RWMutex
	refs atomic.Pointer[[]Ref]
	ids  map[Ref]int32
}{ids: map[Ref]int32{{}: 0}}

// refs is the registry's refs (nil, the empty Ref only, before the first
// Intern).
func refs() []Ref {
	if p := registry.refs.Load(); p != nil {
		return *p
	}
	return nil
}

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
	rs := refs()
	if rs == nil {
		rs = []Ref{{}}
	}
	rs = append(rs, r)
	id = int32(len(rs) - 1)
	registry.refs.Store(&rs)
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
	rs := refs()
	if id < 0 || int(id) >= len(rs) {
		return Ref{}
	}
	return rs[id]
}
