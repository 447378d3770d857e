package body

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// testNames are Names whose names differ from each other and from
// anything a default holds, so that a value in the wrong place shows.
var testNames = Names{
	Prefix:          "kwire-conform-t1",
	Topic:           "kwire-conform-t1-topic",
	TopicID:         [16]byte{0xa1, 0xa2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
	Group:           "kwire-conform-t1-group",
	TransactionalID: "kwire-conform-t1-txn",
}

// quorumTopic is the topic the KRaft quorum APIs name.
const quorumTopic = "__cluster_metadata"

// requests calls fn with every request of every embedded release at every
// valid version.
func requests(t *testing.T, fn func(s *spec.Set, m *spec.Message, v int16)) {
	t.Helper()
	sets, err := spec.EmbeddedAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		for _, m := range s.Messages {
			if m.Type != spec.Request || m.ValidVersions.Empty() {
				continue
			}
			for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
				fn(s, m, v)
			}
		}
	}
}

// A body for every request version of every embedded release: For
// succeeds, codec encodes it and reads back the same values.
func TestForEveryVersion(t *testing.T) {
	n, distinct := 0, map[string]bool{}
	requests(t, func(s *spec.Set, m *spec.Message, v int16) {
		body, err := For(m, v, testNames)
		if err != nil {
			t.Errorf("%s %s v%d: %v", s.Release, m.Name, v, err)
			return
		}
		enc, err := codec.New(s).EncodeBody(m, v, body)
		if err != nil {
			t.Errorf("%s %s v%d: encode: %v", s.Release, m.Name, v, err)
			return
		}
		if len(enc.Problems) != 0 {
			t.Errorf("%s %s v%d: encode: %v", s.Release, m.Name, v, enc.Problems)
		}
		if d := tree.Diff(body, 0, enc, enc.Find(0, tree.Body)); d != "" {
			t.Errorf("%s %s v%d: read back differs: %s", s.Release, m.Name, v, d)
		}
		n++
		distinct[fmt.Sprintf("%d/%d", m.APIKey, v)] = true
	})
	t.Logf("%d bodies (%d distinct api key/version pairs) across the embedded releases", n, len(distinct))
	if n < 1000 {
		t.Errorf("only %d bodies", n)
	}
}

// entity is what a string field names, by its spec entityType, else by
// its name: "topic", "group", "txn" or "".
func entity(f *spec.Field) string {
	switch f.EntityType {
	case "topicName":
		return "topic"
	case "groupId":
		return "group"
	case "transactionalId":
		return "txn"
	}
	switch f.Name {
	case "GroupId", "GroupIds", "GroupsNames", "Groups":
		if f.Type.Kind == spec.KindString || f.Type.Elem == spec.KindString {
			return "group"
		}
	case "TopicName", "Topic", "SourceTopics", "SinkTopic", "SubscribedTopicNames":
		if f.Type.Kind == spec.KindString || f.Type.Elem == spec.KindString {
			return "topic"
		}
	case "TransactionalId", "TransactionalIds":
		return "txn"
	}
	return ""
}

// strings calls fn with every string value of body t (string fields and
// the elements of string arrays) and its field.
func stringValues(t *tree.Tree, fn func(f *spec.Field, s string, null bool)) {
	for i := range t.Nodes {
		f := t.Field(int32(i))
		if f == nil || t.Nodes[i].Kind() == tree.Element {
			continue
		}
		switch {
		case f.Type.Kind == spec.KindString:
			fn(f, string(t.Data(int32(i))), t.Nodes[i].Null())
		case f.Type.Kind == spec.KindArray && f.Type.Elem == spec.KindString:
			t.Elements(int32(i), func(c int32) bool {
				fn(f, string(t.Data(c)), t.Nodes[c].Null())
				return true
			})
		}
	}
}

// Every topic, group and transactional id a body names is one of Names'
// (or empty or null, meaning none); the quorum APIs name the metadata
// topic. Each kind of name appears somewhere, so the walk sees them.
func TestForNamesOnlyNames(t *testing.T) {
	want := map[string]string{"topic": testNames.Topic, "group": testNames.Group, "txn": testNames.TransactionalID}
	seen := map[string]int{}
	requests(t, func(s *spec.Set, m *spec.Message, v int16) {
		body, err := For(m, v, testNames)
		if err != nil {
			return // TestForEveryVersion reports it
		}
		stringValues(body, func(f *spec.Field, s string, null bool) {
			kind := entity(f)
			if kind == "" || null || s == "" {
				return
			}
			seen[kind]++
			if s == want[kind] || kind == "topic" && s == quorumTopic && slices.Contains([]int16{52, 53, 54, 55, 59}, m.APIKey) {
				return
			}
			t.Errorf("%s v%d: %s (%s) = %q, want %q", m.Name, v, f.Name, kind, s, want[kind])
		})
	})
	for k := range want {
		if seen[k] == 0 {
			t.Errorf("no body names a %s", k)
		}
	}
}

