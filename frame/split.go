package frame

import "sync"

// Kind is what Splitter.Next found.
type Kind uint8

const (
	// None: the input fed is used up; feed more.
	None Kind = iota
	// Whole: Event.Bytes is a whole frame, size prefix included.
	Whole
	// Head: a frame that is not delivered whole (its size is outside
	// [Min, Max]): Event.Bytes is its first bytes (Splitter.Head of them,
	// or the whole frame when it is shorter) and Event.Size its announced
	// size. The rest of the frame is skipped, unless Take is called before
	// the next call to the Splitter.
	Head
	// Negative: a size prefix below zero; Event.Bytes is its 4 bytes. The
	// Splitter then searches for a plausible frame (Splitter.Resync) or,
	// without a Resync hook, stops.
	Negative
	// Resynced: the search found a plausible frame at Event.Off, after
	// passing over Event.Skipped bytes from Event.From. Framing goes on
	// from Event.Off.
	Resynced
)

// String names k.
func (k Kind) String() string {
	switch k {
	case None:
		return "none"
	case Whole:
		return "whole"
	case Head:
		return "head"
	case Negative:
		return "negative"
	case Resynced:
		return "resynced"
	}
	return "kind?"
}

// Event is one finding of Splitter.Next. Its Bytes refer to the input fed
// or to the Splitter's buffer: they are valid until the next call to the
// Splitter (Next, Feed, Take, Gap, GapToFrame, End), and must not be
// modified.
type Event struct {
	// Kind says what was found.
	Kind Kind
	// Off is the stream offset of the frame's size prefix (the count of
	// bytes fed and reported missing before it).
	Off int64
	// Size is the size prefix's value (Whole, Head, Negative).
	Size int64
	// Bytes are the frame (Whole), its first bytes (Head) or the size
	// prefix (Negative).
	Bytes []byte
	// Skipped is the number of bytes passed over by the search (Resynced):
	// Off - From.
	Skipped int64
	// From is where the search began (Resynced): the negative size prefix,
	// or the byte after a gap.
	From int64
}

// Verdict is a Resync hook's judgement of the bytes at a candidate offset.
type Verdict uint8

const (
	// Reject: no frame starts here.
	Reject Verdict = iota
	// NeedMore: more bytes are needed to judge. After End it counts as
	// Reject.
	NeedMore
	// Accept: a frame starts here.
	Accept
)

// State is where a Splitter is in its stream, between calls.
type State uint8

const (
	// InFrame: at a frame boundary, or inside a frame whose first bytes
	// (or, for a frame delivered whole, all bytes so far) are buffered.
	InFrame State = iota
	// Skipping: inside a frame reported as Head, passing over its rest.
	Skipping
	// Scanning: searching for a plausible frame byte by byte.
	Scanning
	// Stopped: after Stop (or a negative size without a Resync hook): no
	// more frames are found; bytes are only counted.
	Stopped
	// Ended: after End and the Next calls that follow it returned None.
	Ended
)

