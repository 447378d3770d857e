package client

import (
	"context"
	"crypto/tls"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/internal/fakebroker"
	"github.com/kwire/kwire/internal/testcert"
	"github.com/kwire/kwire/internal/tlsconf"
)

const password = "pa55-w0rd-XYZZY"

// metadata dials b with o and calls Metadata; it returns the Conn's
// session and the broker id and port the response holds.
func metadata(t *testing.T, addr string, o Options) (*Session, int64, error) {
	t.Helper()
	c := testCodec(t)
	o.Timeout = 5 * time.Second
	cn, err := Dial(context.Background(), addr, c, o)
	if err != nil {
		return nil, 0, err
	}
	defer cn.Close()
	req := c.Set.Request(3)
	v, err := cn.Negotiate(req)
	if err != nil {
		t.Fatal(err)
	}
	bt, _, err := cn.DefaultBody(req, v)
	if err != nil {
		t.Fatal(err)
	}
	x, err := cn.Call(context.Background(), req, v, bt)
	if err != nil {
		t.Fatal(err)
	}
	id, err := x.Response.Get("MetadataResponse.Brokers[0].NodeId")
	if err != nil {
		t.Fatal(err)
	}
	return cn.Session(), id.Int(), nil
}

// Each mechanism authenticates with the right password, in the order
// ApiVersions, SaslHandshake, SaslAuthenticate (once for PLAIN, twice for
// SCRAM), then the call; the session notes the broker's lifetime.
func TestSASL(t *testing.T) {
	for _, mech := range Mechanisms {
		t.Run(mech, func(t *testing.T) {
			b := fakebroker.Start(t, fakebroker.Options{Mechanisms: Mechanisms, Users: map[string]string{"alice": password}, SessionLifetimeMs: 3600000})
			s, id, err := metadata(t, b.Addr, Options{SASL: &SASL{Mechanism: mech, User: "alice", Password: password}})
			if err != nil {
				t.Fatal(err)
			}
			steps := 2
			if mech == PLAIN {
				steps = 1
			}
			want := &Session{Mechanism: mech, User: "alice", Lifetime: time.Hour, HandshakeVersion: 1, AuthenticateVersion: 2, Steps: steps}
			if !reflect.DeepEqual(s, want) || id != 1 {
				t.Fatalf("session %+v, want %+v; broker id %d", s, want, id)
			}
			order := []string{"ApiVersionsRequest", "SaslHandshakeRequest"}
			for range steps {
				order = append(order, "SaslAuthenticateRequest")
			}
			order = append(order, "MetadataRequest")
			if got := b.Seen(); len(got) != 1 || !reflect.DeepEqual(got[0], order) {
				t.Fatalf("requests %q, want %q", got, order)
			}
			// The password is on the wire for PLAIN only; SCRAM sends a proof.
			if got := b.Received([]byte(password)); got != (mech == PLAIN) {
				t.Errorf("password in the requests: %v", got)
			}
		})
	}
}

// A wrong password, an unknown user and a mechanism the broker does not
// enable are *SASLError with the broker's words; the password is in none.
func TestSASLRefused(t *testing.T) {
	b := fakebroker.Start(t, fakebroker.Options{Mechanisms: []string{SCRAMSHA512, PLAIN}, Users: map[string]string{"alice": password}})
	cases := []struct {
		sasl SASL
		want string
	}{
		{SASL{SCRAMSHA512, "alice", "wrong-" + password}, "SASL SCRAM-SHA-512: SaslAuthenticate SASL_AUTHENTICATION_FAILED (error code 58): Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"},
		{SASL{SCRAMSHA512, "bob", password}, "SASL SCRAM-SHA-512: SaslAuthenticate SASL_AUTHENTICATION_FAILED (error code 58): Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"},
		{SASL{PLAIN, "alice", "wrong-" + password}, "SASL PLAIN: SaslAuthenticate SASL_AUTHENTICATION_FAILED (error code 58): Authentication failed during authentication due to invalid credentials with SASL mechanism PLAIN"},
		{SASL{SCRAMSHA256, "alice", password}, "SASL SCRAM-SHA-256: the broker does not enable it (UNSUPPORTED_SASL_MECHANISM); it enables SCRAM-SHA-512, PLAIN"},
		{SASL{"GSSAPI", "alice", password}, `SASL mechanism "GSSAPI": kwire speaks PLAIN, SCRAM-SHA-256, SCRAM-SHA-512`},
	}
	for _, c := range cases {
		_, _, err := metadata(t, b.Addr, Options{SASL: &c.sasl})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s %s: %v\nwant %s", c.sasl.Mechanism, c.sasl.User, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), password) {
			t.Errorf("the password in %q", err)
		}
		var se *SASLError
		if c.sasl.Mechanism != "GSSAPI" && !errors.As(err, &se) {
			t.Errorf("%v is not a *SASLError", err)
		}
	}
	// No Metadata reached the broker on any connection.
	for _, s := range b.Seen() {
		for _, n := range s {
			if n == "MetadataRequest" {
				t.Fatalf("requests %q", s)
			}
		}
	}
}

