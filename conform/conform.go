package conform

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/conform/body"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// Outcome is how one probe ended.
type Outcome uint8

// The outcomes of a probe, from the best.
const (
	// Pass: the response decoded strictly and every rule held, with no
	// error code.
	Pass Outcome = iota
	// KafkaError: the response is sound and carries an error code Kafka
	// defines (Probe.Error names it): a legitimate answer.
	KafkaError
	// Reference: the target did what Kafka itself does on purpose (a
	// Reference behaviour, named in Probe.Reference): not a finding.
	Reference
	// NotSent: kwire could not build or encode the request (Probe.Err);
	// nothing was sent.
	NotSent
	// Timeout: no response arrived within the timeout.
	Timeout
	// Closed: the target closed the connection instead of answering.
	Closed
	// Found: something in the answer breaks a rule (Probe.Findings).
	Found
)

var outcomeNames = [...]string{"pass", "kafka-error", "reference", "not-sent", "timeout", "closed", "finding"}

// String is the outcome's name as the JSON and JUnit reports write it
// ("pass", "kafka-error", "reference", "not-sent", "timeout", "closed",
// "finding").
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", o)
}

// Symbol is the outcome's one character in the text matrix (see Legend).
func (o Outcome) Symbol() byte { return ".erntcF"[o] }

// Legend explains the symbols of the text matrix.
const Legend = ". pass   e kafka-error (a defined error code)   r reference behaviour (Kafka does the same)   n not sent   t timeout   c closed   F finding   - not sent at this access level   (blank) not announced"

// Finding is one thing wrong with a target's answer.
type Finding struct {
	// Rule names the rule broken: "decode" (the response does not decode
	// strictly), "left-over" (bytes after the body), "header-version",
	// "correlation-id", "records", "utf8", "error-code" (a code Kafka does
	// not define), "throttle", "unanswered" (a topic or partition asked
	// for and missing), "apiversions" (the ApiVersions answer), "refused"
	// (an announced version refused).
	Rule string
	// Path is the field path ("MetadataResponse.Topics[0].ErrorCode"), as
	// kwire decode reports it; "" when the finding is about no field.
	Path string
	// Offset is the byte offset in the response frame (its size prefix at
	// 0), -1 when the finding is about no byte.
	Offset int
	// Message says what is wrong.
	Message string
}

// String renders "path at 0xOFFS: message".
func (f Finding) String() string {
	switch {
	case f.Path != "" && f.Offset >= 0:
		return fmt.Sprintf("%s at 0x%04x: %s", f.Path, f.Offset, f.Message)
	case f.Path != "":
		return f.Path + ": " + f.Message
	}
	return f.Message
}

// Probe is one request sent and how its answer was judged.
type Probe struct {
	// API is the API's name (Metadata), Key its api key, Version the
	// version sent.
	API     string
	Key     int16
	Version int16
	// Kind is "apiversions" (the handshake's own ApiVersions answer),
	// "body" (the valid body of package body) or "random" (a seeded random
	// valid request; Index numbers them from 0).
	Kind  string
	Index int
	// Outcome is how it ended; Error names the first error code of a
	// KafkaError answer; Reference the reference behaviour that matched;
	// Err the cause of Closed, Timeout or NotSent.
	Outcome   Outcome
	Error     string
	Reference string
	Err       string
	// Findings are what was wrong (Outcome Found).
	Findings []Finding
	// Request and Response are the frames as sent and received (Response
	// nil when none arrived); Body is the request body as JSON in the
	// format of Kafka's JsonConverters, for kwire call.
	Request, Response []byte
	Body              []byte
	// Latency is the time from sending to the whole response.
	Latency time.Duration
	// top is the answer's top-level ErrorCode (0 when it has none).
	top int16
}

// Name is "Metadata v12 body" (random probes: "random 2").
func (p *Probe) Name() string {
	if p.Kind == "random" || p.Kind == "scenario" {
		return fmt.Sprintf("%s v%d %s %d", p.API, p.Version, p.Kind, p.Index)
	}
	return fmt.Sprintf("%s v%d %s", p.API, p.Version, p.Kind)
}

// API is one api key of the target: what it announced and the access class
// that decided whether it was probed.
type API struct {
	// Name is the API's name (Metadata; "api key N" when the release does
	// not define it), Key its api key, Announced the versions the target
	// announced.
	Name      string
	Key       int16
	Announced client.Range
	// Access is the API's class (package body); Sent reports whether the
	// level allowed it.
	Access body.Access
	Sent   bool
	// Known is false for an api key the release does not define.
	Known bool
}

