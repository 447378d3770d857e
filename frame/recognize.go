package frame

import (
	"fmt"
	"unicode/utf8"

	"github.com/kwire/kwire/spec"
)

// Protocol is what the first bytes of a stream were found to be
// (Recognize).
type Protocol uint8

const (
	// Unknown: bytes that are none of the below (or too few to tell).
	Unknown Protocol = iota
	// KafkaRequest: a size prefix and a request header that decodes as a
	// request of the spec set at one of its valid versions, with a
	// non-negative correlation id and a client id that is printable UTF-8.
	KafkaRequest
	// TLS: a TLS record header (content type 20-23, version 3.0-3.4).
	TLS
	// Text: a line of printable ASCII, such as HTTP's request or status
	// line or another text protocol's greeting.
	Text
)

// Recognition is what Recognize found.
type Recognition struct {
	// Protocol is what the bytes are.
	Protocol Protocol
	// More is set when more bytes could change the answer (Unknown only):
	// a Kafka request header cut short.
	More bool
	// Header is the request header (KafkaRequest); its ClientID refers to
	// the bytes given.
	Header RequestHeader
	// Request is the request's spec (KafkaRequest).
	Request *spec.Message
	// TLSType is the record's content type (TLS): 20 change_cipher_spec,
	// 21 alert, 22 handshake, 23 application_data.
	TLSType byte
	// Alert is an alert record's level and description (TLS, TLSType 21,
	// when both bytes are there; else 0, 0).
	Alert [2]byte
	// Name is the text protocol its first word names (Text): "HTTP" for an
	// HTTP method or status line, else "".
	Name string
	// Line is the first line (Text), at most 60 bytes.
	Line string
}

// Recognize says whether the first bytes of a stream, b, start a Kafka
// request of set (the judgement a capture uses to find Kafka on any port),
// a TLS record, a line of text (HTTP or another protocol), or none of
// these. It reads at most the size prefix, the request header and the
// first line; nothing is allocated but the strings of a text line.
func Recognize(set *spec.Set, b []byte) Recognition {
	if proto := Sniff(b); proto == "TLS" {
		r := Recognition{Protocol: TLS, TLSType: b[0]}
		if b[0] == 21 && len(b) >= 7 {
			r.Alert = [2]byte{b[5], b[6]}
		}
		return r
	}
	if r, ok := recognizeRequest(set, b); ok || r.More {
		return r
	}
	if line, ok := textLine(b); ok {
		r := Recognition{Protocol: Text, Line: line}
		if Sniff(b) == "HTTP" {
			r.Name = "HTTP"
		}
		return r
	}
	return Recognition{}
}

// recognizeRequest judges b as the start of a request frame.
func recognizeRequest(set *spec.Set, b []byte) (Recognition, bool) {
	more := Recognition{More: true}
	size, ok := Size(b)
	if !ok {
		return more, false
	}
	if size < 10 { // api key, version, correlation id: 8; then 2 at least
		return Recognition{}, false
	}
	key, ver, ok := RequestAPI(b)
	if !ok {
		return more, false
	}
	m := set.Request(key)
	if m == nil || !m.ValidVersions.Contains(ver) {
		return Recognition{}, false
	}
	hv := RequestHeaderVersion(m, ver)
	hlen := 12 // api key, version, correlation id
	if hv >= 1 {
		n, ok := RequestClientIDLen(b)
		switch {
		case !ok:
			return more, false
		case n < -1 || 10+max(int32(n), 0) > size:
			return Recognition{}, false
		}
		hlen = 14 + max(int(n), 0)
	}
	if len(b) < hlen {
		return more, false
	}
	// Only the header's bytes up to the client id: the body and the
	// tagged fields need not have arrived.
	hb := b[:hlen]
	h, err := ParseRequestHeader(hb, min(hv, 1))
	if err != nil || h.CorrelationID < 0 || !printable(h.ClientID) {
		return Recognition{}, false
	}
	h.Version = hv
	return Recognition{Protocol: KafkaRequest, Header: h, Request: m}, true
}

// printable reports whether b is UTF-8 without control characters.
func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range string(b) {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// textLine returns the first line of b when b starts with at least four
// bytes of printable ASCII up to a line end or the end of b.
func textLine(b []byte) (string, bool) {
	n := 0
	for n < len(b) && b[n] != '\r' && b[n] != '\n' {
		if b[n] < 0x20 || b[n] > 0x7e {
			if b[n] != '\t' {
				return "", false
			}
		}
		n++
	}
	if n < 4 {
		return "", false
	}
	if n > 60 {
		return string(b[:57]) + "...", true
	}
	return string(b[:n]), true
}

// tlsAlerts names the TLS alert descriptions a peer that refuses a
// connection sends.
var tlsAlerts = map[byte]string{
	0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 22: "record_overflow",
	40: "handshake_failure", 42: "bad_certificate", 46: "certificate_unknown", 47: "illegal_parameter",
	48: "unknown_ca", 50: "decode_error", 51: "decrypt_error", 70: "protocol_version",
	80: "internal_error", 112: "unrecognized_name", 116: "certificate_required", 120: "no_application_protocol",
}

// Short names what was found in a word or two, as a capture's summary
// counts streams: "Kafka", "TLS", "HTTP", "text", "binary".
func (r Recognition) Short() string {
	switch r.Protocol {
	case KafkaRequest:
		return "Kafka"
	case TLS:
		return "TLS"
	case Text:
		if r.Name != "" {
			return r.Name
		}
		return "text"
	}
	return "binary"
}

// String says what was found: `a Kafka request (ApiVersions v3,
// correlation id 1, client id "kw")`, "a TLS alert (level 2,
// handshake_failure)", "a TLS handshake record", `HTTP ("HTTP/1.1 400 Bad
// Request")`, `a text protocol ("220 mail ESMTP")`, "no known protocol".
func (r Recognition) String() string {
	switch r.Protocol {
	case KafkaRequest:
		cid := "null"
		if r.Header.ClientID != nil {
			cid = fmt.Sprintf("%q", r.Header.ClientID)
		}
		if r.Header.Version == 0 {
			cid = "none (header v0)"
		}
		return fmt.Sprintf("a Kafka request (%s v%d, correlation id %d, client id %s)", r.Request.BaseName(), r.Header.APIVersion, r.Header.CorrelationID, cid)
	case TLS:
		switch r.TLSType {
		case 20:
			return "a TLS change_cipher_spec record"
		case 21:
			if r.Alert == [2]byte{} {
				return "a TLS alert"
			}
			d := tlsAlerts[r.Alert[1]]
			if d == "" {
				d = fmt.Sprintf("description %d", r.Alert[1])
			}
			return fmt.Sprintf("a TLS alert (level %d, %s)", r.Alert[0], d)
		case 22:
			return "a TLS handshake record"
		}
		return "a TLS application_data record"
	case Text:
		if r.Name != "" {
			return fmt.Sprintf("%s (%q)", r.Name, r.Line)
		}
		return fmt.Sprintf("a text protocol (%q)", r.Line)
	}
	return "no known protocol"
}
