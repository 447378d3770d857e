package records_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/klauspost/compress/snappy"

	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// FuzzRecords decodes any bytes as records: no panic, the wire leaves
// tile the input, every decompressed view tiles its range of the virtual
// bytes, every problem's offsets lie inside the input and the virtual
// bytes, and DecodeParts lists the same records and problems.
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
	// Header bombs (issue 29's review): past the view's records bound,
	// past a record's 64 Ki headers; 300 headers, past the fast path's.
	f.Add(batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(zstdBytes(testseg.HeaderBombRecord(100000))))
	f.Add(batch{producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(testseg.HeaderBombRecord(70000)))
	f.Add(batch{producerID: -1, epoch: -1, seq: -1, count: 1}.bytes(testseg.HeaderBombRecord(300)))
	// Many small bombs: past the shared records bound, only the first
	// bytes of a view's rest are held (boundRest), after records and
	// inside a record's headers; a legacy wrapper past its view's nodes.
	{
		one := recordBytes(0, rec{})
		cb := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 20000, lastDelta: 19999}.bytes(zstdBytes(bytes.Repeat(one, 20000)))
		hb := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 2, lastDelta: 1}.bytes(zstdBytes(append(testseg.HeaderBombRecord(40000), testseg.HeaderBombRecord(40000)...)))
		f.Add(slices.Concat(cb, cb, hb, hb, cb))
		f.Add(legacyWrapper(5, 1, 1, bytes.Repeat(legacyMessage(0, 1, 0, nil, []byte("v")), 20000), gzipBytes))
		// A record's headers cut with a record after it in the view (the
		// cut takes it in), and a legacy snappy wrapper past MaxNodes in
		// parts.
		tail := batch{attrs: 4, producerID: -1, epoch: -1, seq: -1, count: 2, lastDelta: 1}.bytes(zstdBytes(slices.Concat(testseg.HeaderBombRecord(40000), recordBytes(1, rec{value: make([]byte, 10000)}))))
		f.Add(slices.Concat(tail, tail, cb))
		f.Add(legacyWrapper(0, 0, 2, bytes.Repeat(legacyMessage(0, 0, 0, nil, []byte("v")), 70000), func(p []byte) []byte { return snappy.Encode(nil, p) }))
	}
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
		// In parts, the same problems and records.
		var problems []tree.Problem
		n, virtual := 0, 0
		err := records.DecodeParts(b, o, 64, func(pt *tree.Tree, _ bool) error {
			for _, p := range pt.Problems {
				if p.VOff >= 0 {
					p.VOff += int32(virtual)
				}
				problems = append(problems, p)
			}
			for _, lb := range records.LogBatches(pt) {
				n += len(lb.Records)
			}
			virtual += len(pt.Virtual)
			return nil
		})
		want := 0
		for _, lb := range records.LogBatches(tr) {
			want += len(lb.Records)
		}
		if err != nil || !slices.Equal(problems, tr.Problems) || n != want || virtual != len(tr.Virtual) {
			t.Fatalf("in parts: %d records, %d virtual bytes, problems\n%v\nwant %d, %d,\n%v", n, virtual, problems, want, len(tr.Virtual), tr.Problems)
		}
	})
}
