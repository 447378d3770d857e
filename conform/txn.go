package conform

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"strconv"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// coordinatorErrors are the errors a client retries a coordinator's
// request on while the coordinator is loading or moving.
var coordinatorErrors = []string{"COORDINATOR_LOAD_IN_PROGRESS", "COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR"}

// txnErrors are coordinatorErrors and CONCURRENT_TRANSACTIONS, which a
// transaction coordinator answers while the markers of the transaction
// before are being written.
var txnErrors = append(append([]string(nil), coordinatorErrors...), "CONCURRENT_TRANSACTIONS")

// findCoordinator is a FindCoordinator step for key (keyType 0: a group,
// 1: a transactional id), retried on coordinatorErrors; it returns a
// connection to the coordinator (one the scenario has when it is the same
// node), nil when the step failed or the connection could not be made.
func (s *scenario) findCoordinator(ctx context.Context, keyType int, key string) *client.Conn {
	q := strconv.Quote(key)
	var addr string
	s.retry(ctx, coordinatorErrors, func(retriable func(p *Probe) bool) {
		s.callV(ctx, 10, -1, func(v int16) string {
			if v >= 4 { // KIP-699: batched keys
				return `{"keyType":` + strconv.Itoa(keyType) + `,"coordinatorKeys":[` + q + `]}`
			}
			return `{"key":` + q + `,"keyType":` + strconv.Itoa(keyType) + `}`
		}, func(b tree.Value, p *Probe) {
			if retriable(p) {
				return
			}
			c := b
			if cs := b.Field("Coordinators"); cs.Err() == nil {
				expect(p, cs.Len() == 1, cs, "FindCoordinator of %s: %d coordinators, want 1", key, cs.Len())
				c = cs.Elem(0)
			}
			expect(p, c.Field("ErrorCode").Int() == 0, c.Field("ErrorCode"), "FindCoordinator of %s: error %s, want NONE", key, orNone(p.Error))
			addr = net.JoinHostPort(c.Field("Host").String(), strconv.Itoa(int(c.Field("Port").Int())))
		})
	})
	if s.failed || addr == "" {
		return nil
	}
	for _, c := range append([]*client.Conn{s.conn, s.e.conn}, s.conns...) {
		if c != nil && c.Addr() == addr {
			return c
		}
	}
	c, err := client.Dial(ctx, addr, s.e.cd, s.e.o.Client)
	if err != nil {
		s.fail(fmt.Sprintf("connecting to the coordinator of %s at %s: %v", key, addr, err))
		return nil
	}
	s.conns = append(s.conns, c)
	return c
}

// fail ends the scenario with a step that was not sent: why.
func (s *scenario) fail(why string) {
	p := Probe{API: "connect", Key: -1, Kind: "scenario", Index: s.step, Outcome: NotSent, Err: s.name + ": " + why}
	s.step++
	s.failed = true
	s.e.r.Probes = append(s.e.r.Probes, p)
	if s.e.o.OnProbe != nil {
		s.e.o.OnProbe(&s.e.r.Probes[len(s.e.r.Probes)-1])
	}
}

// txnBatch is produceBatch's batch of the producer (pid, epoch) at
// sequence seq, marked transactional (attributes bit 4), its CRC
// recomputed.
func txnBatch(r *mrand.Rand, now time.Time, pid int64, epoch int16, seq int32) []byte {
	b := produceBatch(r, now, pid, epoch, seq)
	be := binary.BigEndian
	be.PutUint16(b[21:], be.Uint16(b[21:])|0x10)
	be.PutUint32(b[17:], codec.CRC32C(b[21:]))
	return b
}

