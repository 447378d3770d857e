package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

func TestZZProf(t *testing.T) {
	args := strings.Fields(os.Getenv("ZZ_ARGS"))
	if len(args) == 0 {
		t.Skip()
	}
	done := make(chan bool)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(200 * time.Millisecond):
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > 600<<20 {
				f, _ := os.Create("/tmp/zz.heap")
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
				return
			}
		}
	}()
	r := kwireEnv(t, &env{stdout: nil}, args...)
	close(done)
	t.Logf("exit %d %.300s", r.code, r.stderr)
}
