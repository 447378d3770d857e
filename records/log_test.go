package records_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"reflect"
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

// TestLogBatchOf: one entry read on its own is LogBatches' entry for it; a
// node that is not a RecordBatch is refused.
func TestLogBatchOf(t *testing.T) {
	ctl := records.Batch{BaseOffset: 7, Control: true, Records: []records.KeyValue{{Key: mustHex(t, "00000000"), Value: mustHex(t, "000000000000")}}}.Bytes()
	data := records.Batch{BaseOffset: 8, Records: []records.KeyValue{{Value: []byte("a")}}}.Bytes()
	tr := records.Decode(append(ctl, data...), records.Options{})
	bs := records.LogBatches(tr)
	if len(bs) != 2 {
		t.Fatalf("%d batches", len(bs))
	}
	for _, want := range bs {
		got, ok := records.LogBatchOf(tr, want.Node)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("LogBatchOf(%d) = %+v, %v; want %+v", want.Node, got, ok, want)
		}
	}
	if b, _ := records.LogBatchOf(tr, bs[0].Node); b.Records[0].ControlType() != records.ControlAbort || b.BaseOffset != 7 {
		t.Errorf("control batch %+v", b)
	}
	if _, ok := records.LogBatchOf(tr, bs[0].Node+1); ok {
		t.Error("a batch field taken for a batch")
	}
	if _, ok := records.LogBatchOf(tr, int32(len(tr.Nodes))); ok {
		t.Error("a node past the end taken for a batch")
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

// Timestamps as Kafka's readers give them: baseTimestamp + timestampDelta
// under CreateTime, the batch's maxTimestamp under LogAppendTime; headers
// with their keys and values, a null value kept null.
func TestLogBatchesTimestampsAndHeaders(t *testing.T) {
	b := records.Batch{BaseOffset: 10, Timestamp: 1700000000000, Records: []records.KeyValue{
		{Key: []byte("k"), Value: []byte("abc"), Headers: []records.Header{{Key: "h1", Value: []byte("x")}, {Key: "h2", ValueNull: true}, {Key: "h3"}}},
		{Value: []byte("d"), TimestampDelta: 250},
	}}.Bytes()
	bs := records.LogBatches(records.Decode(b, records.Options{}))
	if len(bs) != 1 || bs[0].TimestampType != records.CreateTime || len(bs[0].Records) != 2 {
		t.Fatalf("batches %+v", bs)
	}
	r0, r1 := bs[0].Records[0], bs[0].Records[1]
	if r0.Timestamp != 1700000000000 || r0.TimestampType != records.CreateTime || r1.Timestamp != 1700000000250 || r1.Offset != 11 {
		t.Errorf("timestamps %d %d (%s), offset %d", r0.Timestamp, r1.Timestamp, r0.TimestampType, r1.Offset)
	}
	want := []records.Header{{Key: "h1", Value: []byte("x")}, {Key: "h2", ValueNull: true}, {Key: "h3", Value: []byte{}}}
	if !reflect.DeepEqual(r0.Headers, want) || r1.Headers != nil {
		t.Errorf("headers %+v and %+v, want %+v and none", r0.Headers, r1.Headers, want)
	}
	// The same batch under LogAppendTime (attributes bit 3, the CRC
	// recomputed): every record has the maxTimestamp, 1700000000250.
	b[22] |= 0x08
	binary.BigEndian.PutUint32(b[17:], records.CRC32C(b[21:]))
	bs = records.LogBatches(records.Decode(b, records.Options{}))
	if bs[0].TimestampType != records.LogAppendTime || bs[0].Attributes != 0x0008 || !bs[0].CRCValid {
		t.Fatalf("batch %+v", bs[0])
	}
	for _, r := range bs[0].Records {
		if r.Timestamp != 1700000000250 || r.TimestampType != records.LogAppendTime || r.TimestampType.String() != "LogAppendTime" {
			t.Errorf("offset %d: %d %s", r.Offset, r.Timestamp, r.TimestampType)
		}
	}
}

// Legacy messages are records too: magic 0 without a timestamp, magic 1
// with its own; the inner messages of a magic 1 wrapper get absolute
// offsets and, under LogAppendTime, the wrapper's timestamp.
func TestLogBatchesLegacyRecords(t *testing.T) {
	blob := legacyMessage(3, 1, 0, []byte("key"), []byte("value"))
	blob = append(blob, legacyMessage(4, 0, 0, nil, []byte("v0"))...)
	inner := append(legacyMessage(0, 1, 0, []byte("a"), []byte("x")), legacyMessage(1, 1, 0, []byte("b"), nil)...)
	wrapper := legacyMessage(6, 1, 0x08|1, nil, gzipBytes(inner)) // gzip, LogAppendTime
	binary.BigEndian.PutUint64(wrapper[18:], 5000)                // the wrapper's timestamp (the inner ones are 1234)
	binary.BigEndian.PutUint32(wrapper[12:], crc32.ChecksumIEEE(wrapper[16:]))
	blob = append(blob, wrapper...)
	tr := records.Decode(blob, records.Options{})
	if len(tr.Problems) != 0 {
		t.Fatalf("problems: %s", problems(tr))
	}
	bs := records.LogBatches(tr)
	if len(bs) != 3 {
		t.Fatalf("%d batches", len(bs))
	}
	type rec struct {
		off, ts   int64
		tt        records.TimestampType
		key, val  string
		knul, vnl bool
	}
	var got [][]rec
	for _, b := range bs {
		var rs []rec
		for _, r := range b.Records {
			rs = append(rs, rec{r.Offset, r.Timestamp, r.TimestampType, string(r.Key), string(r.Value), r.KeyNull, r.ValueNull})
		}
		got = append(got, rs)
	}
	want := [][]rec{
		{{3, 1234, records.CreateTime, "key", "value", false, false}},
		{{4, -1, records.NoTimestampType, "", "v0", true, false}},
		{{5, 5000, records.LogAppendTime, "a", "x", false, false}, {6, 5000, records.LogAppendTime, "b", "", false, true}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records\n got %+v\nwant %+v", got, want)
	}
	if b := bs[2]; b.BaseOffset != 6 || b.Count != 2 || b.Attributes != 0x09 || b.Magic != 1 || b.TimestampType != records.LogAppendTime {
		t.Errorf("wrapper %+v", b)
	}
	if b := bs[1]; b.Count != 1 || b.TimestampType != records.NoTimestampType || b.TimestampType.String() != "NoTimestampType" {
		t.Errorf("magic 0 %+v", b)
	}
}
