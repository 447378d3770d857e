package conform_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/conform"
	"github.com/kwire/kwire/conform/body"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/proxy"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

var update = flag.Bool("update", false, "rewrite testdata/kfake*.txt with the reports of the kfake runs")

// startKfake starts franz-go's kfake, one broker, for the test.
func startKfake(t *testing.T) string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()[0]
}

// stable blanks what varies between runs of a report: the address and
// the time taken.
func stable(r *conform.Report) {
	r.Target = "127.0.0.1:9092"
	r.Elapsed = 0
}

// TestKfake runs the default run (read-only, 3 random requests, seed 1)
// against franz-go's kfake and compares the text report with
// testdata/kfake.txt (go test -run TestKfake -update rewrites it). Its
// findings are kfake's, listed in docs/conform.md.
func TestKfake(t *testing.T) {
	addr := startKfake(t)
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: set44(t), Random: conform.DefaultRandom, Seed: 1,
		Client: client.Options{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Counts()
	t.Logf("kfake: %s", r.Summary())
	golden(t, r, "kfake.txt")
	if c.Probes < 10 || c.Timeouts > 0 {
		t.Errorf("counts %+v", c)
	}
}

// golden compares the text report of r, what varies between runs blanked
// (stable), with testdata/name; -update rewrites the file.
func golden(t *testing.T, r *conform.Report, name string) {
	t.Helper()
	goldenText(t, r, name, nil)
}

// goldenText is golden with the text report passed through norm (when not
// nil) first.
func goldenText(t *testing.T, r *conform.Report, name string, norm func(string) string) {
	t.Helper()
	stable(r)
	var b bytes.Buffer
	if err := r.WriteText(&b, conform.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if norm != nil {
		got = norm(got)
	}
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("report differs from %s (go test -run %s -update rewrites it):\n%s", file, t.Name(), got)
	}
}

// TestReadOnlyByDefault counts on the wire, through kwire's own proxy,
// the requests of a default run against kfake: every one is of an API
// whose class is read-only, and every probe sent went through.
func TestReadOnlyByDefault(t *testing.T) {
	s := set44(t)
	addr := startKfake(t)
	var mu sync.Mutex
	keys := map[int16]int{}
	p, err := proxy.New(proxy.Options{Listen: "127.0.0.1:0", Upstream: addr, Codec: codec.New(s), OnEvent: func(e proxy.Event) {
		if x, ok := e.Flow.(*flow.Exchange); ok && x.Request != nil {
			mu.Lock()
			keys[x.APIKey]++
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- p.Serve(ctx) }()
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: p.Addr().String(), Set: s, Random: 2, Seed: 7, Client: client.Options{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	total := 0
	for k, n := range keys {
		total += n
		if m := s.Request(k); m == nil || body.AccessOf(m) != body.ReadOnly {
			t.Errorf("api key %d sent %d times without --mutate", k, n)
		}
	}
	sent := 0
	for _, p := range r.Probes {
		if p.Request != nil && p.Kind != "apiversions" {
			sent++
		}
	}
	// Every probe, plus one ApiVersions handshake per connection.
	if total < sent+1 || keys[3] == 0 {
		t.Errorf("%d requests on the wire (%v), %d probes sent", total, keys, sent)
	}
}

// TestInterruptedRunDeletes: a --mutate run cancelled after its first
// probes still deletes the topic it created, and the target holds no
// topic of its prefix afterwards.
func TestInterruptedRunDeletes(t *testing.T) {
	s := set44(t)
	addr := startKfake(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	probes, during := 0, ""
	r, err := conform.Run(ctx, conform.Options{Bootstrap: addr, Set: s, Mutate: true, Prefix: "kwire-conform-test1",
		Client: client.Options{Timeout: 5 * time.Second},
		OnProbe: func(*conform.Probe) {
			if probes++; probes == 3 {
				during = topics(t, s, addr)
				cancel()
			}
		}})
	if !strings.Contains(during, "kwire-conform-test1") {
		t.Fatalf("topics during the run: %q, want the one conform created", during)
	}
	if err == nil {
		t.Fatal("no error from a cancelled run")
	}
	if len(r.Created) != 1 || r.Created[0] != "topic kwire-conform-test1" || len(r.Cleanup) != 0 || !slices.Contains(r.Deleted, "topic kwire-conform-test1") {
		t.Fatalf("created %q, deleted %q, cleanup %q", r.Created, r.Deleted, r.Cleanup)
	}
	if len(r.Probes) > 4 {
		t.Errorf("%d probes after the cancellation at the third", len(r.Probes))
	}
	if names := gone(t, s, addr, "kwire-conform-test1"); strings.Contains(names, "kwire-conform-test1") {
		t.Errorf("topics after the run: %s", names)
	}
}

// gone waits up to 10 s for the target to list no topic containing name
// (brokers delete topics asynchronously) and returns the last list.
func gone(t *testing.T, s *spec.Set, addr, name string) string {
	t.Helper()
	var names string
	for range 40 {
		if names = topics(t, s, addr); !strings.Contains(names, name) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	return names
}

// topics lists the topics of the target, by a Metadata request.
func topics(t *testing.T, s *spec.Set, addr string) string {
	t.Helper()
	cn, err := client.Dial(context.Background(), addr, codec.New(s), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	m := s.Request(3)
	bt, err := codec.FromJSON([]byte(`{"topics":null,"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`), m, 12)
	if err != nil {
		t.Fatal(err)
	}
	x, err := cn.Call(context.Background(), m, 12, bt)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	ts := x.Response.At(x.Response.Part(tree.Body)).Field("Topics")
	for i := range ts.Len() {
		names = append(names, ts.Elem(i).Field("Name").String())
	}
	return strings.Join(names, ",")
}
