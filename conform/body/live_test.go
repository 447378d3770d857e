package body

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/internal/kafkatest"
	"github.com/kwire/kwire/internal/tlsconf"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// liveAnswer is Kafka 4.4.0's answer to For's bodies of one API over a
// version range: the distinct error names of the response, sorted and
// joined with "+" ("NONE" when every error code is 0), or "closed" when
// Kafka closed the connection instead of answering.
type liveAnswer struct {
	api, versions, answer string
}

// liveAnswers are Kafka 4.4.0's answers (one combined KRaft node, no
// authorizer, kafkatest's configuration) to every read-only and mutating
// body at every version it announces on its broker listener, sent in api
// key order on one connection (a new one after a close), each body naming
// the topic made for the test (partition 0 led by the node) and a group
// and transactional id of its own (so that no answer depends on an
// earlier probe), DeleteTopics a topic made for each version.
// clusterAnswers are Kafka 4.4.0's answers to the cluster bodies, on the
// listener ("broker", "controller") that announces each API, after the
// probes of liveAnswers.
var clusterAnswers = []liveAnswer{
	{"broker WriteTxnMarkers", "1-2", "UNKNOWN_SERVER_ERROR"},
	{"broker UnregisterBroker", "0", "BROKER_ID_NOT_REGISTERED"},
	{"broker AddRaftVoter", "0-1", "INVALID_REQUEST"},
	{"broker RemoveRaftVoter", "0", "INVALID_REQUEST"},
	{"broker InitializeShareGroupState", "0", "NONE"},
	{"broker ReadShareGroupState", "0", "INVALID_REQUEST"},
	{"broker WriteShareGroupState", "0-1", "INVALID_REQUEST"},
	{"broker DeleteShareGroupState", "0", "NONE"},
	{"broker ReadShareGroupStateSummary", "0-1", "NONE"},
	{"broker UnregisterController", "0", "CONTROLLER_ID_NOT_REGISTERED"},
	{"controller Vote", "0-1", "INVALID_REQUEST"},
	{"controller Vote", "2", "FENCED_LEADER_EPOCH"},
	{"controller BeginQuorumEpoch", "0-1", "FENCED_LEADER_EPOCH"},
	{"controller EndQuorumEpoch", "0-1", "FENCED_LEADER_EPOCH"},
	{"controller AlterPartition", "2-3", "STALE_BROKER_EPOCH"},
	{"controller Envelope", "0", "PRINCIPAL_DESERIALIZATION_FAILURE"},
	{"controller FetchSnapshot", "0-1", "UNKNOWN_SERVER_ERROR"},
	{"controller BrokerRegistration", "0-4", "INCONSISTENT_CLUSTER_ID"},
	{"controller BrokerHeartbeat", "0-2", "STALE_BROKER_EPOCH"},
	{"controller UnregisterBroker", "0", "BROKER_ID_NOT_REGISTERED"},
	{"controller AllocateProducerIds", "0", "STALE_BROKER_EPOCH"},
	{"controller ControllerRegistration", "0", "NONE"},
	{"controller AssignReplicasToDirs", "0", "STALE_BROKER_EPOCH"},
	{"controller AddRaftVoter", "0-1", "INVALID_REQUEST"},
	{"controller RemoveRaftVoter", "0", "INVALID_REQUEST"},
	{"controller UpdateRaftVoter", "0", "FENCED_LEADER_EPOCH"},
	{"controller UnregisterController", "0", "NONE"},
}

