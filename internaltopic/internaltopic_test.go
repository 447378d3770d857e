package internaltopic_test

import (
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/internaltopic"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

func codecOf(t *testing.T, release string) *codec.Codec {
	t.Helper()
	s, err := spec.Embedded(release)
	if err != nil {
		t.Fatal(err)
	}
	return codec.New(s)
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// An offset commit of group "g", topic "t", partition 3: key record type
// 1, value v3 (offset 100, leader epoch 5, no metadata, committed at
// 1700000000000 ms), written as Kafka's CoordinatorRecordSerde does.
const (
	offsetKey   = "0001 0001 67 0001 74 00000003"
	offsetValue = "0003 0000000000000064 00000005 0000 0000018bcfe56800"
)

func TestOffsetCommit(t *testing.T) {
	for _, rel := range []string{"4.4.0", "3.9.1"} {
		rec, err := internaltopic.Decode(codecOf(t, rel), spec.TopicOffsets, unhex(t, offsetKey), unhex(t, offsetValue))
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if rec.RecordType != 1 || rec.Tombstone || rec.Key.Message.Name != "OffsetCommitKey" || rec.Value.Message.Name != "OffsetCommitValue" || rec.Value.Version != 3 {
			t.Fatalf("%s: record type %d, key %s, value %s v%d", rel, rec.RecordType, rec.Key.Message.Name, rec.Value.Message.Name, rec.Value.Version)
		}
		// 4.4.0's coordinator-key is read at v0, 3.9.1's "data" key at its
		// record type.
		if want := map[string]int16{"4.4.0": 0, "3.9.1": 1}[rel]; rec.Key.Version != want {
			t.Errorf("%s: key read at v%d, want v%d", rel, rec.Key.Version, want)
		}
		for path, want := range map[string]int64{"OffsetCommitValue.offset": 100, "OffsetCommitValue.leaderEpoch": 5, "OffsetCommitValue.commitTimestamp": 1700000000000} {
			if v, err := rec.Value.Get(path); err != nil || v.Int() != want {
				t.Errorf("%s: %s = %v (%v), want %d", rel, path, v, err, want)
			}
		}
		for path, want := range map[string]string{"OffsetCommitKey.group": "g", "OffsetCommitKey.topic": "t"} {
			if v, err := rec.Key.Get(path); err != nil || v.String() != want {
				t.Errorf("%s: %s = %v (%v), want %q", rel, path, v, err, want)
			}
		}
		if v, err := rec.Key.Get("Frame.record_type"); err != nil || v.Int() != 1 {
			t.Errorf("%s: Frame.record_type = %v (%v)", rel, v, err)
		}
		if v, err := rec.Value.Get("Frame.version"); err != nil || v.Int() != 3 {
			t.Errorf("%s: Frame.version = %v (%v)", rel, v, err)
		}
	}
}

// Record type 0 is the legacy offset commit: LegacyOffsetCommitKey in
// 4.4.0, OffsetCommitKey v0 in 3.9.1 (whose versions are record types).
func TestLegacyOffsetCommitKey(t *testing.T) {
	key := unhex(t, "0000 0001 67 0001 74 00000003")
	val := unhex(t, "0000 0000000000000064 0000 0000018bcfe56800")
	for rel, want := range map[string][2]string{"4.4.0": {"LegacyOffsetCommitKey", "LegacyOffsetCommitValue"}, "3.9.1": {"OffsetCommitKey", "OffsetCommitValue"}} {
		rec, err := internaltopic.Decode(codecOf(t, rel), spec.TopicOffsets, key, val)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if rec.RecordType != 0 || rec.Key.Message.Name != want[0] || rec.Value.Message.Name != want[1] || rec.Value.Version != 0 {
			t.Errorf("%s: %d %s %s v%d, want 0 %s %s v0", rel, rec.RecordType, rec.Key.Message.Name, rec.Value.Message.Name, rec.Value.Version, want[0], want[1])
		}
	}
}

func TestTombstone(t *testing.T) {
	rec, err := internaltopic.Decode(codecOf(t, "4.4"), spec.TopicOffsets, unhex(t, offsetKey), nil)
	if err != nil || !rec.Tombstone || rec.Value != nil || rec.Key.Message.Name != "OffsetCommitKey" || rec.RecordType != 1 {
		t.Fatalf("tombstone: %+v, %v", rec, err)
	}
	// An empty value is not null: it is a value cut short.
	rec, err = internaltopic.Decode(codecOf(t, "4.4"), spec.TopicOffsets, unhex(t, offsetKey), []byte{})
	if rec.Tombstone || err == nil || err.Error() != "value: version at 0x0000: need 2 bytes, have 0" {
		t.Fatalf("empty value: tombstone %v, %v", rec.Tombstone, err)
	}
}

// A transaction's state: key record type 0 with transactional id "tid";
// value v0: producer id 1000, epoch 2, timeout 60000 ms, status 4
// (CompleteCommit), no partitions (null), updated at 16, started at 32.
func TestTransactionLog(t *testing.T) {
	key := unhex(t, "0000 0003 746964")
	val := unhex(t, "0000 00000000000003e8 0002 0000ea60 04 ffffffff 0000000000000010 0000000000000020")
	for _, rel := range []string{"4.4", "3.9.1"} {
		rec, err := internaltopic.Decode(codecOf(t, rel), spec.TopicTransactions, key, val)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if rec.Key.Message.Name != "TransactionLogKey" || rec.Value.Message.Name != "TransactionLogValue" {
			t.Fatalf("%s: %s %s", rel, rec.Key.Message.Name, rec.Value.Message.Name)
		}
		for path, want := range map[string]int64{"TransactionLogValue.ProducerId": 1000, "TransactionLogValue.ProducerEpoch": 2, "TransactionLogValue.TransactionTimeoutMs": 60000, "TransactionLogValue.TransactionStatus": 4, "TransactionLogValue.TransactionStartTimestampMs": 32} {
			if v, err := rec.Value.Get(path); err != nil || v.Int() != want {
				t.Errorf("%s: %s = %v (%v), want %d", rel, path, v, err, want)
			}
		}
		if v, err := rec.Value.Get("TransactionLogValue.TransactionPartitions"); err != nil || !v.IsNull() {
			t.Errorf("%s: TransactionPartitions = %v (%v), want null", rel, v, err)
		}
	}
}

// Bad input: each error names the part, the offset and the field path,
// and wraps what it is.
func TestErrors(t *testing.T) {
	cd := codecOf(t, "4.4")
	cases := []struct {
		name       string
		tp         spec.Topic
		key, value string
		null       bool // value null
		want       string
		is         error
		part       internaltopic.Part
		off        int
		path       string
	}{
		{"unknown record type", spec.TopicOffsets, "0063 0001 67", offsetValue, false,
			"key: record_type at 0x0000: no key spec of record type 99 in __consumer_offsets", internaltopic.ErrUnknownRecordType, internaltopic.PartKey, 0, "record_type"},
		{"unknown value version", spec.TopicOffsets, offsetKey, "0009 0000000000000064", false,
			"value: version at 0x0000: OffsetCommitValue has no version 9 (valid versions 0-4)", internaltopic.ErrUnknownVersion, internaltopic.PartValue, 0, "version"},
		{"truncated value", spec.TopicOffsets, offsetKey, "0003 00000000000000", false,
			"value: OffsetCommitValue.offset at 0x0002: need 8 bytes, have 7", nil, internaltopic.PartValue, 2, "OffsetCommitValue.offset"},
		{"key of one byte", spec.TopicOffsets, "00", offsetValue, false,
			"key: record_type at 0x0000: need 2 bytes, have 1", nil, internaltopic.PartKey, 0, "record_type"},
		{"truncated key", spec.TopicOffsets, "0001 0001 67 0001", offsetValue, false,
			"key: OffsetCommitKey.topic at 0x0007: length 1: need 1 byte, have 0", nil, internaltopic.PartKey, 7, "OffsetCommitKey.topic"},
		{"trailing bytes after the value", spec.TopicOffsets, offsetKey, offsetValue + "ff", false,
			"value: OffsetCommitValue at 0x0018: 1 byte left after the body (trailing bytes)", codec.ErrTrailing, internaltopic.PartValue, 24, "OffsetCommitValue"},
		{"null key", spec.TopicOffsets, "", offsetValue, false,
			"key at 0x0000: null key: a coordinator record's key holds its record type", internaltopic.ErrNullKey, internaltopic.PartKey, 0, ""},
		{"share-state record type 7", spec.TopicShareState, "0007 0000", "", true,
			"key: record_type at 0x0000: no key spec of record type 7 in __share_group_state", internaltopic.ErrUnknownRecordType, internaltopic.PartKey, 0, "record_type"},
		{"remote-log-metadata api key 9", spec.TopicRemoteLogMetadata, "", "01 09 00", false,
			"value: api_key at 0x0001: no record of __remote_log_metadata has api key 9", internaltopic.ErrUnknownRecordType, internaltopic.PartValue, 1, "api_key"},
		{"remote-log-metadata version 3", spec.TopicRemoteLogMetadata, "", "01 02 03", false,
			"value: version at 0x0002: RemotePartitionDeleteMetadataRecord has no version 3 (valid versions: 0)", internaltopic.ErrUnknownVersion, internaltopic.PartValue, 2, "version"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var key, value []byte
			if c.key != "" {
				key = unhex(t, c.key)
			}
			if !c.null {
				value = unhex(t, c.value)
			}
			rec, err := internaltopic.Decode(cd, c.tp, key, value)
			if rec == nil || err == nil {
				t.Fatalf("record %v, error %v", rec, err)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %s\nwant %s", err, c.want)
			}
			var e *internaltopic.Error
			if !errors.As(err, &e) || e.Part != c.part || e.Offset != c.off || e.Path != c.path {
				t.Errorf("error %#v, want part %s offset %d path %q", e, c.part, c.off, c.path)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v does not wrap %v", err, c.is)
			}
			// Whatever was decoded still covers its bytes.
			if rec.Key != nil && len(rec.Key.Nodes) > 0 && int(rec.Key.Nodes[0].Size) != len(key) {
				t.Errorf("key tree covers %d of %d bytes", rec.Key.Nodes[0].Size, len(key))
			}
			if rec.Value != nil && len(rec.Value.Nodes) > 0 && int(rec.Value.Nodes[0].Size) != len(value) {
				t.Errorf("value tree covers %d of %d bytes", rec.Value.Nodes[0].Size, len(value))
			}
		})
	}
	var we *wire.Error
	_, err := internaltopic.Decode(cd, spec.TopicOffsets, unhex(t, offsetKey), unhex(t, "0003 00000000000000"))
	if !errors.As(err, &we) || we.Need != 8 || we.Have != 7 {
		t.Errorf("truncated value: %v does not wrap the codec's *wire.Error", err)
	}
	if _, err := internaltopic.Decode(cd, "foo", nil, nil); err == nil || err.Error() != `unknown internal topic kind "foo" (want one of [offsets transactions share-state remote-log-metadata])` {
		t.Errorf("unknown topic kind: %v", err)
	}
}

// Every record type of every internal topic of both releases: the
// smallest key and value of each value version, encoded with the codec,
// decode through Decode to the same specs and versions, and re-encode to
// the same bytes.
func TestEveryRecordTypeRoundTrips(t *testing.T) {
	for _, rel := range []string{"4.4.0", "3.9.1"} {
		cd := codecOf(t, rel)
		n := 0
		for _, tp := range spec.Topics() {
			for _, rt := range cd.Set.RecordTypes(tp) {
				var key []byte
				km, vm := cd.Set.RecordKey(tp, rt), cd.Set.RecordValue(tp, rt)
				if tp == spec.TopicRemoteLogMetadata {
					vm = cd.Set.TopicRecord(tp, rt)
				} else {
					kv, _ := km.VersionOfPrefix(rt)
					kt, err := cd.EncodeRecord(km, kv, instance.Smallest(km, kv))
					if err != nil {
						t.Fatalf("%s %s: %v", rel, km.Name, err)
					}
					key = kt.Bytes
				}
				for v := vm.ValidVersions.Lo; v <= vm.ValidVersions.Hi; v++ {
					vt, err := cd.EncodeRecord(vm, v, instance.Smallest(vm, v))
					if err != nil {
						t.Fatalf("%s %s v%d: %v", rel, vm.Name, v, err)
					}
					rec, err := internaltopic.Decode(cd, tp, key, vt.Bytes)
					if err != nil {
						t.Fatalf("%s %s record type %d, %s v%d: %v", rel, tp, rt, vm.Name, v, err)
					}
					if rec.RecordType != rt || rec.Value.Message != vm || rec.Value.Version != v || (km != nil && rec.Key.Message != km) {
						t.Fatalf("%s %s record type %d v%d: decoded as %d %v v%d", rel, tp, rt, v, rec.RecordType, rec.Value.Message.Name, rec.Value.Version)
					}
					again, err := cd.EncodeRecord(vm, v, rec.Value.Sub(rec.Value.Part(tree.Body)))
					if err != nil || string(again.Bytes) != string(vt.Bytes) {
						t.Fatalf("%s %s v%d: re-encoded %x (%v), want %x", rel, vm.Name, v, again.Bytes, err, vt.Bytes)
					}
					n++
				}
			}
		}
		// 4.4.0: 22 group record types, 20 of them with one value version
		// and OffsetCommitValue and GroupMetadataValue with 5 each (30),
		// TransactionLogValue v0-1 (2), 2 share-state and 4
		// remote-log-metadata records: 38. 3.9.1: record types 0-11, with
		// 0 and 1 both OffsetCommitValue's 5 versions, GroupMetadataValue's
		// 5 and 9 of one (24), TransactionLogValue 2, 4 remote-log-metadata
		// records: 30.
		if want := map[string]int{"4.4.0": 38, "3.9.1": 30}[rel]; n != want {
			t.Errorf("%s: %d key/value versions, want %d", rel, n, want)
		}
	}
}

// Random bytes never panic and always come back with a record.
func TestRandomBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, rel := range []string{"4.4", "3.9.1"} {
		cd := codecOf(t, rel)
		for i := 0; i < 3000; i++ {
			tp := spec.Topics()[i%4]
			key := make([]byte, r.IntN(12))
			value := make([]byte, r.IntN(40))
			for j := range key {
				key[j] = byte(r.IntN(256))
			}
			for j := range value {
				value[j] = byte(r.IntN(256))
			}
			if len(key) >= 2 && r.IntN(2) == 0 {
				key[0], key[1] = 0, byte(r.IntN(24)) // a known record type, often
			}
			if len(value) >= 2 && r.IntN(2) == 0 {
				value[0], value[1] = 0, byte(r.IntN(5))
			}
			rec, _ := internaltopic.Decode(cd, tp, key, value)
			if rec == nil {
				t.Fatal("nil record")
			}
		}
	}
}
