package main

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/internal/fakebroker"
	"github.com/kwire/kwire/internal/testcert"
	"github.com/kwire/kwire/internal/tlsconf"
)

const saslPassword = "s3cret-Pa55word-QUUX"

// withPassword runs kwire with KWIRE_SASL_PASSWORD set to pw.
func withPassword(t *testing.T, pw string, args ...string) result {
	t.Helper()
	return kwireEnv(t, &env{getenv: func(k string) string {
		if k == "KWIRE_SASL_PASSWORD" {
			return pw
		}
		return ""
	}}, args...)
}

// noPassword fails the test when r's output holds the password, as text,
// hex or base64.
func noPassword(t *testing.T, r result) {
	t.Helper()
	for _, form := range []string{saslPassword, hex.EncodeToString([]byte(saslPassword)), base64.StdEncoding.EncodeToString([]byte(saslPassword)), base64.StdEncoding.EncodeToString([]byte(saslPassword))[:16]} {
		if strings.Contains(r.stdout, form) || strings.Contains(r.stderr, form) {
			t.Fatalf("the password (%s) in the output:\nstdout %.300s\nstderr %s", form, r.stdout, r.stderr)
		}
	}
}

func tlsBroker(t *testing.T, cert, key, clientCA string, mechs ...string) *fakebroker.Broker {
	t.Helper()
	sc, err := tlsconf.Server(cert, key, clientCA)
	if err != nil {
		t.Fatal(err)
	}
	return fakebroker.Start(t, fakebroker.Options{TLS: sc, Mechanisms: mechs, Users: map[string]string{"alice": saslPassword}, SessionLifetimeMs: 3600000})
}

// kwire call over TLS with SASL: TLS handshake, ApiVersions, SaslHandshake,
// SaslAuthenticate, then the call; every format prints the call only, and
// no output holds the password.
func TestCallTLSAndSASL(t *testing.T) {
	ca := testcert.New(t, "127.0.0.1")
	cert, key := ca.Leaf("broker")
	b := tlsBroker(t, cert, key, "", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
	for _, mech := range []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"} {
		for _, format := range []string{"text", "page", "json", "kafka"} {
			r := withPassword(t, saslPassword, "call", "--bootstrap", b.Addr, "--tls", "--tls-ca", ca.CertFile,
				"--sasl-mechanism", mech, "--sasl-user", "alice", "Metadata", "--format", format)
			if r.code != 0 {
				t.Fatalf("%s %s: exit %d: %s", mech, format, r.code, r.stderr)
			}
			noPassword(t, r)
			steps := "2 steps"
			if mech == "PLAIN" {
				steps = "1 step"
			}
			if want := "kwire: note: authenticated as alice with " + mech + " (SaslAuthenticate v2, " + steps + "); session lifetime 1h0m0s\n"; r.stderr != want {
				t.Errorf("%s %s: stderr %q, want %q", mech, format, r.stderr, want)
			}
			if strings.Contains(r.stdout, "Sasl") || !strings.Contains(r.stdout, "fakebroker") {
				t.Errorf("%s %s: stdout:\n%.500s", mech, format, r.stdout)
			}
		}
	}
	if r := withPassword(t, saslPassword, "call", "--bootstrap", b.Addr, "--tls", "--tls-ca", ca.CertFile, "--sasl-mechanism", "SCRAM-SHA-512", "--sasl-user", "alice", "Metadata"); !strings.HasPrefix(r.stdout, "MetadataResponse v13  "+b.Addr+"  correlation id 5  ") {
		t.Errorf("the call is the 5th request (ApiVersions, SaslHandshake, 2 SaslAuthenticate before it):\n%.200s", r.stdout)
	}

	// --show-secrets shows the call's secrets, not the login's: the SASL
	// exchanges are never printed.
	for _, format := range []string{"text", "page", "json"} {
		r := withPassword(t, saslPassword, "--show-secrets", "call", "--bootstrap", b.Addr, "--tls", "--tls-ca", ca.CertFile,
			"--sasl-mechanism", "PLAIN", "--sasl-user", "alice", "Metadata", "--format", format)
		if r.code != 0 || strings.Contains(r.stdout, "Sasl") {
			t.Fatalf("--show-secrets %s: exit %d: %s", format, r.code, r.stderr)
		}
		noPassword(t, r)
	}

	// The password from a file (one trailing newline dropped).
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte(saslPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := kwire(t, "call", "--bootstrap", b.Addr, "--tls", "--tls-ca", ca.CertFile, "--sasl-mechanism", "SCRAM-SHA-256", "--sasl-user", "alice", "--sasl-password-file", pwFile, "Metadata", "--format", "json")
	if r.code != 0 {
		t.Fatalf("--sasl-password-file: exit %d: %s", r.code, r.stderr)
	}
	noPassword(t, r)
}

// Refusals are one line naming the cause, exit 1: a wrong password (the
// broker's message), a mechanism the broker does not enable (the ones it
// does), a certificate from an unknown CA, a broker that asks for a client
// certificate not given. With the client certificate, mTLS works.
func TestCallTLSAndSASLRefused(t *testing.T) {
	ca := testcert.New(t, "127.0.0.1")
	cert, key := ca.Leaf("broker")
	clientCert, clientKey := ca.Leaf("client")
	b := tlsBroker(t, cert, key, "", "SCRAM-SHA-512")
	m := tlsBroker(t, cert, key, ca.CertFile, "SCRAM-SHA-512")
	other := testcert.New(t, "127.0.0.1")
	tlsFlags := []string{"--tls", "--tls-ca", ca.CertFile}
	scram := []string{"--sasl-mechanism", "SCRAM-SHA-512", "--sasl-user", "alice"}
	args := func(addr string, flags ...[]string) []string {
		a := []string{"call", "--bootstrap", addr, "Metadata"}
		for _, f := range flags {
			a = append(a, f...)
		}
		return a
	}
	for _, c := range []struct {
		name, pw string
		args     []string
		want     string
	}{
		{"wrong password", "not-" + saslPassword, args(b.Addr, tlsFlags, scram),
			"kwire: " + b.Addr + ": SASL SCRAM-SHA-512: SaslAuthenticate SASL_AUTHENTICATION_FAILED (error code 58): Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512\n"},
		{"mechanism", saslPassword, args(b.Addr, tlsFlags, []string{"--sasl-mechanism", "PLAIN", "--sasl-user", "alice"}),
			"kwire: " + b.Addr + ": SASL PLAIN: the broker does not enable it (UNSUPPORTED_SASL_MECHANISM); it enables SCRAM-SHA-512\n"},
		{"unknown CA", saslPassword, args(b.Addr, []string{"--tls", "--tls-ca", other.CertFile}, scram),
			"kwire: " + b.Addr + ": TLS handshake: tls: failed to verify certificate: x509: certificate signed by unknown authority"},
		{"no client certificate", saslPassword, args(m.Addr, tlsFlags, scram), "tls: certificate required\n"},
	} {
		r := withPassword(t, c.pw, c.args...)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("%s: exit %d, stderr %q, want %q", c.name, r.code, r.stderr, c.want)
		}
		noPassword(t, r)
		if strings.Contains(r.stderr, c.pw) {
			t.Errorf("%s: the password in %q", c.name, r.stderr)
		}
	}
	r := withPassword(t, saslPassword, args(m.Addr, tlsFlags, scram, []string{"--tls-cert", clientCert, "--tls-key", clientKey})...)
	if r.code != 0 || !strings.Contains(r.stdout, "fakebroker") {
		t.Fatalf("mTLS: exit %d, %s", r.code, r.stderr)
	}
	// --tls-insecure skips verifying: without --tls-ca the broker's CA is
	// unknown (not among the system's roots), and it is accepted.
	r = withPassword(t, saslPassword, args(b.Addr, []string{"--tls", "--tls-insecure"}, scram)...)
	if r.code != 0 {
		t.Fatalf("--tls-insecure: exit %d, %s", r.code, r.stderr)
	}
}

