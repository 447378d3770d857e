package render

import (
	"bytes"
	"encoding/binary"
	"maps"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kwire/kwire/tree"
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

// Narrower than the rows without the about column (97), the notes after
// the values are cut to MidValueWidth and the type cells to MinTypeWidth;
// then the type column goes and the values get its room back, their notes
// cut as far as needed (at 56 columns "1 element" is whole); then the
// name column's padding is shortened, rows with longer names putting their
// other cells on the line below; then the values are cut (never a number);
// then the value column goes. Name and range are never cut.
func TestWidthNarrowsTypeAndValue(t *testing.T) {
	golden(t, "vote_v2_response.width80.tree.txt", treeWidth(t, Options{Width: 80}))
	rows := func(w int, name string) string {
		lines := strings.Split(treeWidth(t, Options{Width: w}), "\n")
		for k, line := range lines {
			if strings.HasSuffix(line, "+-- "+name) {
				return line + "\n" + lines[k+1] // a broken row
			}
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
		{85, "TopicName", "    |       +-- TopicName               string        = \"\" (compact, …  [0x000c, 1B]"},
		{85, "Partitions", "    |       +-- Partitions              []Partition…  = 1 element       [0x000d, 17B]"},
		{80, "TopicName", "    |       +-- TopicName               = \"\" (compact, len+1=1)  [0x000c, 1B]"},
		{80, "Partitions", "    |       +-- Partitions              = 1 element              [0x000d, 17B]"},
		{74, "TopicName", "    |       +-- TopicName               = \"\" (compact, len…  [0x000c, 1B]"},
		{62, "TopicName", "    |       +-- TopicName           = \"\" (comp…  [0x000c, 1B]"},
		// Names wider than their column: the value follows, the range
		// in its column.
		{62, "PartitionData[0]", "    |       |   +-- PartitionData[0]  = struct   [0x000e, 16B]"},
		{62, "VoteGranted", "    |       |       +-- VoteGranted     = false  [0x001c, 1B]"},
		{56, "ErrorCode", "    +-- ErrorCode             = 0          [0x0009, 2B]"},
		{56, "Partitions", "    |       +-- Partitions    = 1 element  [0x000d, 17B]"},
		{40, "TopicName", "    |       +-- TopicName  [0x000c, 1B]"},
		{40, "VoteGranted", "    |       |       +-- VoteGranted\n    |       |       |      [0x001c, 1B]"},
	} {
		if got := rows(c.w, c.name); got != c.want {
			t.Errorf("Width %d, row %s:\n got %q\nwant %q", c.w, c.name, got, c.want)
		}
	}
	for w := 40; w <= 97; w++ {
		for _, line := range strings.Split(treeWidth(t, Options{Width: w}), "\n") {
			if n := utf8.RuneCountInString(line); n > w {
				t.Errorf("Width %d: a line of %d columns: %q", w, n, line)
			}
		}
	}
	for _, w := range []int{80, 62, 40} {
		if got, want := stripANSI(treeWidth(t, Options{Width: w, Color: true})), treeWidth(t, Options{Width: w}); got != want {
			t.Errorf("Width %d: coloured narrowed tree differs once escapes are removed:\n%s", w, firstDiff(got, want))
		}
	}
}

// voteRequest is the smallest VoteRequest v2 with values that fill their
// fields: uuids, int32 and int64 extremes, true.
func voteRequest(t *testing.T) *tree.Tree {
	s := embedded(t, "4.4.0")
	b := bytes.Clone(smallestByName(t, s, "VoteRequest", 2).Bytes)
	binary.BigEndian.PutUint32(b[0x10:], 0x80000000) // VoterId
	copy(b[0x23:], unhex(t, "0123456789abcdef0123456789abcdef"))
	copy(b[0x33:], unhex(t, "fedcba9876543210fedcba9876543210"))
	binary.BigEndian.PutUint32(b[0x43:], 0x7fffffff)         // LastOffsetEpoch
	binary.BigEndian.PutUint64(b[0x47:], 0x8000000000000000) // LastOffset
	b[0x4f] = 1                                              // PreVote
	return decodeRequest(t, s, b)
}

// wholeValues are the numbers, uuids and booleans a tree's rows show
// ("= 52 (Vote)" shows 52), each with how many rows show it whole.
func wholeValues(text string) map[string]int {
	out := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		k := strings.Index(line, " = ")
		if k < 0 {
			continue
		}
		v, _, _ := strings.Cut(line[k+3:], " ")
		if whole, _ := valueCores([]byte(v), utf8.RuneCountInString(v)); whole > 2 && !strings.HasSuffix(v, "…") {
			out[v]++
		}
	}
	return out
}

// At 80 and 100 columns every number, uuid and boolean of a VoteRequest
// v2 (whose deepest rows are 42 columns of name) is shown whole, on the
// rows of the unlimited tree, and no line is wider than the terminal.
func TestWidthKeepsNumbersAndUUIDsWhole(t *testing.T) {
	tr := voteRequest(t)
	text := func(w int) string {
		var b bytes.Buffer
		if err := WriteTree(&b, tr, Options{Width: w}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	full := text(0)
	want := wholeValues(full)
	for _, v := range []string{"0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"} {
		u := v[:8] + "-" + v[8:12] + "-" + v[12:16] + "-" + v[16:20] + "-" + v[20:]
		if want[u] != 1 {
			t.Fatalf("the unlimited tree does not show %s once:\n%s", u, full)
		}
	}
	for _, v := range []string{"-2147483648", "2147483647", "-9223372036854775808", "true", "52"} {
		if want[v] != 1 {
			t.Fatalf("the unlimited tree does not show %s once:\n%s", v, full)
		}
	}
	for _, w := range []int{80, 100} {
		got := text(w)
		golden(t, "vote_v2_request.values.width"+strconv.Itoa(w)+".tree.txt", got)
		if g := wholeValues(got); !maps.Equal(g, want) {
			t.Errorf("Width %d: values shown whole %v, want %v:\n%s", w, g, want, got)
		}
		for _, line := range strings.Split(got, "\n") {
			if n := utf8.RuneCountInString(line); n > w {
				t.Errorf("Width %d: a line of %d columns: %q", w, n, line)
			}
		}
	}
}
