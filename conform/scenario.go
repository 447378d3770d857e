package conform

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// lifecycleRecords is the number of records the topic lifecycle produces.
const lifecycleRecords = 3

// scenario runs one scenario step after another; a step that fails ends
// it. Steps are probes of kind "scenario" (Index numbers them), their
// expectations findings of rule "scenario".
type scenario struct {
	e    *engine
	name string
	step int
	conn *client.Conn
	// failed is set when a step did not go as Kafka's would.
	failed bool
	// leader is the connection to the topic's leader, when not the run's.
	leader *client.Conn
	// conns are the other connections the scenario opened (coordinators),
	// closed at its end.
	conns []*client.Conn
}

// call sends one step of the scenario: body as JSON (fields of other
// versions dropped), at the highest version both sides support. It returns
// the answer's body, nil when the step failed (the probe says why).
func (s *scenario) call(ctx context.Context, key int16, js string, check func(b tree.Value, p *Probe)) tree.Value {
	return s.callAt(ctx, key, -1, js, check)
}

// callAt is call at a version no higher than hi (-1: any), for APIs
// whose newer versions are not a client's (AddPartitionsToTxn v4+ is the
// brokers').
func (s *scenario) callAt(ctx context.Context, key, hi int16, js string, check func(b tree.Value, p *Probe)) tree.Value {
	return s.callV(ctx, key, hi, func(int16) string { return js }, check)
}

// callV is callAt with the body written for the version sent: js(v).
func (s *scenario) callV(ctx context.Context, key, hi int16, js func(v int16) string, check func(b tree.Value, p *Probe)) tree.Value {
	if s.failed {
		return tree.Value{}
	}
	e := s.e
	m := e.o.Set.Request(key)
	p := Probe{API: fmt.Sprintf("api key %d", key), Key: key, Kind: "scenario", Index: s.step}
	s.step++
	defer func() {
		if p.Outcome == Found || p.Outcome == Closed || p.Outcome == Timeout || p.Outcome == NotSent {
			s.failed = true
		}
		p.Err = s.name + ": " + p.Err
		e.r.Probes = append(e.r.Probes, p)
		if e.o.OnProbe != nil {
			e.o.OnProbe(&e.r.Probes[len(e.r.Probes)-1])
		}
	}()
	if m == nil {
		p.Outcome, p.Err = NotSent, "the release has no such API"
		return tree.Value{}
	}
	p.API = m.BaseName()
	v, err := s.conn.Negotiate(m)
	if err != nil {
		p.Outcome, p.Err = NotSent, err.Error()
		return tree.Value{}
	}
	if hi >= 0 && v > hi {
		if rg := s.conn.Versions()[key]; rg.Min > hi {
			p.Outcome, p.Err = NotSent, fmt.Sprintf("the target announces %s v%d-%d, a client's are v%d at most", p.API, rg.Min, rg.Max, hi)
			return tree.Value{}
		}
		v = hi
	}
	p.Version = v
	bt, _, err := codec.FromJSONDropped([]byte(js(v)), m, v)
	if err != nil {
		p.Outcome, p.Err = NotSent, fmt.Sprintf("body: %v", err)
		return tree.Value{}
	}
	if j, err := codec.ToJSON(nil, bt, 0, m, v, codec.ConverterOptions); err == nil {
		p.Body = j
	}
	if err := ctx.Err(); err != nil {
		// Cancelled (Ctrl-C): not sent, so that the connection stays
		// whole for the last steps and the cleanup.
		p.Outcome, p.Err = NotSent, err.Error()
		return tree.Value{}
	}
	x, err := s.conn.Call(ctx, m, v, bt)
	e.keep(&p, x)
	if x == nil || x.Response == nil {
		s.lost()
	}
	switch {
	case x == nil:
		p.Outcome, p.Err = NotSent, err.Error()
		return tree.Value{}
	case errors.Is(err, client.ErrTimeout):
		p.Outcome, p.Err = Timeout, err.Error()
		return tree.Value{}
	case x.Response == nil:
		p.Outcome, p.Err = Closed, fmt.Sprint(err)
		return tree.Value{}
	}
	j := Judge(e.cd, x.Request, x.Response, err)
	p.Findings, p.Error = j.Findings, j.Error
	if len(p.Findings) > 0 {
		p.Outcome = Found
		return tree.Value{}
	}
	b := x.Response.At(x.Response.Part(tree.Body))
	check(b, &p)
	switch {
	case len(p.Findings) > 0:
		p.Outcome = Found
		return tree.Value{}
	case p.Error != "":
		p.Outcome = KafkaError
	}
	return b
}

