package capture

import (
	"fmt"
	"net"

	"github.com/google/gopacket/pcapgo"
	"golang.org/x/net/bpf"
)

// OpenInterface captures the packets of the network interface name (an
// Ethernet or loopback interface) through an AF_PACKET socket, as they
// come; it needs the right to capture (root, or CAP_NET_RAW). Every packet
// of the interface is read: a filter by port is the Assembler's
// (Options.Ports). On a loopback interface, where the kernel shows each
// packet twice, the copy going out is left out. Next returns io.EOF once
// o.Stop is closed. Up to 256 packets wait in memory for Next, beyond what
// the socket's buffer holds; a packet that came when both were full is
// lost to the capture (and shows as a gap).
func OpenInterface(name string, o InterfaceOptions) (*Reader, error) {
	ifc, err := net.InterfaceByName(name)
	if err != nil {
		return nil, err
	}
	if ifc.Flags&net.FlagLoopback == 0 && len(ifc.HardwareAddr) != 6 {
		return nil, fmt.Errorf("interface %s is neither Ethernet nor loopback: capture it with tcpdump and pipe the capture", name)
	}
	h, err := pcapgo.NewEthernetHandle(name)
	if err != nil {
		return nil, err
	}
	if err := h.SetCaptureLength(MaxPacket); err != nil {
		h.Close()
		return nil, err
	}
	if ifc.Flags&net.FlagLoopback != 0 {
		const packetOutgoing = 4 // PACKET_OUTGOING, the packet type of a copy going out
		prog, err := bpf.Assemble([]bpf.Instruction{
			bpf.LoadExtension{Num: bpf.ExtType},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: packetOutgoing, SkipTrue: 1},
			bpf.RetConstant{Val: MaxPacket},
			bpf.RetConstant{Val: 0},
		})
		if err == nil {
			err = h.SetBPF(prog)
		}
		if err != nil {
			h.Close()
			return nil, fmt.Errorf("interface %s: %w", name, err)
		}
	}
	l := &live{o: o, link: 1, ch: make(chan livePacket, 256)} // LINKTYPE_ETHERNET, as Linux frames loopback
	go func() {
		defer h.Close()
		for {
			data, ci, err := h.ReadPacketData()
			select {
			case l.ch <- livePacket{data: data, t: ci.Timestamp, n: ci.Length, err: err}:
			case <-o.Stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return &Reader{format: FormatInterface, live: l}, nil
}
