package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/kwire/kwire/internal/cli"
	"github.com/kwire/kwire/internal/yamlflags"
	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
)

// env is what a run of kwire sees of the outside world, so that tests can
// run commands in-process with captured output.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// terminal says whether stdout is a terminal (for --color auto);
	// width is its width in columns (render.Options.Width), 0 if not one.
	terminal bool
	width    int
	// limitMemory is main's: the commands that hold an input's trees
	// (heldCommands) set the Go heap's soft limit (cliMemoryLimit) unless
	// GOMEMLIMIT sets another. Tests, which run commands in their own
	// process, leave it unset.
	limitMemory bool
}

// cliMemoryLimit is the soft limit of the Go heap
// (runtime/debug.SetMemoryLimit) of the commands that hold an input's
// trees: the collector runs before the garbage of a decode (arrays
// outgrown as a tree and its decompressed bytes grow) doubles the heap.
// A heap that needs more grows past it, the collector working harder. A
// legacy wrapper of 61 KB holding a million small messages took log
// --tree 78 MiB over its baseline; with the limit 45. (kwire serve has
// its own, serveMemoryLimit.)
const cliMemoryLimit = 64 << 20

// heldCommands are the commands that set cliMemoryLimit: they decode
// input the user gives, whole or a window at a time.
var heldCommands = map[string]bool{"decode": true, "encode": true, "log": true, "pcap": true, "call": true}

// kwireCLI is the command line, as kong parses it.
type kwireCLI struct {
	Kafka string `help:"Embedded Kafka release: a minor from 3.0 to 4.4 (its last patch release: 3.6 is 3.6.2) or an exact one (3.9.1); default: the newest, 4.4.0." placeholder:"R" predictor:"release"`
	Specs string `help:"Load the specs from a directory, a .jar/.zip or one spec file instead of an embedded release." placeholder:"PATH"`
	Color string `help:"Colour the output: auto (only on a terminal, and never when NO_COLOR is set), always, never." enum:"auto,always,never" default:"auto"`

	// Values is how the views show record bytes (render.Options.Values); ShowSecrets stops package secret redacting.
	Values      string `help:"Show record keys, values and header values as: auto (text when printable, else hex), utf8, hex, base64, or json (values that parse as JSON as JSON, others as auto, marked)." enum:"auto,utf8,hex,base64,json" default:"auto"`
	ShowSecrets bool   `name:"show-secrets" help:"Show credentials (SASL passwords, proofs and tokens, SCRAM salts, delegation-token HMACs, sensitive config values) in the output of proxy, pcap, call and log instead of <redacted, N bytes>. show, decode and encode never redact."`

	List    listCmd    `cmd:"" help:"List every API and record type of the release."`
	Show    showCmd    `cmd:"" help:"Show the smallest legal instance of an API's request and response, or of a record type."`
	Decode  decodeCmd  `cmd:"" help:"Decode the bytes of a framed request, a response or a record."`
	Encode  encodeCmd  `cmd:"" help:"Encode a message given as JSON in the format of Kafka's JsonConverters."`
	Version versionCmd `cmd:"" help:"Print kwire's version and its embedded Kafka releases (also kwire --version)."`
	Lint    lintCmd    `cmd:"" help:"Check spec files (drafts too) as Kafka's generator would, and for likely mistakes; --fix writes corrected copies."`
	Compat  compatCmd  `cmd:"" help:"Compare two sets of specs by Kafka's evolution rules, at the wire level; exit 1 on an incompatible change."`
	History historyCmd `cmd:"" help:"Show what each version of an API or record type changed, with the spec's own comments."`
	Diff    diffCmd    `cmd:"" help:"Summarise which APIs, record types and versions differ between two sets of specs."`
	Log     logCmd     `cmd:"" help:"List the batches and records of Kafka log segments and KRaft snapshots (metadata records decoded)."`
	Site    siteCmd    `cmd:"" help:"Write the Kafka protocol atlas, a self-contained static HTML site of every API, header and record type (Kafka 4.4.0 and 3.9.1 unless --kafka or --specs)."`
	Serve   serveCmd   `cmd:"" help:"Serve the Kafka protocol atlas over HTTP, with a page that decodes pasted hex."`
	Call    callCmd    `cmd:"" help:"Send one request to a live broker or controller (version negotiated with ApiVersions) and print the decoded response."`
	Pcap    pcapCmd    `cmd:"" help:"Decode the Kafka conversations of a pcap or pcapng capture: reassembled TCP streams, requests matched to responses, problems and resynchronisation."`
	Proxy   proxyCmd   `cmd:"" help:"Forward Kafka connections to a broker unchanged and print each request and response as it goes through, with problems (TLS, frames over --max-frame, cut frames)."`
	Conform conformCmd `cmd:"" help:"Judge a broker, controller or proxy against a Kafka release: every announced API and version probed, each response checked strictly; read-only unless --mutate. Exit 1 on findings."`

	Wireshark wiresharkCmd `cmd:"" help:"Write a Wireshark and tshark dissector (Lua, protocol kafka4) generated from the specs: every API and version, request and response; --install puts it in the personal plugin folder."`

	Help       helpCmd        `cmd:"" help:"Show the help of a command, as kwire COMMAND --help does."`
	Completion cli.Completion `cmd:"" help:"Tab completion of kwire's commands and flags in bash, zsh or fish: says how to turn it on; -c prints the shell code."`
}

