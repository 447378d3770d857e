package records_test

import (
	"testing"

	"github.com/kwire/kwire/records"
)

// FuzzRecords decodes any bytes as records: no panic, the wire leaves
// tile the input, every decompressed view tiles its range of the virtual
// bytes, and every problem's offsets lie inside the input and the virtual
// bytes.
func FuzzRecords(f *testing.F) {
	rs := sampleRecords(4)
	f.Add(unhex(f, c14))
	f.Add(append(append(legacyMessage(3, 1, 0, []byte("k"), []byte("v")), unhex(f, c14)...), dataBatch(9, 0, rs, nil)[:20]...))
	f.Add(kraftBatch(0, 0x20, []rec{controlRecord(3, unhex(f, "0000 0000000000002710 00"))}))
	f.Add(kraftBatch(1, 0, []rec{{value: unhex(f, "01 0c 00 0e 6b726166742e76657273696f6e 0001 00")}}))
	f.Add(dataBatch(0, 1, rs, gzipBytes))
	f.Add(dataBatch(0, 2, rs, func(p []byte) []byte { return xerialBytes(p, 32) }))
	f.Add(dataBatch(0, 3, rs, lz4Bytes))
	f.Add(dataBatch(0, 4, rs, zstdBytes))
	f.Add(legacyWrapper(5, 1, 1, legacyMessage(0, 1, 0, nil, []byte("inner")), gzipBytes))
	f.Add(legacyWrapper(5, 0, 3, legacyMessage(5, 0, 0, nil, []byte("inner")), func(p []byte) []byte { return legacyLZ4Checksum(lz4Bytes(p)) }))
	o := specOptions(f, true)
	o.MaxDecompressed = 1 << 20
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := records.Decode(b, o)
		checkTiles(t, tr)
		for _, p := range tr.Problems {
			if p.Off < 0 || int(p.Off) > len(b) || p.VOff < -1 || int(p.VOff) > len(tr.Virtual) {
				t.Fatalf("problem outside the bytes: %+v (%d bytes, %d virtual)", p, len(b), len(tr.Virtual))
			}
		}
	})
}