var liveAnswers = []liveAnswer{
	{"Produce", "0-2", "closed"},
	{"Produce", "3-13", "NONE"},
	{"Fetch", "4-18", "NONE"},
	{"ListOffsets", "1-11", "NONE"},
	{"Metadata", "0-13", "NONE"},
	{"OffsetCommit", "2-10", "NONE"},
	{"OffsetFetch", "1-10", "NONE"},
	{"FindCoordinator", "0-6", "NONE"},
	{"JoinGroup", "0-3", "NONE"},
	{"JoinGroup", "4-9", "MEMBER_ID_REQUIRED"},
	{"Heartbeat", "0-4", "NONE"},
	{"LeaveGroup", "0-5", "NONE"},
	{"SyncGroup", "0-5", "NONE"},
	{"DescribeGroups", "0-6", "NONE"},
	{"ListGroups", "0-5", "NONE"},
	{"SaslHandshake", "0-1", "ILLEGAL_SASL_STATE"},
	{"ApiVersions", "0-5", "NONE"},
	{"CreateTopics", "2-7", "TOPIC_ALREADY_EXISTS"},
	{"DeleteTopics", "1-6", "NONE"},
	{"DeleteRecords", "0-2", "NONE"},
	{"InitProducerId", "0-5", "NONE"},
	{"OffsetForLeaderEpoch", "2-4", "NONE"},
	{"AddPartitionsToTxn", "0-3", "NONE"},
	{"AddPartitionsToTxn", "4-5", "TRANSACTION_ABORTABLE"},
	{"AddOffsetsToTxn", "0-4", "NONE"},
	{"EndTxn", "0-5", "NONE"},
	{"TxnOffsetCommit", "0-6", "NONE"},
	{"DescribeAcls", "1-3", "NONE"},
	{"CreateAcls", "1-3", "NONE"},
	{"DeleteAcls", "1-3", "NONE"},
	{"DescribeConfigs", "1-4", "NONE"},
	{"AlterConfigs", "0-2", "NONE"},
	{"AlterReplicaLogDirs", "1-2", "LOG_DIR_NOT_FOUND"},
	{"DescribeLogDirs", "1-5", "NONE"},
	{"SaslAuthenticate", "0-2", "ILLEGAL_SASL_STATE"},
	{"CreatePartitions", "0-3", "NONE"},
	{"CreateDelegationToken", "1-3", "NONE"},
	{"RenewDelegationToken", "1-2", "NONE"},
	{"ExpireDelegationToken", "1-2", "NONE"},
	{"DescribeDelegationToken", "1-3", "NONE"},
	{"DeleteGroups", "0-3", "NONE"},
	{"ElectLeaders", "0-2", "ELECTION_NOT_NEEDED"},
	{"IncrementalAlterConfigs", "0-1", "NONE"},
	{"AlterPartitionReassignments", "0-1", "NO_REASSIGNMENT_IN_PROGRESS"},
	{"ListPartitionReassignments", "0", "NONE"},
	{"OffsetDelete", "0", "NONE"},
	{"DescribeClientQuotas", "0-1", "NONE"},
	{"AlterClientQuotas", "0-1", "NONE"},
	{"DescribeUserScramCredentials", "0", "RESOURCE_NOT_FOUND"},
	{"AlterUserScramCredentials", "0", "RESOURCE_NOT_FOUND"},
	{"DescribeQuorum", "0-2", "NONE"},
	{"UpdateFeatures", "0-2", "NONE"},
	{"DescribeCluster", "0-2", "NONE"},
	{"DescribeProducers", "0", "NONE"},
	{"DescribeTransactions", "0", "NONE"},
	{"ListTransactions", "0-2", "NONE"},
	{"ConsumerGroupHeartbeat", "0-1", "NONE"},
	{"ConsumerGroupDescribe", "0-1", "NONE"},
	{"ListConfigResources", "0-1", "NONE"},
	{"DescribeTopicPartitions", "0", "NONE"},
	{"ShareGroupHeartbeat", "1", "NONE"},
	{"ShareGroupDescribe", "1", "NONE"},
	{"ShareFetch", "1-2", "NONE"},
	{"ShareAcknowledge", "1-2", "SHARE_SESSION_NOT_FOUND"},
	{"StreamsGroupHeartbeat", "0-1", "NONE"},
	{"StreamsGroupDescribe", "0-1", "NONE"},
	{"DescribeShareGroupOffsets", "0-1", "NONE"},
	{"AlterShareGroupOffsets", "0", "NONE"},
	{"DeleteShareGroupOffsets", "0", "NONE"},
	{"StreamsGroupTopologyDescriptionUpdate", "0", "UNSUPPORTED_VERSION"},
}

// referenceBehaviours are the answers of Kafka 4.4.0 to a valid body that
// a validation error or a closed connection would otherwise mean the body
// is wrong: each is Kafka's behaviour, and why.
var referenceBehaviours = []struct {
	api, versions, answer, why string
}{
	{"Produce", "0-2", "closed", "Kafka 4.x announces Produce v0-13 but closes the connection on v0-2 (magic 0/1 message sets are no longer written; the versions are announced for old librdkafka clients)"},
	{"StreamsGroupTopologyDescriptionUpdate", "0", "UNSUPPORTED_VERSION", "Kafka 4.4.0 announces v0 and answers UNSUPPORTED_VERSION, \"The broker has no streams group topology description plugin configured.\", unless a plugin is configured"},
}

