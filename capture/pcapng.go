package capture

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"time"
)

// pcapng block types (https://www.ietf.org/archive/id/draft-ietf-opsawg-pcapng).
const (
	ngSectionHeader   = 0x0a0d0d0a
	ngInterface       = 0x00000001
	ngObsoletePacket  = 0x00000002
	ngSimplePacket    = 0x00000003
	ngEnhancedPacket  = 0x00000006
	ngByteOrderMagic  = 0x1a2b3c4d
	ngOptEnd          = 0
	ngOptTsresol      = 9
	ngOptTsoffset     = 14
	ngMaxPacketBlock  = MaxPacket + 64<<10 // a packet block: its data plus room for options
	ngMaxHeaderBlock  = 1 << 20            // section header and interface blocks
	ngReadChunk       = 64 << 10
	ngMinBlock        = 12
	ngPacketHeaderLen = 20
)

// ngIface is what an interface description block says.
type ngIface struct {
	link    uint32
	snaplen uint32
	// units per second of timestamps, and the offset in seconds
	units  uint64
	offset int64
}

// ngReader reads pcapng blocks from r, which must start at a section
// header block.
type ngReader struct {
	r      io.Reader
	off    int64 // file offset of the next block
	order  binary.ByteOrder
	ifaces []ngIface
	buf    []byte
	err    error // sticky
}

func newNgReader(r io.Reader) (*ngReader, error) {
	ng := &ngReader{r: r}
	typ, body, err := ng.block(0)
	if err != nil {
		return nil, err
	}
	if typ != ngSectionHeader {
		return nil, &FormatError{Msg: "pcapng: the file does not start with a section header block"}
	}
	if err := ng.section(body); err != nil {
		return nil, err
	}
	return ng, nil
}

func (ng *ngReader) fail(num int, off int64, truncated bool, format string, args ...any) error {
	ng.err = &FormatError{Offset: off, Packet: num, Truncated: truncated, Msg: "pcapng: " + fmt.Sprintf(format, args...)}
	return ng.err
}

// block reads the next block whole (type, body without the trailing length)
// into ng.buf. Blocks other than packets, interfaces and section headers
// are skipped without being kept. At the clean end of the file it returns
// io.EOF.
func (ng *ngReader) block(num int) (uint32, []byte, error) {
	off := ng.off
	var hdr [12]byte
	n, err := io.ReadFull(ng.r, hdr[:8])
	if err == io.EOF {
		return 0, nil, io.EOF
	}
	if err != nil {
		return 0, nil, ng.fail(num, off, true, "the file ends inside a block header (%d of 8 bytes)", n)
	}
	typ := binary.LittleEndian.Uint32(hdr[:4]) // the section header's type reads the same in both orders
	if typ == ngSectionHeader {
		if _, err := io.ReadFull(ng.r, hdr[8:12]); err != nil {
			return 0, nil, ng.fail(num, off, true, "the file ends inside a section header block")
		}
		switch {
		case binary.LittleEndian.Uint32(hdr[8:12]) == ngByteOrderMagic:
			ng.order = binary.LittleEndian
		case binary.BigEndian.Uint32(hdr[8:12]) == ngByteOrderMagic:
			ng.order = binary.BigEndian
		default:
			return 0, nil, ng.fail(num, off, false, "section header block has byte-order magic % x, want 1a2b3c4d", hdr[8:12])
		}
		ng.ifaces = ng.ifaces[:0]
	} else if ng.order == nil {
		return 0, nil, ng.fail(num, off, false, "block type 0x%08x before any section header", typ)
	} else {
		typ = ng.order.Uint32(hdr[:4])
	}
	length := ng.order.Uint32(hdr[4:8])
	if length < ngMinBlock || length%4 != 0 {
		return 0, nil, ng.fail(num, off, false, "block type 0x%08x has length %d: not a multiple of 4 of at least 12", typ, length)
	}
	read := int64(8)
	if typ == ngSectionHeader {
		read = 12
	}
	rest := int64(length) - read // body and trailing length
	if rest < 4 {
		return 0, nil, ng.fail(num, off, false, "section header block has length %d", length)
	}
	keep := typ == ngSectionHeader || typ == ngInterface || typ == ngEnhancedPacket || typ == ngSimplePacket || typ == ngObsoletePacket
	if !keep {
		m, err := io.CopyN(io.Discard, ng.r, rest)
		if err != nil {
			return 0, nil, ng.fail(num, off, true, "the file ends inside block type 0x%08x of %d bytes (%d missing)", typ, length, rest-m)
		}
		ng.off += int64(length)
		return typ, nil, nil
	}
	limit := int64(ngMaxPacketBlock)
	if typ == ngSectionHeader || typ == ngInterface {
		limit = ngMaxHeaderBlock
	}
	if int64(length) > limit {
		return 0, nil, ng.fail(num, off, false, "block type 0x%08x claims %d bytes, more than the %d kwire reads", typ, length, limit)
	}
	// Read in chunks so that the buffer grows only with bytes that exist.
	ng.buf = ng.buf[:0]
	for int64(len(ng.buf)) < rest {
		k := min(rest-int64(len(ng.buf)), ngReadChunk)
		start := len(ng.buf)
		ng.buf = append(ng.buf, make([]byte, k)...)
		m, err := io.ReadFull(ng.r, ng.buf[start:])
		if err != nil {
			missing := rest - int64(start) - int64(m)
			return 0, nil, ng.fail(num, off, true, "the file ends inside block type 0x%08x of %d bytes (%d missing)", typ, length, missing)
		}
	}
	if trail := ng.order.Uint32(ng.buf[len(ng.buf)-4:]); trail != length {
		return 0, nil, ng.fail(num, off, false, "block type 0x%08x: leading length %d, trailing length %d", typ, length, trail)
	}
	ng.off += int64(length)
	return typ, ng.buf[:len(ng.buf)-4], nil
}

