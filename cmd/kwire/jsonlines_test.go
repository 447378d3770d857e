package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// decode --format json of bytes that hold several frames prints JSON
// lines: one compact page per line, each the same object as the page of
// that frame alone (but its place among the frames).
func TestDecodeSeveralFramesIsJSONLines(t *testing.T) {
	const one = "00000010001200030000000100026b7700010100" // ApiVersions v3
	out := mustRun(t, "decode", "--hex", one+one, "--format", "json")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2 (JSON lines):\n%.400s", len(lines), out)
	}
	alone := map[string]any{}
	if err := json.Unmarshal([]byte(mustRun(t, "decode", "--hex", one, "--format", "json")), &alone); err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		var page map[string]any
		if err := json.Unmarshal([]byte(l), &page); err != nil {
			t.Fatalf("line %d is not a JSON object: %v\n%.200s", i+1, err, l)
		}
		if page["frame"] != float64(i+1) || page["frames"] != float64(2) || page["input_offset"] != float64(20*i) {
			t.Errorf("line %d: frame %v of %v at %v", i+1, page["frame"], page["frames"], page["input_offset"])
		}
		req, _ := json.Marshal(page["request"])
		want, _ := json.Marshal(alone["request"])
		if i == 0 && string(req) != string(want) {
			t.Errorf("line 1's request differs from the page of the frame alone:\n%s\nwant\n%s", req, want)
		}
	}
}
