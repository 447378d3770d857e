package flow

import (
	"testing"
	"time"

	"github.com/kwire/kwire/clientcheck"
	"github.com/kwire/kwire/clientcheck/clientchecktest"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
)

// feedSteps feeds a conversation to a new Conn, each frame in two chunks,
// and returns its exchanges and problems.
func feedSteps(t *testing.T, o Options, steps []clientchecktest.Step) ([]*Exchange, []*Problem) {
	t.Helper()
	var xs []*Exchange
	var ps []*Problem
	c := New(o, func(e Event) {
		switch e := e.(type) {
		case *Exchange:
			xs = append(xs, e)
		case *Problem:
			ps = append(ps, e)
		}
	})
	at := time.Unix(1_700_000_000, 0)
	for _, s := range steps {
		d := ServerToClient
		if s.Client {
			d = ClientToServer
		}
		half := len(s.Frame) / 2
		c.Data(d, s.Frame[:half], at)
		c.Data(d, s.Frame[half:], at)
		at = at.Add(time.Millisecond)
	}
	c.Close(at)
	return xs, ps
}

// With Check, each planted client fault is one finding on the exchange of
// its request, at its offset and path, with no problem beside it, trees
// kept or not; without, no exchange has findings.
func TestCheckPlantedFaults(t *testing.T) {
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := clientchecktest.Cases(set)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		for _, keep := range []bool{false, true} {
			xs, ps := feedSteps(t, Options{Codec: codec.New(set), Check: true, KeepTrees: keep}, tc.Steps)
			for _, p := range ps {
				t.Errorf("%s: problem %v", tc.Name, p)
			}
			var got []clientcheck.Finding
			for _, x := range xs {
				if len(x.Findings) > 0 && x.CorrelationID != tc.Corr {
					t.Errorf("%s: findings on correlation id %d: %v", tc.Name, x.CorrelationID, x.Findings)
				}
				got = append(got, x.Findings...)
			}
			if len(got) != 1 || got[0].Rule != tc.Rule || got[0].Offset != tc.Offset || got[0].Path != tc.Path {
				t.Errorf("%s (trees kept %v): findings %v; want %s at 0x%04x %s", tc.Name, keep, got, tc.Rule, tc.Offset, tc.Path)
			}
		}
		xs, _ := feedSteps(t, Options{Codec: codec.New(set)}, tc.Steps)
		for _, x := range xs {
			if x.Findings != nil {
				t.Errorf("%s: findings without Check: %v", tc.Name, x.Findings)
			}
		}
	}
}

// A PLAIN authentication over raw tokens (SaslHandshake v0) completes
// with the broker's token: the Metadata after it has no finding, the one
// before the token is answered has.
func TestCheckSASLTokens(t *testing.T) {
	c := codec.New(testSet)
	frame := func(b []byte) []byte { return append([]byte{0, 0, 0, byte(len(b))}, b...) }
	steps := []clientchecktest.Step{
		{Client: true, Frame: reqFrame(t, c, "SaslHandshake", 0, 1, "cli", `{"mechanism":"PLAIN"}`)},
		{Frame: respFrame(t, c, "SaslHandshake", 0, 1, `{"errorCode":0,"mechanisms":["PLAIN"]}`)},
		{Client: true, Frame: frame([]byte("\x00u\x00p"))},
		{Client: true, Frame: reqFrame(t, c, "Metadata", 12, 2, "cli", "")},
		{Frame: frame(nil)},
		{Frame: respFrame(t, c, "Metadata", 12, 2, "")},
		{Client: true, Frame: reqFrame(t, c, "Metadata", 12, 3, "cli", "")},
		{Frame: respFrame(t, c, "Metadata", 12, 3, "")},
	}
	xs, ps := feedSteps(t, Options{Codec: c, Check: true}, steps)
	if len(ps) > 0 {
		t.Errorf("problems: %v", ps)
	}
	var found []int32
	for _, x := range xs {
		for _, f := range x.Findings {
			if f.Rule != clientcheck.BeforeSASL {
				t.Errorf("corr %d: %v", x.CorrelationID, f)
			}
			found = append(found, x.CorrelationID)
		}
	}
	if len(found) != 1 || found[0] != 2 {
		t.Errorf("before-sasl findings on %v, want on correlation id 2", found)
	}
}

// Bytes lost after a SaslHandshake may have held the round that completed
// authentication: the request after the gap is not a finding.
func TestCheckGapEndsSASLJudging(t *testing.T) {
	c := codec.New(testSet)
	var xs []*Exchange
	conn := New(Options{Codec: c, Check: true}, func(e Event) {
		if x, ok := e.(*Exchange); ok {
			xs = append(xs, x)
		}
	})
	at := time.Unix(1_700_000_000, 0)
	hs := reqFrame(t, c, "SaslHandshake", 1, 1, "cli", `{"mechanism":"PLAIN"}`)
	conn.Data(ClientToServer, hs, at)
	conn.Data(ServerToClient, respFrame(t, c, "SaslHandshake", 1, 1, `{"errorCode":0,"mechanisms":["PLAIN"]}`), at)
	conn.GapToFrame(ClientToServer, 40, at) // a SaslAuthenticate request, not seen
	conn.GapToFrame(ServerToClient, 30, at) // and its response
	conn.Data(ClientToServer, reqFrame(t, c, "Metadata", 12, 3, "cli", ""), at)
	conn.Data(ServerToClient, respFrame(t, c, "Metadata", 12, 3, ""), at)
	conn.Close(at)
	for _, x := range xs {
		if len(x.Findings) > 0 {
			t.Errorf("corr %d: %v", x.CorrelationID, x.Findings)
		}
	}
	if len(xs) != 2 {
		t.Errorf("%d exchanges", len(xs))
	}
}
