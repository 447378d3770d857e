package records

import "github.com/kwire/kwire/tree"

// IsLazy reports whether node i of t is a lazy record (Options.Lazy): a
// Record leaf whose fields are not nodes.
func IsLazy(t *tree.Tree, i int32) bool { return t.Nodes[i].S.Same(shRecordLazy) }

// lazyFields appends to nodes the nodes of lazy record i of t — the Record
// group and its field leaves, as a whole decode makes them, indexes
// counting from len(nodes) — and returns them (nodes as it was when the
// record no longer reads, which decoding checked it does).
func lazyFields(nodes []tree.Node, t *tree.Tree, i int32) []tree.Node {
	n := t.Nodes[i]
	area := t.Bytes
	if n.Flags()&tree.FlagVirtual != 0 {
		area = t.Virtual
	}
	if n.Off < 0 || int(n.Off)+int(n.Size) > len(area) {
		return nodes
	}
	out, _, _, _, ok := plainRecord(nodes, area[:n.Off+n.Size], int(n.Off), 0, n.Flags()&^tree.FlagNull, false)
	if !ok {
		return nodes
	}
	return out
}

// Expand returns t with its lazy records (Options.Lazy) made whole — each
// a Record group of its field leaves, as a decode without Lazy makes them
// — in a new node arena; t itself when it has none. The rest of the tree
// (its bytes, decompressed views, problems) is shared with t.
func Expand(t *tree.Tree) *tree.Tree {
	lazy := 0
	for i := range t.Nodes {
		if IsLazy(t, int32(i)) {
			lazy++
		}
	}
	if lazy == 0 {
		return t
	}
	nodes := make([]tree.Node, 0, len(t.Nodes)+lazy*(nodesPerRecord-1))
	at := make([]int32, len(t.Nodes)+1) // where each node of t lands
	for i := range t.Nodes {
		at[i] = int32(len(nodes))
		if IsLazy(t, int32(i)) {
			if more := lazyFields(nodes, t, int32(i)); len(more) > len(nodes) {
				nodes = more
				continue
			}
		}
		nodes = append(nodes, t.Nodes[i])
	}
	at[len(t.Nodes)] = int32(len(nodes))
	for i, n := range t.Nodes {
		if k := at[i]; !IsLazy(t, int32(i)) || nodes[k].S.Same(shRecordLazy) {
			nodes[k].End = at[n.End]
		}
	}
	out := *t
	out.Nodes = nodes
	return &out
}