// Report is what a run found.
type Report struct {
	// Target is the address probed; Release the Kafka release judged
	// against (the spec set's).
	Target, Release string
	// Seed and Random are the random requests' seed and count per (API,
	// version); Mutate and ClusterAPIs the access levels allowed.
	Seed                uint64
	Random              int
	Mutate, ClusterAPIs bool
	// APIs are the target's api keys, by key.
	APIs []API
	// Probes in the order sent.
	Probes []Probe
	// Created are the resources conform created (--mutate: "topic
	// kwire-conform-…"), Deleted those it deleted at the end (the group
	// too, when it was made), Cleanup the problems creating or deleting
	// them.
	Created, Deleted []string
	Cleanup          []string
	// Elapsed is the run's duration.
	Elapsed time.Duration
	// Reference is the reference's address in the differential mode,
	// RefCounts its probes' counts.
	Reference string
	RefCounts Counts
}

// Counts are the probes of a report by outcome: all of them, then those
// of each Outcome (Findings: the probes with findings, not the findings).
type Counts struct {
	Probes, Pass, KafkaErrors, References, NotSent, Timeouts, Closed, Findings int
}

// Counts counts the report's probes by outcome.
func (r *Report) Counts() Counts {
	c := Counts{Probes: len(r.Probes)}
	for i := range r.Probes {
		switch r.Probes[i].Outcome {
		case Pass:
			c.Pass++
		case KafkaError:
			c.KafkaErrors++
		case Reference:
			c.References++
		case NotSent:
			c.NotSent++
		case Timeout:
			c.Timeouts++
		case Closed:
			c.Closed++
		case Found:
			c.Findings++
		}
	}
	return c
}

// Failed reports whether any probe has a finding (the command's exit 1).
func (r *Report) Failed() bool { return r.Counts().Findings > 0 }

// Options configure Run.
type Options struct {
	// Bootstrap is the target's address, HOST:PORT.
	Bootstrap string
	// Set is the release judged against (its requests are sent, its
	// responses decoded, its error codes and ranges the rule).
	Set *spec.Set
	// Client are the connection's options (TLS, SASL, timeout, client id).
	Client client.Options
	// Random is the number of seeded random requests per (API, version)
	// of a ReadOnly API; Seed their seed.
	Random int
	Seed   uint64
	// Mutate allows Mutating APIs, about resources conform creates under
	// its own prefix and deletes at the end; ClusterAPIs allows
	// inter-broker and KRaft-quorum APIs.
	Mutate, ClusterAPIs bool
	// APIs, when not empty, restricts the run to these api keys
	// (ApiVersions' handshake is always judged).
	APIs []int16
	// Bodies builds each valid body (body.For when nil); Access classes
	// the APIs (body.AccessOf when nil). Tests replace them.
	Bodies func(m *spec.Message, v int16, n body.Names) (*tree.Tree, error)
	Access func(m *spec.Message) body.Access
	// References are the reference behaviours applied (References when
	// nil).
	References []ReferenceBehaviour
	// Prefix is the prefix of the resources --mutate creates
	// (kwire-conform-<8 random hex digits> when "").
	Prefix string
	// OnProbe, when not nil, is called after each probe (progress).
	OnProbe func(*Probe)
	// Reference, when not "", is the address of a reference (a real Apache
	// Kafka) that gets the same probes first (same seed, same options);
	// each answer of the target is then compared with the reference's
	// (Compare, the Ignored fields left out) and every difference is a
	// finding of rule "differs".
	Reference string
	// ShowSecrets keeps credentials in the probes' request and response
	// bytes (a delegation token's HMAC, SCRAM salts, sensitive config
	// values); by default they are overwritten as package secret does.
	ShowSecrets bool
	// Scenarios are the scenarios run after the probes, by name (Edges,
	// and the MutatingScenarios, which run only with Mutate).
	Scenarios []string
}

// The scenarios' names (Options.Scenarios): the protocol edges (an unknown
// ApiVersions version, an unknown api key, an oversized frame: read-only);
// with Mutate, the topic lifecycle (every codec), the idempotent produce,
// the transactions (a commit and an abort, read back at both isolation
// levels) and the consumer groups (classic, and KIP-848 where announced).
const (
	Edges        = "edges"
	Lifecycle    = "lifecycle"
	Idempotent   = "idempotent"
	Transactions = "transactions"
	Groups       = "groups"
)

