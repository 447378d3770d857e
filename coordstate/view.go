package coordstate

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Offsets are the committed offsets, by group, topic and partition.
func (s *State) Offsets() []*Offset {
	out := slices.Collect(maps.Values(s.offsets))
	slices.SortFunc(out, func(a, b *Offset) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}

// Groups are the groups, by id.
func (s *State) Groups() []*Group {
	out := slices.Collect(maps.Values(s.groups))
	slices.SortFunc(out, func(a, b *Group) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// MemberList is the group's members, by member id.
func (g *Group) MemberList() []*Member {
	out := slices.Collect(maps.Values(g.Members))
	slices.SortFunc(out, func(a, b *Member) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Transactions are the transactional ids' states, by id.
func (s *State) Transactions() []*Transaction {
	out := slices.Collect(maps.Values(s.txns))
	slices.SortFunc(out, func(a, b *Transaction) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// SharePartitions are the share-group partition states, by group, topic
// id and partition.
func (s *State) SharePartitions() []*SharePartition {
	out := slices.Collect(maps.Values(s.shares))
	slices.SortFunc(out, func(a, b *SharePartition) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.TopicID, b.TopicID), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}

// Empty reports whether the state holds nothing.
func (s *State) Empty() bool {
	return len(s.offsets) == 0 && len(s.groups) == 0 && len(s.txns) == 0 && len(s.shares) == 0
}

// PartitionsText is "t:0,1 u:2", or "-" for none.
func PartitionsText(ps []Partitions) string {
	if len(ps) == 0 {
		return "-"
	}
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.Topic)
		b.WriteByte(':')
		for j, n := range p.Partitions {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(int(n)))
		}
	}
	return b.String()
}

// deliveryStates are the names of the share delivery states by id
// (RecordState).
var deliveryStates = map[int8]string{0: "AVAILABLE", 1: "ACQUIRED", 2: "ACKNOWLEDGED", 4: "ARCHIVED"}

// DeliveryStateName is RecordState's name of d, or its number.
func DeliveryStateName(d int8) string {
	if n, ok := deliveryStates[d]; ok {
		return n
	}
	return strconv.Itoa(int(d))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// AppendText appends the state as aligned tables, each under its title
// and after an empty line but the first: OFFSETS (group, topic,
// partition, offset, leader epoch, metadata quoted, commit timestamp in
// ms, the record's offset), GROUPS (id, type, state, generation or epoch,
// assignment epoch, protocol, members), MEMBERS (group, member id,
// instance, client id, host, epoch, state, subscribed topics or regex,
// assigned partitions "t:0,1", pending revocation, target), TRANSACTIONS
// (id, state, producer id and epoch, timeout ms, partitions, last update
// and start in ms) and SHARE STATE (group, topic id, partition, start
// offset, leader, state and snapshot epochs, the delivery state batches
// "10..19 ACKNOWLEDGED×1"). Empty tables are left out; an empty state is
// "no state: no record of a type --state replays\n", with the decoder's hint
// in parentheses when data records were read as no internal topic's. "-" marks an empty
// cell. The Notes follow, one a line after "note: ".
func (s *State) AppendText(dst []byte) []byte {
	var buf bytes.Buffer
	if s.Empty() {
		buf.WriteString("no state: no record of a type --state replays")
		if h := s.decoderHint(); h != "" {
			buf.WriteString(" (" + h + ")")
		}
		buf.WriteByte('\n')
	}
	table := func(title, head string, rows [][]string) {
		if len(rows) == 0 {
			return
		}
		if buf.Len() > 0 {
			buf.WriteByte('\n')
		}
		buf.WriteString(title + "\n")
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, head)
		for _, r := range rows {
			fmt.Fprintln(tw, strings.Join(r, "\t"))
		}
		tw.Flush()
	}
	var rows [][]string
	for _, o := range s.Offsets() {
		rows = append(rows, []string{o.Group, o.Topic, itoa(o.Partition), itoa(o.Offset), itoa(o.LeaderEpoch), strconv.Quote(o.Metadata), itoa(o.CommitTimestamp), itoa(o.RecordOffset)})
	}
	table("OFFSETS", "GROUP\tTOPIC\tPARTITION\tOFFSET\tLEADER EPOCH\tMETADATA\tCOMMITTED (ms)\tRECORD", rows)
	rows = nil
	var members [][]string
	for _, g := range s.Groups() {
		ae := "-"
		if g.AssignmentEpoch >= 0 {
			ae = itoa(g.AssignmentEpoch)
		}
		rows = append(rows, []string{g.ID, g.Type, g.State, itoa(g.Epoch), ae, dash(g.Protocol), itoa(len(g.Members))})
		for _, m := range g.MemberList() {
			sub := strings.Join(m.Subscribed, ",")
			if m.Regex != "" {
				sub = strings.TrimPrefix(sub+",/"+m.Regex+"/", ",")
			}
			members = append(members, []string{g.ID, m.ID, dash(m.InstanceID), dash(m.ClientID), dash(m.ClientHost), itoa(m.Epoch), dash(m.State), dash(sub), PartitionsText(m.Assigned), PartitionsText(m.Pending), PartitionsText(m.Target)})
		}
	}
	table("GROUPS", "GROUP\tTYPE\tSTATE\tEPOCH\tASSIGNMENT EPOCH\tPROTOCOL\tMEMBERS", rows)
	table("MEMBERS", "GROUP\tMEMBER\tINSTANCE\tCLIENT\tHOST\tEPOCH\tSTATE\tSUBSCRIBED\tASSIGNED\tREVOKING\tTARGET", members)
	rows = nil
	for _, t := range s.Transactions() {
		rows = append(rows, []string{t.ID, t.State, itoa(t.ProducerID), itoa(t.ProducerEpoch), itoa(t.TimeoutMs), PartitionsText(t.Partitions), itoa(t.LastUpdate), itoa(t.Start)})
	}
	table("TRANSACTIONS", "TRANSACTIONAL ID\tSTATE\tPRODUCER ID\tEPOCH\tTIMEOUT (ms)\tPARTITIONS\tUPDATED (ms)\tSTARTED (ms)", rows)
	rows = nil
	for _, p := range s.SharePartitions() {
		var bs []string
		for _, b := range p.Batches {
			bs = append(bs, fmt.Sprintf("%d..%d %s×%d", b.First, b.Last, DeliveryStateName(b.DeliveryState), b.DeliveryCount))
		}
		rows = append(rows, []string{p.Group, p.TopicID, itoa(p.Partition), itoa(p.StartOffset), itoa(p.LeaderEpoch), itoa(p.StateEpoch), itoa(p.SnapshotEpoch), dash(strings.Join(bs, ", "))})
	}
	table("SHARE STATE", "GROUP\tTOPIC ID\tPARTITION\tSTART OFFSET\tLEADER EPOCH\tSTATE EPOCH\tSNAPSHOT EPOCH\tBATCHES", rows)
	dst = append(dst, buf.Bytes()...)
	for _, n := range s.Notes {
		dst = append(append(append(dst, "note: "...), n...), '\n')
	}
	return dst
}

func itoa[T int | int16 | int32 | int64](n T) string { return strconv.FormatInt(int64(n), 10) }

type partitionsJSON struct {
	Topic      string  `json:"topic"`
	Partitions []int32 `json:"partitions"`
}

func partsJSON(ps []Partitions) []partitionsJSON {
	out := []partitionsJSON{}
	for _, p := range ps {
		out = append(out, partitionsJSON{Topic: p.Topic, Partitions: append([]int32{}, p.Partitions...)})
	}
	return out
}

type memberJSON struct {
	MemberID   string           `json:"member_id"`
	InstanceID *string          `json:"instance_id"`
	ClientID   string           `json:"client_id"`
	ClientHost string           `json:"client_host"`
	Epoch      int32            `json:"epoch"`
	State      string           `json:"state,omitempty"`
	Subscribed []string         `json:"subscribed_topics"`
	Regex      string           `json:"subscribed_regex,omitempty"`
	Assigned   []partitionsJSON `json:"assigned"`
	Revoking   []partitionsJSON `json:"revoking"`
	Target     []partitionsJSON `json:"target"`
}

type batchJSON struct {
	First         int64  `json:"first_offset"`
	Last          int64  `json:"last_offset"`
	DeliveryState string `json:"delivery_state"`
	DeliveryCount int16  `json:"delivery_count"`
}

// AppendJSON appends the state as JSON lines, one an entry, in the order
// of the text tables: {"type":"offset", "group", "topic", "partition",
// "offset", "leader_epoch", "metadata", "commit_timestamp",
// "expire_timestamp" (-1 none), "topic_id" (when the value has one),
// "record_offset"}; {"type":"group", "group", "group_type", "state",
// "epoch", "assignment_epoch" (-1 none), "protocol_type", "protocol",
// "leader", "members": [{"member_id", "instance_id" (null none),
// "client_id", "client_host", "epoch", "state", "subscribed_topics",
// "subscribed_regex", "assigned", "revoking", "target": [{"topic",
// "partitions"}]}]}; {"type":"transaction", "transactional_id", "state",
// "producer_id", "producer_epoch", "timeout_ms", "partitions",
// "last_update_timestamp", "start_timestamp"}; {"type":"share_partition",
// "group", "topic_id", "partition", "start_offset", "leader_epoch",
// "state_epoch", "snapshot_epoch", "batches": [{"first_offset",
// "last_offset", "delivery_state", "delivery_count"}]}; then
// {"type":"note", "message"} for each of the Notes, and for an empty
// state whose records no internal topic's decoder read, a note that says
// so with the hint AppendText gives.
func (s *State) AppendJSON(dst []byte) []byte {
	line := func(v any) {
		b, _ := json.Marshal(v) // strings, numbers, slices: cannot fail
		dst = append(append(dst, b...), '\n')
	}
	for _, o := range s.Offsets() {
		line(struct {
			Type            string `json:"type"`
			Group           string `json:"group"`
			Topic           string `json:"topic"`
			Partition       int32  `json:"partition"`
			Offset          int64  `json:"offset"`
			LeaderEpoch     int32  `json:"leader_epoch"`
			Metadata        string `json:"metadata"`
			CommitTimestamp int64  `json:"commit_timestamp"`
			ExpireTimestamp int64  `json:"expire_timestamp"`
			TopicID         string `json:"topic_id,omitempty"`
			RecordOffset    int64  `json:"record_offset"`
		}{"offset", o.Group, o.Topic, o.Partition, o.Offset, o.LeaderEpoch, o.Metadata, o.CommitTimestamp, o.ExpireTimestamp, o.TopicID, o.RecordOffset})
	}
	for _, g := range s.Groups() {
		ms := []memberJSON{}
		for _, m := range g.MemberList() {
			mj := memberJSON{MemberID: m.ID, ClientID: m.ClientID, ClientHost: m.ClientHost, Epoch: m.Epoch, State: m.State,
				Subscribed: append([]string{}, m.Subscribed...), Regex: m.Regex, Assigned: partsJSON(m.Assigned), Revoking: partsJSON(m.Pending), Target: partsJSON(m.Target)}
			if m.InstanceID != "" {
				id := m.InstanceID
				mj.InstanceID = &id
			}
			ms = append(ms, mj)
		}
		line(struct {
			Type            string       `json:"type"`
			Group           string       `json:"group"`
			GroupType       string       `json:"group_type"`
			State           string       `json:"state"`
			Epoch           int32        `json:"epoch"`
			AssignmentEpoch int32        `json:"assignment_epoch"`
			ProtocolType    string       `json:"protocol_type,omitempty"`
			Protocol        string       `json:"protocol,omitempty"`
			Leader          string       `json:"leader,omitempty"`
			Members         []memberJSON `json:"members"`
		}{"group", g.ID, g.Type, g.State, g.Epoch, g.AssignmentEpoch, g.ProtocolType, g.Protocol, g.Leader, ms})
	}
	for _, t := range s.Transactions() {
		line(struct {
			Type       string           `json:"type"`
			ID         string           `json:"transactional_id"`
			State      string           `json:"state"`
			ProducerID int64            `json:"producer_id"`
			Epoch      int16            `json:"producer_epoch"`
			TimeoutMs  int32            `json:"timeout_ms"`
			Partitions []partitionsJSON `json:"partitions"`
			LastUpdate int64            `json:"last_update_timestamp"`
			Start      int64            `json:"start_timestamp"`
		}{"transaction", t.ID, t.State, t.ProducerID, t.ProducerEpoch, t.TimeoutMs, partsJSON(t.Partitions), t.LastUpdate, t.Start})
	}
	for _, p := range s.SharePartitions() {
		bs := []batchJSON{}
		for _, b := range p.Batches {
			bs = append(bs, batchJSON{b.First, b.Last, DeliveryStateName(b.DeliveryState), b.DeliveryCount})
		}
		line(struct {
			Type          string      `json:"type"`
			Group         string      `json:"group"`
			TopicID       string      `json:"topic_id"`
			Partition     int32       `json:"partition"`
			StartOffset   int64       `json:"start_offset"`
			LeaderEpoch   int32       `json:"leader_epoch"`
			StateEpoch    int32       `json:"state_epoch"`
			SnapshotEpoch int32       `json:"snapshot_epoch"`
			Batches       []batchJSON `json:"batches"`
		}{"share_partition", p.Group, p.TopicID, p.Partition, p.StartOffset, p.LeaderEpoch, p.StateEpoch, p.SnapshotEpoch, bs})
	}
	for _, n := range s.Notes {
		line(struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}{"note", n})
	}
	if h := s.decoderHint(); h != "" && s.Empty() {
		line(struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}{"note", "no state: no record of a type --state replays (" + h + ")"})
	}
	return dst
}

// decoderHint is why AddBatches found no state when it saw data records
// and no internal topic's decoder read any of their keys (a copy of a
// partition's segments in a directory named otherwise, or standard input,
// without a decoder): "a directory not named like __consumer_offsets-N:
// use --decoder …"; "" otherwise.
func (s *State) decoderHint() string {
	if s.dataRecords == 0 || s.internalRecords > 0 {
		return ""
	}
	return "a directory not named like __consumer_offsets-N: use --decoder offsets|transactions|share-state"
}
