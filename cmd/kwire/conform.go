package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/conform"
	"github.com/kwire/kwire/conform/body"
	"github.com/kwire/kwire/internal/cli"
	"github.com/kwire/kwire/internal/connflags"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
)

type conformCmd struct {
	Bootstrap   string        `arg:"" optional:"" help:"The broker, controller or proxy to judge, HOST:PORT." placeholder:"HOST:PORT"`
	Random      int           `help:"Seeded random valid requests per version of each read-only API, besides its valid body." default:"3" placeholder:"N"`
	Seed        uint64        `help:"Seed of the random requests (the same seed sends the same requests)." default:"1" placeholder:"N"`
	Mutate      bool          `help:"Also send mutating APIs (Produce, CreateTopics, DeleteTopics, offset commits, group joins, transactions, configs, ACLs…), only about a topic, group and transactional id that conform creates under kwire-conform-<random> and deletes at the end (also after Ctrl-C)."`
	Scenarios   []string      `help:"After the probes, run these scenarios (comma-separated, or all): edges, the protocol edges (ApiVersions at version 127, a request of api key 1000, a frame whose size prefix is over any limit: Kafka answers the first with UNSUPPORTED_VERSION and closes on the others; a fragile target may not survive them); with --mutate, each on a topic of its own: lifecycle (CreateTopics, Metadata, Produce of a batch of 3 records with each codec: none, gzip, snappy, lz4, zstd; Fetch: each batch back byte for byte; ListOffsets, DeleteTopics), idempotent (InitProducerId, then Produce of sequences 0, 0 again, 3 and 10: a duplicate appends nothing, a gap is OUT_OF_ORDER_SEQUENCE_NUMBER), transactions (InitProducerId with a transactional id, AddPartitionsToTxn, transactional Produce, AddOffsetsToTxn, TxnOffsetCommit, EndTxn commit, a second transaction aborted; Fetch read_uncommitted: both batches and the COMMIT and ABORT markers; read_committed: the aborted transaction listed; OffsetFetch) and groups (classic: JoinGroup with the MEMBER_ID_REQUIRED rejoin, SyncGroup, Heartbeat, OffsetCommit, OffsetFetch, LeaveGroup; KIP-848 where announced: ConsumerGroupHeartbeat join, until assigned, leave with member epoch -1)." placeholder:"NAME"`
	ClusterAPIs bool          `name:"cluster-apis" help:"Also send inter-broker and KRaft-quorum APIs (Vote, BeginQuorumEpoch, BrokerHeartbeat, replica Fetch…), which can disturb a live cluster: for test clusters only."`
	API         []string      `name:"api" help:"Probe only these APIs (names or keys; repeatable, or comma-separated). The ApiVersions answer is always judged." placeholder:"NAME"`
	Reference   string        `help:"Differential mode: send the same probes (same seed, same TLS and SASL flags) to this reference first, a real Apache Kafka, and report where each answer of the target differs from the reference's; what legitimately varies (ids, hosts, ports, throttle, timestamps, leader choice…) is left out, and the list printed." placeholder:"HOST:PORT"`
	Classes     bool          `help:"Print each API of the release with its access class (read-only, mutating, cluster: what each level sends) and exit, without connecting."`
	Format      string        `help:"Output: text (the API × version matrix, then each finding with the kwire call command that replays it), json (JSON lines, one per probe, with the request and response in hex), junit (JUnit XML, each probe a test case), html (one page: the matrix, each finding with the response's bytes, the node marked, and a link to the atlas)." enum:"text,json,junit,html" default:"text"`
	Atlas       string        `help:"With --format html: the URL of the protocol atlas the findings link to (kwire serve's; empty for no links)." default:"http://127.0.0.1:8080" placeholder:"URL"`
	Timeout     time.Duration `help:"Bound on connecting and on each request." default:"5s"`
	ClientID    string        `name:"client-id" help:"The request header's client_id." default:"kwire-conform"`
	connflags.Flags
}

// Help is conform's long help: what each access level sends.
func (c *conformCmd) Help() string {
	return `What is sent, by level (kwire conform --classes lists every API's class):
  default         ApiVersions, then read-only APIs only (Metadata, Describe*, List*,
                  FindCoordinator, OffsetFetch, consumer Fetch…): each announced version's
                  valid body, which names no resource, and --random seeded random
                  requests (topic auto-creation off, replica id -1). Nothing a target
                  holds is changed.
  --mutate        also mutating APIs, each body naming only the topic, group and
                  transactional id conform creates under kwire-conform-<random>; the
                  topic and group are deleted at the end, also after Ctrl-C. No random
                  requests to mutating APIs. The scenarios lifecycle, idempotent,
                  transactions and groups run only with --mutate: each creates a topic
                  <prefix>-<scenario>, groups and transactions make groups
                  <prefix>-classic, -consumer, -txn-group (all deleted at the end) and
                  the transactional id <prefix>-txn (no API deletes one: the target
                  expires it, after transactional.id.expiration.ms on Kafka).
  --cluster-apis  also inter-broker and KRaft-quorum APIs.
Exit status: 0 no finding, 1 findings (or the target cannot be reached), 2 usage.`
}

