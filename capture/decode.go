package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// linkTypeLinuxSLL2 is LINKTYPE_LINUX_SLL2.
const linkTypeLinuxSLL2 = 276

// segment is the TCP part of one packet.
type segment struct {
	src, dst netip.AddrPort
	seq, ack uint32
	syn, fin bool
	rst      bool
	ackFlag  bool
	payload  []byte
	// cut is the number of payload bytes the snap length cut off.
	cut int
}

// decoder turns packets into segments with gopacket's layers, one parser
// per first layer, reused for every packet.
type decoder struct {
	eth     layers.Ethernet
	dot1q   layers.Dot1Q
	sll     layers.LinuxSLL
	loop    layers.Loopback
	ip4     layers.IPv4
	ip6     layers.IPv6
	ip6x    layers.IPv6ExtensionSkipper
	tcp     layers.TCP
	parsers map[gopacket.LayerType]*gopacket.DecodingLayerParser
	decoded []gopacket.LayerType
}

// errNotTCP marks a packet that decoded but carries no TCP segment.
type errNotTCP struct{ what string }

func (e errNotTCP) Error() string { return e.what }

func (d *decoder) parser(first gopacket.LayerType) *gopacket.DecodingLayerParser {
	p := d.parsers[first]
	if p == nil {
		if d.parsers == nil {
			d.parsers = map[gopacket.LayerType]*gopacket.DecodingLayerParser{}
		}
		p = gopacket.NewDecodingLayerParser(first, &d.eth, &d.dot1q, &d.sll, &d.loop, &d.ip4, &d.ip6, &d.ip6x, &d.tcp)
		d.parsers[first] = p
	}
	return p
}

// decode finds the TCP segment of a packet. It returns errNotTCP for a
// packet that holds something else, another error for one that does not
// decode.
func (d *decoder) decode(p *Packet) (s segment, err error) {
	defer func() {
		// gopacket's layer decoders are not all hardened against damaged
		// headers; a panic in one is a packet that does not decode.
		if r := recover(); r != nil {
			err = fmt.Errorf("headers do not decode (%v)", r)
		}
	}()
	var first gopacket.LayerType
	data := p.Data
	switch p.LinkType {
	case uint32(layers.LinkTypeEthernet):
		first = layers.LayerTypeEthernet
	case uint32(layers.LinkTypeNull), uint32(layers.LinkTypeLoop):
		first = layers.LayerTypeLoopback
	case uint32(layers.LinkTypeLinuxSLL):
		first = layers.LayerTypeLinuxSLL
	case linkTypeLinuxSLL2:
		// tcpdump -i any since 4.99: a 20-byte header starting with the
		// EtherType (gopacket v1.1.19 has no layer for it).
		if len(p.Data) < 20 {
			return s, fmt.Errorf("Linux SLL2 header of %d bytes, want 20", len(p.Data))
		}
		switch layers.EthernetType(binary.BigEndian.Uint16(p.Data)) {
		case layers.EthernetTypeIPv4:
			first = layers.LayerTypeIPv4
		case layers.EthernetTypeIPv6:
			first = layers.LayerTypeIPv6
		default:
			return s, errNotTCP{"not IP"}
		}
		data = p.Data[20:]
	case uint32(layers.LinkTypeRaw), uint32(layers.LinkTypeIPv4), uint32(layers.LinkTypeIPv6), 12, 14:
		if len(p.Data) == 0 {
			return s, fmt.Errorf("empty raw IP packet")
		}
		switch p.Data[0] >> 4 {
		case 4:
			first = layers.LayerTypeIPv4
		case 6:
			first = layers.LayerTypeIPv6
		default:
			return s, fmt.Errorf("raw IP packet of IP version %d", p.Data[0]>>4)
		}
	default:
		return s, fmt.Errorf("link type %d is not supported", p.LinkType)
	}
	parser := d.parser(first)
	derr := parser.DecodeLayers(data, &d.decoded)
	var ip4, ip6, tcp bool
	for _, t := range d.decoded {
		switch t {
		case layers.LayerTypeIPv4:
			ip4 = true
		case layers.LayerTypeIPv6:
			ip6 = true
		case layers.LayerTypeTCP:
			tcp = true
		}
	}
	if !tcp {
		if derr != nil {
			if _, ok := derr.(gopacket.UnsupportedLayerType); ok {
				return s, errNotTCP{"not TCP"}
			}
			return s, derr
		}
		return s, errNotTCP{"not TCP"}
	}
	if ip4 && d.ip4.Flags&layers.IPv4MoreFragments != 0 || ip4 && d.ip4.FragOffset != 0 {
		return s, errNotTCP{"IPv4 fragment"}
	}
	var src, dst netip.Addr
	missing := 0
	if ip4 {
		src, _ = netip.AddrFromSlice(d.ip4.SrcIP)
		dst, _ = netip.AddrFromSlice(d.ip4.DstIP)
		missing = int(d.ip4.Length) - len(d.ip4.Contents) - len(d.ip4.Payload)
	} else if ip6 {
		src, _ = netip.AddrFromSlice(d.ip6.SrcIP)
		dst, _ = netip.AddrFromSlice(d.ip6.DstIP)
		missing = int(d.ip6.Length) - len(d.ip6.Payload)
		if d.ip6.HopByHop != nil {
			missing -= len(d.ip6.HopByHop.Contents)
		}
	}
	if !parser.Truncated || missing < 0 {
		missing = 0
	}
	t := &d.tcp
	s = segment{
		src: netip.AddrPortFrom(src.Unmap(), uint16(t.SrcPort)), dst: netip.AddrPortFrom(dst.Unmap(), uint16(t.DstPort)),
		seq: t.Seq, ack: t.Ack, syn: t.SYN, fin: t.FIN, rst: t.RST, ackFlag: t.ACK,
		payload: t.Payload, cut: missing,
	}
	return s, nil
}