// lost forgets the scenario's connection after a call that got no answer
// (the connection may be closed): when it is the run's, the run dials
// anew for what follows (the cleanup).
func (s *scenario) lost() {
	if s.conn == s.e.conn {
		s.e.conn = nil
	}
}

// expect adds a finding of rule "scenario" to p unless ok.
func expect(p *Probe, ok bool, v tree.Value, format string, args ...any) {
	if ok {
		return
	}
	f := Finding{Rule: "scenario", Offset: -1, Message: fmt.Sprintf(format, args...)}
	if v.Tree() != nil && v.Err() == nil && v.Node() >= 0 {
		f.Path = v.Tree().PathOf(v.Node()).String()
		f.Offset = int(v.Tree().Nodes[v.Node()].Off)
	}
	p.Findings = append(p.Findings, f)
}

// begin starts a scenario on the run's connection (a new one when it is
// gone); nil when the target cannot be reached.
func (e *engine) begin(ctx context.Context, name string) *scenario {
	s := &scenario{e: e, name: name, conn: e.conn}
	if s.conn == nil {
		c, err := e.dial(ctx)
		if err != nil {
			return nil
		}
		e.conn, s.conn = c, c
	}
	return s
}

// topic creates topic (one partition, the target's default replication)
// as the scenario's first steps, waits for its leader (Metadata, up to 5 s
// of errors while it is made) and connects to it: its id (zero when the
// target gives none) and whether all went as expected. The topic is
// deleted at the end of the run whatever happens.
func (s *scenario) topic(ctx context.Context, topic string) (id [16]byte, ok bool) {
	e := s.e
	q := strconv.Quote(topic)
	e.r.Created = append(e.r.Created, "topic "+topic)
	e.extra = append(e.extra, topic)
	s.call(ctx, createTopicsKey, `{"topics":[{"name":`+q+`,"numPartitions":1,"replicationFactor":-1,"assignments":[],"configs":[]}],"timeoutMs":15000,"validateOnly":false}`, func(b tree.Value, p *Probe) {
		t := b.Field("Topics").Elem(0)
		expect(p, t.Field("ErrorCode").Int() == 0, t.Field("ErrorCode"), "CreateTopics of %s: error %s, want NONE", topic, p.Error)
		if tid := t.Field("TopicId"); tid.Err() == nil {
			id = tid.UUID()
		}
	})
	zero := base64.RawURLEncoding.EncodeToString(make([]byte, 16))
	var leader string
	for try := 0; try < 20 && !s.failed; try++ {
		retry := false
		last := try == 19
		s.call(ctx, 3, `{"topics":[{"name":`+q+`,"topicId":"`+zero+`"}],"allowAutoTopicCreation":false,"includeClusterAuthorizedOperations":false,"includeTopicAuthorizedOperations":false}`, func(b tree.Value, p *Probe) {
			t := b.Field("Topics").Elem(0)
			code := t.Field("ErrorCode").Int()
			if code != 0 && !last {
				retry, p.Error = true, "" // LEADER_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION while it is made
				return
			}
			expect(p, code == 0, t.Field("ErrorCode"), "Metadata of %s: error %s, want NONE", topic, p.Error)
			parts := t.Field("Partitions")
			expect(p, parts.Len() == 1, parts, "Metadata of %s: %d partitions, want 1", topic, parts.Len())
			if tid := t.Field("TopicId"); tid.Err() == nil && id != [16]byte{} {
				expect(p, tid.UUID() == id, tid, "Metadata of %s: topic id %x, CreateTopics said %x", topic, tid.UUID(), id)
			}
			if parts.Len() == 1 {
				lid := parts.Elem(0).Field("LeaderId").Int()
				brokers := b.Field("Brokers")
				for i := range brokers.Len() {
					br := brokers.Elem(i)
					if br.Field("NodeId").Int() == lid {
						leader = net.JoinHostPort(br.Field("Host").String(), strconv.Itoa(int(br.Field("Port").Int())))
					}
				}
				expect(p, leader != "", parts.Elem(0).Field("LeaderId"), "Metadata of %s: leader %d is not among the brokers", topic, lid)
			}
		})
		if !retry {
			break
		}
		e.r.Probes = e.r.Probes[:len(e.r.Probes)-1] // a retry is not a step
		s.step--
		time.Sleep(250 * time.Millisecond)
	}
	if s.failed {
		return id, false
	}
	if leader != "" && leader != s.conn.Addr() {
		c, err := client.Dial(ctx, leader, e.cd, e.o.Client)
		if err == nil {
			s.leader = c
			s.conn = c
		}
	}
	return id, true
}

