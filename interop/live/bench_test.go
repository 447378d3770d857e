package live

import (
	"context"
	"fmt"
	"net"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/internal/kafkatest"
)

// BenchmarkProxyProduce measures what kwire's proxy (decoding on, trees
// dropped: the default of `kwire proxy`) costs a real producer: franz-go
// produces 1 KiB records to the real broker directly and through the proxy,
// every connection redirected to it.
//
//	throughput: b.N records per sub-benchmark, MB/s of record values
//	latency:    p50-µs, the median time of a ProduceSync of one record
//
// Compare direct and proxy of the same run (go test -bench ProxyProduce
// -count 5, medians); see README for the figures.
func BenchmarkProxyProduce(b *testing.B) {
	c := kafkatest.Shared(b)
	proxyAddr := benchProxy(b, c.Bootstrap)
	redirect := func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, proxyAddr)
	}
	value := make([]byte, 1024)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	ctx := context.Background()
	clients := map[string]*kgo.Client{}
	for _, mode := range []string{"direct", "proxy"} {
		topic := "bench-" + mode
		createTopicB(b, c.Bootstrap, topic)
		opts := []kgo.Opt{kgo.SeedBrokers(c.Bootstrap), kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(time.Millisecond)}
		if mode == "proxy" {
			opts = append(opts, kgo.Dialer(redirect))
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			b.Fatal(err)
		}
		defer cl.Close()
		clients[mode] = cl
	}
	// Warm both paths up (the broker's JIT, both topics' first segments)
	// before anything is measured, so that the first measured mode is not
	// the slower one for that alone.
	for round := 0; round < 2; round++ {
		for _, cl := range clients {
			rs := make([]*kgo.Record, 20000)
			for i := range rs {
				rs[i] = &kgo.Record{Value: value}
			}
			if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, mode := range []string{"direct", "proxy"} {
		cl := clients[mode]
		b.Run("throughput/"+mode, func(b *testing.B) {
			b.SetBytes(int64(len(value)))
			var wg sync.WaitGroup
			var mu sync.Mutex
			var perr error
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				wg.Add(1)
				cl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
					if err != nil {
						mu.Lock()
						perr = err
						mu.Unlock()
					}
					wg.Done()
				})
			}
			wg.Wait()
			if perr != nil {
				b.Fatal(perr)
			}
		})
		b.Run("latency/"+mode, func(b *testing.B) {
			ds := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if err := cl.ProduceSync(ctx, &kgo.Record{Value: value}).FirstErr(); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(t0))
			}
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs")
		})
	}
}

// benchProxy starts a proxy that decodes (as `kwire proxy` does by
// default, trees dropped) and counts the events.
func benchProxy(b *testing.B, upstream string) string {
	var mu sync.Mutex
	n := 0
	return startProxyTB(b, upstream, func(flow.Event) { mu.Lock(); n++; mu.Unlock() }, false)
}

func createTopicB(b *testing.B, bootstrap, name string) {
	b.Helper()
	var resp struct {
		Topics []struct {
			ErrorCode int16 `json:"errorCode"`
		} `json:"topics"`
	}
	body := fmt.Sprintf(`{"topics":[{"name":%q,"numPartitions":1,"replicationFactor":1,"assignments":[],"configs":[]}],"timeoutMs":30000,"validateOnly":false}`, name)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := callJSON(ctx, bootstrap, "CreateTopics", body, &resp); err != nil {
		b.Fatal(err)
	}
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 && resp.Topics[0].ErrorCode != 36 { // 36: TOPIC_ALREADY_EXISTS (-count > 1)
		b.Fatalf("CreateTopics %s: %+v", name, resp)
	}
}
