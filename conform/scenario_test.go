package conform_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/conform"
)

// TestLifecycleKfake runs the topic lifecycle against kfake: every step
// goes as Kafka's would (the fetched batch is the one produced), and the
// topic is gone afterwards.
func TestLifecycleKfake(t *testing.T) {
	addr := startKfake(t)
	s := set44(t)
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: s, Mutate: true, Scenarios: true, APIs: []int16{18}, Prefix: "kwire-conform-life",
		Client: client.Options{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, p := range r.Probes {
		if p.Kind == "scenario" {
			steps = append(steps, p.API+" "+p.Outcome.String())
			for _, f := range p.Findings {
				t.Errorf("%s: %s", p.Name(), f)
			}
		}
	}
	if got, want := strings.Join(steps, ", "), "CreateTopics pass, Metadata pass, Produce pass, Fetch pass, ListOffsets pass, DeleteTopics pass"; got != want {
		t.Errorf("steps %s\nwant %s\n%s", got, want, text(t, r))
	}
	if names := gone(t, s, addr, "kwire-conform-life"); strings.Contains(names, "kwire-conform-life") {
		t.Errorf("topics after the run: %s", names)
	}
}
