package codec_test

import (
	"encoding/binary"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/tree"
)

// A Metadata v12 request written with request header v1 (no tagged-field
// section: the flexible rule asks for v2) does not decode by the rule and
// decodes whole with DecodeRequestHeaderAs(1); the right header version
// decodes only by the rule.
func TestDecodeRequestHeaderAs(t *testing.T) {
	s, err := kafka440()
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	rq, _, err := s.Lookup("Metadata")
	if err != nil {
		t.Fatal(err)
	}
	body, err := codec.FromJSON([]byte(`{"topics":null,"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`), rq, 12)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := c.Encode(rq, 12, codec.RequestHeaderValue(s.RequestHeader(), rq.APIKey, 12, 7, "cli"), body)
	if err != nil {
		t.Fatal(err)
	}
	good := enc.Bytes
	// The header's tagged-field byte follows the client id: 4+2+2+4+2+3.
	const tagAt = 17
	if good[tagAt] != 0 {
		t.Fatalf("byte %d is 0x%02x, not the empty tagged-field section", tagAt, good[tagAt])
	}
	bad := append(append([]byte(nil), good[:tagAt]...), good[tagAt+1:]...)
	binary.BigEndian.PutUint32(bad, uint32(len(bad)-4))

	var tr tree.Tree
	if err := c.DecodeRequestInto(&tr, bad); err == nil {
		t.Fatal("a v12 request with header v1 decodes by the rule")
	}
	if err := c.DecodeRequestHeaderAs(&tr, bad, 1); err != nil || tr.HeaderVersion != 1 {
		t.Fatalf("with header v1: %v (header version %d)", err, tr.HeaderVersion)
	}
	if v, err := tr.Get("RequestHeader.CorrelationId"); err != nil || v.Int() != 7 {
		t.Fatalf("correlation id %v, %v", v.Int(), err)
	}
	if err := c.DecodeRequestHeaderAs(&tr, good, 1); err == nil {
		t.Error("a v12 request with header v2 decodes with header v1")
	}
	if err := c.DecodeRequestHeaderAs(&tr, good, 2); err != nil {
		t.Errorf("header v2 given: %v", err)
	}
	if err := c.DecodeRequestHeaderAs(&tr, good, 3); err == nil {
		t.Error("header version 3 accepted")
	}
}