// Flags that contradict or lack each other, and a missing password, are
// usage errors (exit 2) before any connection; there is no password flag.
func TestCallSecurityUsage(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pw   string
		args []string
		want string
	}{
		{saslPassword, []string{"--tls-ca", "ca.pem"}, "kwire: --tls-ca without --tls: add --tls to speak TLS\n"},
		{saslPassword, []string{"--tls-cert", "c.pem", "--tls-key", "k.pem"}, "kwire: --tls-cert, --tls-key without --tls: add --tls to speak TLS\n"},
		{saslPassword, []string{"--sasl-user", "alice"}, "kwire: --sasl-user without --sasl-mechanism: name the mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)\n"},
		{saslPassword, []string{"--sasl-mechanism", "PLAIN"}, "kwire: --sasl-mechanism PLAIN needs --sasl-user NAME\n"},
		{"", []string{"--sasl-mechanism", "PLAIN", "--sasl-user", "alice"}, "kwire: --sasl-mechanism PLAIN needs a password: KWIRE_SASL_PASSWORD is unset or empty; set it or give --sasl-password-file FILE (never a flag)\n"},
		{"", []string{"--sasl-mechanism", "plain", "--sasl-user", "alice"}, "kwire: --sasl-mechanism PLAIN needs a password: KWIRE_SASL_PASSWORD is unset or empty; set it or give --sasl-password-file FILE (never a flag)\n"},
		{saslPassword, []string{"--tls", "--tls-cert", "c.pem"}, "kwire: --tls-cert needs --tls-key\n"},
		{saslPassword, []string{"--sasl-mechanism", "PLAIN", "--sasl-user", "alice", "--sasl-password-file", empty}, "kwire: --sasl-password-file " + empty + " is empty\n"},
		{saslPassword, []string{"--sasl-mechanism", "PLAIN", "--sasl-user", "alice", "--sasl-password", "x"}, "unknown flag --sasl-password"},
		{saslPassword, []string{"--sasl-mechanism", "GSSAPI", "--sasl-user", "alice"}, "kwire: --sasl-mechanism \"GSSAPI\": want one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512\n"},
	} {
		r := withPassword(t, c.pw, append([]string{"call", "--bootstrap", "127.0.0.1:1", "Metadata"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.args, r.code, r.stderr, c.want)
		}
	}
	// An unreadable file is exit 1 naming it.
	r := withPassword(t, "", "call", "--bootstrap", "127.0.0.1:1", "Metadata", "--sasl-mechanism", "PLAIN", "--sasl-user", "alice", "--sasl-password-file", "/nonexistent/pw")
	if r.code != 1 || r.stderr != "kwire: --sasl-password-file: open /nonexistent/pw: no such file or directory\n" {
		t.Errorf("unreadable password file: exit %d, %q", r.code, r.stderr)
	}
	r = kwire(t, "call", "--bootstrap", "127.0.0.1:1", "Metadata", "--tls", "--tls-ca", "/nonexistent/ca.pem")
	if r.code != 1 || r.stderr != "kwire: --tls: CA certificates: open /nonexistent/ca.pem: no such file or directory\n" {
		t.Errorf("unreadable CA file: exit %d, %q", r.code, r.stderr)
	}
}
