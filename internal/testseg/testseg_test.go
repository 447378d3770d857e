package testseg

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kwire/kwire/records"
)

// FatGzipBatch decodes to its one record, with the surplus byte reported
// in the decompressed view.
func TestFatGzipBatch(t *testing.T) {
	tr := records.Decode(FatGzipBatch(5), records.Options{})
	var problems []string
	for _, p := range tr.Problems {
		problems = append(problems, p.String())
	}
	want := []string{"records[0].decompressed.Record[0] at 0x003d (decompressed v0x0009): the record's length says 9 bytes, its fields use 8"}
	if !slices.Equal(problems, want) {
		t.Errorf("problems %q, want %q", problems, want)
	}
	bs := records.LogBatches(tr)
	if len(bs) != 1 || bs[0].BaseOffset != 5 || bs[0].Attributes != 1 || !bs[0].CRCValid || len(bs[0].Records) != 1 ||
		string(bs[0].Records[0].Key) != "k" || string(bs[0].Records[0].Value) != "v" || bs[0].Records[0].Timestamp != 1000 {
		t.Errorf("batches %+v", bs)
	}
}

// Mixed holds the entries and problems its doc lists, at these offsets.
func TestMixed(t *testing.T) {
	seg := Mixed()
	if len(seg) != 0x0753+40 {
		t.Fatalf("%d bytes", len(seg))
	}
	tr := records.Decode(seg, records.Options{})
	var problems []string
	for _, p := range tr.Problems {
		problems = append(problems, p.String())
	}
	want := []string{
		"records[1].decompressed.Record[0] at 0x0082 (decompressed v0x0009): the record's length says 9 bytes, its fields use 8",
		"records[3].decompressed.Record[0] at 0x0144 (decompressed v0x0013): the record's length says 9 bytes, its fields use 8",
		"records[5].decompressed.Record[0] at 0x0225 (decompressed v0x001d): the record's length says 9 bytes, its fields use 8",
		"records[6].crc at 0x0258: CRC-32C 0x8e619662 stored, 0x28f16ac6 computed: the batch is corrupt",
		"records[7].decompressed.Record[0] at 0x0325 (decompressed v0x0027): the record's length says 9 bytes, its fields use 8",
		"records[9].decompressed.Record[0] at 0x0443 (decompressed v0x0031): the record's length says 9 bytes, its fields use 8",
		"records[11].decompressed.Record[0] at 0x057f (decompressed v0x003b): the record's length says 9 bytes, its fields use 8",
		"records[12] at 0x05a1: batchLength -16 is negative: 12 bytes skipped from 0x05a1 to 0x05ad",
		"records[13] at 0x05ea: unknown magic -91 (Kafka knows 0, 1 and 2): 300 bytes skipped from 0x05ea to 0x0716",
		"records[14] at 0x0753: 40 zero bytes from 0x0753 to the end",
	}
	if !slices.Equal(problems, want) {
		t.Errorf("problems\n%q\nwant\n%q", problems, want)
	}
	var got []string
	for _, b := range records.LogBatches(tr) {
		got = append(got, fmt.Sprintf("%d:%d", b.BaseOffset, len(b.Records)))
	}
	wantBatches := []string{"0:1", "5:1", "10:1", "15:1", "20:1", "25:1", "30:1", "35:1", "40:1", "45:1", "50:1", "55:1", "100:0", "200:0"}
	if !slices.Equal(got, wantBatches) {
		t.Errorf("batches %q, want %q", got, wantBatches)
	}
}

// ZstdSegment holds n records in batches of perBatch, about 49 bytes a
// record; ZstdBomb decompresses to its zero bytes.
func TestZstd(t *testing.T) {
	seg := ZstdSegment(2500, 1000)
	bs := records.LogBatches(records.Decode(seg, records.Options{}))
	if len(bs) != 3 || len(bs[2].Records) != 500 || bs[1].BaseOffset != 1000 {
		t.Fatalf("%d batches", len(bs))
	}
	r := bs[1].Records[234]
	if r.Offset != 1234 || string(r.Key) != "key-1234" || len(r.Value) != 40 || r.Timestamp != 1700000000234 {
		t.Errorf("record %+v", r)
	}
	if len(seg) < 2500*45 || len(seg) > 2500*55 {
		t.Errorf("%d bytes", len(seg))
	}
	tr := records.Decode(ZstdBomb(1<<20, 1), records.Options{MaxDecompressed: 1 << 20})
	if len(tr.Virtual) != 1<<20 || tr.Virtual[1<<20-1] != 0 {
		t.Errorf("bomb: %d bytes", len(tr.Virtual))
	}
}
