package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/internal/tlsconf"
	"github.com/kwire/kwire/internal/watchflags"
	"github.com/kwire/kwire/proxy"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/report"
	"github.com/kwire/kwire/traffic"
)

type proxyCmd struct {
	Listen            string          `help:"Address to listen on for Kafka clients." default:"127.0.0.1:19092" placeholder:"HOST:PORT"`
	Upstream          string          `help:"The broker to forward connections to." required:"" placeholder:"HOST:PORT"`
	Tree              bool            `help:"Print the object tree of each request and response under its line (text), or their page JSON, body and header (json)."`
	Format            string          `help:"Output format: text (one line per exchange, problem and connection) or json (one object per line)." enum:"text,json" default:"text"`
	MaxFrame          int             `name:"max-frame" help:"Largest frame size prefix decoded (bytes); larger frames are forwarded and reported, not decoded." default:"104857600" placeholder:"BYTES"`
	RewriteAdvertised bool            `name:"rewrite-advertised" help:"Give every broker its own listening port and rewrite every broker address in responses (Metadata, FindCoordinator, DescribeCluster, NodeEndpoints…) to the proxy's, so that clients stay on the proxy."`
	BrokerPorts       proxy.PortRange `name:"broker-ports" help:"Ports of the per-broker listeners of --rewrite-advertised (default: free ports)." placeholder:"FIRST-LAST"`
	Advertise         string          `help:"The address --rewrite-advertised writes (default: the listen address)." placeholder:"HOST:PORT"`
	MaxDecodeMemory   int64           `name:"max-decode-memory" help:"Memory for decoding over all connections (bytes, 4 GiB); each decoded connection reserves --max-decode-memory-conn of it, and connections past it are forwarded but not decoded." default:"4294967296" placeholder:"BYTES"`
	MaxDecodeMemConn  int64           `name:"max-decode-memory-conn" help:"Memory for decoding one connection (bytes, 64 MiB); a quarter of it bounds the decompressed records of a frame, a quarter their nodes: raise it for Fetch responses past 16 MiB." default:"67108864" placeholder:"BYTES"`
	Grace             time.Duration   `help:"On SIGINT or SIGTERM, how long open connections may go on before they are closed." default:"5s" placeholder:"DURATION"`

	TLSCert            string `name:"tls-cert" help:"Terminate TLS on the listener with this certificate chain (PEM; with --tls-key)." placeholder:"FILE"`
	TLSKey             string `name:"tls-key" help:"The private key of --tls-cert (PEM)." placeholder:"FILE"`
	TLSClientCA        string `name:"tls-client-ca" help:"Require client certificates signed by a CA in this file (PEM)." placeholder:"FILE"`
	UpstreamTLS        bool   `name:"upstream-tls" help:"Speak TLS to the broker."`
	UpstreamCA         string `name:"upstream-ca" help:"Verify the broker's certificate with the CAs in this file (PEM; default: the system's)." placeholder:"FILE"`
	UpstreamServerName string `name:"upstream-server-name" help:"The name the broker's certificate must carry (default: the host of --upstream)." placeholder:"NAME"`
	UpstreamCert       string `name:"upstream-cert" help:"Client certificate presented to the broker (PEM; with --upstream-key)." placeholder:"FILE"`
	UpstreamKey        string `name:"upstream-key" help:"The private key of --upstream-cert (PEM)." placeholder:"FILE"`
	UpstreamInsecure   bool   `name:"upstream-insecure" help:"Do not verify the broker's certificate (anyone in between can read the traffic)."`
	watchflags.Flags
	StatsInterval time.Duration `name:"stats-interval" help:"With --stats, print the statistics this often too, not only when the proxy stops." placeholder:"DURATION"`
	serviceFlags
}

