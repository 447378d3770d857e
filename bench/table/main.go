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
// is faster. A figure with no runs shows as "–" and its goal as not met.
package main

import (
	"fmt"
	"io"
	"os"
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
	write(os.Stdout, f)
}

// write prints the table of f.
func write(w io.Writer, f figures) {
	fmt.Fprintln(w, "| what | kwire | the other | ratio | goal | met? |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range rows(f) {
		met := "no"
		if r.met {
			met = "yes"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", r.what, r.kwire, r.other, r.ratio, r.goal, met)
	}
}
