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
// about column is dropped: when the rows then fit (95 columns), they are
// those of the unlimited tree cut after the range.
func TestWidthDropsTheAboutColumn(t *testing.T) {
	full := treeWidth(t, Options{})
	var want strings.Builder
	for _, line := range strings.SplitAfter(full, "\n") {
		if len(line) > 97 {
			line = strings.TrimRight(line[:97], " ") + "\n"
		}
		want.WriteString(line)
	}
	for _, w := range []int{95, 97 + MinAboutWidth - 1} {
		if got := treeWidth(t, Options{Width: w}); got != want.String() {
			t.Errorf("Width %d:\n%s", w, firstDiff(got, want.String()))
		}
	}
	pad := "\n    |       |       |   " + strings.Repeat(" ", 97-24)
	if got := treeWidth(t, Options{Width: 97 + MinAboutWidth}); !strings.Contains(got, "The ID of the"+pad+"current leader or -1"+pad+"if the leader is"+pad+"unknown.\n") {
		t.Errorf("Width %d: the about column is not wrapped to %d columns:\n%s", 97+MinAboutWidth, MinAboutWidth, got)
	}
}

// Narrower than the rows without the about column (95), the value cells
// are cut to MidValueWidth, the type cells to MinTypeWidth and the value
// cells to MinValueWidth; then the type column goes and the values get its
// room; then the value column goes. Name and range are never cut: at 62
// columns and fewer the rows are name and range alone, at most 53 wide.
func TestWidthNarrowsTypeAndValue(t *testing.T) {
	golden(t, "vote_v2_response.width80.tree.txt", treeWidth(t, Options{Width: 80}))
	row := func(w int, name string) string {
		for _, line := range strings.Split(treeWidth(t, Options{Width: w}), "\n") {
			if strings.Contains(line, "+-- "+name+" ") {
				return line
			}
		}
		return ""
	}
	for _, c := range []struct {
		w          int
		name, want string
	}{
		{94, "TopicName", "    |       +-- TopicName               string           = \"\" (compact, len+1=…  [0x000c, 1B]"},
		{80, "TopicName", "    |       +-- TopicName               string      = \"\" (compac…  [0x000c, 1B]"},
		{80, "Partitions", "    |       +-- Partitions              []Partiti…  = 1 element    [0x000d, 17B]"},
		{76, "Partitions", "    |       +-- Partitions              []Partiti…  = 1 elem…  [0x000d, 17B]"},
		{74, "Partitions", "    |       +-- Partitions              = 1 element          [0x000d, 17B]"},
		{63, "Partitions", "    |       +-- Partitions              = 1 ele…  [0x000d, 17B]"},
		{64, "TopicName", "    |       +-- TopicName               = \"\" (co…  [0x000c, 1B]"},
		{62, "TopicName", "    |       +-- TopicName               [0x000c, 1B]"},
		{40, "VoteGranted", "    |       |       +-- VoteGranted     [0x001c, 1B]"},
	} {
		if got := row(c.w, c.name); got != c.want {
			t.Errorf("Width %d, row %s:\n got %q\nwant %q", c.w, c.name, got, c.want)
		}
	}
	for w := 53; w <= 95; w++ {
		for _, line := range strings.Split(treeWidth(t, Options{Width: w}), "\n") {
			if n := utf8.RuneCountInString(line); n > w {
				t.Errorf("Width %d: a line of %d columns: %q", w, n, line)
			}
		}
	}
	if got, want := stripANSI(treeWidth(t, Options{Width: 80, Color: true})), treeWidth(t, Options{Width: 80}); got != want {
		t.Errorf("coloured narrowed tree differs once escapes are removed:\n%s", firstDiff(got, want))
	}
}
