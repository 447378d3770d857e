// Package flow decodes the Kafka conversation of one TCP connection: fed the
// bytes of both directions in order (in chunks of any size, with the time
// they were seen), it splits each direction into frames with a
// frame.Splitter (the int32 size prefix of Kafka's length-delimited
// framing), decodes requests by their
// request header (api key, api version, correlation id, client id) and
// responses by the correlation id of a request seen on the same connection
// (the request's api key and version choose the response spec, and
// frame.ResponseHeaderVersion its header version), and reports:
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
// SASL. A Conn follows the connection's SASL authentication: the mechanism
// of its last SaslHandshake request and the user the first auth bytes after
// it show (Exchange.Mechanism, Exchange.User). After a SaslHandshake v0
// request (until its response reports an error) the client's frames that do
// not decode as a Kafka request are raw SASL tokens (an int32 size, then
// the token: no header), each paired with the broker's next frame as a
// Token exchange; frames of any size, empty ones too, are accepted while
// tokens may come. The first client frame that decodes as a request ends
// the token exchange. Kept trees are redacted (package secret) unless
// Options.ShowSecrets. From a SaslHandshake request until authentication
// ends, every client frame that is not a SaslAuthenticate or SaslHandshake
// request that decoded is redacted whole (secret.RedactFrame) and its
// client id is not reported: it may be the credential itself. One that
// does not decode, of an api key other than theirs, is reported with no value of its header (api key -1,
// correlation id 0, a DecodeFailed problem that names neither) and awaits
// no response.
// Authentication ends when the handshake's response reports an error,
// when a SaslAuthenticate response with error NONE ends the mechanism's
// exchange (PLAIN's and OAUTHBEARER's one round, SCRAM's
// server-final-message), when the client sends a request that decodes
// after a SaslAuthenticate response with error NONE (any mechanism), or,
// after a v0 handshake, when the raw token exchange ends.
//
// Internal topics. The records of Kafka's internal topics
// (__consumer_offsets, __transaction_state, __share_group_state,
// __remote_log_metadata) in any request or response — a Fetch of
// __consumer_offsets — have their keys and values decoded by record type
// as kwire log decodes the topics' segments (Topics): the topic named by
// its name, or by a topic id that an earlier response (Metadata) paired
// with its name, on this connection or, with Options.Names, on another.
// The values of the KRaft metadata log's records (__cluster_metadata, or
// topic id 1 in a quorum's Fetch) are decoded as metadata records, their
// credentials redacted with the rest.
//
// Checking the client. With Options.Check each request is judged, as it
// is decoded, by a clientcheck.Conn of the connection (fed every request
// and response, and the SASL tokens' rounds; the Conn says which request's
// correlation id is still in flight), and its findings travel on its
// Exchange (Exchange.Findings).
//
// A Conn is not safe for concurrent use: one goroutine feeds it, and its
// callback runs on that goroutine.
package flow

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kwire/kwire/clientcheck"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/secret"
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
	// With it a request's tree is held until its response arrives (or
	// its frame's bytes, to decode it again then: see HeldTrees).
	KeepTrees bool
	// Reuse, with KeepTrees, recycles an Exchange's trees once the call it
	// is reported to returns: its frames' Tree fields are set to nil, and
	// the trees' node arenas, decompressed views and byte copies go to
	// the pool, whose trees later frames are decoded into, so that
	// decoding allocates little per frame; a tree held awaiting its
	// response is copied out of a large arena to the size it needs. One
	// pool serves every Conn that shares it (a capture's), so what it
	// holds is bounded whatever the number of connections. For a
	// caller that reads the trees only while handling the event; nil: no
	// reuse. Without KeepTrees, each frame is decoded into one of the
	// pool's trees and gives it back once done, so that connections keep
	// no arena between their frames; nil: each direction keeps its own
	// arena of at most 1 MiB.
	Reuse *TreePool
	// Unsynced starts both directions unsynchronised: the first bytes are
	// not taken to be a size prefix but searched for a plausible frame, as
	// for a capture that starts in the middle of a connection.
	Unsynced bool
	// MaxPending bounds the requests awaiting a response; past it the
	// oldest is reported unanswered. 0 means 1024.
	MaxPending int
	// Held bounds the memory of the request trees held awaiting their
	// responses (KeepTrees), shared by the Conns given the same one; nil:
	// each Conn its own, bounded at DefaultMaxHeld.
	Held *HeldTrees
	// ShowSecrets keeps credentials in the trees kept (KeepTrees). By
	// default each kept tree is redacted (secret.Redact, with the
	// connection's SASL mechanism) before it is reported: its secret bytes
	// overwritten, its secret leaves flagged, so that every view of it
	// shows "<redacted, N bytes>".
	ShowSecrets bool
	// Fallback finds the spec set that decodes a request (and its
	// response) whose api key and version Codec's set does not accept (a
	// version the release dropped, or an API it removed): the Exchange
	// says which (Exchange.DecodedWith). nil decodes with Codec alone.
	Fallback Fallback
	// Names, when set, are the topic names by id that this connection
	// shares with others (a proxy's, a capture's: topic ids are the
	// cluster's), learned from every response that pairs them; nil: the
	// connection learns its own. With them the records of Kafka's
	// internal topics are decoded by record type when a request or
	// response names the topic by id (see Topics).
	Names *Names
	// Check judges the client's requests by the rules of package
	// clientcheck (a clientcheck.Conn per connection, fed every request
	// and response): each request's findings are on its Exchange
	// (Exchange.Findings). A request's problem that a finding explains is
	// not reported as a Problem too: the problems in the records of a
	// request (they are record-batch findings) and a decoding error that
	// is a wrong header version or bytes after the body.
	Check bool
	// Touched lists in each Exchange the topics and partitions its
	// request names (Exchange.Topics, see Touched): a walk of every
	// request's tree, so off by default.
	Touched bool
}

