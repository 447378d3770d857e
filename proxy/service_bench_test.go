package proxy_test

import (
	"path/filepath"
	"testing"

	"github.com/kwire/kwire/exchange"
	"github.com/kwire/kwire/metrics"
	"github.com/kwire/kwire/proxy"
)

// BenchmarkProxy's proxy-service case hands every event to the metrics
// and the audit log (a file), as kwire proxy --metrics --audit FILE does.
func init() {
	proxy.SetServiceBench(func(tb testing.TB) func(proxy.Event) {
		var tr exchange.Tracker
		m := metrics.New(metrics.Options{Topics: true})
		a, err := exchange.OpenAudit(filepath.Join(tb.TempDir(), "audit.log"), nil, exchange.AuditOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { a.Close() })
		return func(e proxy.Event) {
			r := tr.Proxy(e)
			m.Proxy(e, r)
			if r != nil {
				a.Write(r)
			}
		}
	})
}
