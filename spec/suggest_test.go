package spec

import "testing"

// Suggest's threshold: one edit in a name of up to 4 letters, two up to 8,
// three beyond; a doubled or padded word keeps its intended name.
func TestSuggest(t *testing.T) {
	names := []string{"Vote", "Fetch", "Produce", "Metadata", "DescribeQuorum", "bool", "int32"}
	for s, want := range map[string]string{
		"Nope":           "", // two edits from Vote: not a typo
		"Vot":            "Vote",
		"Vtoe":           "Vote", // a transposition
		"vote":           "Vote",
		"Fetchh":         "Fetch",
		"Metdata":        "Metadata",
		"DescribeQuorom": "DescribeQuorum",
		"booleanbool":    "bool",
		"int33":          "int32",
		"Ftech":          "Fetch",
		"Fxtxh":          "Fetch", // two edits in 5 letters
		"Vxtx":           "",      // two edits in 4
		"Zzzzzz":         "",
		"":               "",
	} {
		if got := Suggest(s, names); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", s, got, want)
		}
	}
}
