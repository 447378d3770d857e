package coordstate

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// NoProducer is the producer id of a record written outside a transaction
// (RecordBatch.NO_PRODUCER_ID).
const NoProducer = -1

// Record is one record of an internal topic to replay: its decoded key and
// value, as the Embedded nodes of a log segment's tree hold them (package
// records' KeyValueDecoder).
type Record struct {
	// Offset and Timestamp are the record's (ms since the epoch).
	Offset, Timestamp int64
	// Partition names the partition of the internal topic whose log holds
	// the record (AddBatches: the file's directory): a transaction's
	// records and its markers are matched within one partition.
	Partition string
	// ProducerID is the producer id of a transactional batch's record:
	// the record takes effect when that producer's COMMIT marker follows
	// in the same Partition (EndTxn), and none when an ABORT does.
	// NoProducer for the others.
	ProducerID int64
	// Key is the decoded key (an Embedded node, or a tree's root): its
	// struct names the record type ("OffsetCommitKey").
	Key tree.Value
	// Value is the decoded value; ignored when Tombstone.
	Value tree.Value
	// Tombstone marks a null value: the key's entry is removed.
	Tombstone bool
}

// State is what the records of __consumer_offsets, __transaction_state
// and __share_group_state leave once replayed in order, as the
// coordinators load it: a later record of a key replaces the earlier one,
// a tombstone removes it. The zero State is empty and ready to use; it
// is not safe for concurrent use.
type State struct {
	offsets map[offsetKey]*Offset
	// pending are transactional offset commits by partition and producer
	// id, applied by a COMMIT marker of that partition, dropped by an
	// ABORT (as each partition's coordinator keeps its own).
	pending map[txnKey][]*Offset
	groups  map[string]*Group
	txns    map[string]*Transaction
	shares  map[shareKey]*SharePartition
	// topicNames are the topic names that records pair with topic ids.
	topicNames map[[16]byte]string
	// Notes are what could not be applied, in order: "offset 12:
	// ConsumerGroupMemberMetadataValue: …".
	Notes []string
	// dataRecords and internalRecords count the data records AddBatches
	// saw and those of them whose key an internal topic's decoder read.
	dataRecords, internalRecords int
}

type offsetKey struct {
	group, topic string
	partition    int32
}

type txnKey struct {
	partition string
	pid       int64
}

type shareKey struct {
	group     string
	topicID   [16]byte
	partition int32
}

// Offset is a committed offset (OffsetCommitKey and OffsetCommitValue).
type Offset struct {
	Group     string
	Topic     string
	Partition int32
	// TopicID is the topic id the value holds (OffsetCommitValue v4+),
	// "" when none.
	TopicID string
	Offset  int64
	// LeaderEpoch is -1 when unknown (values before v3).
	LeaderEpoch int32
	Metadata    string
	// CommitTimestamp and ExpireTimestamp are ms since the epoch;
	// ExpireTimestamp is -1 but in version 1.
	CommitTimestamp, ExpireTimestamp int64
	// RecordOffset is the offset of the record that committed it.
	RecordOffset int64
}

// Group is a group's state: a classic group (GroupMetadataValue), or a
// consumer (KIP-848), share or streams group (their …GroupMetadata and
// member records).
type Group struct {
	ID string
	// Type is "classic", "consumer", "share" or "streams".
	Type string
	// State is the group's state as kafka-consumer-groups names it:
	// "Empty" or "Stable" for a classic group and a share group; "Empty",
	// "Assigning", "Reconciling" or "Stable" for a consumer group (and
	// "NotReady" for a streams group without a topology), from the epochs
	// as the group coordinator derives it.
	State string
	// Epoch is a classic group's generation, else the group epoch.
	Epoch int32
	// AssignmentEpoch is the target assignment epoch (-1 classic, or when
	// none was written).
	AssignmentEpoch int32
	// ProtocolType, Protocol and Leader are a classic group's.
	ProtocolType, Protocol, Leader string
	// Members by member id.
	Members map[string]*Member
	// hasTopology is set for a streams group with a topology record.
	hasTopology bool
}

