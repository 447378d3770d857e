package logseg_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
	"github.com/kwire/kwire/tree"
)

// testCodec is a codec of the default embedded release.
func testCodec(t testing.TB) *codec.Codec {
	t.Helper()
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	return codec.New(set)
}

// coordRecord encodes message name at version v from its converter JSON
// as it lies on disk (testseg.CoordRecord).
func coordRecord(t testing.TB, cd *codec.Codec, name string, v int16, js string) []byte {
	t.Helper()
	b, err := testseg.CoordRecord(cd, name, v, js)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// consumerBytes is a consumer protocol message as ConsumerProtocol writes
// it (testseg.ConsumerProtocol).
func consumerBytes(t testing.TB, cd *codec.Codec, name string, v int16, js string) []byte {
	t.Helper()
	b, err := testseg.ConsumerProtocol(cd, name, v, js)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// internalListing reads the file at path with o and returns its text lines
// (batches and records), its JSON lines and its problems.
func internalListing(t testing.TB, path string, o logseg.Options) (text, js, problems []string) {
	t.Helper()
	sum, err := logseg.Read(path, o, func(w *logseg.Window) error {
		for i := range w.Batches {
			b := &w.Batches[i]
			text = append(text, logseg.BatchText(b))
			for _, r := range b.Records {
				d := w.Describe(b, r)
				text = append(text, strings.TrimSuffix(string(d.AppendText(nil, render.ValuesAuto)), "\n"))
				j, err := d.AppendJSON(nil, render.ValuesAuto)
				if err != nil {
					t.Fatal(err)
				}
				js = append(js, strings.TrimSuffix(string(j), "\n"))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sum.Findings(false) {
		problems = append(problems, p.String())
	}
	return text, js, problems
}

// writeSegment writes batches as segment 0 of partition directory dir
// (created under a temporary directory) and returns its path.
func writeSegment(t testing.TB, dir string, batches ...[]byte) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), dir)
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(d, "00000000000000000000.log")
	var seg []byte
	for _, b := range batches {
		seg = append(seg, b...)
	}
	if err := os.WriteFile(f, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func checkLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// offsetsSegment is a __consumer_offsets batch: good records, a
// tombstone, and one of each kind of bad input.
func offsetsSegment(t testing.TB, cd *codec.Codec) []byte {
	key := coordRecord(t, cd, "OffsetCommitKey", 0, `{"group":"g1","topic":"t","partition":0}`)
	val := coordRecord(t, cd, "OffsetCommitValue", 3, `{"offset":42,"leaderEpoch":5,"metadata":"m","commitTimestamp":1700000000000}`)
	gkey := coordRecord(t, cd, "GroupMetadataKey", 0, `{"group":"g1"}`)
	sub := consumerBytes(t, cd, "ConsumerProtocolSubscription", 1, `{"topics":["t"],"userData":null,"ownedPartitions":[]}`)
	asg := []byte{0, 1, 0, 0, 0, 9, 0} // version 1, then a topic count of 9 and one byte
	gval := coordRecord(t, cd, "GroupMetadataValue", 3, `{"protocolType":"consumer","generation":2,"protocol":"range","leader":"m1","currentStateTimestamp":1700000000000,`+
		`"members":[{"memberId":"m1","groupInstanceId":null,"clientId":"c","clientHost":"/10.0.0.1","rebalanceTimeout":300000,"sessionTimeout":45000,`+
		`"subscription":"`+base64.StdEncoding.EncodeToString(sub)+`","assignment":"`+base64.StdEncoding.EncodeToString(asg)+`"}]}`)
	key1 := coordRecord(t, cd, "OffsetCommitKey", 0, `{"group":"g1","topic":"t","partition":1}`)
	val4 := coordRecord(t, cd, "OffsetCommitValue", 4, `{"offset":7,"leaderEpoch":-1,"metadata":"","commitTimestamp":1700000000001,"topicId":"AAAAAAAAAAAAAAAAAAAAAQ"}`)
	return records.Batch{Timestamp: 1700000000000, Records: []records.KeyValue{
		{Key: key, Value: val},
		{Key: key},
		{Key: []byte{0, 99, 1}, Value: []byte{0, 1}},
		{Key: key, Value: []byte{0, 9, 1, 2}},
		{Key: key, Value: val[:10]},
		{Key: gkey, Value: val},
		{Key: gkey, Value: gval},
		{Key: key1, Value: val4},
		{Key: key[:5], Value: val},
	}}.Bytes()
}

func TestOffsetsTopic(t *testing.T) {
	cd := testCodec(t)
	seg := offsetsSegment(t, cd)
	f := writeSegment(t, "__consumer_offsets-3", seg)
	text, js, problems := internalListing(t, f, logseg.Options{Codec: cd})
	key := `OffsetCommitKey {"group":"g1","topic":"t","partition":0}`
	checkLines(t, "text", text, []string{
		"batch 0  records 9  attributes 0x0000  epoch 0  magic 2  CRC valid",
		`  offset 0  CreateTime 1700000000000  ` + key + `  OffsetCommitValue v3 {"offset":42,"leaderEpoch":5,"metadata":"m","commitTimestamp":1700000000000}`,
		`  offset 1  CreateTime 1700000000000  ` + key + `  deleted (null value)`,
		`  offset 2  CreateTime 1700000000000  not a record of __consumer_offsets: record_type at 0x0083: no key spec of record type 99 in __consumer_offsets  key 0x006301  value 0x0001`,
		`  offset 3  CreateTime 1700000000000  ` + key + `  OffsetCommitValue: OffsetCommitValue.version at 0x009d: OffsetCommitValue has no version 9 (valid versions 0-4)  value 0x00090102`,
		`  offset 4  CreateTime 1700000000000  ` + key + `  OffsetCommitValue: OffsetCommitValue.leaderEpoch at 0x00bf: need 4 bytes, have 0  value 0x0003000000000000002a`,
		`  offset 5  CreateTime 1700000000000  GroupMetadataKey {"group":"g1"}  GroupMetadataValue: GroupMetadataValue.protocol at 0x00d6: length 42: need 42 bytes, have 15  value 0x0003000000000000002a0000000500016d0000018bcfe56800`,
		`  offset 6  CreateTime 1700000000000  GroupMetadataKey {"group":"g1"}  GroupMetadataValue v3 {"protocolType":"consumer","generation":2,"protocol":"range","leader":"m1","currentStateTimestamp":1700000000000,"members":[{"memberId":"m1","groupInstanceId":null,"clientId":"c","clientHost":"/10.0.0.1","rebalanceTimeout":300000,"sessionTimeout":45000,"subscription":{"version":1,"data":{"topics":["t"],"userData":null,"ownedPartitions":[]}},"assignment":"AAEAAAAJAA=="}]}  note: GroupMetadataValue.members[0].assignment.AssignedPartitions at 0x0152: array of 9 elements cannot fit in the 1 byte that remain`,
		`  offset 7  CreateTime 1700000000000  OffsetCommitKey {"group":"g1","topic":"t","partition":1}  OffsetCommitValue v4 {"offset":7,"leaderEpoch":-1,"metadata":"","commitTimestamp":1700000000001,"topicId":"AAAAAAAAAAAAAAAAAAAAAQ"}`,
		`  offset 8  CreateTime 1700000000000  not a record of __consumer_offsets: OffsetCommitKey.group at 0x019f: length 2: need 2 bytes, have 1  key 0x0001000267  value 0x0003000000000000002a0000000500016d0000018bcfe56800`,
	})
	// Each problem of the bad records, at its offset with its path; the
	// records after them are read.
	checkLines(t, "problems", problems, []string{
		"00000000000000000000.log[0].Record[2].key.record_type at 0x0083: no key spec of record type 99 in __consumer_offsets",
		"00000000000000000000.log[0].Record[3].value.OffsetCommitValue.version at 0x009d: OffsetCommitValue has no version 9 (valid versions 0-4)",
		"00000000000000000000.log[0].Record[4].value.OffsetCommitValue.leaderEpoch at 0x00bf: need 4 bytes, have 0",
		"00000000000000000000.log[0].Record[5].value.GroupMetadataValue.protocol at 0x00d6: length 42: need 42 bytes, have 15",
		"00000000000000000000.log[0].Record[6].value.GroupMetadataValue.members[0].assignment.AssignedPartitions at 0x0152: array of 9 elements cannot fit in the 1 byte that remain",
		"00000000000000000000.log[0].Record[8].key.OffsetCommitKey.group at 0x019f: length 2: need 2 bytes, have 1",
	})
	// The offsets are those of the bytes named.
	for _, c := range []struct {
		at   int
		want []byte
	}{
		{0x83, []byte{0, 99, 1}},           // the unknown record type's key
		{0x9d, []byte{0, 9, 1, 2}},         // the value of version 9
		{0x152, []byte{0, 0, 0, 9, 0}},     // the assignment's topic count
		{0x19f - 2, []byte{0, 2, 'g', 50}}, // the truncated key's group (its 1 byte at 0x19f), then the value's length (25)
		{0xbf - 10, []byte{0, 3, 0, 0, 0}}, // the truncated value, 10 bytes before its end
	} {
		if got := seg[c.at : c.at+len(c.want)]; string(got) != string(c.want) {
			t.Errorf("bytes at 0x%x: % x, want % x", c.at, got, c.want)
		}
	}
	strip := func(l string) string { _, rest, _ := strings.Cut(l, `.log","`); return rest }
	for i, want := range map[int]string{
		0: `offset":0,"batch_offset":0,"timestamp_type":"CreateTime","timestamp":1700000000000,"record_type":1,"key_type":"OffsetCommitKey","key_version":0,"key_data":{"group":"g1","topic":"t","partition":0},"type":"OffsetCommitValue","version":3,"data":{"offset":42,"leaderEpoch":5,"metadata":"m","commitTimestamp":1700000000000}}`,
		1: `offset":1,"batch_offset":0,"timestamp_type":"CreateTime","timestamp":1700000000000,"record_type":1,"key_type":"OffsetCommitKey","key_version":0,"key_data":{"group":"g1","topic":"t","partition":0},"tombstone":true}`,
		2: `offset":2,"batch_offset":0,"timestamp_type":"CreateTime","timestamp":1700000000000,"key_error":"record_type at 0x0083: no key spec of record type 99 in __consumer_offsets","key_base64":"AGMB","value_base64":"AAE="}`,
		3: `offset":3,"batch_offset":0,"timestamp_type":"CreateTime","timestamp":1700000000000,"record_type":1,"key_type":"OffsetCommitKey","key_version":0,"key_data":{"group":"g1","topic":"t","partition":0},"type":"OffsetCommitValue","value_base64":"AAkBAg==","error":"OffsetCommitValue.version at 0x009d: OffsetCommitValue has no version 9 (valid versions 0-4)"}`,
		6: `offset":6,"batch_offset":0,"timestamp_type":"CreateTime","timestamp":1700000000000,"record_type":2,"key_type":"GroupMetadataKey","key_version":0,"key_data":{"group":"g1"},"type":"GroupMetadataValue","version":3,"data":{"protocolType":"consumer","generation":2,"protocol":"range","leader":"m1","currentStateTimestamp":1700000000000,"members":[{"memberId":"m1","groupInstanceId":null,"clientId":"c","clientHost":"/10.0.0.1","rebalanceTimeout":300000,"sessionTimeout":45000,"subscription":{"version":1,"data":{"topics":["t"],"userData":null,"ownedPartitions":[]}},"assignment":"AAEAAAAJAA=="}]},"note":"GroupMetadataValue.members[0].assignment.AssignedPartitions at 0x0152: array of 9 elements cannot fit in the 1 byte that remain"}`,
	} {
		if got := strip(js[i]); got != want {
			t.Errorf("JSON line %d:\n%s\nwant\n%s", i, got, want)
		}
	}
}

// TestAgainstKafkaDumpLog reads real internal-topic segments of Kafka
// 4.4.0 (docs/examples) and requires each record's key and value to be
// what kafka-dump-log's --offsets-decoder, --transaction-log-decoder and
// --share-group-state-decoder printed for it (testdata/dump-log): the
// record type and key data, the value's version and data, <DELETE> for a
// tombstone, the marker of a control record.
func TestAgainstKafkaDumpLog(t *testing.T) {
	cd := testCodec(t)
	for _, dir := range []string{"__consumer_offsets-21", "__consumer_offsets-26", "__transaction_state-22", "__share_group_state-47"} {
		t.Run(dir, func(t *testing.T) {
			dump, err := os.ReadFile(filepath.Join("testdata", "dump-log", dir+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, l := range strings.Split(string(dump), "\n") {
				if strings.HasPrefix(l, "| offset: ") {
					want = append(want, l)
				}
			}
			_, js, problems := internalListing(t, filepath.Join("..", "docs", "examples", dir, "00000000000000000000.log"), logseg.Options{Codec: cd})
			if len(problems) > 0 {
				t.Errorf("problems: %v", problems)
			}
			if len(js) != len(want) || len(js) == 0 {
				t.Fatalf("%d records, kafka-dump-log %d", len(js), len(want))
			}
			for i, l := range js {
				var got struct {
					Offset     int64
					Type       string
					RecordType *int16 `json:"record_type"`
					Version    *int16
					KeyData    json.RawMessage `json:"key_data"`
					Data       json.RawMessage
					Tombstone  bool
					Error      string
					KeyError   string `json:"key_error"`
				}
				if err := json.Unmarshal([]byte(l), &got); err != nil {
					t.Fatal(err)
				}
				w := want[i]
				if !strings.HasPrefix(w, fmt.Sprintf("| offset: %d ", got.Offset)) {
					t.Fatalf("record %d: offset %d, kafka-dump-log: %s", i, got.Offset, w)
				}
				if _, marker, ok := strings.Cut(w, " endTxnMarker: "); ok {
					if m, _, _ := strings.Cut(marker, " "); got.Type != m {
						t.Errorf("offset %d: %q, kafka-dump-log %s", got.Offset, got.Type, m)
					}
					continue
				}
				_, kv, _ := strings.Cut(w, " key: ")
				key, payload, _ := strings.Cut(kv, " payload: ")
				if got.Error != "" || got.KeyError != "" || got.RecordType == nil {
					t.Errorf("offset %d: %s", got.Offset, l)
					continue
				}
				sameJSON(t, got.Offset, "key", fmt.Sprintf(`{"type":"%d","data":%s}`, *got.RecordType, got.KeyData), key)
				if got.Tombstone {
					if payload != "<DELETE>" {
						t.Errorf("offset %d: a tombstone, kafka-dump-log %s", got.Offset, payload)
					}
					continue
				}
				sameJSON(t, got.Offset, "value", fmt.Sprintf(`{"version":"%d","data":%s}`, *got.Version, logseg.DumpLogJSON(got.Type, got.Data)), payload)
			}
		})
	}
}

// sameJSON reports when JSON texts got and want differ as values.
func sameJSON(t *testing.T, offset int64, what, got, want string) {
	t.Helper()
	var g, w any
	dg, dw := json.NewDecoder(strings.NewReader(got)), json.NewDecoder(strings.NewReader(want))
	dg.UseNumber()
	dw.UseNumber()
	if err := dg.Decode(&g); err != nil {
		t.Fatalf("offset %d %s: %v: %s", offset, what, err, got)
	}
	if err := dw.Decode(&w); err != nil {
		t.Fatalf("offset %d kafka-dump-log %s: %v: %s", offset, what, err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("offset %d %s:\n%s\nkafka-dump-log:\n%s", offset, what, got, want)
	}
}

// TestRemoteLogMetadataTopic: __remote_log_metadata's values are framed
// records of kafka-storage, by the frame's api key; keys are null.
// Options.Decoder reads a copy anywhere the same way, and "metadata"
// reads it as KRaft's records, which these are not.
func TestRemoteLogMetadataTopic(t *testing.T) {
	cd := testCodec(t)
	del := coordRecord(t, cd, "RemotePartitionDeleteMetadataRecord", 0, `{"topicIdPartition":{"name":"t","id":"AAAAAAAAAAAAAAAAAAAAAQ","partition":2},"brokerId":1,"eventTimestampMs":5,"remotePartitionDeleteState":0}`)
	seg := records.Batch{Timestamp: 1700000000000, Records: []records.KeyValue{{Value: del}, {Value: []byte{1, 99, 0}}}}.Bytes()
	want := []string{
		"batch 0  records 2  attributes 0x0000  epoch 0  magic 2  CRC valid",
		`  offset 0  CreateTime 1700000000000  RemotePartitionDeleteMetadataRecord v0 {"topicIdPartition":{"name":"t","id":"AAAAAAAAAAAAAAAAAAAAAQ","partition":2},"brokerId":1,"eventTimestampMs":5,"remotePartitionDeleteState":0}`,
		`  offset 1  CreateTime 1700000000000  not a record of __remote_log_metadata: api_key at 0x0073: no record of __remote_log_metadata has api key 99  value 0x016300`,
	}
	f := writeSegment(t, "__remote_log_metadata-0", seg)
	text, _, problems := internalListing(t, f, logseg.Options{Codec: cd})
	checkLines(t, "text", text, want)
	checkLines(t, "problems", problems, []string{"00000000000000000000.log[0].Record[1].value.api_key at 0x0073: no record of __remote_log_metadata has api key 99"})
	g := writeSegment(t, "copy-0", seg)
	text, _, _ = internalListing(t, g, logseg.Options{Codec: cd, Decoder: "remote-log-metadata"})
	checkLines(t, "text with --decoder", text, want)
	if topic, ok := logseg.TopicOf(f); !ok || topic != spec.TopicRemoteLogMetadata {
		t.Errorf("TopicOf(%s) = %q, %v", f, topic, ok)
	}
	for _, p := range []string{g, "-"} {
		if topic, ok := logseg.TopicOf(p); ok {
			t.Errorf("TopicOf(%s) = %q", p, topic)
		}
	}
	text, _, _ = internalListing(t, f, logseg.Options{Codec: cd, Decoder: "metadata"})
	// Api key 2 is KRaft's TopicRecord: the bytes do not fit it.
	if !strings.HasPrefix(text[1], "  offset 0  CreateTime 1700000000000  TopicRecord v0: TopicRecord at 0x0059: 18 bytes left after the body") {
		t.Errorf("--decoder metadata: %s", text[1])
	}
}

// Specs without the group coordinator's records (Kafka 3.4.1's without its
// broker jar, which holds them: every embedded release has them) decode an internal topic's records with the
// newest embedded release that has them, and says so; a record type no
// release has stays bytes.
func TestOffsetsTopicWithAnOlderRelease(t *testing.T) {
	cd := testCodec(t)
	f := writeSegment(t, "__consumer_offsets-3", offsetsSegment(t, cd))
	want, wantJS, wantProblems := internalListing(t, f, logseg.Options{Codec: cd})
	r, err := bundle.Load("3.4")
	if err != nil {
		t.Fatal(err)
	}
	var files []bundle.File
	for _, f := range r.Files {
		if !strings.HasPrefix(f.Source, "kafka_2.13-") {
			files = append(files, f)
		}
	}
	old, errs := spec.NewSet(files)
	if errs.HasErrors() {
		t.Fatal(errs)
	}
	if old.RecordKey(spec.TopicOffsets, 1) != nil || old.Carries(spec.TopicOffsets) {
		t.Fatal("Kafka 3.4.1 without its broker jar has OffsetCommitKey")
	}
	text, js, problems := internalListing(t, f, logseg.Options{Codec: codec.New(old)})
	const with = "  (decoded with Kafka 4.4.0's specs)"
	for i := range want {
		if i > 0 && !strings.Contains(want[i], "record type 99") {
			want[i] += with
		}
	}
	checkLines(t, "text", text, want)
	if len(text) != 10 || text[1] != `  offset 0  CreateTime 1700000000000  OffsetCommitKey {"group":"g1","topic":"t","partition":0}  OffsetCommitValue v3 {"offset":42,"leaderEpoch":5,"metadata":"m","commitTimestamp":1700000000000}`+with {
		t.Errorf("%d lines, record 0: %s", len(text), text[1])
	}
	checkLines(t, "problems", problems, wantProblems)
	for i := range wantJS {
		if !strings.Contains(wantJS[i], "record type 99") {
			wantJS[i] = strings.TrimSuffix(wantJS[i], "}") + `,"decoded_with":"4.4.0"}`
		}
	}
	checkLines(t, "JSON", js, wantJS)
}

// nullValueAbouts reads segment path and returns the about text of every
// record's null value node, by record offset.
func nullValueAbouts(t *testing.T, path string, o logseg.Options) map[int64]string {
	t.Helper()
	out := map[int64]string{}
	_, err := logseg.Read(path, o, func(w *logseg.Window) error {
		for i := range w.Tree.Nodes {
			n := int32(i)
			if w.Tree.Name(n) != "value" || !w.Tree.Nodes[n].Null() {
				continue
			}
			rec := n - 1
			for w.Tree.Nodes[rec].Kind() != tree.Record {
				rec--
			}
			out[records.RecordOffset(w.Tree, rec)] = render.NodeAbout(w.Tree, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// In the tree, a null value of an internal topic's record says it deletes
// the key, as the text and JSON listings do; a null value of any other
// topic says nothing more.
func TestTreeTombstone(t *testing.T) {
	cd := testCodec(t)
	seg := filepath.Join("..", "docs", "examples", "__consumer_offsets-26", "00000000000000000000.log")
	got := nullValueAbouts(t, seg, logseg.Options{Codec: cd})
	dump, err := os.ReadFile(filepath.Join("testdata", "dump-log", "__consumer_offsets-26.txt"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]string{}
	for _, l := range strings.Split(string(dump), "\n") {
		if strings.HasPrefix(l, "| offset: ") && strings.HasSuffix(l, "payload: <DELETE>") {
			var off int64
			fmt.Sscanf(l, "| offset: %d ", &off)
			want[off] = "deleted (null value)"
		}
	}
	if len(want) != 3 || !reflect.DeepEqual(got, want) {
		t.Errorf("null values' abouts = %v, kafka-dump-log's tombstones %v", got, want)
	}
	plain := filepath.Join(t.TempDir(), "plain-0")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plain, "00000000000000000000.log"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	got = nullValueAbouts(t, filepath.Join(plain, "00000000000000000000.log"), logseg.Options{Codec: cd})
	for off := range want {
		want[off] = ""
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a plain topic's null values' abouts = %v, want none", got)
	}
}

// A classic group member whose subscription is null (length -1, which
// the non-nullable bytes field cannot hold) leaves a partial value: the
// listing shows it with the problem, in text and JSON, and does not stop
// (it panicked looking for the decoded subscription of that member).
func TestNullSubscriptionIsAProblem(t *testing.T) {
	path := "testdata/null-subscription/__consumer_offsets-3/00000000000000000000.log"
	for _, l := range []logseg.Lister{{}, {JSON: true}} {
		var out strings.Builder
		header := ""
		sum, err := logseg.Read(path, logseg.Options{Codec: testCodec(t)}, func(w *logseg.Window) error {
			return l.Window(w, &header, &out)
		})
		if err != nil {
			t.Fatal(err)
		}
		want := "GroupMetadataValue.members[0].subscription at 0x00f2: null value for a non-nullable bytes"
		if !strings.Contains(out.String(), want) || len(sum.Problems) != 1 || !strings.Contains(sum.Problems[0].Msg, "null value for a non-nullable bytes") {
			t.Errorf("json %v: %s\nproblems %v", l.JSON, out.String(), sum.Problems)
		}
	}
}
