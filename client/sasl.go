package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/xdg-go/scram"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/tree"
)

// SaslHandshake is api key 17, SaslAuthenticate 36; their error codes
// UNSUPPORTED_SASL_MECHANISM (33) and SASL_AUTHENTICATION_FAILED (58).
const (
	saslHandshakeKey    = 17
	saslAuthenticateKey = 36
	unsupportedSASLMech = 33
)

// The SASL mechanisms Dial can authenticate with.
const (
	PLAIN       = "PLAIN"
	SCRAMSHA256 = "SCRAM-SHA-256"
	SCRAMSHA512 = "SCRAM-SHA-512"
)

// Mechanisms are the SASL mechanisms Dial can authenticate with.
var Mechanisms = []string{PLAIN, SCRAMSHA256, SCRAMSHA512}

// SASL is the SASL authentication Dial performs after the ApiVersions
// handshake: SaslHandshake v1 naming Mechanism, then SaslAuthenticate
// requests (KIP-152) carrying the mechanism's messages: PLAIN's one
// message (RFC 4616, no authorization id), or SCRAM's client-first and
// client-final messages (RFC 5802, KIP-84; computed by
// github.com/xdg-go/scram).
type SASL struct {
	// Mechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
	Mechanism string
	// User and Password are the credentials. Password is sent (PLAIN) or
	// used (SCRAM) and never kept in an Exchange or an error.
	User, Password string
}

// Session is what SASL authentication established on a Conn.
type Session struct {
	// Mechanism and User are those of the SASL options.
	Mechanism, User string
	// Lifetime is the broker's SaslAuthenticateResponse.SessionLifetimeMs
	// (v1+, KIP-368): after it the broker closes the connection unless the
	// client re-authenticates (kwire does not). 0: no limit (or v0).
	Lifetime time.Duration
	// HandshakeVersion and AuthenticateVersion are the versions of
	// SaslHandshake and SaslAuthenticate used; Steps the number of
	// SaslAuthenticate requests sent (1 for PLAIN, 2 for SCRAM).
	HandshakeVersion, AuthenticateVersion int16
	Steps                                 int
}

// String is the session in one line: "authenticated as alice with
// SCRAM-SHA-512 (SaslAuthenticate v2, 2 steps); session lifetime 1h0m0s"
// (or "no session lifetime" when 0).
func (s *Session) String() string {
	life := "no session lifetime"
	if s.Lifetime > 0 {
		life = "session lifetime " + s.Lifetime.String()
	}
	steps := "steps"
	if s.Steps == 1 {
		steps = "step"
	}
	return fmt.Sprintf("authenticated as %s with %s (SaslAuthenticate v%d, %d %s); %s", s.User, s.Mechanism, s.AuthenticateVersion, s.Steps, steps, life)
}

// SASLError is SASL authentication refused by the broker: an error code
// in a SaslHandshake or SaslAuthenticate response.
type SASLError struct {
	// API is SaslHandshake or SaslAuthenticate; Code its error code and
	// Name the code's name (UNSUPPORTED_SASL_MECHANISM,
	// SASL_AUTHENTICATION_FAILED, ILLEGAL_SASL_STATE…).
	API  string
	Code int16
	Name string
	// Mechanism is the mechanism asked for; Enabled the broker's
	// SaslHandshakeResponse.Mechanisms; Message the broker's
	// SaslAuthenticateResponse.ErrorMessage ("" when null).
	Mechanism string
	Enabled   []string
	Message   string
}

