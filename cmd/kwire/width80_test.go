package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// At 80 and 100 columns a deep tree (MetadataResponse v12, its request,
// a ConsumerGroupHeartbeatResponse) keeps every range in one column and
// every value that goes on a line below its name under the value column;
// a name that overflows its column is followed by its value when the
// value still ends in the value column, so short values do not cost a
// line.
func TestNarrowTreesAlign(t *testing.T) {
	for _, args := range [][]string{
		{"show", "MetadataResponse", "--version", "12"},
		{"show", "ConsumerGroupHeartbeatResponse", "--version", "0", "--response"},
		{"show", "Vote", "--version", "2"},
	} {
		for _, w := range []int{80, 100} {
			r := kwireEnv(t, &env{terminal: true, width: w}, append([]string{"--color", "never"}, args...)...)
			if r.code != 0 {
				t.Fatalf("%q: %s", args, r.stderr)
			}
			for _, tr := range strings.Split(r.stdout, "object tree\n")[1:] {
				tr, _, _ = strings.Cut(tr, "\n\n\n")
				lines := strings.Split(strings.Trim(tr, "\n"), "\n")
				rangeAt, valueAt := -1, -1
				for _, l := range lines {
					if n := utf8.RuneCountInString(l); n > w {
						t.Errorf("%q at %d: a line of %d columns: %q", args, w, n, l)
					}
					if k := strings.Index(l, "[0x"); k >= 0 {
						if rangeAt < 0 {
							rangeAt = k
						} else if k != rangeAt {
							t.Errorf("%q at %d: a range at column %d, not %d: %q", args, w, k, rangeAt, l)
						}
					}
					if valueAt < 0 && strings.Contains(l, "+-- ") && strings.Contains(l, " = ") {
						valueAt = strings.Index(l, " = ") + 1
					}
					// A line of a row's cells below its name: only the tree
					// drawing before its "=".
					if k := strings.Index(l, "= "); k > 0 && strings.Trim(l[:k], "| ") == "" && k != valueAt {
						t.Errorf("%q at %d: a value below its name at column %d, not %d: %q", args, w, k, valueAt, l)
					}
				}
			}
		}
	}
	at80 := kwireEnv(t, &env{terminal: true, width: 80}, "--color", "never", "show", "MetadataResponse", "--version", "12")
	for _, row := range []string{
		"\n    |       |       +-- PartitionIndex   = 0                       [0x0036, 4B]\n",
		"\n    |       |       |   +-- length  = 2 (compact, n+1)             [0x0042, 1B]\n",
		"\n    |       +-- TopicId    = 00000000-0000-0000-0000-000000000000  [0x0022, 16B]\n",
		"\n    |       +-- TopicAuthorizedOperations  = 0                     [0x0052, 4B]\n",
	} {
		if !strings.Contains(at80.stdout, row) {
			t.Errorf("80 columns: no row %q:\n%s", row, at80.stdout)
		}
	}
}
