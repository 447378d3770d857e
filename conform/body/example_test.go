package body_test

import (
	"fmt"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/conform/body"
	"github.com/kwire/kwire/spec"
)

// The body conform sends as Metadata v12 and as DeleteTopics v6, whether
// it may send them by default, and the bytes of Metadata v12: the topic
// (compact array of 1: 02), its zero id, its name (compact string of 18
// bytes: 13), the element's tag section, allowAutoTopicCreation and
// includeTopicAuthorizedOperations false, the body's tag section.
func ExampleFor() {
	set, _ := spec.Embedded("4.4")
	n := body.Names{Prefix: "kwire-conform-x1", Topic: "kwire-conform-x1-t", Group: "kwire-conform-x1-g", TransactionalID: "kwire-conform-x1-txn"}
	for _, name := range []string{"Metadata", "DeleteTopics"} {
		req, _, _ := set.Lookup(name)
		v := req.ValidVersions.Hi
		js, _ := body.JSON(req, v, n)
		fmt.Printf("%s v%d (%s): %s\n", name, v, body.AccessOf(req), js)
	}
	req := set.Request(3)
	t, err := body.For(req, 12, n)
	if err != nil {
		fmt.Println(err)
		return
	}
	enc, _ := codec.New(set).EncodeBody(req, 12, t)
	fmt.Printf("%x\n", enc.Bytes)
	// Output:
	// Metadata v13 (read-only): {"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false,"topics":[{"name":"kwire-conform-x1-t","topicId":"AAAAAAAAAAAAAAAAAAAAAA"}]}
	// DeleteTopics v6 (mutating): {"timeoutMs":5000,"topics":[{"name":"kwire-conform-x1-t","topicId":"AAAAAAAAAAAAAAAAAAAAAA"}]}
	// 0200000000000000000000000000000000136b776972652d636f6e666f726d2d78312d7400000000
}
