package frame_test

import (
	"fmt"
	"testing"

	"github.com/kwire/kwire/frame"
)

func TestRecognizeFile(t *testing.T) {
	// A RecordBatch v2 header as a segment starts: baseOffset 0,
	// batchLength 74, partitionLeaderEpoch 0, magic 2, crc.
	segment := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x4a, 0, 0, 0, 0, 2, 0xde, 0xad, 0xbe, 0xef}
	with := func(b []byte, i int, v ...byte) []byte {
		c := append([]byte(nil), b...)
		copy(c[i:], v)
		return c
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want frame.FileFormat
	}{
		{"pcap little-endian", []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0}, frame.PcapFile},
		{"pcap big-endian", []byte{0xa1, 0xb2, 0xc3, 0xd4, 0, 2, 0, 4}, frame.PcapFile},
		{"pcap nanoseconds", []byte{0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0}, frame.PcapFile},
		{"pcap version 3", []byte{0xd4, 0xc3, 0xb2, 0xa1, 3, 0, 4, 0}, frame.UnknownFile},
		{"pcap magic alone", []byte{0xd4, 0xc3, 0xb2, 0xa1, 2}, frame.UnknownFile},
		{"pcapng little-endian", []byte{0x0a, 0x0d, 0x0d, 0x0a, 0x1c, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0}, frame.PcapngFile},
		{"pcapng big-endian", []byte{0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0x1c, 0x1a, 0x2b, 0x3c, 0x4d}, frame.PcapngFile},
		{"pcapng without byte-order magic", []byte{0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0x1c, 0x1a, 0x2b, 0x3c, 0x4e}, frame.UnknownFile},
		{"segment", segment, frame.LogSegmentFile},
		{"segment, 17 bytes", segment[:17], frame.LogSegmentFile},
		{"segment, 16 bytes", segment[:16], frame.UnknownFile},
		{"baseOffset negative", with(segment, 0, 0x80), frame.UnknownFile},
		{"batchLength 48", with(segment, 11, 48), frame.UnknownFile},
		{"batchLength 49", with(segment, 11, 49), frame.LogSegmentFile},
		{"batchLength negative", with(segment, 8, 0xff), frame.UnknownFile},
		{"magic 1", with(segment, 16, 1), frame.UnknownFile},
		// ApiVersions v3: a request frame is none of these.
		{"request", []byte{0x00, 0x00, 0x00, 0x10, 0x00, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02, 'k', 'w', 0x00, 0x01, 0x01, 0x00}, frame.UnknownFile},
		{"empty", nil, frame.UnknownFile},
	} {
		if got := frame.RecognizeFile(tc.b); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	for f, want := range map[frame.FileFormat]string{
		frame.PcapFile:       "x is a pcap capture, not y: read it with kwire pcap x",
		frame.PcapngFile:     "x is a pcapng capture, not y: read it with kwire pcap x",
		frame.LogSegmentFile: "x is a log segment (a record batch at offset 0), not y: read it with kwire log x",
		frame.UnknownFile:    "",
	} {
		if got := f.Hint("x", "y"); got != want {
			t.Errorf("%d: %q, want %q", f, got, want)
		}
	}
	if got, want := frame.PcapFile.Hint("-", "y"), "standard input is a pcap capture, not y: read it with kwire pcap -"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// A command given a file that another command reads says which one: the
// first bytes of a pcap capture.
func ExampleRecognizeFile() {
	head := []byte{0xd4, 0xc3, 0xb2, 0xa1, 0x02, 0x00, 0x04, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	f := frame.RecognizeFile(head)
	fmt.Println(f.Command())
	fmt.Println(f.Hint("x.pcap", "a Kafka frame"))
	// Output:
	// pcap
	// x.pcap is a pcap capture, not a Kafka frame: read it with kwire pcap x.pcap
}
