package frame

import (
	"encoding/binary"
	"fmt"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/wire"
)

// DefaultMax is the largest size prefix accepted by default: 100 MiB, the
// default of Kafka's socket.request.max.bytes.
const DefaultMax = 100 << 20

// Size returns the size prefix at the start of b: the int32 count of the
// bytes that follow it. ok is false when b has fewer than 4 bytes.
func Size(b []byte) (size int32, ok bool) {
	if len(b) < 4 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(b)), true
}

// AppendSize appends n as a size prefix (int32, big-endian).
func AppendSize(dst []byte, n int32) []byte { return wire.AppendInt32(dst, n) }

// RequestAPI returns the request_api_key and request_api_version of the
// request frame fr (size prefix included: bytes 4-7), which every request
// header version starts with. ok is false when fr has fewer than 8 bytes.
func RequestAPI(fr []byte) (key, version int16, ok bool) {
	if len(fr) < 8 {
		return 0, 0, false
	}
	return int16(binary.BigEndian.Uint16(fr[4:])), int16(binary.BigEndian.Uint16(fr[6:])), true
}

// RequestCorrelationID returns the correlation_id of the request frame fr
// (size prefix included: bytes 8-11). ok is false when fr has fewer than
// 12 bytes.
func RequestCorrelationID(fr []byte) (id int32, ok bool) {
	if len(fr) < 12 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(fr[8:])), true
}

// ResponseCorrelationID returns the correlation_id of the response frame fr
// (size prefix included: bytes 4-7), which every response header version
// starts with. ok is false when fr has fewer than 8 bytes.
func ResponseCorrelationID(fr []byte) (id int32, ok bool) {
	if len(fr) < 8 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(fr[4:])), true
}

// RequestClientIDLen returns the int16 length of the client_id of the
// request frame fr (header v1 and v2: bytes 12-13; -1 means null), for a
// caller judging a header before its client id has arrived. ok is false
// when fr has fewer than 14 bytes.
func RequestClientIDLen(fr []byte) (n int16, ok bool) {
	if len(fr) < 14 {
		return 0, false
	}
	return int16(binary.BigEndian.Uint16(fr[12:])), true
}

// RequestHeaderVersion is the request header version Kafka uses for api
// version v of request req: 2 when v is flexible, else 1; ControlledShutdown
// (api key 7) v0 uses header v0 (ApiMessageTypeGenerator.generateHeaderVersion).
func RequestHeaderVersion(req *spec.Message, v int16) int16 {
	if req.APIKey == 7 && v == 0 {
		return 0
	}
	if req.Flexible(v) {
		return 2
	}
	return 1
}

// ResponseHeaderVersion is the response header version for api version v of
// response resp: 1 when v is flexible, else 0; ApiVersionsResponse (api key
// 18) always uses v0 so that clients can parse it at any version (KIP-511).
func ResponseHeaderVersion(resp *spec.Message, v int16) int16 {
	if resp.APIKey == 18 {
		return 0
	}
	if resp.Flexible(v) {
		return 1
	}
	return 0
}

// RequestHeader is a request header (RequestHeader.json) as it is on the
// wire after the size prefix.
//
//	v0: request_api_key int16, request_api_version int16, correlation_id int32
//	v1: v0, then client_id: a nullable string with an int16 length (-1: null)
//	v2: v1, then the header's tagged fields (client_id keeps its int16
//	    length: it is not flexible in any version)
type RequestHeader struct {
	// Version is the header version (0, 1 or 2).
	Version int16
	// APIKey and APIVersion are request_api_key and request_api_version:
	// which request, at which version.
	APIKey, APIVersion int16
	// CorrelationID is correlation_id, which the response repeats.
	CorrelationID int32
	// ClientID is the client_id's bytes (v1 and v2), nil when null or
	// absent (v0). A parsed header's ClientID refers to the frame.
	ClientID []byte
	// Tags is the tagged-fields section (v2) as on the wire, its uvarint
	// count included; nil means no tagged fields (one 0 byte). A parsed
	// header's Tags refers to the frame.
	Tags []byte
	// Len is the number of bytes the header takes after the size prefix
	// (set by ParseRequestHeader; AppendRequestHeader ignores it).
	Len int
}

// ResponseHeader is a response header (ResponseHeader.json):
//
//	v0: correlation_id int32
//	v1: v0, then the header's tagged fields
type ResponseHeader struct {
	// Version is the header version (0 or 1).
	Version int16
	// CorrelationID is the correlation_id of the request answered.
	CorrelationID int32
	// Tags is the tagged-fields section (v1) as on the wire, as for
	// RequestHeader.Tags.
	Tags []byte
	// Len is the number of bytes the header takes after the size prefix.
	Len int
}