// section checks a section header block's body (after the byte-order
// magic).
func (ng *ngReader) section(body []byte) error {
	if len(body) < 12 {
		return ng.fail(0, ng.off, false, "section header block too short")
	}
	if major := ng.order.Uint16(body[0:2]); major != 1 {
		return ng.fail(0, ng.off, false, "section header: major version %d, want 1", major)
	}
	return nil
}

// iface parses an interface description block.
func (ng *ngReader) iface(num int, off int64, body []byte) error {
	if len(body) < 8 {
		return ng.fail(num, off, false, "interface description block of %d bytes", len(body)+12)
	}
	ifc := ngIface{link: uint32(ng.order.Uint16(body[0:2])), snaplen: ng.order.Uint32(body[4:8]), units: 1e6}
	opts := body[8:]
	for len(opts) >= 4 {
		code, n := ng.order.Uint16(opts[0:2]), int(ng.order.Uint16(opts[2:4]))
		if code == ngOptEnd {
			break
		}
		padded := (n + 3) &^ 3
		if 4+padded > len(opts) {
			return ng.fail(num, off, false, "interface option %d of %d bytes overruns its block", code, n)
		}
		v := opts[4 : 4+n]
		switch code {
		case ngOptTsresol:
			if n != 1 {
				return ng.fail(num, off, false, "if_tsresol option of %d bytes, want 1", n)
			}
			e := uint64(v[0] & 0x7f)
			if v[0]&0x80 != 0 {
				if e > 63 {
					return ng.fail(num, off, false, "if_tsresol 2^-%d is finer than kwire reads", e)
				}
				ifc.units = 1 << e
			} else {
				if e > 19 {
					return ng.fail(num, off, false, "if_tsresol 10^-%d is finer than kwire reads", e)
				}
				ifc.units = 1
				for range e {
					ifc.units *= 10
				}
			}
		case ngOptTsoffset:
			if n != 8 {
				return ng.fail(num, off, false, "if_tsoffset option of %d bytes, want 8", n)
			}
			ifc.offset = int64(ng.order.Uint64(v))
		}
		opts = opts[4+padded:]
	}
	ng.ifaces = append(ng.ifaces, ifc)
	return nil
}

// stamp converts a timestamp in the interface's units to a time.
func (ifc *ngIface) stamp(ts uint64) time.Time {
	sec := ts / ifc.units
	frac := ts % ifc.units
	nsec := frac * 1e9 / ifc.units
	if ifc.units > math.MaxUint64/1_000_000_000 {
		nsec = uint64(float64(frac) / float64(ifc.units) * 1e9)
	}
	return time.Unix(int64(sec)+ifc.offset, int64(nsec)).UTC()
}

// next returns the next packet, numbered num.
func (ng *ngReader) next(num int) (Packet, error) {
	if ng.err != nil {
		return Packet{}, ng.err
	}
	for {
		off := ng.off
		typ, body, err := ng.block(num)
		if err != nil {
			return Packet{}, err
		}
		switch typ {
		case ngSectionHeader:
			if err := ng.section(body); err != nil {
				return Packet{}, err
			}
		case ngInterface:
			if err := ng.iface(num, off, body); err != nil {
				return Packet{}, err
			}
		case ngEnhancedPacket, ngObsoletePacket:
			if len(body) < ngPacketHeaderLen {
				return Packet{}, ng.fail(num, off, false, "packet block of %d bytes", len(body)+12)
			}
			var id uint32
			if typ == ngEnhancedPacket {
				id = ng.order.Uint32(body[0:4])
			} else {
				id = uint32(ng.order.Uint16(body[0:2]))
			}
			if int(id) >= len(ng.ifaces) {
				return Packet{}, ng.fail(num, off, false, "packet of interface %d, but the section describes %d interfaces", id, len(ng.ifaces))
			}
			ifc := &ng.ifaces[id]
			ts := uint64(ng.order.Uint32(body[4:8]))<<32 | uint64(ng.order.Uint32(body[8:12]))
			capLen, origLen := ng.order.Uint32(body[12:16]), ng.order.Uint32(body[16:20])
			if int64(capLen) > int64(len(body)-ngPacketHeaderLen) {
				return Packet{}, ng.fail(num, off, false, "packet claims %d captured bytes, its block holds %d", capLen, len(body)-ngPacketHeaderLen)
			}
			data := body[ngPacketHeaderLen : ngPacketHeaderLen+int(capLen)]
			length := max(int(origLen), len(data))
			return Packet{Num: num, Offset: off, Time: ifc.stamp(ts), LinkType: ifc.link, Data: data, Length: length}, nil
		case ngSimplePacket:
			if len(ng.ifaces) == 0 {
				return Packet{}, ng.fail(num, off, false, "simple packet block before any interface description")
			}
			if len(body) < 4 {
				return Packet{}, ng.fail(num, off, false, "simple packet block of %d bytes", len(body)+12)
			}
			ifc := &ng.ifaces[0]
			origLen := int64(ng.order.Uint32(body[0:4]))
			capLen := min(origLen, int64(len(body)-4))
			if ifc.snaplen != 0 {
				capLen = min(capLen, int64(ifc.snaplen))
			}
			data := body[4 : 4+capLen]
			return Packet{Num: num, Offset: off, LinkType: ifc.link, Data: data, Length: max(int(origLen), len(data))}, nil
		}
	}
}
