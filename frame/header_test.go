package frame_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func kafka440(t testing.TB) *spec.Set { return embedded(t, "4.4.0") }

func embedded(t testing.TB, release string) *spec.Set {
	t.Helper()
	s, err := spec.Embedded(release)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Byte-exact request headers of every version, parsed and written back.
func TestRequestHeaderVectors(t *testing.T) {
	cases := []struct {
		name  string
		frame string
		want  frame.RequestHeader
	}{
		{"v0 (ControlledShutdown v0)", "00000008 0007 0000 00000005",
			frame.RequestHeader{Version: 0, APIKey: 7, APIVersion: 0, CorrelationID: 5, Len: 8}},
		{"v1 (Produce v8)", "0000000c 0000 0008 00000001 0002 6162",
			frame.RequestHeader{Version: 1, APIKey: 0, APIVersion: 8, CorrelationID: 1, ClientID: []byte("ab"), Len: 12}},
		{"v1 null client id", "0000000a 0003 0001 7fffffff ffff",
			frame.RequestHeader{Version: 1, APIKey: 3, APIVersion: 1, CorrelationID: 0x7fffffff, Len: 10}},
		{"v1 empty client id", "0000000a 0003 0001 00000002 0000",
			frame.RequestHeader{Version: 1, APIKey: 3, APIVersion: 1, CorrelationID: 2, ClientID: []byte{}, Len: 10}},
		{"v2 (ApiVersions v3)", "0000000d 0012 0003 00000007 0002 6b77 00",
			frame.RequestHeader{Version: 2, APIKey: 18, APIVersion: 3, CorrelationID: 7, ClientID: []byte("kw"), Tags: []byte{0}, Len: 13}},
		{"v2 with a tagged field", "00000011 0012 0003 00000007 0002 6b77 01 05 02 aabb",
			frame.RequestHeader{Version: 2, APIKey: 18, APIVersion: 3, CorrelationID: 7, ClientID: []byte("kw"), Tags: unhex(t, "010502aabb"), Len: 17}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fr := unhex(t, c.frame)
			// Body bytes follow the header: they are not read.
			fr = append(fr, 0xde, 0xad)
			fr[3] += 2
			h, err := frame.ParseRequestHeader(fr, c.want.Version)
			if err != nil {
				t.Fatal(err)
			}
			if h.Version != c.want.Version || h.APIKey != c.want.APIKey || h.APIVersion != c.want.APIVersion ||
				h.CorrelationID != c.want.CorrelationID || !bytes.Equal(h.ClientID, c.want.ClientID) ||
				(h.ClientID == nil) != (c.want.ClientID == nil) || !bytes.Equal(h.Tags, c.want.Tags) || h.Len != c.want.Len {
				t.Fatalf("got %+v, want %+v", h, c.want)
			}
			if got := frame.AppendRequestHeader(nil, h); !bytes.Equal(got, fr[4:4+h.Len]) {
				t.Errorf("written back: % x, want % x", got, fr[4:4+h.Len])
			}
			key, ver, _ := frame.RequestAPI(fr)
			corr, _ := frame.RequestCorrelationID(fr)
			if key != c.want.APIKey || ver != c.want.APIVersion || corr != c.want.CorrelationID {
				t.Errorf("RequestAPI, RequestCorrelationID: %d %d %d", key, ver, corr)
			}
		})
	}
	// A nil Tags writes an empty section.
	got := frame.AppendRequestHeader(nil, frame.RequestHeader{Version: 2, APIKey: 18, APIVersion: 3, CorrelationID: 7})
	if want := unhex(t, "0012 0003 00000007 ffff 00"); !bytes.Equal(got, want) {
		t.Errorf("v2 with null client id and no tags: % x, want % x", got, want)
	}
}

// Byte-exact response headers, ApiVersions' v0 included.
func TestResponseHeaderVectors(t *testing.T) {
	cases := []struct {
		name  string
		hv    int16
		frame string
		want  frame.ResponseHeader
	}{
		{"v0 (ApiVersions v3 response)", 0, "00000006 00000007 0000", frame.ResponseHeader{Version: 0, CorrelationID: 7, Len: 4}},
		{"v1 (Vote v2 response)", 1, "00000007 fffffffe 00 0000", frame.ResponseHeader{Version: 1, CorrelationID: -2, Tags: []byte{0}, Len: 5}},
		{"v1 with a tagged field", 1, "0000000a 00000001 01 00 03 616263", frame.ResponseHeader{Version: 1, CorrelationID: 1, Tags: unhex(t, "0100 03 616263"), Len: 10}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fr := unhex(t, c.frame)
			h, err := frame.ParseResponseHeader(fr, c.hv)
			if err != nil {
				t.Fatal(err)
			}
			if h.Version != c.want.Version || h.CorrelationID != c.want.CorrelationID || !bytes.Equal(h.Tags, c.want.Tags) || h.Len != c.want.Len {
				t.Fatalf("got %+v, want %+v", h, c.want)
			}
			if got := frame.AppendResponseHeader(nil, h); !bytes.Equal(got, fr[4:4+h.Len]) {
				t.Errorf("written back: % x, want % x", got, fr[4:4+h.Len])
			}
			if corr, ok := frame.ResponseCorrelationID(fr); !ok || corr != c.want.CorrelationID {
				t.Errorf("ResponseCorrelationID: %d %v", corr, ok)
			}
		})
	}
}