// ParseRequestHeader reads the request header of version hv (see
// RequestHeaderVersion) from the frame fr, size prefix included. Only the
// bytes the size prefix announces are read (all of fr when it announces
// more). Errors are *wire.Error with the offset in fr and the field path
// (RequestHeader.ClientId); a header cut short has Need and Have set.
// Nothing is allocated but the error.
func ParseRequestHeader(fr []byte, hv int16) (RequestHeader, error) {
	h := RequestHeader{Version: hv}
	if hv < 0 || hv > 2 {
		return h, &wire.Error{Offset: 4, Path: "RequestHeader", Msg: fmt.Sprintf("request header version %d does not exist (0-2)", hv)}
	}
	rd, err := body(fr)
	if err != nil {
		return h, err
	}
	r := &rd
	h.APIKey = r.Int16()
	h.APIVersion = r.Int16()
	h.CorrelationID = r.Int32()
	if r.Failed() {
		return h, fieldError(r, "RequestHeader", r.Off)
	}
	if hv >= 1 {
		at := r.Off
		n := r.Int16()
		switch {
		case r.Failed():
			return h, fieldError(r, "RequestHeader.ClientId", at)
		case n < -1:
			return h, &wire.Error{Offset: at, Path: "RequestHeader.ClientId", Msg: fmt.Sprintf("string length %d is negative", n)}
		case n >= 0:
			h.ClientID = r.Bytes(int(n))
			if r.Failed() {
				return h, fieldError(r, "RequestHeader.ClientId", at)
			}
		}
	}
	if hv == 2 {
		tags, err := taggedFields(r, "RequestHeader")
		if err != nil {
			return h, err
		}
		h.Tags = tags
	}
	h.Len = r.Off - 4
	return h, nil
}

// ParseResponseHeader reads the response header of version hv (see
// ResponseHeaderVersion) from the frame fr, size prefix included. Errors as
// for ParseRequestHeader.
func ParseResponseHeader(fr []byte, hv int16) (ResponseHeader, error) {
	h := ResponseHeader{Version: hv}
	if hv < 0 || hv > 1 {
		return h, &wire.Error{Offset: 4, Path: "ResponseHeader", Msg: fmt.Sprintf("response header version %d does not exist (0-1)", hv)}
	}
	rd, err := body(fr)
	if err != nil {
		return h, err
	}
	r := &rd
	h.CorrelationID = r.Int32()
	if r.Failed() {
		return h, fieldError(r, "ResponseHeader.CorrelationId", 4)
	}
	if hv == 1 {
		tags, err := taggedFields(r, "ResponseHeader")
		if err != nil {
			return h, err
		}
		h.Tags = tags
	}
	h.Len = r.Off - 4
	return h, nil
}

// body returns a reader over the bytes of fr that its size prefix covers,
// positioned after the prefix.
func body(fr []byte) (wire.Reader, error) {
	size, ok := Size(fr)
	if !ok {
		return wire.Reader{}, &wire.Error{Offset: 0, Path: "size", Need: 4, Have: len(fr)}
	}
	if size < 0 {
		return wire.Reader{}, &wire.Error{Offset: 0, Path: "size", Msg: fmt.Sprintf("frame size %d is negative", size)}
	}
	end := len(fr)
	if int64(size) < int64(end-4) {
		end = 4 + int(size)
	}
	return wire.Reader{Buf: fr[:end], Off: 4}, nil
}

// fieldError is the reader's failure with its path set (and its offset
// moved to at, where the field begins, for a cut-short field).
func fieldError(r *wire.Reader, path string, at int) error {
	e := r.FirstError()
	if e.Need > 0 {
		e.Need += e.Offset - at
		e.Have += e.Offset - at
		e.Offset = at
	}
	e.Path = path
	return e
}

// taggedFields reads a tagged-fields section (uvarint count, then per field
// uvarint tag, uvarint size and the bytes) and returns its bytes.
func taggedFields(r *wire.Reader, name string) ([]byte, error) {
	start := r.Off
	n := r.Uvarint()
	for i := uint32(0); i < n && !r.Failed(); i++ {
		r.Uvarint()
		size := r.Uvarint()
		if r.Failed() {
			break
		}
		r.Bytes(int(size))
	}
	if r.Failed() {
		e := r.FirstError()
		e.Path = name + "._tagged_fields"
		return nil, e
	}
	return r.Buf[start:r.Off:r.Off], nil
}

// AppendRequestHeader appends h as a request header of version h.Version
// (no size prefix). A nil Tags writes an empty tagged-fields section.
func AppendRequestHeader(dst []byte, h RequestHeader) []byte {
	dst = wire.AppendInt16(dst, h.APIKey)
	dst = wire.AppendInt16(dst, h.APIVersion)
	dst = wire.AppendInt32(dst, h.CorrelationID)
	if h.Version >= 1 {
		if h.ClientID == nil {
			dst = wire.AppendInt16(dst, -1)
		} else {
			dst = wire.AppendInt16(dst, int16(len(h.ClientID)))
			dst = append(dst, h.ClientID...)
		}
	}
	if h.Version >= 2 {
		dst = appendTags(dst, h.Tags)
	}
	return dst
}

// AppendResponseHeader appends h as a response header of version h.Version
// (no size prefix).
func AppendResponseHeader(dst []byte, h ResponseHeader) []byte {
	dst = wire.AppendInt32(dst, h.CorrelationID)
	if h.Version >= 1 {
		dst = appendTags(dst, h.Tags)
	}
	return dst
}

func appendTags(dst, tags []byte) []byte {
	if tags == nil {
		return append(dst, 0)
	}
	return append(dst, tags...)
}

// Sniff names a well-known protocol that the first bytes of a stream (or of
// a would-be frame) look like: "TLS" for a TLS record header (content type
// 0x14-0x17, then version major 3 and minor 0-4, such as 15 03 03), "HTTP"
// for an HTTP request or response line; "" otherwise. Four bytes suffice.
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
