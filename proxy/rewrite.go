package proxy

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// AddressField is a struct of a response that holds a broker's address in
// its fields Host and Port, and the field that holds the broker's node id.
type AddressField struct {
	// Struct is the struct's path from the response's name, through
	// arrays without indexes: "MetadataResponse.Brokers"; the response's
	// name alone for its top-level fields.
	Struct string
	// Node is the field of the struct with the broker's node id
	// ("NodeId", "BrokerId", "LeaderId"), or, with ParentNode, the field of
	// the struct that holds the struct (a node's listeners).
	Node       string
	ParentNode bool
}

// brokerAddressFields are every struct of a response that carries a
// broker's host and port in the embedded specs (requests carry the
// addresses a client or broker gives, not ones a client follows). A test
// walks the specs and fails on a struct with Host and Port that is neither
// here nor in notBrokerAddressFields.
var brokerAddressFields = []AddressField{
	{Struct: "ProduceResponse.NodeEndpoints", Node: "NodeId"},
	{Struct: "FetchResponse.NodeEndpoints", Node: "NodeId"},
	{Struct: "MetadataResponse.Brokers", Node: "NodeId"},
	{Struct: "FindCoordinatorResponse", Node: "NodeId"},
	{Struct: "FindCoordinatorResponse.Coordinators", Node: "NodeId"},
	{Struct: "VoteResponse.NodeEndpoints", Node: "NodeId"},
	{Struct: "BeginQuorumEpochResponse.NodeEndpoints", Node: "NodeId"},
	{Struct: "EndQuorumEpochResponse.NodeEndpoints", Node: "NodeId"},
	{Struct: "DescribeQuorumResponse.Nodes.Listeners", Node: "NodeId", ParentNode: true},
	{Struct: "FetchSnapshotResponse.NodeEndpoints", Node: "NodeId"},
	{Struct: "DescribeClusterResponse.Brokers", Node: "BrokerId"},
	{Struct: "UpdateRaftVoterResponse.CurrentLeader", Node: "LeaderId"},
	{Struct: "ShareFetchResponse.NodeEndpoints", Node: "NodeId"},
	{Struct: "ShareAcknowledgeResponse.NodeEndpoints", Node: "NodeId"},
}

// notBrokerAddressFields are the structs of responses with Host and Port
// that are not a broker's address, with the reason.
var notBrokerAddressFields = map[string]string{
	"StreamsGroupDescribeResponse.Groups.Members.UserEndpoint":            "a Kafka Streams instance's own endpoint, not a broker",
	"StreamsGroupHeartbeatResponse.PartitionsByUserEndpoint.UserEndpoint": "a Kafka Streams instance's own endpoint, not a broker",
}

// AddressFields returns the structs of responses whose broker addresses
// RewriteAdvertised rewrites, in api key order.
func AddressFields() []AddressField { return append([]AddressField(nil), brokerAddressFields...) }

// addressPlan is, per api key of a response, its AddressFields split into
// steps after the message name, and the versions that have one of them
// (the responses held for rewriting).
type addressPlan map[int16]*apiAddresses

type apiAddresses struct {
	fields   []addressSteps
	versions map[int16]bool
}

// wants reports whether responses of api key at ver may carry an address.
func (p addressPlan) wants(key, ver int16) bool {
	a := p[key]
	return a != nil && a.versions[ver]
}

type addressSteps struct {
	steps []string
	f     AddressField
}

func newAddressPlan(c *codec.Codec) addressPlan {
	plan := addressPlan{}
	for _, f := range brokerAddressFields {
		steps := strings.Split(f.Struct, ".")
		m := c.Set.Message(steps[0])
		if m == nil || m.APIKey < 0 {
			continue // not in this release
		}
		a := plan[m.APIKey]
		if a == nil {
			a = &apiAddresses{versions: map[int16]bool{}}
			plan[m.APIKey] = a
		}
		a.fields = append(a.fields, addressSteps{steps[1:], f})
		for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
			if hasSteps(m.Root.Fields, v, steps[1:]) {
				a.versions[v] = true
			}
		}
	}
	return plan
}

// hasSteps reports whether every field of steps, and the Host at their
// end, is in the struct fields fs at v.
func hasSteps(fs []*spec.Field, v int16, steps []string) bool {
	if len(steps) == 0 {
		return slices.ContainsFunc(fs, func(f *spec.Field) bool { return f.Name == "Host" && f.PresentIn(v) })
	}
	for _, fd := range fs {
		if fd.Name == steps[0] && fd.PresentIn(v) {
			sub := fd.Fields
			if len(sub) == 0 && fd.Type.Struct != nil {
				sub = fd.Type.Struct.Fields
			}
			return hasSteps(sub, v, steps[1:])
		}
	}
	return false
}

// reqKey is the api key and version of a request awaiting its response.
type reqKey struct{ key, ver int16 }

// maxTracked bounds the requests remembered, awaiting their responses.
const maxTracked = 1024

// sentReq is a request the tracker saw: its correlation id, api and
// whether its response is to be rewritten.
type sentReq struct {
	corr int32
	req  reqKey
	want bool
}

