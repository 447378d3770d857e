package conform

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// htmlCell is one cell of the HTML matrix.
type htmlCell struct {
	Symbol, Class, Title string
}

type htmlRow struct {
	Name  string
	Cells []htmlCell
}

type htmlByte struct {
	Hex  string
	Mark bool
}

type htmlLine struct {
	Off   string
	Bytes []htmlByte
}

type htmlFinding struct {
	Finding
	Link  string
	Lines []htmlLine
}

type htmlProbe struct {
	Name, Replay string
	Findings     []htmlFinding
}

type htmlPage struct {
	Title, Subtitle, Summary, Legend string
	Versions                         []int
	Rows                             []htmlRow
	Probes                           []htmlProbe
	Notes                            []string
}

var htmlTemplate = template.Must(template.New("conform").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{{.Title}}</title>
<style>
:root{--fg:#1b1f24;--dim:#57606a;--line:#d0d7de;--link:#0550ae;--hl:#ffd33d}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg)}
main{padding:0 1em 1em;max-width:120em;margin:0 auto}a{color:var(--link)}
code,pre,.m,.grid{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
h1{font-size:1.6em;margin:.6em 0 .3em}h2{font-size:1.3em;margin:1em 0 .3em}h3{font-size:1em;margin:1em 0 .3em}.dim{color:var(--dim)}
table.m{border-collapse:collapse;font-size:13px}table.m th,table.m td{padding:0 .25em;text-align:center}table.m th.api{text-align:left;font-weight:400;white-space:nowrap}
td.pass{background:#b2f2bb}td.kafka-error{background:#a5d8ff}td.reference{background:#e5c6f7}td.finding{background:#ff8787;font-weight:700}
td.closed,td.timeout{background:#ffd8a8}td.not-sent{background:#f1f3f5}td.off{color:var(--dim)}
.grid{display:grid;grid-template-columns:4.5em repeat(16,1.9em);gap:1px;font-size:13px}.grid span{text-align:center}.grid .o{color:var(--dim);text-align:left}
.grid .x{background:var(--hl);font-weight:700}pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:.4em}
</style></head><body><main>
<h1>{{.Title}}</h1><p class="dim">{{.Subtitle}}</p>
<table class="m"><tr><th></th>{{range .Versions}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><th class="api">{{.Name}}</th>{{range .Cells}}<td class="{{.Class}}" title="{{.Title}}">{{.Symbol}}</td>{{end}}</tr>
{{end}}</table>
<p class="dim">{{.Legend}}</p><p><strong>{{.Summary}}</strong></p>
{{range .Notes}}<p class="dim">{{.}}</p>{{end}}
{{if .Probes}}<h2>Findings</h2>{{end}}
{{range .Probes}}<h3>{{.Name}}</h3>
{{range .Findings}}<p><code>{{.Rule}}</code> {{if .Link}}<a href="{{.Link}}">{{.Path}}</a>{{else}}{{.Path}}{{end}}{{if ge .Offset 0}} at <code>0x{{printf "%04x" .Offset}}</code>{{end}}: {{.Message}}</p>
{{if .Lines}}<div class="grid">{{range .Lines}}<span class="o">{{.Off}}</span>{{range .Bytes}}<span{{if .Mark}} class="x"{{end}}>{{.Hex}}</span>{{end}}{{end}}</div>{{end}}
{{end}}<pre>{{.Replay}}</pre>
{{end}}
</main></body></html>
`))

// WriteHTML writes the report as one HTML page: the matrix (each cell
// titled with its probes' outcomes), the counts, then each finding with a
// link to the API version's page of the atlas (o.Atlas, as kwire serve
// serves it, the response's node anchored) and the response's bytes in a
// grid with the node concerned marked, and the replay command.
func (r *Report) WriteHTML(w io.Writer, o WriteOptions, set *spec.Set) error {
	pg := htmlPage{
		Title:    "kwire conform " + r.Target,
		Subtitle: fmt.Sprintf("against Kafka %s: %s; %d random requests per read-only version, seed %d", r.Release, r.level(), r.Random, r.Seed),
		Summary:  r.Summary(),
		Legend:   Legend,
	}
	if r.Reference != "" {
		pg.Notes = append(pg.Notes, "differential: each answer compared with the reference "+r.Reference+"'s, ignoring "+IgnoredText())
	}
	top := int16(0)
	for _, a := range r.APIs {
		top = max(top, a.Announced.Max)
	}
	for v := 0; v <= int(top); v++ {
		pg.Versions = append(pg.Versions, v)
	}
	type key struct{ k, v int16 }
	cells := map[key][]*Probe{}
	for i := range r.Probes {
		p := &r.Probes[i]
		if p.Kind == "body" || p.Kind == "random" {
			cells[key{p.Key, p.Version}] = append(cells[key{p.Key, p.Version}], p)
		}
	}
	for _, a := range r.APIs {
		row := htmlRow{Name: fmt.Sprintf("%s (%d)", a.Name, a.Key)}
		for v := int16(0); v <= top; v++ {
			ps := cells[key{a.Key, v}]
			c := htmlCell{Class: "off"}
			switch {
			case len(ps) > 0:
				worst := ps[0]
				var titles []string
				for _, p := range ps {
					if p.Outcome > worst.Outcome {
						worst = p
					}
					t := p.Kind
					if p.Kind == "random" {
						t = fmt.Sprintf("random %d", p.Index)
					}
					titles = append(titles, t+": "+outcomeText(p))
				}
				c = htmlCell{Symbol: string(worst.Outcome.Symbol()), Class: worst.Outcome.String(), Title: fmt.Sprintf("%s v%d\n%s", a.Name, v, strings.Join(titles, "\n"))}
			case v >= a.Announced.Min && v <= a.Announced.Max && !a.Sent:
				c.Symbol = "-"
			}
			row.Cells = append(row.Cells, c)
		}
		pg.Rows = append(pg.Rows, row)
	}
	var c *codec.Codec
	if set != nil {
		c = codec.New(set)
	}
	for i := range r.Probes {
		p := &r.Probes[i]
		if p.Outcome != Found {
			continue
		}
		hp := htmlProbe{Name: p.Name(), Replay: r.Replay(p, o)}
		var t *tree.Tree
		if c != nil && p.Response != nil && set.Response(p.Key) != nil {
			t, _ = c.DecodeResponse(p.Response, set.Response(p.Key), p.Version)
		}
		for _, f := range p.Findings {
			hf := htmlFinding{Finding: f}
			if f.Path != "" && o.Atlas != "" && f.Rule != "refused" && !strings.Contains(f.Path, "=") {
				hf.Link = fmt.Sprintf("%s/%s/%s/v%d/request.html#response.%s", strings.TrimSuffix(o.Atlas, "/"), r.Release, p.API, p.Version, anchor(f.Path))
			}
			if f.Offset >= 0 && p.Response != nil && f.Rule != "refused" {
				hf.Lines = grid(p.Response, f.Offset, markSize(t, f.Offset))
			}
			hp.Findings = append(hp.Findings, hf)
		}
		pg.Probes = append(pg.Probes, hp)
	}
	return htmlTemplate.Execute(w, pg)
}

// anchor turns a field path into the atlas's anchor: the message name
// dropped (the headers kept), indices as segments
// ("MetadataResponse.Topics[0].ErrorCode" → "Topics.0.ErrorCode").
func anchor(path string) string {
	if !strings.HasPrefix(path, "ResponseHeader") {
		if i := strings.IndexAny(path, ".["); i >= 0 {
			path = strings.TrimPrefix(path[i:], ".")
		}
	}
	path = strings.ReplaceAll(path, "[", ".")
	return strings.ReplaceAll(path, "]", "")
}

// markSize is the size of the deepest node of t that starts at off (1 when
// none does, or without a tree).
func markSize(t *tree.Tree, off int) int {
	size := 1
	if t == nil {
		return size
	}
	for i := range t.Nodes {
		n := t.Nodes[i]
		if n.Flags()&tree.FlagVirtual == 0 && int(n.Off) == off && n.Size > 0 {
			size = int(n.Size) // pre-order: deeper nodes come later
		}
	}
	return size
}

// grid lays b out 16 bytes a line, [off, off+size) marked.
func grid(b []byte, off, size int) []htmlLine {
	var lines []htmlLine
	for i := 0; i < len(b); i += 16 {
		l := htmlLine{Off: fmt.Sprintf("0x%04x", i)}
		for j := i; j < min(i+16, len(b)); j++ {
			l.Bytes = append(l.Bytes, htmlByte{Hex: fmt.Sprintf("%02x", b[j]), Mark: j >= off && j < off+size})
		}
		lines = append(lines, l)
	}
	return lines
}
