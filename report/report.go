// Package report renders what package flow decodes from a Kafka
// connection — exchanges and problems — as the text lines and JSON lines
// that kwire pcap and kwire proxy print, so that a capture and a live
// proxy describe the same traffic the same way.
//
// A text line starts with the time (Time), then the connection's name as
// the caller chooses it ("#1 10.0.0.1:53422→10.0.0.2:9092"), then what
// happened: for an exchange, ExchangeLine (then a FindingLine per finding
// of its request, with kwire's --check); for a problem, its kind and
// flow.Problem.String; for a proxy connection's start and end,
// ConnectionLine. A JSON line is an Exchange, a Problem or a Connection
// marshalled with encoding/json; their keys are documented on the fields and
// stay the same for both commands. A capture's report ends with its summary
// (WriteSummary, or the Summary JSON line).
//
// kwire call's summary of one exchange (CallSummary, WriteQuorum) is here
// too.
package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/kwire/kwire/clientcheck"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// Time formats a time in the text lines: UTC with microseconds,
// "2026-01-02 03:04:05.000100".
func Time(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.000000")
}

// JSONTime formats a time in the JSON lines: RFC 3339 in UTC with up to
// nanoseconds, "2026-01-02T03:04:05.0001Z".
func JSONTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Latency formats a latency in milliseconds with microsecond precision:
// "0.084 ms".
func Latency(d time.Duration) string {
	return fmt.Sprintf("%.3f ms", float64(d.Microseconds())/1000)
}

// Start is when an exchange began: its request's first byte, or its
// response's when the request was not seen (the zero time without either).
func Start(x *flow.Exchange) time.Time {
	if x.Request != nil {
		return x.Request.Start
	}
	if x.Response != nil {
		return x.Response.Start
	}
	return time.Time{}
}

// maxErrors is how many error codes an exchange line names.
const maxErrors = 5

// ExchangeLine renders an exchange on one line after the connection's
// name conn: api name(key) vN (or "api key K vN" for a key the specs do not
// know, "? (request not seen)", "? (redacted: sent while authenticating)"
// for a frame flow reports with no header, "SASL token" for raw SASL
// tokens after a SaslHandshake v0; neither of these two has a correlation
// id), correlation id, client
// id, the SASL mechanism and user (SASL exchanges, when known), request and
// response sizes in bytes (or why there is no response), the latency, the
// response's error codes (at most five, with their field paths, then how
// many more), the release whose specs decoded it when not the chosen one
// ("(decoded with Kafka 3.9.1's specs)", flow.Exchange.DecodedWith) and
// which side did not decode.
func ExchangeLine(conn string, x *flow.Exchange) string {
	var b strings.Builder
	b.WriteString(conn)
	b.WriteString("  ")
	switch {
	case x.Token:
		b.WriteString("SASL token")
	case x.APIKey < 0 && x.Request != nil:
		// A frame sent while authenticating that did not decode: its
		// header is not shown (flow redacts it whole).
		b.WriteString("? (redacted: sent while authenticating)")
	case x.APIKey < 0:
		b.WriteString("? (request not seen)")
	case x.API == "":
		fmt.Fprintf(&b, "api key %d v%d", x.APIKey, x.Version)
	default:
		fmt.Fprintf(&b, "%s(%d) v%d", x.API, x.APIKey, x.Version)
	}
	if !x.Token && (x.APIKey >= 0 || x.Request == nil) {
		fmt.Fprintf(&b, "  corr %d", x.CorrelationID)
	}
	if x.ClientID != "" {
		fmt.Fprintf(&b, "  client %q", x.ClientID)
	}
	if x.Mechanism != "" {
		fmt.Fprintf(&b, "  mechanism %s", x.Mechanism)
	}
	if x.User != "" {
		fmt.Fprintf(&b, "  user %q", x.User)
	}
	if x.Request != nil {
		fmt.Fprintf(&b, "  req %d B", x.Request.Size)
	}
	switch {
	case x.Response != nil:
		fmt.Fprintf(&b, "  resp %d B", x.Response.Size)
	case x.NoResponse:
		b.WriteString("  no response (acks=0)")
	default:
		b.WriteString("  no response")
	}
	if x.Request != nil && x.Response != nil {
		fmt.Fprintf(&b, "  %s", Latency(x.Latency()))
	}
	if len(x.Errors) > 0 {
		b.WriteString("  errors")
		for i, e := range x.Errors {
			if i == maxErrors {
				fmt.Fprintf(&b, " …%d more", len(x.Errors)-maxErrors)
				break
			}
			fmt.Fprintf(&b, " %s at %s", e, e.Path)
		}
	}
	if x.DecodedWith != "" {
		fmt.Fprintf(&b, "  (decoded with Kafka %s's specs)", x.DecodedWith)
	}
	if x.Request != nil && x.Request.Err != nil {
		b.WriteString("  (request did not decode)")
	}
	if x.Response != nil && x.Response.Err != nil {
		b.WriteString("  (response did not decode)")
	}
	return b.String()
}

