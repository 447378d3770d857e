package conform_test

import (
	"fmt"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/conform"
	"github.com/kwire/kwire/spec"
)

// Judge a Metadata v12 response that leaves a byte over after its body.
func ExampleJudge() {
	s, _ := spec.Embedded("4.4.0")
	c := codec.New(s)
	c.Strict = true
	m := s.Response(3)
	body, _ := codec.FromJSON([]byte(`{"throttleTimeMs":0,"brokers":[],"clusterId":null,"controllerId":1,"topics":[]}`), m, 12)
	resp, _ := c.Encode(m, 12, codec.ResponseHeaderValue(s.ResponseHeader(), 7), body)
	frame := append(resp.Bytes, 0xff)
	frame[3]++ // the size prefix counts the extra byte
	t, err := c.DecodeResponse(frame, m, 12)
	j := conform.Judge(c, nil, t, err)
	for _, f := range j.Findings {
		fmt.Println(f.Rule, f)
	}
	// Output:
	// left-over MetadataResponse at 0x0015: 1 byte left after the body (trailing bytes)
}
