package render

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// The record texts that the codec no longer stores per node (batch size
// and CRC check, attributes, payload compression, legacy magic, partial
// batch lengths, record and header indexes) are composed here from node
// values; these tests decode hand-built records and check them.

type header struct{ key, value []byte }

// varBytes appends a zig-zag varint length (-1 for nil) and b.
func varBytes(out, b []byte) []byte {
	if b == nil {
		return binary.AppendVarint(out, -1)
	}
	return append(binary.AppendVarint(out, int64(len(b))), b...)
}

// recordV2 is record i of a v2 batch.
func recordV2(i int, key, value []byte, headers ...header) []byte {
	body := []byte{0} // attributes
	body = binary.AppendVarint(body, int64(i)*10)
	body = binary.AppendVarint(body, int64(i))
	body = varBytes(body, key)
	body = varBytes(body, value)
	body = binary.AppendVarint(body, int64(len(headers)))
	for _, h := range headers {
		body = varBytes(body, h.key)
		body = varBytes(body, h.value)
	}
	return append(binary.AppendVarint(nil, int64(len(body))), body...)
}

// batchV2 is a RecordBatch v2 of count records whose bytes are payload; a
// bad batch stores a CRC that does not match.
func batchV2(attrs int16, count int32, payload []byte, bad bool) []byte {
	b := records.RawBatch{Attributes: records.Attributes(attrs), LastOffsetDelta: max(count-1, 0), BaseTimestamp: 1000,
		MaxTimestamp: 1010, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Count: count, Records: payload}.Bytes()
	if bad {
		binary.BigEndian.PutUint32(b[17:], binary.BigEndian.Uint32(b[17:])^0xdeadbeef)
	}
	return b
}

// legacyMessage is a magic 0 or 1 message set entry.
func legacyMessage(magic byte, key, value []byte) []byte {
	return records.Legacy{Magic: int8(magic), Timestamp: 1234, Key: key, Value: value}.Bytes()
}

// produceRequest frames a non-flexible ProduceRequest (v2 or v3) of one
// partition holding records.
func produceRequest(version int16, records []byte) []byte {
	str := func(b []byte, s string) []byte {
		return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...)
	}
	m := binary.BigEndian.AppendUint16(nil, 0) // api key
	m = binary.BigEndian.AppendUint16(m, uint16(version))
	m = binary.BigEndian.AppendUint32(m, 7) // correlation id
	m = str(m, "cli")
	if version >= 3 {
		m = binary.BigEndian.AppendUint16(m, 0xffff) // null transactional id
	}
	m = binary.BigEndian.AppendUint16(m, 1)    // acks
	m = binary.BigEndian.AppendUint32(m, 1000) // timeout
	m = binary.BigEndian.AppendUint32(m, 1)    // one topic
	m = str(m, "topic")
	m = binary.BigEndian.AppendUint32(m, 1) // one partition
	m = binary.BigEndian.AppendUint32(m, 0)
	m = binary.BigEndian.AppendUint32(m, uint32(len(records)))
	m = append(m, records...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(m))), m...)
}

func decodeRequest(t *testing.T, s *spec.Set, b []byte) *tree.Tree {
	t.Helper()
	tr, err := codec.New(s).DecodeRequest(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, hex.EncodeToString(b))
	}
	return tr
}

// recordsV3 is a Produce v3 request whose records hold an uncompressed
// batch of two records (with headers), a compressed batch with a bad CRC
// and every attribute bit set, and a partial batch.
func recordsV3(t *testing.T, s *spec.Set) *tree.Tree {
	recs := append(recordV2(0, []byte("k1"), []byte(`{"a":1}`), header{[]byte("h1"), []byte("x")}, header{[]byte("h2"), nil}),
		recordV2(1, nil, []byte{0, 1})...)
	records := batchV2(0, 2, recs, false)
	records = append(records, batchV2(1|8|16|32|64, 1, []byte("\x1f\x8b\x08\x00garbage"), true)...)
	records = append(records, make([]byte, 10)...)
	return decodeRequest(t, s, produceRequest(3, records))
}

// legacyWrapper is a magic 1 gzip wrapper message at offset (the last
// inner message's) whose value is compressed.
func legacyWrapper(offset uint64, compressed []byte) []byte {
	body := []byte{1, 1} // magic 1, gzip
	body = binary.BigEndian.AppendUint64(body, 1234)
	body = binary.BigEndian.AppendUint32(body, 0xffffffff) // null key
	body = binary.BigEndian.AppendUint32(body, uint32(len(compressed)))
	body = append(body, compressed...)
	msg := binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(body))
	msg = append(msg, body...)
	b := binary.BigEndian.AppendUint64(nil, offset)
	b = binary.BigEndian.AppendUint32(b, uint32(len(msg)))
	return append(b, msg...)
}

// gzipped is p compressed with gzip.
func gzipped(p []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(p)
	w.Close()
	return buf.Bytes()
}

