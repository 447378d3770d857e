package capture

import (
	"io"
	"time"
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