// Fallback returns the spec set to decode requests of apiKey at version
// with, when the chosen set does not accept them, or nil when none does.
// It is called at most once per api key and version on a Conn, from the
// feeding goroutine; the Fallbacks of this package are safe for concurrent
// use by many Conns.
type Fallback func(apiKey, version int16) *spec.Set

// EmbeddedFallbacks returns the Fallback that picks, among the embedded
// releases other than set's, the newest that accepts the api key and
// version (spec.NewestEmbeddedWith): with it a capture or a proxy decodes
// every version that any embedded release has, whatever the release
// chosen. Releases are parsed when first needed, and usually only the one
// picked (spec.Embedded keeps them for the process).
func EmbeddedFallbacks(set *spec.Set) Fallback {
	return func(apiKey, version int16) *spec.Set {
		name := ""
		if m := set.Request(apiKey); m != nil {
			name = m.Name
		}
		return spec.NewestEmbeddedWith(apiKey, version, name, set.Release)
	}
}

// FallbackSets returns the Fallback that picks the first of sets that
// accepts the api key and version.
func FallbackSets(sets ...*spec.Set) Fallback {
	return func(apiKey, version int16) *spec.Set {
		for _, s := range sets {
			if accepts(s, apiKey, version) {
				return s
			}
		}
		return nil
	}
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
	// Exchanges and Problems count the events reported; Notices counts
	// the NotHeld problems (a notice of the decoder's limit), which are not
	// counted in Problems.
	Exchanges, Problems, Notices int64
	// Held is the most bytes of one frame each direction held at once:
	// its largest frame delivered whole, or the bytes that arrived of the
	// frame its stream ended inside (size prefix included). A caller may
	// return memory to the system after a connection that held much.
	Held [2]int64
}

// stream is the decoding state of one direction.
type stream struct {
	dir Dir
	// sp splits the direction into frames (and judges candidates while
	// resynchronising).
	sp frame.Splitter
	// start is the time of the first byte of the frame at stream offset
	// startOff (the frame begun last).
	start    time.Time
	startOff int64
	// arena is the reused tree when trees are not kept.
	arena tree.Tree
}

// pending is a request awaiting its response.
type pending struct {
	key, ver int16
	corr     int32
	clientID string
	topics   []TopicPartitions
	software [2]string
	frame    *Frame
	// cd is the codec that decoded the request (a fallback's or the
	// Conn's); the response is decoded with it.
	cd *codec.Codec
	// findings are the request's (Options.Check).
	findings []clientcheck.Finding
	// held is the footprint of the request's tree, or the size of again,
	// counted in the Conn's HeldTrees.
	held int64
	// again is a copy of the request's frame, held in place of its tree
	// and decoded again when the exchange is reported (decodeAgain), or
	// nil; budget is what the decompression budget had left before it
	// was decoded.
	again  []byte
	budget int64
	// hidden is set for a request sent while the connection
	// authenticates (redacted whole, decoded again too).
	hidden bool
	// looked are the topic ids its first decoding looked up, with their
	// names then (Topics.Looked), when it is decoded again.
	looked []TopicID
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
	// sasl is the connection's SASL state.
	sasl saslState
	// saslFields are the spec fields the SASL state is read from.
	mechField, authField, hsErrField *spec.Field
	// authErrField and authRespField are SaslAuthenticateResponse's
	// ErrorCode and AuthBytes.
	authErrField, authRespField *spec.Field
	// software is the client software of the last ApiVersions request
	// (name, version), read with swFields.
	software [2]string
	swFields [2]*spec.Field
	// fallback is the codec Options.Fallback gave for each api key and
	// version asked (nil: none); fallbackCodec the codec of each set.
	fallback      map[[2]int16]*codec.Codec
	fallbackCodec map[*spec.Set]*codec.Codec
	// topics are the topic names by id learned, and the decoding of
	// internal topics' records.
	topics Topics
	// check judges the client's requests (Options.Check), or is nil.
	check *clientcheck.Conn
	// held bounds the trees of pending requests (Options.Held).
	held *HeldTrees
}

// TreePool holds the trees of reported exchanges, and the arenas of
// frames whose trees are not kept, for decoding into again
// (Options.Reuse): at most maxReuse trees, each of at most maxReuseNodes
// nodes, maxReuseBytes bytes and maxReuseBytes of decompressed views
// (about 4.6 MiB), and one arena of at most 48 MiB, so that it holds at
// most about 85 MiB however many connections share it. The zero value is
// empty and ready; it is safe for concurrent use.
type TreePool struct {
	mu   sync.Mutex
	free []*tree.Tree
	// big is one arena too large for free (at most maxBigArena), which
	// a capture's frames, decoded one at a time, take in turn: a
	// connection of large frames does not allocate one each (40 Fetch
	// responses of 7.8 MB took 50% longer).
	big *tree.Tree
}

// maxBigArena bounds TreePool.big: a frame's tree within the decoders'
// bounds (32 MiB of views, 8 MiB of nodes) and its Problems.
const maxBigArena = 48 << 20

// putArena keeps t, an arena (its Bytes not its own), in the pool: in
// free when it is of moderate size, else as big when within maxBigArena.
func (p *TreePool) putArena(t *tree.Tree) {
	t.Bytes = nil
	p.keep(t)
}

// keep keeps t in the pool: in free, its Bytes with it, when it is of
// moderate size, else, without its Bytes, as big when within maxBigArena.
func (p *TreePool) keep(t *tree.Tree) {
	if moderate(t) {
		p.put(t)
		return
	}
	t.Bytes = nil
	if t.Footprint() <= maxBigArena {
		p.mu.Lock()
		p.big = t
		p.mu.Unlock()
	}
}

// getArena takes an arena out of the pool: big first, else one of free;
// nil when it is empty.
func (p *TreePool) getArena() *tree.Tree {
	p.mu.Lock()
	if t := p.big; t != nil {
		p.big = nil
		p.mu.Unlock()
		return t
	}
	p.mu.Unlock()
	return p.get()
}

