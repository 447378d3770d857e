package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"github.com/kwire/kwire/exchange"
	"github.com/kwire/kwire/internal/tlsconf"
	"github.com/kwire/kwire/metrics"
	"github.com/kwire/kwire/proxy"
)

// serviceFlags are kwire proxy's service outputs: metrics, audit log,
// Parquet files (packages metrics and exchange).
type serviceFlags struct {
	Config          kong.ConfigFlag `help:"Read flags from this YAML file: a mapping of flag names (upstream, tls-cert, metrics, audit…) to values, lists for flags that repeat; flags on the command line override it. See docs/proxy.md." placeholder:"FILE"`
	Metrics         string          `help:"Serve Prometheus metrics on http://HOST:PORT/metrics, with /healthz (listening and the upstream reachable) and /readyz." placeholder:"HOST:PORT"`
	MetricsTopics   bool            `name:"metrics-topics" help:"Add kwire_topic_requests_total{topic} to the metrics (the first --metrics-max-topics topics, the rest as \"other\")."`
	MetricsMaxTopic int             `name:"metrics-max-topics" help:"How many topics get a label of their own with --metrics-topics." default:"100" placeholder:"N"`
	Audit           string          `help:"Write one JSON line per exchange (who, what, topics, errors, latency, bytes; never a secret) to FILE, rotated by size; - writes to standard output." placeholder:"FILE"`
	AuditMaxSize    int             `name:"audit-max-size" help:"Rotate the --audit file at this size (MiB)." default:"100" placeholder:"MIB"`
	AuditBackups    int             `name:"audit-backups" help:"How many rotated --audit files are kept (all when not given)." placeholder:"N"`
	Parquet         string          `help:"Write every exchange to Parquet files in DIR (the schema of docs/exchanges.md), a new file every --parquet-roll." placeholder:"DIR"`
	ParquetRoll     time.Duration   `name:"parquet-roll" help:"How long a --parquet file stays open before the next one starts." default:"1h" placeholder:"DURATION"`
	ParquetMaxRows  int64           `name:"parquet-max-rows" help:"The most exchanges in one --parquet file." default:"1000000" placeholder:"N"`
}

// on reports whether any service output is asked for.
func (f *serviceFlags) on() bool { return f.Metrics != "" || f.Audit != "" || f.Parquet != "" }

// service is the running outputs of serviceFlags.
type service struct {
	tr      exchange.Tracker
	metrics *metrics.Metrics
	audit   *exchange.Audit
	parquet *exchange.ParquetDir
	ln      net.Listener
	serving atomic.Bool
	stopped atomic.Bool
	done    chan error
	// stopMetrics ends the metrics server (at close: it still answers
	// during the grace period, /readyz with 503).
	stopMetrics context.CancelFunc
	// stderr hears of the first error of the audit log and of the
	// Parquet files, once each, when it happens (the run goes on).
	stderr                io.Writer
	auditFailed, pqFailed atomic.Bool
}

// startService opens the outputs of f (nil when none is asked for):
// the metrics listener, the audit log, the Parquet directory. stdout is
// where --audit - writes, stderr where their failures are told; p is the proxy (for its decode memory);
// upgrades the upgrade check's counts (nil without --upgrade-check).
func startService(ctx context.Context, f *serviceFlags, stdout, stderr io.Writer, p *proxy.Proxy, upstream string, upgrades func() []metrics.UpgradeCount) (*service, error) {
	if !f.on() {
		return nil, nil
	}
	s := &service{stderr: stderr}
	var err error
	if f.Audit != "" {
		if s.audit, err = exchange.OpenAudit(f.Audit, stdout, exchange.AuditOptions{MaxSizeMB: f.AuditMaxSize, MaxBackups: f.AuditBackups}); err != nil {
			return nil, fmt.Errorf("--audit: %w", err)
		}
	}
	if f.Parquet != "" {
		if s.parquet, err = exchange.OpenParquetDir(f.Parquet, exchange.ParquetOptions{MaxAge: f.ParquetRoll, MaxRows: f.ParquetMaxRows}); err != nil {
			s.close()
			return nil, fmt.Errorf("--parquet: %w", err)
		}
	}
	if f.Metrics != "" {
		if _, _, err := net.SplitHostPort(f.Metrics); err != nil {
			s.close()
			return nil, usagef("--metrics %q: %v", f.Metrics, err)
		}
		s.metrics = metrics.New(metrics.Options{Topics: f.MetricsTopics, MaxTopics: f.MetricsMaxTopic, Process: true, Upgrades: upgrades,
			DecodeMemory: func() int64 { n, _ := p.DecodeMemory(); return n }})
		if s.ln, err = net.Listen("tcp", f.Metrics); err != nil {
			s.close()
			return nil, fmt.Errorf("--metrics %q: %w", f.Metrics, err)
		}
		h := s.metrics.Handler(metrics.Health{Listening: s.serving.Load, Upstream: metrics.DialCheck(upstream),
			Ready: func() bool { return s.serving.Load() && !s.stopped.Load() }})
		s.done = make(chan error, 1)
		mctx, cancel := context.WithCancel(context.Background())
		s.stopMetrics = cancel
		go func() { s.done <- metrics.Serve(mctx, s.ln, h) }()
	}
	go func() { <-ctx.Done(); s.stopped.Store(true) }()
	return s, nil
}