// TLS: the broker's certificate verifies with the CA file, against the
// address's host or the server name given; an unknown CA or a name the
// certificate does not hold fails the handshake naming the cause; a broker
// asking for client certificates accepts the client's (mTLS) and refuses
// a client without one.
func TestTLS(t *testing.T) {
	ca := testcert.New(t, "127.0.0.1")
	cert, key := ca.Leaf("broker")
	named, namedKey := ca.Leaf("named", "broker.test")
	clientCert, clientKey := ca.Leaf("client")
	other := testcert.New(t, "127.0.0.1")
	server := func(cert, key, clientCA string) *tls.Config {
		c, err := tlsconf.Server(cert, key, clientCA)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	client := func(caFile, name, cert, key string) Options {
		c, err := tlsconf.Client(caFile, name, cert, key, false)
		if err != nil {
			t.Fatal(err)
		}
		return Options{TLS: c, SASL: &SASL{SCRAMSHA256, "alice", password}}
	}
	users := map[string]string{"alice": password}
	plainTLS := fakebroker.Start(t, fakebroker.Options{TLS: server(cert, key, ""), Mechanisms: Mechanisms, Users: users})
	namedTLS := fakebroker.Start(t, fakebroker.Options{TLS: server(named, namedKey, ""), Mechanisms: Mechanisms, Users: users})
	mTLS := fakebroker.Start(t, fakebroker.Options{TLS: server(cert, key, ca.CertFile), Mechanisms: Mechanisms, Users: users})

	for _, c := range []struct {
		name, addr string
		o          Options
	}{
		{"CA", plainTLS.Addr, client(ca.CertFile, "", "", "")},
		{"server name", namedTLS.Addr, client(ca.CertFile, "broker.test", "", "")},
		{"mTLS", mTLS.Addr, client(ca.CertFile, "", clientCert, clientKey)},
	} {
		if s, _, err := metadata(t, c.addr, c.o); err != nil || s == nil || s.Steps != 2 {
			t.Errorf("%s: %v, session %+v", c.name, err, s)
		}
	}
	// A plaintext broker reads the ClientHello as a frame of 369 MB and
	// closes the connection, as Kafka does.
	plaintext := fakebroker.Start(t, fakebroker.Options{}).Addr
	for _, c := range []struct {
		name, addr string
		o          Options
		want       string
	}{
		{"unknown CA", plainTLS.Addr, client(other.CertFile, "", "", ""), "TLS handshake: tls: failed to verify certificate: x509: certificate signed by unknown authority"},
		{"wrong name", namedTLS.Addr, client(ca.CertFile, "", "", ""), "TLS handshake: tls: failed to verify certificate: x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs"},
		{"no client certificate", mTLS.Addr, client(ca.CertFile, "", "", ""), "tls: certificate required"},
		{"TLS to plaintext", plaintext, client(ca.CertFile, "", "", ""), "(the node closed the connection: is it a plaintext listener?)"},
	} {
		_, _, err := metadata(t, c.addr, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.name == "TLS to plaintext" && !strings.HasPrefix(err.Error(), "TLS handshake: ")) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
