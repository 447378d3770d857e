package traffic

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kwire/kwire/clientcheck"
	"github.com/kwire/kwire/flow"
)

// apiKey identifies an API version in the statistics.
type apiKey struct {
	key int16
	ver int16
	api string // the name, "" for a key the specs do not know
}

// String is "Produce(0) v9", or "api key 99 v0".
func (k apiKey) String() string {
	if k.api == "" {
		return fmt.Sprintf("api key %d v%d", k.key, k.ver)
	}
	return fmt.Sprintf("%s(%d) v%d", k.api, k.key, k.ver)
}

func (k apiKey) compare(o apiKey) int {
	return cmp.Or(cmp.Compare(k.key, o.key), cmp.Compare(k.ver, o.ver))
}

type apiStats struct {
	n, req, resp int64
	// findings counts the findings of the requests (Options.Check).
	findings int64
	// lat are the latencies of the exchanges with both frames.
	lat  []time.Duration
	errs map[flow.ErrorCode]int64 // Path left ""
}

// clientKey identifies a client (see the package doc).
type clientKey struct {
	host, clientID, swName, swVersion string
}

func (k clientKey) compare(o clientKey) int {
	return cmp.Or(strings.Compare(k.host, o.host), strings.Compare(k.clientID, o.clientID),
		strings.Compare(k.swName, o.swName), strings.Compare(k.swVersion, o.swVersion))
}

// software is "NAME VERSION", or "" when not known.
func (k clientKey) software() string { return strings.TrimSpace(k.swName + " " + k.swVersion) }

type clientStats struct {
	n, req, resp int64
	findings     int64
	apis         map[apiKey]bool
}

func (s *connState) client(x *flow.Exchange) clientKey {
	return clientKey{s.host, x.ClientID, s.swName, s.swVersion}
}

// size is a frame's size, 0 for none.
func size(f *flow.Frame) int64 {
	if f == nil {
		return 0
	}
	return int64(f.Size)
}

func (w *Watcher) count(s *connState, x *flow.Exchange) {
	ck := s.client(x)
	cs := w.cls[ck]
	if cs == nil {
		cs = &clientStats{apis: map[apiKey]bool{}}
		w.cls[ck] = cs
	}
	cs.n, cs.req, cs.resp = cs.n+1, cs.req+size(x.Request), cs.resp+size(x.Response)
	cs.findings += int64(len(x.Findings))
	for _, f := range x.Findings {
		w.rules[f.Rule]++
	}
	if x.APIKey < 0 || x.Token {
		return
	}
	ak := apiKey{x.APIKey, x.Version, x.API}
	cs.apis[ak] = true
	as := w.apis[ak]
	if as == nil {
		as = &apiStats{errs: map[flow.ErrorCode]int64{}}
		w.apis[ak] = as
	}
	as.n, as.req, as.resp = as.n+1, as.req+size(x.Request), as.resp+size(x.Response)
	as.findings += int64(len(x.Findings))
	if x.Request != nil && x.Response != nil {
		as.lat = append(as.lat, x.Latency())
	}
	for _, e := range x.Errors {
		as.errs[flow.ErrorCode{Code: e.Code, Name: e.Name}]++
	}
}

// Percentile is the nearest-rank p-th percentile (0 < p <= 100) of sorted
// durations: the smallest value with at least p% of them at or below it,
// sorted[ceil(p/100·n)-1]. 0 for none.
func Percentile(sorted []time.Duration, p int) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := (p*n + 99) / 100
	return sorted[max(rank, 1)-1]
}

