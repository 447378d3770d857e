package main

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestCapture checks that the capture is the same bytes each time, about
// the size asked, of whole packets: a pcap header, then records whose
// lengths add up to the file's.
func TestCapture(t *testing.T) {
	a, err := capture(200_000)
	if err != nil {
		t.Fatal(err)
	}
	b, err := capture(200_000)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("two captures differ")
	}
	if len(a) < 200_000 || len(a) > 220_000 {
		t.Fatalf("capture of %d bytes", len(a))
	}
	if binary.LittleEndian.Uint32(a) != 0xa1b2c3d4 {
		t.Fatalf("magic % x", a[:4])
	}
	packets, p := 0, a[24:]
	for len(p) >= 16 {
		n := int(binary.LittleEndian.Uint32(p[8:]))
		if n > 1514 || 16+n > len(p) {
			t.Fatalf("packet %d: %d bytes", packets, n)
		}
		p = p[16+n:]
		packets++
	}
	// Four connections of 6 packets (handshake and close) and 24
	// exchanges (50,000 bytes over the first request's 1773, its
	// response's 58 and 4 packets' 70 bytes of headers, plus one) of 3
	// packets (the request in two, its response in one).
	if len(p) != 0 || packets != 4*(6+24*3) {
		t.Errorf("%d packets, %d bytes left", packets, len(p))
	}
}
