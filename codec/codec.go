package codec

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// Refs of synthetic nodes.
var (
	refSize        = tree.NameRef("size", "number of bytes that follow")
	refTrailing    = tree.NameRef("trailing", "bytes after the end of the message")
	refUnframed    = tree.NameRef("unframed", "bytes the size prefix does not account for")
	refUndecoded   = tree.NameRef("undecoded", "bytes not decoded because of the error below")
	refAfterFrame  = tree.NameRef("after frame", "bytes after the end of the frame")
	refRecordFrame = [3]int32{
		tree.NameRef("frame_version", "metadata record frame version (1)"),
		tree.NameRef("api_key", "metadata record type"),
		tree.NameRef("version", "version of the metadata record"),
	}
	refRecordType   = tree.NameRef("record_type", "coordinator record type (the key's int16 prefix)")
	refValueVersion = tree.NameRef("version", "version of the coordinator record value (its int16 prefix)")

	shapeRecordFrame = [3]tree.Shape{
		tree.NewShape(tree.FrameField, tree.WireUvarint, refRecordFrame[0], 0),
		tree.NewShape(tree.FrameField, tree.WireUvarint, refRecordFrame[1], 0),
		tree.NewShape(tree.FrameField, tree.WireUvarint, refRecordFrame[2], 0),
	}
)

// prefixShape is the shape of a coordinator record's int16 prefix leaf
// (ref refRecordType or refValueVersion).
func prefixShape(ref int32) tree.Shape { return tree.NewShape(tree.FrameField, tree.WireInt16, ref, 0) }

// DefaultMaxFrame is the largest frame size accepted by default: 100 MiB,
// the default of Kafka's socket.request.max.bytes (frame.DefaultMax).
// Larger size prefixes are rejected before anything is allocated.
const DefaultMaxFrame = frame.DefaultMax

// Codec encodes and decodes the messages of one spec Set. It compiles each
// (struct, version) layout once and is safe for concurrent use.
type Codec struct {
	Set *spec.Set
	// MaxFrame is the largest frame size prefix accepted (DefaultMaxFrame
	// when 0).
	MaxFrame int
	// Strict makes decoding reject tagged fields out of ascending order and
	// duplicate tags, which Kafka itself accepts.
	Strict bool
	// Records are the options records fields are decoded with (the
	// decompression limit, metadata record values); see RecordsOptions.
	Records records.Options
	plans   planCache
	// general makes the encoder take its general path only (tests compare
	// the direct path with it).
	general bool
}

// New returns a Codec for the messages of s.
func New(s *spec.Set) *Codec { return &Codec{Set: s} }

func (c *Codec) plan(m *spec.Message, v int16) *plan {
	return c.plans.get(m.Root, v, m.Flexible(v))
}

func (c *Codec) checkVersion(m *spec.Message, v int16) error {
	if !m.ValidVersions.Contains(v) {
		return &VersionError{Message: m.Name, Version: v, Valid: m.ValidVersions}
	}
	return nil
}

// VersionError says a message has no such version. In, when not empty,
// names the specs ("Kafka 4.4.0"). Inside a request header it is the Err
// of a *wire.Error at the version's offset: match it with errors.As.
type VersionError struct {
	Message string
	Version int16
	Valid   spec.Versions
	In      string
}

// Error names the message, the version asked for, the specs and the valid
// versions: "VoteRequest has no version 7 in Kafka 4.4.0 (valid versions:
// 0-2)".
func (e *VersionError) Error() string {
	in := ""
	if e.In != "" {
		in = " in " + e.In
	}
	return fmt.Sprintf("%s has no version %d%s (valid versions: %s)", e.Message, e.Version, in, e.Valid)
}

// headerSpec returns the RequestHeader or ResponseHeader spec.
func (c *Codec) headerSpec(request bool) (*spec.Message, error) {
	var h *spec.Message
	if request {
		h = c.Set.RequestHeader()
	} else {
		h = c.Set.ResponseHeader()
	}
	if h == nil {
		name := map[bool]string{true: "RequestHeader", false: "ResponseHeader"}[request]
		return nil, fmt.Errorf("the specs have no %s.json", name)
	}
	return h, nil
}

