package records

import "github.com/kwire/kwire/tree"

// KeyValueDecoder decodes the keys and values of the data records of an
// internal topic, whose keys and values are messages of their own
// (__consumer_offsets, __transaction_state, __share_group_state: a key
// starts with its record type, a value with its version; the values of
// __remote_log_metadata are framed records and its keys null). A
// decoded key or value becomes a group of its length and an Embedded
// node holding the decoded message, as a KRaft metadata record does; the
// problems of its decode are the tree's, at their offsets and with their
// paths below the record's key or value ("….Record[0].value.OffsetCommitValue.metadata").
//
// A null or empty key is a problem when Key is set (such a record has no
// record type); a null value is a tombstone (no problem), an empty one a
// problem. A value whose key did not decode is left bytes (the key's
// problem says why).
type KeyValueDecoder struct {
	// Key decodes a key (not empty). On error it returns the partial tree,
	// whose leaves still tile data, or nil. Nil leaves keys bytes.
	Key func(data []byte) (*tree.Tree, error)
	// Value decodes a value (not empty) of the record whose key decoded
	// without error as key (nil when Key is nil). On error it returns
	// the partial tree, whose leaves still tile data, or nil.
	Value func(key *tree.Tree, data []byte) (*tree.Tree, error)
}

// shows says how keys and values are shown.
func (k *KeyValueDecoder) shows() (key, value show) {
	key, value = showBytes, showBytes
	if k.Key != nil {
		key = showInternalKey
	}
	if k.Value != nil {
		value = showInternalValue
	}
	return key, value
}

// internalKey appends the key data (at offset off of area a) decoded with
// Options.KeyValue, and returns its tree when it decoded without error.
func (d *decoder) internalKey(data []byte, off int32, a area, path string) *tree.Tree {
	t, err := d.o.KeyValue.Key(data)
	d.graft(t, err, off, int32(len(data)), a, path)
	if err != nil || t == nil {
		return nil
	}
	return t
}

// internalValue appends the value data (at offset off of area a) of the
// record whose key is key, decoded with Options.KeyValue.
func (d *decoder) internalValue(key *tree.Tree, data []byte, off int32, a area, path string) {
	t, err := d.o.KeyValue.Value(key, data)
	d.graft(t, err, off, int32(len(data)), a, path)
}

// transactionStates are the transaction coordinator's TransactionState
// names by id, as kafka-dump-log's transaction log decoder prints them.
var transactionStates = []string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

// TransactionStateName returns the name of a TransactionLogValue's
// TransactionStatus id (0 "Empty" … 7 "PrepareEpochFence"), and false for
// an id the transaction coordinator does not define.
func TransactionStateName(id int64) (string, bool) {
	if id < 0 || id >= int64(len(transactionStates)) {
		return "", false
	}
	return transactionStates[id], true
}
