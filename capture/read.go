package capture

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/google/gopacket/pcapgo"
)

// MaxPacket is the largest capture length of one packet record the readers
// accept (bytes): tcpdump's largest snap length. A record claiming more is a
// *FormatError, not an allocation.
const MaxPacket = 262144

// Format is the file format of a capture.
type Format uint8

const (
	// FormatPcap is the classic libpcap format (microsecond or nanosecond
	// timestamps, either byte order).
	FormatPcap Format = iota + 1
	// FormatPcapng is the pcapng block format.
	FormatPcapng
)

// String returns "pcap", "pcapng" or "interface".
func (f Format) String() string {
	switch f {
	case FormatPcap:
		return "pcap"
	case FormatPcapng:
		return "pcapng"
	case FormatInterface:
		return "interface"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// Packet is one captured packet.
type Packet struct {
	// Num is the packet's number in the file, from 1.
	Num int
	// Offset is the file offset of the packet's record (of its record
	// header in pcap, of its block in pcapng); in a gzip-compressed file,
	// the offset in the decompressed stream.
	Offset int64
	// Time is the capture timestamp, in UTC.
	Time time.Time
	// LinkType is the LINKTYPE_ number of the link layer of Data (of the
	// packet's interface in pcapng): 1 Ethernet, 0 BSD loopback, 113 and
	// 276 Linux cooked capture v1 and v2, 101 raw IP… (a uint32, as the
	// file has it: gopacket's layers.LinkType is a byte).
	LinkType uint32
	// Data holds the captured bytes, starting with the link header. It is
	// valid until the next call of Reader.Next.
	Data []byte
	// Length is the packet's length on the wire (bytes), at least len(Data);
	// more when the capture's snap length cut the packet short.
	Length int
}

// FormatError is a capture file that is not one or is damaged. Packets
// before it were read.
type FormatError struct {
	// Offset is the file offset (bytes) of the record or block concerned.
	Offset int64
	// Packet is the number of the packet concerned (the one being read), or
	// 0 for the file header.
	Packet int
	// Truncated says the file ends inside the record or block.
	Truncated bool
	// Msg says what is wrong.
	Msg string
	// Head is the file's first bytes (at most 64) when it is not a
	// capture, for saying what it is instead (frame.RecognizeFile).
	Head []byte
}

// Error returns "packet 3 at file offset 0x80: …" or "file header: …".
func (e *FormatError) Error() string {
	where := "file header"
	if e.Packet > 0 {
		where = fmt.Sprintf("packet %d at file offset %d (0x%x)", e.Packet, e.Offset, e.Offset)
	}
	return where + ": " + e.Msg
}

// Reader reads the packets of one capture file in file order.
type Reader struct {
	format Format
	num    int
	// pcap
	pr   *pcapgo.Reader
	link uint32 // from the file header, not truncated to a byte
	off  int64
	// pcapng
	ng *ngReader
	// an interface
	live *live
}

// Open reads the file header of a pcap or pcapng capture (either possibly
// gzip-compressed) from r. It returns a *FormatError when r is empty, is not
// a capture or ends inside the header.
func Open(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.Peek(4)
	if len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		z, zerr := gzip.NewReader(br)
		if zerr != nil {
			return nil, &FormatError{Msg: "gzip-compressed file: " + zerr.Error()}
		}
		br = bufio.NewReaderSize(z, 64<<10)
		magic, err = br.Peek(4)
	}
	if len(magic) < 4 {
		if len(magic) == 0 && err == io.EOF {
			return nil, &FormatError{Msg: "empty file, not a pcap or pcapng capture"}
		}
		if err != nil && err != io.EOF {
			return nil, &FormatError{Msg: err.Error()}
		}
		return nil, &FormatError{Truncated: true, Msg: fmt.Sprintf("%d bytes, not a pcap or pcapng capture", len(magic))}
	}
	le := binary.LittleEndian.Uint32(magic)
	switch le {
	case 0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1:
		hdr, _ := br.Peek(24)
		if len(hdr) < 24 {
			return nil, &FormatError{Truncated: true, Msg: fmt.Sprintf("pcap file header needs 24 bytes, the file has %d", len(hdr))}
		}
		var order binary.ByteOrder = binary.LittleEndian
		if le == 0xd4c3b2a1 || le == 0x4d3cb2a1 {
			order = binary.BigEndian
		}
		link := order.Uint32(hdr[20:24])
		pr, err := pcapgo.NewReader(br)
		if err != nil {
			return nil, &FormatError{Msg: "pcap file header: " + err.Error()}
		}
		// Tools ignore the header's snap length (writers do not always
		// honour it); bounding it bounds pcapgo's packet buffer.
		pr.SetSnaplen(MaxPacket)
		return &Reader{format: FormatPcap, pr: pr, link: link, off: 24}, nil
	case 0x0a0d0d0a:
		ng, err := newNgReader(br)
		if err != nil {
			return nil, err
		}
		return &Reader{format: FormatPcapng, ng: ng}, nil
	}
	head, _ := br.Peek(64)
	return nil, &FormatError{Msg: fmt.Sprintf("not a pcap or pcapng capture: the file starts % x", magic), Head: bytes.Clone(head)}
}

// Format returns the file's format.
func (r *Reader) Format() Format { return r.format }

// Next returns the next packet. It returns io.EOF at the clean end of the
// file and a *FormatError when the file is damaged or ends inside a record;
// after an error, Next keeps returning it.
func (r *Reader) Next() (Packet, error) {
	if r.live != nil {
		p, err := r.live.next(r.num + 1)
		if err == nil {
			r.num++
		}
		return p, err
	}
	if r.ng != nil {
		p, err := r.ng.next(r.num + 1)
		if err == nil {
			r.num++
		}
		return p, err
	}
	data, ci, err := r.pr.ZeroCopyReadPacketData()
	num := r.num + 1
	if err != nil {
		switch {
		case err == io.EOF && ci.CaptureLength == 0 && ci.Length == 0 && ci.Timestamp.IsZero():
			return Packet{}, io.EOF
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			if ci.Timestamp.IsZero() {
				err = &FormatError{Offset: r.off, Packet: num, Truncated: true, Msg: "the file ends inside the 16-byte record header"}
			} else {
				err = &FormatError{Offset: r.off, Packet: num, Truncated: true, Msg: fmt.Sprintf("the file ends inside the packet's %d captured bytes", ci.CaptureLength)}
			}
		default:
			err = &FormatError{Offset: r.off, Packet: num, Msg: err.Error()}
		}
		r.pr = nil
		r.ng = &ngReader{err: err} // sticky
		return Packet{}, err
	}
	p := Packet{Num: num, Offset: r.off, Time: ci.Timestamp, LinkType: r.link, Data: data, Length: ci.Length}
	if p.Length < len(data) {
		p.Length = len(data)
	}
	r.num = num
	r.off += 16 + int64(len(data))
	return p, nil
}
