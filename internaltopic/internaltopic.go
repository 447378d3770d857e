// Package internaltopic decodes the records of Kafka's internal topics —
// __consumer_offsets, __transaction_state, __share_group_state and
// __remote_log_metadata — by record type, from the record specs of the
// group, transaction and share coordinators and of kafka-storage (see
// spec.Topic).
//
// A coordinator record's key is an int16 record type followed by the key
// message, its value an int16 version followed by the value message of
// that record type, or null (a tombstone: the key's state is deleted);
// this is how Kafka's CoordinatorRecordSerde writes them. A
// __remote_log_metadata record has a null key and a value in the metadata
// record frame (uvarint frame version 1, api key, version; kafka-storage's
// RemoteLogMetadataSerde). Package codec owns those bytes; this package
// pairs key and value and says what is wrong, with *Error.
//
//	rec, err := internaltopic.Decode(cd, spec.TopicOffsets, key, value)
//	// rec.Key, rec.Value: span trees (rec.Value nil for a tombstone)
//	v, _ := rec.Value.Get("OffsetCommitValue.offset")
package internaltopic

import (
	"errors"
	"fmt"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// Record is one record of an internal topic, decoded.
type Record struct {
	// Topic is the internal topic kind the record was decoded as.
	Topic spec.Topic
	// RecordType is the key's record type (its int16 prefix) for a
	// coordinator topic, the value frame's api key for
	// __remote_log_metadata; -1 when the bytes do not say it (a key
	// shorter than 2 bytes, a null key, a value frame cut short).
	RecordType int16
	// Key is the decoded key (Key.Message is its spec, nil when the record
	// type is unknown); nil when the key is null.
	Key *tree.Tree
	// Value is the decoded value (Value.Message is its spec, Value.Version
	// its version); nil for a tombstone, and when the key does not say
	// which value spec to read it with.
	Value *tree.Tree
	// Tombstone reports a null value: the record deletes its key's state.
	Tombstone bool
}

// Part is "key" or "value": which bytes of a record an Error is about.
type Part string

// The parts of a record.
const (
	PartKey   Part = "key"
	PartValue Part = "value"
)

// Error is what is wrong with a record's key or value: where (the part,
// the byte offset within it, the field path) and what. It wraps
// ErrUnknownRecordType, ErrUnknownVersion, ErrNullKey or the codec's error
// (a *wire.Error for truncated or malformed bytes).
type Error struct {
	Part Part
	// Offset is the byte offset within the part's bytes (the key's, the
	// value's), Path the field path there ("record_type", "version",
	// "OffsetCommitValue.leaderEpoch"); "" when not at a field.
	Offset int
	Path   string
	// RecordType is the record's type when known, else -1.
	RecordType int16
	// Err is the underlying error.
	Err error
}

// Error renders "value: OffsetCommitValue.leaderEpoch at 0x000a: need 4
// bytes, have 3".
func (e *Error) Error() string {
	var we *wire.Error
	if errors.As(e.Err, &we) {
		return fmt.Sprintf("%s: %v", e.Part, e.Err)
	}
	where := e.Path
	if where == "" {
		where = string(e.Part)
	} else {
		where = string(e.Part) + " " + where
	}
	return fmt.Sprintf("%s at 0x%04x: %v", where, e.Offset, e.Err)
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// ErrUnknownRecordType is wrapped by errors about a record type (a
// remote-log-metadata api key) the specs do not have for the topic; it is
// codec.ErrUnknownRecordType.
var ErrUnknownRecordType = codec.ErrUnknownRecordType

// ErrUnknownVersion is wrapped by errors about a value version the
// record type's spec does not have; it is codec.ErrUnknownVersion.
var ErrUnknownVersion = codec.ErrUnknownVersion

// ErrNullKey is wrapped by the error about a coordinator record with a
// null key (Kafka never writes one).
var ErrNullKey = errors.New("null key: a coordinator record's key holds its record type")

// Decode decodes a record of internal topic tp with codec cd: key and
// value as read from the log (nil is null). It never panics and always
// returns a Record, whose trees hold what could be decoded (the bytes
// after an error as one undecoded leaf); the error, when not nil, is an
// *Error, or two joined (errors.Join) when key and value are both wrong.
//
// For a coordinator topic (spec.Topic.Coordinator) the key's record type
// chooses the key and value specs (Set.RecordKey, Set.RecordValue); a
// null value is a tombstone. For spec.TopicRemoteLogMetadata the key is
// expected null (a non-null key is left undecoded, without error) and the
// value's frame chooses the record. An unknown topic kind is an error.
func Decode(cd *codec.Codec, tp spec.Topic, key, value []byte) (*Record, error) {
	rec := &Record{Topic: tp, RecordType: -1, Tombstone: value == nil}
	if tp.TopicName() == "" {
		return rec, fmt.Errorf("unknown internal topic kind %q (want one of %v)", tp, spec.Topics())
	}
	if !tp.Coordinator() {
		if value == nil {
			return rec, nil
		}
		t, err := cd.DecodeTopicValue(value, tp, -1)
		rec.Value = t
		if t.Message != nil {
			rec.RecordType = t.Message.APIKey
		}
		return rec, wrap(PartValue, rec.RecordType, err)
	}
	var kerr error
	if key == nil {
		kerr = &Error{Part: PartKey, RecordType: -1, Err: ErrNullKey}
	} else {
		t, err := cd.DecodeTopicKey(key, tp)
		rec.Key = t
		rec.RecordType = prefixOf(t)
		kerr = wrap(PartKey, rec.RecordType, err)
		if t.Message == nil {
			// No key spec: the value's spec is not known either.
			return rec, kerr
		}
	}
	if value == nil || rec.RecordType < 0 {
		return rec, kerr
	}
	t, err := cd.DecodeTopicValue(value, tp, rec.RecordType)
	rec.Value = t
	return rec, errors.Join(kerr, wrap(PartValue, rec.RecordType, err))
}

// prefixOf is the int16 prefix a decoded key or value tree holds (its
// Frame's leaf), or -1.
func prefixOf(t *tree.Tree) int16 {
	for i := range t.Nodes {
		if n := &t.Nodes[i]; n.Kind() == tree.FrameField && n.Wire() == tree.WireInt16 {
			return int16(t.Num(int32(i)))
		}
	}
	return -1
}

// wrap makes err an *Error of part (nil stays nil).
func wrap(part Part, rt int16, err error) error {
	if err == nil {
		return nil
	}
	e := &Error{Part: part, RecordType: rt, Err: err}
	var we *wire.Error
	if errors.As(err, &we) {
		e.Offset, e.Path = we.Offset, we.Path
	}
	return e
}
