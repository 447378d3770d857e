// Command table prints bench/run's ratio table (Markdown) from the
// figures the script collected:
//
//	go run ./bench/table GOBENCH SAMPLES
//
// GOBENCH is the output of `go test -bench` (any -count): each result line
// "BenchmarkName/sub-P  N  V unit  V unit …". SAMPLES has one figure a
// line, "key value", a key once per run: the process figures
// (log.kwire.wall in seconds, log.kwire.rss in KiB, …, see rows) and the
// inputs' sizes (input.segment.bytes, …). Every figure shown is the median
// of its runs; a ratio is of two medians, oriented so that above 1 kwire
// is faster. A figure with no runs shows as "–", its goal as not met, and
// table exits with status 1 after the table, naming the figures missing.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: table GOBENCH SAMPLES")
		os.Exit(2)
	}
	f := figures{}
	for _, p := range os.Args[1:] {
		data, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "table:", err)
			os.Exit(2)
		}
		if err := f.read(string(data)); err != nil {
			fmt.Fprintf(os.Stderr, "table: %s: %v\n", p, err)
			os.Exit(2)
		}
	}
	if missing := write(os.Stdout, f); len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "table: no figures for %s\n", strings.Join(missing, ", "))
		os.Exit(1)
	}
}

// write prints the table of f and returns the keys of the figures it
// shows as "–", having no values.
func write(w io.Writer, f figures) []string {
	fmt.Fprintln(w, "| what | kwire | the other | ratio | goal | met? |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	rs, missing := rows(f)
	for _, r := range rs {
		met := "no"
		if r.met {
			met = "yes"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", r.what, r.kwire, r.other, r.ratio, r.goal, met)
	}
	return missing
}
