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
//	throughput: per iteration 2,000 records (ProduceSync) direct and 2,000
//	            through the proxy, alternately; MB/s of record values for
//	            each and their ratio
//	latency:    per iteration one ProduceSync of one record each way; the
//	            medians and the latency the proxy adds
//
// go test -run '^$' -bench ProxyProduce -count 5 ./interop/live/ (medians);
// see README for the figures.
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
	// Both paths are measured in the same iterations, alternately, so that
	// the broker's state (segment rolls, JIT, page cache) weighs on both
	// alike.
	modes := []string{"direct", "proxy"}
	b.Run("throughput", func(b *testing.B) {
		const batch = 2000
		var spent [2]time.Duration
		rs := make([]*kgo.Record, batch)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for k := range modes {
				m := modes[(k+i)%2] // alternate which goes first
				for j := range rs {
					rs[j] = &kgo.Record{Value: value}
				}
				t0 := time.Now()
				if err := clients[m].ProduceSync(ctx, rs...).FirstErr(); err != nil {
					b.Fatal(err)
				}
				spent[(k+i)%2] += time.Since(t0)
			}
		}
		mb := float64(b.N*batch*len(value)) / 1e6
		direct, prox := mb/spent[0].Seconds(), mb/spent[1].Seconds()
		b.ReportMetric(direct, "direct-MB/s")
		b.ReportMetric(prox, "proxy-MB/s")
		b.ReportMetric(prox/direct, "proxy/direct")
	})
	b.Run("latency", func(b *testing.B) {
		var ds [2][]time.Duration
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for k := range modes {
				t0 := time.Now()
				if err := clients[modes[k]].ProduceSync(ctx, &kgo.Record{Value: value}).FirstErr(); err != nil {
					b.Fatal(err)
				}
				ds[k] = append(ds[k], time.Since(t0))
			}
		}
		var p50 [2]float64
		for k := range ds {
			sort.Slice(ds[k], func(i, j int) bool { return ds[k][i] < ds[k][j] })
			p50[k] = float64(ds[k][len(ds[k])/2].Microseconds())
		}
		b.ReportMetric(p50[0], "direct-p50-µs")
		b.ReportMetric(p50[1], "proxy-p50-µs")
		b.ReportMetric(p50[1]-p50[0], "added-µs")
	})
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