const (
	maxReuse      = 8
	maxReuseNodes = 1 << 16
	maxReuseBytes = 1 << 20
)

// moderate reports whether t is of a size the pool's free list keeps.
func moderate(t *tree.Tree) bool {
	return cap(t.Nodes) <= maxReuseNodes && cap(t.Bytes) <= maxReuseBytes && cap(t.Virtual) <= maxReuseBytes
}

// put keeps t when the pool has room and t is of moderate size.
func (p *TreePool) put(t *tree.Tree) {
	if !moderate(t) {
		return
	}
	p.mu.Lock()
	if len(p.free) < maxReuse {
		p.free = append(p.free, t)
	}
	p.mu.Unlock()
}

// get takes a tree out of the pool, or returns nil when it is empty.
func (p *TreePool) get() *tree.Tree {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.free)
	if n == 0 {
		return nil
	}
	t := p.free[n-1]
	p.free[n-1] = nil
	p.free = p.free[:n-1]
	return t
}

// Len is the number of trees the pool holds.
func (p *TreePool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.free)
}

// saslState follows a connection's SASL authentication: the mechanism of
// its last SaslHandshake request, the user its first auth bytes showed,
// and the raw token frames after a SaslHandshake v0.
type saslState struct {
	mech, user string
	// raw is set from a SaslHandshake v0 request until its response says
	// it failed, or until the client sends a Kafka request again: the
	// client's frames that are not a Kafka request are raw SASL tokens
	// (an int32 size, then the token; no request header).
	raw bool
	// v0corr is the correlation id of the SaslHandshake v0 request that
	// set raw, awaiting its response.
	v0corr int32
	v0wait bool
	// tokens are the client's raw tokens awaiting the broker's.
	tokens []*Frame
	// first is set once the first auth bytes of the mechanism were seen.
	first bool
	// authing is set from a SaslHandshake request until authentication
	// ends: the handshake's response reports an error, a SaslAuthenticate
	// response with error NONE ends the mechanism's exchange (done), the
	// client sends a request that decodes after a SaslAuthenticate
	// response with error NONE (ok), or, after a v0 handshake, the client
	// sends a Kafka request again. Every other client frame meanwhile
	// that is not a SaslAuthenticate request that decoded is secret
	// whole (secret.RedactFrame).
	authing, ok bool
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
	c := &Conn{o: o, set: o.Codec.Set, emit: emit, topics: Topics{Names: o.Names}, held: o.Held}
	if c.held == nil {
		c.held = &HeldTrees{}
	}
	if o.Check {
		c.check = &clientcheck.Conn{}
	}
	for d := range c.s {
		st := &c.s[d]
		st.dir, st.startOff = Dir(d), -1
		// A size too small for a request header's api key, version and
		// correlation id (8) or a response's correlation id (4) is
		// reported with its first bytes, as one over MaxFrame is.
		st.sp = frame.Splitter{Max: o.MaxFrame, Min: 4, Head: 4, Resync: func(b []byte) frame.Verdict { return c.candidate(st, b) }}
		if st.dir == ClientToServer {
			st.sp.Min = 8
		}
		if o.Unsynced {
			st.sp.Search()
		}
	}
	c.acks = rootField(c.set.Request(0), "Acks")
	c.mechField = rootField(c.set.Request(saslHandshakeKey), "Mechanism")
	c.authField = rootField(c.set.Request(saslAuthenticateKey), "AuthBytes")
	c.hsErrField = rootField(c.set.Response(saslHandshakeKey), "ErrorCode")
	c.authErrField = rootField(c.set.Response(saslAuthenticateKey), "ErrorCode")
	c.authRespField = rootField(c.set.Response(saslAuthenticateKey), "AuthBytes")
	c.swFields = [2]*spec.Field{rootField(c.set.Request(apiVersionsKey), "ClientSoftwareName"), rootField(c.set.Request(apiVersionsKey), "ClientSoftwareVersion")}
	return c
}

// The api keys of SaslHandshake and SaslAuthenticate.
const (
	saslHandshakeKey    = 17
	saslAuthenticateKey = 36
	apiVersionsKey      = 18
)