func TestHeaderErrors(t *testing.T) {
	cases := []struct {
		name, frame string
		hv          int16
		request     bool
		want        string
		need, have  int
	}{
		{"no size prefix", "0000", 1, true, "size at 0x0000: need 4 bytes, have 2", 4, 2},
		{"negative size", "ffffffff 0000", 1, true, "size at 0x0000: frame size -1 is negative", 0, 0},
		{"api key cut short", "00000001 00", 1, true, "RequestHeader at 0x0004: need 2 bytes, have 1", 2, 1},
		{"correlation id past the size prefix", "00000006 0003 0001 00000001", 1, true, "RequestHeader at 0x0008: need 4 bytes, have 2", 4, 2},
		{"client id cut short", "0000000d 0003 0001 00000001 0005 616263", 1, true, "RequestHeader.ClientId at 0x000c: need 7 bytes, have 5", 7, 5},
		{"client id length -2", "0000000a 0003 0001 00000001 fffe", 1, true, "RequestHeader.ClientId at 0x000c: string length -2 is negative", 0, 0},
		{"tags missing", "0000000a 0012 0003 00000001 0000", 2, true, "RequestHeader._tagged_fields at 0x000e: truncated uvarint: need 1 byte, have 0", 1, 0},
		{"tag data cut short", "0000000e 0012 0003 00000001 0000 01 00 05 61", 2, true, "RequestHeader._tagged_fields at 0x0011: need 5 bytes, have 1", 5, 1},
		{"header version 3", "00000008 0012 0003 00000001", 3, true, "RequestHeader at 0x0004: request header version 3 does not exist (0-2)", 0, 0},
		{"response correlation id cut short", "00000002 0000", 0, false, "ResponseHeader.CorrelationId at 0x0004: need 4 bytes, have 2", 4, 2},
		{"response tags missing", "00000004 00000001", 1, false, "ResponseHeader._tagged_fields at 0x0008: truncated uvarint: need 1 byte, have 0", 1, 0},
		{"response header version 2", "00000004 00000001", 2, false, "ResponseHeader at 0x0004: response header version 2 does not exist (0-1)", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.request {
				_, err = frame.ParseRequestHeader(unhex(t, c.frame), c.hv)
			} else {
				_, err = frame.ParseResponseHeader(unhex(t, c.frame), c.hv)
			}
			var we *wire.Error
			if !errors.As(err, &we) {
				t.Fatalf("error %v is not a *wire.Error", err)
			}
			if err.Error() != c.want || we.Need != c.need || we.Have != c.have {
				t.Errorf("error %q (need %d, have %d), want %q (need %d, have %d)", err, we.Need, we.Have, c.want, c.need, c.have)
			}
		})
	}
	if _, ok := frame.Size([]byte{0, 0, 1}); ok {
		t.Error("Size of 3 bytes is ok")
	}
	if _, _, ok := frame.RequestAPI(make([]byte, 7)); ok {
		t.Error("RequestAPI of 7 bytes is ok")
	}
	if _, ok := frame.RequestCorrelationID(make([]byte, 11)); ok {
		t.Error("RequestCorrelationID of 11 bytes is ok")
	}
	if _, ok := frame.ResponseCorrelationID(make([]byte, 7)); ok {
		t.Error("ResponseCorrelationID of 7 bytes is ok")
	}
	if n, ok := frame.RequestClientIDLen(unhex(t, "0000000a 0003 0001 00000001 fffe")); !ok || n != -2 {
		t.Errorf("RequestClientIDLen = %d, %v", n, ok)
	}
	if _, ok := frame.RequestClientIDLen(make([]byte, 13)); ok {
		t.Error("RequestClientIDLen of 13 bytes is ok")
	}
	if s, ok := frame.Size(unhex(t, "80000000")); !ok || s != -1<<31 {
		t.Errorf("Size(80000000) = %d", s)
	}
	if got := frame.AppendSize(nil, 258); !bytes.Equal(got, []byte{0, 0, 1, 2}) {
		t.Errorf("AppendSize(258) = % x", got)
	}
}

