package conform_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/conform"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/internal/testnet"
)

// TestReconnectAndTimeout: a probe whose connection the target closed,
// or that timed out, is followed by the next on a new connection; the
// outcomes are closed (a finding for the valid body: the version was
// announced) and timeout, and the random probes after them pass.
func TestReconnectAndTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fault   func(n int32) []byte // nil: close; empty: no answer
		outcome conform.Outcome
	}{
		{"closed", func(int32) []byte { return nil }, conform.Found},
		{"timeout", func(int32) []byte { return []byte{} }, conform.Timeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			addr := startFault(t, announced, func(_, _ int16, fr []byte) []byte {
				if n.Add(1) == 1 {
					return tc.fault(1)
				}
				return fr
			})
			r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: set44(t), APIs: []int16{3}, Random: 2, Seed: 1,
				Bodies: bodies, Access: readOnly, Client: client.Options{Timeout: 300 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range r.Probes {
				got = append(got, p.Name()+" "+p.Outcome.String())
			}
			want := []string{"ApiVersions v5 apiversions pass", "Metadata v12 body " + tc.outcome.String(), "Metadata v12 random 0 pass", "Metadata v12 random 1 pass"}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("probes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestReports: the JSON lines, JUnit XML and text of a run with one
// planted fault (a byte left over) say the same thing: one failing probe
// of Metadata v12 with its rule, path and offset, request and response
// hex, and the replay command.
func TestReports(t *testing.T) {
	addr := startFault(t, announced, func(_, _ int16, fr []byte) []byte { return setSize(append(fr, 0)) })
	r, _ := run(t, addr, 1, 3)
	wo := conform.WriteOptions{Kafka: "4.4", Connection: "--tls"}

	var js bytes.Buffer
	if err := r.WriteJSON(&js, wo); err != nil {
		t.Fatal(err)
	}
	type line struct {
		API, Kind, Outcome, Request, Response, Replay string
		Version                                       int16
		Findings                                      []struct {
			Rule, Path string
			Offset     int
		}
	}
	var lines []line
	sc := bufio.NewScanner(&js)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		lines = append(lines, l)
	}
	if len(lines) != len(r.Probes) || len(lines) != 3 {
		t.Fatalf("%d JSON lines for %d probes", len(lines), len(r.Probes))
	}
	for i, l := range lines {
		p := r.Probes[i]
		if l.Request != hex.EncodeToString(p.Request) || l.Response != hex.EncodeToString(p.Response) || l.Outcome != p.Outcome.String() {
			t.Errorf("line %d: %+v", i, l)
		}
	}
	body := lines[1]
	if body.API != "Metadata" || body.Version != 12 || body.Kind != "body" || body.Outcome != "finding" || len(body.Findings) != 1 ||
		body.Findings[0].Rule != "left-over" || body.Findings[0].Path != "MetadataResponse" || body.Findings[0].Offset != len(r.Probes[1].Response)-1 ||
		!strings.HasPrefix(body.Replay, "kwire --kafka 4.4 call --bootstrap "+addr+" --tls Metadata '{\"topics\":[{") || !strings.HasSuffix(body.Replay, "}' --version 12") {
		t.Errorf("body probe line: %+v", body)
	}

	var ju bytes.Buffer
	if err := r.WriteJUnit(&ju, wo); err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Type string `xml:"type,attr"`
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(ju.Bytes(), &suites); err != nil {
		t.Fatal(err)
	}
	// Every probe of Metadata v12 has the byte over: the body and the
	// random one.
	if suites.Tests != 3 || suites.Failures != 2 || suites.Suite.Cases[1].Name != "Metadata v12 body" || suites.Suite.Cases[1].Failure == nil ||
		suites.Suite.Cases[1].Failure.Type != "left-over" || !strings.Contains(suites.Suite.Cases[1].Failure.Text, "replay: kwire --kafka 4.4 call") || suites.Suite.Cases[0].Failure != nil {
		t.Errorf("JUnit:\n%s", ju.String())
	}

	txt := text(t, r)
	for _, want := range []string{
		"\nMetadata (3)              F\n", // versions 0-12, the cell of v12
		"3 probes: 1 pass, 0 kafka-error, 0 reference, 0 closed, 0 timeout, 0 not sent, 2 with findings",
		"Metadata v12 body:\n  left-over: MetadataResponse at 0x",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
}

// TestHTML: the HTML page of a run with a byte left over holds the matrix
// cell, the finding linked to the atlas's page of Metadata v12 at the body,
// and the response's bytes with the byte left over marked.
func TestHTML(t *testing.T) {
	addr := startFault(t, announced, func(_, _ int16, fr []byte) []byte { return setSize(append(fr, 0xab)) })
	r, _ := run(t, addr, 0, 3)
	var b bytes.Buffer
	if err := r.WriteHTML(&b, conform.WriteOptions{Atlas: "http://127.0.0.1:8080/"}, set44(t)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	n := len(r.Probes[1].Response)
	for _, want := range []string{
		`<td class="finding" title="Metadata v12` + "\nbody: finding\">F</td>",
		`<code>left-over</code> <a href="http://127.0.0.1:8080/4.4.0/Metadata/v12/request.html#response.MetadataResponse">MetadataResponse</a> at <code>0x` + hex4(int32(n-1)) + `</code>`,
		`<span class="x">ab</span>`,
		"<pre>kwire call --bootstrap " + addr + " Metadata",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	if strings.Count(page, `class="x"`) != 1 {
		t.Errorf("%d bytes marked, want 1", strings.Count(page, `class="x"`))
	}
}

// TestSecretsRedacted: a delegation token's HMAC in an answer is
// overwritten in the probe's response bytes unless ShowSecrets.
func TestSecretsRedacted(t *testing.T) {
	s := set44(t)
	c := codec.New(s)
	hmac := []byte("hmac-of-the-token")
	addr := testnet.Serve(t, nil, func(nc net.Conn) {
		for {
			fr, err := testnet.ReadFrame(nc, 1<<20)
			if err != nil {
				return
			}
			key, v, _ := frame.RequestAPI(fr)
			corr, _ := frame.RequestCorrelationID(fr)
			js := `{"errorCode":0,"apiKeys":[{"apiKey":38,"minVersion":3,"maxVersion":3},{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0}`
			if key == 38 {
				js = `{"errorCode":0,"principalType":"User","principalName":"a","tokenRequesterPrincipalType":"User","tokenRequesterPrincipalName":"a","issueTimestampMs":0,"expiryTimestampMs":0,"maxTimestampMs":0,"tokenId":"t","hmac":"` + base64.StdEncoding.EncodeToString(hmac) + `","throttleTimeMs":0}`
			}
			bt, err := codec.FromJSON([]byte(js), s.Response(key), v)
			if err != nil {
				t.Error(err)
				return
			}
			out, _ := c.Encode(s.Response(key), v, codec.ResponseHeaderValue(s.ResponseHeader(), corr), bt)
			nc.Write(out.Bytes)
		}
	})
	for _, show := range []bool{false, true} {
		r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: s, APIs: []int16{38}, Access: readOnly, ShowSecrets: show})
		if err != nil {
			t.Fatal(err)
		}
		p := r.Probes[1]
		if p.API != "CreateDelegationToken" || bytes.Contains(p.Response, hmac) == !show {
			t.Errorf("show %v: %s response %q", show, p.Name(), p.Response)
		}
	}
}
