package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/alecthomas/kong"
	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/internal/cli"
)

// mustExit runs kwire and fails unless it exits with code; it returns
// stdout.
func mustExit(t *testing.T, code int, args ...string) string {
	t.Helper()
	r := kwire(t, args...)
	if r.code != code {
		t.Fatalf("kwire %s: exit %d, want %d; stderr:\n%s", strings.Join(args, " "), r.code, code, r.stderr)
	}
	return r.stdout
}

func TestVersionFlagIsTheVersionCommand(t *testing.T) {
	want := mustRun(t, "version")
	if got := mustRun(t, "--version"); got != want {
		t.Errorf("kwire --version:\n%s\nkwire version:\n%s", got, want)
	}
	if !strings.HasPrefix(want, "kwire (devel) (go") || !strings.Contains(want, "\n  4.4.0  --kafka 4.4    286 spec files\n  4.3.2  --kafka 4.3    280 spec files\n") ||
		!strings.Contains(want, "\n  3.9.2  --kafka 3.9    240 spec files\n  3.9.1  --kafka 3.9.1  240 spec files\n") ||
		!strings.HasSuffix(want, "\n  3.0.2  --kafka 3.0    171 spec files\n(kwire version --jars: the Maven Central jars they came from, with their sha256)\n") {
		t.Errorf("kwire version:\n%s", want)
	}
	// show --version N is still show's flag.
	if r := kwire(t, "show", "Vote", "--version", "2", "--request", "--format", "kafka"); r.code != 0 || !strings.HasPrefix(r.stdout, "{") {
		t.Errorf("show --version 2: exit %d, %q", r.code, r.stdout)
	}
}

// commands are kwire's commands, as kong sees them.
func commands(t *testing.T) []*kong.Node {
	t.Helper()
	p, err := kong.New(&kwireCLI{}, kong.Name("kwire"), kong.ValueFormatter(cli.HelpWithDefault))
	if err != nil {
		t.Fatal(err)
	}
	return p.Model.Children
}

func TestHelpCommandIsHelpFlag(t *testing.T) {
	if got, want := mustRun(t, "help"), mustRun(t, "--help"); got != want || !strings.HasPrefix(got, "Usage: kwire <command> [flags]\n") {
		t.Errorf("kwire help:\n%s\nkwire --help:\n%s", got, want)
	}
	cmds := commands(t)
	if len(cmds) != 19 {
		t.Errorf("%d commands", len(cmds))
	}
	for _, c := range cmds {
		got, want := mustRun(t, "help", c.Name), mustRun(t, c.Name, "--help")
		if got != want || !strings.HasPrefix(got, "Usage: kwire "+c.Name) {
			t.Errorf("kwire help %s:\n%s\nkwire %s --help:\n%s", c.Name, got, c.Name, want)
		}
	}
	if r := kwire(t, "help", "nosuch"); r.code != 2 || r.stdout != "" {
		t.Errorf("help nosuch: exit %d, stdout %q", r.code, r.stdout)
	}
}

