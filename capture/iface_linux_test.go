package capture

import (
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// TestOpenInterfaceLoopback captures lo for one port while connections
// are made to it and to another port: the capture holds the first
// connection from its SYN (OpenInterface returned with the socket bound
// and filtered), each packet once, none of the other port's, and Stop
// ends it. Skipped when not allowed to capture (not root).
func TestOpenInterfaceLoopback(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("capturing from an interface needs root (or CAP_NET_RAW)")
	}
	listen := func() (net.Listener, uint16) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() { io.Copy(io.Discard, c); c.Close() }()
			}
		}()
		return ln, uint16(ln.Addr().(*net.TCPAddr).Port)
	}
	kafka, port := listen()
	other, otherPort := listen()
	stop := make(chan struct{})
	var once sync.Once
	end := func() { once.Do(func() { close(stop) }) }
	defer end()
	r, err := OpenInterface("lo", InterfaceOptions{Stop: stop, Ports: []uint16{port}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ln := range []net.Listener{other, kafka} {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write([]byte("kafka")); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	watchdog := time.AfterFunc(time.Minute, end) // a hang ends as a failure
	defer watchdog.Stop()
	var client uint16
	seen := map[string]int{}
	for n := 1; ; n++ {
		p, err := r.Next()
		if err != nil {
			t.Fatalf("packet %d: %v (before the data)", n, err)
		}
		tcp, _ := gopacket.NewPacket(p.Data, layers.LinkTypeEthernet, gopacket.Default).Layer(layers.LayerTypeTCP).(*layers.TCP)
		if tcp == nil || (uint16(tcp.SrcPort) != port && uint16(tcp.DstPort) != port) || uint16(tcp.SrcPort) == otherPort || uint16(tcp.DstPort) == otherPort {
			t.Fatalf("packet %d is not of port %d: %x", n, port, p.Data)
		}
		if n == 1 {
			if !tcp.SYN || tcp.ACK || uint16(tcp.DstPort) != port {
				t.Fatalf("packet 1 is not the SYN to port %d: %v", port, tcp)
			}
			client = uint16(tcp.SrcPort)
		}
		if p.Num != n || p.Length != len(p.Data) || p.Time.IsZero() {
			t.Errorf("packet %d: number %d, length %d of %d bytes, time %v", n, p.Num, p.Length, len(p.Data), p.Time)
		}
		key := string(tcp.Contents) + string(tcp.Payload)
		if seen[key]++; seen[key] > 1 {
			t.Fatalf("packet %d came twice: %v", n, tcp)
		}
		if uint16(tcp.SrcPort) == client && string(tcp.Payload) == "kafka" {
			break
		}
	}
	end()
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after Stop: %v, want io.EOF", err)
	}
}
