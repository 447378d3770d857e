package connflags

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kwire/kwire/internal/cli"
)

func env(pw string) func(string) string {
	return func(k string) string {
		if k == PasswordEnv {
			return pw
		}
		return ""
	}
}

// The password file wins over the environment and loses one trailing
// newline (LF or CRLF), no more; TLS is off without --tls.
func TestPassword(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ file, want string }{
		{"pw\n", "pw"}, {"pw\r\n", "pw"}, {"pw", "pw"}, {"pw\n\n", "pw\n"}, {" pw ", " pw "},
	} {
		f := filepath.Join(dir, "pw")
		if err := os.WriteFile(f, []byte(c.file), 0o600); err != nil {
			t.Fatal(err)
		}
		fl := Flags{SASLMechanism: "PLAIN", SASLUser: "alice", SASLPassFile: f}
		tc, s, err := fl.Options(env("from-env"))
		if err != nil || tc != nil || s == nil || s.Password != c.want || s.User != "alice" || s.Mechanism != "PLAIN" {
			t.Errorf("file %q: %v, %+v, tls %v", c.file, err, s, tc)
		}
	}
	fl := Flags{SASLMechanism: "SCRAM-SHA-512", SASLUser: "alice"}
	if _, s, err := fl.Options(env("from-env")); err != nil || s.Password != "from-env" {
		t.Errorf("env: %v %+v", err, s)
	}
	if _, _, err := fl.Options(env("")); cli.ExitCode(err) != 2 {
		t.Errorf("no password: %v", err)
	}
	if tc, s, err := (&Flags{}).Options(env("x")); tc != nil || s != nil || err != nil {
		t.Errorf("no flags: %v %v %v", tc, s, err)
	}
}

// --tls-server-name and --tls-insecure reach the TLS configuration.
func TestTLS(t *testing.T) {
	fl := Flags{TLS: true, TLSServerName: "broker.example", TLSInsecure: true}
	tc, s, err := fl.Options(env(""))
	if err != nil || s != nil || tc.ServerName != "broker.example" || !tc.InsecureSkipVerify {
		t.Fatalf("%v %+v %+v", err, s, tc)
	}
	if _, _, err := (&Flags{TLSInsecure: true}).Options(env("")); cli.ExitCode(err) != 2 || err.Error() != "--tls-insecure without --tls: add --tls to speak TLS" {
		t.Errorf("--tls-insecure alone: %v", err)
	}
}

// Flags that come without their partner, or contradict each other, are
// usage errors (exit 2) before any file is read.
func TestTLSFlagPairs(t *testing.T) {
	for _, c := range []struct {
		f    Flags
		want string
	}{
		{Flags{TLS: true, TLSCert: "client.pem"}, "--tls-cert needs --tls-key"},
		{Flags{TLS: true, TLSKey: "client.key"}, "--tls-key needs --tls-cert"},
		{Flags{TLS: true, TLSInsecure: true, TLSCA: "ca.pem"}, "--tls-insecure and --tls-ca contradict each other: --tls-insecure verifies no certificate"},
	} {
		if _, _, err := c.f.Options(env("")); cli.ExitCode(err) != 2 || err.Error() != c.want {
			t.Errorf("%+v: %v (exit %d), want %q", c.f, err, cli.ExitCode(err), c.want)
		}
	}
}
