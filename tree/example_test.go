package tree_test

import (
	"fmt"

	"github.com/kwire/kwire/tree"
)

// One path in each of kwire's notations, and a path read back.
func ExamplePath() {
	var p tree.Path
	p.Push("VoteRequest")
	p.Push("Topics")
	p.PushIndex(0)
	p.Push("Partitions")
	p.PushIndex(0)
	p.Push("LastOffset")
	fmt.Println(p.String())
	fmt.Println(string(p[1:].AppendJSON(nil, nil)))
	fmt.Println(string(p[1:].AppendAnchor(nil)))
	q, err := tree.ParsePath("RequestHeader.ClientId")
	fmt.Println(len(q), q[1].Name, err)
	_, err = tree.ParsePath("Topics[x]")
	fmt.Println(err)
	// Output:
	// VoteRequest.Topics[0].Partitions[0].LastOffset
	// $.topics[0].partitions[0].lastOffset
	// Topics.0.Partitions.0.LastOffset
	// 2 ClientId <nil>
	// Topics[x]: at character 7: index "x" is not a number from 0 on
}