// rootField is the field of m's body of that name, or nil.
func rootField(m *spec.Message, name string) *spec.Field {
	if m == nil {
		return nil
	}
	for _, f := range m.Root.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Stats returns what the Conn has counted so far.
func (c *Conn) Stats() Stats {
	st := c.stats
	for d := range c.s {
		st.Skipped[d] = c.s[d].sp.Skipped()
	}
	return st
}

// Pending is the number of requests awaiting a response.
func (c *Conn) Pending() int { return len(c.pend) - c.head }

func (c *Conn) report(e Event) {
	switch e := e.(type) {
	case *Exchange:
		c.stats.Exchanges++
	case *Problem:
		if e.Kind == NotHeld {
			c.stats.Notices++
		} else {
			c.stats.Problems++
		}
	}
	if c.emit != nil {
		c.emit(e)
	}
	if x, ok := e.(*Exchange); ok && c.o.Reuse != nil {
		c.recycle(x.Request)
		c.recycle(x.Response)
	}
}

// recycle takes frame f's tree back for decoding into again
// (Options.Reuse).
func (c *Conn) recycle(f *Frame) {
	if f == nil || f.Tree == nil {
		return
	}
	t := f.Tree
	f.Tree = nil
	c.o.Reuse.keep(t)
}

func (c *Conn) problem(s *stream, k Kind, off int64, at time.Time) *Problem {
	return &Problem{Kind: k, Dir: s.dir, Offset: off, Time: at, APIKey: -1, Version: -1}
}

// Data feeds the next bytes p of direction d, seen at time at. p is not
// retained after Data returns.
func (c *Conn) Data(d Dir, p []byte, at time.Time) {
	s := &c.s[d&1]
	c.stats.Bytes[s.dir] += int64(len(p))
	base := s.sp.Offset()
	s.sp.Feed(p)
	c.drain(s, base, at)
}

// drain handles what the splitter finds in the bytes fed from stream
// offset base on, at time at.
func (c *Conn) drain(s *stream, base int64, at time.Time) {
	for {
		ev := s.sp.Next()
		switch ev.Kind {
		case frame.None:
			// A frame begun in these bytes (or in the bytes a search gave
			// back) began at this time.
			if p := s.sp.Pending(); p.State == frame.InFrame && p.Off >= base && p.Off != s.startOff {
				s.start, s.startOff = at, p.Off
			}
			return
		case frame.Whole:
			c.whole(s, ev.Bytes, ev.Off, c.startOf(s, ev.Off, at), at)
		case frame.Head, frame.Negative:
			c.badSize(s, ev, c.startOf(s, ev.Off, at))
		case frame.Resynced:
			s.start, s.startOff = at, ev.Off
			base = min(base, ev.Off)
			if ev.Skipped > 0 {
				pr := c.problem(s, Resync, ev.From, at)
				pr.Skipped = ev.Skipped
				c.report(pr)
			}
		}
	}
}

// startOf is the time of the first byte of the frame at stream offset off,
// which began either in the bytes seen at time at or before them, as the
// frame begun last.
func (c *Conn) startOf(s *stream, off int64, at time.Time) time.Time {
	if off == s.startOff {
		return s.start
	}
	return at
}

// badSize reports a frame the splitter did not deliver whole, from its
// size prefix (ev.Bytes) at ev.Off, whose first byte was seen at time at:
// bytes of another protocol (the direction is no longer decoded), a size
// over the limit or too small for a header (the splitter skips the frame)
// or a negative size (the splitter searches for a plausible frame).
func (c *Conn) badSize(s *stream, ev frame.Event, at time.Time) {
	off, size := ev.Off, ev.Size
	c.stats.Frames[s.dir]++
	if proto := frame.Sniff(ev.Bytes); proto != "" {
		pr := c.problem(s, NotKafka, off, at)
		pr.Size, pr.Limit, pr.Protocol = size, c.o.MaxFrame, proto
		c.stats.NotKafka[s.dir] = proto
		s.sp.Stop()
		c.report(pr)
		return
	}
	switch {
	case ev.Kind == frame.Negative:
		pr := c.problem(s, NegativeSize, off, at)
		pr.Size = size
		c.report(pr)
	case size > int64(c.o.MaxFrame):
		pr := c.problem(s, FrameTooLarge, off, at)
		pr.Size, pr.Limit = size, c.o.MaxFrame
		c.report(pr)
	default:
		// Too small to hold a header: the size is trusted, the frame
		// skipped.
		pr := c.problem(s, DecodeFailed, off, at)
		pr.Size, pr.FrameOffset = size+4, off
		pr.Err = fmt.Errorf("frame size %d is too small for a %s header", size, side(s.dir))
		c.report(pr)
	}
}

func side(d Dir) string {
	if d == ClientToServer {
		return "request"
	}
	return "response"
}

// candidate is the splitter's Resync hook: whether b, the bytes from a
// candidate offset on, starts with a plausible frame that decodes whole
// (NeedMore until it has all arrived).
func (c *Conn) candidate(s *stream, b []byte) frame.Verdict {
	v := c.judge(s.dir, b)
	if v != frame.Accept {
		return v
	}
	size, _ := frame.Size(b)
	n := 4 + int(size)
	switch {
	case len(b) < n:
		return frame.NeedMore
	case !c.trial(s, b[:n]):
		return frame.Reject
	}
	return frame.Accept
}

// trial reports whether fr, a candidate frame found by judge, decodes
// whole: a request by its header, a response as the response to the
// pending request with its correlation id.
func (c *Conn) trial(s *stream, fr []byte) bool {
	c.takeArena(s)
	defer c.doneArena(s)
	if s.dir == ClientToServer {
		cd := c.o.Codec
		if key, ver, ok := frame.RequestAPI(fr); ok {
			cd = c.codecFor(key, ver)
		}
		return cd.DecodeRequestInto(&s.arena, fr) == nil
	}
	corr, _ := frame.ResponseCorrelationID(fr)
	for _, q := range c.pend[c.head:] {
		if q.corr == corr {
			cd := q.cd
			if cd == nil {
				cd = c.o.Codec
			}
			m := cd.Set.Response(q.key)
			return m != nil && cd.DecodeResponseInto(&s.arena, fr, m, q.ver) == nil
		}
	}
	return false
}

// judge says whether b starts with a plausible frame of direction d, from
// its size prefix and header: for a response, a size of at least 4 and a
// correlation id awaited; for a request, a size within MaxFrame and a
// header that frame.Recognize takes for a Kafka request's (a size of at
// least 10, an api key of the spec set at a valid version, a correlation id
// that is not negative, a client id that fits the frame and is printable
// UTF-8).
func (c *Conn) judge(d Dir, b []byte) frame.Verdict {
	size32, ok := frame.Size(b)
	if !ok {
		return frame.NeedMore
	}
	size := int64(size32)
	if size > int64(c.o.MaxFrame) {
		return frame.Reject
	}
	if d == ServerToClient {
		if size < 4 {
			return frame.Reject
		}
		corr, ok := frame.ResponseCorrelationID(b)
		if !ok {
			return frame.NeedMore
		}
		for _, q := range c.pend[c.head:] {
			if q.corr == corr {
				return frame.Accept
			}
		}
		return frame.Reject
	}
	// A request: what frame.Recognize says of a stream's first bytes.
	switch r := frame.Recognize(c.set, b); {
	case r.Protocol == frame.KafkaRequest:
		return frame.Accept
	case r.More:
		return frame.NeedMore
	}
	return frame.Reject
}

// whole handles a complete frame fr (size prefix included) at stream
// offset off, whose first and last bytes were seen at start and end. fr
// is not retained.
func (c *Conn) whole(s *stream, fr []byte, off int64, start, end time.Time) {
	c.stats.Frames[s.dir]++
	c.stats.Held[s.dir] = max(c.stats.Held[s.dir], int64(len(fr)))
	f := &Frame{Offset: off, Size: len(fr), Start: start, End: end, HeaderVersion: -1}
	switch {
	case s.dir == ClientToServer && c.sasl.raw && !(c.judge(s.dir, fr) == frame.Accept && c.trial(s, fr)):
		c.clientToken(f, fr)
	case s.dir == ServerToClient && len(c.sasl.tokens) > 0 && !c.handshakeV0Response(fr):
		c.serverToken(f, fr)
	case s.dir == ClientToServer:
		if c.sasl.raw {
			// A Kafka request ends the raw token exchange.
			c.sasl.raw, c.sasl.authing = false, false
		}
		c.request(s, fr, f)
	default:
		c.response(s, fr, f)
	}
	c.tokenSizes()
}

// handshakeV0Response reports whether fr, a frame of the broker, is the
// response to the SaslHandshake v0 request awaiting one (a client that
// sends its first token at once may be fed before it).
func (c *Conn) handshakeV0Response(fr []byte) bool {
	corr, ok := frame.ResponseCorrelationID(fr)
	return ok && c.sasl.v0wait && corr == c.sasl.v0corr
}

// tokenSizes lets frames of any size through while raw SASL tokens may
// come (an empty token is a size of 0), and restores the header minimum
// after.
func (c *Conn) tokenSizes() {
	raw := c.sasl.raw || len(c.sasl.tokens) > 0
	for d := range c.s {
		st := &c.s[d]
		switch {
		case raw:
			st.sp.Min = 0
		case st.dir == ClientToServer:
			st.sp.Min = 8
		default:
			st.sp.Min = 4
		}
	}
}

// clientToken records a raw SASL token of the client (after a
// SaslHandshake v0), to be paired with the broker's answer.
func (c *Conn) clientToken(f *Frame, fr []byte) {
	tok := fr[4:]
	if !c.sasl.first {
		c.sasl.first = true
		c.sasl.user = secret.SASLUser(c.sasl.mech, tok)
	}
	if len(c.sasl.tokens) >= c.o.MaxPending {
		x := c.tokenExchange()
		x.Request = c.sasl.tokens[0]
		c.sasl.tokens = c.sasl.tokens[1:]
		c.report(x)
	}
	c.sasl.tokens = append(c.sasl.tokens, f)
}

// serverToken pairs the broker's raw SASL token with the client's oldest.
func (c *Conn) serverToken(f *Frame, fr []byte) {
	x := c.tokenExchange()
	x.Request, x.Response = c.sasl.tokens[0], f
	if c.check != nil {
		c.check.Token()
	}
	c.sasl.tokens[0] = nil
	c.sasl.tokens = c.sasl.tokens[1:]
	c.report(x)
}

func (c *Conn) tokenExchange() *Exchange {
	return &Exchange{APIKey: -1, Version: -1, Token: true, Mechanism: c.sasl.mech, User: c.sasl.user}
}

// saslRequest follows a SaslHandshake or SaslAuthenticate request that
// decoded into t.
func (c *Conn) saslRequest(t *tree.Tree, key, ver int16, corr int32) {
	body := t.Part(tree.Body)
	if body < 0 {
		return
	}
	switch key {
	case saslHandshakeKey:
		if i := t.Lookup(body, c.mechField); i >= 0 {
			c.sasl = saslState{mech: string(t.Data(i))}
		}
		c.sasl.authing, c.sasl.ok = true, false
		if ver == 0 {
			c.sasl.raw, c.sasl.v0corr, c.sasl.v0wait = true, corr, true
		}
	case saslAuthenticateKey:
		if i := t.Lookup(body, c.authField); i >= 0 && !c.sasl.first {
			c.sasl.first = true
			c.sasl.user = secret.SASLUser(c.sasl.mech, t.Data(i))
		}
	}
}

// authFrame reports whether a client frame of api key key, which decoded
// with error err, is secret whole: it was sent while the connection
// authenticates and is not a SaslAuthenticate or SaslHandshake request
// that decoded. A request that decodes after a SaslAuthenticate response
// with error NONE ends authentication and is not.
func (c *Conn) authFrame(key int16, err error) bool {
	if !c.sasl.authing {
		return false
	}
	if err == nil && (key == saslAuthenticateKey || key == saslHandshakeKey) {
		return false
	}
	if err == nil && c.sasl.ok {
		c.sasl.authing = false
		return false
	}
	return true
}

// saslResponse follows a SaslHandshake or SaslAuthenticate response that
// decoded into t while the connection authenticates: a handshake's error
// ends authentication (none follows), as does a SaslAuthenticate answered
// with error NONE whose auth bytes end the mechanism's exchange
// (mechanismDone).
func (c *Conn) saslResponse(t *tree.Tree, key int16) {
	body := t.Part(tree.Body)
	if body < 0 {
		return
	}
	switch key {
	case saslHandshakeKey:
		if i := t.Lookup(body, c.hsErrField); i >= 0 && t.Num(i) != 0 {
			c.sasl.authing = false
		}
	case saslAuthenticateKey:
		i := t.Lookup(body, c.authErrField)
		if i < 0 || t.Num(i) != 0 {
			return
		}
		c.sasl.ok = true
		var auth []byte
		if j := t.Lookup(body, c.authRespField); j >= 0 {
			auth = t.Data(j)
		}
		if mechanismDone(c.sasl.mech, auth) {
			c.sasl.authing = false
		}
	}
}

// mechanismDone reports whether a SaslAuthenticate response with error
// NONE and auth bytes b ends the exchange of mechanism mech: PLAIN's and
// OAUTHBEARER's one round, SCRAM's server-final-message ("v=", the server
// signature). Of other mechanisms (GSSAPI's rounds) it is not known: the
// client's next request that decodes ends it (authFrame).
func mechanismDone(mech string, b []byte) bool {
	switch {
	case mech == "PLAIN", mech == "OAUTHBEARER":
		return true
	case strings.HasPrefix(mech, "SCRAM-"):
		return strings.HasPrefix(string(b), "v=")
	}
	return false
}

// clientSoftware notes the client software that ApiVersions request t
// names (version 3 on: an older one has no such fields and leaves what
// is known).
func (c *Conn) clientSoftware(t *tree.Tree) {
	body := t.Part(tree.Body)
	if body < 0 {
		return
	}
	for k, f := range c.swFields {
		if i := t.Lookup(body, f); i >= 0 && string(t.Data(i)) != c.software[k] {
			c.software[k] = string(t.Data(i))
		}
	}
}

// redact redacts a kept tree unless secrets are shown.
func (c *Conn) redact(t *tree.Tree) {
	if c.o.KeepTrees && !c.o.ShowSecrets {
		secret.Redact(t, secret.Options{Mechanism: c.sasl.mech})
	}
}

// maxArena is the most memory (tree.Tree.Footprint, the frame's bytes
// not counted) a direction's arena keeps between frames without a
// TreePool: a larger one is dropped once its frame is done, so that an
// idle connection holds no large frame's tree (50 open connections that
// each had sent a 1.1 KB request decompressing to 4 MiB held 243 MiB).
const maxArena = 1 << 20

// doneArena ends the use of direction s's arena for a frame: with a
// TreePool (Options.Reuse) the arena goes to the pool, which many
// connections share (1000 connections keeping an arena of 1 MiB each
// held 1 GiB); without one it is kept unless it holds more than
// maxArena. The frame it points to is let go in any case.
func (c *Conn) doneArena(s *stream) {
	s.arena.Bytes = nil
	switch {
	case c.o.Reuse != nil:
		if cap(s.arena.Nodes) > 0 {
			t := new(tree.Tree)
			*t = s.arena
			c.o.Reuse.putArena(t)
		}
		s.arena = tree.Tree{}
	case s.arena.Footprint() > maxArena:
		s.arena = tree.Tree{}
	}
}

// takeArena readies direction s's arena for a frame: one of the pool's
// trees when it has none of its own.
func (c *Conn) takeArena(s *stream) {
	if cap(s.arena.Nodes) == 0 && c.o.Reuse != nil {
		if t := c.o.Reuse.getArena(); t != nil {
			s.arena = *t
			s.arena.Bytes = nil
		}
	}
}

// decodeTree returns the tree to decode fr into and the bytes to decode:
// a fresh (or recycled) tree over a copy of fr when trees are kept, else
// the arena.
func (c *Conn) decodeTree(s *stream, fr []byte) (*tree.Tree, []byte) {
	if !c.o.KeepTrees {
		c.takeArena(s)
		return &s.arena, fr
	}
	if c.o.Reuse != nil {
		if t := c.o.Reuse.getArena(); t != nil {
			return t, append(t.Bytes[:0], fr...)
		}
	}
	return &tree.Tree{}, append([]byte(nil), fr...)
}

// decodeOptions are the options frames are decoded with by cd: the
// records of internal topics decoded (Topics), and the tree an arena
// (codec.DecodeOptions.Arena) when it is one of a direction or of the
// TreePool, whose decompressed views' array serves the next frame.
func (c *Conn) decodeOptions(cd *codec.Codec) codec.DecodeOptions {
	o := c.topics.Options(cd)
	o.Arena = c.arena()
	return o
}

// arena says whether the trees decoded are arenas (decodeOptions).
func (c *Conn) arena() bool { return !c.o.KeepTrees || c.o.Reuse != nil }

// codecFor is the codec that decodes requests of api key at version ver:
// the Conn's when its set accepts them (or no fallback does), else the
// codec of the set Options.Fallback picks.
func (c *Conn) codecFor(key, ver int16) *codec.Codec {
	if accepts(c.set, key, ver) || c.o.Fallback == nil {
		return c.o.Codec
	}
	k := [2]int16{key, ver}
	fc, asked := c.fallback[k]
	if !asked {
		if fs := c.o.Fallback(key, ver); fs != nil {
			if fc = c.fallbackCodec[fs]; fc == nil {
				fc = codec.New(fs)
				fc.MaxFrame, fc.Strict, fc.Records = c.o.Codec.MaxFrame, c.o.Codec.Strict, c.o.Codec.Records
				if c.fallbackCodec == nil {
					c.fallbackCodec = map[*spec.Set]*codec.Codec{}
				}
				c.fallbackCodec[fs] = fc
			}
		}
		if c.fallback == nil {
			c.fallback = map[[2]int16]*codec.Codec{}
		}
		c.fallback[k] = fc
	}
	if fc == nil {
		return c.o.Codec
	}
	return fc
}

// accepts reports whether set has a request of api key with version ver.
func accepts(set *spec.Set, key, ver int16) bool {
	m := set.Request(key)
	return m != nil && m.ValidVersions.Contains(ver)
}

func (c *Conn) request(s *stream, fr []byte, f *Frame) {
	defer c.doneArena(s)
	t, b := c.decodeTree(s, fr)
	key, ver, _ := frame.RequestAPI(fr)
	cd := c.o.Codec
	if len(fr) >= 8 {
		cd = c.codecFor(key, ver)
	}
	budget := cd.Records.Budget.Left()
	c.topics.Looked() // forgets those of the frames before
	err := cd.DecodeRequestWith(t, b, c.decodeOptions(cd))
	looked := c.topics.Looked()
	corr, _ := frame.RequestCorrelationID(fr)
	if t.Message != nil {
		f.HeaderVersion = t.HeaderVersion
	}
	hidden := c.authFrame(key, err)
	clientID := ""
	if !hidden {
		clientID = c.clientID(fr, f.HeaderVersion)
	}
	if c.o.KeepTrees {
		f.Tree = t
	}
	if hidden && err != nil && !c.o.ShowSecrets && key != saslAuthenticateKey && key != saslHandshakeKey {
		// A SaslAuthenticate or SaslHandshake that does not decode keeps
		// its header's values (api key, version, correlation id).
		c.opaqueAuthFrame(s, f, t)
		return
	}
	var findings []clientcheck.Finding
	if c.check != nil && len(fr) >= 12 {
		findings = c.check.Request(clientcheck.Request{Tree: t, Err: err, Frame: b, Codec: cd, InFlight: c.inFlight(corr)})
	}
	if err != nil {
		f.Err = err
		if !clientcheck.Explains(findings) {
			c.decodeFailed(s, f, err, key, ver, corr)
		}
	} else {
		if c.check == nil {
			c.recordProblems(s, f, t, key, ver, corr)
		}
		if key == saslHandshakeKey || key == saslAuthenticateKey {
			c.saslRequest(t, key, ver, corr)
		}
		if key == apiVersionsKey {
			c.clientSoftware(t)
		}
	}
	var topics []TopicPartitions
	if err == nil && c.o.Touched && !hidden {
		topics = Touched(t, c.topics.names())
	}
	c.redact(t)
	if hidden && c.o.KeepTrees {
		secret.RedactFrame(t, secret.Options{Show: c.o.ShowSecrets})
	}
	if len(fr) < 12 {
		return
	}
	if err == nil && key == 0 && c.acks != nil {
		if i := t.Lookup(t.Part(tree.Body), c.acks); i >= 0 && t.Num(i) == 0 {
			x := c.exchange(cd, key, ver, corr, clientID)
			x.Request, x.NoResponse, x.Findings, x.Topics = f, true, findings, topics
			c.report(x)
			return
		}
	}
	if c.Pending() >= c.o.MaxPending {
		c.unanswered(c.head + 1)
	}
	again := key != saslAuthenticateKey && key != saslHandshakeKey
	held, b := c.hold(s, f, fr, key, ver, corr, again)
	c.pend = append(c.pend, pending{key: key, ver: ver, corr: corr, clientID: clientID, topics: topics, software: c.software, frame: f, cd: cd, findings: findings, held: held, again: b, budget: budget, hidden: hidden})
	if b != nil && len(looked) > 0 {
		c.pend[len(c.pend)-1].looked = slices.Clone(looked)
	}
}

// errAuthFrame is the error of a client frame sent while the connection
// authenticates that does not decode as a request.
var errAuthFrame = errors.New("sent while the connection authenticates, the frame does not decode as a request; it is redacted whole, its header too")

// opaqueAuthFrame reports frame f, whose tree t did not decode, sent while
// the connection authenticates: its header may be the credential itself
// (a token sent where a request was expected), so no value of it is
// reported — not its api key, version or correlation id, nor the codec's
// error, which names them — and it awaits no response. It is reported
// as a DecodeFailed problem and an Exchange of api key -1 with no
// response.
func (c *Conn) opaqueAuthFrame(s *stream, f *Frame, t *tree.Tree) {
	f.Err = errAuthFrame
	if c.o.KeepTrees {
		secret.RedactFrame(t, secret.Options{})
	}
	pr := c.problem(s, DecodeFailed, f.Offset, f.End)
	pr.FrameOffset, pr.Size, pr.Err = f.Offset, int64(f.Size), errAuthFrame
	c.report(pr)
	x := &Exchange{APIKey: -1, Version: -1, Request: f, Mechanism: c.sasl.mech, User: c.sasl.user,
		ClientSoftwareName: c.software[0], ClientSoftwareVersion: c.software[1]}
	c.report(x)
}

// inFlight reports whether a request with correlation id corr awaits its
// response.
func (c *Conn) inFlight(corr int32) bool {
	for i := c.head; i < len(c.pend); i++ {
		if c.pend[i].corr == corr {
			return true
		}
	}
	return false
}

// clientID reads the request header's client id (header v1 and v2 both
// start with v1's fields) from the frame's bytes: "" when null, empty, or
// not all there.
func (c *Conn) clientID(fr []byte, hv int16) string {
	if hv == 0 {
		return ""
	}
	h, err := frame.ParseRequestHeader(fr, 1)
	if err != nil || len(h.ClientID) == 0 {
		return ""
	}
	if string(h.ClientID) != c.lastClient {
		c.lastClient = string(h.ClientID)
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

// exchange starts the Exchange of a request decoded with cd (nil: the
// Conn's codec).
func (c *Conn) exchange(cd *codec.Codec, key, ver int16, corr int32, clientID string) *Exchange {
	x := &Exchange{APIKey: key, Version: ver, CorrelationID: corr, ClientID: clientID,
		ClientSoftwareName: c.software[0], ClientSoftwareVersion: c.software[1]}
	set := c.set
	if cd != nil && cd != c.o.Codec {
		set = cd.Set
		x.DecodedWith = set.Release
	}
	if m := set.Request(key); m != nil {
		x.API = m.BaseName()
	}
	switch key {
	case saslHandshakeKey:
		x.Mechanism = c.sasl.mech
	case saslAuthenticateKey:
		x.Mechanism, x.User = c.sasl.mech, c.sasl.user
	}
	return x
}

// unanswered reports the pending requests before index k as exchanges
// without a response.
func (c *Conn) unanswered(k int) {
	for ; c.head < k; c.head++ {
		q := &c.pend[c.head]
		c.decodeAgain(q)
		x := c.exchange(q.cd, q.key, q.ver, q.corr, q.clientID)
		x.Request, x.Findings, x.Topics = q.frame, q.findings, q.topics
		x.ClientSoftwareName, x.ClientSoftwareVersion = q.software[0], q.software[1]
		c.held.give(q.held)
		*q = pending{}
		c.report(x)
	}
	if c.head == len(c.pend) {
		c.pend, c.head = c.pend[:0], 0
	}
}

func (c *Conn) response(s *stream, fr []byte, f *Frame) {
	corr, _ := frame.ResponseCorrelationID(fr)
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
			if !c.o.ShowSecrets {
				secret.RedactUnattributed(f.Tree)
			}
		}
		c.report(x)
		return
	}
	c.unanswered(k)
	c.decodeAgain(&c.pend[c.head])
	q := c.pend[c.head]
	c.held.give(q.held)
	c.pend[c.head] = pending{}
	c.head++
	if c.head == len(c.pend) {
		c.pend, c.head = c.pend[:0], 0
	}
	x := c.exchange(q.cd, q.key, q.ver, q.corr, q.clientID)
	x.Request, x.Response, x.Findings, x.Topics = q.frame, f, q.findings, q.topics
	x.ClientSoftwareName, x.ClientSoftwareVersion = q.software[0], q.software[1]
	cd := q.cd
	if cd == nil {
		cd = c.o.Codec
	}
	m := cd.Set.Response(q.key)
	if m == nil {
		f.Err = fmt.Errorf("no response spec for api key %d", q.key)
		c.report(x)
		return
	}
	defer c.doneArena(s)
	t, b := c.decodeTree(s, fr)
	err := cd.DecodeResponseWith(t, b, m, q.ver, c.decodeOptions(cd))
	f.HeaderVersion = t.HeaderVersion
	if c.o.KeepTrees {
		f.Tree = t
	}
	if err != nil {
		f.Err = err
		c.decodeFailed(s, f, err, q.key, q.ver, q.corr)
	} else {
		c.recordProblems(s, f, t, q.key, q.ver, q.corr)
		c.topics.Learn(t)
	}
	if c.check != nil {
		c.check.Response(t, q.key, err)
	}
	if q.key == saslHandshakeKey && c.sasl.v0wait && q.corr == c.sasl.v0corr {
		// A v0 handshake that failed is followed by no tokens.
		c.sasl.v0wait = false
		if b := t.Part(tree.Body); err != nil || b < 0 || t.Lookup(b, c.hsErrField) < 0 || t.Num(t.Lookup(b, c.hsErrField)) != 0 {
			c.sasl.raw = false
		}
	}
	if c.sasl.authing && err == nil {
		c.saslResponse(t, q.key)
	}
	c.redact(t)
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
		if n.Kind() != tree.Field || n.Flags()&tree.FlagVirtual != 0 || n.Wire() != tree.WireInt16 || t.Num(int32(i)) == 0 {
			continue
		}
		f := t.Field(int32(i))
		if f == nil || !strings.HasSuffix(f.Name, "ErrorCode") {
			continue
		}
		if x == nil {
			x = render.NewIndex(t)
		}
		code := int16(t.Num(int32(i)))
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
	if c.check != nil {
		c.check.Lost()
	}
	if st := s.sp.State(); st == frame.Stopped || st == frame.Ended {
		s.sp.Gap(n)
		return
	}
	pr := c.problem(s, Gap, s.sp.Offset(), at)
	pr.Missing = n
	g := s.sp.Gap(n)
	if g.InStep {
		pr.Lost, pr.FrameOffset = true, g.FrameOff
	}
	c.report(pr)
	if g.InStep && g.Bytes != nil {
		c.lost(s, g, at)
	}
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
	if c.check != nil && n > 0 {
		c.check.Lost()
	}
	if st := s.sp.State(); st == frame.Stopped || st == frame.Ended {
		s.sp.GapToFrame(n)
		return
	}
	pr := c.problem(s, Gap, s.sp.Offset(), at)
	pr.Missing = n
	g := s.sp.GapToFrame(n)
	if g.Lost {
		pr.Lost, pr.FrameOffset = true, g.FrameOff
		if len(g.Bytes) >= 4 {
			c.lost(s, g, at)
		}
	}
	if n > 0 || pr.Lost {
		c.report(pr)
	}
}

// lost records a frame lost in a gap, of which g.Bytes arrived: a request
// whose header arrived is kept so that its response is still matched.
func (c *Conn) lost(s *stream, g frame.Gapped, at time.Time) {
	c.stats.Frames[s.dir]++
	fr := g.Bytes
	key, ver, _ := frame.RequestAPI(fr)
	corr, ok := frame.RequestCorrelationID(fr)
	if s.dir != ClientToServer || !ok || c.set.Request(key) == nil {
		return
	}
	f := &Frame{Offset: g.FrameOff, Size: 4 + int(g.Size), Start: c.startOf(s, g.FrameOff, at), End: at, HeaderVersion: -1,
		Err: fmt.Errorf("bytes of this frame were lost (%d of %d arrived)", g.Have, 4+g.Size)}
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
	if s.sp.State() == frame.Ended {
		return
	}
	// Judge what is left of a search, refusing candidates longer than it.
	base := s.sp.Offset()
	s.sp.End()
	c.drain(s, base, at)
	p := s.sp.Close()
	switch p.State {
	case frame.InFrame:
		if p.Off >= 0 {
			if p.Size >= 0 {
				c.stats.Held[s.dir] = max(c.stats.Held[s.dir], 4+p.Have)
			}
			pr := c.problem(s, Truncated, p.Off, at)
			pr.Size, pr.Have = p.Size, p.Have
			c.report(pr)
		}
	case frame.Skipping:
		pr := c.problem(s, Truncated, p.Off, at)
		pr.Size, pr.Have = p.Size, p.Have
		c.report(pr)
	case frame.Scanning:
		if p.Have > 0 {
			pr := c.problem(s, Garbage, p.Off, at)
			pr.Skipped = p.Have
			c.report(pr)
		}
	}
	s.arena = tree.Tree{}
}

// Close ends both directions (End) and reports the requests still awaiting
// a response as exchanges without one. The Conn must not be used after.
func (c *Conn) Close(at time.Time) {
	if c.closed {
		return
	}
	c.closed = true
	for d := range c.s {
		c.End(Dir(d), at)
	}
	c.unanswered(len(c.pend))
	for _, f := range c.sasl.tokens {
		x := c.tokenExchange()
		x.Request = f
		c.report(x)
	}
	c.sasl.tokens = nil
}