// EncodeRecord writes a message that is not a request or response. A
// metadata record (type "metadata", also a remote-log-metadata record) gets
// the KRaft record value frame: uvarint frame version 1, uvarint api key,
// uvarint version (AbstractApiMessageSerde). A coordinator record key or
// value (spec.Message.VersionPrefixed) gets its int16 prefix, as
// CoordinatorRecordSerde writes it: a key's record type (a Frame with one
// "record_type" leaf; the key's body at version, 0 for a "coordinator-key"),
// a value's version (a "version" leaf). Other types (data, header) are
// written bare. It returns the span tree of the bytes: their decode
// (DecodeRecord).
func (c *Codec) EncodeRecord(m *spec.Message, version int16, body *tree.Tree) (*tree.Tree, error) {
	framed := m.Type == spec.Metadata || m.VersionPrefixed()
	b, err := c.appendBare(nil, m, version, body, framed)
	if err != nil {
		return nil, err
	}
	var t *tree.Tree
	if framed {
		t, err = c.decodeRecord(b, m, version, "", false, 0, DecodeOptions{readBack: true})
	} else {
		t, err = c.decodeBodyWith(b, m, version, DecodeOptions{readBack: true})
	}
	return readBack(t, body, err)
}

// EncodeBody writes the body of any message alone: no size prefix, no
// header, no record frame — the bytes Kafka's generated XData.write
// produces. The tree (the decode of those bytes, DecodeBody) has a
// Message root with one child, the Body.
func (c *Codec) EncodeBody(m *spec.Message, version int16, body *tree.Tree) (*tree.Tree, error) {
	b, err := c.appendBare(nil, m, version, body, false)
	if err != nil {
		return nil, err
	}
	t, err := c.decodeBodyWith(b, m, version, DecodeOptions{readBack: true})
	return readBack(t, body, err)
}

// readBack is the tree of what an encoder wrote, decoded (err the
// decode's error), marked Sample when the value is. The decoder reads it
// back trusting its counts (see DecodeOptions.readBack); should it still
// fail, the tree is the partial decode, with a notice saying why.
func readBack(t *tree.Tree, body *tree.Tree, err error) (*tree.Tree, error) {
	if err != nil {
		off := int32(-1)
		var we *wire.Error
		if errors.As(err, &we) {
			off = int32(we.Offset)
		}
		p := tree.Problem{Off: max(off, 0), VOff: -1, Path: "encoded", Msg: "kwire does not read back what it wrote here: " + err.Error(), Notice: true}
		if we != nil && we.Path != "" {
			p.Path = we.Path
		}
		t.Problems = append(t.Problems, p)
	}
	t.Sample = body != nil && body.Sample
	return t, nil
}

// AppendRecord appends to buf the bytes EncodeRecord writes, and returns
// them: no tree.
func (c *Codec) AppendRecord(buf []byte, m *spec.Message, version int16, body *tree.Tree) ([]byte, error) {
	return c.appendBare(buf, m, version, body, m.Type == spec.Metadata || m.VersionPrefixed())
}

// appendBare appends the body of m at version (framed: with its record
// frame or prefix) to buf.
func (c *Codec) appendBare(buf []byte, m *spec.Message, version int16, body *tree.Tree, framed bool) ([]byte, error) {
	if err := c.checkVersion(m, version); err != nil {
		return buf, err
	}
	start := len(buf)
	e := &encoder{buf: slices.Grow(buf, sizeHint(nil, body)), c: c, v: body}
	if p, ok := m.Prefix(version); ok && framed {
		e.buf = wire.AppendInt16(e.buf, p)
	} else if framed {
		for _, v := range [3]uint32{1, uint32(m.APIKey), uint32(version)} {
			e.buf = wire.AppendUvarint(e.buf, v)
		}
	}
	e.structFields(c.plan(m, version), rootOf(body))
	e.up(tree.Name(m.Name))
	if err := e.finish(); err != nil {
		return buf[:start], err
	}
	return e.buf, nil
}

