package clientcheck

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// Rule names what a Finding breaks (see the package doc).
type Rule uint8

// The rules.
const (
	// VersionNotAnnounced: a version outside the broker's announced range.
	VersionNotAnnounced Rule = iota + 1
	// BeforeSASL: a request before SASL authentication completed.
	BeforeSASL
	// HeaderVersion: the wrong request header version for the api version.
	HeaderVersion
	// OverlongVarint: a varint in more bytes than its value needs.
	OverlongVarint
	// TagOrder: tagged fields out of ascending order or repeated.
	TagOrder
	// CorrelationReused: the correlation id of a request still in flight.
	CorrelationReused
	// RecordBatch: a record batch whose CRC, count, offsets or sequences
	// do not add up.
	RecordBatch
	// TrailingBytes: bytes after the request body.
	TrailingBytes
)

var ruleNames = [...]string{"", "version-not-announced", "before-sasl", "header-version", "overlong-varint", "tag-order", "correlation-reused", "record-batch", "trailing-bytes"}

// String is the rule's name as the output shows it ("overlong-varint").
func (r Rule) String() string {
	if int(r) < len(ruleNames) && r > 0 {
		return ruleNames[r]
	}
	return fmt.Sprintf("rule(%d)", r)
}

// Rules are every rule, in the order of the package doc.
func Rules() []Rule {
	return []Rule{VersionNotAnnounced, BeforeSASL, HeaderVersion, OverlongVarint, TagOrder, CorrelationReused, RecordBatch, TrailingBytes}
}

// Finding is one rule a request breaks, and where.
type Finding struct {
	Rule Rule
	// Offset is the byte offset in the request's frame (0 is the first
	// byte of its size prefix) of what breaks the rule; for a varint
	// inside a compressed batch's decompressed records, the batch's.
	Offset int
	// Path is the field path there, as the JSON view names it
	// ("ProduceRequest.TopicData[0].PartitionData[0].Records[0].lastOffsetDelta",
	// "RequestHeader.CorrelationId").
	Path string
	// Msg says what is wrong.
	Msg string
}

// String renders "rule at 0x0008 Path: msg".
func (f Finding) String() string {
	return fmt.Sprintf("%s at 0x%04x %s: %s", f.Rule, f.Offset, f.Path, f.Msg)
}

// Request is one request to judge.
type Request struct {
	// Tree is the request as decoded (partial when Err is set); it is read
	// only during the call.
	Tree *tree.Tree
	// Err is the decoding error, nil when it decoded whole.
	Err error
	// Frame is the request's frame, size prefix included, and Codec the
	// codec that decoded it: with them a request that did not decode is
	// tried with the other request header versions. Either may be nil.
	Frame []byte
	Codec *codec.Codec
	// InFlight says that a request with the same correlation id is still
	// awaiting its response on the connection.
	InFlight bool
}

// The api keys the rules name.
const (
	produceKey          = 0
	saslHandshakeKey    = 17
	apiVersionsKey      = 18
	saslAuthenticateKey = 36
)

// Conn judges the requests of one connection: what the broker announced
// and the state of its SASL authentication and of its producers'
// sequences. Feed it every request (Request) and response (Response) in
// the order they were seen. The zero value is ready; it is not safe for
// concurrent use.
type Conn struct {
	// announced are the version ranges of the last ApiVersions answer
	// without error, by api key; nil before one.
	announced map[int16][2]int16
	// sasl is the authentication's state.
	sasl struct {
		started, done bool
		mech          string
		rounds        int
	}
	// seqs are the next sequence expected per producer and partition.
	seqs map[seqKey]seqState
	// scratch is the tree a request is decoded into with another header
	// version.
	scratch tree.Tree
}

// maxSeqs bounds the producers' partitions a Conn follows, so that what
// it holds does not grow with what a client sends.
const maxSeqs = 4096

// seqKey is a producer's partition.
type seqKey struct {
	producerID int64
	epoch      int16
	topic      string
	partition  int64
}

// seqState is the sequences a producer's batches took on a partition:
// first the first base sequence seen, next the one that follows the last.
type seqState struct{ first, next int32 }

