package render_test

import (
	"os"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
)

// The object tree of the smallest VoteResponse v2, as on kwire's seed page.
func ExampleWriteTree() {
	s, _ := spec.Embedded("4.4.0")
	m := s.Message("VoteResponse")
	t, _ := codec.New(s).Encode(m, 2, nil, instance.Smallest(m, 2))
	t.Sample = true
	render.WriteTree(os.Stdout, t, render.Options{})
	// Output:
	// VoteResponse                            message v2                                [0x0000, 32B]
	// +-- Frame                                                                         [0x0000, 4B]   length-delimited framing
	// |   +-- size                            int32            = 28                     [0x0000, 4B]   number of bytes that follow, patched after encoding
	// +-- ResponseHeader                      v1                                        [0x0004, 5B]   common response header
	// |   +-- correlation_id                  int32            = 0                      [0x0004, 4B]   matches the correlation_id of the request
	// |   +-- tagged_fields                   uvarint          = 0                      [0x0008, 1B]   number of tagged fields in the header
	// +-- VoteResponse                        struct                                    [0x0009, 23B]  message body, version 2
	//     +-- ErrorCode                       int16            = 0                      [0x0009, 2B]   The top level error code.
	//     +-- Topics                          []TopicData      = 1 element              [0x000b, 20B]  The results for each topic.
	//     |   +-- length                      uvarint          = 2 (compact, n+1)       [0x000b, 1B]   one sample element follows
	//     |   +-- TopicData[0]                TopicData        = struct                 [0x000c, 19B]
	//     |       +-- TopicName               string           = "" (compact, len+1=1)  [0x000c, 1B]   The topic name.
	//     |       +-- Partitions              []PartitionData  = 1 element              [0x000d, 17B]  The results for each partition.
	//     |       |   +-- length              uvarint          = 2 (compact, n+1)       [0x000d, 1B]   one sample element follows
	//     |       |   +-- PartitionData[0]    PartitionData    = struct                 [0x000e, 16B]
	//     |       |       +-- PartitionIndex  int32            = 0                      [0x000e, 4B]   The partition index.
	//     |       |       +-- ErrorCode       int16            = 0                      [0x0012, 2B]   The partition level error code.
	//     |       |       +-- LeaderId        int32            = 0                      [0x0014, 4B]   The ID of the current leader or -1 if the leader is unknown.
	//     |       |       +-- LeaderEpoch     int32            = 0                      [0x0018, 4B]   The latest known leader epoch.
	//     |       |       +-- VoteGranted     bool             = false                  [0x001c, 1B]   True if the vote was granted and false otherwise.
	//     |       |       +-- tagged_fields   uvarint          = 0                      [0x001d, 1B]   number of tagged fields in this struct
	//     |       +-- tagged_fields           uvarint          = 0                      [0x001e, 1B]   number of tagged fields in this struct
	//     +-- tagged_fields                   uvarint          = 0                      [0x001f, 1B]   number of tagged fields in this struct
}