type helpCmd struct {
	Command []string `arg:"" optional:"" help:"The command (none: kwire's own help)."`
}

type listCmd struct {
	Format string `help:"Output format: text or json." enum:"text,json" default:"text"`
}

type showCmd struct {
	Name     string `arg:"" help:"An API (Vote, VoteRequest, vote, 52) or a record or data type (PartitionRecord)." predictor:"message"`
	Version  *int16 `help:"Version to encode (default: the highest valid version)." placeholder:"N"`
	Request  bool   `help:"Show only the request." xor:"side"`
	Response bool   `help:"Show only the response." xor:"side"`
	Format   string `help:"Output format: text, json (the page), or kafka (the body as JSON in the format of Kafka's JsonConverters, one line per side)." enum:"text,json,kafka" default:"text"`
}

type decodeCmd struct {
	API      string  `help:"What the bytes are: an API (checked against the request header; required with --response) or a record type (PartitionRecord)." placeholder:"NAME" predictor:"message"`
	Version  *int16  `help:"Version of the bytes (checked against a request header or metadata record frame; required with --response and for data types)." placeholder:"N"`
	Response bool    `help:"The bytes are a framed response (needs --api and --version)."`
	Hex      *string `help:"The bytes as hex (spaces, newlines, ':' and 0x prefixes are ignored) or a hex dump with offsets (xxd, hexdump -C, od -Ax -tx1, Wireshark's Copy as Hex Dump, kwire's byte grid)." placeholder:"HEX"`
	File     string  `arg:"" optional:"" help:"File holding the bytes, raw or as hex text or a hex dump; - reads standard input."`
	Format   string  `help:"Output format: text, json (the page; JSON lines, one compact page per line, when the bytes hold several frames), or kafka (the body as JSON in the format of Kafka's JsonConverters, on one line)." enum:"text,json,kafka" default:"text"`
	Strict   bool    `help:"Refuse what Kafka's readers tolerate: tagged fields out of ascending order or repeated, and a tagged field whose size prefix is wrong."`
	// MaxDecompressed bounds the compressed record payloads of the input,
	// one or together (bytes): the tree holds them.
	MaxDecompressed int64 `help:"Most bytes the compressed record batches of the input may expand to, one or together (the tree shown holds them); past it payloads (decompression bombs) are reported, not followed." default:"33554432" placeholder:"BYTES"`
	// MaxNodes bounds the nodes of the frames' trees, which they share
	// (records.DefaultMaxNodes).
	MaxNodes int `help:"Most nodes the trees shown may hold, the input's frames together (16 bytes each); past it the rest of a frame's records is reported, not decoded." default:"524288" placeholder:"N"`
}

