package frame

import "encoding/binary"

// FileFormat is a kind of file that one of kwire's commands reads, as
// RecognizeFile finds it from the file's first bytes; a command given
// another command's file says which command reads it.
type FileFormat uint8

const (
	// UnknownFile: none of the formats below (or too few bytes to tell).
	UnknownFile FileFormat = iota
	// PcapFile: a pcap capture's file header: magic a1b2c3d4 (or a1b23c4d
	// for nanoseconds) in either byte order, then version major 2.
	PcapFile
	// PcapngFile: a pcapng capture's section header block: block type
	// 0a0d0d0a, then the byte-order magic 1a2b3c4d (in either order) at
	// byte 8.
	PcapngFile
	// LogSegmentFile: a log segment, a record batch at offset 0: a
	// non-negative baseOffset, a batchLength that covers at least the rest
	// of a v2 batch header (49 bytes), and magic 2 at byte 16.
	LogSegmentFile
)

// batchHeaderRest is the length of a RecordBatch v2 header after
// baseOffset and batchLength: the least batchLength a batch can have.
const batchHeaderRest = 49

// RecognizeFile says which of FileFormat's formats b, the first bytes of
// a file, start: 17 bytes suffice for a log segment, 12 for a pcapng
// capture, 6 for a pcap capture.
func RecognizeFile(b []byte) FileFormat {
	if len(b) >= 6 {
		var order binary.ByteOrder
		switch binary.BigEndian.Uint32(b) {
		case 0xa1b2c3d4, 0xa1b23c4d:
			order = binary.BigEndian
		case 0xd4c3b2a1, 0x4d3cb2a1:
			order = binary.LittleEndian
		}
		if order != nil && order.Uint16(b[4:]) == 2 {
			return PcapFile
		}
	}
	if len(b) >= 12 && binary.BigEndian.Uint32(b) == 0x0a0d0d0a {
		switch binary.BigEndian.Uint32(b[8:]) {
		case 0x1a2b3c4d, 0x4d3c2b1a:
			return PcapngFile
		}
	}
	if len(b) >= 17 && int64(binary.BigEndian.Uint64(b)) >= 0 &&
		int32(binary.BigEndian.Uint32(b[8:])) >= batchHeaderRest && b[16] == 2 {
		return LogSegmentFile
	}
	return UnknownFile
}

// String names the format: "a pcap capture", "a pcapng capture", "a log
// segment (a record batch at offset 0)", "" for UnknownFile.
func (f FileFormat) String() string {
	switch f {
	case PcapFile:
		return "a pcap capture"
	case PcapngFile:
		return "a pcapng capture"
	case LogSegmentFile:
		return "a log segment (a record batch at offset 0)"
	}
	return ""
}

// Command is the kwire command that reads the format: "pcap" for the
// captures, "log" for a log segment, "" for UnknownFile.
func (f FileFormat) Command() string {
	switch f {
	case PcapFile, PcapngFile:
		return "pcap"
	case LogSegmentFile:
		return "log"
	}
	return ""
}

// Hint says what the file named name is, what the command given it
// expected, and which command reads it: `x.pcap is a pcap capture, not a
// Kafka frame: read it with kwire pcap x.pcap`; "" for UnknownFile. Name
// "-" is standard input.
func (f FileFormat) Hint(name, expected string) string {
	if f == UnknownFile {
		return ""
	}
	what := name
	if name == "-" {
		what = "standard input"
	}
	return what + " is " + f.String() + ", not " + expected + ": read it with kwire " + f.Command() + " " + name
}
