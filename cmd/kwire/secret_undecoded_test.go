package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/internal/testnet"
)

// plantedPassword is the credential the authentication frames below carry
// where kwire cannot decode them; no output may hold it.
const plantedPassword = "Planted-Pa55word!"

// withSize prefixes b with its int32 size.
func withSize(b []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// authHeader is a request header v2 (v1 when !flexible) of api key key at
// version ver, client id "kwire-test".
func authHeader(key, ver int16, corr int32, flexible bool) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(ver))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	b = append(b, 0, 10)
	b = append(b, "kwire-test"...)
	if flexible {
		b = append(b, 0)
	}
	return b
}

// undecodableAuth is an authentication exchange kwire cannot decode whole,
// each request and response holding plantedPassword: a SaslHandshake v1
// for PLAIN (decodes), then SaslAuthenticate at a version the specs do not
// have (v9), with an auth_bytes length past the frame (v2, compact bytes;
// v1, int32 bytes), a SaslHandshake at an unknown version (v7), each
// answered by a response that does not decode either.
func undecodableAuth(t *testing.T) [][2][]byte {
	k := newKafkaFrames(t)
	pw := []byte(plantedPassword)
	plain := append([]byte("\x00alice\x00"), pw...)
	resp := func(corr int32, body ...byte) []byte {
		return withSize(append(binary.BigEndian.AppendUint32(nil, uint32(corr)), body...))
	}
	serverFinal := append([]byte("v="), pw...)
	return [][2][]byte{
		{k.request(t, "SaslHandshake", 1, 1, `{"mechanism":"PLAIN"}`), k.response(t, "SaslHandshake", 1, 1, `{"errorCode":0,"mechanisms":["PLAIN"]}`)},
		// v9: the request's header version is not known; the response is
		// read at v9 too.
		{withSize(append(append(authHeader(36, 9, 2, true), byte(len(plain)+1)), append(plain, 0)...)),
			resp(2, append(append([]byte{0, 0, 0, 0, byte(len(serverFinal) + 1)}, serverFinal...), 0, 0, 0, 0, 0, 0, 0, 0, 0)...)},
		// v2: a compact auth_bytes length (0x7f: 126 bytes) past the frame,
		// in the request and the response.
		{withSize(append(append(authHeader(36, 2, 3, true), 0x7f), plain...)),
			resp(3, append([]byte{0, 0, 0, 0, 0x7f}, serverFinal...)...)},
		// v1: an int32 auth_bytes length past the frame.
		{withSize(append(append(authHeader(36, 1, 4, false), 0, 0, 0x10, 0), plain...)),
			resp(4, append([]byte{0, 0, 0xff, 0xff, 0, 0, 0x10, 0}, serverFinal...)...)},
		// SaslHandshake v7: a version the specs do not have.
		{withSize(append(authHeader(17, 7, 5, true), plain...)), resp(5, append([]byte{0, 0}, serverFinal...)...)},
	}
}

// secretFormats are the pcap and proxy output formats.
var secretFormats = [][]string{{}, {"--tree"}, {"--format", "json"}, {"--tree", "--format", "json"}, {"--tree", "--values", "base64"}, {"--tree", "--values", "hex"}, {"--tree", "--check"}, {"--tree", "--stats"}}

// noPassword fails when what holds plantedPassword as text, in hex (either
// case) or in base64 (at any of the three alignments it can take in a
// longer base64 text).
func noPlanted(t *testing.T, what, out string) {
	t.Helper()
	noSecret(t, what, out, plantedPassword)
	// Its first bytes (a value cut short shows them).
	for _, s := range []string{plantedPassword[:7], hex.EncodeToString([]byte(plantedPassword[:6]))} {
		if strings.Contains(strings.ToLower(out), strings.ToLower(s)) {
			t.Errorf("%s: the password's first bytes show (%s)", what, s)
		}
	}
	for i := 1; i <= 2; i++ {
		b64 := base64.StdEncoding.EncodeToString(append(make([]byte, i), plantedPassword...))
		if s := b64[4 : len(b64)-4]; strings.Contains(out, s) {
			t.Errorf("%s: the password shows in base64 (%s)", what, s)
		}
	}
}

