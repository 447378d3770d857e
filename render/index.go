package render

import (
	"github.com/kwire/kwire/tree"
)

// An Index answers per-node questions about one tree (parent, depth,
// region, path, and the texts of NodeName and the other Node* functions)
// in constant time, bar composing the text itself. It is built in one pass
// over the tree and takes 16 bytes a node.
//
// The Node* functions work out a node's context on their own by descending
// from the root, which passes over every earlier sibling on the way: fine
// for one node, but quadratic for a view that shows every node of a large
// array. Such a view builds an Index once per tree. (WriteText and
// WriteJSON need neither: they carry the context down as they walk.)
//
// An Index describes its tree as it was when built: build it again after
// the tree changes (a decode into the same arena).
type Index struct {
	t     *tree.Tree
	nodes []indexed
}

// indexed is what an Index keeps per node.
type indexed struct {
	ctx
	// depth is the node's depth below the root; -1 for a node the views
	// do not reach (only in a malformed tree).
	depth int32
	// batch is a RecordBatch's position among its parent's batches.
	batch int32
}

// NewIndex indexes t (which may be nil or empty).
func NewIndex(t *tree.Tree) *Index {
	x := &Index{t: t}
	if t == nil || len(t.Nodes) == 0 {
		return x
	}
	x.nodes = make([]indexed, len(t.Nodes))
	for k := range x.nodes {
		x.nodes[k] = indexed{ctx: ctx{parent: -1}, depth: -1}
	}
	x.nodes[0] = indexed{ctx: childCtx(t, -1, ctx{}, 0, nil)}
	x.walk(0)
	return x
}

// walk indexes the subtree of node i, which is indexed, visiting the nodes
// the views show as they do.
func (x *Index) walk(i int32) {
	t := x.t
	n := &t.Nodes[i]
	batches := int32(0)
	o := newOrdinals(t, i)
	for k := i + 1; k < n.End && t.Nodes[k].End > k; k = t.Nodes[k].End {
		e := indexed{ctx: childCtx(t, i, x.nodes[i].ctx, k, &o), depth: x.nodes[i].depth + 1}
		if t.Nodes[k].Kind() == tree.RecordBatch {
			e.batch = batches
			batches++
		}
		x.nodes[k] = e
		x.walk(k)
	}
}

// Tree returns the indexed tree.
func (x *Index) Tree() *tree.Tree { return x.t }

func (x *Index) valid(i int32) bool { return i >= 0 && int(i) < len(x.nodes) }

// Parent returns node i's parent, or -1 for the root (and for i out of
// range).
func (x *Index) Parent(i int32) int32 {
	if !x.valid(i) {
		return -1
	}
	return x.nodes[i].parent
}

// Depth returns node i's depth below the root (0 for the root, -1 for i
// out of range).
func (x *Index) Depth(i int32) int {
	if !x.valid(i) {
		return -1
	}
	return int(x.nodes[i].depth)
}

// Name is NodeName(x.Tree(), i).
func (x *Index) Name(i int32) string {
	if !x.valid(i) {
		return ""
	}
	return nodeName(x.t, i, x.nodes[i].ctx)
}

// Type is NodeType(x.Tree(), i).
func (x *Index) Type(i int32) string {
	if !x.valid(i) {
		return ""
	}
	return nodeType(x.t, i, x.nodes[i].ctx)
}

// Value is NodeValue(x.Tree(), i).
func (x *Index) Value(i int32) string {
	if !x.valid(i) {
		return ""
	}
	return nodeValue(x.t, i, x.nodes[i].ctx)
}

// About is NodeAbout(x.Tree(), i).
func (x *Index) About(i int32) string {
	if !x.valid(i) {
		return ""
	}
	return nodeAbout(x.t, i, x.nodes[i].ctx)
}

// Region is NodeRegion(x.Tree(), i).
func (x *Index) Region(i int32) string {
	if !x.valid(i) {
		return ""
	}
	return x.nodes[i].region.String()
}

// Path is node i's field path, as WriteJSON's "path" shows it
// ("VoteRequest.Topics[0].PreVote", "RequestHeader.ClientId"; "" for the
// root). It costs the path's depth.
func (x *Index) Path(i int32) string {
	if !x.valid(i) {
		return ""
	}
	return x.Steps(i).String()
}

// Steps is node i's path (see Path) as steps, for writing it in another
// notation (tree.Path.AppendAnchor); nil for the root and for i out of
// range.
func (x *Index) Steps(i int32) tree.Path {
	if !x.valid(i) {
		return nil
	}
	return x.steps(nil, i)
}

// steps appends the steps of node i's path to p, composed as
// jsonWriter.appendPath composes it from its parent's and its struct's.
func (x *Index) steps(p tree.Path, i int32) tree.Path {
	if i < 0 {
		return p
	}
	t := x.t
	e := &x.nodes[i]
	var parent, st tree.Path
	switch t.Nodes[i].Kind() {
	case tree.Message:
		return p
	case tree.Field, tree.Struct, tree.Array, tree.Records:
		if t.Field(i) != nil {
			st = x.steps(nil, x.structOf(i))
			break
		}
		parent = x.steps(nil, e.parent)
	case tree.RecordBatch:
		if e.parent < 0 {
			return p
		}
		parent = x.steps(nil, e.parent)
	case tree.Frame, tree.Header, tree.Body:
		if e.parent > 0 {
			parent = x.steps(nil, e.parent)
		}
	default:
		parent = x.steps(nil, e.parent)
	}
	return appendPathSteps(p, t, i, e.ctx, parent, st, e.batch)
}

// structOf returns the nearest ancestor of node i whose field children
// are its fields, or -1.
func (x *Index) structOf(i int32) int32 {
	for p := x.nodes[i].parent; p >= 0; p = x.nodes[p].parent {
		if structLike(x.t, p) {
			return p
		}
	}
	return -1
}
