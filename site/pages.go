package site

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/evolve"
	"github.com/kwire/kwire/tree"
)

func (s *Site) foot(root string, rels ...*release) footData {
	if len(rels) == 0 {
		rels = s.rels
	}
	f := footData{Root: root}
	for _, r := range rels {
		f.Releases = append(f.Releases, footRelease{Name: r.set.Release, Source: r.slug})
	}
	return f
}

// writeTop writes the site's index.html: its releases.
func (s *Site) writeTop(o *out, decode bool) {
	o.t("head", headData{Title: "Kafka protocol atlas", Desc: "Every Apache Kafka API, header and record type, byte by byte."})
	o.s("<h1>Kafka protocol atlas</h1>\n<p>Every API of the Apache Kafka wire protocol at every version, its header specs and its metadata and KRaft record types, each encoded as its smallest legal instance and shown byte by byte: the byte grid coloured by region, the object tree, the spec and what changed per version.</p>\n<ul class=\"rels\">\n")
	for _, r := range s.rels {
		apis, others := 0, 0
		for _, e := range r.entries {
			if e.kind == kindAPI {
				apis++
			} else {
				others++
			}
		}
		o.s(`<li><a href="`, r.slug, `/index.html">`)
		if r.set.Release != "" {
			o.s("Apache Kafka ")
		}
		o.e(r.slug)
		o.s("</a> — ")
		o.d(apis)
		o.s(" APIs, ")
		o.d(others)
		o.s(" header and record types")
		if r.set.Release == "" {
			o.s(" (")
			o.e(r.set.Source)
			o.s(")")
		}
		o.s("</li>\n")
	}
	o.s("</ul>\n")
	if decode {
		o.s(`<p><a href="decode">Decode your own bytes</a>: paste the hex of a request, a response or a record and see it in the same view.</p>` + "\n")
	}
	o.t("foot", s.foot(""))
}

// writeRelease writes a release's index: every API, header and record type
// with a search box.
func (s *Site) writeRelease(o *out, r *release) {
	title := "Kafka " + r.slug
	if r.set.Release == "" {
		title = r.slug
	}
	o.t("head", headData{Title: title, Root: "../", Crumbs: []crumb{{"index.html", title}}, Desc: "Every API, header and record type of " + title + "."})
	o.s("<h1>")
	o.e(title)
	o.s("</h1>\n<p>Each page encodes the smallest legal instance of a message: numbers are zero, strings and bytes empty, every array holds one element and a records field one empty RecordBatch v2.</p>\n")
	o.s(`<div class="search"><label for="q">Search</label> <input id="q" type="search" placeholder="name or api key, e.g. vote" autocomplete="off" aria-describedby="qn"> <span id="qn" class="qn" aria-live="polite"></span></div>` + "\n")
	tables := []indexTable{
		{Caption: "APIs", Keys: true, Listeners: true},
		{Caption: "Header specs"},
		{Caption: "Metadata records", Keys: true},
		{Caption: "KRaft and other data records"},
	}
	for _, e := range r.entries {
		m := e.primary()
		row := indexRow{Name: e.name, Versions: m.ValidVersions.String(), Flexible: m.FlexibleVersions.String(), Href: e.name + "/index.html"}
		if m.ValidVersions.Empty() {
			row.Versions = "none (removed)"
		} else {
			row.Href = strings.TrimPrefix(e.versionPath(m.ValidVersions.Hi), r.slug+"/")
		}
		if m.APIKey >= 0 {
			row.Key = strconv.Itoa(int(m.APIKey))
		}
		row.Listeners = strings.Join(m.Listeners, ", ")
		row.Search = strings.ToLower(e.name + " " + row.Key + " " + m.Name + " " + row.Listeners)
		t := &tables[int(e.kind)]
		t.Rows = append(t.Rows, row)
	}
	for _, t := range tables {
		if len(t.Rows) > 0 {
			o.t("release-table", t)
		}
	}
	o.t("foot", s.foot("../", r))
}

