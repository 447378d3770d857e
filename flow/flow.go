// Package flow decodes the Kafka conversation of one TCP connection: fed the
// bytes of both directions in order (in chunks of any size, with the time
// they were seen), it splits each direction into frames (the int32 size
// prefix of Kafka's length-delimited framing), decodes requests by their
// request header (api key, api version, correlation id, client id) and
// responses by the correlation id of a request seen on the same connection
// (the request's api key and version choose the response spec, and
// codec.ResponseHeaderVersion its header version), and reports:
//
//   - an *Exchange per request and response matched (either may be
//     missing), with the frames' stream offsets, sizes and times, the
//     decoded trees when asked (Options.KeepTrees), decode errors, and the
//     non-zero error codes found anywhere in the response;
//   - a *Problem for what is not a good frame: a size over Options.MaxFrame
//     (reported from the four bytes of the prefix, before anything is
//     allocated; the frame's bytes are skipped, not buffered), a negative
//     size, bytes of another protocol (a TLS record read as a size, case
//     C19: the direction is labelled and no longer decoded), a stream that
//     ends inside a frame, a frame that does not decode (offset and field
//     path from the codec's *wire.Error; decoding goes on with the next
//     frame), a problem in the records of a frame that decoded (a batch
//     whose CRC does not match: Records), bytes missing (Gap) and the
//     resynchronisation that follows.
//
// A Conn holds at most one frame (bounded by MaxFrame) of buffered data per
// direction, reuses one node arena per direction when trees are not kept,
// and decodes a frame that lies whole in one chunk of data in place, without
// copying it.
//
// Resynchronisation. A stream joined mid-way (a capture started after the
// connection, Options.Unsynced) or one that lost bytes where no frame size
// tells where the next frame starts is searched byte by byte for a
// plausible frame: for requests, a size within [12, MaxFrame], an api key
// of the spec set, a version valid for it and a request header that parses
// within the frame (client id length, UTF-8 client id); for responses, a
// size within [4, MaxFrame] and a correlation id of a request seen on the
// connection and not yet answered. A response to a request that was not
// seen cannot be decoded (its api key and version are unknown), so such
// bytes are skipped. A Resync problem says how many bytes were skipped.
//
// A Conn is not safe for concurrent use: one goroutine feeds it, and its
// callback runs on that goroutine.
package flow

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// Options configure a Conn.
type Options struct {
	// Codec decodes the frames; its spec set names the APIs. Required.
	Codec *codec.Codec
	// MaxFrame is the largest size prefix accepted, in bytes (the size
	// prefix's value, not counting its own 4 bytes): 0 means the codec's
	// MaxFrame, or codec.DefaultMaxFrame (100 MiB, Kafka's default
	// socket.request.max.bytes). The codec must accept frames that large.
	MaxFrame int
	// KeepTrees keeps each frame's decoded span tree (and a copy of its
	// bytes) in its Exchange. Without it the trees are decoded into a
	// reused arena and dropped: memory stays at one frame per direction.
	// With it a request's tree is held until its response arrives.
	KeepTrees bool
	// Unsynced starts both directions unsynchronised: the first bytes are
	// not taken to be a size prefix but searched for a plausible frame, as
	// for a capture that starts in the middle of a connection.
	Unsynced bool
	// MaxPending bounds the requests awaiting a response; past it the
	// oldest is reported unanswered. 0 means 1024.
	MaxPending int
}

// Stats count what a Conn has seen, per direction (indexed by Dir).
type Stats struct {
	// Bytes is the number of bytes fed (Data); Missing the bytes reported
	// missing (Gap).
	Bytes, Missing [2]int64
	// Frames is the number of frames framed (decoded or not, skipped
	// over-limit frames included).
	Frames [2]int64
	// Skipped is the number of bytes passed over undecoded: over-limit
	// frames, bytes skipped while resynchronising, and everything after a
	// NotKafka problem.
	Skipped [2]int64
	// NotKafka names the protocol a direction was found to speak instead
	// of Kafka ("TLS"), or "".
	NotKafka [2]string
	// Exchanges and Problems count the events reported.
	Exchanges, Problems int64
}

