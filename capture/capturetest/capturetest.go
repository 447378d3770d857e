// Package capturetest writes small packet captures for tests: TCP segments
// serialized with gopacket's layers (Ethernet, IPv4 or IPv6, or BSD
// loopback) into pcap or pcapng files written by gopacket's pcapgo writers,
// and TCP conversations that keep their own sequence numbers.
package capturetest

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// File is a capture being written into memory.
type File struct {
	buf  bytes.Buffer
	link layers.LinkType
	pcap *pcapgo.Writer
	ng   *pcapgo.NgWriter
	err  error
}

// NewPcap starts a classic pcap file (microsecond timestamps) of link type
// Ethernet or Null (BSD loopback).
func NewPcap(link layers.LinkType) *File {
	f := &File{link: link}
	f.pcap = pcapgo.NewWriter(&f.buf)
	f.err = f.pcap.WriteFileHeader(65535, link)
	return f
}

// NewPcapng starts a pcapng file with one interface of link type link and
// nanosecond timestamps.
func NewPcapng(link layers.LinkType) *File {
	f := &File{link: link}
	f.ng, f.err = pcapgo.NewNgWriterInterface(&f.buf, pcapgo.NgInterface{
		Name: "test0", LinkType: link, SnapLength: 65535, TimestampResolution: 9,
	}, pcapgo.NgWriterOptions{})
	return f
}

// Raw adds a packet of the given bytes, whole.
func (f *File) Raw(t time.Time, data []byte) {
	f.RawCut(t, data, len(data))
}

// RawCut adds a packet of which only the first n bytes were captured.
func (f *File) RawCut(t time.Time, data []byte, n int) {
	if f.err != nil {
		return
	}
	ci := gopacket.CaptureInfo{Timestamp: t, CaptureLength: n, Length: len(data)}
	if f.pcap != nil {
		f.err = f.pcap.WritePacket(ci, data[:n])
	} else {
		f.err = f.ng.WritePacket(ci, data[:n])
	}
}

// Segment is one TCP segment to serialize.
type Segment struct {
	// Src and Dst are the ends (IPv4 or IPv6, both the same family); Seq
	// and Ack the sequence and acknowledgement numbers; the flags are
	// TCP's; Payload the data.
	Src, Dst                netip.AddrPort
	Seq, Ack                uint32
	SYN, ACK, FIN, RST, PSH bool
	Payload                 []byte
}

// Add serializes s under the file's link type and adds it.
func (f *File) Add(t time.Time, s Segment) {
	b, err := Packet(f.link, s)
	if err != nil {
		f.err = err
		return
	}
	f.Raw(t, b)
}

// Bytes finishes the file and returns its bytes, or the first error of
// writing it.
func (f *File) Bytes() ([]byte, error) {
	if f.err == nil && f.ng != nil {
		f.err = f.ng.Flush()
	}
	return f.buf.Bytes(), f.err
}

// Take returns the bytes written since the last Take (all of them, the
// file header included, at the first) and forgets them, so that a long
// capture can be streamed (into a pipe) without being held. It flushes a
// pcapng writer first. The bytes are valid until the next write.
func (f *File) Take() ([]byte, error) {
	if f.err == nil && f.ng != nil {
		f.err = f.ng.Flush()
	}
	b := f.buf.Bytes()
	f.buf.Reset()
	return b, f.err
}

// Packet serializes s as link (Ethernet or Null), IP (v4 or v6 by the
// addresses) and TCP with computed lengths and checksums.
func Packet(link layers.LinkType, s Segment) ([]byte, error) {
	tcp := &layers.TCP{
		SrcPort: layers.TCPPort(s.Src.Port()), DstPort: layers.TCPPort(s.Dst.Port()),
		Seq: s.Seq, Ack: s.Ack, SYN: s.SYN, ACK: s.ACK, FIN: s.FIN, RST: s.RST, PSH: s.PSH,
		Window: 65535,
	}
	var ip gopacket.SerializableLayer
	var family layers.ProtocolFamily
	var etype layers.EthernetType
	if s.Src.Addr().Is4() {
		ip4 := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP,
			SrcIP: net.IP(s.Src.Addr().AsSlice()), DstIP: net.IP(s.Dst.Addr().AsSlice())}
		if err := tcp.SetNetworkLayerForChecksum(ip4); err != nil {
			return nil, err
		}
		ip, family, etype = ip4, layers.ProtocolFamilyIPv4, layers.EthernetTypeIPv4
	} else {
		ip6 := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP,
			SrcIP: net.IP(s.Src.Addr().AsSlice()), DstIP: net.IP(s.Dst.Addr().AsSlice())}
		if err := tcp.SetNetworkLayerForChecksum(ip6); err != nil {
			return nil, err
		}
		ip, family, etype = ip6, layers.ProtocolFamilyIPv6Linux, layers.EthernetTypeIPv6
	}
	var link0 gopacket.SerializableLayer
	switch link {
	case layers.LinkTypeEthernet:
		link0 = &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: etype}
	case layers.LinkTypeNull:
		link0 = &layers.Loopback{Family: family}
	default:
		return nil, fmt.Errorf("capturetest: link type %v not supported", link)
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, link0, ip, tcp, gopacket.Payload(s.Payload)); err != nil {
		return nil, err
	}
	return append([]byte(nil), buf.Bytes()...), nil
}

