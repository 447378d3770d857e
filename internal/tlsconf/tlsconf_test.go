package tlsconf

import (
	"crypto/tls"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/internal/testcert"
)

// handshake connects a client with cc to a listener with sc on loopback,
// sends "ping" and returns the server's and the client's handshake errors
// and what the server read.
func handshake(t *testing.T, sc, cc *tls.Config) (serr, cerr error, got string) {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", sc)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type res struct {
		err error
		got string
	}
	done := make(chan res, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- res{err: err}
			return
		}
		defer c.Close()
		if err := c.(*tls.Conn).Handshake(); err != nil {
			done <- res{err: err}
			return
		}
		b, err := io.ReadAll(c)
		done <- res{err: err, got: string(b)}
	}()
	c, cerr := tls.Dial("tcp", ln.Addr().String(), cc)
	if cerr == nil {
		// TLS 1.3: a refused client certificate shows on the first read.
		_, cerr = c.Write([]byte("ping"))
		c.CloseWrite()
		if cerr == nil {
			_, cerr = c.Read(make([]byte, 1))
			if cerr == io.EOF {
				cerr = nil
			}
		}
		c.Close()
	}
	r := <-done
	return r.err, cerr, r.got
}

func TestHandshake(t *testing.T) {
	ca := testcert.New(t, "127.0.0.1", "broker.test")
	cert, key := ca.Leaf("server")
	ccert, ckey := ca.Leaf("client")
	other := testcert.New(t, "127.0.0.1")
	ocert, okey := other.Leaf("stranger")

	plain, err := Server(cert, key, "")
	if err != nil {
		t.Fatal(err)
	}
	mtls, err := Server(cert, key, ca.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	if mtls.ClientAuth != tls.RequireAndVerifyClientCert || plain.ClientAuth != tls.NoClientCert {
		t.Fatalf("client auth: %v, %v", mtls.ClientAuth, plain.ClientAuth)
	}
	client := func(caFile, name, cert, key string, insecure bool) *tls.Config {
		c, err := Client(caFile, name, cert, key, insecure)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// The stranger sends its certificate although the server names the
	// CAs it accepts.
	stranger := client(ca.CertFile, "", ocert, okey, false)
	stranger.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		return &stranger.Certificates[0], nil
	}
	for _, k := range []struct {
		name       string
		sc, cc     *tls.Config
		serr, cerr string // "" = no error
	}{
		{"ip", plain, client(ca.CertFile, "", "", "", false), "", ""},
		{"server name", plain, client(ca.CertFile, "broker.test", "", "", false), "", ""},
		{"wrong name", plain, client(ca.CertFile, "other.test", "", "", false), "bad certificate", "certificate is valid for broker.test, not other.test"},
		{"unknown CA", plain, client(other.CertFile, "", "", "", false), "bad certificate", "certificate signed by unknown authority"},
		{"insecure", plain, client(other.CertFile, "other.test", "", "", true), "", ""},
		{"mtls", mtls, client(ca.CertFile, "", ccert, ckey, false), "", ""},
		{"mtls other CA's cert", mtls, client(ca.CertFile, "", ocert, okey, false), "client didn't provide a certificate", "certificate required"},
		{"mtls no cert", mtls, client(ca.CertFile, "", "", "", false), "client didn't provide a certificate", "certificate required"},
		{"mtls stranger", mtls, stranger, "certificate signed by unknown authority", "unknown certificate authority"},
	} {
		t.Run(k.name, func(t *testing.T) {
			// ServerName "" means the address's host: 127.0.0.1 here.
			serr, cerr, got := handshake(t, k.sc, k.cc)
			check := func(side string, err error, want string) {
				t.Helper()
				switch {
				case want == "" && err != nil:
					t.Errorf("%s: %v", side, err)
				case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
					t.Errorf("%s: got %v, want an error with %q", side, err, want)
				}
			}
			check("server", serr, k.serr)
			check("client", cerr, k.cerr)
			if k.serr == "" && got != "ping" {
				t.Errorf("server read %q, want ping", got)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	ca := testcert.New(t, "127.0.0.1")
	cert, key := ca.Leaf("server")
	_, key2 := ca.Leaf("other")
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("not PEM\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badBlock := filepath.Join(dir, "bad.pem")
	if err := os.WriteFile(badBlock, []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	encrypted := filepath.Join(dir, "encrypted.pem")
	if err := os.WriteFile(encrypted, []byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	legacy := filepath.Join(dir, "legacy.pem")
	if err := os.WriteFile(legacy, []byte("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00000000000000000000000000000000\n\nAAAA\n-----END RSA PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	for _, k := range []struct {
		name string
		err  error
		want string
	}{
		{"no key", second(Server(cert, "", "")), "a TLS listener needs both a certificate and a key file"},
		{"missing cert", second(Server(missing, key, "")), "certificate: open " + missing + ": no such file or directory"},
		{"missing key", second(Server(cert, missing, "")), "key: open " + missing + ": no such file or directory"},
		{"junk cert", second(Server(junk, key, "")), junk + ": no PEM certificate in it"},
		{"bad block", second(Server(badBlock, key, "")), badBlock + ": PEM block 1: x509: malformed certificate"},
		{"junk key", second(Server(cert, junk, "")), "key " + junk + ": no PEM block in it"},
		{"encrypted key", second(Server(cert, encrypted, "")), "key " + encrypted + ": encrypted private keys are not supported (decrypt it with openssl pkey -in " + encrypted + " -out KEY.pem)"},
		{"legacy encrypted key", second(Client("", "", cert, legacy, false)), "key " + legacy + ": encrypted private keys are not supported (decrypt it with openssl pkey -in " + legacy + " -out KEY.pem)"},
		{"mismatch", second(Server(cert, key2, "")), "certificate " + cert + " with key " + key2 + ": tls: private key does not match public key"},
		{"junk client CA", second(Server(cert, key, junk)), junk + ": no PEM certificate in it"},
		{"missing CA", second(Client(missing, "", "", "", false)), "CA certificates: open " + missing + ": no such file or directory"},
		{"junk CA", second(Client(junk, "", "", "", false)), junk + ": no PEM certificate in it"},
		{"cert alone", second(Client("", "", cert, "", false)), "client certificate " + cert + ": no key file given with it"},
		{"key alone", second(Client("", "", "", key, false)), "client key " + key + ": no certificate file given with it"},
		{"client mismatch", second(Client("", "", cert, key2, false)), "certificate " + cert + " with key " + key2 + ": tls: private key does not match public key"},
	} {
		if k.err == nil || k.err.Error() != k.want {
			t.Errorf("%s: got %v, want %q", k.name, k.err, k.want)
		}
	}
}

func second(_ *tls.Config, err error) error { return err }

func TestForAddr(t *testing.T) {
	base := &tls.Config{MinVersion: tls.VersionTLS12}
	for addr, want := range map[string]string{"broker-1:9093": "broker-1", "[::1]:9093": "::1", "noport": "noport"} {
		got := ForAddr(base, addr)
		if got.ServerName != want || got == base || got.MinVersion != tls.VersionTLS12 {
			t.Errorf("%s: %q (same config: %v)", addr, got.ServerName, got == base)
		}
	}
	if base.ServerName != "" {
		t.Error("ForAddr changed its argument")
	}
	named := &tls.Config{ServerName: "kafka.example"}
	if ForAddr(named, "127.0.0.1:9093") != named {
		t.Error("a config that names its server is used as it is")
	}
}

// A Reloader's configuration gives new handshakes the pair read last; a
// pair that does not load leaves the one before.
func TestReloader(t *testing.T) {
	ca := testcert.New(t, "127.0.0.1")
	one, oneKey := ca.Leaf("one")
	two, twoKey := ca.Leaf("two")
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	cp := func(from, to string) {
		b, _ := os.ReadFile(from)
		os.WriteFile(to, b, 0o600)
	}
	cp(one, cert)
	cp(oneKey, key)
	r, err := NewReloader(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	sc := Reloading(&tls.Config{MinVersion: tls.VersionTLS12}, r, false)
	name := func() string {
		ln, err := tls.Listen("tcp", "127.0.0.1:0", sc)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			if c, err := ln.Accept(); err == nil {
				c.(*tls.Conn).Handshake()
				c.Close()
			}
		}()
		c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: ca.Pool})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.ConnectionState().PeerCertificates[0].Subject.CommonName
	}
	if n := name(); n != "one" {
		t.Fatalf("%q", n)
	}
	cp(two, cert)
	cp(twoKey, key)
	if err := r.Reload(); err != nil {
		t.Fatal(err)
	}
	if n := name(); n != "two" {
		t.Fatalf("after Reload: %q", n)
	}
	os.WriteFile(key, []byte("junk"), 0o600)
	if err := r.Reload(); err == nil || !strings.Contains(err.Error(), key) {
		t.Fatalf("bad key: %v", err)
	}
	if n := name(); n != "two" {
		t.Fatalf("after a failed Reload: %q", n)
	}
}