// end deletes the scenario's topic (its last step, on the run's
// connection, also after a failed step) and closes the leader's
// connection.
func (s *scenario) end(ctx context.Context, topic string) {
	if s.leader != nil {
		s.leader.Close()
	}
	for _, c := range s.conns {
		c.Close()
	}
	s.conn = s.e.conn
	if s.conn == nil {
		return
	}
	s.failed = false
	s.deleteTopic(ctx, topic)
}

// retry runs step (one call) until its answer's error is not one of
// errors (the retriable errors a client retries on), up to 40 times 250 ms
// apart; the tries before the last are not steps of the scenario. step's
// check calls retriable(p) first and returns when it says true.
func (s *scenario) retry(ctx context.Context, errors []string, step func(retriable func(p *Probe) bool)) {
	for try := 0; try < 40 && !s.failed && ctx.Err() == nil; try++ {
		again := false
		step(func(p *Probe) bool {
			if try < 39 && slices.Contains(errors, p.Error) {
				again, p.Error = true, ""
			}
			return again
		})
		if !again {
			return
		}
		s.e.r.Probes = s.e.r.Probes[:len(s.e.r.Probes)-1]
		s.step--
		time.Sleep(250 * time.Millisecond)
	}
}

// produce is a Produce step of batch to partition 0 of topic (id): it
// expects the error want (NONE: "") and, when base >= 0, that base offset.
func (s *scenario) produce(ctx context.Context, topic string, id [16]byte, batch []byte, want string, base int64) {
	q := strconv.Quote(topic)
	tid := base64.RawURLEncoding.EncodeToString(id[:])
	b64 := base64.StdEncoding.EncodeToString(batch)
	s.call(ctx, 0, `{"transactionalId":null,"acks":-1,"timeoutMs":5000,"topicData":[{"name":`+q+`,"topicId":"`+tid+`","partitionData":[{"index":0,"records":"`+b64+`"}]}]}`, func(b tree.Value, p *Probe) {
		pr := b.Field("Responses").Elem(0).Field("PartitionResponses").Elem(0)
		got := p.Error
		if pr.Field("ErrorCode").Int() == 0 {
			got = ""
		}
		expect(p, got == want, pr.Field("ErrorCode"), "Produce to %s: error %s, want %s", topic, orNone(got), orNone(want))
		if want == "" && base >= 0 {
			expect(p, pr.Field("BaseOffset").Int() == base, pr.Field("BaseOffset"), "Produce to %s: base offset %d, want %d", topic, pr.Field("BaseOffset").Int(), base)
		}
		if want != "" && got == want {
			p.Error = "" // the error expected: the step passes
		}
	})
}

func orNone(e string) string {
	if e == "" {
		return "NONE"
	}
	return e
}