// Request judges request r and returns its findings, by offset.
func (c *Conn) Request(r Request) []Finding {
	t := r.Tree
	if t == nil || t.Message == nil {
		return nil
	}
	var out []Finding
	if r.Err != nil {
		var f *Finding
		t, f = c.header(r)
		if f != nil {
			out = append(out, *f)
		} else if f := trailing(r.Err); f != nil {
			out = append(out, *f)
		}
	}
	key, ver := t.Message.APIKey, t.Version
	if c.announced != nil {
		if rg, ok := c.announced[key]; !ok {
			out = append(out, Finding{Rule: VersionNotAnnounced, Offset: 4, Path: "RequestHeader.RequestApiKey",
				Msg: fmt.Sprintf("api key %d (%s) is not among the api keys the broker announced on this connection", key, t.Message.BaseName())})
		} else if ver < rg[0] || ver > rg[1] {
			out = append(out, Finding{Rule: VersionNotAnnounced, Offset: 6, Path: "RequestHeader.RequestApiVersion",
				Msg: fmt.Sprintf("%s v%d is outside the versions %d-%d the broker announced on this connection", t.Message.BaseName(), ver, rg[0], rg[1])})
		}
	}
	switch key {
	case apiVersionsKey, saslAuthenticateKey:
	case saslHandshakeKey:
		c.sasl.started, c.sasl.done, c.sasl.rounds = true, false, 0
		c.sasl.mech = ""
		if v, err := t.Get("Mechanism"); err == nil {
			c.sasl.mech = v.String()
		}
	default:
		if c.sasl.started && !c.sasl.done {
			out = append(out, Finding{Rule: BeforeSASL, Offset: 4, Path: "RequestHeader.RequestApiKey",
				Msg: fmt.Sprintf("%s before SASL authentication (%s) completed: %d of %d rounds answered", t.Message.BaseName(), orNone(c.sasl.mech), c.sasl.rounds, rounds(c.sasl.mech))})
		}
	}
	if r.InFlight {
		corr, _ := t.Get("RequestHeader.CorrelationId")
		out = append(out, Finding{Rule: CorrelationReused, Offset: 8, Path: "RequestHeader.CorrelationId",
			Msg: fmt.Sprintf("correlation id %d is that of a request still awaiting its response", corr.Int())})
	}
	out = append(out, varints(t)...)
	out = append(out, tagOrder(t)...)
	out = append(out, recordProblems(t)...)
	if key == produceKey {
		out = append(out, c.batches(t)...)
	}
	if t == &c.scratch {
		c.scratch.Bytes = nil // the caller's frame is not kept
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return cmp.Compare(a.Offset, b.Offset) })
	return out
}

// Response notes a response to a request of api key apiKey, decoded into
// t (err its decoding error): an ApiVersions answer's ranges, a
// SaslHandshake that failed, a SaslAuthenticate round that succeeded. t is
// read only during the call.
func (c *Conn) Response(t *tree.Tree, apiKey int16, err error) {
	if t == nil || err != nil {
		return
	}
	ec, e := t.Get("ErrorCode")
	if e != nil {
		return
	}
	switch apiKey {
	case apiVersionsKey:
		if ec.Int() != 0 {
			return
		}
		keys, e := t.Get("ApiKeys")
		if e != nil {
			return
		}
		ann := make(map[int16][2]int16, keys.Len())
		for i := range keys.Len() {
			k := keys.Elem(i)
			ann[int16(k.Field("ApiKey").Int())] = [2]int16{int16(k.Field("MinVersion").Int()), int16(k.Field("MaxVersion").Int())}
		}
		c.announced = ann
	case saslHandshakeKey:
		if ec.Int() != 0 {
			c.sasl.started = false
		}
	case saslAuthenticateKey:
		if ec.Int() == 0 {
			c.Token()
		}
	}
}

// Token notes a SASL round that succeeded without a SaslAuthenticate: a
// raw token the broker answered after a SaslHandshake v0.
func (c *Conn) Token() {
	if !c.sasl.started {
		return
	}
	c.sasl.rounds++
	if c.sasl.rounds >= rounds(c.sasl.mech) {
		c.sasl.done = true
	}
}