// APIStats is a statistics JSON line per API version: type "stats_api".
type APIStats struct {
	Type    string  `json:"type"`
	API     *string `json:"api"` // null for a key the specs do not know
	APIKey  int16   `json:"api_key"`
	Version int16   `json:"version"`
	// Exchanges counts the exchanges; RequestBytes and ResponseBytes sum
	// their frames' sizes (size prefix included).
	Exchanges     int64 `json:"exchanges"`
	RequestBytes  int64 `json:"request_bytes"`
	ResponseBytes int64 `json:"response_bytes"`
	// The latencies' nearest-rank percentiles and maximum (Percentile)
	// over the exchanges with a request and a response, in nanoseconds;
	// null without any.
	P50 *int64 `json:"latency_p50_ns"`
	P90 *int64 `json:"latency_p90_ns"`
	P99 *int64 `json:"latency_p99_ns"`
	Max *int64 `json:"latency_max_ns"`
	// Errors count each non-zero error code in the responses (one
	// response may hold several), by code.
	Errors []ErrorCount `json:"errors"`
	// Findings counts the findings of the check of the requests (one
	// request may have several); absent without --check.
	Findings *int64 `json:"findings,omitempty"`
}

// RuleStats is a statistics JSON line per rule of the check of the
// clients' requests (clientcheck.Rule), every rule, with --check: type
// "stats_rule".
type RuleStats struct {
	Type     string `json:"type"`
	Rule     string `json:"rule"`
	Findings int64  `json:"findings"`
}

// ErrorCount is an error code and how many times responses held it.
type ErrorCount struct {
	Code  int16  `json:"code"`
	Name  string `json:"name"` // "" when unknown
	Count int64  `json:"count"`
}

// ClientStats is a statistics JSON line per client: type "stats_client".
type ClientStats struct {
	Type string `json:"type"`
	// Client is the host of the client's address.
	Client          string `json:"client"`
	ClientID        string `json:"client_id"`
	SoftwareName    string `json:"software_name"`
	SoftwareVersion string `json:"software_version"`
	Exchanges       int64  `json:"exchanges"`
	RequestBytes    int64  `json:"request_bytes"`
	ResponseBytes   int64  `json:"response_bytes"`
	// APIs are the API versions used, "Produce(0) v9", by api key and
	// version.
	APIs []string `json:"apis"`
	// Findings counts the findings of the check of its requests; absent
	// without --check.
	Findings *int64 `json:"findings,omitempty"`
}

// Stats returns the statistics so far: one APIStats per API version by api
// key and version, one ClientStats per client by host, client id and
// software.
func (w *Watcher) Stats() ([]APIStats, []ClientStats) {
	var as []APIStats
	for _, k := range slices.SortedFunc(maps.Keys(w.apis), apiKey.compare) {
		s := w.apis[k]
		j := APIStats{Type: "stats_api", APIKey: k.key, Version: k.ver, Exchanges: s.n, RequestBytes: s.req, ResponseBytes: s.resp, Errors: []ErrorCount{}}
		if k.api != "" {
			name := k.api
			j.API = &name
		}
		if len(s.lat) > 0 {
			slices.Sort(s.lat)
			ns := func(d time.Duration) *int64 { n := d.Nanoseconds(); return &n }
			j.P50, j.P90, j.P99, j.Max = ns(Percentile(s.lat, 50)), ns(Percentile(s.lat, 90)), ns(Percentile(s.lat, 99)), ns(s.lat[len(s.lat)-1])
		}
		for _, e := range slices.SortedFunc(maps.Keys(s.errs), func(a, b flow.ErrorCode) int { return cmp.Compare(a.Code, b.Code) }) {
			j.Errors = append(j.Errors, ErrorCount{Code: e.Code, Name: e.Name, Count: s.errs[e]})
		}
		if w.o.Check {
			n := s.findings
			j.Findings = &n
		}
		as = append(as, j)
	}
	var cs []ClientStats
	for _, k := range slices.SortedFunc(maps.Keys(w.cls), clientKey.compare) {
		s := w.cls[k]
		j := ClientStats{Type: "stats_client", Client: k.host, ClientID: k.clientID, SoftwareName: k.swName, SoftwareVersion: k.swVersion,
			Exchanges: s.n, RequestBytes: s.req, ResponseBytes: s.resp, APIs: []string{}}
		for _, a := range slices.SortedFunc(maps.Keys(s.apis), apiKey.compare) {
			j.APIs = append(j.APIs, a.String())
		}
		if w.o.Check {
			n := s.findings
			j.Findings = &n
		}
		cs = append(cs, j)
	}
	return as, cs
}

