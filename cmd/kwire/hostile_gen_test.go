package main

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/gopacket/layers"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"

	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/wire"
)

// hostileRecord appends record i of a batch: a value of n bytes of 'v'
// (nil for n < 0), no key, no headers.
func hostileRecord(b []byte, i, n int) []byte {
	body := []byte{0}
	body = wire.AppendVarlong(body, 0)
	body = wire.AppendVarint(body, int32(i))
	body = wire.AppendVarint(body, -1)
	if n < 0 {
		body = wire.AppendVarint(body, -1)
	} else {
		body = wire.AppendVarint(body, int32(n))
		body = append(body, bytes.Repeat([]byte{'v'}, n)...)
	}
	body = wire.AppendVarint(body, 0)
	b = wire.AppendVarint(b, int32(len(body)))
	return append(b, body...)
}

// hostileZstdBatch is a zstd batch of count records of value n bytes,
// compressed as a stream: the payload decompresses to about count*(n+8)
// bytes while the batch holds a few KB.
func hostileZstdBatch(t testing.TB, base int64, count, n int) []byte {
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithWindowSize(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	var chunk []byte
	for i := 0; i < count; i++ {
		d := i
		if n < 0 {
			// Records all alike (offsetDelta 0): the payload compresses
			// to a few KB.
			d = 0
		}
		chunk = hostileRecord(chunk[:0], d, n)
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return records.RawBatch{BaseOffset: base, Attributes: records.Attributes(records.CompressionZstd), LastOffsetDelta: int32(count - 1), Count: int32(count), Records: buf.Bytes()}.Bytes()
}

// hostileHeaderBomb is a zstd batch of one record of n headers, each an
// empty key and a null value (two bytes a header).
func hostileHeaderBomb(t testing.TB, n int) []byte {
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(testseg.HeaderBombRecord(n))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return records.RawBatch{Attributes: records.Attributes(records.CompressionZstd), Count: 1, Records: buf.Bytes()}.Bytes()
}

// hostileXerialBatch is a snappy batch in xerial framing of one record
// whose value is total bytes, in chunks that each decode to chunk bytes.
func hostileXerialBatch(t testing.TB, base int64, total, chunk int) []byte {
	// One record whose value is total bytes: its header, then the value's
	// bytes in chunks.
	body := []byte{0}
	body = wire.AppendVarlong(body, 0)
	body = wire.AppendVarint(body, 0)
	body = wire.AppendVarint(body, -1)
	body = wire.AppendVarint(body, int32(total))
	head := wire.AppendVarint(nil, int32(len(body)+total+1))
	head = append(head, body...)
	out := append([]byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}, 0, 0, 0, 1, 0, 0, 0, 1)
	put := func(p []byte) {
		c := snappy.Encode(nil, p)
		out = binary.BigEndian.AppendUint32(out, uint32(len(c)))
		out = append(out, c...)
	}
	put(head)
	z := bytes.Repeat([]byte{'v'}, chunk)
	var c []byte
	for left := total; left > 0; left -= chunk {
		if left < chunk {
			put(z[:left])
			continue
		}
		if c == nil {
			c = snappy.Encode(nil, z)
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(c)))
		out = append(out, c...)
	}
	put([]byte{0}) // headersCount
	return records.RawBatch{BaseOffset: base, Attributes: records.Attributes(records.CompressionSnappy), Count: 1, Records: out}.Bytes()
}

// hostileLegacyWrapper is a legacy gzip wrapper (magic 1) of n bytes of
// inner messages of a one-byte value each.
func hostileLegacyWrapper(n int) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	inner := records.Legacy{Magic: 1, Value: []byte("v")}.Bytes()
	for range n / len(inner) {
		zw.Write(inner)
	}
	zw.Close()
	return records.Legacy{Magic: 1, Attributes: 1, Value: buf.Bytes()}.Bytes()
}

