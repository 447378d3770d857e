package conform

import (
	"fmt"
	"strings"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// required are the APIs a broker listener must announce: what every
// client needs to find, write and read a topic (Produce, Fetch,
// ListOffsets, Metadata, ApiVersions).
var required = []int16{0, 1, 2, 3, 18}

// judgeHandshake judges the ApiVersions exchange the connection began
// with, as the probe of kind "apiversions": the response as Judge does,
// then its ApiKeys against the release (JudgeAPIVersions).
func (e *engine) judgeHandshake(x *client.Exchange) {
	if x == nil || x.Response == nil {
		return
	}
	t := x.Response
	p := Probe{API: "ApiVersions", Key: 18, Version: t.Version, Kind: "apiversions", Request: x.Request.Bytes, Response: t.Bytes, Latency: x.Latency}
	j := Judge(e.cd, x.Request, t, nil)
	p.Findings, p.Error = j.Findings, j.Error
	if p.Error == "UNSUPPORTED_VERSION" && t.Version == 0 {
		p.Error = "" // the KIP-511 answer, followed by the retry the handshake made
	}
	fs, refs := judgeAPIVersions(e.o.Set, t, e.o.References)
	p.Findings = append(p.Findings, fs...)
	if len(refs) > 0 {
		p.Reference = strings.Join(refs, ", ")
	}
	e.handshake = t
	e.entry = map[int16]int32{}
	if b := t.Part(tree.Body); b >= 0 {
		keys := t.At(b).Field("ApiKeys")
		for i := range keys.Len() {
			el := keys.Elem(i)
			e.entry[int16(el.Field("ApiKey").Int())] = el.Node()
		}
	}
	switch {
	case len(p.Findings) > 0:
		p.Outcome = Found
	case p.Error != "":
		p.Outcome = KafkaError
	}
	if js, err := codec.ToJSON(nil, x.Request, x.Request.Part(tree.Body), x.Request.Message, x.Request.Version, codec.ConverterOptions); err == nil {
		p.Body = js
	}
	e.r.Probes = append(e.r.Probes, p)
	if e.o.OnProbe != nil {
		e.o.OnProbe(&e.r.Probes[len(e.r.Probes)-1])
	}
}

// JudgeAPIVersions judges the ApiKeys of an ApiVersionsResponse t against
// the release s: every api key one the release defines, each range within
// the versions the release defines (MinVersion ≤ MaxVersion), no version
// the release marks unstable (latestVersionUnstable: a broker announces it
// only with unstable versions enabled), no api key twice, and, when the
// target announces Metadata (a broker listener), the APIs every client
// needs (Produce, Fetch, ListOffsets, Metadata, ApiVersions). Findings
// have the rule "apiversions" and the path and offset of the element or
// field concerned.
//
// Versions below the release's that a reference behaviour explains (Kafka's
// Produce v0-2) are not findings; JudgeAPIVersions applies References.
func JudgeAPIVersions(s *spec.Set, t *tree.Tree) []Finding {
	fs, _ := judgeAPIVersions(s, t, References)
	return fs
}

// judgeAPIVersions is JudgeAPIVersions with the reference behaviours refs;
// it also returns the names of those that explained a range.
func judgeAPIVersions(s *spec.Set, t *tree.Tree, refs []ReferenceBehaviour) ([]Finding, []string) {
	var used []string
	b := t.Part(tree.Body)
	if b < 0 {
		return nil, nil
	}
	x := render.NewIndex(t)
	keys := t.At(b).Field("ApiKeys")
	if keys.Err() != nil {
		return nil, nil
	}
	var out []Finding
	add := func(v tree.Value, format string, args ...any) {
		out = append(out, Finding{Rule: "apiversions", Path: x.Path(v.Node()), Offset: int(t.Nodes[v.Node()].Off), Message: fmt.Sprintf(format, args...)})
	}
	seen := map[int16]bool{}
	for i := range keys.Len() {
		el := keys.Elem(i)
		k := int16(el.Field("ApiKey").Int())
		lo, hi := int16(el.Field("MinVersion").Int()), int16(el.Field("MaxVersion").Int())
		if seen[k] {
			add(el.Field("ApiKey"), "api key %d announced twice", k)
			continue
		}
		seen[k] = true
		m := s.Request(k)
		if m == nil {
			add(el.Field("ApiKey"), "api key %d is not an API of Kafka %s", k, s.Release)
			continue
		}
		name := m.BaseName()
		switch {
		case lo > hi:
			add(el.Field("MinVersion"), "%s v%d-%d: MinVersion above MaxVersion", name, lo, hi)
		case lo < m.ValidVersions.Lo && hi <= m.ValidVersions.Hi && announcedOnPurpose(refs, k, lo, m.ValidVersions.Lo) != "":
			used = append(used, announcedOnPurpose(refs, k, lo, m.ValidVersions.Lo))
		case lo < m.ValidVersions.Lo:
			add(el.Field("MinVersion"), "%s v%d-%d: Kafka %s defines v%s", name, lo, hi, s.Release, m.ValidVersions)
		case hi > m.ValidVersions.Hi:
			add(el.Field("MaxVersion"), "%s v%d-%d: Kafka %s defines v%s", name, lo, hi, s.Release, m.ValidVersions)
		case m.UnstableVersion() >= 0 && hi >= m.UnstableVersion():
			add(el.Field("MaxVersion"), "%s v%d-%d: v%d is unstable in Kafka %s (latestVersionUnstable)", name, lo, hi, m.UnstableVersion(), s.Release)
		}
	}
	if seen[3] {
		for _, k := range required {
			if !seen[k] {
				name := fmt.Sprintf("api key %d", k)
				if m := s.Request(k); m != nil {
					name = m.BaseName()
				}
				add(keys, "a broker listener must announce %s (api key %d): it does not", name, k)
			}
		}
	}
	return out, used
}