// event hands proxy event e to the outputs; safe for concurrent use.
func (s *service) event(e proxy.Event) {
	if s == nil {
		return
	}
	r := s.tr.Proxy(e)
	if s.metrics != nil {
		s.metrics.Proxy(e, r)
	}
	if r == nil {
		return
	}
	if s.audit != nil {
		if err := s.audit.Write(r); err != nil && !s.auditFailed.Swap(true) {
			fmt.Fprintf(s.stderr, "kwire: --audit: %v (no more lines are written)\n", err)
		}
	}
	if s.parquet != nil {
		if err := s.parquet.Write(r); err != nil && !s.pqFailed.Swap(true) {
			fmt.Fprintf(s.stderr, "kwire: --parquet: %v (no more records are written)\n", err)
		}
	}
}

// close writes out and closes the audit log and the Parquet file, and
// stops the metrics server; the first error.
func (s *service) close() error {
	if s == nil {
		return nil
	}
	s.stopped.Store(true)
	var errs []error
	if s.audit != nil {
		if err := s.audit.Close(); err != nil {
			errs = append(errs, fmt.Errorf("--audit: %w", err))
		}
	}
	if s.parquet != nil {
		if err := s.parquet.Close(); err != nil {
			errs = append(errs, fmt.Errorf("--parquet: %w", err))
		}
	}
	if s.done != nil {
		s.stopMetrics()
		if err := <-s.done; err != nil {
			errs = append(errs, fmt.Errorf("--metrics: %w", err))
		}
	} else if s.ln != nil {
		s.ln.Close()
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// reloadOnHangup makes the listener's TLS certificate (--tls-cert,
// --tls-key) and the client certificate presented upstream
// (--upstream-cert, --upstream-key) be read again on SIGHUP, for the
// handshakes after it; connections made keep theirs. It says on stderr
// what it did, or why the files were not taken (the old pair stays). It
// stops when ctx ends.
func reloadOnHangup(ctx context.Context, c *proxyCmd, listen, upstream *tls.Config, stderr io.Writer) error {
	var rs []*tlsconf.Reloader
	if listen != nil {
		r, err := tlsconf.NewReloader(c.TLSCert, c.TLSKey)
		if err != nil {
			return fmt.Errorf("listener TLS: %w", err)
		}
		tlsconf.Reloading(listen, r, false)
		rs = append(rs, r)
	}
	if upstream != nil && c.UpstreamCert != "" {
		r, err := tlsconf.NewReloader(c.UpstreamCert, c.UpstreamKey)
		if err != nil {
			return fmt.Errorf("upstream TLS: %w", err)
		}
		tlsconf.Reloading(upstream, r, true)
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		return nil
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				for _, r := range rs {
					if err := r.Reload(); err != nil {
						fmt.Fprintf(stderr, "kwire: SIGHUP: %v (the certificate loaded before stays in use)\n", err)
					} else {
						fmt.Fprintf(stderr, "kwire: SIGHUP: reloaded %s\n", r)
					}
				}
			}
		}
	}()
	return nil
}

// upgradeCounts is the upgrade check so far, for the metrics (nil
// without --upgrade-check).
func (r *proxyRun) upgradeCounts(c *proxyCmd) func() []metrics.UpgradeCount {
	if c.Upgrade == "" {
		return nil
	}
	return func() []metrics.UpgradeCount {
		r.mu.Lock()
		defer r.mu.Unlock()
		var out []metrics.UpgradeCount
		for _, u := range r.wt.Upgrades() {
			uc := metrics.UpgradeCount{Version: u.Version, SoftwareName: u.SoftwareName, SoftwareVersion: u.SoftwareVersion, Count: u.Count}
			if u.API != nil {
				uc.API = *u.API
			}
			out = append(out, uc)
		}
		return out
	}
}