// MutatingScenarios are the scenarios that create topics and groups, run
// only with Options.Mutate.
var MutatingScenarios = []string{Lifecycle, Idempotent, Transactions, Groups}

// DefaultRandom is the default number of random requests per (API,
// version).
const DefaultRandom = 3

// Run judges the target at o.Bootstrap: the ApiVersions handshake and its
// answer, then for every announced (API, version) that the release
// defines and the access level allows, its valid body and o.Random seeded
// random requests, each response judged strictly (see Judge). A probe
// whose connection closed reconnects for the next. With o.Mutate it first
// creates its resources and deletes them at the end, also when ctx is
// cancelled (the report is then partial, and ctx's error returned with
// it). Errors: the target cannot be reached or its ApiVersions answer is
// beyond reading (a report holding that probe is returned too).
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Reference == "" {
		return run(ctx, o)
	}
	if o.Mutate && o.Prefix == "" {
		o.Prefix = newPrefix()
	}
	ro := o
	ro.Bootstrap, ro.Reference, ro.OnProbe = o.Reference, "", nil
	ref, err := run(ctx, ro)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	r, err := run(ctx, o)
	if r != nil {
		r.Reference, r.RefCounts = o.Reference, ref.Counts()
		cd := codec.New(o.Set)
		differ(r, ref, cd)
	}
	return r, err
}

// run is Run without a reference.
func run(ctx context.Context, o Options) (*Report, error) {
	start := time.Now()
	if o.Bodies == nil {
		o.Bodies = body.For
	}
	if o.Access == nil {
		o.Access = body.AccessOf
	}
	if o.References == nil {
		o.References = References
	}
	r := &Report{Target: o.Bootstrap, Release: o.Set.Release, Seed: o.Seed, Random: o.Random, Mutate: o.Mutate, ClusterAPIs: o.ClusterAPIs}
	if r.Release == "" {
		r.Release = o.Set.Source
	}
	defer func() { r.Elapsed = time.Since(start) }()
	cd := codec.New(o.Set)
	cd.Strict = true
	e := &engine{o: o, cd: cd, r: r}
	conn, err := e.dial(ctx)
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			rule := "decode"
			if errors.Is(err, codec.ErrTrailing) {
				rule = "left-over"
			}
			p := Probe{API: "ApiVersions", Key: 18, Kind: "apiversions", Outcome: Found, Err: err.Error(),
				Findings: []Finding{{Rule: rule, Path: we.Path, Offset: we.Offset, Message: we.Msg}}}
			r.Probes = append(r.Probes, p)
			return r, fmt.Errorf("%s: the ApiVersions answer does not decode: %w", o.Bootstrap, err)
		}
		return nil, fmt.Errorf("%s: %w", o.Bootstrap, err)
	}
	e.conn = conn
	defer func() {
		if e.conn != nil {
			e.conn.Close()
		}
	}()
	e.versions = conn.Versions()
	e.judgeHandshake(conn.Handshake())

	if o.Mutate {
		if err := e.create(ctx); err != nil {
			r.Cleanup = append(r.Cleanup, err.Error())
		}
		defer e.cleanup(ctx)
	}
	for _, k := range e.order() {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		e.probeAPI(ctx, k)
	}
	if slices.Contains(o.Scenarios, Edges) && ctx.Err() == nil {
		e.edges(ctx)
	}
	if o.Mutate && slices.Contains(o.Scenarios, Lifecycle) && ctx.Err() == nil {
		e.lifecycle(ctx)
	}
	if o.Mutate && slices.Contains(o.Scenarios, Idempotent) && ctx.Err() == nil {
		e.idempotent(ctx)
	}
	if o.Mutate && slices.Contains(o.Scenarios, Transactions) && ctx.Err() == nil {
		e.transactions(ctx)
	}
	if o.Mutate && slices.Contains(o.Scenarios, Groups) && ctx.Err() == nil {
		e.groupScenario(ctx)
	}
	return r, ctx.Err()
}

// engine is the state of one run.
type engine struct {
	o        Options
	cd       *codec.Codec
	r        *Report
	conn     *client.Conn
	versions map[int16]client.Range
	// handshake is the ApiVersions answer, and entry the index of each
	// api key's element in its ApiKeys.
	handshake *tree.Tree
	entry     map[int16]int32
	names     body.Names
	// extra are the topics the scenarios created, groups the groups they
	// made, deleted at the end.
	extra, groups []string
}

func (e *engine) dial(ctx context.Context) (*client.Conn, error) {
	return client.Dial(ctx, e.o.Bootstrap, e.cd, e.o.Client)
}