// writeEntry writes the page of one API or type: its versions.
func (s *Site) writeEntry(o *out, e *entry) {
	r := e.rel
	o.t("head", headData{Title: e.name + " · Kafka " + r.slug, Root: "../../", Crumbs: []crumb{{"../index.html", "Kafka " + r.slug}, {"index.html", e.name}}})
	o.s("<h1>")
	o.e(e.name)
	o.s("</h1>\n")
	m := e.primary()
	vv := m.ValidVersions
	if vv.Empty() {
		o.s("<p>This spec says <code>\"validVersions\": \"none\"</code>: the API was removed from this release.")
		for _, r2 := range s.rels {
			if e2 := r2.byName[strings.ToLower(e.name)]; r2 != r && e2 != nil && !e2.versions().Empty() {
				o.s(` It is in <a href="../../`, e2.versionPath(e2.versions().Hi), `">Kafka `)
				o.e(r2.slug)
				o.s("</a>.")
			}
		}
		o.s("</p>\n")
	} else {
		o.s("<nav aria-label=\"Versions\"><ul class=\"vers\">")
		for v := int(vv.Lo); v <= int(vv.Hi); v++ {
			o.s(`<li><a href="v`, strconv.Itoa(v), "/", e.pageFile(), `">v`, strconv.Itoa(v), "</a></li>")
		}
		o.s("</ul></nav>\n")
	}
	for _, m := range []*spec.Message{e.req, e.resp} {
		if m != nil {
			writeSpec(o, m)
		}
	}
	o.t("foot", s.foot("../../", r))
}

