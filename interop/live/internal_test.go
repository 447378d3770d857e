package live

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kwire/kwire/internal/kafkatest"
)

// internalRuns numbers the runs of TestInternalTopicsLive in one test
// binary (-count=3 shares one Kafka node): each run's topics, groups and
// transactional ids are its own.
var internalRuns atomic.Int32

// internalRecords is how many records the workload's topic gets.
const internalRecords = 10

// The coordinators' records on a real Kafka 4.4.0 (issue 11): consumer
// groups of the classic protocol (franz-go) and of the consumer protocol
// of KIP-848 (franz-go's server-side balancer and Kafka's own Java
// consumer) that commit offsets, a transactional producer that commits and
// aborts, a consume-transform-produce session that commits its offsets in
// a transaction, and a share group (Kafka's console share consumer; Kafka
// 4.4 formats its nodes with share.version 2, which enables share groups:
// nothing to turn on). Then the broker's __consumer_offsets,
// __transaction_state and __share_group_state segments are read by Kafka's
// kafka-dump-log with its --offsets-decoder, --transaction-log-decoder and
// --share-group-state-decoder.
func TestInternalTopicsLive(t *testing.T) {
	c := kafkatest.Shared(t)
	run := fmt.Sprintf("r%d", internalRuns.Add(1))
	w := internalWorkload(t, c, run)
	dir := c.Nodes[0].LogDir()

	// The coordinators write asynchronously after the clients are done
	// (a transaction's completion after its markers, a share partition's
	// state after the acknowledgements): wait until the segments hold
	// what this run did.
	var dumps map[string][]coordRecord
	waitFor(t, time.Minute, "the workload's records in the internal topics", func() bool {
		dumps = dumpInternal(t, dir)
		return w.seen(dumps) == ""
	})
	if art := kafkatest.ArtifactDir(t); art != "" {
		keepSegments(t, dir, filepath.Join(art, "segments"))
		os.WriteFile(filepath.Join(art, "consumer-groups.txt"), []byte(javaTool(t, "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
			"--bootstrap-server", c.Bootstrap, "--describe", "--all-groups")), 0o644)
	}
	if why := w.seen(dumps); why != "" {
		t.Fatalf("kafka-dump-log: %s", why)
	}
	offsets := describeGroups(t, c.Bootstrap)
	for _, g := range w.groups {
		for p := int32(0); p < 2; p++ {
			k := groupOffset{g, w.topic, p}
			if got, ok := offsets[k]; !ok || got != internalRecords/2 {
				t.Errorf("kafka-consumer-groups: %s %s-%d at %d (listed %v), want %d", g, w.topic, p, got, ok, internalRecords/2)
			}
		}
	}
}

// workload names what one run created.
type workload struct {
	run, topic, out string
	groups          []string // the consumer groups that committed offsets
	share           string   // the share group
	txnIDs          []string // the transactional ids
}