type encodeCmd struct {
	Name       string  `arg:"" help:"An API (Vote, VoteRequest, VoteResponse, vote, 52) or a record or data type (PartitionRecord)." predictor:"message"`
	File       string  `arg:"" help:"File holding the message body as JSON in the format of Kafka's JsonConverters; - reads standard input."`
	Version    *int16  `help:"Version of the message (required: the JSON does not say)." placeholder:"N"`
	Request    bool    `help:"Encode a framed request (the default for an API)." xor:"side"`
	Response   bool    `help:"Encode a framed response." xor:"side"`
	HeaderJSON *string `name:"header-json" help:"The header as JSON in the format of RequestHeader's or ResponseHeader's converter (default: correlation id 0, client id \"\")." placeholder:"H"`
	Raw        bool    `help:"Write the bytes themselves instead of hex."`
	Format     string  `help:"Output format: hex (the bytes on one line), text or json (the page of the encoded message, as decode prints it)." enum:"hex,text,json" default:"hex"`
}

type versionCmd struct {
	Jars bool `help:"Also list each release's jars on Maven Central with their sha256."`
}

// usageError is an error of the command line itself (exit 2); every other
// error a command returns is a finding (exit 1): the rule of cli.ExitCode.
type usageError = cli.UsageError

var usagef = cli.Usagef

// repeatable are the flags a command reads from every occurrence (compat
// and diff compare two --kafka/--specs sides); every other flag that holds
// one value may be given once (cli.RepeatedFlag).
var repeatable = map[string][]string{"compat": {"kafka", "specs"}, "diff": {"kafka", "specs"}}

// kongExit carries kong's request to exit (after --help) out of Parse.
type kongExit int

// run runs kwire with args (without the program name) and returns the exit
// code.
func run(args []string, e *env) (code int) {
	var (
		c      kwireCLI
		parser *kong.Kong
	)
	help, err := cli.RootFlagHelp("version", "Print kwire's version and its embedded Kafka releases (kwire version); only before a command.")
	if err == nil {
		parser, err = kong.New(&c, kong.Name("kwire"),
			kong.Description("kwire makes the Apache Kafka wire protocol visible.\n\n"+cli.Rule),
			kong.Writers(e.stdout, e.stderr),
			kong.Exit(func(code int) { panic(kongExit(code)) }),
			kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
			kong.ValueFormatter(cli.HelpWithDefault), kong.Configuration(yamlflags.Loader), help)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "kwire: %v\n", err)
		return 2
	}
	cli.Placeholders(parser.Model)
	defer func() {
		if r := recover(); r != nil {
			x, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			code = int(x)
		}
	}()
	var flags []string
	for _, r := range bundle.Releases() {
		flags = append(flags, bundle.Flag(r))
	}
	cli.RegisterCompletion(parser, cli.Predictors(flags, logseg.Decoders())...)
	version, err := cli.RootVersion(args, "kafka", "specs", "color", "values")
	if version {
		args = []string{"version"}
	}
	var ctx *kong.Context
	helpOf := "kwire"
	if err == nil {
		ctx, err = parser.Parse(args)
		if err != nil {
			helpOf = cli.CommandPath(err, helpOf)
			err = cli.ExplainParse(parser.Model, args, err)
		}
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "kwire: %v (see %s --help)\n", err, helpOf)
		return 2
	}
	cmd := strings.Fields(ctx.Command())[0]
	if err := cli.RepeatedFlag(ctx, repeatable[cmd]...); err != nil {
		fmt.Fprintf(e.stderr, "kwire: %v (see kwire %s --help)\n", err, cmd)
		return 2
	}
	if e.limitMemory && heldCommands[cmd] && e.getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(cliMemoryLimit)
	}
	a := &app{env: e, cli: &c}
	switch cmd {
	case "list":
		err = a.list(&c.List)
	case "show":
		err = a.show(&c.Show)
	case "decode":
		err = a.decode(&c.Decode)
	case "encode":
		err = a.encode(&c.Encode)
	case "version":
		err = a.version(&c.Version)
	case "lint":
		err = a.lint(&c.Lint)
	case "compat":
		err = a.compat(&c.Compat)
	case "history":
		err = a.history(&c.History)
	case "diff":
		err = a.diff(&c.Diff)
	case "log":
		err = a.log(&c.Log)
	case "site":
		err = a.site(&c.Site)
	case "serve":
		err = a.serve(&c.Serve)
	case "call":
		err = a.call(&c.Call)
	case "pcap":
		err = a.pcap(&c.Pcap)
	case "proxy":
		err = a.proxy(&c.Proxy)
	case "conform":
		err = a.conform(&c.Conform)
	case "wireshark":
		err = a.wireshark(&c.Wireshark)
	case "help":
		if args, err = cli.HelpArgs(parser.Model, c.Help.Command); err == nil {
			return run(args, e)
		}
	case "completion":
		err = c.Completion.Run(ctx)
	default:
		err = usagef("unknown command %q", cmd)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "kwire: %v\n", err)
	}
	return cli.ExitCode(err)
}

