package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
)

// afterAuthMarker is what an undecodable frame sent after authentication
// ended carries: it is no secret, and shows.
const afterAuthMarker = "after-auth-visible"

// bareToken is a PLAIN token of a short user name: read as a request
// header, the password's first 4 bytes are its correlation id
// (bareTokenCorr), which no output may show.
const bareToken, bareTokenCorr = "\x00bo\x00" + plantedPassword, "1349280110"

// noHeaderOf fails when out shows bareToken's header as numbers.
func noHeaderOf(t *testing.T, what, out string) {
	t.Helper()
	if strings.Contains(out, bareTokenCorr) || strings.Contains(out, "28416") {
		t.Errorf("%s: the header of a bare token shows as numbers", what)
	}
}

// authWindow is a connection that authenticates with SaslHandshake v1 and
// PLAIN, sending between the handshake and the SaslAuthenticate answered
// with error NONE frames that are not a decodable SaslAuthenticate, each
// holding plantedPassword: a request of an api key the specs do not have
// (99), bare PLAIN tokens with no header at all, and a Metadata request
// whose client id holds it. After authentication an api key 99 request
// carries afterAuthMarker.
func authWindow(t *testing.T) [][2][]byte {
	k := newKafkaFrames(t)
	plain := "\x00alice\x00" + plantedPassword
	resp := func(corr int32, body ...byte) []byte {
		return withSize(append(binary.BigEndian.AppendUint32(nil, uint32(corr)), body...))
	}
	md := append(binary.BigEndian.AppendUint16(nil, 3), 0, 4, 0, 0, 0, 4)
	md = append(binary.BigEndian.AppendUint16(md, uint16(len(plantedPassword))), plantedPassword...)
	md = append(md, 0, 0, 0, 0, 0)
	return [][2][]byte{
		{k.request(t, "SaslHandshake", 1, 1, `{"mechanism":"PLAIN"}`), k.response(t, "SaslHandshake", 1, 1, `{"errorCode":0,"mechanisms":["PLAIN"]}`)},
		{withSize(append(authHeader(99, 0, 2, false), plain...)), resp(2, 0, 0)},
		{withSize([]byte(plain)), resp(0x00616c69, 0, 0)},
		{withSize([]byte(bareToken)), resp(7, 0, 0)},
		{withSize(md), resp(4, 0, 0, 0, 0)},
		{k.request(t, "SaslAuthenticate", 2, 5, `{"authBytes":"`+base64.StdEncoding.EncodeToString([]byte(plain))+`"}`),
			k.response(t, "SaslAuthenticate", 2, 5, `{"errorCode":0,"errorMessage":null,"authBytes":"","sessionLifetimeMs":0}`)},
		{withSize(append(authHeader(99, 0, 6, false), afterAuthMarker...)), resp(6, 0, 0)},
	}
}

// Every frame the client sends between the SASL handshake and the end of
// authentication that is not a decodable SaslAuthenticate is redacted
// whole in every pcap output, the Parquet files too; a frame after it is
// not; --show-secrets shows them.
func TestPcapRedactsAuthWindow(t *testing.T) {
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 900000, pcapT0)
	c.Handshake()
	for _, x := range authWindow(t) {
		c.Send(true, x[0], 0)
		c.Send(false, x[1], 0)
	}
	c.Close()
	p := writeCapture(t, f)
	for _, args := range secretFormats {
		r := kwire(t, append(append([]string{"pcap"}, args...), p)...)
		noPlanted(t, "pcap "+strings.Join(args, " "), r.stdout+r.stderr)
		noHeaderOf(t, "pcap "+strings.Join(args, " "), r.stdout+r.stderr)
		if len(args) > 0 && args[0] == "--tree" && !strings.Contains(r.stdout, "redacted, ") {
			t.Errorf("pcap %v: nothing redacted:\n%.3000s", args, r.stdout)
		}
	}
	dir := t.TempDir()
	r := kwire(t, "pcap", "--format", "parquet", "--out", dir, p)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) == 0 {
		t.Fatalf("pcap --format parquet: exit %d, no files: %s", r.code, r.stderr)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		noPlanted(t, file, string(b))
		noHeaderOf(t, file, string(b))
	}
	r = kwire(t, "pcap", "--tree", "--format", "json", p)
	if !strings.Contains(r.stdout, hex.EncodeToString([]byte(afterAuthMarker))) {
		t.Errorf("the frame after authentication is redacted:\n%.5000s", r.stdout)
	}
	r = kwire(t, "--show-secrets", "pcap", "--tree", "--format", "json", p)
	if !strings.Contains(r.stdout, hex.EncodeToString([]byte("\x00alice\x00"+plantedPassword))) {
		t.Errorf("--show-secrets hides the frames of the authentication:\n%.5000s", r.stdout)
	}
}

// Through kwire proxy: the same connection, forwarded unchanged, shows
// the password in no output format, the audit log included.
func TestProxyRedactsAuthWindow(t *testing.T) {
	xs := authWindow(t)
	up := answeringUpstream(t, xs)
	for _, args := range secretFormats {
		audit := filepath.Join(t.TempDir(), "audit.jsonl")
		addr, stop := proxyCommand(t, append([]string{"--upstream", up, "--audit", audit}, args...)...)
		var frames [][]byte
		var want []byte
		for _, x := range xs {
			frames = append(frames, x[0])
			want = append(want, x[1]...)
		}
		if got := talk(t, addr, frames...); string(got) != string(want) {
			t.Errorf("proxy %v: the client read %x, want %x", args, got, want)
		}
		r := stop()
		noPlanted(t, "proxy "+strings.Join(args, " "), r.stdout+r.stderr)
		noHeaderOf(t, "proxy "+strings.Join(args, " "), r.stdout+r.stderr)
		b, err := os.ReadFile(audit)
		if err != nil {
			t.Fatal(err)
		}
		noPlanted(t, "proxy --audit", string(b))
		noHeaderOf(t, "proxy --audit", string(b))
		if len(args) > 0 && args[0] == "--tree" && !strings.Contains(r.stdout, "redacted, ") {
			t.Errorf("proxy %v: nothing redacted:\n%.3000s", args, r.stdout)
		}
		if strings.Join(args, " ") == "--tree --format json" && !strings.Contains(r.stdout, hex.EncodeToString([]byte(afterAuthMarker))) {
			t.Errorf("proxy %v: the frame after authentication is redacted:\n%.5000s", args, r.stdout)
		}
	}
}
