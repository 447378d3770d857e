package frame_test

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/wire"
)

// allocated is the number of bytes fn allocates, and how many of them are
// still in use after it (what it holds). Two collections before empty the
// pools of free buffers (and their victim caches), so that what fn holds
// is allocated by it.
func allocated(fn func()) (total, held int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	total = int64(after.TotalAlloc - before.TotalAlloc)
	runtime.GC()
	runtime.ReadMemStats(&after)
	return total, int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// firstBytes says whether b, the bytes a Splitter shows of a frame of
// which have bytes arrived, are its first MiB (held in segments past it)
// or all that arrived (held in one buffer).
func firstBytes(b, frame []byte, have int64) bool {
	return (len(b) == 1<<20 || int64(len(b)) == have) && bytes.Equal(b, frame[:len(b)])
}

// An unfinished large frame costs its bytes, not two or three times them:
// 8 MiB of a frame that claims 100 MiB, fed 64 KiB at a time, are held in
// 8 MiB and at most a segment (1 MiB) more, and allocating them took about
// a MiB besides (the first MiB's buffer doubling as it fills).
func TestSplitterUnfinishedFrameHoldsItsBytes(t *testing.T) {
	const arrived = 8 << 20
	chunk := bytes.Repeat([]byte{0x5a}, 64<<10)
	s := &frame.Splitter{}
	total, held := allocated(func() {
		s.Feed(wire.AppendInt32(nil, 100<<20))
		s.Next()
		for fed := 0; fed < arrived; fed += len(chunk) {
			s.Feed(chunk)
			if ev := s.Next(); ev.Kind != frame.None {
				t.Fatalf("event %v after %d bytes", ev.Kind, fed)
			}
		}
	})
	if held < arrived || held > arrived+1<<20+64<<10 || total > arrived+5<<19 {
		t.Errorf("%d bytes of an unfinished frame hold %d bytes (%.2f×), allocated %d (%.2f×)", arrived, held, float64(held)/arrived, total, float64(total)/arrived)
	}
	p := s.Pending()
	if p.State != frame.InFrame || p.Off != 0 || p.Size != 100<<20 || p.Have != arrived || len(p.Bytes) != 1<<20 || !bytes.Equal(p.Bytes[4:], bytes.Repeat([]byte{0x5a}, 1<<20-4)) {
		t.Errorf("pending: state %d, off %d, size %d, have %d, %d bytes", p.State, p.Off, p.Size, p.Have, len(p.Bytes))
	}
	runtime.KeepAlive(s)
	s.End()
	s.Next()
	if p := s.Close(); p.Have != arrived || p.Size != 100<<20 || len(p.Bytes) != 1<<20 {
		t.Errorf("at the end: size %d, have %d, %d bytes", p.Size, p.Have, len(p.Bytes))
	}
}

// Frames past the first MiB, buffered in segments, are delivered with the
// bytes that were fed, in any chunking, between small frames, and a frame
// cut short by the end of the stream is reported with how much arrived.
func TestSplitterSegmentedFrames(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	body := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	big := cat(wire.AppendInt32(nil, 3<<20+12345), body(3<<20+12345))
	exact := cat(wire.AppendInt32(nil, 2<<20-4), body(2<<20-4)) // two segments' worth exactly
	small := fr(5, 0x11)
	cut := cat(wire.AppendInt32(nil, 4<<20), body(1<<20+777))
	stream := cat(small, big, small, exact, big, cut)
	wantFrames := [][]byte{small, big, small, exact, big}
	for _, step := range []int{1 << 20, 65536, 4093, 1<<20 + 1, 5 << 20} {
		s := &frame.Splitter{}
		var got [][]byte
		for off := 0; off < len(stream); off += step {
			chunk := append([]byte(nil), stream[off:min(off+step, len(stream))]...)
			s.Feed(chunk)
			for ev := s.Next(); ev.Kind != frame.None; ev = s.Next() {
				if ev.Kind != frame.Whole {
					t.Fatalf("step %d: %v event", step, ev.Kind)
				}
				got = append(got, append([]byte(nil), ev.Bytes...))
			}
			clear(chunk)
		}
		if len(got) != len(wantFrames) {
			t.Fatalf("step %d: %d frames, want %d", step, len(got), len(wantFrames))
		}
		for i := range got {
			if !bytes.Equal(got[i], wantFrames[i]) {
				t.Errorf("step %d: frame %d differs (%d bytes, want %d)", step, i, len(got[i]), len(wantFrames[i]))
			}
		}
		s.End()
		s.Next()
		p := s.Close()
		if p.State != frame.InFrame || p.Size != 4<<20 || p.Have != 1<<20+777 || !firstBytes(p.Bytes, cut, 4+p.Have) {
			t.Errorf("step %d: the cut frame: size %d, have %d, %d bytes", step, p.Size, p.Have, len(p.Bytes))
		}
	}
}

// A gap inside a segmented frame loses it and keeps the splitter in step;
// Gapped says how much of it had arrived.
func TestSplitterGapInSegmentedFrame(t *testing.T) {
	fr1 := cat(wire.AppendInt32(nil, 3<<20), bytes.Repeat([]byte{0x42}, 3<<20))
	next := fr(3, 0x77)
	for _, gapToFrame := range []bool{false, true} {
		s := &frame.Splitter{}
		s.Feed(fr1[:2<<20+100])
		s.Next()
		var g frame.Gapped
		if gapToFrame {
			g = s.GapToFrame(int64(len(fr1) - (2<<20 + 100)))
		} else {
			g = s.Gap(int64(len(fr1) - (2<<20 + 100)))
		}
		if !g.Lost || g.FrameOff != 0 || g.Size != 3<<20 || g.Have != 2<<20+100 || !firstBytes(g.Bytes, fr1, g.Have) {
			t.Errorf("gapToFrame %v: lost %v, frame at %d of %d, have %d, %d bytes", gapToFrame, g.Lost, g.FrameOff, g.Size, g.Have, len(g.Bytes))
		}
		s.Feed(next)
		if ev := s.Next(); ev.Kind != frame.Whole || ev.Off != int64(len(fr1)) || !bytes.Equal(ev.Bytes, next) {
			t.Errorf("gapToFrame %v: after the gap %v at %d %x", gapToFrame, ev.Kind, ev.Off, ev.Bytes)
		}
	}
}

// A frame over Max taken after its Head (Take, as the proxy's rewriter
// does) past its first MiB is delivered whole with the bytes fed.
func TestSplitterTakeSegmentedFrame(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), (3<<20)/16)
	big := cat(wire.AppendInt32(nil, int32(len(body))), body)
	for _, step := range []int{8, 65536, 1<<20 + 3} {
		s := &frame.Splitter{Max: -1, Head: 8}
		var got []byte
		for off := 0; off < len(big); off += step {
			s.Feed(big[off:min(off+step, len(big))])
			for ev := s.Next(); ev.Kind != frame.None; ev = s.Next() {
				switch ev.Kind {
				case frame.Head:
					if !s.Take() {
						t.Fatal("Take refused")
					}
				case frame.Whole:
					got = append([]byte(nil), ev.Bytes...)
				}
			}
		}
		if !bytes.Equal(got, big) {
			t.Errorf("step %d: %d bytes delivered, want the %d fed", step, len(got), len(big))
		}
	}
}