// transactions is the transactions scenario (--mutate), on the topic
// <prefix>-transactions, the transactional id <prefix>-txn and the group
// <prefix>-txn-group; see docs/conform.md for its steps and what each
// expects.
func (e *engine) transactions(ctx context.Context) {
	topic := e.names.Prefix + "-transactions"
	txn, group := e.names.Prefix+"-txn", e.names.Prefix+"-txn-group"
	s := e.begin(ctx, "transactions")
	if s == nil {
		return
	}
	defer s.end(ctx, topic)
	id, ok := s.topic(ctx, topic)
	if !ok {
		return
	}
	e.groups = append(e.groups, group)
	e.r.Created = append(e.r.Created, "group "+group)
	leader := s.conn
	qt, qg, qx := strconv.Quote(topic), strconv.Quote(group), strconv.Quote(txn)
	tid := base64.RawURLEncoding.EncodeToString(id[:])
	tc := s.findCoordinator(ctx, 1, txn)
	if tc == nil {
		return
	}
	s.conn = tc
	pid, epoch := int64(-1), int16(-1)
	s.retry(ctx, txnErrors, func(retriable func(p *Probe) bool) {
		s.call(ctx, 22, `{"transactionalId":`+qx+`,"transactionTimeoutMs":60000,"producerId":-1,"producerEpoch":-1,"enable2Pc":false,"keepPreparedTxn":false}`, func(b tree.Value, p *Probe) {
			if retriable(p) {
				return
			}
			expect(p, b.Field("ErrorCode").Int() == 0, b.Field("ErrorCode"), "InitProducerId of %s: error %s, want NONE", txn, orNone(p.Error))
			pid, epoch = b.Field("ProducerId").Int(), int16(b.Field("ProducerEpoch").Int())
			expect(p, pid >= 0 && epoch >= 0, b.Field("ProducerId"), "InitProducerId of %s: producer id %d epoch %d, want a producer id", txn, pid, epoch)
		})
	})
	producer := func() string {
		return `"transactionalId":` + qx + `,"producerId":` + strconv.FormatInt(pid, 10) + `,"producerEpoch":` + strconv.Itoa(int(epoch))
	}
	addPartitions := func() {
		s.conn = tc
		s.retry(ctx, txnErrors, func(retriable func(p *Probe) bool) {
			// v3 at most: v4+ are the brokers' (verification, batches of
			// transactions).
			s.callAt(ctx, 24, 3, `{"v3AndBelowTransactionalId":`+qx+`,"v3AndBelowProducerId":`+strconv.FormatInt(pid, 10)+`,"v3AndBelowProducerEpoch":`+strconv.Itoa(int(epoch))+`,"v3AndBelowTopics":[{"name":`+qt+`,"partitions":[0]}]}`, func(b tree.Value, p *Probe) {
				if retriable(p) {
					return
				}
				expect(p, p.Error == "", b, "AddPartitionsToTxn of %s-0: error %s, want NONE", topic, orNone(p.Error))
			})
		})
	}
	endTxn := func(commit bool) {
		s.conn = tc
		s.retry(ctx, txnErrors, func(retriable func(p *Probe) bool) {
			s.call(ctx, 26, `{`+producer()+`,"committed":`+strconv.FormatBool(commit)+`}`, func(b tree.Value, p *Probe) {
				if retriable(p) {
					return
				}
				what := "abort"
				if commit {
					what = "commit"
				}
				p.Err = what
				expect(p, b.Field("ErrorCode").Int() == 0, b.Field("ErrorCode"), "EndTxn (%s) of %s: error %s, want NONE", what, txn, orNone(p.Error))
				// v5+ (KIP-890): the epoch is bumped at each end, and the
				// next transaction is the new epoch's.
				if np := b.Field("ProducerId"); np.Err() == nil && np.Int() >= 0 {
					pid, epoch = np.Int(), int16(b.Field("ProducerEpoch").Int())
				}
			})
		})
	}
	produce := func(batch []byte, base int64) {
		s.conn = leader
		b64 := base64.StdEncoding.EncodeToString(batch)
		s.call(ctx, 0, `{"transactionalId":`+qx+`,"acks":-1,"timeoutMs":5000,"topicData":[{"name":`+qt+`,"topicId":"`+tid+`","partitionData":[{"index":0,"records":"`+b64+`"}]}]}`, func(b tree.Value, p *Probe) {
			pr := b.Field("Responses").Elem(0).Field("PartitionResponses").Elem(0)
			expect(p, pr.Field("ErrorCode").Int() == 0, pr.Field("ErrorCode"), "transactional Produce to %s: error %s, want NONE", topic, orNone(p.Error))
			expect(p, pr.Field("BaseOffset").Int() == base, pr.Field("BaseOffset"), "transactional Produce to %s: base offset %d, want %d", topic, pr.Field("BaseOffset").Int(), base)
		})
	}

	// The first transaction: 3 records and the group's offset 3, committed.
	r := mrand.New(mrand.NewPCG(e.o.Seed, 0x7a9))
	now := time.Now()
	addPartitions()
	committed := txnBatch(r, now, pid, epoch, 0)
	produce(committed, 0)
	s.conn = tc
	s.retry(ctx, txnErrors, func(retriable func(p *Probe) bool) {
		s.call(ctx, 25, `{`+producer()+`,"groupId":`+qg+`}`, func(b tree.Value, p *Probe) {
			if retriable(p) {
				return
			}
			expect(p, b.Field("ErrorCode").Int() == 0, b.Field("ErrorCode"), "AddOffsetsToTxn of %s: error %s, want NONE", group, orNone(p.Error))
		})
	})
	if gc := s.findCoordinator(ctx, 0, group); gc != nil {
		s.conn = gc
		s.retry(ctx, txnErrors, func(retriable func(p *Probe) bool) {
			s.call(ctx, 28, `{`+producer()+`,"groupId":`+qg+`,"generationIdOrMemberEpoch":-1,"memberId":"","groupInstanceId":null,"topics":[{"name":`+qt+`,"topicId":"`+tid+`","partitions":[{"partitionIndex":0,"committedOffset":3,"committedLeaderEpoch":-1,"committedMetadata":""}]}]}`, func(b tree.Value, p *Probe) {
				if retriable(p) {
					return
				}
				expect(p, p.Error == "", b, "TxnOffsetCommit of %s: error %s, want NONE", group, orNone(p.Error))
			})
		})
	}
	before := epoch
	endTxn(true)
	// The second: 3 records, aborted. Its batch is at offset 4, after the
	// commit marker at 3; its sequence goes on from 3, or starts at 0
	// again when EndTxn bumped the epoch.
	seq := int32(lifecycleRecords)
	if epoch != before {
		seq = 0
	}
	addPartitions()
	aborted := txnBatch(r, now, pid, epoch, seq)
	produce(aborted, lifecycleRecords+1)
	endTxn(false)

	// read_uncommitted: the two batches and the two markers.
	s.conn = leader
	fetch := func(level int, check func(pd tree.Value, p *Probe)) {
		s.retry(ctx, []string{"(markers not yet written)"}, func(retriable func(p *Probe) bool) {
			s.call(ctx, 1, `{"replicaId":-1,"maxWaitMs":500,"minBytes":1,"maxBytes":1048576,"isolationLevel":`+strconv.Itoa(level)+`,"sessionId":0,"sessionEpoch":-1,"topics":[{"topic":`+qt+`,"topicId":"`+tid+`","partitions":[{"partition":0,"currentLeaderEpoch":-1,"fetchOffset":0,"lastFetchedEpoch":-1,"logStartOffset":-1,"partitionMaxBytes":1048576}]}],"forgottenTopicsData":[],"rackId":""}`, func(b tree.Value, p *Probe) {
				pd := b.Field("Responses").Elem(0).Field("Partitions").Elem(0)
				if p.Error == "" && pd.Field("HighWatermark").Int() < 2*lifecycleRecords+2 {
					p.Error = "(markers not yet written)"
				}
				if retriable(p) {
					return
				}
				if p.Error == "(markers not yet written)" {
					p.Error = ""
				}
				p.Err = [...]string{"read_uncommitted", "read_committed"}[level]
				expect(p, pd.Field("ErrorCode").Int() == 0, pd.Field("ErrorCode"), "Fetch of %s: error %s, want NONE", topic, orNone(p.Error))
				check(pd, p)
			})
		})
	}
	const end = 2*lifecycleRecords + 2
	fetch(0, func(pd tree.Value, p *Probe) {
		expect(p, pd.Field("HighWatermark").Int() == end, pd.Field("HighWatermark"), "Fetch of %s: high watermark %d, want %d (two batches of %d and two markers)", topic, pd.Field("HighWatermark").Int(), end, lifecycleRecords)
		recs := pd.Field("Records")
		t := recs.Tree()
		got := batchNodes(recs)
		expect(p, len(got) == 4, recs, "Fetch (read_uncommitted) of %s: %d batches, want 4 (the committed batch, the COMMIT marker, the aborted batch, the ABORT marker)", topic, len(got))
		if len(got) != 4 {
			return
		}
		expect(p, sameBatch(t.Span(got[0]), committed, 0), t.At(got[0]), "Fetch of %s: the first batch is not the committed batch produced at offset 0", topic)
		expect(p, sameBatch(t.Span(got[2]), aborted, lifecycleRecords+1), t.At(got[2]), "Fetch of %s: the third batch is not the aborted batch produced at offset %d", topic, lifecycleRecords+1)
		for i, want := range []int{1: records.ControlCommit, 3: records.ControlAbort} {
			if i%2 == 0 {
				continue
			}
			lb, _ := records.LogBatchOf(t, got[i])
			typ := -1
			if len(lb.Records) == 1 {
				typ = lb.Records[0].ControlType()
			}
			f, _ := records.BatchFactsOf(t, got[i])
			at := int64(lifecycleRecords + (i-1)/2*(lifecycleRecords+1))
			expect(p, lb.Control && f.Attributes.Transactional() && typ == want && lb.BaseOffset == at && f.ProducerID == pid, t.At(got[i]),
				"Fetch (read_uncommitted) of %s: batch %d is not the %s marker of producer %d at offset %d (control %v, transactional %v, %d records, type %s, offset %d, producer %d)",
				topic, i, records.ControlTypeName(want), pid, at, lb.Control, f.Attributes.Transactional(), len(lb.Records), records.ControlTypeName(typ), lb.BaseOffset, f.ProducerID)
		}
	})
	// read_committed: the aborted transaction listed, so that a consumer
	// hides its batch; what is left visible is the committed batch.
	fetch(1, func(pd tree.Value, p *Probe) {
		lso := pd.Field("LastStableOffset")
		expect(p, lso.Err() != nil || lso.Int() == end, lso, "Fetch (read_committed) of %s: last stable offset %d, want %d", topic, lso.Int(), end)
		at := pd.Field("AbortedTransactions")
		ok := at.Len() == 1 && at.Elem(0).Field("ProducerId").Int() == pid && at.Elem(0).Field("FirstOffset").Int() == lifecycleRecords+1
		expect(p, ok, at, "Fetch (read_committed) of %s: aborted transactions %s, want one: producer %d from offset %d", topic, abortedText(at), pid, lifecycleRecords+1)
		recs := pd.Field("Records")
		t := recs.Tree()
		var visible []int64
		for _, bi := range batchNodes(recs) {
			lb, _ := records.LogBatchOf(t, bi)
			f, _ := records.BatchFactsOf(t, bi)
			if lb.Control || hidden(at, f.ProducerID, lb.BaseOffset) {
				continue
			}
			for _, rec := range lb.Records {
				visible = append(visible, rec.Offset)
			}
		}
		expect(p, fmt.Sprint(visible) == "[0 1 2]", recs, "Fetch (read_committed) of %s: the records a consumer shows are at offsets %v, want [0 1 2] (the committed transaction's)", topic, visible)
	})
	// The group's offset, committed with the first transaction.
	if gc := s.findCoordinator(ctx, 0, group); gc != nil {
		s.conn = gc
		s.offsetFetch(ctx, group, topic, id, 3)
	}
}

