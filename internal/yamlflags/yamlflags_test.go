package yamlflags_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"github.com/kwire/kwire/internal/yamlflags"
)

type cmd struct {
	Config   kong.ConfigFlag
	Upstream string        `required:""`
	Grace    time.Duration `default:"5s"`
	MaxFrame int           `name:"max-frame" default:"100"`
	API      []string      `name:"api"`
	TLS      bool          `name:"upstream-tls"`
}

func parse(t *testing.T, yaml string, args ...string) (cmd, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	var c cmd
	k, err := kong.New(&c, kong.Configuration(yamlflags.Loader), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.Parse(append([]string{"--config", p}, args...))
	if err != nil {
		err = fmt.Errorf("%s", strings.ReplaceAll(err.Error(), p, "FILE"))
	}
	return c, err
}

func TestFlagsFromTheFile(t *testing.T) {
	c, err := parse(t, "upstream: broker:9092\ngrace: 1m\nmax_frame: 2048\napi: [Produce, Fetch]\nupstream-tls: true\n")
	if err != nil {
		t.Fatal(err)
	}
	want := cmd{Upstream: "broker:9092", Grace: time.Minute, MaxFrame: 2048, API: []string{"Produce", "Fetch"}, TLS: true}
	c.Config = ""
	if !reflect.DeepEqual(c, want) {
		t.Errorf("%+v, want %+v", c, want)
	}
	// The command line wins; what it does not give comes from the file,
	// and what neither gives is the default.
	c, err = parse(t, "upstream: broker:9092\napi: [Produce]\n", "--upstream", "other:9092", "--api", "Metadata")
	if err != nil || c.Upstream != "other:9092" || !reflect.DeepEqual(c.API, []string{"Metadata"}) || c.Grace != 5*time.Second {
		t.Errorf("%+v %v", c, err)
	}
	// An empty file, or a null value, sets nothing.
	if c, err = parse(t, "", "--upstream", "x:1"); err != nil || c.Upstream != "x:1" {
		t.Errorf("empty file: %+v %v", c, err)
	}
	if c, err = parse(t, "grace: null\nupstream: x:1\n"); err != nil || c.Grace != 5*time.Second {
		t.Errorf("null: %+v %v", c, err)
	}
}

func TestErrorsNameThePlace(t *testing.T) {
	for yaml, want := range map[string]string{
		"upstream: x:1\nupstrem: y\n":      `FILE:2:1: "upstrem" is not a flag`,
		"upstream: x:1\nupstream: y:2\n":   `FILE:2:1: "upstream" is given twice`,
		"upstream:\n  host: x\n":           "FILE:2:3: upstream: a value or a list of values was expected",
		"api:\n  - [a]\nupstream: x:1\n":   "FILE:2:5: api: a list of values was expected",
		"just a string\n":                  "FILE:1:1: a mapping of flag names to values was expected",
		"upstream: x:1\ngrace: [\n":        "FILE: yaml: line 2",
		"upstream: x:1\nmax-frame: lots\n": `--max-frame`,
		"upstream: x:1\n? [a, b]\n: c\n":   "FILE:2:3: a flag name was expected",
		"grace: 1s\n":                      "missing flags: --upstream",
	} {
		if _, err := parse(t, yaml); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", yaml, err, want)
		}
	}
}
