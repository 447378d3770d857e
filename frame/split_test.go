package frame_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/wire"
)

// fr is a frame of n bytes after its prefix, filled with b.
func fr(n int, b byte) []byte {
	out := wire.AppendInt32(nil, int32(n))
	return append(out, bytes.Repeat([]byte{b}, n)...)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// run feeds stream to a new Splitter made by mk in chunks cut at cuts
// (offsets into stream, ascending) and returns its events, one a line, and
// the splitter.
func run(mk func() *frame.Splitter, stream []byte, cuts []int) (string, *frame.Splitter) {
	s := mk()
	var b strings.Builder
	drain := func() {
		for ev := s.Next(); ev.Kind != frame.None; ev = s.Next() {
			fmt.Fprintf(&b, "%s off=%d size=%d bytes=%x", ev.Kind, ev.Off, ev.Size, ev.Bytes)
			if ev.Kind == frame.Resynced {
				fmt.Fprintf(&b, " skipped=%d from=%d", ev.Skipped, ev.From)
			}
			b.WriteByte('\n')
		}
	}
	prev := 0
	for _, c := range append(cuts, len(stream)) {
		// A fresh copy, overwritten after use, shows that no event keeps
		// a reference to input fed before.
		chunk := append([]byte(nil), stream[prev:c]...)
		s.Feed(chunk)
		drain()
		for i := range chunk {
			chunk[i] = 0xee
		}
		prev = c
	}
	s.End()
	drain()
	p := s.Close()
	fmt.Fprintf(&b, "end %d off=%d size=%d have=%d bytes=%x skipped=%d\n", p.State, p.Off, p.Size, p.Have, p.Bytes, s.Skipped())
	return b.String(), s
}

func everyByte(n int) []int {
	cuts := make([]int, 0, n)
	for i := 1; i < n; i++ {
		cuts = append(cuts, i)
	}
	return cuts
}

func randomCuts(r *rand.Rand, n int) []int {
	var cuts []int
	for i := 1; i < n; i++ {
		if r.IntN(5) == 0 {
			cuts = append(cuts, i)
		}
	}
	return cuts
}

// checkChunkings runs stream whole, a byte at a time and in random
// chunks, and wants the same events as want each time.
func checkChunkings(t *testing.T, mk func() *frame.Splitter, stream []byte, want string) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, uint64(len(stream))))
	chunkings := map[string][]int{"whole": nil, "every byte": everyByte(len(stream))}
	for i := range 20 {
		chunkings[fmt.Sprint("random ", i)] = randomCuts(r, len(stream))
	}
	for name, cuts := range chunkings {
		if got, _ := run(mk, stream, cuts); got != want {
			t.Errorf("%s: events\n%s\nwant\n%s", name, got, want)
		}
	}
}

func TestSplitterFrames(t *testing.T) {
	stream := cat(fr(3, 0xa1), fr(0, 0), fr(9, 0xb2), fr(2, 0xc3), fr(20, 0xd4), fr(1, 0xe5), []byte{0, 0, 0, 9, 1, 2})
	mk := func() *frame.Splitter { return &frame.Splitter{Min: 2, Max: 9, Head: 6} }
	// Sizes 0 and 1 are under Min, 20 over Max: those are heads; the last
	// frame is cut short.
	want := `whole off=0 size=3 bytes=00000003a1a1a1
head off=7 size=0 bytes=00000000
whole off=11 size=9 bytes=00000009b2b2b2b2b2b2b2b2b2
whole off=24 size=2 bytes=00000002c3c3
head off=30 size=20 bytes=00000014d4d4
head off=54 size=1 bytes=00000001e5
end 0 off=59 size=9 have=2 bytes=000000090102 skipped=33
`
	checkChunkings(t, mk, stream, want)

	// The zero Splitter: everything up to DefaultMax whole.
	want0 := `whole off=0 size=3 bytes=00000003a1a1a1
whole off=7 size=0 bytes=00000000
whole off=11 size=9 bytes=00000009b2b2b2b2b2b2b2b2b2
whole off=24 size=2 bytes=00000002c3c3
whole off=30 size=20 bytes=00000014d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4
whole off=54 size=1 bytes=00000001e5
end 0 off=59 size=9 have=2 bytes=000000090102 skipped=0
`
	checkChunkings(t, func() *frame.Splitter { return &frame.Splitter{} }, stream, want0)
}

