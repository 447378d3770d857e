package flow

import (
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

var testSet = func() *spec.Set {
	s, err := spec.Embedded("")
	if err != nil {
		panic(err)
	}
	return s
}()

// reqFrame encodes a framed request of api at ver with the given header
// fields; body is the body as Kafka converter JSON ("" for defaults).
func reqFrame(t testing.TB, c *codec.Codec, api string, ver int16, corr int32, clientID, body string) []byte {
	t.Helper()
	req, _, err := c.Set.Lookup(api)
	if err != nil {
		t.Fatal(err)
	}
	h := codec.RequestHeaderValue(c.Set.RequestHeader(), req.APIKey, ver, corr, clientID)
	return encode(t, c, req, ver, h, body)
}

// respFrame encodes a framed response of api at ver with correlation id corr.
func respFrame(t testing.TB, c *codec.Codec, api string, ver int16, corr int32, body string) []byte {
	t.Helper()
	_, resp, err := c.Set.Lookup(api)
	if err != nil {
		t.Fatal(err)
	}
	h := codec.ResponseHeaderValue(c.Set.ResponseHeader(), corr)
	return encode(t, c, resp, ver, h, body)
}

func encode(t testing.TB, c *codec.Codec, m *spec.Message, ver int16, h *tree.Tree, body string) []byte {
	t.Helper()
	var b *tree.Tree
	if body != "" {
		var err error
		if b, err = codec.FromJSON([]byte(body), m, ver); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := c.Encode(m, ver, h, b)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Bytes
}
