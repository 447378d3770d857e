package records_test

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/kwire/kwire/records"
)

// featureLevelValue is the reference's FeatureLevelRecord{Name
// "metadata.version", FeatureLevel 20} v0 value, with its frame.
const featureLevelValue = "010c00116d657461646174612e76657273696f6e001400"

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBatchBytesIsTheReferenceBatch(t *testing.T) {
	v := mustHex(t, featureLevelValue)
	b := records.Batch{LeaderEpoch: 1, Records: []records.KeyValue{{Value: v}}}.Bytes()
	if len(b) != 91 {
		t.Fatalf("batch is %d bytes, want 91", len(b))
	}
	want := append(mustHex(t, "3a00000001"+"2e"), v...)
	want = append(want, 0)
	if !bytes.Equal(b[61:], want) {
		t.Fatalf("record part %x, want %x", b[61:], want)
	}
	tr := records.Decode(b, records.Options{})
	if errs := tr.Errors(); len(errs) != 0 {
		t.Fatalf("problems: %v", errs)
	}
	bs := records.LogBatches(tr)
	if len(bs) != 1 || !bs[0].CRCValid || bs[0].LeaderEpoch != 1 || bs[0].Count != 1 || bs[0].Magic != 2 {
		t.Fatalf("batches %+v", bs)
	}
	r := bs[0].Records
	if len(r) != 1 || r[0].Offset != 0 || !r[0].KeyNull || !bytes.Equal(r[0].Value, v) {
		t.Fatalf("records %+v", r)
	}
}

func TestLogBatchesOffsetsControlAndBadCRC(t *testing.T) {
	ctl := records.Batch{BaseOffset: 0, Control: true, Records: []records.KeyValue{{Key: mustHex(t, "00000003"), Value: mustHex(t, "0000000000000000271000")}}}.Bytes()
	data := records.Batch{BaseOffset: 5, Records: []records.KeyValue{{Key: []byte("k"), Value: []byte("a")}, {Value: []byte("b")}}}.Bytes()
	data[30] ^= 0xff // corrupt the baseTimestamp, which the CRC covers
	blob := append(append(ctl, data...), data[:20]...)
	tr := records.Decode(blob, records.Options{})
	bs := records.LogBatches(tr)
	if len(bs) != 2 {
		t.Fatalf("%d batches, want 2", len(bs))
	}
	if !bs[0].Control || !bs[0].CRCValid || bs[0].Records[0].ControlType() != records.ControlSnapshotHead {
		t.Fatalf("control batch %+v", bs[0])
	}
	if bs[1].CRCValid || bs[1].Control || len(bs[1].Records) != 2 || bs[1].Records[1].Offset != 6 || bs[1].Records[0].ControlType() != -1 {
		t.Fatalf("data batch %+v", bs[1])
	}
	if len(tr.Errors()) != 1 || len(tr.Problems) != 2 {
		t.Fatalf("problems %v: want the CRC error and the partial-batch notice", tr.Problems)
	}
}

func TestParseSnapshotName(t *testing.T) {
	off, ep, err := records.ParseSnapshotName("00000000000000000010-0000000001.checkpoint")
	if err != nil || off != 10 || ep != 1 {
		t.Fatalf("got %d %d %v", off, ep, err)
	}
	for _, bad := range []string{"00000000000000000010.log", "0010-0001.checkpoint", "0000000000000000001x-0000000001.checkpoint"} {
		if _, _, err := records.ParseSnapshotName(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