// Timeouts are positive, enum-like fields hold legal values (no UNKNOWN
// resource, pattern, operation or permission type), a consumer's
// Fetch, ListOffsets and OffsetForLeaderEpoch say replica id -1.
func TestForLegalValues(t *testing.T) {
	timeouts := []string{"TimeoutMs", "timeoutMs", "SessionTimeoutMs", "RebalanceTimeoutMs", "TransactionTimeoutMs", "MaxWaitMs"}
	enums := []string{"ResourceType", "ResourceTypeFilter", "ResourcePatternType", "PatternTypeFilter", "Operation", "PermissionType", "MatchType"}
	requests(t, func(s *spec.Set, m *spec.Message, v int16) {
		body, err := For(m, v, testNames)
		if err != nil {
			return
		}
		for i := range body.Nodes {
			f := body.Field(int32(i))
			if f == nil || f.Type.Kind == spec.KindArray || f.Type.Kind == spec.KindStruct || f.Type.Kind == spec.KindString {
				continue
			}
			x := body.Num(int32(i))
			switch {
			case slices.Contains(timeouts, f.Name) && x <= 0:
				t.Errorf("%s v%d: %s = %d, want a positive timeout", m.Name, v, f.Name, x)
			case slices.Contains(enums, f.Name) && f.Name != "MatchType" && x <= 0:
				t.Errorf("%s v%d: %s = %d, want a legal value", m.Name, v, f.Name, x)
			case f.Name == "ReplicaId" && slices.Contains([]int16{1, 2, 23}, m.APIKey) && x != -1:
				t.Errorf("%s v%d: ReplicaId = %d, want -1 (a consumer)", m.Name, v, x)
			case f.Name == "Acks" && x != -1:
				t.Errorf("%s v%d: Acks = %d, want -1 (all: acks 0 has no response)", m.Name, v, x)
			}
		}
	})
}

// Every api key of every embedded release has an explicit class and a
// reason, named as the newest release that has it names it.
func TestAccessEveryKey(t *testing.T) {
	sets, err := spec.EmbeddedAll()
	if err != nil {
		t.Fatal(err)
	}
	named := map[int16]bool{}
	for _, s := range sets { // newest first
		for _, m := range s.Messages {
			if m.Type != spec.Request {
				continue
			}
			a, ok := apis[m.APIKey]
			if !ok {
				t.Errorf("%s %s (api key %d) has no access class", s.Release, m.Name, m.APIKey)
				continue
			}
			if a.why == "" {
				t.Errorf("api key %d: no reason", m.APIKey)
			}
			if !named[m.APIKey] && a.name != m.BaseName() {
				t.Errorf("api key %d is %s in %s, the table says %s", m.APIKey, m.BaseName(), s.Release, a.name)
			}
			named[m.APIKey] = true
		}
	}
	for k := range apis {
		if !named[k] {
			t.Errorf("api key %d is in the table but in no embedded release", k)
		}
	}
}

// The classes of the APIs the package doc and issue 26 name.
func TestAccessOf(t *testing.T) {
	s, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]Access{
		"Metadata": ReadOnly, "ApiVersions": ReadOnly, "DescribeConfigs": ReadOnly, "ListGroups": ReadOnly,
		"OffsetFetch": ReadOnly, "Fetch": ReadOnly, "FindCoordinator": ReadOnly, "DescribeQuorum": ReadOnly,
		"Produce": Mutating, "CreateTopics": Mutating, "DeleteTopics": Mutating, "DeleteRecords": Mutating,
		"AlterConfigs": Mutating, "CreateAcls": Mutating, "AlterClientQuotas": Mutating, "AlterPartitionReassignments": Mutating,
		"ElectLeaders": Mutating, "OffsetCommit": Mutating, "JoinGroup": Mutating, "Heartbeat": Mutating,
		"EndTxn": Mutating, "InitProducerId": Mutating,
		"Vote": Cluster, "BeginQuorumEpoch": Cluster, "EndQuorumEpoch": Cluster, "FetchSnapshot": Cluster,
		"BrokerRegistration": Cluster, "BrokerHeartbeat": Cluster, "AllocateProducerIds": Cluster, "AddRaftVoter": Cluster,
		"LeaderAndIsr": Cluster, "StopReplica": Cluster, "UpdateMetadata": Cluster, "ControlledShutdown": Cluster,
	} {
		req, _, err := s.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := AccessOf(req); got != want {
			t.Errorf("AccessOf(%s) = %s, want %s", name, got, want)
		}
	}
	unknown := &spec.Message{Name: "FutureRequest", Type: spec.Request, APIKey: 999}
	if got := AccessOf(unknown); got != Mutating {
		t.Errorf("AccessOf(api key 999) = %s, want mutating", got)
	}
	if _, err := For(unknown, 0, testNames); err == nil {
		t.Error("For(api key 999): no error")
	}
	if _, err := For(s.Response(3), 12, testNames); err == nil {
		t.Error("For(MetadataResponse): no error")
	}
}