// WriteExchange writes an exchange's text line (Time of Start, conn,
// ExchangeLine), a FindingLine for each of its findings and, with trees, the object tree of its request and its
// response (those decoded with flow.Options.KeepTrees) each between blank
// lines, followed by "error: …" when the frame did not decode whole. It
// returns the first write error.
func WriteExchange(w io.Writer, conn string, x *flow.Exchange, trees bool, o render.Options) error {
	if _, err := io.WriteString(w, Time(Start(x))+"  "+ExchangeLine(conn, x)+"\n"); err != nil {
		return err
	}
	for _, f := range x.Findings {
		if _, err := io.WriteString(w, FindingLine(conn, x, f)+"\n"); err != nil {
			return err
		}
	}
	if !trees {
		return nil
	}
	// The trees go straight into the buffer of a *bufio.Writer (as
	// render.WriteTree writes into it), else through one of their own.
	bw, ok := w.(*bufio.Writer)
	if !ok {
		bw = treeWriters.Get().(*bufio.Writer)
		bw.Reset(w)
		defer func() { bw.Reset(nil); treeWriters.Put(bw) }()
	}
	for _, f := range []*flow.Frame{x.Request, x.Response} {
		if f != nil && f.Tree != nil {
			writeFrameTree(bw, f, o)
		}
	}
	if !ok {
		return bw.Flush()
	}
	_, err := bw.Write(nil) // its sticky error, if any
	return err
}

// treeWriters are the buffers WriteExchange writes trees through when its
// writer is not a *bufio.Writer (the proxy's), reused across exchanges.
var treeWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64<<10) }}

// writeFrameTree writes frame f's object tree between blank lines, and
// its error, to w; w's error (sticky) tells whether it was written.
func writeFrameTree(w *bufio.Writer, f *flow.Frame, o render.Options) {
	w.WriteByte('\n')
	render.WriteTree(w, f.Tree, o)
	if f.Err != nil {
		w.WriteString("error: ")
		w.WriteString(f.Err.Error())
		w.WriteByte('\n')
	}
	w.WriteByte('\n')
}

// FindingLine is the text line of finding f of exchange x's request
// (flow.Options.Check), under the exchange's line: Line of the request's
// time, conn and "finding", then the request's api, version and
// correlation id, the rule, the stream offset of what breaks it (and its
// offset in the frame), the field path and what is wrong:
//
//	… #1 …  finding: Metadata(3) v12 corr 7: overlong-varint at stream offset 1234 (frame offset 18) MetadataRequest.Topics.length: uvarint written in 2 bytes where 1 byte would do
func FindingLine(conn string, x *flow.Exchange, f clientcheck.Finding) string {
	var off int64
	if x.Request != nil {
		off = x.Request.Offset
	}
	api := x.API
	if api == "" {
		api = fmt.Sprintf("api key %d", x.APIKey)
	} else {
		api = fmt.Sprintf("%s(%d)", api, x.APIKey)
	}
	return Line(Start(x), conn, "finding", fmt.Sprintf("%s v%d corr %d: %s at stream offset %d (frame offset %d) %s: %s",
		api, x.Version, x.CorrelationID, f.Rule, off+int64(f.Offset), f.Offset, f.Path, f.Msg))
}