// writeResponseStub writes response.html: it forwards to the page's
// response side, keeping an anchor (#Topics.0 becomes #response.Topics.0).
func (s *Site) writeResponseStub(o *out, e *entry, v int16) {
	o.s(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>`)
	o.e(e.name)
	o.s(` response v`)
	o.d(int(v))
	o.s(`</title>
<meta http-equiv="refresh" content="0; url=request.html#response">
<script>var h=location.hash.slice(1);location.replace("request.html#"+(h?"response."+h:"response"))</script>
</head><body><p>The response is on the <a href="request.html#response">page of the request</a>.</p></body></html>
`)
}

// side is one message of a page, with how the page shows it.
type side struct {
	render.Side
	m *spec.Message
	// prefix starts the ids of the side's nodes and bytes ("" or
	// "response.").
	prefix string
	// body is the class of its body region: "q" (request, record) or "p"
	// (response).
	body string
	id   string
	// x indexes Tree (nil until writeVersion or writeSide makes it).
	x *render.Index
}

// sides encodes the smallest instance of e at v: request and response for
// an API, else the one record.
func (e *entry) sides(v int16) []side {
	cd := e.rel.codec
	var out []side
	if e.kind != kindAPI {
		m := e.req
		t, err := cd.EncodeRecord(m, v, instance.Smallest(m, v))
		if t != nil {
			t.Sample = true
		}
		if err != nil {
			err = fmt.Errorf("encoding the smallest %s v%d: %w", m.Name, v, err)
		}
		return append(out, side{Side: render.Side{Label: "Record", Tree: t, Err: err}, m: m, body: "q", id: "record"})
	}
	for k, m := range []*spec.Message{e.req, e.resp} {
		if m == nil || !m.ValidVersions.Contains(v) {
			continue
		}
		t, err := cd.Encode(m, v, nil, instance.Smallest(m, v))
		if t != nil {
			t.Sample = true
		}
		if err != nil {
			err = fmt.Errorf("encoding the smallest %s v%d: %w", m.Name, v, err)
		}
		sd := side{Side: render.Side{Label: "Request", Tree: t, Err: err}, m: m, body: "q", id: "request"}
		if k == 1 {
			sd.Label, sd.prefix, sd.body, sd.id = "Response", "response.", "p", "response"
		}
		out = append(out, sd)
	}
	return out
}

// writeVersion writes the page of e at version v.
func (s *Site) writeVersion(o *out, e *entry, v int16) {
	r := e.rel
	const root = "../../../"
	m := e.primary()
	vs := strconv.Itoa(int(v))
	o.t("head", headData{
		Title:  e.name + " v" + vs + " · Kafka " + r.slug,
		Root:   root,
		Crumbs: []crumb{{"../../index.html", "Kafka " + r.slug}, {"../index.html", e.name}, {e.pageFile(), "v" + vs}},
		Desc:   "The smallest legal " + e.name + " v" + vs + " of Kafka " + r.slug + ", byte by byte.",
	})
	sides := e.sides(v)
	for k := range sides {
		if t := sides[k].Tree; t != nil && len(t.Nodes) > 0 {
			sides[k].x = render.NewIndex(t)
		}
	}
	o.s("<h1>")
	o.e(e.name)
	o.s(" <span class=\"ver\">v", vs, "</span></h1>\n<p class=\"intro\">")
	writeIntro(o, e, m, v)
	o.s("</p>\n")

	// Version and release switchers.
	o.s(`<nav class="switch" aria-label="Versions"><span class="lbl">Version</span><ul class="vers">`)
	vv := m.ValidVersions
	for x := int(vv.Lo); x <= int(vv.Hi); x++ {
		xs := strconv.Itoa(x)
		if x == int(v) {
			o.s(`<li><a href="`, e.pageFile(), `" aria-current="page">v`, xs, "</a></li>")
		} else {
			o.s(`<li><a href="../v`, xs, "/", e.pageFile(), `">v`, xs, "</a></li>")
		}
	}
	o.s("</ul></nav>\n")
	if len(s.rels) > 1 {
		o.s(`<nav class="switch" aria-label="Releases"><span class="lbl">Release</span><ul class="vers">`)
		for _, r2 := range s.rels {
			e2 := r2.byName[strings.ToLower(e.name)]
			switch {
			case r2 == r:
				o.s(`<li><a href="`, e.pageFile(), `" aria-current="page">`)
			case e2 != nil && e2.versions().Contains(v):
				o.s(`<li><a href="`, root, e2.versionPath(v), `">`)
			case e2 != nil:
				o.s(`<li><a href="`, root, r2.slug, "/", e2.name, `/index.html" title="no v`, vs, ` in this release">`)
			default:
				o.s(`<li><a href="`, root, r2.slug, `/index.html" title="not in this release" class="absent">`)
			}
			o.e(r2.slug)
			o.s("</a></li>")
		}
		o.s("</ul></nav>\n")
	}

	writeSummary(o, e, m, v, sides)
	writeLegend(o, e.kind == kindAPI, sides)

	// The sides stack, each as wide as the page (site.css), so their
	// specs and histories follow both: the response's tree comes right
	// after the request's.
	o.s(`<div class="sides">` + "\n")
	for _, sd := range sides {
		writeSide(o, sd, nil)
	}
	o.s("</div>\n")
	hist := e.history()
	for _, sd := range sides {
		hk := 0
		if sd.m == e.resp && e.kind == kindAPI {
			hk = 1
		}
		writeSpec(o, sd.m)
		if h := hist[hk]; h != nil {
			writeHistory(o, e, h, v)
		}
	}
	o.t("foot", s.foot(root, r))
}

// writeIntro explains the page's instance and the version's encoding.
func writeIntro(o *out, e *entry, m *spec.Message, v int16) {
	vs := strconv.Itoa(int(v))
	switch e.kind {
	case kindAPI:
		o.s("This page encodes the smallest legal instance of the request and the response: ")
	case kindHeader:
		o.s("This page encodes the smallest legal instance of the header alone, as it follows the size prefix of a message: ")
	default:
		o.s("This page encodes the smallest legal instance of the record: ")
	}
	o.s("numeric fields are zero, strings and byte arrays are empty, every array carries exactly one sample element, and any records field holds one empty 61-byte RecordBatch v2. ")
	if m.Flexible(v) {
		o.s("Version ", vs, " is a flexible version, so every struct ends with a uvarint count of tagged fields and strings and arrays carry compact length-plus-one prefixes.")
	} else {
		o.s("Version ", vs, " is not a flexible version: strings carry int16 lengths, arrays int32 counts, and there are no tagged fields.")
	}
	switch e.kind {
	case kindAPI:
		o.s(" Sizes include the leading int32 size prefix.")
	case kindMetadata:
		if m.Topic != "" {
			o.s(" The record value of ", m.Topic.TopicName(), " starts with its metadata record frame: frame version, api key and version, as uvarints; the size includes it.")
		} else {
			o.s(" The record value starts with its KRaft frame: frame version, api key and version, as uvarints; the size includes it.")
		}
	}
	topic := m.Topic.TopicName()
	if topic == "" {
		topic = "coordinator"
	}
	switch {
	case m.IsRecordKey():
		o.s(" The key of a ", topic, " record starts with its record type, an int16; the size includes it.")
	case m.IsRecordValue():
		o.s(" The value of a ", topic, " record starts with its version, an int16; the size includes it.")
	}
}

// writeSummary writes the summary block: api key, version, flexible
// versions, header versions, valid versions and sizes.
func writeSummary(o *out, e *entry, m *spec.Message, v int16, sides []side) {
	item := func(k string, val string) {
		o.s("<div><dt>", k, "</dt><dd>")
		o.e(val)
		o.s("</dd></div>")
	}
	o.s(`<dl class="summary">`)
	switch {
	case m.VersionPrefixed() && !m.RecordTypes.Empty():
		item("Record type", m.RecordTypes.String())
	case m.APIKey >= 0:
		item("API key", strconv.Itoa(int(m.APIKey)))
	}
	if m.Topic != "" {
		item("Topic", m.Topic.TopicName())
	}
	item("Encoded at", "v"+strconv.Itoa(int(v)))
	item("Flexible versions", m.FlexibleVersions.String())
	if e.kind == kindAPI {
		var hv []string
		for _, sd := range sides {
			if sd.Tree != nil && sd.Tree.HeaderVersion >= 0 {
				hv = append(hv, map[string]string{"Request": "req", "Response": "resp"}[sd.Label]+" v"+strconv.Itoa(int(sd.Tree.HeaderVersion)))
			}
		}
		item("Headers", strings.Join(hv, ", "))
		if e.req != nil {
			item("Request versions", e.req.ValidVersions.String())
		}
		if e.resp != nil {
			item("Response versions", e.resp.ValidVersions.String())
		}
	} else {
		item("Type", map[entryKind]string{kindHeader: "header", kindMetadata: "metadata record", kindData: "data record"}[e.kind])
		item("Versions", m.ValidVersions.String())
	}
	if len(m.Listeners) > 0 {
		item("Listeners", strings.Join(m.Listeners, ", "))
	}
	if m.DeprecatedVersions.Contains(v) {
		item("Deprecated", "yes (deprecatedVersions "+m.DeprecatedVersions.String()+")")
	}
	if m.LatestVersionUnstable && v == m.ValidVersions.Hi {
		item("Unstable", "yes (latestVersionUnstable)")
	}
	for _, sd := range sides {
		if sd.Tree != nil {
			label := sd.Label + " size"
			if sd.Label == "Record" {
				label = "Size"
			}
			item(label, strconv.Itoa(len(sd.Tree.Bytes))+" bytes")
		}
	}
	o.s("</dl>\n")
}

// legendItems are the regions of a page, as its legend names them.
var legendItems = []struct{ class, name string }{
	{"f", "frame"}, {"h", "rpc header"}, {"q", "request body"}, {"rb", "RecordBatch"},
	{"rr", "Record"}, {"p", "response body"}, {"t", "tagged_fields"},
}

// writeLegend writes the legend of the regions the sides' trees have, in
// the order of legendItems (an API's body regions named "request body" and
// "response body", a record's "body").
func writeLegend(o *out, api bool, sides []side) {
	has := map[string]bool{}
	for _, sd := range sides {
		if sd.x == nil {
			continue
		}
		for i := range int32(len(sd.x.Tree().Nodes)) {
			has[regionClass(sd.x.Region(i), sd.body)] = true
		}
	}
	o.s(`<ul class="legend" aria-label="Regions">`)
	for _, l := range legendItems {
		if !has[l.class] {
			continue
		}
		name := l.name
		if !api {
			switch l.class {
			case "h", "p":
				continue
			case "q":
				name = "body"
			}
		}
		o.s(`<li><span class="sw `, l.class, `"></span>`, name, "</li>")
	}
	o.s("</ul>\n")
}

// regionClass maps render's region names to the classes of the page.
func regionClass(region, body string) string {
	switch region {
	case "frame":
		return "f"
	case "header":
		return "h"
	case "RecordBatch":
		return "rb"
	case "Record":
		return "rr"
	case "tagged_fields":
		return "t"
	}
	return body
}

// regionName is the region as the tree's region column names it.
func regionName(region, body string) string {
	switch region {
	case "body":
		switch body {
		case "q":
			return "request body"
		case "p":
			return "response body"
		}
	}
	return region
}

// writeSide writes one side: title, byte grid, object tree, then what
// more(), the spec and history, adds.
func writeSide(o *out, sd side, more func()) {
	o.s(`<section class="side" id="`, sd.id, `" data-p="`, sd.prefix, `" aria-labelledby="`, sd.id, `-h">`+"\n")
	o.s(`<h2 id="`, sd.id, `-h">`, sd.Label)
	switch sd.id {
	case "request":
		o.s(` <a class="perm" href="request.html#request" title="Link to the request">#</a>`)
	case "response":
		o.s(` <a class="perm" href="response.html" title="Link to the response">#</a>`)
	}
	o.s("</h2>\n")
	t := sd.Tree
	if t != nil && len(t.Nodes) > 0 {
		x := sd.x
		if x == nil {
			x = render.NewIndex(t)
		}
		o.s(`<p class="title">`)
		writeTitle(o, t)
		o.s("</p>\n")
		writeGrid(o, sd, x)
		writeTree(o, sd, x)
	}
	if sd.Err != nil {
		o.s(`<p class="err" role="alert">`)
		o.e(sd.Err.Error())
		o.s("</p>\n")
	}
	if t != nil {
		for _, p := range t.Problems {
			o.s(`<p class="err">`)
			o.e(p.String())
			o.s("</p>\n")
		}
	}
	if more != nil {
		more()
	}
	o.s("</section>\n")
}

