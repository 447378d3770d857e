package records_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/tree"
)

// produceV3 frames a ProduceRequest v3 of one partition holding records.
func produceV3(records []byte) []byte {
	str := func(b []byte, s string) []byte {
		return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...)
	}
	m := binary.BigEndian.AppendUint16(nil, 0) // api key
	m = binary.BigEndian.AppendUint16(m, 3)
	m = binary.BigEndian.AppendUint32(m, 7) // correlation id
	m = str(m, "cli")
	m = binary.BigEndian.AppendUint16(m, 0xffff) // null transactional id
	m = binary.BigEndian.AppendUint16(m, 1)      // acks
	m = binary.BigEndian.AppendUint32(m, 1000)   // timeout
	m = binary.BigEndian.AppendUint32(m, 1)      // one topic
	m = str(m, "topic")
	m = binary.BigEndian.AppendUint32(m, 1) // one partition
	m = binary.BigEndian.AppendUint32(m, 0)
	m = binary.BigEndian.AppendUint32(m, uint32(len(records)))
	m = append(m, records...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(m))), m...)
}

// Records inside a message: the codec decodes them with its specs, the
// problems carry the records field's path, the message still decodes and
// re-encodes to the same bytes and tree, and the page shows it all.
func TestRecordsInsideAMessage(t *testing.T) {
	s := specSet(t)
	c := codec.New(s)
	rs := sampleRecords(5)
	bad := dataBatch(5, 0, rs[:1], nil)
	bad[20] ^= 0xff // the stored CRC
	snap := kraftBatch(6, 0x20, []rec{controlRecord(3, unhex(t, "0000 0000000000002710 00"))})
	recs := append(append(append(dataBatch(0, 4, rs, zstdBytes), bad...), snap...), unhex(t, c14)...)
	frame := produceV3(recs)
	tr, err := c.DecodeRequest(frame)
	if err != nil {
		t.Fatal(err)
	}
	checkTiles(t, tr)
	if !bytes.Equal(tr.Bytes, frame) {
		t.Fatal("Bytes are not the frame")
	}
	if len(tr.Problems) != 1 || tr.Problems[0].Path != "ProduceRequest.TopicData[0].PartitionData[0].Records[1].crc" {
		t.Fatalf("problems: %s", problems(tr))
	}
	if e := find(tr, tree.Embedded, "SnapshotHeaderRecord"); len(e) != 1 {
		t.Error("the codec does not decode KRaft control records with its specs")
	}
	ds := find(tr, tree.Decompressed, "decompressed")
	if len(ds) != 1 {
		t.Fatal("no decompressed view")
	}
	if got := render.NodeType(tr, ds[0]); got != "zstd" {
		t.Errorf("decompressed view type %q", got)
	}
	// Re-encoding the decoded body gives the same bytes and the same tree.
	hdr, body := tr.Part(tree.Header), tr.Part(tree.Body)
	again, err := c.Encode(tr.Message, tr.Version, tr.Sub(hdr), tr.Sub(body))
	if err != nil || !bytes.Equal(again.Bytes, frame) {
		t.Fatalf("re-encode: %v", err)
	}
	if len(again.Nodes) != len(tr.Nodes) || !bytes.Equal(again.Virtual, tr.Virtual) || len(again.Problems) != 1 {
		t.Errorf("re-encoded tree: %d nodes (want %d), %d virtual bytes, %d problems", len(again.Nodes), len(tr.Nodes), len(again.Virtual), len(again.Problems))
	}
	for i := range tr.Nodes {
		if again.Nodes[i] != tr.Nodes[i] {
			t.Fatalf("node %d differs: %+v vs %+v", i, again.Nodes[i], tr.Nodes[i])
		}
	}
	// A field failing after the records: the partial tree still tiles
	// (closeTree ignores virtual leaves).
	short := append([]byte{}, frame[:len(frame)-1]...)
	binary.BigEndian.PutUint32(short, uint32(len(short)-4))
	tr2, err := c.DecodeRequest(short)
	if err == nil {
		t.Fatal("a short records field decoded")
	}
	checkTiles(t, tr2)

	var page strings.Builder
	if err := render.WriteText(&page, &render.Page{Set: s, Sides: []render.Side{{Label: "Request", Tree: tr}}}, render.Options{}); err != nil {
		t.Fatal(err)
	}
	out := page.String()
	if testing.Verbose() {
		t.Log(out)
	}
	for _, want := range []string{
		"decompressed bytes (" + itoa(len(tr.Virtual)) + " bytes, not on the wire: the v offsets of the tree)",
		"compressed records",
		"zstd records payload, decompressed below",
		"zstd payload decompressed, not wire bytes (v offsets)",
		"[v0x0000, " + itoa(len(tr.Virtual)) + "B]",
		"offset 4",
		"SnapshotHeaderRecord",
		"LastContainedLogTimestamp",
		"control record type SNAPSHOT_HEADER: KRaft snapshot header",
		"problems in the records\n\n  error: ProduceRequest.TopicData[0].PartitionData[0].Records[1].crc at 0x",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	var js strings.Builder
	if err := render.WriteJSON(&js, &render.Page{Set: s, Sides: []render.Side{{Label: "Request", Tree: tr}}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"virtual": true`, `"virtual_size": `, `"problems": [`, `"path": "ProduceRequest.TopicData[0].PartitionData[0].Records[2].Record[0].value.SnapshotHeaderRecord.LastContainedLogTimestamp"`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("the JSON lacks %q", want)
		}
	}
}