// state is what a stream expects next.
type state uint8

const (
	// inFrame: at a frame boundary (buf empty) or inside a frame whose
	// bytes so far are in buf.
	inFrame state = iota
	// skipping: inside an over-limit (or lost) frame, skip bytes to go.
	skipping
	// scanning: unsynchronised, looking for a plausible frame.
	scanning
	// dead: not Kafka; bytes are only counted.
	dead
	// ended: the stream ended.
	ended
)

// stream is the decoding state of one direction.
type stream struct {
	dir   Dir
	state state
	// off is the stream offset of the next byte to arrive.
	off int64
	// buf holds the bytes of the current frame from its size prefix on
	// (inFrame), or the bytes not yet judged (scanning), starting at
	// stream offset bufOff.
	buf    []byte
	alt    []byte
	bufOff int64
	// size is the current frame's size prefix once known (len(buf) >= 4).
	size int64
	// skip is the number of bytes still to skip (skipping).
	skip int64
	// frameOff is the offset of the frame being skipped (skipping).
	frameOff int64
	// start is the time of the current frame's first byte.
	start time.Time
	// scanOff is where the current search began (scanning).
	scanOff int64
	// arena is the reused tree when trees are not kept.
	arena tree.Tree
}

// pending is a request awaiting its response.
type pending struct {
	key, ver int16
	corr     int32
	clientID string
	frame    *Frame
}

// Conn decodes one connection. Create it with New.
type Conn struct {
	o     Options
	set   *spec.Set
	emit  func(Event)
	s     [2]stream
	pend  []pending
	head  int
	stats Stats
	// lastClient is the last client id seen, reused so that a connection
	// whose requests all carry the same client id allocates it once.
	lastClient string
	// acks is ProduceRequest's Acks field (nil when the set has none).
	acks *spec.Field
	// closed is set by Close.
	closed bool
}

// New returns a Conn that reports its events to emit (called on the
// feeding goroutine, in stream order).
func New(o Options, emit func(Event)) *Conn {
	if o.MaxFrame <= 0 {
		o.MaxFrame = o.Codec.MaxFrame
		if o.MaxFrame <= 0 {
			o.MaxFrame = codec.DefaultMaxFrame
		}
	}
	if o.MaxPending <= 0 {
		o.MaxPending = 1024
	}
	c := &Conn{o: o, set: o.Codec.Set, emit: emit}
	c.s[ClientToServer].dir = ClientToServer
	c.s[ServerToClient].dir = ServerToClient
	if o.Unsynced {
		c.s[0].state, c.s[1].state = scanning, scanning
	}
	if m := c.set.Request(0); m != nil {
		for _, f := range m.Root.Fields {
			if f.Name == "Acks" {
				c.acks = f
			}
		}
	}
	return c
}

// Stats returns what the Conn has counted so far.
func (c *Conn) Stats() Stats { return c.stats }

// Pending is the number of requests awaiting a response.
func (c *Conn) Pending() int { return len(c.pend) - c.head }

func (c *Conn) report(e Event) {
	switch e.(type) {
	case *Exchange:
		c.stats.Exchanges++
	case *Problem:
		c.stats.Problems++
	}
	if c.emit != nil {
		c.emit(e)
	}
}

func (c *Conn) problem(s *stream, k Kind, off int64, at time.Time) *Problem {
	return &Problem{Kind: k, Dir: s.dir, Offset: off, Time: at, APIKey: -1, Version: -1}
}

// Data feeds the next bytes p of direction d, seen at time at. p is not
// retained after Data returns.
func (c *Conn) Data(d Dir, p []byte, at time.Time) {
	s := &c.s[d&1]
	c.stats.Bytes[s.dir] += int64(len(p))
	c.data(s, p, at)
}