// Line is a text line about a connection that is not an exchange: Time of
// t, conn, then "kind: msg".
func Line(t time.Time, conn, kind, msg string) string {
	return fmt.Sprintf("%s  %s  %s: %s", Time(t), conn, kind, msg)
}

// ProblemLine is a problem's text line: Line of its time, conn, its kind
// ("frame-too-large") and flow.Problem.String.
func ProblemLine(conn string, p *flow.Problem) string {
	return Line(p.Time, conn, p.Kind.String(), p.String())
}

// Frame is a request or response in an Exchange's JSON line.
type Frame struct {
	// Time is when its first byte was seen (JSONTime).
	Time string `json:"time"`
	// Offset is where it starts in its direction's byte stream.
	Offset int64 `json:"stream_offset"`
	// Size is the frame's size in bytes, the size prefix included.
	Size int `json:"size"`
	// Error is why it did not decode whole, null when it did.
	Error *string `json:"error"`
	// Header and Body are its header and body as Kafka's converters write
	// them (codec.ConverterJSON), with FrameOptions.JSON and a tree.
	Header json.RawMessage `json:"header_json,omitempty"`
	Body   json.RawMessage `json:"json,omitempty"`
	// Tree is its page JSON (render.WriteJSONWith) on one line, with
	// FrameOptions.Page and a tree.
	Tree json.RawMessage `json:"tree,omitempty"`

	// page is the page of Tree to write when WriteLine writes the line
	// (FrameOptions.Deferred), with its options.
	page   *render.Page
	render render.Options
	// body is Body with its records marked (render.ConverterJSONMarked),
	// to write when WriteLine writes the line (FrameOptions.Deferred),
	// from tree bodyTree.
	body     []byte
	bodyTree *tree.Tree
}

// bodyMark stands for a deferred Body (FrameOptions.Deferred) in a line
// until WriteLine writes it there, its records' base64 streamed. Like
// treeMark it escapes a letter, which encoding/json never does: no value
// of the line (a client id, a topic name) is written as a mark. (A client
// id of NUL and "kwire-body" was, and its line's JSON went wrong.)
const bodyMark = `"\u004bwire-body"`

// treeMark stands for a deferred Tree (FrameOptions.Deferred) in a line
// until WriteLine writes the page there: a string no page JSON is.
const treeMark = `"\u004bwire-page"`

// FrameOptions choose what NewFrame adds to a frame decoded with its tree
// kept (flow.Options.KeepTrees).
type FrameOptions struct {
	// Set is the specs the frame was decoded with; its request or
	// response header spec writes "header_json".
	Set *spec.Set
	// JSON adds the body and header in Kafka's converter JSON ("json",
	// "header_json").
	JSON bool
	// Page adds the page JSON of the frame's tree ("tree"), its record
	// bytes shown as Render chooses.
	Page   bool
	Render render.Options
	// Deferred leaves the page JSON to WriteLine, which writes it into
	// the line as it is made, not held: a frame's page JSON is hundreds
	// of times its size.
	Deferred bool
}

