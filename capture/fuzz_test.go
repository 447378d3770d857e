package capture

import (
	"bytes"
	"testing"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
)

// FuzzCapture: any bytes read and reassemble without a panic, and every
// packet's data stays within MaxPacket.
func FuzzCapture(f *testing.F) {
	for _, mk := range []func(layers.LinkType) *capturetest.File{capturetest.NewPcap, capturetest.NewPcapng} {
		for _, link := range []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeNull} {
			w := mk(link)
			addr := "10.0.0.1:50000"
			if link == layers.LinkTypeNull {
				addr = "[::1]:50000"
			}
			srv := addr[:len(addr)-5] + "9092"
			c := capturetest.NewConv(w, addr, srv, 0xfffffff0, 7, t0)
			c.Handshake()
			a := c.Seg(true, []byte("0123456789"))
			c.Send(true, []byte("abcdef"), 3)
			c.Put(a)
			c.Send(false, []byte("response"), 0)
			c.Close()
			b, err := w.Bytes()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Open(bytes.NewReader(b))
		if err != nil {
			return
		}
		a := NewAssembler(Options{Ports: []uint16{9092}, MaxBuffered: 1 << 10}, func(e *Event) {
			if e.Kind == EventGap && e.Gap <= 0 {
				t.Fatalf("gap of %d bytes", e.Gap)
			}
		})
		for range 10000 {
			p, err := r.Next()
			if err != nil {
				break
			}
			if len(p.Data) > MaxPacket+ngMaxPacketBlock {
				t.Fatalf("packet of %d bytes", len(p.Data))
			}
			a.Add(&p)
		}
		a.Flush()
	})
}