// writeTitle writes the title line of a side: "VoteRequest v2, request
// header v2, 83 bytes on the wire".
func writeTitle(o *out, t *tree.Tree) {
	name := "message"
	if t.Message != nil {
		name = t.Message.Name
	}
	o.e(name)
	o.s(" v")
	o.d(int(t.Version))
	if t.HeaderVersion >= 0 {
		if t.Message != nil && t.Message.Type == spec.Response {
			o.s(", response header v")
		} else {
			o.s(", request header v")
		}
		o.d(int(t.HeaderVersion))
	}
	o.s(", ")
	o.d(len(t.Bytes))
	o.s(" bytes on the wire")
}

// upperHex are the grid's column labels.
const upperHex = "0123456789ABCDEF"

// writeGrid writes the byte layout: 16 bytes a row, each byte coloured by
// the region of the leaf that covers it.
func writeGrid(o *out, sd side, x *render.Index) {
	t := x.Tree()
	n := len(t.Bytes)
	cls := make([]string, n)
	t.Leaves(func(i int32) bool {
		nd := &t.Nodes[i]
		c := regionClass(x.Region(i), sd.body)
		for k := nd.Off; k < nd.Off+nd.Size && int(k) < n; k++ {
			cls[k] = c
		}
		return true
	})
	o.s(`<h3>byte layout <span class="dim">(`)
	o.d(n)
	o.s(" bytes, 16 bytes per row)</span></h3>\n")
	o.s(`<div class="grid" role="group" aria-label="byte layout, `)
	o.d(n)
	o.s(` bytes" data-n="`)
	o.d(n)
	o.s(`"><span class="c"></span>`)
	for c := 0; c < 16; c++ {
		o.s(`<span class="c">`, upperHex[c:c+1], "</span>")
	}
	for k := 0; k < n; k++ {
		if k%16 == 0 {
			o.s("\n<span class=\"o\">")
			o.hex4(k)
			o.s("</span>")
		}
		o.s(`<span id="`, sd.prefix, "b-0x")
		o.hexn(k)
		o.s(`" class="`, cls[k], `">`)
		b := t.Bytes[k]
		o.s(hexDigits[b>>4:b>>4+1], hexDigits[b&15:b&15+1], "</span>")
	}
	o.s("\n</div>\n")
	o.s(`<p class="status" aria-live="polite">Hover or focus a byte or a row of the tree.</p>` + "\n")
}

