package main

import (
	"crypto/tls"
	"io"
	"math"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/internal/testcert"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/internal/tlsconf"
)

// kwire proxy with TLS on both sides: a TLS client's exchanges are decoded
// and reported as over plaintext; a plaintext client of the TLS listener
// gets one line naming the cause, and the proxy goes on.
func TestProxyTLSBothSides(t *testing.T) {
	ca := testcert.New(t, "127.0.0.1")
	cert, key := ca.Leaf("proxy", "proxy.test", "127.0.0.1")
	bcert, bkey := ca.Leaf("broker", "broker.test")
	sc, err := tlsconf.Server(bcert, bkey, "")
	if err != nil {
		t.Fatal(err)
	}
	up := testnet.Front(t, sc, fakeKafka(t))
	c := proxyCodec(t)
	addr, stop := proxyCommand(t, "--upstream", up, "--tls-cert", cert, "--tls-key", key,
		"--upstream-tls", "--upstream-ca", ca.CertFile, "--upstream-server-name", "broker.test")
	req := frameOf(t, c, "ApiVersions", true, 3, 7, "")

	plain, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	plain.Write(req)
	if b, _ := io.ReadAll(plain); len(b) != 0 {
		t.Errorf("plaintext client got %d bytes", len(b))
	}
	plain.Close()

	cc, err := tlsconf.Client(ca.CertFile, "proxy.test", "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", addr, cc)
	if err != nil {
		t.Fatal(err)
	}
	conn.Write(req)
	if _, err := testnet.ReadFrame(conn, math.MaxInt32); err != nil {
		t.Fatal(err)
	}
	conn.CloseWrite()
	io.Copy(io.Discard, conn)
	conn.Close()
	r := stop()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	t.Log("\n" + r.stdout)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, want := range []*regexp.Regexp{
		regexp.MustCompile(`  #1 127\.0\.0\.1:(\d+)  failed: client 127\.0\.0\.1:\d+: TLS handshake: client sent plaintext \(looks like a Kafka request: ApiVersions v3\)$`),
		regexp.MustCompile(`  #2 127\.0\.0\.1:\d+  opened to ` + regexp.QuoteMeta(up) + `$`),
		regexp.MustCompile(`  #2 127\.0\.0\.1:\d+  ApiVersions\(18\) v3  corr 7  client "cmd-test"  req \d+ B  resp \d+ B  \d+\.\d{3} ms$`),
		regexp.MustCompile(`  #2 127\.0\.0\.1:\d+  closed: ` + strconv.Itoa(len(req)) + ` B from the client, 16 B from the broker$`),
	} {
		if !want.MatchString(lines[i]) {
			t.Errorf("line %d: %q does not match %s", i, lines[i], want)
		}
	}
}

func TestProxyTLSFlags(t *testing.T) {
	ca := testcert.New(t, "127.0.0.1")
	cert, key := ca.Leaf("proxy")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--tls-cert", cert}, 2, "kwire: --tls-cert needs --tls-key"},
		{[]string{"--tls-key", key}, 2, "kwire: --tls-key needs --tls-cert"},
		{[]string{"--tls-client-ca", ca.CertFile}, 2, "kwire: --tls-client-ca needs --tls-cert and --tls-key"},
		{[]string{"--upstream-ca", ca.CertFile}, 2, "kwire: --upstream-ca needs --upstream-tls"},
		{[]string{"--upstream-insecure"}, 2, "kwire: --upstream-insecure needs --upstream-tls"},
		{[]string{"--upstream-tls", "--upstream-cert", cert}, 2, "kwire: --upstream-cert needs --upstream-key"},
		{[]string{"--upstream-tls", "--upstream-insecure", "--upstream-ca", ca.CertFile}, 2, "kwire: --upstream-insecure and --upstream-ca contradict each other: --upstream-insecure verifies no certificate"},
		{[]string{"--broker-ports", "28501-28502"}, 2, "kwire: --broker-ports needs --rewrite-advertised"},
		{[]string{"--tls-cert", key, "--tls-key", key}, 1, "kwire: listener TLS: " + key + ": no PEM certificate in it"},
		{[]string{"--upstream-tls", "--upstream-ca", key}, 1, "kwire: upstream TLS: " + key + ": no PEM certificate in it"},
	} {
		r := kwire(t, append([]string{"proxy", "--upstream", "127.0.0.1:9092"}, c.args...)...)
		if r.code != c.code || r.stderr != c.want+"\n" || r.stdout != "" {
			t.Errorf("kwire proxy %s: exit %d, stdout %q, stderr %q; want exit %d and %q", strings.Join(c.args, " "), r.code, r.stdout, r.stderr, c.code, c.want)
		}
	}
}

// kwire call with TLS and SCRAM through kwire proxy with TLS on both
// sides, in front of a TLS broker: the login and the call go through, the
// proxy's lines name the mechanism and the user, and the broker's own
// listener on the proxy (--rewrite-advertised) is TLS too.
func TestProxyTLSCallThrough(t *testing.T) {
	ca := testcert.New(t, "127.0.0.1")
	cert, key := ca.Leaf("proxy", "127.0.0.1")
	bcert, bkey := ca.Leaf("broker", "broker.test")
	b := tlsBroker(t, bcert, bkey, "", "SCRAM-SHA-512")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	addr, stop := proxyCommand(t, "--upstream", b.Addr, "--tls-cert", cert, "--tls-key", key,
		"--upstream-tls", "--upstream-ca", ca.CertFile, "--upstream-server-name", "broker.test",
		"--rewrite-advertised", "--broker-ports", strconv.Itoa(port))
	r := withPassword(t, saslPassword, "call", "--bootstrap", addr, "--tls", "--tls-ca", ca.CertFile,
		"--sasl-mechanism", "SCRAM-SHA-512", "--sasl-user", "alice", "Metadata")
	if r.code != 0 {
		t.Fatalf("kwire call: exit %d: %s", r.code, r.stderr)
	}
	noPassword(t, r)
	// The broker's listener speaks TLS.
	cc, err := tlsconf.Client(ca.CertFile, "", "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	bc, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port), cc)
	if err != nil {
		t.Fatalf("the broker's listener on the proxy: %v", err)
	}
	bc.Write(frameOf(t, proxyCodec(t), "ApiVersions", true, 3, 9, ""))
	var h [4]byte
	if _, err := io.ReadFull(bc, h[:]); err != nil {
		t.Fatalf("no answer through the broker's listener: %v", err)
	}
	bc.Close()
	p := stop()
	if p.code != 0 {
		t.Fatalf("kwire proxy: exit %d: %s", p.code, p.stderr)
	}
	noPassword(t, p)
	t.Log("\n" + p.stdout)
	for _, want := range []string{
		"  #1 127.0.0.1:",
		"SaslAuthenticate(36) v2",
		"alice",
		"Metadata(3) v",
		"broker 1 at " + b.Addr + ": listening on 127.0.0.1:" + strconv.Itoa(port),
		"  #2 127.0.0.1:",
		"ApiVersions(18) v3  corr 9",
	} {
		if !strings.Contains(p.stdout, want) {
			t.Errorf("no %q in the proxy's output", want)
		}
	}
	if strings.Contains(p.stdout, "failed") {
		t.Errorf("a connection failed:\n%s", p.stdout)
	}
}
