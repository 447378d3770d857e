package flow

import (
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// TopicPartitions is a topic that a request names, and the partitions of
// it that the request names (Exchange.Topics).
type TopicPartitions struct {
	// Topic is the topic's name: the request's topic name field, or the
	// name a response paired with its topic id (Names); "" when the
	// request names the topic by an id not learned.
	Topic string
	// ID is the topic id the request gives (a field whose name ends in
	// TopicId), zero when it gives none.
	ID [16]byte
	// Partitions are the partition indexes named under the topic, in
	// request order (duplicates kept out); empty when the request names
	// none (a Metadata request names whole topics).
	Partitions []int32
}

// partitionFields are the names of the int32 fields (and int32 arrays)
// that hold partition indexes under a topic in Kafka's request specs:
// ProduceRequest's PartitionData[].Index, FetchRequest's
// Topics[].Partitions[].Partition and ForgottenTopicsData[].Partitions,
// ListOffsetsRequest's and OffsetCommitRequest's PartitionIndex,
// OffsetFetchRequest's PartitionIndexes, and so on.
var partitionFields = map[string]bool{
	"Index": true, "Partition": true, "PartitionIndex": true,
	"Partitions": true, "PartitionIndexes": true,
}

// isPartition reports whether f holds partition indexes (an int32 field
// or array named as in partitionFields).
func isPartition(f *spec.Field) bool {
	if f == nil || !partitionFields[f.Name] {
		return false
	}
	return f.Type.Kind == spec.KindInt32 || f.Type.Kind == spec.KindArray && f.Type.Elem == spec.KindInt32
}

// Touched returns the topics and partitions that request tree t names:
// every struct (the body or an array element) with a topic name field
// (spec.Field.IsTopicName) or topic id field (spec.Field.IsTopicID) is a
// topic, and the partition index fields inside it (isPartition) its
// partitions. A topic named twice is listed once, its partitions merged.
// Records and decompressed views are not searched. names resolves topic
// ids (nil: ids stay unnamed). nil when t names no topic.
func Touched(t *tree.Tree, names *Names) []TopicPartitions {
	if t == nil {
		return nil
	}
	var out []TopicPartitions
	n := int32(len(t.Nodes))
	for i := int32(0); i < n; i++ {
		nd := &t.Nodes[i]
		if nd.Flags()&tree.FlagVirtual != 0 || nd.Kind() == tree.Records {
			i = t.Next(i) - 1
			continue
		}
		if nd.Kind() != tree.Element && nd.Kind() != tree.Body {
			continue
		}
		var name []byte
		var id [16]byte
		found := false
		t.Fields(i, func(c int32) bool {
			if t.Nodes[c].Kind() != tree.Field || t.Nodes[c].Null() {
				return true
			}
			f := t.Field(c)
			switch {
			case f == nil:
			case f.IsTopicName():
				name, found = t.Data(c), true
			case f.IsTopicID():
				if d := t.Data(c); len(d) == 16 {
					id, found = [16]byte(d), true
				}
			}
			return true
		})
		if !found || len(name) == 0 && id == ([16]byte{}) {
			continue
		}
		topic := string(name)
		if topic == "" && names != nil {
			topic = names.Name(id)
		}
		k := -1
		for j := range out {
			if out[j].Topic == topic && out[j].ID == id {
				k = j
				break
			}
		}
		if k < 0 {
			out = append(out, TopicPartitions{Topic: topic, ID: id})
			k = len(out) - 1
		}
		out[k].Partitions = partitionsUnder(t, i, out[k].Partitions)
		// The topic's own subtree holds no other topic.
		i = t.Next(i) - 1
	}
	return out
}

// partitionsUnder appends to ps the partition indexes in the subtree of
// node i that ps does not hold yet.
func partitionsUnder(t *tree.Tree, i int32, ps []int32) []int32 {
	add := func(p int32) {
		for _, q := range ps {
			if q == p {
				return
			}
		}
		ps = append(ps, p)
	}
	end := t.EndOf(i)
	for c := i + 1; c < end; c++ {
		nd := &t.Nodes[c]
		if nd.Flags()&tree.FlagVirtual != 0 || nd.Kind() == tree.Records {
			c = t.Next(c) - 1
			continue
		}
		switch nd.Kind() {
		case tree.Field:
			if nd.Wire() == tree.WireInt32 && !nd.Null() && isPartition(t.Field(c)) {
				add(int32(t.Num(c)))
			}
		case tree.Array:
			if !isPartition(t.Field(c)) || t.Field(c).Type.Kind != spec.KindArray {
				continue
			}
			t.Elements(c, func(e int32) bool {
				if t.Nodes[e].Wire() == tree.WireInt32 {
					add(int32(t.Num(e)))
				}
				return true
			})
			c = t.Next(c) - 1
		}
	}
	return ps
}