// Lost notes that bytes of the connection were not seen (a capture that
// lost packets, a proxy whose decoder fell behind): a SASL round may have
// gone unseen, so authentication is taken as completed, and the
// producers' sequences are forgotten, so that what was missed is not
// judged as the client's fault. What the broker announced is kept.
func (c *Conn) Lost() {
	if c.sasl.started {
		c.sasl.done = true
	}
	clear(c.seqs)
}

// rounds is the number of SASL rounds mechanism mech takes until the
// client may send other requests.
func rounds(mech string) int {
	switch mech {
	case "SCRAM-SHA-256", "SCRAM-SHA-512":
		return 2
	}
	return 1
}

func orNone(s string) string {
	if s == "" {
		return "no mechanism"
	}
	return s
}

// Explains reports whether findings say why a request did not decode (it
// was written with another header version, or bytes follow its body), so
// that the decoding error need not be reported beside them.
func Explains(fs []Finding) bool {
	for _, f := range fs {
		if f.Rule == HeaderVersion || f.Rule == TrailingBytes {
			return true
		}
	}
	return false
}

// header tries a request that did not decode with the other request
// header versions: when one decodes it whole it returns that tree and the
// finding; else r.Tree and nil.
func (c *Conn) header(r Request) (*tree.Tree, *Finding) {
	want := r.Tree.HeaderVersion
	if r.Codec == nil || r.Frame == nil || want < 0 {
		return r.Tree, nil
	}
	for hv := int16(0); hv <= 2; hv++ {
		if hv == want || r.Codec.DecodeRequestHeaderAs(&c.scratch, r.Frame, hv) != nil {
			continue
		}
		// Where the two headers part: after the fields both have (api
		// key, version, correlation id; then the client id).
		shared := 3
		if min(hv, want) > 0 {
			shared = 4
		}
		off := 12
		if h := c.scratch.Part(tree.Header); h >= 0 {
			k := 0
			c.scratch.Children(h, func(ch int32) bool {
				if k++; k == shared {
					n := c.scratch.Nodes[ch]
					off = int(n.Off + n.Size)
					return false
				}
				return true
			})
		}
		m := r.Tree.Message
		return &c.scratch, &Finding{Rule: HeaderVersion, Offset: off, Path: "RequestHeader",
			Msg: fmt.Sprintf("%s v%d is written with request header v%d; Kafka's rule gives it v%d (%s)", m.BaseName(), r.Tree.Version, hv, want, headerRule(want))}
	}
	return r.Tree, nil
}

// headerRule says why a request has header version hv.
func headerRule(hv int16) string {
	switch hv {
	case 2:
		return "a flexible version: header v2 adds a tagged-field section"
	case 0:
		return "ControlledShutdown v0's header has no client id"
	}
	return "not a flexible version"
}

// trailing is the finding of a decoding error that is bytes left after
// the body, or nil.
func trailing(err error) *Finding {
	var we *wire.Error
	if !errors.Is(err, codec.ErrTrailing) || !errors.As(err, &we) {
		return nil
	}
	return &Finding{Rule: TrailingBytes, Offset: we.Offset, Path: we.Path, Msg: we.Msg}
}

// wireOff is where node i lies in the frame: its offset, or for a node of
// a decompressed view that of the batch holding it, then a note saying
// so.
func wireOff(t *tree.Tree, i int32) (int, string) {
	if !t.IsVirtual(i) {
		return int(t.Nodes[i].Off), ""
	}
	v := t.Nodes[i].Off
	for i >= 0 && t.IsVirtual(i) {
		i = t.Parent(i)
	}
	if i < 0 {
		return 0, ""
	}
	return int(t.Nodes[i].Off), fmt.Sprintf(" (in its batch's decompressed records, at 0x%04x)", v)
}

