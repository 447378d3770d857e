package live

import (
	"context"
	"sync"
	"testing"

	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/proxy"
)

// undecoded sums, over the connections every startProxy proxy closed, the
// bytes forwarded but not decoded because the decoder was behind.
var undecoded struct {
	sync.Mutex
	bytes int64
}

// startProxy starts a kwire proxy (package proxy, decoding with the 4.4.0
// specs and keeping trees) in front of upstream, sending what it decodes
// to emit; it stops when the test ends. It returns the listen address.
func startProxy(t *testing.T, upstream string, emit func(flow.Event)) string {
	t.Helper()
	return startProxyTB(t, upstream, emit, true)
}

// startProxyTB is startProxy for tests and benchmarks, keeping trees or not.
func startProxyTB(t testing.TB, upstream string, emit func(flow.Event), keepTrees bool) string {
	t.Helper()
	return startProxyWith(t, upstream, emit, keepTrees, false)
}

// startProxyWith is startProxyTB judging the clients' requests or not
// (proxy.Options.Check).
func startProxyWith(t testing.TB, upstream string, emit func(flow.Event), keepTrees, check bool) string {
	t.Helper()
	p, err := proxy.New(proxy.Options{
		Check:     check,
		Listen:    "127.0.0.1:0",
		Upstream:  upstream,
		Codec:     kafka44,
		KeepTrees: keepTrees,
		// The tests check that every exchange decodes: give the decoder
		// room (16 MiB per direction) to fall behind a burst of 100,000
		// records on 2 shared cores without dropping bytes from decoding.
		QueueBuffers: 64,
		OnEvent: func(e proxy.Event) {
			switch e.Kind {
			case proxy.Flow:
				emit(e.Flow)
			case proxy.Closed:
				undecoded.Lock()
				undecoded.bytes += e.Stats.Undecoded[0] + e.Stats.Undecoded[1]
				undecoded.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); p.Close(); <-done })
	return p.Addr().String()
}
