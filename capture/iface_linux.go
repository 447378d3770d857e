package capture

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// socketBuffer is the receive buffer an interface's socket asks for, in
// bytes: what waits in the kernel while Next's caller is busy.
const socketBuffer = 4 << 20

// OpenInterface captures the packets of the network interface name (an
// Ethernet or loopback interface) through an AF_PACKET socket, as they
// come; it needs the right to capture (root, or CAP_NET_RAW). When
// o.Ports is not empty, the kernel passes only TCP packets to or from
// those ports (and 802.1Q-tagged frames, for the Assembler to judge); on a
// loopback interface, where the kernel shows each packet twice, the copy
// going out is left out. The socket is bound with its filter attached
// before OpenInterface returns: every packet the interface carries from
// then on is captured. Next returns io.EOF once o.Stop is closed, at once
// if it was waiting, and the socket is closed. Up to 256 packets wait in
// memory for Next, beyond what the socket's buffer (up to 4 MiB) holds; a
// packet that came when both were full is lost to the capture (and shows
// as a gap).
func OpenInterface(name string, o InterfaceOptions) (*Reader, error) {
	ifc, err := net.InterfaceByName(name)
	if err != nil {
		return nil, err
	}
	loopback := ifc.Flags&net.FlagLoopback != 0
	if !loopback && len(ifc.HardwareAddr) != 6 {
		return nil, fmt.Errorf("interface %s is neither Ethernet nor loopback: capture it with tcpdump and pipe the capture", name)
	}
	filter, err := interfaceFilter(loopback, o.Ports)
	if err != nil { // too many ports for the filter's jumps: the Assembler filters them
		filter, err = interfaceFilter(loopback, nil)
	}
	var prog []bpf.RawInstruction
	if err == nil {
		prog, err = bpf.Assemble(filter)
	}
	if err != nil {
		return nil, fmt.Errorf("interface %s: %w", name, err)
	}
	// Protocol 0: the socket receives nothing until it is bound, after
	// its filter is attached, so no packet the filter would refuse waits
	// in its buffer.
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("packet socket: %w", err)
	}
	f := os.NewFile(uintptr(fd), "packet socket on "+name) // non-blocking: reads wait in Go's poller
	if err := setUpSocket(fd, ifc.Index, prog); err != nil {
		f.Close()
		return nil, fmt.Errorf("packet socket: %w", err)
	}
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	l := &live{o: o, link: 1, ch: make(chan livePacket, 256)} // LINKTYPE_ETHERNET, as Linux frames loopback
	done := make(chan struct{})
	go func() { // a Stop ends a read that waits
		select {
		case <-o.Stop:
			f.SetReadDeadline(time.Unix(1, 0))
		case <-done:
		}
	}()
	go func() {
		defer f.Close()
		defer close(done)
		buf := make([]byte, MaxPacket)
		oob := make([]byte, unix.CmsgSpace(int(unsafe.Sizeof(unix.TpacketAuxdata{})))+unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{}))))
		for {
			p := readPacket(rc, buf, oob)
			if p.err != nil && errors.Is(p.err, os.ErrDeadlineExceeded) {
				return // stopped
			}
			select {
			case l.ch <- p:
			case <-o.Stop:
				return
			}
			if p.err != nil {
				return
			}
		}
	}()
	return &Reader{format: FormatInterface, live: l}, nil
}

// setUpSocket attaches prog to the packet socket fd, asks for its buffer
// and the packets' original lengths and times, and binds it to every
// protocol of the interface numbered index.
func setUpSocket(fd, index int, prog []bpf.RawInstruction) error {
	f := make([]unix.SockFilter, len(prog))
	for i, ins := range prog {
		f[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}); err != nil {
		return fmt.Errorf("attaching its filter: %w", err)
	}
	// Beyond the system's limit (net.core.rmem_max) with the right to
	// (CAP_NET_ADMIN), within it otherwise; the default buffer is kept if
	// neither is allowed.
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, socketBuffer) != nil {
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, socketBuffer)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_AUXDATA, 1); err != nil {
		return err
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		return err
	}
	const ethPAll = unix.ETH_P_ALL<<8&0xff00 | unix.ETH_P_ALL>>8 // in network byte order
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: ethPAll, Ifindex: index}); err != nil {
		return fmt.Errorf("binding it: %w", err)
	}
	return nil
}

// readPacket waits for the socket's next packet and returns a copy of it,
// its time and its length on the wire.
func readPacket(rc interface {
	Read(func(fd uintptr) bool) error
}, buf, oob []byte) livePacket {
	var n, oobn int
	var err error
	rerr := rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, err = unix.Recvmsg(int(fd), buf, oob, unix.MSG_TRUNC) // n: the whole length
		return err != unix.EAGAIN
	})
	if rerr != nil {
		return livePacket{err: rerr}
	}
	if err != nil {
		return livePacket{err: fmt.Errorf("reading the packet socket: %w", err)}
	}
	p := livePacket{data: append([]byte(nil), buf[:min(n, len(buf))]...), n: n}
	msgs, _ := unix.ParseSocketControlMessage(oob[:oobn])
	for _, m := range msgs {
		switch {
		case m.Header.Level == unix.SOL_PACKET && m.Header.Type == unix.PACKET_AUXDATA && len(m.Data) >= int(unsafe.Sizeof(unix.TpacketAuxdata{})):
			p.n = int((*unix.TpacketAuxdata)(unsafe.Pointer(&m.Data[0])).Len)
		case m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS && len(m.Data) >= int(unsafe.Sizeof(unix.Timespec{})):
			ts := (*unix.Timespec)(unsafe.Pointer(&m.Data[0]))
			p.t = time.Unix(ts.Unix())
		}
	}
	if p.t.IsZero() {
		p.t = time.Now()
	}
	return p
}