// validationErrors are the answers that say a body is not valid: Kafka
// refused its form, not what it asks.
var validationErrors = []string{
	"closed", "timeout", "undecodable",
	"CORRUPT_MESSAGE", "INVALID_FETCH_SIZE", "INVALID_TOPIC_EXCEPTION", "INVALID_REQUIRED_ACKS",
	"INVALID_GROUP_ID", "INVALID_SESSION_TIMEOUT", "INVALID_TIMESTAMP", "UNSUPPORTED_SASL_MECHANISM",
	"UNSUPPORTED_VERSION", "INVALID_PARTITIONS", "INVALID_REPLICATION_FACTOR", "INVALID_REPLICA_ASSIGNMENT",
	"INVALID_CONFIG", "INVALID_REQUEST", "UNSUPPORTED_FOR_MESSAGE_FORMAT", "INVALID_RECORD",
}

// TestLiveKafka sends For's bodies to a real Kafka 4.4.0 node: every
// read-only and mutating API at every version its broker listener
// announces. The answers must be liveAnswers; none may be a validation
// error, a closed connection or a timeout unless referenceBehaviours
// lists it.
func TestLiveKafka(t *testing.T) {
	kafkatest.Require(t)
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	// An authorizer, so that the ACL APIs answer (without one they are
	// SECURITY_DISABLED); the PLAINTEXT listener's principal,
	// User:ANONYMOUS, is a super user and may do everything.
	// A SASL_SSL listener with a SCRAM user and a token secret, so that
	// the delegation token APIs answer (they need a SASL connection).
	const scramUser, scramPassword = "kwire", "kwire-conform-password"
	c := kafkatest.Start(t, kafkatest.Config{Heap: "384m",
		Listeners:  []string{kafkatest.SASLSSL},
		ScramUsers: map[string]string{scramUser: scramPassword},
		Props: map[string]string{
			"authorizer.class.name":       "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
			"super.users":                 "User:ANONYMOUS;User:" + scramUser,
			"delegation.token.secret.key": "kwire-conform-token-secret",
		}})
	addr := c.Brokers()[0].Addr()
	lt := &liveTarget{t: t, addr: addr, cd: codec.New(set)}
	defer lt.close()
	tc, err := tlsconf.Client(c.CA.CertFile, "", "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	sasl := &liveTarget{t: t, addr: c.Brokers()[0].Listeners[kafkatest.SASLSSL], cd: lt.cd, opts: client.Options{
		TLS: tc, SASL: &client.SASL{Mechanism: "SCRAM-SHA-512", User: scramUser, Password: scramPassword},
	}}
	defer sasl.close()
	ctx := context.Background()

	prefix := "kwire-conform-live"
	names := Names{Prefix: prefix, Topic: prefix + "-topic"}
	names.TopicID = lt.createTopic(ctx, names)
	// The coordinators' internal topics exist before the probes, so
	// that no answer is COORDINATOR_NOT_AVAILABLE while they are made.
	lt.awaitCoordinator(ctx, 0, prefix+"-warm")
	lt.awaitCoordinator(ctx, 1, prefix+"-warm")

	versions := lt.conn(ctx).Versions()
	keys := make([]int16, 0, len(versions))
	for k := range versions {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var got []liveAnswer
	probes := 0
	for _, key := range keys {
		req := set.Request(key)
		if req == nil {
			t.Errorf("api key %d: announced, not in Kafka 4.4.0's specs", key)
			continue
		}
		if AccessOf(req) == Cluster {
			continue
		}
		r := versions[key]
		for v := r.Min; v <= r.Max; v++ {
			target := lt
			if key >= 38 && key <= 41 { // the delegation token APIs
				target = sasl
			}
			n := names
			n.Group = fmt.Sprintf("%s-g%d-%d", prefix, key, v)
			n.TransactionalID = fmt.Sprintf("%s-t%d-%d", prefix, key, v)
			if key == 20 { // DeleteTopics: a topic of its own to delete
				n.Topic = fmt.Sprintf("%s-del%d", prefix, v)
				n.TopicID = lt.createTopic(ctx, n)
			}
			for _, st := range prepare[key] {
				target.prepareStep(ctx, st, &n)
			}
			got = appendAnswer(got, req.BaseName(), v, target.probe(ctx, req, v, n))
			probes++
		}
	}
	t.Logf("%d probes of %d APIs", probes, len(got))
	checkAnswers(t, "liveAnswers", liveAnswers, got)
	checkValidation(t, got)

	// The cluster bodies, on the listener that announces each API:
	// refused, and the node as it was after them.
	ctl := &liveTarget{t: t, addr: c.Brokers()[0].ControllerAddr, cd: lt.cd}
	defer ctl.close()
	var cluster []liveAnswer
	for _, target := range []struct {
		lt       *liveTarget
		listener string
	}{{lt, "broker"}, {ctl, "controller"}} {
		vs := target.lt.conn(ctx).Versions()
		for _, key := range keys2(vs) {
			req := set.Request(key)
			if req == nil || AccessOf(req) != Cluster {
				continue
			}
			for v := vs[key].Min; v <= vs[key].Max; v++ {
				n := names
				n.Group = fmt.Sprintf("%s-c%d-%d", prefix, key, v)
				n.TransactionalID = n.Group
				cluster = appendAnswer(cluster, target.listener+" "+req.BaseName(), v, target.lt.probe(ctx, req, v, n))
				probes++
			}
		}
	}
	checkAnswers(t, "clusterAnswers", clusterAnswers, cluster)
	for _, a := range cluster {
		if a.answer == "NONE" && !slices.Contains(clusterNone, strings.Fields(a.api)[1]) {
			t.Errorf("%s v%s: NONE, a cluster body that was not refused", a.api, a.versions)
		}
	}
	// The node still serves: the topic's metadata, a record produced.
	for _, key := range []int16{3, 0} {
		req := set.Request(key)
		v, _ := lt.conn(ctx).Negotiate(req)
		if a := lt.probe(ctx, req, v, names); a != "NONE" {
			t.Errorf("after the cluster bodies, %s v%d: %s", req.Name, v, a)
		}
	}
	t.Logf("%d probes in all", probes)
}

