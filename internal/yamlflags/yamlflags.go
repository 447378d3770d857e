package yamlflags

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alecthomas/kong"
	"go.yaml.in/yaml/v3"
)

// entry is one key of the file and where it is.
type entry struct {
	value     any // string, []any of strings, or nil (null)
	line, col int
}

// resolver is the kong.Resolver of one file.
type resolver struct {
	name    string
	entries map[string]entry
}

// Loader is a kong.ConfigurationLoader: it reads r (a file, whose name
// the errors give) as a YAML mapping of flags.
func Loader(r io.Reader) (kong.Resolver, error) {
	name := "config"
	if f, ok := r.(*os.File); ok {
		name = f.Name()
	}
	b, err := io.ReadAll(io.LimitReader(r, 1<<20+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > 1<<20 {
		return nil, fmt.Errorf("%s: over 1 MiB: not a flags file", name)
	}
	return Parse(name, b)
}

// Parse reads b, the YAML of file name.
func Parse(name string, b []byte) (kong.Resolver, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%s: %s", name, strings.Join(te.Errors, "; "))
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	res := &resolver{name: name, entries: map[string]entry{}}
	if len(doc.Content) == 0 {
		return res, nil // empty file
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d:%d: a mapping of flag names to values was expected", name, m.Line, m.Column)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s:%d:%d: a flag name was expected", name, k.Line, k.Column)
		}
		key := strings.ReplaceAll(k.Value, "_", "-")
		if _, dup := res.entries[key]; dup {
			return nil, fmt.Errorf("%s:%d:%d: %q is given twice", name, k.Line, k.Column, k.Value)
		}
		e := entry{line: k.Line, col: k.Column}
		switch v.Kind {
		case yaml.ScalarNode:
			if v.Tag != "!!null" {
				e.value = v.Value
			}
		case yaml.SequenceNode:
			var vs []any
			for _, x := range v.Content {
				if x.Kind != yaml.ScalarNode {
					return nil, fmt.Errorf("%s:%d:%d: %s: a list of values was expected", name, x.Line, x.Column, k.Value)
				}
				vs = append(vs, x.Value)
			}
			e.value = vs
		default:
			return nil, fmt.Errorf("%s:%d:%d: %s: a value or a list of values was expected", name, v.Line, v.Column, k.Value)
		}
		res.entries[key] = e
	}
	return res, nil
}

// Validate refuses a key that is no flag of app (any command's).
func (r *resolver) Validate(app *kong.Application) error {
	flags := map[string]bool{}
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			flags[f.Name] = true
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(app.Node)
	for k, e := range r.entries {
		if !flags[k] {
			return fmt.Errorf("%s:%d:%d: %q is not a flag", r.name, e.line, e.col, k)
		}
	}
	return nil
}

// Resolve gives the file's value of flag, nil when it has none.
func (r *resolver) Resolve(_ *kong.Context, _ *kong.Path, flag *kong.Flag) (any, error) {
	e, ok := r.entries[flag.Name]
	if !ok {
		return nil, nil
	}
	return e.value, nil
}
