package render

import (
	"bufio"
	"encoding/hex"
	"io"
	"strings"
	"unicode/utf8"
)

// A sink is where the views write: a bufio.Writer whose free buffer a
// view appends a row (or a JSON node) to directly, handing it over once
// the buffer runs low. A page of any size thus goes out through one
// fixed buffer of at most 64 KiB, and what is written is never held twice.
type sink struct {
	w *bufio.Writer
	// b is what is being composed: w's AvailableBuffer, appended to. A
	// piece larger than the room left makes append move b to the heap;
	// spill then hands it over all the same.
	b []byte
	// err is the first error from w; the views stop writing once it is set.
	err error
	// borrowed: w is the caller's, which close does not flush.
	borrowed bool
}

const (
	// sinkSize is the largest size of the sink's buffer.
	sinkSize = 64 << 10
	// sinkRoom is the free space spill leaves for the next piece: more
	// than a row or the head of a JSON node needs (long values are written
	// in chunks, see jsonChars and hexChars).
	sinkRoom = 4 << 10
	// chunk is how many bytes of a long value are escaped or hex-encoded
	// between two spills; escaping makes at most 6 bytes of one.
	chunk = 512
)

// newSink returns a sink writing to w, its buffer sized for an output of
// about size bytes (between 2*sinkRoom and sinkSize). A *bufio.Writer
// of at least 2*sinkRoom bytes is written into directly (and close leaves
// flushing it to its owner), rather than through a buffer of its own.
func newSink(w io.Writer, size int) *sink {
	if bw, ok := w.(*bufio.Writer); ok && bw.Size() >= 2*sinkRoom {
		return &sink{w: bw, b: bw.AvailableBuffer(), borrowed: true}
	}
	bw := bufio.NewWriterSize(w, min(max(size, 2*sinkRoom), sinkSize))
	return &sink{w: bw, b: bw.AvailableBuffer()}
}

// spill hands what b holds to w when less than sinkRoom bytes are left
// after it, or when b has outgrown w's buffer.
func (s *sink) spill() {
	if cap(s.b)-len(s.b) >= sinkRoom && cap(s.b) == s.w.Available() {
		return
	}
	s.hand()
}

// hand writes b to w (flushing w when it is nearly full) and starts a new
// b in what is left of w's buffer.
func (s *sink) hand() {
	if len(s.b) > 0 {
		if _, err := s.w.Write(s.b); err != nil && s.err == nil {
			s.err = err
		}
	}
	if s.w.Available() < sinkRoom {
		if err := s.w.Flush(); err != nil && s.err == nil {
			s.err = err
		}
	}
	s.b = s.w.AvailableBuffer()
}

// raw writes p as it is, however long.
func (s *sink) raw(p []byte) {
	s.hand()
	if _, err := s.w.Write(p); err != nil && s.err == nil {
		s.err = err
	}
	s.b = s.w.AvailableBuffer()
	s.spill()
}

// close writes out everything (into w's buffer when it is borrowed) and
// returns the first error.
func (s *sink) close() error {
	s.hand()
	if s.borrowed {
		if s.err == nil {
			// A write error of an earlier Flush of the caller's writer.
			_, s.err = s.w.Write(nil)
		}
		return s.err
	}
	if err := s.w.Flush(); err != nil && s.err == nil {
		s.err = err
	}
	return s.err
}

// spaces pads cells and indents JSON: long enough for most cells of the
// object tree in one piece.
var spaces = strings.Repeat(" ", 256)

// pad appends n spaces.
func (s *sink) pad(n int) {
	for n > len(spaces) {
		s.b = append(s.b, spaces...)
		n -= len(spaces)
	}
	if n > 0 {
		s.b = append(s.b, spaces[:n]...)
	}
}

// jsonChars appends d escaped as in a JSON string (without the quotes; see
// appendJSONChars), chunk by chunk, spilling in between, so that a long
// string never has to fit in the buffer at once.
func (s *sink) jsonChars(d []byte) {
	for len(d) > chunk {
		// Cut before a rune start, so that no valid rune is split (bytes
		// that are not UTF-8 are replaced one by one wherever the cut
		// falls). With no start among the UTFMax bytes up to d[chunk],
		// d[chunk] belongs to no valid rune and the cut can stay there.
		cut := chunk
		for cut > chunk-utf8.UTFMax+1 && !utf8.RuneStart(d[cut]) {
			cut--
		}
		if !utf8.RuneStart(d[cut]) {
			cut = chunk
		}
		s.b = appendJSONChars(s.b, d[:cut])
		d = d[cut:]
		s.spill()
	}
	s.b = appendJSONChars(s.b, d)
}

// hexChars appends the hex of d, chunk by chunk (see jsonChars).
func (s *sink) hexChars(d []byte) {
	for len(d) > chunk {
		s.b = hex.AppendEncode(s.b, d[:chunk])
		d = d[chunk:]
		s.spill()
	}
	s.b = hex.AppendEncode(s.b, d)
}
