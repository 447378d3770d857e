// Package connflags holds the TLS and SASL flags of kwire call and turns
// them into client.Options: a *tls.Config (through internal/tlsconf) and a
// *client.SASL whose password comes from the environment variable
// KWIRE_SASL_PASSWORD or a file, never from a flag (command lines are seen
// by other users of the machine and kept in shell histories).
package connflags

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"os"
	"strings"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/internal/cli"
	"github.com/kwire/kwire/internal/tlsconf"
)

// PasswordEnv is the environment variable holding the SASL password.
const PasswordEnv = "KWIRE_SASL_PASSWORD"

// Flags are the TLS and SASL flags, for embedding in a kong command
// struct.
type Flags struct {
	TLS           bool   `name:"tls" help:"Speak TLS to the node; its certificate is verified with the system's CAs or --tls-ca, against the host of --bootstrap or --tls-server-name."`
	TLSCA         string `name:"tls-ca" help:"PEM file of the CA certificates that verify the node's certificate (with --tls)." placeholder:"FILE"`
	TLSServerName string `name:"tls-server-name" help:"The name the node's certificate must hold, and the SNI sent (with --tls; default: the host of --bootstrap)." placeholder:"NAME"`
	TLSCert       string `name:"tls-cert" help:"PEM file of the client certificate, for nodes that ask for one (mutual TLS; with --tls and --tls-key)." placeholder:"FILE"`
	TLSKey        string `name:"tls-key" help:"PEM file of the client certificate's private key (with --tls-cert)." placeholder:"FILE"`
	TLSInsecure   bool   `name:"tls-insecure" help:"Do not verify the node's certificate at all (with --tls; for tests only)."`
	SASLMechanism string `name:"sasl-mechanism" help:"Authenticate with SASL after ApiVersions: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (with --sasl-user; the password from KWIRE_SASL_PASSWORD or --sasl-password-file)." placeholder:"MECHANISM"`
	SASLUser      string `name:"sasl-user" help:"The SASL user name (with --sasl-mechanism)." placeholder:"NAME"`
	SASLPassFile  string `name:"sasl-password-file" help:"File holding the SASL password (one trailing newline is dropped); default: the environment variable KWIRE_SASL_PASSWORD." placeholder:"FILE"`
}

// Options returns the TLS configuration (nil without --tls) and the SASL
// authentication (nil without --sasl-mechanism) the flags ask for;
// getenv reads PasswordEnv. Flags that need another one missing
// (--tls-ca without --tls, --tls-cert without --tls-key, --sasl-mechanism
// without --sasl-user…), --tls-insecure with --tls-ca, and a
// missing or empty password are a cli.UsageError (exit 2). Errors reading
// the files name the file (tlsconf's errors; the password file's, which
// never hold its contents).
func (f *Flags) Options(getenv func(string) string) (*tls.Config, *client.SASL, error) {
	var tc *tls.Config
	switch {
	case !f.TLS:
	case f.TLSCert != "" && f.TLSKey == "":
		return nil, nil, cli.Usagef("--tls-cert needs --tls-key")
	case f.TLSKey != "" && f.TLSCert == "":
		return nil, nil, cli.Usagef("--tls-key needs --tls-cert")
	case f.TLSInsecure && f.TLSCA != "":
		return nil, nil, cli.Usagef("--tls-insecure and --tls-ca contradict each other: --tls-insecure verifies no certificate")
	}
	if f.TLS {
		var err error
		if tc, err = tlsconf.Client(f.TLSCA, f.TLSServerName, f.TLSCert, f.TLSKey, f.TLSInsecure); err != nil {
			return nil, nil, fmt.Errorf("--tls: %w", err)
		}
	} else if set := setFlags(map[string]bool{"--tls-ca": f.TLSCA != "", "--tls-server-name": f.TLSServerName != "", "--tls-cert": f.TLSCert != "", "--tls-key": f.TLSKey != "", "--tls-insecure": f.TLSInsecure}); set != "" {
		return nil, nil, cli.Usagef("%s without --tls: add --tls to speak TLS", set)
	}
	if f.SASLMechanism == "" {
		if set := setFlags(map[string]bool{"--sasl-user": f.SASLUser != "", "--sasl-password-file": f.SASLPassFile != ""}); set != "" {
			return nil, nil, cli.Usagef("%s without --sasl-mechanism: name the mechanism (%s)", set, strings.Join(client.Mechanisms, ", "))
		}
		return tc, nil, nil
	}
	mech := ""
	for _, m := range client.Mechanisms {
		if strings.EqualFold(m, f.SASLMechanism) {
			mech = m
		}
	}
	if mech == "" {
		return nil, nil, cli.Usagef("--sasl-mechanism %q: want one of %s", f.SASLMechanism, strings.Join(client.Mechanisms, ", "))
	}
	if f.SASLUser == "" {
		return nil, nil, cli.Usagef("--sasl-mechanism %s needs --sasl-user NAME", mech)
	}
	pw := getenv(PasswordEnv)
	if f.SASLPassFile != "" {
		b, err := os.ReadFile(f.SASLPassFile)
		if err != nil {
			return nil, nil, fmt.Errorf("--sasl-password-file: %w", err)
		}
		b = bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
		if len(b) == 0 {
			return nil, nil, cli.Usagef("--sasl-password-file %s is empty", f.SASLPassFile)
		}
		pw = string(b)
	}
	if pw == "" {
		return nil, nil, cli.Usagef("--sasl-mechanism %s needs a password: %s is unset or empty; set it or give --sasl-password-file FILE (never a flag)", mech, PasswordEnv)
	}
	return tc, &client.SASL{Mechanism: mech, User: f.SASLUser, Password: pw}, nil
}

// setFlags lists the flags that are set, in a stable order, joined by
// ", " ("" when none is).
func setFlags(set map[string]bool) string {
	var names []string
	for _, n := range []string{"--tls-ca", "--tls-server-name", "--tls-cert", "--tls-key", "--tls-insecure", "--sasl-user", "--sasl-password-file"} {
		if set[n] {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}
