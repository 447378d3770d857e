package flow

import "github.com/kwire/kwire/tree"

// TopicNames calls fn with each topic id and name that tree t pairs: a
// topic id field (spec.Field.IsTopicID) and a topic name field
// (spec.Field.IsTopicName) of the same element or body, as a
// MetadataResponse's Topics[i] or a CreateTopicsResponse's Topics[i] hold
// them. A zero id or an empty name is not a pair; decompressed views are
// not searched.
func TopicNames(t *tree.Tree, fn func(id [16]byte, name string)) {
	if t == nil {
		return
	}
	for i := range t.Nodes {
		k := t.Nodes[i].Kind
		if k != tree.Element && k != tree.Body || t.IsVirtual(int32(i)) {
			continue
		}
		var name string
		var id []byte
		t.Fields(int32(i), func(c int32) bool {
			if f := t.Field(c); f != nil && t.Nodes[c].Kind == tree.Field && !t.Nodes[c].Null {
				switch {
				case f.IsTopicName():
					name = string(t.Data(c))
				case f.IsTopicID():
					id = t.Data(c)
				}
			}
			return true
		})
		if name != "" && len(id) == 16 && [16]byte(id) != ([16]byte{}) {
			fn([16]byte(id), name)
		}
	}
}
