package flow

import "github.com/kwire/kwire/tree"

// TopicNames calls fn with each topic id and name that tree t pairs: a
// topic id field (spec.Field.IsTopicID) and a topic name field
// (spec.Field.IsTopicName) of the same element or body, as a
// MetadataResponse's Topics[i] or a CreateTopicsResponse's Topics[i] hold
// them. A zero id or an empty name is not a pair; decompressed views are
// not searched.
func TopicNames(t *tree.Tree, fn func(id [16]byte, name string)) {
	topicPairs(t, func(id [16]byte, name []byte) { fn(id, string(name)) })
}

// topicPairs is TopicNames with the name's bytes (t's), without
// allocating.
func topicPairs(t *tree.Tree, fn func(id [16]byte, name []byte)) {
	if t == nil {
		return
	}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.Kind() != tree.Element && n.Kind() != tree.Body || n.Flags()&tree.FlagVirtual != 0 {
			continue
		}
		var name, id []byte
		// The fields of the element: its direct children.
		for c := int32(i) + 1; c < n.End; {
			cn := &t.Nodes[c]
			if cn.Kind() == tree.Field && !cn.Null() {
				if f := t.Field(c); f != nil {
					switch {
					case f.IsTopicName():
						name = t.Data(c)
					case f.IsTopicID():
						id = t.Data(c)
					}
				}
			}
			if cn.End <= c {
				break
			}
			c = cn.End
		}
		if len(name) > 0 && len(id) == 16 && [16]byte(id) != ([16]byte{}) {
			fn([16]byte(id), name)
		}
	}
}
