package coordstate_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/coordstate"
	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
)

func testCodec(t testing.TB) *codec.Codec {
	t.Helper()
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	return codec.New(set)
}

// enc encodes message name at version v from its converter JSON as it
// lies on disk (testseg.CoordRecord).
func enc(t testing.TB, cd *codec.Codec, name string, v int16, js string) []byte {
	t.Helper()
	b, err := testseg.CoordRecord(cd, name, v, js)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// consumer is a consumer protocol message as ConsumerProtocol writes it
// (testseg.ConsumerProtocol), base64 for a JSON bytes field.
func consumer(t testing.TB, cd *codec.Codec, name string, v int16, js string) string {
	t.Helper()
	b, err := testseg.ConsumerProtocol(cd, name, v, js)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// txn is batch b written by transactional producer pid.
func txn(b records.Batch, pid int64) []byte {
	raw := b.Bytes()
	attrs := records.Attributes(0x10)
	if b.Control {
		attrs |= 0x20
	}
	return records.RawBatch{BaseOffset: b.BaseOffset, Attributes: attrs, LastOffsetDelta: int32(len(b.Records) - 1),
		BaseTimestamp: b.Timestamp, MaxTimestamp: b.Timestamp, ProducerID: pid, BaseSequence: -1,
		Count: int32(len(b.Records)), Records: raw[61:]}.Bytes()
}

// marker is a transaction marker batch of producer pid at offset off.
func marker(off, pid int64, commit bool) []byte {
	typ := byte(0)
	if commit {
		typ = 1
	}
	return txn(records.Batch{BaseOffset: off, Timestamp: 1700000000000, Control: true, Records: []records.KeyValue{
		{Key: []byte{0, 0, 0, typ}, Value: []byte{0, 0, 0, 0, 0, 0}}}}, pid)
}

// replay writes the batches as a segment of partition directory dir and
// replays it; the segment must hold no problem.
func replay(t testing.TB, cd *codec.Codec, dir string, batches ...[]byte) *coordstate.State {
	t.Helper()
	s, ps := replayProblems(t, cd, dir, batches...)
	if len(ps) > 0 {
		t.Fatalf("problems: %v", ps)
	}
	return s
}

// replayProblems is replay, returning the segment's problems.
func replayProblems(t testing.TB, cd *codec.Codec, dir string, batches ...[]byte) (*coordstate.State, []string) {
	t.Helper()
	d := filepath.Join(t.TempDir(), dir)
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	var seg []byte
	for _, b := range batches {
		seg = append(seg, b...)
	}
	f := filepath.Join(d, "00000000000000000000.log")
	if err := os.WriteFile(f, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	s := new(coordstate.State)
	sum, err := logseg.Read(f, logseg.Options{Codec: cd}, func(w *logseg.Window) error {
		s.AddBatches(f, w.Tree, w.Batches)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var ps []string
	for _, p := range sum.Findings(true) {
		ps = append(ps, p.String())
	}
	return s, ps
}

func kv(k, v []byte) records.KeyValue { return records.KeyValue{Key: k, Value: v} }

const topicT = "AAAAAAAAAAAAAAAAAAAAAQ" // the topic id of topic t in the tests

// offsetsLog is a __consumer_offsets partition: committed offsets (one
// deleted, two in transactions: one committed, one aborted), a classic
// consumer group, a consumer group (KIP-848) and a share group.
func offsetsLog(t testing.TB, cd *codec.Codec) [][]byte {
	oc := func(g, topic string, p int32, v int16, js string) records.KeyValue {
		return kv(enc(t, cd, "OffsetCommitKey", 0, `{"group":"`+g+`","topic":"`+topic+`","partition":`+string(rune('0'+p))+`}`), enc(t, cd, "OffsetCommitValue", v, js))
	}
	gk := func(name, js string) []byte { return enc(t, cd, name, 0, js) }
	sub := consumer(t, cd, "ConsumerProtocolSubscription", 1, `{"topics":["t"],"userData":null,"ownedPartitions":[]}`)
	asg := consumer(t, cd, "ConsumerProtocolAssignment", 1, `{"assignedPartitions":[{"topic":"t","partitions":[0,1]}],"userData":null}`)
	g2 := gk("OffsetCommitKey", `{"group":"g2","topic":"u","partition":0}`)
	return [][]byte{
		records.Batch{BaseOffset: 0, Timestamp: 1700000000000, Records: []records.KeyValue{
			oc("g1", "t", 0, 3, `{"offset":42,"leaderEpoch":5,"metadata":"m","commitTimestamp":1700000000000}`),
			oc("g1", "t", 1, 4, `{"offset":7,"leaderEpoch":-1,"metadata":"","commitTimestamp":1700000000001,"topicId":"`+topicT+`"}`),
			kv(g2, enc(t, cd, "OffsetCommitValue", 1, `{"offset":1,"metadata":"","commitTimestamp":1,"expireTimestamp":2}`)),
			kv(g2, nil),
			kv(gk("GroupMetadataKey", `{"group":"g1"}`), enc(t, cd, "GroupMetadataValue", 3, `{"protocolType":"consumer","generation":2,"protocol":"range","leader":"m1","currentStateTimestamp":1700000000000,`+
				`"members":[{"memberId":"m1","groupInstanceId":"i1","clientId":"c1","clientHost":"/10.0.0.1","rebalanceTimeout":300000,"sessionTimeout":45000,"subscription":"`+sub+`","assignment":"`+asg+`"}]}`)),
			kv(gk("ConsumerGroupMetadataKey", `{"groupId":"cg"}`), enc(t, cd, "ConsumerGroupMetadataValue", 0, `{"epoch":3,"metadataHash":0}`)),
			kv(gk("ConsumerGroupMemberMetadataKey", `{"groupId":"cg","memberId":"mA"}`), enc(t, cd, "ConsumerGroupMemberMetadataValue", 0, `{"instanceId":null,"rackId":null,"clientId":"ca","clientHost":"/10.0.0.2","subscribedTopicNames":["t"],"subscribedTopicRegex":null,"rebalanceTimeoutMs":300000,"serverAssignor":"uniform"}`)),
			kv(gk("ConsumerGroupTargetAssignmentMetadataKey", `{"groupId":"cg"}`), enc(t, cd, "ConsumerGroupTargetAssignmentMetadataValue", 0, `{"assignmentEpoch":3,"assignmentTimestamp":0}`)),
			kv(gk("ConsumerGroupTargetAssignmentMemberKey", `{"groupId":"cg","memberId":"mA"}`), enc(t, cd, "ConsumerGroupTargetAssignmentMemberValue", 0, `{"topicPartitions":[{"topicId":"`+topicT+`","partitions":[0,1]}]}`)),
			kv(gk("ConsumerGroupCurrentMemberAssignmentKey", `{"groupId":"cg","memberId":"mA"}`), enc(t, cd, "ConsumerGroupCurrentMemberAssignmentValue", 0, `{"memberEpoch":2,"previousMemberEpoch":1,"state":1,"assignedPartitions":[{"topicId":"`+topicT+`","partitions":[0]}],"partitionsPendingRevocation":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAg","partitions":[3]}]}`)),
			kv(gk("ShareGroupMetadataKey", `{"groupId":"sg"}`), enc(t, cd, "ShareGroupMetadataValue", 0, `{"epoch":1,"metadataHash":0}`)),
			kv(gk("ShareGroupMemberMetadataKey", `{"groupId":"sg","memberId":"s1"}`), enc(t, cd, "ShareGroupMemberMetadataValue", 0, `{"rackId":null,"clientId":"cs","clientHost":"/10.0.0.3","subscribedTopicNames":["t"]}`)),
		}}.Bytes(),
		txn(records.Batch{BaseOffset: 12, Timestamp: 1700000000000, Records: []records.KeyValue{oc("g3", "t", 0, 3, `{"offset":100,"leaderEpoch":0,"metadata":"","commitTimestamp":5}`)}}, 1000),
		txn(records.Batch{BaseOffset: 13, Timestamp: 1700000000000, Records: []records.KeyValue{oc("g3", "t", 1, 3, `{"offset":200,"leaderEpoch":0,"metadata":"","commitTimestamp":6}`)}}, 2000),
		marker(14, 1000, true),
		marker(15, 2000, false),
	}
}

func TestOffsetsState(t *testing.T) {
	cd := testCodec(t)
	s := replay(t, cd, "__consumer_offsets-0", offsetsLog(t, cd)...)
	want := `OFFSETS
GROUP  TOPIC  PARTITION  OFFSET  LEADER EPOCH  METADATA  COMMITTED (ms)  RECORD
g1     t      0          42      5             "m"       1700000000000   0
g1     t      1          7       -1            ""        1700000000001   1
g3     t      0          100     0             ""        5               12

GROUPS
GROUP  TYPE      STATE        EPOCH  ASSIGNMENT EPOCH  PROTOCOL  MEMBERS
cg     consumer  Reconciling  3      3                 -         1
g1     classic   Stable       2      -                 range     1
sg     share     Stable       1      -                 -         1

MEMBERS
GROUP  MEMBER  INSTANCE  CLIENT  HOST       EPOCH  STATE                 SUBSCRIBED  ASSIGNED  REVOKING                  TARGET
cg     mA      -         ca      /10.0.0.2  2      UNREVOKED_PARTITIONS  t           t:0       AAAAAAAAAAAAAAAAAAAAAg:3  t:0,1
g1     m1      i1        c1      /10.0.0.1  -1     -                     t           t:0,1     -                         -
sg     s1      -         cs      /10.0.0.3  0      -                     t           -         -                         -
`
	if got := string(s.AppendText(nil)); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	wantJSON := `{"type":"offset","group":"g1","topic":"t","partition":0,"offset":42,"leader_epoch":5,"metadata":"m","commit_timestamp":1700000000000,"expire_timestamp":-1,"record_offset":0}
{"type":"offset","group":"g1","topic":"t","partition":1,"offset":7,"leader_epoch":-1,"metadata":"","commit_timestamp":1700000000001,"expire_timestamp":-1,"topic_id":"AAAAAAAAAAAAAAAAAAAAAQ","record_offset":1}
{"type":"offset","group":"g3","topic":"t","partition":0,"offset":100,"leader_epoch":0,"metadata":"","commit_timestamp":5,"expire_timestamp":-1,"record_offset":12}
{"type":"group","group":"cg","group_type":"consumer","state":"Reconciling","epoch":3,"assignment_epoch":3,"members":[{"member_id":"mA","instance_id":null,"client_id":"ca","client_host":"/10.0.0.2","epoch":2,"state":"UNREVOKED_PARTITIONS","subscribed_topics":["t"],"assigned":[{"topic":"t","partitions":[0]}],"revoking":[{"topic":"AAAAAAAAAAAAAAAAAAAAAg","partitions":[3]}],"target":[{"topic":"t","partitions":[0,1]}]}]}
{"type":"group","group":"g1","group_type":"classic","state":"Stable","epoch":2,"assignment_epoch":-1,"protocol_type":"consumer","protocol":"range","leader":"m1","members":[{"member_id":"m1","instance_id":"i1","client_id":"c1","client_host":"/10.0.0.1","epoch":-1,"subscribed_topics":["t"],"assigned":[{"topic":"t","partitions":[0,1]}],"revoking":[],"target":[]}]}
{"type":"group","group":"sg","group_type":"share","state":"Stable","epoch":1,"assignment_epoch":-1,"members":[{"member_id":"s1","instance_id":null,"client_id":"cs","client_host":"/10.0.0.3","epoch":0,"subscribed_topics":["t"],"assigned":[],"revoking":[],"target":[]}]}
`
	if got := string(s.AppendJSON(nil)); got != wantJSON {
		t.Errorf("JSON:\n%s\nwant:\n%s", got, wantJSON)
	}
}

func TestTransactionsState(t *testing.T) {
	cd := testCodec(t)
	key := func(id string) []byte { return enc(t, cd, "TransactionLogKey", 0, `{"transactionalId":"`+id+`"}`) }
	val := func(v int16, js string) []byte { return enc(t, cd, "TransactionLogValue", v, js) }
	s := replay(t, cd, "__transaction_state-0", records.Batch{Timestamp: 1700000000000, Records: []records.KeyValue{
		kv(key("tx1"), val(0, `{"producerId":1000,"producerEpoch":0,"transactionTimeoutMs":60000,"transactionStatus":1,"transactionPartitions":[{"topic":"t","partitionIds":[0,1]}],"transactionLastUpdateTimestampMs":10,"transactionStartTimestampMs":9}`)),
		kv(key("tx1"), val(1, `{"producerId":1000,"producerEpoch":1,"transactionTimeoutMs":60000,"transactionStatus":4,"transactionPartitions":[],"transactionLastUpdateTimestampMs":20,"transactionStartTimestampMs":9}`)),
		kv(key("tx2"), val(0, `{"producerId":2000,"producerEpoch":3,"transactionTimeoutMs":900000,"transactionStatus":3,"transactionPartitions":[{"topic":"u","partitionIds":[2]},{"topic":"t","partitionIds":[0]}],"transactionLastUpdateTimestampMs":30,"transactionStartTimestampMs":25}`)),
		kv(key("tx3"), val(0, `{"producerId":3000,"producerEpoch":0,"transactionTimeoutMs":1,"transactionStatus":0,"transactionPartitions":[],"transactionLastUpdateTimestampMs":1,"transactionStartTimestampMs":-1}`)),
		kv(key("tx3"), nil),
	}}.Bytes())
	want := `TRANSACTIONS
TRANSACTIONAL ID  STATE           PRODUCER ID  EPOCH  TIMEOUT (ms)  PARTITIONS  UPDATED (ms)  STARTED (ms)
tx1               CompleteCommit  1000         1      60000         -           20            9
tx2               PrepareAbort    2000         3      900000        u:2 t:0     30            25
`
	if got := string(s.AppendText(nil)); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	wantJSON := `{"type":"transaction","transactional_id":"tx1","state":"CompleteCommit","producer_id":1000,"producer_epoch":1,"timeout_ms":60000,"partitions":[],"last_update_timestamp":20,"start_timestamp":9}
{"type":"transaction","transactional_id":"tx2","state":"PrepareAbort","producer_id":2000,"producer_epoch":3,"timeout_ms":900000,"partitions":[{"topic":"u","partitions":[2]},{"topic":"t","partitions":[0]}],"last_update_timestamp":30,"start_timestamp":25}
`
	if got := string(s.AppendJSON(nil)); got != wantJSON {
		t.Errorf("JSON:\n%s\nwant:\n%s", got, wantJSON)
	}
}

func TestShareState(t *testing.T) {
	cd := testCodec(t)
	key := func(name string, p int) []byte {
		return enc(t, cd, name, 0, `{"groupId":"sg","topicId":"`+topicT+`","partition":`+string(rune('0'+p))+`}`)
	}
	s := replay(t, cd, "__share_group_state-0", records.Batch{Timestamp: 1700000000000, Records: []records.KeyValue{
		kv(key("ShareSnapshotKey", 0), enc(t, cd, "ShareSnapshotValue", 0, `{"snapshotEpoch":0,"stateEpoch":2,"leaderEpoch":4,"startOffset":0,"createTimestamp":1,"writeTimestamp":1,"stateBatches":[{"firstOffset":0,"lastOffset":9,"deliveryState":1,"deliveryCount":1}]}`)),
		// An update: the start moves to 5, 3..6 are acknowledged; the
		// leader epoch -1 keeps the snapshot's.
		kv(key("ShareUpdateKey", 0), enc(t, cd, "ShareUpdateValue", 0, `{"snapshotEpoch":0,"leaderEpoch":-1,"startOffset":5,"stateBatches":[{"firstOffset":3,"lastOffset":6,"deliveryState":2,"deliveryCount":1}]}`)),
		kv(key("ShareSnapshotKey", 1), enc(t, cd, "ShareSnapshotValue", 0, `{"snapshotEpoch":1,"stateEpoch":0,"leaderEpoch":0,"startOffset":-1,"createTimestamp":1,"writeTimestamp":1,"stateBatches":[]}`)),
		kv(key("ShareSnapshotKey", 2), enc(t, cd, "ShareSnapshotValue", 0, `{"snapshotEpoch":1,"stateEpoch":0,"leaderEpoch":0,"startOffset":3,"createTimestamp":1,"writeTimestamp":1,"stateBatches":[]}`)),
		kv(key("ShareSnapshotKey", 2), nil),
	}}.Bytes())
	want := `SHARE STATE
GROUP  TOPIC ID                PARTITION  START OFFSET  LEADER EPOCH  STATE EPOCH  SNAPSHOT EPOCH  BATCHES
sg     AAAAAAAAAAAAAAAAAAAAAQ  0          5             4             2            0               5..6 ACKNOWLEDGED×1, 7..9 ACQUIRED×1
sg     AAAAAAAAAAAAAAAAAAAAAQ  1          -1            0             0            1               -
`
	if got := string(s.AppendText(nil)); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	wantJSON := `{"type":"share_partition","group":"sg","topic_id":"AAAAAAAAAAAAAAAAAAAAAQ","partition":0,"start_offset":5,"leader_epoch":4,"state_epoch":2,"snapshot_epoch":0,"batches":[{"first_offset":5,"last_offset":6,"delivery_state":"ACKNOWLEDGED","delivery_count":1},{"first_offset":7,"last_offset":9,"delivery_state":"ACQUIRED","delivery_count":1}]}
{"type":"share_partition","group":"sg","topic_id":"AAAAAAAAAAAAAAAAAAAAAQ","partition":1,"start_offset":-1,"leader_epoch":0,"state_epoch":0,"snapshot_epoch":1,"batches":[]}
`
	if got := string(s.AppendJSON(nil)); got != wantJSON {
		t.Errorf("JSON:\n%s\nwant:\n%s", got, wantJSON)
	}
}

// TestGarbageSubscription: a classic member whose subscription does not
// decode has no subscribed topics in the state (the bytes' problem is the
// segment's); the rest still applies, and a record without state to show
// (the topics a regular expression resolved to) changes nothing.
func TestGarbageSubscription(t *testing.T) {
	cd := testCodec(t)
	garbage := base64.StdEncoding.EncodeToString([]byte{0, 1, 0, 0, 0, 5, 0, 1})
	s, ps := replayProblems(t, cd, "__consumer_offsets-0", records.Batch{Timestamp: 1700000000000, Records: []records.KeyValue{
		kv(enc(t, cd, "ConsumerGroupRegularExpressionKey", 0, `{"groupId":"cg","regularExpression":"t.*"}`), enc(t, cd, "ConsumerGroupRegularExpressionValue", 0, `{"topics":["t"],"version":1,"timestamp":1}`)),
		kv(enc(t, cd, "GroupMetadataKey", 0, `{"group":"g"}`), enc(t, cd, "GroupMetadataValue", 0, `{"protocolType":"consumer","generation":1,"protocol":"range","leader":"m","members":[{"memberId":"m","clientId":"c","clientHost":"h","sessionTimeout":1,"subscription":"`+garbage+`","assignment":""}]}`)),
		kv(enc(t, cd, "OffsetCommitKey", 0, `{"group":"g","topic":"t","partition":0}`), enc(t, cd, "OffsetCommitValue", 0, `{"offset":3,"metadata":"","commitTimestamp":4}`)),
	}}.Bytes())
	want := `OFFSETS
GROUP  TOPIC  PARTITION  OFFSET  LEADER EPOCH  METADATA  COMMITTED (ms)  RECORD
g      t      0          3       -1            ""        4               2

GROUPS
GROUP  TYPE     STATE   EPOCH  ASSIGNMENT EPOCH  PROTOCOL  MEMBERS
g      classic  Stable  1      -                 range     1

MEMBERS
GROUP  MEMBER  INSTANCE  CLIENT  HOST  EPOCH  STATE  SUBSCRIBED  ASSIGNED  REVOKING  TARGET
g      m       -         c       h     -1     -      -           -         -         -
`
	if want := "[00000000000000000000.log[0].Record[1].value.GroupMetadataValue.members[0].subscription.Topics at 0x00a2: array of 5 elements cannot fit in the 2 bytes that remain]"; fmt.Sprint(ps) != want {
		t.Errorf("problems %v, want %s", ps, want)
	}
	if got := string(s.AppendText(nil)); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	if got, want := string(new(coordstate.State).AppendText(nil)), "no state: no record of a type --state replays\n"; got != want {
		t.Errorf("empty: %q, want %q", got, want)
	}
}

// TestNotes: a record of a type State does not know is a note, in text
// and JSON; the state is unchanged.
func TestNotes(t *testing.T) {
	cd := testCodec(t)
	m := cd.Set.Message("ConsumerProtocolAssignment")
	vt, err := codec.FromJSON([]byte(`{"assignedPartitions":[],"userData":null}`), m, 1)
	if err != nil {
		t.Fatal(err)
	}
	var s coordstate.State
	s.Apply(coordstate.Record{Offset: 7, ProducerID: coordstate.NoProducer, Key: vt.Root(), Tombstone: true})
	if got, want := string(s.AppendText(nil)), "no state: no record of a type --state replays\nnote: offset 7: ConsumerProtocolAssignment: not a record type --state replays\n"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if got, want := string(s.AppendJSON(nil)), `{"type":"note","message":"offset 7: ConsumerProtocolAssignment: not a record type --state replays"}`+"\n"; got != want {
		t.Errorf("JSON %q, want %q", got, want)
	}
}

// TestStreamsState: a streams group's members have tasks by subtopology;
// without a topology record the group is NotReady.
func TestStreamsState(t *testing.T) {
	cd := testCodec(t)
	k := func(name, js string) []byte { return enc(t, cd, name, 0, js) }
	v := func(name, js string) []byte { return enc(t, cd, name, 0, js) }
	member := `{"instanceId":null,"rackId":null,"clientId":"app","clientHost":"/10.0.0.4","rebalanceTimeoutMs":1000,"topologyEpoch":1,"processId":"p1","userEndpoint":null,"clientTags":[]}`
	s := replay(t, cd, "__consumer_offsets-0", records.Batch{Timestamp: 1700000000000, Records: []records.KeyValue{
		kv(k("StreamsGroupMetadataKey", `{"groupId":"app"}`), v("StreamsGroupMetadataValue", `{"epoch":2,"metadataHash":0}`)),
		kv(k("StreamsGroupTopologyKey", `{"groupId":"app"}`), v("StreamsGroupTopologyValue", `{"epoch":1,"subtopologies":[]}`)),
		kv(k("StreamsGroupTargetAssignmentMetadataKey", `{"groupId":"app"}`), v("StreamsGroupTargetAssignmentMetadataValue", `{"assignmentEpoch":2}`)),
		kv(k("StreamsGroupMemberMetadataKey", `{"groupId":"app","memberId":"s1"}`), v("StreamsGroupMemberMetadataValue", member)),
		kv(k("StreamsGroupCurrentMemberAssignmentKey", `{"groupId":"app","memberId":"s1"}`), v("StreamsGroupCurrentMemberAssignmentValue",
			`{"memberEpoch":2,"previousMemberEpoch":1,"state":0,"activeTasks":[{"subtopologyId":"0","partitions":[0,1]}],"standbyTasks":[],"warmupTasks":[],"activeTasksPendingRevocation":[],"standbyTasksPendingRevocation":[],"warmupTasksPendingRevocation":[]}`)),
		kv(k("StreamsGroupMetadataKey", `{"groupId":"app2"}`), v("StreamsGroupMetadataValue", `{"epoch":1,"metadataHash":0}`)),
		kv(k("StreamsGroupMemberMetadataKey", `{"groupId":"app2","memberId":"s2"}`), v("StreamsGroupMemberMetadataValue", member)),
	}}.Bytes())
	want := `GROUPS
GROUP  TYPE     STATE     EPOCH  ASSIGNMENT EPOCH  PROTOCOL  MEMBERS
app    streams  Stable    2      2                 -         1
app2   streams  NotReady  1      -                 -         1

MEMBERS
GROUP  MEMBER  INSTANCE  CLIENT  HOST       EPOCH  STATE   SUBSCRIBED  ASSIGNED  REVOKING  TARGET
app    s1      -         app     /10.0.0.4  2      STABLE  -           0:0,1     -         -
app2   s2      -         app     /10.0.0.4  0      -       -           -         -         -
`
	if got := string(s.AppendText(nil)); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
}