// latest is a ListOffsets step: the latest offset of partition 0 of
// topic must be want.
func (s *scenario) latest(ctx context.Context, topic string, want int64) {
	q := strconv.Quote(topic)
	s.call(ctx, 2, `{"replicaId":-1,"isolationLevel":0,"topics":[{"name":`+q+`,"partitions":[{"partitionIndex":0,"currentLeaderEpoch":-1,"timestamp":-1}]}],"timeoutMs":5000}`, func(b tree.Value, p *Probe) {
		pr := b.Field("Topics").Elem(0).Field("Partitions").Elem(0)
		expect(p, pr.Field("ErrorCode").Int() == 0, pr.Field("ErrorCode"), "ListOffsets of %s: error %s, want NONE", topic, p.Error)
		if off := pr.Field("Offset"); off.Err() == nil {
			expect(p, off.Int() == want, off, "ListOffsets (latest) of %s: %d, want %d", topic, off.Int(), want)
		}
	})
}

// lifecycle is the topic lifecycle scenario (--mutate): CreateTopics of
// <prefix>-lifecycle (one partition), Metadata until it has a leader, then
// to its leader one Produce (acks -1) per codec of lifecycleCodecs of a
// RecordBatch of 3 records (a codec the target answers
// UNSUPPORTED_COMPRESSION_TYPE is one it does not accept, left out of what
// follows), one Fetch from offset 0 (every batch accepted back byte for
// byte from its magic on, at the base offset its Produce was answered),
// ListOffsets (latest: 3 per batch accepted), DeleteTopics.
func (e *engine) lifecycle(ctx context.Context) {
	topic := e.names.Prefix + "-lifecycle"
	s := e.begin(ctx, "topic lifecycle")
	if s == nil {
		return
	}
	defer s.end(ctx, topic)
	id, ok := s.topic(ctx, topic)
	if !ok {
		return
	}
	q := strconv.Quote(topic)
	r := mrand.New(mrand.NewPCG(e.o.Seed, 0x11fec7c1e))
	now := time.Now()
	var sent [][]byte // the batches the target accepted, in offset order
	for _, c := range lifecycleCodecs {
		batch, err := codecBatch(r, now, c)
		if err != nil {
			s.e.r.Cleanup = append(s.e.r.Cleanup, fmt.Sprintf("%s batch: %v", c, err))
			continue
		}
		base := int64(len(sent) * lifecycleRecords)
		s.call(ctx, 0, produceJSON(topic, id, batch), func(b tree.Value, p *Probe) {
			pr := b.Field("Responses").Elem(0).Field("PartitionResponses").Elem(0)
			p.Err = c.String()
			if p.Error == "UNSUPPORTED_COMPRESSION_TYPE" {
				p.Err += " not accepted"
				return // a legitimate answer: the codec is left out
			}
			expect(p, pr.Field("ErrorCode").Int() == 0, pr.Field("ErrorCode"), "Produce of a %s batch to %s: error %s, want NONE", c, topic, orNone(p.Error))
			expect(p, pr.Field("BaseOffset").Int() == base, pr.Field("BaseOffset"), "Produce of a %s batch to %s: base offset %d, want %d", c, topic, pr.Field("BaseOffset").Int(), base)
			if len(p.Findings) == 0 {
				sent = append(sent, batch)
			}
		})
	}
	total := int64(len(sent) * lifecycleRecords)
	tid := base64.RawURLEncoding.EncodeToString(id[:])
	s.call(ctx, 1, `{"replicaId":-1,"maxWaitMs":500,"minBytes":1,"maxBytes":1048576,"isolationLevel":0,"sessionId":0,"sessionEpoch":-1,"topics":[{"topic":`+q+`,"topicId":"`+tid+`","partitions":[{"partition":0,"currentLeaderEpoch":-1,"fetchOffset":0,"lastFetchedEpoch":-1,"logStartOffset":-1,"partitionMaxBytes":1048576}]}],"forgottenTopicsData":[],"rackId":""}`, func(b tree.Value, p *Probe) {
		pd := b.Field("Responses").Elem(0).Field("Partitions").Elem(0)
		expect(p, pd.Field("ErrorCode").Int() == 0, pd.Field("ErrorCode"), "Fetch of %s: error %s, want NONE", topic, p.Error)
		expect(p, pd.Field("HighWatermark").Int() == total, pd.Field("HighWatermark"), "Fetch of %s: high watermark %d, want %d", topic, pd.Field("HighWatermark").Int(), total)
		recs := pd.Field("Records")
		got := batchNodes(recs)
		expect(p, len(got) == len(sent), recs, "Fetch of %s: %d batches, produced %d", topic, len(got), len(sent))
		t := recs.Tree()
		for i := range min(len(got), len(sent)) {
			f, _ := records.BatchFactsOf(t, got[i])
			expect(p, sameBatch(t.Span(got[i]), sent[i], int64(i*lifecycleRecords)), t.At(got[i]),
				"Fetch of %s: batch %d (%s) is not the batch produced at base offset %d (%d bytes, produced %d)", topic, i, f.Attributes.Compression(), i*lifecycleRecords, len(t.Span(got[i])), len(sent[i]))
		}
	})
	s.latest(ctx, topic, total)
}

