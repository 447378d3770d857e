package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/internal/cli"
	"github.com/kwire/kwire/internal/connflags"
	"github.com/kwire/kwire/internal/hint"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/report"
	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

type callCmd struct {
	Bootstrap string        `help:"The broker or controller to call, HOST:PORT." required:"" placeholder:"HOST:PORT"`
	Name      string        `arg:"" help:"The API to call (DescribeQuorum, Metadata, 18…)." predictor:"api"`
	Body      string        `arg:"" optional:"" help:"The request body as JSON in the format of Kafka's JsonConverters (see kwire show NAME --format kafka), @FILE, or - for standard input. Default: a useful body for common APIs (DescribeQuorum of __cluster_metadata, Metadata of all topics, Produce with acks -1 and no topics…), else the smallest instance of the request (kwire show NAME --request)."`
	Version   *int16        `help:"Send at this version instead of the highest both kwire's specs and the node support (to see how a node answers a version it does not support)." placeholder:"N"`
	Format    string        `help:"Output: text (a summary line and the response's object tree), page (request and response pages with byte layouts), json (the page as JSON), kafka (the response body in Kafka's converter JSON)." enum:"text,page,json,kafka" default:"text"`
	Timeout   time.Duration `help:"Bound on connecting and on each request. To say what a node that does not answer as Kafka speaks, call (without --tls) may open one more connection to it and send one HTTP request line (HEAD / HTTP/1.0) when ApiVersions has no answer after 1s or at the timeout, or a TLS ClientHello when the node closed the connection; a Kafka broker closes such a connection." default:"10s"`
	ClientID  string        `name:"client-id" help:"The request header's client_id." default:"kwire"`
	connflags.Flags
}

// call connects to --bootstrap, negotiates with ApiVersions, sends one
// request and prints the decoded response. Exit 1 for connection failures,
// timeouts, a response that does not decode, an API the node does not
// support, an unknown API or a body that does not fit; 2 for usage.
func (a *app) call(c *callCmd) error {
	if err := cli.HostPort("bootstrap", c.Bootstrap, false); err != nil {
		return err
	}
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	req, _, err := set.Lookup(c.Name)
	if err != nil {
		return a.notLoaded(err)
	}
	if req == nil || req.Type != spec.Request {
		return fmt.Errorf("%s is not an API with a request", c.Name)
	}
	if err := client.NeedsBody(req); err != nil && c.Body == "" {
		return usagef("%v (kwire show %s --request --format kafka prints a template)", err, req.BaseName())
	}
	body, err := a.callBody(c)
	if err != nil {
		return err
	}
	if body != nil && !json.Valid(body) { // before connecting: at any version
		_, err := codec.FromJSON(body, req, req.ValidVersions.Hi)
		return fmt.Errorf("%s body: %w", req.Name, err)
	}

	if c.Timeout <= 0 {
		return usagef("--timeout %v: give a positive duration", c.Timeout)
	}
	tc, sasl, err := c.Options(a.getenv)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cd := codec.New(set)
	conn, err := dialProbing(ctx, set, c.Bootstrap, cd, client.Options{ClientID: c.ClientID, Timeout: c.Timeout, SoftwareVersion: kwireVersion(), TLS: tc, SASL: sasl})
	var silent *silentPeerError
	if errors.As(err, &silent) {
		return err
	}
	if err != nil {
		return fmt.Errorf("%s: %w%s", c.Bootstrap, err, peerHint(ctx, set, c.Bootstrap, tc != nil, c.Timeout, err))
	}
	defer conn.Close()
	if s := conn.Session(); s != nil {
		fmt.Fprintf(a.stderr, "kwire: note: %s\n", s)
	}

	var v int16
	if c.Version != nil {
		v = *c.Version
		if !req.ValidVersions.Contains(v) {
			return fmt.Errorf("%s has no version %d in %s (valid: %s)", req.Name, v, render.SetName(set), req.ValidVersions)
		}
		if r, ok := conn.Versions()[req.APIKey]; !ok || v < r.Min || v > r.Max {
			fmt.Fprintf(a.stderr, "kwire: note: the node announces %s, sending v%d anyway\n", rangeText(r, ok), v)
		}
	} else if v, err = conn.Negotiate(req); err != nil {
		return err
	}
	var bt *tree.Tree
	if body == nil {
		var smallest bool
		if bt, smallest, err = conn.DefaultBody(req, v); err != nil {
			return fmt.Errorf("%s v%d default body: %w", req.Name, v, err)
		}
		if smallest {
			fmt.Fprintf(a.stderr, "kwire: note: no body given: sending the smallest %s v%d (kwire show %s --version %d --request --format kafka)\n", req.Name, v, req.BaseName(), v)
		}
	} else if bt, err = codec.FromJSON(body, req, v); err != nil {
		return fmt.Errorf("%s v%d body: %w%s", req.Name, v, err, hint.MissingField(req, v, err))
	}
	x, err := conn.Call(ctx, req, v, bt)
	if x == nil || x.Response == nil {
		if err == nil {
			err = errors.New("no response")
		}
		return fmt.Errorf("%s v%d to %s: %w", req.BaseName(), v, c.Bootstrap, err)
	}
	return a.writeCall(c, set, x, err)
}

