package conform

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"strconv"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
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
}

// call sends one step of the scenario: body as JSON (fields of other
// versions dropped), at the highest version both sides support. It returns
// the answer's body, nil when the step failed (the probe says why).
func (s *scenario) call(ctx context.Context, key int16, js string, check func(b tree.Value, p *Probe)) tree.Value {
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
	p.Version = v
	bt, _, err := codec.FromJSONDropped([]byte(js), m, v)
	if err != nil {
		p.Outcome, p.Err = NotSent, fmt.Sprintf("body: %v", err)
		return tree.Value{}
	}
	if j, err := codec.ToJSON(nil, bt, 0, m, v, codec.ConverterOptions); err == nil {
		p.Body = j
	}
	x, err := s.conn.Call(ctx, m, v, bt)
	e.keep(&p, x)
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

// lifecycle is the topic lifecycle scenario (--mutate): CreateTopics of
// <prefix>-lifecycle (one partition), Metadata until it has a leader,
// Produce of a RecordBatch of 3 records (acks -1) to its leader, Fetch
// from offset 0 (the batch back byte for byte from its magic on, at base
// offset 0), ListOffsets (latest: 3), DeleteTopics.
func (e *engine) lifecycle(ctx context.Context) {
	topic := e.names.Prefix + "-lifecycle"
	s := &scenario{e: e, name: "topic lifecycle", conn: e.conn}
	if s.conn == nil {
		c, err := e.dial(ctx)
		if err != nil {
			return
		}
		e.conn, s.conn = c, c
	}
	q := strconv.Quote(topic)
	e.r.Created = append(e.r.Created, "topic "+topic)
	e.extra = append(e.extra, topic)
	var id [16]byte
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
		s.deleteTopic(ctx, topic, id)
		return
	}
	if leader != "" && leader != s.conn.Addr() {
		c, err := client.Dial(ctx, leader, e.cd, e.o.Client)
		if err == nil {
			defer c.Close()
			s.conn = c
		}
	}
	batch := produceBatch(mrand.New(mrand.NewPCG(e.o.Seed, 0x11fec7c1e)), time.Now())
	b64 := base64.StdEncoding.EncodeToString(batch)
	tid := base64.RawURLEncoding.EncodeToString(id[:])
	s.call(ctx, 0, `{"transactionalId":null,"acks":-1,"timeoutMs":5000,"topicData":[{"name":`+q+`,"topicId":"`+tid+`","partitionData":[{"index":0,"records":"`+b64+`"}]}]}`, func(b tree.Value, p *Probe) {
		pr := b.Field("Responses").Elem(0).Field("PartitionResponses").Elem(0)
		expect(p, pr.Field("ErrorCode").Int() == 0, pr.Field("ErrorCode"), "Produce to %s: error %s, want NONE", topic, p.Error)
		expect(p, pr.Field("BaseOffset").Int() == 0, pr.Field("BaseOffset"), "Produce to %s: base offset %d, want 0", topic, pr.Field("BaseOffset").Int())
	})
	s.call(ctx, 1, `{"replicaId":-1,"maxWaitMs":500,"minBytes":1,"maxBytes":1048576,"isolationLevel":0,"sessionId":0,"sessionEpoch":-1,"topics":[{"topic":`+q+`,"topicId":"`+tid+`","partitions":[{"partition":0,"currentLeaderEpoch":-1,"fetchOffset":0,"lastFetchedEpoch":-1,"logStartOffset":-1,"partitionMaxBytes":1048576}]}],"forgottenTopicsData":[],"rackId":""}`, func(b tree.Value, p *Probe) {
		pd := b.Field("Responses").Elem(0).Field("Partitions").Elem(0)
		expect(p, pd.Field("ErrorCode").Int() == 0, pd.Field("ErrorCode"), "Fetch of %s: error %s, want NONE", topic, p.Error)
		expect(p, pd.Field("HighWatermark").Int() == lifecycleRecords, pd.Field("HighWatermark"), "Fetch of %s: high watermark %d, want %d", topic, pd.Field("HighWatermark").Int(), lifecycleRecords)
		recs := pd.Field("Records")
		got := recs.Tree().Data(recs.Node())
		// Base offset (0-7), batch length (8-11) and partition leader
		// epoch (12-15) are the broker's; from the magic on (CRC,
		// attributes, timestamps, producer fields, records) it is the
		// batch produced.
		ok := len(got) == len(batch) && len(got) > 16 && bytes.Equal(got[16:], batch[16:]) && bytes.Equal(got[:8], make([]byte, 8))
		expect(p, ok, recs, "Fetch of %s: the records are not the batch produced at base offset 0 (%d bytes, produced %d)", topic, len(got), len(batch))
	})
	s.call(ctx, 2, `{"replicaId":-1,"isolationLevel":0,"topics":[{"name":`+q+`,"partitions":[{"partitionIndex":0,"currentLeaderEpoch":-1,"timestamp":-1}]}],"timeoutMs":5000}`, func(b tree.Value, p *Probe) {
		pr := b.Field("Topics").Elem(0).Field("Partitions").Elem(0)
		expect(p, pr.Field("ErrorCode").Int() == 0, pr.Field("ErrorCode"), "ListOffsets of %s: error %s, want NONE", topic, p.Error)
		if off := pr.Field("Offset"); off.Err() == nil {
			expect(p, off.Int() == lifecycleRecords, off, "ListOffsets (latest) of %s: %d, want %d", topic, off.Int(), lifecycleRecords)
		}
	})
	s.conn = e.conn
	s.failed = false
	s.deleteTopic(ctx, topic, id)
}

// deleteTopic is the scenario's DeleteTopics step.
func (s *scenario) deleteTopic(ctx context.Context, topic string, id [16]byte) {
	q := strconv.Quote(topic)
	s.call(ctx, deleteTopicsKey, `{"topicNames":[`+q+`],"topics":[{"name":`+q+`,"topicId":"AAAAAAAAAAAAAAAAAAAAAA"}],"timeoutMs":15000}`, func(b tree.Value, p *Probe) {
		r := b.Field("Responses").Elem(0)
		expect(p, r.Field("ErrorCode").Int() == 0, r.Field("ErrorCode"), "DeleteTopics of %s: error %s, want NONE", topic, p.Error)
	})
}

// produceBatch is a RecordBatch v2 of lifecycleRecords random records as a
// plain producer sends it: instance.RecordBatch's, with base offset 0, no
// partition leader epoch, no producer id, epoch or sequence (-1), and its
// timestamps from now on (brokers refuse timestamps far from their clock),
// the CRC-32C recomputed. The layout is KIP-98's: baseOffset int64,
// batchLength int32, partitionLeaderEpoch int32, magic int8, crc uint32,
// then (under the CRC) attributes int16, lastOffsetDelta int32,
// baseTimestamp int64, maxTimestamp int64, producerId int64, producerEpoch
// int16, baseSequence int32, the records.
func produceBatch(r *mrand.Rand, now time.Time) []byte {
	b := instance.RecordBatch(r, lifecycleRecords)
	be := binary.BigEndian
	be.PutUint64(b[0:], 0)
	be.PutUint32(b[12:], 0xffffffff)
	base, maxTs := int64(be.Uint64(b[27:])), int64(be.Uint64(b[35:]))
	ms := now.UnixMilli()
	be.PutUint64(b[27:], uint64(ms))
	be.PutUint64(b[35:], uint64(ms+maxTs-base))
	be.PutUint64(b[43:], 0xffffffffffffffff)
	be.PutUint16(b[51:], 0xffff)
	be.PutUint32(b[53:], 0xffffffff)
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
