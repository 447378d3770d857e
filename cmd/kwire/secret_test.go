package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/internal/fakebroker"
	"github.com/kwire/kwire/records"
)

// noSecret fails when s shows in out as text, hex or base64.
func noSecret(t *testing.T, what, out, s string) {
	t.Helper()
	h := hex.EncodeToString([]byte(s))
	for _, f := range []string{s, h, strings.ToUpper(h), base64.StdEncoding.EncodeToString([]byte(s))} {
		if strings.Contains(out, f) {
			t.Errorf("%s: %q shows as %q:\n%.3000s", what, s, f, out)
		}
	}
}

// A SASL/PLAIN login (SaslHandshake v1, SaslAuthenticate v2) in a capture:
// pcap names the mechanism and user and shows the password in no output
// unless --show-secrets.
func TestPcapRedactsSASLPlain(t *testing.T) {
	k := newKafkaFrames(t)
	auth := "\x00alice\x00alice-secret"
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 900000, pcapT0)
	c.Handshake()
	c.Send(true, k.request(t, "SaslHandshake", 1, 1, `{"mechanism":"PLAIN"}`), 0)
	c.Send(false, k.response(t, "SaslHandshake", 1, 1, `{"errorCode":0,"mechanisms":["PLAIN"]}`), 0)
	c.Send(true, k.request(t, "SaslAuthenticate", 2, 2, `{"authBytes":"`+base64.StdEncoding.EncodeToString([]byte(auth))+`"}`), 0)
	c.Send(false, k.response(t, "SaslAuthenticate", 2, 2, `{"errorCode":0,"errorMessage":null,"authBytes":"","sessionLifetimeMs":0}`), 0)
	c.Close()
	p := writeCapture(t, f)
	out := mustRun(t, "pcap", p)
	conn := "#1 10.0.0.1:50000→10.0.0.2:9092"
	wantOutput(t, out,
		conn+`  SaslHandshake(17) v1  corr 1  client "kwire-test"  mechanism PLAIN  req 31 B  resp 21 B  1.000 ms`,
		conn+`  SaslAuthenticate(36) v2  corr 2  client "kwire-test"  mechanism PLAIN  user "alice"  req 46 B  resp 22 B  1.000 ms`)
	for _, args := range [][]string{{"--tree"}, {"--tree", "--format", "json"}, {"--tree", "--values", "base64"}, {"--format", "json"}} {
		out := mustRun(t, append(append([]string{"pcap"}, args...), p)...)
		noSecret(t, strings.Join(args, " "), out, "alice-secret")
		noSecret(t, strings.Join(args, " "), out, auth)
		if args[0] == "--tree" && !strings.Contains(out, "redacted, 19 bytes") {
			t.Errorf("%v: no <redacted, 19 bytes>:\n%.3000s", args, out)
		}
	}
	out = mustRun(t, "--show-secrets", "pcap", "--tree", "--format", "json", p)
	if !strings.Contains(out, base64.StdEncoding.EncodeToString([]byte(auth))) || strings.Contains(out, "redacted") {
		t.Errorf("--show-secrets hides the auth bytes:\n%.3000s", out)
	}
}