// idempotent is the idempotent produce scenario (--mutate), on the topic
// <prefix>-idempotent: InitProducerId (no transactional id), then Produce
// of batches of 3 records with that producer id and epoch: sequence 0
// (base offset 0), the same batch again (a duplicate: NONE, or
// DUPLICATE_SEQUENCE_NUMBER from older brokers, and nothing appended),
// sequence 3 (base offset 3), sequence 10 (a gap:
// OUT_OF_ORDER_SEQUENCE_NUMBER), then ListOffsets (latest: 6, the
// duplicate and the gap appended nothing) and DeleteTopics.
func (e *engine) idempotent(ctx context.Context) {
	topic := e.names.Prefix + "-idempotent"
	s := e.begin(ctx, "idempotent produce")
	if s == nil {
		return
	}
	defer s.end(ctx, topic)
	id, ok := s.topic(ctx, topic)
	if !ok {
		return
	}
	pid, epoch := int64(-1), int16(-1)
	s.retry(ctx, []string{"COORDINATOR_LOAD_IN_PROGRESS", "COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR"}, func(retriable func(p *Probe) bool) {
		s.call(ctx, 22, `{"transactionalId":null,"transactionTimeoutMs":60000,"producerId":-1,"producerEpoch":-1,"enable2Pc":false,"keepPreparedTxn":false}`, func(b tree.Value, p *Probe) {
			if retriable(p) {
				return
			}
			expect(p, b.Field("ErrorCode").Int() == 0, b.Field("ErrorCode"), "InitProducerId: error %s, want NONE", p.Error)
			pid, epoch = b.Field("ProducerId").Int(), int16(b.Field("ProducerEpoch").Int())
			expect(p, pid >= 0 && epoch >= 0, b.Field("ProducerId"), "InitProducerId: producer id %d epoch %d, want a producer id", pid, epoch)
		})
	})
	r := mrand.New(mrand.NewPCG(e.o.Seed, 0x1de4907e7))
	now := time.Now()
	first := produceBatch(r, now, pid, epoch, 0)
	s.produce(ctx, topic, id, first, "", 0)
	// The duplicate: NONE (Kafka 2.x on), or DUPLICATE_SEQUENCE_NUMBER.
	s.call(ctx, 0, produceJSON(topic, id, first), func(b tree.Value, p *Probe) {
		pr := b.Field("Responses").Elem(0).Field("PartitionResponses").Elem(0)
		code := pr.Field("ErrorCode").Int()
		expect(p, code == 0 || p.Error == "DUPLICATE_SEQUENCE_NUMBER", pr.Field("ErrorCode"), "Produce of a duplicate batch to %s: error %s, want NONE (the duplicate detected, nothing appended)", topic, orNone(p.Error))
		p.Error = ""
	})
	s.produce(ctx, topic, id, produceBatch(r, now, pid, epoch, lifecycleRecords), "", lifecycleRecords)
	s.produce(ctx, topic, id, produceBatch(r, now, pid, epoch, 10), "OUT_OF_ORDER_SEQUENCE_NUMBER", -1)
	s.latest(ctx, topic, 2*lifecycleRecords)
}

