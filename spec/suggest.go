package spec

import (
	"strings"
	"unicode/utf8"
)

// Suggest returns the candidate closest to s by edit distance (insertions,
// deletions, substitutions and adjacent transpositions, case-insensitive),
// or "" when none is close enough to be a likely typo. It powers hints such
// as `unknown type "booleanbool"; did you mean "bool"?`.
func Suggest(s string, candidates []string) string {
	if s == "" {
		return ""
	}
	// A candidate is suggested only at a distance of at most 3 (limit
	// below), which an edit distance reaches only when the two differ by
	// at most 3 letters in length, and the padding rule only when s is the
	// candidate with at most 7 bytes (so letters) more: a candidate whose
	// length in letters differs by more than maxPad cannot be suggested,
	// and s far longer than every candidate (a hostile 30 MB JSON key) is
	// neither copied nor compared.
	const maxPad = 7
	n := utf8.RuneCountInString(s)
	longest := 0
	for _, c := range candidates {
		longest = max(longest, utf8.RuneCountInString(c))
	}
	if n > longest+maxPad {
		return ""
	}
	ls := strings.ToLower(s)
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := n - utf8.RuneCountInString(c); d > maxPad || d < -maxPad {
			continue
		}
		lc := strings.ToLower(c)
		d := editDistance(ls, lc)
		// A candidate that is a prefix or suffix of a doubled or padded word
		// ("booleanbool" ends in "bool") is a likely intended name.
		if len(lc) >= 3 && (strings.HasSuffix(ls, lc) || strings.HasPrefix(ls, lc)) && d > 1 {
			d = min(d, 2+(len(ls)-len(lc))/4)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	// A typo changes at most about one letter in four: one edit in a
	// name of up to 4 letters ("Nope" is not "Vote"), two up to 8, three
	// beyond.
	limit := 1
	switch {
	case len(s) > 8:
		limit = 3
	case len(s) > 4:
		limit = 2
	}
	if bestD <= limit && bestD < len(s) {
		return best
	}
	return ""
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
