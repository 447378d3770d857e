// Package fakebroker is a Kafka broker for tests, on loopback: it speaks
// TLS when asked (crypto/tls), authenticates clients with SASL PLAIN and
// SCRAM-SHA-256/512 (the server side of github.com/xdg-go/scram) through
// SaslHandshake v1 and SaslAuthenticate, and answers ApiVersions,
// SaslHandshake, SaslAuthenticate and Metadata, as a Kafka broker with a
// SASL_SSL or SASL_PLAINTEXT listener does. Requests and responses are
// decoded and encoded by package codec.
package fakebroker

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/xdg-go/scram"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// Api keys and error codes the broker uses.
const (
	metadataKey, saslHandshakeKey, apiVersionsKey, saslAuthenticateKey = 3, 17, 18, 36

	illegalSASLState, unsupportedSASLMechanism, saslAuthenticationFailed = 34, 33, 58
)

// Options configure Start.
type Options struct {
	// TLS, when not nil, makes the listener speak TLS (see
	// internal/tlsconf.Server).
	TLS *tls.Config
	// Mechanisms are the SASL mechanisms enabled (PLAIN, SCRAM-SHA-256,
	// SCRAM-SHA-512); none: no SASL, every request is answered.
	Mechanisms []string
	// Users are the credentials: user name → password.
	Users map[string]string
	// SessionLifetimeMs is SaslAuthenticateResponse.SessionLifetimeMs
	// (v1+).
	SessionLifetimeMs int64
	// Delay is how long it waits before each answer: a slow broker.
	Delay time.Duration
}

// Broker is a running fake broker.
type Broker struct {
	// Addr is its listening address, 127.0.0.1:PORT.
	Addr string

	o     Options
	c     *codec.Codec
	scram map[string]*scram.Server

	mu sync.Mutex
	// seen are the names of the requests each connection sent, in order.
	seen [][]string
	// received are every request frame's bytes, in order.
	received [][]byte
}

// Start listens on 127.0.0.1 and serves every connection until the test
// ends. Failures end the test.
func Start(t testing.TB, o Options) *Broker {
	t.Helper()
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	b := &Broker{o: o, c: codec.New(set), scram: map[string]*scram.Server{}}
	for name, h := range map[string]scram.HashGeneratorFcn{"SCRAM-SHA-256": scram.SHA256, "SCRAM-SHA-512": scram.SHA512} {
		creds := map[string]scram.StoredCredentials{}
		for u, p := range o.Users {
			c, err := h.NewClient(u, p, "")
			if err != nil {
				t.Fatal(err)
			}
			creds[u] = c.GetStoredCredentials(scram.KeyFactors{Salt: "fakebroker-salt-" + u, Iters: 4096})
		}
		srv, err := h.NewServer(func(u string) (scram.StoredCredentials, error) {
			c, ok := creds[u]
			if !ok {
				return scram.StoredCredentials{}, fmt.Errorf("no user %q", u)
			}
			return c, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		b.scram[name] = srv
	}
	b.Addr = testnet.Serve(t, o.TLS, b.serve)
	return b
}

// Seen returns the names of the requests of each connection so far
// (ApiVersionsRequest, SaslHandshakeRequest…), in order.
func (b *Broker) Seen() [][]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([][]string, len(b.seen))
	for i, s := range b.seen {
		out[i] = slices.Clone(s)
	}
	return out
}

// Received reports whether sub occurs in the bytes of a request frame
// received so far.
func (b *Broker) Received(sub []byte) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, f := range b.received {
		if bytes.Contains(f, sub) {
			return true
		}
	}
	return false
}

// conn is the SASL state of one connection.
type conn struct {
	mech   string // the mechanism of SaslHandshake, "" before it
	authed bool
	scram  *scram.ServerConversation
}

// serve answers the requests of one connection until it closes, an
// authentication fails or a request other than ApiVersions and SASL's
// comes before authentication (Kafka closes the connection then too).
func (b *Broker) serve(nc net.Conn) {
	b.mu.Lock()
	idx := len(b.seen)
	b.seen = append(b.seen, nil)
	b.mu.Unlock()
	st := &conn{authed: len(b.o.Mechanisms) == 0}
	for {
		fr, err := testnet.ReadFrame(nc, 1<<20)
		if err != nil {
			return
		}
		req, err := b.c.DecodeRequest(fr)
		if err != nil {
			return
		}
		b.mu.Lock()
		b.seen[idx] = append(b.seen[idx], req.Message.Name)
		b.received = append(b.received, fr)
		b.mu.Unlock()
		resp, keep := b.answer(st, req)
		time.Sleep(b.o.Delay)
		if resp != nil {
			out, err := b.encode(req, resp)
			if err != nil {
				return
			}
			if _, err := nc.Write(out); err != nil {
				return
			}
		}
		if !keep {
			return
		}
	}
}