// clusterNone are the cluster APIs whose bodies Kafka 4.4.0 answers with
// no error: the share coordinator's state APIs about the test's own
// group; ControllerRegistration, which Kafka 4.4.0 accepts whatever it
// holds (it registers controller id -1), and UnregisterController, whose
// body then removes that registration.
var clusterNone = []string{"InitializeShareGroupState", "DeleteShareGroupState", "ReadShareGroupStateSummary", "ControllerRegistration", "UnregisterController"}

// keys2 returns the api keys of vs in order.
func keys2(vs map[int16]client.Range) []int16 {
	keys := make([]int16, 0, len(vs))
	for k := range vs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkAnswers compares the answers got with the table want (named name)
// and prints got as Go source when they differ.
func checkAnswers(t *testing.T, name string, want, got []liveAnswer) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	for _, d := range answerDiff(want, got) {
		t.Error(name + ": " + d)
	}
	var table strings.Builder
	for _, a := range got {
		fmt.Fprintf(&table, "\t{%q, %q, %q},\n", a.api, a.versions, a.answer)
	}
	t.Logf("Kafka 4.4.0's answers (%s):\n%s", name, table.String())
}

// checkValidation fails the test for every answer that is a validation
// error and no reference behaviour.
func checkValidation(t *testing.T, got []liveAnswer) {
	t.Helper()
	for _, a := range got {
		for _, part := range strings.Split(a.answer, "+") {
			if !slices.Contains(validationErrors, strings.Fields(part)[0]) {
				continue
			}
			if !slices.ContainsFunc(referenceBehaviours, func(r struct{ api, versions, answer, why string }) bool {
				return r.api == a.api && r.versions == a.versions && r.answer == a.answer
			}) {
				t.Errorf("%s v%s: %s, a validation error that is no reference behaviour", a.api, a.versions, a.answer)
			}
		}
	}
}

// step is a request sent before a probe so that what its body names
// exists: api key and version (-1: the newest Kafka announces).
type step struct{ key, v int16 }

