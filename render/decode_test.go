package render

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/wire"
)

// The smallest VoteRequest v2 and VoteResponse v2 of Kafka 4.4.0 (83 and
// 32 bytes).
const (
	voteRequestV2  = "0000004f00340002000000000000000100000000020102000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
	voteResponseV2 = "0000001c00000000000000020102000000000000000000000000000000000000"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func v(n int16) *int16 { return &n }

func TestDecodeClaims(t *testing.T) {
	s := embedded(t, "4.4.0")
	req, resp := unhex(t, voteRequestV2), unhex(t, voteResponseV2)
	for _, c := range []struct {
		name  string
		claim Claim
		b     []byte
		label string // the page's side label; "" for no page
		err   string // the error text; "" for none
	}{
		{"request", Claim{}, req, "Request", ""},
		{"request as Vote v2", Claim{API: "Vote", Version: v(2)}, req, "Request", ""},
		{"response", Claim{API: "Vote", Response: true, Version: v(2)}, resp, "Response", ""},
		{"response by name", Claim{API: "VoteResponse", Version: v(2)}, resp, "Response", ""},
		{"request as Produce", Claim{API: "Produce"}, req, "Request", "the request header says VoteRequest (api key 52), not ProduceRequest (api key 0)"},
		{"request as v1", Claim{Version: v(1)}, req, "Request", "the request header says VoteRequest v2, not v1"},
		{"response without an API", Claim{Response: true}, resp, "", "decoding a response needs its API and version: a response does not say what it answers"},
		{"response without a version", Claim{API: "Vote", Response: true}, resp, "", "decoding a response needs its version: a response does not say what it answers"},
		{"response at a version Vote lacks", Claim{API: "Vote", Response: true, Version: v(7)}, resp, "", "VoteResponse has no version 7 in Kafka 4.4.0 (valid versions: 0-2)"},
		{"response of a record type", Claim{API: "PartitionRecord", Response: true}, resp, "", "PartitionRecord is a metadata type, not an API: it has no response"},
		{"data type without a version", Claim{API: "LeaderChangeMessage"}, resp, "", "decoding LeaderChangeMessage needs its version: a data type's bytes do not say their version"},
	} {
		pages, err := Decode(s, c.claim, c.b)
		if got := errText(err); got != c.err {
			t.Errorf("%s: error %q, want %q", c.name, got, c.err)
		}
		switch {
		case c.label == "" && pages != nil:
			t.Errorf("%s: %d pages, want none", c.name, len(pages))
		case c.label != "" && (len(pages) != 1 || pages[0].Sides[0].Label != c.label || pages[0].Frames != 0 || errText(pages[0].Sides[0].Err) != c.err):
			t.Errorf("%s: pages %+v, want one %s page with the error", c.name, pages, c.label)
		}
	}
	// The claim errors are typed.
	_, err := Decode(s, Claim{Response: true}, resp)
	var ce *ClaimError
	if !errors.As(err, &ce) || !ce.NeedAPI || !ce.NeedVersion {
		t.Errorf("response without an API: %#v", err)
	}
	_, err = Decode(s, Claim{API: "Vote", Version: v(1)}, req)
	var me *MismatchError
	if !errors.As(err, &me) || me.Where != "request header" || me.Found.Name != "VoteRequest" || me.FoundVersion != 2 || me.ClaimedVersion != 1 {
		t.Errorf("v1 claimed: %#v", err)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Response bytes decoded as a request: the header does not fit a request,
// and the error says the bytes may be a response.
func TestDecodeResponseAsRequest(t *testing.T) {
	s := embedded(t, "4.4.0")
	for _, c := range []struct {
		name  string
		claim Claim
		hex   string
		err   string
	}{
		// VoteResponse v2: api key 0 and version 0 as a request; its client
		// id length (0x0201) runs past the frame.
		{"client id past the frame", Claim{}, voteResponseV2,
			"RequestHeader.RequestApiVersion at 0x0006: ProduceRequest has no version 0 (valid versions: 3-13); the bytes do not read as a request header (RequestHeader.ClientId at 0x000c: need 260 bytes, have 20): these bytes may be a response"},
		// The same, with --api Vote: bytes 4-7 say another API.
		{"another API than claimed", Claim{API: "Vote", Version: v(2)}, voteResponseV2,
			"RequestHeader.RequestApiVersion at 0x0006: ProduceRequest has no version 0 (valid versions: 3-13); bytes 4-7 read as a request header say ProduceRequest (api key 0) v0, not VoteRequest: these bytes may be a response"},
		// A response whose correlation id 0x00070001 reads as api key 7
		// (ControlledShutdown, removed in 4.0) v1, valid in Kafka 3.9: the
		// bytes do not decode there either.
		{"another release does not decode it", Claim{}, "00000010 00070001 0000 0000 0000 0000 0000 0000",
			"RequestHeader.RequestApiVersion at 0x0006: ControlledShutdownRequest has no version 1 (valid versions: none); the bytes do not decode as ControlledShutdownRequest v1 of Kafka 3.9.2 either (ControlledShutdownRequest at 0x0012: 2 bytes left after the body (trailing bytes)): these bytes may be a response"},
		// Api key 0x4000: no release has it.
		{"unknown api key", Claim{}, "0000000a 4000 0000 00000000 0000",
			"RequestHeader.RequestApiKey at 0x0004: unknown api key 16384; no Kafka release kwire embeds has a request with api key 16384: these bytes may be a response"},
		// ProduceRequest v99: no release has it.
		{"unknown version", Claim{}, "0000000a 0000 0063 00000000 0000",
			"RequestHeader.RequestApiVersion at 0x0006: ProduceRequest has no version 99 (valid versions: 3-13); no Kafka release kwire embeds has version 99 of ProduceRequest: these bytes may be a response"},
		// A client id with control characters.
		{"control characters", Claim{}, "00000010 0000 0000 00000001 0002 0001 00000000",
			"RequestHeader.RequestApiVersion at 0x0006: ProduceRequest has no version 0 (valid versions: 3-13); the client id at 0x000c holds control characters: these bytes may be a response"},
	} {
		pages, err := Decode(s, c.claim, unhex(t, c.hex))
		var ne *NotRequestError
		if !errors.As(err, &ne) || err.Error() != c.err {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.err)
		}
		// Each says why: the page is left out, with a claim or without.
		if !HintOnly(pages, err) {
			t.Errorf("%s: HintOnly false, %d pages", c.name, len(pages))
		}
	}
	// Produce v0 of Kafka 3.9 that decodes there: the NotRequestError
	// names that release (a request of it, or a response), and wraps the
	// *codec.VersionError.
	p0 := "00000017 0000 0000 00000007 0003 616263 0001 00000000 00000000"
	const p0Err = "RequestHeader.RequestApiVersion at 0x0006: ProduceRequest has no version 0 (valid versions: 3-13); the bytes decode as ProduceRequest v0 of Kafka 3.9.2: these bytes may be a response"
	_, err := Decode(s, Claim{}, unhex(t, p0))
	var ne *NotRequestError
	var ve *codec.VersionError
	var we *wire.Error
	if !errors.As(err, &ne) || ne.Release == nil || ne.Release.Release != "3.9.2" || !errors.As(err, &ve) || !errors.As(err, &we) || we.Offset != 6 || err.Error() != p0Err {
		t.Errorf("Produce v0: %v", err)
	}
	if _, err := Decode(embedded(t, "3.9.1"), Claim{}, unhex(t, p0)); err != nil {
		t.Errorf("Produce v0 in Kafka 3.9.1: %v", err)
	}
	// The same cut short (a capture that ends early): it decodes in Kafka
	// 3.9.1 as far as it goes, so that release is named too.
	_, err = Decode(s, Claim{}, unhex(t, p0)[:20])
	if !errors.As(err, &ne) || ne.Release == nil || !errors.As(err, &ve) {
		t.Errorf("Produce v0 cut short: %v", err)
	}
	// In Kafka 3.9.1, the smallest JoinGroupResponse v2 reads as
	// ProduceRequest v0 whose body does not decode: no release, a
	// NotRequestError without a Why.
	_, err = Decode(embedded(t, "3.9.1"), Claim{}, unhex(t, "0000001e 00000000 00000000 00000000 00000000 00000000 00000000 00000001 00000000 0000"))
	if !errors.As(err, &ne) || ne.Why != "" || ne.Release != nil || err.Error() != "ProduceRequest at 0x0018: 10 bytes left after the body (trailing bytes): these bytes may be a response" {
		t.Errorf("JoinGroupResponse v2 in Kafka 3.9.1: %v", err)
	}
	// A request header with a known api key and version and a client id
	// ("cli"): a body that fails is a body error, no NotRequestError.
	vote := "00340002 00000007 0003636c69 00 036b77 00000001 02 135f5f636c75737465725f6d65746164617461 02 00000000 00000003 00000002" +
		"00000000000000000000000000000001 00000000000000000000000000000000 00000003 0000000000000078 01 00 00 00"
	for _, c := range []struct{ name, hex, err string }{
		{"VoteRequest v2 with a byte after it", "00000067" + vote + "00", "VoteRequest at 0x006a: 1 byte left after the body (trailing bytes)"},
		{"VoteRequest v2 without its last tagged fields", "00000065" + vote[:len(vote)-2], "VoteRequest._tagged_fields at 0x0069: truncated uvarint: need 1 byte, have 0"},
		{"MetadataRequest v12 without its tagged fields", "00000011 0003000c 00000007 0003636c69 00 00 01 00", "MetadataRequest._tagged_fields at 0x0015: truncated uvarint: need 1 byte, have 0"},
	} {
		_, err := Decode(s, Claim{}, unhex(t, c.hex))
		if errors.As(err, &ne) || fmt.Sprint(err) != c.err {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.err)
		}
	}
	// A body that fails where a cut frame ends is no NotRequestError.
	if _, err = Decode(embedded(t, "3.9.1"), Claim{}, unhex(t, p0)[:20]); errors.As(err, &ne) || err == nil {
		t.Errorf("Produce v0 cut short in Kafka 3.9.1: %v", err)
	}
}

// An ApiVersions response in the v0 layout (UNSUPPORTED_VERSION) decoded
// at v3 is shown at v0, with a note.
func TestDecodeApiVersionsFallsBackToV0(t *testing.T) {
	s := embedded(t, "4.4.0")
	// ErrorCode 35, one ApiKeys entry: ApiVersions 0-3.
	b := unhex(t, "00000010 00000000 0023 00000001 0012 0000 0003")
	pages, err := Decode(s, Claim{API: "ApiVersions", Response: true, Version: v(3)}, b)
	if err != nil || len(pages) != 1 {
		t.Fatalf("%d pages, %v", len(pages), err)
	}
	side := pages[0].Sides[0]
	want := "decoded as v0, not v3: the bytes do not read as ApiVersionsResponse v3, and a broker answers an ApiVersions request of a version it does not support in the v0 layout; the error code is 35 (UNSUPPORTED_VERSION)"
	if side.Tree.Version != 0 || side.Note != want {
		t.Errorf("version %d, note %q", side.Tree.Version, side.Note)
	}
	var text bytes.Buffer
	if err := WriteText(&text, pages[0], Options{}); err != nil || !strings.Contains(text.String(), "ApiVersionsResponse v0, response header v0, 20 bytes on the wire\nnote: "+want+"\n") {
		t.Errorf("text page: %v\n%s", err, text.String())
	}
	// Other APIs are not read at v0, and an ApiVersions response that is
	// not in the v0 layout either keeps the error of the version asked.
	if pages, err := Decode(s, Claim{API: "ApiVersions", Response: true, Version: v(3)}, b[:19]); err == nil || pages[0].Sides[0].Note != "" {
		t.Errorf("cut: %v", err)
	}
}

// Several frames one after another: a page each, with the frame's number
// and offset; a frame that fails ends the decoding.
func TestDecodeSeveralFrames(t *testing.T) {
	s := embedded(t, "4.4.0")
	req := unhex(t, voteRequestV2)
	two := append(append([]byte(nil), req...), req...)
	pages, err := Decode(s, Claim{}, two)
	if err != nil || len(pages) != 2 {
		t.Fatalf("%d pages, %v", len(pages), err)
	}
	for k, p := range pages {
		if p.Frame != k+1 || p.Frames != 2 || p.Offset != 83*k || len(p.Sides[0].Tree.Bytes) != 83 || p.Sides[0].Err != nil {
			t.Errorf("page %d: frame %d of %d at %d, %d bytes, %v", k, p.Frame, p.Frames, p.Offset, len(p.Sides[0].Tree.Bytes), p.Sides[0].Err)
		}
	}
	var text, js bytes.Buffer
	if err := WriteText(&text, pages[1], Options{}); err != nil || !strings.HasPrefix(text.String(), "frame 2 of 2, at 0x0053 of the input\n\nVote\n") {
		t.Errorf("text: %v\n%.80s", err, text.String())
	}
	if err := WriteJSON(&js, pages[1]); err != nil || !strings.Contains(js.String(), `"valid_versions": "0-2",
  "frame": 2,
  "frames": 2,
  "input_offset": 83,
`) {
		t.Errorf("JSON: %v\n%.300s", err, js.String())
	}
	// Then 3 bytes that are no frame.
	pages, err = Decode(s, Claim{}, append(two, 0, 0, 0))
	var se *StreamError
	if len(pages) != 3 || !errors.As(err, &se) || se.Frame != 3 || se.Offset != 166 ||
		err.Error() != "frame 3 (at 0x00a6 of the input): size at 0x0000: need 4 bytes, have 3" || pages[2].Sides[0].Err != se.Err {
		t.Errorf("%d pages, %v", len(pages), err)
	}
	// A first frame with bytes left after its body, then more bytes: one
	// page of all the bytes, as before.
	bad := unhex(t, "00000050"+voteRequestV2[8:]+"00")
	pages, err = Decode(s, Claim{}, append(bad, req...))
	if len(pages) != 1 || !errors.Is(err, codec.ErrTrailing) || len(pages[0].Sides[0].Tree.Bytes) != 84+83 {
		t.Errorf("%d pages, %v", len(pages), err)
	}
	// Responses too.
	resp := unhex(t, voteResponseV2)
	pages, err = Decode(s, Claim{API: "Vote", Response: true, Version: v(2)}, append(append([]byte(nil), resp...), resp...))
	if err != nil || len(pages) != 2 || pages[1].Offset != 32 {
		t.Errorf("responses: %d pages, %v", len(pages), err)
	}
}

// A string or bytes field of the body is typed nullable_ at the versions
// its spec makes it nullable, as the header's client_id is.
func TestNullableTypes(t *testing.T) {
	s := embedded(t, "4.4.0")
	for _, c := range []struct {
		msg  string
		v    int16
		row  string // the start of the field's row, collapsed
		want string
	}{
		{"VoteRequest", 2, "+-- ClusterId", "nullable_string"},                 // nullableVersions 0+
		{"JoinGroupResponse", 6, "+-- ProtocolName", "string"},                 // nullableVersions 7+
		{"JoinGroupResponse", 7, "+-- ProtocolName", "nullable_string"},        // nullableVersions 7+
		{"ProduceRequest", 3, "+-- TransactionalId", "nullable_string"},        // nullableVersions 3+
		{"SaslAuthenticateResponse", 1, "+-- AuthBytes", "bytes"},              // not nullable
		{"SaslAuthenticateResponse", 1, "+-- ErrorMessage", "nullable_string"}, // nullableVersions 0+
		{"ApiVersionsRequest", 3, "+-- ClientSoftwareName", "string"},          // not nullable
		{"VoteRequest", 2, "| +-- client_id", "nullable_string"},               // the header, as before
	} {
		got := ""
		for _, l := range strings.Split(treeText(t, smallestByName(t, s, c.msg, c.v)), "\n") {
			l = collapse(l)
			if strings.HasPrefix(l, c.row+" ") {
				got = strings.Fields(strings.TrimPrefix(l, c.row))[0]
				break
			}
		}
		if got != c.want {
			t.Errorf("%s v%d %s: type %q, want %q", c.msg, c.v, c.row, got, c.want)
		}
	}
}

// HintOnly is false for a request that decodes, for a body that does not
// decode against a header that fits, and for several frames.
func TestHintOnlyKeepsRequestPages(t *testing.T) {
	s := embedded(t, "4.4.0")
	vote := unhex(t, "0000004f00340002000000000000000100000000020102"+strings.Repeat("00", 57)+"000000")
	if pages, err := Decode(s, Claim{}, vote); err != nil || HintOnly(pages, err) {
		t.Errorf("VoteRequest v2: %v, HintOnly %v", err, HintOnly(pages, err))
	}
	cut := vote[:len(vote)-3]
	if pages, err := Decode(s, Claim{API: "Vote"}, cut); err == nil || HintOnly(pages, err) {
		t.Errorf("VoteRequest v2 cut short: %v, HintOnly true", err)
	}
}
