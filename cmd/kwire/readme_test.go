package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeExamplesRunAsWritten runs the README's examples as a reader of
// a clone would, in a copy of docs/: every block of `$ ` lines whose
// commands are `go run ./cmd/kwire …` (piped into one another), `cat FILE`
// or `sed 's/A/B/' FILE`. Every line the README shows under a command,
// but "…" lines, must be a line of its output (standard output and
// error). Examples of an installed kwire against a live broker (`$ kwire
// call …`) are not run.
func TestReadmeExamplesRunAsWritten(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "docs"), os.DirFS(filepath.Join("..", "..", "docs"))); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	ran := 0
	for _, m := range regexp.MustCompile("(?s)```\n(\\$ .*?)```").FindAllStringSubmatch(string(readme), -1) {
		var cmd string
		var want []string
		check := func() {
			if cmd == "" || strings.HasPrefix(cmd, "kwire ") {
				return
			}
			got := strings.Split(shellRun(t, cmd), "\n")
			for _, w := range want {
				if w != "" && !strings.HasPrefix(w, "…") && !slices.Contains(got, w) {
					t.Errorf("README: $ %s\nshows %q, not in the output:\n%s", cmd, w, strings.Join(got, "\n"))
				}
			}
			ran++
		}
		for _, l := range strings.Split(m[1], "\n") {
			if c, ok := strings.CutPrefix(l, "$ "); ok {
				check()
				cmd, want = c, nil
			} else {
				want = append(want, l)
			}
		}
		check()
	}
	if ran < 10 {
		t.Errorf("ran %d README examples", ran)
	}
}

// shellRun runs a README command line: a pipeline of `go run ./cmd/kwire
// ARGS`, `cat FILE` and `sed 's/A/B/' FILE` (A literal, replaced once a
// line), with arguments quoted as a shell quotes them. It returns the
// last command's standard output and every command's standard error.
func shellRun(t *testing.T, line string) string {
	t.Helper()
	var in, errs []byte
	for _, stage := range strings.Split(line, " | ") {
		args := shellWords(t, stage)
		switch {
		case len(args) > 3 && slices.Equal(args[:3], []string{"go", "run", "./cmd/kwire"}):
			var out, e bytes.Buffer
			run(args[3:], &env{stdin: bytes.NewReader(in), stdout: &out, stderr: &e, getenv: func(string) string { return "" }})
			in, errs = out.Bytes(), append(errs, e.Bytes()...)
		case len(args) == 2 && args[0] == "cat":
			in = readFile(t, args[1])
		case len(args) == 3 && args[0] == "sed":
			ab := strings.Split(args[1], "/")
			if len(ab) != 4 || ab[0] != "s" || regexp.QuoteMeta(ab[1]) != ab[1] {
				t.Fatalf("README: sed expression %q is not s/literal/text/", args[1])
			}
			var out []string
			for _, l := range strings.SplitAfter(string(readFile(t, args[2])), "\n") {
				out = append(out, strings.Replace(l, ab[1], ab[2], 1))
			}
			in = []byte(strings.Join(out, ""))
		default:
			t.Fatalf("README: cannot run %q", stage)
		}
	}
	return string(in) + string(errs)
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("README: %v", err)
	}
	return b
}

// shellWords splits a command at spaces outside '…' and "…" quotes (no
// escapes: the README has none).
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	quote, in := byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		t.Fatalf("README: unclosed quote in %q", s)
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// TestReadmeJSONKeysAreThePageKeys: the keys the README's JSON section
// lists for a page, its sides and a tree node are those of `kwire show
// Vote --format json`, in order.
func TestReadmeJSONKeysAreThePageKeys(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	span := func(after string) []string {
		_, rest, ok := strings.Cut(string(readme), after)
		if !ok {
			t.Fatalf("README has no %q", after)
		}
		s, _, _ := strings.Cut(rest, "`")
		var keys []string
		for _, m := range regexp.MustCompile(`"(\w+)"`).FindAllStringSubmatch(s, -1) {
			keys = append(keys, m[1])
		}
		return keys
	}
	page := span("`show` and `decode` take `--format json`: one object\n`")
	node := span("A tree node is\n`")
	k := slices.Index(page, "tree")
	if k < 0 {
		t.Fatalf("README's page keys %q have no tree", page)
	}
	want := slices.Concat(page[:k+1], node, page[k+1:])
	// The keys of the indented page and of its request side (indented 2
	// and 4), with the root node's (6) after "tree", up to the response.
	var got []string
	side := ""
	for _, m := range regexp.MustCompile(`(?m)^( {2,6})"(\w+)":`).FindAllStringSubmatch(mustRun(t, "show", "Vote", "--format", "json"), -1) {
		if len(m[1]) == 4 {
			side = m[2]
		}
		if len(m[1]) < 6 || side == "tree" {
			got = append(got, m[2])
		}
		if m[2] == "response" {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("page keys %q\nREADME: %q", got, want)
	}
}
