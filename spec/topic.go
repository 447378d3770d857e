package spec

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Topic is a kind of Kafka internal topic whose records are defined by spec
// files: the records of __consumer_offsets, __transaction_state,
// __share_group_state and __remote_log_metadata.
type Topic string

// The internal topics whose record specs kwire knows, named as the
// --decoder values of `kwire log` name them.
const (
	// TopicOffsets is __consumer_offsets: the group coordinator's records
	// (kafka-group-coordinator's specs): committed offsets, classic,
	// consumer, share and streams group state.
	TopicOffsets Topic = "offsets"
	// TopicTransactions is __transaction_state: the transaction
	// coordinator's records (kafka-transaction-coordinator's specs).
	TopicTransactions Topic = "transactions"
	// TopicShareState is __share_group_state: the share coordinator's
	// records (kafka-share-coordinator's specs).
	TopicShareState Topic = "share-state"
	// TopicRemoteLogMetadata is __remote_log_metadata: tiered storage's
	// records (kafka-storage's "metadata" specs), written with a null key
	// and a value in the metadata record frame (uvarint frame version 1,
	// api key, version; kafka-storage's RemoteLogMetadataSerde).
	TopicRemoteLogMetadata Topic = "remote-log-metadata"
)

var topicNames = map[Topic]string{
	TopicOffsets:           "__consumer_offsets",
	TopicTransactions:      "__transaction_state",
	TopicShareState:        "__share_group_state",
	TopicRemoteLogMetadata: "__remote_log_metadata",
}

// Topics returns the internal topic kinds, in the order of the constants.
func Topics() []Topic {
	return []Topic{TopicOffsets, TopicTransactions, TopicShareState, TopicRemoteLogMetadata}
}

// TopicName returns the Kafka topic name of t ("__consumer_offsets"), or ""
// for an unknown kind.
func (t Topic) TopicName() string { return topicNames[t] }

// TopicFor returns the kind of the internal topic named name
// ("__consumer_offsets") or the kind itself ("offsets"), and whether it is
// one.
func TopicFor(name string) (Topic, bool) {
	for t, n := range topicNames {
		if name == n || name == string(t) {
			return t, true
		}
	}
	return "", false
}

// Coordinator reports whether t's records are coordinator records: an
// int16-prefixed key (the record type) and value (its version), as
// CoordinatorRecordSerde writes them; false for TopicRemoteLogMetadata.
func (t Topic) Coordinator() bool {
	return t == TopicOffsets || t == TopicTransactions || t == TopicShareState
}

// topicOf says which internal topic a spec file's records belong to, from
// where the file came from: an embedded release's jar ("kafka-group-
// coordinator-4.4.0.jar"), or a path holding Kafka's module directory
// ("…/group-coordinator/src/main/resources/common/message"). A storage
// module's "metadata" spec is a remote-log-metadata record; coordinator
// modules' coordinator-key, coordinator-value and "data" specs are
// coordinator records, and so are the broker jar's OffsetCommit*,
// GroupMetadata* and TransactionLog* "data" specs. Anything else is "".
func topicOf(source, path string, m *Message) Topic {
	where := filepath.ToSlash(source) + "/" + path
	switch m.Type {
	case CoordinatorKey, CoordinatorValue, Data:
		switch {
		case strings.Contains(where, "group-coordinator"):
			return TopicOffsets
		case strings.Contains(where, "transaction-coordinator"):
			return TopicTransactions
		case strings.Contains(where, "share-coordinator"):
			return TopicShareState
		case m.Type == Data && isBrokerJar(where):
			return coreTopic(m.Name)
		}
	case Metadata:
		if strings.Contains(where, "storage") {
			return TopicRemoteLogMetadata
		}
	}
	return ""
}

// isBrokerJar reports whether where is in the broker's jar
// (kafka_2.13-3.0.2.jar) or module (…/core/src/main/resources/…), which
// held the group and transaction records' specs before their coordinator
// modules did (3.0-3.4 and 3.0-3.8).
func isBrokerJar(where string) bool {
	base := where
	if i := strings.LastIndex(where, ".jar/"); i >= 0 {
		base = where[strings.LastIndex(where[:i], "/")+1 : i]
	}
	return strings.HasPrefix(base, "kafka_2.") || strings.Contains(where, "core/src/main/resources/")
}

// coreTopic is the topic of a broker jar's record spec, by its name: the
// broker jar has no module per topic.
func coreTopic(name string) Topic {
	switch {
	case strings.HasPrefix(name, "OffsetCommit"), strings.HasPrefix(name, "GroupMetadata"):
		return TopicOffsets
	case strings.HasPrefix(name, "TransactionLog"):
		return TopicTransactions
	}
	return ""
}

// IsRecordKey reports whether m is the key of coordinator records: a
// "coordinator-key" spec, or, in releases before the coordinator types
// existed (3.9), a "data" spec of a coordinator topic named …Key, whose
// versions are its record types.
func (m *Message) IsRecordKey() bool {
	return m.Type == CoordinatorKey || m.Type == Data && m.Topic.Coordinator() && strings.HasSuffix(m.Name, "Key")
}

// IsRecordValue reports whether m is the value of coordinator records: a
// "coordinator-value" spec, or a "data" spec of a coordinator topic named
// …Value (see IsRecordKey).
func (m *Message) IsRecordValue() bool {
	return m.Type == CoordinatorValue || m.Type == Data && m.Topic.Coordinator() && strings.HasSuffix(m.Name, "Value")
}

// VersionPrefixed reports whether m's bytes on disk begin with an int16:
// the record type of a coordinator record key, the version of a
// coordinator record value (MessageUtil.toVersionPrefixedBytes, as
// CoordinatorRecordSerde writes them).
func (m *Message) VersionPrefixed() bool { return m.IsRecordKey() || m.IsRecordValue() }