// varints finds the varints of t written in more bytes than needed.
func varints(t *tree.Tree) []Finding {
	var out []Finding
	for i := range t.Nodes {
		n, fewest, over := t.Overlong(int32(i))
		if !over {
			continue
		}
		off, note := wireOff(t, int32(i))
		what := "varint"
		switch t.Nodes[i].Wire() {
		case tree.WireUvarint:
			what = "uvarint"
		case tree.WireVarlong:
			what = "varlong"
		case tree.WireCompactString, tree.WireCompactBytes:
			what = "uvarint length prefix"
		case tree.WireVarBytes:
			what = "varint length prefix"
		}
		out = append(out, Finding{Rule: OverlongVarint, Offset: off, Path: t.PathOf(int32(i)).String(),
			Msg: fmt.Sprintf("%s written in %s where %s would do%s", what, wire.Bytes(n), wire.Bytes(fewest), note)})
	}
	return out
}

// tagOrder finds the tagged fields of t out of ascending order or
// repeated.
func tagOrder(t *tree.Tree) []Finding {
	var out []Finding
	for i := range t.Nodes {
		if t.Nodes[i].Kind() != tree.TagSection || t.IsLeaf(int32(i)) {
			continue
		}
		prev := int64(-1)
		t.Children(int32(i), func(c int32) bool {
			if k := t.Nodes[c].Kind(); k != tree.Tag && k != tree.UnknownTag {
				return true
			}
			tag := t.Num(c)
			if tag <= prev {
				msg := fmt.Sprintf("tag %d after tag %d: tagged fields must be in ascending order", tag, prev)
				if tag == prev {
					msg = fmt.Sprintf("tag %d repeated", tag)
				}
				off, note := wireOff(t, c)
				out = append(out, Finding{Rule: TagOrder, Offset: off, Path: t.PathOf(c).String(), Msg: msg + note})
			}
			prev = max(prev, tag)
			return true
		})
	}
	return out
}

// recordProblems are the problems package records found in the record
// batches of t that are not notices.
func recordProblems(t *tree.Tree) []Finding {
	var out []Finding
	for _, p := range t.Problems {
		if p.Notice {
			continue
		}
		msg := p.Msg
		if p.VOff >= 0 {
			msg += fmt.Sprintf(" (in its batch's decompressed records, at 0x%04x)", p.VOff)
		}
		out = append(out, Finding{Rule: RecordBatch, Offset: int(p.Off), Path: p.Path, Msg: msg})
	}
	return out
}

// batches judges the record batches of a Produce request t that records
// found nothing wrong in: their offset deltas and their sequences.
func (c *Conn) batches(t *tree.Tree) []Finding {
	var out []Finding
	for i := range t.Nodes {
		bi := int32(i)
		if t.Nodes[i].Kind() != tree.RecordBatch || t.IsVirtual(bi) {
			continue
		}
		f, ok := records.BatchFactsOf(t, bi)
		if !ok || f.Magic != 2 || t.Nodes[i].Flags()&tree.FlagProblem != 0 {
			continue
		}
		out = append(out, offsets(t, bi, f)...)
		out = append(out, c.sequence(t, bi, f)...)
	}
	return out
}

// field is batch bi's header field name, or -1.
func field(t *tree.Tree, bi int32, name string) int32 {
	at := int32(-1)
	t.Children(bi, func(c int32) bool {
		if t.Nodes[c].Kind() == tree.BatchField && t.Name(c) == name {
			at = c
			return false
		}
		return true
	})
	return at
}

// finding is a record-batch finding about node i of t (or its batch bi
// when i is -1).
func finding(t *tree.Tree, bi, i int32, msg string) Finding {
	if i < 0 {
		i = bi
	}
	off, note := wireOff(t, i)
	return Finding{Rule: RecordBatch, Offset: off, Path: t.PathOf(i).String(), Msg: msg + note}
}

