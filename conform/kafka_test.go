package conform_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/conform"
	"github.com/kwire/kwire/internal/kafkatest"
)

// TestKafka runs the default run (read-only, 3 random requests, seed 1)
// and the protocol edges against a real Kafka 4.4.0 broker (skipped when
// Kafka is not installed): every announced (API, version) of a read-only
// API is probed, and no finding is allowed that docs/conform.md does not
// explain (the reference behaviours are applied by the engine).
func TestKafka(t *testing.T) {
	c := kafkatest.Start(t, kafkatest.Config{})
	s := set44(t)
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: c.Bootstrap, Set: s, Random: conform.DefaultRandom, Seed: 1, Scenarios: []string{conform.Edges},
		Client: client.Options{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Kafka 4.4.0: %s", r.Summary())
	var edges []string
	for _, p := range r.Probes {
		if p.Kind == "scenario" {
			edges = append(edges, p.Name()+" "+p.Outcome.String())
		}
	}
	if got, want := strings.Join(edges, ", "), "ApiVersions v127 scenario 0 kafka-error, api key 1000 v0 scenario 1 pass, frame v0 scenario 2 pass"; got != want {
		t.Errorf("protocol edges: %s\nwant %s", got, want)
	}
	probed := map[[2]int16]bool{}
	for _, p := range r.Probes {
		probed[[2]int16{p.Key, p.Version}] = true
	}
	for _, a := range r.APIs {
		if !a.Known || !a.Sent {
			continue
		}
		m := s.Request(a.Key)
		for v := max(a.Announced.Min, m.ValidVersions.Lo); v <= min(a.Announced.Max, m.ValidVersions.Hi); v++ {
			if !probed[[2]int16{a.Key, v}] {
				t.Errorf("%s v%d announced and not probed", a.Name, v)
			}
		}
	}
	if r.Failed() {
		var b strings.Builder
		r.WriteText(&b, conform.WriteOptions{})
		t.Errorf("findings against Kafka 4.4.0:\n%s", b.String())
	}
}

// TestKafkaMutateCleanup: a --mutate run against real Kafka with every
// mutating scenario (topic lifecycle with every codec, idempotent produce,
// transactions, groups): every step as expected (wantScenarioSteps, the
// same as kfake's), and the topics and groups it created are gone at the
// end.
func TestKafkaMutateCleanup(t *testing.T) {
	c := kafkatest.Start(t, kafkatest.Config{})
	s := set44(t)
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: c.Bootstrap, Set: s, Mutate: true, Scenarios: conform.MutatingScenarios, APIs: []int16{3}, Prefix: "kwire-conform-live",
		Client: client.Options{Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Kafka 4.4.0 scenarios: %s", r.Summary())
	if len(r.Created) != 8 || len(r.Cleanup) != 0 || len(r.Deleted) < 8 {
		t.Fatalf("created %q, deleted %q, cleanup %q", r.Created, r.Deleted, r.Cleanup)
	}
	for _, c := range r.Created {
		if !slices.Contains(r.Deleted, c) {
			t.Errorf("%s not deleted", c)
		}
	}
	if got, want := strings.Join(scenarioSteps(t, r), "\n"), strings.Join(wantScenarioSteps, "\n"); got != want {
		t.Errorf("steps\n%s\nwant\n%s", got, want)
	}
	if names := gone(t, s, c.Bootstrap, "kwire-conform-live"); strings.Contains(names, "kwire-conform-live") {
		t.Errorf("topics after the run: %s", names)
	}
}

// TestKafkaController runs conform with --cluster-apis against the
// controller listener of a Kafka 4.4.0 cluster (a dedicated controller and
// a broker): every announced version of the APIs the levels allow is
// probed, with no finding. A controller announces no Metadata, so the APIs
// a broker listener must have are not asked of it.
func TestKafkaController(t *testing.T) {
	c := kafkatest.Start(t, kafkatest.Config{Controllers: 1, Brokers: 1})
	var addr string
	for _, n := range c.Nodes {
		if n.ControllerAddr != "" {
			addr = n.ControllerAddr
		}
	}
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: set44(t), Random: conform.DefaultRandom, Seed: 1, ClusterAPIs: true,
		Client: client.Options{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Kafka 4.4.0 controller: %s", r.Summary())
	if r.Failed() || len(r.APIs) == 0 {
		var b strings.Builder
		r.WriteText(&b, conform.WriteOptions{})
		t.Errorf("against the controller:\n%s", b.String())
	}
}

// TestKafkaDifferentialScenariosKfake: the mutating scenarios against
// kfake with Kafka 4.4.0 as reference. Every step passes on both; the
// answers differ exactly where docs/conform.md lists kfake's findings 5-7:
// CreateTopics' Configs, the Produce answers to a duplicate and to a
// sequence gap, the leave's HeartbeatIntervalMs (less what the ignore list
// leaves out).
func TestKafkaDifferentialScenariosKfake(t *testing.T) {
	k := kafkatest.Start(t, kafkatest.Config{})
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: startKfake(t), Reference: k.Bootstrap, Set: set44(t), Mutate: true, Scenarios: conform.MutatingScenarios, APIs: []int16{18}, Seed: 1,
		Client: client.Options{Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range r.Probes {
		if p.Kind != "scenario" {
			continue
		}
		for _, f := range p.Findings {
			if f.Rule != "differs" {
				t.Errorf("%s: %s", p.Name(), f)
				continue
			}
			// "topic lifecycle, step 1 (CreateTopics): …" and the
			// path's last field, elements left out.
			where, _, _ := strings.Cut(f.Message, ":")
			path := elemRE.ReplaceAllString(f.Path, "") // keys may hold dots
			path = path[strings.LastIndexByte(path, '.')+1:]
			if s := where + " " + path; !slices.Contains(got, s) {
				got = append(got, s)
			}
		}
	}
	want := []string{
		"topic lifecycle, step 1 (CreateTopics) Configs",
		"idempotent produce, step 1 (CreateTopics) Configs",
		"idempotent produce, step 5 (Produce) LogStartOffset",
		"idempotent produce, step 7 (Produce) BaseOffset",
		"idempotent produce, step 7 (Produce) LogStartOffset",
		"transactions, step 1 (CreateTopics) Configs",
		"groups, step 1 (CreateTopics) Configs",
		"groups, step 13 (ConsumerGroupHeartbeat) HeartbeatIntervalMs",
	}
	// What the ignore list leaves out is not a difference (it may grow).
	want = slices.DeleteFunc(want, func(w string) bool { return ignoredField(w[strings.LastIndexByte(w, ' ')+1:]) })
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("differences\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// elemRE matches an element's index or key in a path ("[0]",
// "[Name=\"cleanup.policy\"]").
var elemRE = regexp.MustCompile(`\[[^\]]*\]`)

// ignoredField reports whether conform.Ignored leaves out a field of that
// name.
func ignoredField(name string) bool {
	for _, ig := range conform.Ignored {
		if slices.Contains(ig.Fields, name) {
			return true
		}
		for _, s := range ig.Suffixes {
			if strings.HasSuffix(name, s) {
				return true
			}
		}
	}
	return false
}
