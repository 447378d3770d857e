package lint

import (
	"bytes"
	"sort"

	"github.com/kwire/kwire/spec"
)

// ApplyFixes returns src with the edits of every fix applied. Fixes whose
// edits overlap an earlier one's are skipped; the fixes applied are
// returned in file order.
func ApplyFixes(src []byte, fixes []*spec.Fix) ([]byte, []*spec.Fix) {
	sorted := append([]*spec.Fix(nil), fixes...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Edits[0].Off < sorted[j].Edits[0].Off })
	var edits []spec.Edit
	var applied []*spec.Fix
	taken := func(e spec.Edit) bool {
		for _, x := range edits {
			if e.Off < x.End && x.Off < e.End || e.Off == x.Off && e.End == x.End {
				return true
			}
		}
		return false
	}
next:
	for _, f := range sorted {
		for _, e := range f.Edits {
			if taken(e) {
				continue next
			}
		}
		edits = append(edits, f.Edits...)
		applied = append(applied, f)
	}
	// Insertions before replacements at the same offset.
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].Off != edits[j].Off {
			return edits[i].Off < edits[j].Off
		}
		return edits[i].End < edits[j].End
	})
	var out bytes.Buffer
	last := 0
	for _, e := range edits {
		out.Write(src[last:e.Off])
		out.WriteString(e.New)
		last = e.End
	}
	out.Write(src[last:])
	return out.Bytes(), applied
}
