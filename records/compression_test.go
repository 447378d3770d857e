package records_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// sampleRecords are n records with keys, values and a header.
func sampleRecords(n int) []rec {
	rs := make([]rec, n)
	for i := range rs {
		rs[i] = rec{
			key:     []byte(fmt.Sprintf("key-%d", i)),
			value:   []byte(strings.Repeat(fmt.Sprintf("value %d; ", i), 1+i%7)),
			headers: [][2][]byte{{[]byte("trace"), []byte(fmt.Sprintf("t%d", i))}},
		}
	}
	if n > 1 {
		rs[1].key = nil
	}
	return rs
}

// checkInner asserts that Decompressed node d holds the records rs at
// offsets base, base+1…
func checkInner(t *testing.T, tr *tree.Tree, d int32, rs []rec, base int64) {
	t.Helper()
	k := 0
	tr.Children(d, func(c int32) bool {
		if tr.Nodes[c].Kind() != tree.Record {
			t.Errorf("child %d of the decompressed view is %s %q", c, tr.Nodes[c].Kind(), tr.Name(c))
			return true
		}
		n := &tr.Nodes[c]
		if n.Flags()&tree.FlagVirtual == 0 || tr.Ordinal(c) != int32(k) || records.RecordOffset(tr, c) != base+int64(k) {
			t.Errorf("record %d: %+v", k, *n)
		}
		key := child(tr, c, "key")
		if rs[k].key == nil && !tr.Nodes[key].Null() || rs[k].key != nil && !bytes.Equal(tr.Data(key), rs[k].key) {
			t.Errorf("record %d key %q", k, tr.Data(key))
		}
		if !bytes.Equal(tr.Data(child(tr, c, "value")), rs[k].value) {
			t.Errorf("record %d value %q", k, tr.Data(child(tr, c, "value")))
		}
		if hv := child(tr, c, "headerValue"); hv < 0 || string(tr.Data(hv)) != fmt.Sprintf("t%d", k) {
			t.Errorf("record %d header", k)
		}
		k++
		return true
	})
	if k != len(rs) {
		t.Errorf("%d inner records, want %d", k, len(rs))
	}
}

func TestEveryCodecRoundTrips(t *testing.T) {
	rs := sampleRecords(40)
	raw := recordsBytes(rs)
	for _, c := range []struct {
		name     string
		id       int16
		compress func([]byte) []byte
	}{
		{"gzip", 1, gzipBytes},
		{"snappy xerial", 2, func(p []byte) []byte { return xerialBytes(p, 256) }},
		{"snappy raw", 2, func(p []byte) []byte { return xerialBytes(p, 1<<20)[20:] }},
		{"lz4", 3, lz4Bytes},
		{"zstd", 4, zstdBytes},
	} {
		t.Run(c.name, func(t *testing.T) {
			plain := dataBatch(7, 0, rs[:2], nil)
			comp := dataBatch(500, c.id, rs, c.compress)
			after := dataBatch(540, c.id, rs[:3], c.compress)
			b := append(append(plain, comp...), after...)
			tr := records.Decode(b, records.Options{})
			checkTiles(t, tr)
			if len(tr.Problems) != 0 {
				t.Fatalf("problems: %s", problems(tr))
			}
			ds := find(tr, tree.Decompressed, "decompressed")
			if len(ds) != 2 {
				t.Fatalf("%d decompressed views", len(ds))
			}
			d := ds[0]
			if n := &tr.Nodes[d]; tr.Compression(d) != int(c.id) || records.OffsetBase(tr, d) != 500 || !bytes.Equal(tr.Data(d), raw) || n.Off != 0 || n.Size != int32(len(raw)) {
				t.Fatalf("decompressed view %+v", *n)
			}
			checkInner(t, tr, d, rs, 500)
			checkInner(t, tr, ds[1], rs[:3], 540)
			// The payload is one leaf of the compressed bytes, right
			// before the view.
			p := d - 1
			if pn := &tr.Nodes[p]; pn.Kind() != tree.Raw || tr.Name(p) != "compressed records" || pn.Off != int32(len(plain))+61 || int(pn.Size) != len(comp)-61 {
				t.Errorf("payload leaf %+v %q", *pn, tr.Name(p))
			}
			if len(tr.Virtual) != len(raw)+len(recordsBytes(rs[:3])) {
				t.Errorf("virtual area of %d bytes", len(tr.Virtual))
			}
			// A negative limit leaves payloads compressed, without problems.
			tr = records.Decode(b, records.Options{MaxDecompressed: -1})
			checkTiles(t, tr)
			if len(find(tr, tree.Decompressed, "decompressed")) != 0 || len(tr.Problems) != 0 || len(tr.Virtual) != 0 {
				t.Errorf("MaxDecompressed -1: %s", problems(tr))
			}
		})
	}
}

