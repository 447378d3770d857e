package render

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func treeWidth(t *testing.T, o Options) string {
	t.Helper()
	tr := smallestByName(t, embedded(t, "4.4.0"), "VoteResponse", 2)
	var b bytes.Buffer
	if err := WriteTree(&b, tr, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The object tree of the smallest VoteResponse v2 has its about column at
// column 97 and its widest row ("LeaderId", about "The ID of the current
// leader or -1 if the leader is unknown.") is 157 columns wide.
func TestWidthWrapsTheAboutColumn(t *testing.T) {
	full := treeWidth(t, Options{})
	for _, w := range []int{157, 1000} {
		if got := treeWidth(t, Options{Width: w}); got != full {
			t.Errorf("Width %d: the tree differs from the unlimited one although it fits", w)
		}
	}
	golden(t, "vote_v2_response.width130.tree.txt", treeWidth(t, Options{Width: 130}))
	// One column short of the widest row: only that row wraps, after "is".
	got := treeWidth(t, Options{Width: 156})
	want := strings.Replace(full,
		"leader or -1 if the leader is unknown.\n",
		"leader or -1 if the leader is\n"+
			"    |       |       |"+strings.Repeat(" ", 97-21)+"unknown.\n", 1)
	if got != want {
		t.Errorf("Width 156:\n%s", firstDiff(got, want))
	}
	for _, w := range []int{117, 120, 130, 156} {
		for _, line := range strings.Split(treeWidth(t, Options{Width: w}), "\n") {
			if n := utf8.RuneCountInString(line); n > w {
				t.Errorf("Width %d: a line of %d columns: %q", w, n, line)
			}
		}
	}
	// Colour does not change the text.
	if got, want := stripANSI(treeWidth(t, Options{Width: 130, Color: true})), treeWidth(t, Options{Width: 130}); got != want {
		t.Errorf("coloured wrapped tree differs once escapes are removed:\n%s", firstDiff(got, want))
	}
}

// With fewer than MinAboutWidth columns left after the range column, the
// about column is dropped: the rows are those of the unlimited tree cut
// after the range.
func TestWidthDropsTheAboutColumn(t *testing.T) {
	full := treeWidth(t, Options{})
	var want strings.Builder
	for _, line := range strings.SplitAfter(full, "\n") {
		if len(line) > 97 {
			line = strings.TrimRight(line[:97], " ") + "\n"
		}
		want.WriteString(line)
	}
	for _, w := range []int{80, 97 + MinAboutWidth - 1} {
		if got := treeWidth(t, Options{Width: w}); got != want.String() {
			t.Errorf("Width %d:\n%s", w, firstDiff(got, want.String()))
		}
	}
	pad := "\n    |       |       |   " + strings.Repeat(" ", 97-24)
	if got := treeWidth(t, Options{Width: 97 + MinAboutWidth}); !strings.Contains(got, "The ID of the"+pad+"current leader or -1"+pad+"if the leader is"+pad+"unknown.\n") {
		t.Errorf("Width %d: the about column is not wrapped to %d columns:\n%s", 97+MinAboutWidth, MinAboutWidth, got)
	}
}
