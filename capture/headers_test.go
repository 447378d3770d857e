package capture_test

import (
	"bytes"
	"encoding/hex"
	"net/netip"
	"testing"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture"
	"github.com/kwire/kwire/capture/capturetest"
)

// A whole packet copied with its headers (Ethernet or bare IP, IPv4 or
// IPv6, TCP) gives its TCP payload; a Kafka frame, and a packet cut
// short, give nil.
func TestHeaders(t *testing.T) {
	frame, _ := hex.DecodeString("0000001c00000000000000020102000000000000000000000000000000000000")
	for _, c := range []struct {
		link       layers.LinkType
		src, dst   string
		offset     int
		want, desc string
	}{
		{layers.LinkTypeEthernet, "10.0.0.2:9092", "10.0.0.1:50000", 54, "Ethernet", "Ethernet, IPv4 and TCP headers (10.0.0.2:9092 → 10.0.0.1:50000): the TCP payload starts at 0x0036"},
		{layers.LinkTypeEthernet, "[fd00::2]:9092", "[fd00::1]:50000", 74, "Ethernet", "Ethernet, IPv6 and TCP headers ([fd00::2]:9092 → [fd00::1]:50000): the TCP payload starts at 0x004a"},
	} {
		pkt, err := capturetest.Packet(c.link, capturetest.Segment{Src: netip.MustParseAddrPort(c.src), Dst: netip.MustParseAddrPort(c.dst), ACK: true, PSH: true, Payload: frame})
		if err != nil {
			t.Fatal(err)
		}
		p := capture.Headers(pkt)
		if p == nil || !bytes.Equal(p.Payload, frame) || p.Offset != c.offset || p.Link != c.want || p.String() != c.desc {
			t.Errorf("%s: %+v", c.src, p)
			continue
		}
		// The IP packet alone.
		if p := capture.Headers(pkt[14:]); p == nil || p.Offset != c.offset-14 || p.Link != "IP" {
			t.Errorf("%s without Ethernet: %+v", c.src, p)
		}
		if p := capture.Headers(pkt[:len(pkt)-1]); p != nil {
			t.Errorf("%s cut short: %+v", c.src, p)
		}
	}
	if p := capture.Headers(frame); p != nil {
		t.Errorf("a Kafka frame: %+v", p)
	}
}
