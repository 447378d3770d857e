package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSiteWritesTheAtlasOfARelease(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, "--kafka", "4.4", "site", "--out", dir)
	if !strings.Contains(out, "for [4.4.0] to") {
		t.Errorf("site output = %q", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "4.4.0", "Vote", "v2", "request.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<dt>Request size</dt><dd>83 bytes</dd>`, `id="Topics.0.Partitions.0.PreVote"`, `[0x004f, 1B]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("Vote v2 page lacks %q", want)
		}
	}
	for _, f := range []string{"index.html", "assets/site.css", "assets/site.js", "4.4.0/index.html", "4.4.0/EndQuorumEpoch/v1/response.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "3.9.1")); err == nil {
		t.Error("--kafka 4.4 wrote 3.9.1 too")
	}
}

func TestSiteUsage(t *testing.T) {
	if r := kwire(t, "site"); r.code != 2 || !strings.Contains(r.stderr, "--out") {
		t.Errorf("site without --out: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := kwire(t, "--kafka", "2.0", "site", "--out", t.TempDir()); r.code != 2 {
		t.Errorf("site of an unknown release: exit %d, want 2", r.code)
	}
}
