package clientcheck_test

import (
	"fmt"
	"testing"

	"github.com/kwire/kwire/clientcheck"
	"github.com/kwire/kwire/clientcheck/clientchecktest"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// judged is a finding on the request of a correlation id.
type judged struct {
	corr int32
	f    clientcheck.Finding
}

// run feeds a conversation to a Conn as flow would: requests decoded
// with c, responses decoded by the key and version of the oldest request
// awaiting one with their correlation id.
func run(t *testing.T, c *codec.Codec, steps []clientchecktest.Step) []judged {
	t.Helper()
	var cc clientcheck.Conn
	type pend struct {
		corr     int32
		key, ver int16
	}
	var pending []pend
	var out []judged
	for i, s := range steps {
		var tr tree.Tree
		if s.Client {
			err := c.DecodeRequestInto(&tr, s.Frame)
			corr, _ := frame.RequestCorrelationID(s.Frame)
			inFlight := false
			for _, p := range pending {
				inFlight = inFlight || p.corr == corr
			}
			for _, f := range cc.Request(clientcheck.Request{Tree: &tr, Err: err, Frame: s.Frame, Codec: c, InFlight: inFlight}) {
				out = append(out, judged{corr, f})
			}
			key, ver, _ := frame.RequestAPI(s.Frame)
			pending = append(pending, pend{corr, key, ver})
			continue
		}
		corr, _ := frame.ResponseCorrelationID(s.Frame)
		k := -1
		for j, p := range pending {
			if p.corr == corr {
				k = j
				break
			}
		}
		if k < 0 {
			t.Fatalf("step %d: response %d to no request", i, corr)
		}
		p := pending[k]
		pending = append(pending[:k], pending[k+1:]...)
		err := c.DecodeResponseInto(&tr, s.Frame, c.Set.Response(p.key), p.ver)
		if err != nil {
			t.Fatalf("step %d: response does not decode: %v", i, err)
		}
		cc.Response(&tr, p.key, err)
	}
	return out
}

// Each planted fault is found on its request, at its offset and path, and
// nothing else is.
func TestPlantedFaults(t *testing.T) {
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := clientchecktest.Cases(set)
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(set)
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			got := run(t, c, tc.Steps)
			if len(got) != 1 {
				for _, g := range got {
					t.Logf("corr %d: %v", g.corr, g.f)
				}
				t.Fatalf("%d findings, want 1", len(got))
			}
			g := got[0]
			if g.corr != tc.Corr || g.f.Rule != tc.Rule || g.f.Offset != tc.Offset || g.f.Path != tc.Path {
				t.Errorf("corr %d: %v\nwant corr %d: %s at 0x%04x %s", g.corr, g.f, tc.Corr, tc.Rule, tc.Offset, tc.Path)
			}
			t.Log(g.f)
		})
	}
}

// The rules' names are distinct and each rule has one.
func TestRuleNames(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range clientcheck.Rules() {
		n := r.String()
		if seen[n] || n == fmt.Sprintf("rule(%d)", r) {
			t.Errorf("rule %d: name %q", r, n)
		}
		seen[n] = true
	}
	if len(seen) != 8 {
		t.Errorf("%d rules", len(seen))
	}
}
