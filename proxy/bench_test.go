package proxy

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testcert"
	"github.com/kwire/kwire/internal/tlsconf"
	"github.com/kwire/kwire/records"
)

// produceFrame is a Produce v9 request of about 1 MiB: one RecordBatch of
// 100 records of 10 KiB.
func produceFrame(b *testing.B, c *codec.Codec) []byte {
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
// comes back).
//
// cpu-ms/MB is the process's CPU time (user and system, getrusage) per
// 10^6 bytes forwarded, both directions counted; the process also runs
// the client and the echo server, so the "direct" cases are what the
// proxy cases cost without the proxy.
func BenchmarkProxy(b *testing.B) {
	c := codec.New(testSet)
	frame := produceFrame(b, c)
	certs := benchCerts(b)
	echo := echoServer(b)
	echoTLS := echoServerTLS(b, certs.server)
	run := func(b *testing.B, addr string, cc *tls.Config) {
		var conn net.Conn
		var err error
		if cc != nil {
			conn, err = tls.Dial("tcp", addr, cc)
		} else {
			conn, err = net.Dial("tcp", addr)
		}
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		b.SetBytes(int64(len(frame)))
		done := make(chan error, 1)
		go func() {
			_, err := io.CopyN(io.Discard, conn, int64(len(frame))*int64(b.N))
			done <- err
		}()
		b.ResetTimer()
		cpu0 := cpuTime(b)
		for range b.N {
			if _, err := conn.Write(frame); err != nil {
				b.Fatal(err)
			}
		}
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		cpu := cpuTime(b) - cpu0
		b.ReportMetric(float64(cpu.Milliseconds())/(float64(2*int64(len(frame))*int64(b.N))/1e6), "cpu-ms/MB")
	}
	b.Run("direct", func(b *testing.B) { run(b, echo, nil) })
	b.Run("direct-tls", func(b *testing.B) { run(b, echoTLS, certs.client) })
	for _, k := range []struct {
		name string
		o    Options
		tls  bool
	}{
		{"proxy", Options{Codec: c}, false},
		{"proxy-nodecode", Options{}, false},
		{"proxy-tls", Options{Codec: c, TLS: certs.server, UpstreamTLS: certs.client}, true},
		{"proxy-tls-nodecode", Options{TLS: certs.server, UpstreamTLS: certs.client}, true},
	} {
		b.Run(k.name, func(b *testing.B) {
			o := k.o
			o.Listen, o.Upstream = "127.0.0.1:0", echo
			var cc *tls.Config
			if k.tls {
				o.Upstream, cc = echoTLS, certs.client
			}
			var undecoded int64
			closed := make(chan struct{})
			o.OnEvent = func(e Event) {
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
			run(b, p.Addr().String(), cc)
			b.StopTimer()
			<-closed
			cancel()
			b.ReportMetric(float64(undecoded)/float64(2*int64(len(frame))*int64(b.N)), "undecoded/byte")
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

// benchTLS is a server and a client configuration that trust each other.
type benchTLS struct{ server, client *tls.Config }

func benchCerts(b *testing.B) benchTLS {
	ca := testcert.New(b, "127.0.0.1")
	cert, key := ca.Leaf("server")
	s, err := tlsconf.Server(cert, key, "")
	if err != nil {
		b.Fatal(err)
	}
	c, err := tlsconf.Client(ca.CertFile, "", "", "", false)
	if err != nil {
		b.Fatal(err)
	}
	return benchTLS{s, c}
}

// echoServerTLS is echoServer behind TLS.
func echoServerTLS(b *testing.B, sc *tls.Config) string {
	ln, err := tls.Listen("tcp", "127.0.0.1:0", sc)
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				buf := make([]byte, 256<<10)
				io.CopyBuffer(conn, struct{ io.Reader }{conn}, buf)
				conn.(*tls.Conn).CloseWrite()
			}()
		}
	}()
	b.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().String()
}