// Splitter splits a byte stream into Kafka frames (an int32 size prefix,
// then that many bytes) incrementally: bytes are fed in chunks of any size
// (Feed) and Next reports the frames they complete. A frame that lies whole
// in one chunk is reported in place, without copying; the bytes of a frame
// split across chunks are buffered as they arrive, never by what a size
// prefix claims: a Splitter holds at most one frame (bounded by Max) of
// buffered data. The first MiB of a frame is held in one buffer that
// doubles as bytes arrive (never beyond the frame); the rest in segments of
// a MiB each, filled one after the other, so that an unfinished frame holds
// its bytes and at most a MiB more, whatever its size. Once the last
// byte arrives the frame is copied into one buffer of its exact size and
// the segments are freed. (A free buffer that a large frame before left,
// as large as the frame, is used instead of segments: it is memory the
// process holds already.) Frames over the limit are reported by their first
// bytes and skipped without being buffered.
//
// The zero Splitter delivers frames of 0 to DefaultMax bytes whole and stops
// at a negative size. Set the fields before the first Feed. A Splitter is
// not safe for concurrent use.
type Splitter struct {
	// Max is the largest size prefix whose frame is delivered whole (the
	// size prefix's value, not counting its own 4 bytes); 0 means
	// DefaultMax. A negative Max delivers no frame whole: every frame is a
	// Head, to follow frame boundaries without buffering frames.
	Max int
	// Min is the smallest size prefix whose frame is delivered whole;
	// smaller non-negative sizes are reported as Head.
	Min int
	// Head is the number of first bytes a Head event carries, at least 4
	// (the size prefix; 0 means 4).
	Head int
	// Resync, when set, judges candidate frames after a negative size or a
	// Gap: it is called with the bytes from a candidate offset on (as many
	// as have arrived) and says whether a frame starts there. Without it
	// the Splitter stops at a negative size or a Gap it cannot step over.
	Resync func(b []byte) Verdict

	state State
	// in is the input not yet consumed; pos is the stream offset of in[0].
	in  []byte
	pos int64
	// buf holds the current frame's bytes from its size prefix on
	// (InFrame), or the bytes not yet judged (Scanning), starting at
	// stream offset bufOff. alt holds the rest of a judged window.
	buf, alt []byte
	bufOff   int64
	// segs hold the bytes of a frame delivered whole past its first
	// bigFrame bytes (which buf holds), segLen their count.
	segs   [][]byte
	segLen int
	// out is a buffer handed out in the last event, taken back at the next
	// call.
	out []byte
	// size is the current frame's size prefix once known (len(buf) >= 4).
	size int64
	// whole: InFrame, the current frame is being buffered whole.
	whole bool
	// skip is the number of bytes still to skip (Skipping), of the frame
	// at frameOff.
	skip     int64
	frameOff int64
	// scanOff is where the current search began (Scanning).
	scanOff int64
	skipped int64
	final   bool
	// head is the last Head event, for Take (valid while canTake).
	head    Event
	canTake bool
	pfx     [4]byte
}

// Feed sets p as the next input. Call it only when Next has returned None
// (the previous input is used up); p must not change until Next returns
// None again.
func (s *Splitter) Feed(p []byte) {
	s.settle()
	s.in = p
}

// Offset is the stream offset of the next byte to be fed: the number of
// bytes fed and reported missing so far.
func (s *Splitter) Offset() int64 { return s.pos + int64(len(s.in)) }

// Skipped is the number of bytes passed over without being delivered in a
// Whole event so far: the bytes of Head frames (less those taken), bytes
// rejected by a search, and every byte after Stop or End.
func (s *Splitter) Skipped() int64 { return s.skipped }

// State is where the Splitter is in its stream.
func (s *Splitter) State() State { return s.state }

// Pending describes what the Splitter is inside between calls.
type Pending struct {
	// State is the Splitter's State.
	State State
	// Off is, for InFrame, the offset of the frame begun (-1 when at a
	// frame boundary); for Skipping, the offset of the frame being
	// skipped; for Scanning, where the search began.
	Off int64
	// Size is the frame's size prefix; -1 while it is incomplete or no
	// frame is begun.
	Size int64
	// Bytes are, for InFrame, the frame's bytes that arrived (size prefix
	// on), or its first MiB when the rest is held in segments (see
	// Splitter); for Scanning, the bytes kept to be judged. Valid until
	// the next call to the Splitter.
	Bytes []byte
	// Have is, for InFrame, the number of bytes of the frame begun that
	// arrived after its size prefix (while the prefix itself is
	// incomplete, Size -1, the bytes of it that arrived); for Skipping,
	// the number of bytes of the frame after its size prefix that went
	// by; for Scanning, the number of bytes since the search began.
	Have int64
}

// Pending returns what the Splitter is inside (see Pending).
func (s *Splitter) Pending() Pending {
	p := Pending{State: s.state, Off: -1, Size: -1}
	switch s.state {
	case InFrame:
		if len(s.buf) > 0 {
			p.Off, p.Bytes, p.Have = s.bufOff, s.buf, int64(len(s.buf))
			if len(s.buf) >= 4 {
				p.Size, p.Have = s.size, int64(s.held())-4
			}
		}
	case Skipping:
		p.Off, p.Size = s.frameOff, s.headSize()
		p.Have = s.pos - s.frameOff - 4
	case Scanning:
		p.Off, p.Bytes, p.Have = s.scanOff, s.buf, s.pos-s.scanOff
	}
	return p
}

// headSize is the announced size of the frame being skipped.
func (s *Splitter) headSize() int64 { return s.skip + s.pos - s.frameOff - 4 }

