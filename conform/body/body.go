package body

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// Names are the resources a body may name. conform creates each of them
// under its own prefix (kwire-conform-<random>) before it sends a body that
// names them, and deletes them at the end; a body never names anything else
// that a target may hold.
type Names struct {
	// Prefix is the prefix every created resource's name starts with.
	Prefix string
	// Topic is a topic conform created; TopicID its id (all zero while
	// unknown).
	Topic   string
	TopicID [16]byte
	// Group is a consumer group id, TransactionalID a transactional id,
	// both conform's own.
	Group, TransactionalID string
	// Producer is the producer id and epoch InitProducerId gave
	// TransactionalID, which the transaction APIs' bodies then carry; nil
	// while there is none (the bodies say producer id and epoch -1, which
	// Kafka answers with INVALID_PRODUCER_ID_MAPPING).
	Producer *Producer
	// Member is Group's classic member (JoinGroup's member id and
	// generation), which the bodies of JoinGroup, SyncGroup, Heartbeat,
	// LeaveGroup, OffsetCommit and TxnOffsetCommit then speak for; nil
	// while there is none (member id "", generation -1: a new member
	// joining, a simple commit).
	Member *Member
	// TokenHMAC is the HMAC of a delegation token conform created
	// (CreateDelegationTokenResponse's Hmac), which the bodies of
	// RenewDelegationToken and ExpireDelegationToken then name; nil while
	// there is none (they name an HMAC no token has, "kwire").
	TokenHMAC []byte
}

// Member is a classic consumer group member: JoinGroupResponse's MemberId
// and GenerationId.
type Member struct {
	ID         string
	Generation int32
}

// Producer is a producer id and its epoch (InitProducerIdResponse's
// ProducerId and ProducerEpoch).
type Producer struct {
	ID    int64
	Epoch int16
}

// Access is what a request can do to the target it is sent to.
type Access int

// The access classes, from the safest.
const (
	// ReadOnly requests read state and change nothing a target already
	// holds: conform sends them by default. Metadata, ApiVersions, the
	// Describe and List APIs, OffsetFetch, FindCoordinator, a consumer's
	// Fetch, ListOffsets and OffsetForLeaderEpoch; also SaslHandshake and
	// SaslAuthenticate, which change the connection's state only, and
	// GetTelemetrySubscriptions, which asks for the metrics the broker
	// wants.
	ReadOnly Access = iota
	// Mutating requests can change data (topics, records, configs, ACLs,
	// quotas, offsets, groups, transactions…): sent only with --mutate,
	// and then only about Names' resources. Joining a group, a heartbeat
	// and a share fetch are mutating too: they change the group's
	// membership or the share-partition's acquired records.
	Mutating
	// Cluster requests are inter-broker and KRaft-quorum APIs that can
	// disturb a live cluster: sent only with --cluster-apis. They are the
	// requests controllers and brokers send each other (LeaderAndIsr,
	// BrokerHeartbeat, Vote, FetchSnapshot, the share coordinator's state
	// APIs…) and the admin APIs that change the quorum or the broker set
	// (AddRaftVoter, UnregisterBroker…). A Fetch sent as a follower
	// replica is one too (AccessOfBody: the body decides for Fetch and
	// Metadata).
	Cluster
)

// String is the class's name: "read-only", "mutating", "cluster".
func (a Access) String() string {
	switch a {
	case ReadOnly:
		return "read-only"
	case Mutating:
		return "mutating"
	case Cluster:
		return "cluster"
	}
	return fmt.Sprintf("access(%d)", int(a))
}

// AccessOf returns m's access class. An API this package does not know is
// Mutating: unknown means unsafe.
func AccessOf(m *spec.Message) Access {
	if a, ok := apis[m.APIKey]; ok {
		return a.access
	}
	return Mutating
}

// Why says why m has its access class (AccessOf): what the API reads or
// changes. For an API this package does not know it says so.
func Why(m *spec.Message) string {
	if a, ok := apis[m.APIKey]; ok {
		return a.why
	}
	return fmt.Sprintf("api key %d is unknown to kwire: what it changes is not known", m.APIKey)
}

// Api keys whose body decides their class (AccessOfBody).
const (
	fetchKey    = 1
	metadataKey = 3
)