// produceJSON is the Produce body (acks -1) of batch to partition 0 of
// topic (id).
func produceJSON(topic string, id [16]byte, batch []byte) string {
	return `{"transactionalId":null,"acks":-1,"timeoutMs":5000,"topicData":[{"name":` + strconv.Quote(topic) + `,"topicId":"` + base64.RawURLEncoding.EncodeToString(id[:]) + `","partitionData":[{"index":0,"records":"` + base64.StdEncoding.EncodeToString(batch) + `"}]}]}`
}

// deleteTopic is the scenario's DeleteTopics step.
func (s *scenario) deleteTopic(ctx context.Context, topic string) {
	q := strconv.Quote(topic)
	s.call(ctx, deleteTopicsKey, `{"topicNames":[`+q+`],"topics":[{"name":`+q+`,"topicId":"AAAAAAAAAAAAAAAAAAAAAA"}],"timeoutMs":15000}`, func(b tree.Value, p *Probe) {
		r := b.Field("Responses").Elem(0)
		expect(p, r.Field("ErrorCode").Int() == 0, r.Field("ErrorCode"), "DeleteTopics of %s: error %s, want NONE", topic, p.Error)
	})
}

// produceBatch is a RecordBatch v2 of lifecycleRecords random records as a
// producer sends it: instance.RecordBatch's, with base offset 0, no
// partition leader epoch, the producer id, epoch and base sequence given
// (-1 each for a plain producer), and its timestamps from now on (brokers refuse timestamps far from their clock),
// the CRC-32C recomputed. The layout is KIP-98's: baseOffset int64,
// batchLength int32, partitionLeaderEpoch int32, magic int8, crc uint32,
// then (under the CRC) attributes int16, lastOffsetDelta int32,
// baseTimestamp int64, maxTimestamp int64, producerId int64, producerEpoch
// int16, baseSequence int32, the records.
func produceBatch(r *mrand.Rand, now time.Time, pid int64, epoch int16, seq int32) []byte {
	b := instance.RecordBatch(r, lifecycleRecords)
	be := binary.BigEndian
	be.PutUint64(b[0:], 0)
	be.PutUint32(b[12:], 0xffffffff)
	base, maxTs := int64(be.Uint64(b[27:])), int64(be.Uint64(b[35:]))
	ms := now.UnixMilli()
	be.PutUint64(b[27:], uint64(ms))
	be.PutUint64(b[35:], uint64(ms+maxTs-base))
	be.PutUint64(b[43:], uint64(pid))
	be.PutUint16(b[51:], uint16(epoch))
	be.PutUint32(b[53:], uint32(seq))
	be.PutUint32(b[17:], codec.CRC32C(b[21:]))
	return b
}

// Bytes of the protocol edges scenario.
const (
	// unknownVersion is the ApiVersions version no release defines.
	unknownVersion = 127
	// unknownKey is an api key no release defines.
	unknownKey = 1000
	// oversize is a size prefix over any broker's request limit (Kafka's
	// socket.request.max.bytes is 100 MiB by default).
	oversize = 0x7ffffff0
)

