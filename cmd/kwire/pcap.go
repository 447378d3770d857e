package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kwire/kwire/capture"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/exchange"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/internal/watchflags"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/report"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tlsdecrypt"
	"github.com/kwire/kwire/traffic"
)

type pcapCmd struct {
	File      string        `arg:"" optional:"" help:"The capture: a pcap or pcapng file, gzip-compressed or not; - reads standard input (a pipe from tcpdump -U -w -, as it arrives)."`
	Interface string        `name:"interface" help:"Capture from this network interface (Ethernet or loopback, Linux, root or CAP_NET_RAW) instead of a file, until Ctrl-C." placeholder:"NAME"`
	Port      []uint16      `help:"Kafka server port; repeat or separate by commas. Connections on other ports are ignored; without a captured handshake the end on this port is the server. Without --port, connections on port 9092 are decoded, and those on any other port whose client's first bytes are a Kafka request (the summary names the ports found)." placeholder:"PORT"`
	Tree      bool          `help:"Print the object tree of each request and response under its line (text), or their page JSON, body and header (json)."`
	Format    string        `help:"Output format: text (one line per exchange, problem and notice, then a summary), json (one object per line), or parquet (the exchanges as Parquet files in --out, the schema of docs/exchanges.md; the rest as text)." enum:"text,json,parquet" default:"text"`
	Out       string        `help:"The directory --format parquet writes its files to." placeholder:"DIR"`
	MaxFrame  int           `name:"max-frame" help:"Largest frame size prefix accepted (bytes); larger frames are reported and skipped." default:"104857600" placeholder:"BYTES"`
	Idle      time.Duration `help:"Forget a connection after this long without a packet (capture time), as a broker closes idle connections; 0 keeps every connection to the end of the capture." default:"10m" placeholder:"DURATION"`
	MaxNodes  int           `name:"max-nodes" help:"Most nodes the records of one frame may make in its tree (16 bytes each); past it the rest of the records is reported, not decoded." default:"524288" placeholder:"N"`
	MaxHeld   int64         `name:"max-held" help:"Most bytes the trees of the requests awaiting their responses may take, over all the capture's connections (with --tree); past it a request comes without its tree, unless it is alone, and a notice says so." default:"33554432" placeholder:"BYTES"`
	KeyLog    string        `name:"keylog" help:"Decrypt TLS 1.2 and 1.3 connections with the secrets of this key log (NSS format, as SSLKEYLOGFILE writes it)." placeholder:"FILE"`
	watchflags.Flags
}

// pcapRun is one run of kwire pcap.
type pcapRun struct {
	a   *app
	c   *pcapCmd
	set *spec.Set
	w   *bufio.Writer
	err error // the first write error
	tot capture.FlowTotals
	wt  *traffic.Watcher
	// pq receives the exchanges with --format parquet, made by tr.
	pq *exchange.ParquetDir
	tr exchange.Tracker
	// failed: a problem other than a resynchronisation or a tree not held
	// (notices) was seen.
	failed bool
	// findings counts the findings of the clients' requests (--check).
	findings int
	// matched counts the exchanges the filters kept.
	matched int64
}