// Fetch's and Metadata's bodies decide their class: replica id 0 or more
// (v0–14) or a ReplicaState with one (v15+) is a follower's fetch, a
// session id names a session; a topic named where it may be auto-created.
func TestAccessOfBodyFetch(t *testing.T) {
	s, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	fetch := s.Request(1)
	const fetchRest = `"maxWaitMs":1,"minBytes":1,"maxBytes":1,"isolationLevel":0,"sessionId":0,"sessionEpoch":-1,"topics":[],"forgottenTopicsData":[],"rackId":""}`
	for _, c := range []struct {
		v    int16
		json string
		want Access
	}{
		{4, `{"replicaId":-1,"maxWaitMs":1,"minBytes":1,"maxBytes":1,"isolationLevel":0,"topics":[]}`, ReadOnly},
		{14, `{"replicaId":2,` + fetchRest, Cluster},
		{14, `{"replicaId":0,` + fetchRest, Cluster},
		{18, `{` + fetchRest, ReadOnly},
		{18, `{"replicaState":{"replicaId":-1,"replicaEpoch":-1},` + fetchRest, ReadOnly},
		{18, `{"replicaState":{"replicaId":3,"replicaEpoch":7},` + fetchRest, Cluster},
	} {
		body, err := codec.FromJSON([]byte(c.json), fetch, c.v)
		if err != nil {
			t.Fatal(err)
		}
		if got := AccessOfBody(fetch, c.v, body); got != c.want {
			t.Errorf("Fetch v%d %s: %s, want %s", c.v, c.json, got, c.want)
		}
	}
	for v := int16(4); v <= 18; v++ {
		body, err := For(fetch, v, testNames)
		if err != nil {
			t.Fatal(err)
		}
		if got := AccessOfBody(fetch, v, body); got != ReadOnly {
			t.Errorf("For's Fetch v%d is %s, want read-only", v, got)
		}
	}
	// A session named: another client's, perhaps.
	body, err := codec.FromJSON([]byte(`{"replicaId":-1,"maxWaitMs":1,"minBytes":1,"maxBytes":1,"isolationLevel":0,"sessionId":77,"sessionEpoch":-1,"topics":[],"forgottenTopicsData":[],"rackId":""}`), fetch, 12)
	if err != nil {
		t.Fatal(err)
	}
	if got := AccessOfBody(fetch, 12, body); got != Mutating {
		t.Errorf("Fetch v12 of session 77: %s, want mutating", got)
	}
	// Metadata: a topic that may be auto-created makes it mutating.
	metadata := s.Request(3)
	for v := metadata.ValidVersions.Lo; v <= metadata.ValidVersions.Hi; v++ {
		body, _ := For(metadata, v, testNames)
		if got := AccessOfBody(metadata, v, body); got != ReadOnly {
			t.Errorf("For's Metadata v%d: %s, want read-only", v, got)
		}
	}
	for _, c := range []struct {
		v    int16
		json string
		want Access
	}{
		{0, `{"topics":[{"name":"t"}]}`, Mutating},
		{3, `{"topics":[{"name":"t"}]}`, Mutating},
		{3, `{"topics":[]}`, ReadOnly},
		{4, `{"topics":[{"name":"t"}],"allowAutoTopicCreation":true}`, Mutating},
		{4, `{"topics":[{"name":"t"}],"allowAutoTopicCreation":false}`, ReadOnly},
		{4, `{"topics":null,"allowAutoTopicCreation":true}`, ReadOnly},
		{12, `{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAQ","name":null}],"allowAutoTopicCreation":true,"includeTopicAuthorizedOperations":false}`, ReadOnly},
		{12, `{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"t"}],"allowAutoTopicCreation":true,"includeTopicAuthorizedOperations":false}`, Mutating},
	} {
		body, err := codec.FromJSON([]byte(c.json), metadata, c.v)
		if err != nil {
			t.Fatal(err)
		}
		if got := AccessOfBody(metadata, c.v, body); got != c.want {
			t.Errorf("Metadata v%d %s: %s, want %s", c.v, c.json, got, c.want)
		}
	}
	// A frame's span tree is judged by its body.
	hdr := codec.RequestHeaderValue(s.RequestHeader(), 3, 4, 1, "c")
	body, _ = codec.FromJSON([]byte(`{"topics":[{"name":"t"}],"allowAutoTopicCreation":true}`), metadata, 4)
	frame, err := codec.New(s).Encode(metadata, 4, hdr, body)
	if err != nil {
		t.Fatal(err)
	}
	if got := AccessOfBody(metadata, 4, frame); got != Mutating {
		t.Errorf("Metadata v4 frame: %s, want mutating", got)
	}
}

