package cli

import (
	"errors"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"
	kongcompletion "github.com/jotaen/kong-completion"
	"github.com/posener/complete"

	"github.com/kwire/kwire/spec"
)

// RootVersion reports whether args ask for kwire's own version: a
// "--version" before the command word, with only global flags around it
// (globals names those that take a value, without dashes: "kafka"). Global
// flags are then ignored: kwire's version names every embedded release.
// "--version" followed by a command is a UsageError: a command's
// --version N (a message version) goes after the command word.
func RootVersion(args []string, globals ...string) (bool, error) {
	takesValue := func(a string) bool {
		return strings.HasPrefix(a, "--") && slices.Contains(globals, a[2:])
	}
	seen := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return false, nil
		case a == "--version":
			seen = true
		case takesValue(a):
			i++
		case strings.HasPrefix(a, "-"):
		case seen:
			return false, Usagef("--version before a command asks for kwire's own version; a message version goes after the command: kwire %s … --version N", a)
		default:
			return false, nil
		}
	}
	return seen, nil
}

// negativeNumber matches kong's error for a number flag given a negative
// number, which it reads as a short flag: the flag's name and the number.
var negativeNumber = regexp.MustCompile(`^--([a-z0-9-]+): expected int value but got "(-[0-9]+)" \(short flag\)`)

// ExplainParse rewrites kong's parse error about args of app where a
// plainer one is known: a number flag given a negative number says that
// it must not be negative (kong suggests --NAME="-5"); a --version with no number after it ("expected int
// value but got "EOL"") says that --version needs a version number (and a
// negative one, which kong reads as a short flag, that versions are not
// negative), and a
// command line without a command whose word kong did not expect
// ("unexpected argument nosuch") names the commands. Other errors are
// returned as they are; all are UsageErrors.
func ExplainParse(app *kong.Application, args []string, err error) error {
	names := commands(app)
	if word, ok := strings.CutPrefix(err.Error(), "unexpected argument "); ok && !slices.ContainsFunc(args, func(a string) bool { return slices.Contains(names, a) }) {
		return Usagef("unknown command %s: the commands are %s", word, strings.Join(names, ", "))
	}
	if m := negativeNumber.FindStringSubmatch(err.Error()); m != nil && m[1] != "version" {
		// kong reads "-5" as a short flag and suggests --NAME="-5",
		// which no number flag of kwire takes either.
		return Usagef("--%s %s: must not be negative", m[1], m[2])
	}
	for i, a := range args {
		if a == "--" || !strings.HasPrefix(err.Error(), "--version: ") {
			break
		}
		if a != "--version" || i == 0 {
			continue
		}
		if i+1 == len(args) {
			return Usagef("--version needs a version number (e.g. --version 2)")
		}
		n, perr := strconv.ParseInt(args[i+1], 10, 16)
		if perr != nil {
			return Usagef("--version needs a version number (e.g. --version 2), not %q", args[i+1])
		}
		if n < 0 {
			// kong reads "-1" as a short flag and suggests --version="-1",
			// which no message has either.
			return Usagef("--version %d: a version is a number from 0 to 32767 (e.g. --version 2)", n)
		}
	}
	return UsageError{err}
}

// HelpWithDefault formats a flag's help with its default, when it has one:
// "… frames are reported and skipped (default: 104857600)." It is a
// kong.ValueFormatter; Placeholders keeps the default from showing twice.
func HelpWithDefault(v *kong.Value) string {
	h := kong.DefaultHelpValueFormatter(v)
	if !v.HasDefault || v.Default == "" {
		return h
	}
	return strings.TrimSuffix(h, ".") + " (default: " + v.Default + ")."
}