// deleting are the api keys probed last, since their bodies delete what
// the others are about: DeleteTopics, DeleteRecords, DeleteGroups.
var deleting = []int16{20, 21, 42}

// order is the api keys to probe: the announced ones (o.APIs only, when
// given), ascending, the deleting ones last.
func (e *engine) order() []int16 {
	var keys, last []int16
	for k := range e.versions {
		if len(e.o.APIs) > 0 && !slices.Contains(e.o.APIs, k) {
			continue
		}
		if slices.Contains(deleting, k) {
			last = append(last, k)
		} else {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	slices.Sort(last)
	return append(keys, last...)
}

// allowed reports whether the level allows an API of class a.
func (e *engine) allowed(a body.Access) bool {
	switch a {
	case body.ReadOnly:
		return true
	case body.Mutating:
		return e.o.Mutate
	case body.Cluster:
		return e.o.ClusterAPIs
	}
	return false
}

// probeAPI probes every announced version of api key k that the release
// defines.
func (e *engine) probeAPI(ctx context.Context, k int16) {
	rg := e.versions[k]
	m := e.o.Set.Request(k)
	api := API{Key: k, Announced: rg, Known: m != nil, Name: fmt.Sprintf("api key %d", k)}
	if m == nil {
		e.r.APIs = append(e.r.APIs, api)
		return
	}
	api.Name = m.BaseName()
	api.Access = e.o.Access(m)
	api.Sent = e.allowed(api.Access)
	e.r.APIs = append(e.r.APIs, api)
	if !api.Sent {
		return
	}
	lo, hi := max(rg.Min, m.ValidVersions.Lo), min(rg.Max, m.ValidVersions.Hi)
	for v := lo; v <= hi; v++ {
		if ctx.Err() != nil {
			return
		}
		bt, err := e.o.Bodies(m, v, e.names)
		e.probe(ctx, m, v, "body", 0, bt, err)
		if api.Access != body.ReadOnly {
			continue // random requests name random resources: read-only APIs only
		}
		for i := range e.o.Random {
			if ctx.Err() != nil {
				return
			}
			rnd := mrand.New(mrand.NewPCG(e.o.Seed, uint64(k)<<32|uint64(uint16(v))<<16|uint64(i)))
			bt := instance.Random(m, v, rnd, instance.RandomOptions{})
			safeRandom(bt)
			e.probe(ctx, m, v, "random", i, bt, nil)
		}
	}
}

// safeRandom makes a random body read-only whatever it drew: no topic
// auto-creation (Metadata's AllowAutoTopicCreation false) and no replica
// (every ReplicaId -1: a consumer's Fetch or ListOffsets, never a
// follower's); and quick to answer: MaxWaitMs at most 100 and TimeoutMs at
// most 1000, so that a target that waits as long as asked does not time
// out.
func safeRandom(t *tree.Tree) {
	for i := range t.Nodes {
		f := t.Field(int32(i))
		if f == nil || t.Nodes[i].Kind() != tree.Field {
			continue
		}
		switch f.Name {
		case "AllowAutoTopicCreation":
			t.At(int32(i)).SetBool(false)
		case "ReplicaId":
			t.At(int32(i)).SetInt(-1)
		case "MaxWaitMs":
			if v := t.At(int32(i)); v.Int() > 100 {
				v.SetInt(100)
			}
		case "TimeoutMs":
			if v := t.At(int32(i)); v.Int() > 1000 {
				v.SetInt(1000)
			}
		}
	}
}

// probe sends one request and judges its answer.
func (e *engine) probe(ctx context.Context, m *spec.Message, v int16, kind string, idx int, bt *tree.Tree, buildErr error) {
	p := Probe{API: m.BaseName(), Key: m.APIKey, Version: v, Kind: kind, Index: idx}
	defer func() {
		e.r.Probes = append(e.r.Probes, p)
		if e.o.OnProbe != nil {
			e.o.OnProbe(&e.r.Probes[len(e.r.Probes)-1])
		}
	}()
	if buildErr != nil {
		p.Outcome, p.Err = NotSent, fmt.Sprintf("no body: %v", buildErr)
		return
	}
	if bt != nil {
		if js, err := codec.ToJSON(nil, bt, 0, m, v, codec.ConverterOptions); err == nil {
			p.Body = js
		}
		if acks := bt.At(0).Field("Acks"); m.APIKey == 0 && acks.Err() == nil && acks.Int() == 0 {
			p.Outcome, p.Err = NotSent, "Produce with acks 0 has no response to judge"
			return
		}
	}
	if e.conn == nil {
		c, err := e.dial(ctx)
		if err != nil {
			p.Outcome, p.Err = Closed, fmt.Sprintf("reconnecting: %v", err)
			if errors.Is(err, client.ErrTimeout) {
				p.Outcome = Timeout
			}
			return
		}
		e.conn = c
	}
	x, err := e.conn.Call(ctx, m, v, bt)
	e.keep(&p, x)
	var ce *client.CorrelationError
	switch {
	case x == nil:
		p.Outcome, p.Err = NotSent, err.Error()
		return
	case errors.As(err, &ce):
		e.conn = nil
		p.Outcome = Found
		p.Findings = []Finding{{Rule: "correlation-id", Path: "ResponseHeader.CorrelationId", Offset: 4, Message: fmt.Sprintf("correlation id %d, the request's is %d", ce.Got, ce.Want)}}
	case x.Response == nil && ctx.Err() != nil:
		p.Outcome, p.Err = NotSent, ctx.Err().Error()
		e.conn = nil
		return
	case errors.Is(err, client.ErrTimeout):
		e.conn = nil
		p.Outcome, p.Err = Timeout, err.Error()
	case x.Response == nil:
		e.conn = nil
		p.Outcome, p.Err = Closed, "closed the connection"
		if err != nil && !errors.Is(err, client.ErrClosed) {
			p.Err = err.Error()
		}
	default:
		j := Judge(e.cd, x.Request, x.Response, err)
		p.Findings, p.Error = j.Findings, j.Error
		p.top = topError(x.Response)
		switch {
		case len(p.Findings) > 0:
			p.Outcome = Found
		case p.Error != "":
			p.Outcome = KafkaError
		default:
			p.Outcome = Pass
		}
	}
	var req, resp *tree.Tree
	if x != nil {
		req, resp = x.Request, x.Response
	}
	if ref := e.reference(&p, req, resp); ref != "" {
		p.Outcome, p.Reference, p.Findings = Reference, ref, nil
		return
	}
	if kind == "body" {
		e.refused(&p)
	}
}

// keep records x's frames in p, credentials redacted (package secret)
// unless Options.ShowSecrets.
func (e *engine) keep(p *Probe, x *client.Exchange) {
	if x == nil {
		return
	}
	o := secret.Options{Show: e.o.ShowSecrets}
	p.Request = secret.Redacted(x.Request, o).Bytes
	p.Latency = x.Latency
	if x.Response != nil {
		p.Response = secret.Redacted(x.Response, o).Bytes
	}
}

// refused turns an announced version that the valid body's probe found
// refused (UNSUPPORTED_VERSION, or a closed connection) into a finding
// about the ApiVersions answer that announced it.
func (e *engine) refused(p *Probe) {
	var how string
	switch {
	case p.Outcome == Closed && !strings.HasPrefix(p.Err, "reconnecting"):
		how = "closed the connection"
	case p.Outcome == KafkaError && p.top == 35: // UNSUPPORTED_VERSION for the whole request
		how = "answered UNSUPPORTED_VERSION"
	default:
		return
	}
	rg := e.versions[p.Key]
	f := Finding{Rule: "refused", Path: "ApiVersionsResponse", Offset: -1,
		Message: fmt.Sprintf("announces %s v%d-%d, then %s to v%d", p.API, rg.Min, rg.Max, how, p.Version)}
	if i, ok := e.entry[p.Key]; ok {
		f.Path = render.NewIndex(e.handshake).Path(i)
		f.Offset = int(e.handshake.Nodes[i].Off)
	}
	p.Outcome = Found
	p.Findings = append(p.Findings, f)
}

// topError is the error code of a whole answer: its top-level ErrorCode,
// or, for an answer without one (Metadata), the code every error code of
// the answer has when they are all the same (Kafka's generic error answer
// sets each); 0 when none.
func topError(t *tree.Tree) int16 {
	b := t.Part(tree.Body)
	if b < 0 {
		return 0
	}
	if ec := t.At(b).Field("ErrorCode"); ec.Err() == nil {
		return int16(ec.Int())
	}
	codes := flow.ErrorCodes(t)
	if len(codes) == 0 {
		return 0
	}
	for _, c := range codes {
		if c.Code != codes[0].Code {
			return 0
		}
	}
	return codes[0].Code
}

// newPrefix is kwire-conform- and 8 random hex digits.
func newPrefix() string {
	var b [4]byte
	rand.Read(b[:])
	return "kwire-conform-" + hex.EncodeToString(b[:])
}