// NewFrame describes f for a JSON line; nil for nil. A part that cannot be
// written is left out.
func NewFrame(f *flow.Frame, o FrameOptions) *Frame {
	if f == nil {
		return nil
	}
	j := &Frame{Time: JSONTime(f.Start), Offset: f.Offset, Size: f.Size}
	if f.Err != nil {
		s := f.Err.Error()
		j.Error = &s
	}
	if f.Tree == nil {
		return j
	}
	switch {
	case o.JSON && o.Deferred:
		// The records' base64 is written by WriteLine, not held (a frame
		// of 14 MB took pcap --tree --format json 108 MiB).
		if body, header, err := render.ConverterJSONMarked(o.Set, f.Tree, f.Err); err == nil {
			j.Header = header
			if body != nil {
				j.Body, j.body, j.bodyTree = json.RawMessage(bodyMark), body, f.Tree
			}
		}
	case o.JSON:
		if body, header, err := codec.ConverterJSON(o.Set, f.Tree, f.Err); err == nil {
			j.Body, j.Header = body, header
		}
	}
	if o.Page && o.Deferred {
		j.Tree = json.RawMessage(treeMark)
		j.page = &render.Page{Set: o.Set, Sides: []render.Side{{Label: "Frame", Tree: f.Tree, Err: f.Err}}}
		j.render = o.Render
	} else if o.Page {
		side := render.Side{Label: "Frame", Tree: f.Tree, Err: f.Err}
		var compact bytes.Buffer
		// Compacted as it is written: the indented page was held whole
		// beside its compact copy (a 5 KB frame of 20000 headers took
		// pcap --format json --tree to 257 MiB).
		if render.WriteJSONWith(&compactWriter{w: &compact}, &render.Page{Set: o.Set, Sides: []render.Side{side}}, o.Render, nil) == nil {
			j.Tree = compact.Bytes()
		}
	}
	return j
}

// ErrorCode is a non-zero error code of a response in an Exchange's JSON
// line.
type ErrorCode struct {
	Code int16  `json:"code"`
	Name string `json:"name"` // Kafka's name, "" when unknown
	Path string `json:"path"` // "MetadataResponse.Topics[0].ErrorCode"
}

// Exchange is an exchange's JSON line: type "exchange".
type Exchange struct {
	Type string `json:"type"`
	// Time is Start's, as JSONTime.
	Time string `json:"time"`
	// Conn numbers the connection; Client and Server are the addresses of
	// its two ends.
	Conn   uint64 `json:"conn"`
	Client string `json:"client"`
	Server string `json:"server"`
	// API is the api's name, null for a key the specs do not know.
	API           *string `json:"api"`
	APIKey        int16   `json:"api_key"`
	Version       int16   `json:"version"`
	CorrelationID int32   `json:"correlation_id"`
	ClientID      string  `json:"client_id"`
	// Request and Response are null when not seen.
	Request  *Frame `json:"request"`
	Response *Frame `json:"response"`
	// NoResponse is true when no response was seen (Response is null), as
	// the text line's "no response"; NoResponseExpected when none will
	// come: a Produce request with acks=0 (the text's "(acks=0)").
	NoResponse         bool `json:"no_response"`
	NoResponseExpected bool `json:"no_response_expected"`
	// LatencyNs is from the request's last byte to the response's, null
	// without both.
	LatencyNs *int64      `json:"latency_ns"`
	Errors    []ErrorCode `json:"errors"`
	// SASLToken marks raw SASL tokens after a SaslHandshake v0 (no
	// header: api null, api_key, version -1, correlation_id 0); absent
	// otherwise.
	SASLToken bool `json:"sasl_token,omitempty"`
	// Mechanism and User are the SASL mechanism and user of a SASL
	// exchange (flow.Exchange), absent when not known.
	Mechanism string `json:"mechanism,omitempty"`
	User      string `json:"user,omitempty"`
	// DecodedWith is the release whose specs decoded the exchange when the
	// chosen release does not accept its version ("3.9.1",
	// flow.Exchange.DecodedWith); absent otherwise.
	DecodedWith string `json:"decoded_with,omitempty"`
	// Findings are what the check of the client's request found
	// (flow.Options.Check), absent when nothing.
	Findings []Finding `json:"findings,omitempty"`
}