func rangeText(r client.Range, ok bool) string {
	if !ok {
		return "no version of it"
	}
	return fmt.Sprintf("v%d-%d", r.Min, r.Max)
}

// callBody reads the request body JSON: the argument, @FILE or - (stdin);
// nil without a body (the client's default body is sent).
func (a *app) callBody(c *callCmd) ([]byte, error) {
	switch {
	case c.Body == "-":
		return io.ReadAll(a.stdin)
	case strings.HasPrefix(c.Body, "@"):
		return os.ReadFile(c.Body[1:])
	case c.Body != "":
		return []byte(c.Body), nil
	}
	return nil, nil
}

// writeCall prints the exchange: in text a summary line and the response's
// object tree; page/json the request and response pages; kafka the response
// body as converter JSON. A response that did not decode whole is printed as
// far as it went and decodeErr returned.
func (a *app) writeCall(c *callCmd, set *spec.Set, x *client.Exchange, decodeErr error) error {
	resp := secret.Redacted(x.Response, secret.Options{Show: a.cli.ShowSecrets})
	p := &render.Page{Set: set, Sides: []render.Side{
		{Label: "Request", Tree: secret.Redacted(x.Request, secret.Options{Show: a.cli.ShowSecrets})},
		{Label: "Response", Tree: resp, Err: decodeErr},
	}}
	var err error
	switch c.Format {
	case "page":
		p.Sides[1].Err = nil // printed once, on standard error
		err = render.WriteText(a.stdout, p, a.renderOptions())
	case "json":
		err = render.WritePageJSON(a.stdout, p, a.renderOptions())
	case "kafka":
		p.Sides = p.Sides[1:]
		err = render.WriteKafka(a.stdout, p)
	default:
		report.CallSummary(a.stdout, c.Bootstrap, x, decodeErr == nil)
		err = render.WriteTree(a.stdout, resp, a.renderOptions())
	}
	if err != nil {
		return err
	}
	return decodeErr
}

// probeAfter is how long call waits for the answer to its ApiVersions
// request before it asks the node, on a second connection alongside, what
// it speaks (client.Probe): a Kafka broker answers in milliseconds, an
// HTTP server waits for the end of a request line a Kafka request does not
// have. A variable for tests.
var probeAfter = time.Second

// silentPeerError is the error of a node that did not answer ApiVersions
// within probeAfter and answered the probe in a text protocol.
type silentPeerError struct {
	addr  string
	after time.Duration
	found frame.Recognition
}

func (e *silentPeerError) Error() string {
	what := e.found.Name
	if what == "" {
		what = "a text protocol"
	}
	return fmt.Sprintf("%s: no answer to ApiVersions in %v (the peer sent nothing); the peer speaks %s, not Kafka (it answers an HTTP request with %q): is %s a Kafka listener?",
		e.addr, e.after, what, e.found.Line, e.addr)
}