func (e *SASLError) Error() string {
	s := fmt.Sprintf("SASL %s: %s %s (error code %d)", e.Mechanism, e.API, e.Name, e.Code)
	if e.Code == unsupportedSASLMech {
		s = fmt.Sprintf("SASL %s: the broker does not enable it (%s); it enables %s", e.Mechanism, e.Name, orNone(e.Enabled))
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// Session returns what SASL authentication established, nil without SASL.
func (cn *Conn) Session() *Session { return cn.session }

// mechanism is one side of a SASL conversation: step takes the broker's
// last message (nil at first) and returns the next one to send; done
// reports whether the conversation has ended (the broker's last message
// was verified).
type mechanism interface {
	step(challenge []byte) ([]byte, error)
	done() bool
}

type plain struct {
	msg  []byte
	sent bool
}

func (p *plain) step([]byte) ([]byte, error) {
	if p.sent {
		return nil, errors.New("PLAIN has one message only")
	}
	p.sent = true
	return p.msg, nil
}

func (p *plain) done() bool { return p.sent }

type scramConv struct{ c *scram.ClientConversation }

func (s scramConv) step(challenge []byte) ([]byte, error) {
	out, err := s.c.Step(string(challenge))
	return []byte(out), err
}

func (s scramConv) done() bool { return s.c.Done() }

func newMechanism(s *SASL) (mechanism, error) {
	switch s.Mechanism {
	case PLAIN:
		msg := make([]byte, 0, 2+len(s.User)+len(s.Password))
		msg = append(append(append(append(msg, 0), s.User...), 0), s.Password...)
		return &plain{msg: msg}, nil
	case SCRAMSHA256, SCRAMSHA512:
		h := scram.SHA256
		if s.Mechanism == SCRAMSHA512 {
			h = scram.SHA512
		}
		c, err := h.NewClient(s.User, s.Password, "")
		if err != nil {
			// The library's errors are about the user name's or
			// password's characters (SASLprep); they do not quote them.
			return nil, fmt.Errorf("SASL %s: %v", s.Mechanism, err)
		}
		return scramConv{c.NewConversation()}, nil
	}
	return nil, fmt.Errorf("SASL mechanism %q: kwire speaks %s", s.Mechanism, strings.Join(Mechanisms, ", "))
}

// authenticate runs SaslHandshake and SaslAuthenticate on cn (after
// ApiVersions). The exchanges are not kept: their trees hold the
// credentials.
func (cn *Conn) authenticate(ctx context.Context, s *SASL) error {
	mech, err := newMechanism(s)
	if err != nil {
		return err
	}
	set := cn.codec.Set
	hreq, areq := set.Request(saslHandshakeKey), set.Request(saslAuthenticateKey)
	if hreq == nil || areq == nil {
		return errors.New("the specs have no SaslHandshakeRequest or SaslAuthenticateRequest")
	}
	hv, err := cn.Negotiate(hreq)
	if err != nil {
		return err
	}
	if hv < 1 { // v0 sends the mechanism's messages as raw frames
		return fmt.Errorf("SaslHandshake: the node at %s supports v0 only; kwire needs v1 (SaslAuthenticate, KIP-152)", cn.addr)
	}
	av, err := cn.Negotiate(areq)
	if err != nil {
		return err
	}
	bt, err := codec.NewBuilder(hreq, hv).Set("Mechanism", s.Mechanism).Tree()
	if err != nil {
		return fmt.Errorf("SaslHandshakeRequest v%d: %w", hv, err)
	}
	body, err := cn.saslCall(ctx, "SaslHandshake", hreq.APIKey, hv, bt)
	if err != nil {
		return err
	}
	if code := int16(body.Field("ErrorCode").Int()); code != 0 {
		e := &SASLError{API: "SaslHandshake", Code: code, Name: flow.ErrorName(code), Mechanism: s.Mechanism}
		ms := body.Field("Mechanisms")
		for i := range ms.Len() {
			e.Enabled = append(e.Enabled, str(ms.Elem(i)))
		}
		return e
	}
	sess := &Session{Mechanism: s.Mechanism, User: s.User, HandshakeVersion: hv, AuthenticateVersion: av}
	var challenge []byte
	for !mech.done() {
		msg, err := mech.step(challenge)
		if err != nil {
			if sess.Steps > 0 {
				return fmt.Errorf("SASL %s: the broker's message does not verify: %v", s.Mechanism, err)
			}
			return fmt.Errorf("SASL %s: %v", s.Mechanism, err)
		}
		if len(msg) == 0 && mech.done() { // SCRAM: the server-final message verified
			break
		}
		bt, err := codec.NewBuilder(areq, av).Set("AuthBytes", msg).Tree()
		if err != nil {
			return fmt.Errorf("SaslAuthenticateRequest v%d: %w", av, err)
		}
		clear(msg)
		sess.Steps++
		body, err := cn.saslCall(ctx, "SaslAuthenticate", areq.APIKey, av, bt)
		clear(bt.Bytes)
		if err != nil {
			return err
		}
		if code := int16(body.Field("ErrorCode").Int()); code != 0 {
			return &SASLError{API: "SaslAuthenticate", Code: code, Name: flow.ErrorName(code), Mechanism: s.Mechanism, Message: str(body.Field("ErrorMessage"))}
		}
		if f := body.Field("SessionLifetimeMs"); f.Err() == nil {
			sess.Lifetime = time.Duration(f.Int()) * time.Millisecond
		}
		challenge = bytes.Clone(body.Field("AuthBytes").Bytes())
	}
	cn.session = sess
	return nil
}

// saslCall sends one SASL request and returns its response's body; the
// request's bytes (credentials) are zeroed after sending. Errors name the
// API; they never hold the request's bytes.
func (cn *Conn) saslCall(ctx context.Context, api string, key int16, v int16, body *tree.Tree) (tree.Value, error) {
	req := cn.codec.Set.Request(key)
	x, err := cn.call(ctx, req, v, body)
	if x != nil && x.Request != nil {
		clear(x.Request.Bytes)
	}
	if err != nil {
		return tree.Value{}, fmt.Errorf("%s v%d: %w", api, v, err)
	}
	b := x.Response.Part(tree.Body)
	if b < 0 {
		return tree.Value{}, fmt.Errorf("%s v%d: the response has no body", api, v)
	}
	return x.Response.At(b), nil
}

// str is a string value's contents, "" when null or not there.
func str(v tree.Value) string {
	s, _ := v.AsString()
	return s
}
