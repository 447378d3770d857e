package capture

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/google/gopacket/layers"
	"golang.org/x/net/bpf"

	"github.com/kwire/kwire/capture/capturetest"
)

// TestInterfaceFilter runs an Ethernet interface's socket filter for
// ports 9092 and 19092 on frames in the bpf package's virtual machine (the
// loopback check reads the packet type, which only the kernel knows).
func TestInterfaceFilter(t *testing.T) {
	seg := func(src, dst string) []byte {
		b, err := capturetest.Packet(layers.LinkTypeEthernet, capturetest.Segment{Src: netip.MustParseAddrPort(src), Dst: netip.MustParseAddrPort(dst), ACK: true, Payload: []byte("kafka")})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	edit := func(b []byte, f func(b []byte) []byte) []byte { return f(append([]byte(nil), b...)) }
	v4 := seg("10.0.0.1:50000", "10.0.0.2:9092")
	withOptions := edit(v4, func(b []byte) []byte { // 4 bytes of IPv4 options (NOPs); the ports move with them
		b[14] = 0x46
		return append(b[:34:34], append([]byte{1, 1, 1, 1}, b[34:]...)...)
	})
	for _, c := range []struct {
		name  string
		frame []byte
		keep  bool
	}{
		{"IPv4 to 9092", v4, true},
		{"IPv4 from 19092", seg("10.0.0.2:19092", "10.0.0.1:50000"), true},
		{"IPv4 other ports", seg("10.0.0.1:50000", "10.0.0.2:443"), false},
		{"IPv4 with options, to 9092", withOptions, true},
		{"IPv4 with options, other ports", edit(withOptions, func(b []byte) []byte { b[40], b[41] = 0x01, 0xbb; return b }), false},
		{"IPv4 UDP", edit(v4, func(b []byte) []byte { b[23] = 17; return b }), false},
		{"IPv4 later fragment", edit(seg("10.0.0.1:50000", "10.0.0.2:443"), func(b []byte) []byte { b[21] = 8; return b }), true},
		{"IPv6 to 9092", seg("[fd00::1]:50000", "[fd00::2]:9092"), true},
		{"IPv6 from 9092", seg("[fd00::2]:9092", "[fd00::1]:50000"), true},
		{"IPv6 other ports", seg("[fd00::1]:50000", "[fd00::2]:9093"), false},
		{"IPv6 extension header", edit(seg("[fd00::1]:50000", "[fd00::2]:9092"), func(b []byte) []byte { b[20] = 0; return b }), false},
		{"802.1Q", edit(seg("10.0.0.1:50000", "10.0.0.2:443"), func(b []byte) []byte { b[12], b[13] = 0x81, 0x00; return b }), true},
		{"ARP", edit(v4, func(b []byte) []byte { b[12], b[13] = 0x08, 0x06; return b }), false},
	} {
		for _, ports := range [][]uint16{{9092, 19092}, nil} {
			prog, err := interfaceFilter(false, ports)
			if err != nil {
				t.Fatal(err)
			}
			vm, err := bpf.NewVM(prog)
			if err != nil {
				t.Fatal(err)
			}
			n, err := vm.Run(c.frame)
			want := 0
			if c.keep || ports == nil {
				want = MaxPacket
			}
			if err != nil || n != want {
				t.Errorf("%s, ports %v: keeps %d bytes (%v), want %d", c.name, ports, n, err, want)
			}
		}
	}
}

// TestInterfaceFilterPorts: the filter takes up to 59 ports; beyond,
// interfaceFilter says so.
func TestInterfaceFilterPorts(t *testing.T) {
	for _, loopback := range []bool{false, true} {
		most := 0
		defer func() {
			if most != 59 {
				t.Errorf("loopback %v: up to %d ports, want 59", loopback, most)
			}
		}()
		for n := 1; n < 100; n++ {
			ports := make([]uint16, n)
			for i := range ports {
				ports[i] = uint16(9000 + i)
			}
			prog, err := interfaceFilter(loopback, ports)
			if err != nil {
				if want := fmt.Sprintf("%d ports are too many for the socket filter", n); err.Error() != want {
					t.Errorf("%d ports: %q, want %q", n, err, want)
				}
				break
			}
			if _, err := bpf.Assemble(prog); err != nil {
				t.Fatalf("%d ports: %v", n, err)
			}
			most = n
		}
	}
}
