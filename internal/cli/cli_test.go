package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/kwire/kwire/spec"
)

func TestExitCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
	}{
		{nil, 0},
		{errors.New("bytes do not decode"), 1},
		{Usagef("--hex: bad"), 2},
		{fmt.Errorf("frame 2: %w", Usagef("wrapped")), 2},
	} {
		if got := ExitCode(c.err); got != c.code {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.code)
		}
	}
}

func TestHostPort(t *testing.T) {
	for _, c := range []struct {
		addr   string
		listen bool
		want   string // "" for valid
	}{
		{"127.0.0.1:9092", false, ""},
		{"[::1]:9092", false, ""},
		{":0", true, ""},
		{"broker:65535", false, ""},
		{"nohost", false, `--f "nohost": missing port in address (want host:port)`},
		{"nohost:", false, `--f "nohost:": no port (want host:port)`},
		{"h:x", false, `--f "h:x": port "x" is not a number`},
		{"h:0", false, `--f "h:0": port 0 is out of range (1-65535)`},
		{"h:99999", true, `--f "h:99999": port 99999 is out of range (0-65535)`},
		{":9092", false, `--f ":9092": no host (want host:port)`},
	} {
		err := HostPort("f", c.addr, c.listen)
		got := ""
		if err != nil {
			got = err.Error()
			if ExitCode(err) != 2 {
				t.Errorf("%q: not a usage error", c.addr)
			}
		}
		if got != c.want {
			t.Errorf("HostPort(%q, %v) = %q, want %q", c.addr, c.listen, got, c.want)
		}
	}
}

func TestRootVersion(t *testing.T) {
	for _, c := range []struct {
		args    []string
		version bool
		err     string
	}{
		{[]string{"--version"}, true, ""},
		{[]string{"--kafka", "3.9", "--version"}, true, ""},
		{[]string{"--kafka=3.9", "--version", "--color", "never"}, true, ""},
		{[]string{"show", "Vote", "--version", "2"}, false, ""},
		{[]string{"--kafka", "--version"}, false, ""}, // --version is --kafka's value: kong says
		{[]string{"--", "--version"}, false, ""},
		{[]string{}, false, ""},
		{[]string{"--version", "show", "Vote"}, false, "--version before a command asks for kwire's own version; a message version goes after the command: kwire show … --version N"},
	} {
		v, err := RootVersion(c.args, "kafka", "specs", "color", "values")
		got := ""
		if err != nil {
			got = err.Error()
		}
		if v != c.version || got != c.err {
			t.Errorf("RootVersion(%q) = %v, %q; want %v, %q", c.args, v, got, c.version, c.err)
		}
	}
}

func TestExplainParse(t *testing.T) {
	k, err := kong.New(&testCLI{}, kong.Name("t"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--color", "never", "nosuch"}, "unknown command nosuch: the commands are show, list"},
		{[]string{"show", "nosuch"}, "unexpected argument nosuch"},
		// kong's own words suggest --limit="-5".
		{[]string{"--limit", "-5", "show"}, "--limit -5: must not be negative"},
	} {
		_, perr := k.Parse(c.args)
		if perr == nil {
			t.Fatalf("%q parsed", c.args)
		}
		if err := ExplainParse(k.Model, c.args, perr); err.Error() != c.want || ExitCode(err) != 2 {
			t.Errorf("ExplainParse(%q) = %q, want %q", c.args, err, c.want)
		}
	}
	kongErr := errors.New(`--version: expected int value but got "EOL" (<EOL>)`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"show", "--version"}, "--version needs a version number (e.g. --version 2)"},
		{[]string{"show", "--version", "x", "Vote"}, `--version needs a version number (e.g. --version 2), not "x"`},
		{[]string{"show", "--version", "2", "--nosuch"}, kongErr.Error()},
		// kong's own words for -1 suggest --version="-1".
		{[]string{"show", "Vote", "--version", "-1"}, "--version -1: a version is a number from 0 to 32767 (e.g. --version 2)"},
	} {
		err := ExplainParse(k.Model, c.args, kongErr)
		if err.Error() != c.want || ExitCode(err) != 2 {
			t.Errorf("ExplainParse(%q) = %q (exit %d), want %q", c.args, err, ExitCode(err), c.want)
		}
	}
	// A command without --version: kong's unknown flag stands.
	unknown := errors.New("unknown flag --version")
	if err := ExplainParse(k.Model, []string{"list", "--version"}, unknown); err.Error() != unknown.Error() {
		t.Errorf("list --version: %q", err)
	}
}

type testCLI struct {
	Color string `help:"Colour." enum:"auto,never" default:"auto"`
	Limit int    `help:"Most bytes." default:"10" placeholder:"BYTES"`
	Show  struct {
		Format string `help:"Format." default:"text"`
	} `cmd:""`
	List struct{} `cmd:""`
}