// legacyWrapper is a magic 0/1 wrapper message at offset holding inner
// (an inner message set) compressed by compress.
func legacyWrapper(offset int64, magic, codec byte, inner []byte, compress func([]byte) []byte) []byte {
	return legacyMessage(offset, magic, codec, nil, compress(inner))
}

func TestLegacyCompressedWrappers(t *testing.T) {
	for _, magic := range []byte{0, 1} {
		for _, c := range []struct {
			name     string
			id       byte
			compress func([]byte) []byte
		}{{"gzip", 1, gzipBytes}, {"snappy", 2, func(p []byte) []byte { return xerialBytes(p, 64) }}, {"lz4", 3, lz4Bytes}} {
			t.Run(fmt.Sprintf("magic %d %s", magic, c.name), func(t *testing.T) {
				// Magic 1: relative inner offsets 0..2, the wrapper holds
				// the last one's absolute offset (12). Magic 0: absolute.
				var inner []byte
				for k := int64(0); k < 3; k++ {
					off := k
					if magic == 0 {
						off = 10 + k
					}
					inner = append(inner, legacyMessage(off, magic, 0, []byte{'k', byte('0' + k)}, []byte("v"))...)
				}
				compressed := c.compress(inner)
				if c.id == 3 && magic == 0 {
					compressed = legacyLZ4Checksum(compressed)
				}
				w := legacyMessage(12, magic, c.id, nil, compressed)
				b := append(w, legacyMessage(13, magic, 0, nil, []byte("after"))...)
				tr := records.Decode(b, records.Options{})
				checkTiles(t, tr)
				if len(tr.Problems) != 0 {
					t.Fatalf("problems: %s", problems(tr))
				}
				ds := find(tr, tree.Decompressed, "decompressed")
				if len(ds) != 1 || !bytes.Equal(tr.Data(ds[0]), inner) {
					t.Fatalf("decompressed views %v", ds)
				}
				d := ds[0]
				if want := map[byte]int64{0: 0, 1: 10}[magic]; records.OffsetBase(tr, d) != want {
					t.Errorf("offset base %d, want %d", records.OffsetBase(tr, d), want)
				}
				k := int64(0)
				tr.Children(d, func(m int32) bool {
					n := &tr.Nodes[m]
					if n.Kind() != tree.RecordBatch || int64(tr.Magic(m)) != int64(magic) || n.Flags()&tree.FlagVirtual == 0 {
						t.Errorf("inner %d: %+v", k, *n)
					}
					if abs := records.OffsetBase(tr, d) + num(t, tr, m, "offset"); abs != 10+k {
						t.Errorf("inner %d at offset %d", k, abs)
					}
					if string(tr.Data(child(tr, m, "key"))) != fmt.Sprintf("k%d", k) {
						t.Errorf("inner %d key %q", k, tr.Data(child(tr, m, "key")))
					}
					k++
					return true
				})
				if k != 3 {
					t.Errorf("%d inner messages", k)
				}
				if len(find(tr, tree.RecordBatch, "LegacyMessage")) != 5 {
					t.Error("the message after the wrapper is not decoded")
				}
			})
		}
	}
}

// legacyLZ4Checksum replaces an lz4 frame's header checksum with the one
// Kafka's magic 0 writer computed (over the magic number too).
func legacyLZ4Checksum(p []byte) []byte {
	p = bytes.Clone(p)
	n := 6
	if p[4]&0x08 != 0 {
		n += 8
	}
	p[n] = byte(xxh32Test(p[:n]) >> 8)
	return p
}

