package conform_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/conform"
	"github.com/kwire/kwire/internal/kafkatest"
	"github.com/kwire/kwire/spec"
)

// TestKafkaReference shows the differential mode on two real brokers: Kafka
// 4.4.0 judged against the 3.9 specs (`kwire conform --kafka 3.9
// --reference`) with a real Kafka 3.9.1 as the reference (installed by
// `interop/kafka/install.sh 3.9.1`; skipped without it unless
// KWIRE_KAFKA_REQUIRED=1). Both runs probe every announced (API, version);
// the reference itself has no finding against its own release, and every
// finding of the target is explained by what Kafka 4.0 changed on purpose.
func TestKafkaReference(t *testing.T) {
	kafkatest.RequireRelease(t, "3.9.1")
	target := kafkatest.Start(t, kafkatest.Config{})
	ref := kafkatest.Start(t, kafkatest.Config{Release: "3.9.1"})
	s, err := spec.Embedded("3.9.1")
	if err != nil {
		t.Fatal(err)
	}
	// A fresh cluster answers COORDINATOR_NOT_AVAILABLE to FindCoordinator
	// until its __consumer_offsets (__transaction_state) is created and
	// loaded: both clusters are made ready for groups and transactions
	// first, so that the comparison is of releases,
	// not of the clusters' ages.
	for _, keyType := range []int{0, 1} { // groups, transactions
		coordinatorReady(t, s, target.Bootstrap, keyType)
		coordinatorReady(t, s, ref.Bootstrap, keyType)
	}
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: target.Bootstrap, Reference: ref.Bootstrap, Set: s,
		Random: 1, Seed: 1, Client: client.Options{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteText(&b, conform.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("KWIRE_ARTIFACTS"); dir != "" {
		os.WriteFile(filepath.Join(dir, "conform-4.4.0-vs-3.9.1.txt"), []byte(b.String()), 0o644)
	}
	t.Logf("Kafka 4.4.0 judged by 3.9 with Kafka 3.9.1 as the reference: %s; the reference: %+v", r.Summary(), r.RefCounts)
	t.Logf("\n%s", b.String())
	if r.Reference != ref.Bootstrap || r.RefCounts.Probes == 0 {
		t.Fatalf("the reference did not run: %q %+v", r.Reference, r.RefCounts)
	}
	rules := map[string]int{}
	apis := map[string]bool{}
	for _, p := range r.Probes {
		for _, f := range p.Findings {
			rules[f.Rule]++
			if f.Rule == "differs" {
				apis[p.API] = true
			}
		}
	}
	t.Logf("findings by rule: %v; APIs that differ: %v", rules, apis)
	// What docs/conform.md explains: 4.4.0 announces versions and APIs
	// 3.9.1 does not define (rule apiversions), its ApiVersions answers
	// differ accordingly, ListOffsets leaves out a topic asked with no
	// partitions and answers an undefined isolation level with
	// UNKNOWN_SERVER_ERROR, OffsetFetch v1 answers a topic 3.9.1 leaves
	// out (and v8 with no groups, where 3.9.1 never answers),
	// ConsumerGroupDescribe v0 is served (3.9.1 refuses it), DescribeGroups
	// authorizes two more operations on a group (DESCRIBE_CONFIGS and
	// ALTER_CONFIGS: group configurations).
	for rule := range rules {
		if rule != "apiversions" && rule != "differs" {
			t.Errorf("a finding of rule %s: only apiversions and differs are explained", rule)
		}
	}
	for api := range apis {
		if !slices.Contains([]string{"ApiVersions", "ConsumerGroupDescribe", "DescribeGroups", "ListOffsets", "OffsetFetch"}, api) {
			t.Errorf("%s differs from the reference: not explained in docs/conform.md", api)
		}
	}
	if !apis["ApiVersions"] || rules["apiversions"] == 0 {
		t.Errorf("4.4.0's ApiVersions answer is not judged by 3.9.1: %v %v", rules, apis)
	}
	// The reference against its own release: the two refusals of Kafka
	// 3.9.1 that docs/conform.md lists (OffsetFetch v0 and
	// ConsumerGroupDescribe v0 announced, then UNSUPPORTED_VERSION).
	if r.RefCounts.Findings != 2 {
		t.Errorf("the reference has %d probes with findings, want 2", r.RefCounts.Findings)
	}
}

// coordinatorReady asks addr for the coordinator of "kwire-ready" (keyType
// 0 a group, 1 a transactional id) until FindCoordinator (v4) answers NONE,
// for at most a minute.
func coordinatorReady(t *testing.T, s *spec.Set, addr string, keyType int) {
	t.Helper()
	c := codec.New(s)
	req := s.Request(10)
	body, err := codec.FromJSON([]byte(fmt.Sprintf(`{"keyType":%d,"coordinatorKeys":["kwire-ready"]}`, keyType)), req, 4)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		last := "no answer"
		if cn, err := client.Dial(context.Background(), addr, c, client.Options{Timeout: 5 * time.Second}); err == nil {
			x, err := cn.Call(context.Background(), req, 4, body)
			cn.Close()
			if err == nil && x.Response != nil {
				v, err := x.Response.Get("FindCoordinatorResponse.Coordinators[0].ErrorCode")
				if err == nil && x.Response.Num(v.Node()) == 0 {
					return
				}
				last = "not NONE"
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: FindCoordinator did not answer NONE within a minute (%s)", addr, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