// tlsConfigs turns the TLS flags into the proxy's listener and upstream
// configurations (nil: plaintext). Flags that go together but are given
// alone, or contradict each other, are usage errors (--broker-ports
// without --rewrite-advertised too); unreadable or wrong files are errors naming
// the file.
func (c *proxyCmd) tlsConfigs() (listen, upstream *tls.Config, err error) {
	switch {
	case c.TLSCert != "" && c.TLSKey == "":
		return nil, nil, usagef("--tls-cert needs --tls-key")
	case c.TLSKey != "" && c.TLSCert == "":
		return nil, nil, usagef("--tls-key needs --tls-cert")
	case c.TLSClientCA != "" && c.TLSCert == "":
		return nil, nil, usagef("--tls-client-ca needs --tls-cert and --tls-key")
	case c.UpstreamCert != "" && c.UpstreamKey == "":
		return nil, nil, usagef("--upstream-cert needs --upstream-key")
	case c.UpstreamKey != "" && c.UpstreamCert == "":
		return nil, nil, usagef("--upstream-key needs --upstream-cert")
	case c.UpstreamInsecure && c.UpstreamCA != "":
		return nil, nil, usagef("--upstream-insecure and --upstream-ca contradict each other: --upstream-insecure verifies no certificate")
	case c.BrokerPorts != (proxy.PortRange{}) && !c.RewriteAdvertised:
		return nil, nil, usagef("--broker-ports needs --rewrite-advertised")
	}
	if !c.UpstreamTLS {
		for _, f := range []struct {
			name string
			set  bool
		}{{"upstream-ca", c.UpstreamCA != ""}, {"upstream-server-name", c.UpstreamServerName != ""}, {"upstream-cert", c.UpstreamCert != ""}, {"upstream-insecure", c.UpstreamInsecure}} {
			if f.set {
				return nil, nil, usagef("--%s needs --upstream-tls", f.name)
			}
		}
	}
	if c.TLSCert != "" {
		if listen, err = tlsconf.Server(c.TLSCert, c.TLSKey, c.TLSClientCA); err != nil {
			return nil, nil, fmt.Errorf("listener TLS: %w", err)
		}
	}
	if c.UpstreamTLS {
		if upstream, err = tlsconf.Client(c.UpstreamCA, c.UpstreamServerName, c.UpstreamCert, c.UpstreamKey, c.UpstreamInsecure); err != nil {
			return nil, nil, fmt.Errorf("upstream TLS: %w", err)
		}
	}
	return listen, upstream, nil
}

// proxyContext is the context kwire proxy runs under: cancelled by SIGINT
// or SIGTERM. Tests replace it.
var proxyContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// proxyLookup resolves the hosts of --listen and --upstream at start
// (nil: the system's resolver). Tests replace it.
var proxyLookup func(ctx context.Context, host string) ([]string, error)

// checkProxyAddrs refuses an address that is not host:port or has a port
// out of range (a usage error naming the flag) or whose host does not
// resolve (--listen, --upstream: a finding, as a peer call cannot reach),
// or a --listen address this machine cannot listen on (in use, not its
// own: a finding too).
func checkProxyAddrs(o proxy.Options) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := proxy.CheckAddrs(ctx, o, proxyLookup)
	var (
		ae *proxy.AddrError
		re *proxy.ResolveError
		le *proxy.ListenError
	)
	if !errors.As(err, &ae) {
		return err
	}
	err = fmt.Errorf("--%s %q: %v", strings.ToLower(ae.Option), ae.Addr, ae.Err)
	if errors.As(ae.Err, &re) || errors.As(ae.Err, &le) {
		return err
	}
	return usageError{Err: err}
}

// proxyRun prints the events of one kwire proxy run; events come from
// every connection's goroutines at once.
type proxyRun struct {
	a  *app
	o  report.EventOptions
	mu sync.Mutex
	// out writes to standard output under mu, flushed after each event:
	// a line is streamed, not held (a 5 MB Produce's line with its tree
	// took 600 MiB, kept after).
	out *bufio.Writer
	err error
	wt  *traffic.Watcher
	// findings counts the findings of the clients' requests (--check),
	// printed or not.
	findings int
	// exchanges counts the exchanges, matched those the filters kept.
	exchanges, matched int
	svc                *service
}