func (c *Conn) data(s *stream, p []byte, at time.Time) {
	for len(p) > 0 {
		switch s.state {
		case ended:
			s.off += int64(len(p))
			c.stats.Skipped[s.dir] += int64(len(p))
			return
		case dead:
			s.off += int64(len(p))
			c.stats.Skipped[s.dir] += int64(len(p))
			return
		case skipping:
			k := min(s.skip, int64(len(p)))
			s.skip -= k
			s.off += k
			c.stats.Skipped[s.dir] += k
			p = p[k:]
			if s.skip == 0 {
				s.state = inFrame
			}
		case scanning:
			p = c.scan(s, p, at, false)
		case inFrame:
			p = c.frame(s, p, at)
		}
	}
}

// frame consumes bytes of p in the inFrame state and returns the rest.
func (c *Conn) frame(s *stream, p []byte, at time.Time) []byte {
	if len(s.buf) == 0 {
		s.start = at
		s.bufOff = s.off
		// Fast path: the whole frame is in p; decode it in place.
		if len(p) >= 4 {
			size := int64(int32(binary.BigEndian.Uint32(p)))
			if !c.okSize(s.dir, size) {
				switch c.badSize(s, size, p) {
				case dead:
					s.off += int64(len(p))
					c.stats.Skipped[s.dir] += int64(len(p))
					return nil
				case skipping:
					s.off += 4
					c.stats.Skipped[s.dir] += 4
					return p[4:]
				}
				s.off++
				c.stats.Skipped[s.dir]++
				return p[1:]
			}
			if n := 4 + int(size); len(p) >= n {
				s.off += int64(n)
				c.whole(s, p[:n], s.off-int64(n), at, at)
				return p[n:]
			}
		}
	}
	if len(s.buf) < 4 {
		k := min(4-len(s.buf), len(p))
		s.buf = append(s.buf, p[:k]...)
		s.off += int64(k)
		p = p[k:]
		if len(s.buf) < 4 {
			return p
		}
		size := int64(int32(binary.BigEndian.Uint32(s.buf)))
		if !c.okSize(s.dir, size) {
			// The prefix's 4 bytes are in buf and counted in s.off.
			switch c.badSize(s, size, s.buf) {
			case dead:
				c.stats.Skipped[s.dir] += 4
				s.buf = s.buf[:0]
			case skipping:
				c.stats.Skipped[s.dir] += 4
				s.buf = s.buf[:0]
			case scanning:
				// Search again from the prefix's second byte.
				c.stats.Skipped[s.dir]++
				b := s.buf[:4]
				copy(b, b[1:4])
				s.buf, s.bufOff = b[:3], s.bufOff+1
			}
			return p
		}
		s.size = size
	}
	need := 4 + int(s.size) - len(s.buf)
	k := min(need, len(p))
	s.buf = grow(s.buf, k, 4+int(s.size))
	s.buf = append(s.buf, p[:k]...)
	s.off += int64(k)
	p = p[k:]
	if k == need {
		c.whole(s, s.buf, s.bufOff, s.start, at)
		c.release(s)
	}
	return p
}

// bigFrame is the frame buffer capacity past which a buffer goes back to
// bigBufs between frames rather than staying with its connection.
const bigFrame = 1 << 20

