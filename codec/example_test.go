package codec_test

import (
	"encoding/hex"
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

// Decode README's VoteRequest v2 and read fields by their paths, as the
// JSON view's "path" names them: a body field, a header field, and a path
// that does not lead anywhere.
func ExampleCodec_DecodeRequest() {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		panic(err)
	}
	frame, _ := hex.DecodeString("0000006600340002000000070003636c6900036b770000000102135f5f636c75737465725f6d6574616461746102000000000000000300000002000000000000000000000000000000010000000000000000000000000000000000000003000000000000007801000000")
	t, err := codec.New(s).DecodeRequest(frame)
	if err != nil {
		panic(err)
	}
	v, err := t.Get("VoteRequest.Topics[0].Partitions[0].LastOffset")
	if err != nil {
		panic(err)
	}
	fmt.Println("LastOffset", v.Int())
	id, _ := t.Get("RequestHeader.ClientId")
	fmt.Println("ClientId", id.String())
	topic := t.Root().Field("VoteRequest").Field("Topics").Elem(0)
	fmt.Println("TopicName", topic.Field("TopicName").String(), "partitions", topic.Field("Partitions").Len())
	_, err = t.Get("VoteRequest.Topics[0].Partitions[5]")
	fmt.Println(err)
	// Output:
	// LastOffset 120
	// ClientId cli
	// TopicName __cluster_metadata partitions 1
	// VoteRequest.Topics[0].Partitions[5]: index 5 out of range: Partitions (an array of PartitionData) has 1 element
}

// Encode a VoteRequest v2 body given in Kafka's converter JSON (the format
// of the broker's request log), with a request header.
func ExampleFromJSON() {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		panic(err)
	}
	vote := s.Request(52)
	body, err := codec.FromJSON([]byte(`{"clusterId":"kw","voterId":1,"topics":[{"topicName":"__cluster_metadata","partitions":[{"partitionIndex":0,"replicaEpoch":3,"replicaId":2,"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAQ","voterDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","lastOffsetEpoch":3,"lastOffset":120,"preVote":true}]}]}`), vote, 2)
	if err != nil {
		panic(err)
	}
	header := codec.RequestHeaderValue(s.RequestHeader(), 52, 2, 7, "cli")
	t, err := codec.New(s).Encode(vote, 2, header, body)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%x\n", t.Bytes)
	// Output:
	// 0000006600340002000000070003636c6900036b770000000102135f5f636c75737465725f6d6574616461746102000000000000000300000002000000000000000000000000000000010000000000000000000000000000000000000003000000000000007801000000
}

// Build the same VoteRequest v2 in Go, without JSON: fields not set take
// their defaults. It encodes to the same bytes as the JSON above.
func ExampleBuilder() {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		panic(err)
	}
	vote := s.Request(52)
	body, err := codec.NewBuilder(vote, 2).
		Set("ClusterId", "kw").
		Set("VoterId", 1).
		Set("Topics[0].TopicName", "__cluster_metadata").
		Set("Topics[0].Partitions[0].ReplicaEpoch", 3).
		Set("Topics[0].Partitions[0].ReplicaId", 2).
		Set("Topics[0].Partitions[0].ReplicaDirectoryId", "00000000-0000-0000-0000-000000000001").
		Set("Topics[0].Partitions[0].LastOffsetEpoch", 3).
		Set("Topics[0].Partitions[0].LastOffset", 120).
		Set("Topics[0].Partitions[0].PreVote", true).
		Tree()
	if err != nil {
		panic(err)
	}
	header := codec.RequestHeaderValue(s.RequestHeader(), 52, 2, 7, "cli")
	t, err := codec.New(s).Encode(vote, 2, header, body)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%x\n", t.Bytes)
	_, err = codec.NewBuilder(vote, 2).Set("Topics[0].Partitions[0].LastOfset", 120).Tree()
	fmt.Println(err)
	// Output:
	// 0000006600340002000000070003636c6900036b770000000102135f5f636c75737465725f6d6574616461746102000000000000000300000002000000000000000000000000000000010000000000000000000000000000000000000003000000000000007801000000
	// VoteRequest.Topics[0].Partitions[0].LastOfset: no such field in PartitionData; did you mean "LastOffset"?
}

// AppendJSONString writes a string as Kafka's converter JSON (Jackson)
// writes it: short escapes where Jackson has them, \u00XX for other control
// characters, non-ASCII as UTF-8, invalid UTF-8 as U+FFFD.
func ExampleAppendJSONString() {
	fmt.Println(string(codec.AppendJSONString(nil, "a\"b\\\n\x01é/\xff")))
	// Output: "a\"b\\\n\u0001é/�"
}