// Finding is a finding of the check of a client's request in an
// Exchange's JSON line (clientcheck.Finding).
type Finding struct {
	// Rule is the rule's name ("overlong-varint").
	Rule string `json:"rule"`
	// Path is the field path of what breaks it.
	Path string `json:"path"`
	// Offset is its stream offset in the client's direction, FrameOffset
	// its offset in the request's frame (0 is the size prefix's first
	// byte).
	Offset      int64  `json:"stream_offset"`
	FrameOffset int    `json:"frame_offset"`
	Message     string `json:"message"`
}

// NewExchange describes x, seen on connection conn between client and
// server, for a JSON line; frame describes each of its frames (NewFrame
// with the caller's options).
func NewExchange(x *flow.Exchange, conn uint64, client, server string, frame func(*flow.Frame) *Frame) *Exchange {
	j := &Exchange{Type: "exchange", Time: JSONTime(Start(x)), Conn: conn, Client: client, Server: server,
		APIKey: x.APIKey, Version: x.Version, CorrelationID: x.CorrelationID, ClientID: x.ClientID,
		Request: frame(x.Request), Response: frame(x.Response),
		NoResponse: x.Response == nil, NoResponseExpected: x.NoResponse, Errors: []ErrorCode{},
		SASLToken: x.Token, Mechanism: x.Mechanism, User: x.User, DecodedWith: x.DecodedWith}
	if x.API != "" {
		api := x.API
		j.API = &api
	}
	if x.Request != nil && x.Response != nil {
		ns := x.Latency().Nanoseconds()
		j.LatencyNs = &ns
	}
	for _, e := range x.Errors {
		j.Errors = append(j.Errors, ErrorCode{Code: e.Code, Name: e.Name, Path: e.Path})
	}
	for _, f := range x.Findings {
		off := int64(f.Offset)
		if x.Request != nil {
			off += x.Request.Offset
		}
		j.Findings = append(j.Findings, Finding{Rule: f.Rule.String(), Path: f.Path, Offset: off, FrameOffset: f.Offset, Message: f.Msg})
	}
	return j
}

// Problem is a problem's JSON line (type "problem"), or a notice's (type
// "notice": something worth knowing that is not wrong, e.g. a capture
// that starts inside a connection).
type Problem struct {
	Type string `json:"type"`
	// Kind is flow.Kind's name ("frame-too-large") or a notice's kind.
	Kind   string `json:"kind"`
	Time   string `json:"time"`
	Conn   uint64 `json:"conn"`
	Client string `json:"client"`
	Server string `json:"server"`
	// Dir is "c2s" or "s2c" (flow.Dir), absent for a notice about the
	// connection.
	Dir string `json:"dir,omitempty"`
	// Offset is where in Dir's byte stream.
	Offset *int64 `json:"stream_offset,omitempty"`
	// Size is the frame's size prefix (frame-too-large, negative-size,
	// not-kafka, truncated, decode-failed, records); absent for a
	// truncated size prefix (flow.Problem's Size -1).
	Size *int64 `json:"size,omitempty"`
	// Have is the bytes of a truncated frame that arrived after its size
	// prefix, or of a truncated size prefix (1-3).
	Have *int64 `json:"have,omitempty"`
	// Skipped is the bytes skipped (resync, garbage).
	Skipped *int64 `json:"skipped,omitempty"`
	// Missing is the bytes missing (gap).
	Missing *int64 `json:"missing,omitempty"`
	// Protocol is what not-kafka bytes look like ("TLS", "HTTP").
	Protocol string `json:"protocol,omitempty"`
	// APIKey, Version and CorrelationID name the frame's request when
	// known (decode-failed, records, not-held).
	APIKey        *int16 `json:"api_key,omitempty"`
	Version       *int16 `json:"version,omitempty"`
	CorrelationID *int32 `json:"correlation_id,omitempty"`
	// TreeBytes is the footprint of the tree not held, Limit the bound it
	// would pass (not-held, a notice).
	TreeBytes *int64 `json:"tree_bytes,omitempty"`
	Limit     *int64 `json:"limit,omitempty"`
	// Message is the text line's message (flow.Problem.String).
	Message string `json:"message"`
}

