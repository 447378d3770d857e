package spec_test

import (
	"strings"
	"testing"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
)

// TestSeveralObjectsSeverity: a file read on its own (whatever its name,
// as `kwire lint FILE`, `--specs FILE` and the fixed copy of a draft are)
// holding two objects is a warning, and both load; the same file in a
// directory or an archive, as Kafka's generator compiles it, is an error.
func TestSeveralObjectsSeverity(t *testing.T) {
	two := msg(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"}`) + strings.Replace(msg(`{"name": "A", "type": "int32", "versions": "0+", "about": "a"}`), `"T"`, `"U"`, 1)
	for _, c := range []struct {
		file bundle.File
		want string
	}{
		{bundle.File{Path: "T.json"}, "T.json:4:1: warning: this file holds 2 spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own; split the file before putting the specs into Kafka [several-objects]"},
		{bundle.File{Path: "T.txt"}, "T.txt:4:1: warning: this file holds 2 spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own; split the file before putting the specs into Kafka [several-objects]"},
		{bundle.File{Source: "d/T.json", Path: "T.json"}, "d/T.json:4:1: warning: this file holds 2 spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own; split the file before putting the specs into Kafka [several-objects]"},
		{bundle.File{Source: "d", Path: "T.json"}, "d/T.json:4:1: error: this file holds 2 spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own [several-objects]"},
		{bundle.File{Source: "specs.jar", Path: "common/message/T.json"}, "specs.jar!/common/message/T.json:4:1: error: this file holds 2 spec objects; Kafka's generator reads one per file, so kwire reads each as a spec of its own [several-objects]"},
	} {
		c.file.Data = []byte(two)
		r := spec.Lint([]bundle.File{c.file}, false)
		if got := r.Problems.Error(); got != c.want {
			t.Errorf("%s in %q:\n got %s\nwant %s", c.file.Path, c.file.Source, got, c.want)
		}
		s, _ := spec.NewSet([]bundle.File{c.file})
		if got := names(s); got != "T U" || len(s.Unloaded) != 0 {
			t.Errorf("%s in %q: loaded %q, unloaded %v; want both, none", c.file.Path, c.file.Source, got, s.Unloaded)
		}
	}
}

// TestUnloaded: Set.Unloaded names the objects left out (an error of their
// own, JSON beyond repair, a name taken), not the files' own problems.
func TestUnloaded(t *testing.T) {
	good := `{"type": "data", "name": "T", "validVersions": "0", "flexibleVersions": "0+"}`
	for _, c := range []struct {
		name, text string
		loaded     string
		unloaded   []string
	}{
		{"text around, two objects", "Title\n" + good + "\nbetween\n" + strings.Replace(good, `"T"`, `"U"`, 1) + "\n", "T U", nil},
		{"an error of its own", good + "\n" + strings.Replace(good, `"data"`, `"dta"`, 1) + "\n", "T", []string{"F.txt:2:1"}},
		{"JSON beyond repair", good + "\n" + `{"type": "data", "name": "U", "validVersions": 0x1}` + "\n", "T", []string{"F.txt:2:1"}},
		{"a name taken", good + "\n" + good + "\n", "T", []string{"F.txt:2:1"}},
	} {
		s, errs := spec.NewSet([]bundle.File{{Path: "F.txt", Data: []byte(c.text)}})
		var un []string
		for _, p := range s.Unloaded {
			un = append(un, p.String())
		}
		if names(s) != c.loaded || strings.Join(un, " ") != strings.Join(c.unloaded, " ") {
			t.Errorf("%s: loaded %q, unloaded %q; want %q, %q\n%v", c.name, names(s), un, c.loaded, c.unloaded, errs)
		}
	}
}
