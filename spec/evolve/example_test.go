package evolve_test

import (
	"fmt"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
	"github.com/kwire/kwire/spec/evolve"
)

func set(text string) *spec.Set {
	s, errs := spec.NewSet([]bundle.File{{Path: "Thing.json", Data: []byte(text)}})
	if errs.HasErrors() {
		panic(errs)
	}
	return s
}

// Version 1 of a data message adds a field; the new specs also change the
// type of a field in version 0, which breaks readers of the old version.
func ExampleCompat() {
	old := set(`{"type": "data", "name": "Thing", "validVersions": "0", "flexibleVersions": "none",
  "fields": [{"name": "Id", "type": "int32", "versions": "0+", "about": "The id."}]}`)
	nw := set(`{"type": "data", "name": "Thing", "validVersions": "0-1", "flexibleVersions": "none",
  "fields": [{"name": "Id", "type": "int64", "versions": "0+", "about": "The id."},
    {"name": "Label", "type": "string", "versions": "1+", "about": "Added in version 1."}]}`)
	for _, f := range evolve.Compat(old, nw) {
		fmt.Println(f.Severity, f.Rule)
	}
	h := evolve.History(nw.Message("Thing"))
	for _, v := range h.Versions {
		for _, c := range v.Changes {
			fmt.Printf("version %d: %s\n", v.Version, c.Line())
		}
	}
	// Output:
	// info versions-added
	// incompatible type-changed
	// version 1: + Label string: Added in version 1.
}
