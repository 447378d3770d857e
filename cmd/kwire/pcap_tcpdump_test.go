package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/kwire/kwire/internal/testnet"
)

// TestPcapPipeFromTcpdump pipes a real `tcpdump -i lo -U -w - tcp port N`
// into kwire pcap - while a client and a fake broker on port N exchange
// ApiVersions and Metadata on loopback: each exchange is printed while
// tcpdump still runs, and stopping tcpdump ends the input with the
// summary. Skipped without tcpdump or the right to capture, unless
// KWIRE_TCPDUMP_REQUIRED is set (CI).
func TestPcapPipeFromTcpdump(t *testing.T) {
	skip := t.Skipf
	if os.Getenv("KWIRE_TCPDUMP_REQUIRED") != "" {
		skip = t.Fatalf
	}
	bin, err := exec.LookPath("tcpdump")
	if err != nil {
		skip("no tcpdump: %v (apt-get install tcpdump)", err)
	}
	cv := newConversation(t)
	addr, port := answerConversation(t, cv)

	cmd := exec.Command(bin, "-i", "lo", "-U", "-n", "-w", "-", "tcp port "+port)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		skip("tcpdump: %v", err)
	}
	defer cmd.Process.Kill() // the tcpdump started here, by its pid
	errLines := bufio.NewScanner(stderr)
	var said bytes.Buffer
	for !strings.Contains(said.String(), "listening on") {
		if !errLines.Scan() {
			cmd.Wait()
			skip("tcpdump ended before capturing (no permission?): %s", said.String())
		}
		said.WriteString(errLines.Text() + "\n")
	}
	go io.Copy(io.Discard, stderr)

	out := newWatchedBuffer()
	done := make(chan result, 1)
	go func() {
		var errb bytes.Buffer
		code := run([]string{"pcap", "--port", port, "-"}, &env{stdin: stdout, stdout: out, stderr: &errb, getenv: func(string) string { return "" }})
		done <- result{code, out.String(), errb.String()}
	}()

	conn := dialConversation(t, addr)
	for i, x := range [][2][]byte{{cv.apiReq, cv.apiResp}, {cv.mdReq, cv.mdResp}} {
		if _, err := conn.Write(x[0]); err != nil {
			t.Fatal(err)
		}
		resp, err := testnet.ReadFrame(conn, 1<<20)
		if err != nil || !bytes.Equal(resp, x[1]) {
			t.Fatalf("response %d: %x, %v", i+1, resp, err)
		}
		out.waitFor(t, "  corr 10", i+1) // printed while tcpdump still runs
	}
	client := conn.LocalAddr().String()
	conn.Close()
	cmd.Process.Signal(syscall.SIGINT) // tcpdump ends its output cleanly
	r := await(t, done, "kwire pcap's end after tcpdump's")
	cmd.Wait()

	conv := regexp.QuoteMeta("#1 " + client + "→" + addr)
	lat := `  \d+\.\d{3} ms`
	want := regexp.MustCompile(`(?m)^\S+ \S+  ` + conv + `  ApiVersions\(18\) v3  corr 101  client "kwire-test"  req ` + itoa(len(cv.apiReq)) + ` B  resp 23 B` + lat + `\n` +
		`\S+ \S+  ` + conv + `  Metadata\(3\) v12  corr 102  client "kwire-test"  req ` + itoa(len(cv.mdReq)) + ` B  resp ` + itoa(len(cv.mdResp)) + ` B` + lat + `  errors UNKNOWN_TOPIC_OR_PARTITION\(3\) at MetadataResponse.Topics\[0\].ErrorCode\n` +
		`\npcap: \d+ packets; 1 connection on port ` + port + `, 2 exchanges, 0 problems\n`)
	if r.code != 0 || !want.MatchString(r.stdout) {
		t.Errorf("exit %d, stderr %q, output:\n%s\nwant it to match:\n%s", r.code, r.stderr, r.stdout, want)
	}
}

