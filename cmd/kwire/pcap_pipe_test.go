package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
)

// watchedBuffer is an output that tests can wait on.
type watchedBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	more chan struct{} // closed and replaced at each write
}

func newWatchedBuffer() *watchedBuffer { return &watchedBuffer{more: make(chan struct{})} }

func (w *watchedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	close(w.more)
	w.more = make(chan struct{})
	return w.buf.Write(p)
}

func (w *watchedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitFor waits until the output contains s n times; it fails the test
// after a minute without it (a hang, not a timing assertion).
func (w *watchedBuffer) waitFor(t *testing.T, s string, n int) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		w.mu.Lock()
		got, more := strings.Count(w.buf.String(), s), w.more
		w.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-more:
		case <-deadline:
			t.Fatalf("no %d× %q in the output after a minute:\n%s", n, s, w.String())
		}
	}
}

// await receives from ch; it fails the test after a minute without a
// value (a hang, not a timing assertion), naming what it waited for.
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("no %s after a minute", what)
	}
	var zero T
	return zero
}

// pipeCapture is the three exchanges of newConversation in a capture, and
// the length of its bytes up to each response's last packet.
func pipeCapture(t *testing.T, mk func(layers.LinkType) *capturetest.File) (all []byte, cuts []int) {
	cv := newConversation(t)
	f := mk(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 900000, pcapT0)
	c.Handshake()
	for _, x := range [][2][]byte{{cv.apiReq, cv.apiResp}, {cv.mdReq, cv.mdResp}, {cv.prReq, cv.prResp}} {
		c.Send(true, x[0], 20)
		c.T = c.T.Add(time.Millisecond)
		c.Send(false, x[1], 0)
		b, err := f.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		cuts = append(cuts, len(b))
	}
	c.Close()
	all, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return all, cuts
}

// startPcap runs kwire pcap args… reading stdin from a pipe; the result
// comes on the channel.
func startPcap(t *testing.T, out *watchedBuffer, args ...string) (*io.PipeWriter, <-chan result) {
	pr, pw := io.Pipe()
	done := make(chan result, 1)
	go func() {
		var errb bytes.Buffer
		code := run(append([]string{"pcap"}, args...), &env{stdin: pr, stdout: out, stderr: &errb, getenv: func(string) string { return "" }})
		pr.Close()
		done <- result{code, out.String(), errb.String()}
	}()
	return pw, done
}

// feed writes b to w in chunks of 5 bytes.
func feed(t *testing.T, w io.Writer, b []byte) {
	t.Helper()
	for len(b) > 0 {
		n := min(5, len(b))
		if _, err := w.Write(b[:n]); err != nil {
			t.Fatal(err)
		}
		b = b[n:]
	}
}

// TestPcapPipePrintsEachExchangeAsItsResponseArrives feeds a capture
// through a pipe in 5-byte writes and waits, after each response's last
// packet, for its exchange line before writing the rest: the line is
// printed with the bytes that exist, and the whole output is the file's.
func TestPcapPipePrintsEachExchangeAsItsResponseArrives(t *testing.T) {
	for i, mk := range []func(layers.LinkType) *capturetest.File{capturetest.NewPcap, capturetest.NewPcapng, capturetest.NewPcap} {
		all, cuts := pipeCapture(t, mk)
		want := mustRun(t, "pcap", writeTemp(t, all))
		if i == 2 { // gzip-compressed, the compressor flushed after each response
			all, cuts = gzipFlushed(t, all, cuts)
		}
		out := newWatchedBuffer()
		pw, done := startPcap(t, out, "-")
		prev := 0
		for i, cut := range cuts {
			feed(t, pw, all[prev:cut])
			prev = cut
			out.waitFor(t, "  corr 10", i+1)
			if got := strings.Count(out.String(), "  corr 10"); got != i+1 {
				t.Fatalf("after response %d: %d exchange lines:\n%s", i+1, got, out.String())
			}
		}
		if strings.Contains(out.String(), "connection") {
			t.Errorf("the summary came before the end of the input:\n%s", out.String())
		}
		feed(t, pw, all[prev:])
		pw.Close()
		r := await(t, done, "end of kwire pcap")
		if r.code != 0 || r.stdout != want {
			t.Errorf("exit %d, stderr %q, output:\n%s\nwant (the file's):\n%s", r.code, r.stderr, r.stdout, want)
		}
	}
}

// TestPcapPipeInterrupted: SIGINT (the cancelled context) ends a pipe
// that stays open with the summary and the statistics, exit 0.
func TestPcapPipeInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	old := pcapContext
	pcapContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { pcapContext = old }()
	all, cuts := pipeCapture(t, capturetest.NewPcap)
	out := newWatchedBuffer()
	pw, done := startPcap(t, out, "--stats", "-")
	defer pw.Close()
	feed(t, pw, all[:cuts[0]])
	out.waitFor(t, "  corr 101", 1)
	cancel()
	r := await(t, done, "end of kwire pcap")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	wantOutput(t, r.stdout, `#1 10.0.0.1:50000→10.0.0.2:9092  ApiVersions(18) v3  corr 101  client "kwire-test"  req `+itoa(len(newConversation(t).apiReq))+` B  resp 23 B  2.000 ms`)
	if !strings.Contains(r.stdout, "1 connection on port 9092, 1 exchange, 0 problems") || !strings.Contains(r.stdout, "ApiVersions") {
		t.Errorf("no summary or statistics:\n%s", r.stdout)
	}
}

// TestPcapPipeEndsMidPacket: a pipe that ends inside a record reports the
// packet and its offset after printing what came before; exit 1.
func TestPcapPipeEndsMidPacket(t *testing.T) {
	all, cuts := pipeCapture(t, capturetest.NewPcap)
	out := newWatchedBuffer()
	pw, done := startPcap(t, out, "-")
	feed(t, pw, all[:cuts[0]+10])
	pw.Close()
	r := await(t, done, "end of kwire pcap")
	if r.code != 1 || !strings.Contains(r.stdout, "corr 101") {
		t.Fatalf("exit %d, output:\n%s", r.code, r.stdout)
	}
	// The handshake's 3 packets, the request's in 20-byte segments and the
	// response's came whole.
	n := 3 + (len(newConversation(t).apiReq)+19)/20 + 1
	want := "standard input is truncated: packet " + itoa(n+1) + " at file offset " + itoa(cuts[0]) + " (0x"
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "inside the 16-byte record header") {
		t.Errorf("stderr %q, want %q…", r.stderr, want)
	}
}

func writeTemp(t *testing.T, b []byte) string {
	p := t.TempDir() + "/c.pcap"
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPcapFileOrInterface: a capture file or --interface, exactly one.
func TestPcapFileOrInterface(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pcap"}, "kwire: give a capture FILE (- for standard input) or --interface NAME\n"},
		{[]string{"pcap", "--interface", "lo", "-"}, "kwire: give a capture FILE or --interface NAME, not both\n"},
	} {
		r := kwire(t, c.args...)
		if r.code != 2 || r.stderr != c.want {
			t.Errorf("kwire %s: exit %d, stderr %q, want %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
}

// gzipFlushed compresses b with a gzip writer flushed at each cut, and
// returns the compressed bytes and the compressed cuts.
func gzipFlushed(t *testing.T, b []byte, cuts []int) ([]byte, []int) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	var zcuts []int
	prev := 0
	for _, cut := range cuts {
		zw.Write(b[prev:cut])
		if err := zw.Flush(); err != nil {
			t.Fatal(err)
		}
		zcuts = append(zcuts, z.Len())
		prev = cut
	}
	zw.Write(b[prev:])
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes(), zcuts
}
