package capture_test

import (
	"io"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture"
	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
)

// TestPipeMemoryStaysFlat streams a capture of 200,000 short connections
// (each: handshake, an ApiVersions exchange, then FIN both ways, an RST
// or no end at all, freed after the idle timeout) through a pipe into
// DecodeFlows, and checks that every connection is closed once and that
// the live heap after a GC does not grow with the connections: the heap at
// each 20,000th close stays within 4 MiB of the one at the first
// checkpoint (holding the connections would take hundreds of MiB).
func TestPipeMemoryStaysFlat(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 40_000
	}
	set, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	cd := codec.New(set)
	req, _, _ := set.Lookup("ApiVersions")
	resp := set.Response(req.APIKey)
	rq, _ := cd.Encode(req, 3, codec.RequestHeaderValue(set.RequestHeader(), req.APIKey, 3, 7, "t"), instance.Smallest(req, 3))
	rs, _ := cd.Encode(resp, 3, codec.ResponseHeaderValue(set.ResponseHeader(), 7), instance.Smallest(resp, 3))

	pr, pw := io.Pipe()
	go func() {
		f := capturetest.NewPcap(layers.LinkTypeEthernet)
		t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		server := netip.MustParseAddrPort("10.0.0.2:9092")
		for i := range n {
			client := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(i >> 16), byte(i >> 8)}), uint16(10000+i%256))
			c := capturetest.NewConv(f, client.String(), server.String(), uint32(i), uint32(i)*7, t0.Add(time.Duration(i)*time.Second))
			c.Handshake()
			c.Send(true, rq.Bytes, 0)
			c.Send(false, rs.Bytes, 0)
			switch i % 3 {
			case 0:
				c.Close()
			case 1:
				c.Put(capturetest.Segment{Src: c.Server, Dst: c.Client, Seq: c.SSeq, RST: true})
			} // 2: no end captured
			b, err := f.Take()
			if err == nil {
				_, err = pw.Write(b)
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.Close()
	}()

	r, err := capture.Open(capture.NewPipeReader(pr))
	if err != nil {
		t.Fatal(err)
	}
	closed := map[string]int{}
	exchanges := 0
	var first uint64
	var ms runtime.MemStats
	_, tot, err := capture.DecodeFlows(r, capture.FlowOptions{
		Assembler: capture.Options{Ports: []uint16{9092}, IdleTimeout: time.Minute},
		Flow:      flow.Options{Codec: cd},
		OnEvent: func(c *capture.Conn, e flow.Event) {
			if _, ok := e.(*flow.Exchange); ok {
				exchanges++
			}
		},
		OnClose: func(c *capture.Conn, _ time.Time, reason string) {
			closed[reason]++
			total := closed["FIN both ways"] + closed["RST from server"] + closed["idle"]
			if total%20_000 != 0 {
				return
			}
			runtime.GC()
			runtime.ReadMemStats(&ms)
			if first == 0 {
				first = ms.HeapAlloc
			} else if ms.HeapAlloc > first+4<<20 {
				t.Errorf("after %d connections the live heap is %d bytes, at the first checkpoint %d", total, ms.HeapAlloc, first)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Connections end every second, every third without FIN or RST: those
	// whose last packet is within 1 to 1.25 idle timeouts (75 s, 25 such
	// connections) of the capture's last packet are still open at its end.
	fins, rsts, idle := (n+2)/3, (n+1)/3, closed["idle"]
	if closed["FIN both ways"] != fins || closed["RST from server"] != rsts || idle+closed["end of capture"] != n/3 ||
		closed["end of capture"] < 20 || closed["end of capture"] > 25 || len(closed) != 4 {
		t.Errorf("closed %v, want %d FIN both ways, %d RST from server, %d idle or end of capture (20 to 25 of them at the end)", closed, fins, rsts, n/3)
	}
	if exchanges != n || tot.Exchanges != int64(n) {
		t.Errorf("%d exchanges (totals %d), want %d", exchanges, tot.Exchanges, n)
	}
}

// A PipeReader returns what has arrived without waiting for more, calls
// Idle before it waits for the source, and ends with io.EOF once Stop is
// closed, even while waiting.
func TestPipeReader(t *testing.T) {
	src, w := io.Pipe()
	defer w.Close()
	stop := make(chan struct{})
	idle := make(chan struct{}, 10)
	r := capture.NewPipeReader(src)
	r.Idle = func() { idle <- struct{}{} }
	r.Stop = stop
	go w.Write([]byte("abc"))
	buf := make([]byte, 10)
	n, err := r.Read(buf)
	if n != 3 || err != nil || string(buf[:n]) != "abc" {
		t.Fatalf("Read = %d %q, %v; want 3 \"abc\"", n, buf[:n], err)
	}
	for range len(idle) {
		<-idle
	}
	type res struct {
		n   int
		err error
	}
	done := make(chan res)
	go func() {
		n, err := r.Read(buf)
		done <- res{n, err}
	}()
	<-idle // nothing has arrived: Read calls Idle, then waits
	close(stop)
	if got := <-done; got.n != 0 || got.err != io.EOF {
		t.Fatalf("Read after Stop = %d, %v; want 0, EOF", got.n, got.err)
	}
	if n, err := r.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("Read after the end = %d, %v; want 0, EOF", n, err)
	}
}
