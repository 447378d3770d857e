package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitStatusRule: the same kind of outcome gets the same exit status
// in every command (internal/cli): 2 when the command line is malformed
// (a flag value invalid on its face, a missing argument), 1 when the
// command ran and found something (a bad or missing file, bytes, a body).
// Each error is printed once, on standard error.
// allReleases lists the embedded releases as errors name them.
const allReleases = "4.4.0, 4.3.2, 4.2.2, 4.1.2, 4.0.2, 3.9.2, 3.9.1, 3.8.1, 3.7.2, 3.6.2, 3.5.2, 3.4.1, 3.3.2, 3.2.3, 3.1.2, 3.0.2"

func TestExitStatusRule(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.hex")
	empty := filepath.Join(dir, "empty")
	seg := filepath.Join(dir, "seg.log")
	nodir := filepath.Join(dir, "nodir")
	for name, data := range map[string]string{typo: "0000 zz\n", empty: "", seg: "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x3a\xff\xff"} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	missing := "kwire: " + nodir + ": no such file or directory\n"
	for _, c := range []struct {
		args   []string
		code   int
		stderr string // the whole of it, or its end after "…"
	}{
		// Hex: a typo in a file is bad input; in --hex a bad flag value.
		{[]string{"decode", typo}, 1, "kwire: " + typo + `:1:6: "z" is not a hex digit (read as hex text: it looks like hex)` + "\n"},
		{[]string{"decode", "--hex", "zz"}, 2, `kwire: --hex: line 1, column 1: "z" is not a hex digit` + "\n"},
		// No bytes: an empty file is bad input; --hex "" or no input at
		// all is a command line that names no bytes.
		{[]string{"decode", empty}, 1, "kwire: no bytes to decode: " + empty + " is empty\n"},
		{[]string{"decode", "--hex", ""}, 2, "kwire: no bytes to decode: --hex holds no hex digits\n"},
		{[]string{"decode"}, 2, "kwire: no bytes to decode: give --hex HEX, a file, or - for standard input\n"},
		// A missing spec path is a finding wherever it is named, without
		// an internal prefix.
		{[]string{"--specs", nodir, "list"}, 1, missing},
		{[]string{"--specs", nodir, "show", "Vote"}, 1, missing},
		{[]string{"--specs", nodir, "decode", "--hex", "00"}, 1, missing},
		{[]string{"--specs", nodir, "log", seg}, 1, missing},
		{[]string{"lint", nodir}, 1, missing},
		{[]string{"compat", nodir, "4.4"}, 1, "kwire: the old specs: " + nodir + ": no such file or directory, nor an embedded release (embedded: " + allReleases + ")\n"},
		{[]string{"diff", nodir, "4.4"}, 1, "kwire: the old specs: " + nodir + ": no such file or directory, nor an embedded release (embedded: " + allReleases + ")\n"},
		// An unknown release is a bad flag value, as a side or --kafka.
		{[]string{"compat", "4.5", "4.4"}, 2, `kwire: the old specs: "4.5" is neither a file or directory nor an embedded release (embedded: ` + allReleases + ")\n"},
		{[]string{"--kafka", "9", "list"}, 2, `kwire: no embedded Kafka release matches "9" (embedded: ` + allReleases + ")\n"},
		// Addresses without a port or with one out of range.
		{[]string{"call", "--bootstrap", "nohost", "Vote"}, 2, `kwire: --bootstrap "nohost": missing port in address (want host:port)` + "\n"},
		{[]string{"proxy", "--upstream", "nohost"}, 2, `kwire: --upstream "nohost": missing port in address (want host:port)` + "\n"},
		{[]string{"serve", "--addr", "nohost:99999"}, 2, `kwire: --addr "nohost:99999": port 99999 is out of range (0-65535)` + "\n"},
		{[]string{"proxy", "--listen", "bad", "--upstream", "127.0.0.1:9092"}, 2, `kwire: --listen "bad": missing port in address (want host:port)` + "\n"},
		// A body that is not JSON is refused before connecting (port 1
		// would refuse the connection: a different error).
		{[]string{"call", "--bootstrap", "127.0.0.1:1", "Vote", "{bad"}, 1, "kwire: VoteRequest body: $: malformed JSON at byte 1: invalid character 'b'\n"},
		// A spec path that loads nothing: no table, exit 1.
		{[]string{"list", "--specs", seg}, 1, "…\nkwire: --specs " + seg + ": no spec loaded (1 spec error above)\n"},
		// --version without a number, or before a command.
		{[]string{"show", "Vote", "--version"}, 2, "kwire: --version needs a version number (e.g. --version 2) (see kwire show --help)\n"},
		{[]string{"show", "--version", "--response", "Vote"}, 2, `kwire: --version needs a version number (e.g. --version 2), not "--response" (see kwire show --help)` + "\n"},
		{[]string{"show", "Vote", "--version", "-1"}, 2, "kwire: --version -1: a version is a number from 0 to 32767 (e.g. --version 2) (see kwire show --help)\n"},
		{[]string{"--version", "show", "Vote"}, 2, "kwire: --version before a command asks for kwire's own version; a message version goes after the command: kwire show … --version N (see kwire --help)\n"},
		// A flag that holds one value, given twice: kong would keep the last.
		{[]string{"show", "Vote", "--version", "2", "--specs", "a.json", "--specs", "b.json"}, 2, "kwire: --specs given twice: give one; for several spec files put them in one directory (see kwire show --help)\n"},
		{[]string{"list", "--specs", "A", "--specs=B"}, 2, "kwire: --specs given twice: give one; for several spec files put them in one directory (see kwire list --help)\n"},
		{[]string{"decode", "--hex", "00", "--hex", "01"}, 2, "kwire: --hex given twice: give one (see kwire decode --help)\n"},
		{[]string{"--kafka", "3.9", "show", "Vote", "--kafka", "4.4"}, 2, "kwire: --kafka given twice: give one (see kwire show --help)\n"},
		{[]string{"compat", "--kafka", "3.9", "--kafka", "4.4", "--format", "json", "--format", "text"}, 2, "kwire: --format given twice: give one (see kwire compat --help)\n"},
		// pcap: a missing key log and an unknown API name are findings;
		// no capture named, or two, a malformed command line.
		{[]string{"pcap", "--keylog", nodir, "../../docs/examples/clients.pcap"}, 1, "kwire: --keylog: open " + nodir + ": no such file or directory\n"},
		{[]string{"pcap", "--api", "Nope", "../../docs/examples/clients.pcap"}, 1, "kwire: --api: unknown API or message \"Nope\" in Kafka 4.4.0 (`kwire list` shows all 191: Produce, Fetch, ListOffsets, Metadata, LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown, OffsetCommit, OffsetFetch, FindCoordinator, JoinGroup, …)\n"},
		{[]string{"pcap"}, 2, "kwire: give a capture FILE (- for standard input) or --interface NAME\n"},
		// help and completion name what is wrong.
		{[]string{"help", "nosuch"}, 2, "kwire: unknown command nosuch: the commands are list, show, decode, encode, version, lint, compat, history, diff, log, site, serve, call, pcap, proxy, conform, wireshark, help, completion\n"},
		{[]string{"--kafka", "3.9", "nosuch"}, 2, "kwire: unknown command nosuch: the commands are list, show, decode, encode, version, lint, compat, history, diff, log, site, serve, call, pcap, proxy, conform, wireshark, help, completion (see kwire --help)\n"},
		{[]string{"help", "show", "decode"}, 2, "kwire: help takes one command, not 2 (show decode): kwire help COMMAND\n"},
		{[]string{"completion", "tcsh"}, 2, `kwire: unknown shell "tcsh": kwire completes in bash, zsh, fish` + "\n"},
	} {
		r := kwire(t, c.args...)
		ok := r.stderr == c.stderr
		if tail, cut := strings.CutPrefix(c.stderr, "…\n"); cut {
			ok = strings.HasSuffix(r.stderr, "\n"+tail)
		}
		if r.code != c.code || !ok || r.stdout != "" {
			t.Errorf("kwire %q: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", c.args, r.code, r.stdout, r.stderr, c.code, c.stderr)
		}
	}
	// kwire's own --version with global flags around it.
	want := mustRun(t, "version")
	for _, args := range [][]string{{"--kafka", "3.9", "--version"}, {"--version", "--color", "never"}} {
		if got := mustRun(t, args...); got != want {
			t.Errorf("kwire %q:\n%s\nwant kwire version:\n%s", args, got, want)
		}
	}
}