// ms renders nanoseconds as milliseconds with microsecond precision, "-"
// for none.
func ms(ns *int64) string {
	if ns == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(*ns/1000)/1000)
}

// RuleStats returns the findings counted per rule, every rule in the
// order of clientcheck.Rules; nil without Options.Check.
func (w *Watcher) RuleStats() []RuleStats {
	if !w.o.Check {
		return nil
	}
	var out []RuleStats
	for _, r := range clientcheck.Rules() {
		out = append(out, RuleStats{Type: "stats_rule", Rule: r.String(), Findings: w.rules[r]})
	}
	return out
}

// WriteStats writes the statistics (Stats): with asJSON one APIStats line
// per API version, one ClientStats line per client, then with
// Options.Check one RuleStats line per rule; else, after a blank line, a
// table per API version (exchanges, bytes, latency percentiles in
// milliseconds, error codes with counts; with Options.Check, findings
// before the errors) and one per client (software, exchanges, bytes, with
// Options.Check findings, the API versions used), columns aligned, then
// with Options.Check the findings per rule. Nothing without
// Options.Stats.
func (w *Watcher) WriteStats(out io.Writer, asJSON bool) error {
	if !w.o.Stats {
		return nil
	}
	as, cs := w.Stats()
	if asJSON {
		if err := writeJSON(out, as, cs); err != nil {
			return err
		}
		return writeJSON(out, w.RuleStats(), []int(nil))
	}
	// findings is the findings column of a count (with Options.Check).
	findings := func(n *int64) string {
		if n == nil {
			return ""
		}
		return fmt.Sprintf("%d\t", *n)
	}
	fh := ""
	if w.o.Check {
		fh = "findings\t"
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nAPI version\texchanges\trequest B\tresponse B\tp50 ms\tp90 ms\tp99 ms\tmax ms\t%serrors\n", fh)
	for _, a := range as {
		api := ""
		if a.API != nil {
			api = *a.API
		}
		var errs []string
		for _, e := range a.Errors {
			errs = append(errs, fmt.Sprintf("%s×%d", flow.ErrorCode{Code: e.Code, Name: e.Name}, e.Count))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s%s\n", apiKey{a.APIKey, a.Version, api}, a.Exchanges, a.RequestBytes, a.ResponseBytes,
			ms(a.P50), ms(a.P90), ms(a.P99), ms(a.Max), findings(a.Findings), strings.Join(errs, " "))
	}
	tw.Flush()
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nclient\tclient id\tsoftware\texchanges\trequest B\tresponse B\t%sAPI versions\n", fh)
	for _, c := range cs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s%s\n", c.Client, quoted(c.ClientID), orDash(clientKey{swName: c.SoftwareName, swVersion: c.SoftwareVersion}.software()),
			c.Exchanges, c.RequestBytes, c.ResponseBytes, findings(c.Findings), strings.Join(c.APIs, ", "))
	}
	tw.Flush()
	if rs := w.RuleStats(); rs != nil {
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "\nrule\tfindings\n")
		for _, r := range rs {
			fmt.Fprintf(tw, "%s\t%d\n", r.Rule, r.Findings)
		}
		tw.Flush()
	}
	_, err := io.WriteString(out, trimLines(b.String()))
	return err
}

// quoted is a client id in text: quoted, or "-" for none.
func quoted(s string) string {
	if s == "" {
		return "-"
	}
	return fmt.Sprintf("%q", s)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeJSON writes each element of each slice as one JSON line.
func writeJSON[A, B any](out io.Writer, as []A, bs []B) error {
	var buf []byte
	add := func(v any) error {
		j, err := json.Marshal(v)
		buf = append(append(buf, j...), '\n')
		return err
	}
	for _, a := range as {
		if err := add(a); err != nil {
			return err
		}
	}
	for _, b := range bs {
		if err := add(b); err != nil {
			return err
		}
	}
	_, err := out.Write(buf)
	return err
}

// trimLines drops the spaces that end the lines of s (a table's empty last
// column).
func trimLines(s string) string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(ls, "\n")
}