// Frames over the limit are reported by their first bytes and skipped: the
// skipped bytes are never buffered, and a stream that ends inside one says
// how much of it went by.
func TestSplitterOverLimit(t *testing.T) {
	huge := wire.AppendInt32(nil, 1<<30)
	stream := cat(fr(2, 0x11), fr(40, 0x22), fr(1, 0x33), huge, bytes.Repeat([]byte{0x44}, 30))
	mk := func() *frame.Splitter { return &frame.Splitter{Max: 16} }
	want := `whole off=0 size=2 bytes=000000021111
head off=6 size=40 bytes=00000028
whole off=50 size=1 bytes=0000000133
head off=55 size=1073741824 bytes=40000000
end 1 off=55 size=1073741824 have=30 bytes= skipped=78
`
	checkChunkings(t, mk, stream, want)
}

// A negative size without a Resync hook stops the Splitter: every later
// byte is only counted.
func TestSplitterNegativeStops(t *testing.T) {
	stream := cat(fr(2, 0x11), []byte{0xff, 0xff, 0xff, 0xfe}, fr(2, 0x22))
	want := `whole off=0 size=2 bytes=000000021111
negative off=6 size=-2 bytes=fffffffe
end 3 off=-1 size=-1 have=0 bytes= skipped=10
`
	checkChunkings(t, func() *frame.Splitter { return &frame.Splitter{} }, stream, want)
}

// resyncOn accepts a frame whose first byte after the size prefix is 0x5a
// once it is whole.
func resyncOn(b []byte) frame.Verdict {
	if len(b) < 5 {
		return frame.NeedMore
	}
	size, _ := frame.Size(b)
	if size < 1 || size > 64 || b[4] != 0x5a {
		return frame.Reject
	}
	if len(b) < 4+int(size) {
		return frame.NeedMore
	}
	return frame.Accept
}

// After a negative size the Resync hook judges every offset from the
// prefix's second byte on; framing resumes at the frame it accepts.
func TestSplitterResync(t *testing.T) {
	good := cat([]byte{0, 0, 0, 3, 0x5a}, []byte{1, 2})
	stream := cat(fr(2, 0x11), []byte{0xff, 0xff, 0xff, 0xff, 7, 7, 0, 0, 0, 9, 7}, good, fr(1, 0x33))
	mk := func() *frame.Splitter { return &frame.Splitter{Resync: resyncOn} }
	want := `whole off=0 size=2 bytes=000000021111
negative off=6 size=-1 bytes=ffffffff
resynced off=17 size=0 bytes= skipped=11 from=6
whole off=17 size=3 bytes=000000035a0102
whole off=24 size=1 bytes=0000000133
end 0 off=-1 size=-1 have=0 bytes= skipped=11
`
	checkChunkings(t, mk, stream, want)

	// A candidate longer than what is left when the stream ends is
	// refused: the rest is garbage.
	tail := cat(fr(2, 0x11), []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 9, 0x5a, 1})
	wantTail := `whole off=0 size=2 bytes=000000021111
negative off=6 size=-1 bytes=ffffffff
end 2 off=6 size=-1 have=10 bytes= skipped=10
`
	checkChunkings(t, mk, tail, wantTail)
}