// recordsCompressed is a Produce v3 request whose records hold a gzip
// batch of two records, a KRaft control batch (a SnapshotHeaderRecord,
// decoded with its spec) whose CRC is bad, a legacy magic 1 gzip wrapper
// of two messages and a record whose length counts a byte too many.
func recordsCompressed(t *testing.T, s *spec.Set) *tree.Tree {
	recs := append(recordV2(0, []byte("k1"), []byte("v1"), header{[]byte("h"), []byte("x")}), recordV2(1, nil, []byte("v2"))...)
	records := batchV2(1, 2, gzipped(recs), false)
	snap := recordV2(0, []byte{0, 0, 0, 3}, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0x27, 0x10, 0})
	records = append(records, batchV2(0x20, 1, snap, true)...)
	first := legacyMessage(1, []byte("a"), []byte("1"))
	second := legacyMessage(1, nil, []byte("2"))
	binary.BigEndian.PutUint64(second, 1) // relative offset 1
	wrapper := legacyWrapper(7, gzipped(append(first, second...)))
	records = append(records, wrapper...)
	fat := recordV2(0, []byte("k"), []byte("v"))
	fat = append([]byte{fat[0] + 2}, fat[1:]...)
	records = append(records, batchV2(0, 1, append(fat, 0xee), false)...)
	return decodeRequest(t, s, produceRequest(3, records))
}

func TestCompressedRecordsAndProblems(t *testing.T) {
	s := embedded(t, "4.4.0")
	tr := recordsCompressed(t, s)
	if len(tr.Problems) != 2 {
		t.Fatalf("problems %v", tr.Problems)
	}
	rows := rowsOf(tr)
	for name, want := range map[string]string{
		"decompressed":              "gzip payload decompressed, not wire bytes (v offsets); inner offsets relative to 6",
		"SnapshotHeaderRecord":      "SnapshotHeaderRecord message v0",
		"LastContainedLogTimestamp": "= 10000",
		"compressed records":        "gzip records payload, decompressed below",
		"LegacyMessage v1":          "message set entry, magic 1, 35 bytes, offset 7",
	} {
		if !strings.Contains(rows[name], want) {
			t.Errorf("%s row = %q, want %q in it", name, rows[name], want)
		}
	}
	golden(t, "produce_v3_compressed.tree.txt", treeText(t, tr))
}

// rowsOf maps each node's name to its row text (the last one wins).
func rowsOf(tr *tree.Tree) map[string]string {
	out := map[string]string{}
	for _, r := range treeRows(tr) {
		out[r.cells[0]] = collapse(strings.Join(r.cells[:], " "))
	}
	return out
}

func TestRecordBatchTextsAreComposedFromNodeValues(t *testing.T) {
	s := embedded(t, "4.4.0")
	tr := recordsV3(t, s)
	var batches, crcs []string
	for _, r := range treeRows(tr) {
		switch r.cells[0] {
		case "RecordBatch":
			batches = append(batches, r.cells[4])
		case "crc":
			crcs = append(crcs, r.cells[2]+" "+r.cells[4])
		}
	}
	if len(batches) != 2 || batches[0] != "RecordBatch v2, 95 bytes, CRC valid" || !strings.HasPrefix(batches[1], "RecordBatch v2, 72 bytes, CRC INVALID (computed 0x") {
		t.Errorf("batch abouts = %q", batches)
	}
	if len(crcs) != 2 || !strings.Contains(crcs[0], "CRC-32C of attributes..end: valid (0x") || !strings.Contains(crcs[1], "CRC-32C of attributes..end: INVALID, computed 0x") {
		t.Errorf("crc rows = %q", crcs)
	}
	// The computed CRC named by the batch is the crc leaf's.
	if k := strings.Index(batches[1], "0x"); k < 0 || !strings.Contains(crcs[1], batches[1][k:k+10]) {
		t.Errorf("batch %q and crc %q disagree", batches[1], crcs[1])
	}
	rows := rowsOf(tr)
	for name, want := range map[string]string{
		"Record[1]":      "Record[1] Record",
		"headerKey[1]":   `headerKey[1] varbytes = "h2" (varint len=2)`,
		"headerValue[1]": "headerValue[1] varbytes = null (varint len=-1)",
		"records":        "gzip records payload, not decoded here",
		"partial batch":  "10 bytes: too short for a batch header",
	} {
		if !strings.Contains(rows[name], want) {
			t.Errorf("%s row = %q, want %q in it", name, rows[name], want)
		}
	}
	found := false
	for _, r := range treeRows(tr) {
		if r.cells[0] == "attributes" && r.cells[1] == "int16" && r.cells[2] == "= 121" {
			found = r.cells[4] == "gzip, LogAppendTime, transactional, control, delete horizon"
			if !found {
				t.Errorf("attributes 121 about = %q", r.cells[4])
			}
		}
	}
	if !found {
		t.Error("no attributes row of the compressed batch")
	}
	golden(t, "produce_v3_records.tree.txt", treeText(t, tr))
}

