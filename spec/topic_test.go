package spec

import (
	"testing"

	"github.com/kwire/kwire/spec/bundle"
)

// Which internal topic a spec's records belong to comes from where its
// file is: a coordinator's or storage module's directory or jar. A
// storage "metadata" record may then share an api key with a KRaft one.
func TestTopicsFromWhereTheFilesAre(t *testing.T) {
	const kraft = `{"apiKey": 2, "type": "metadata", "name": "TopicRecord", "validVersions": "0", "flexibleVersions": "0+", "fields": []}`
	const remote = `{"apiKey": 2, "type": "metadata", "name": "RemotePartitionDeleteMetadataRecord", "validVersions": "0", "flexibleVersions": "0+", "fields": []}`
	const key = `{"apiKey": 1, "type": "coordinator-key", "name": "OffsetCommitKey", "validVersions": "0", "flexibleVersions": "none", "fields": []}`
	const value = `{"apiKey": 1, "type": "coordinator-value", "name": "OffsetCommitValue", "validVersions": "0-4", "flexibleVersions": "4+", "fields": []}`
	const share = `{"apiKey": 1, "type": "coordinator-key", "name": "ShareUpdateKey", "validVersions": "0", "flexibleVersions": "none", "fields": []}`
	const txKey = `{"type": "data", "name": "TransactionLogKey", "validVersions": "0", "flexibleVersions": "none", "fields": []}`
	const txValue = `{"type": "data", "name": "TransactionLogValue", "validVersions": "0-1", "flexibleVersions": "1+", "fields": []}`
	s, errs := NewSet([]bundle.File{
		{Source: "kafka/metadata/src/main/resources", Path: "common/metadata/TopicRecord.json", Data: []byte(kraft)},
		{Source: "kafka/storage/src/main/resources", Path: "message/RemotePartitionDeleteMetadataRecord.json", Data: []byte(remote)},
		{Source: "kafka-group-coordinator-4.4.0.jar", Path: "common/message/OffsetCommitKey.json", Data: []byte(key)},
		{Source: "kafka-group-coordinator-4.4.0.jar", Path: "common/message/OffsetCommitValue.json", Data: []byte(value)},
		{Source: "kafka/share-coordinator/src/main/resources", Path: "common/message/ShareUpdateKey.json", Data: []byte(share)},
		{Source: "kafka-transaction-coordinator-3.9.1.jar", Path: "common/message/TransactionLogKey.json", Data: []byte(txKey)},
		{Source: "kafka-transaction-coordinator-3.9.1.jar", Path: "common/message/TransactionLogValue.json", Data: []byte(txValue)},
	})
	if errs.HasErrors() {
		t.Fatal(errs)
	}
	for name, want := range map[string]Topic{"TopicRecord": "", "RemotePartitionDeleteMetadataRecord": TopicRemoteLogMetadata,
		"OffsetCommitKey": TopicOffsets, "OffsetCommitValue": TopicOffsets, "ShareUpdateKey": TopicShareState,
		"TransactionLogKey": TopicTransactions, "TransactionLogValue": TopicTransactions} {
		if got := s.Message(name).Topic; got != want {
			t.Errorf("%s: topic %q, want %q", name, got, want)
		}
	}
	if m := s.MetadataRecord(2); m == nil || m.Name != "TopicRecord" {
		t.Errorf("MetadataRecord(2) = %v", m)
	}
	if m := s.TopicRecord(TopicRemoteLogMetadata, 2); m == nil || m.Name != "RemotePartitionDeleteMetadataRecord" {
		t.Errorf("TopicRecord(remote-log-metadata, 2) = %v", m)
	}
	if k, v := s.RecordKey(TopicOffsets, 1), s.RecordValue(TopicOffsets, 1); k == nil || v == nil || k.Name != "OffsetCommitKey" || v.Name != "OffsetCommitValue" {
		t.Errorf("offsets record type 1: %v, %v", k, v)
	}
	if k := s.RecordKey(TopicShareState, 1); k == nil || k.Name != "ShareUpdateKey" || s.RecordValue(TopicShareState, 1) != nil {
		t.Errorf("share-state record type 1: %v", k)
	}
	// 3.9's "data" form: the key's versions are its record types, and its
	// value (by name) has the same ones; the body is read at the record type.
	k, v := s.RecordKey(TopicTransactions, 0), s.RecordValue(TopicTransactions, 0)
	if k == nil || v == nil || v.RecordTypes != (Versions{0, 0}) || !k.IsRecordKey() || !v.IsRecordValue() {
		t.Fatalf("transactions record type 0: %v, %v", k, v)
	}
	if p, ok := k.Prefix(0); !ok || p != 0 {
		t.Errorf("TransactionLogKey prefix at v0 = %d, %v", p, ok)
	}
	if _, err := k.VersionOfPrefix(1); err == nil || err.Error() != "record type 1 is not TransactionLogKey's (0)" {
		t.Errorf("TransactionLogKey.VersionOfPrefix(1): %v", err)
	}
	if p, _ := s.Message("OffsetCommitKey").Prefix(0); p != 1 {
		t.Errorf("OffsetCommitKey prefix = %d, want its api key 1", p)
	}
	if got, want := s.RecordTypes(TopicOffsets), []int16{1}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("RecordTypes(offsets) = %v", got)
	}
	if tp, ok := TopicFor("__share_group_state"); !ok || tp != TopicShareState || tp.TopicName() != "__share_group_state" {
		t.Errorf("TopicFor(__share_group_state) = %q, %v", tp, ok)
	}
	if _, ok := TopicFor("__cluster_metadata"); ok {
		t.Error("TopicFor(__cluster_metadata): not a topic of coordinator or remote-log-metadata records")
	}
}
