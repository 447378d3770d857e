// Package body holds the request bodies that kwire conform sends: for every
// API and version of a spec set, a valid request (one that a correct broker
// answers with something other than a validation error where it can), and
// the access class of each API, which decides whether conform may send it at
// all (see Access).
//
// It decides what is sent, and whether it may be; package conform decides
// when, to whom, in which order, and how the answer is judged. It creates
// nothing itself: conform makes the resources Names lists before it sends
// a body that names them (AccessOf says which bodies change them).
//
// # Bodies
//
// The bodies are data: one template per API (a few APIs have one per
// version range), in Kafka's converter JSON (the format of `kwire encode`),
// in apis.go. A template gives only the fields whose value matters; For
// fills in every other field of the version at its spec default, leaves
// out the keys of fields the version (or the release) does not have, puts
// n's names where the template has a placeholder, and builds the value tree
// with codec.FromJSON. The placeholders, each a whole JSON string:
//
//	"$topic", "$topicId"       Names.Topic and Names.TopicID
//	"$group", "$txn"           Names.Group and Names.TransactionalID
//	"$prefix", "$principal"    Names.Prefix, and "User:" + Names.Prefix
//	"$member"                  MemberID: the member id of the KIP-848 protocols
//	"$producerId", "$producerEpoch"  Names.Producer, -1 without one (numbers)
//	"$classicMemberId", "$generation"  Names.Member, "" and -1 without one
//	"$hmac"                    Names.TokenHMAC, without one "kwire" (no token's)
//	"$records"                 Records: one record (a RecordBatch v2; Produce v0-2 a magic 1 message)
//	"$subscription"            Subscription: a classic consumer's subscription to Names.Topic
//
// What makes a body valid: it names only n's resources (or none, or the
// KRaft metadata topic for the quorum APIs); timeouts are positive (5000 ms,
// 100 ms for a fetch's wait); enum-like fields hold legal values (resource,
// pattern and config resource types, ACL operations, isolation level, key
// types); a consumer's Fetch, ListOffsets and OffsetForLeaderEpoch say
// replica id -1; arrays hold one sensible element; Produce asks for acks -1
// (acks 0 has no response). A body changes nothing but n's resources:
// Metadata never lets a topic be auto-created (v0-3 ask for every topic,
// v4+ name the topic with allowAutoTopicCreation false); what would touch
// something Names does not list (a client quota, a feature level) is sent
// validateOnly; deletions name what the matching creation made or what
// cannot exist; Cluster bodies name broker, voter and controller id -1 and
// stale epochs, so that a live node refuses them.
//
// The tests send every read-only and mutating body at every version a real
// Kafka 4.4.0 announces (docs/conform-bodies.md lists its answers, the
// access class of every API, and the reference behaviours: Kafka's own
// refusals of a valid body, such as its closing the connection on Produce
// v0-2).
package body