// Next returns the next frame (or finding) of the input fed, or an Event of
// Kind None when the input is used up.
func (s *Splitter) Next() Event {
	s.settle()
	for {
		switch s.state {
		case Stopped, Ended:
			s.skipped += int64(len(s.in))
			s.consume(len(s.in))
			return Event{}
		case Skipping:
			if len(s.in) == 0 {
				return Event{}
			}
			k := min(s.skip, int64(len(s.in)))
			s.skip -= k
			s.skipped += k
			s.consume(int(k))
			if s.skip == 0 {
				s.state = InFrame
			}
		case Scanning:
			if ev, ok := s.scan(); ok {
				return ev
			}
			if len(s.in) == 0 {
				return Event{}
			}
		case InFrame:
			if ev, ok := s.frame(); ok {
				return ev
			}
			if len(s.in) == 0 {
				return Event{}
			}
		}
	}
}

// Take makes the frame of the Head event just returned be buffered and
// delivered whole, whatever its size (the caller bounds it). It must be
// called before any other call to the Splitter; it reports false (and does
// nothing) otherwise.
func (s *Splitter) Take() bool {
	if !s.canTake {
		return false
	}
	s.canTake = false
	h := s.head
	s.skipped -= int64(len(h.Bytes))
	n := int(4 + h.Size)
	if s.out != nil {
		// The head was in buf.
		s.buf, s.out = s.out, nil
	} else {
		s.buf = append(grow(s.buf[:0], len(h.Bytes), min(n, bigFrame)), h.Bytes...)
	}
	s.bufOff, s.size, s.whole = h.Off, h.Size, true
	s.state, s.skip = InFrame, 0
	return true
}

// Stop makes the Splitter find no more frames: every byte fed after is
// only counted (Skipped). For a stream found not to be Kafka.
func (s *Splitter) Stop() {
	s.settle()
	s.state = Stopped
	s.skipped += int64(s.held())
	s.release()
}

// Search makes the Splitter search for a plausible frame from the next byte
// fed (Resync), as for a stream joined mid-way; without a Resync hook it
// stops.
func (s *Splitter) Search() {
	s.settle()
	s.startScan(s.Offset())
}

// Gapped is what a gap in the stream fell in.
type Gapped struct {
	// InStep says the Splitter knows where the next frame starts: the gap
	// fell inside a frame whose size is known, or (GapToFrame) the caller
	// said so.
	InStep bool
	// Lost says the gap fell inside a frame (begun at FrameOff, of Size
	// bytes after its prefix, -1 if unknown), which is lost.
	Lost     bool
	FrameOff int64
	Size     int64
	// Bytes are the lost frame's bytes that had been buffered (size prefix
	// on; or its first MiB, see Pending.Bytes), when it was being
	// buffered. Valid until the next call. Have is the number of them
	// that arrived (size prefix included).
	Bytes []byte
	Have  int64
}

// Gap tells the Splitter that n bytes of the stream will never arrive (lost
// from a capture, or not handed over). Inside a frame whose size is known
// and that holds the whole gap, the Splitter stays in step: that frame is
// lost, the rest of it skipped. Otherwise it searches for a plausible frame
// (Resync) from the byte after the gap, or stops without a Resync hook.
// It returns what the gap fell in. Call it only when Next has returned
// None.
func (s *Splitter) Gap(n int64) Gapped {
	s.settle()
	g := Gapped{FrameOff: -1, Size: -1}
	if n <= 0 {
		return g
	}
	switch s.state {
	case Stopped, Ended:
		s.pos += n
		return g
	case Skipping:
		if n <= s.skip {
			g = Gapped{InStep: true, Lost: true, FrameOff: s.frameOff, Size: s.headSize()}
			s.skip -= n
			s.pos += n
			if s.skip == 0 {
				s.state = InFrame
			}
			return g
		}
	case InFrame:
		if len(s.buf) >= 4 {
			if rem := 4 + s.size - int64(s.held()); n <= rem {
				g = Gapped{InStep: true, Lost: true, FrameOff: s.bufOff, Size: s.size, Bytes: s.buf, Have: int64(s.held())}
				s.state, s.skip, s.frameOff, s.whole = Skipping, rem-n, s.bufOff, false
				if s.skip == 0 {
					s.state = InFrame
				}
				s.handOut()
				s.pos += n
				return g
			}
		}
	case Scanning:
		s.skipped += int64(len(s.buf))
	}
	s.pos += n
	s.startScan(s.pos)
	return g
}

