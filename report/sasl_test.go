package report

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
)

// saslCase is one mechanism's authentication: the auth bytes the client
// and the broker send, round by round, the user the exchange lines name
// and the secrets that must appear in no output.
type saslCase struct {
	mech    string
	client  []string
	server  []string
	user    string
	secrets []string
}

// The SCRAM messages are those of the examples of RFC 5802 (section 5)
// and RFC 7677 (section 3), with other user names: "al,ice=" escaped as
// RFC 5802 says (=2C, =3D), and "bob".
var saslCases = []saslCase{
	{mech: "PLAIN", client: []string{"\x00alice\x00alice-secret"}, server: []string{""}, user: "alice", secrets: []string{"alice-secret"}},
	{mech: "SCRAM-SHA-256", user: "al,ice=",
		client:  []string{"n,,n=al=2Cice=3D,r=fyko+d2lbbFgONRv9qkxdawL", "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="},
		server:  []string{"r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096", "v=rmF9pqV8S7suAoZWja4dJRkFsKQ="},
		secrets: []string{"v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", "QSXCR+Q6sek8bf92", "rmF9pqV8S7suAoZWja4dJRkFsKQ="}},
	{mech: "SCRAM-SHA-512", user: "bob",
		client:  []string{"n,,n=bob,r=rOprNGfwEbeRWgbNEkqO", "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="},
		server:  []string{"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="},
		secrets: []string{"dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "W22ZaJ0SNY7soEsUEjb6gQ==", "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="}},
	{mech: "OAUTHBEARER", client: []string{"n,,\x01auth=Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJjYXJvbCJ9.\x01\x01"}, server: []string{""},
		secrets: []string{"Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJjYXJvbCJ9."}},
	{mech: "GSSAPI", client: []string{"\x60\x82\x02\x1a\x06\x09\x2a\x86\x48\x86\xf7\x12\x01\x02\x02kerberos-ticket-bytes", "\x05\x04\x01\xffwrapped-client"},
		server:  []string{"\x60\x81\x9a\x06\x09\x2a\x86\x48\x86\xf7\x12\x01\x02\x02mutual-auth-reply", "\x05\x04\x00\xffwrapped-server"},
		secrets: []string{"kerberos-ticket-bytes", "mutual-auth-reply", "wrapped-client", "wrapped-server"}},
}

// saslConv is a connection's bytes, message by message, and the flow
// decoding of them.
type saslConv struct {
	set  *spec.Set
	cd   *codec.Codec
	msgs []struct {
		dir flow.Dir
		b   []byte
	}
}

func (c *saslConv) add(d flow.Dir, b []byte) {
	c.msgs = append(c.msgs, struct {
		dir flow.Dir
		b   []byte
	}{d, b})
}

func (c *saslConv) req(t *testing.T, api string, ver int16, corr int32, body string) {
	t.Helper()
	rq, _, err := c.set.Lookup(api)
	if err != nil {
		t.Fatal(err)
	}
	bt, err := codec.FromJSON([]byte(body), rq, ver)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.cd.Encode(rq, ver, codec.RequestHeaderValue(c.set.RequestHeader(), rq.APIKey, ver, corr, "c"), bt)
	if err != nil {
		t.Fatal(err)
	}
	c.add(flow.ClientToServer, tr.Bytes)
}

func (c *saslConv) resp(t *testing.T, api string, ver int16, corr int32, body string) {
	t.Helper()
	_, rs, err := c.set.Lookup(api)
	if err != nil {
		t.Fatal(err)
	}
	bt, err := codec.FromJSON([]byte(body), rs, ver)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.cd.Encode(rs, ver, codec.ResponseHeaderValue(c.set.ResponseHeader(), corr), bt)
	if err != nil {
		t.Fatal(err)
	}
	c.add(flow.ServerToClient, tr.Bytes)
}

// token adds a raw SASL token: an int32 size, then the token.
func (c *saslConv) token(d flow.Dir, tok string) {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(tok)))
	c.add(d, append(b, tok...))
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// conversation builds the connection of case sc with a SaslHandshake of
// version hv: then SaslAuthenticate v2 rounds (hv 1) or raw tokens (hv 0),
// then a Metadata exchange, then (hv 1) re-authentication (KIP-368) with
// the same messages.
func conversation(t *testing.T, set *spec.Set, sc saslCase, hv int16) *saslConv {
	c := &saslConv{set: set, cd: codec.New(set)}
	corr := int32(1)
	auth := func() {
		c.req(t, "SaslHandshake", hv, corr, fmt.Sprintf(`{"mechanism":%q}`, sc.mech))
		c.resp(t, "SaslHandshake", hv, corr, fmt.Sprintf(`{"errorCode":0,"mechanisms":[%q]}`, sc.mech))
		corr++
		for k := range sc.client {
			if hv == 0 {
				c.token(flow.ClientToServer, sc.client[k])
				c.token(flow.ServerToClient, sc.server[k])
				continue
			}
			c.req(t, "SaslAuthenticate", 2, corr, fmt.Sprintf(`{"authBytes":%q}`, b64(sc.client[k])))
			c.resp(t, "SaslAuthenticate", 2, corr, fmt.Sprintf(`{"errorCode":0,"errorMessage":null,"authBytes":%q,"sessionLifetimeMs":3600000}`, b64(sc.server[k])))
			corr++
		}
	}
	auth()
	c.req(t, "Metadata", 12, corr, `{"topics":[],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`)
	c.resp(t, "Metadata", 12, corr, `{"throttleTimeMs":0,"brokers":[],"clusterId":null,"controllerId":1,"topics":[]}`)
	corr++
	if hv == 1 {
		auth()
	}
	return c
}

// run decodes the conversation with flow (trees kept, secrets shown or
// not) and returns its exchanges; every frame must decode.
func (c *saslConv) run(t *testing.T, show bool) []*flow.Exchange {
	t.Helper()
	var xs []*flow.Exchange
	fc := flow.New(flow.Options{Codec: c.cd, KeepTrees: true, ShowSecrets: show}, func(e flow.Event) {
		switch e := e.(type) {
		case *flow.Exchange:
			xs = append(xs, e)
		case *flow.Problem:
			t.Errorf("problem: %s", e)
		}
	})
	for _, m := range c.msgs {
		fc.Data(m.dir, m.b, t0)
	}
	fc.Close(t0)
	return xs
}

// views renders every view of the exchanges: the text lines with trees,
// the JSON lines with trees, page JSON and converter JSON, each side's
// page as text (with its byte layout), page JSON and Kafka JSON.
func views(t *testing.T, set *spec.Set, xs []*flow.Exchange) string {
	t.Helper()
	var b bytes.Buffer
	for _, x := range xs {
		if err := WriteExchange(&b, "#1 c", x, true, render.Options{}); err != nil {
			t.Fatal(err)
		}
		j, err := json.Marshal(NewExchange(x, 1, "c", "s", func(f *flow.Frame) *Frame {
			return NewFrame(f, FrameOptions{Set: set, JSON: true, Page: true})
		}))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		for _, f := range []*flow.Frame{x.Request, x.Response} {
			if f == nil || f.Tree == nil {
				continue
			}
			p := &render.Page{Set: set, Sides: []render.Side{{Label: "Frame", Tree: f.Tree}}}
			for _, w := range []func() error{
				func() error { return render.WriteText(&b, p, render.Options{}) },
				func() error { return render.WritePageJSON(&b, p, render.Options{}) },
				func() error { return render.WriteKafka(&b, p) },
				func() error { return render.WriteHex(&b, f.Tree, render.Options{}) },
			} {
				if err := w(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return b.String()
}

// forms are the ways a secret could show in output: itself, hex (lower,
// upper, spaced as in a byte grid), base64 at each of the three alignments
// it can have inside longer bytes, and as a JSON string.
func forms(s string) []string {
	h := hex.EncodeToString([]byte(s))
	var spaced []string
	for i := 0; i+2 <= len(h) && i < 16; i += 2 {
		spaced = append(spaced, h[i:i+2])
	}
	out := []string{s, h, strings.ToUpper(h), strings.Join(spaced, " ")}
	for k := range 3 {
		e := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x00", k) + s))
		// Drop the characters that depend on the bytes around it.
		e = strings.TrimRight(e, "=")
		if len(e) > 8 {
			out = append(out, e[4:len(e)-4])
		}
	}
	if q, err := json.Marshal(s); err == nil {
		out = append(out, string(q[1:len(q)-1]))
	}
	return out
}

func TestSASLExchangesNameMechanismAndUserAndHideSecrets(t *testing.T) {
	set, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range saslCases {
		for _, hv := range []int16{0, 1} {
			t.Run(fmt.Sprintf("%s/v%d", sc.mech, hv), func(t *testing.T) {
				c := conversation(t, set, sc, hv)
				xs := c.run(t, false)
				// Lines: handshake, a line per round, Metadata (then the
				// same again for re-authentication).
				want := 1 + len(sc.client) + 1
				if hv == 1 {
					want += 1 + len(sc.client)
				}
				if len(xs) != want {
					t.Fatalf("%d exchanges, want %d", len(xs), want)
				}
				user := ""
				if sc.user != "" {
					user = fmt.Sprintf("  user %q", sc.user)
				}
				for i, x := range xs {
					line := ExchangeLine("#1 c", x)
					switch {
					case x.API == "Metadata":
						if x.Mechanism != "" || strings.Contains(line, "mechanism") {
							t.Errorf("Metadata line names SASL: %s", line)
						}
					case x.API == "SaslHandshake":
						if x.Mechanism != sc.mech || x.User != "" || x.Version != hv {
							t.Errorf("line %d: %s", i, line)
						}
					default:
						want := "mechanism " + sc.mech + user + "  req "
						if x.Mechanism != sc.mech || x.User != sc.user || !strings.Contains(line, want) {
							t.Errorf("line %d: %s\nwant it to hold %q", i, line, want)
						}
						if x.Token != (hv == 0) || (hv == 0) != strings.Contains(line, "#1 c  SASL token  mechanism") {
							t.Errorf("line %d: token %v: %s", i, x.Token, line)
						}
						if x.Response == nil || x.Response.Err != nil || x.Request.Err != nil {
							t.Errorf("line %d: frames %+v %+v", i, x.Request, x.Response)
						}
					}
				}
				out := views(t, set, xs)
				for _, s := range sc.secrets {
					for _, f := range forms(s) {
						if strings.Contains(out, f) {
							t.Errorf("secret %q shows as %q in the output", s, f)
						}
					}
				}
				if hv == 1 && !strings.Contains(out, "<redacted, ") {
					t.Errorf("no <redacted, N bytes> in the output")
				}
				// --show-secrets shows them (v1: in the trees).
				if hv == 1 {
					shown := views(t, set, c.run(t, true))
					if !strings.Contains(shown, b64(sc.client[0])) || strings.Contains(shown, "<redacted") {
						t.Errorf("with secrets shown the output lacks the auth bytes %q", b64(sc.client[0]))
					}
				}
			})
		}
	}
}

func TestSASLExchangeLinesExact(t *testing.T) {
	set, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sc   saslCase
		hv   int16
		want []string
	}{
		{saslCases[0], 0, []string{
			`#1 c  SaslHandshake(17) v0  corr 1  client "c"  mechanism PLAIN  req 22 B  resp 21 B  0.000 ms`,
			`#1 c  SASL token  mechanism PLAIN  user "alice"  req 23 B  resp 4 B  0.000 ms`,
			`#1 c  Metadata(3) v12  corr 2  client "c"  req 20 B  resp 21 B  0.000 ms`,
		}},
		{saslCases[0], 1, []string{
			`#1 c  SaslHandshake(17) v1  corr 1  client "c"  mechanism PLAIN  req 22 B  resp 21 B  0.000 ms`,
			`#1 c  SaslAuthenticate(36) v2  corr 2  client "c"  mechanism PLAIN  user "alice"  req 37 B  resp 22 B  0.000 ms`,
			`#1 c  Metadata(3) v12  corr 3  client "c"  req 20 B  resp 21 B  0.000 ms`,
			`#1 c  SaslHandshake(17) v1  corr 4  client "c"  mechanism PLAIN  req 22 B  resp 21 B  0.000 ms`,
			`#1 c  SaslAuthenticate(36) v2  corr 5  client "c"  mechanism PLAIN  user "alice"  req 37 B  resp 22 B  0.000 ms`,
		}},
		{saslCases[1], 0, []string{
			`#1 c  SaslHandshake(17) v0  corr 1  client "c"  mechanism SCRAM-SHA-256  req 30 B  resp 29 B  0.000 ms`,
			`#1 c  SASL token  mechanism SCRAM-SHA-256  user "al,ice="  req 47 B  resp 74 B  0.000 ms`,
			`#1 c  SASL token  mechanism SCRAM-SHA-256  user "al,ice="  req 86 B  resp 34 B  0.000 ms`,
			`#1 c  Metadata(3) v12  corr 2  client "c"  req 20 B  resp 21 B  0.000 ms`,
		}},
	} {
		xs := conversation(t, set, c.sc, c.hv).run(t, false)
		var got []string
		for _, x := range xs {
			got = append(got, ExchangeLine("#1 c", x))
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s v%d:\n%s\nwant\n%s", c.sc.mech, c.hv, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
	// A raw token's JSON line.
	xs := conversation(t, set, saslCases[0], 0).run(t, false)
	j, err := json.Marshal(NewExchange(xs[1], 1, "c", "s", func(f *flow.Frame) *Frame { return NewFrame(f, FrameOptions{Set: set}) }))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"exchange","time":"2026-01-02T03:04:05.0001Z","conn":1,"client":"c","server":"s","api":null,"api_key":-1,"version":-1,"correlation_id":0,"client_id":"","request":{"time":"2026-01-02T03:04:05.0001Z","stream_offset":22,"size":23,"error":null},"response":{"time":"2026-01-02T03:04:05.0001Z","stream_offset":21,"size":4,"error":null},"no_response":false,"no_response_expected":false,"latency_ns":0,"errors":[],"sasl_token":true,"mechanism":"PLAIN","user":"alice"}`
	if string(j) != want {
		t.Errorf("token JSON line\n%s\nwant\n%s", j, want)
	}
}
