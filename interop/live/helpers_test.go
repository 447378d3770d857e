package live

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

var kafka44 = func() *codec.Codec {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		panic(err)
	}
	return codec.New(s)
}()

// callJSON sends one request, body as converter JSON, at the negotiated
// version, to addr and unmarshals the response body into dst.
func callJSON(ctx context.Context, addr, api, body string, dst any) error {
	conn, err := client.Dial(ctx, addr, kafka44, client.Options{ClientID: "kwire-live-test", Timeout: 5 * time.Second})
	if err != nil {
		return err
	}
	defer conn.Close()
	req, _, err := kafka44.Set.Lookup(api)
	if err != nil {
		return err
	}
	v, err := conn.Negotiate(req)
	if err != nil {
		return err
	}
	bt, err := codec.FromJSON([]byte(body), req, v)
	if err != nil {
		return err
	}
	x, err := conn.Call(ctx, req, v, bt)
	if err != nil {
		return err
	}
	js, err := codec.ToJSON(nil, x.Response, x.Response.Part(tree.Body), x.Response.Message, x.Response.Version, codec.JSONOptions{})
	if err != nil {
		return err
	}
	return json.Unmarshal(js, dst)
}

type quorumState struct {
	Leader, Epoch int32
	HighWatermark int64
	Voters        map[int32]int64 // replica id → log end offset
}

// describeQuorum asks addr (a broker: it forwards to the active controller)
// for the state of __cluster_metadata-0.
func describeQuorum(ctx context.Context, addr string) (quorumState, error) {
	var q struct {
		ErrorCode int16 `json:"errorCode"`
		Topics    []struct {
			Partitions []struct {
				ErrorCode     int16 `json:"errorCode"`
				LeaderID      int32 `json:"leaderId"`
				LeaderEpoch   int32 `json:"leaderEpoch"`
				HighWatermark int64 `json:"highWatermark"`
				CurrentVoters []struct {
					ReplicaID    int32 `json:"replicaId"`
					LogEndOffset int64 `json:"logEndOffset"`
				} `json:"currentVoters"`
			} `json:"partitions"`
		} `json:"topics"`
	}
	err := callJSON(ctx, addr, "DescribeQuorum", `{"topics":[{"topicName":"__cluster_metadata","partitions":[{"partitionIndex":0}]}]}`, &q)
	if err != nil {
		return quorumState{}, err
	}
	if q.ErrorCode != 0 || len(q.Topics) != 1 || len(q.Topics[0].Partitions) != 1 {
		return quorumState{}, fmt.Errorf("DescribeQuorum: error %d, %d topics", q.ErrorCode, len(q.Topics))
	}
	p := q.Topics[0].Partitions[0]
	if p.ErrorCode != 0 {
		return quorumState{}, fmt.Errorf("DescribeQuorum: partition error %d", p.ErrorCode)
	}
	s := quorumState{Leader: p.LeaderID, Epoch: p.LeaderEpoch, HighWatermark: p.HighWatermark, Voters: map[int32]int64{}}
	for _, v := range p.CurrentVoters {
		s.Voters[v.ReplicaID] = v.LogEndOffset
	}
	return s, nil
}

// waitQuorum polls describeQuorum until ok accepts the state or the timeout
// passes.
func waitQuorum(t *testing.T, addr string, timeout time.Duration, what string, ok func(quorumState) bool) quorumState {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last quorumState
	var lastErr error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s, err := describeQuorum(ctx, addr)
		cancel()
		if err == nil && ok(s) {
			return s
		}
		last, lastErr = s, err
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v (last state %+v, error %v)", what, timeout, last, lastErr)
	return last
}