// hidden reports whether a read_committed consumer hides a data batch of
// producer pid at offset off: an aborted transaction of pid starts at or
// before it.
func hidden(at tree.Value, pid, off int64) bool {
	for i := range at.Len() {
		if a := at.Elem(i); a.Field("ProducerId").Int() == pid && a.Field("FirstOffset").Int() <= off {
			return true
		}
	}
	return false
}

// abortedText lists AbortedTransactions as "[producer P from O, …]".
func abortedText(at tree.Value) string {
	if at.Err() != nil || at.IsNull() {
		return "null"
	}
	s := "["
	for i := range at.Len() {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("producer %d from %d", at.Elem(i).Field("ProducerId").Int(), at.Elem(i).Field("FirstOffset").Int())
	}
	return s + "]"
}

// offsetFetch is an OffsetFetch step (stable offsets, retried while a
// transaction's are pending): group's committed offset of partition 0 of
// topic (id) must be want.
func (s *scenario) offsetFetch(ctx context.Context, group, topic string, id [16]byte, want int64) {
	qt, qg := strconv.Quote(topic), strconv.Quote(group)
	tid := base64.RawURLEncoding.EncodeToString(id[:])
	s.retry(ctx, append([]string{"UNSTABLE_OFFSET_COMMIT"}, coordinatorErrors...), func(retriable func(p *Probe) bool) {
		s.callV(ctx, 9, -1, func(v int16) string {
			if v >= 8 { // KIP-709: batched groups
				return `{"groups":[{"groupId":` + qg + `,"memberId":null,"memberEpoch":-1,"topics":[{"name":` + qt + `,"topicId":"` + tid + `","partitionIndexes":[0]}]}],"requireStable":true}`
			}
			return `{"groupId":` + qg + `,"topics":[{"name":` + qt + `,"partitionIndexes":[0]}],"requireStable":true}`
		}, func(b tree.Value, p *Probe) {
			if retriable(p) {
				return
			}
			g := b
			if gs := b.Field("Groups"); gs.Err() == nil {
				g = gs.Elem(0)
			}
			pr := g.Field("Topics").Elem(0).Field("Partitions").Elem(0)
			expect(p, p.Error == "", pr.Field("ErrorCode"), "OffsetFetch of %s: error %s, want NONE", group, orNone(p.Error))
			off := pr.Field("CommittedOffset")
			expect(p, off.Int() == want, off, "OffsetFetch of %s: committed offset %d of %s-0, want %d", group, off.Int(), topic, want)
		})
	})
}