// anchor is node i's id without the side's prefix: its path with the
// message name dropped, in the anchor notation (tree.Path.AppendAnchor:
// [n] as .n).
func anchor(x *render.Index, i int32, root string) string {
	if i == 0 {
		return "message"
	}
	p := x.Steps(i)
	if len(p) > 1 && !p[0].IsIndex() && p[0].Name == root && !p[1].IsIndex() {
		p = p[1:]
	}
	return string(p.AppendAnchor(nil))
}

// uuidLen is the length of a uuid as the tree shows it: the longest value
// a row keeps on one line.
const uuidLen = 36

// maxDepthClass is the deepest indentation class of the stylesheet (d0…d40).
const maxDepthClass = 40

// writeTree writes the object tree as a table, one row per node, each with
// its id (see anchor), its byte range in data-o/data-s and its region.
func writeTree(o *out, sd side, x *render.Index) {
	t := x.Tree()
	root := ""
	if t.Message != nil {
		root = t.Message.Name
	}
	o.s(`<h3>object tree</h3>` + "\n" + `<div class="tw"><table class="tree"><thead><tr><th scope="col">name</th><th scope="col">type</th><th scope="col">value</th><th scope="col">range</th><th scope="col">region</th><th scope="col">about</th></tr></thead><tbody>`)
	seen := make(map[string]int, len(t.Nodes))
	for i := int32(0); i < int32(len(t.Nodes)); i++ {
		nd := &t.Nodes[i]
		id := anchor(x, i, root)
		if n := seen[id]; n > 0 {
			seen[id] = n + 1
			id += "~" + strconv.Itoa(n+1)
		} else {
			seen[id] = 1
		}
		region := x.Region(i)
		cls := regionClass(region, sd.body)
		virtual := t.IsVirtual(i)
		o.s("\n<tr id=\"", sd.prefix)
		o.e(id)
		o.s(`" class="`, cls)
		if t.IsLeaf(i) {
			o.s(" l")
		}
		if nd.Flags()&(tree.FlagProblem|tree.FlagBadCRC|tree.FlagSizeMismatch) != 0 {
			o.s(" bad")
		}
		if virtual {
			o.s(` v">`)
		} else {
			o.s(`" data-o="`)
			o.d(int(nd.Off))
			o.s(`" data-s="`)
			o.d(int(nd.Size))
			o.s(`">`)
		}
		o.s(`<td class="n d`)
		o.d(min(x.Depth(i), maxDepthClass))
		o.s(`"><a href="#`, sd.prefix)
		o.e(id)
		o.s(`">`)
		o.e(x.Name(i))
		o.s("</a></td><td>")
		o.e(x.Type(i))
		if v := x.Value(i); utf8.RuneCountInString(v) > uuidLen {
			// A value longer than a uuid wraps (site.css).
			o.s(`</td><td class="w">`)
			o.e(v)
		} else {
			o.s("</td><td>")
			o.e(v)
		}
		o.s(`</td><td class="rg">[`)
		if virtual {
			o.s("v")
		}
		o.s("0x")
		o.hex4(int(nd.Off))
		o.s(", ")
		o.d(int(nd.Size))
		o.s("B]</td><td>")
		o.s(regionName(region, sd.body))
		o.s("</td><td>")
		o.e(x.About(i))
		o.s("</td></tr>")
	}
	o.s("\n</tbody></table></div>\n")
}