// bigBufs holds frame buffers of large frames between uses, shared by all
// Conns (and emptied by the garbage collector when unused).
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
	if n > bigFrame {
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

// release empties the frame buffer; one that a large frame made grow goes
// to bigBufs, so that an idle connection does not keep megabytes.
func (c *Conn) release(s *stream) {
	if cap(s.buf) > bigFrame {
		b := s.buf[:0]
		bigBufs.Put(&b)
		s.buf = nil
	} else {
		s.buf = s.buf[:0]
	}
	s.size = 0
}

// okSize reports whether size can be the size prefix of a frame of
// direction d: within MaxFrame, and large enough for a request header's
// api key, version and correlation id (8) or a response's correlation id (4).
func (c *Conn) okSize(d Dir, size int64) bool {
	lo := int64(4)
	if d == ClientToServer {
		lo = 8
	}
	return size >= lo && size <= int64(c.o.MaxFrame)
}

// badSize handles a size prefix that okSize refused, at stream offset
// s.bufOff; b holds the prefix and whatever follows it, for sniffing. It
// reports the problem and sets and returns the new state: dead (another
// protocol), skipping (over the limit, or too small for a header: the size
// is trusted, s.skip bytes after the prefix are skipped) or scanning
// (negative). The caller consumes the prefix bytes.
func (c *Conn) badSize(s *stream, size int64, b []byte) state {
	off := s.bufOff
	at := s.start
	c.stats.Frames[s.dir]++
	if proto := Sniff(b); proto != "" {
		pr := c.problem(s, NotKafka, off, at)
		pr.Size, pr.Limit, pr.Protocol = size, c.o.MaxFrame, proto
		c.stats.NotKafka[s.dir] = proto
		s.state = dead
		c.report(pr)
		return dead
	}
	if size > int64(c.o.MaxFrame) {
		pr := c.problem(s, FrameTooLarge, off, at)
		pr.Size, pr.Limit = size, c.o.MaxFrame
		c.report(pr)
		s.state, s.skip, s.frameOff = skipping, size, off
		return skipping
	}
	if size >= 0 {
		// Too small to hold a header: trust the size, skip the frame.
		pr := c.problem(s, DecodeFailed, off, at)
		pr.Size, pr.FrameOffset = size+4, off
		pr.Err = fmt.Errorf("frame size %d is too small for a %s header", size, side(s.dir))
		c.report(pr)
		s.state, s.skip, s.frameOff = skipping, size, off
		if size == 0 {
			s.state = inFrame
		}
		return skipping
	}
	pr := c.problem(s, NegativeSize, off, at)
	pr.Size = size
	c.report(pr)
	c.startScan(s, off)
	return scanning
}

func side(d Dir) string {
	if d == ClientToServer {
		return "request"
	}
	return "response"
}

// Sniff names a well-known protocol that the first bytes of a stream (or of
// a would-be frame) look like: "TLS" for a TLS record header (content type
// 0x14-0x17, then version major 3 and minor 0-4: the bytes 15 03 03 of case
// C19), "HTTP" for an HTTP request or response line; "" otherwise.
func Sniff(b []byte) string {
	if len(b) >= 3 && b[0] >= 0x14 && b[0] <= 0x17 && b[1] == 3 && b[2] <= 4 {
		return "TLS"
	}
	if len(b) >= 4 {
		switch string(b[:4]) {
		case "GET ", "POST", "PUT ", "HEAD", "HTTP", "DELE", "OPTI", "PATC", "CONN":
			return "HTTP"
		}
	}
	return ""
}

// startScan makes s search for a plausible frame from stream offset off
// (for the Resync report; the bytes already consumed are not kept).
func (c *Conn) startScan(s *stream, off int64) {
	s.state = scanning
	s.scanOff = off
	s.buf = s.buf[:0]
	s.size = 0
}

// scan consumes p while unsynchronised. When it finds a plausible frame it
// switches to inFrame and returns the bytes from that frame on (which the
// caller processes next), else nil. With final (the stream has ended) a
// candidate frame longer than the bytes left is refused rather than waited
// for.
func (c *Conn) scan(s *stream, p []byte, at time.Time, final bool) []byte {
	// The window is buf+p; p is judged in place when buf is empty.
	win, inBuf := p, false
	if len(s.buf) == 0 {
		s.bufOff = s.off
	} else if len(p) > 0 {
		s.buf = append(s.buf, p...)
		win, inBuf = s.buf, true
	} else {
		win, inBuf = s.buf, true
	}
	s.off += int64(len(p))
	for i := 0; i < len(win); i++ {
		v := c.judge(s.dir, win[i:])
		if v == accept {
			// Plausible: it must also decode, once it is all there.
			n := 4 + int(int32(binary.BigEndian.Uint32(win[i:])))
			switch {
			case len(win)-i < n && final:
				v = reject
			case len(win)-i < n:
				v = needMore
			case !c.trial(s, win[i:i+n]):
				v = reject
			}
		}
		switch v {
		case reject:
			continue
		case needMore:
			if final {
				continue
			}
			c.stats.Skipped[s.dir] += int64(i)
			if inBuf {
				n := copy(s.buf, win[i:])
				s.buf = s.buf[:n]
			} else {
				s.buf = append(s.buf[:0], win[i:]...)
			}
			s.bufOff += int64(i)
			return nil
		case accept:
			off := s.bufOff + int64(i)
			c.stats.Skipped[s.dir] += int64(i)
			if skipped := off - s.scanOff; skipped > 0 {
				pr := c.problem(s, Resync, s.scanOff, at)
				pr.Skipped = skipped
				c.report(pr)
			}
			rest := win[i:]
			if inBuf {
				// Move the rest out of buf, which the frame refills.
				s.alt = append(s.alt[:0], rest...)
				rest = s.alt
			}
			s.buf = s.buf[:0]
			s.state, s.off = inFrame, off
			return rest
		}
	}
	c.stats.Skipped[s.dir] += int64(len(win))
	s.buf = s.buf[:0]
	s.bufOff = s.off
	return nil
}

// trial reports whether fr, a candidate frame found by judge, decodes
// whole: a request by its header, a response as the response to the
// pending request with its correlation id.
func (c *Conn) trial(s *stream, fr []byte) bool {
	if s.dir == ClientToServer {
		return c.o.Codec.DecodeRequestInto(&s.arena, fr) == nil
	}
	corr := int32(binary.BigEndian.Uint32(fr[4:]))
	for _, q := range c.pend[c.head:] {
		if q.corr == corr {
			m := c.set.Response(q.key)
			return m != nil && c.o.Codec.DecodeResponseInto(&s.arena, fr, m, q.ver) == nil
		}
	}
	return false
}

type verdict uint8

const (
	reject verdict = iota
	needMore
	accept
)

// judge says whether b starts with a plausible frame of direction d.
func (c *Conn) judge(d Dir, b []byte) verdict {
	if len(b) < 4 {
		return needMore
	}
	size := int64(int32(binary.BigEndian.Uint32(b)))
	if size > int64(c.o.MaxFrame) {
		return reject
	}
	if d == ServerToClient {
		if size < 4 {
			return reject
		}
		if len(b) < 8 {
			return needMore
		}
		corr := int32(binary.BigEndian.Uint32(b[4:]))
		for _, q := range c.pend[c.head:] {
			if q.corr == corr {
				return accept
			}
		}
		return reject
	}
	if size < 10 {
		return reject
	}
	if len(b) < 8 {
		return needMore
	}
	key := int16(binary.BigEndian.Uint16(b[4:]))
	ver := int16(binary.BigEndian.Uint16(b[6:]))
	m := c.set.Request(key)
	if m == nil || !m.ValidVersions.Contains(ver) {
		return reject
	}
	hv := frame.RequestHeaderVersion(m, ver)
	if hv == 0 {
		return accept // header v0: api key, version, correlation id only
	}
	if size < 10 {
		return reject
	}
	if len(b) < 14 {
		return needMore
	}
	n := int64(int16(binary.BigEndian.Uint16(b[12:])))
	if n < -1 || 10+max(n, 0) > size || (hv == 2 && 10+max(n, 0)+1 > size) {
		return reject
	}
	if n > 0 {
		if int64(len(b)) < 14+n {
			return needMore
		}
		if !utf8.Valid(b[14 : 14+n]) {
			return reject
		}
	}
	return accept
}

// whole handles a complete frame fr (size prefix included) at stream
// offset off, whose first and last bytes were seen at start and end. fr
// is not retained.
func (c *Conn) whole(s *stream, fr []byte, off int64, start, end time.Time) {
	c.stats.Frames[s.dir]++
	f := &Frame{Offset: off, Size: len(fr), Start: start, End: end, HeaderVersion: -1}
	if s.dir == ClientToServer {
		c.request(s, fr, f)
	} else {
		c.response(s, fr, f)
	}
}

// decodeTree returns the tree to decode fr into and the bytes to decode:
// a fresh tree over a copy of fr when trees are kept, else the arena.
func (c *Conn) decodeTree(s *stream, fr []byte) (*tree.Tree, []byte) {
	if c.o.KeepTrees {
		return &tree.Tree{}, append([]byte(nil), fr...)
	}
	return &s.arena, fr
}

func (c *Conn) request(s *stream, fr []byte, f *Frame) {
	t, b := c.decodeTree(s, fr)
	err := c.o.Codec.DecodeRequestInto(t, b)
	key := int16(binary.BigEndian.Uint16(fr[4:]))
	ver := int16(binary.BigEndian.Uint16(fr[6:]))
	var corr int32
	if len(fr) >= 12 {
		corr = int32(binary.BigEndian.Uint32(fr[8:]))
	}
	if t.Message != nil {
		f.HeaderVersion = t.HeaderVersion
	}
	clientID := c.clientID(fr, f.HeaderVersion)
	if c.o.KeepTrees {
		f.Tree = t
	}
	if err != nil {
		f.Err = err
		c.decodeFailed(s, f, err, key, ver, corr)
	} else {
		c.recordProblems(s, f, t, key, ver, corr)
	}
	if len(fr) < 12 {
		return
	}
	if err == nil && key == 0 && c.acks != nil {
		if i := t.Lookup(t.Part(tree.Body), c.acks); i >= 0 && t.Nodes[i].Num == 0 {
			x := c.exchange(key, ver, corr, clientID)
			x.Request, x.NoResponse = f, true
			c.report(x)
			return
		}
	}
	if c.Pending() >= c.o.MaxPending {
		c.unanswered(c.head + 1)
	}
	c.pend = append(c.pend, pending{key: key, ver: ver, corr: corr, clientID: clientID, frame: f})
}

// clientID reads the request header's client id (header v1 and v2:
// int16 length, null when negative) from the frame's bytes.
func (c *Conn) clientID(fr []byte, hv int16) string {
	if hv == 0 || len(fr) < 14 {
		return ""
	}
	n := int(int16(binary.BigEndian.Uint16(fr[12:])))
	if n <= 0 || 14+n > len(fr) {
		return ""
	}
	b := fr[14 : 14+n]
	if string(b) != c.lastClient {
		c.lastClient = string(b)
	}
	return c.lastClient
}

func (c *Conn) decodeFailed(s *stream, f *Frame, err error, key, ver int16, corr int32) {
	pr := c.problem(s, DecodeFailed, f.Offset, f.End)
	pr.FrameOffset, pr.Size, pr.Err = f.Offset, int64(f.Size), err
	pr.APIKey, pr.Version, pr.CorrelationID = key, ver, corr
	var we *wire.Error
	if errors.As(err, &we) {
		pr.Offset += int64(we.Offset)
		pr.Path = we.Path
	}
	c.report(pr)
}

// recordProblems reports a Records problem for each problem in the
// records of t, the tree of frame f that decoded, that is not a notice.
func (c *Conn) recordProblems(s *stream, f *Frame, t *tree.Tree, key, ver int16, corr int32) {
	for _, tp := range t.Problems {
		if tp.Notice {
			continue
		}
		pr := c.problem(s, Records, f.Offset+int64(tp.Off), f.End)
		pr.FrameOffset, pr.Size, pr.Path, pr.Err = f.Offset, int64(f.Size), tp.Path, errors.New(tp.String())
		pr.APIKey, pr.Version, pr.CorrelationID = key, ver, corr
		c.report(pr)
	}
}

func (c *Conn) exchange(key, ver int16, corr int32, clientID string) *Exchange {
	x := &Exchange{APIKey: key, Version: ver, CorrelationID: corr, ClientID: clientID}
	if m := c.set.Request(key); m != nil {
		x.API = m.BaseName()
	}
	return x
}

// unanswered reports the pending requests before index k as exchanges
// without a response.
func (c *Conn) unanswered(k int) {
	for ; c.head < k; c.head++ {
		q := &c.pend[c.head]
		x := c.exchange(q.key, q.ver, q.corr, q.clientID)
		x.Request = q.frame
		*q = pending{}
		c.report(x)
	}
	if c.head == len(c.pend) {
		c.pend, c.head = c.pend[:0], 0
	}
}

func (c *Conn) response(s *stream, fr []byte, f *Frame) {
	corr := int32(binary.BigEndian.Uint32(fr[4:]))
	k := -1
	for i := c.head; i < len(c.pend); i++ {
		if c.pend[i].corr == corr {
			k = i
			break
		}
	}
	if k < 0 {
		x := &Exchange{APIKey: -1, Version: -1, CorrelationID: corr, Response: f}
		f.Err = fmt.Errorf("correlation id %d matches no request seen on this connection", corr)
		if c.o.KeepTrees {
			f.Tree = &tree.Tree{Bytes: append([]byte(nil), fr...)}
		}
		c.report(x)
		return
	}
	c.unanswered(k)
	q := c.pend[c.head]
	c.pend[c.head] = pending{}
	c.head++
	if c.head == len(c.pend) {
		c.pend, c.head = c.pend[:0], 0
	}
	x := c.exchange(q.key, q.ver, q.corr, q.clientID)
	x.Request, x.Response = q.frame, f
	m := c.set.Response(q.key)
	if m == nil {
		f.Err = fmt.Errorf("no response spec for api key %d", q.key)
		c.report(x)
		return
	}
	t, b := c.decodeTree(s, fr)
	err := c.o.Codec.DecodeResponseInto(t, b, m, q.ver)
	f.HeaderVersion = t.HeaderVersion
	if c.o.KeepTrees {
		f.Tree = t
	}
	if err != nil {
		f.Err = err
		c.decodeFailed(s, f, err, q.key, q.ver, q.corr)
	} else {
		c.recordProblems(s, f, t, q.key, q.ver, q.corr)
	}
	x.Errors = ErrorCodes(t)
	c.report(x)
}

// ErrorCodes returns the non-zero error codes of a decoded response tree
// (partial trees too): the int16 fields whose spec name ends in ErrorCode,
// in tree order, with their field paths. Decompressed record views are not
// searched. It allocates only when it finds one.
func ErrorCodes(t *tree.Tree) []ErrorCode {
	var out []ErrorCode
	var x *render.Index
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.Kind != tree.Field || n.Wire != tree.WireInt16 || n.Num == 0 || n.Flags&tree.FlagVirtual != 0 {
			continue
		}
		f := t.Field(int32(i))
		if f == nil || !strings.HasSuffix(f.Name, "ErrorCode") {
			continue
		}
		if x == nil {
			x = render.NewIndex(t)
		}
		code := int16(n.Num)
		out = append(out, ErrorCode{Code: code, Name: ErrorName(code), Path: x.Path(int32(i))})
	}
	return out
}