// proxy forwards connections to the upstream broker and prints what goes
// through them until SIGINT or SIGTERM; exit 0 then. The listen address is
// printed on standard error first.
func (a *app) proxy(c *proxyCmd) error {
	if c.MaxFrame <= 0 {
		return usagef("--max-frame must be positive")
	}
	if c.MaxDecodeMemConn <= 0 || c.MaxDecodeMemory < c.MaxDecodeMemConn {
		return usagef("--max-decode-memory-conn must be positive and at most --max-decode-memory")
	}
	o := proxy.Options{Listen: c.Listen, Upstream: c.Upstream, Advertise: c.Advertise, RewriteAdvertised: c.RewriteAdvertised, BrokerPorts: c.BrokerPorts}
	if err := checkProxyAddrs(o); err != nil {
		return err
	}
	listenTLS, upstreamTLS, err := c.tlsConfigs()
	if err != nil {
		return err
	}
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	wt, err := c.Watcher(set)
	if err != nil {
		return err
	}
	r := &proxyRun{a: a, o: report.EventOptions{JSON: c.Format == "json", Trees: c.Tree, Set: set, Render: a.renderOptions()}, wt: wt}
	o.Codec, o.MaxFrame, o.KeepTrees, o.Grace, o.OnEvent = codec.New(set), c.MaxFrame, c.Tree || wt.NeedsTrees(), c.Grace, r.event
	o.Codec.MaxFrame, o.MaxDecodeMemory, o.MaxDecodeMemoryConn = c.MaxFrame, c.MaxDecodeMemory, c.MaxDecodeMemConn
	if o.Grace <= 0 {
		o.Grace = -1 // close at once
	}
	o.TLS, o.UpstreamTLS, o.ShowSecrets, o.Fallback, o.Check = listenTLS, upstreamTLS, a.cli.ShowSecrets, flow.EmbeddedFallbacks(set), c.Check
	o.Touched = c.MetricsTopics || c.Audit != "" || c.Parquet != ""
	// Catch SIGINT (and SIGHUP) before saying where the proxy listens.
	ctx, stop := proxyContext()
	defer stop()
	if err := reloadOnHangup(ctx, c, listenTLS, upstreamTLS, a.stderr); err != nil {
		return err
	}
	p, err := proxy.New(o)
	if err != nil {
		return err
	}
	if r.svc, err = startService(ctx, &c.serviceFlags, writerFunc(r.writeOut), a.stderr, p, c.Upstream, r.upgradeCounts(c)); err != nil {
		p.Close()
		return err
	}
	start := fmt.Sprintf("kwire: proxying %s to %s (%s)", p.Addr(), c.Upstream, render.SetName(set))
	if adv, anyIf := p.Advertised(); adv != "" {
		start += ", advertising " + adv
		if anyIf {
			start += " (it listens on every interface: for clients on other machines, give --advertise HOST:PORT)"
		}
	}
	fmt.Fprintln(a.stderr, start)
	if r.svc != nil && r.svc.ln != nil {
		fmt.Fprintf(a.stderr, "kwire: metrics on http://%s/metrics\n", r.svc.ln.Addr())
	}
	traffic.Every(ctx, c.StatsInterval, func() { r.write(func() error { return r.wt.WriteStats(r.out, r.o.JSON) }) })
	if r.svc != nil {
		r.svc.serving.Store(true)
	}
	err = p.Serve(ctx)
	if serr := r.svc.close(); err == nil {
		err = serr
	}
	r.write(func() error {
		if err := r.wt.WriteReport(r.out, r.o.JSON); err != nil || r.o.JSON || !r.wt.Filtering() {
			return err
		}
		// The filters' verdict, also when nothing matched.
		_, err := fmt.Fprintf(r.out, "filters: %s matched, of %d\n", plural(r.matched, "1 exchange", fmt.Sprintf("%d exchanges", r.matched)), r.exchanges)
		return err
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		err = r.err
	}
	if err == nil && r.findings > 0 {
		err = fmt.Errorf("the clients' requests have %d %s %s", r.findings, plural(r.findings, "finding", "findings"), findingsWhere(c.Format))
	}
	if err == nil {
		err = upgradeFound(r.wt, c.Format)
	}
	return err
}

// event prints one event that the filters keep.
func (r *proxyRun) event(e proxy.Event) {
	var bc *proxy.BrokerClosedError
	if errors.As(e.Err, &bc) {
		bc.Hint = " try --upstream-tls"
	}
	r.svc.event(e)
	r.write(func() error {
		x, isExchange := e.Flow.(*flow.Exchange)
		if isExchange {
			r.findings += len(x.Findings)
			r.exchanges++
		}
		if !r.wt.KeepProxy(e) {
			return nil
		}
		if isExchange {
			r.matched++
		}
		return report.WriteProxyEvent(r.out, e, r.o)
	})
}

// writeOut prints p (whole lines of --audit -) under the lock.
func (r *proxyRun) writeOut(p []byte) (int, error) {
	r.write(func() error { _, err := r.out.Write(p); return err })
	return len(p), nil
}

// writerFunc is an io.Writer of a function.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// write prints what fill writes to r.out under the lock, flushed.
func (r *proxyRun) write(fill func() error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.out == nil {
		r.out = bufio.NewWriterSize(r.a.stdout, 64<<10)
	}
	if r.err != nil {
		return
	}
	if err := fill(); r.err == nil {
		r.err = err
	}
	if err := r.out.Flush(); r.err == nil {
		r.err = err
	}
}
