package proxy

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/kwire/kwire/tree"
)

// The APIs whose responses advertise broker addresses.
const (
	keyMetadata        = 3
	keyFindCoordinator = 10
	keyDescribeCluster = 60
)

// reqKey is the api key and version of a request awaiting its response.
type reqKey struct{ key, ver int16 }

// maxTracked bounds the requests remembered for rewriting.
const maxTracked = 1024

// tracker follows the frames of the request stream (on the forwarding
// path: only size prefixes and the first 12 bytes of each frame are looked
// at) and remembers the correlation ids of requests whose responses are
// rewritten.
type tracker struct {
	maxFrame int64
	mu       sync.Mutex
	pending  map[int32]reqKey
	hdr      [12]byte
	nh       int
	rem      int64
	// off is set when the stream is not framed as Kafka: nothing more is
	// tracked.
	off bool
}

// feed looks at the next bytes of the request stream.
func (t *tracker) feed(b []byte) {
	for len(b) > 0 && !t.off {
		if t.rem > 0 {
			k := min(t.rem, int64(len(b)))
			t.rem -= k
			b = b[k:]
			continue
		}
		k := copy(t.hdr[t.nh:], b)
		t.nh += k
		b = b[k:]
		if t.nh < len(t.hdr) {
			return
		}
		t.nh = 0
		size := int64(int32(binary.BigEndian.Uint32(t.hdr[:])))
		if size < 8 || size > t.maxFrame {
			t.off = true
			return
		}
		t.rem = 4 + size - 12
		key := int16(binary.BigEndian.Uint16(t.hdr[4:]))
		if key == keyMetadata || key == keyFindCoordinator || key == keyDescribeCluster {
			ver := int16(binary.BigEndian.Uint16(t.hdr[6:]))
			corr := int32(binary.BigEndian.Uint32(t.hdr[8:]))
			t.mu.Lock()
			if len(t.pending) < maxTracked {
				t.pending[corr] = reqKey{key, ver}
			}
			t.mu.Unlock()
		}
	}
}

// take removes and returns the request with correlation id corr.
func (t *tracker) take(corr int32) (reqKey, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) == 0 {
		return reqKey{}, false
	}
	k, ok := t.pending[corr]
	if ok {
		delete(t.pending, corr)
	}
	return k, ok
}

// rewriter states.
const (
	rwBoundary = iota // at a frame boundary (hdr holds nh bytes of it)
	rwBody            // forwarding rem more bytes of a frame untouched
	rwHold            // collecting a frame to rewrite in fbuf
	rwOff             // not framed as Kafka: forward everything
)

// rewriter forwards the response stream, holding back and rewriting the
// responses tracker marked. Bytes of other responses are forwarded as they
// come, except the 8 bytes of a size prefix and correlation id split
// across reads, which wait for the rest.
type rewriter struct {
	p     *Proxy
	track *tracker
	state int
	hdr   [8]byte
	nh    int
	rem   int64
	fbuf  []byte
	need  int
	req   reqKey
	count int
}

// process forwards b through write, rewriting what must be.
func (r *rewriter) process(b []byte, write func([]byte) error) error {
	start := 0 // start of the bytes of b still to forward as they are
	flush := func(end int) error {
		if end > start {
			if err := write(b[start:end]); err != nil {
				return err
			}
		}
		start = end
		return nil
	}
	for i := 0; i < len(b); {
		switch r.state {
		case rwOff:
			i = len(b)
		case rwBody:
			k := int(min(r.rem, int64(len(b)-i)))
			i += k
			r.rem -= int64(k)
			if r.rem == 0 {
				r.state = rwBoundary
			}
		case rwBoundary:
			if r.nh == 0 && len(b)-i >= 8 {
				r.decide(b[i : i+8])
				if r.state == rwHold {
					if err := flush(i); err != nil {
						return err
					}
				}
				if r.state == rwOff {
					i = len(b)
				}
				continue
			}
			// A size prefix and correlation id split across reads.
			if err := flush(i); err != nil {
				return err
			}
			k := copy(r.hdr[r.nh:], b[i:])
			r.nh += k
			i += k
			start = i
			if r.nh < len(r.hdr) {
				continue
			}
			r.nh = 0
			r.decide(r.hdr[:])
			switch r.state {
			case rwHold:
				r.fbuf = append(r.fbuf[:0], r.hdr[:]...)
			case rwBody:
				r.rem -= 8
				if r.rem == 0 {
					r.state = rwBoundary
				}
				fallthrough
			default:
				if err := write(r.hdr[:]); err != nil {
					return err
				}
			}
		case rwHold:
			k := min(r.need-len(r.fbuf), len(b)-i)
			r.fbuf = append(r.fbuf, b[i:i+k]...)
			i += k
			start = i
			if len(r.fbuf) == r.need {
				out := r.fbuf
				if nb, err := r.rewrite(r.fbuf); err == nil {
					out = nb
					r.count++
				}
				if err := write(out); err != nil {
					return err
				}
				if cap(r.fbuf) > 1<<20 {
					r.fbuf = nil
				}
				r.state = rwBoundary
			}
		}
	}
	return flush(len(b))
}

// decide looks at the first 8 bytes of a response frame (size prefix and
// correlation id) and sets the state: hold it for rewriting, forward it
// (rem = the whole frame), or give up on a stream that is not framed.
func (r *rewriter) decide(h []byte) {
	size := int64(int32(binary.BigEndian.Uint32(h)))
	if size < 4 || size > int64(r.p.o.MaxFrame) {
		r.state = rwOff
		return
	}
	corr := int32(binary.BigEndian.Uint32(h[4:]))
	if k, ok := r.track.take(corr); ok {
		r.state, r.need, r.req = rwHold, 4+int(size), k
		r.fbuf = r.fbuf[:0]
		return
	}
	r.state, r.rem = rwBody, 4+size
}

// rewrite decodes the response fr, sets the Host and Port of every broker
// (or coordinator) to the advertised address, and encodes it again with its
// header, size prefix included.
func (r *rewriter) rewrite(fr []byte) ([]byte, error) {
	c := r.p.o.Codec
	m := c.Set.Response(r.req.key)
	if m == nil {
		return nil, fmt.Errorf("no response spec for api key %d", r.req.key)
	}
	t, err := c.DecodeResponse(fr, m, r.req.ver)
	if err != nil {
		return nil, err
	}
	return rewriteTree(r.p, t)
}

// rewriteTree re-encodes decoded response t with every field named Host
// set to the advertised host and every field named Port to its port.
func rewriteTree(p *Proxy, t *tree.Tree) ([]byte, error) {
	hi, bi := t.Part(tree.Header), t.Part(tree.Body)
	if hi < 0 || bi < 0 {
		return nil, fmt.Errorf("no header or body")
	}
	header, body := t.Sub(hi), t.Sub(bi)
	// Edit the body's value (the decoded frame is left as it is: the first
	// SetString copies the body's bytes).
	for i := range body.Nodes {
		if body.Nodes[i].Kind != tree.Field || body.IsVirtual(int32(i)) {
			continue
		}
		f := body.Field(int32(i))
		if f == nil {
			continue
		}
		var err error
		switch f.Name {
		case "Host":
			err = body.At(int32(i)).SetString(p.advHost)
		case "Port":
			err = body.At(int32(i)).SetInt(int64(p.advPort))
		}
		if err != nil {
			return nil, err
		}
	}
	out, err := p.o.Codec.Encode(t.Message, t.Version, header, body)
	if err != nil {
		return nil, err
	}
	return out.Bytes, nil
}