func TestLZ4HeaderChecksums(t *testing.T) {
	// The library's frame carries the standard checksum, which this
	// package's own xxHash32 agrees with.
	frame := lz4Bytes([]byte("hello hello hello hello"))
	if byte(xxh32Test(frame[4:6])>>8) != frame[6] {
		t.Fatalf("xxh32 disagrees with the lz4 library: %x", frame[:7])
	}
	inner := legacyMessage(0, 0, 0, nil, []byte("v"))
	// Magic 0 with the standard checksum: Kafka rejects it; reported, and
	// still decoded.
	tr := records.Decode(legacyMessage(0, 0, 3, nil, lz4Bytes(inner)), records.Options{})
	checkTiles(t, tr)
	if len(tr.Problems) != 1 || !strings.Contains(tr.Problems[0].Msg, "legacy one") || len(find(tr, tree.Decompressed, "decompressed")) != 1 {
		t.Errorf("magic 0 standard checksum: %s", problems(tr))
	}
	// Magic 1 with the legacy checksum: the same the other way round.
	tr = records.Decode(legacyMessage(0, 1, 3, nil, legacyLZ4Checksum(lz4Bytes(legacyMessage(0, 1, 0, nil, []byte("v"))))), records.Options{})
	if len(tr.Problems) != 1 || !strings.Contains(tr.Problems[0].Msg, "standard one") || len(find(tr, tree.Decompressed, "decompressed")) != 1 {
		t.Errorf("magic 1 legacy checksum: %s", problems(tr))
	}
	// xxHash32 of the specification's test values.
	for _, c := range []struct {
		in   string
		want uint32
	}{{"", 0x02cc5d05}, {"a", 0x550d7456}, {"abc", 0x32d153ff}, {"Nobody inspects the spammish repetition", 0xe2293b2f}} {
		if got := xxh32Test([]byte(c.in)); got != c.want {
			t.Errorf("xxh32(%q) = %08x, want %08x", c.in, got, c.want)
		}
	}
}

// xxh32Test reaches the package's xxHash32 through an lz4 frame: it is
// unexported, so this computes it through the export_test hook.
func xxh32Test(b []byte) uint32 { return records.XXH32(b) }

func TestLegacyBadCRCAndNestedCompression(t *testing.T) {
	m := legacyMessage(0, 1, 0, []byte("k"), []byte("v"))
	m[13] ^= 0xff
	tr := records.Decode(append(m, legacyMessage(1, 1, 0, nil, []byte("ok"))...), records.Options{})
	checkTiles(t, tr)
	if len(tr.Problems) != 1 || tr.Problems[0].Path != "records[0].crc" || tr.Problems[0].Off != 12 {
		t.Fatalf("problems: %s", problems(tr))
	}
	if ms := find(tr, tree.RecordBatch, "LegacyMessage"); len(ms) != 2 || tr.Nodes[ms[0]].Flags()&tree.FlagBadCRC == 0 || tr.Nodes[ms[1]].Flags()&tree.FlagBadCRC != 0 {
		t.Error("bad CRC not flagged on the first message only")
	}
	// A compressed message inside a compressed wrapper is not followed.
	innerWrapper := legacyWrapper(0, 1, 1, legacyMessage(0, 1, 0, nil, []byte("deep")), gzipBytes)
	tr = records.Decode(legacyWrapper(0, 1, 1, innerWrapper, gzipBytes), records.Options{})
	checkTiles(t, tr)
	if len(tr.Problems) != 1 || !strings.Contains(tr.Problems[0].Msg, "itself compressed") || tr.Problems[0].VOff < 0 || tr.Problems[0].Path != "records[0].decompressed[0].value" {
		t.Errorf("nested compression: %s", problems(tr))
	}
	if len(find(tr, tree.Decompressed, "decompressed")) != 1 {
		t.Error("want one decompressed view")
	}
	_ = binary.BigEndian
}

// TestCorruptGzipReportsTheSameAfterAnotherBatch decodes the same corrupt
// gzip batch (FuzzRecords's input 3dba2df539f83e21: a gzip stream whose
// deflate data breaks at its 34th byte) first alone, then after a good gzip
// batch has been decompressed: the problem must be the same. With pooled
// klauspost/compress gzip readers, the second said "flate: internal error:
// unexpected length code", the reused reader's stale state speaking.
func TestCorruptGzipReportsTheSameAfterAnotherBatch(t *testing.T) {
	corrupt := []byte("00000000\x00\x00\x00x0000\x0200000100000000000000000000000000000000000000\x1f\x8b\b\x00000000b0800000000000000000a00000000\x80\x00\x00\x000000000000000000000000000000")
	const want = "records[0].records at 0x003d: gzip payload does not decompress: flate: corrupt input before offset 34"
	check := func(when string) {
		t.Helper()
		tr := records.Decode(corrupt, records.Options{})
		var got []string
		for _, p := range tr.Problems {
			if strings.Contains(p.String(), "gzip") {
				got = append(got, p.String())
			}
		}
		if len(got) != 1 || got[0] != want {
			t.Fatalf("%s: gzip problems %q, want [%q]", when, got, want)
		}
	}
	check("alone")
	for i := 0; i < 4; i++ {
		good := records.Decode(dataBatch(0, 1, sampleRecords(30), gzipBytes), records.Options{})
		if len(good.Problems) != 0 {
			t.Fatalf("good gzip batch: %v", good.Problems)
		}
		check(fmt.Sprintf("after good batch %d", i))
	}
}