// AccessOfBody returns the access class of request m at version v with
// body t (a value tree of m at v, or the span tree of an encoded frame):
// AccessOf(m), except where the body of a read-only API asks for more than
// a read, as a random valid instance may:
//
//   - a Fetch whose ReplicaId (v0–14) or ReplicaState.ReplicaId (v15+, a
//     tagged field whose absence means -1) is 0 or more is a follower
//     replica's fetch, which moves the follower's position and the high
//     watermark: Cluster;
//   - a Fetch that names a fetch session (SessionId not 0) acts on a
//     session another client may hold (the final epoch -1 closes it):
//     Mutating;
//   - a Metadata that names a topic where Kafka may create it (v0–3 by
//     the broker's auto.create.topics.enable, v4+ when
//     AllowAutoTopicCreation is true): Mutating.
//
// A body that does not decode as m's fields is judged by AccessOf alone.
func AccessOfBody(m *spec.Message, v int16, t *tree.Tree) Access {
	a := AccessOf(m)
	if m.APIKey != fetchKey && m.APIKey != metadataKey || t == nil || len(t.Nodes) == 0 {
		return a
	}
	bi := int32(0)
	if t.Nodes[0].Kind() != tree.Body { // a frame's tree: its body
		if bi = t.Find(0, tree.Body); bi < 0 {
			return a
		}
	}
	root := t.At(bi)
	switch m.APIKey {
	case fetchKey:
		id := root.Field("ReplicaId")
		if id.Err() != nil {
			id = root.Field("ReplicaState").Field("ReplicaId")
		}
		if n, err := id.AsInt(); err == nil && n >= 0 {
			return Cluster
		}
		if n, err := root.Field("SessionId").AsInt(); err == nil && n != 0 {
			return max(a, Mutating)
		}
	case metadataKey:
		if auto, err := root.Field("AllowAutoTopicCreation").AsBool(); err == nil && !auto {
			return a
		}
		topics := root.Field("Topics")
		for i := range topics.Len() {
			if name := topics.Elem(i).Field("Name"); name.Err() == nil && !name.IsNull() {
				return max(a, Mutating)
			}
		}
	}
	return a
}

// UnknownAPIError is For's error for an api key this package holds no body
// for: a spec set newer than kwire, or a draft.
type UnknownAPIError struct {
	// Request is the request's name, APIKey its api key.
	Request string
	APIKey  int16
}

// Error reads "FooRequest (api key 99): kwire holds no body for this API".
func (e *UnknownAPIError) Error() string {
	return fmt.Sprintf("%s (api key %d): kwire holds no body for this API", e.Request, e.APIKey)
}

// For returns a valid body of request m at version v that names only n's
// resources, as a value tree ready for codec to encode. The body is the
// API's template (Template) with n's names filled in, every field the
// template leaves out at its spec default, and the fields v does not have
// left out. A field of Names left empty is named as the empty string.
// Errors: *UnknownAPIError for an api key this package does not know,
// *codec.VersionError for a version m does not define, and
// codec.FromJSON's errors where m differs from the spec the template was
// written for (a field renamed in a spec set kwire does not embed).
func For(m *spec.Message, v int16, n Names) (*tree.Tree, error) {
	js, err := JSON(m, v, n)
	if err != nil {
		return nil, err
	}
	return codec.FromJSON(js, m, v)
}

// JSON returns the body For builds, in Kafka's converter format (the input
// of codec.FromJSON, `kwire encode` and `kwire call`): every field of v,
// keys in alphabetical order, on one line. Errors as For's, bar
// FromJSON's, and an error for a message that is no request.
func JSON(m *spec.Message, v int16, n Names) ([]byte, error) {
	if m.Type != spec.Request {
		return nil, fmt.Errorf("%s is a %s, not a request: kwire holds bodies of requests only", m.Name, m.Type)
	}
	if !m.ValidVersions.Contains(v) {
		return nil, &codec.VersionError{Message: m.Name, Version: v, Valid: m.ValidVersions}
	}
	src, err := Template(m, v)
	if err != nil {
		return nil, err
	}
	var tmpl map[string]any
	if err := decodeJSON([]byte(src), &tmpl); err != nil {
		return nil, fmt.Errorf("%s v%d: template: %w", m.Name, v, err)
	}
	f := filler{v: v, names: n, key: m.APIKey}
	body, err := f.structValue(m.Root, tmpl, "$")
	if err != nil {
		return nil, fmt.Errorf("%s v%d: %w", m.Name, v, err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // "&" stays "&" in a replay command
	if err := enc.Encode(body); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// Template returns the template of request m at version v: Kafka's
// converter JSON with placeholders ("$topic", "$group"… see the package
// doc) where For puts n's names, and with only the fields whose value is
// not their default. It may hold keys of fields of other versions and
// other releases; For drops them. Errors: *UnknownAPIError.
func Template(m *spec.Message, v int16) (string, error) {
	a, ok := apis[m.APIKey]
	if !ok {
		return "", &UnknownAPIError{Request: m.Name, APIKey: m.APIKey}
	}
	for _, b := range a.bodies {
		if b.versions.Contains(v) {
			return b.json, nil
		}
	}
	return "{}", nil
}
