package conform

import (
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteOptions are what the written reports say beyond the report: the
// flags a replay command needs.
type WriteOptions struct {
	// Kafka is the --kafka flag the run was given ("" when none), repeated
	// in replay commands.
	Kafka string
	// Connection are the connection flags repeated in replay commands
	// (--tls, --sasl-mechanism…), already shell-quoted.
	Connection string
	// Atlas is the URL of the protocol atlas that the HTML report links
	// findings to (kwire serve's, or where kwire site's output is
	// served); "" for no links.
	Atlas string
}

// level names the access levels of the report.
func (r *Report) level() string {
	l := "read-only"
	if r.Mutate {
		l = "read-only and mutating (--mutate)"
	}
	if r.ClusterAPIs {
		l += ", cluster APIs (--cluster-apis)"
	}
	return l
}

// Summary is the counts line: "124 probes: 100 pass, 20 kafka-error, …".
func (r *Report) Summary() string {
	c := r.Counts()
	return fmt.Sprintf("%d probes: %d pass, %d kafka-error, %d reference, %d closed, %d timeout, %d not sent, %d with findings (%.1f s)",
		c.Probes, c.Pass, c.KafkaErrors, c.References, c.Closed, c.Timeouts, c.NotSent, c.Findings, r.Elapsed.Seconds())
}

// WriteText writes the text report: a title line, the matrix (API rows ×
// version columns, one symbol a cell: the worst outcome of the cell's
// probes, Legend), the summary, the reference behaviours met, the
// resources created, then each probe with findings: what is wrong, and the
// kwire call command that replays it.
func (r *Report) WriteText(w io.Writer, o WriteOptions) error {
	var b strings.Builder
	fmt.Fprintf(&b, "kwire conform %s against Kafka %s: %s; %d random requests per read-only version, seed %d\n", r.Target, r.Release, r.level(), r.Random, r.Seed)
	if r.Reference != "" {
		fmt.Fprintf(&b, "differential: each answer compared with the reference %s's, ignoring %s\n", r.Reference, IgnoredText())
	}
	b.WriteByte('\n')
	r.matrix(&b)
	fmt.Fprintf(&b, "\n%s\n%s\n", Legend, r.Summary())
	refs := map[string]int{}
	var order []string
	for i := range r.Probes {
		if n := r.Probes[i].Reference; n != "" {
			if refs[n] == 0 {
				order = append(order, n)
			}
			refs[n]++
		}
	}
	for _, n := range order {
		fmt.Fprintf(&b, "reference behaviour %s: %d probes (docs/conform.md)\n", n, refs[n])
	}
	for i := range r.Probes {
		if p := &r.Probes[i]; p.Kind == "scenario" {
			if p.Index == 0 || i == 0 || r.Probes[i-1].Kind != "scenario" {
				fmt.Fprintf(&b, "scenario %s:\n", strings.SplitN(p.Err, ":", 2)[0])
			}
			fmt.Fprintf(&b, "  %d. %s v%d: %s", p.Index+1, p.API, p.Version, p.Outcome)
			if p.Error != "" {
				fmt.Fprintf(&b, " (%s)", p.Error)
			}
			if _, cause, _ := strings.Cut(p.Err, ": "); cause != "" {
				fmt.Fprintf(&b, ": %s", cause)
			}
			b.WriteByte('\n')
		}
	}
	for _, c := range r.Created {
		how := "deleted at the end"
		if !slices.Contains(r.Deleted, c) {
			how = "NOT deleted (see cleanup)"
		}
		fmt.Fprintf(&b, "created %s: %s\n", c, how)
	}
	for _, c := range r.Cleanup {
		fmt.Fprintf(&b, "cleanup: %s\n", c)
	}
	first := true
	for i := range r.Probes {
		p := &r.Probes[i]
		if p.Outcome != Found {
			continue
		}
		if first {
			b.WriteString("\nFindings\n")
			first = false
		}
		fmt.Fprintf(&b, "\n%s:\n", p.Name())
		for _, f := range p.Findings {
			fmt.Fprintf(&b, "  %s: %s\n", f.Rule, f)
		}
		fmt.Fprintf(&b, "  replay: %s\n", r.Replay(p, o))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// matrix writes the API × version grid.
func (r *Report) matrix(b *strings.Builder) {
	width, top := 0, int16(0)
	for _, a := range r.APIs {
		width = max(width, len(a.Name)+len(fmt.Sprint(a.Key))+3)
		top = max(top, a.Announced.Max)
	}
	cells := map[[2]int16]Outcome{}
	seen := map[[2]int16]bool{}
	for i := range r.Probes {
		p := &r.Probes[i]
		if p.Kind == "apiversions" || p.Kind == "scenario" {
			continue
		}
		k := [2]int16{p.Key, p.Version}
		if !seen[k] || p.Outcome > cells[k] {
			cells[k] = p.Outcome
		}
		seen[k] = true
	}
	if top >= 10 {
		fmt.Fprintf(b, "%-*s  ", width, "")
		for v := int16(0); v <= top; v++ {
			if v%10 == 0 {
				fmt.Fprintf(b, "%d", v/10)
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "%-*s  ", width, "version")
	for v := int16(0); v <= top; v++ {
		fmt.Fprintf(b, "%d", v%10)
	}
	b.WriteByte('\n')
	for _, a := range r.APIs {
		fmt.Fprintf(b, "%-*s  ", width, fmt.Sprintf("%s (%d)", a.Name, a.Key))
		for v := int16(0); v <= top; v++ {
			k := [2]int16{a.Key, v}
			switch {
			case seen[k]:
				b.WriteByte(cells[k].Symbol())
			case v < a.Announced.Min || v > a.Announced.Max:
				b.WriteByte(' ')
			case !a.Sent:
				b.WriteByte('-')
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
}

// Replay is the command that sends p's request again: kwire call with
// the body as JSON at p's version.
func (r *Report) Replay(p *Probe, o WriteOptions) string {
	var b strings.Builder
	b.WriteString("kwire ")
	if o.Kafka != "" {
		b.WriteString("--kafka " + shellQuote(o.Kafka) + " ")
	}
	fmt.Fprintf(&b, "call --bootstrap %s ", shellQuote(r.Target))
	if o.Connection != "" {
		b.WriteString(o.Connection + " ")
	}
	b.WriteString(p.API)
	if p.Body != nil {
		b.WriteString(" " + shellQuote(string(p.Body)))
	}
	fmt.Fprintf(&b, " --version %d", p.Version)
	return b.String()
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=,@+", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// probeJSON is one line of the JSON report.
type probeJSON struct {
	API       string          `json:"api"`
	Key       int16           `json:"key"`
	Version   int16           `json:"version"`
	Kind      string          `json:"kind"`
	Index     int             `json:"index"`
	Outcome   string          `json:"outcome"`
	Error     string          `json:"error,omitempty"`
	Reference string          `json:"reference,omitempty"`
	Cause     string          `json:"cause,omitempty"`
	Findings  []findingJSON   `json:"findings,omitempty"`
	Body      json.RawMessage `json:"body,omitempty"`
	Request   string          `json:"request"`
	Response  string          `json:"response,omitempty"`
	LatencyUS int64           `json:"latency_us"`
	Replay    string          `json:"replay,omitempty"`
}

type findingJSON struct {
	Rule    string `json:"rule"`
	Path    string `json:"path,omitempty"`
	Offset  int    `json:"offset"`
	Message string `json:"message"`
}

// WriteJSON writes the report as JSON lines, one object per probe: api,
// key, version, kind ("apiversions", "body", "random") and index,
// outcome, error (the Kafka error's name), reference, cause (why closed,
// timeout or not sent), findings (rule, path, offset — -1 for none — and
// message), body (the request body in Kafka's converter JSON), request
// and response (the frames in hex), latency_us, and for a probe with
// findings the replay command.
func (r *Report) WriteJSON(w io.Writer, o WriteOptions) error {
	enc := json.NewEncoder(w)
	for i := range r.Probes {
		p := &r.Probes[i]
		pj := probeJSON{API: p.API, Key: p.Key, Version: p.Version, Kind: p.Kind, Index: p.Index, Outcome: p.Outcome.String(),
			Error: p.Error, Reference: p.Reference, Cause: p.Err, Body: p.Body,
			Request: hex.EncodeToString(p.Request), Response: hex.EncodeToString(p.Response), LatencyUS: p.Latency.Microseconds()}
		for _, f := range p.Findings {
			pj.Findings = append(pj.Findings, findingJSON(f))
		}
		if p.Outcome == Found {
			pj.Replay = r.Replay(p, o)
		}
		if err := enc.Encode(pj); err != nil {
			return err
		}
	}
	return nil
}

// JUnit XML, as CI systems read it.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Class     string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: one test suite, each probe a
// test case (class conform.<API>, name as Probe.Name) that fails when it
// has findings (the failure's text lists them and the replay command); the
// outcome of the others is their system-out.
func (r *Report) WriteJUnit(w io.Writer, o WriteOptions) error {
	s := junitSuite{Name: "kwire conform " + r.Target, Time: fmt.Sprintf("%.3f", r.Elapsed.Seconds())}
	for i := range r.Probes {
		p := &r.Probes[i]
		c := junitCase{Class: "conform." + p.API, Name: p.Name(), Time: fmt.Sprintf("%.3f", p.Latency.Seconds())}
		if p.Outcome == Found {
			var b strings.Builder
			for _, f := range p.Findings {
				fmt.Fprintf(&b, "%s: %s\n", f.Rule, f)
			}
			fmt.Fprintf(&b, "replay: %s\n", r.Replay(p, o))
			c.Failure = &junitFailure{Message: p.Findings[0].String(), Type: p.Findings[0].Rule, Text: b.String()}
			s.Failures++
		} else {
			c.SystemOut = p.Outcome.String()
			for _, x := range []string{p.Error, p.Reference, p.Err} {
				if x != "" {
					c.SystemOut += ": " + x
				}
			}
		}
		s.Cases = append(s.Cases, c)
	}
	s.Tests = len(s.Cases)
	out := junitSuites{Name: "kwire conform", Tests: s.Tests, Failures: s.Failures, Time: s.Time, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
