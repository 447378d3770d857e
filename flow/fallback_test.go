package flow

import (
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
)

// Produce v2 is in Kafka 3.9's specs and not in 4.x's: with the embedded
// fallbacks it decodes, request and response, with the newest release that
// has it (3.9.2), and the exchange names the release; without them the
// request does not decode.
func TestFallbackDecodesAVersionTheReleaseDropped(t *testing.T) {
	old, err := spec.Embedded("3.9")
	if err != nil {
		t.Fatal(err)
	}
	oc := codec.New(old)
	req := reqFrame(t, oc, "Produce", 2, 7, "legacy", `{"acks":-1,"timeoutMs":30000,"topicData":[{"name":"orders","partitionData":[{"index":0,"records":null}]}]}`)
	resp := respFrame(t, oc, "Produce", 2, 7, `{"responses":[{"name":"orders","partitionResponses":[{"index":0,"errorCode":6,"baseOffset":-1,"logAppendTimeMs":-1}]}],"throttleTimeMs":0}`)

	fbs := EmbeddedFallbacks(testSet)
	// The newest release with the version, whichever is chosen: Produce
	// v2 and ListOffsets v0 were dropped in 4.0, so 3.9.2; ShareFetch v0
	// (api key 78, KIP-932's early access) is in 3.9 and 4.0 only, so 4.0.2;
	// Produce v99 nowhere.
	for _, c := range []struct {
		key, ver int16
		want     string
	}{{0, 2, "3.9.2"}, {2, 0, "3.9.2"}, {78, 0, "4.0.2"}, {0, 99, ""}} {
		got := ""
		if s := fbs(c.key, c.ver); s != nil {
			got = s.Release
		}
		if got != c.want {
			t.Errorf("EmbeddedFallbacks(%s)(%d, %d) = %q, want %q", testSet.Release, c.key, c.ver, got, c.want)
		}
	}
	// The chosen release is never its own fallback: under 3.9.2, Produce
	// v2 falls back to nothing newer than 3.9.1.
	if s := EmbeddedFallbacks(old)(0, 2); s == nil || s.Release != "3.9.1" {
		t.Errorf("EmbeddedFallbacks(3.9.2)(0, 2) = %v, want 3.9.1", s)
	}
	if s := FallbackSets(testSet, old)(0, 2); s != old {
		t.Errorf("FallbackSets(4.4.0, 3.9.2)(0, 2) = %v, want 3.9.2", s)
	}

	r := newConn(Options{Fallback: fbs, KeepTrees: true})
	r.conn.Data(ClientToServer, req, t0)
	r.conn.Data(ServerToClient, resp, t0)
	r.conn.Close(t0)
	if len(r.pr) != 0 || len(r.ex) != 1 {
		t.Fatalf("%d problems (%v), %d exchanges", len(r.pr), r.pr, len(r.ex))
	}
	x := r.ex[0]
	if x.API != "Produce" || x.Version != 2 || x.DecodedWith != "3.9.2" || x.ClientID != "legacy" ||
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
