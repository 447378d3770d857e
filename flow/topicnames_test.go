package flow

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/kwire/kwire/codec"
)

// TopicNames pairs each topic's id and name of a Metadata response; a
// topic without an id (all zero) is not a pair.
func TestTopicNames(t *testing.T) {
	c := codec.New(testSet)
	_, m, _ := testSet.Lookup("Metadata")
	fr := respFrame(t, c, "Metadata", 12, 1, `{"throttleTimeMs":0,"brokers":[],"clusterId":null,"controllerId":1,"topics":[`+
		`{"errorCode":0,"name":"__consumer_offsets","topicId":"AAAAAAAAAAAAAAAAAAAABw","isInternal":true,"partitions":[],"topicAuthorizedOperations":-2147483648},`+
		`{"errorCode":3,"name":"nope","topicId":"AAAAAAAAAAAAAAAAAAAAAA","isInternal":false,"partitions":[],"topicAuthorizedOperations":-2147483648},`+
		`{"errorCode":0,"name":"payments","topicId":"AAAAAAAAAAAAAAAAAAAACA","isInternal":false,"partitions":[],"topicAuthorizedOperations":-2147483648}]}`)
	tr, err := c.DecodeResponse(fr, m, 12)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	TopicNames(tr, func(id [16]byte, name string) { got = append(got, fmt.Sprintf("%x %s", id, name)) })
	want := []string{"00000000000000000000000000000007 __consumer_offsets", "00000000000000000000000000000008 payments"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pairs %q, want %q", got, want)
	}
	TopicNames(nil, func([16]byte, string) { t.Error("a pair in a nil tree") })
}