// Every byte of an authentication exchange that does not decode is
// redacted in every output of pcap, the Parquet files too; --show-secrets
// shows them.
func TestPcapRedactsUndecodableAuth(t *testing.T) {
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 900000, pcapT0)
	c.Handshake()
	for _, x := range undecodableAuth(t) {
		c.Send(true, x[0], 0)
		c.Send(false, x[1], 0)
	}
	// A response to a request not seen: what it answers is not known.
	c.Send(false, withSize(append([]byte{0, 0, 0, 99}, "v="+plantedPassword...)), 0)
	// A SaslAuthenticate cut short by the end of the capture.
	c.Send(true, withSize(append(append(authHeader(36, 2, 6, true), 0x40), plantedPassword...))[:30], 0)
	c.Close()
	// SaslHandshake v0, then the raw token (no Kafka header) and the
	// broker's raw answer, on a second connection.
	k := newKafkaFrames(t)
	c2 := capturetest.NewConv(f, "10.0.0.1:50001", "10.0.0.2:9092", 1000, 900000, pcapT0.Add(time.Second))
	c2.Handshake()
	c2.Send(true, k.request(t, "SaslHandshake", 0, 1, `{"mechanism":"PLAIN"}`), 0)
	c2.Send(false, k.response(t, "SaslHandshake", 0, 1, `{"errorCode":0,"mechanisms":["PLAIN"]}`), 0)
	c2.Send(true, withSize([]byte("\x00alice\x00"+plantedPassword)), 0)
	c2.Send(false, withSize([]byte("v="+plantedPassword)), 0)
	c2.Close()
	p := writeCapture(t, f)
	for _, args := range secretFormats {
		r := kwire(t, append(append([]string{"pcap"}, args...), p)...)
		if r.code != 1 {
			t.Errorf("pcap %v: exit %d, want 1 (frames that do not decode)\n%s", args, r.code, r.stderr)
		}
		noPlanted(t, "pcap "+strings.Join(args, " "), r.stdout+r.stderr)
		if len(args) == 0 && !strings.Contains(r.stdout, "#2 10.0.0.1:50001→10.0.0.2:9092  SASL token  mechanism PLAIN  user \"alice\"  req 28 B  resp 23 B") {
			t.Errorf("pcap: no SASL token exchange:\n%s", r.stdout)
		}
		if len(args) > 0 && args[0] == "--tree" && !strings.Contains(r.stdout, "redacted, ") {
			t.Errorf("pcap %v: nothing redacted:\n%.3000s", args, r.stdout)
		}
	}
	dir := t.TempDir()
	r := kwire(t, "pcap", "--format", "parquet", "--out", dir, p)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if r.code != 1 || len(files) == 0 {
		t.Fatalf("pcap --format parquet: exit %d, %d files: %s", r.code, len(files), r.stderr)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		noPlanted(t, file, string(b))
	}
	r = kwire(t, "--show-secrets", "pcap", "--tree", "--values", "hex", p)
	if !strings.Contains(r.stdout, "0x7f00616c69636500"+hex.EncodeToString([]byte(plantedPassword))[:16]) {
		t.Errorf("--show-secrets hides the undecoded auth bytes:\n%.3000s", r.stdout)
	}
	r = kwire(t, "--show-secrets", "pcap", "--tree", "--format", "json", p)
	if !strings.Contains(r.stdout, `"hex":"0000001700000063763d`+hex.EncodeToString([]byte(plantedPassword))+`"`) {
		t.Errorf("--show-secrets hides the response to a request not seen:\n%.3000s", r.stdout)
	}
}

// Through kwire proxy: the same exchange, forwarded unchanged, shows the
// password in no output format, the audit log included.
func TestProxyRedactsUndecodableAuth(t *testing.T) {
	xs := undecodableAuth(t)
	up := answeringUpstream(t, xs)
	for _, args := range secretFormats {
		audit := filepath.Join(t.TempDir(), "audit.jsonl")
		addr, stop := proxyCommand(t, append([]string{"--upstream", up, "--audit", audit}, args...)...)
		var reqs, want []byte
		for _, x := range xs {
			reqs = append(reqs, x[0]...)
			want = append(want, x[1]...)
		}
		var frames [][]byte
		for _, x := range xs {
			frames = append(frames, x[0])
		}
		if got := talk(t, addr, frames...); string(got) != string(want) {
			t.Errorf("proxy %v: the client read %x, want %x", args, got, want)
		}
		r := stop()
		if r.code != 0 {
			t.Errorf("proxy %v: exit %d: %s", args, r.code, r.stderr)
		}
		noPlanted(t, "proxy "+strings.Join(args, " "), r.stdout+r.stderr)
		b, err := os.ReadFile(audit)
		if err != nil {
			t.Fatal(err)
		}
		noPlanted(t, "proxy --audit", string(b))
		if !strings.Contains(string(b), `"api":"SaslAuthenticate"`) {
			t.Errorf("the audit log has no SaslAuthenticate:\n%s", b)
		}
		if len(args) > 0 && args[0] == "--tree" && !strings.Contains(r.stdout, "redacted, ") {
			t.Errorf("proxy %v: nothing redacted:\n%.3000s", args, r.stdout)
		}
	}
}

// answeringUpstream is a broker that answers each request frame of xs
// (request, answer pairs) with its answer, and closes the connection on
// any other frame.
func answeringUpstream(t *testing.T, xs [][2][]byte) string {
	answers := map[string][]byte{}
	for _, x := range xs {
		answers[string(x[0])] = x[1]
	}
	return testnet.Serve(t, nil, func(conn net.Conn) {
		for {
			fr, err := testnet.ReadFrame(conn, 1<<20)
			if err != nil {
				return
			}
			a, ok := answers[string(fr)]
			if !ok {
				return
			}
			conn.Write(a)
		}
	})
}