// Conv is a TCP conversation between a client and a server that keeps both
// sequence numbers and a clock.
type Conv struct {
	// F is the file the packets go to; Client and Server the ends.
	F              *File
	Client, Server netip.AddrPort
	// CSeq and SSeq are the next sequence numbers of client and server.
	CSeq, SSeq uint32
	// T is the time of the next packet; Step is added after each one.
	T    time.Time
	Step time.Duration
}

// NewConv starts a conversation at time t with the given initial sequence
// numbers (the next packets are the handshake's, if Handshake is called).
func NewConv(f *File, client, server string, cisn, sisn uint32, t time.Time) *Conv {
	return &Conv{F: f, Client: netip.MustParseAddrPort(client), Server: netip.MustParseAddrPort(server),
		CSeq: cisn, SSeq: sisn, T: t, Step: time.Millisecond}
}

func (c *Conv) tick() time.Time {
	t := c.T
	c.T = c.T.Add(c.Step)
	return t
}

// Handshake writes SYN, SYN-ACK and ACK.
func (c *Conv) Handshake() {
	c.F.Add(c.tick(), Segment{Src: c.Client, Dst: c.Server, Seq: c.CSeq, SYN: true})
	c.CSeq++
	c.F.Add(c.tick(), Segment{Src: c.Server, Dst: c.Client, Seq: c.SSeq, Ack: c.CSeq, SYN: true, ACK: true})
	c.SSeq++
	c.F.Add(c.tick(), Segment{Src: c.Client, Dst: c.Server, Seq: c.CSeq, Ack: c.SSeq, ACK: true})
}

// Seg returns the next segment of the client (fromClient) or the server
// carrying payload, and advances that side's sequence number.
func (c *Conv) Seg(fromClient bool, payload []byte) Segment {
	if fromClient {
		s := Segment{Src: c.Client, Dst: c.Server, Seq: c.CSeq, Ack: c.SSeq, ACK: true, PSH: true, Payload: payload}
		c.CSeq += uint32(len(payload))
		return s
	}
	s := Segment{Src: c.Server, Dst: c.Client, Seq: c.SSeq, Ack: c.CSeq, ACK: true, PSH: true, Payload: payload}
	c.SSeq += uint32(len(payload))
	return s
}

// Send writes payload from the client (fromClient) or the server in
// segments of at most mss bytes (all of it in one when mss <= 0) and
// returns the time of the last one.
func (c *Conv) Send(fromClient bool, payload []byte, mss int) time.Time {
	var t time.Time
	for len(payload) > 0 {
		n := len(payload)
		if mss > 0 && n > mss {
			n = mss
		}
		t = c.tick()
		c.F.Add(t, c.Seg(fromClient, payload[:n]))
		payload = payload[n:]
	}
	return t
}

// Put writes segment s now.
func (c *Conv) Put(s Segment) time.Time {
	t := c.tick()
	c.F.Add(t, s)
	return t
}

// Close writes FIN from the client, FIN from the server and the last ACK.
func (c *Conv) Close() {
	c.F.Add(c.tick(), Segment{Src: c.Client, Dst: c.Server, Seq: c.CSeq, Ack: c.SSeq, ACK: true, FIN: true})
	c.CSeq++
	c.F.Add(c.tick(), Segment{Src: c.Server, Dst: c.Client, Seq: c.SSeq, Ack: c.CSeq, ACK: true, FIN: true})
	c.SSeq++
	c.F.Add(c.tick(), Segment{Src: c.Client, Dst: c.Server, Seq: c.CSeq, Ack: c.SSeq, ACK: true})
}
