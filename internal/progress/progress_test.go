package progress_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kwire/kwire/internal/progress"
)

func TestNilBarDoesNothing(t *testing.T) {
	var p *progress.Bar
	var out bytes.Buffer
	p.Add(10)
	if p.Output(&out) != &out {
		t.Fatal("Output of a nil bar is not its writer")
	}
	p.Done()
}

// The bar is drawn on its writer with the share read, cleared before
// output to it, and cleared at the end.
func TestBarDrawsClearsAndFinishes(t *testing.T) {
	var stderr, stdout bytes.Buffer
	p := progress.New(&stderr, 1000, false)
	p.Add(360)
	if s := stderr.String(); !strings.Contains(s, "reading") || !strings.Contains(s, " 36% |") {
		t.Fatalf("after 360 of 1000: %q", s)
	}
	// Standard output on another device: not cleared for it.
	n := stderr.Len()
	if p.Output(&stdout) != &stdout || stderr.Len() != n {
		t.Fatalf("cleared for stdout: %q", stderr.String()[n:])
	}
	if p.Output(&stderr) != &stderr || stderr.Len() == n || !strings.HasSuffix(stderr.String(), "\r") {
		t.Fatalf("not cleared for stderr: %q", stderr.String()[n:])
	}
	p.Done()
	if !strings.HasSuffix(stderr.String(), "\r") {
		t.Fatalf("not cleared at the end: %q", stderr.String())
	}
	// Shared with standard output: cleared for it too.
	var e2 bytes.Buffer
	q := progress.New(&e2, 10, true)
	q.Add(1)
	m := e2.Len()
	q.Output(&stdout)
	if e2.Len() == m {
		t.Fatal("not cleared for a shared stdout")
	}
}