// Member is a group member.
type Member struct {
	ID, InstanceID, ClientID, ClientHost string
	// Epoch is the member epoch (-1 for a classic member).
	Epoch int32
	// State is the member's reconciliation state (MemberState:
	// "STABLE", "UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS",
	// "UNKNOWN"); "" for a classic member.
	State string
	// Subscribed are the subscribed topic names, and Regex the subscribed
	// regular expression ("" none).
	Subscribed []string
	Regex      string
	// Assigned are the partitions assigned to the member (a streams
	// member's active tasks, by subtopology), Pending those it is to
	// revoke, Target those of the target assignment.
	Assigned, Pending, Target []Partitions
	// hasMetadata is set once a member metadata record was read (a
	// modern group's member exists with it).
	hasMetadata bool
}

// Partitions are partitions of one topic (by name when a record named
// it, else by topic id) or one subtopology of a streams group.
type Partitions struct {
	Topic      string
	Partitions []int32
}

// Transaction is a transactional id's state (TransactionLogValue).
type Transaction struct {
	ID string
	// State is TransactionState's name ("Ongoing", "CompleteCommit"…).
	State         string
	ProducerID    int64
	ProducerEpoch int16
	TimeoutMs     int32
	Partitions    []Partitions
	// LastUpdate and Start are ms since the epoch (Start -1 when none).
	LastUpdate, Start int64
}

// SharePartition is a share group's state of one partition
// (ShareSnapshotValue with the ShareUpdateValues after it).
type SharePartition struct {
	Group                                  string
	TopicID                                string
	Partition                              int32
	SnapshotEpoch, StateEpoch, LeaderEpoch int32
	StartOffset                            int64
	Batches                                []StateBatch
}

// StateBatch is the delivery state of offsets First..Last.
type StateBatch struct {
	First, Last   int64
	DeliveryState int8
	DeliveryCount int16
}

// memberState is MemberState's name of id s.
func memberState(s int8) string {
	switch s {
	case 0:
		return "STABLE"
	case 1:
		return "UNREVOKED_PARTITIONS"
	case 2:
		return "UNRELEASED_PARTITIONS"
	}
	return "UNKNOWN"
}

// Apply replays one record: a data record of an internal topic, in log
// order. A record whose key is not one of the record types State knows
// (or whose fields are not what its type has) changes nothing and adds a
// note.
func (s *State) Apply(r Record) {
	if err := r.Key.Err(); err != nil {
		s.note(r, "key: %v", err)
		return
	}
	if !r.Tombstone {
		if err := r.Value.Err(); err != nil {
			s.note(r, "value: %v", err)
			return
		}
	}
	name := structName(r.Key)
	switch name {
	case "OffsetCommitKey", "LegacyOffsetCommitKey":
		s.offset(r)
	case "GroupMetadataKey":
		s.classicGroup(r)
	case "TransactionLogKey":
		s.transaction(r)
	case "ShareSnapshotKey", "ShareUpdateKey":
		s.share(r, name == "ShareSnapshotKey")
	default:
		if typ, rest, ok := modernRecord(name); ok {
			s.modern(r, typ, rest)
			return
		}
		s.note(r, "%s: not a record type --state replays", name)
	}
}

// EndTxn applies a transaction marker of producer id pid in the log of
// partition (a Record's Partition): the offset commits that producer
// left pending in that partition take effect on commit and are dropped
// on abort; those of other partitions are not the marker's.
func (s *State) EndTxn(partition string, pid int64, commit bool) {
	k := txnKey{partition, pid}
	if commit {
		for _, o := range s.pending[k] {
			s.putOffset(o)
		}
	}
	delete(s.pending, k)
}

func (s *State) note(r Record, format string, args ...any) {
	s.Notes = append(s.Notes, fmt.Sprintf("offset %d: ", r.Offset)+fmt.Sprintf(format, args...))
}

// structName is the name of the struct v is (the message of a key or
// value), "" when none.
func structName(v tree.Value) string {
	if st := v.Tree().Struct(v.Node()); st != nil {
		return st.Name
	}
	if m := v.Tree().Message; m != nil {
		return m.Name
	}
	return ""
}

// str is string field name of v: "" when null or not in v's version.
func str(v tree.Value, name string) string {
	s, err := v.Field(name).AsString()
	if err != nil {
		return ""
	}
	return s
}

