package tree_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// bigVote decodes a VoteRequest v2 with n partitions (LastOffset = the
// partition's index): a tree whose one array holds many elements, as a
// record batch holds many records.
func bigVote(tb testing.TB, n int) *tree.Tree {
	tb.Helper()
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		tb.Fatal(err)
	}
	var ps []string
	for i := 0; i < n; i++ {
		ps = append(ps, fmt.Sprintf(`{"partitionIndex":%d,"replicaEpoch":3,"replicaId":2,"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAQ","voterDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","lastOffsetEpoch":3,"lastOffset":%d,"preVote":true}`, i, i))
	}
	vote := s.Request(52)
	body, err := codec.FromJSON([]byte(`{"clusterId":"kw","voterId":1,"topics":[{"topicName":"t","partitions":[`+strings.Join(ps, ",")+`]}]}`), vote, 2)
	if err != nil {
		tb.Fatal(err)
	}
	c := codec.New(s)
	enc, err := c.Encode(vote, 2, codec.RequestHeaderValue(s.RequestHeader(), 52, 2, 7, "cli"), body)
	if err != nil {
		tb.Fatal(err)
	}
	tr, err := c.DecodeRequest(enc.Bytes)
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// A step that succeeds computes no error path (a walk from the root past
// every earlier sibling): Field and Elem of the last of many elements
// allocate nothing, so reading a field of each of n elements costs n
// steps, not n².
func TestStepsComputeNoPath(t *testing.T) {
	tr := bigVote(t, 3000)
	ps := tr.Root().Field("VoteRequest").Field("Topics").Elem(0).Field("Partitions")
	if ps.Len() != 3000 {
		t.Fatalf("%d partitions", ps.Len())
	}
	last := ps.Elem(2999)
	var got int64
	allocs := testing.AllocsPerRun(20, func() {
		got = last.Field("LastOffset").Int() + last.Field("PartitionIndex").Int()
	})
	if got != 2*2999 || allocs != 0 {
		t.Errorf("LastOffset+PartitionIndex of the last partition = %d with %v allocations, want %d with 0", got, allocs, 2*2999)
	}
	if allocs := testing.AllocsPerRun(20, func() { got = ps.Elem(1500).Field("LastOffset").Int() }); got != 1500 || allocs != 0 {
		t.Errorf("Elem(1500).LastOffset = %d with %v allocations, want 1500 with 0", got, allocs)
	}
}

// The errors of Field and Elem steps (whose path is computed on failure)
// are those of Get for the same path, text and reason.
func TestStepErrorsAreGets(t *testing.T) {
	tr := bigVote(t, 3)
	body := tr.Root().Field("VoteRequest")
	p0 := body.Field("Topics").Elem(0).Field("Partitions").Elem(2)
	for _, tc := range []struct {
		path string
		v    tree.Value
		want string
	}{
		{"VoteRequest.Topics[0].Partitions[3]", body.Field("Topics").Elem(0).Field("Partitions").Elem(3),
			"VoteRequest.Topics[0].Partitions[3]: index 3 out of range: Partitions (an array of PartitionData) has 3 elements"},
		{"VoteRequest.Topics[0].Partitions[2].LastOfset", p0.Field("LastOfset"),
			`VoteRequest.Topics[0].Partitions[2].LastOfset: no such field in Partitions[2] (a struct (PartitionData)); did you mean "LastOffset"?`},
		{"VoteRequest.ClusterId[0]", body.Field("ClusterId").Elem(0),
			"VoteRequest.ClusterId[0]: not an array: ClusterId (a string) has no elements"},
		{"VoteRequest.Topics[0].Partitions[2].LastOffset.X", p0.Field("LastOffset").Field("X"),
			"VoteRequest.Topics[0].Partitions[2].LastOffset.X: not a struct: LastOffset (an int64) has no fields"},
		{"RequestHeader.CorrelationID", tr.Root().Field("RequestHeader").Field("CorrelationID"),
			`RequestHeader.CorrelationID: no such field in RequestHeader (a struct (RequestHeader)); did you mean "CorrelationId"?`},
		{"Frame.sise", tr.Root().Field("Frame").Field("sise"),
			`Frame.sise: no such field in Frame (a frame node); did you mean "size"?`},
	} {
		_, gerr := tr.Get(tc.path)
		if tc.v.Err() == nil || tc.v.Err().Error() != tc.want || gerr == nil || gerr.Error() != tc.want {
			t.Errorf("%s:\n step %v\n  get %v\n want %s", tc.path, tc.v.Err(), gerr, tc.want)
		}
	}
}

// BenchmarkFieldOfEach reads two fields of each of 20000 elements of one
// array, as the log's --state reads fields of each record of a batch: a
// step's cost must not grow with the number of elements before it.
func BenchmarkFieldOfEach(b *testing.B) {
	tr := bigVote(b, 20000)
	ps := tr.Root().Field("VoteRequest").Field("Topics").Elem(0).Field("Partitions")
	es := make([]tree.Value, 20000)
	for i := range es {
		es[i] = ps.Elem(i)
	}
	for b.Loop() {
		var sum int64
		for _, e := range es {
			sum += e.Field("LastOffset").Int() + e.Field("PartitionIndex").Int()
		}
		if sum != 2*(20000*19999/2) {
			b.Fatal(sum)
		}
	}
}