// GapToFrame is Gap for a caller that knows where frames start (it follows
// the size prefixes as it forwards): n bytes are missing and the next byte
// fed begins a frame. A frame the Splitter was inside is reported lost.
// Call it only when Next has returned None.
func (s *Splitter) GapToFrame(n int64) Gapped {
	s.settle()
	g := Gapped{InStep: true, FrameOff: -1, Size: -1}
	if n < 0 {
		return Gapped{FrameOff: -1, Size: -1}
	}
	switch s.state {
	case Stopped, Ended:
		s.pos += n
		g.InStep = false
		return g
	case InFrame:
		if len(s.buf) > 0 {
			g.Lost, g.FrameOff, g.Bytes, g.Have = true, s.bufOff, s.buf, int64(s.held())
			if len(s.buf) >= 4 {
				g.Size = s.size
			}
		}
	case Skipping:
		g.Lost, g.FrameOff, g.Size = true, s.frameOff, s.headSize()
	case Scanning:
		s.skipped += int64(len(s.buf))
	}
	s.handOut()
	s.state, s.skip, s.whole = InFrame, 0, false
	s.pos += n
	return g
}

// End says the stream has ended. The Next calls that follow judge what a
// search still holds, refusing candidates longer than the bytes left (a
// Resync verdict of NeedMore counts as Reject) and return the frames that
// follow; once Next returns None, Pending tells what the stream ended
// inside, and Close ends the Splitter.
func (s *Splitter) End() {
	s.settle()
	s.final = true
}

// Close ends the Splitter after End: it returns what the stream ended
// inside (see Pending; its Bytes are no longer the Splitter's, and stay
// valid) and frees the buffers. Later input is only counted.
func (s *Splitter) Close() Pending {
	s.settle()
	p := s.Pending()
	if p.State == Scanning {
		s.skipped += int64(len(s.buf))
	}
	s.state = Ended
	// The stream is over: its segments are left to the garbage collector,
	// not pooled, so that a stream that ended inside a large frame does
	// not keep its bytes' worth of memory.
	s.buf, s.alt, s.out, s.segs, s.segLen = nil, nil, nil, nil, 0
	return p
}

func (s *Splitter) consume(k int) {
	s.in = s.in[k:]
	s.pos += int64(k)
}

func (s *Splitter) limit() int64 {
	if s.Max == 0 {
		return DefaultMax
	}
	return int64(s.Max)
}

// inRange says whether a frame of this size is delivered whole.
func (s *Splitter) inRange(size int64) bool {
	return s.Max >= 0 && size >= int64(s.Min) && size <= s.limit()
}

// headLen is the number of bytes of a Head event for a frame of this size.
func (s *Splitter) headLen(size int64) int {
	return int(min(int64(max(s.Head, 4)), 4+size))
}

// frame consumes input at or inside a frame (InFrame) and reports an event
// when one is complete.
func (s *Splitter) frame() (Event, bool) {
	if s.whole {
		return s.fill()
	}
	if len(s.buf) == 0 {
		if len(s.in) == 0 {
			return Event{}, false
		}
		s.bufOff = s.pos
		// Fast path: judge the size prefix in place, and deliver what is
		// whole in the input without copying it.
		if len(s.in) >= 4 {
			size32, _ := Size(s.in)
			size := int64(size32)
			switch {
			case size < 0:
				return s.negative(s.in[:4], size, true), true
			case s.inRange(size):
				if n := int(4 + size); len(s.in) >= n {
					fr := s.in[:n:n]
					s.consume(n)
					return Event{Kind: Whole, Off: s.bufOff, Size: size, Bytes: fr}, true
				}
			default:
				if h := s.headLen(size); len(s.in) >= h {
					b := s.in[:h:h]
					s.consume(h)
					return s.headEvent(b, size), true
				}
			}
		}
	}
	if len(s.buf) < 4 {
		k := min(4-len(s.buf), len(s.in))
		s.buf = append(s.buf, s.in[:k]...)
		s.consume(k)
		if len(s.buf) < 4 {
			return Event{}, false
		}
		size32, _ := Size(s.buf)
		size := int64(size32)
		if size < 0 {
			copy(s.pfx[:], s.buf)
			return s.negative(s.pfx[:], size, false), true
		}
		s.size = size
		if s.inRange(size) {
			s.whole = true
			return s.fill()
		}
	}
	h := s.headLen(s.size)
	k := min(h-len(s.buf), len(s.in))
	s.buf = append(grow(s.buf, k, h), s.in[:k]...)
	s.consume(k)
	if len(s.buf) < h {
		return Event{}, false
	}
	b := s.buf
	s.handOut()
	return s.headEvent(b, s.size), true
}

