package clientcheck_test

import (
	"encoding/binary"
	"fmt"

	"github.com/kwire/kwire/clientcheck"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// A client sends Metadata v12 twice with correlation id 7, the second
// time before the first was answered and with its topics array's length
// written in two bytes.
func ExampleConn() {
	set, _ := spec.Embedded("4.4.0")
	c := codec.New(set)
	m := set.Request(3) // Metadata
	body, _ := codec.FromJSON([]byte(`{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"t"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`), m, 12)
	enc, _ := c.Encode(m, 12, codec.RequestHeaderValue(set.RequestHeader(), 3, 12, 7, "app"), body)
	good := enc.Bytes
	// The body starts at 18: the topics' compact length 2 becomes 0x82 0x00.
	bad := append(append(append([]byte(nil), good[:18]...), 0x82, 0x00), good[19:]...)
	binary.BigEndian.PutUint32(bad, uint32(len(bad)-4))

	var conn clientcheck.Conn
	for i, fr := range [][]byte{good, bad} {
		var t tree.Tree
		err := c.DecodeRequestInto(&t, fr)
		for _, f := range conn.Request(clientcheck.Request{Tree: &t, Err: err, Frame: fr, Codec: c, InFlight: i > 0}) {
			fmt.Println(f)
		}
	}
	// Output:
	// correlation-reused at 0x0008 RequestHeader.CorrelationId: correlation id 7 is that of a request still awaiting its response
	// overlong-varint at 0x0012 MetadataRequest.Topics.length: uvarint written in 2 bytes where 1 byte would do
}
