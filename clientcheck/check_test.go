package clientcheck_test

import (
	"fmt"
	"strings"
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

// frameOf encodes a request (req) or response of api at ver.
func frameOf(t *testing.T, c *codec.Codec, api string, req bool, ver int16, corr int32, body string) []byte {
	t.Helper()
	rq, rs, err := c.Set.Lookup(api)
	if err != nil {
		t.Fatal(err)
	}
	m, h := rs, codec.ResponseHeaderValue(c.Set.ResponseHeader(), corr)
	if req {
		m, h = rq, codec.RequestHeaderValue(c.Set.RequestHeader(), rq.APIKey, ver, corr, "cli")
	}
	v, err := codec.FromJSON([]byte(body), m, ver)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.Encode(m, ver, h, v)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Bytes
}

// SCRAM takes two rounds: a request after the first is a finding, after
// the second not; a handshake the broker refuses starts nothing; an
// ApiVersions answer with an error (KIP-511's v0 fallback) announces
// nothing.
func TestSASLRoundsAndErrorAnswers(t *testing.T) {
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(set)
	md := func(corr int32) clientchecktest.Step {
		return clientchecktest.Step{Client: true, Frame: frameOf(t, c, "Metadata", true, 12, corr, `{"topics":null,"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`)}
	}
	mdResp := func(corr int32) clientchecktest.Step {
		return clientchecktest.Step{Frame: frameOf(t, c, "Metadata", false, 12, corr, `{"throttleTimeMs":0,"brokers":[],"clusterId":null,"controllerId":1,"topics":[]}`)}
	}
	auth := func(corr int32) []clientchecktest.Step {
		return []clientchecktest.Step{
			{Client: true, Frame: frameOf(t, c, "SaslAuthenticate", true, 2, corr, `{"authBytes":""}`)},
			{Frame: frameOf(t, c, "SaslAuthenticate", false, 2, corr, `{"errorCode":0,"errorMessage":null,"authBytes":"","sessionLifetimeMs":0}`)},
		}
	}
	steps := []clientchecktest.Step{
		{Client: true, Frame: frameOf(t, c, "ApiVersions", true, 4, 1, `{"clientSoftwareName":"x","clientSoftwareVersion":"1"}`)},
		{Frame: frameOf(t, c, "ApiVersions", false, 4, 1, `{"errorCode":35,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":3}],"throttleTimeMs":0}`)},
		{Client: true, Frame: frameOf(t, c, "SaslHandshake", true, 1, 2, `{"mechanism":"SCRAM-SHA-512"}`)},
		{Frame: frameOf(t, c, "SaslHandshake", false, 1, 2, `{"errorCode":0,"mechanisms":["SCRAM-SHA-512"]}`)},
	}
	steps = append(steps, auth(3)...)
	steps = append(steps, md(4), mdResp(4))
	steps = append(steps, auth(5)...)
	steps = append(steps, md(6), mdResp(6),
		clientchecktest.Step{Client: true, Frame: frameOf(t, c, "SaslHandshake", true, 1, 7, `{"mechanism":"NOPE"}`)},
		clientchecktest.Step{Frame: frameOf(t, c, "SaslHandshake", false, 1, 7, `{"errorCode":33,"mechanisms":["PLAIN"]}`)},
		md(8), mdResp(8))
	got := run(t, c, steps)
	if len(got) != 1 || got[0].corr != 4 || got[0].f.Rule != clientcheck.BeforeSASL || !strings.Contains(got[0].f.Msg, "1 of 2 rounds") {
		t.Errorf("findings %v; want before-sasl on correlation id 4 only", got)
	}
}

// A producer's sequences wrap past the int32 maximum to 0.
func TestSequenceWraps(t *testing.T) {
	if n := clientcheck.NextSequence(1<<31-2, 3); n != 1 {
		t.Errorf("after 2147483646 + 3 records: %d, want 1", n)
	}
	if n := clientcheck.NextSequence(5, 3); n != 8 {
		t.Errorf("after 5 + 3 records: %d, want 8", n)
	}
}
