package tree

import (
	"bytes"
	"fmt"
	"sort"
)

// Diff compares the values of struct-like node ai of a and node bi of b
// (span trees or value trees alike: offsets, sizes, lengths and tag
// sections are ignored; fields match by spec field, unknown tags by tag
// number). It returns "" when the values are equal, else the path of the
// first difference and what differs, e.g. "Topics[0].TopicName: "a" vs "b"".
func Diff(a *Tree, ai int32, b *Tree, bi int32) string {
	return diffStruct(a, ai, b, bi, "")
}

type fieldRef struct {
	key   string
	index int32
}

func fieldsOf(t *Tree, i int32) []fieldRef {
	var out []fieldRef
	t.Fields(i, func(c int32) bool {
		n := &t.Nodes[c]
		k := ""
		if n.Kind() == UnknownTag {
			k = fmt.Sprintf("tag %d", t.Num(c))
		} else if f := t.Field(c); f != nil {
			k = f.Name
		}
		out = append(out, fieldRef{k, c})
		return true
	})
	sort.SliceStable(out, func(x, y int) bool { return out[x].key < out[y].key })
	return out
}

// join is path with name step name after it (dotted notation).
func join(path, name string) string {
	return string(AppendStep([]byte(path), Name(name)))
}

func diffStruct(a *Tree, ai int32, b *Tree, bi int32, path string) string {
	fa, fb := fieldsOf(a, ai), fieldsOf(b, bi)
	i, j := 0, 0
	for i < len(fa) || j < len(fb) {
		switch {
		case j >= len(fb) || (i < len(fa) && fa[i].key < fb[j].key):
			return join(path, fa[i].key) + ": only in the first value"
		case i >= len(fa) || fb[j].key < fa[i].key:
			return join(path, fb[j].key) + ": only in the second value"
		}
		if d := diffNode(a, fa[i].index, b, fb[j].index, join(path, fa[i].key)); d != "" {
			return d
		}
		i++
		j++
	}
	return ""
}

func diffNode(a *Tree, ai int32, b *Tree, bi int32, path string) string {
	na, nb := &a.Nodes[ai], &b.Nodes[bi]
	if na.Null() != nb.Null() {
		return fmt.Sprintf("%s: null %v vs %v", path, na.Null(), nb.Null())
	}
	if na.Null() {
		return ""
	}
	switch na.Kind() {
	case Struct:
		if nb.Kind() != Struct {
			return path + ": struct vs " + nb.Kind().String()
		}
		return diffStruct(a, ai, b, bi, path)
	case Array:
		var ea, eb []int32
		a.Elements(ai, func(c int32) bool { ea = append(ea, c); return true })
		b.Elements(bi, func(c int32) bool { eb = append(eb, c); return true })
		if len(ea) != len(eb) {
			return fmt.Sprintf("%s: %d vs %d elements", path, len(ea), len(eb))
		}
		for k := range ea {
			p := string(AppendStep([]byte(path), Index(k)))
			var d string
			if a.IsLeaf(ea[k]) && b.IsLeaf(eb[k]) && a.Struct(ea[k]) == nil {
				d = diffScalar(a, ea[k], b, eb[k], p)
			} else {
				d = diffStruct(a, ea[k], b, eb[k], p)
			}
			if d != "" {
				return d
			}
		}
		return ""
	}
	return diffScalar(a, ai, b, bi, path)
}

func diffScalar(a *Tree, ai int32, b *Tree, bi int32, path string) string {
	na := &a.Nodes[ai]
	if x, y := a.Num(ai), b.Num(bi); x != y && na.Kind() != Records {
		return fmt.Sprintf("%s: %d vs %d", path, x, y)
	}
	if da, db := a.Data(ai), b.Data(bi); !bytes.Equal(da, db) {
		return fmt.Sprintf("%s: %q vs %q", path, da, db)
	}
	return ""
}