// specText is the spec file's JSON without the licence header that
// precedes it.
func specText(m *spec.Message) []byte {
	b := m.Text
	// Skip leading comment lines and blank lines up to the first '{'.
	for len(b) > 0 {
		line := b
		if i := indexByte(b, '\n'); i >= 0 {
			line = b[:i+1]
		}
		trim := strings.TrimSpace(string(line))
		if trim == "" || strings.HasPrefix(trim, "//") {
			b = b[len(line):]
			continue
		}
		break
	}
	if len(b) == 0 {
		return m.Text
	}
	return b
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// writeSpec writes the spec's JSON text.
func writeSpec(o *out, m *spec.Message) {
	o.s(`<details class="spec" open><summary>kafka message schema (.json): `)
	o.e(m.Name)
	o.s("</summary>\n<pre>")
	o.eb(specText(m))
	o.s("</pre></details>\n")
}

// writeHistory writes what each version of h's message changed, marking v.
func writeHistory(o *out, e *entry, h *evolve.MessageHistory, v int16) {
	o.s(`<details class="hist" open><summary>version history: `)
	o.e(h.Message.Name)
	o.s("</summary>\n<ol class=\"vh\">")
	for _, vh := range h.Versions {
		vs := strconv.Itoa(int(vh.Version))
		if vh.Version == v {
			o.s(`<li class="cur"><a href="`, e.pageFile(), `" aria-current="page">v`, vs, "</a>")
		} else {
			o.s(`<li><a href="../v`, vs, "/", e.pageFile(), `">v`, vs, "</a>")
		}
		marks := vh.Marks("unstable")
		if s, ok := h.Span(vh.Version); ok {
			marks = append(marks, s.Words())
		}
		if len(marks) > 0 {
			o.s(` <span class="dim">`, strings.Join(marks, "; "), "</span>")
		}
		if len(vh.Changes) > 0 || len(vh.Notes) > 0 {
			o.s("<ul>")
			for _, c := range vh.Changes {
				o.s("<li><code>")
				o.e(changeText(c))
				o.s("</code></li>")
			}
			for _, n := range vh.Notes {
				o.s(`<li class="note">// `)
				o.e(n.Text)
				o.s("</li>")
			}
			o.s("</ul>")
		}
		o.s("</li>")
	}
	o.s("</ol>")
	if other := h.OtherSpans(); len(other) > 0 {
		o.s(`<p class="dim">Versions of other embedded releases:</p><ul>`)
		for _, g := range other {
			o.s("<li>v", g.Versions.String(), " ")
			o.e(g.Words)
			o.s("</li>")
		}
		o.s("</ul>")
	}
	if len(h.Spans) > 0 {
		o.s(`<p class="dim">`)
		o.e(spec.SpanLegend())
		o.s("</p>")
	}
	if len(h.Other) > 0 {
		o.s(`<p class="dim">Comments on versions that are not valid:</p><ul>`)
		for _, n := range h.Other {
			o.s(`<li class="note">// `)
			o.e(n.Text)
			o.s("</li>")
		}
		o.s("</ul>")
	}
	o.s("</details>\n")
}

// changeText says one change of a version: "+ Topics.Partitions.PreVote
// bool", "- X int32 (versions 0-1)", "~ X becomes nullable".
func changeText(c evolve.Change) string {
	f := c.Field
	switch c.Kind {
	case "added":
		s := "+ " + c.Path + " " + f.TypeString
		var facts []string
		if f.HasTag {
			facts = append(facts, "tagged "+f.TaggedVersions.String()+", tag "+strconv.Itoa(int(f.Tag)))
		}
		if !f.NullableVersions.Empty() {
			facts = append(facts, "nullable "+f.NullableVersions.String())
		}
		if f.Ignorable {
			facts = append(facts, "ignorable")
		}
		if len(facts) > 0 {
			s += " (" + strings.Join(facts, ", ") + ")"
		}
		if f.About != "" {
			s += ": " + f.About
		}
		return s
	case "removed":
		return "- " + c.Path + " " + f.TypeString + " (versions " + f.Versions.String() + ")"
	case "nullable":
		return "~ " + c.Path + " becomes nullable (nullableVersions " + f.NullableVersions.String() + ")"
	case "not-nullable":
		return "~ " + c.Path + " is no longer nullable (nullableVersions " + f.NullableVersions.String() + ")"
	case "tagged":
		return "~ " + c.Path + " becomes tagged, tag " + strconv.Itoa(int(f.Tag)) + " (taggedVersions " + f.TaggedVersions.String() + ")"
	}
	return c.Kind + " " + c.Path
}
