package proxy

import (
	"fmt"
	"sync"

	"github.com/kwire/kwire/frame"
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
// path: only the first 12 bytes of each frame are looked at) and remembers
// the correlation ids of requests whose responses are rewritten.
type tracker struct {
	maxFrame int64
	mu       sync.Mutex
	pending  map[int32]reqKey
	// sp follows the frames, buffering none (Max < 0); it stops on a
	// stream that is not framed as Kafka: nothing more is tracked.
	sp frame.Splitter
}

func newTracker(maxFrame int) *tracker {
	return &tracker{maxFrame: int64(maxFrame), pending: map[int32]reqKey{}, sp: frame.Splitter{Max: -1, Head: 12}}
}

// feed looks at the next bytes of the request stream.
func (t *tracker) feed(b []byte) {
	t.sp.Feed(b)
	for ev := t.sp.Next(); ev.Kind != frame.None; ev = t.sp.Next() {
		if ev.Kind != frame.Head || ev.Size < 8 || ev.Size > t.maxFrame {
			t.sp.Stop()
			continue
		}
		key, ver, _ := frame.RequestAPI(ev.Bytes)
		if key == keyMetadata || key == keyFindCoordinator || key == keyDescribeCluster {
			corr, _ := frame.RequestCorrelationID(ev.Bytes)
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

// rewriter forwards the response stream, holding back and rewriting the
// responses tracker marked. Bytes of other responses are forwarded as they
// come, except the first 8 bytes of a frame (size prefix and correlation
// id) split across reads, which wait for the rest.
type rewriter struct {
	p     *Proxy
	track *tracker
	// sp follows the frames by their first 8 bytes (Max < 0), buffering
	// only the frames taken for rewriting; it stops on a stream that is
	// not framed as Kafka: everything is forwarded.
	sp    frame.Splitter
	req   reqKey
	count int
}

func newRewriter(p *Proxy, t *tracker) *rewriter {
	return &rewriter{p: p, track: t, sp: frame.Splitter{Max: -1, Head: 8}}
}

// process forwards b through write, rewriting what must be.
func (r *rewriter) process(b []byte, write func([]byte) error) error {
	base := r.sp.Offset()
	start := 0 // b[:start] is forwarded, or held by the splitter
	flush := func(end int) error {
		if end > start {
			if err := write(b[start:end]); err != nil {
				return err
			}
			start = end
		}
		return nil
	}
	// held is the part of ev's bytes that came in earlier reads and was
	// held back.
	held := func(ev frame.Event) []byte {
		return ev.Bytes[:min(int64(len(ev.Bytes)), max(0, base-ev.Off))]
	}
	r.sp.Feed(b)
	for {
		ev := r.sp.Next()
		switch ev.Kind {
		case frame.None:
			// Hold back the first bytes of a frame not yet judged and a
			// frame taken for rewriting.
			end := len(b)
			if p := r.sp.Pending(); p.State == frame.InFrame && p.Off >= 0 {
				end = int(max(0, p.Off-base))
			}
			return flush(end)
		case frame.Negative:
			if err := write(held(ev)); err != nil {
				return err
			}
		case frame.Head:
			corr, _ := frame.ResponseCorrelationID(ev.Bytes)
			if ev.Size < 4 || ev.Size > int64(r.p.o.MaxFrame) {
				r.sp.Stop()
			} else if k, ok := r.track.take(corr); ok {
				r.req = k
				r.sp.Take()
				if err := flush(int(max(0, ev.Off-base))); err != nil {
					return err
				}
				start = int(max(0, ev.Off-base))
				continue
			}
			if h := held(ev); len(h) > 0 {
				if err := write(h); err != nil {
					return err
				}
			}
		case frame.Whole:
			// A frame taken for rewriting, whole.
			out := ev.Bytes
			if nb, err := r.rewrite(ev.Bytes); err == nil {
				out = nb
				r.count++
			}
			if err := write(out); err != nil {
				return err
			}
			start = int(ev.Off + int64(len(ev.Bytes)) - base)
		}
	}
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
