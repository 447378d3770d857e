package flow

import (
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
)

// Produce v2 is in Kafka 3.9.1's specs and not in 4.4.0's: with the
// embedded fallbacks it decodes, request and response, and the exchange
// names the release; without them the request does not decode.
func TestFallbackDecodesAVersionTheReleaseDropped(t *testing.T) {
	old, err := spec.Embedded("3.9")
	if err != nil {
		t.Fatal(err)
	}
	oc := codec.New(old)
	req := reqFrame(t, oc, "Produce", 2, 7, "legacy", `{"acks":-1,"timeoutMs":30000,"topicData":[{"name":"orders","partitionData":[{"index":0,"records":null}]}]}`)
	resp := respFrame(t, oc, "Produce", 2, 7, `{"responses":[{"name":"orders","partitionResponses":[{"index":0,"errorCode":6,"baseOffset":-1,"logAppendTimeMs":-1}]}],"throttleTimeMs":0}`)

	fbs := EmbeddedFallbacks(testSet)
	if len(fbs) == 0 || fbs[0].Release != "3.9.1" {
		t.Fatalf("EmbeddedFallbacks(%s) = %d sets", testSet.Release, len(fbs))
	}
	for _, s := range fbs {
		if s.Release == testSet.Release {
			t.Errorf("the chosen release %s is among its fallbacks", s.Release)
		}
	}

	r := newConn(Options{Fallback: fbs, KeepTrees: true})
	r.conn.Data(ClientToServer, req, t0)
	r.conn.Data(ServerToClient, resp, t0)
	r.conn.Close(t0)
	if len(r.pr) != 0 || len(r.ex) != 1 {
		t.Fatalf("%d problems (%v), %d exchanges", len(r.pr), r.pr, len(r.ex))
	}
	x := r.ex[0]
	if x.API != "Produce" || x.Version != 2 || x.DecodedWith != "3.9.1" || x.ClientID != "legacy" ||
		x.Request.Err != nil || x.Response.Err != nil {
		t.Errorf("exchange %+v", x)
	}
	if len(x.Errors) != 1 || x.Errors[0].Name != "NOT_LEADER_OR_FOLLOWER" || x.Errors[0].Path != "ProduceResponse.Responses[0].PartitionResponses[0].ErrorCode" {
		t.Errorf("errors %+v", x.Errors)
	}

	// Without fallbacks: the request does not decode under 4.4.
	r = newConn(Options{})
	r.conn.Data(ClientToServer, req, t0)
	r.conn.Data(ServerToClient, resp, t0)
	r.conn.Close(t0)
	if len(r.ex) != 1 || r.ex[0].DecodedWith != "" || len(r.problems(DecodeFailed)) != 2 {
		t.Errorf("without fallbacks: %d exchanges, problems %v", len(r.ex), r.pr)
	}

	// A version every release has is decoded by the chosen one.
	r = newConn(Options{Fallback: fbs})
	r.conn.Data(ClientToServer, reqFrame(t, codec.New(testSet), "Produce", 9, 8, "new", ""), t0)
	r.conn.Close(t0)
	if len(r.ex) != 1 || r.ex[0].DecodedWith != "" || r.ex[0].Request.Err != nil {
		t.Errorf("Produce v9: %+v", r.ex)
	}
}