// fill buffers the bytes of a frame delivered whole: its first bigFrame
// bytes in buf, the rest in segments, copied into one buffer of the
// frame's size once all have arrived. When a free buffer of that size is
// at hand (bigBufs: a large frame before it), the frame goes on in it
// instead, without segments.
func (s *Splitter) fill() (Event, bool) {
	n := int(4 + s.size)
	for len(s.in) > 0 && s.held() < n {
		switch {
		case cap(s.buf) >= n || len(s.buf) < bigFrame && len(s.segs) == 0:
			end := n
			if cap(s.buf) < n {
				end = min(n, bigFrame)
			}
			k := min(end-len(s.buf), len(s.in))
			s.buf = append(grow(s.buf, k, end), s.in[:k]...)
			s.consume(k)
		case len(s.segs) == 0 && s.pooled(n):
		default:
			if len(s.segs) == 0 || len(s.segs[len(s.segs)-1]) == cap(s.segs[len(s.segs)-1]) {
				s.segs = append(s.segs, newSeg(n-s.held()))
			}
			last := &s.segs[len(s.segs)-1]
			k := min(cap(*last)-len(*last), len(s.in))
			*last = append(*last, s.in[:k]...)
			s.segLen += k
			s.consume(k)
		}
	}
	if s.held() < n {
		return Event{}, false
	}
	if len(s.segs) > 0 {
		fr := frameBuf(n)
		k := copy(fr, s.buf)
		for _, g := range s.segs {
			k += copy(fr[k:], g)
		}
		s.freeSegs()
		s.buf = fr
	}
	ev := Event{Kind: Whole, Off: s.bufOff, Size: s.size, Bytes: s.buf}
	s.whole = false
	s.handOut()
	return ev, true
}

// headEvent reports the first bytes b of a frame not delivered whole and
// skips the rest of it.
func (s *Splitter) headEvent(b []byte, size int64) Event {
	s.skipped += int64(len(b))
	s.frameOff = s.bufOff
	s.skip = 4 + size - int64(len(b))
	s.state = Skipping
	if s.skip == 0 {
		s.state = InFrame
	}
	s.head = Event{Kind: Head, Off: s.bufOff, Size: size, Bytes: b}
	s.canTake = true
	return s.head
}

// negative reports a negative size prefix b (in the input when inPlace,
// else in buf) and starts a search from its second byte, or stops.
func (s *Splitter) negative(b []byte, size int64, inPlace bool) Event {
	ev := Event{Kind: Negative, Off: s.bufOff, Size: size, Bytes: b}
	if s.Resync == nil {
		s.state = Stopped
		s.skipped += int64(len(s.buf))
		s.buf = s.buf[:0]
		return ev
	}
	s.state, s.scanOff = Scanning, s.bufOff
	s.skipped++
	if inPlace {
		s.consume(1)
	} else {
		n := copy(s.buf, s.buf[1:4])
		s.buf, s.bufOff = s.buf[:n], s.bufOff+1
	}
	return ev
}

// startScan makes the Splitter search for a plausible frame from stream
// offset off (the bytes it holds are dropped), or stop without a Resync
// hook.
func (s *Splitter) startScan(off int64) {
	s.release()
	s.whole, s.skip = false, 0
	if s.Resync == nil {
		s.state = Stopped
		return
	}
	s.state, s.scanOff = Scanning, off
}

// scan consumes input while searching. When the hook accepts a candidate
// it reports Resynced and makes the input the bytes from that frame on.
func (s *Splitter) scan() (Event, bool) {
	// The window is buf+in; in is judged in place when buf is empty.
	win, inBuf := s.in, false
	if len(s.buf) == 0 {
		s.bufOff = s.pos
	} else {
		s.buf = append(s.buf, s.in...)
		win, inBuf = s.buf, true
	}
	s.consume(len(s.in))
	for i := 0; i < len(win); i++ {
		v := s.Resync(win[i:])
		if v == NeedMore && s.final {
			v = Reject
		}
		switch v {
		case NeedMore:
			s.skipped += int64(i)
			if inBuf {
				n := copy(s.buf, win[i:])
				s.buf = s.buf[:n]
			} else {
				s.buf = append(s.buf[:0], win[i:]...)
			}
			s.bufOff += int64(i)
			return Event{}, false
		case Accept:
			at := s.bufOff + int64(i)
			s.skipped += int64(i)
			rest := win[i:]
			if inBuf {
				// Move the rest out of buf, which the frame refills.
				s.alt = append(s.alt[:0], rest...)
				rest = s.alt
			}
			s.buf = s.buf[:0]
			s.state = InFrame
			s.in, s.pos = rest, at
			return Event{Kind: Resynced, Off: at, Skipped: at - s.scanOff, From: s.scanOff}, true
		}
	}
	s.skipped += int64(len(win))
	s.buf = s.buf[:0]
	s.bufOff = s.pos
	return Event{}, false
}

