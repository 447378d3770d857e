package conform_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/conform"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/internal/testnet"
)

// TestLifecycleKfake runs the topic lifecycle against kfake: every step
// goes as Kafka's would (the fetched batch is the one produced), and the
// topic is gone afterwards.
func TestLifecycleKfake(t *testing.T) {
	addr := startKfake(t)
	s := set44(t)
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: s, Mutate: true, Scenarios: []string{conform.Lifecycle}, APIs: []int16{18}, Prefix: "kwire-conform-life",
		Client: client.Options{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, p := range r.Probes {
		if p.Kind == "scenario" && strings.HasPrefix(p.Err, "topic lifecycle") {
			steps = append(steps, stepText(p))
			for _, f := range p.Findings {
				t.Errorf("%s: %s", p.Name(), f)
			}
		}
	}
	if got, want := strings.Join(steps, ", "), "CreateTopics pass, Metadata pass, Produce pass (uncompressed), Produce pass (gzip), Produce pass (snappy), Produce pass (lz4), Produce pass (zstd), Fetch pass, ListOffsets pass, DeleteTopics pass"; got != want {
		t.Errorf("steps %s\nwant %s\n%s", got, want, text(t, r))
	}
	if names := gone(t, s, addr, "kwire-conform-life"); strings.Contains(names, "kwire-conform-life") {
		t.Errorf("topics after the run: %s", names)
	}
}

// edgeBroker answers ApiVersions (at an unknown version as KIP-511 says,
// a v0 answer with UNSUPPORTED_VERSION); on an unknown api key it closes
// the connection, or with sloppy answers 4 bytes; a size prefix over 1 MiB
// closes it, or with sloppy is waited on.
func edgeBroker(t *testing.T, sloppy bool) string {
	s := set44(t)
	c := codec.New(s)
	return testnet.Serve(t, nil, func(nc net.Conn) {
		for {
			var size [4]byte
			if _, err := io.ReadFull(nc, size[:]); err != nil {
				return
			}
			n := binary.BigEndian.Uint32(size[:])
			if n > 1<<20 {
				if sloppy {
					io.Copy(io.Discard, nc)
				}
				return
			}
			fr := make([]byte, 4+n)
			copy(fr, size[:])
			if _, err := io.ReadFull(nc, fr[4:]); err != nil {
				return
			}
			key, v, _ := frame.RequestAPI(fr)
			corr, _ := frame.RequestCorrelationID(fr)
			if key != 18 {
				if sloppy {
					nc.Write([]byte{0, 0, 0, 0})
					continue
				}
				return
			}
			code := 0
			if v > s.Request(18).ValidVersions.Hi {
				code, v = 35, 0
			}
			bt, _ := codec.FromJSON([]byte(fmt.Sprintf(`{"errorCode":%d,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0}`, code)), s.Response(18), v)
			out, err := c.Encode(s.Response(18), v, codec.ResponseHeaderValue(s.ResponseHeader(), corr), bt)
			if err != nil {
				t.Error(err)
				return
			}
			nc.Write(out.Bytes)
		}
	})
}

// TestEdges: the protocol edges scenario against a broker that does what
// Kafka does (every step as expected) and one that answers an unknown api
// key and waits on an oversized frame (two findings).
func TestEdges(t *testing.T) {
	for _, tc := range []struct {
		sloppy bool
		want   string
	}{
		{false, "ApiVersions v127 scenario 0 kafka-error []; api key 1000 v0 scenario 1 pass []; frame v0 scenario 2 pass []"},
		{true, "ApiVersions v127 scenario 0 kafka-error []; " +
			"api key 1000 v0 scenario 1 finding [api key 1000: answered 4 bytes (<nil>) where Kafka closes the connection]; " +
			"frame v0 scenario 2 finding [a frame of 2147483632 bytes: the connection stayed open (Kafka closes it)]"},
	} {
		addr := edgeBroker(t, tc.sloppy)
		r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: set44(t), Scenarios: []string{conform.Edges}, APIs: []int16{18}, Random: 0,
			Client: client.Options{Timeout: 500 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range r.Probes {
			if p.Kind == "scenario" {
				var fs []string
				for _, f := range p.Findings {
					fs = append(fs, f.String())
				}
				got = append(got, fmt.Sprintf("%s %s %v", p.Name(), p.Outcome, fs))
			}
		}
		if strings.Join(got, "; ") != tc.want {
			t.Errorf("sloppy %v:\n%s\nwant\n%s", tc.sloppy, strings.Join(got, "\n"), strings.ReplaceAll(tc.want, "; ", "\n"))
		}
	}
}

// TestIdempotentKfake runs the idempotent produce against kfake: a
// duplicate appends nothing, a gap in the sequence is refused.
func TestIdempotentKfake(t *testing.T) {
	addr := startKfake(t)
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: set44(t), Mutate: true, Scenarios: []string{conform.Idempotent}, APIs: []int16{18}, Prefix: "kwire-conform-idem",
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
	if got, want := strings.Join(steps, ", "), "CreateTopics pass, Metadata pass, InitProducerId pass, Produce pass, Produce pass, Produce pass, Produce pass, ListOffsets pass, DeleteTopics pass"; got != want {
		t.Errorf("steps %s\nwant %s", got, want)
	}
}

// stepText is a scenario step as the tests list it: "Produce pass", with
// the step's note in parentheses ("Produce pass (gzip)").
func stepText(p conform.Probe) string {
	s := p.API + " " + p.Outcome.String()
	if _, note, _ := strings.Cut(p.Err, ": "); note != "" {
		s += " (" + note + ")"
	}
	return s
}

// TestScenariosKfake runs the mutating scenarios (topic lifecycle with
// every codec, idempotent produce, transactions, groups) against kfake and
// compares the text report with testdata/kfake-scenarios.txt (go test -run
// TestScenariosKfake -update rewrites it): every step as Kafka's, the
// topics and groups deleted at the end.
func TestScenariosKfake(t *testing.T) {
	addr := startKfake(t)
	s := set44(t)
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: s, Mutate: true, Scenarios: conform.MutatingScenarios, APIs: []int16{18}, Prefix: "kwire-conform-scen", Seed: 1,
		Client: client.Options{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(scenarioSteps(t, r), "\n"), strings.Join(wantScenarioSteps, "\n"); got != want {
		t.Errorf("steps\n%s\nwant\n%s", got, want)
	}
	for _, g := range []string{"group kwire-conform-scen-classic", "group kwire-conform-scen-consumer", "group kwire-conform-scen-txn-group"} {
		if !slices.Contains(r.Deleted, g) {
			t.Errorf("%s not deleted: deleted %q, cleanup %q", g, r.Deleted, r.Cleanup)
		}
	}
	if len(r.Cleanup) > 0 {
		t.Errorf("cleanup: %q", r.Cleanup)
	}
	if names := gone(t, s, addr, "kwire-conform-scen"); strings.Contains(names, "kwire-conform-scen") {
		t.Errorf("topics after the run: %s", names)
	}
	golden(t, r, "kfake-scenarios.txt")
}

// wantScenarioSteps are the steps of the mutating scenarios as Kafka 4.4.0
// answers them (TestKafkaMutateCleanup), and kfake (TestScenariosKfake).
var wantScenarioSteps = []string{
	"topic lifecycle: CreateTopics pass", "topic lifecycle: Metadata pass",
	"topic lifecycle: Produce pass (uncompressed)", "topic lifecycle: Produce pass (gzip)", "topic lifecycle: Produce pass (snappy)", "topic lifecycle: Produce pass (lz4)", "topic lifecycle: Produce pass (zstd)",
	"topic lifecycle: Fetch pass", "topic lifecycle: ListOffsets pass", "topic lifecycle: DeleteTopics pass",
	"idempotent produce: CreateTopics pass", "idempotent produce: Metadata pass", "idempotent produce: InitProducerId pass",
	"idempotent produce: Produce pass", "idempotent produce: Produce pass", "idempotent produce: Produce pass", "idempotent produce: Produce pass",
	"idempotent produce: ListOffsets pass", "idempotent produce: DeleteTopics pass",
	"transactions: CreateTopics pass", "transactions: Metadata pass", "transactions: FindCoordinator pass", "transactions: InitProducerId pass",
	"transactions: AddPartitionsToTxn pass", "transactions: Produce pass", "transactions: AddOffsetsToTxn pass", "transactions: FindCoordinator pass",
	"transactions: TxnOffsetCommit pass", "transactions: EndTxn pass (commit)", "transactions: AddPartitionsToTxn pass", "transactions: Produce pass",
	"transactions: EndTxn pass (abort)", "transactions: Fetch pass (read_uncommitted)", "transactions: Fetch pass (read_committed)",
	"transactions: FindCoordinator pass", "transactions: OffsetFetch pass", "transactions: DeleteTopics pass",
	"groups: CreateTopics pass", "groups: Metadata pass", "groups: FindCoordinator pass", "groups: JoinGroup pass (MEMBER_ID_REQUIRED, as expected)",
	"groups: JoinGroup pass", "groups: SyncGroup pass", "groups: Heartbeat pass", "groups: OffsetCommit pass", "groups: OffsetFetch pass", "groups: LeaveGroup pass",
	"groups: FindCoordinator pass", "groups: ConsumerGroupHeartbeat pass (join)", "groups: ConsumerGroupHeartbeat pass (leave)", "groups: DeleteTopics pass",
}

// scenarioSteps lists r's scenario steps as "scenario: API outcome
// (note)", and reports each finding of a step as a test error.
func scenarioSteps(t *testing.T, r *conform.Report) []string {
	t.Helper()
	var steps []string
	for _, p := range r.Probes {
		if p.Kind != "scenario" {
			continue
		}
		name, _, _ := strings.Cut(p.Err, ":")
		steps = append(steps, name+": "+stepText(p))
		for _, f := range p.Findings {
			t.Errorf("%s (%s): %s", p.Name(), name, f)
		}
	}
	return steps
}