// The metadata log's SCRAM credentials and sensitive configs are redacted
// in every view of kwire log, and shown with --show-secrets.
func TestLogRedactsCredentials(t *testing.T) {
	salt, key := "SALT-0123456789", "STORED-KEY-0123"
	scram := metadataValue(t, "UserScramCredentialRecord", 0, `{"name":"alice","mechanism":2,"salt":"`+base64.StdEncoding.EncodeToString([]byte(salt))+
		`","storedKey":"`+base64.StdEncoding.EncodeToString([]byte(key))+`","serverKey":"`+base64.StdEncoding.EncodeToString([]byte(key))+`","iterations":4096}`)
	cfg := metadataValue(t, "ConfigRecord", 0, `{"resourceType":4,"resourceName":"1","name":"ssl.keystore.password","value":"KEYSTORE-PASS"}`)
	dir := filepath.Join(t.TempDir(), "__cluster_metadata-0")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(dir, "00000000000000000000.log")
	b := records.Batch{LeaderEpoch: 1, Records: []records.KeyValue{{Value: scram}, {Value: cfg}}}.Bytes()
	if err := os.WriteFile(seg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "log", seg)
	for _, want := range []string{
		`UserScramCredentialRecord v0 {"name":"alice","mechanism":2,"salt":"<redacted, 15 bytes>","storedKey":"<redacted, 15 bytes>","serverKey":"<redacted, 15 bytes>","iterations":4096}`,
		`ConfigRecord v0 {"resourceType":4,"resourceName":"1","name":"ssl.keystore.password","value":"<redacted, 13 bytes>"}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
	for _, args := range [][]string{{}, {"--format", "json"}, {"--tree"}, {"--tree", "--values", "base64"}} {
		out := mustRun(t, append(append([]string{"log"}, args...), seg)...)
		for _, s := range []string{salt, key, "KEYSTORE-PASS"} {
			noSecret(t, "log "+strings.Join(args, " "), out, s)
		}
	}
	out = mustRun(t, "--show-secrets", "log", seg)
	if !strings.Contains(out, `"value":"KEYSTORE-PASS"`) || !strings.Contains(out, base64.StdEncoding.EncodeToString([]byte(salt))) {
		t.Errorf("--show-secrets:\n%s", out)
	}
}

// Clients log in through kwire proxy with SASL PLAIN and SCRAM-SHA-512: the
// lines name the mechanism and the user, and no output of the proxy holds
// the password (or, for SCRAM, a proof: every p= value is redacted).
func TestProxyRedactsSASL(t *testing.T) {
	const password = "proxy-pa55word"
	b := fakebroker.Start(t, fakebroker.Options{Mechanisms: []string{client.PLAIN, client.SCRAMSHA512}, Users: map[string]string{"alice": password}, SessionLifetimeMs: 3600000})
	for _, args := range [][]string{{"--tree"}, {"--tree", "--format", "json"}} {
		addr, stop := proxyCommand(t, append([]string{"--upstream", b.Addr}, args...)...)
		for _, mech := range []string{client.PLAIN, client.SCRAMSHA512} {
			cd := proxyCodec(t)
			cn, err := client.Dial(context.Background(), addr, cd, client.Options{ClientID: "sasl-test", Timeout: 5 * time.Second, SASL: &client.SASL{Mechanism: mech, User: "alice", Password: password}})
			if err != nil {
				t.Fatalf("%s: %v", mech, err)
			}
			cn.Close()
		}
		r := stop()
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		noSecret(t, "proxy "+strings.Join(args, " "), r.stdout, password)
		if strings.Contains(r.stdout, "p=") && regexp.MustCompile(`p=[^*]`).MatchString(strings.ReplaceAll(r.stdout, `\u003c`, "<")) {
			t.Errorf("a SCRAM proof shows:\n%s", r.stdout)
		}
		for _, want := range []string{`mechanism PLAIN  user "alice"`, `mechanism SCRAM-SHA-512  user "alice"`, "<redacted, 21 bytes>"} {
			if args[len(args)-1] == "json" {
				want = map[string]string{`mechanism PLAIN  user "alice"`: `"mechanism":"PLAIN","user":"alice"`, `mechanism SCRAM-SHA-512  user "alice"`: `"mechanism":"SCRAM-SHA-512","user":"alice"`, "<redacted, 21 bytes>": `\u003credacted, 21 bytes\u003e`}[want]
			}
			// The converter body's strings are written as they are, or,
			// as encoding/json writes them, with < and > escaped.
			if !strings.Contains(r.stdout, want) && !strings.Contains(r.stdout, strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(want)) {
				t.Errorf("%v: no %q in %q", args, want, regexp.MustCompile(`(u003c|<)redacted[^>\\]*`).FindAllString(r.stdout, -1))
			}
		}
	}
}

// kwire call prints a delegation token's HMAC (here in a
// RenewDelegationToken request and a CreateDelegationToken response)
// redacted in every format, and as it is with --show-secrets.
func TestCallRedactsTokenHMAC(t *testing.T) {
	k := newKafkaFrames(t)
	hmac := "HMAC-0123456789"
	h64 := base64.StdEncoding.EncodeToString([]byte(hmac))
	req, err := k.cd.DecodeRequest(k.request(t, "RenewDelegationToken", 2, 5, `{"hmac":"`+h64+`","renewPeriodMs":1000}`))
	if err != nil {
		t.Fatal(err)
	}
	m := k.set.Message("CreateDelegationTokenResponse")
	resp, err := k.cd.DecodeResponse(k.response(t, "CreateDelegationToken", 3, 5, `{"errorCode":0,"principalType":"User","principalName":"a","tokenRequesterPrincipalType":"User","tokenRequesterPrincipalName":"a","issueTimestampMs":0,"expiryTimestampMs":0,"maxTimestampMs":0,"tokenId":"tok","hmac":"`+h64+`","throttleTimeMs":0}`), m, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, show := range []bool{false, true} {
		for _, format := range []string{"text", "page", "json", "kafka"} {
			var out bytes.Buffer
			a := &app{env: &env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }}, cli: &kwireCLI{ShowSecrets: show}}
			x := &client.Exchange{Request: req, Response: resp}
			if err := a.writeCall(&callCmd{Format: format, Bootstrap: "b:9092"}, k.set, x, nil); err != nil {
				t.Fatal(err)
			}
			if show {
				if !strings.Contains(out.String(), h64) && !strings.Contains(out.String(), hex.EncodeToString([]byte(hmac))) {
					t.Errorf("--show-secrets %s: no HMAC:\n%s", format, out.String())
				}
				continue
			}
			noSecret(t, "call "+format, out.String(), hmac)
			if !strings.Contains(out.String(), "redacted, 15 bytes") {
				t.Errorf("%s: no <redacted, 15 bytes>:\n%s", format, out.String())
			}
		}
	}
	// The trees the client holds are not changed.
	if !bytes.Contains(req.Bytes, []byte(hmac)) || !bytes.Contains(resp.Bytes, []byte(hmac)) {
		t.Errorf("writeCall changed the exchange's trees")
	}
}