// collapse joins the words of s with one space: help text wraps.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestHelpShowsEveryDefault(t *testing.T) {
	shown := 0
	for _, c := range commands(t) {
		help := collapse(mustRun(t, c.Name, "--help"))
		if c.Name == "version" { // and the global flags
			c.Flags = append(c.Flags, c.Parent.Flags...)
		}
		for _, f := range c.Flags {
			if !f.HasDefault || f.Default == "" {
				continue
			}
			want := collapse(strings.TrimSuffix(f.Help, ".") + " (default: " + f.Default + ").")
			if !strings.Contains(help, want) {
				t.Errorf("kwire %s --help lacks %q", c.Name, want)
			}
			shown++
		}
	}
	// pcap --port has none: without it Kafka is found on any port; nor
	// log --max-decompressed-total: its default depends on --tree.
	if shown != 44 {
		t.Errorf("%d defaults shown, want 44", shown)
	}
	// The default shows once, in the help text, not also as the value
	// (--color="auto"); kwire's own --version is listed with the root's
	// flags.
	for _, c := range append(commands(t), nil) {
		args := []string{"--help"}
		if c != nil {
			args = []string{c.Name, "--help"}
		}
		if help := mustRun(t, args...); strings.Contains(help, `="`) || !strings.Contains(collapse(help), "--color=COLOR Colour the output: auto") {
			t.Errorf("kwire %s:\n%s", strings.Join(args, " "), help)
		}
	}
	if help := collapse(mustRun(t, "--help")); !strings.Contains(help, "--version Print kwire's version and its embedded Kafka releases (kwire version); only before a command. Commands:") {
		t.Errorf("kwire --help lacks --version:\n%s", help)
	}
	if help := mustRun(t, "show", "--help"); strings.Contains(help, "kwire's version") {
		t.Errorf("kwire show --help lists the root's --version:\n%s", help)
	}
	for cmd, want := range map[string]string{
		"serve":  "--addr=HOST:PORT Address to listen on (default: 127.0.0.1:8080).",
		"proxy":  "--listen=HOST:PORT Address to listen on for Kafka clients (default: 127.0.0.1:19092).",
		"pcap":   "Connections on other ports are ignored; without a captured handshake the end on this port is the server. Without --port, connections on port 9092 are decoded, and those on any other port whose client's first bytes are a Kafka request (the summary names the ports found). --tree",
		"decode": "past it payloads (decompression bombs) are reported, not followed (default: 33554432).",
		"log":    "Most bytes one compressed record batch may expand to (default: 268435456).",
		"site":   "--workers=N Pages rendered at once (default: one per CPU). --quiet",
	} {
		if help := collapse(mustRun(t, "help", cmd)); !strings.Contains(help, want) {
			t.Errorf("kwire help %s lacks %q:\n%s", cmd, want, help)
		}
	}
	if help := collapse(mustRun(t, "help", "pcap")); !strings.Contains(help, "--max-frame=BYTES Largest frame size prefix accepted (bytes); larger frames are reported and skipped (default: 104857600).") {
		t.Errorf("pcap --max-frame:\n%s", help)
	}
	if help := collapse(mustRun(t, "help", "proxy")); !strings.Contains(help, "not decoded (default: 104857600).") ||
		!strings.Contains(help, "--grace=DURATION On SIGINT or SIGTERM, how long open connections may go on before they are closed (default: 5s).") {
		t.Errorf("proxy --max-frame, --grace:\n%s", help)
	}
}