// A frame of 8 MiB fed in 64 KiB reads (the proxy's read size is 128 KiB
// at most), whole: the cost of buffering a large frame.
func BenchmarkSplitterLargeFrame(b *testing.B) {
	big := cat(wire.AppendInt32(nil, 8<<20), make([]byte, 8<<20))
	s := &frame.Splitter{Max: 100 << 20}
	b.SetBytes(int64(len(big)))
	b.ReportAllocs()
	for b.Loop() {
		for off := 0; off < len(big); off += 64 << 10 {
			s.Feed(big[off:min(off+64<<10, len(big))])
			for ev := s.Next(); ev.Kind != frame.None; ev = s.Next() {
			}
		}
	}
}

// FuzzSplitterSegments builds a stream of frames of up to 4 MiB from
// recipe (a frame of b<<14 + b bytes per byte b; an odd recipe cuts the
// last frame in half) and feeds it in chunks from 1 byte to 3 MiB that
// seed picks: the frames are delivered with their bytes, and the one cut
// short is reported with what arrived.
func FuzzSplitterSegments(f *testing.F) {
	f.Add([]byte{64, 0, 200}, uint64(1))
	f.Add([]byte{1, 255, 63, 64, 65}, uint64(2))
	f.Add([]byte{128, 128}, uint64(3))
	f.Fuzz(func(t *testing.T, recipe []byte, seed uint64) {
		if len(recipe) > 6 {
			recipe = recipe[:6]
		}
		var stream []byte
		var frames [][]byte
		for i, b := range recipe {
			n := int(b)<<14 + int(b)
			fr := cat(wire.AppendInt32(nil, int32(n)), bytes.Repeat([]byte{b ^ byte(i)}, n))
			if n > 0 {
				fr[len(fr)-1] = byte(i) // the frame's end is its own
			}
			if i == len(recipe)-1 && len(recipe)%2 == 1 {
				stream = append(stream, fr[:len(fr)/2]...)
				break
			}
			frames = append(frames, fr)
			stream = append(stream, fr...)
		}
		r := rand.New(rand.NewPCG(seed, 1))
		s := &frame.Splitter{}
		k := 0
		for off := 0; off < len(stream); {
			step := 1 + [3]int{r.IntN(100), r.IntN(200 << 10), r.IntN(3 << 20)}[r.IntN(3)]
			chunk := append([]byte(nil), stream[off:min(off+step, len(stream))]...)
			s.Feed(chunk)
			for ev := s.Next(); ev.Kind != frame.None; ev = s.Next() {
				if ev.Kind != frame.Whole || k >= len(frames) || !bytes.Equal(ev.Bytes, frames[k]) {
					t.Fatalf("event %v at %d (%d bytes), want frame %d of %d", ev.Kind, ev.Off, len(ev.Bytes), k, len(frames))
				}
				k++
			}
			clear(chunk)
			off += len(chunk)
		}
		if k != len(frames) {
			t.Fatalf("%d frames delivered, want %d", k, len(frames))
		}
		s.End()
		s.Next()
		p := s.Close()
		if len(recipe)%2 == 1 {
			cut := stream[len(stream)-(len(stream)-frameStart(frames)):]
			want := int64(len(cut)) - 4
			if len(cut) < 4 {
				want = int64(len(cut))
			}
			if p.State != frame.InFrame || p.Off != int64(frameStart(frames)) || p.Have != want || !firstBytes(p.Bytes, cut, int64(len(cut))) && len(cut) > 0 {
				t.Fatalf("the cut frame: state %d, off %d, have %d (want %d), %d bytes", p.State, p.Off, p.Have, want, len(p.Bytes))
			}
		} else if p.Off != -1 {
			t.Fatalf("ended inside a frame at %d", p.Off)
		}
	})
}

