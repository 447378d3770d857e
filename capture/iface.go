package capture

import (
	"fmt"
	"io"
	"time"

	"golang.org/x/net/bpf"
)

// FormatInterface is a capture read from a network interface as its
// packets come (OpenInterface), not from a file.
const FormatInterface Format = 3

// InterfaceOptions configure OpenInterface.
type InterfaceOptions struct {
	// Idle, when not nil, is called before waiting for the next packet.
	Idle func()
	// Stop, when closed, ends the capture: Next returns io.EOF, at once if
	// it was waiting.
	Stop <-chan struct{}
	// Ports, when not empty, are the TCP ports captured (as the
	// Assembler's Options.Ports): the kernel leaves the interface's other
	// traffic out, so that it neither fills the socket's buffer nor costs
	// a copy. Too many ports for the socket filter (see OpenInterface)
	// are left to the Assembler.
	Ports []uint16
}

// livePacket is a packet read by an interface's goroutine.
type livePacket struct {
	data []byte
	t    time.Time
	n    int // length on the wire
	err  error
}

// live is the source of a Reader of an interface.
type live struct {
	o    InterfaceOptions
	link uint32
	ch   chan livePacket
	err  error // sticky
}

// next returns the next packet, numbered num.
func (l *live) next(num int) (Packet, error) {
	if l.err != nil {
		return Packet{}, l.err
	}
	var p livePacket
	select {
	case <-l.o.Stop: // before the packets waiting, which a Stop leaves unread
		l.err = io.EOF
		return Packet{}, l.err
	default:
	}
	select {
	case <-l.o.Stop:
		l.err = io.EOF
		return Packet{}, l.err
	case p = <-l.ch:
	default:
		if l.o.Idle != nil {
			l.o.Idle()
		}
		select {
		case <-l.o.Stop:
			l.err = io.EOF
			return Packet{}, l.err
		case p = <-l.ch:
		}
	}
	if p.err != nil {
		l.err = &FormatError{Packet: num, Msg: p.err.Error()}
		return Packet{}, l.err
	}
	return Packet{Num: num, Time: p.t.UTC(), LinkType: l.link, Data: p.data, Length: max(p.n, len(p.data))}, nil
}

// interfaceFilter is the socket filter of an interface's capture: on a
// loopback interface it refuses the copy of a packet going out; with
// ports, it keeps only the TCP packets (IPv4, or IPv6 without extension
// headers) whose source or destination port is one of them, IPv4
// fragments after the first (their TCP header is elsewhere) and
// 802.1Q-tagged frames, which the Assembler sorts out. A packet kept is
// kept whole, up to MaxPacket bytes. It fails when ports are too many for
// a filter's jumps (more than 59).
func interfaceFilter(loopback bool, ports []uint16) ([]bpf.Instruction, error) {
	const (
		next = iota
		accept
		drop
		ipv6
	)
	type jump struct {
		at          int
		ifTrue, els int // labels
	}
	var prog []bpf.Instruction
	var jumps []jump
	jumpIf := func(cond bpf.JumpTest, val uint32, ifTrue, els int) {
		jumps = append(jumps, jump{len(prog), ifTrue, els})
		prog = append(prog, bpf.JumpIf{Cond: cond, Val: val})
	}
	// ports16 keeps a packet whose source or destination port (loaded by
	// src, dst) is one of ports, and refuses the others.
	ports16 := func(src, dst bpf.Instruction) {
		for _, load := range []bpf.Instruction{src, dst} {
			prog = append(prog, load)
			for _, p := range ports {
				jumpIf(bpf.JumpEqual, uint32(p), accept, next)
			}
		}
		prog = append(prog, bpf.RetConstant{Val: 0})
	}
	if loopback {
		const packetOutgoing = 4 // PACKET_OUTGOING, the packet type of a copy going out
		prog = append(prog, bpf.LoadExtension{Num: bpf.ExtType})
		jumpIf(bpf.JumpEqual, packetOutgoing, drop, next)
	}
	labels := map[int]int{}
	if len(ports) > 0 {
		prog = append(prog, bpf.LoadAbsolute{Off: 12, Size: 2}) // EtherType
		jumpIf(bpf.JumpEqual, 0x8100, accept, next)
		jumpIf(bpf.JumpEqual, 0x88a8, accept, next)
		jumpIf(bpf.JumpEqual, 0x0800, next, ipv6)
		prog = append(prog, bpf.LoadAbsolute{Off: 14 + 9, Size: 1}) // IPv4 protocol
		jumpIf(bpf.JumpEqual, 6, next, drop)
		prog = append(prog, bpf.LoadAbsolute{Off: 14 + 6, Size: 2}) // flags, fragment offset
		jumpIf(bpf.JumpBitsSet, 0x1fff, accept, next)
		prog = append(prog, bpf.LoadMemShift{Off: 14}) // X: the IPv4 header's length
		ports16(bpf.LoadIndirect{Off: 14, Size: 2}, bpf.LoadIndirect{Off: 14 + 2, Size: 2})
		labels[ipv6] = len(prog)
		jumpIf(bpf.JumpEqual, 0x86dd, next, drop)
		prog = append(prog, bpf.LoadAbsolute{Off: 14 + 6, Size: 1}) // IPv6 next header
		jumpIf(bpf.JumpEqual, 6, next, drop)
		ports16(bpf.LoadAbsolute{Off: 14 + 40, Size: 2}, bpf.LoadAbsolute{Off: 14 + 40 + 2, Size: 2})
	}
	labels[accept] = len(prog)
	prog = append(prog, bpf.RetConstant{Val: MaxPacket})
	labels[drop] = len(prog)
	prog = append(prog, bpf.RetConstant{Val: 0})
	for _, j := range jumps {
		ins := prog[j.at].(bpf.JumpIf)
		for _, x := range []struct {
			label int
			skip  *uint8
		}{{j.ifTrue, &ins.SkipTrue}, {j.els, &ins.SkipFalse}} {
			if x.label == next {
				continue
			}
			d := labels[x.label] - j.at - 1
			if d > 255 {
				return nil, fmt.Errorf("%d ports are too many for the socket filter", len(ports))
			}
			*x.skip = uint8(d)
		}
		prog[j.at] = ins
	}
	return prog, nil
}
