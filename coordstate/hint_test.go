package coordstate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A partition's segment read where no internal topic's decoder reads it
// (a copy in a directory named otherwise) leaves no state, and the text
// and JSON say what to do; read in its own directory, it has a state and
// no hint.
func TestDecoderHint(t *testing.T) {
	cd := testCodec(t)
	seg := filepath.Join("..", "docs", "examples", "__consumer_offsets-26", "00000000000000000000.log")
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "renamed")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, "00000000000000000000.log")
	if err := os.WriteFile(copied, data, 0o644); err != nil {
		t.Fatal(err)
	}
	hint := "no state: no record of a type --state replays (a directory not named like __consumer_offsets-N: use --decoder offsets|transactions|share-state)"
	s := replayFiles(t, cd, copied)
	if got := string(s.AppendText(nil)); got != hint+"\n" {
		t.Errorf("text %q, want %q", got, hint)
	}
	if got, want := string(s.AppendJSON(nil)), `{"type":"note","message":"`+hint+`"}`+"\n"; got != want {
		t.Errorf("JSON %q, want %q", got, want)
	}
	s = replayFiles(t, cd, seg)
	if got := string(s.AppendText(nil)); !strings.HasPrefix(got, "OFFSETS\n") || strings.Contains(got, "--decoder") {
		t.Errorf("text of the partition's own directory:\n%s", got)
	}
	if got := string(s.AppendJSON(nil)); strings.Contains(got, "--decoder") {
		t.Errorf("JSON of the partition's own directory:\n%s", got)
	}
}