// edges is the protocol edges scenario (read-only: it changes nothing):
// ApiVersions at a version no release defines (KIP-511: Kafka answers a v0
// ApiVersionsResponse with UNSUPPORTED_VERSION and its own ApiKeys), a
// request of an api key no release defines (Kafka closes the connection),
// and a frame whose size prefix is over the request limit (Kafka closes the
// connection before reading it). Each step on a connection of its own.
func (e *engine) edges(ctx context.Context) {
	const name = "protocol edges"
	set := e.o.Set
	hdr := func(key, v int16) []byte {
		b := []byte{0, 0, 0, 0, byte(key >> 8), byte(key), byte(v >> 8), byte(v), 0, 0, 0, 0, 0, 5}
		b = append(b, "kwire"...)
		return b
	}
	sized := func(b []byte) []byte {
		binary.BigEndian.PutUint32(b, uint32(len(b)-4))
		return b
	}
	step := func(idx int, api string, key, v int16, req []byte, judge func(resp []byte, err error, p *Probe)) {
		p := Probe{API: api, Key: key, Version: v, Kind: "scenario", Index: idx}
		defer func() {
			p.Err = name + ": " + p.Err
			e.r.Probes = append(e.r.Probes, p)
			if e.o.OnProbe != nil {
				e.o.OnProbe(&e.r.Probes[len(e.r.Probes)-1])
			}
		}()
		c, err := e.dial(ctx)
		if err != nil {
			p.Outcome, p.Err = NotSent, fmt.Sprintf("connecting: %v", err)
			return
		}
		defer c.Close()
		start := time.Now()
		resp, err := c.RoundTrip(ctx, req)
		p.Request, p.Response, p.Latency = req, resp, time.Since(start)
		judge(resp, err, &p)
		if len(p.Findings) > 0 {
			p.Outcome = Found
		}
	}
	closes := func(what string) func([]byte, error, *Probe) {
		return func(resp []byte, err error, p *Probe) {
			switch {
			case errors.Is(err, client.ErrClosed):
				p.Outcome, p.Err = Pass, "closed the connection, as Kafka does"
			case errors.Is(err, client.ErrTimeout):
				p.Outcome, p.Err = Timeout, "no answer and the connection kept open"
				expect(p, false, tree.Value{}, "%s: the connection stayed open (Kafka closes it)", what)
			default:
				expect(p, false, tree.Value{}, "%s: answered %d bytes (%v) where Kafka closes the connection", what, len(resp), err)
			}
		}
	}
	// 1. ApiVersions at an unknown version.
	req := sized(append(hdr(apiVersionsKey, unknownVersion), 0)) // header v2: an empty tagged-field section
	step(0, "ApiVersions", apiVersionsKey, unknownVersion, req, func(resp []byte, err error, p *Probe) {
		if err != nil {
			p.Outcome, p.Err = Closed, err.Error()
			if errors.Is(err, client.ErrTimeout) {
				p.Outcome = Timeout
			}
			expect(p, false, tree.Value{}, "ApiVersions v%d: %v, where Kafka answers UNSUPPORTED_VERSION in a v0 answer (KIP-511)", unknownVersion, err)
			return
		}
		t, derr := e.cd.DecodeResponse(resp, set.Response(apiVersionsKey), 0)
		if derr != nil {
			p.Findings = Judge(e.cd, nil, t, derr).Findings
			return
		}
		b := t.At(t.Part(tree.Body))
		code := b.Field("ErrorCode")
		expect(p, code.Int() == unsupportedVersion, code, "ApiVersions v%d: error code %d, want UNSUPPORTED_VERSION (35) in a v0 answer (KIP-511)", unknownVersion, code.Int())
		keys := b.Field("ApiKeys")
		has := false
		for i := range keys.Len() {
			has = has || keys.Elem(i).Field("ApiKey").Int() == apiVersionsKey
		}
		expect(p, has, keys, "ApiVersions v%d: the answer's ApiKeys lack ApiVersions' range, which a client needs to retry (KIP-511)", unknownVersion)
		p.Outcome, p.Error = KafkaError, "UNSUPPORTED_VERSION"
	})
	// 2. An unknown api key.
	step(1, fmt.Sprintf("api key %d", unknownKey), unknownKey, 0, sized(hdr(unknownKey, 0)), closes(fmt.Sprintf("api key %d", unknownKey)))
	// 3. A frame over the size limit: the size prefix and a header only.
	big := hdr(apiVersionsKey, 0)
	binary.BigEndian.PutUint32(big, oversize)
	step(2, "frame", -1, 0, big, closes(fmt.Sprintf("a frame of %d bytes", oversize)))
}