// The header version rule: flexible versions get request header v2 and
// response header v1; ControlledShutdown v0 request header v0;
// ApiVersionsResponse always v0.
func TestHeaderVersions(t *testing.T) {
	s := kafka440(t)
	// ControlledShutdown is gone from Kafka 4.
	old := embedded(t, "3.9.1")
	av := s.Response(18)
	for v := av.ValidVersions.Lo; v <= av.ValidVersions.Hi; v++ {
		if hv := frame.ResponseHeaderVersion(av, v); hv != 0 {
			t.Errorf("ApiVersionsResponse v%d uses response header v%d, want v0", v, hv)
		}
	}
	checks := []struct {
		name      string
		got, want int16
	}{
		{"ControlledShutdown v0 request header", frame.RequestHeaderVersion(old.Request(7), 0), 0},
		{"ControlledShutdown v1 request header", frame.RequestHeaderVersion(old.Request(7), 1), 1},
		{"ControlledShutdown v3 request header", frame.RequestHeaderVersion(old.Request(7), 3), 2},
		{"ControlledShutdown v0 response header", frame.ResponseHeaderVersion(old.Response(7), 0), 0},
		{"ApiVersions v2 request header", frame.RequestHeaderVersion(s.Request(18), 2), 1},
		{"ApiVersions v3 request header", frame.RequestHeaderVersion(s.Request(18), 3), 2},
		{"Produce v8 request header", frame.RequestHeaderVersion(s.Request(0), 8), 1},
		{"Produce v9 request header", frame.RequestHeaderVersion(s.Request(0), 9), 2},
		{"Produce v9 response header", frame.ResponseHeaderVersion(s.Response(0), 9), 1},
		{"Produce v8 response header", frame.ResponseHeaderVersion(s.Response(0), 8), 0},
		{"Vote v2 response header", frame.ResponseHeaderVersion(s.Response(52), 2), 1},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s is v%d, want v%d", ch.name, ch.got, ch.want)
		}
	}
	for _, m := range []*spec.Message{old.Request(7), s.Request(0)} {
		for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
			want := int16(1)
			if m.Flexible(v) {
				want = 2
			}
			if m.APIKey == 7 && v == 0 {
				want = 0
			}
			if got := frame.RequestHeaderVersion(m, v); got != want {
				t.Errorf("%s v%d: request header v%d, want v%d", m.Name, v, got, want)
			}
		}
	}
}

// For every request and response at every version, the header the codec
// writes parses here to the same fields and length, and the response header
// the codec decodes has the version this package picks.
func TestHeadersAgreeWithCodec(t *testing.T) {
	// 3.9.1 has ControlledShutdown v0.
	for _, s := range []*spec.Set{kafka440(t), embedded(t, "3.9.1")} {
		headersAgree(t, s)
	}
}

func headersAgree(t *testing.T, s *spec.Set) {
	c := codec.New(s)
	for _, key := range s.APIKeys() {
		req, resp := s.Request(key), s.Response(key)
		for v := req.ValidVersions.Lo; v <= req.ValidVersions.Hi; v++ {
			hv := frame.RequestHeaderVersion(req, v)
			rt, err := c.Encode(req, v, codec.RequestHeaderValue(s.RequestHeader(), req.APIKey, v, 77, "kwire-test"), nil)
			if err != nil {
				t.Fatalf("%s v%d: %v", req.Name, v, err)
			}
			h, err := frame.ParseRequestHeader(rt.Bytes, hv)
			if err != nil {
				t.Fatalf("%s v%d: %v", req.Name, v, err)
			}
			hn := &rt.Nodes[rt.Part(tree.Header)]
			wantClient := "kwire-test"
			if hv == 0 {
				wantClient = ""
			}
			if rt.HeaderVersion != hv || h.APIKey != req.APIKey || h.APIVersion != v || h.CorrelationID != 77 ||
				string(h.ClientID) != wantClient || int32(h.Len) != hn.Size || hn.Off != 4 {
				t.Errorf("%s v%d: parsed %+v (header v%d), codec wrote header v%d of %d bytes", req.Name, v, h, hv, rt.HeaderVersion, hn.Size)
			}
			if resp == nil {
				continue
			}
			rhv := frame.ResponseHeaderVersion(resp, v)
			out, err := c.Encode(resp, v, codec.ResponseHeaderValue(s.ResponseHeader(), 77), nil)
			if err != nil {
				t.Fatalf("%s v%d: %v", resp.Name, v, err)
			}
			rh, err := frame.ParseResponseHeader(out.Bytes, rhv)
			if err != nil {
				t.Fatalf("%s v%d: %v", resp.Name, v, err)
			}
			rn := &out.Nodes[out.Part(tree.Header)]
			if out.HeaderVersion != rhv || rh.CorrelationID != 77 || int32(rh.Len) != rn.Size {
				t.Errorf("%s v%d: parsed %+v (header v%d), codec wrote header v%d of %d bytes", resp.Name, v, rh, rhv, out.HeaderVersion, rn.Size)
			}
		}
	}
}

func TestSniff(t *testing.T) {
	for in, want := range map[string]string{
		"16030100": "TLS", "15030300": "TLS", "17030400": "TLS", "16030500": "", "13030100": "",
		hex.EncodeToString([]byte("GET /")): "HTTP", hex.EncodeToString([]byte("HTTP/1.1")): "HTTP",
		hex.EncodeToString([]byte("CONNECT")): "HTTP", "0000000c": "", "1603": "",
	} {
		if got := frame.Sniff(unhex(t, in)); got != want {
			t.Errorf("Sniff(%s) = %q, want %q", in, got, want)
		}
	}
}