func TestSplitterGaps(t *testing.T) {
	mk := func() *frame.Splitter { return &frame.Splitter{Max: 32, Resync: resyncOn} }

	// A gap inside a frame whose size is known keeps the Splitter in step.
	s := mk()
	s.Feed(cat(fr(2, 0x11), []byte{0, 0, 0, 10, 1, 2, 3}))
	if ev := s.Next(); ev.Kind != frame.Whole || ev.Off != 0 {
		t.Fatalf("first event %+v", ev)
	}
	if ev := s.Next(); ev.Kind != frame.None {
		t.Fatalf("second event %+v", ev)
	}
	g := s.Gap(5)
	if !g.InStep || !g.Lost || g.FrameOff != 6 || g.Size != 10 || !bytes.Equal(g.Bytes, []byte{0, 0, 0, 10, 1, 2, 3}) {
		t.Fatalf("gap in a frame: %+v", g)
	}
	s.Feed(cat([]byte{9, 9}, fr(1, 0x33)))
	if ev := s.Next(); ev.Kind != frame.Whole || ev.Off != 20 || !bytes.Equal(ev.Bytes, fr(1, 0x33)) {
		t.Fatalf("after the gap: %+v", ev)
	}
	if got := s.Skipped(); got != 2 {
		t.Errorf("skipped %d bytes, want 2 (the lost frame's bytes after the gap)", got)
	}

	// A gap longer than the frame's rest: search from after the gap.
	s = mk()
	s.Feed([]byte{0, 0, 0, 10, 1, 2})
	s.Next()
	if g := s.Gap(20); g.InStep || g.Lost {
		t.Fatalf("gap past the frame: %+v", g)
	}
	if p := s.Pending(); p.State != frame.Scanning || p.Off != 26 {
		t.Fatalf("after a gap past the frame: %+v", p)
	}
	s.Feed(cat([]byte{1, 2, 3}, []byte{0, 0, 0, 2, 0x5a, 0}))
	ev := s.Next()
	if ev.Kind != frame.Resynced || ev.Off != 29 || ev.Skipped != 3 || ev.From != 26 {
		t.Fatalf("resync after the gap: %+v", ev)
	}
	if ev := s.Next(); ev.Kind != frame.Whole || ev.Off != 29 || ev.Size != 2 {
		t.Fatalf("frame after the resync: %+v", ev)
	}

	// GapToFrame: the frame begun is lost, the next byte starts a frame.
	s = mk()
	s.Feed([]byte{0, 0, 0, 10, 1})
	s.Next()
	g = s.GapToFrame(100)
	if !g.InStep || !g.Lost || g.FrameOff != 0 || g.Size != 10 || !bytes.Equal(g.Bytes, []byte{0, 0, 0, 10, 1}) {
		t.Fatalf("GapToFrame: %+v", g)
	}
	s.Feed(fr(1, 0x44))
	if ev := s.Next(); ev.Kind != frame.Whole || ev.Off != 105 {
		t.Fatalf("after GapToFrame: %+v", ev)
	}

	// A gap while skipping an over-limit frame that it does not pass.
	s = mk()
	s.Feed(cat(wire.AppendInt32(nil, 100), []byte{1, 2}))
	if ev := s.Next(); ev.Kind != frame.Head || ev.Size != 100 {
		t.Fatalf("head: %+v", ev)
	}
	s.Next()
	g = s.Gap(90)
	if !g.InStep || !g.Lost || g.FrameOff != 0 || g.Size != 100 || g.Bytes != nil {
		t.Fatalf("gap while skipping: %+v", g)
	}
	if p := s.Pending(); p.State != frame.Skipping || p.Have != 92 || p.Size != 100 {
		t.Fatalf("pending after the gap: %+v", p)
	}
	s.Feed(cat(bytes.Repeat([]byte{7}, 8), fr(0, 0)))
	if ev := s.Next(); ev.Kind != frame.Whole || ev.Off != 104 || ev.Size != 0 {
		t.Fatalf("after the skipped frame: %+v", ev)
	}

	// Without a Resync hook a gap the Splitter cannot step over stops it.
	s = &frame.Splitter{}
	s.Feed([]byte{0, 0})
	s.Next()
	s.Gap(1)
	if s.State() != frame.Stopped {
		t.Fatalf("state %d after a gap in a size prefix, want Stopped", s.State())
	}
}

