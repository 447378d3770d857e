package live

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/internal/kafkatest"
	"github.com/kwire/kwire/tree"
)

// codecRecords is how many records each codec's topic gets.
const codecRecords = 3000

var codecs = []struct {
	name string
	id   int64 // the RecordBatch attributes' compression id
	kgo  kgo.CompressionCodec
}{
	{"none", 0, kgo.NoCompression()},
	{"gzip", 1, kgo.GzipCompression()},
	{"snappy", 2, kgo.SnappyCompression()},
	{"lz4", 3, kgo.Lz4Compression()},
	{"zstd", 4, kgo.ZstdCompression()},
}

// fetched is what the proxy decoded of the record batches of Fetch
// responses of one topic partition: per offset the key and value, and the
// compression ids of the batches.
type fetched struct {
	mu          sync.Mutex
	keys, vals  map[int64]string
	compression map[int64]int // compression id → batches
	notDecoded  []string
}

// collect walks a Fetch response tree: every RecordBatch node (decoded
// views of compressed batches included) with its attributes, and every
// Record with its offset (base offset + offsetDelta), key and value.
func (f *fetched) collect(t *tree.Tree) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var base int64
	for i := range t.Nodes {
		n := &t.Nodes[i]
		switch n.Kind() {
		case tree.RecordBatch:
			base = -1
			for _, c := range t.ChildList(int32(i)) {
				switch t.Name(c) {
				case "baseOffset":
					base = t.Num(c)
				case "attributes":
					if !t.IsVirtual(c) {
						f.compression[t.Num(c)&7]++
					}
				}
			}
			if f := t.Field(int32(i)); f == nil && base < 0 {
				base = int64(t.Magic(int32(i)))
			}
		case tree.Record:
			var delta int64 = -1
			var key, val []byte
			for _, c := range t.ChildList(int32(i)) {
				switch t.Name(c) {
				case "offsetDelta":
					delta = t.Num(c)
				case "key":
					key = t.Data(c)
				case "value":
					val = t.Data(c)
				}
			}
			if delta >= 0 && base >= 0 {
				f.keys[base+delta] = string(key)
				f.vals[base+delta] = string(val)
			}
		}
	}
}

