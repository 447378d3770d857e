package flow

import (
	"reflect"
	"testing"

	"github.com/kwire/kwire/codec"
)

func TestTouchedTopicsAndPartitions(t *testing.T) {
	c := codec.New(testSet)
	id := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	idB64 := "AQIDBAUGBwgJCgsMDQ4PEA"
	mdResp := respFrame(t, c, "Metadata", 12, 1, `{"throttleTimeMs":0,"brokers":[],"clusterId":null,"controllerId":1,"topics":[{"errorCode":0,"name":"byid","topicId":"`+idB64+`","isInternal":false,"partitions":[],"topicAuthorizedOperations":0}]}`)
	cases := []struct {
		api  string
		ver  int16
		body string
		want []TopicPartitions
	}{
		{"Produce", 9, `{"transactionalId":null,"acks":-1,"timeoutMs":1000,"topicData":[{"name":"a","partitionData":[{"index":2,"records":null},{"index":0,"records":null}]},{"name":"b","partitionData":[{"index":7,"records":null}]}]}`,
			[]TopicPartitions{{Topic: "a", Partitions: []int32{2, 0}}, {Topic: "b", Partitions: []int32{7}}}},
		{"OffsetFetch", 7, `{"groupId":"g","topics":[{"name":"t","partitionIndexes":[3,1,3]}],"requireStable":false}`,
			[]TopicPartitions{{Topic: "t", Partitions: []int32{3, 1}}}},
		{"Metadata", 12, `{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"m"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`,
			[]TopicPartitions{{Topic: "m"}}},
		// A topic named by id: the name the Metadata response paired with it.
		{"Fetch", 13, `{"clusterId":null,"replicaId":-1,"maxWaitMs":500,"minBytes":1,"maxBytes":1000,"isolationLevel":0,"sessionId":0,"sessionEpoch":-1,"topics":[{"topicId":"` + idB64 + `","partitions":[{"partition":4,"currentLeaderEpoch":-1,"fetchOffset":0,"lastFetchedEpoch":-1,"logStartOffset":-1,"partitionMaxBytes":100}]}],"forgottenTopicsData":[],"rackId":""}`,
			[]TopicPartitions{{Topic: "byid", ID: id, Partitions: []int32{4}}}},
		{"ApiVersions", 3, `{"clientSoftwareName":"kw","clientSoftwareVersion":"1"}`, nil},
	}
	for _, tc := range cases {
		r := newConn(Options{Codec: c, Touched: true})
		r.conn.Data(ClientToServer, reqFrame(t, c, "Metadata", 12, 1, "c", `{"topics":null,"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`), t0)
		r.conn.Data(ServerToClient, mdResp, t0)
		r.conn.Data(ClientToServer, reqFrame(t, c, tc.api, tc.ver, 2, "c", tc.body), t0)
		r.conn.Close(t0)
		if len(r.pr) != 0 || len(r.ex) != 2 {
			t.Fatalf("%s: problems %v, %d exchanges", tc.api, r.pr, len(r.ex))
		}
		if got := r.ex[1].Topics; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: topics %+v, want %+v", tc.api, got, tc.want)
		}
	}
	// Without Options.Touched nothing is listed.
	r := newConn(Options{Codec: c})
	r.conn.Data(ClientToServer, reqFrame(t, c, "Produce", 9, 2, "c", cases[0].body), t0)
	r.conn.Close(t0)
	if len(r.ex) != 1 || r.ex[0].Topics != nil {
		t.Fatalf("exchanges %+v", r.ex)
	}
}

func TestClientSoftware(t *testing.T) {
	c := codec.New(testSet)
	r := newConn(Options{Codec: c})
	md := `{"topics":[],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`
	r.conn.Data(ClientToServer, reqFrame(t, c, "Metadata", 12, 1, "c", md), t0)
	r.conn.Data(ClientToServer, reqFrame(t, c, "ApiVersions", 3, 2, "c", `{"clientSoftwareName":"kgo","clientSoftwareVersion":"1.22.3"}`), t0)
	r.conn.Data(ClientToServer, reqFrame(t, c, "Metadata", 12, 3, "c", md), t0)
	// An older ApiVersions has no such fields: what is known stays.
	r.conn.Data(ClientToServer, reqFrame(t, c, "ApiVersions", 2, 4, "c", ""), t0)
	r.conn.Data(ClientToServer, reqFrame(t, c, "Metadata", 12, 5, "c", md), t0)
	r.conn.Close(t0)
	want := [][2]string{{"", ""}, {"kgo", "1.22.3"}, {"kgo", "1.22.3"}, {"kgo", "1.22.3"}, {"kgo", "1.22.3"}}
	if len(r.ex) != len(want) {
		t.Fatalf("%d exchanges", len(r.ex))
	}
	for i, x := range r.ex {
		if got := [2]string{x.ClientSoftwareName, x.ClientSoftwareVersion}; got != want[i] {
			t.Errorf("exchange %d (%s): %v, want %v", i, x.API, got, want[i])
		}
	}
}