// tracker follows the frames of the request stream (on the forwarding
// path: only the first 12 bytes of each frame are looked at) and remembers
// every request in order, marking those whose responses are rewritten. A
// broker answers a connection's requests in order, and some not at all
// (Produce with acks=0): a response answers the oldest request with its
// correlation id, and the requests before it will get none.
type tracker struct {
	maxFrame int64
	plan     addressPlan
	mu       sync.Mutex
	// ring holds the requests awaiting a response, n of them from head;
	// when it is full the oldest is forgotten.
	ring    [maxTracked]sentReq
	head, n int
	// sp follows the frames, buffering none (Max < 0); it stops on a
	// stream that is not framed as Kafka: nothing more is tracked.
	sp frame.Splitter
}

func newTracker(maxFrame int, plan addressPlan) *tracker {
	return &tracker{maxFrame: int64(maxFrame), plan: plan, sp: frame.Splitter{Max: -1, Head: 12}}
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
		corr, _ := frame.RequestCorrelationID(ev.Bytes)
		t.mu.Lock()
		if t.n == maxTracked {
			t.head, t.n = (t.head+1)%maxTracked, t.n-1
		}
		t.ring[(t.head+t.n)%maxTracked] = sentReq{corr, reqKey{key, ver}, t.plan.wants(key, ver)}
		t.n++
		t.mu.Unlock()
	}
}

// take returns the request that the response with correlation id corr
// answers, if it is to be rewritten, forgetting it and the requests sent
// before it. A correlation id no request awaiting has forgets nothing.
func (t *tracker) take(corr int32) (reqKey, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range t.n {
		r := t.ring[(t.head+i)%maxTracked]
		if r.corr == corr {
			t.head, t.n = (t.head+i+1)%maxTracked, t.n-i-1
			return r.req, r.want
		}
	}
	return reqKey{}, false
}

// rewriter forwards the response stream, holding back and rewriting the
// responses tracker marked. Bytes of other responses are forwarded as they
// come, except the first 8 bytes of a frame (size prefix and correlation
// id) split across reads, which wait for the rest.
type rewriter struct {
	p     *Proxy
	c     *conn
	track *tracker
	// sp follows the frames by their first 8 bytes (Max < 0), buffering
	// only the frames taken for rewriting; it stops on a stream that is
	// not framed as Kafka: everything is forwarded.
	sp    frame.Splitter
	req   reqKey
	count int
}

func newRewriter(p *Proxy, t *tracker, c *conn) *rewriter {
	return &rewriter{p: p, c: c, track: t, sp: frame.Splitter{Max: -1, Head: 8}}
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

// errUnchanged: a response held for rewriting had no broker address.
var errUnchanged = errors.New("no broker address")

// rewrite decodes the response fr, sets the Host and Port of every broker
// address (AddressFields) to the proxy's host and the node's listener port,
// learning the brokers, and encodes it again with its header, size prefix
// included. A response without an address is errUnchanged.
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
	return rewriteTree(r.p, r.c, t, r.p.plan[r.req.key].fields)
}

// rewriteTree re-encodes decoded response t with the Host and Port of each
// broker address of plan set to the proxy's.
func rewriteTree(p *Proxy, c *conn, t *tree.Tree, plan []addressSteps) ([]byte, error) {
	hi, bi := t.Part(tree.Header), t.Part(tree.Body)
	if hi < 0 || bi < 0 {
		return nil, fmt.Errorf("no header or body")
	}
	header, body := t.Sub(hi), t.Sub(bi)
	// Edit the body's value (the decoded frame is left as it is: the first
	// SetString copies the body's bytes).
	ed := &addrEditor{p: p, c: c, ports: map[int32]int32{}}
	for _, a := range plan {
		ed.f = a.f
		ed.visit(body.Root(), tree.Value{}, a.steps)
	}
	if ed.err != nil {
		return nil, ed.err
	}
	if !ed.changed {
		return nil, errUnchanged
	}
	return p.o.Codec.AppendEncode(nil, t.Message, t.Version, header, body)
}

// addrEditor sets the broker addresses of one response.
type addrEditor struct {
	p       *Proxy
	c       *conn
	f       AddressField
	ports   map[int32]int32 // the port written for each node id seen
	changed bool
	err     error
}

// visit walks from v (a struct, or an array of them; parent is the
// struct holding v) down steps to the structs holding addresses. A field
// the response's version does not have is skipped.
func (e *addrEditor) visit(v, parent tree.Value, steps []string) {
	if v.Err() != nil {
		return
	}
	if v.Kind() == tree.Array {
		for i := range v.Len() {
			e.visit(v.Elem(i), parent, steps)
		}
		return
	}
	if len(steps) > 0 {
		e.visit(v.Field(steps[0]), v, steps[1:])
		return
	}
	idv := v.Field(e.f.Node)
	if e.f.ParentNode {
		idv = parent.Field(e.f.Node)
	}
	id, err1 := idv.AsInt()
	host, err2 := v.Field("Host").AsString()
	port, err3 := v.Field("Port").AsInt()
	if err1 != nil || err2 != nil || err3 != nil || id < 0 || host == "" || port <= 0 || port > 65535 {
		return // no broker here (an error entry: node -1, host "")
	}
	node := int32(id)
	np, seen := e.ports[node]
	if !seen {
		// The first address of a node in a response is the one learned.
		np = e.p.brokerPort(e.c, node, host, int32(port))
		e.ports[node] = np
	}
	if err := v.Field("Host").SetString(e.p.advHost); err != nil && e.err == nil {
		e.err = err
	}
	if err := v.Field("Port").SetInt(int64(np)); err != nil && e.err == nil {
		e.err = err
	}
	e.changed = true
}