// Every key of every template names a field of the API in some embedded
// release (For drops the keys a release does not know, so a misspelt key
// would be dropped everywhere without this test).
func TestTemplateKeys(t *testing.T) {
	sets, err := spec.EmbeddedAll()
	if err != nil {
		t.Fatal(err)
	}
	known := map[int16]map[string]bool{} // api key -> JSON paths of fields
	var walk func(key int16, st *spec.Struct, path string)
	walk = func(key int16, st *spec.Struct, path string) {
		for _, f := range st.Fields {
			p := path + "." + jsonKey(f)
			known[key][p] = true
			if f.Type.Struct != nil {
				walk(key, f.Type.Struct, p)
			}
		}
	}
	for _, s := range sets {
		for _, m := range s.Messages {
			if m.Type == spec.Request {
				if known[m.APIKey] == nil {
					known[m.APIKey] = map[string]bool{}
				}
				walk(m.APIKey, m.Root, "")
			}
		}
	}
	var keys func(key int16, x any, path string)
	keys = func(key int16, x any, path string) {
		switch x := x.(type) {
		case map[string]any:
			for k, v := range x {
				p := path + "." + k
				if !known[key][p] {
					t.Errorf("api key %d: template key %s names no field of any embedded release", key, p)
				}
				keys(key, v, p)
			}
		case []any:
			for _, e := range x {
				keys(key, e, path)
			}
		}
	}
	for key, a := range apis {
		for _, b := range a.bodies {
			var js any
			if err := decodeJSON([]byte(b.json), &js); err != nil {
				t.Errorf("api key %d: %v", key, err)
				continue
			}
			keys(key, js, "")
		}
	}
}

// The records a Produce body carries: one RecordBatch v2 of one record
// (v3+), one magic 1 message (v0–2), byte for byte, with their checksums
// as package records computes them.
func TestRecords(t *testing.T) {
	batch := Records(produceKey, 3)
	const want = "0000000000000000" + // baseOffset
		"00000045" + // batchLength 69
		"ffffffff" + // partitionLeaderEpoch -1
		"02" // magic
	if got := fmt.Sprintf("%x", batch[:17]); got != want {
		t.Errorf("batch header %s, want %s", got, want)
	}
	if len(batch) != 12+69 {
		t.Errorf("batch of %d bytes, want 81", len(batch))
	}
	if got, want := binary.BigEndian.Uint32(batch[17:]), records.CRC32C(batch[21:]); got != want {
		t.Errorf("crc %08x, want %08x", got, want)
	}
	// The record: length 19 (zigzag 26), attributes 0, deltas 0, key
	// null (-1 as zigzag 01), value of 13 bytes (zigzag 1a), no header.
	if got, want := fmt.Sprintf("%x", batch[61:]), "26000000011a"+fmt.Sprintf("%x", recordValue)+"00"; got != want {
		t.Errorf("record %s, want %s", got, want)
	}
	bt := records.Decode(batch, records.Options{})
	if len(bt.Problems) != 0 {
		t.Errorf("batch: %v", bt.Problems)
	}
	legacy := Records(produceKey, 2)
	if got, want := binary.BigEndian.Uint32(legacy[12:]), crc32.ChecksumIEEE(legacy[16:]); got != want {
		t.Errorf("legacy crc %08x, want %08x", got, want)
	}
	if legacy[16] != 1 || !bytes.HasSuffix(legacy, []byte(recordValue)) {
		t.Errorf("legacy message %x", legacy)
	}
	if lt := records.Decode(legacy, records.Options{}); len(lt.Problems) != 0 {
		t.Errorf("legacy: %v", lt.Problems)
	}
}

