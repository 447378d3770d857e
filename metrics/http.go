package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Health says how /healthz and /readyz answer.
type Health struct {
	// Listening reports whether the proxy accepts connections.
	Listening func() bool
	// Upstream checks that the broker can be reached (a TCP connection
	// made and closed); nil checks nothing.
	Upstream func(ctx context.Context) error
	// Ready reports whether the proxy takes new work: listening and not
	// shutting down.
	Ready func() bool
}

// DialCheck is a Health.Upstream that connects to addr over TCP and
// closes the connection at once.
func DialCheck(addr string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return c.Close()
	}
}

// Handler serves /metrics (the Prometheus text or OpenMetrics format),
// /healthz (200 "ok" when listening and the upstream is reachable within
// 2s, else 503 and why) and /readyz (200 "ready" or 503 "not ready").
func (m *Metrics) Handler(h Health) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if h.Listening != nil && !h.Listening() {
			http.Error(w, "not listening", http.StatusServiceUnavailable)
			return
		}
		if h.Upstream != nil {
			ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
			defer cancel()
			if err := h.Upstream(ctx); err != nil {
				http.Error(w, fmt.Sprintf("upstream unreachable: %v", err), http.StatusServiceUnavailable)
				return
			}
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if h.Ready != nil && !h.Ready() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	return mux
}

// Serve serves handler on ln until ctx ends, then shuts the server down
// (waiting up to 2s for scrapes under way). It returns nil after ctx
// ended, else why serving stopped.
func Serve(ctx context.Context, ln net.Listener, handler http.Handler) error {
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
