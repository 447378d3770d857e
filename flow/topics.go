package flow

import (
	"sync"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// Names are topic names by topic id, as responses pair them (TopicNames).
// Topic ids are the cluster's, so the connections of one proxy or capture
// may share one (Options.Names). Safe for concurrent use; the zero Names
// is empty.
type Names struct {
	mu sync.RWMutex
	m  map[[16]byte]string
}

// Name returns the name learned for topic id, or "".
func (n *Names) Name(id [16]byte) string {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.m[id]
}

// Learn notes the topic ids and names that response tree t pairs
// (TopicNames).
func (n *Names) Learn(t *tree.Tree) {
	topicPairs(t, func(id [16]byte, name []byte) {
		n.mu.Lock()
		defer n.mu.Unlock()
		if n.m[id] == string(name) {
			return // known: no allocation
		}
		if n.m == nil {
			n.m = map[[16]byte]string{}
		}
		n.m[id] = string(name)
	})
}

// Topics is what one connection's decoder knows of its topics: the names
// its responses gave for topic ids (Learn), with which the keys and values
// of the records of Kafka's internal topics (__consumer_offsets,
// __transaction_state, __share_group_state, __remote_log_metadata) are
// decoded by record type wherever a request or response holds them, the
// topic named by name or by id (Options). The zero Topics knows no ids.
// It is not safe for concurrent use.
type Topics struct {
	// Names are the topic names by id learned: the connection's own when
	// nil at the first Learn or Options.
	Names *Names
	// pairs caches, per response spec, whether its trees can pair topic
	// names and ids (pairsNames).
	pairs map[*spec.Message]bool
	// opts caches the decode options per codec, kv the key and value
	// decoders of the internal topics per codec.
	opts map[*codec.Codec]codec.DecodeOptions
	kv   map[topicCodec]*records.KeyValueDecoder
	// looked are the topic ids looked up since Looked was last called.
	looked []TopicID
}

func (tp *Topics) names() *Names {
	if tp.Names == nil {
		tp.Names = &Names{}
	}
	return tp.Names
}

// Learn notes the topic ids and names that response tree t pairs
// (Names.Learn), when its spec can pair them (a struct with both a topic
// name and a topic id field: Metadata, CreateTopics,
// DescribeTopicPartitions…); other trees are not searched.
func (tp *Topics) Learn(t *tree.Tree) {
	if t == nil || t.Message == nil {
		return
	}
	ok, seen := tp.pairs[t.Message]
	if !seen {
		if tp.pairs == nil {
			tp.pairs = map[*spec.Message]bool{}
		}
		ok = pairsNames(t.Message.Root, map[*spec.Struct]bool{})
		tp.pairs[t.Message] = ok
	}
	if ok {
		tp.names().Learn(t)
	}
}

// pairsNames reports whether struct s, or one it holds, has both a topic
// name and a topic id field.
func pairsNames(s *spec.Struct, seen map[*spec.Struct]bool) bool {
	if s == nil || seen[s] {
		return false
	}
	seen[s] = true
	var name, id bool
	for _, f := range s.Fields {
		name = name || f.IsTopicName()
		id = id || f.IsTopicID()
		if f.Type.Struct != nil && pairsNames(f.Type.Struct, seen) {
			return true
		}
	}
	return name && id
}

// Options are the decode options for a request or response decoded with
// cd on this connection: the records of an internal topic have their keys
// and values decoded by record type (records.Options.KeyValue, as kwire
// log decodes the topic's segments), the topic named by its name or by an
// id that Learn has seen; other records decode as cd.RecordsOptions says.
// The ids looked up are noted until the next Looked.
func (tp *Topics) Options(cd *codec.Codec) codec.DecodeOptions {
	if o, ok := tp.opts[cd]; ok {
		return o
	}
	names := tp.names()
	o := codec.DecodeOptions{TopicRecords: func(name string, id [16]byte) (records.Options, bool) {
		if name == "" && id == metadataTopicID {
			name = metadataTopic
		}
		if name == "" {
			name = names.Name(id)
			tp.looked = append(tp.looked, TopicID{ID: id, Name: name})
		}
		return tp.topicRecords(cd, name)
	}}
	if tp.opts == nil {
		tp.opts = map[*codec.Codec]codec.DecodeOptions{}
	}
	tp.opts[cd] = o
	return o
}

// TopicID is a topic id and the name it had when it was looked up ("":
// none learned).
type TopicID struct {
	ID   [16]byte
	Name string
}

// Looked returns the topic ids Options's decodings looked up since the
// last call, and forgets them; the slice is reused by the next ones.
func (tp *Topics) Looked() []TopicID {
	l := tp.looked
	tp.looked = tp.looked[:0]
	return l
}

// OptionsAs are Options with the topic ids named as looked says (what
// Looked returned after an earlier decoding of the same frame), not as
// the names learned since: a frame decoded again decodes its records as
// it did the first time.
func (tp *Topics) OptionsAs(cd *codec.Codec, looked []TopicID) codec.DecodeOptions {
	return codec.DecodeOptions{TopicRecords: func(name string, id [16]byte) (records.Options, bool) {
		if name == "" && id == metadataTopicID {
			name = metadataTopic
		}
		if name == "" {
			for _, l := range looked {
				if l.ID == id {
					name = l.Name
					break
				}
			}
		}
		return tp.topicRecords(cd, name)
	}}
}

// topicRecords are the records options of internal topic name decoded
// with cd, or false when name is not one.
func (tp *Topics) topicRecords(cd *codec.Codec, name string) (records.Options, bool) {
	if name == metadataTopic {
		ro := cd.RecordsOptions()
		ro.Metadata = true
		return ro, true
	}
	t, ok := spec.TopicFor(name)
	if !ok || t.TopicName() != name {
		return records.Options{}, false
	}
	k := topicCodec{cd, t}
	d := tp.kv[k]
	if d == nil {
		d = logseg.KeyValueDecoder(cd, t)
		if tp.kv == nil {
			tp.kv = map[topicCodec]*records.KeyValueDecoder{}
		}
		tp.kv[k] = d
	}
	ro := cd.RecordsOptions()
	ro.KeyValue = d
	return ro, true
}

// metadataTopic is the KRaft metadata log's topic and metadataTopicID its
// id, which a KRaft quorum's Fetch requests and responses name it by: its
// records' values are decoded as metadata records (records.Options.Metadata),
// as kwire log decodes the log's segments, so that the credentials they hold
// (UserScramCredentialRecord's) are redacted with the rest.
const metadataTopic = "__cluster_metadata"

var metadataTopicID = [16]byte{15: 1}

// topicCodec keys Topics.kv.
type topicCodec struct {
	cd *codec.Codec
	t  spec.Topic
}