// Take turns a Head into a Whole frame; the other heads are skipped.
func TestSplitterTake(t *testing.T) {
	stream := cat(fr(6, 0x11), fr(9, 0x22), fr(3, 0x33), fr(12, 0x44))
	for name, cuts := range map[string][]int{"whole": nil, "every byte": everyByte(len(stream))} {
		s := &frame.Splitter{Max: -1, Head: 8}
		var got []string
		prev := 0
		for _, c := range append(cuts, len(stream)) {
			s.Feed(stream[prev:c])
			prev = c
			for ev := s.Next(); ev.Kind != frame.None; ev = s.Next() {
				got = append(got, fmt.Sprintf("%s %d %x", ev.Kind, ev.Off, ev.Bytes))
				if ev.Kind == frame.Head && ev.Bytes[4] != 0x11 {
					if !s.Take() {
						t.Fatal("Take refused")
					}
					if s.Take() {
						t.Fatal("Take twice")
					}
				}
			}
		}
		want := []string{
			"head 0 0000000611111111",
			"head 10 0000000922222222",
			"whole 10 00000009222222222222222222",
			"head 23 00000003333333",
			"whole 23 00000003333333",
			"head 30 0000000c44444444",
			"whole 30 0000000c444444444444444444444444",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: got\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if s.Skipped() != 10 {
			t.Errorf("%s: skipped %d, want 10", name, s.Skipped())
		}
	}
	var s frame.Splitter
	if s.Take() {
		t.Error("Take without a Head")
	}
}

// The buffer of a frame split across chunks grows with the bytes that
// arrive, not with its size prefix.
func TestSplitterAllocatesWhatArrives(t *testing.T) {
	s := &frame.Splitter{}
	s.Feed(cat(wire.AppendInt32(nil, frame.DefaultMax), []byte{1, 2, 3}))
	if ev := s.Next(); ev.Kind != frame.None {
		t.Fatalf("event %+v", ev)
	}
	p := s.Pending()
	if p.State != frame.InFrame || p.Size != frame.DefaultMax || len(p.Bytes) != 7 || cap(p.Bytes) > 4096 {
		t.Fatalf("pending %+v (capacity %d)", p, cap(p.Bytes))
	}
	chunk := make([]byte, 10000)
	s.Feed(chunk)
	s.Next()
	if p := s.Pending(); len(p.Bytes) != 10007 || cap(p.Bytes) > 2*10007 {
		t.Fatalf("after 10007 bytes: length %d, capacity %d", len(p.Bytes), cap(p.Bytes))
	}
	// A stopped splitter only counts.
	s.Stop()
	s.Feed(chunk)
	if ev := s.Next(); ev.Kind != frame.None || s.Skipped() != 20007 || s.Offset() != 20007 {
		t.Fatalf("after Stop: %+v, skipped %d", ev, s.Skipped())
	}
}

// Every chunking of any stream gives the same events as the whole stream.
func FuzzSplitter(f *testing.F) {
	f.Add(cat(fr(3, 1), fr(40, 2), []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 2, 0x5a, 0}), uint64(1), uint8(16))
	f.Add([]byte{0, 0, 0, 2, 0x5a}, uint64(7), uint8(0))
	f.Add(cat(fr(0, 0), fr(5, 9)), uint64(3), uint8(2))
	f.Fuzz(func(t *testing.T, stream []byte, seed uint64, max uint8) {
		if len(stream) > 1<<12 {
			return
		}
		mk := func() *frame.Splitter {
			return &frame.Splitter{Max: int(max) - 1, Min: 1, Head: 5, Resync: resyncOn}
		}
		want, s := run(mk, stream, nil)
		if s.Offset() != int64(len(stream)) {
			t.Fatalf("offset %d after %d bytes", s.Offset(), len(stream))
		}
		r := rand.New(rand.NewPCG(seed, 0))
		for _, cuts := range [][]int{everyByte(len(stream)), randomCuts(r, len(stream))} {
			if got, _ := run(mk, stream, cuts); got != want {
				t.Fatalf("chunked %v: events\n%s\nwant\n%s", cuts, got, want)
			}
		}
	})
}

// Search: a stream joined mid-way is searched from its first byte.
func TestSplitterSearch(t *testing.T) {
	stream := cat([]byte{9, 0x5a, 0, 0}, []byte{0, 0, 0, 2, 0x5a, 1}, fr(1, 0x33))
	want := `resynced off=4 size=0 bytes= skipped=4 from=0
whole off=4 size=2 bytes=000000025a01
whole off=10 size=1 bytes=0000000133
end 0 off=-1 size=-1 have=0 bytes= skipped=4
`
	checkChunkings(t, func() *frame.Splitter {
		s := &frame.Splitter{Resync: resyncOn}
		s.Search()
		return s
	}, stream, want)
	s := &frame.Splitter{}
	s.Search()
	if s.State() != frame.Stopped {
		t.Errorf("Search without a Resync hook: state %d, want Stopped", s.State())
	}
}
