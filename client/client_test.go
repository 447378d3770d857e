package client

import (
	"context"
	"math"
	"net"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// fakeNode serves one connection: for each request frame it calls answer
// with the decoded request and writes the response it returns (nil: close).
func fakeNode(t *testing.T, c *codec.Codec, answer func(req *tree.Tree) *tree.Tree) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		for {
			fr, err := testnet.ReadFrame(nc, math.MaxInt32)
			if err != nil {
				return
			}
			req, err := c.DecodeRequest(fr)
			if err != nil {
				t.Errorf("fake node: %v", err)
				return
			}
			resp := answer(req)
			if resp == nil {
				return
			}
			if _, err := nc.Write(resp.Bytes); err != nil {
				return
			}
		}
	}()
	return ln.Addr().String()
}

// apiVersionsResponse encodes an ApiVersionsResponse to req, at req's
// version, with error code code and the ranges keys (api key, min, max).
func apiVersionsResponse(t *testing.T, c *codec.Codec, req *tree.Tree, code int, keys ...[3]int) *tree.Tree {
	t.Helper()
	m := c.Set.Response(18)
	b := codec.NewBuilder(m, req.Version).Set("ErrorCode", code)
	for i, k := range keys {
		p := "ApiKeys[" + strconv.Itoa(i) + "]."
		b.Set(p+"ApiKey", k[0]).Set(p+"MinVersion", k[1]).Set(p+"MaxVersion", k[2])
	}
	body, err := b.Tree()
	if err != nil {
		t.Fatal(err)
	}
	corr, _ := req.Get("RequestHeader.CorrelationId")
	out, err := c.Encode(m, req.Version, codec.ResponseHeaderValue(c.Set.ResponseHeader(), int32(corr.Int())), body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func testCodec(t *testing.T) *codec.Codec {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	return codec.New(s)
}

// The handshake sends the highest ApiVersions version with the software
// name and version, and reads the ranges the node announces.
func TestHandshake(t *testing.T) {
	c := testCodec(t)
	hi := c.Set.Request(18).ValidVersions.Hi
	reqs := make(chan *tree.Tree, 4)
	addr := fakeNode(t, c, func(req *tree.Tree) *tree.Tree {
		reqs <- req
		return apiVersionsResponse(t, c, req, 0, [3]int{18, 0, 4}, [3]int{3, 0, 12}, [3]int{52, 0, 2})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cn, err := Dial(ctx, addr, c, Options{SoftwareName: "kwire test", SoftwareVersion: "1.0"})
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	want := map[int16]Range{18: {0, 4}, 3: {0, 12}, 52: {0, 2}}
	if !reflect.DeepEqual(cn.Versions(), want) {
		t.Errorf("Versions = %v, want %v", cn.Versions(), want)
	}
	req := <-reqs
	if req.Version != hi {
		t.Errorf("ApiVersionsRequest v%d, want v%d", req.Version, hi)
	}
	for path, want := range map[string]string{
		"ApiVersionsRequest.ClientSoftwareName":    "kwire-test",
		"ApiVersionsRequest.ClientSoftwareVersion": "1.0",
		"RequestHeader.ClientId":                   "kwire",
	} {
		if v, err := req.Get(path); err != nil || v.String() != want {
			t.Errorf("%s = %q (%v), want %q", path, v.String(), err, want)
		}
	}
	if fieldIn(req.Message, "ClusterId", req.Version) {
		if v, _ := req.Get("ApiVersionsRequest.ClusterId"); !v.IsNull() {
			t.Errorf("ClusterId = %s, want null", v)
		}
		if v, _ := req.Get("ApiVersionsRequest.NodeId"); v.Int() != -1 {
			t.Errorf("NodeId = %s, want -1", v)
		}
	}
}

// A node that does not support the version answers UNSUPPORTED_VERSION
// with its ApiVersions range; the client asks again at the highest
// version both support.
func TestHandshakeUnsupportedVersion(t *testing.T) {
	c := testCodec(t)
	sent := make(chan int16, 4)
	addr := fakeNode(t, c, func(req *tree.Tree) *tree.Tree {
		sent <- req.Version
		if req.Version > 3 {
			return apiVersionsResponse(t, c, req, unsupportedVersion, [3]int{18, 0, 3})
		}
		return apiVersionsResponse(t, c, req, 0, [3]int{18, 0, 3}, [3]int{1, 4, 13})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cn, err := Dial(ctx, addr, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	versions := []int16{<-sent, <-sent}
	if hi := c.Set.Request(18).ValidVersions.Hi; !reflect.DeepEqual(versions, []int16{hi, 3}) {
		t.Errorf("versions sent %v, want [%d 3]", versions, hi)
	}
	if want := (map[int16]Range{18: {0, 3}, 1: {4, 13}}); !reflect.DeepEqual(cn.Versions(), want) {
		t.Errorf("Versions = %v, want %v", cn.Versions(), want)
	}
	if v, err := cn.Negotiate(c.Set.Request(1)); err != nil || v != 13 {
		t.Errorf("Negotiate(Fetch) = %d, %v; want 13", v, err)
	}
}

// TestHandshakeKIP511V0Answer: a node that does not support the version
// sent answers as Kafka does (KIP-511), with a v0 ApiVersionsResponse
// (UNSUPPORTED_VERSION and its ApiVersions range) whatever version was
// asked, which does not decode at that version; the handshake reads it as
// v0 and retries at the highest version both support.
func TestHandshakeKIP511V0Answer(t *testing.T) {
	c := testCodec(t)
	sent := make(chan int16, 4)
	addr := fakeNode(t, c, func(req *tree.Tree) *tree.Tree {
		sent <- req.Version
		if req.Version > 3 {
			v0 := &tree.Tree{}
			*v0 = *req
			v0.Version = 0
			return apiVersionsResponse(t, c, v0, unsupportedVersion, [3]int{18, 0, 3})
		}
		return apiVersionsResponse(t, c, req, 0, [3]int{18, 0, 3}, [3]int{1, 4, 13})
	})
	cn, err := Dial(context.Background(), addr, c, Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	if versions := []int16{<-sent, <-sent}; versions[1] != 3 {
		t.Errorf("versions sent %v, want the retry at 3", versions)
	}
	if want := (map[int16]Range{18: {0, 3}, 1: {4, 13}}); !reflect.DeepEqual(cn.Versions(), want) {
		t.Errorf("Versions = %v, want %v", cn.Versions(), want)
	}
}

// readAPIVersions names what is missing when a body is not an
// ApiVersionsResponse's.
func TestReadAPIVersionsErrors(t *testing.T) {
	c := testCodec(t)
	m := c.Set.Response(3) // MetadataResponse v12: its top-level ErrorCode is v13+
	out, err := c.Encode(m, 12, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = readAPIVersions(out)
	if err == nil || err.Error() != "MetadataResponse.ErrorCode: the field is not in this value (a field of another version, or a tagged field left at its default)" {
		t.Errorf("err = %v", err)
	}
	if _, err := readAPIVersions(nil); err == nil || err.Error() != "no response" {
		t.Errorf("nil tree: %v", err)
	}
}