// internalWorkload creates the run's topics, groups and transactions.
func internalWorkload(t *testing.T, c *kafkatest.Cluster, run string) *workload {
	w := &workload{run: run, topic: "internal-" + run, out: "internal-out-" + run, share: "share-" + run}
	createTopicParts(t, c.Bootstrap, w.topic, 2)
	createTopicParts(t, c.Bootstrap, w.out, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// 10 records, 5 per partition (keys are spread by the test, not by a
	// partitioner).
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap), kgo.DefaultProduceTopic(w.topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	rs := make([]*kgo.Record, internalRecords)
	for i := range rs {
		rs[i] = &kgo.Record{Key: []byte(recordKey(i)), Value: []byte(fmt.Sprintf("v%d", i)), Partition: int32(i % 2)}
	}
	err = cl.ProduceSync(ctx, rs...).FirstErr()
	cl.Close()
	if err != nil {
		t.Fatal(err)
	}

	// A classic group and a KIP-848 group, both franz-go.
	w.groups = append(w.groups, "classic-"+run, "consumer-"+run)
	consumeGroup(t, c.Bootstrap, w.topic, "classic-"+run)
	consumeGroup(t, c.Bootstrap, w.topic, "consumer-"+run, kgo.ServerSideBalancer())

	// A KIP-848 group of Kafka's own Java consumer.
	g := "java-consumer-" + run
	w.groups = append(w.groups, g)
	javaTool(t, "org.apache.kafka.tools.consumer.ConsoleConsumer", "--bootstrap-server", c.Bootstrap,
		"--topic", w.topic, "--group", g, "--consumer-property", "group.protocol=consumer",
		"--from-beginning", "--max-messages", strconv.Itoa(internalRecords), "--timeout-ms", "60000")

	// A share group that reads from the earliest offset.
	setGroupConfig(t, c.Bootstrap, w.share, "share.auto.offset.reset", "earliest")
	javaTool(t, "org.apache.kafka.tools.consumer.ConsoleShareConsumer", "--bootstrap-server", c.Bootstrap,
		"--topic", w.topic, "--group", w.share, "--max-messages", strconv.Itoa(internalRecords), "--timeout-ms", "60000")

	// A transactional producer: one transaction committed, one aborted.
	id := "txn-" + run
	w.txnIDs = append(w.txnIDs, id)
	cl, err = kgo.NewClient(kgo.SeedBrokers(c.Bootstrap), kgo.DefaultProduceTopic(w.out), kgo.TransactionalID(id))
	if err != nil {
		t.Fatal(err)
	}
	for _, end := range []kgo.TransactionEndTry{kgo.TryCommit, kgo.TryAbort} {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(fmt.Sprintf("txn %v", end))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := cl.EndTransaction(ctx, end); err != nil {
			t.Fatal(err)
		}
	}
	cl.Close()

	// Consume, transform, produce: offsets committed in a transaction
	// (TxnOffsetCommit, then the markers in __consumer_offsets).
	g, id = "eos-"+run, "eos-txn-"+run
	w.groups = append(w.groups, g)
	w.txnIDs = append(w.txnIDs, id)
	s, err := kgo.NewGroupTransactSession(kgo.SeedBrokers(c.Bootstrap), kgo.TransactionalID(id),
		kgo.ConsumerGroup(g), kgo.ConsumeTopics(w.topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.DefaultProduceTopic(w.out))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Begin(); err != nil {
		t.Fatal(err)
	}
	for got := 0; got < internalRecords; {
		fs := s.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: consumed %d of %d", g, got, internalRecords)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("%s: fetch: %v", g, err) })
		fs.EachRecord(func(r *kgo.Record) {
			s.ProduceSync(ctx, &kgo.Record{Key: r.Key, Value: append([]byte("copy of "), r.Value...)})
		})
		got += fs.NumRecords()
	}
	if committed, err := s.End(ctx, kgo.TryCommit); err != nil || !committed {
		t.Fatalf("%s: transaction committed %v: %v", g, committed, err)
	}
	s.Close()
	return w
}

// seen reports what of the workload the dumped records do not hold yet:
// the offset commits of every group, the completed transactions of every
// transactional id, the share group's partition state; "" when all are
// there.
func (w *workload) seen(d map[string][]coordRecord) string {
	commits := map[string]int{}
	for _, r := range d["__consumer_offsets"] {
		if r.KeyType == "1" && r.Version != "" {
			k, _ := r.Key.(map[string]any)
			if k["topic"] == w.topic {
				commits[fmt.Sprint(k["group"])]++
			}
		}
	}
	for _, g := range w.groups {
		if commits[g] < 2 {
			return fmt.Sprintf("group %s: %d offset commits of %s", g, commits[g], w.topic)
		}
	}
	done := map[string]int{}
	for _, r := range d["__transaction_state"] {
		k, _ := r.Key.(map[string]any)
		v, _ := r.Value.(map[string]any)
		// kafka-dump-log names TransactionLogValue's transactionStatus.
		switch v["transactionStatus"] {
		case "CompleteCommit":
			done[fmt.Sprint(k["transactionalId"])] |= 1
		case "CompleteAbort":
			done[fmt.Sprint(k["transactionalId"])] |= 2
		}
	}
	if done[w.txnIDs[0]] != 3 {
		return fmt.Sprintf("transactional id %s: completions %b, want a commit and an abort", w.txnIDs[0], done[w.txnIDs[0]])
	}
	if done[w.txnIDs[1]]&1 == 0 {
		return fmt.Sprintf("transactional id %s: no completed commit", w.txnIDs[1])
	}
	shared := 0
	for _, r := range d["__share_group_state"] {
		if k, _ := r.Key.(map[string]any); k["groupId"] == w.share && r.Version != "" {
			v, _ := r.Value.(map[string]any)
			if b, _ := v["stateBatches"].([]any); len(b) > 0 {
				shared++
			}
		}
	}
	if shared < 2 {
		return fmt.Sprintf("share group %s: %d partition states with acknowledged batches, want 2", w.share, shared)
	}
	return ""
}

// consumeGroup consumes every record of topic (two partitions) as a member
// of group, commits and leaves.
func consumeGroup(t *testing.T, seed, topic, group string, opts ...kgo.Opt) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seed), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for got := 0; got < internalRecords; {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: consumed %d of %d", group, got, internalRecords)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("%s: fetch: %v", group, err) })
		got += fs.NumRecords()
	}
	if err := cl.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatalf("%s: commit: %v", group, err)
	}
}