// Records of every codec through real Kafka (issue 6): franz-go produces
// 3,000 records to a topic per codec (none, gzip, snappy, lz4, zstd); a
// franz-go consumer reads them back through kwire's proxy, whose decoded
// Fetch responses must hold every record with its offset, key and value and
// batches of that codec; kwire log on the broker's own segment file must
// list the same records, and so must Kafka's kafka-dump-log on that file
// (offsets, timestamps with their type, header keys, keys and values).
func TestRecordsEveryCodecLive(t *testing.T) {
	c := kafkatest.Shared(t)
	var mu sync.Mutex
	var problems []string
	proxyAddr := startProxy(t, c.Bootstrap, func(e flow.Event) {
		switch e := e.(type) {
		case *flow.Exchange:
			if e.API != "Fetch" || e.Response == nil || e.Response.Tree == nil {
				return
			}
			if e.Response.Err != nil {
				mu.Lock()
				problems = append(problems, fmt.Sprintf("Fetch v%d corr %d: %v", e.Version, e.CorrelationID, e.Response.Err))
				mu.Unlock()
				return
			}
			for _, p := range e.Response.Tree.Problems {
				mu.Lock()
				problems = append(problems, "Fetch records: "+p.String())
				mu.Unlock()
			}
			fetchSink(e.Response.Tree)
		case *flow.Problem:
			if e.Kind != flow.Truncated {
				mu.Lock()
				problems = append(problems, e.String())
				mu.Unlock()
			}
		}
	})
	redirect := func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, proxyAddr)
	}

	for _, cd := range codecs {
		t.Run(cd.name, func(t *testing.T) {
			topic := "codec-" + cd.name
			createTopic(t, c.Bootstrap, topic)
			f := &fetched{keys: map[int64]string{}, vals: map[int64]string{}, compression: map[int64]int{}}
			setFetchSink(f.collect)
			defer setFetchSink(nil)

			produceDirect(t, c.Bootstrap, topic, cd.kgo)
			consumeThrough(t, c.Bootstrap, topic, redirect)
			time.Sleep(300 * time.Millisecond) // the proxy decodes behind the bytes

			f.mu.Lock()
			if len(f.keys) != codecRecords {
				t.Errorf("the proxy decoded %d records of %d", len(f.keys), codecRecords)
			}
			for i := 0; i < codecRecords; i++ {
				if f.keys[int64(i)] != recordKey(i) || f.vals[int64(i)] != recordValue(i) {
					t.Fatalf("proxy, offset %d: key %q value %.20q", i, f.keys[int64(i)], f.vals[int64(i)])
				}
			}
			if f.compression[cd.id] == 0 || len(f.compression) != 1 {
				t.Errorf("batch compression ids seen by the proxy: %v, want only %d (%s)", f.compression, cd.id, cd.name)
			}
			f.mu.Unlock()

			// The broker's own segment file, by kwire log and by
			// kafka-dump-log.
			seg := filepath.Join(c.Nodes[0].LogDir(), topic+"-0", "00000000000000000000.log")
			kw := kwireLog(t, seg)
			if len(kw) != codecRecords {
				t.Fatalf("kwire log: %d records, want %d", len(kw), codecRecords)
			}
			for i, r := range kw {
				if r.Offset != int64(i) || r.Key != recordKey(i) || r.Value != recordValue(i) {
					t.Fatalf("kwire log record %d: %+v", i, r)
				}
			}
			dl := dumpLog(t, seg, false)
			if !reflect.DeepEqual(kw, dl) {
				t.Fatalf("kwire log and kafka-dump-log differ: %d vs %d records; first kwire %+v, dump-log %+v", len(kw), len(dl), kw[0], first(dl))
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("proxy: %s", p)
	}
}

var sink struct {
	sync.Mutex
	fn func(*tree.Tree)
}

func setFetchSink(fn func(*tree.Tree)) { sink.Lock(); sink.fn = fn; sink.Unlock() }
func fetchSink(t *tree.Tree) {
	sink.Lock()
	fn := sink.fn
	sink.Unlock()
	if fn != nil {
		fn(t)
	}
}

func first[T any](s []T) any {
	if len(s) == 0 {
		return nil
	}
	return s[0]
}

func produceDirect(t *testing.T, seed, topic string, codec kgo.CompressionCodec) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seed), kgo.DefaultProduceTopic(topic), kgo.ProducerBatchCompression(codec),
		kgo.ProducerLinger(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rs := make([]*kgo.Record, codecRecords)
	for i := range rs {
		rs[i] = &kgo.Record{Key: []byte(recordKey(i)), Value: []byte(recordValue(i))}
		if i%3 == 0 {
			// Some records have headers, which kwire log and
			// kafka-dump-log must list alike.
			rs[i].Headers = []kgo.RecordHeader{{Key: "n", Value: []byte(strconv.Itoa(i))}, {Key: "trace"}}
		}
	}
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

func consumeThrough(t *testing.T, seed, topic string, dial func(context.Context, string, string) (net.Conn, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seed), kgo.Dialer(dial), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	got := 0
	for got < codecRecords {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consumed %d of %d", got, codecRecords)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch: %v", err) })
		got += fs.NumRecords()
	}
}

// logRecord is one record as kwire log --format json and kafka-dump-log
// --print-data-log report it: Timestamp is "CreateTime: 1700000000000" (the
// type and the ms), HeaderKeys the header keys joined by commas.
type logRecord struct {
	Offset     int64
	Timestamp  string
	HeaderKeys string
	Key, Value string
}

