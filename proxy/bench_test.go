package proxy

import (
	"bufio"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testcert"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/internal/tlsconf"
	"github.com/kwire/kwire/records"
)

// produceFrame is a Produce v9 request of about 1 MiB: one RecordBatch of
// 100 records of 10 KiB.
func produceFrame(b testing.TB, c *codec.Codec) []byte {
	var kvs []records.KeyValue
	for i := range 100 {
		v := make([]byte, 10<<10)
		for j := range v {
			v[j] = byte(i + j)
		}
		kvs = append(kvs, records.KeyValue{Key: []byte(fmt.Sprint(i)), Value: v})
	}
	batch := records.Batch{Records: kvs}.Bytes()
	body := `{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[{"name":"bench","partitionData":[{"index":0,"records":"` + base64.StdEncoding.EncodeToString(batch) + `"}]}]}`
	return encodeFrame(b, c, "Produce", true, 9, 1, "bench", body)
}

// BenchmarkProxy pushes Produce-like frames of 1 MiB through a loopback
// echo server, directly and through the proxy (decoding on and off,
// plaintext and TLS on both sides); the MB/s are one way (each byte also
// comes back). aes-gcm is the cipher work alone that TLS adds, the floor
// under the difference between proxy-tls and proxy. The others send as
// fast as they can; proxy-300MBps (plaintext, decoding on) has the client
// pace its writes to 300 MB/s one way (10^6 bytes a MB), as an offered
// load, and reports the bytes left undecoded (undecoded-bytes, both
// directions, and undecoded/byte of those forwarded).
//
// The client and the echo server run in another process (this test binary
// again, as TestBenchPeer), so that cpu-ms/MB is the proxy's own CPU time
// (user and system, getrusage of this process) per 10^6 bytes forwarded,
// both directions counted.
func BenchmarkProxy(b *testing.B) {
	c := codec.New(testSet)
	peer := startBenchPeer(b, false)
	tlsServer, err := tlsconf.Server(peer.cert, peer.key, "")
	if err != nil {
		b.Fatal(err)
	}
	tlsClient, err := tlsconf.Client(peer.ca, "", "", "", false)
	if err != nil {
		b.Fatal(err)
	}
	// run has the peer send b.N frames to addr and read them back; it
	// returns this process's CPU time meanwhile per MB forwarded.
	run := func(b *testing.B, addr string, tls bool, rate int64) float64 {
		b.SetBytes(peer.frameLen)
		b.ResetTimer()
		cpu0 := cpuTime(b)
		peer.run(b, addr, tls, b.N, rate)
		cpu := cpuTime(b) - cpu0
		return float64(cpu.Microseconds()) / 1e3 / (float64(2*peer.frameLen*int64(b.N)) / 1e6)
	}
	b.Run("direct", func(b *testing.B) { run(b, peer.echo, false, 0) })
	b.Run("direct-tls", func(b *testing.B) { run(b, peer.echoTLS, true, 0) })
	// aes-gcm is the cipher work alone that TLS on both sides adds to
	// forwarding, with no forwarding: each byte of both directions opened
	// once (from one side) and sealed once (for the other), in records of
	// 16 KiB with AES-128-GCM (what is negotiated here). proxy-tls costs
	// at least proxy's cpu-ms/MB plus this one's.
	b.Run("aes-gcm", func(b *testing.B) {
		block, err := aes.NewCipher(make([]byte, 16))
		if err != nil {
			b.Fatal(err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			b.Fatal(err)
		}
		nonce, rec := make([]byte, aead.NonceSize()), make([]byte, 16<<10)
		sealed := aead.Seal(nil, nonce, rec, nil)
		resealed := make([]byte, 0, len(sealed))
		b.SetBytes(peer.frameLen)
		b.ResetTimer()
		cpu0 := cpuTime(b)
		for range b.N {
			for n := int64(0); n < 2*peer.frameLen; n += int64(len(rec)) {
				if _, err := aead.Open(rec[:0], nonce, sealed, nil); err != nil {
					b.Fatal(err)
				}
				resealed = aead.Seal(resealed[:0], nonce, rec, nil)
			}
		}
		cpu := cpuTime(b) - cpu0
		b.ReportMetric(float64(cpu.Microseconds())/1e3/(float64(2*peer.frameLen*int64(b.N))/1e6), "cpu-ms/MB")
	})
	for _, k := range []struct {
		name string
		o    Options
		tls  bool
		rate int64 // bytes per second one way; 0: as fast as it goes
	}{
		{"proxy", Options{Codec: c}, false, 0},
		{"proxy-nodecode", Options{}, false, 0},
		{"proxy-tls", Options{Codec: c, TLS: tlsServer, UpstreamTLS: tlsClient}, true, 0},
		{"proxy-tls-nodecode", Options{TLS: tlsServer, UpstreamTLS: tlsClient}, true, 0},
		{"proxy-300MBps", Options{Codec: c}, false, 300e6},
		// proxy-service is proxy with the service outputs of kwire proxy
		// --metrics --audit FILE on every event (serviceBench).
		{"proxy-service", Options{Codec: c, Touched: true}, false, 0},
	} {
		b.Run(k.name, func(b *testing.B) {
			o := k.o
			o.Listen, o.Upstream = "127.0.0.1:0", peer.echo
			if k.tls {
				o.Upstream = peer.echoTLS
			}
			var service func(Event)
			if k.name == "proxy-service" {
				if serviceBench == nil {
					b.Skip("no service outputs")
				}
				service = serviceBench(b)
			}
			var undecoded int64
			closed := make(chan struct{})
			o.OnEvent = func(e Event) {
				if service != nil {
					service(e)
				}
				if e.Kind == Closed {
					undecoded = e.Stats.Undecoded[0] + e.Stats.Undecoded[1]
					close(closed)
				}
			}
			p, err := New(o)
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			go p.Serve(ctx)
			perMB := run(b, p.Addr().String(), k.tls, k.rate)
			b.StopTimer()
			<-closed
			cancel()
			b.ReportMetric(perMB, "cpu-ms/MB")
			b.ReportMetric(float64(undecoded)/float64(2*peer.frameLen*int64(b.N)), "undecoded/byte")
			if k.rate > 0 {
				b.ReportMetric(float64(undecoded), "undecoded-bytes")
			}
		})
	}
}

// smallProduceFrames is about 1 MiB of Produce v9 requests of one record
// of 1 KiB each (1,024 frames, correlation ids 1 to 1,024).
func smallProduceFrames(b testing.TB, c *codec.Codec) []byte {
	v := make([]byte, 1<<10)
	for j := range v {
		v[j] = byte(j)
	}
	batch := records.Batch{Records: []records.KeyValue{{Key: []byte("k"), Value: v}}}.Bytes()
	body := `{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[{"name":"bench","partitionData":[{"index":0,"records":"` + base64.StdEncoding.EncodeToString(batch) + `"}]}]}`
	var out []byte
	for corr := int32(1); corr <= 1024; corr++ {
		out = append(out, encodeFrame(b, c, "Produce", true, 9, corr, "bench", body)...)
	}
	return out
}

// BenchmarkProxySmallFrames is BenchmarkProxy's proxy and proxy-service
// with 1 KiB Produce frames (smallProduceFrames: about a thousand
// exchanges a MB, where the per-exchange work of decoding, metrics and the
// audit log weighs most); cpu-ms/MB as there.
func BenchmarkProxySmallFrames(b *testing.B) {
	c := codec.New(testSet)
	peer := startBenchPeer(b, true)
	for _, name := range []string{"proxy", "proxy-service"} {
		b.Run(name, func(b *testing.B) {
			o := Options{Listen: "127.0.0.1:0", Upstream: peer.echo, Codec: c, Touched: name == "proxy-service"}
			var service func(Event)
			if name == "proxy-service" {
				if serviceBench == nil {
					b.Skip("no service outputs")
				}
				service = serviceBench(b)
			}
			closed := make(chan struct{})
			o.OnEvent = func(e Event) {
				if service != nil {
					service(e)
				}
				if e.Kind == Closed {
					close(closed)
				}
			}
			p, err := New(o)
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			go p.Serve(ctx)
			b.SetBytes(peer.frameLen)
			b.ResetTimer()
			cpu0 := cpuTime(b)
			peer.run(b, p.Addr().String(), false, b.N, 0)
			<-closed
			cpu := cpuTime(b) - cpu0
			b.StopTimer()
			cancel()
			b.ReportMetric(float64(cpu.Microseconds())/1e3/(float64(2*peer.frameLen*int64(b.N))/1e6), "cpu-ms/MB")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchPeer is the process running BenchmarkProxy's client and echo
// servers.
type benchPeer struct {
	cmd           *exec.Cmd
	in            io.WriteCloser
	out           *bufio.Scanner
	echo, echoTLS string
	cert, key, ca string
	frameLen      int64
}

// startBenchPeer starts TestBenchPeer in a process of its own, with a CA
// and a certificate for 127.0.0.1 made here; with small, its frame is
// smallProduceFrames' run of small frames.
func startBenchPeer(b *testing.B, small bool) *benchPeer {
	ca := testcert.New(b, "127.0.0.1")
	cert, key := ca.Leaf("echo")
	p := &benchPeer{cert: cert, key: key, ca: ca.CertFile}
	p.cmd = exec.Command(os.Args[0], "-test.run=^TestBenchPeer$", "-test.count=1")
	p.cmd.Env = append(os.Environ(), "KWIRE_BENCH_PEER="+strings.Join([]string{cert, key, ca.CertFile}, string(filepath.ListSeparator)))
	if small {
		p.cmd.Env = append(p.cmd.Env, "KWIRE_BENCH_PEER_SMALL=1")
	}
	p.cmd.Stderr = os.Stderr
	var err error
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		b.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.in.Close(); p.cmd.Wait() })
	p.out = bufio.NewScanner(out)
	if !p.out.Scan() {
		b.Fatalf("bench peer: %v", p.out.Err())
	}
	if _, err := fmt.Sscanf(p.out.Text(), "echo %s %s %d", &p.echo, &p.echoTLS, &p.frameLen); err != nil {
		b.Fatalf("bench peer said %q: %v", p.out.Text(), err)
	}
	return p
}

// run has the peer send n frames to addr (with TLS) and read them back,
// at most rate bytes a second (no limit when 0).
func (p *benchPeer) run(b *testing.B, addr string, tls bool, n int, rate int64) {
	fmt.Fprintf(p.in, "run %s %t %d %d\n", addr, tls, n, rate)
	if !p.out.Scan() {
		b.Fatalf("bench peer: %v", p.out.Err())
	}
	if p.out.Text() != "done" {
		b.Fatalf("bench peer: %s", p.out.Text())
	}
}

// TestBenchPeer is BenchmarkProxy's client and echo servers, run in a
// process of their own; it does nothing unless KWIRE_BENCH_PEER names its
// certificate, key and CA files. It prints "echo ADDR TLSADDR FRAMELEN",
// then answers each line "run ADDR TLS N RATE" from standard input,
// sending N frames to ADDR (at most RATE bytes a second, no limit when 0)
// and reading them back, with "done" or an error.
func TestBenchPeer(t *testing.T) {
	files := filepath.SplitList(os.Getenv("KWIRE_BENCH_PEER"))
	if len(files) != 3 {
		t.Skip("run by BenchmarkProxy")
	}
	sc, err := tlsconf.Server(files[0], files[1], "")
	if err != nil {
		t.Fatal(err)
	}
	cc, err := tlsconf.Client(files[2], "", "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	frame := produceFrame(t, codec.New(testSet))
	if os.Getenv("KWIRE_BENCH_PEER_SMALL") == "1" {
		frame = smallProduceFrames(t, codec.New(testSet))
	}
	fmt.Printf("echo %s %s %d\n", testnet.Echo(t, nil), testnet.Echo(t, sc), len(frame))
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var addr string
		var useTLS bool
		var n int
		var rate int64
		if _, err := fmt.Sscanf(in.Text(), "run %s %t %d %d", &addr, &useTLS, &n, &rate); err != nil {
			t.Fatal(err)
		}
		if err := benchClient(addr, useTLS, cc, frame, n, rate); err != nil {
			fmt.Printf("error: %v\n", err)
			continue
		}
		fmt.Println("done")
	}
}

// benchClient sends n frames to addr and reads as many bytes back. With
// rate > 0 it paces its writes: frame i is written no earlier than
// i*len(frame)/rate seconds after the first.
func benchClient(addr string, useTLS bool, cc *tls.Config, frame []byte, n int, rate int64) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	if useTLS {
		tc := tls.Client(conn, tlsconf.ForAddr(cc, addr))
		if err := tc.Handshake(); err != nil {
			conn.Close()
			return err
		}
		// What aes-gcm measures: TLS 1.3 with AES-128-GCM.
		if cs := tc.ConnectionState(); cs.Version != tls.VersionTLS13 || cs.CipherSuite != tls.TLS_AES_128_GCM_SHA256 {
			conn.Close()
			return fmt.Errorf("negotiated %s with %s", tls.VersionName(cs.Version), tls.CipherSuiteName(cs.CipherSuite))
		}
		conn = tc
	}
	defer conn.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.CopyN(io.Discard, conn, int64(len(frame))*int64(n))
		done <- err
	}()
	start := time.Now()
	for i := range n {
		if rate > 0 {
			time.Sleep(time.Until(start.Add(time.Duration(float64(i) * float64(len(frame)) / float64(rate) * 1e9))))
		}
		if _, err := conn.Write(frame); err != nil {
			return err
		}
	}
	return <-done
}
