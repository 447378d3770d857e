package proxy

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/kwire/kwire/codec"
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
// echo server, directly and through the proxy (decoding on and off); the
// MB/s are one way (each byte also comes back).
func BenchmarkProxy(b *testing.B) {
	c := codec.New(testSet)
	frame := produceFrame(b, c)
	echo := echoServer(b)
	run := func(b *testing.B, addr string) {
		conn, err := net.Dial("tcp", addr)
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
		for range b.N {
			if _, err := conn.Write(frame); err != nil {
				b.Fatal(err)
			}
		}
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	b.Run("direct", func(b *testing.B) { run(b, echo) })
	for _, k := range []struct {
		name string
		o    Options
	}{
		{"proxy", Options{Codec: c}},
		{"proxy-nodecode", Options{}},
	} {
		b.Run(k.name, func(b *testing.B) {
			o := k.o
			o.Listen, o.Upstream = "127.0.0.1:0", echo
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
			run(b, p.Addr().String())
			b.StopTimer()
			<-closed
			cancel()
			b.ReportMetric(float64(undecoded)/float64(2*int64(len(frame))*int64(b.N)), "undecoded/byte")
		})
	}
}