// TestPcapInterface captures loopback itself (--interface lo, pure Go
// AF_PACKET) while a client and a fake broker exchange ApiVersions and
// Metadata on a free port: each exchange is printed as it happens, once
// (loopback's outgoing copies are left out), and SIGINT ends the capture
// with the summary. Skipped when not allowed to capture (not root).
func TestPcapInterface(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("capturing from an interface needs root (or CAP_NET_RAW)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // a failed test ends the capture too
	old := pcapContext
	pcapContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { pcapContext = old }()
	cv := newConversation(t)
	addr, port := answerConversation(t, cv)

	// The line on stderr comes once the capture's socket is bound with its
	// filter attached: the connection below is captured from its SYN.
	out, errOut := newWatchedBuffer(), newWatchedBuffer()
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"pcap", "--interface", "lo", "--port", port}, &env{stdin: strings.NewReader(""), stdout: out, stderr: errOut, getenv: func(string) string { return "" }})
	}()
	errOut.waitFor(t, "\n", 1)
	if s := errOut.String(); strings.Contains(s, "operation not permitted") {
		t.Skipf("no right to capture: %s", s)
	} else if s != "kwire pcap: capturing on lo, TCP port "+port+"; Ctrl-C ends\n" {
		t.Fatalf("stderr %q", s)
	}

	conn := dialConversation(t, addr)
	for i, x := range [][2][]byte{{cv.apiReq, cv.apiResp}, {cv.mdReq, cv.mdResp}} {
		if _, err := conn.Write(x[0]); err != nil {
			t.Fatal(err)
		}
		if resp, err := testnet.ReadFrame(conn, 1<<20); err != nil || !bytes.Equal(resp, x[1]) {
			t.Fatalf("response %d: %x, %v", i+1, resp, err)
		}
		out.waitFor(t, "  corr 10", i+1)
	}
	client := conn.LocalAddr().String()
	conn.Close()
	cancel()
	if code := await(t, done, "kwire pcap's end after the interrupt"); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut.String())
	}
	conv := regexp.QuoteMeta("#1 " + client + "→" + addr)
	lat := `  \d+\.\d{3} ms`
	want := regexp.MustCompile(`(?m)^\S+ \S+  ` + conv + `  ApiVersions\(18\) v3  corr 101  client "kwire-test"  req ` + itoa(len(cv.apiReq)) + ` B  resp 23 B` + lat + `\n` +
		`\S+ \S+  ` + conv + `  Metadata\(3\) v12  corr 102  client "kwire-test"  req ` + itoa(len(cv.mdReq)) + ` B  resp ` + itoa(len(cv.mdResp)) + ` B` + lat + `  errors UNKNOWN_TOPIC_OR_PARTITION\(3\) at MetadataResponse.Topics\[0\].ErrorCode\n` +
		`\ninterface: \d+ packets; 1 connection on port ` + port + `, 2 exchanges, 0 problems\n` +
		`bytes: \d+ reassembled, 0 not decoded, 0 missing from the capture, 0 retransmitted;`)
	if got := out.String(); !want.MatchString(got) {
		t.Errorf("output:\n%s\nwant it to match:\n%s", got, want)
	}
}

// answerConversation serves cv's two requests with their responses on a
// loopback port until the test ends, and returns its address and port.
func answerConversation(t *testing.T, cv conversation) (addr, port string) {
	answers := map[string][]byte{string(cv.apiReq): cv.apiResp, string(cv.mdReq): cv.mdResp}
	addr = testnet.Serve(t, nil, func(conn net.Conn) {
		for {
			req, err := testnet.ReadFrame(conn, 1<<20)
			if err != nil {
				return
			}
			if _, err := conn.Write(answers[string(req)]); err != nil {
				return
			}
		}
	})
	_, port, _ = net.SplitHostPort(addr)
	return addr, port
}

// dialConversation connects to a server of answerConversation; the
// connection is closed when the test ends, failed or not, so that the
// server's handler returns and the server's own cleanup does not wait
// forever.
func dialConversation(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
