package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
)

// rec records an Assembler's events as lines and each stream's bytes.
type rec struct {
	lines   []string
	streams map[string][]byte
	times   map[string][]time.Time
}

func (r *rec) emit(e *Event) {
	key := fmt.Sprintf("%d/%s", e.Conn.ID, e.Dir)
	var l string
	switch e.Kind {
	case EventOpen:
		l = fmt.Sprintf("open %d %s syn=%v byport=%v", e.Conn.ID, e.Conn, e.Conn.SawSYN, e.Conn.ByPort)
	case EventData:
		l = fmt.Sprintf("data %s @%d %d pkt %d", key, e.Offset, len(e.Data), e.Packet)
		r.streams[key] = append(r.streams[key], e.Data...)
		r.times[key] = append(r.times[key], e.Time)
	case EventGap:
		l = fmt.Sprintf("gap %s @%d %d (%s)", key, e.Offset, e.Gap, e.Reason)
		r.streams[key] = append(r.streams[key], bytes.Repeat([]byte{'?'}, int(e.Gap))...)
	case EventEnd:
		l = fmt.Sprintf("end %s @%d", key, e.Offset)
	case EventClose:
		l = fmt.Sprintf("close %d (%s)", e.Conn.ID, e.Reason)
	}
	r.lines = append(r.lines, l)
}

