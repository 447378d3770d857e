package main

import (
	"crypto/tls"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testcert"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/spec"
)

// kwire proxy --config FILE takes its flags from the YAML file; the
// command line overrides them; a key that is no flag, or a bad value, is
// a usage error naming the place.
func TestProxyConfigFile(t *testing.T) {
	up := fakeKafka(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "proxy.yaml")
	os.WriteFile(cfg, []byte("# kwire proxy\nupstream: "+up+"\nformat: json\napi: [Metadata, ApiVersions]\nmax_frame: 1048576\naudit: "+filepath.Join(dir, "audit.log")+"\n"), 0o644)
	set, _ := spec.Embedded("")
	c := codec.New(set)
	md := frameOf(t, c, "Metadata", true, 12, 5, `{"topics":[],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`)

	addr, stop := proxyCommand(t, "--config", cfg)
	talk(t, addr, md)
	r := stop()
	if r.code != 0 || !strings.Contains(r.stdout, `{"type":"exchange"`) || !strings.Contains(r.stdout, `"api":"Metadata"`) {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "audit.log")); err != nil || strings.Count(string(b), "\n") != 1 {
		t.Errorf("audit log %q %v", b, err)
	}
	// The command line wins over the file; the file's filter stays.
	addr, stop = proxyCommand(t, "--config", cfg, "--format", "text", "--api", "Produce")
	talk(t, addr, md)
	if r = stop(); r.code != 0 || strings.Contains(r.stdout, "{") || strings.Contains(r.stdout, "Metadata") {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	// The filters that kept nothing say so when the proxy stops.
	if !strings.HasSuffix(r.stdout, "filters: 0 exchanges matched, of 1\n") {
		t.Errorf("no filter verdict at the end:\n%s", r.stdout)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"upstream: " + up + "\nupstreem: x\n", cfg + `:2:1: "upstreem" is not a flag`},
		{"upstream: {host: x}\n", cfg + ":1:11: upstream: a value or a list of values was expected"},
		{"upstream: " + up + "\ngrace: soon\n", `--grace: expected duration but got "soon"`},
		{"- upstream\n", cfg + ":1:1: a mapping of flag names to values was expected"},
		{"upstream: [\n", cfg + ": yaml: line 1"},
	} {
		os.WriteFile(cfg, []byte(tc.yaml), 0o644)
		if r := kwire(t, "proxy", "--listen", "127.0.0.1:0", "--config", cfg); r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want %q", tc.yaml, r.code, r.stderr, tc.want)
		}
	}
}

// On SIGHUP kwire proxy reads its TLS certificate again: a client
// connected before goes on on its connection, and a new handshake gets
// the new certificate.
func TestProxySIGHUPReloadsCertificate(t *testing.T) {
	ca := testcert.New(t, "127.0.0.1")
	one, oneKey := ca.Leaf("one")
	two, twoKey := ca.Leaf("two")
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	cp := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cp(one, cert)
	cp(oneKey, key)
	up := fakeKafka(t)
	out, errb := &syncBuffer{}, &syncBuffer{}
	e := &env{stdin: strings.NewReader(""), stdout: out, stderr: errb, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"proxy", "--listen", "127.0.0.1:0", "--upstream", up, "--tls-cert", cert, "--tls-key", key, "--grace", "0s"}, e)
	}()
	var addr string
	for addr == "" {
		if m := proxyingRE.FindStringSubmatch(errb.String()); m != nil {
			addr = m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("kwire proxy exited %d: %s", code, errb.String())
		case <-time.After(time.Millisecond):
		}
	}
	set, _ := spec.Embedded("")
	c := codec.New(set)
	cc := &tls.Config{RootCAs: ca.Pool, ServerName: "127.0.0.1"}
	dial := func() (*tls.Conn, string) {
		conn, err := tls.Dial("tcp", addr, cc)
		if err != nil {
			t.Fatal(err)
		}
		return conn, conn.ConnectionState().PeerCertificates[0].Subject.CommonName
	}
	ask := func(conn *tls.Conn, corr int32) {
		t.Helper()
		if _, err := conn.Write(frameOf(t, c, "ApiVersions", true, 3, corr, `{"clientSoftwareName":"t","clientSoftwareVersion":"1"}`)); err != nil {
			t.Fatal(err)
		}
		if _, err := testnet.ReadFrame(conn, math.MaxInt32); err != nil {
			t.Fatalf("corr %d: %v", corr, err)
		}
	}
	before, name := dial()
	defer before.Close()
	if name != "one" {
		t.Fatalf("certificate %q", name)
	}
	ask(before, 1)
	cp(two, cert)
	cp(twoKey, key)
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(errb.String(), "kwire: SIGHUP: reloaded "+cert); {
		if time.Now().After(deadline) {
			t.Fatalf("no reload: %s", errb.String())
		}
		time.Sleep(time.Millisecond)
	}
	ask(before, 2) // the connection made before goes on
	after, name := dial()
	defer after.Close()
	if name != "two" {
		t.Errorf("new handshake: certificate %q, want two", name)
	}
	ask(after, 3)
	// A bad file is refused; the pair before stays.
	os.WriteFile(cert, []byte("not PEM"), 0o600)
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(errb.String(), "(the certificate loaded before stays in use)"); {
		if time.Now().After(deadline) {
			t.Fatalf("no refusal: %s", errb.String())
		}
		time.Sleep(time.Millisecond)
	}
	if _, name := dial(); name != "two" {
		t.Errorf("after a bad reload: certificate %q", name)
	}
	ask(before, 4)
	before.Close()
	after.Close()
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	if code := await(t, done, "end of kwire proxy"); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if n := strings.Count(out.String(), "ApiVersions(18) v3"); n != 4 {
		t.Errorf("%d exchanges:\n%s", n, out.String())
	}
}