// RequestHeaderValue builds a request header value tree: api key, api
// version, correlation id and client id (the field names of
// RequestHeader.json). hs is the RequestHeader spec.
func RequestHeaderValue(hs *spec.Message, apiKey, apiVersion int16, correlationID int32, clientID string) *tree.Tree {
	v := &tree.Tree{}
	b := tree.Builder{T: v}
	b.Open(tree.Node{S: tree.NewShape(tree.Header, tree.WireNone, tree.StructRef(hs.Root), -1)})
	for _, f := range hs.Root.Fields {
		n := tree.Node{S: tree.NewShape(tree.Field, tree.WireNone, tree.FieldRef(f), 0)}
		switch f.Name {
		case "RequestApiKey":
			b.LeafNum(n, int64(apiKey))
		case "RequestApiVersion":
			b.LeafNum(n, int64(apiVersion))
		case "CorrelationId":
			b.LeafNum(n, int64(correlationID))
		case "ClientId":
			b.LeafData(n, []byte(clientID))
		}
	}
	b.Close(0)
	return v
}

// ResponseHeaderValue builds a response header value tree with the given
// correlation id. hs is the ResponseHeader spec.
func ResponseHeaderValue(hs *spec.Message, correlationID int32) *tree.Tree {
	v := &tree.Tree{}
	b := tree.Builder{T: v}
	b.Open(tree.Node{S: tree.NewShape(tree.Header, tree.WireNone, tree.StructRef(hs.Root), -1)})
	for _, f := range hs.Root.Fields {
		if f.Name == "CorrelationId" {
			b.LeafNum(tree.Node{S: tree.NewShape(tree.Field, tree.WireNone, tree.FieldRef(f), 0)}, int64(correlationID))
		}
	}
	b.Close(0)
	return v
}

// FrameError is a size prefix that cannot be a Kafka frame (negative, over
// the limit, or past the end of the input).
type FrameError struct {
	Size  int64
	Limit int
	Have  int
	Hint  string
}