// The subscription of JoinGroup's metadata decodes as Kafka's
// ConsumerProtocolSubscription v0 naming the topic.
func TestSubscription(t *testing.T) {
	s, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	b := Subscription(testNames.Topic)
	if v := binary.BigEndian.Uint16(b); v != 0 {
		t.Fatalf("version %d", v)
	}
	m := s.Message("ConsumerProtocolSubscription")
	st, err := codec.New(s).DecodeBody(b[2:], m, 0)
	if err != nil {
		t.Fatal(err)
	}
	root := st.At(st.Find(0, tree.Body))
	topics := root.Field("Topics")
	if topics.Len() != 1 || topics.Elem(0).String() != testNames.Topic || !root.Field("UserData").IsNull() {
		t.Errorf("subscription %x decodes as topics %v", b, topics)
	}
}

// JSON writes every field of the version, names filled in, fields of
// other versions left out.
func TestJSON(t *testing.T) {
	s, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		v    int16
		want string
	}{
		{"Metadata", 0, `{"topics":[]}`},
		{"Metadata", 3, `{"topics":null}`},
		{"Metadata", 4, `{"allowAutoTopicCreation":false,"topics":[{"name":"kwire-conform-t1-topic"}]}`},
		{"Metadata", 12, `{"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false,"topics":[{"name":"kwire-conform-t1-topic","topicId":"AAAAAAAAAAAAAAAAAAAAAA"}]}`},
		{"DescribeGroups", 5, `{"groups":["kwire-conform-t1-group"],"includeAuthorizedOperations":false}`},
		{"DeleteTopics", 6, `{"timeoutMs":5000,"topics":[{"name":"kwire-conform-t1-topic","topicId":"AAAAAAAAAAAAAAAAAAAAAA"}]}`},
		{"DeleteTopics", 5, `{"timeoutMs":5000,"topicNames":["kwire-conform-t1-topic"]}`},
		{"FindCoordinator", 6, `{"coordinatorKeys":["kwire-conform-t1-group"],"keyType":0}`},
	} {
		req, _, err := s.Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		js, err := JSON(req, c.v, testNames)
		if err != nil {
			t.Fatal(err)
		}
		if string(js) != c.want {
			t.Errorf("%s v%d:\n got %s\nwant %s", c.name, c.v, js, c.want)
		}
	}
	// The topic id reaches the bodies that name topics by id.
	fetch := s.Request(1)
	js, _ := JSON(fetch, 13, testNames)
	if !strings.Contains(string(js), `"topicId":"oaIDBAUGBwgJCgsMDQ4PEA"`) {
		t.Errorf("Fetch v13: %s", js)
	}
	// A producer's id and epoch reach the transaction APIs' bodies.
	withProducer := testNames
	withProducer.Producer = &Producer{ID: 4000, Epoch: 7}
	end := s.Request(26)
	for n, want := range map[*Names]string{
		&testNames:    `{"committed":false,"producerEpoch":-1,"producerId":-1,"transactionalId":"kwire-conform-t1-txn"}`,
		&withProducer: `{"committed":false,"producerEpoch":7,"producerId":4000,"transactionalId":"kwire-conform-t1-txn"}`,
	} {
		if js, err := JSON(end, 5, *n); err != nil || string(js) != want {
			t.Errorf("EndTxn v5: %s, %v; want %s", js, err, want)
		}
	}
	// A classic member's id and generation reach the group bodies.
	joined := testNames
	joined.Member = &Member{ID: "m-1", Generation: 3}
	hb := s.Request(12)
	for n, want := range map[*Names]string{
		&testNames: `{"generationId":-1,"groupId":"kwire-conform-t1-group","groupInstanceId":null,"memberId":""}`,
		&joined:    `{"generationId":3,"groupId":"kwire-conform-t1-group","groupInstanceId":null,"memberId":"m-1"}`,
	} {
		if js, err := JSON(hb, 4, *n); err != nil || string(js) != want {
			t.Errorf("Heartbeat v4: %s, %v; want %s", js, err, want)
		}
	}
	// A token's HMAC reaches RenewDelegationToken; without one, "kwire".
	renew := s.Request(39)
	withToken := testNames
	withToken.TokenHMAC = []byte{1, 2, 3}
	for n, want := range map[*Names]string{
		&testNames: `{"hmac":"a3dpcmU=","renewPeriodMs":60000}`,
		&withToken: `{"hmac":"AQID","renewPeriodMs":60000}`,
	} {
		if js, err := JSON(renew, 2, *n); err != nil || string(js) != want {
			t.Errorf("RenewDelegationToken v2: %s, %v; want %s", js, err, want)
		}
	}
	if _, err := JSON(fetch, 99, testNames); err == nil {
		t.Error("Fetch v99: no error")
	}
}