// Gap reports n bytes of direction d that will never arrive (lost from a
// capture, or not handed to the decoder). Within a frame whose size is
// known the stream stays in step and that frame is reported lost (a lost
// request whose header arrived still waits for its response); otherwise
// the stream is searched for the next plausible frame.
func (c *Conn) Gap(d Dir, n int64, at time.Time) {
	if n <= 0 {
		return
	}
	s := &c.s[d&1]
	c.stats.Missing[s.dir] += n
	pr := c.problem(s, Gap, s.off, at)
	pr.Missing = n
	switch s.state {
	case dead, ended:
		s.off += n
		return
	case skipping:
		if n <= s.skip {
			s.skip -= n
			pr.Lost, pr.FrameOffset = true, s.frameOff
			if s.skip == 0 {
				s.state = inFrame
			}
			s.off += n
			c.report(pr)
			return
		}
	case inFrame:
		if len(s.buf) >= 4 {
			if rem := 4 + s.size - int64(len(s.buf)); n <= rem {
				pr.Lost, pr.FrameOffset = true, s.bufOff
				c.report(pr)
				c.lost(s, at)
				s.state, s.skip, s.frameOff = skipping, rem-n, s.bufOff
				if s.skip == 0 {
					s.state = inFrame
				}
				c.release(s)
				s.off += n
				return
			}
		}
	case scanning:
		c.stats.Skipped[s.dir] += int64(len(s.buf))
	}
	c.report(pr)
	s.off += n
	c.startScan(s, s.off)
}