// Prefix returns the int16 that precedes m's bytes at version v: for a
// "coordinator-key", its api key (the record type; the key is written at
// version 0); for a "data" key, v itself (its versions are the record
// types); for a value, v. ok is false when m is not VersionPrefixed.
func (m *Message) Prefix(v int16) (prefix int16, ok bool) {
	switch {
	case m.Type == CoordinatorKey:
		return m.APIKey, true
	case m.VersionPrefixed():
		return v, true
	}
	return 0, false
}

// VersionOfPrefix returns the version at which m's body is read after the
// int16 prefix p (see Prefix): for a "coordinator-key", its lowest valid
// version (0) when p is its api key; else p. The error says when p is not
// m's record type or version.
func (m *Message) VersionOfPrefix(p int16) (int16, error) {
	switch {
	case m.Type == CoordinatorKey:
		if p != m.APIKey {
			return 0, fmt.Errorf("record type %d is not %s's (%d)", p, m.Name, m.APIKey)
		}
		return m.ValidVersions.Lo, nil
	case m.IsRecordKey():
		if !m.ValidVersions.Contains(p) {
			return 0, fmt.Errorf("record type %d is not %s's (%s)", p, m.Name, m.ValidVersions)
		}
		return p, nil
	case m.IsRecordValue():
		if !m.ValidVersions.Contains(p) {
			return 0, fmt.Errorf("%s has no version %d (valid versions %s)", m.Name, p, m.ValidVersions)
		}
		return p, nil
	}
	return 0, fmt.Errorf("%s is a %s, not a coordinator record key or value", m.Name, m.Type)
}

// topicRecords are the record specs of one internal topic.
type topicRecords struct {
	keys, values map[int16]*Message // by record type (coordinator topics)
	meta         map[int16]*Message // by api key (remote-log-metadata)
}

func (s *Set) topic(t Topic) *topicRecords {
	if s.topics == nil {
		s.topics = map[Topic]*topicRecords{}
	}
	tr := s.topics[t]
	if tr == nil {
		tr = &topicRecords{keys: map[int16]*Message{}, values: map[int16]*Message{}, meta: map[int16]*Message{}}
		s.topics[t] = tr
	}
	return tr
}

// linkRecords fills each coordinator key's and value's RecordTypes and the
// set's record-type tables: a "coordinator-key"/"-value" spec's record type
// is its api key; a "data" key's are its valid versions, and its value
// (same name with Value for Key) has the same ones. Two keys or two values
// of one topic with one record type are an error.
func (s *Set) linkRecords() ErrorList {
	var errs ErrorList
	for _, m := range s.Messages {
		switch {
		case m.Type == CoordinatorKey || m.Type == CoordinatorValue:
			m.RecordTypes = Versions{m.APIKey, m.APIKey}
			if m.APIKey < 0 {
				m.RecordTypes = None
			}
		case m.IsRecordKey():
			m.RecordTypes = m.ValidVersions
			if v := s.byName[strings.ToLower(strings.TrimSuffix(m.Name, "Key")+"Value")]; v != nil && v.Type == Data && v.IsRecordValue() && v.Topic == m.Topic {
				v.RecordTypes = m.ValidVersions
			}
		}
	}
	for _, m := range s.Messages {
		if !m.VersionPrefixed() || m.Topic == "" || m.RecordTypes.Empty() {
			continue
		}
		tr, what := s.topic(m.Topic), "value"
		byType := tr.values
		if m.IsRecordKey() {
			byType, what = tr.keys, "key"
		}
		for rt := int(m.RecordTypes.Lo); rt <= int(m.RecordTypes.Hi); rt++ {
			if prev := byType[int16(rt)]; prev != nil {
				errs = append(errs, &Error{Pos: m.Pos, Rule: "duplicate-api-key", Msg: fmt.Sprintf("%s %q has record type %d of %s, already used by %q", what, m.Name, rt, m.Topic.TopicName(), prev.Name)})
				continue
			}
			byType[int16(rt)] = m
		}
	}
	return errs
}

// RecordKey returns the key spec of record type rt of internal topic t, or
// nil.
func (s *Set) RecordKey(t Topic, rt int16) *Message {
	if tr := s.topics[t]; tr != nil {
		return tr.keys[rt]
	}
	return nil
}

// RecordValue returns the value spec of record type rt of internal topic
// t, or nil.
func (s *Set) RecordValue(t Topic, rt int16) *Message {
	if tr := s.topics[t]; tr != nil {
		return tr.values[rt]
	}
	return nil
}

// TopicRecord returns the "metadata" spec with api key k of internal topic
// t (TopicRemoteLogMetadata), or nil.
func (s *Set) TopicRecord(t Topic, k int16) *Message {
	if tr := s.topics[t]; tr != nil {
		return tr.meta[k]
	}
	return nil
}

// RecordTypes returns the record types of topic t that have a key spec
// (coordinator topics) or the api keys of its metadata records
// (TopicRemoteLogMetadata), ascending; nil when the set has none.
func (s *Set) RecordTypes(t Topic) []int16 {
	tr := s.topics[t]
	if tr == nil {
		return nil
	}
	src := tr.keys
	if !t.Coordinator() {
		src = tr.meta
	}
	var out []int16
	for k := range src {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Carries reports whether s holds record specs of internal topic t: an
// embedded release whose pinned jars have them (spec/bundle/README.md says
// which), or specs loaded from a path that has them. A release without
// them says nothing about t's records (Kafka 3.0.2's jars hold no
// __share_group_state specs: the share coordinator came in 4.0).
func (s *Set) Carries(t Topic) bool {
	for _, m := range s.Messages {
		if m.Topic == t {
			return true
		}
	}
	return false
}
