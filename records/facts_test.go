package records_test

import (
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

func TestCompressionNames(t *testing.T) {
	for c, want := range map[records.Compression]string{
		records.CompressionNone:   "uncompressed",
		records.CompressionGzip:   "gzip",
		records.CompressionSnappy: "snappy",
		records.CompressionLZ4:    "lz4",
		records.CompressionZstd:   "zstd",
		5:                         "compression 5",
		7:                         "compression 7",
	} {
		if got := c.String(); got != want {
			t.Errorf("Compression(%d) = %q, want %q", c, got, want)
		}
	}
}

func TestAttributesBits(t *testing.T) {
	a := records.Attributes(0x79) // gzip, LogAppendTime, transactional, control, delete horizon
	if a.Compression() != records.CompressionGzip || a.TimestampType() != records.LogAppendTime || !a.Transactional() || !a.Control() || !a.DeleteHorizon() {
		t.Errorf("0x79: %v %v %v %v %v", a.Compression(), a.TimestampType(), a.Transactional(), a.Control(), a.DeleteHorizon())
	}
	z := records.Attributes(0x04)
	if z.Compression() != records.CompressionZstd || z.TimestampType() != records.CreateTime || z.Transactional() || z.Control() || z.DeleteHorizon() {
		t.Errorf("0x04: %v %v %v %v %v", z.Compression(), z.TimestampType(), z.Transactional(), z.Control(), z.DeleteHorizon())
	}
	for _, c := range []struct {
		a     records.Attributes
		magic int8
		want  string
	}{
		{0x79, 2, "gzip, LogAppendTime, transactional, control, delete horizon"},
		{0x79, 1, "gzip, LogAppendTime"},
		{0x79, 0, "gzip"},
		{0x20, 2, "uncompressed, CreateTime, control"},
		{0x0e, 1, "compression 6, LogAppendTime"},
		{-1, 1, "compression 7, LogAppendTime"}, // an int8 0xff, sign-extended
	} {
		if got := string(c.a.AppendText([]byte("<"), c.magic)); got != "<"+c.want {
			t.Errorf("Attributes(%#x).AppendText(magic %d) = %q, want %q", c.a, c.magic, got, "<"+c.want)
		}
	}
}

func TestBatchFactsOfAV2Batch(t *testing.T) {
	b := batch{baseOffset: 40, leaderEpoch: 7, attrs: 0x18, lastDelta: 1, baseTs: 1000, producerID: 99, epoch: 3, seq: 12, count: 2}.bytes(recordsBytes([]rec{{key: []byte("a")}, {value: []byte("b")}}))
	binary.BigEndian.PutUint64(b[35:], 5000) // maxTimestamp
	binary.BigEndian.PutUint32(b[17:], records.CRC32C(b[21:]))
	tr := records.Decode(b, records.Options{})
	if len(tr.Problems) != 0 {
		t.Fatalf("problems: %v", tr.Problems)
	}
	bi := tr.Find(0, tree.RecordBatch)
	f, ok := records.BatchFactsOf(tr, bi)
	crc := records.CRC32C(b[21:])
	want := records.BatchFacts{Magic: 2, BaseOffset: 40, Length: int32(len(b) - 12), LeaderEpoch: 7, StoredCRC: crc, ComputedCRC: crc,
		Attributes: 0x18, LastOffsetDelta: 1, BaseTimestamp: 1000, MaxTimestamp: 5000, ProducerID: 99, ProducerEpoch: 3, BaseSequence: 12, Count: 2}
	if !ok || f != want || !f.CRCValid() {
		t.Fatalf("facts %+v, %v\nwant  %+v", f, ok, want)
	}
	if _, ok := records.BatchFactsOf(tr, 0); ok {
		t.Error("the Records root has batch facts")
	}
	if _, ok := records.BatchFactsOf(tr, int32(len(tr.Nodes))); ok {
		t.Error("a node past the end has batch facts")
	}
	// LogAppendTime: every record takes the batch's maxTimestamp.
	bs := records.LogBatches(tr)
	if len(bs) != 1 || len(bs[0].Records) != 2 || bs[0].Records[0].Timestamp != 5000 || bs[0].Records[1].Timestamp != 5000 {
		t.Fatalf("log batches %+v", bs)
	}

	// A bad CRC: stored and computed both kept.
	b[17] ^= 0xff
	tr = records.Decode(b, records.Options{})
	f, _ = records.BatchFactsOf(tr, tr.Find(0, tree.RecordBatch))
	if f.CRCValid() || f.StoredCRC != crc^0xff000000 || f.ComputedCRC != crc {
		t.Errorf("bad CRC facts: stored %#x computed %#x (want %#x, %#x)", f.StoredCRC, f.ComputedCRC, crc^0xff000000, crc)
	}
}

func TestLogRecordTimestampsUnderCreateTime(t *testing.T) {
	b := dataBatch(0, 0, []rec{{key: []byte("a")}, {key: []byte("b")}, {key: []byte("c")}}, nil)
	bs := records.LogBatches(records.Decode(b, records.Options{}))
	if len(bs) != 1 || len(bs[0].Records) != 3 {
		t.Fatalf("batches %+v", bs)
	}
	// baseTimestamp 1000 plus timestampDelta 10*i.
	for i, r := range bs[0].Records {
		if r.Timestamp != 1000+10*int64(i) {
			t.Errorf("record %d timestamp %d, want %d", i, r.Timestamp, 1000+10*i)
		}
	}
}

func TestBatchFactsOfLegacyMessages(t *testing.T) {
	data := append(legacyMessage(5, 1, 0x0a, []byte("k"), []byte("v")), legacyMessage(6, 0, 0, nil, []byte("w"))...)
	tr := records.Decode(data, records.Options{MaxDecompressed: -1})
	var got []records.BatchFacts
	tr.Children(0, func(c int32) bool {
		if f, ok := records.BatchFactsOf(tr, c); ok {
			got = append(got, f)
		}
		return true
	})
	if len(got) != 2 {
		t.Fatalf("facts %+v", got)
	}
	crc1 := crc32.ChecksumIEEE(data[16:legacyLen(data, 0)])
	want1 := records.BatchFacts{Magic: 1, BaseOffset: 5, Length: int32(legacyLen(data, 0) - 12), LeaderEpoch: -1, StoredCRC: crc1, ComputedCRC: crc1,
		Attributes: 0x0a, BaseTimestamp: 1234, MaxTimestamp: 1234, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Count: 1}
	if got[0] != want1 {
		t.Errorf("magic 1 facts %+v\nwant %+v", got[0], want1)
	}
	if f := got[1]; f.Magic != 0 || f.BaseOffset != 6 || f.BaseTimestamp != -1 || f.MaxTimestamp != -1 || !f.CRCValid() || f.Attributes != 0 {
		t.Errorf("magic 0 facts %+v", f)
	}
}

// legacyLen is the length of the legacy entry at data[off:].
func legacyLen(data []byte, off int) int {
	return 12 + int(binary.BigEndian.Uint32(data[off+8:]))
}

func TestPartialBatchFacts(t *testing.T) {
	whole := dataBatch(0, 0, []rec{{key: []byte("a")}}, nil)
	for _, c := range []struct {
		cut           int
		length, bytes int32
		ok            bool
	}{
		{cut: 10},
		{cut: 12},
		{cut: 16},
		{cut: 17, length: int32(len(whole) - 12), bytes: 5, ok: true},
		{cut: 40, length: int32(len(whole) - 12), bytes: 28, ok: true},
	} {
		tr := records.Decode(whole[:c.cut], records.Options{})
		leaf := tr.Find(0, tree.Raw)
		if leaf < 0 || tr.Name(leaf) != "partial batch" {
			t.Fatalf("cut %d: no partial batch leaf", c.cut)
		}
		length, present, ok := records.PartialBatch(tr, leaf)
		if length != c.length || present != c.bytes || ok != c.ok {
			t.Errorf("cut %d: PartialBatch = %d, %d, %v; want %d, %d, %v", c.cut, length, present, ok, c.length, c.bytes, c.ok)
		}
		if _, _, ok := records.PartialBatch(tr, 0); ok {
			t.Errorf("cut %d: the root is a partial batch", c.cut)
		}
	}
}

// ControlType reads the type decoded from a control batch's keys; the
// same key bytes in a data batch are user data, not a control type.
func TestControlTypeComesFromTheControlKey(t *testing.T) {
	key := []byte{0, 0, 0, 1}
	ctl := records.Batch{Control: true, Records: []records.KeyValue{{Key: key, Value: []byte{0, 0, 0, 0, 0, 5}}}}.Bytes()
	data := records.Batch{BaseOffset: 1, Records: []records.KeyValue{{Key: key, Value: []byte("v")}}}.Bytes()
	short := records.Batch{BaseOffset: 2, Control: true, Records: []records.KeyValue{{Key: key[:3]}}}.Bytes()
	bs := records.LogBatches(records.Decode(append(append(ctl, data...), short...), records.Options{}))
	if len(bs) != 3 {
		t.Fatalf("batches %+v", bs)
	}
	for i, want := range []int{records.ControlCommit, -1, -1} {
		if len(bs[i].Records) != 1 || bs[i].Records[0].ControlType() != want {
			t.Errorf("batch %d: records %+v, want control type %d", i, bs[i].Records, want)
		}
	}
}