// intOr is field name of v, or def when v's version has no such field.
func intOr(v tree.Value, name string, def int64) int64 {
	n, err := v.Field(name).AsInt()
	if err != nil {
		return def
	}
	return n
}

// uuidText is Kafka's Uuid.toString: base64url without padding.
func uuidText(u [16]byte) string { return base64.RawURLEncoding.EncodeToString(u[:]) }

func (s *State) offset(r Record) {
	k := offsetKey{group: str(r.Key, "group"), topic: str(r.Key, "topic"), partition: int32(r.Key.Field("partition").Int())}
	if r.Tombstone {
		delete(s.offsets, k)
		return
	}
	o := &Offset{Group: k.group, Topic: k.topic, Partition: k.partition, RecordOffset: r.Offset,
		Offset: r.Value.Field("offset").Int(), LeaderEpoch: int32(intOr(r.Value, "leaderEpoch", -1)),
		Metadata: str(r.Value, "metadata"), CommitTimestamp: r.Value.Field("commitTimestamp").Int(),
		ExpireTimestamp: intOr(r.Value, "expireTimestamp", -1)}
	if u, err := r.Value.Field("topicId").AsUUID(); err == nil && u != ([16]byte{}) {
		o.TopicID = uuidText(u)
		s.topicName(u, k.topic)
	}
	if r.ProducerID != NoProducer {
		if s.pending == nil {
			s.pending = map[txnKey][]*Offset{}
		}
		k := txnKey{r.Partition, r.ProducerID}
		s.pending[k] = append(s.pending[k], o)
		return
	}
	s.putOffset(o)
}

func (s *State) putOffset(o *Offset) {
	if s.offsets == nil {
		s.offsets = map[offsetKey]*Offset{}
	}
	s.offsets[offsetKey{o.Group, o.Topic, o.Partition}] = o
}

func (s *State) topicName(u [16]byte, name string) {
	if name == "" {
		return
	}
	if s.topicNames == nil {
		s.topicNames = map[[16]byte]string{}
	}
	s.topicNames[u] = name
}

func (s *State) group(id, typ string) *Group {
	if s.groups == nil {
		s.groups = map[string]*Group{}
	}
	g := s.groups[id]
	if g == nil || g.Type != typ {
		g = &Group{ID: id, Type: typ, AssignmentEpoch: -1, Members: map[string]*Member{}}
		s.groups[id] = g
	}
	return g
}

func (s *State) classicGroup(r Record) {
	id := str(r.Key, "group")
	if r.Tombstone {
		delete(s.groups, id)
		return
	}
	g := s.group(id, "classic")
	v := r.Value
	g.ProtocolType, g.Protocol, g.Leader = str(v, "protocolType"), str(v, "protocol"), str(v, "leader")
	g.Epoch = int32(v.Field("generation").Int())
	g.Members = map[string]*Member{}
	ms := v.Field("members")
	for i := range ms.Len() {
		e := ms.Elem(i)
		m := &Member{ID: str(e, "memberId"), InstanceID: str(e, "groupInstanceId"), ClientID: str(e, "clientId"), ClientHost: str(e, "clientHost"), Epoch: -1}
		if g.ProtocolType == "consumer" {
			// The consumer protocol messages the tree holds in the bytes
			// (package logseg's decoder nests them; bytes that did not
			// decode are the tree's problems).
			if sub := embedded(e.Field("subscription")); sub.Err() == nil {
				ts := sub.Field("Topics")
				for j := range ts.Len() {
					m.Subscribed = append(m.Subscribed, ts.Elem(j).String())
				}
			}
			if as := embedded(e.Field("assignment")); as.Err() == nil {
				tps := as.Field("AssignedPartitions")
				for j := range tps.Len() {
					tp := tps.Elem(j)
					m.Assigned = append(m.Assigned, Partitions{Topic: str(tp, "Topic"), Partitions: int32s(tp.Field("Partitions"))})
				}
			}
		}
		g.Members[m.ID] = m
	}
	g.State = "Empty"
	if len(g.Members) > 0 {
		g.State = "Stable"
	}
}

func int32s(v tree.Value) []int32 {
	var out []int32
	for i := range v.Len() {
		out = append(out, int32(v.Elem(i).Int()))
	}
	return out
}