// createTopicParts creates topic name with n partitions.
func createTopicParts(t *testing.T, bootstrap, name string, n int) {
	t.Helper()
	var resp struct {
		Topics []struct {
			ErrorCode int16 `json:"errorCode"`
		} `json:"topics"`
	}
	body := fmt.Sprintf(`{"topics":[{"name":%q,"numPartitions":%d,"replicationFactor":1,"assignments":[],"configs":[]}],"timeoutMs":30000,"validateOnly":false}`, name, n)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := callJSON(ctx, bootstrap, "CreateTopics", body, &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 {
		t.Fatalf("CreateTopics %s: %+v", name, resp)
	}
}

// setGroupConfig sets a group's dynamic configuration (IncrementalAlterConfigs,
// resource type 32: GROUP).
func setGroupConfig(t *testing.T, bootstrap, group, name, value string) {
	t.Helper()
	var resp struct {
		Responses []struct {
			ErrorCode    int16   `json:"errorCode"`
			ErrorMessage *string `json:"errorMessage"`
		} `json:"responses"`
	}
	body := fmt.Sprintf(`{"resources":[{"resourceType":32,"resourceName":%q,"configs":[{"name":%q,"configOperation":0,"value":%q}]}],"validateOnly":false}`, group, name, value)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := callJSON(ctx, bootstrap, "IncrementalAlterConfigs", body, &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Responses) != 1 || resp.Responses[0].ErrorCode != 0 {
		t.Fatalf("IncrementalAlterConfigs group %s %s=%s: %+v", group, name, value, resp)
	}
}

// javaTool runs one of Kafka's tools (its main class, from the broker's
// jars) and returns its standard output; the clients' logging is kept to
// warnings.
func javaTool(t *testing.T, class string, args ...string) string {
	t.Helper()
	cp := kafkatest.Require(t)
	cmd := exec.Command("java", append([]string{"-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp, class}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", class, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// internalDecoders are kafka-dump-log's decoders of the internal topics.
var internalDecoders = []struct{ topic, flag string }{
	{"__consumer_offsets", "--offsets-decoder"},
	{"__transaction_state", "--transaction-log-decoder"},
	{"__share_group_state", "--share-group-state-decoder"},
}

// segmentsOf lists the segment files (*.log) of every partition of topic
// in the log directory dir, by partition and then base offset.
func segmentsOf(t *testing.T, dir, topic string) []string {
	t.Helper()
	fs, err := filepath.Glob(filepath.Join(dir, topic+"-*", "*.log"))
	if err != nil || len(fs) == 0 {
		t.Fatalf("no segments of %s in %s (%v)", topic, dir, err)
	}
	part := func(f string) int {
		n, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(filepath.Dir(f)), topic+"-"))
		return n
	}
	sort.Slice(fs, func(i, j int) bool {
		if pi, pj := part(fs[i]), part(fs[j]); pi != pj {
			return pi < pj
		}
		return fs[i] < fs[j]
	})
	return fs
}

// coordRecord is one record of an internal topic in a normalized form:
// where it is, its key's record type and fields, its value's version and
// fields, or a tombstone (Version "", Value nil), or a transaction marker
// (Control). Key and value fields are JSON values as encoding/json reads
// them (numbers float64): Kafka's JSON converters and kwire's are
// compared as values.
type coordRecord struct {
	File    string // topic-partition/segment
	Offset  int64
	Control string // a transaction marker: "COMMIT" or "ABORT"
	KeyType string
	Key     any
	Version string
	Value   any
}

func (r coordRecord) String() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// dumpInternal runs kafka-dump-log with the decoder of each internal topic
// on all of the topic's segments in dir, returning the records by topic.
func dumpInternal(t *testing.T, dir string) map[string][]coordRecord {
	t.Helper()
	out := map[string][]coordRecord{}
	for _, d := range internalDecoders {
		fs := segmentsOf(t, dir, d.topic)
		out[d.topic] = parseDumpDecoded(t, runDumpLogDecoder(t, d.flag, strings.Join(fs, ",")))
	}
	return out
}

// runDumpLogDecoder runs kafka-dump-log with decoder flag on files (comma
// separated).
func runDumpLogDecoder(t *testing.T, flag, files string) []string {
	t.Helper()
	return strings.Split(javaTool(t, "org.apache.kafka.tools.DumpLogSegments", flag, "--files", files), "\n")
}

var (
	dumpFile    = regexp.MustCompile(`^Dumping (.*)$`)
	dumpControl = regexp.MustCompile(`^\| offset: (\d+) .*? endTxnMarker: (\w+) coordinatorEpoch: \d+$`)
	dumpDecoded = regexp.MustCompile(`^\| offset: (\d+) .*? headerKeys: \[[^\]]*\] key: (.*) payload: (.*)$`)
)

// parseDumpDecoded reads kafka-dump-log's output with a coordinator decoder:
// "Dumping <file>" starts a file; a record line holds "key: {"type":"N",
// "data":{…}}" and "payload: {"version":"N","data":{…}}" or
// "payload: <DELETE>" (a tombstone); a transaction marker's line
// "endTxnMarker: COMMIT coordinatorEpoch: N".
func parseDumpDecoded(t *testing.T, lines []string) []coordRecord {
	t.Helper()
	var rs []coordRecord
	file := ""
	for _, l := range lines {
		if m := dumpFile.FindStringSubmatch(l); m != nil {
			file = filepath.Join(filepath.Base(filepath.Dir(m[1])), filepath.Base(m[1]))
			continue
		}
		if m := dumpControl.FindStringSubmatch(l); m != nil {
			off, _ := strconv.ParseInt(m[1], 10, 64)
			rs = append(rs, coordRecord{File: file, Offset: off, Control: m[2]})
			continue
		}
		if !strings.HasPrefix(l, "| offset: ") {
			continue
		}
		m := dumpDecoded.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("kafka-dump-log: a record line not understood: %q", l)
		}
		off, _ := strconv.ParseInt(m[1], 10, 64)
		r := coordRecord{File: file, Offset: off}
		var k struct {
			Type string `json:"type"`
			Data any    `json:"data"`
		}
		if err := json.Unmarshal([]byte(m[2]), &k); err != nil {
			t.Fatalf("kafka-dump-log key %q: %v", m[2], err)
		}
		r.KeyType, r.Key = k.Type, k.Data
		if m[3] != "<DELETE>" {
			var v struct {
				Version string `json:"version"`
				Data    any    `json:"data"`
			}
			if err := json.Unmarshal([]byte(m[3]), &v); err != nil {
				t.Fatalf("kafka-dump-log payload %q: %v", m[3], err)
			}
			r.Version, r.Value = v.Version, v.Data
		}
		rs = append(rs, r)
	}
	return rs
}

// groupOffset is a group's committed offset's place.
type groupOffset struct {
	Group, Topic string
	Partition    int32
}

// describeGroups runs kafka-consumer-groups --describe --all-groups and
// returns the committed offsets it lists (rows whose CURRENT-OFFSET is a
// number).
func describeGroups(t *testing.T, bootstrap string) map[groupOffset]int64 {
	t.Helper()
	out := javaTool(t, "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", "--bootstrap-server", bootstrap, "--describe", "--all-groups")
	offsets := map[groupOffset]int64{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 4 || f[0] == "GROUP" {
			continue
		}
		p, err1 := strconv.ParseInt(f[2], 10, 32)
		o, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		offsets[groupOffset{f[0], f[1], int32(p)}] = o
	}
	return offsets
}

// keepSegments copies every non-empty segment of the internal topics in
// dir to art/<topic-partition>/, with kafka-dump-log's decoded output of
// it beside it (<segment>.dump-log.txt).
func keepSegments(t *testing.T, dir, art string) {
	t.Helper()
	for _, d := range internalDecoders {
		var fs []string
		for _, f := range segmentsOf(t, dir, d.topic) {
			if st, err := os.Stat(f); err == nil && st.Size() > 0 {
				fs = append(fs, f)
			}
		}
		if len(fs) == 0 {
			continue
		}
		var cur string
		sections := map[string][]string{}
		for _, l := range runDumpLogDecoder(t, d.flag, strings.Join(fs, ",")) {
			if m := dumpFile.FindStringSubmatch(l); m != nil {
				cur = m[1]
			}
			sections[cur] = append(sections[cur], l)
		}
		for _, f := range fs {
			to := filepath.Join(art, filepath.Base(filepath.Dir(f)))
			if err := os.MkdirAll(to, 0o755); err != nil {
				t.Logf("artifacts: %v", err)
				return
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Logf("artifacts: %v", err)
				continue
			}
			os.WriteFile(filepath.Join(to, filepath.Base(f)), b, 0o644)
			os.WriteFile(filepath.Join(to, filepath.Base(f)+".dump-log.txt"), []byte(strings.Join(sections[f], "\n")+"\n"), 0o644)
		}
	}
}
