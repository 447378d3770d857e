package conform

import (
	"bytes"
	"context"
	"encoding/base64"
	mrand "math/rand/v2"
	"strconv"

	"github.com/kwire/kwire/conform/body"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// consumerGroupHeartbeatKey is ConsumerGroupHeartbeat's api key (KIP-848).
const consumerGroupHeartbeatKey = 68

// assignment is a consumer's assignment of partition 0 of topic as the
// classic consumer protocol writes it in SyncGroup's Assignment
// (ConsumerProtocolAssignment v0 of Kafka's clients): version int16 0,
// the topics (int32 count, then each an int16-length name and its
// partitions, an int32 count and int32s), user data null (int32 -1).
func assignment(topic string) []byte {
	b := wire.AppendInt16(nil, 0)
	b = wire.AppendInt32(b, 1)
	b = wire.AppendInt16(b, int16(len(topic)))
	b = append(b, topic...)
	b = wire.AppendInt32(b, 1)
	b = wire.AppendInt32(b, 0)
	return wire.AppendInt32(b, -1)
}

// groupScenario is the consumer groups scenario (--mutate), on the topic
// <prefix>-groups: a classic group <prefix>-classic (JoinGroup twice, the
// second with the member id the first asked for, SyncGroup, Heartbeat,
// OffsetCommit, OffsetFetch, LeaveGroup), then, when the target announces
// ConsumerGroupHeartbeat, a KIP-848 group <prefix>-consumer (join,
// heartbeats until the partition is assigned, leave with member epoch -1).
// The groups are deleted at the end of the run. docs/conform.md lists what
// each step expects.
func (e *engine) groupScenario(ctx context.Context) {
	topic := e.names.Prefix + "-groups"
	s := e.begin(ctx, "groups")
	if s == nil {
		return
	}
	defer s.end(ctx, topic)
	id, ok := s.topic(ctx, topic)
	if !ok {
		return
	}
	group := e.names.Prefix + "-classic"
	e.groups = append(e.groups, group)
	e.r.Created = append(e.r.Created, "group "+group)
	qt, qg := strconv.Quote(topic), strconv.Quote(group)
	tid := base64.RawURLEncoding.EncodeToString(id[:])
	gc := s.findCoordinator(ctx, 0, group)
	if gc == nil {
		return
	}
	s.conn = gc
	sub := body.Subscription(topic)
	join := func(member string, check func(b tree.Value, p *Probe)) {
		s.retry(ctx, coordinatorErrors, func(retriable func(p *Probe) bool) {
			s.call(ctx, 11, `{"groupId":`+qg+`,"sessionTimeoutMs":10000,"rebalanceTimeoutMs":10000,"memberId":`+strconv.Quote(member)+`,"groupInstanceId":null,"protocolType":"consumer","protocols":[{"name":"range","metadata":"`+base64.StdEncoding.EncodeToString(sub)+`"}],"reason":null}`, func(b tree.Value, p *Probe) {
				if !retriable(p) {
					check(b, p)
				}
			})
		})
	}
	// A new member: from v4 on (KIP-394) the coordinator answers
	// MEMBER_ID_REQUIRED with the member id to join with.
	var member string
	generation := int64(-1)
	joined := func(b tree.Value, p *Probe) {
		expect(p, p.Error == "", b.Field("ErrorCode"), "JoinGroup of %s with member id %q: error %s, want NONE", group, member, orNone(p.Error))
		generation = b.Field("GenerationId").Int()
		expect(p, generation >= 1, b.Field("GenerationId"), "JoinGroup of %s: generation %d, want 1 or more", group, generation)
		expect(p, b.Field("Leader").String() == member, b.Field("Leader"), "JoinGroup of %s: leader %q, want the only member %q", group, b.Field("Leader").String(), member)
		if pn := b.Field("ProtocolName"); pn.Err() == nil {
			expect(p, pn.String() == "range", pn, "JoinGroup of %s: protocol %q, want range (the only one offered)", group, pn.String())
		}
		ms := b.Field("Members")
		ok := ms.Len() == 1 && ms.Elem(0).Field("MemberId").String() == member && bytes.Equal(ms.Elem(0).Field("Metadata").Bytes(), sub)
		expect(p, ok, ms, "JoinGroup of %s: the leader's members are not the one member with its subscription (%d members)", group, ms.Len())
	}
	join("", func(b tree.Value, p *Probe) {
		member = b.Field("MemberId").String()
		if p.Version < 4 {
			joined(b, p)
			return
		}
		expect(p, p.Error == "MEMBER_ID_REQUIRED" && member != "", b.Field("ErrorCode"), "JoinGroup of %s as a new member (v%d): error %s and member id %q, want MEMBER_ID_REQUIRED and a member id (KIP-394)", group, p.Version, orNone(p.Error), member)
		if p.Error == "MEMBER_ID_REQUIRED" {
			p.Error, p.Err = "", "MEMBER_ID_REQUIRED, as expected"
		}
	})
	if generation < 0 {
		join(member, joined)
	}
	qm := strconv.Quote(member)
	gen := strconv.FormatInt(generation, 10)
	left := false
	defer func() {
		// A member left behind by a failed step, or by a cancelled run
		// (Ctrl-C), keeps the group from being deleted: it leaves, as a
		// last step.
		if member != "" && !left && (s.failed || ctx.Err() != nil) {
			lctx, cancel := leaveContext(ctx)
			defer cancel()
			s.failed = false
			s.conn = gc
			s.leave(lctx, group, member)
		}
	}()
	as := assignment(topic)
	s.call(ctx, 14, `{"groupId":`+qg+`,"generationId":`+gen+`,"memberId":`+qm+`,"groupInstanceId":null,"protocolType":"consumer","protocolName":"range","assignments":[{"memberId":`+qm+`,"assignment":"`+base64.StdEncoding.EncodeToString(as)+`"}]}`, func(b tree.Value, p *Probe) {
		expect(p, p.Error == "", b.Field("ErrorCode"), "SyncGroup of %s: error %s, want NONE", group, orNone(p.Error))
		a := b.Field("Assignment")
		expect(p, bytes.Equal(a.Bytes(), as), a, "SyncGroup of %s: the member's assignment is not the one its leader sent (%d bytes, sent %d)", group, len(a.Bytes()), len(as))
	})
	s.call(ctx, 12, `{"groupId":`+qg+`,"generationId":`+gen+`,"memberId":`+qm+`,"groupInstanceId":null}`, func(b tree.Value, p *Probe) {
		expect(p, p.Error == "", b.Field("ErrorCode"), "Heartbeat of %s: error %s, want NONE", group, orNone(p.Error))
	})
	s.call(ctx, 8, `{"groupId":`+qg+`,"generationIdOrMemberEpoch":`+gen+`,"memberId":`+qm+`,"groupInstanceId":null,"retentionTimeMs":-1,"topics":[{"name":`+qt+`,"topicId":"`+tid+`","partitions":[{"partitionIndex":0,"committedOffset":2,"committedLeaderEpoch":-1,"committedMetadata":"kwire"}]}]}`, func(b tree.Value, p *Probe) {
		pr := b.Field("Topics").Elem(0).Field("Partitions").Elem(0)
		expect(p, p.Error == "", pr.Field("ErrorCode"), "OffsetCommit of %s (generation %s): error %s, want NONE", group, gen, orNone(p.Error))
	})
	s.offsetFetch(ctx, group, topic, id, 2)
	if s.failed {
		return // the deferred leave
	}
	s.leave(ctx, group, member)
	left = true
	if _, ok := s.conn.Versions()[consumerGroupHeartbeatKey]; ok && !s.failed {
		e.consumerGroup(ctx, s, topic, id)
	}
}

// notAssigned marks a ConsumerGroupHeartbeat answer that does not yet
// assign the topic's partition: the heartbeat is sent again.
const notAssigned = "(partition not yet assigned)"

// consumerGroup is the KIP-848 part of the groups scenario, on the group
// <prefix>-consumer: ConsumerGroupHeartbeat to join (member epoch 0; from
// v1 on the member id is the member's, KIP-1082), heartbeats until
// partition 0 of topic is assigned, and one to leave (member epoch -1).
func (e *engine) consumerGroup(ctx context.Context, s *scenario, topic string, id [16]byte) {
	group := e.names.Prefix + "-consumer"
	e.groups = append(e.groups, group)
	e.r.Created = append(e.r.Created, "group "+group)
	gc := s.findCoordinator(ctx, 0, group)
	if gc == nil {
		return
	}
	s.conn = gc
	r := mrand.New(mrand.NewPCG(e.o.Seed, 0x848))
	var uuid [16]byte
	for i := range uuid {
		uuid[i] = byte(r.Uint32())
	}
	member := base64.RawURLEncoding.EncodeToString(uuid[:])
	epoch := int64(0)
	// in: the member has joined and not yet left.
	assigned, in := false, false
	qg, qt := strconv.Quote(group), strconv.Quote(topic)
	heartbeat := func(what string, check func(b tree.Value, p *Probe)) {
		mid := member
		if epoch == 0 && s.conn.Versions()[consumerGroupHeartbeatKey].Max == 0 {
			mid = "" // v0: the coordinator names the member
		}
		owned := `[]`
		if assigned {
			owned = `[{"topicId":"` + base64.RawURLEncoding.EncodeToString(id[:]) + `","partitions":[0]}]`
		}
		s.call(ctx, consumerGroupHeartbeatKey, `{"groupId":`+qg+`,"memberId":`+strconv.Quote(mid)+`,"memberEpoch":`+strconv.FormatInt(epoch, 10)+`,"instanceId":null,"rackId":null,"rebalanceTimeoutMs":10000,"subscribedTopicNames":[`+qt+`],"subscribedTopicRegex":null,"serverAssignor":null,"topicPartitions":`+owned+`}`, func(b tree.Value, p *Probe) {
			p.Err = what
			check(b, p)
		})
	}
	defer func() {
		// A member left behind by a failed step (its leave too), or by a
		// cancelled run (Ctrl-C), keeps the group from being deleted: it
		// leaves, as a last step.
		if in && (s.failed || ctx.Err() != nil) {
			lctx, cancel := leaveContext(ctx)
			defer cancel()
			s.failed = false
			s.conn = gc
			epoch = -1
			ctx = lctx // heartbeat's
			heartbeat("leave after the failure", func(tree.Value, *Probe) {})
		}
	}()
	// sees reports whether an answer assigns partition 0 of the topic.
	sees := func(b tree.Value) bool {
		tps := b.Field("Assignment").Field("TopicPartitions")
		for i := range tps.Len() {
			tp := tps.Elem(i)
			if tp.Field("TopicId").UUID() == id {
				ps := tp.Field("Partitions")
				for j := range ps.Len() {
					if ps.Elem(j).Int() == 0 {
						return true
					}
				}
			}
		}
		return false
	}
	s.retry(ctx, coordinatorErrors, func(retriable func(p *Probe) bool) {
		heartbeat("join", func(b tree.Value, p *Probe) {
			if retriable(p) {
				return
			}
			expect(p, p.Error == "", b.Field("ErrorCode"), "ConsumerGroupHeartbeat joining %s: error %s, want NONE", group, orNone(p.Error))
			epoch = b.Field("MemberEpoch").Int()
			in = p.Error == "" && epoch >= 1
			expect(p, epoch >= 1, b.Field("MemberEpoch"), "ConsumerGroupHeartbeat joining %s: member epoch %d, want 1 or more", group, epoch)
			got := b.Field("MemberId").String()
			if p.Version == 0 {
				member = got
			}
			expect(p, got != "" && got == member, b.Field("MemberId"), "ConsumerGroupHeartbeat joining %s: member id %q, want %s", group, got, map[bool]string{true: "one named by the coordinator (v0)", false: strconv.Quote(member) + " (the member's, KIP-1082)"}[p.Version == 0])
			hb := b.Field("HeartbeatIntervalMs")
			expect(p, hb.Int() > 0, hb, "ConsumerGroupHeartbeat joining %s: heartbeat interval %d ms, want more than 0", group, hb.Int())
			assigned = sees(b)
		})
	})
	if !assigned {
		s.retry(ctx, append([]string{notAssigned}, coordinatorErrors...), func(retriable func(p *Probe) bool) {
			heartbeat("until assigned", func(b tree.Value, p *Probe) {
				if p.Error == "" && !sees(b) {
					p.Error = notAssigned
				}
				if retriable(p) {
					if ep := b.Field("MemberEpoch"); ep.Err() == nil && ep.Int() > 0 {
						epoch = ep.Int()
					}
					return
				}
				if p.Error == notAssigned {
					expect(p, false, b.Field("Assignment"), "ConsumerGroupHeartbeat of %s: partition 0 of %s not assigned to the only member after 10 s", group, topic)
					p.Error = ""
					return
				}
				expect(p, p.Error == "", b.Field("ErrorCode"), "ConsumerGroupHeartbeat of %s: error %s, want NONE", group, orNone(p.Error))
				epoch = b.Field("MemberEpoch").Int()
				assigned = true
			})
		})
	}
	epoch = -1
	heartbeat("leave", func(b tree.Value, p *Probe) {
		expect(p, p.Error == "", b.Field("ErrorCode"), "ConsumerGroupHeartbeat leaving %s (member epoch -1): error %s, want NONE", group, orNone(p.Error))
		ep := b.Field("MemberEpoch")
		expect(p, ep.Int() == -1, ep, "ConsumerGroupHeartbeat leaving %s: member epoch %d, want -1", group, ep.Int())
		in = p.Error != ""
	})
}

// leave is a LeaveGroup step of member from the classic group.
func (s *scenario) leave(ctx context.Context, group, member string) {
	qg, qm := strconv.Quote(group), strconv.Quote(member)
	s.callV(ctx, 13, -1, func(v int16) string {
		if v >= 3 { // KIP-345: members by id
			return `{"groupId":` + qg + `,"members":[{"memberId":` + qm + `,"groupInstanceId":null,"reason":null}]}`
		}
		return `{"groupId":` + qg + `,"memberId":` + qm + `}`
	}, func(b tree.Value, p *Probe) {
		expect(p, p.Error == "", b.Field("ErrorCode"), "LeaveGroup of %s: error %s, want NONE", group, orNone(p.Error))
		if ms := b.Field("Members"); ms.Err() == nil {
			ok := ms.Len() == 1 && ms.Elem(0).Field("MemberId").String() == member
			expect(p, ok, ms, "LeaveGroup of %s: the answer's members are not the one that left (%d members)", group, ms.Len())
		}
	})
}

// leaveContext is the context of a member's last leave: ctx, or when ctx
// is cancelled (Ctrl-C) one that outlives it, as the cleanup's does.
func leaveContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}