// modernRecord splits "ConsumerGroupMemberMetadataKey" into the group
// type ("consumer") and the record ("MemberMetadata").
func modernRecord(name string) (typ, rest string, ok bool) {
	name, ok = strings.CutSuffix(name, "Key")
	if !ok {
		return "", "", false
	}
	for _, p := range []struct{ prefix, typ string }{{"ConsumerGroup", "consumer"}, {"ShareGroup", "share"}, {"StreamsGroup", "streams"}} {
		if rest, ok := strings.CutPrefix(name, p.prefix); ok {
			return p.typ, rest, true
		}
	}
	return "", "", false
}

// modernRecords are the records of consumer, share and streams groups
// that modern replays, by name without the group type and "Key".
var modernRecords = map[string]bool{"Metadata": true, "PartitionMetadata": true, "MemberMetadata": true, "TargetAssignmentMetadata": true,
	"TargetAssignmentMember": true, "CurrentMemberAssignment": true, "Topology": true, "StatePartitionMetadata": true, "RegularExpression": true}

// modern applies a record of a consumer, share or streams group.
func (s *State) modern(r Record, typ, rec string) {
	id := str(r.Key, "GroupId")
	g := s.groups[id]
	if rec == "Metadata" && r.Tombstone {
		delete(s.groups, id)
		return
	}
	if !modernRecords[rec] {
		s.note(r, "%s%sKey: not a record type --state replays", strings.ToUpper(typ[:1])+typ[1:], rec)
		return
	}
	if g == nil || g.Type != typ {
		if r.Tombstone || rec == "RegularExpression" {
			return
		}
		g = s.group(id, typ)
	}
	v := r.Value
	switch rec {
	case "RegularExpression":
		// The topics a regular expression resolved to: no state to show.
		return
	case "Metadata":
		g.Epoch = int32(v.Field("Epoch").Int())
	case "TargetAssignmentMetadata":
		if r.Tombstone {
			g.AssignmentEpoch = -1
		} else {
			g.AssignmentEpoch = int32(v.Field("AssignmentEpoch").Int())
		}
	case "Topology":
		g.hasTopology = !r.Tombstone
	case "PartitionMetadata":
		if !r.Tombstone {
			ts := v.Field("Topics")
			for i := range ts.Len() {
				s.topicName(ts.Elem(i).Field("TopicId").UUID(), str(ts.Elem(i), "TopicName"))
			}
		}
	case "StatePartitionMetadata":
		if !r.Tombstone {
			for _, f := range []string{"InitializingTopics", "InitializedTopics", "DeletingTopics"} {
				ts := v.Field(f)
				for i := range ts.Len() {
					s.topicName(ts.Elem(i).Field("TopicId").UUID(), str(ts.Elem(i), "TopicName"))
				}
			}
		}
	case "MemberMetadata", "TargetAssignmentMember", "CurrentMemberAssignment":
		mid := str(r.Key, "MemberId")
		m := g.Members[mid]
		if r.Tombstone {
			if m != nil {
				switch rec {
				case "MemberMetadata":
					delete(g.Members, mid)
				case "TargetAssignmentMember":
					m.Target = nil
				default:
					m.Assigned, m.Pending, m.Epoch, m.State = nil, nil, 0, ""
				}
			}
			break
		}
		if m == nil {
			m = &Member{ID: mid}
			g.Members[mid] = m
		}
		switch rec {
		case "MemberMetadata":
			m.hasMetadata = true
			m.InstanceID, m.ClientID, m.ClientHost = str(v, "InstanceId"), str(v, "ClientId"), str(v, "ClientHost")
			m.Subscribed = nil
			ts := v.Field("SubscribedTopicNames")
			for i := range ts.Len() {
				m.Subscribed = append(m.Subscribed, ts.Elem(i).String())
			}
			m.Regex = str(v, "SubscribedTopicRegex")
		case "TargetAssignmentMember":
			m.Target = s.partitions(v, "TopicPartitions", "ActiveTasks")
		default:
			m.Epoch = int32(v.Field("MemberEpoch").Int())
			m.State = memberState(int8(v.Field("State").Int()))
			m.Assigned = s.partitions(v, "AssignedPartitions", "ActiveTasks")
			m.Pending = s.partitions(v, "PartitionsPendingRevocation", "ActiveTasksPendingRevocation")
		}
	}
	g.State = g.derivedState()
}

