package spec

import "strings"

// IsTopicName reports whether f holds a topic's name: a string field whose
// entityType is topicName (MetadataResponse's Topics[].Name,
// FetchResponse's Responses[].Topic).
func (f *Field) IsTopicName() bool {
	return f.EntityType == "topicName" && f.Type.Kind == KindString
}

// IsTopicID reports whether f holds a topic's id: a uuid field whose name
// ends in TopicId (MetadataResponse's Topics[].TopicId, FetchResponse's
// Responses[].TopicId from version 13).
func (f *Field) IsTopicID() bool {
	return f.Type.Kind == KindUUID && strings.HasSuffix(f.Name, "TopicId")
}