// PacketPayload is the TCP payload of one whole packet whose headers were
// copied with it (Wireshark's "Copy as Hex Dump" of a packet).
type PacketPayload struct {
	// Payload is the TCP payload; Offset where it starts in the packet.
	Payload []byte
	Offset  int
	// Src and Dst are the TCP endpoints; Link is "Ethernet" or "IP".
	Src, Dst netip.AddrPort
	Link     string
}

// String says what the headers are: "Ethernet, IPv4 and TCP headers
// (10.0.0.1:50000 → 10.0.0.2:9092): the TCP payload starts at 0x0036".
func (p *PacketPayload) String() string {
	ip := "IPv4"
	if p.Src.Addr().Is6() {
		ip = "IPv6"
	}
	link := ""
	if p.Link == "Ethernet" {
		link = "Ethernet, "
	}
	return fmt.Sprintf("%s%s and TCP headers (%s → %s): the TCP payload starts at 0x%04x", link, ip, p.Src, p.Dst, p.Offset)
}

// Headers reports whether b is a whole packet, Ethernet (or bare IP)
// then IPv4 or IPv6 then TCP, whose IP length is that of b, and returns
// its TCP payload (an Ethernet frame may be padded to 60 bytes); nil when b is not one (a Kafka frame is not: its first
// bytes are a size, not an Ethernet or IP header).
func Headers(b []byte) *PacketPayload {
	for _, c := range []struct {
		link uint32
		name string
	}{{uint32(layers.LinkTypeEthernet), "Ethernet"}, {uint32(layers.LinkTypeRaw), "IP"}} {
		var d decoder
		s, err := d.decode(&Packet{LinkType: c.link, Data: b})
		if err != nil || s.cut != 0 || !s.src.IsValid() || len(s.payload) == 0 {
			continue
		}
		ipLen := int(d.ip4.Length)
		if s.src.Addr().Is6() {
			ipLen = int(d.ip6.Length) + 40
		}
		link := 0
		if c.name == "Ethernet" {
			link = 14
		}
		end := link + ipLen
		start := end - len(s.payload)
		// An Ethernet frame is padded to 60 bytes.
		if end != len(b) && !(link > 0 && len(b) == 60 && end < 60) || start < 0 || !bytes.Equal(b[start:end], s.payload) {
			continue
		}
		return &PacketPayload{Payload: s.payload, Offset: start, Src: s.src, Dst: s.dst, Link: c.name}
	}
	return nil
}