// partitions reads a list of TopicPartitions (by topic id) or, in a
// streams group's record, of TaskIds (by subtopology): field name or,
// when v has no such field, tasks.
func (s *State) partitions(v tree.Value, name, tasks string) []Partitions {
	l := v.Field(name)
	byID := true
	if l.Err() != nil {
		l, byID = v.Field(tasks), false
	}
	var out []Partitions
	for i := range l.Len() {
		e := l.Elem(i)
		p := Partitions{Partitions: int32s(e.Field("Partitions"))}
		if byID {
			u := e.Field("TopicId").UUID()
			p.Topic = s.topicNames[u]
			if p.Topic == "" {
				p.Topic = uuidText(u)
			}
		} else {
			p.Topic = str(e, "SubtopologyId")
		}
		out = append(out, p)
	}
	return out
}

// derivedState is a consumer, share or streams group's state from its
// members and epochs (ConsumerGroup.maybeUpdateGroupState).
func (g *Group) derivedState() string {
	n := 0
	for _, m := range g.Members {
		if m.hasMetadata {
			n++
		}
	}
	switch {
	case n == 0:
		return "Empty"
	case g.Type == "share":
		return "Stable"
	case g.Type == "streams" && !g.hasTopology:
		return "NotReady"
	case g.Epoch > g.AssignmentEpoch:
		return "Assigning"
	}
	for _, m := range g.Members {
		if m.hasMetadata && (m.State != "STABLE" || m.Epoch != g.AssignmentEpoch) {
			return "Reconciling"
		}
	}
	return "Stable"
}

func (s *State) transaction(r Record) {
	id := str(r.Key, "TransactionalId")
	if r.Tombstone {
		delete(s.txns, id)
		return
	}
	v := r.Value
	t := &Transaction{ID: id, ProducerID: v.Field("ProducerId").Int(), ProducerEpoch: int16(v.Field("ProducerEpoch").Int()),
		TimeoutMs: int32(v.Field("TransactionTimeoutMs").Int()), LastUpdate: v.Field("TransactionLastUpdateTimestampMs").Int(),
		Start: v.Field("TransactionStartTimestampMs").Int()}
	st := v.Field("TransactionStatus").Int()
	t.State = fmt.Sprintf("Unknown(%d)", st)
	if name, ok := records.TransactionStateName(st); ok {
		t.State = name
	}
	ps := v.Field("TransactionPartitions")
	for i := range ps.Len() {
		e := ps.Elem(i)
		t.Partitions = append(t.Partitions, Partitions{Topic: str(e, "Topic"), Partitions: int32s(e.Field("PartitionIds"))})
	}
	if s.txns == nil {
		s.txns = map[string]*Transaction{}
	}
	s.txns[id] = t
}

func (s *State) share(r Record, snapshot bool) {
	u := r.Key.Field("TopicId").UUID()
	k := shareKey{group: str(r.Key, "GroupId"), topicID: u, partition: int32(r.Key.Field("Partition").Int())}
	if r.Tombstone {
		delete(s.shares, k)
		return
	}
	v := r.Value
	batches := stateBatches(v.Field("StateBatches"))
	p := s.shares[k]
	if snapshot || p == nil {
		if !snapshot {
			s.note(r, "ShareUpdateValue with no ShareSnapshotValue before it: applied to an empty state")
		}
		p = &SharePartition{Group: k.group, TopicID: uuidText(u), Partition: k.partition, StateEpoch: int32(intOr(v, "StateEpoch", 0))}
		if s.shares == nil {
			s.shares = map[shareKey]*SharePartition{}
		}
		s.shares[k] = p
		p.Batches = nil
	}
	p.SnapshotEpoch = int32(v.Field("SnapshotEpoch").Int())
	if le := int32(v.Field("LeaderEpoch").Int()); snapshot || le != -1 {
		p.LeaderEpoch = le
	}
	if so := v.Field("StartOffset").Int(); snapshot || so != -1 {
		p.StartOffset = so
	}
	p.Batches = mergeBatches(p.Batches, batches, p.StartOffset)
}

