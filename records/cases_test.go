package records_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/snappy"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// c14 is wire case C14: a control batch holding a COMMIT transaction
// marker.
const c14 = `0000000000000005 00000042 00000000 02 c2d2b7da 0030 00000000 0000018bcfe56800 0000018bcfe56800 0000000000000fa0 0000 ffffffff 00000001
	20 00 00 00 08 00000001 0c 000000000000 00`

func specSet(t testing.TB) *spec.Set {
	t.Helper()
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// specOptions decode KRaft control and metadata records with the codec.
func specOptions(t testing.TB, metadata bool) records.Options {
	s := specSet(t)
	o := codec.New(s).RecordsOptions()
	o.Metadata = metadata
	return o
}

// num returns the Num of the child of i named name, failing when absent.
func num(t *testing.T, tr *tree.Tree, i int32, name string) int64 {
	t.Helper()
	c := child(tr, i, name)
	if c < 0 {
		t.Fatalf("node %d (%s) has no %q", i, tr.Name(i), name)
	}
	return tr.Num(c)
}

func TestC14ControlBatchCommitMarker(t *testing.T) {
	b := unhex(t, c14)
	tr := records.Decode(b, records.Options{})
	checkTiles(t, tr)
	if len(tr.Problems) != 0 {
		t.Fatalf("problems: %s", problems(tr))
	}
	batches := find(tr, tree.RecordBatch, "RecordBatch")
	if len(batches) != 1 {
		t.Fatalf("%d batches", len(batches))
	}
	bi := batches[0]
	if tr.Nodes[bi].Flags()&tree.FlagBadCRC != 0 || tr.Nodes[bi].Size != 78 {
		t.Errorf("batch %+v: want 78 bytes, CRC valid", tr.Nodes[bi])
	}
	for name, want := range map[string]int64{"baseOffset": 5, "batchLength": 0x42, "crc": 0xc2d2b7da, "attributes": 0x30, "producerId": 4000, "producerEpoch": 0, "baseSequence": -1, "recordsCount": 1, "baseTimestamp": 1700000000000} {
		if got := num(t, tr, bi, name); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	attrs := num(t, tr, bi, "attributes")
	if attrs&7 != 0 || attrs&0x10 == 0 || attrs&0x20 == 0 || attrs&8 != 0 || attrs&0x40 != 0 {
		t.Errorf("attributes 0x%x: want uncompressed, CreateTime, transactional, control", attrs)
	}
	r := child(tr, bi, "Record")
	if r < 0 || records.RecordOffset(tr, r) != 5 {
		t.Fatalf("record %d, offset %d: want offset 5", r, records.RecordOffset(tr, r))
	}
	key, value := child(tr, r, "key"), child(tr, r, "value")
	if tr.IsLeaf(key) || tr.IsLeaf(value) {
		t.Fatal("the control key and value are not decoded")
	}
	if num(t, tr, key, "version") != 0 || num(t, tr, key, "type") != records.ControlCommit {
		t.Errorf("key: version %d type %d", num(t, tr, key, "version"), num(t, tr, key, "type"))
	}
	if ty := child(tr, key, "type"); !strings.HasPrefix(tr.About(ty), "control record type COMMIT") {
		t.Errorf("type about %q", tr.About(ty))
	}
	if num(t, tr, value, "version") != 0 || num(t, tr, value, "coordinatorEpoch") != 0 {
		t.Error("EndTxnMarker is not {version 0, coordinatorEpoch 0}")
	}
	if got := records.ControlTypeName(1); got != "COMMIT" {
		t.Errorf("ControlTypeName(1) = %q", got)
	}
}

// controlRecord is a control record of type typ holding value.
func controlRecord(typ int16, value []byte) rec {
	key := binary.BigEndian.AppendUint16([]byte{0, 0}, uint16(typ))
	return rec{key: key, value: value}
}

// kraftBatch is a batch as KRaft's BatchBuilder writes it (producer
// fields -1, leader epoch 1, timestamp 0), control when attrs has bit 5.
func kraftBatch(baseOffset int64, attrs int16, rs []rec) []byte {
	recs := make([]byte, 0)
	for i, r := range rs {
		recs = append(recs, recordBytes(i, r)...)
	}
	return batch{baseOffset: baseOffset, leaderEpoch: 1, attrs: attrs, lastDelta: int32(len(rs) - 1), producerID: -1, epoch: -1, seq: -1, count: int32(len(rs))}.bytes(recs)
}

func TestC15SnapshotHeaderAndFeatureLevelRecord(t *testing.T) {
	header := kraftBatch(0, 0x20, []rec{controlRecord(3, unhex(t, "0000 0000000000002710 00"))})
	data := kraftBatch(1, 0, []rec{{value: unhex(t, "01 0c 00 0e 6b726166742e76657273696f6e 0001 00")}})
	tr := records.Decode(append(header, data...), specOptions(t, true))
	checkTiles(t, tr)
	if len(tr.Problems) != 0 {
		t.Fatalf("problems: %s", problems(tr))
	}
	// The control record: key version 0 type 3, value SnapshotHeaderRecord v0.
	sh := find(tr, tree.Embedded, "SnapshotHeaderRecord")
	if len(sh) != 1 {
		t.Fatalf("%d SnapshotHeaderRecord nodes", len(sh))
	}
	e := sh[0]
	if tr.NodeVersion(e) != 0 || num(t, tr, e, "Version") != 0 || num(t, tr, e, "LastContainedLogTimestamp") != 10000 {
		t.Errorf("SnapshotHeaderRecord: version %d, fields %d %d", tr.NodeVersion(e), num(t, tr, e, "Version"), num(t, tr, e, "LastContainedLogTimestamp"))
	}
	keys := find(tr, tree.BatchField, "type")
	if len(keys) != 1 || tr.Num(keys[0]) != 3 || !strings.Contains(tr.About(keys[0]), "SNAPSHOT_HEADER") {
		t.Errorf("control type nodes %v", keys)
	}
	// The data record: frame version 1, api key 12, FeatureLevelRecord v0.
	fl := find(tr, tree.Embedded, "FeatureLevelRecord")
	if len(fl) != 1 {
		t.Fatalf("%d FeatureLevelRecord nodes", len(fl))
	}
	e = fl[0]
	frame := tr.Find(e, tree.Frame)
	if frame < 0 {
		t.Fatal("no frame")
	}
	if num(t, tr, frame, "frame_version") != 1 || num(t, tr, frame, "api_key") != 12 || num(t, tr, frame, "version") != 0 {
		t.Error("frame is not {1, 12, 0}")
	}
	name := child(tr, e, "Name")
	if name < 0 || string(tr.Data(name)) != "kraft.version" || num(t, tr, e, "FeatureLevel") != 1 {
		t.Errorf("FeatureLevelRecord fields: %q, %d", tr.Data(name), num(t, tr, e, "FeatureLevel"))
	}
	// Without Metadata the data record's value stays bytes.
	tr = records.Decode(append(header, data...), specOptions(t, false))
	if len(find(tr, tree.Embedded, "FeatureLevelRecord")) != 0 || len(find(tr, tree.Embedded, "SnapshotHeaderRecord")) != 1 {
		t.Error("Metadata false still decodes the metadata record, or not the control record")
	}
	// Without specs, the control record value stays bytes too.
	tr = records.Decode(header, records.Options{})
	if len(find(tr, tree.Embedded, "SnapshotHeaderRecord")) != 0 || len(tr.Problems) != 0 {
		t.Error("no specs: the control record's value should stay bytes, without a problem")
	}
}

// The reference's own examples: the snapshot-header control batch is 83
// bytes and the FeatureLevelRecord batch 91.
func TestKRaftBatchSizesOfTheReference(t *testing.T) {
	sh := kraftBatch(0, 0x20, []rec{controlRecord(3, unhex(t, "0000 0000000000000000 00"))})
	if len(sh) != 83 || !bytes.HasSuffix(sh, unhex(t, "2a 00 00 00 08 00000003 16 0000 0000000000000000 00 00")) {
		t.Errorf("snapshot header batch: %d bytes %x", len(sh), sh)
	}
	fl := kraftBatch(0, 0, []rec{{value: unhex(t, "01 0c 00 11 6d65746164617461 2e76657273696f6e 0014 00")}})
	if len(fl) != 91 || !bytes.HasSuffix(fl, unhex(t, "3a 00 00 00 01 2e 01 0c 00 11 6d65746164617461 2e76657273696f6e 0014 00 00")) {
		t.Errorf("FeatureLevelRecord batch: %d bytes %x", len(fl), fl)
	}
	tr := records.Decode(append(sh, fl...), specOptions(t, true))
	checkTiles(t, tr)
	e := find(tr, tree.Embedded, "FeatureLevelRecord")
	if len(tr.Problems) != 0 || len(e) != 1 || num(t, tr, e[0], "FeatureLevel") != 20 {
		t.Errorf("problems %s, nodes %v", problems(tr), e)
	}
}

func TestEveryKRaftControlRecordDecodesWithItsSpec(t *testing.T) {
	s := specSet(t)
	c := codec.New(s)
	for typ := 2; typ <= 6; typ++ {
		m := s.Message(records.ControlMessage(typ))
		if m == nil {
			t.Fatalf("no spec %q", records.ControlMessage(typ))
		}
		val, err := c.EncodeBody(m, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := kraftBatch(0, 0x20, []rec{controlRecord(int16(typ), val.Bytes)})
		tr := records.Decode(b, specOptions(t, false))
		checkTiles(t, tr)
		if e := find(tr, tree.Embedded, m.Name); len(e) != 1 || len(tr.Problems) != 0 {
			t.Errorf("type %d: %d %s nodes, problems %s", typ, len(e), m.Name, problems(tr))
		}
	}
}

// xerialC13 builds C13's payload: the xerial magic, the version words as
// the case has them (01000000 twice, not big-endian 1), one chunk of
// exactly 0xc39b bytes holding records.
func xerialC13(t *testing.T) (payload, recs []byte) {
	r := rand.New(rand.NewPCG(13, 13))
	noise := make([]byte, 0xc39b)
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	for n := 0xc39b - 400; n <= 0xc39b; n++ {
		recs = recordsBytes([]rec{{key: []byte("k"), value: noise[:n]}})
		c := snappy.Encode(nil, recs)
		if len(c) == 0xc39b {
			payload = unhex(t, "82 534e41505059 00 01000000 01000000 0000c39b")
			return append(payload, c...), recs
		}
	}
	t.Fatal("no record size gives a 0xc39b-byte snappy chunk")
	return nil, nil
}

func TestC13SnappyXerialFraming(t *testing.T) {
	payload, recs := xerialC13(t)
	if !bytes.HasPrefix(payload, unhex(t, "82 534e41505059 00 01000000 01000000 0000c39b")) {
		t.Fatalf("payload starts %x", payload[:20])
	}
	b := batch{baseOffset: 100, attrs: 2, baseTs: 1, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(payload)
	tr := records.Decode(b, records.Options{})
	checkTiles(t, tr)
	if len(tr.Problems) != 0 {
		t.Fatalf("problems: %s", problems(tr))
	}
	d := find(tr, tree.Decompressed, "decompressed")
	if len(d) != 1 || !bytes.Equal(tr.Data(d[0]), recs) || tr.Compression(d[0]) != 2 {
		t.Fatalf("the xerial chunk is not decoded to the records")
	}
	r := child(tr, d[0], "Record")
	if r < 0 || records.RecordOffset(tr, r) != 100 || string(tr.Data(child(tr, r, "key"))) != "k" {
		t.Errorf("inner record %d", r)
	}
	// Raw snappy, without the magic, decodes too.
	b = batch{baseOffset: 100, attrs: 2, baseTs: 1, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(snappy.Encode(nil, recs))
	tr = records.Decode(b, records.Options{})
	checkTiles(t, tr)
	if d := find(tr, tree.Decompressed, "decompressed"); len(d) != 1 || !bytes.Equal(tr.Data(d[0]), recs) || len(tr.Problems) != 0 {
		t.Errorf("raw snappy: problems %s", problems(tr))
	}
}

func TestC17LegacyThenV2ThenAPartialTail(t *testing.T) {
	legacy := legacyMessage(3, 1, 0, []byte("key"), []byte("value"))
	next := dataBatch(6, 0, []rec{{value: []byte("x")}}, nil)
	b := append(append(legacy, unhex(t, c14)...), next[:20]...)
	tr := records.Decode(b, records.Options{})
	checkTiles(t, tr)
	var entries []int32
	tr.Children(0, func(c int32) bool { entries = append(entries, c); return true })
	if len(entries) != 3 {
		t.Fatalf("%d entries", len(entries))
	}
	l, v2, tail := &tr.Nodes[entries[0]], &tr.Nodes[entries[1]], &tr.Nodes[entries[2]]
	if l.Kind() != tree.RecordBatch || tr.Magic(entries[0]) != 1 || tr.Name(entries[0]) != "LegacyMessage" || l.Flags()&tree.FlagBadCRC != 0 {
		t.Errorf("first entry %+v %q: want a valid legacy v1 message", *l, tr.Name(entries[0]))
	}
	if string(tr.Data(child(tr, entries[0], "value"))) != "value" || num(t, tr, entries[0], "timestamp") != 1234 {
		t.Error("legacy key/value/timestamp not decoded")
	}
	if v2.Kind() != tree.RecordBatch || tr.Magic(entries[1]) != 2 || v2.Off != int32(len(legacy)) || v2.Size != 78 {
		t.Errorf("second entry %+v: want C14's batch", *v2)
	}
	if tail.Kind() != tree.Raw || tr.Name(entries[2]) != "partial batch" || tail.Size != 20 {
		t.Errorf("tail %+v %q", *tail, tr.Name(entries[2]))
	}
	// A partial tail is a notice, not an error.
	if len(tr.Errors()) != 0 || len(tr.Problems) != 1 || !tr.Problems[0].Notice {
		t.Fatalf("problems: %s", problems(tr))
	}
	p := tr.Problems[0]
	if p.Off != int32(len(legacy)+78) || p.Path != "records[2]" {
		t.Errorf("partial batch reported as %s", p)
	}
}

// A compressed KRaft batch: the messages decoded inside the decompressed
// view are virtual, and their values read from the virtual bytes.
func TestKRaftRecordsInsideACompressedBatch(t *testing.T) {
	head := recordBytes(0, controlRecord(3, unhex(t, "0000 0000000000002710 00")))
	ctl := batch{attrs: 0x20 | 4, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(zstdBytes(head))
	val := recordBytes(0, rec{value: unhex(t, "01 0c 00 0e 6b726166742e76657273696f6e 0001 00")})
	data := batch{baseOffset: 1, attrs: 1, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(gzipBytes(val))
	tr := records.Decode(append(ctl, data...), specOptions(t, true))
	checkTiles(t, tr)
	if len(tr.Problems) != 0 {
		t.Fatalf("problems: %s", problems(tr))
	}
	sh, fl := find(tr, tree.Embedded, "SnapshotHeaderRecord"), find(tr, tree.Embedded, "FeatureLevelRecord")
	if len(sh) != 1 || len(fl) != 1 || !tr.IsVirtual(sh[0]) || !tr.IsVirtual(fl[0]) {
		t.Fatalf("embedded %v %v", sh, fl)
	}
	if num(t, tr, sh[0], "LastContainedLogTimestamp") != 10000 {
		t.Error("SnapshotHeaderRecord inside zstd")
	}
	if name := child(tr, fl[0], "Name"); string(tr.Data(name)) != "kraft.version" || !tr.IsVirtual(name) {
		t.Errorf("FeatureLevelRecord.Name = %q inside gzip", tr.Data(name))
	}
	// A bad metadata record value inside the view: reported with its
	// virtual offset and path, and the tree still tiles.
	bad := recordBytes(0, rec{value: unhex(t, "01 0c 00 0e 6b72")})
	data = batch{baseOffset: 1, attrs: 1, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(gzipBytes(bad))
	tr = records.Decode(data, specOptions(t, true))
	checkTiles(t, tr)
	if len(tr.Problems) != 1 || tr.Problems[0].VOff < 0 || tr.Problems[0].Off != 61 || !strings.HasPrefix(tr.Problems[0].Path, "records[0].decompressed.Record[0].value.FeatureLevelRecord.Name") {
		t.Errorf("problems: %s", problems(tr))
	}
}
