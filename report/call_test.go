package report_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/report"
	"github.com/kwire/kwire/spec"
)

// WriteQuorum's summary of a DescribeQuorumResponse v2 built in Go: the
// leader's line, the voters with their lag behind the leader (the leader
// first, as the broker lists it), an observer, and a lag that cannot be
// known (a log end offset of -1).
func ExampleWriteQuorum() {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		panic(err)
	}
	m := s.Response(55)
	b := codec.NewBuilder(m, 2).
		Set("Topics[0].TopicName", "__cluster_metadata").
		Set("Topics[0].Partitions[0].PartitionIndex", 0).
		Set("Topics[0].Partitions[0].LeaderId", 1).
		Set("Topics[0].Partitions[0].LeaderEpoch", 4).
		Set("Topics[0].Partitions[0].HighWatermark", 120)
	for k, v := range [][2]int{{1, 130}, {2, 125}, {3, -1}} {
		p := "Topics[0].Partitions[0].CurrentVoters[" + strconv.Itoa(k) + "]."
		b.Set(p+"ReplicaId", v[0]).Set(p+"LogEndOffset", v[1])
	}
	b.Set("Topics[0].Partitions[0].Observers[0].ReplicaId", 7).Set("Topics[0].Partitions[0].Observers[0].LogEndOffset", 100)
	body, err := b.Tree()
	if err != nil {
		panic(err)
	}
	c := codec.New(s)
	enc, err := c.Encode(m, 2, nil, body)
	if err != nil {
		panic(err)
	}
	dec, err := c.DecodeResponse(enc.Bytes, m, 2)
	if err != nil {
		panic(err)
	}
	report.WriteQuorum(os.Stdout, dec)
	// Output:
	// quorum __cluster_metadata-0: leader 1, epoch 4, high watermark 120
	//   voter (leader)      1  log end offset 130, lag 0
	//   voter               2  log end offset 125, lag 5
	//   voter               3  log end offset -1, lag unknown
	//   observer            7  log end offset 100, lag 30
}

// The summary line names the response, the address, the request's
// correlation id, both sizes and the latency; non-zero error codes follow
// with their paths.
func TestCallSummary(t *testing.T) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	req, resp := s.Request(3), s.Response(3)
	rb, _ := codec.NewBuilder(req, 12).Set("Topics", nil).Tree()
	rt, err := c.Encode(req, 12, codec.RequestHeaderValue(s.RequestHeader(), 3, 12, 7, "kwire"), rb)
	if err != nil {
		t.Fatal(err)
	}
	bb, _ := codec.NewBuilder(resp, 12).Set("Topics[0].ErrorCode", 3).Set("Topics[0].Name", "t").Tree()
	enc, err := c.Encode(resp, 12, codec.ResponseHeaderValue(s.ResponseHeader(), 7), bb)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := c.DecodeResponse(enc.Bytes, resp, 12)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	report.CallSummary(&out, "h:9092", &client.Exchange{Request: rt, Response: dec, Latency: 1234567 * time.Nanosecond}, true)
	want := "MetadataResponse v12  h:9092  correlation id 7  request " + strconv.Itoa(len(rt.Bytes)) + " B  response " + strconv.Itoa(len(enc.Bytes)) + " B  1.23ms\n" +
		"error codes: UNKNOWN_TOPIC_OR_PARTITION(3) at MetadataResponse.Topics[0].ErrorCode\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}
