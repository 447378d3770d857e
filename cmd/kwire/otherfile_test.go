package main

import (
	"os"
	"path/filepath"
	"testing"
)

// A capture given to decode or log, or a log segment given to pcap or
// decode, gets the command that reads it, not the error of reading it as
// what it is not (exit 1, nothing on standard output).
func TestOtherCommandsFile(t *testing.T) {
	dir := t.TempDir()
	pcapFile := filepath.Join(dir, "x.pcap")
	segFile := filepath.Join(dir, "seg.log")
	for dst, src := range map[string]string{
		pcapFile: "../../docs/examples/clients.pcap",
		segFile:  "../../docs/examples/__consumer_offsets-26/00000000000000000000.log",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"decode", pcapFile}, pcapFile + " is a pcap capture, not Kafka frames: read it with kwire pcap " + pcapFile},
		{[]string{"log", pcapFile}, pcapFile + " is a pcap capture, not a log segment or snapshot: read it with kwire pcap " + pcapFile},
		{[]string{"pcap", segFile}, segFile + " is a log segment (a record batch at offset 0), not a pcap or pcapng capture: read it with kwire log " + segFile},
		{[]string{"decode", segFile}, segFile + " is a log segment (a record batch at offset 0), not Kafka frames: read it with kwire log " + segFile},
	} {
		r := kwire(t, tc.args...)
		if r.code != 1 || r.stdout != "" || r.stderr != "kwire: "+tc.want+"\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q, want %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
	// Each file is still read by its own command.
	for _, args := range [][]string{{"pcap", pcapFile}, {"log", segFile}} {
		if r := kwire(t, args...); r.code != 0 || r.stdout == "" {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}
