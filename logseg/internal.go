package logseg

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// Decoders are the values of Options.Decoder: the internal topics' kinds
// (spec.Topics) and "metadata" (KRaft metadata records).
func Decoders() []string {
	out := []string{}
	for _, t := range spec.Topics() {
		out = append(out, string(t))
	}
	return append(out, "metadata")
}

// TopicOf is the internal topic whose partition directory holds the file
// at path ("…/__consumer_offsets-7/00000000000000000000.log" is
// spec.TopicOffsets), and whether there is one.
func TopicOf(path string) (spec.Topic, bool) {
	if path == "-" {
		return "", false // standard input: only Options.Decoder says
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	name, _, ok := splitPartition(filepath.Base(filepath.Dir(abs)))
	if !ok || !strings.HasPrefix(name, "__") {
		return "", false
	}
	return spec.TopicFor(name)
}

// topic is the internal topic whose records the file at path holds: the
// decoder o names, else the one its directory names; "" for none (or
// "metadata").
func (o Options) topic(path string) spec.Topic {
	if o.Decoder != "" {
		t, _ := spec.TopicFor(o.Decoder)
		return t
	}
	t, _ := TopicOf(path)
	return t
}

// KeyValueDecoder decodes the keys and values of topic t's records with
// cd: a coordinator record's key by the record type its int16 prefix
// holds, its value as that record type's value at the version its prefix
// holds (the key's record type gives the spec); a remote-log-metadata
// record's value by the api key of its frame (keys are bytes). In a
// GroupMetadataValue whose protocol type is "consumer", each member's
// subscription and assignment bytes hold their message decoded
// (consumerProtocol; a group of a Length leaf and an Embedded node), or
// are a problem at their offset and path when they do not decode. It is what Read decodes an internal topic's files
// with, and what decodes those topics' records elsewhere (a Fetch
// response's: records.Options.KeyValue).
func KeyValueDecoder(cd *codec.Codec, t spec.Topic) *records.KeyValueDecoder {
	if !t.Coordinator() {
		return &records.KeyValueDecoder{Value: func(_ *tree.Tree, data []byte) (*tree.Tree, error) {
			return cd.DecodeTopicValue(data, t, 0)
		}}
	}
	fb := &fallbacks{cd: cd, codecs: map[*spec.Set]*codec.Codec{}}
	return &records.KeyValueDecoder{
		Key: func(data []byte) (*tree.Tree, error) {
			kt, err := cd.DecodeTopicKey(data, t)
			if rt, ok := framePrefix(kt); ok && errors.Is(err, codec.ErrUnknownRecordType) {
				if fc := fb.codec(spec.NewestEmbeddedWithRecord(t, rt, -1, cd.Set.Release)); fc != nil {
					return fc.DecodeTopicKey(data, t) // its spec's answer, problems too
				}
			}
			return kt, err
		},
		Value: func(key *tree.Tree, data []byte) (*tree.Tree, error) {
			rt := recordType(key.Message, key.Version)
			c := cd
			vt, err := c.DecodeTopicValue(data, t, rt)
			if errors.Is(err, codec.ErrUnknownRecordType) || errors.Is(err, codec.ErrUnknownVersion) {
				v, ok := framePrefix(vt) // none when no value spec of rt
				if !ok {
					v = -1
				}
				if fc := fb.codec(spec.NewestEmbeddedWithRecord(t, rt, v, cd.Set.Release)); fc != nil {
					c = fc
					vt, err = fc.DecodeTopicValue(data, t, rt)
				}
			}
			if err == nil && vt.Message.Name == "GroupMetadataValue" {
				vt = nestConsumer(c, vt)
			}
			return vt, err
		},
	}
}

// fallbacks are the codecs of the embedded releases a KeyValueDecoder
// decodes with when its codec's release has no spec of a record's type or
// value version (Kafka embeds the coordinators' record specs only in some
// releases' jars): the newest embedded release that has it, as pcap
// decodes an API version its release lacks (flow.EmbeddedFallbacks).
// Window.Describe names the release (Record.DecodedWith).
type fallbacks struct {
	cd     *codec.Codec
	mu     sync.Mutex
	codecs map[*spec.Set]*codec.Codec
}

// codec returns the codec of s with fb.cd's options, made once; nil for a
// nil s.
func (fb *fallbacks) codec(s *spec.Set) *codec.Codec {
	if s == nil {
		return nil
	}
	fb.mu.Lock()
	defer fb.mu.Unlock()
	c := fb.codecs[s]
	if c == nil {
		c = codec.New(s)
		c.MaxFrame, c.Strict, c.Records = fb.cd.MaxFrame, fb.cd.Strict, fb.cd.Records
		fb.codecs[s] = c
	}
	return c
}

// framePrefix is the int16 prefix of a coordinator record's key or value
// as t decoded it (its first frame field: the record type or the
// version), and whether t has one.
func framePrefix(t *tree.Tree) (int16, bool) {
	if t == nil {
		return 0, false
	}
	for i, n := range t.Nodes {
		if n.Kind() == tree.FrameField {
			return int16(t.Num(int32(i))), true
		}
	}
	return 0, false
}

// consumerProtocol decodes data, the bytes of a classic group member's
// subscription or assignment (GroupMetadataValue's members) when its
// protocol type is "consumer": an int16 version, then message name
// ("ConsumerProtocolSubscription", "ConsumerProtocolAssignment") at that
// version, as Kafka's ConsumerProtocol writes it. The tree's
// offsets are data's from byte 2 on, its version the prefix's; errors
// name the path and offset in data.
func consumerProtocol(cd *codec.Codec, name string, data []byte) (*tree.Tree, error) {
	m := cd.Set.Message(name)
	if m == nil {
		return nil, fmt.Errorf("no %s in %s", name, render.SetName(cd.Set))
	}
	if len(data) < 2 {
		return nil, &wire.Error{Offset: 0, Path: "version", Msg: fmt.Sprintf("%s holds at least its int16 version, these bytes %d", name, len(data))}
	}
	v := int16(binary.BigEndian.Uint16(data))
	if !m.ValidVersions.Contains(v) {
		return nil, &wire.Error{Offset: 0, Path: "version", Msg: fmt.Sprintf("%s has no version %d (valid versions %s)", name, v, m.ValidVersions)}
	}
	t, err := cd.DecodeRecord(data[2:], m, v)
	if we, ok := err.(*wire.Error); ok {
		e := *we
		e.Offset += 2
		err = &e
	}
	return t, err
}

// consumerMembers calls fn with each member's subscription and assignment
// bytes of GroupMetadataValue v when its protocol type is "consumer": the
// member's index, the field's name and its value.
func consumerMembers(v tree.Value, fn func(i int, field string, b tree.Value)) {
	if v.Field("protocolType").String() != "consumer" {
		return
	}
	ms := v.Field("members")
	for i := range ms.Len() {
		for _, f := range []string{"subscription", "assignment"} {
			// A member whose value did not decode that far (a partial
			// tree) has no such field: skipped.
			if b := ms.Elem(i).Field(f); b.Err() == nil {
				fn(i, f, b)
			}
		}
	}
}

// protocolNames are the consumer protocol messages of GroupMetadataValue's
// members' fields.
var protocolNames = map[string]string{"subscription": "ConsumerProtocolSubscription", "assignment": "ConsumerProtocolAssignment"}

// errMsg is a wire error's message without its offset and path.
func errMsg(e *wire.Error) string {
	if e.Msg != "" {
		return e.Msg
	}
	return fmt.Sprintf("need %s, have %d", wire.Bytes(e.Need), e.Have)
}

// describeInternal fills d, a data record of an internal topic, from the
// window's tree: its key and value as decoded there, as type, version and
// converter JSON; a GroupMetadataValue's consumer protocol bytes decoded
// in its JSON.
func (w *Window) describeInternal(d *Record) {
	t, r := w.Tree, d.LogRecord
	d.Topic = w.Topic
	if w.Topic.Coordinator() {
		if r.KeyEmbedded >= 0 {
			m, ver := w.embedded(r.KeyEmbedded)
			if m != nil {
				d.KeyType, d.KeyVersion, d.RecordType = m.Name, ver, recordType(m, ver)
			}
			_, d.DecodedWith = w.embeddedFrom(r.KeyEmbedded)
		}
		switch p, ok := w.fieldProblem(r, "key"); {
		case ok:
			d.KeyErr = errors.New(p)
		case d.KeyType == "":
			d.KeyErr = errors.New("key: not decoded")
		default:
			m, ver := w.embedded(r.KeyEmbedded)
			d.KeyData, d.KeyErr = w.json(r.KeyEmbedded, m, ver)
		}
		if d.KeyErr != nil {
			return // the value's record type is unknown: bytes
		}
	}
	if r.ValueNull {
		if w.Topic.Coordinator() {
			d.Tombstone = true
		} else {
			d.Err = errors.New("null value")
		}
		return
	}
	var m *spec.Message
	var ver int16
	if r.Embedded >= 0 {
		if m, ver = w.embedded(r.Embedded); m != nil {
			d.Type, d.Version = m.Name, ver
		}
		if _, rel := w.embeddedFrom(r.Embedded); rel != "" {
			d.DecodedWith = rel
		}
	}
	p, ok := w.fieldProblem(r, "value")
	if ok && m != nil && m.Name == "GroupMetadataValue" && consumerPath(p) {
		// The value decoded; a member's consumer protocol bytes did not.
		d.Note, ok = p, false
	}
	switch {
	case ok:
		d.Err = errors.New(p)
	case m == nil:
		d.Err = errors.New("value: not decoded")
	default:
		d.Data, d.Err = w.json(r.Embedded, m, ver)
		if d.Err == nil && m.Name == "GroupMetadataValue" {
			d.Data = w.consumerJSON(t.At(r.Embedded), d.Data)
		}
		if d.Err == nil && m.Name == "TransactionLogValue" {
			d.Data = transactionJSON(t.At(r.Embedded), d.Data)
		}
	}
}

// consumerPath reports whether problem text p is in a member's consumer
// protocol bytes ("GroupMetadataValue.members[0].subscription…").
func consumerPath(p string) bool {
	path, _, _ := strings.Cut(p, " ")
	_, rest, ok := strings.Cut(path, "].")
	return ok && strings.HasPrefix(path, "GroupMetadataValue.members[") && (strings.HasPrefix(rest, "subscription") || strings.HasPrefix(rest, "assignment"))
}

// embedded is the message decoded at Embedded node e and its version.
func (w *Window) embedded(e int32) (*spec.Message, int16) {
	m, _ := w.embeddedFrom(e)
	return m, w.Tree.NodeVersion(e)
}

// embeddedFrom is the message decoded at Embedded node e and, when another
// embedded release's specs than the window's decoded it (KeyValueDecoder's
// fallbacks), that release ("4.4.0"); nil when none.
func (w *Window) embeddedFrom(e int32) (*spec.Message, string) {
	st := w.Tree.Struct(e)
	if st == nil || w.codec == nil {
		return nil, ""
	}
	if m := w.codec.Set.Message(st.Name); m != nil && m.Root == st {
		return m, ""
	}
	if m, s := spec.EmbeddedOwner(st); m != nil && s != w.codec.Set {
		return m, s.Release
	}
	return w.codec.Set.Message(st.Name), ""
}

// json is the converter JSON of the message m decoded at Embedded node e.
func (w *Window) json(e int32, m *spec.Message, ver int16) ([]byte, error) {
	sub := w.Tree.Sub(e)
	r := sub.Nodes[0]
	sub.Nodes[0].Reshape(tree.NewShape(tree.Body, tree.WireNone, r.Ref(), r.Aux()))
	return codec.ToJSON(nil, sub, 0, m, ver, codec.JSONOptions{})
}

// consumerJSON is data, GroupMetadataValue v's converter JSON, with each
// member's "subscription" and "assignment" (base64) replaced by
// {"version":N,"data":{…}}: the version and converter JSON of the
// ConsumerProtocolSubscription or Assignment that the tree holds for them
// (nestConsumer). kafka-dump-log's offsets decoder shows the data alone;
// the version makes the JSON encode back to the same bytes (FromJSON).
// Bytes that did not decode (their problem is the tree's) stay base64.
func (w *Window) consumerJSON(v tree.Value, data []byte) []byte {
	from := 0
	consumerMembers(v, func(_ int, f string, b tree.Value) {
		old := []byte(`"` + f + `":"` + base64.StdEncoding.EncodeToString(b.Bytes()) + `"`)
		k := bytes.Index(data[from:], old)
		if k < 0 {
			return
		}
		k += from
		from = k + len(old)
		e := w.Tree.Find(b.Node(), tree.Embedded)
		if e < 0 {
			return
		}
		m, ver := w.embedded(e)
		if m == nil {
			return
		}
		js, err := w.json(e, m, ver)
		if err != nil {
			return
		}
		repl := fmt.Appendf(nil, `"%s":{"version":%d,"data":%s}`, f, ver, js)
		data = append(data[:k:k], append(repl, data[k+len(old):]...)...)
		from = k + len(repl)
	})
	return data
}

// transactionJSON is data, a TransactionLogValue's converter JSON, with
// its "transactionStatus" id replaced by the state's name
// (records.TransactionStateName), as kafka-dump-log's transaction log
// decoder shows it; an id without a name stays a number.
func transactionJSON(v tree.Value, data []byte) []byte {
	id := v.Field("TransactionStatus").Int()
	name, ok := records.TransactionStateName(id)
	if !ok {
		return data
	}
	old := []byte(`"transactionStatus":` + strconv.FormatInt(id, 10))
	k := bytes.Index(data, old)
	if k < 0 {
		return data
	}
	return slices.Concat(data[:k:k], []byte(`"transactionStatus":"`+name+`"`), data[k+len(old):])
}

// recordType is the record type of a coordinator record key m at version
// v (its int16 prefix), -1 when m is not one.
func recordType(m *spec.Message, v int16) int16 {
	if m == nil {
		return -1
	}
	if rt, ok := m.Prefix(v); ok && m.IsRecordKey() {
		return rt
	}
	return -1
}

var (
	refProtocolLength  = tree.NameRef("length", "bytes of the consumer protocol message that follow")
	refProtocolVersion = tree.NameRef("version", "version of the consumer protocol message (its int16 prefix)")

	shapeFrame           = tree.NewShape(tree.Frame, tree.WireNone, 0, 0)
	shapeProtocolVersion = tree.NewShape(tree.FrameField, tree.WireInt16, refProtocolVersion, 0)
)

// nestConsumer returns GroupMetadataValue tree t with each member's
// subscription and assignment bytes that decode (consumerProtocol) made
// a group of their length (a Length leaf over the field's length prefix)
// and an Embedded node holding the message: a Frame of its int16 version,
// then its fields. Bytes that do not decode (empty ones are none: a
// member before its assignment) are a problem of t at their offset, with
// their path ("members[0].subscription.Topics"); t is returned with them
// when no member's bytes decode.
func nestConsumer(cd *codec.Codec, t *tree.Tree) *tree.Tree {
	nest := map[int32]*tree.Tree{}
	consumerMembers(t.At(max(t.Part(tree.Body), 0)), func(i int, f string, b tree.Value) {
		data := b.Bytes()
		if len(data) == 0 {
			return // a member before its assignment
		}
		pt, err := consumerProtocol(cd, protocolNames[f], data)
		if err == nil {
			nest[b.Node()] = pt
			return
		}
		p := tree.Problem{Off: t.DataOff(b.Node()), VOff: -1, Path: fmt.Sprintf("members[%d].%s", i, f), Msg: err.Error()}
		if we, ok := err.(*wire.Error); ok {
			p.Off += int32(we.Offset)
			if rest := strings.TrimPrefix(we.Path, protocolNames[f]); rest != "" && rest != we.Path {
				p.Path += rest
			} else if we.Path != "" && we.Path != protocolNames[f] {
				p.Path += "." + we.Path
			}
			p.Msg = errMsg(we)
		}
		t.Problems = append(t.Problems, p)
	})
	if len(nest) == 0 {
		return t
	}
	out := &tree.Tree{Bytes: t.Bytes, Message: t.Message, Version: t.Version, HeaderVersion: t.HeaderVersion, Problems: t.Problems, Virtual: t.Virtual}
	b := tree.Builder{T: out}
	type open struct{ end, off int32 }
	var stack []open
	for k := int32(0); k < int32(len(t.Nodes)); k++ {
		for len(stack) > 0 && stack[len(stack)-1].end <= k {
			b.Close(stack[len(stack)-1].off)
			stack = stack[:len(stack)-1]
		}
		n := t.Nodes[k]
		pt := nest[k]
		switch {
		case pt != nil:
			doff, dlen := t.DataOff(k), int32(t.DataLen(k))
			b.Open(n)
			b.Leaf(tree.Node{Off: n.Off, Size: doff - n.Off, S: tree.NewShape(tree.Length, lengthWire(n.Wire()), refProtocolLength, 0)})
			aux := int32(pt.Version)
			if !pt.Message.ValidVersions.Contains(pt.Version) {
				aux = -1 // the prefix holds it (tree.Tree.NodeVersion)
			}
			b.Open(tree.Node{Off: doff, S: tree.NewShape(tree.Embedded, tree.WireNone, tree.StructRef(pt.Message.Root), aux)})
			b.Open(tree.Node{Off: doff, S: shapeFrame})
			b.Leaf(tree.Node{Off: doff, Size: 2, S: shapeProtocolVersion})
			b.Close(doff + 2)
			if body := pt.Part(tree.Body); body >= 0 {
				pt.Children(body, func(c int32) bool {
					b.Graft(pt, c, doff+2, 0)
					return true
				})
			}
			b.Close(doff + dlen)
			b.Close(n.Off + n.Size)
			k = n.End - 1
		case n.End > k+1:
			b.Open(n)
			stack = append(stack, open{n.End, n.Off + n.Size})
		default:
			b.Leaf(n)
		}
	}
	for len(stack) > 0 {
		b.Close(stack[len(stack)-1].off)
		stack = stack[:len(stack)-1]
	}
	return out
}

// lengthWire is the wire of the length prefix of a bytes field of wire w.
func lengthWire(w tree.Wire) tree.Wire {
	if w == tree.WireCompactBytes {
		return tree.WireUvarint
	}
	return tree.WireInt32
}
