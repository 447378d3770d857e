package records_test

import (
	"encoding/hex"
	"testing"

	"github.com/kwire/kwire/records"
)

// The bytes of RawBatch and Legacy, field by field; the CRCs were computed
// apart from kwire (CRC-32C and CRC-32 of the bytes they cover).
func TestRawBatchAndLegacyBytes(t *testing.T) {
	for _, c := range []struct {
		name string
		got  []byte
		want string
	}{
		{"raw batch", records.RawBatch{
			BaseOffset: 7, LeaderEpoch: 2, Attributes: 0x11, LastOffsetDelta: 4,
			BaseTimestamp: 1000, MaxTimestamp: 1010, ProducerID: 5, ProducerEpoch: 1, BaseSequence: 9,
			Count: 3, Records: []byte{0xaa, 0xbb},
		}.Bytes(),
			"0000000000000007 00000033 00000002 02 0d030268 0011 00000004 00000000000003e8 00000000000003f2 0000000000000005 0001 00000009 00000003 aabb"},
		{"magic 1", records.Legacy{Offset: 3, Magic: 1, Timestamp: 1234, Key: []byte("k")}.Bytes(),
			"0000000000000003 00000017 1dd2d0db 01 00 00000000000004d2 00000001 6b ffffffff"},
		{"magic 0", records.Legacy{Attributes: 1, Timestamp: 1234, Value: []byte("vv")}.Bytes(),
			"0000000000000000 00000010 65a95031 00 01 ffffffff 00000002 7676"},
	} {
		if got, want := hex.EncodeToString(c.got), hex.EncodeToString(unhex(t, c.want)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, want)
		}
	}
}

// A RawBatch reads back as the facts it was built from.
func TestRawBatchFacts(t *testing.T) {
	b := records.RawBatch{BaseOffset: 7, LeaderEpoch: 2, Attributes: 0x10, BaseTimestamp: 1000, MaxTimestamp: 1010,
		ProducerID: 5, ProducerEpoch: 1, BaseSequence: 9, Count: 1,
		Records: []byte{0x10, 0, 0, 0, 2, 'k', 2, 'v', 0}}
	tr := records.Decode(b.Bytes(), records.Options{})
	if len(tr.Problems) != 0 {
		t.Fatalf("problems: %v", tr.Problems)
	}
	for i := range tr.Nodes {
		f, ok := records.BatchFactsOf(tr, int32(i))
		if !ok {
			continue
		}
		want := records.BatchFacts{Magic: 2, BaseOffset: 7, Length: 58, LeaderEpoch: 2, StoredCRC: f.ComputedCRC,
			ComputedCRC: f.ComputedCRC, Attributes: 0x10, BaseTimestamp: 1000, MaxTimestamp: 1010,
			ProducerID: 5, ProducerEpoch: 1, BaseSequence: 9, Count: 1}
		if f != want {
			t.Errorf("facts\n got %+v\nwant %+v", f, want)
		}
		return
	}
	t.Fatal("no batch")
}