// dialProbing dials addr as client.Dial does; when no answer came within
// probeAfter (and o has no TLS), it probes the node alongside: if the
// probe's answer is text, the dial is given up and the error is a
// *silentPeerError; else the dial goes on to its own end, so a slow
// Kafka broker is waited for as long as o.Timeout says.
func dialProbing(ctx context.Context, set *spec.Set, addr string, cd *codec.Codec, o client.Options) (*client.Conn, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type dialed struct {
		conn *client.Conn
		err  error
	}
	done := make(chan dialed, 1)
	go func() {
		conn, err := client.Dial(ctx, addr, cd, o)
		done <- dialed{conn, err}
	}()
	timer := time.NewTimer(probeAfter)
	defer timer.Stop()
	var probed chan frame.Recognition
	asked := false // the node was probed (peerHint does not ask again)
	for {
		select {
		case d := <-done:
			if probed != nil {
				cancel()
				<-probed // the probe ends with ctx
			}
			if d.err != nil && asked {
				return nil, &probedError{d.err}
			}
			return d.conn, d.err
		case <-timer.C:
			if o.TLS != nil || o.Timeout > 0 && o.Timeout <= probeAfter {
				continue
			}
			probed, asked = make(chan frame.Recognition, 1), true
			go func() { probed <- client.Probe(ctx, set, addr, min(o.Timeout, 5*time.Second)) }()
		case r := <-probed:
			probed = nil
			if r.Protocol != frame.Text {
				continue // the dial decides
			}
			cancel()
			if d := <-done; d.err == nil {
				return d.conn, nil // it answered after all
			}
			return nil, &silentPeerError{addr: addr, after: probeAfter, found: r}
		}
	}
}

// probedError is a dial's error after the node was probed alongside
// (dialProbing) without a text answer: peerHint does not ask it again.
type probedError struct{ err error }

func (e *probedError) Error() string { return e.err.Error() }
func (e *probedError) Unwrap() error { return e.err }

// peerHint says what a node that did not answer as Kafka speaks and which
// flag to add: "; the peer speaks TLS: add --tls" when its answer was a
// TLS record, or when it closed a plaintext connection and answers a TLS
// handshake (client.SpeaksTLS); "; the peer speaks HTTP, not Kafka: is
// HOST:PORT a Kafka listener?" for text, or when it did not answer in time
// and answers an HTTP request (client.Probe). "" otherwise.
func peerHint(ctx context.Context, set *spec.Set, addr string, tlsOn bool, timeout time.Duration, err error) string {
	probeTimeout := min(timeout, 5*time.Second) // each question's bound
	var nk *client.NotKafkaError
	switch {
	case errors.As(err, &nk) && nk.Found.Protocol == frame.TLS && !tlsOn:
		return "; the peer speaks TLS: add --tls"
	case errors.As(err, &nk) && nk.Found.Protocol == frame.Text:
		what := nk.Found.Name
		if what == "" {
			what = "a text protocol"
		}
		return fmt.Sprintf("; the peer speaks %s, not Kafka: is %s a Kafka listener?", what, addr)
	case errors.Is(err, client.ErrClosed) && !tlsOn && client.SpeaksTLS(ctx, addr, probeTimeout):
		return "; the peer speaks TLS: add --tls"
	case errors.Is(err, client.ErrTimeout) && !tlsOn && !errors.As(err, new(*probedError)):
		// An HTTP server waits for the end of a request line that a
		// Kafka request does not have: ask it in its own terms.
		if r := client.Probe(ctx, set, addr, probeTimeout); r.Protocol == frame.Text {
			what := r.Name
			if what == "" {
				what = "a text protocol"
			}
			return fmt.Sprintf("; the peer speaks %s, not Kafka (it answers an HTTP request with %q): is %s a Kafka listener?", what, r.Line, addr)
		}
	}
	return ""
}
