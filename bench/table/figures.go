package main

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// figures maps a figure's key to its values, one a run: "key" from a
// samples line, "BenchmarkName/sub unit" from a go test -bench line (the
// -GOMAXPROCS suffix dropped).
type figures map[string][]float64

var procsSuffix = regexp.MustCompile(`-\d+$`)

// read adds the figures of text, either go test -bench output (other lines
// than results are skipped) or samples lines; a line that is neither is an
// error naming its line number.
func (f figures) read(text string) error {
	for i, line := range strings.Split(text, "\n") {
		fs := strings.Fields(line)
		switch {
		case len(fs) == 0:
		case strings.HasPrefix(fs[0], "Benchmark"):
			if len(fs) < 4 || len(fs)%2 != 0 {
				continue // a benchmark's log line, or one that failed
			}
			if _, err := strconv.Atoi(fs[1]); err != nil {
				continue
			}
			name := procsSuffix.ReplaceAllString(fs[0], "")
			for k := 2; k+1 < len(fs); k += 2 {
				v, err := strconv.ParseFloat(fs[k], 64)
				if err != nil {
					return fmt.Errorf("line %d: %q is not a number", i+1, fs[k])
				}
				f[name+" "+fs[k+1]] = append(f[name+" "+fs[k+1]], v)
			}
		case len(fs) == 2 && !strings.ContainsAny(fs[0], "=:") && strings.Contains(fs[0], "."):
			v, err := strconv.ParseFloat(fs[1], 64)
			if err != nil {
				return fmt.Errorf("line %d: %q is not a number", i+1, fs[1])
			}
			f[fs[0]] = append(f[fs[0]], v)
		default:
			// go test's own lines: goos, pkg, PASS, ok …
			if !goTestLine(fs[0]) {
				return fmt.Errorf("line %d: %q is neither a figure nor go test output", i+1, line)
			}
		}
	}
	return nil
}

// goTestLine reports whether a line starting with word is one of go
// test's own around benchmark results.
func goTestLine(word string) bool {
	switch word {
	case "goos:", "goarch:", "pkg:", "cpu:", "PASS", "ok", "FAIL", "---", "?":
		return true
	}
	return strings.HasPrefix(word, "===") || strings.HasPrefix(word, "---")
}

// median is the median of key's values (the mean of the middle two of an
// even count), NaN with none.
func (f figures) median(key string) float64 {
	return median(f[key])
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}