// hostilePcap is a capture of one connection to port 9092 whose client
// sends frame, in segments of 1400 bytes.
func hostilePcap(t testing.TB, frame []byte) []byte {
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 5000, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	c.Handshake()
	c.Send(true, frame, 1400)
	c.Close()
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hostilePcapConns is a capture of one connection per frame, all open
// together: each sends its frame in turn, then they all close, unanswered.
func hostilePcapConns(t testing.TB, frames [][]byte) []byte {
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	convs := make([]*capturetest.Conv, len(frames))
	for i := range frames {
		convs[i] = capturetest.NewConv(f, fmt.Sprintf("10.0.%d.%d:50000", i/250, i%250+1), "10.0.0.2:9092", 1000, 5000, start)
		convs[i].Handshake()
		start = convs[i].T
	}
	for i, fr := range frames {
		convs[i].T = start
		start = convs[i].Send(true, fr, 1400).Add(time.Millisecond)
	}
	for _, c := range convs {
		c.T = start
		c.Close()
		start = c.T
	}
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGenerateHostileInputs writes the inputs of issue 29's memory cases
// to $KWIRE_HOSTILE (skipped when unset), to measure kwire's peak memory
// on them (/usr/bin/time -v): segments for log, frames for decode, pcap
// captures for pcap.
func TestGenerateHostileInputs(t *testing.T) {
	dir := os.Getenv("KWIRE_HOSTILE")
	if dir == "" {
		t.Skip("KWIRE_HOSTILE not set: no inputs to write")
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", name, len(b))
	}
	pcap := func(name string, frame []byte) { write(name, hostilePcap(t, frame)) }
	// Small ones, for the fuzz corpora: a zstd batch claiming 100000
	// records that its payload holds, and a xerial snappy batch whose
	// chunks declare 17 x 64 KiB (past FuzzRecords's limit of 1 MiB).
	countBomb := hostileZstdBatch(t, 0, 100000, -1)
	write("fuzz-countbomb.bin", countBomb)
	write("fuzz-countbomb.frame", produceV3(countBomb))
	x := append([]byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}, 0, 0, 0, 1, 0, 0, 0, 1)
	zc := snappy.Encode(nil, make([]byte, 64<<10))
	for range 17 {
		x = binary.BigEndian.AppendUint32(x, uint32(len(zc)))
		x = append(x, zc...)
	}
	write("fuzz-snappybomb.bin", records.RawBatch{Attributes: records.Attributes(records.CompressionSnappy), Count: 1, Records: x}.Bytes())
	// A legacy gzip wrapper (magic 1) of 64 MiB of small inner messages.
	write("legacy64.log", hostileLegacyWrapper(64<<20))
	// The baseline: a batch of ten small records.
	small := hostileZstdBatch(t, 0, 10, 10)
	write("small.log", small)
	write("small.frame", produceV3(small))
	pcap("small.pcap", produceV3(small))
	// A batch of 24 MiB, within decode's bound.
	b24 := hostileZstdBatch(t, 0, 384, 64<<10)
	write("b24.frame", produceV3(b24))
	write("b24.log", b24)
	// 1: eight zstd batches of 250 MiB each (values of 64 KiB).
	one := hostileZstdBatch(t, 0, 4000, 64<<10)
	var eight []byte
	for i := range 8 {
		b := bytes.Clone(one)
		binary.BigEndian.PutUint64(b, uint64(i*4000))
		eight = append(eight, b...)
	}
	write("eight.log", eight)
	write("eight.frame", produceV3(eight))
	pcap("eight.pcap", produceV3(eight))
	write("one.log", one)
	write("one.frame", produceV3(one))
	// 2: a 1 GiB snappy bomb and a 250 MiB snappy payload (xerial).
	write("snappybomb.log", hostileXerialBatch(t, 0, 1<<30, 1<<20))
	snap := hostileXerialBatch(t, 0, 250<<20, 32<<10)
	write("snappy250one.log", snap)
	// 250 MiB of records of 64 KiB values, in 32 KiB chunks as
	// snappy-java writes them.
	var plain []byte
	for i := range 4000 {
		plain = hostileRecord(plain, i, 64<<10)
	}
	x = append([]byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}, 0, 0, 0, 1, 0, 0, 0, 1)
	for p := plain; len(p) > 0; {
		n := min(32<<10, len(p))
		c := snappy.Encode(nil, p[:n])
		x = binary.BigEndian.AppendUint32(x, uint32(len(c)))
		x = append(x, c...)
		p = p[n:]
	}
	snap = records.RawBatch{Attributes: records.Attributes(records.CompressionSnappy), LastOffsetDelta: 3999, Count: 4000, Records: x}.Bytes()
	write("snappy250.log", snap)
	write("snappy250.frame", produceV3(snap))
	// One raw snappy block (not xerial: sarama's and librdkafka's
	// framing) of the same 250 MiB of records, and of 30 MiB of them.
	for _, c := range []struct {
		name string
		n    int
	}{{"rawsnappy250", 4000}, {"rawsnappy30", 480}} {
		var plain []byte
		for i := range c.n {
			plain = hostileRecord(plain, i, 64<<10)
		}
		b := records.RawBatch{Attributes: records.Attributes(records.CompressionSnappy), LastOffsetDelta: int32(c.n - 1), Count: int32(c.n), Records: snappy.Encode(nil, plain)}.Bytes()
		write(c.name+".log", b)
		write(c.name+".frame", produceV3(b))
	}
	// One record whose value is 250 MiB (xerial snappy), as a frame.
	write("snappy250one.frame", produceV3(hostileXerialBatch(t, 0, 250<<20, 32<<10)))
	// A header bomb (an outside review's): one zstd record of 7.5 million
	// empty headers (1.4 KB), and of 3.9 million as a frame and a capture.
	write("headerbomb.log", hostileHeaderBomb(t, 7_500_000))
	hb := produceV3(hostileHeaderBomb(t, 3_900_000))
	write("headerbomb.frame", hb)
	pcap("headerbomb.pcap", hb)
	// Many small bombs (outside reviews'): a thousand zstd batches of
	// 20000 empty records each, and a thousand of one record of 40000
	// empty headers each, about 100 KB each input, as segments, frames
	// and captures.
	for _, c := range []struct {
		name  string
		batch []byte
		step  int
	}{
		{"multicount", hostileZstdBatch(t, 0, 20000, -1), 20000},
		{"multihdr", hostileHeaderBomb(t, 40000), 1},
	} {
		var seg []byte
		for i := range 1000 {
			b := bytes.Clone(c.batch)
			binary.BigEndian.PutUint64(b, uint64(i*c.step))
			seg = append(seg, b...)
		}
		write(c.name+".log", seg)
		write(c.name+".frame", produceV3(seg))
		pcap(c.name+".pcap", produceV3(seg))
	}
	// An uncompressed batch of 64 records of 64 Ki empty headers each
	// (8 MiB): its nodes are many times its bytes.
	{
		var recs []byte
		for range 64 {
			recs = append(recs, testseg.HeaderBombRecord(64<<10)...)
		}
		b := records.RawBatch{LastOffsetDelta: 63, Count: 64, Records: recs}.Bytes()
		write("plainhdr.log", b)
		write("plainhdr.frame", produceV3(b))
	}
	// A client pipelining 100 requests that nothing answers, each an
	// uncompressed batch of one record of 300000 empty headers (600 KB):
	// pcap --tree holds their trees awaiting responses.
	{
		one := produceV3(records.RawBatch{Count: 1, Records: testseg.HeaderBombRecord(300_000)}.Bytes())
		var frames []byte
		for range 100 {
			frames = append(frames, one...)
		}
		pcap("pipehdr.pcap", frames)
	}
	// A legacy raw snappy wrapper (magic 0) of 15 MiB of tiny messages
	// (786 KB), and an uncompressed batch of 500000 empty records.
	{
		inner := records.Legacy{Value: []byte("v")}.Bytes()
		w := records.Legacy{Attributes: 2, Value: snappy.Encode(nil, bytes.Repeat(inner, (15<<20)/len(inner)))}.Bytes()
		write("legsnappy15.log", w)
		write("legsnappy15.frame", produceV3(w))
		var recs []byte
		for i := range 500000 {
			recs = hostileRecord(recs, i, -1)
		}
		b := records.RawBatch{LastOffsetDelta: 499999, Count: 500000, Records: recs}.Bytes()
		write("plain500k.log", b)
		write("plain500k.frame", produceV3(b))
	}
	// A legacy gzip wrapper (magic 1) of 20 MiB of tiny messages, as a
	// frame.
	{
		w := hostileLegacyWrapper(20 << 20)
		write("legacy20.log", w)
		write("legacy20.frame", produceV3(w))
	}
	// 40 connections, each sending a request of a few KB whose records
	// decompress to 30 MiB, none answered (an outside review's).
	{
		one := produceV3(hostileZstdBatch(t, 0, 480, 64<<10))
		frames := make([][]byte, 40)
		for i := range frames {
			frames[i] = one
		}
		write("conns40.pcap", hostilePcapConns(t, frames))
		// 50 connections of a request decompressing to 4 MiB, and 1000
		// of four header bombs of 60 KB each (outside reviews').
		one = produceV3(hostileZstdBatch(t, 0, 64, 64<<10))
		frames = make([][]byte, 50)
		for i := range frames {
			frames[i] = one
		}
		write("conns50.pcap", hostilePcapConns(t, frames))
		one = produceV3(records.RawBatch{Count: 1, Records: testseg.HeaderBombRecord(30000)}.Bytes())
		four := bytes.Repeat(one, 4)
		frames = make([][]byte, 1000)
		for i := range frames {
			frames[i] = four
		}
		write("conns1000.pcap", hostilePcapConns(t, frames))
	}
	// 6: a zstd batch claiming 30M records that its payload holds.
	many := hostileZstdBatch(t, 0, 30_000_000, -1)
	write("many.log", many)
	write("many.frame", produceV3(many))
	pcap("many.pcap", produceV3(many))
	// 8: 200 MB of random bytes as a segment.
	f, err := os.Create(filepath.Join(dir, "random.log"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(f, rand.Reader, 200_000_000); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