// frameStart is where the frame after frames starts.
func frameStart(frames [][]byte) int {
	n := 0
	for _, f := range frames {
		n += len(f)
	}
	return n
}

// An idle stream keeps little: 100 Splitters that each delivered a frame
// of 60 KB, fed in chunks as a capture's segments come, hold at most 16
// KiB each afterwards (their buffers go to the shared pool). 1000 open
// connections that had each sent such frames kept 62 MB of buffers.
func TestSplitterIdleKeepsLittle(t *testing.T) {
	fr := wire.AppendInt32(nil, 60000)
	fr = append(fr, bytes.Repeat([]byte{0x11}, 60000)...)
	ss := make([]*frame.Splitter, 100)
	_, held := allocated(func() {
		for i := range ss {
			s := &frame.Splitter{}
			for p := fr; len(p) > 0; p = p[min(1400, len(p)):] {
				s.Feed(p[:min(1400, len(p))])
				for ev := s.Next(); ev.Kind != frame.None; ev = s.Next() {
					if ev.Kind != frame.Whole || len(ev.Bytes) != len(fr) {
						t.Fatalf("event %v of %d bytes", ev.Kind, len(ev.Bytes))
					}
				}
			}
			ss[i] = s
		}
	})
	if per := held / int64(len(ss)); per > 20<<10 {
		t.Errorf("an idle Splitter holds %d bytes after a frame of %d", per, len(fr))
	}
	runtime.KeepAlive(ss)
}