// prepare are the steps before the probes of an api key, each with For's
// body: a group with a committed offset (a simple OffsetCommit) for the
// classic group APIs, a joined member (and its group synced) before
// SyncGroup, Heartbeat and LeaveGroup, a member for the KIP-848 groups' Describe APIs, a
// producer id for the transaction APIs (with a partition, or a group's
// offsets, in the transaction where the API ends or commits into one), a
// share group's start offsets before they are deleted, a delegation token
// before it is renewed or expired.
var prepare = map[int16][]step{
	9:  {{8, -1}},            // OffsetFetch
	12: {{11, -1}, {14, -1}}, // Heartbeat: a member, joined and synced
	13: {{11, -1}, {14, -1}}, // LeaveGroup
	14: {{11, -1}},           // SyncGroup: a member, joined (the leader)
	15: {{8, -1}},            // DescribeGroups
	42: {{8, -1}},            // DeleteGroups
	47: {{8, -1}},            // OffsetDelete
	24: {{22, -1}},           // AddPartitionsToTxn
	25: {{22, -1}},           // AddOffsetsToTxn
	26: {{22, -1}, {24, 3}},  // EndTxn: a client's AddPartitionsToTxn (v4+ are brokers')
	28: {{22, -1}, {25, -1}}, // TxnOffsetCommit
	65: {{22, -1}},           // DescribeTransactions
	69: {{68, -1}},           // ConsumerGroupDescribe
	77: {{76, -1}},           // ShareGroupDescribe
	89: {{88, -1}},           // StreamsGroupDescribe
	92: {{91, -1}},           // DeleteShareGroupOffsets
	39: {{38, -1}},           // RenewDelegationToken: a token (on the SASL connection)
	40: {{38, -1}},           // ExpireDelegationToken
}

