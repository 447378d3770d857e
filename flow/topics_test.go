package flow

import (
	"encoding/base64"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// offsetsRecords is a batch of one __consumer_offsets record:
// OffsetCommitKey (record type 1: group "g", topic "t", partition 3) with
// OffsetCommitValue v1 (offset 9, metadata "m", commit time 5, expire time
// -1), encoded by hand.
func offsetsRecords() string {
	str := func(b []byte, s string) []byte { return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...) }
	key := str(str(binary.BigEndian.AppendUint16(nil, 1), "g"), "t")
	key = binary.BigEndian.AppendUint32(key, 3)
	val := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint16(nil, 1), 9)
	val = str(val, "m")
	val = binary.BigEndian.AppendUint64(val, 5)
	val = binary.BigEndian.AppendUint64(val, ^uint64(0))
	return base64.StdEncoding.EncodeToString(records.Batch{Records: []records.KeyValue{{Key: key, Value: val}}}.Bytes())
}

// embedded lists the messages decoded inside record keys and values of
// the kept response trees of r's Fetch exchanges, with their versions.
func (r *recorder) embedded() [][]string {
	var out [][]string
	for _, x := range r.ex {
		if x.API != "Fetch" {
			continue
		}
		t := x.Response.Tree
		var got []string
		for i := range t.Nodes {
			if t.Nodes[i].Kind() == tree.Embedded {
				got = append(got, t.Struct(int32(i)).Name+" "+t.PathOf(int32(i)).String())
			}
		}
		out = append(out, got)
	}
	return out
}

// The records of __consumer_offsets in a Fetch response are decoded by
// record type when the topic is named by name (Fetch v12), or by an id
// that a Metadata response on the connection, or on another that shares
// its Names, gave; not by an id the connection has not learned, nor for a
// topic whose name is only the kind's ("offsets").
func TestInternalTopicRecordsInFetch(t *testing.T) {
	c := newConn(Options{}).conn.o.Codec
	recs := offsetsRecords()
	const id = "AAAAAAAAAAAAAAAAAAAAMg"
	md := func(corr int32) [2][]byte {
		return [2][]byte{reqFrame(t, c, "Metadata", 12, corr, "c", `{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"__consumer_offsets"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`),
			respFrame(t, c, "Metadata", 12, corr, `{"throttleTimeMs":0,"brokers":[],"clusterId":null,"controllerId":1,"topics":[{"errorCode":0,"name":"__consumer_offsets","topicId":"`+id+`","isInternal":true,"partitions":[],"topicAuthorizedOperations":-2147483648}]}`)}
	}
	part := `"partitions":[{"partitionIndex":0,"errorCode":0,"highWatermark":1,"lastStableOffset":1,"logStartOffset":0,"abortedTransactions":null,"preferredReadReplica":-1,"records":"` + recs + `"}]`
	fetch := func(corr int32, ver int16, topic string) [2][]byte {
		req := `{"maxWaitMs":0,"minBytes":0,"maxBytes":1048576,"isolationLevel":0,"sessionId":0,"sessionEpoch":-1,"topics":[{` + topic + `,"partitions":[]}],"forgottenTopicsData":[],"rackId":""}`
		if ver < 13 {
			req = `{"replicaId":-1,` + req[1:]
		}
		return [2][]byte{reqFrame(t, c, "Fetch", ver, corr, "c", req),
			respFrame(t, c, "Fetch", ver, corr, `{"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{`+topic+`,`+part+`}]}`)}
	}
	feed := func(r *recorder, xs ...[2][]byte) {
		for _, x := range xs {
			r.conn.Data(ClientToServer, x[0], t0)
			r.conn.Data(ServerToClient, x[1], t0)
		}
		r.conn.Close(t0)
		if len(r.pr) != 0 {
			t.Errorf("problems %v", r.pr)
		}
	}
	const rec = "FetchResponse.Responses[0].Partitions[0].Records[0].Record[0]."
	decoded := []string{"OffsetCommitKey " + rec + "key.embedded", "OffsetCommitValue " + rec + "value.embedded"}

	// By id before and after the Metadata response, then by name.
	r := newConn(Options{KeepTrees: true})
	feed(r, fetch(1, 17, `"topicId":"`+id+`"`), md(2), fetch(3, 17, `"topicId":"`+id+`"`), fetch(4, 12, `"topic":"__consumer_offsets"`), fetch(5, 12, `"topic":"offsets"`))
	if got, want := r.embedded(), [][]string{nil, decoded, decoded, nil}; !reflect.DeepEqual(got, want) {
		t.Errorf("one connection: %q\nwant %q", got, want)
	}

	// Two connections sharing their names: the first's Metadata serves
	// the second's Fetch by id; a third of its own does not know the id.
	names := &Names{}
	feed(newConn(Options{KeepTrees: true, Names: names}), md(1))
	if names.Name([16]byte{15: 50}) != "__consumer_offsets" {
		t.Fatalf("names learned: %q", names.Name([16]byte{15: 50}))
	}
	r = newConn(Options{KeepTrees: true, Names: names})
	feed(r, fetch(1, 17, `"topicId":"`+id+`"`))
	if got, want := r.embedded(), [][]string{decoded}; !reflect.DeepEqual(got, want) {
		t.Errorf("shared names: %q\nwant %q", got, want)
	}
	r = newConn(Options{KeepTrees: true})
	feed(r, fetch(1, 17, `"topicId":"`+id+`"`))
	if got, want := r.embedded(), [][]string{nil}; !reflect.DeepEqual(got, want) {
		t.Errorf("own names: %q\nwant %q", got, want)
	}
}