// GapToFrame is Gap for a feeder that knows where frames start (a proxy
// that follows the size prefixes as it forwards): n bytes of direction d
// are missing, and the next byte fed begins a frame. A frame the stream was
// inside is reported lost (a lost request whose header arrived still waits
// for its response), and decoding goes on in step, with no search.
func (c *Conn) GapToFrame(d Dir, n int64, at time.Time) {
	if n < 0 {
		return
	}
	s := &c.s[d&1]
	c.stats.Missing[s.dir] += n
	if s.state == dead || s.state == ended {
		s.off += n
		return
	}
	pr := c.problem(s, Gap, s.off, at)
	pr.Missing = n
	switch {
	case s.state == inFrame && len(s.buf) > 0:
		pr.Lost, pr.FrameOffset = true, s.bufOff
		if len(s.buf) >= 4 {
			c.lost(s, at)
		}
	case s.state == skipping:
		pr.Lost, pr.FrameOffset = true, s.frameOff
	case s.state == scanning:
		c.stats.Skipped[s.dir] += int64(len(s.buf))
	}
	c.release(s)
	s.state, s.skip = inFrame, 0
	s.off += n
	if n > 0 || pr.Lost {
		c.report(pr)
	}
}

// lost records a request frame lost in a gap whose header arrived, so that
// its response is still matched.
func (c *Conn) lost(s *stream, at time.Time) {
	c.stats.Frames[s.dir]++
	if s.dir != ClientToServer || len(s.buf) < 12 {
		return
	}
	fr := s.buf
	key := int16(binary.BigEndian.Uint16(fr[4:]))
	ver := int16(binary.BigEndian.Uint16(fr[6:]))
	corr := int32(binary.BigEndian.Uint32(fr[8:]))
	if c.set.Request(key) == nil {
		return
	}
	f := &Frame{Offset: s.bufOff, Size: 4 + int(s.size), Start: s.start, End: at, HeaderVersion: -1,
		Err: fmt.Errorf("bytes of this frame were lost (%d of %d arrived)", len(fr), 4+s.size)}
	if c.Pending() >= c.o.MaxPending {
		c.unanswered(c.head + 1)
	}
	c.pend = append(c.pend, pending{key: key, ver: ver, corr: corr, clientID: c.clientID(fr, 1), frame: f})
}