func TestCompletion(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ = filepath.Abs(exe)
	for shell, want := range map[string]string{
		"bash": "complete -o default -o bashdefault -C " + exe + " kwire\n",
		"zsh":  "autoload -U +X bashcompinit && bashcompinit\ncomplete -o default -o bashdefault -C " + exe + " kwire\n",
		"fish": "function __complete_kwire\n    set -lx COMP_LINE (commandline -cp)\n    test -z (commandline -ct)\n" +
			"    and set COMP_LINE \"$COMP_LINE \"\n    " + exe + "\nend\ncomplete -f -c kwire -a \"(__complete_kwire)\"\n",
	} {
		if got := mustRun(t, "completion", "-c", shell); got != want {
			t.Errorf("completion -c %s:\n%s\nwant:\n%s", shell, got, want)
		}
		if got := mustRun(t, "completion", shell); !strings.Contains(got, "\n    source <(kwire completion -c "+shell+")\n") && !strings.Contains(got, "\n    kwire completion -c fish | source\n") {
			t.Errorf("completion %s:\n%s", shell, got)
		}
	}
	if r := kwire(t, "completion", "tcsh"); r.code != 2 {
		t.Errorf("completion tcsh: exit %d", r.code)
	}
	// The help is kwire's own and lists the shells.
	help := collapse(mustRun(t, "completion", "--help"))
	if !strings.Contains(help, "Arguments: [<shell>] The shell: bash, zsh or fish (default: your login shell). Flags:") || strings.Contains(help, "in order activate") {
		t.Errorf("completion --help:\n%s", help)
	}
	// The scripts ask kwire itself, with the command line in COMP_LINE:
	// its answers name the commands, flags and enum values.
	for line, want := range map[string][]string{
		"kwire ":                 {"call", "compat", "completion", "conform", "decode", "diff", "encode", "help", "history", "lint", "list", "log", "pcap", "proxy", "serve", "show", "site", "version", "wireshark"},
		"kwire de":               {"decode"},
		"kwire decode --ma":      {"--max-decompressed", "--max-nodes"},
		"kwire proxy --li":       {"--listen"},
		"kwire pcap --format ":   {"json", "parquet", "text"},
		"kwire --color a":        {"always", "auto"},
		"kwire show Vote --vers": {"--version"},
		"kwire serve --addr=1 -": {"--addr", "--color", "--dir", "--help", "--kafka", "--show-secrets", "--specs", "--values", "-h"},
		"kwire completion -c fi": {"fish"},
		"kwire completion ":      {"bash", "fish", "zsh"},
		"kwire --kafka ":         {"3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9", "3.9.1", "4.0", "4.1", "4.2", "4.3", "4.4"},
		"kwire show --kafka 3.9": {"3.9", "3.9.1"},
		"kwire show --kafka 4":   {"4.0", "4.1", "4.2", "4.3", "4.4"},
		// Names come from the specs: of the newest release, or of the
		// one --kafka names, before the command or after it.
		"kwire show Vo":                          {"Vote", "VoteRequest", "VoteResponse", "VotersRecord"},
		"kwire show vo":                          {"vote", "voterequest", "voteresponse", "votersrecord"},
		"kwire encode VoteR":                     {"VoteRequest", "VoteResponse"},
		"kwire history EndQuorumEpochR":          {"EndQuorumEpochRequest", "EndQuorumEpochResponse"},
		"kwire decode --api FetchS":              {"FetchSnapshot", "FetchSnapshotRequest", "FetchSnapshotResponse"},
		"kwire decode --api=FetchSnapshotR":      {"FetchSnapshotRequest", "FetchSnapshotResponse"},
		"kwire call DescribeQ":                   {"DescribeQuorum"},
		"kwire call Vote":                        {"Vote"},
		"kwire log --decoder ":                   {"metadata", "offsets", "remote-log-metadata", "share-state", "transactions"},
		"kwire log --type PartitionC":            {"PartitionChangeRecord"},
		"kwire show ConsumerGroupHeartbeat":      {"ConsumerGroupHeartbeat", "ConsumerGroupHeartbeatRequest", "ConsumerGroupHeartbeatResponse"},
		"kwire --kafka 3.0 show ConsumerGroupH":  nil,
		"kwire show --kafka=3.0 ConsumerGroupH":  nil,
		"kwire --kafka 3.7 show ConsumerGroupHe": {"ConsumerGroupHeartbeat", "ConsumerGroupHeartbeatRequest", "ConsumerGroupHeartbeatResponse"},
		// A flag of kwire's after the command is skipped with its value
		// when counting the command's arguments.
		"kwire show --kafka 3.0 Vo":                 {"Vote", "VoteRequest", "VoteResponse"},
		"kwire show --kafka=3.0 Vo":                 {"Vote", "VoteRequest", "VoteResponse"},
		"kwire call --kafka 3.0 --bootstrap x:1 Vo": {"Vote"},
		"kwire show --color never --kafka 4.4 Vo":   {"Vote", "VoteRequest", "VoteResponse", "VotersRecord"},
		"kwire show --kafka 3.0 Vote ":              nil,
		"kwire pcap --api Met":                      {"Metadata"},
		"kwire pcap --api=Met":                      {"Metadata"},
		"kwire proxy --api Met":                     {"Metadata"},
		"kwire pcap --errors --api Fetch,Met":       nil,
	} {
		t.Setenv("COMP_LINE", line)
		r := kwire(t)
		got := strings.Fields(r.stdout)
		slices.Sort(got)
		if r.code != 0 || !slices.Equal(got, want) {
			t.Errorf("COMP_LINE %q: exit %d, %q, want %q", line, r.code, got, want)
		}
	}
}