// answer returns the response fields (Builder paths → values) to req and
// whether the connection stays open.
func (b *Broker) answer(st *conn, req *tree.Tree) ([][2]any, bool) {
	body := req.At(req.Part(tree.Body))
	switch req.Message.APIKey {
	case apiVersionsKey:
		var f [][2]any
		for i, k := range []int16{metadataKey, saslHandshakeKey, apiVersionsKey, saslAuthenticateKey} {
			vv := b.c.Set.Request(k).ValidVersions
			p := "ApiKeys[" + strconv.Itoa(i) + "]."
			f = append(f, [2]any{p + "ApiKey", k}, [2]any{p + "MinVersion", vv.Lo}, [2]any{p + "MaxVersion", vv.Hi})
		}
		return f, true
	case saslHandshakeKey:
		mech, _ := body.Field("Mechanism").AsString()
		f := [][2]any{}
		for i, m := range b.o.Mechanisms {
			f = append(f, [2]any{"Mechanisms[" + strconv.Itoa(i) + "]", m})
		}
		if !slices.Contains(b.o.Mechanisms, mech) || st.mech != "" {
			return append(f, [2]any{"ErrorCode", unsupportedSASLMechanism}), false
		}
		st.mech = mech
		if srv := b.scram[mech]; srv != nil {
			st.scram = srv.NewConversation()
		}
		return f, true
	case saslAuthenticateKey:
		if st.mech == "" || st.authed {
			return [][2]any{{"ErrorCode", illegalSASLState}, {"ErrorMessage", "Unexpected SaslAuthenticate request"}}, false
		}
		ok, out := b.step(st, body.Field("AuthBytes").Bytes())
		if !ok {
			msg := "Authentication failed during authentication due to invalid credentials with SASL mechanism " + st.mech
			return [][2]any{{"ErrorCode", saslAuthenticationFailed}, {"ErrorMessage", msg}}, false
		}
		f := [][2]any{{"AuthBytes", out}}
		if st.authed && req.Version >= 1 {
			f = append(f, [2]any{"SessionLifetimeMs", b.o.SessionLifetimeMs})
		}
		return f, true
	case metadataKey:
		if !st.authed {
			return nil, false
		}
		host, port, _ := net.SplitHostPort(b.Addr)
		pn, _ := strconv.Atoi(port)
		return [][2]any{{"Brokers[0].NodeId", 1}, {"Brokers[0].Host", host}, {"Brokers[0].Port", pn}, {"ClusterId", "fakebroker"}, {"ControllerId", 1}}, true
	}
	return nil, false
}

// step runs one SASL message of the mechanism: whether it is accepted and
// the broker's answer.
func (b *Broker) step(st *conn, msg []byte) (bool, []byte) {
	if st.scram != nil {
		out, err := st.scram.Step(string(msg))
		if err != nil {
			return false, nil
		}
		st.authed = st.scram.Done() && st.scram.Valid()
		return true, []byte(out)
	}
	// PLAIN: [authzid] NUL user NUL password.
	parts := bytes.Split(msg, []byte{0})
	if len(parts) != 3 {
		return false, nil
	}
	want, ok := b.o.Users[string(parts[1])]
	if !ok || want != string(parts[2]) {
		return false, nil
	}
	st.authed = true
	return true, []byte{}
}

// encode builds the response to req from fields and frames it with req's
// correlation id.
func (b *Broker) encode(req *tree.Tree, fields [][2]any) ([]byte, error) {
	m := b.c.Set.Response(req.Message.APIKey)
	bd := codec.NewBuilder(m, req.Version)
	for _, f := range fields {
		bd.Set(f[0].(string), f[1])
	}
	body, err := bd.Tree()
	if err != nil {
		return nil, err
	}
	corr, _ := req.Get("RequestHeader.CorrelationId")
	out, err := b.c.Encode(m, req.Version, codec.ResponseHeaderValue(b.c.Set.ResponseHeader(), int32(corr.Int())), body)
	if err != nil {
		return nil, err
	}
	return out.Bytes, nil
}