// conform judges the target and prints the report. Exit 1 when a probe
// has findings or the target cannot be reached; 2 for usage.
func (a *app) conform(c *conformCmd) error {
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	if c.Classes {
		return a.conformClasses(set)
	}
	if c.Bootstrap == "" {
		return usagef("give the target's address, HOST:PORT (or --classes)")
	}
	if err := cli.HostPort("BOOTSTRAP", c.Bootstrap, false); err != nil {
		return err
	}
	var scenarios []string
	for _, n := range c.Scenarios {
		switch n = strings.TrimSpace(n); n {
		case "all":
			scenarios = append(append(scenarios, conform.Edges), conform.MutatingScenarios...)
		case conform.Edges, conform.Lifecycle, conform.Idempotent, conform.Transactions, conform.Groups:
			scenarios = append(scenarios, n)
		default:
			return usagef("--scenarios %s: want edges, lifecycle, idempotent, transactions, groups or all", n)
		}
	}
	if !c.Mutate {
		mutating := func(n string) bool { return slices.Contains(conform.MutatingScenarios, n) }
		if !slices.Contains(c.Scenarios, "all") && slices.ContainsFunc(scenarios, mutating) {
			return usagef("--scenarios lifecycle, idempotent, transactions and groups create and delete topics and groups: add --mutate")
		}
		scenarios = slices.DeleteFunc(scenarios, mutating)
	}
	if c.Reference != "" {
		if err := cli.HostPort("--reference", c.Reference, false); err != nil {
			return err
		}
	}
	if c.Timeout <= 0 {
		return usagef("--timeout %v: give a positive duration", c.Timeout)
	}
	if c.Random < 0 {
		return usagef("--random %d: give 0 or more", c.Random)
	}
	var keys []int16
	for _, arg := range c.API {
		for _, name := range strings.Split(arg, ",") {
			req, _, err := set.Lookup(strings.TrimSpace(name))
			if err != nil {
				return usagef("--api %s: %v", name, err)
			}
			if req == nil {
				return usagef("--api %s is not an API", name)
			}
			keys = append(keys, req.APIKey)
		}
	}
	tc, sasl, err := c.Options(a.getenv)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, runErr := conform.Run(ctx, conform.Options{
		Bootstrap: c.Bootstrap, Set: set,
		Client: client.Options{ClientID: c.ClientID, Timeout: c.Timeout, SoftwareName: "kwire-conform", SoftwareVersion: kwireVersion(), TLS: tc, SASL: sasl},
		Random: c.Random, Seed: c.Seed, Mutate: c.Mutate, ClusterAPIs: c.ClusterAPIs, APIs: keys, Reference: c.Reference, Scenarios: scenarios, ShowSecrets: a.cli.ShowSecrets,
	})
	if r == nil {
		if runErr != nil {
			// A peer that is no plaintext Kafka listener: say what it speaks.
			runErr = fmt.Errorf("%w%s", runErr, peerHint(ctx, set, c.Bootstrap, tc != nil, c.Timeout, runErr))
		}
		return runErr
	}
	wo := conform.WriteOptions{Kafka: a.cli.Kafka, Connection: replayFlags(c)}
	switch c.Format {
	case "json":
		err = r.WriteJSON(a.stdout, wo)
	case "junit":
		err = r.WriteJUnit(a.stdout, wo)
	case "html":
		wo.Atlas = c.Atlas
		err = r.WriteHTML(a.stdout, wo, set)
	default:
		err = r.WriteText(a.stdout, wo)
	}
	if err != nil {
		return err
	}
	if c.Format != "text" {
		fmt.Fprintf(a.stderr, "kwire: %s\n", r.Summary())
	}
	if runErr != nil {
		return runErr
	}
	if n := r.Counts().Findings; n > 0 {
		return fmt.Errorf("%d of %d probes with findings", n, len(r.Probes))
	}
	return nil
}

// replayFlags are the connection flags a replay command repeats (never a
// password: that comes from the environment or a file).
func replayFlags(c *conformCmd) string {
	var f []string
	if c.TLS {
		f = append(f, "--tls")
	}
	for _, kv := range [][2]string{{"--tls-ca", c.TLSCA}, {"--tls-server-name", c.TLSServerName}, {"--tls-cert", c.TLSCert}, {"--tls-key", c.TLSKey}, {"--sasl-mechanism", c.SASLMechanism}, {"--sasl-user", c.SASLUser}, {"--sasl-password-file", c.SASLPassFile}} {
		if kv[1] != "" {
			f = append(f, kv[0]+" "+kv[1])
		}
	}
	if c.TLSInsecure {
		f = append(f, "--tls-insecure")
	}
	return strings.Join(f, " ")
}

// conformClasses prints the access class of each API of set.
func (a *app) conformClasses(s *spec.Set) error {
	names := map[body.Access]string{body.ReadOnly: "read-only (default)", body.Mutating: "mutating (--mutate)", body.Cluster: "cluster (--cluster-apis)"}
	fmt.Fprintf(a.stdout, "Access classes of the APIs of %s\n", render.SetName(s))
	for _, k := range s.APIKeys() {
		m := s.Request(k)
		if m == nil {
			continue
		}
		fmt.Fprintf(a.stdout, "%-4d %-36s %s\n", k, m.BaseName(), names[body.AccessOf(m)])
	}
	return nil
}