func stateBatches(l tree.Value) []StateBatch {
	var out []StateBatch
	for i := range l.Len() {
		e := l.Elem(i)
		out = append(out, StateBatch{First: e.Field("FirstOffset").Int(), Last: e.Field("LastOffset").Int(),
			DeliveryState: int8(e.Field("DeliveryState").Int()), DeliveryCount: int16(e.Field("DeliveryCount").Int())})
	}
	return out
}

// mergeBatches lays the batches of an update over the old ones (the
// update wins where they overlap) and drops what lies below start: the
// state the share coordinator keeps (PersisterStateBatchCombiner).
func mergeBatches(old, upd []StateBatch, start int64) []StateBatch {
	var out []StateBatch
	for _, o := range old {
		parts := []StateBatch{o}
		for _, u := range upd {
			var next []StateBatch
			for _, p := range parts {
				if u.Last < p.First || u.First > p.Last {
					next = append(next, p)
					continue
				}
				if p.First < u.First {
					q := p
					q.Last = u.First - 1
					next = append(next, q)
				}
				if p.Last > u.Last {
					q := p
					q.First = u.Last + 1
					next = append(next, q)
				}
			}
			parts = next
		}
		out = append(out, parts...)
	}
	out = append(out, upd...)
	kept := out[:0]
	for _, b := range out {
		if b.Last < start {
			continue
		}
		b.First = max(b.First, start)
		kept = append(kept, b)
	}
	slices.SortFunc(kept, func(a, b StateBatch) int { return int(min(max(a.First-b.First, -1), 1)) })
	return kept
}

// AddBatches replays the records of batches of log file file, decoded in
// t (package records, with the internal topic's KeyValueDecoder), in
// order: each data record whose key and value decoded (a record whose key
// or value did not is left out: its problem is the tree's), a
// transactional batch's records as pending until their producer's marker
// in the same partition, and the COMMIT and ABORT markers of control
// batches. The partition of a file is its directory (a partition's
// segments lie in its directory), or "-" for file "-" (standard input).
// A batch whose CRC does not match its bytes is not replayed, as Kafka
// loads no corrupt batch: a note names file and the batch's offset.
func (s *State) AddBatches(file string, t *tree.Tree, batches []records.LogBatch) {
	part := "-"
	if file != "-" {
		part = filepath.Dir(file)
	}
	for i := range batches {
		b := &batches[i]
		if !b.CRCValid {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: batch at offset %d: CRC invalid: its %d %s not replayed (Kafka loads no corrupt batch)",
				file, b.BaseOffset, len(b.Records), plural(len(b.Records), "record is", "records are")))
			continue
		}
		pid := int64(NoProducer)
		if f, ok := records.BatchFactsOf(t, b.Node); ok && f.Attributes.Transactional() {
			pid = f.ProducerID
		}
		for _, r := range b.Records {
			if b.Control {
				switch r.ControlType() {
				case records.ControlCommit:
					s.EndTxn(part, pid, true)
				case records.ControlAbort:
					s.EndTxn(part, pid, false)
				}
				continue
			}
			s.dataRecords++
			if r.KeyEmbedded >= 0 {
				s.internalRecords++
			}
			if !decoded(t, r.KeyEmbedded) || (!r.ValueNull && !decoded(t, r.Embedded)) {
				continue
			}
			rec := Record{Offset: r.Offset, Timestamp: r.Timestamp, Partition: part, ProducerID: pid, Key: t.At(r.KeyEmbedded), Tombstone: r.ValueNull}
			if !r.ValueNull {
				rec.Value = t.At(r.Embedded)
			}
			s.Apply(rec)
		}
	}
}

// embedded is the message decoded inside bytes field v (an Embedded
// child), or a Value with an error.
func embedded(v tree.Value) tree.Value {
	if v.Err() != nil {
		return v
	}
	return v.Tree().At(v.Tree().Find(v.Node(), tree.Embedded))
}

// decoded reports whether Embedded node e is a whole decode (not a
// partial one, which records flags).
func decoded(t *tree.Tree, e int32) bool {
	return e >= 0 && t.Nodes[e].Flags()&tree.FlagProblem == 0
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