// End reports the end of direction d's stream (a FIN, or the end of a
// capture): a frame it was inside is reported Truncated, and bytes that
// were being searched as Garbage. Later data of d is ignored.
func (c *Conn) End(d Dir, at time.Time) {
	s := &c.s[d&1]
	// Judge what is left of a search, refusing candidates longer than it.
	for s.state == scanning && len(s.buf) > 0 {
		rest := c.scan(s, nil, at, true)
		if rest == nil {
			break
		}
		c.data(s, rest, at)
	}
	c.endState(s, at)
}

// endState reports what the stream was inside when it ended, and ends it.
func (c *Conn) endState(s *stream, at time.Time) {
	switch s.state {
	case inFrame:
		if len(s.buf) > 0 {
			pr := c.problem(s, Truncated, s.bufOff, at)
			pr.Have = int64(len(s.buf)) - 4
			pr.Size = s.size
			if len(s.buf) < 4 {
				pr.Size, pr.Have = -1, int64(len(s.buf))
			}
			c.report(pr)
		}
	case skipping:
		pr := c.problem(s, Truncated, s.frameOff, at)
		pr.Size = s.skip + (s.off - s.frameOff - 4)
		pr.Have = s.off - s.frameOff - 4
		c.report(pr)
	case scanning:
		if n := s.off - s.scanOff; n > 0 {
			pr := c.problem(s, Garbage, s.scanOff, at)
			pr.Skipped = n
			c.stats.Skipped[s.dir] += int64(len(s.buf))
			c.report(pr)
		}
	}
	s.state = ended
	s.buf, s.alt, s.arena = nil, nil, tree.Tree{}
}

// Close ends both directions (End) and reports the requests still awaiting
// a response as exchanges without one. The Conn must not be used after.
func (c *Conn) Close(at time.Time) {
	if c.closed {
		return
	}
	c.closed = true
	for d := range c.s {
		if c.s[d].state != ended {
			c.End(Dir(d), at)
		}
	}
	c.unanswered(len(c.pend))
}
