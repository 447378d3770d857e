package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func threePackets(f *capturetest.File) []byte {
	f.Raw(t0, bytes.Repeat([]byte{1}, 60))
	f.Raw(t0.Add(1500*time.Microsecond), bytes.Repeat([]byte{2}, 61))
	f.Raw(t0.Add(2*time.Second+3*time.Microsecond), bytes.Repeat([]byte{3}, 100))
	b, err := f.Bytes()
	if err != nil {
		panic(err)
	}
	return b
}

func readAll(t *testing.T, b []byte) ([]Packet, error) {
	t.Helper()
	r, err := Open(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	var ps []Packet
	for {
		p, err := r.Next()
		if err == io.EOF {
			return ps, nil
		}
		if err != nil {
			return ps, err
		}
		p.Data = append([]byte(nil), p.Data...)
		ps = append(ps, p)
	}
}

func TestReadFormats(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    *capturetest.File
		offs []int64
	}{
		{"pcap", capturetest.NewPcap(layers.LinkTypeEthernet), []int64{24, 24 + 16 + 60, 24 + 32 + 121}},
		{"pcapng", capturetest.NewPcapng(layers.LinkTypeEthernet), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := threePackets(tc.f)
			ps, err := readAll(t, b)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 3 {
				t.Fatalf("%d packets, want 3", len(ps))
			}
			times := []time.Time{t0, t0.Add(1500 * time.Microsecond), t0.Add(2*time.Second + 3*time.Microsecond)}
			sizes := []int{60, 61, 100}
			for i, p := range ps {
				if p.Num != i+1 || !p.Time.Equal(times[i]) || len(p.Data) != sizes[i] || p.Data[0] != byte(i+1) || p.Length != sizes[i] || p.LinkType != 1 {
					t.Errorf("packet %d: num %d time %v len %d/%d link %v", i, p.Num, p.Time, len(p.Data), p.Length, p.LinkType)
				}
				if tc.offs != nil && p.Offset != tc.offs[i] {
					t.Errorf("packet %d at offset %d, want %d", i+1, p.Offset, tc.offs[i])
				}
			}
			if tc.offs == nil {
				// pcapng: each packet's offset is where an enhanced packet block starts.
				for _, p := range ps {
					if typ := binary.LittleEndian.Uint32(b[p.Offset:]); typ != 6 {
						t.Errorf("packet %d: offset %d holds block type %d", p.Num, p.Offset, typ)
					}
				}
			}
		})
	}
}

func TestReadGzip(t *testing.T) {
	b := threePackets(capturetest.NewPcap(layers.LinkTypeEthernet))
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	w.Close()
	ps, err := readAll(t, z.Bytes())
	if err != nil || len(ps) != 3 {
		t.Fatalf("%d packets, %v", len(ps), err)
	}
}

func TestNotCapture(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"", "file header: empty file, not a pcap or pcapng capture"},
		{"ab", "file header: 2 bytes, not a pcap or pcapng capture"},
		{"hello, world\n", "file header: not a pcap or pcapng capture: the file starts 68 65 6c 6c"},
		{"\xd4\xc3\xb2\xa1\x02\x00", "file header: pcap file header needs 24 bytes, the file has 6"},
		{"\x0a\x0d\x0d\x0a\x1c\x00\x00\x00\x4d\x3c\x2b\x1a", "file header: pcapng: the file ends inside block type 0x0a0d0d0a of 28 bytes (16 missing)"},
		{"\x0a\x0d\x0d\x0a\x1c\x00\x00\x00\x11\x22\x33\x44", "file header: pcapng: section header block has byte-order magic 11 22 33 44, want 1a2b3c4d"},
	} {
		_, err := Open(strings.NewReader(tc.in))
		var fe *FormatError
		if !errors.As(err, &fe) || err.Error() != tc.want {
			t.Errorf("Open(%q) = %v, want %s", tc.in, err, tc.want)
		}
	}
}

func TestTruncated(t *testing.T) {
	pcap := threePackets(capturetest.NewPcap(layers.LinkTypeEthernet))
	ng := threePackets(capturetest.NewPcapng(layers.LinkTypeEthernet))
	for _, tc := range []struct {
		name  string
		b     []byte
		n     int // packets read before the error
		trunc bool
		want  string
	}{
		{"pcap in data", pcap[:len(pcap)-10], 2, true, "packet 3 at file offset 177 (0xb1): the file ends inside the packet's 100 captured bytes"},
		{"pcap after header", pcap[:len(pcap)-100], 2, true, "packet 3 at file offset 177 (0xb1): the file ends inside the packet's 100 captured bytes"},
		{"pcap in header", pcap[:177+5], 2, true, "packet 3 at file offset 177 (0xb1): the file ends inside the 16-byte record header"},
		{"pcapng in block", ng[:len(ng)-7], 2, true, "the file ends inside block type 0x00000006"},
		{"pcapng in block header", ng[:len(ng)-132+3], 2, true, "the file ends inside a block header (3 of 8 bytes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := readAll(t, tc.b)
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Truncated != tc.trunc || !strings.Contains(err.Error(), tc.want) || fe.Packet != 3 {
				t.Fatalf("err %v, want %s", err, tc.want)
			}
			if len(ps) != tc.n {
				t.Errorf("%d packets before the error, want %d", len(ps), tc.n)
			}
		})
	}
}

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

func TestHugeClaims(t *testing.T) {
	pcap := threePackets(capturetest.NewPcap(layers.LinkTypeEthernet))
	bad := append([]byte(nil), pcap[:24+16+60+16+61]...)
	bad = binary.LittleEndian.AppendUint32(bad, uint32(t0.Unix()))
	bad = binary.LittleEndian.AppendUint32(bad, 0)
	bad = binary.LittleEndian.AppendUint32(bad, 0xfffffff0) // captured length
	bad = binary.LittleEndian.AppendUint32(bad, 0xfffffff0)
	bad = append(bad, 1, 2, 3)

	ng := threePackets(capturetest.NewPcapng(layers.LinkTypeEthernet))
	ngHuge := append([]byte(nil), ng...)
	ngCap := append([]byte(nil), ng...)
	last := 0 // the last enhanced packet block
	for last = len(ng) - 4; last > 0; last -= 4 {
		if binary.LittleEndian.Uint32(ng[last:]) == 6 && int(binary.LittleEndian.Uint32(ng[last+4:])) == len(ng)-last {
			break
		}
	}
	binary.LittleEndian.PutUint32(ngHuge[last+4:], 0xfffffff0)
	binary.LittleEndian.PutUint32(ngCap[last+20:], 0x7ffffff0)

	for _, tc := range []struct {
		name, want string
		b          []byte
	}{
		{"pcap caplen", "capture length exceeds snap length: 4294967280 > 262144", bad},
		{"pcapng block length", "claims 4294967280 bytes, more than the", ngHuge},
		{"pcapng caplen", "packet claims 2147483632 captured bytes, its block holds 100", ngCap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ps []Packet
			var err error
			n := allocated(func() { ps, err = readAll(t, tc.b) })
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "packet 3 at") {
				t.Fatalf("err %v, want %s", err, tc.want)
			}
			if len(ps) != 2 {
				t.Errorf("%d packets before the error", len(ps))
			}
			if n > 4<<20 {
				t.Errorf("allocated %d bytes", n)
			}
		})
	}
}