func assemble(t *testing.T, b []byte, o Options) (*rec, Stats) {
	t.Helper()
	r, err := Open(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	rc := &rec{streams: map[string][]byte{}, times: map[string][]time.Time{}}
	a := NewAssembler(o, rc.emit)
	for {
		p, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		a.Add(&p)
	}
	a.Flush()
	return rc, a.Stats()
}

func fileBytes(t *testing.T, f *capturetest.File) []byte {
	t.Helper()
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantLines(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var kafka = Options{Ports: []uint16{9092}}

func TestAssembleInOrder(t *testing.T) {
	for _, mk := range []func(layers.LinkType) *capturetest.File{capturetest.NewPcap, capturetest.NewPcapng} {
		f := mk(layers.LinkTypeEthernet)
		c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 5000, t0)
		c.Handshake()
		c.Send(true, []byte("hello, "), 0)
		c.Send(true, []byte("broker"), 0)
		c.Send(false, []byte("hi client"), 0)
		c.Close()
		rc, st := assemble(t, fileBytes(t, f), kafka)
		wantLines(t, rc.lines,
			"open 1 10.0.0.1:50000→10.0.0.2:9092 syn=true byport=false",
			"data 1/client→server @0 7 pkt 4",
			"data 1/client→server @7 6 pkt 5",
			"data 1/server→client @0 9 pkt 6",
			"end 1/client→server @13",
			"end 1/server→client @9",
			"close 1 (FIN both ways)")
		if got := string(rc.streams["1/client→server"]); got != "hello, broker" {
			t.Errorf("client stream %q", got)
		}
		if got := rc.times["1/server→client"][0]; !got.Equal(t0.Add(5 * time.Millisecond)) {
			t.Errorf("server data at %v", got)
		}
		if st.Connections != 1 || st.Bytes != 22 || st.Gaps != 0 || st.Retransmitted != 0 {
			t.Errorf("stats %+v", st)
		}
	}
}

func TestAssembleOutOfOrderAndRetransmit(t *testing.T) {
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 0xfffffff0, 5000, t0) // wraps
	c.Handshake()
	a := c.Seg(true, []byte("aaaaaaaaaa"))
	b := c.Seg(true, []byte("bbbbbbbbbb"))
	cc := c.Seg(true, []byte("cccccccccc"))
	c.Put(b)  // pkt 4: early
	c.Put(cc) // pkt 5: early
	c.Put(a)  // pkt 6: fills the hole
	c.Put(b)  // pkt 7: retransmission
	// pkt 8: overlaps the end of c and brings 4 new bytes
	over := a
	over.Seq = cc.Seq + 6
	over.Payload = []byte("ccccDDDD")
	c.Put(over)
	rc, st := assemble(t, fileBytes(t, f), kafka)
	wantLines(t, rc.lines,
		"open 1 10.0.0.1:50000→10.0.0.2:9092 syn=true byport=false",
		"data 1/client→server @0 10 pkt 6",
		"data 1/client→server @10 10 pkt 4",
		"data 1/client→server @20 10 pkt 5",
		"data 1/client→server @30 4 pkt 8",
		"close 1 (end of capture)")
	if got := string(rc.streams["1/client→server"]); got != "aaaaaaaaaabbbbbbbbbbccccccccccDDDD" {
		t.Errorf("stream %q", got)
	}
	if st.OutOfOrder != 2 || st.Retransmitted != 14 || st.Gaps != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestAssembleMidStreamAndGaps(t *testing.T) {
	// IPv6 over BSD loopback; the capture starts mid-connection, and a
	// server segment of 7 bytes is lost.
	f := capturetest.NewPcapng(layers.LinkTypeNull)
	c := capturetest.NewConv(f, "[::1]:40000", "[::1]:9092", 77777, 99999, t0)
	c.Send(false, []byte("tail of a response"), 0) // server first: the port says who is who
	c.Send(true, []byte("request"), 0)
	c.Seg(false, []byte("LOST!!!")) // never written
	c.Send(false, []byte("after"), 0)
	fin := c.Seg(true, nil)
	fin.FIN = true
	c.Put(fin)
	rc, st := assemble(t, fileBytes(t, f), kafka)
	wantLines(t, rc.lines,
		"open 1 [::1]:40000→[::1]:9092 syn=false byport=true",
		"data 1/server→client @0 18 pkt 1",
		"data 1/client→server @0 7 pkt 2",
		// the client's FIN acknowledges every byte the server sent
		"gap 1/server→client @18 7 (segments missing (acknowledged by the peer, not captured))",
		"data 1/server→client @25 5 pkt 3",
		"end 1/client→server @7",
		"close 1 (end of capture)")
	if st.Gaps != 1 || st.GapBytes != 7 {
		t.Errorf("stats %+v", st)
	}
}

func TestAssembleMaxBuffered(t *testing.T) {
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1, 1, t0)
	c.Handshake()
	c.Seg(true, make([]byte, 100)) // lost
	for range 5 {
		c.Send(true, bytes.Repeat([]byte{'x'}, 40), 0)
	}
	rc, st := assemble(t, fileBytes(t, f), Options{Ports: []uint16{9092}, MaxBuffered: 100})
	wantLines(t, rc.lines,
		"open 1 10.0.0.1:50000→10.0.0.2:9092 syn=true byport=false",
		"gap 1/client→server @0 100 (segments missing; gave up waiting with 120 bytes buffered)",
		"data 1/client→server @100 40 pkt 4",
		"data 1/client→server @140 40 pkt 5",
		"data 1/client→server @180 40 pkt 6",
		"data 1/client→server @220 40 pkt 7",
		"data 1/client→server @260 40 pkt 8",
		"close 1 (end of capture)")
	if st.Forced != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestAssembleRSTSnapOtherPorts(t *testing.T) {
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	web := capturetest.NewConv(f, "10.0.0.1:50001", "10.0.0.3:80", 1, 1, t0)
	web.Handshake()
	web.Send(true, []byte("GET / HTTP/1.1\r\n\r\n"), 0)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1, 1, t0.Add(time.Second))
	c.Handshake()
	s := c.Seg(true, []byte("0123456789"))
	pkt, err := capturetest.Packet(layers.LinkTypeEthernet, s)
	if err != nil {
		t.Fatal(err)
	}
	f.RawCut(c.T, pkt, len(pkt)-4) // the snap length keeps 6 of 10 bytes
	c.Send(true, []byte("more"), 0)
	rst := c.Seg(false, nil)
	rst.RST = true
	c.Put(rst)
	c.Send(true, []byte("late"), 0) // after the RST: a new mid-stream connection
	rc, st := assemble(t, fileBytes(t, f), kafka)
	wantLines(t, rc.lines,
		"open 1 10.0.0.1:50000→10.0.0.2:9092 syn=true byport=false",
		"data 1/client→server @0 6 pkt 8",
		"gap 1/client→server @6 4 (snap length)",
		"data 1/client→server @10 4 pkt 9",
		"close 1 (RST from server)",
		"open 2 10.0.0.1:50000→10.0.0.2:9092 syn=false byport=true",
		"data 2/client→server @0 4 pkt 11",
		"close 2 (end of capture)")
	if st.OtherPorts != 4 || st.Connections != 2 {
		t.Errorf("stats %+v", st)
	}
}

func TestAssembleNotTCP(t *testing.T) {
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	f.Raw(t0, []byte{1, 2, 3})                                              // too short for Ethernet
	f.Raw(t0, append(make([]byte, 12), 0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1)) // ARP
	rc, st := assemble(t, fileBytes(t, f), kafka)
	if len(rc.lines) != 0 || st.Packets != 2 || st.Undecodable+st.NotTCP != 2 {
		t.Errorf("lines %v stats %+v", rc.lines, st)
	}
}

func TestAssembleRawIPAndLinuxSLL2(t *testing.T) {
	seg := capturetest.Segment{Src: netip.MustParseAddrPort("10.0.0.1:50000"), Dst: netip.MustParseAddrPort("10.0.0.2:9092"),
		Seq: 1, Ack: 1, ACK: true, Payload: []byte("kafka bytes")}
	eth, err := capturetest.Packet(layers.LinkTypeEthernet, seg)
	if err != nil {
		t.Fatal(err)
	}
	ip := eth[14:]
	for _, tc := range []struct {
		name string
		link uint32
		data []byte
	}{
		{"raw", 101, ip},
		{"sll2", 276, append([]byte{0x08, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 2, 0, 0, 0, 0, 0, 1, 0}, ip...)},
	} {
		f := capturetest.NewPcap(layers.LinkTypeRaw)
		f.Raw(t0, tc.data)
		b := fileBytes(t, f)
		binary.LittleEndian.PutUint32(b[20:], tc.link) // pcapgo writes a byte-sized link type
		rc, st := assemble(t, b, kafka)
		if got := string(rc.streams["1/client→server"]); got != "kafka bytes" || st.Undecodable != 0 {
			t.Errorf("%s: stream %q, stats %+v", tc.name, got, st)
		}
	}
}

// A connection without a packet for IdleTimeout is closed ("idle") when a
// later packet of the capture shows the time has passed, its held data
// delivered first; a packet of it after that starts a new, mid-stream
// connection. Without IdleTimeout it stays open to the end.
func TestAssembleIdle(t *testing.T) {
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	a := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 5000, t0)
	a.Handshake()
	a.Send(true, []byte("req"), 0)
	early := a.Seg(true, []byte("late"))
	early.Seq += 2 // 2 bytes before it never come
	a.Put(early)   // pkt 5, at t0+4ms
	b := capturetest.NewConv(f, "10.0.0.3:50001", "10.0.0.2:9092", 77, 88, t0.Add(time.Minute))
	b.Send(true, []byte("x"), 0) // pkt 6: b starts; a idle for 59.996 s
	b.T = t0.Add(90 * time.Second)
	b.Send(true, []byte("y"), 0) // pkt 7: b idle for 30 s
	a.T = t0.Add(3 * time.Minute)
	a.Send(false, []byte("resp"), 0) // pkt 8: a's server again; b idle for 90 s
	file := fileBytes(t, f)
	rc, st := assemble(t, file, Options{Ports: []uint16{9092}, IdleTimeout: time.Minute})
	wantLines(t, rc.lines,
		"open 1 10.0.0.1:50000→10.0.0.2:9092 syn=true byport=false",
		"data 1/client→server @0 3 pkt 4",
		"open 2 10.0.0.3:50001→10.0.0.2:9092 syn=false byport=true",
		"data 2/client→server @0 1 pkt 6",
		"gap 1/client→server @3 2 (segments missing before the idle timeout)",
		"data 1/client→server @5 4 pkt 5",
		"close 1 (idle)",
		"data 2/client→server @1 1 pkt 7",
		"close 2 (idle)",
		"open 3 10.0.0.1:50000→10.0.0.2:9092 syn=false byport=true",
		"data 3/server→client @0 4 pkt 8",
		"close 3 (end of capture)")
	if st.Connections != 3 {
		t.Errorf("stats %+v", st)
	}
	rc, _ = assemble(t, file, kafka)
	if got := strings.Join(rc.lines, "\n"); strings.Contains(got, "idle") || strings.Count(got, "open") != 2 {
		t.Errorf("without IdleTimeout:\n%s", got)
	}
}
