package exchange

import (
	"sync"
	"time"

	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/proxy"
)

// Record is one exchange as the audit log and the Parquet files hold it.
// Its json tags are the audit line's keys, its parquet tags the Parquet
// columns (docs/exchanges.md).
type Record struct {
	// Time is when the exchange began (its request's first byte, or its
	// response's when the request was not seen), in UTC.
	Time time.Time `json:"time" parquet:"time,timestamp(microsecond)"`
	// Conn numbers the connection (from 1, per proxy run or capture).
	Conn uint64 `json:"conn" parquet:"conn"`
	// Client is the client's address (host:port), Broker the broker's
	// (the upstream the proxy forwards to, or the capture's server).
	Client string `json:"client" parquet:"client,dict"`
	Broker string `json:"broker" parquet:"broker,dict"`
	// Node is the broker's node id when known (a proxy's per-broker
	// listener, --rewrite-advertised), else absent (null).
	Node *int32 `json:"node,omitempty" parquet:"node,optional"`
	// API is the API's name ("Produce"); "" for an api key the specs do
	// not know, for a response whose request was not seen, and for raw
	// SASL tokens.
	API string `json:"api" parquet:"api,dict"`
	// APIKey and Version are the request header's (-1 when the request
	// was not seen, and for raw SASL tokens).
	APIKey  int16 `json:"api_key" parquet:"api_key"`
	Version int16 `json:"version" parquet:"version"`
	// CorrelationID is the request header's correlation id.
	CorrelationID int32 `json:"correlation_id" parquet:"correlation_id"`
	// ClientID is the request header's client id ("" when null).
	ClientID string `json:"client_id" parquet:"client_id,dict"`
	// ClientSoftwareName and ClientSoftwareVersion are what the
	// connection's ApiVersions request said (KIP-511), "" before one.
	ClientSoftwareName    string `json:"client_software_name" parquet:"client_software_name,dict"`
	ClientSoftwareVersion string `json:"client_software_version" parquet:"client_software_version,dict"`
	// Mechanism is the connection's SASL mechanism ("SCRAM-SHA-512") and
	// Principal the user it authenticated as (PLAIN's authcid, SCRAM's
	// n=), from the connection's SaslHandshake and SaslAuthenticate on;
	// "" when not known. Never a password or token.
	Mechanism string `json:"sasl_mechanism" parquet:"sasl_mechanism,dict"`
	Principal string `json:"sasl_principal" parquet:"sasl_principal,dict"`
	// SASLToken marks an exchange of raw SASL tokens (after a
	// SaslHandshake v0; no request header).
	SASLToken bool `json:"sasl_token" parquet:"sasl_token"`
	// Topics are the topics and partitions the request names.
	Topics []Topic `json:"topics" parquet:"topics,list"`
	// Errors are the response's non-zero error codes, in tree order.
	Errors []Error `json:"errors" parquet:"errors,list"`
	// RequestBytes and ResponseBytes are the frames' sizes (size prefix
	// included), 0 for a frame not seen.
	RequestBytes  int64 `json:"request_bytes" parquet:"request_bytes"`
	ResponseBytes int64 `json:"response_bytes" parquet:"response_bytes"`
	// LatencyNs is from the request's last byte to the response's, in
	// nanoseconds; null without both frames.
	LatencyNs *int64 `json:"latency_ns" parquet:"latency_ns,optional"`
	// NoResponse is set when no response was seen; NoResponseExpected when
	// none will come (a Produce request with acks=0).
	NoResponse         bool `json:"no_response" parquet:"no_response"`
	NoResponseExpected bool `json:"no_response_expected" parquet:"no_response_expected"`
	// DecodedWith is the release whose specs decoded the exchange when the
	// chosen release does not accept its version ("3.9.1"), else "".
	DecodedWith string `json:"decoded_with" parquet:"decoded_with,dict"`
}

// Topic is a topic the request names (flow.TopicPartitions).
type Topic struct {
	// Name is the topic's name, "" when the request names it by an id
	// whose name was not learned.
	Name string `json:"name" parquet:"name"`
	// ID is the topic id in Kafka's base64 form when the request names
	// one, else "".
	ID string `json:"id,omitempty" parquet:"id"`
	// Partitions are the partition indexes named under it.
	Partitions []int32 `json:"partitions" parquet:"partitions,list"`
}

// Error is a non-zero error code of the response.
type Error struct {
	// Code is the int16 error code on the wire ("6").
	Code int16 `json:"code" parquet:"code"`
	// Name is Kafka's name of the code ("NOT_LEADER_OR_FOLLOWER"), ""
	// when unknown.
	Name string `json:"name" parquet:"name"`
	// Path is the field that held it ("ProduceResponse.Responses[0].
	// PartitionResponses[1].ErrorCode").
	Path string `json:"path" parquet:"path"`
}