func kwireLog(t *testing.T, path string) []logRecord {
	t.Helper()
	out := kwireCommand(t, "log", "--format", "json", path)
	var rs []logRecord
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct {
			Type          string  `json:"type"`
			Offset        int64   `json:"offset"`
			Control       bool    `json:"control"`
			TimestampType string  `json:"timestamp_type"`
			Timestamp     *int64  `json:"timestamp"`
			Key           *string `json:"key"`
			Value         *string `json:"value"`
			Headers       []struct {
				Key string `json:"key"`
			} `json:"headers"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("kwire log line %q: %v", sc.Text(), err)
		}
		if e.Control || e.Type == "problem" || e.Type == "notice" {
			// (A notice, exit 0: the partial batch a broker is writing.)
			continue
		}
		r := logRecord{Offset: e.Offset}
		if e.Timestamp != nil {
			r.Timestamp = fmt.Sprintf("%s: %d", e.TimestampType, *e.Timestamp)
		}
		var keys []string
		for _, h := range e.Headers {
			keys = append(keys, h.Key)
		}
		r.HeaderKeys = strings.Join(keys, ",")
		if e.Key != nil {
			r.Key = *e.Key
		}
		if e.Value != nil {
			r.Value = *e.Value
		}
		rs = append(rs, r)
	}
	return rs
}

var dumpLine = regexp.MustCompile(`^\| offset: (\d+) .*? headerKeys: \[[^\]]*\] (.*)$`)

// dumpMeta reads a --print-data-log line's timestamp ("CreateTime: N")
// and header keys ("h1,h2").
var dumpMeta = regexp.MustCompile(`^\| offset: \d+ (\w+: -?\d+) .*? headerKeys: \[([^\]]*)\] `)

// dumpLog runs Kafka's kafka-dump-log (org.apache.kafka.tools.DumpLogSegments,
// from the broker's jars) on one file. For data (metadata false) it returns
// the records with --print-data-log's key and payload; for metadata the
// callers use dumpMetadata.
func dumpLog(t *testing.T, path string, metadata bool) []logRecord {
	t.Helper()
	var rs []logRecord
	for _, l := range runDumpLog(t, path, metadata) {
		m := dumpLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		off, _ := strconv.ParseInt(m[1], 10, 64)
		rest := m[2]
		r := logRecord{Offset: off}
		if mm := dumpMeta.FindStringSubmatch(l); mm != nil {
			r.Timestamp, r.HeaderKeys = mm[1], mm[2]
		}
		if k, v, ok := strings.Cut(rest, " payload: "); ok {
			r.Key = strings.TrimPrefix(k, "key: ")
			r.Value = v
		} else {
			r.Value = strings.TrimPrefix(rest, "payload: ")
		}
		rs = append(rs, r)
	}
	return rs
}

func runDumpLog(t *testing.T, path string, metadata bool) []string {
	t.Helper()
	cp := kafkatest.Require(t)
	args := []string{"-Xmx256m", "-cp", cp, "org.apache.kafka.tools.DumpLogSegments", "--files", path}
	if metadata {
		args = append(args, "--cluster-metadata-decoder")
	} else {
		args = append(args, "--print-data-log")
	}
	cmd := exec.Command("java", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kafka-dump-log %s: %v\n%s", path, err, stderr.String())
	}
	return strings.Split(string(out), "\n")
}

// kafkaTypeName is how kafka-dump-log's metadata decoder names a record
// type: FeatureLevelRecord → FEATURE_LEVEL_RECORD.
func kafkaTypeName(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// metaRecord is one metadata record: its offset, type and data (converter
// JSON, compared as values).
type metaRecord struct {
	Offset int64
	Type   string
	Data   any
}

func kwireMetadata(t *testing.T, args ...string) []metaRecord {
	t.Helper()
	out := kwireCommand(t, append([]string{"log", "--format", "json"}, args...)...)
	var rs []metaRecord
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var e struct {
			Offset  int64           `json:"offset"`
			Control bool            `json:"control"`
			Type    string          `json:"type"`
			Data    json.RawMessage `json:"data"`
			Error   string          `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("kwire log line %q: %v", l, err)
		}
		if e.Error != "" {
			t.Errorf("kwire log: offset %d: %s", e.Offset, e.Error)
		}
		if e.Control || e.Type == "problem" || e.Type == "notice" {
			continue
		}
		var d any
		json.Unmarshal(e.Data, &d)
		rs = append(rs, metaRecord{e.Offset, kafkaTypeName(e.Type), d})
	}
	return rs
}