// Placeholders gives every flag of app that has a default and no
// placeholder its name in upper case as the placeholder (--color=COLOR):
// kong would show the default there (--color="auto"), and HelpWithDefault
// already shows it in the help text.
func Placeholders(app *kong.Application) {
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			if f.HasDefault && f.PlaceHolder == "" && !f.IsBool() {
				f.PlaceHolder = strings.ToUpper(f.Name)
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(app.Node)
}

// RootFlagHelp returns a kong.Help printer that lists flag, a flag kwire
// handles before kong parses (RootVersion's --version, which kong cannot
// hold: commands have a --version of their own), under the Flags of the
// root's help.
func RootFlagHelp(name, help string) (kong.Option, error) {
	var v struct {
		F bool `help:""`
	}
	k, err := kong.New(&v)
	if err != nil {
		return nil, err
	}
	f := k.Model.Node.Flags[len(k.Model.Node.Flags)-1]
	f.Name, f.Help = name, help
	return kong.Help(func(o kong.HelpOptions, ctx *kong.Context) error {
		root := ctx.Model.Node
		if ctx.Selected() != nil {
			return kong.DefaultHelpPrinter(o, ctx)
		}
		saved := root.Flags
		root.Flags = append(append([]*kong.Flag{}, saved...), f)
		defer func() { root.Flags = saved }()
		return kong.DefaultHelpPrinter(o, ctx)
	}), nil
}

// HelpArgs turns the words of `kwire help WORDS` into the arguments that
// show that help: "show" becomes "show --help", nothing "--help". More
// than one word, or a word that is not a command of app, is a UsageError
// that lists the commands.
func HelpArgs(app *kong.Application, words []string) ([]string, error) {
	names := commands(app)
	switch {
	case len(words) == 0:
		return []string{"--help"}, nil
	case len(words) > 1:
		return nil, Usagef("help takes one command, not %d (%s): kwire help COMMAND", len(words), strings.Join(words, " "))
	}
	for _, n := range names {
		if n == words[0] {
			return []string{n, "--help"}, nil
		}
	}
	return nil, Usagef("unknown command %s: the commands are %s", words[0], strings.Join(names, ", "))
}

// Shells are the shells Completion supports.
var Shells = []string{"bash", "zsh", "fish"}

// Completion is the `completion` command: it says how to turn on tab
// completion in a shell, or (-c) prints the shell code that does. It runs
// kong-completion's command after checking the shell's name.
type Completion struct {
	Shell string `arg:"" optional:"" predictor:"shell" help:"The shell: bash, zsh or fish (default: your login shell)."`
	Code  bool   `short:"c" help:"Print the shell code that turns completion on (source <(kwire completion -c bash)), instead of the command that loads it."`
}

// Help is the command's help text.
func (c *Completion) Help() string {
	return "Prints the command that turns on tab completion of commands, flags and their values " +
		"(message names too, from the specs of the --kafka release on the line or the newest) " +
		"in the current shell session; paste it into the shell's init file (~/.bashrc, ~/.zshrc, " +
		"~/.config/fish/config.fish) to keep it. The completion runs the installed kwire."
}

// Run checks the shell and prints the command or the code. An unknown
// shell is a UsageError.
func (c *Completion) Run(ctx *kong.Context) error {
	if c.Shell != "" && !slices.Contains(Shells, c.Shell) {
		return Usagef("unknown shell %q: kwire completes in %s", c.Shell, strings.Join(Shells, ", "))
	}
	return (&kongcompletion.Completion{Shell: c.Shell, Code: c.Code}).Run(ctx)
}

// Predictors are the completion predictors of kwire's flags and
// arguments, for kongcompletion.Register: "shell" offers Shells, "release"
// the given --kafka values, "decoder" the given --decoder values, and
// "message", "api" and "record" the names of a release's messages (see
// Names).
func Predictors(releases, decoders []string) []kongcompletion.Option {
	return []kongcompletion.Option{
		kongcompletion.WithPredictor("shell", complete.PredictSet(Shells...)),
		kongcompletion.WithPredictor("release", complete.PredictSet(releases...)),
		kongcompletion.WithPredictor("decoder", complete.PredictSet(decoders...)),
		kongcompletion.WithPredictor("message", names(Messages)),
		kongcompletion.WithPredictor("api", names(APIs)),
		kongcompletion.WithPredictor("record", names(Records)),
	}
}

// NameKind selects the names Names returns.
type NameKind uint8

const (
	// Messages are the APIs (Vote) and every message of the release: the
	// requests and responses (VoteRequest), headers, metadata records,
	// internal topics' records and data types; what show, history,
	// encode and decode --api take.
	Messages NameKind = iota
	// APIs are the APIs alone (Vote, Metadata), what call takes.
	APIs
	// Records are the metadata records (PartitionRecord) and the internal
	// topics' record keys and values (OffsetCommitKey), what log --type
	// takes.
	Records
)

// Names returns the names of kind in s, sorted: an API is named as its
// request without "Request" (Vote), a message by its spec's name.
func Names(s *spec.Set, kind NameKind) []string {
	var out []string
	for _, key := range s.APIKeys() {
		if kind == Records {
			break
		}
		out = append(out, strings.TrimSuffix(s.Request(key).Name, "Request"))
	}
	for _, m := range s.Messages {
		if kind == Messages || kind == Records && (m.Type == spec.Metadata || m.Topic != "") {
			out = append(out, m.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// names predicts the Names of kind in the embedded release that the
// command line being completed names with --kafka (the newest when it
// names none, or none that is embedded); a word typed in lower case gets
// the names in lower case, as kwire reads them in any case.
type names NameKind

// Predict implements complete.Predictor.
func (k names) Predict(a complete.Args) []string {
	// The whole line: posener/complete gives a command's predictors only
	// the words after the command's name, and --kafka may come before it.
	release := KafkaFlag(strings.Fields(os.Getenv("COMP_LINE")))
	s, err := spec.Embedded(release)
	if err != nil {
		if s, err = spec.Embedded(""); err != nil {
			return nil
		}
	}
	out := Names(s, NameKind(k))
	if a.Last != "" && strings.ToLower(a.Last) == a.Last {
		for i, n := range out {
			out[i] = strings.ToLower(n)
		}
	}
	return out
}

// KafkaFlag returns the value of the last --kafka flag among words
// ("--kafka 3.9" or "--kafka=3.9"), "" when there is none.
func KafkaFlag(words []string) string {
	v := ""
	for i, w := range words {
		switch {
		case w == "--kafka" && i+1 < len(words):
			v = words[i+1]
		case strings.HasPrefix(w, "--kafka="):
			v = strings.TrimPrefix(w, "--kafka=")
		}
	}
	return v
}

// commands are the names of app's commands, in order.
func commands(app *kong.Application) []string {
	var names []string
	for _, c := range app.Children {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return names
}

// FlagValue is one value of a flag on a command line (Flag "kafka", Value
// "3.9"), or a positional argument (Flag "arg").
type FlagValue struct {
	Flag, Value string
}

// String is "--kafka 3.9", or the argument itself.
func (f FlagValue) String() string {
	if f.Flag == "arg" {
		return f.Value
	}
	return "--" + f.Flag + " " + f.Value
}

// FlagValues returns every value of the named flags (without dashes) in
// args, in order, in both the "--kafka 3.9" and the "--kafka=3.9" forms,
// up to "--": kong keeps only the last value of a repeated flag.
func FlagValues(args []string, flags ...string) []FlagValue {
	var out []FlagValue
	for i := 0; i < len(args) && args[i] != "--"; i++ {
		for _, name := range flags {
			flag := "--" + name
			switch a := args[i]; {
			case a == flag && i+1 < len(args):
				out = append(out, FlagValue{name, args[i+1]})
				i++
			case strings.HasPrefix(a, flag+"="):
				out = append(out, FlagValue{name, a[len(flag)+1:]})
			}
		}
	}
	return out
}

// CommandPath is the command a parse error of kong is about ("kwire
// proxy"), for pointing at its help; root when the error names none.
func CommandPath(err error, root string) string {
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil {
		if n := pe.Context.Selected(); n != nil {
			return n.FullPath()
		}
	}
	return root
}

// RepeatedFlag returns a UsageError when a flag of ctx's command that
// holds one value (not a slice or map, not a counter) is given more than
// once on ctx's command line, up to "--": kong would silently keep the last
// value. repeatable names flags (without dashes) that the command reads
// itself from every occurrence (FlagValues), as compat's --kafka and
// --specs. The error names the flag: "--specs given twice: give one; for
// several spec files put them in one directory".
func RepeatedFlag(ctx *kong.Context, repeatable ...string) error {
	forms := map[string]*kong.Flag{}
	for _, f := range ctx.Flags() {
		if f.IsCumulative() || f.IsCounter() || slices.Contains(repeatable, f.Name) {
			continue
		}
		forms["--"+f.Name] = f
		if f.Short != 0 {
			forms["-"+string(f.Short)] = f
		}
		for _, a := range f.Aliases {
			forms["--"+a] = f
		}
	}
	count := map[*kong.Flag]int{}
	for i := 0; i < len(ctx.Args) && ctx.Args[i] != "--"; i++ {
		name, _, inline := strings.Cut(ctx.Args[i], "=")
		f := forms[name]
		if f == nil {
			continue
		}
		if !inline && !f.IsBool() {
			i++ // the flag's value
		}
		if count[f]++; count[f] == 2 {
			advice := "give one"
			if f.Name == "specs" {
				advice += "; for several spec files put them in one directory"
			}
			return Usagef("--%s given twice: %s", f.Name, advice)
		}
	}
	return nil
}

// RegisterCompletion answers a shell's completion request (COMP_LINE set)
// for parser's commands, as kongcompletion.Register does, and exits
// through parser.Exit when it answered. Unlike Register, a command's
// arguments are counted past the flags its parents declare too: in
// "kwire show --kafka 3.0 Vo", "3.0" is --kafka's value, not show's
// argument.
func RegisterCompletion(parser *kong.Kong, opts ...kongcompletion.Option) {
	if parser == nil || parser.Model == nil {
		return
	}
	cmd, err := kongcompletion.Command(parser, opts...)
	if err != nil {
		parser.Errorf("error running command completion: %v", err)
		parser.Exit(1)
		return
	}
	inheritFlags(parser.Model.Node, &cmd, nil, nil)
	c := complete.New(parser.Model.Name, cmd)
	c.Out = parser.Stdout
	if c.Complete() {
		parser.Exit(0)
	}
}

// inheritFlags adds the flags of node's parents (argFlags take a value,
// boolFlags do not) to the flags that cmd's positional predictor skips,
// and does the same for node's children.
func inheritFlags(node *kong.Node, cmd *complete.Command, argFlags, boolFlags []string) {
	for _, f := range node.Flags {
		if f == nil || f.Hidden {
			continue
		}
		names := []string{"--" + f.Name}
		if f.Short != 0 {
			names = append(names, "-"+string(f.Short))
		}
		if f.Value.IsBool() {
			boolFlags = append(slices.Clip(boolFlags), names...)
		} else {
			argFlags = append(slices.Clip(argFlags), names...)
		}
	}
	if p, ok := cmd.Args.(*kongcompletion.PositionalPredictor); ok {
		p.ArgFlags = argFlags
		p.BoolFlags = boolFlags
	}
	for _, child := range node.Children {
		if child == nil {
			continue
		}
		sub, ok := cmd.Sub[child.Name]
		if !ok {
			continue
		}
		inheritFlags(child, &sub, argFlags, boolFlags)
		cmd.Sub[child.Name] = sub
	}
}
