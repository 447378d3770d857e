package proxy

import "testing"

// serviceBench, when set (service_bench_test.go), makes the event handler
// of BenchmarkProxy's proxy-service case: kwire proxy's metrics and audit
// log, which this package cannot import (they import it).
var serviceBench func(tb testing.TB) func(Event)

// SetServiceBench sets serviceBench.
func SetServiceBench(f func(tb testing.TB) func(Event)) { serviceBench = f }