// offsets judges batch bi's lastOffsetDelta and its records' offset
// deltas: record k's is k, the last one's is lastOffsetDelta, which is
// recordsCount-1.
func offsets(t *tree.Tree, bi int32, f records.BatchFacts) []Finding {
	var out []Finding
	if f.Count > 0 && f.LastOffsetDelta != f.Count-1 {
		out = append(out, finding(t, bi, field(t, bi, "lastOffsetDelta"),
			fmt.Sprintf("lastOffsetDelta %d with recordsCount %d: the batch's offset range and record count disagree (it must be %d)", f.LastOffsetDelta, f.Count, f.Count-1)))
	}
	k := int64(0)
	bad := false
	var each func(p int32)
	each = func(p int32) {
		t.Children(p, func(c int32) bool {
			switch t.Nodes[c].Kind() {
			case tree.Decompressed:
				each(c)
			case tree.Record:
				if d, ok := records.OffsetDelta(t, c); ok && d != k && !bad {
					bad = true
					out = append(out, finding(t, bi, c, fmt.Sprintf("record %d has offsetDelta %d: the records' offset deltas must be 0, 1, 2…", k, d)))
				}
				k++
			}
			return true
		})
	}
	each(bi)
	return out
}

// sequence judges an idempotent batch's producer epoch and sequence, and
// that it follows the producer's last batch of the partition.
func (c *Conn) sequence(t *tree.Tree, bi int32, f records.BatchFacts) []Finding {
	if f.ProducerID < 0 {
		return nil
	}
	if f.ProducerEpoch < 0 {
		return []Finding{finding(t, bi, field(t, bi, "producerEpoch"), fmt.Sprintf("producerEpoch %d in a batch of producer id %d", f.ProducerEpoch, f.ProducerID))}
	}
	if f.BaseSequence < 0 {
		return []Finding{finding(t, bi, field(t, bi, "baseSequence"), fmt.Sprintf("baseSequence %d in a batch of producer id %d: an idempotent batch has a sequence", f.BaseSequence, f.ProducerID))}
	}
	topic, part, ok := partitionOf(t, bi)
	if !ok {
		return nil
	}
	k := seqKey{f.ProducerID, f.ProducerEpoch, topic, part}
	next := nextSequence(f.BaseSequence, f.Count)
	s, seen := c.seqs[k]
	switch {
	case !seen && len(c.seqs) >= maxSeqs:
		// Past the bound, new partitions are not followed.
	case !seen:
		if c.seqs == nil {
			c.seqs = map[seqKey]seqState{}
		}
		c.seqs[k] = seqState{first: f.BaseSequence, next: next}
	case f.BaseSequence == s.next:
		s.next = next
		c.seqs[k] = s
	case f.BaseSequence >= s.first && f.BaseSequence < s.next:
		// A resend of sequences already sent: clients retry.
	default:
		return []Finding{finding(t, bi, field(t, bi, "baseSequence"),
			fmt.Sprintf("baseSequence %d of producer id %d epoch %d: its batches on this partition so far were sequences %d-%d, the next is %d", f.BaseSequence, f.ProducerID, f.ProducerEpoch, s.first, s.next-1, s.next))}
	}
	return nil
}

// nextSequence is the sequence after a batch of count records from base,
// wrapping past the int32 maximum to 0 (DefaultRecordBatch.incrementSequence).
func nextSequence(base, count int32) int32 {
	if base > 1<<31-1-count {
		return count - (1<<31 - 1 - base) - 1
	}
	return base + count
}

// partitionOf names the partition batch bi of a Produce request is for:
// its topic's name (or id, as text) and the partition's index.
func partitionOf(t *tree.Tree, bi int32) (topic string, part int64, ok bool) {
	recs := t.Parent(bi)
	if recs < 0 || t.Nodes[recs].Kind() != tree.Records {
		return "", 0, false
	}
	pe := t.Parent(recs)
	if pe < 0 || t.Nodes[pe].Kind() != tree.Element {
		return "", 0, false
	}
	idx, err := t.At(pe).Field("Index").AsInt()
	if err != nil {
		return "", 0, false
	}
	te := t.Parent(t.Parent(pe))
	if te < 0 || t.Nodes[te].Kind() != tree.Element {
		return "", 0, false
	}
	v := t.At(te)
	if name, err := v.Field("Name").AsString(); err == nil {
		return name, idx, true
	}
	if id, err := v.Field("TopicId").AsUUID(); err == nil {
		return fmt.Sprintf("%x", id), idx, true
	}
	return "", 0, false
}
