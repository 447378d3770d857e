package bundle

import (
	"strings"
	"testing"
)

func TestWriteReleases(t *testing.T) {
	var b strings.Builder
	if err := WriteReleases(&b, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(b.String(), "\n")
	lines = lines[:len(lines)-1] // after the last newline
	if len(lines) != len(Releases()) {
		t.Errorf("%d lines for %d releases:\n%s", len(lines), len(Releases()), b.String())
	}
	if first, last := lines[0], lines[len(lines)-1]; first != "  4.4.0  --kafka 4.4    286 spec files\n" || last != "  3.0.2  --kafka 3.0    171 spec files\n" {
		t.Errorf("first %q, last %q", first, last)
	}

	b.Reset()
	if err := WriteReleases(&b, true); err != nil {
		t.Fatal(err)
	}
	want := "  4.4.0  --kafka 4.4                                           286 spec files\n" +
		"         org.apache.kafka:kafka-clients:4.4.0                  sha256 1ab07317eb6633241392449d329dbdc5d9251e6ffc4926860f42dd966e88bdf9\n"
	if !strings.HasPrefix(b.String(), want) {
		t.Errorf("with jars:\n%s\nwant it to start with\n%s", b.String(), want)
	}
}
