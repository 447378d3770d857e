package live

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/internal/kafkatest"
	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
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
// nothing to turn on). Then kwire log (the built binary, JSON lines) on
// the broker's __consumer_offsets, __transaction_state and
// __share_group_state segments must equal Kafka's kafka-dump-log with its
// --offsets-decoder, --transaction-log-decoder and
// --share-group-state-decoder, record for record (every key and value
// field, tombstones, transaction markers); kwire log --state's committed
// offsets must be kafka-consumer-groups --describe --all-groups' for every
// group; and a kwire proxy must show the keys and values of
// __consumer_offsets in Fetch responses as kafka-dump-log does
// (proxyInternal). The segments and the tools' outputs are kept in
// KWIRE_ARTIFACTS.
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
	// kwire log on the same segments, record for record.
	for _, d := range internalDecoders {
		fs := nonEmpty(t, segmentsOf(t, dir, d.topic))
		kw := kwireInternal(t, fs)
		// Both name TransactionLogValue's transactionStatus ("CompleteCommit").
		dl := parseDumpDecoded(t, runDumpLogDecoder(t, d.flag, strings.Join(fs, ",")))
		compareInternal(t, "kwire log "+d.topic, kw, dl)
	}

	// kwire log --state's committed offsets are kafka-consumer-groups'.
	offsets := describeGroups(t, c.Bootstrap)
	state := kwireOffsets(t, nonEmpty(t, segmentsOf(t, dir, "__consumer_offsets")))
	for k, o := range offsets {
		if got, ok := state[k]; !ok || got != o {
			t.Errorf("%s %s-%d: kafka-consumer-groups at %d, kwire log --state at %d (listed %v)", k.Group, k.Topic, k.Partition, o, got, ok)
		}
	}
	for k, o := range state {
		if _, ok := offsets[k]; !ok {
			t.Errorf("%s %s-%d: kwire log --state at %d, not listed by kafka-consumer-groups", k.Group, k.Topic, k.Partition, o)
		}
	}
	t.Logf("%d committed offsets of kwire log --state equal to kafka-consumer-groups --describe --all-groups", len(offsets))
	t.Run("proxy", func(t *testing.T) { proxyInternal(t, c.Bootstrap, dir) })
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
// (Control). Key and value fields are JSON values as unmarshalExact reads
// them (numbers as their digits): Kafka's JSON converters and kwire's are
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
		if err := unmarshalExact([]byte(m[2]), &k); err != nil {
			t.Fatalf("kafka-dump-log key %q: %v", m[2], err)
		}
		r.KeyType, r.Key = k.Type, k.Data
		if m[3] != "<DELETE>" {
			var v struct {
				Version string `json:"version"`
				Data    any    `json:"data"`
			}
			if err := unmarshalExact([]byte(m[3]), &v); err != nil {
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

// kwireInternal runs kwire log --format json on files (the segments of one
// internal topic) and normalizes its lines: a control record's marker
// type, or the key's record type and data and the value's version and data
// (none for a tombstone). A line with an error fails the test.
func kwireInternal(t *testing.T, files []string) []coordRecord {
	t.Helper()
	out := kwireCommand(t, append([]string{"log", "--format", "json"}, files...)...)
	var rs []coordRecord
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var e struct {
			File       string          `json:"file"`
			Offset     int64           `json:"offset"`
			Control    bool            `json:"control"`
			Type       string          `json:"type"`
			RecordType *int16          `json:"record_type"`
			KeyData    json.RawMessage `json:"key_data"`
			Version    *int16          `json:"version"`
			Data       json.RawMessage `json:"data"`
			Tombstone  bool            `json:"tombstone"`
			KeyError   string          `json:"key_error"`
			Error      string          `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("kwire log line %q: %v", l, err)
		}
		if e.Type == "problem" || e.Type == "notice" {
			// (A notice: the partial batch a broker is writing.)
			if e.Type == "problem" {
				t.Errorf("kwire log: %s", l)
			}
			continue
		}
		if e.KeyError != "" || e.Error != "" {
			t.Errorf("kwire log: %s", l)
		}
		r := coordRecord{File: filepath.Join(filepath.Base(filepath.Dir(e.File)), filepath.Base(e.File)), Offset: e.Offset}
		switch {
		case e.Control:
			r.Control = e.Type
		case e.RecordType == nil:
			t.Errorf("kwire log: no record type: %s", l)
		default:
			r.KeyType = strconv.Itoa(int(*e.RecordType))
			unmarshalExact(e.KeyData, &r.Key)
			if !e.Tombstone {
				if e.Version == nil {
					t.Errorf("kwire log: no value version: %s", l)
				} else {
					r.Version = strconv.Itoa(int(*e.Version))
				}
				// kafka-dump-log shows a member's subscription and
				// assignment without their versions.
				unmarshalExact(logseg.DumpLogJSON(e.Type, e.Data), &r.Value)
			}
		}
		rs = append(rs, r)
	}
	return rs
}

// compareInternal requires the records of an internal topic that kwire
// decoded (what says which) to be kafka-dump-log's, file by file and
// record by record. The coordinators
// may still append while the two read: each file is compared up to the
// last offset both saw.
func compareInternal(t *testing.T, what string, kw, dl []coordRecord) {
	t.Helper()
	byFile := func(rs []coordRecord) map[string][]coordRecord {
		m := map[string][]coordRecord{}
		for _, r := range rs {
			m[r.File] = append(m[r.File], r)
		}
		return m
	}
	k, d := byFile(kw), byFile(dl)
	n := 0
	for f, dr := range d {
		kr := k[f]
		if len(kr) > 0 && len(dr) > 0 {
			last := min(kr[len(kr)-1].Offset, dr[len(dr)-1].Offset)
			kr, dr = coordUpTo(kr, last), coordUpTo(dr, last)
		}
		if len(kr) != len(dr) {
			t.Errorf("%s: kwire log %d records, kafka-dump-log %d", f, len(kr), len(dr))
			continue
		}
		for i := range kr {
			if !reflect.DeepEqual(kr[i], dr[i]) {
				t.Errorf("%s record %d:\nkwire      %s\ndump-log   %s", f, i, kr[i], dr[i])
				break
			}
		}
		n += len(kr)
	}
	for f, kr := range k {
		if _, ok := d[f]; !ok && len(kr) > 0 {
			t.Errorf("%s: kwire log %d records, kafka-dump-log none", f, len(kr))
		}
	}
	if n == 0 {
		t.Errorf("%s: no records compared", what)
	}
	t.Logf("%s: %d records equal to kafka-dump-log's", what, n)
}

func coordUpTo(rs []coordRecord, last int64) []coordRecord {
	for i, r := range rs {
		if r.Offset > last {
			return rs[:i]
		}
	}
	return rs
}

// kwireOffsets runs kwire log --state --format json on files (the
// segments of __consumer_offsets) and returns the committed offsets it
// lists.
func kwireOffsets(t *testing.T, files []string) map[groupOffset]int64 {
	t.Helper()
	out := kwireCommand(t, append([]string{"log", "--state", "--format", "json"}, files...)...)
	offsets := map[groupOffset]int64{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Type      string `json:"type"`
			Group     string `json:"group"`
			Topic     string `json:"topic"`
			Partition int32  `json:"partition"`
			Offset    int64  `json:"offset"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("kwire log --state line %q: %v", l, err)
		}
		if e.Type == "offset" {
			offsets[groupOffset{e.Group, e.Topic, e.Partition}] = e.Offset
		}
	}
	return offsets
}

// The records of __consumer_offsets in Fetch responses seen by a kwire
// proxy (issue 11, item 4): a client reads every partition of the topic
// through the proxy, by topic id (Fetch at the newest version, the id
// learned from a Metadata response earlier on the same connection) and by
// name (Fetch v12); the keys and values the proxy decoded are
// kafka-dump-log's records of the same partitions, record for record.
func proxyInternal(t *testing.T, bootstrap, dir string) {
	t.Helper()
	var mu sync.Mutex
	var fetches []*flow.Exchange // their trees are read in the test's goroutine
	var problems []string
	addr := startProxy(t, bootstrap, func(e flow.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e := e.(type) {
		case *flow.Exchange:
			if e.API != "Fetch" || e.Response == nil || e.Response.Tree == nil {
				return
			}
			if e.Response.Err != nil {
				problems = append(problems, fmt.Sprintf("Fetch v%d: %v", e.Version, e.Response.Err))
				return
			}
			for _, p := range e.Response.Tree.Problems {
				if !p.Notice {
					problems = append(problems, "Fetch records: "+p.String())
				}
			}
			fetches = append(fetches, e)
		case *flow.Problem:
			problems = append(problems, e.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := client.Dial(ctx, addr, kafka44, client.Options{ClientID: "kwire-live-internal", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var md struct {
		Topics []struct {
			Name       string `json:"name"`
			TopicID    string `json:"topicId"`
			Partitions []struct {
				PartitionIndex int32 `json:"partitionIndex"`
			} `json:"partitions"`
		} `json:"topics"`
	}
	call := func(api string, ver int16, body string, dst any) {
		t.Helper()
		req, _, err := kafka44.Set.Lookup(api)
		if err != nil {
			t.Fatal(err)
		}
		if ver < 0 {
			if ver, err = conn.Negotiate(req); err != nil {
				t.Fatal(err)
			}
		}
		bt, err := codec.FromJSON([]byte(body), req, ver)
		if err != nil {
			t.Fatalf("%s v%d: %v", api, ver, err)
		}
		x, err := conn.Call(ctx, req, ver, bt)
		if err != nil {
			t.Fatalf("%s v%d: %v", api, ver, err)
		}
		js, err := codec.ToJSON(nil, x.Response, x.Response.Part(tree.Body), x.Response.Message, x.Response.Version, codec.JSONOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if dst != nil {
			if err := json.Unmarshal(js, dst); err != nil {
				t.Fatal(err)
			}
		}
	}
	call("Metadata", 12, `{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"__consumer_offsets"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`, &md)
	if len(md.Topics) != 1 || md.Topics[0].TopicID == "" || len(md.Topics[0].Partitions) == 0 {
		t.Fatalf("Metadata of __consumer_offsets: %+v", md)
	}
	var parts []string
	for _, p := range md.Topics[0].Partitions {
		parts = append(parts, fmt.Sprintf(`{"partition":%d,"currentLeaderEpoch":-1,"fetchOffset":0,"lastFetchedEpoch":-1,"logStartOffset":-1,"partitionMaxBytes":1048576}`, p.PartitionIndex))
	}
	common := `"maxWaitMs":0,"minBytes":0,"maxBytes":104857600,"isolationLevel":0,"sessionId":0,"sessionEpoch":-1,`
	all := strings.Join(parts, ",")
	call("Fetch", -1, `{`+common+`"topics":[{"topicId":"`+md.Topics[0].TopicID+`","partitions":[`+all+`]}],"forgottenTopicsData":[],"rackId":""}`, nil)
	call("Fetch", 12, `{"replicaId":-1,`+common+`"topics":[{"topic":"__consumer_offsets","partitions":[`+all+`]}],"forgottenTopicsData":[],"rackId":""}`, nil)
	conn.Close()

	// The proxy decodes behind the bytes it forwards: wait for both.
	waitFor(t, 30*time.Second, "the proxy's two Fetch exchanges", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(fetches) == 2
	})
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("proxy: %s", p)
	}
	if len(fetches) != 2 {
		t.Fatalf("the proxy decoded %d Fetch exchanges, want 2", len(fetches))
	}
	dl := parseDumpDecoded(t, runDumpLogDecoder(t, "--offsets-decoder", strings.Join(segmentsOf(t, dir, "__consumer_offsets"), ",")))
	for _, f := range fetches {
		t.Run(fmt.Sprintf("v%d", f.Version), func(t *testing.T) {
			var got []coordRecord
			for _, rs := range fetchedRecords(t, f.Response.Tree) {
				got = append(got, rs...)
			}
			compareInternal(t, fmt.Sprintf("the proxy's Fetch v%d of __consumer_offsets", f.Version), got, dl)
		})
	}
}

// fetchedRecords reads a decoded Fetch response: per partition of
// __consumer_offsets (named "__consumer_offsets-N/00000000000000000000.log",
// as the broker's first segment, which these small partitions have only),
// each record's offset and its key and value as the proxy's tree decoded
// them (Embedded nodes), in coordRecord's form.
func fetchedRecords(t *testing.T, tr *tree.Tree) map[string][]coordRecord {
	out := map[string][]coordRecord{}
	body := tr.At(tr.Part(tree.Body))
	resps := body.Field("Responses")
	for i := range resps.Len() {
		ps := resps.Elem(i).Field("Partitions")
		for j := range ps.Len() {
			p := ps.Elem(j)
			file := fmt.Sprintf("__consumer_offsets-%d/00000000000000000000.log", p.Field("PartitionIndex").Int())
			ri := p.Field("Records").Node()
			if ri < 0 {
				continue
			}
			for k := ri; k < tr.Nodes[ri].End; k++ {
				if tr.Nodes[k].Kind() != tree.Record {
					continue
				}
				r := coordRecord{File: file, Offset: records.RecordOffset(tr, k)}
				for _, c := range tr.ChildList(k) {
					switch tr.Name(c) {
					case "key":
						if tr.Nodes[c].Kind() == tree.BatchField && len(tr.ChildList(c)) == 0 {
							// A control record's key is a group of its
							// version and type.
							continue
						}
						for _, e := range tr.ChildList(c) {
							switch tr.Nodes[e].Kind() {
							case tree.Embedded:
								r.KeyType, r.Key = embeddedJSON(t, tr, e)
							}
						}
						if r.KeyType == "" {
							// A control record: its type from the key.
							r.Control = controlType(tr, c)
						}
					case "value":
						for _, e := range tr.ChildList(c) {
							if tr.Nodes[e].Kind() == tree.Embedded {
								_, r.Value = embeddedJSON(t, tr, e)
								r.Version = strconv.Itoa(int(tr.NodeVersion(e)))
							}
						}
					}
				}
				out[file] = append(out[file], r)
			}
		}
	}
	return out
}

// embeddedJSON is an Embedded node's record type (its spec's api key: a
// coordinator key's record type) and its converter JSON as a JSON value.
// In a GroupMetadataValue of a consumer group, each member's subscription
// and assignment are the JSON of the messages the tree holds for them (as
// kafka-dump-log shows them), not their bytes.
func embeddedJSON(t *testing.T, tr *tree.Tree, e int32) (string, any) {
	st := tr.Struct(e)
	if st == nil {
		t.Fatalf("Embedded node %d without a spec", e)
	}
	m := kafka44.Set.Message(st.Name)
	if m == nil {
		t.Fatalf("no message %s", st.Name)
	}
	// The embedded message as a tree of its own, read as a body.
	sub := tr.Sub(e)
	sub.Nodes[0].Reshape(tree.NewShape(tree.Body, tree.WireNone, sub.Nodes[0].Ref(), sub.Nodes[0].Aux()))
	js, err := codec.ToJSON(nil, sub, 0, m, tr.NodeVersion(e), codec.JSONOptions{})
	if err != nil {
		t.Fatalf("%s: %v", st.Name, err)
	}
	var v any
	unmarshalExact(js, &v)
	if root := sub.At(0); m.Name == "GroupMetadataValue" && root.Field("protocolType").String() == "consumer" {
		ms := root.Field("members")
		vm, _ := v.(map[string]any)["members"].([]any)
		for i := range min(ms.Len(), len(vm)) {
			for _, f := range []string{"subscription", "assignment"} {
				if n := ms.Elem(i).Field(f).Node(); n >= 0 {
					if ne := sub.Find(n, tree.Embedded); ne >= 0 {
						_, vm[i].(map[string]any)[f] = embeddedJSON(t, sub, ne)
					}
				}
			}
		}
	}
	return strconv.Itoa(int(m.APIKey)), v
}

// controlType is the marker type of a control record's key group
// ("COMMIT", "ABORT"), as kafka-dump-log names it.
func controlType(tr *tree.Tree, key int32) string {
	for _, c := range tr.ChildList(key) {
		if tr.Name(c) == "type" {
			switch tr.Num(c) {
			case 0:
				return "ABORT"
			case 1:
				return "COMMIT"
			}
		}
	}
	return "?"
}

// unmarshalExact is json.Unmarshal with numbers kept as their digits
// (json.Number): an int64 past 2^53 compares exactly.
func unmarshalExact(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// nonEmpty are the files of fs that hold bytes (a partition never written
// to has an empty segment, which kwire log reports as a problem).
func nonEmpty(t *testing.T, fs []string) []string {
	t.Helper()
	var out []string
	for _, f := range fs {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > 0 {
			out = append(out, f)
		}
	}
	return out
}