// start is when exchange x began: its request's first byte, or its
// response's when the request was not seen.
func start(x *flow.Exchange) time.Time {
	switch {
	case x.Request != nil:
		return x.Request.Start
	case x.Response != nil:
		return x.Response.Start
	}
	return time.Time{}
}

// New makes the record of exchange x, seen on connection conn between
// client and broker. Mechanism and Principal are x's own (set on SASL
// exchanges only): a Tracker carries them to the connection's other
// exchanges.
func New(x *flow.Exchange, conn uint64, client, broker string) *Record {
	r := &Record{Time: start(x).UTC(), Conn: conn, Client: client, Broker: broker,
		API: x.API, APIKey: x.APIKey, Version: x.Version, CorrelationID: x.CorrelationID, ClientID: x.ClientID,
		ClientSoftwareName: x.ClientSoftwareName, ClientSoftwareVersion: x.ClientSoftwareVersion,
		Mechanism: x.Mechanism, Principal: x.User, SASLToken: x.Token,
		Topics: make([]Topic, 0, len(x.Topics)), Errors: make([]Error, 0, len(x.Errors)),
		NoResponse: x.Response == nil, NoResponseExpected: x.NoResponse, DecodedWith: x.DecodedWith}
	if x.Request != nil {
		r.RequestBytes = int64(x.Request.Size)
	}
	if x.Response != nil {
		r.ResponseBytes = int64(x.Response.Size)
	}
	if x.Request != nil && x.Response != nil {
		ns := x.Latency().Nanoseconds()
		r.LatencyNs = &ns
	}
	for _, t := range x.Topics {
		tp := Topic{Name: t.Topic, Partitions: t.Partitions}
		if t.ID != ([16]byte{}) {
			tp.ID = topicID(t.ID)
		}
		if tp.Partitions == nil {
			tp.Partitions = []int32{}
		}
		r.Topics = append(r.Topics, tp)
	}
	for _, e := range x.Errors {
		r.Errors = append(r.Errors, Error{Code: e.Code, Name: e.Name, Path: e.Path})
	}
	return r
}

// Latency is the record's latency, 0 without one.
func (r *Record) Latency() time.Duration {
	if r.LatencyNs == nil {
		return 0
	}
	return time.Duration(*r.LatencyNs)
}

// Tracker carries each connection's SASL mechanism and principal from its
// SASL exchanges to the exchanges after them. It is safe for concurrent
// use (a proxy's connections report from their own goroutines); the zero
// Tracker is ready.
type Tracker struct {
	mu    sync.Mutex
	conns map[uint64]*connState
}

// connState is what a Tracker knows of an open connection.
type connState struct {
	mechanism, principal string
	// node is the broker's node id when the connection came to its
	// listener (a proxy.Opened event's Broker).
	node *int32
}

// conn is the state of connection conn, made when absent (under mu).
func (t *Tracker) conn(conn uint64) *connState {
	s := t.conns[conn]
	if s == nil {
		if t.conns == nil {
			t.conns = map[uint64]*connState{}
		}
		s = &connState{}
		t.conns[conn] = s
	}
	return s
}

// Record is New for exchange x of connection conn, with the connection's
// mechanism and principal as its SASL exchanges so far gave them.
func (t *Tracker) Record(x *flow.Exchange, conn uint64, client, broker string) *Record {
	r := New(x, conn, client, broker)
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.conn(conn)
	if x.Mechanism != "" {
		if x.APIKey == saslHandshakeKey {
			// A new SaslHandshake (re-authentication) starts again.
			s.principal = ""
		}
		s.mechanism = x.Mechanism
	}
	if x.User != "" {
		s.principal = x.User
	}
	r.Mechanism, r.Principal, r.Node = s.mechanism, s.principal, s.node
	return r
}

// saslHandshakeKey is SaslHandshake's api key.
const saslHandshakeKey = 17

// Closed forgets connection conn.
func (t *Tracker) Closed(conn uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.conns, conn)
}

// Proxy is Record for the exchange of a proxy event (Kind proxy.Flow with
// a *flow.Exchange), with the broker's node id when the connection's
// Opened event named its broker (a broker's own listener); nil for other
// events. A Closed or Failed event forgets its connection.
func (t *Tracker) Proxy(e proxy.Event) *Record {
	switch e.Kind {
	case proxy.Opened:
		if e.Broker != nil {
			n := e.Broker.Node
			t.mu.Lock()
			t.conn(e.Conn).node = &n
			t.mu.Unlock()
		}
		return nil
	case proxy.Closed, proxy.Failed:
		t.Closed(e.Conn)
		return nil
	}
	x, ok := e.Flow.(*flow.Exchange)
	if e.Kind != proxy.Flow || !ok {
		return nil
	}
	return t.Record(x, e.Conn, e.Client, e.Upstream)
}