// prepareStep sends step st with For's body of n; it must answer NONE.
// InitProducerId's producer id and epoch go into n.Producer, JoinGroup's
// member id and generation into n.Member (a JoinGroup answered
// MEMBER_ID_REQUIRED is sent again with the member id it gave, as
// clients do since KIP-394).
func (lt *liveTarget) prepareStep(ctx context.Context, st step, n *Names) {
	req := lt.cd.Set.Request(st.key)
	v := st.v
	lt.t.Helper()
	if v < 0 {
		var err error
		if v, err = lt.conn(ctx).Negotiate(req); err != nil {
			lt.t.Fatal(err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		body, err := For(req, v, *n)
		if err != nil {
			lt.t.Fatal(err)
		}
		x, err := lt.conn(ctx).Call(ctx, req, v, body)
		if err != nil {
			lt.t.Fatalf("preparing with %s v%d: %v", req.Name, v, err)
		}
		r := x.Response.At(x.Response.Find(0, tree.Body))
		errs := flow.ErrorCodes(x.Response)
		if len(errs) == 0 {
			switch st.key {
			case 22:
				n.Producer = &Producer{ID: r.Field("ProducerId").Int(), Epoch: int16(r.Field("ProducerEpoch").Int())}
			case 11:
				n.Member = &Member{ID: r.Field("MemberId").String(), Generation: int32(r.Field("GenerationId").Int())}
			case 38:
				n.TokenHMAC = r.Field("Hmac").Bytes()
				lt.awaitToken(ctx, n.TokenHMAC)
			}
			return
		}
		switch {
		case st.key == 11 && errs[0].Name == "MEMBER_ID_REQUIRED" && n.Member == nil:
			n.Member = &Member{ID: r.Field("MemberId").String(), Generation: -1}
			continue
		case !slices.Contains(transient, errs[0].Name) || time.Now().After(deadline):
			lt.t.Fatalf("preparing with %s v%d: %v", req.Name, v, errs)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// awaitToken waits until DescribeDelegationToken (every owner) shows the
// token of hmac: the broker learns of a token the controller made from
// the metadata log, a moment after CreateDelegationToken's answer.
func (lt *liveTarget) awaitToken(ctx context.Context, hmac []byte) {
	req := lt.cd.Set.Request(41)
	v, err := lt.conn(ctx).Negotiate(req)
	if err != nil {
		lt.t.Fatal(err)
	}
	body, err := For(req, v, Names{})
	if err != nil {
		lt.t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		x, err := lt.conn(ctx).Call(ctx, req, v, body)
		if err != nil {
			lt.t.Fatal(err)
		}
		tokens := x.Response.At(x.Response.Find(0, tree.Body)).Field("Tokens")
		for i := range tokens.Len() {
			if bytes.Equal(tokens.Elem(i).Field("Hmac").Bytes(), hmac) {
				return
			}
		}
		if time.Now().After(deadline) {
			lt.t.Fatalf("the delegation token made is not described after 20 s (%d tokens)", tokens.Len())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// appendAnswer adds the answer to version v of api to as, extending the
// last range when it is the same API's with the same answer.
func appendAnswer(as []liveAnswer, api string, v int16, answer string) []liveAnswer {
	if n := len(as); n > 0 && as[n-1].api == api && as[n-1].answer == answer {
		lo, _, _ := strings.Cut(as[n-1].versions, "-")
		as[n-1].versions = fmt.Sprintf("%s-%d", lo, v)
		return as
	}
	return append(as, liveAnswer{api, fmt.Sprint(v), answer})
}

// answerDiff lists the rows of want missing from got and the rows of got
// that want does not have.
func answerDiff(want, got []liveAnswer) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			out = append(out, fmt.Sprintf("want %s v%s: %s — not answered so", w.api, w.versions, w.answer))
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			out = append(out, fmt.Sprintf("got %s v%s: %s — not in liveAnswers", g.api, g.versions, g.answer))
		}
	}
	return out
}

// liveTarget is the node the live test talks to, over a connection it
// redials after Kafka closes one.
type liveTarget struct {
	t    *testing.T
	addr string
	cd   *codec.Codec
	// opts are the connections' options (TLS, SASL) bar the client id
	// and timeout.
	opts client.Options
	// cns are the connections by the codec of their release: cd's, and
	// those of the older releases whose specs have versions Kafka 4.4.0
	// announces and its own specs dropped (Produce v0-2).
	cns map[*spec.Set]*client.Conn
}

// conn is the connection of lt.cd.
func (lt *liveTarget) conn(ctx context.Context) *client.Conn { return lt.connOf(ctx, lt.cd.Set) }

func (lt *liveTarget) connOf(ctx context.Context, s *spec.Set) *client.Conn {
	if lt.cns == nil {
		lt.cns = map[*spec.Set]*client.Conn{}
	}
	if lt.cns[s] == nil {
		o := lt.opts
		o.ClientID, o.Timeout = "kwire-conform-body", 15*time.Second
		cn, err := client.Dial(ctx, lt.addr, codec.New(s), o)
		if err != nil {
			lt.t.Fatal(err)
		}
		lt.cns[s] = cn
	}
	return lt.cns[s]
}

func (lt *liveTarget) close() {
	for s, cn := range lt.cns {
		cn.Close()
		delete(lt.cns, s)
	}
}

// transient are the answers of a coordinator still loading its partition
// (the group or transactional id's partition of __consumer_offsets or
// __transaction_state, made when the test begins): retried for up to
// 20 s, as Kafka's clients retry them.
var transient = []string{"COORDINATOR_LOAD_IN_PROGRESS", "COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR"}

// probe sends For's body of req at v and returns the answer (liveAnswer),
// retrying while it is transient.
func (lt *liveTarget) probe(ctx context.Context, req *spec.Message, v int16, n Names) string {
	deadline := time.Now().Add(20 * time.Second)
	for {
		a := lt.probeOnce(ctx, req, v, n)
		if !slices.ContainsFunc(strings.Split(a, "+"), func(e string) bool { return slices.Contains(transient, e) }) || time.Now().After(deadline) {
			return a
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// probeOnce sends For's body of req at v and returns the answer. A
// version req's specs do not have is sent with the specs of the newest
// release that has it.
func (lt *liveTarget) probeOnce(ctx context.Context, req *spec.Message, v int16, n Names) string {
	s := lt.cd.Set
	if !req.ValidVersions.Contains(v) {
		if s = spec.NewestEmbeddedWith(req.APIKey, v, req.Name, ""); s == nil {
			return "no spec"
		}
		req = s.Request(req.APIKey)
	}
	body, err := For(req, v, n)
	if err != nil {
		lt.t.Fatalf("%s v%d: %v", req.Name, v, err)
	}
	x, err := lt.connOf(ctx, s).Call(ctx, req, v, body)
	if err != nil {
		msg := err.Error()
		switch {
		case x == nil:
			lt.t.Fatalf("%s v%d: %v", req.Name, v, err)
		case x.Response == nil:
			lt.cns[s].Close()
			delete(lt.cns, s)
			if strings.Contains(msg, "timed out") {
				return "timeout"
			}
			if strings.Contains(msg, "closed the connection") || errors.Is(err, context.Canceled) {
				return "closed"
			}
			return "closed (" + msg + ")"
		default:
			return "undecodable (" + msg + ")"
		}
	}
	var errs []string
	for _, e := range flow.ErrorCodes(x.Response) {
		name := e.Name
		if name == "" {
			name = laterErrors[e.Code]
		}
		if name == "" {
			name = fmt.Sprint(e.Code)
		}
		if !slices.Contains(errs, name) {
			errs = append(errs, name)
		}
		if slices.Contains(validationErrors, name) {
			js, _, _ := codec.ConverterJSON(s, x.Response, nil)
			lt.t.Logf("%s v%d: %s", req.Name, v, js)
		}
	}
	if len(errs) == 0 {
		return "NONE"
	}
	slices.Sort(errs)
	return strings.Join(errs, "+")
}

// laterErrors are the names of the error codes Kafka 4.4.0 answers the
// bodies with that package flow's table (Kafka 3.7's codes) does not
// name, from Kafka 4.4.0's Errors enum.
var laterErrors = map[int16]string{
	121: "INVALID_RECORD_STATE",
	122: "SHARE_SESSION_NOT_FOUND",
	123: "INVALID_SHARE_SESSION_EPOCH",
	124: "FENCED_STATE_EPOCH",
	130: "STREAMS_INVALID_TOPOLOGY",
	131: "STREAMS_INVALID_TOPOLOGY_EPOCH",
	132: "STREAMS_TOPOLOGY_FENCED",
	136: "CONTROLLER_ID_NOT_REGISTERED",
}

// createTopic creates n.Topic with For's CreateTopics body at the newest
// version and waits until Metadata shows partition 0 with a leader; it
// returns the topic's id.
func (lt *liveTarget) createTopic(ctx context.Context, n Names) [16]byte {
	set := lt.cd.Set
	create := set.Request(19)
	v, err := lt.conn(ctx).Negotiate(create)
	if err != nil {
		lt.t.Fatal(err)
	}
	body, err := For(create, v, n)
	if err != nil {
		lt.t.Fatal(err)
	}
	x, err := lt.conn(ctx).Call(ctx, create, v, body)
	if err != nil {
		lt.t.Fatal(err)
	}
	if errs := flow.ErrorCodes(x.Response); len(errs) != 0 {
		lt.t.Fatalf("CreateTopics %s: %v", n.Topic, errs)
	}
	resp := x.Response.At(x.Response.Find(0, tree.Body))
	id := resp.Field("Topics").Elem(0).Field("TopicId").UUID()
	md := set.Request(3)
	mv, _ := lt.conn(ctx).Negotiate(md)
	mb, err := For(md, mv, n)
	if err != nil {
		lt.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		x, err := lt.conn(ctx).Call(ctx, md, mv, mb)
		if err != nil {
			lt.t.Fatal(err)
		}
		mr := x.Response.At(x.Response.Find(0, tree.Body))
		p := mr.Field("Topics").Elem(0).Field("Partitions")
		if len(flow.ErrorCodes(x.Response)) == 0 && p.Len() == 1 && p.Elem(0).Field("LeaderId").Int() >= 0 {
			return id
		}
		if time.Now().After(deadline) {
			lt.t.Fatalf("topic %s has no leader after 30 s: %v", n.Topic, flow.ErrorCodes(x.Response))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// awaitCoordinator sends FindCoordinator of key type keyType (0 group, 1
// transaction) until it answers NONE: the first asks make the
// coordinator's internal topic.
func (lt *liveTarget) awaitCoordinator(ctx context.Context, keyType int8, key string) {
	fc := lt.cd.Set.Request(10)
	v, err := lt.conn(ctx).Negotiate(fc)
	if err != nil {
		lt.t.Fatal(err)
	}
	js := fmt.Sprintf(`{"keyType":%d,"coordinatorKeys":[%q]}`, keyType, key)
	body, err := codec.FromJSON([]byte(js), fc, v)
	if err != nil {
		lt.t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		x, err := lt.conn(ctx).Call(ctx, fc, v, body)
		if err != nil {
			lt.t.Fatal(err)
		}
		errs := flow.ErrorCodes(x.Response)
		if len(errs) == 0 {
			return
		}
		if time.Now().After(deadline) {
			lt.t.Fatalf("FindCoordinator key type %d: %v after 60 s", keyType, errs)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
