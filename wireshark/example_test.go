package wireshark_test

import (
	"bytes"
	"fmt"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/wireshark"
)

// Generate writes the dissector of a release; every body field has a
// display filter name made of the API, the side and the field path.
func ExampleGenerate() {
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		panic(err)
	}
	lua, err := wireshark.Generate(set)
	if err != nil {
		panic(err)
	}
	first, _, _ := bytes.Cut(lua, []byte("\n"))
	fmt.Println(string(first))
	fmt.Println(bytes.Contains(lua, []byte(`{"fetch.request.topics.partitions.partition","Partition",5,"The partition index.",0}`)))
	fmt.Println(wireshark.FilterName("Fetch", false, "Topics[0].Partitions[0].Partition"))
	fmt.Println(wireshark.FilterName("DescribeGroups", true, "Groups[1].ErrorCode"))
	// Output:
	// -- Wireshark dissector for the Apache Kafka protocol, protocol "kafka4".
	// true
	// kafka4.fetch.request.topics.partitions.partition
	// kafka4.describe_groups.response.groups.error_code
}

// The fields of a message that a record's value holds (a KRaft control
// record's) are named after the message.
func ExampleRecordFilterName() {
	fmt.Println(wireshark.RecordFilterName("LeaderChangeMessage", "Voters[0].VoterId"))
	fmt.Println(wireshark.RecordFilterName("VotersRecord", "Voters[1].Endpoints[0].Host"))
	// Output:
	// kafka4.leader_change_message.voters.voter_id
	// kafka4.voters_record.voters.endpoints.host
}