// app is one run of a command: the parsed flags and the environment.
type app struct {
	*env
	cli *kwireCLI
	// problems are the errors and warnings of --specs files, once loaded.
	problems spec.ErrorList
}

// color reports whether output is coloured, by --color and the environment.
func (a *app) color() bool {
	return useColor(a.cli.Color, a.terminal, a.getenv)
}

// useColor decides --color: always and never are what they say; auto
// colours only a terminal, and only when NO_COLOR is unset or empty
// (https://no-color.org).
func useColor(mode string, terminal bool, getenv func(string) string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return terminal && getenv("NO_COLOR") == ""
}

// loadSet loads the specs named by --kafka or --specs. Problems in --specs
// files are printed to stderr, one file:line:col line each, and kept in
// a.problems; the set holds the messages that loaded.
func (a *app) loadSet() (*spec.Set, error) {
	if a.cli.Specs != "" {
		if a.cli.Kafka != "" {
			return nil, usagef("--kafka and --specs both name specs: give one")
		}
		set, problems, err := spec.FromPath(a.cli.Specs)
		if err != nil {
			return nil, err
		}
		for _, p := range problems {
			fmt.Fprintln(a.stderr, p)
		}
		a.problems = problems
		if n := len(set.Unloaded); len(set.Messages) == 0 && n > 0 {
			return nil, fmt.Errorf("--specs %s: no spec loaded: %d spec %s did not load (errors above)", a.cli.Specs, n, plural(n, "object", "objects"))
		} else if len(set.Messages) == 0 {
			return nil, fmt.Errorf("--specs %s: no spec loaded%s", a.cli.Specs, above(len(problems.Errors())))
		}
		return set, nil
	}
	set, err := spec.Embedded(a.cli.Kafka)
	if err != nil {
		return nil, usageError{Err: err}
	}
	return set, nil
}

// problemsWhere says where the problems that an error counts were
// printed, for the output format (text or json): "(above)" in text, and
// `(the "problem" lines of the output)` in json, where they are lines of
// type "problem" on standard output among the others.
func problemsWhere(format string) string {
	if format == "json" {
		return `(the "problem" lines of the output)`
	}
	return "(above)"
}

// findingsWhere says where the findings of --check were printed.
func findingsWhere(format string) string {
	if format == "json" {
		return `(the "findings" of the "exchange" lines of the output)`
	}
	return "(the finding lines above)"
}

// above is " (N spec errors above)", or "" for none.
func above(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d spec %s above)", n, plural(n, "error", "errors"))
}

// notLoaded adds to a lookup error that the specs had errors, when they
// did: the named message may be in a file that did not load.
func (a *app) notLoaded(err error) error {
	if n := len(a.problems.Errors()); n > 0 {
		return fmt.Errorf("%w (%d spec %s above: the message may be in a file that did not load)", err, n, plural(n, "error", "errors"))
	}
	return err
}

// writePage prints a page as text, as the page JSON with each side's body
// and header in Kafka's converter format (render.WritePageJSON), or as the
// Kafka-converter JSON of each side's body alone (kafka).
func (a *app) writePage(p *render.Page, format string) error {
	switch format {
	case "json":
		return render.WritePageJSON(a.stdout, p, a.renderOptions())
	case "kafka":
		return render.WriteKafka(a.stdout, p)
	}
	return render.WriteText(a.stdout, p, a.renderOptions())
}
