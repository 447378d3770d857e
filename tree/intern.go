package tree

import (
	"sync"
	"sync/atomic"
)

// interner gives each distinct value of T an id, process-wide: the ids
// of Refs (Intern) and of shapes (NewShape). Its table only grows, under
// the lock, and is published whole after each growth, so that readers
// (RefOf, Node.Ref, Node.Wire, called for every node a view shows) need
// no lock.
type interner[T comparable] struct {
	mu    sync.RWMutex
	table atomic.Pointer[[]T]
	ids   map[T]int32
}

// all returns the interned values, by id (nil before the first).
func (r *interner[T]) all() []T {
	if p := r.table.Load(); p != nil {
		return *p
	}
	return nil
}

// id returns v's id, interning it when it has none yet and the table has
// fewer than max values; ok is false when it is full.
func (r *interner[T]) id(v T, max int) (id int32, ok bool) {
	r.mu.RLock()
	id, ok = r.ids[v]
	r.mu.RUnlock()
	if ok {
		return id, true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if id, ok = r.ids[v]; ok {
		return id, true
	}
	tab := r.all()
	if len(tab) >= max {
		return 0, false
	}
	if r.ids == nil {
		r.ids = map[T]int32{}
	}
	tab = append(tab, v)
	id = int32(len(tab) - 1)
	r.table.Store(&tab)
	r.ids[v] = id
	return id, true
}