// NewProblem describes p, seen on connection conn between client and
// server, for a JSON line of type "problem".
func NewProblem(p *flow.Problem, conn uint64, client, server string) *Problem {
	j := &Problem{Type: "problem", Kind: p.Kind.String(), Time: JSONTime(p.Time), Conn: conn, Client: client, Server: server,
		Dir: p.Dir.String(), Protocol: p.Protocol, Message: p.String()}
	off := p.Offset
	j.Offset = &off
	if k := p.Kind; p.APIKey >= 0 && (k == flow.DecodeFailed || k == flow.Records || k == flow.NotHeld) {
		key, ver, corr := p.APIKey, p.Version, p.CorrelationID
		j.APIKey, j.Version, j.CorrelationID = &key, &ver, &corr
	}
	switch p.Kind {
	case flow.Truncated:
		if n := p.Size; n >= 0 {
			j.Size = &n
		}
		h := p.Have
		j.Have = &h
	case flow.FrameTooLarge, flow.NegativeSize, flow.NotKafka, flow.DecodeFailed, flow.Records:
		n := p.Size
		j.Size = &n
	case flow.NotHeld:
		// A limit of the decoder, not a fault of the stream.
		n, tb, lim := p.Size, p.Tree, int64(p.Limit)
		j.Type, j.Size, j.TreeBytes, j.Limit = "notice", &n, &tb, &lim
	case flow.Resync, flow.Garbage:
		n := p.Skipped
		j.Skipped = &n
	case flow.Gap:
		n := p.Missing
		j.Missing = &n
	}
	return j
}

// WriteLine writes v as one JSON line to w, the deferred pages of frames
// (FrameOptions.Deferred; those of v, in the order v's JSON has them)
// written in place as they are made. The error is json.Marshal's or w's.
func WriteLine(w io.Writer, v any, frames ...*Frame) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	// at writes b up to mark, then what write writes in its place.
	at := func(mark string, write func() error) error {
		i := bytes.Index(b, []byte(mark))
		if i < 0 {
			return fmt.Errorf("report: no %s in the line", mark)
		}
		if _, err := w.Write(b[:i]); err != nil {
			return err
		}
		b = b[i+len(mark):]
		return write()
	}
	for _, f := range frames {
		if f == nil {
			continue
		}
		if f.body != nil {
			// Body comes before Tree in a frame's JSON.
			if err := at(bodyMark, func() error { return render.WriteMarked(w, f.body, f.bodyTree) }); err != nil {
				return err
			}
		}
		if f.page != nil {
			err := at(treeMark, func() error {
				return WriteCompact(w, func(w io.Writer) error { return render.WriteJSONWith(w, f.page, f.render, nil) })
			})
			if err != nil {
				return err
			}
		}
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// WriteCompact writes to w the JSON text that write writes, without the
// whitespace between its tokens (json.Compact's output), as it streams
// by: no copy of the text is held. The error is write's or w's.
func WriteCompact(w io.Writer, write func(io.Writer) error) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := write(&compactWriter{w: bw}); err != nil {
		return err
	}
	return bw.Flush()
}

// compactWriter writes the JSON text written to it to w without the
// whitespace between its tokens (json.Compact's output, as the text
// streams by): render.WriteJSONWith's indentation.
type compactWriter struct {
	w interface{ WriteByte(byte) error }
	// inString and escaped say where the last byte written left the
	// text: inside a string, after its backslash.
	inString, escaped bool
}

func (c *compactWriter) Write(p []byte) (int, error) {
	for _, b := range p {
		switch {
		case c.escaped:
			c.escaped = false
		case c.inString:
			c.escaped = b == '\\'
			c.inString = b != '"'
		case b == '"':
			c.inString = true
		case b == ' ' || b == '\n' || b == '\t' || b == '\r':
			continue
		}
		c.w.WriteByte(b)
	}
	return len(p), nil
}