func TestLegacyMessagesAndAPartialBatch(t *testing.T) {
	s := embedded(t, "3.9.1")
	whole := batchV2(0, 1, recordV2(0, []byte("a"), []byte("b")), false)
	records := append(legacyMessage(1, []byte("key"), []byte("value")), legacyMessage(0, nil, []byte("v0"))...)
	records = append(records, whole[:len(whole)-5]...) // batch length says 5 bytes more
	tr := decodeRequest(t, s, produceRequest(2, records))
	rows := rowsOf(tr)
	for name, want := range map[string]string{
		"LegacyMessage v1": "LegacyMessage v1 magic 1",
		"LegacyMessage v0": "message set entry, magic 0, 28 bytes",
		"crc":              "CRC-32 of magic..end",
		"partial batch":    "batch length 58, 53 bytes present",
	} {
		if !strings.Contains(rows[name], want) {
			t.Errorf("%s row = %q, want %q in it", name, rows[name], want)
		}
	}
	golden(t, "produce_v2_legacy.tree.txt", treeText(t, tr))
}

func TestRecordNodeFunctionsAgreeWithTheTreeRows(t *testing.T) {
	s := embedded(t, "4.4.0")
	tr := recordsV3(t, s)
	rows := treeRows(tr)
	for i := range tr.Nodes {
		id := int32(i)
		if NodeName(tr, id) != rows[i].cells[0] || NodeAbout(tr, id) != rows[i].cells[4] {
			t.Errorf("node %d: functions say %q %q, row says %q %q", i, NodeName(tr, id), NodeAbout(tr, id), rows[i].cells[0], rows[i].cells[4])
		}
	}
}

// A frame that failed before its first field is a request or response
// frame unless the tree holds a metadata record.
func TestFrameAboutBeforeTheMessageIsKnown(t *testing.T) {
	s := embedded(t, "4.4.0")
	c := codec.New(s)
	frameAbout := func(tr *tree.Tree) string {
		t.Helper()
		i := tr.Part(tree.Frame)
		if i < 0 {
			t.Fatal("no frame")
		}
		return NodeAbout(tr, i)
	}
	for _, b := range [][]byte{nil, {0, 0}} {
		tr, err := c.DecodeRequest(b)
		if err == nil || tr.Message != nil {
			t.Fatalf("% x: decoded %v, %v", b, tr.Message, err)
		}
		if got := frameAbout(tr); got != "length-delimited framing" {
			t.Errorf("request % x: frame about %q", b, got)
		}
		rows := treeRows(tr)
		if len(rows) < 2 || rows[1].cells[4] != "length-delimited framing" {
			t.Errorf("request % x: frame row %v", b, rows)
		}
	}
	tr, err := c.DecodeResponse([]byte{0, 0}, s.Message("VoteResponse"), 2)
	if err == nil {
		t.Fatal("a 2-byte response decoded")
	}
	if got := frameAbout(tr); got != "length-delimited framing" {
		t.Errorf("response: frame about %q", got)
	}
	// A metadata record known before its frame, and one whose frame was
	// read: both are KRaft frames.
	pr := s.Message("PartitionRecord")
	if tr, err = c.DecodeRecord(nil, pr, 0); err == nil {
		t.Fatal("an empty record decoded")
	}
	if got := frameAbout(tr); got != "KRaft metadata record frame" {
		t.Errorf("empty PartitionRecord: frame about %q", got)
	}
	if tr, err = c.DecodeRecord([]byte{1}, nil, 0); err == nil {
		t.Fatal("a 1-byte record decoded")
	}
	if got := frameAbout(tr); got != "KRaft metadata record frame" {
		t.Errorf("record frame cut after frame_version: frame about %q", got)
	}
}

// A partial batch says the length its entry declares once it holds the
// entry's header up to the magic (17 bytes), as records.PartialBatch
// reads it; before that it is too short to say.
func TestPartialBatchAboutAtTheHeaderBoundary(t *testing.T) {
	s := embedded(t, "4.4.0")
	whole := batchV2(0, 1, recordV2(0, []byte("a"), []byte("b")), false)
	for cut, want := range map[int]string{
		11: "11 bytes: too short for a batch header",
		16: "16 bytes: too short for a batch header",
		17: "batch length 58, 5 bytes present",
		69: "batch length 58, 57 bytes present",
	} {
		tr := decodeRequest(t, s, produceRequest(3, whole[:cut]))
		got := ""
		for i := range tr.Nodes {
			if NodeName(tr, int32(i)) == "partial batch" {
				got = NodeAbout(tr, int32(i))
			}
		}
		if got != want {
			t.Errorf("%d bytes of a batch: partial batch about %q, want %q", cut, got, want)
		}
	}
}