// The object tree fits the terminal: on one 100 columns wide the about
// column (at column 97 of this tree) is dropped; not on a terminal, the
// page is as it always was.
func TestOutputFitsTheTerminal(t *testing.T) {
	args := []string{"--color", "never", "show", "Vote", "--version", "2", "--response"}
	plain := mustRun(t, args...)
	narrow := kwireEnv(t, &env{terminal: true, width: 100}, args...)
	if narrow.code != 0 {
		t.Fatal(narrow.stderr)
	}
	const row = "    |       |       +-- LeaderId        int32            = 0                      [0x0014, 4B]"
	if !strings.Contains(plain, "\n"+row+"   The ID of the current leader or -1 if the leader is unknown.\n") ||
		!strings.Contains(narrow.stdout, "\n"+row+"\n") {
		t.Errorf("plain:\n%s\nnarrow:\n%s", plain, narrow.stdout)
	}
	for _, l := range strings.Split(narrow.stdout, "\n") {
		if len(l) > 100 {
			t.Errorf("a line of %d columns: %q", len(l), l)
		}
	}
	// At 80 columns the tree is narrowed further (render.Options.Width):
	// no line is wider, and every node keeps its name and range.
	at80 := kwireEnv(t, &env{terminal: true, width: 80}, args...)
	for _, l := range strings.Split(at80.stdout, "\n") {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("80 columns: a line of %d: %q", utf8.RuneCountInString(l), l)
		}
	}
	if !strings.Contains(at80.stdout, "\n    |       |       +-- LeaderId        = 0                      [0x0014, 4B]\n") {
		t.Errorf("80 columns:\n%s", at80.stdout)
	}
	// The request's uuids stay whole at 80 columns: the name column's
	// padding gives way, its deepest rows put their cells on a line below.
	req := kwireEnv(t, &env{terminal: true, width: 80}, "--color", "never", "show", "Vote", "--version", "2")
	if !strings.Contains(req.stdout, "\n    |       |       +-- ReplicaDirectoryId\n    |       |       |      = 00000000-0000-0000-0000-000000000000  [0x0023, 16B]\n") {
		t.Errorf("80 columns, the request:\n%s", req.stdout)
	}
	wide := kwireEnv(t, &env{terminal: true, width: 200}, args...)
	if wide.stdout != plain {
		t.Error("on a terminal wide enough, the page differs")
	}
}

// A frame that does not decode is a finding for pcap as for decode: both
// exit 1.
func TestPcapAndDecodeAgreeOnBytesThatDoNotDecode(t *testing.T) {
	cv := newConversation(t)
	bad := slices.Clone(cv.apiReq)
	// The body's clientSoftwareName: compact length 6 ("kwire"+1) becomes
	// 0x7f, beyond the frame.
	if bad[25] != 6 {
		t.Fatalf("byte 25 is %#x", bad[25])
	}
	bad[25] = 0x7f
	r := kwire(t, "decode", "--hex", hex.EncodeToString(bad))
	if r.code != 1 || !strings.Contains(r.stderr, "ApiVersionsRequest") {
		t.Errorf("decode: exit %d, stderr %s", r.code, r.stderr)
	}
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1, 1, pcapT0)
	c.Handshake()
	c.Send(true, bad, 0)
	c.Send(false, cv.apiResp, 0)
	c.Close()
	p := writeCapture(t, f)
	r = kwire(t, "pcap", p)
	if r.code != 1 || r.stderr != "kwire: "+p+": the conversations have problems (above)\n" || !strings.Contains(r.stdout, "1 exchange, 1 problem") {
		t.Errorf("pcap: exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	// A batch whose CRC does not match: decode and pcap both name it and
	// exit 1.
	prod := slices.Clone(cv.prReq)
	prod[len(prod)-5] ^= 0xff // in the record's value
	r = kwire(t, "decode", "--hex", hex.EncodeToString(prod))
	const crc = "ProduceRequest.TopicData[0].PartitionData[0].Records[0].crc at 0x003a: CRC-32C 0x36ff4dc3 stored, 0x951c6940 computed: the batch is corrupt"
	if r.code != 1 || r.stderr != "kwire: "+crc+"\nkwire: 1 problem in the records\n" {
		t.Errorf("decode: exit %d, stderr %q", r.code, r.stderr)
	}
	f = capturetest.NewPcap(layers.LinkTypeEthernet)
	c = capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1, 1, pcapT0)
	c.Handshake()
	c.Send(true, prod, 0)
	c.Send(false, cv.prResp, 0)
	c.Close()
	p = writeCapture(t, f)
	r = kwire(t, "pcap", p)
	if r.code != 1 || r.stderr != "kwire: "+p+": the conversations have problems (above)\n" ||
		!strings.Contains(r.stdout, "  records: c2s at stream offset 58: request (api key 0 v9, correlation id 103) in the frame at stream offset 0 has a problem in its records: "+crc+"\n") {
		t.Errorf("pcap: exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	// A capture without problems exits 0.
	f = capturetest.NewPcap(layers.LinkTypeEthernet)
	c = capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1, 1, pcapT0)
	c.Handshake()
	c.Send(true, cv.apiReq, 0)
	c.Send(false, cv.apiResp, 0)
	c.Close()
	mustExit(t, 0, "pcap", writeCapture(t, f))
}
