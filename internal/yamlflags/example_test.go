package yamlflags_test

import (
	"fmt"

	"github.com/alecthomas/kong"

	"github.com/kwire/kwire/internal/yamlflags"
)

// A file's flags, resolved as kong resolves the command line's.
func ExampleParse() {
	r, err := yamlflags.Parse("proxy.yaml", []byte("upstream: broker:9092\napi: [Produce, Fetch]\n"))
	if err != nil {
		panic(err)
	}
	var c struct {
		Upstream string
		API      []string `name:"api"`
	}
	k, _ := kong.New(&c, kong.Resolvers(r))
	if _, err := k.Parse(nil); err != nil {
		panic(err)
	}
	fmt.Println(c.Upstream, c.API)
	// Output: broker:9092 [Produce Fetch]
}