// pcap reads a capture, reassembles its TCP connections on the Kafka
// ports and prints their exchanges and problems. Exit 1 when the file is
// not a capture or is damaged (after printing what came before), or when
// there were problems other than resynchronisations (bytes that do not
// decode, as for decode).
func (a *app) pcap(c *pcapCmd) error {
	if c.MaxFrame <= 0 {
		return usagef("--max-frame must be positive")
	}
	if c.MaxNodes <= 0 {
		return usagef("--max-nodes %d: must be positive", c.MaxNodes)
	}
	if c.MaxHeld <= 0 {
		return usagef("--max-held %d: must be positive", c.MaxHeld)
	}
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	switch {
	case c.File == "" && c.Interface == "":
		return usagef("give a capture FILE (- for standard input) or --interface NAME")
	case c.File != "" && c.Interface != "":
		return usagef("give a capture FILE or --interface NAME, not both")
	}
	var in io.Reader
	name := c.File
	if c.File == "-" {
		in, name = a.stdin, "standard input"
	} else if c.File != "" {
		f, err := os.Open(c.File)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	wt, err := c.Watcher(set)
	if err != nil {
		return err
	}
	var kl *tlsdecrypt.KeyLog
	if c.KeyLog != "" {
		if kl, err = readKeyLog(a.stderr, c.KeyLog); err != nil {
			return err
		}
	}
	if c.Idle < 0 {
		return usagef("--idle must not be negative")
	}
	// Read as the capture arrives (a pipe from tcpdump -U -w -): what was
	// decoded is printed before waiting for more; SIGINT ends the input.
	r := &pcapRun{a: a, c: c, set: set, w: bufio.NewWriterSize(a.stdout, 64<<10), wt: wt}
	if (c.Format == "parquet") != (c.Out != "") {
		return usagef("--format parquet and --out DIR go together")
	}
	if c.Out != "" {
		po := exchange.ParquetOptions{}
		if c.Interface != "" || c.File == "-" {
			po.MaxAge = time.Hour // a live capture: a whole file every hour
		}
		if r.pq, err = exchange.OpenParquetDir(c.Out, po); err != nil {
			return err
		}
	}
	ctx, stop := pcapContext()
	defer stop()
	var cr *capture.Reader
	if c.Interface != "" {
		name = "interface " + c.Interface
		if cr, err = capture.OpenInterface(c.Interface, capture.InterfaceOptions{Idle: r.flush, Stop: ctx.Done(), Ports: c.Port}); err == nil {
			ports := "TCP port " + strings.Trim(fmt.Sprint(c.Port), "[]")
			if len(c.Port) == 0 {
				ports = "TCP (Kafka on port 9092 or found by its first bytes)"
			}
			fmt.Fprintf(a.stderr, "kwire pcap: capturing on %s, %s; Ctrl-C ends\n", c.Interface, ports)
		}
	} else {
		pr := capture.NewPipeReader(in)
		pr.Idle, pr.Stop = r.flush, ctx.Done()
		cr, err = capture.Open(pr)
	}
	var fe *capture.FormatError
	if errors.As(err, &fe) && c.Interface == "" {
		if f := frame.RecognizeFile(fe.Head); f != frame.UnknownFile {
			return errors.New(f.Hint(c.File, "a pcap or pcapng capture"))
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	cd := codec.New(set)
	cd.MaxFrame = c.MaxFrame
	var detect *spec.Set
	if len(c.Port) == 0 {
		detect = set // Kafka on 9092 and wherever its first bytes are
	}
	// Each frame's tree holds its decompressed records: records.
	// DefaultMaxView of them at most, and the capture's payloads together
	// records.DefaultBudget.
	cd.Records.MaxDecompressed, cd.Records.MaxDecompressedTotal = records.DefaultMaxView, records.DefaultMaxView
	cd.Records.Budget = records.NewBudget(records.DefaultBudget)
	cd.Records.MaxNodes = c.MaxNodes
	st, tot, readErr := capture.DecodeFlows(cr, capture.FlowOptions{
		Assembler: capture.Options{Ports: c.Port, IdleTimeout: c.Idle},
		Flow:      flow.Options{Codec: cd, MaxFrame: c.MaxFrame, KeepTrees: c.Tree || wt.NeedsTrees(), Reuse: &flow.TreePool{}, Held: &flow.HeldTrees{Max: c.MaxHeld}, ShowSecrets: a.cli.ShowSecrets, Fallback: flow.EmbeddedFallbacks(set), Names: &flow.Names{}, Check: c.Check, Touched: r.pq != nil},
		OnOpen:    r.open, OnEvent: r.flowEvent, KeyLog: kl, OnTLS: r.tls, Detect: detect, KafkaPorts: []uint16{defaultKafkaPort},
		OnClose: func(c *capture.Conn, _ time.Time, _ string) {
			wt.Closed(traffic.Conn{ID: uint64(c.ID)})
			r.tr.Closed(uint64(c.ID))
		},
	})
	r.tot = tot
	if r.pq != nil {
		if err := r.pq.Close(); err != nil {
			return err
		}
		if files := r.pq.Files(); len(files) > 0 {
			fmt.Fprintf(a.stderr, "kwire pcap: wrote %s\n", strings.Join(files, ", "))
		} else {
			fmt.Fprintln(a.stderr, "kwire pcap: no exchange: no Parquet file written")
		}
	}
	r.summary(st, cr.Format(), readErr)
	r.flush()
	if r.err != nil {
		return r.err
	}
	if readErr != nil {
		var fe *capture.FormatError
		if errors.As(readErr, &fe) && fe.Truncated {
			return fmt.Errorf("%s is truncated: %w (the output above covers the packets before it)", name, readErr)
		}
		return fmt.Errorf("%s: %w (the output above covers the packets before it)", name, readErr)
	}
	if r.failed {
		return fmt.Errorf("%s: the conversations have problems %s", name, problemsWhere(r.c.Format))
	}
	if r.findings > 0 {
		return fmt.Errorf("%s: the clients' requests have %d %s %s", name, r.findings, plural(r.findings, "finding", "findings"), findingsWhere(r.c.Format))
	}
	return upgradeFound(r.wt, r.c.Format)
}

// upgradeFound is the error that makes the exit status 1 when the upgrade
// check (--upgrade-check) found clients the target does not accept; nil
// when it found none or was not asked for.
func upgradeFound(wt *traffic.Watcher, format string) error {
	us := wt.Upgrades()
	if len(us) == 0 {
		return nil
	}
	where := "(the upgrade check above)"
	if format == "json" {
		where = `(the "upgrade" lines of the output)`
	}
	n := len(us)
	return fmt.Errorf("--upgrade-check: %d %s of the clients %s not accepted by the target release %s", n, plural(n, "API version", "API versions"), plural(n, "is", "are"), where)
}

// defaultKafkaPort is the port kwire pcap decodes whatever its first
// bytes when --port is not given.
const defaultKafkaPort = 9092

// pcapContext is the context kwire pcap reads under: cancelled by SIGINT
// or SIGTERM, which end the input as its end would. Tests replace it.
var pcapContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func (r *pcapRun) flush() {
	if err := r.w.Flush(); err != nil && r.err == nil {
		r.err = err
	}
}

// pcapConnName names a connection in text lines.
func pcapConnName(c *capture.Conn) string { return fmt.Sprintf("#%d %s", c.ID, c) }

// open notes a connection whose start was not captured.
func (r *pcapRun) open(c *capture.Conn, t time.Time) {
	if !c.SawSYN && !r.wt.Filtering() {
		r.notice(t, c, "mid-stream", fmt.Sprintf("the capture starts inside this connection (no handshake captured); server by its port %d; searching both directions for the first plausible frame", c.Server.Port()))
	}
}

// readKeyLog reads a key log, warning on w of the lines it cannot use.
func readKeyLog(w io.Writer, path string) (*tlsdecrypt.KeyLog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--keylog: %w", err) // a missing file is a finding: exit 1
	}
	defer f.Close()
	kl, bad, err := tlsdecrypt.ParseKeyLog(f)
	for _, e := range bad {
		fmt.Fprintf(w, "kwire: %s: %v (the other lines are used)\n", path, e)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return kl, nil
}

// tls prints what the TLS decryption says about a connection; a problem
// fails the run.
func (r *pcapRun) tls(c *capture.Conn, t time.Time, msg string, problem bool) {
	r.failed = r.failed || problem
	if problem || !r.wt.Filtering() {
		r.notice(t, c, "tls", msg)
	}
}

// flowEvent prints an exchange or a problem of the connection.
func (r *pcapRun) flowEvent(c *capture.Conn, ev flow.Event) {
	if p, ok := ev.(*flow.Problem); ok {
		r.failed = r.failed || p.Kind != flow.Resync && p.Kind != flow.NotHeld
	}
	if x, ok := ev.(*flow.Exchange); ok {
		r.findings += len(x.Findings)
	}
	if !r.wt.Keep(traffic.Conn{ID: uint64(c.ID), Client: c.Client.String()}, ev) {
		return
	}
	if _, ok := ev.(*flow.Exchange); ok {
		r.matched++
	}
	switch x := ev.(type) {
	case *flow.Exchange:
		r.exchange(c, x)
	case *flow.Problem:
		r.problem(c, x)
	}
}

func (r *pcapRun) write(s string) {
	if r.err != nil {
		return
	}
	if _, err := r.w.WriteString(s); err != nil {
		r.err = err
	}
}

func (r *pcapRun) writeJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		if r.err == nil {
			r.err = err
		}
		return
	}
	if r.err == nil {
		r.w.Write(b) // a write error sticks to r.w: the next one returns it
		r.write("\n")
	}
}

func (r *pcapRun) exchange(c *capture.Conn, x *flow.Exchange) {
	if r.pq != nil {
		if err := r.pq.Write(r.tr.Record(x, uint64(c.ID), c.Client.String(), c.Server.String())); err != nil && r.err == nil {
			r.err = err
		}
		return
	}
	if r.c.Format == "json" {
		var frames []*report.Frame
		v := report.NewExchange(x, uint64(c.ID), c.Client.String(), c.Server.String(), func(f *flow.Frame) *report.Frame {
			j := report.NewFrame(f, report.FrameOptions{Set: r.set, JSON: r.c.Tree, Page: r.c.Tree, Render: r.a.renderOptions(), Deferred: true})
			frames = append(frames, j)
			return j
		})
		if err := report.WriteLine(r.w, v, frames...); err != nil && r.err == nil {
			r.err = err
		}
		return
	}
	if err := report.WriteExchange(r.w, pcapConnName(c), x, r.c.Tree, r.a.renderOptions()); err != nil && r.err == nil {
		r.err = err
	}
}

func (r *pcapRun) problem(c *capture.Conn, p *flow.Problem) {
	if r.c.Format == "json" {
		j := report.NewProblem(p, uint64(c.ID), c.Client.String(), c.Server.String())
		if p.Kind == flow.Resync { // pcap calls a resynchronisation a notice (report.NewProblem calls a tree not held one)
			j.Type = "notice"
		}
		r.writeJSON(j)
		return
	}
	r.write(report.ProblemLine(pcapConnName(c), p) + "\n")
}

// notice prints a line about a connection that is not the decoder's.
func (r *pcapRun) notice(t time.Time, c *capture.Conn, kind, msg string) {
	if r.c.Format == "json" {
		r.writeJSON(report.Problem{Type: "notice", Kind: kind, Time: report.JSONTime(t),
			Conn: uint64(c.ID), Client: c.Client.String(), Server: c.Server.String(), Message: msg})
		return
	}
	r.write(report.Line(t, pcapConnName(c), kind, msg) + "\n")
}

func (r *pcapRun) summary(st capture.Stats, f capture.Format, readErr error) {
	r.wt.WriteReport(r.w, r.c.Format == "json") // a write error sticks to r.w: Flush returns it
	if r.c.Format == "json" {
		r.writeJSON(report.NewSummary(f, st, r.tot, readErr))
	} else if err := report.WriteSummary(r.w, f, st, r.tot, r.c.Port); err != nil && r.err == nil {
		r.err = err
	} else {
		if r.tot.NotKafka["TLS"] > 0 && r.c.KeyLog == "" {
			r.write("hint: --keylog FILE decrypts TLS with the secrets an SSLKEYLOGFILE holds (with --port PORT for a port other than 9092)\n")
		}
		if r.wt.Filtering() {
			// The filters' verdict, also when nothing matched.
			r.write(fmt.Sprintf("filters: %s matched, of %d\n", plural(int(r.matched), "1 exchange", fmt.Sprintf("%d exchanges", r.matched)), r.tot.Exchanges))
		}
	}
}
