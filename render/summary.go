package render

import (
	"strconv"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// info is what a page's summary and its JSON say about the message: an
// API (request and/or response) or a record type.
type info struct {
	api     bool
	name    string        // "EndQuorumEpoch", "PartitionRecord"
	typ     string        // "api", "metadata", "data"…
	key     int16         // -1 when the message has no api key
	keyText string        // "54 (EndQuorumEpoch)"
	version int16         // the version of the first side
	msg     *spec.Message // the first side's message
	tree    *tree.Tree    // the first side's tree
	// req and resp are an API's specs (from its sides, else from the
	// page's Set); nil when unknown.
	req, resp *spec.Message
}

func pageInfo(p *Page) info {
	in := info{key: -1, version: -1}
	for _, s := range p.Sides {
		if s.Tree == nil || s.Tree.Message == nil {
			continue
		}
		m := s.Tree.Message
		if in.msg == nil {
			in.msg, in.version, in.tree = m, s.Tree.Version, s.Tree
		}
		switch m.Type {
		case spec.Request:
			in.req = m
		case spec.Response:
			in.resp = m
		}
	}
	m := in.msg
	if m == nil {
		in.name, in.typ = "unknown message", "unknown"
		return in
	}
	in.key, in.name, in.typ = m.APIKey, m.Name, string(m.Type)
	in.api = m.Type == spec.Request || m.Type == spec.Response
	if in.api {
		in.name, in.typ = m.BaseName(), "api"
		if p.Set != nil && in.req == nil {
			in.req = p.Set.Request(m.APIKey)
		}
		if p.Set != nil && in.resp == nil {
			in.resp = p.Set.Response(m.APIKey)
		}
	}
	if in.key >= 0 {
		in.keyText = strconv.Itoa(int(in.key)) + " (" + apiName(p.Set, m) + ")"
	}
	return in
}

// apiName names m's api key: the API's base name (from the Set when it
// has one) or the record type's name.
func apiName(s *spec.Set, m *spec.Message) string {
	if m.Type == spec.Request || m.Type == spec.Response {
		if s != nil {
			if r := s.Request(m.APIKey); r != nil {
				return r.BaseName()
			}
		}
		return m.BaseName()
	}
	return m.Name
}

// encodedAt is the version the page's message is encoded at, "v1"; for a
// coordinator record value whose int16 prefix holds a version the spec
// lacks (the tree is not decoded past it), that version and that it is
// not valid: "v9 (its prefix; not a valid version)".
func encodedAt(in info) string {
	v := "v" + strconv.Itoa(int(in.version))
	if in.tree == nil || embeddedPrefix(in.tree, 0) != "version" {
		return v
	}
	if p := int16(in.tree.Num(2)); !in.msg.ValidVersions.Contains(p) {
		return "v" + strconv.Itoa(int(p)) + " (its prefix; not a valid version)"
	}
	return v
}

// versionsText renders an API's request and response ranges as one text
// when they agree, else "req X, resp Y".
func versionsText(req, resp *spec.Message, get func(*spec.Message) spec.Versions) string {
	switch {
	case req != nil && resp != nil && get(req) != get(resp):
		return "req " + get(req).String() + ", resp " + get(resp).String()
	case req != nil:
		return get(req).String()
	case resp != nil:
		return get(resp).String()
	}
	return ""
}

func flexibleOf(m *spec.Message) spec.Versions { return m.FlexibleVersions }
func validOf(m *spec.Message) spec.Versions    { return m.ValidVersions }

// summary returns the page title and its label/value rows.
func summary(p *Page) (string, [][2]string) {
	in := pageInfo(p)
	var items [][2]string
	add := func(k, v string) { items = append(items, [2]string{k, v}) }
	if in.msg == nil {
		return in.name, nil
	}
	if !in.api {
		add("Type", in.typ)
	}
	switch {
	case in.msg.VersionPrefixed():
		if rt := in.msg.RecordTypes; !rt.Empty() {
			add("Record type", rt.String())
		}
		if in.msg.Topic != "" {
			add("Topic", in.msg.Topic.TopicName())
		}
	case in.keyText != "":
		add("API key", in.keyText)
		if in.msg.Topic != "" {
			add("Topic", in.msg.Topic.TopicName())
		}
	}
	add("Encoded at", encodedAt(in))
	if in.api {
		add("Flexible versions", versionsText(in.req, in.resp, flexibleOf))
		if h := headersText(p); h != "" {
			add("Headers", h)
		}
		if in.req != nil {
			add("Request versions", in.req.ValidVersions.String())
		}
		if in.resp != nil {
			add("Response versions", in.resp.ValidVersions.String())
		}
	} else {
		add("Valid versions", in.msg.ValidVersions.String())
		add("Flexible versions", in.msg.FlexibleVersions.String())
	}
	for _, s := range p.Sides {
		if s.Tree == nil {
			continue
		}
		label := "Size"
		if in.api && s.Label != "" {
			label = s.Label + " size"
		}
		add(label, strconv.Itoa(len(s.Tree.Bytes))+" bytes")
	}
	return in.name, items
}

// headersText is "req v2, resp v1" for the sides present.
func headersText(p *Page) string {
	out := ""
	for _, s := range p.Sides {
		t := s.Tree
		if t == nil || t.Message == nil || t.HeaderVersion < 0 {
			continue
		}
		part := "req v"
		if t.Message.Type == spec.Response {
			part = "resp v"
		}
		if out != "" {
			out += ", "
		}
		out += part + strconv.Itoa(int(t.HeaderVersion))
	}
	return out
}

// sampleNote explains a page of smallest legal instances.
func sampleNote(p *Page) string {
	var v int16
	var m *spec.Message
	for _, s := range p.Sides {
		if s.Tree == nil || !s.Tree.Sample {
			return ""
		}
		if m == nil {
			m, v = s.Tree.Message, s.Tree.Version
		}
	}
	if m == nil {
		return ""
	}
	note := "Smallest legal instance: numbers are 0, strings and bytes are empty, every array\n" +
		"holds one sample element and a records field one empty 61-byte RecordBatch v2."
	if m.Flexible(v) {
		note += "\nv" + strconv.Itoa(int(v)) + " is flexible: compact (n+1) lengths, and every struct ends with a\n" +
			"uvarint count of tagged fields."
	}
	if m.Type == spec.Request || m.Type == spec.Response {
		note += "\nSizes include the int32 size prefix."
	}
	return note
}
