package capture

import (
	"io"
)

// pipeChunk is the most a PipeReader reads from its source at once (bytes).
const pipeChunk = 64 << 10

// PipeReader reads a capture that arrives as it is written, as through a
// pipe from `tcpdump -U -w -`: before each read that would wait for the
// source, it calls Idle (to flush the output of what was read so far), and
// once Stop is closed it ends as the source would at its end (io.EOF). Open
// and Reader read only the bytes the next record needs, so each packet is
// decoded, and its exchanges reported, as soon as its record has arrived.
//
// A PipeReader reads its source from a goroutine of its own, one chunk of up
// to 64 KiB ahead; that goroutine ends at the source's end or error, or
// when Stop is closed. It is for one reader at a time.
type PipeReader struct {
	// Idle, when not nil, is called before waiting for the source.
	Idle func()
	// Stop, when closed, ends the reading: Read returns io.EOF, at once if
	// it was waiting.
	Stop <-chan struct{}

	src     io.Reader
	ch      chan pipeRead
	free    chan []byte
	started bool
	cur     []byte // unread bytes of the chunk being read
	buf     []byte // that chunk's buffer, given back once read
	err     error  // the source's error after cur
}

type pipeRead struct {
	b   []byte
	err error
}

// NewPipeReader returns a PipeReader of src; set Idle and Stop before the
// first Read.
func NewPipeReader(src io.Reader) *PipeReader {
	return &PipeReader{src: src, ch: make(chan pipeRead), free: make(chan []byte, 1)}
}

func (r *PipeReader) pump() {
	for {
		var b []byte
		select {
		case b = <-r.free:
		case <-r.Stop:
			return
		}
		n, err := r.src.Read(b)
		select {
		case r.ch <- pipeRead{b[:n], err}:
		case <-r.Stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read reads what has arrived, up to len(p) bytes, waiting (after calling
// Idle) only when nothing has.
func (r *PipeReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for len(r.cur) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		select {
		case <-r.Stop:
			r.err = io.EOF
			return 0, r.err
		default:
		}
		if !r.started {
			r.started = true
			r.free <- make([]byte, pipeChunk)
			go r.pump()
		}
		var c pipeRead
		select {
		case c = <-r.ch:
		default:
			if r.Idle != nil {
				r.Idle()
			}
			select {
			case c = <-r.ch:
			case <-r.Stop:
				r.err = io.EOF
				return 0, r.err
			}
		}
		r.cur, r.buf, r.err = c.b, c.b[:cap(c.b)], c.err
		if len(r.cur) == 0 && r.err == nil {
			r.free <- r.buf
		}
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	if len(r.cur) == 0 && r.err == nil {
		r.free <- r.buf
	}
	return n, nil
}