// Error says what is wrong with the size prefix at offset 0, with a hint
// when the bytes look like another protocol.
func (e *FrameError) Error() string {
	var s string
	switch {
	case e.Size < 0:
		s = fmt.Sprintf("frame size at 0x0000: %d is negative", e.Size)
	case e.Size > int64(e.Limit):
		s = fmt.Sprintf("frame size at 0x0000: %d is over the limit of %s", e.Size, wire.Bytes(e.Limit))
	default:
		s = fmt.Sprintf("frame size at 0x0000: says %s follow, have %d", wire.Bytes(e.Size), e.Have)
	}
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// sniff names a well-known non-Kafka protocol the first bytes of a stream
// look like (frame.Sniff), for error messages.
func sniff(b []byte) string {
	switch frame.Sniff(b) {
	case "TLS":
		return "these bytes look like a TLS record, not Kafka"
	case "HTTP":
		return "these bytes look like HTTP, not Kafka"
	}
	return ""
}

// frame reads (frame.Size) and checks the int32 size prefix and returns
// the length of the frame, size prefix included.
func (c *Codec) frame(d *decoder, b []byte) (int, error) {
	d.b.Open(tree.Node{S: shapeFrame})
	size32, ok := frame.Size(b)
	if !ok {
		d.r.Bytes(4) // fails: records the bytes needed and present
		d.r.SetPath("size")
		d.closeTree(refUndecoded)
		return 0, d.r.Err()
	}
	d.r.Off = 4
	size := int64(size32)
	d.b.Leaf(tree.Node{Size: 4, S: shapeSize})
	d.b.Close(4)
	limit := c.MaxFrame
	if limit == 0 {
		limit = DefaultMaxFrame
	}
	if d.o.readBack {
		limit = math.MaxInt32
	}
	if size >= 0 && size <= int64(limit) && size > int64(len(b)-4) {
		// A truncated frame (a capture cut short, a partial read): decode
		// what is there so the error names the field where bytes ran out.
		d.truncated = &FrameError{Size: size, Limit: limit, Have: len(b) - 4}
		return len(b), nil
	}
	if size < 0 || size > int64(limit) {
		// Every byte is attributed, even those no frame can explain.
		if len(b) > 4 {
			d.b.Leaf(tree.Node{Off: 4, Size: int32(len(b) - 4), S: rawShape(refUnframed)})
			d.r.Off = len(b)
		}
		return 0, &FrameError{Size: size, Limit: limit, Have: len(b) - 4, Hint: sniff(b)}
	}
	return int(size) + 4, nil
}

// closeTree closes every open group where the last leaf ends and gives any
// bytes of the tree not covered by a leaf to one Raw leaf of the root (ref
// names it), so that a tree tiles its bytes even after an error.
func (d *decoder) closeTree(ref int32) {
	t := d.b.T
	// leafEnd is where the last leaf at or after node i ends (or off).
	leafEnd := func(i int32, off int32) int32 {
		if !d.r.Failed() {
			// Without a failure every byte read is in a leaf, in order:
			// the last leaf ends where reading stopped (no scan needed).
			return max(off, int32(d.r.Off))
		}
		for k := i; k < int32(len(t.Nodes)); k++ {
			if n := &t.Nodes[k]; n.End == k+1 && n.Flags()&tree.FlagVirtual == 0 {
				off = max(off, n.Off+n.Size)
			}
		}
		return off
	}
	for d.b.Depth() > 1 {
		top := d.b.Top()
		d.b.Close(leafEnd(top+1, t.Nodes[top].Off))
	}
	if d.b.Depth() == 1 {
		if end := leafEnd(1, 0); int(end) < len(t.Bytes) {
			d.b.Leaf(tree.Node{Off: end, Size: int32(len(t.Bytes)) - end, S: rawShape(ref)})
		}
		d.b.Close(int32(len(t.Bytes)))
	}
}

// newNodes is the node arena a decode starts with: room for a frame and
// header; decodeBody sizes it for the body (reserveNodes).
func newNodes() []tree.Node { return make([]tree.Node, 0, 64) }

// reserveNodes makes room in t's arena for the nodes of a body of n bytes
// at plan p, when it has not that room: about one node per two bytes, the
// density of typical messages, or one per 8 for a message that can hold
// records (a record of 66 bytes, a short key and a JSON value, makes 8
// nodes; larger records fewer; one per 32 when records are lazy: a node
// a record), so that large inputs rarely regrow the arena, and a message
// of records does not allocate for four times the nodes it makes (package
// records grows it, when its batches' headers say they need more, at
// least twice), and for such a message at most 64 Ki nodes. It is
// proportional to the input, never to a count read from it.
func reserveNodes(t *tree.Tree, p *plan, n int, lazy bool) {
	const maxRecordsReserve = 1 << 16
	want := 16 + n/2
	switch {
	case p.records && lazy:
		want = 16 + n/32 // a node a record (records.Options.Lazy)
	case p.records:
		want = 16 + n/8
	}
	if p.records {
		// Most of such a body is its records, which package records
		// sizes for (a Produce of one 53 MB batch reserved 106 MB).
		want = min(want, maxRecordsReserve)
	}
	if cap(t.Nodes)-len(t.Nodes) < want {
		nodes := make([]tree.Node, len(t.Nodes), len(t.Nodes)+want)
		copy(nodes, t.Nodes)
		t.Nodes = nodes
	}
}

// ErrTrailing is wrapped by errors about bytes left after a message: they
// match ErrTrailing with errors.Is and *wire.Error with errors.As.
var ErrTrailing = errors.New("trailing bytes")

// trailingError is the *wire.Error about bytes left after a message; it
// matches both *wire.Error (errors.As) and ErrTrailing (errors.Is).
type trailingError struct{ err *wire.Error }

func (e *trailingError) Error() string   { return e.err.Error() }
func (e *trailingError) Unwrap() []error { return []error{e.err, ErrTrailing} }

// DecodeRequest decodes one framed request: the int32 size, the request
// header (its api key and version choose the spec and the header version),
// and the body. On error it returns the partial tree decoded so far along
// with an error naming the byte offset and field path (*wire.Error,
// *FrameError or *VersionError).
func (c *Codec) DecodeRequest(b []byte) (*tree.Tree, error) {
	t := &tree.Tree{}
	return t, c.DecodeRequestInto(t, b)
}

// DecodeRequestInto is DecodeRequest into an existing tree, reusing its
// node arena: a caller decoding many frames (a proxy, a capture reader)
// allocates nothing per frame once the arena has grown. t is reset first;
// it refers to b afterwards.
func (c *Codec) DecodeRequestInto(t *tree.Tree, b []byte) error {
	return c.DecodeRequestWith(t, b, DecodeOptions{})
}

// DecodeRequestWith is DecodeRequestInto with the options o.
func (c *Codec) DecodeRequestWith(t *tree.Tree, b []byte, o DecodeOptions) error {
	return c.decodeRequest(t, b, o, -1)
}

// DecodeRequestHeaderAs is DecodeRequestInto with request header version
// hv (0, 1 or 2) instead of the one frame.RequestHeaderVersion gives the
// api key and version: it tells whether a request that does not decode was
// written with another header version than Kafka's rule asks for (a
// client's fault, which Kafka's broker reads as a broken body).
func (c *Codec) DecodeRequestHeaderAs(t *tree.Tree, b []byte, hv int16) error {
	if hv < 0 || hv > 2 {
		return fmt.Errorf("request header version %d: there are versions 0-2", hv)
	}
	return c.decodeRequest(t, b, DecodeOptions{}, hv)
}

// decodeRequest is DecodeRequestWith with header version hv, or the one
// of the rule when hv is -1.
func (c *Codec) decodeRequest(t *tree.Tree, b []byte, o DecodeOptions, hv int16) error {
	reset(t, b, o)
	d := &decoder{r: wire.Reader{Buf: b}, b: tree.Builder{T: t}, strict: c.Strict, c: c, o: o}
	root := d.b.Open(tree.Node{S: tree.NewShape(tree.Message, tree.WireNone, 0, 0)})
	n, err := c.frame(d, b)
	if err != nil {
		d.closeTree(refUndecoded)
		return err
	}
	d.r.Buf = b[:n]
	if n < 8 {
		d.closeTree(refUndecoded)
		return d.finish(&wire.Error{Offset: 4, Path: "RequestHeader", Need: 4, Have: n - 4})
	}
	key, ver, _ := frame.RequestAPI(b)
	m := c.Set.Request(key)
	if m == nil {
		d.closeTree(refUndecoded)
		return &wire.Error{Offset: 4, Path: "RequestHeader.RequestApiKey", Msg: fmt.Sprintf("unknown api key %d", key)}
	}
	t.Message, t.Version = m, ver
	d.b.T.Nodes[root].Reshape(partShape(tree.Message, m.Root, m, ver))
	if err := c.checkVersion(m, ver); err != nil {
		d.closeTree(refUndecoded)
		return &wire.Error{Offset: 6, Path: "RequestHeader.RequestApiVersion", Msg: err.Error(), Err: err}
	}
	hs, err := c.headerSpec(true)
	if err != nil {
		return err
	}
	if hv < 0 {
		hv = frame.RequestHeaderVersion(m, ver)
	}
	t.HeaderVersion = hv
	return d.finish(c.decodeRest(d, hs, hv, m, ver, len(b)-n))
}

// reset empties t for decoding b, keeping its node arena (or allocating
// one for its frame and header: see reserveNodes), and with o.Arena its
// decompressed views' array.
func reset(t *tree.Tree, b []byte, o DecodeOptions) {
	nodes := t.Nodes[:0]
	if cap(nodes) == 0 {
		nodes = newNodes()
	}
	var virtual []byte
	if o.Arena {
		virtual = t.Virtual[:0]
	}
	*t = tree.Tree{Nodes: nodes, Bytes: b, HeaderVersion: -1, Virtual: virtual}
}

// DecodeResponse decodes one framed response of spec m (a response) at
// version ver: the size, the response header and the body. Errors as for
// DecodeRequest.
func (c *Codec) DecodeResponse(b []byte, m *spec.Message, ver int16) (*tree.Tree, error) {
	t := &tree.Tree{}
	return t, c.DecodeResponseInto(t, b, m, ver)
}

// DecodeResponseInto is DecodeResponse into an existing tree, reusing its
// node arena (see DecodeRequestInto).
func (c *Codec) DecodeResponseInto(t *tree.Tree, b []byte, m *spec.Message, ver int16) error {
	return c.DecodeResponseWith(t, b, m, ver, DecodeOptions{})
}

// DecodeResponseWith is DecodeResponseInto with the options o.
func (c *Codec) DecodeResponseWith(t *tree.Tree, b []byte, m *spec.Message, ver int16, o DecodeOptions) error {
	reset(t, b, o)
	t.Message, t.Version = m, ver
	d := &decoder{r: wire.Reader{Buf: b}, b: tree.Builder{T: t}, strict: c.Strict, c: c, o: o}
	if err := c.checkVersion(m, ver); err != nil {
		d.b.Open(tree.Node{S: partShape(tree.Message, m.Root, m, ver)})
		d.closeTree(refUndecoded)
		return err
	}
	d.b.Open(tree.Node{S: c.plan(m, ver).partShape(tree.Message)})
	hv := frame.ResponseHeaderVersion(m, ver)
	t.HeaderVersion = hv
	n, err := c.frame(d, b)
	if err != nil {
		d.closeTree(refUndecoded)
		return err
	}
	d.r.Buf = b[:n]
	hs, err := c.headerSpec(false)
	if err != nil {
		return err
	}
	return d.finish(c.decodeRest(d, hs, hv, m, ver, len(b)-n))
}

// finish reports a truncated frame: the error of the field where the bytes
// ran out, which then also matches *FrameError (errors.As), or the frame
// error itself when everything present decoded.
func (d *decoder) finish(err error) error {
	if d.truncated == nil {
		return err
	}
	if err == nil {
		return d.truncated
	}
	return &truncatedError{err: err, frame: d.truncated}
}

// truncatedError is a decoding error inside a frame shorter than its size
// prefix says.
type truncatedError struct {
	err   error
	frame *FrameError
}

func (e *truncatedError) Error() string {
	return fmt.Sprintf("%v (truncated frame: the size prefix says %s follow, %d are present)", e.err, wire.Bytes(e.frame.Size), e.frame.Have)
}

func (e *truncatedError) Unwrap() []error { return []error{e.err, e.frame} }

func (c *Codec) decodeRest(d *decoder, hs *spec.Message, hv int16, m *spec.Message, ver int16, after int) error {
	hp := c.plans.get(hs.Root, hv, hs.Flexible(hv))
	d.b.Open(tree.Node{Off: int32(d.r.Off), S: hp.partShape(tree.Header)})
	d.structFields(hp)
	if d.failed() {
		d.closeTree(refUndecoded)
		return d.r.Err()
	}
	d.b.Close(int32(d.r.Off))
	return c.decodeBody(d, m, ver, after)
}

func (c *Codec) decodeBody(d *decoder, m *spec.Message, ver int16, after int) error {
	p := c.plan(m, ver)
	reserveNodes(d.b.T, p, len(d.r.Buf)-d.r.Off, c.Records.Lazy)
	d.b.Open(tree.Node{Off: int32(d.r.Off), S: p.partShape(tree.Body)})
	d.structFields(p)
	if d.failed() {
		d.closeTree(refUndecoded)
		return d.r.Err()
	}
	d.b.Close(int32(d.r.Off))
	var err error
	if rest := d.r.Remaining(); rest > 0 {
		// Show the bytes, then report them.
		d.b.Leaf(tree.Node{Off: int32(d.r.Off), Size: int32(rest), S: rawShape(refTrailing)})
		err = &trailingError{&wire.Error{Offset: d.r.Off, Path: m.Name, Msg: fmt.Sprintf("%s left after the body (%v)", wire.Bytes(rest), ErrTrailing)}}
		d.r.Off = len(d.r.Buf)
	}
	d.closeTree(refAfterFrame)
	if err == nil && after > 0 {
		err = &trailingError{&wire.Error{Offset: len(d.r.Buf), Msg: fmt.Sprintf("%s after the frame (%v)", wire.Bytes(after), ErrTrailing)}}
	}
	return err
}

// DecodeBody decodes the body of message m at version ver alone (no size
// prefix, header or record frame): the bytes of Kafka's XData.write. Errors
// as for DecodeRequest; the whole input must be the body.
func (c *Codec) DecodeBody(b []byte, m *spec.Message, ver int16) (*tree.Tree, error) {
	return c.decodeBodyWith(b, m, ver, DecodeOptions{})
}

func (c *Codec) decodeBodyWith(b []byte, m *spec.Message, ver int16, o DecodeOptions) (*tree.Tree, error) {
	t := &tree.Tree{Bytes: b, Message: m, Version: ver, HeaderVersion: -1, Nodes: newNodes()}
	d := &decoder{r: wire.Reader{Buf: b}, b: tree.Builder{T: t}, strict: c.Strict, c: c, o: o}
	d.b.Open(tree.Node{S: partShape(tree.Message, m.Root, m, ver)})
	if err := c.checkVersion(m, ver); err != nil {
		d.closeTree(refUndecoded)
		return t, err
	}
	return t, c.decodeBody(d, m, ver, 0)
}

// DecodeRecord decodes a message that is not a request or response: for a
// metadata record the KRaft value frame (uvarint frame version, api key,
// version) then the record at that version, where m may be nil (it is found
// by api key; a remote-log-metadata record's among its topic's records);
// for a coordinator record key or value (spec.Message.VersionPrefixed) its
// int16 prefix (a key's record type, a value's version; see EncodeRecord)
// then the message at the version the prefix gives, ver being ignored; for
// other types the bare message of spec m at version ver.
func (c *Codec) DecodeRecord(b []byte, m *spec.Message, ver int16) (*tree.Tree, error) {
	return c.decodeRecord(b, m, ver, "", false, 0, DecodeOptions{})
}

// ErrUnknownRecordType is wrapped by the errors of DecodeTopicKey and
// DecodeTopicValue about a record type (or a remote-log-metadata api key)
// the specs do not have for the topic.
var ErrUnknownRecordType = errors.New("unknown record type")

// ErrUnknownVersion is wrapped by the errors of DecodeRecord,
// DecodeTopicKey and DecodeTopicValue about a coordinator record key or
// value version (its int16 prefix) the spec does not have.
var ErrUnknownVersion = errors.New("unknown version")

// DecodeTopicKey decodes the key of a record of internal topic tp (a
// coordinator topic: spec.Topic.Coordinator): the int16 record type, then
// the key spec of that type (Set.RecordKey) at its version. A record type
// the set does not have for tp is an error at offset 0, path
// "record_type", wrapping ErrUnknownRecordType; the tree then holds the
// prefix and the rest undecoded, and its Message is nil.
func (c *Codec) DecodeTopicKey(b []byte, tp spec.Topic) (*tree.Tree, error) {
	return c.decodeRecord(b, nil, 0, tp, true, 0, DecodeOptions{})
}

// DecodeTopicValue decodes the value of a record of internal topic tp:
// for a coordinator topic, the int16 version then the value spec of record
// type rt (Set.RecordValue; rt is the key's) at that version; for
// spec.TopicRemoteLogMetadata, the metadata record frame and the record of
// the frame's api key (Set.TopicRecord), rt being ignored. Unknown record
// types wrap ErrUnknownRecordType, unknown versions ErrUnknownVersion (the
// tree's Version and its root's are then the version the bytes say, one
// the spec lacks, and the rest is undecoded).
// A null value (a tombstone) is the caller's to handle: b here holds bytes.
func (c *Codec) DecodeTopicValue(b []byte, tp spec.Topic, rt int16) (*tree.Tree, error) {
	return c.decodeRecord(b, nil, 0, tp, false, rt, DecodeOptions{})
}

// decodeRecord is DecodeRecord, DecodeTopicKey and DecodeTopicValue: m
// given, or m nil and found by the bytes among the KRaft metadata records
// (tp "") or among tp's records (a key's by its prefix, a value's by rt
// or, for remote-log-metadata, by its frame).
func (c *Codec) decodeRecord(b []byte, m *spec.Message, ver int16, tp spec.Topic, key bool, rt int16, o DecodeOptions) (*tree.Tree, error) {
	t := &tree.Tree{Bytes: b, Message: m, Version: ver, HeaderVersion: -1, Nodes: newNodes()}
	d := &decoder{r: wire.Reader{Buf: b}, b: tree.Builder{T: t}, strict: c.Strict, c: c, o: o}
	// Version 0 until the bytes say which (a decode that stops before
	// then shows the message at v0).
	root := d.b.Open(tree.Node{S: partShape(tree.Message, nil, nil, 0)})
	if m != nil && m.Topic != "" {
		tp = m.Topic
	}
	prefixed := m != nil && m.VersionPrefixed() || m == nil && tp.Coordinator()
	verOff := 0 // where the version is said
	if m == nil && tp.Coordinator() && !key {
		if m = c.Set.RecordValue(tp, rt); m == nil {
			return t, c.undecoded(d, &wire.Error{Offset: 0, Path: "version", Msg: fmt.Sprintf("no value spec of record type %d in %s", rt, tp.TopicName()), Err: ErrUnknownRecordType})
		}
		t.Message = m
	}
	switch {
	case prefixed:
		name, ref := "version", refValueVersion
		if key || m != nil && m.IsRecordKey() {
			name, ref = "record_type", refRecordType
		}
		if m != nil {
			d.b.T.Nodes[root].Reshape(partShape(tree.Message, m.Root, nil, 0))
		}
		d.b.Open(tree.Node{S: shapeFrame})
		p := d.r.Int16()
		if d.r.Failed() {
			d.r.SetPath(name)
			d.closeTree(refUndecoded)
			return t, d.r.Err()
		}
		d.b.Leaf(tree.Node{Off: 0, Size: 2, S: prefixShape(ref)})
		d.b.Close(2)
		if m == nil {
			if m = c.Set.RecordKey(tp, p); m == nil {
				return t, c.undecoded(d, &wire.Error{Offset: 0, Path: name, Msg: fmt.Sprintf("no key spec of record type %d in %s", p, tp.TopicName()), Err: ErrUnknownRecordType})
			}
			t.Message = m
		}
		v, err := m.VersionOfPrefix(p)
		if err != nil {
			sentinel := ErrUnknownVersion
			if m.IsRecordKey() {
				sentinel = ErrUnknownRecordType
			} else {
				// A value's prefix is its version, one the spec lacks:
				// the tree says so, as a metadata record's frame does.
				t.Version = p
				d.b.T.Nodes[root].Reshape(partShape(tree.Message, m.Root, m, p))
			}
			return t, c.undecoded(d, &wire.Error{Offset: 0, Path: name, Msg: err.Error(), Err: sentinel})
		}
		ver = v
		t.Version = ver
	case m == nil || m.Type == spec.Metadata:
		d.b.Open(tree.Node{S: shapeFrame})
		var vals [3]uint32
		for i, name := range [3]string{"frame_version", "api_key", "version"} {
			off := d.r.Off
			verOff = off
			vals[i] = d.r.Uvarint()
			if d.r.Failed() {
				d.r.SetPath(name)
				d.closeTree(refUndecoded)
				return t, d.r.Err()
			}
			d.b.Leaf(tree.Node{Off: int32(off), Size: int32(d.r.Off - off), S: shapeRecordFrame[i]})
		}
		d.b.Close(int32(d.r.Off))
		if vals[0] != 1 {
			d.closeTree(refUndecoded)
			return t, &wire.Error{Offset: 0, Path: "frame_version", Msg: fmt.Sprintf("metadata record frame version %d is not supported (want 1)", vals[0])}
		}
		if vals[1] > 32767 || vals[2] > 32767 {
			d.closeTree(refUndecoded)
			return t, &wire.Error{Offset: 1, Path: "api_key", Msg: "api key or version above 32767"}
		}
		var mm *spec.Message
		if tp != "" {
			mm = c.Set.TopicRecord(tp, int16(vals[1]))
		} else {
			mm = c.Set.MetadataRecord(int16(vals[1]))
		}
		if mm == nil || (m != nil && mm != m) {
			e := &wire.Error{Offset: 1, Path: "api_key", Msg: fmt.Sprintf("no metadata record type has api key %d", vals[1])}
			if tp != "" {
				e.Msg = fmt.Sprintf("no record of %s has api key %d", tp.TopicName(), vals[1])
				if mm == nil {
					e.Err = ErrUnknownRecordType
				}
			}
			d.closeTree(refUndecoded)
			return t, e
		}
		m, ver = mm, int16(vals[2])
		t.Message, t.Version = m, ver
	}
	d.b.T.Nodes[root].Reshape(partShape(tree.Message, m.Root, m, ver))
	if err := c.checkVersion(m, ver); err != nil {
		d.closeTree(refUndecoded)
		if tp != "" {
			var ve *VersionError
			if errors.As(err, &ve) {
				return t, &wire.Error{Offset: verOff, Path: "version", Msg: err.Error(), Err: errors.Join(ve, ErrUnknownVersion)}
			}
		}
		return t, err
	}
	return t, c.decodeBody(d, m, ver, 0)
}

// undecoded ends d's tree with the bytes left as one undecoded leaf and
// returns err.
func (c *Codec) undecoded(d *decoder, err error) error {
	d.closeTree(refUndecoded)
	return err
}