func dumpMetadata(t *testing.T, path string) []metaRecord {
	t.Helper()
	var rs []metaRecord
	for _, l := range runDumpLog(t, path, true) {
		m := dumpLine.FindStringSubmatch(l)
		if m == nil || !strings.HasPrefix(m[2], "payload: ") {
			continue
		}
		off, _ := strconv.ParseInt(m[1], 10, 64)
		var p struct {
			Type string `json:"type"`
			Data any    `json:"data"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(m[2], "payload: ")), &p); err != nil {
			t.Fatalf("kafka-dump-log payload %q: %v", m[2], err)
		}
		rs = append(rs, metaRecord{off, p.Type, p.Data})
	}
	return rs
}

// The broker's __cluster_metadata log and a KRaft snapshot (issue 6): kwire
// log decodes every metadata record exactly as Kafka's own kafka-dump-log
// does (same offsets, types and data, compared as JSON values), and lists
// the TopicRecord and PartitionRecord of a topic this test creates, with its
// name, topic id, partition id and replicas [1].
func TestClusterMetadataLogLive(t *testing.T) {
	c := kafkatest.Shared(t)
	topic := "meta-check"
	createTopic(t, c.Bootstrap, topic)
	dir := filepath.Join(c.Nodes[0].LogDir(), "__cluster_metadata-0")
	seg := filepath.Join(dir, "00000000000000000000.log")
	// The controller appends the topic's records before it answers
	// CreateTopics; give the log a moment to reach the file.
	var topics, parts []metaRecord
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		topics = kwireMetadata(t, "--type", "TopicRecord", dir)
		parts = kwireMetadata(t, "--type", "PartitionRecord", dir)
		if hasTopic(topics, topic) {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	var id string
	for _, r := range topics {
		if d, _ := r.Data.(map[string]any); d["name"] == topic {
			id, _ = d["topicId"].(string)
		}
	}
	if id == "" {
		t.Fatalf("no TopicRecord for %s in %v", topic, topics)
	}
	found := false
	for _, r := range parts {
		d, _ := r.Data.(map[string]any)
		if d["topicId"] != id {
			continue
		}
		found = true
		if d["partitionId"] != 0.0 || !reflect.DeepEqual(d["replicas"], []any{1.0}) || !reflect.DeepEqual(d["isr"], []any{1.0}) || d["leader"] != 1.0 {
			t.Errorf("PartitionRecord of %s: %v", topic, d)
		}
	}
	if !found {
		t.Fatalf("no PartitionRecord for topic id %s", id)
	}

	// Every record of the segment and of the snapshots, against kafka-dump-log.
	files := []string{seg}
	snaps, _ := filepath.Glob(filepath.Join(dir, "*.checkpoint"))
	if len(snaps) == 0 {
		t.Errorf("no KRaft snapshot (*.checkpoint) in %s", dir)
	}
	files = append(files, snaps...)
	for _, f := range files {
		kw := kwireMetadata(t, f)
		dl := dumpMetadata(t, f)
		// The active controller keeps appending (a NoOpRecord every 500 ms):
		// compare the offsets both runs saw.
		if len(kw) > 0 && len(dl) > 0 {
			last := min(kw[len(kw)-1].Offset, dl[len(dl)-1].Offset)
			kw, dl = upTo(kw, last), upTo(dl, last)
		}
		if len(kw) == 0 || len(kw) != len(dl) {
			t.Errorf("%s: kwire log %d metadata records, kafka-dump-log %d", filepath.Base(f), len(kw), len(dl))
			continue
		}
		for i := range kw {
			if !reflect.DeepEqual(kw[i], dl[i]) {
				t.Errorf("%s record %d:\nkwire      %+v\ndump-log   %+v", filepath.Base(f), i, kw[i], dl[i])
				break
			}
		}
		t.Logf("%s: %d metadata records equal to kafka-dump-log's", filepath.Base(f), len(kw))
	}
	if art := kafkatest.ArtifactDir(t); art != "" {
		os.WriteFile(filepath.Join(art, "cluster-metadata.txt"), []byte(kwireCommand(t, "log", dir)), 0o644)
	}
}

func hasTopic(rs []metaRecord, name string) bool {
	for _, r := range rs {
		if d, _ := r.Data.(map[string]any); d["name"] == name {
			return true
		}
	}
	return false
}

func upTo(rs []metaRecord, last int64) []metaRecord {
	for i, r := range rs {
		if r.Offset > last {
			return rs[:i]
		}
	}
	return rs
}
