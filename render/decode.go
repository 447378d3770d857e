package render

import (
	"errors"
	"fmt"
	"path"
	"unicode/utf8"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// Claim says what the bytes given to Decode are. The zero value is one or
// more framed requests, each header choosing its spec.
type Claim struct {
	// API names what the bytes are: an API (its request, checked against
	// the request header; "VoteResponse" or Response: its response), a
	// metadata record type (PartitionRecord: a record value with its
	// frame, which says the type and version) or a data type (the bare
	// message at Version). Empty: framed requests.
	API string
	// Version is the version of the bytes: checked against a request
	// header or a record frame; required for a response and a data type.
	// Nil when not given.
	Version *int16
	// Response says the bytes are framed responses of API at Version.
	Response bool
	// Strict sets the codec's Strict.
	Strict bool
	// MaxDecompressed bounds what the compressed record payloads of the
	// bytes decompress to, one or together, since every frame's tree
	// holds them (bytes; 0: records.DefaultMaxView): it is each payload's
	// records.Options.MaxDecompressed, each tree's MaxDecompressedTotal
	// and the Budget of all the bytes' frames.
	MaxDecompressed int64
	// MaxNodes bounds the nodes of the frames' trees, which the frames
	// of the bytes share: a frame's records stop when its tree holds
	// what the frames before it left (records.Options.MaxNodes; 0: no
	// bound but what the payloads' bytes allow).
	MaxNodes int
}

// ClaimError is a Claim that cannot be decoded as given: a response or a
// data type without the API or version it needs, or a response asked of
// a type that is not an API.
type ClaimError struct {
	// Message is the message the claim names; nil when it names none.
	Message *spec.Message
	// NotAPI: a response was asked of Message, which is no API.
	NotAPI bool
	// NeedAPI and NeedVersion say what is missing.
	NeedAPI, NeedVersion bool
}

// Error says what is missing or wrong.
func (e *ClaimError) Error() string {
	switch {
	case e.NotAPI:
		return fmt.Sprintf("%s is a %s type, not an API: it has no response", e.Message.Name, e.Message.Type)
	case e.Message != nil && !IsAPI(e.Message):
		return fmt.Sprintf("decoding %s needs its version: a %s type's bytes do not say their version", e.Message.Name, e.Message.Type)
	case e.NeedAPI:
		return "decoding a response needs its API and version: a response does not say what it answers"
	}
	return "decoding a response needs its version: a response does not say what it answers"
}

// MismatchError is bytes whose request header or metadata record frame
// says another message or version than the Claim.
type MismatchError struct {
	// Where is "request header", "record frame" or "int16 prefix".
	Where string
	// Found is what the bytes say, Claimed what the claim says; Claimed is
	// nil when only the version differs (then Found is the claimed
	// message).
	Found, Claimed *spec.Message
	// FoundVersion and ClaimedVersion are the versions when only they
	// differ.
	FoundVersion, ClaimedVersion int16
}

// Error says what the bytes say and what was claimed: "the request header
// says VoteRequest v2, not v1".
func (e *MismatchError) Error() string {
	if e.Claimed != nil {
		return fmt.Sprintf("the %s says %s (api key %d), not %s (api key %d)", e.Where, e.Found.Name, e.Found.APIKey, e.Claimed.Name, e.Claimed.APIKey)
	}
	return fmt.Sprintf("the %s says %s v%d, not v%d", e.Where, e.Found.Name, e.FoundVersion, e.ClaimedVersion)
}

// NotRequestError is the error of bytes decoded as a request whose header
// does not fit a request: an api key or version no embedded Kafka release
// has (or only another release has: Release), a client id that does not
// fit the frame, or an api key and version other than the claimed
// request's; or, with no request claimed and a null or empty client id,
// whose body does not decode (a body error after a header with a client
// id is the body's). The bytes may be a response.
type NotRequestError struct {
	// Err is the decoding error.
	Err error
	// Why says what does not fit ("bytes 4-7 read as a request header
	// say ProduceRequest v0, not VoteRequest", "the bytes decode as
	// ProduceRequest v0 of Kafka 3.9.1": a request of Release, or a
	// response).
	// Empty when only the body does not decode.
	Why string
	// Claimed is the request the claim names; nil when it names none.
	Claimed *spec.Message
	// Release is another embedded Kafka release whose request of the
	// header's api key and version the bytes decode as (as far as they go,
	// when the frame is cut short); nil when none.
	Release *spec.Set
}

// Error renders the decoding error, what does not fit, and that the bytes
// may be a response.
func (e *NotRequestError) Error() string {
	if e.Why == "" {
		return fmt.Sprintf("%v: these bytes may be a response", e.Err)
	}
	return fmt.Sprintf("%v; %s: these bytes may be a response", e.Err, e.Why)
}

// Unwrap returns Err.
func (e *NotRequestError) Unwrap() error { return e.Err }

// HintOnly reports whether pages and err, as Decode returned them, are one
// frame whose request header says it is no request (a *NotRequestError
// that says why, with or without a claimed API): its page would show the
// bytes as a request they are not, so the error and its hint are shown
// alone.
func HintOnly(pages []*Page, err error) bool {
	var ne *NotRequestError
	return len(pages) == 1 && errors.As(err, &ne) && ne.Why != ""
}

// StreamError is the error of one frame of an input that holds several,
// one after another (a TCP stream's bytes).
type StreamError struct {
	// Frame is the frame's number (1-based), Offset where it starts in
	// the input.
	Frame, Offset int
	// Err is the frame's error; its offsets count from the frame's start.
	Err error
}

// Error names the frame and where it starts: "frame 2 (at 0x006e of the
// input): …".
func (e *StreamError) Error() string {
	return fmt.Sprintf("frame %d (at 0x%04x of the input): %v", e.Frame, e.Offset, e.Err)
}

// Unwrap returns Err.
func (e *StreamError) Unwrap() error { return e.Err }

// Decode decodes b as c says. Framed requests and responses come one page
// per frame when b holds several one after another (a TCP stream's bytes
// of one direction), each with its Frame, Frames and Offset set; the
// decoding stops at the first frame that does not decode whole, with a
// *StreamError. Anything else is one page.
//
// No pages come with an error about the claim (*ClaimError, a version the
// message does not have: *codec.VersionError, a name the specs do not
// have). Pages with an error hold the partial tree decoded before it (the
// last page), and the error is also its side's Err. Errors of requests
// whose header does not fit a request are *NotRequestError; bytes that
// say another message or version than c, *MismatchError.
//
// An ApiVersions response that does not decode at the version claimed but
// does at v0 is shown at v0, with a Note: a broker answers an ApiVersions
// request of a version it does not support in the v0 layout (error code
// 35, UNSUPPORTED_VERSION), and Kafka's client reads it so.
func Decode(set *spec.Set, c Claim, b []byte) ([]*Page, error) {
	var req, resp *spec.Message
	response := c.Response
	if c.API != "" {
		named, _, err := set.Lookup(c.API)
		if err != nil {
			return nil, err
		}
		// An API named by its response ("VoteResponse") means the bytes
		// are a response.
		response = response || named.Type == spec.Response
		req, resp, _ = Resolve(set, c.API)
	}
	cd := codec.New(set)
	cd.Strict = c.Strict
	held := c.MaxDecompressed
	if held <= 0 {
		held = records.DefaultMaxView
	}
	cd.Records.ShowWhole(held, c.MaxNodes)
	// shared gives the next frame what the frames before it left of
	// MaxNodes (at least one node): every frame's tree is held until the
	// pages are written (100 frames of header bombs, 60 MB, took decode
	// 911 MiB). A first frame that fails alone and is decoded again with
	// the bytes after it counts twice.
	used := 0
	shared := func(t *tree.Tree) {
		if t != nil && c.MaxNodes > 0 {
			used += len(t.Nodes)
			cd.Records.MaxNodes = max(c.MaxNodes-used, 1)
		}
	}
	version := c.Version
	switch {
	case response:
		if req != nil && !IsAPI(req) && resp == nil {
			return nil, &ClaimError{Message: req, NotAPI: true}
		}
		if c.API == "" || version == nil {
			return nil, &ClaimError{NeedAPI: c.API == "", NeedVersion: true}
		}
		if resp == nil {
			return nil, fmt.Errorf("%s has no response spec in %s", c.API, SetName(set))
		}
		if !resp.ValidVersions.Contains(*version) {
			return nil, &codec.VersionError{Message: resp.Name, Version: *version, Valid: resp.ValidVersions, In: SetName(set)}
		}
		return frames(set, b, func(f []byte) (side Side, _ error) {
			t, err := cd.DecodeResponse(f, resp, *version)
			defer func() { shared(side.Tree) }()
			side = Side{Label: "Response", Tree: t}
			if err != nil && resp.APIKey == apiVersionsKey && *version != 0 && !isFrameError(err) {
				if t0, err0 := cd.DecodeResponse(f, resp, 0); err0 == nil {
					side.Tree, err = t0, nil
					code := errorCode(t0)
					side.Note = fmt.Sprintf("decoded as v0, not v%d: the bytes do not read as %s v%d, and a broker answers an ApiVersions request of a version it does not support in the v0 layout; the error code is %d", *version, resp.Name, *version, code)
					switch code {
					case 35:
						side.Note += " (UNSUPPORTED_VERSION)"
					case 0:
						side.Note += fmt.Sprintf(" (NONE), not 35 (UNSUPPORTED_VERSION): error code 0 in the v0 layout is the answer to a v0 request, so the version asked, v%d, is likely wrong", *version)
					}
				}
			}
			return side, err
		})
	case c.API == "" || IsAPI(req):
		return frames(set, b, func(f []byte) (Side, error) {
			t, err := cd.DecodeRequest(f)
			shared(t)
			switch {
			case err == nil:
				err = checkRequest(t, req, version)
			default:
				err = notRequest(set, t, f, err, req, version)
			}
			return Side{Label: "Request", Tree: t}, err
		})
	case req.VersionPrefixed():
		// The int16 prefix says the record type (a key) or the version (a
		// value): --version is checked against it, not needed.
		t, err := cd.DecodeRecord(b, req, 0)
		if err == nil && version != nil && t.Version != *version {
			err = &MismatchError{Where: "int16 prefix", Found: req, FoundVersion: t.Version, ClaimedVersion: *version}
		}
		return onePage(set, Side{Label: "Record", Tree: t, Err: err}), err
	case req.Type == spec.Metadata:
		// Let the frame's api key choose the type, then compare: a record
		// of another type is still shown whole. An internal topic's
		// record (remote-log-metadata) is read among its topic's types.
		var in *spec.Message
		if req.Topic != "" {
			in = req
		}
		t, err := cd.DecodeRecord(b, in, 0)
		switch {
		case err != nil:
		case t.Message != req:
			err = &MismatchError{Where: "record frame", Found: t.Message, Claimed: req}
		case version != nil && t.Version != *version:
			err = &MismatchError{Where: "record frame", Found: req, FoundVersion: t.Version, ClaimedVersion: *version}
		}
		return onePage(set, Side{Label: "Record", Tree: t, Err: err}), err
	default:
		if version == nil {
			return nil, &ClaimError{Message: req, NeedVersion: true}
		}
		if !req.ValidVersions.Contains(*version) {
			return nil, &codec.VersionError{Message: req.Name, Version: *version, Valid: req.ValidVersions, In: SetName(set)}
		}
		t, err := cd.DecodeRecord(b, req, *version)
		return onePage(set, Side{Label: "Record", Tree: t, Err: err}), err
	}
}

// apiVersionsKey is ApiVersions' api key.
const apiVersionsKey = 18

func onePage(set *spec.Set, s Side) []*Page {
	return []*Page{{Set: set, Sides: []Side{s}}}
}

// isFrameError reports whether err is about the size prefix alone: no
// frame to read a header or body from.
func isFrameError(err error) bool {
	var fe *codec.FrameError
	return errors.As(err, &fe) && err == error(fe)
}

// frames decodes b as frames one after another with one, a page each: one
// page when b is one frame (or not a whole frame followed by more). Each
// frame is decoded on its own bytes, as its size prefix (frame.Size)
// delimits them.
func frames(set *spec.Set, b []byte, one func([]byte) (Side, error)) ([]*Page, error) {
	var pages []*Page
	for off := 0; ; {
		rest := b[off:]
		if size, ok := frame.Size(rest); ok && size >= 4 && int64(size)+4 < int64(len(rest)) {
			// A whole frame and more bytes: decode the frame alone, then
			// the rest. A first frame that fails alone is shown with all
			// the bytes, as one frame with bytes after it.
			n := int(size) + 4
			side, err := one(rest[:n])
			if err == nil || off > 0 {
				side.Err = err
				pages = append(pages, &Page{Set: set, Sides: []Side{side}, Offset: off})
				if err != nil {
					break
				}
				off += n
				continue
			}
		}
		side, err := one(rest)
		side.Err = err
		pages = append(pages, &Page{Set: set, Sides: []Side{side}, Offset: off})
		break
	}
	if len(pages) == 1 {
		return pages, pages[0].Sides[0].Err
	}
	for k, p := range pages {
		p.Frame, p.Frames = k+1, len(pages)
	}
	last := pages[len(pages)-1]
	if err := last.Sides[0].Err; err != nil {
		return pages, &StreamError{Frame: last.Frame, Offset: last.Offset, Err: err}
	}
	return pages, nil
}

// checkRequest checks a decoded request against the claimed request and
// version.
func checkRequest(t *tree.Tree, want *spec.Message, version *int16) error {
	if want != nil && t.Message != want {
		return &MismatchError{Where: "request header", Found: t.Message, Claimed: want}
	}
	if version != nil && t.Version != *version {
		return &MismatchError{Where: "request header", Found: t.Message, FoundVersion: t.Version, ClaimedVersion: *version}
	}
	return nil
}

// notRequest returns err as a *NotRequestError when frame f's request
// header does not fit a request (see NotRequestError), else err. t is the
// tree of f decoded as a request.
func notRequest(set *spec.Set, t *tree.Tree, f []byte, err error, claimed *spec.Message, version *int16) error {
	// Api key, version, correlation id and client id are the same in
	// every request header version from 1 on.
	h, herr := frame.ParseRequestHeader(f, 1)
	var we *wire.Error
	if herr != nil && (!errors.As(herr, &we) || we.Offset < 8) {
		return err // no api key and version to go by
	}
	key, ver := h.APIKey, h.APIVersion
	if claimed != nil && (key != claimed.APIKey || version != nil && ver != *version) {
		says := fmt.Sprintf("api key %d", key)
		if m := set.Request(key); m != nil {
			says = fmt.Sprintf("%s (api key %d)", m.Name, key)
		}
		return &NotRequestError{Err: err, Why: fmt.Sprintf("bytes 4-7 read as a request header say %s v%d, not %s", says, ver, claimed.Name), Claimed: claimed}
	}
	if isFrameError(err) {
		return err
	}
	if why := clientIDMisfit(h, herr); why != "" {
		return &NotRequestError{Err: err, Why: why, Claimed: claimed}
	}
	why := ""
	var ve *codec.VersionError
	switch known, other := anyRelease(set, key, ver); {
	case !known:
		why = fmt.Sprintf("no Kafka release kwire embeds has a request with api key %d", key)
	case other == nil && errors.As(err, &ve):
		why = fmt.Sprintf("no Kafka release kwire embeds has version %d of %s", ver, ve.Message)
	case other != nil && errors.As(err, &ve):
		// Another release has the version: the hint to use it holds only
		// if the bytes decode there (as far as they go, when the frame is
		// cut short).
		if n := frameSize(t); n >= 0 && n < len(f) {
			f = f[:n]
		}
		var fe *codec.FrameError
		if _, oerr := codec.New(other).DecodeRequest(f); oerr != nil && !errors.As(oerr, &fe) {
			why = fmt.Sprintf("the bytes do not decode as %s v%d of %s either (%v)", ve.Message, ver, SetName(other), oerr)
		} else {
			why = fmt.Sprintf("the bytes decode as %s v%d of %s", ve.Message, ver, SetName(other))
			return &NotRequestError{Err: err, Why: why, Claimed: claimed, Release: other}
		}
	case errors.As(err, &we) && we.Path == "RequestHeader.RequestApiKey":
		why = fmt.Sprintf("api key %d is a request of other Kafka releases only", key)
	}
	var fe *codec.FrameError
	if why == "" && (claimed != nil || errors.As(err, &fe) || len(h.ClientID) > 0) {
		// A body that fails against a claimed request whose header fits,
		// where a cut frame ends, or after a header with a known api key
		// and version and a client id (clientIDMisfit found it printable
		// UTF-8): a request, as far as the bytes say. A response read as
		// a request header has a null or empty client id far more often
		// than not (its first bytes after the correlation id are mostly
		// zeros).
		return err
	}
	return &NotRequestError{Err: err, Why: why, Claimed: claimed}
}

// clientIDMisfit says what is wrong with the client id of request header
// h (herr: the error reading it): it does not fit the frame, or it holds
// control characters; "" when it looks right.
func clientIDMisfit(h frame.RequestHeader, herr error) string {
	if herr != nil {
		return fmt.Sprintf("the bytes do not read as a request header (%v)", herr)
	}
	if !utf8.Valid(h.ClientID) {
		return "the client id at 0x000c is not UTF-8"
	}
	for _, r := range string(h.ClientID) {
		if r < 0x20 || r == 0x7f {
			return "the client id at 0x000c holds control characters"
		}
	}
	return ""
}

// anyRelease reports whether set or any embedded Kafka release has a
// request with api key key, and returns the newest embedded release other
// than set that has it at version ver (nil when none has). Releases are
// parsed newest first, only until that one.
func anyRelease(set *spec.Set, key, ver int16) (known bool, other *spec.Set) {
	known = set.Request(key) != nil
	for _, r := range bundle.Releases() {
		if r == set.Release {
			continue
		}
		s, err := spec.Embedded(r)
		if err != nil {
			continue
		}
		if m := s.Request(key); m != nil {
			known = true
			if m.ValidVersions.Contains(ver) {
				return true, s
			}
		}
	}
	return known, nil
}

// frameSize returns the frame length (size prefix included) that the size
// field of t says, or -1.
func frameSize(t *tree.Tree) int {
	if t == nil {
		return -1
	}
	fi := t.Part(tree.Frame)
	if fi < 0 {
		return -1
	}
	si := t.Find(fi, tree.FrameField)
	if si < 0 {
		return -1
	}
	return int(t.Num(si)) + 4
}

// errorCode returns the top-level ErrorCode of response t, or -1.
func errorCode(t *tree.Tree) int64 {
	bi := t.Part(tree.Body)
	if bi < 0 {
		return -1
	}
	for _, f := range t.Message.Root.Fields {
		if f.Name == "ErrorCode" {
			if i := t.Lookup(bi, f); i >= 0 {
				return t.Num(i)
			}
		}
	}
	return -1
}

// Resolve finds what name stands for: an API's request and response (for
// any of "Vote", "vote", "52", "VoteRequest", "VoteResponse"; either may be
// nil in a draft that lacks one), or one other message as req with resp
// nil. The error is the Set's lookup error.
func Resolve(set *spec.Set, name string) (req, resp *spec.Message, err error) {
	req, resp, err = set.Lookup(name)
	if err != nil {
		return nil, nil, err
	}
	if req == nil { // a draft with only the response
		return nil, resp, nil
	}
	switch req.Type {
	case spec.Request:
		if resp == nil && req.APIKey >= 0 {
			resp = set.Response(req.APIKey)
		}
	case spec.Response:
		resp, req = req, nil
		if resp.APIKey >= 0 {
			req = set.Request(resp.APIKey)
		}
	}
	return req, resp, nil
}

// IsAPI reports whether m is a request or response.
func IsAPI(m *spec.Message) bool {
	return m != nil && (m.Type == spec.Request || m.Type == spec.Response)
}

// SetName names a set in messages: "Kafka 4.4.0", or the base name of the
// path it was loaded from.
func SetName(s *spec.Set) string {
	if s.Release != "" {
		return "Kafka " + s.Release
	}
	return path.Base(s.Source)
}
