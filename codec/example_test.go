package codec_test

import (
	"fmt"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// Encode the smallest legal VoteRequest v2 (every number 0, every string
// empty, every array one element long) and print the frame, the request
// header v2 and the body, as the span tree locates them.
func ExampleCodec_Encode() {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		panic(err)
	}
	vote := s.Request(52)
	t, err := codec.New(s).Encode(vote, 2, nil, instance.Smallest(vote, 2))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(t.Bytes), "bytes")
	for _, part := range []tree.Kind{tree.Frame, tree.Header, tree.Body} {
		n := t.Nodes[t.Part(part)]
		fmt.Printf("%-6s %x\n", part, t.Bytes[n.Off:n.Off+n.Size])
	}
	// Output:
	// 83 bytes
	// frame  0000004f
	// header 0034000200000000000000
	// body   0100000000020102000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
}