func TestPlaceholdersAndHelpArgs(t *testing.T) {
	k, err := kong.New(&testCLI{}, kong.Name("t"))
	if err != nil {
		t.Fatal(err)
	}
	Placeholders(k.Model)
	got := map[string]string{}
	for _, f := range append(k.Model.Flags, k.Model.Children[0].Flags...) {
		got[f.Name] = f.FormatPlaceHolder()
	}
	if got["color"] != "COLOR" || got["limit"] != "BYTES" || got["format"] != "FORMAT" {
		t.Errorf("placeholders %v", got)
	}
	if h := HelpWithDefault(k.Model.Flags[1].Value); h != "Colour (default: auto)." {
		t.Errorf("HelpWithDefault = %q", h)
	}
	for _, c := range []struct {
		words []string
		want  string
	}{
		{nil, "[--help]"},
		{[]string{"show"}, "[show --help]"},
		{[]string{"nosuch"}, "unknown command nosuch: the commands are show, list"},
		{[]string{"show", "list"}, "help takes one command, not 2 (show list): kwire help COMMAND"},
	} {
		args, err := HelpArgs(k.Model, c.words)
		got := fmt.Sprint(args)
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("HelpArgs(%q) = %q, want %q", c.words, got, c.want)
		}
	}
}

func ExampleHostPort() {
	fmt.Println(HostPort("bootstrap", "localhost:9092", false))
	err := HostPort("bootstrap", "localhost", false)
	fmt.Println(err, ExitCode(err))
	// Output:
	// <nil>
	// --bootstrap "localhost": missing port in address (want host:port) 2
}

func TestRepeatedFlag(t *testing.T) {
	var v struct {
		Specs string   `help:"Specs."`
		Dump  bool     `short:"d" help:"Dump."`
		Kafka []string `help:"Releases."`
		Show  struct {
			Hex  string `help:"Hex."`
			Name string `arg:"" optional:""`
		} `cmd:""`
	}
	k, err := kong.New(&v, kong.Name("t"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args       []string
		repeatable []string
		want       string
	}{
		{[]string{"--specs", "a", "show", "--specs=b"}, nil, "--specs given twice: give one; for several spec files put them in one directory"},
		{[]string{"show", "--hex", "00", "--hex", "01"}, nil, "--hex given twice: give one"},
		{[]string{"show", "-d", "--dump"}, nil, "--dump given twice: give one"},
		{[]string{"show", "--hex=--specs", "--specs", "x"}, nil, ""}, // "--specs" inside --hex's value
		{[]string{"show", "--hex", "00", "--", "--hex"}, nil, ""},    // after "--" an argument
		{[]string{"--kafka", "a", "show", "--kafka", "b"}, nil, ""},  // a slice
		{[]string{"--specs", "a", "show", "--specs", "b"}, []string{"specs"}, ""},
	} {
		ctx, err := k.Parse(c.args)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		err = RepeatedFlag(ctx, c.repeatable...)
		var ue UsageError
		if got := fmt.Sprint(err); c.want == "" && err != nil || c.want != "" && (got != c.want || !errors.As(err, &ue)) {
			t.Errorf("RepeatedFlag(%q) = %v, want %q", c.args, err, c.want)
		}
	}
}

// The names offered for completion are the release's: Kafka 3.0.2 has no
// ConsumerGroupHeartbeat, 4.4.0 has it; APIs alone are request names
// without "Request"; records are metadata records and internal topics'.
func TestNames(t *testing.T) {
	old, err := spec.Embedded("3.0")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(Names(old, Messages), "ConsumerGroupHeartbeat") || !slices.Contains(Names(cur, Messages), "ConsumerGroupHeartbeat") {
		t.Error("ConsumerGroupHeartbeat is offered in 3.0 or not in 4.4")
	}
	apis := Names(cur, APIs)
	if len(apis) != len(cur.APIKeys()) || !slices.Contains(apis, "Vote") || slices.Contains(apis, "VoteRequest") {
		t.Errorf("APIs of 4.4.0: %d names for %d api keys: %v", len(apis), len(cur.APIKeys()), apis)
	}
	recs := Names(cur, Records)
	for _, n := range []string{"PartitionRecord", "OffsetCommitKey"} {
		if !slices.Contains(recs, n) {
			t.Errorf("records of 4.4.0 lack %s", n)
		}
	}
	if slices.Contains(recs, "Vote") || slices.Contains(recs, "FetchRequest") {
		t.Errorf("records of 4.4.0 hold an API: %v", recs)
	}
	for words, want := range map[string]string{
		"":                               "",
		"--kafka 3.9 show Vote":          "3.9",
		"show --kafka=3.1 --kafka 3.2 x": "3.2",
		"--kafka":                        "",
	} {
		if got := KafkaFlag(strings.Fields(words)); got != want {
			t.Errorf("KafkaFlag(%q) = %q, want %q", words, got, want)
		}
	}
}