// handOut empties buf, whose bytes an event (or Gapped) carries: they
// stay untouched until the next call takes the buffer back (settle). The
// segments of a frame lost in a gap are freed.
func (s *Splitter) handOut() {
	s.out, s.buf = s.buf, nil
	s.freeSegs()
}

// settle takes back a buffer handed out by the last event.
func (s *Splitter) settle() {
	s.canTake = false
	if s.out == nil {
		return
	}
	b := s.out[:0]
	s.out = nil
	if cap(b) > keptBuf {
		bigBufs.Put(&b)
		return
	}
	if cap(s.buf) == 0 {
		s.buf = b
	}
}

// held is the number of bytes of the current frame buffered (InFrame).
func (s *Splitter) held() int { return len(s.buf) + s.segLen }

// segSize is the size of the segments that hold a frame past its first
// bigFrame bytes.
const segSize = 1 << 20

// segs holds free segments, shared by all Splitters (and emptied by the
// garbage collector when unused).
var segs sync.Pool

// newSeg returns an empty segment for at most left more bytes of a frame:
// segSize bytes, or left when the frame ends before.
func newSeg(left int) []byte {
	if left < segSize {
		return make([]byte, 0, left)
	}
	if v, ok := segs.Get().(*[]byte); ok {
		return (*v)[:0]
	}
	return make([]byte, 0, segSize)
}

// freeSegs puts the segments back, those of segSize bytes in the pool.
func (s *Splitter) freeSegs() {
	for i, g := range s.segs {
		if cap(g) == segSize {
			g = g[:0]
			segs.Put(&g)
		}
		s.segs[i] = nil
	}
	s.segs, s.segLen = s.segs[:0], 0
}

// pooled moves buf into a free buffer of bigBufs that holds n bytes, if
// one is at hand.
func (s *Splitter) pooled(n int) bool {
	v, ok := bigBufs.Get().(*[]byte)
	if !ok {
		return false
	}
	if cap(*v) < n {
		bigBufs.Put(v)
		return false
	}
	s.buf = append((*v)[:0], s.buf...)
	return true
}

// frameBuf returns a buffer of n bytes for a frame whose bytes have all
// arrived: one from bigBufs when it is large enough, else a new one.
func frameBuf(n int) []byte {
	if v, ok := bigBufs.Get().(*[]byte); ok {
		if cap(*v) >= n {
			return (*v)[:n]
		}
		bigBufs.Put(v)
	}
	return make([]byte, n)
}

// release empties buf (and the segments); one that a large frame made grow
// goes to bigBufs, so that an idle stream does not keep megabytes.
func (s *Splitter) release() {
	s.freeSegs()
	if cap(s.buf) > keptBuf {
		b := s.buf[:0]
		bigBufs.Put(&b)
		s.buf = nil
	} else {
		s.buf = s.buf[:0]
	}
}

// bigFrame is the number of a frame's first bytes its buffer holds; the
// rest are in segments of segSize.
const bigFrame = 1 << 20

// keptBuf is the buffer capacity past which a buffer goes back to bigBufs
// between frames rather than staying with its Splitter: 1000 open
// connections that had each sent frames of 60 KB kept 62 MB of buffers
// (an outside review's capture).
const keptBuf = 16 << 10

// bigBufs holds buffers of large frames between uses, shared by all
// Splitters (and emptied by the garbage collector when unused).
var bigBufs sync.Pool

// grow makes room in b for k more bytes of a frame of frameLen bytes: the
// capacity at least doubles (so copying stays linear) but never exceeds
// the frame, and is only ever twice the bytes that arrived, whatever the
// size prefix claims.
func grow(b []byte, k, frameLen int) []byte {
	if len(b)+k <= cap(b) {
		return b
	}
	n := min(frameLen, max(2*cap(b), len(b)+k, 4096))
	if n > keptBuf {
		if v, ok := bigBufs.Get().(*[]byte); ok {
			if cap(*v) >= len(b)+k {
				return append((*v)[:0], b...)
			}
			bigBufs.Put(v)
		}
	}
	nb := make([]byte, len(b), n)
	copy(nb, b)
	return nb
}
