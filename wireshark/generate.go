package wireshark

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
)

// ProtoName is the protocol name of the generated dissector, the prefix of
// every filter name. It is not "kafka", so that Wireshark's built-in
// dissector keeps its name and both can be loaded.
const ProtoName = "kafka4"

// walker is the hand-written part of the dissector: the generic Lua code
// that interprets the generated tables.
//
//go:embed walker.lua
var walker string

// Type codes of the generated tables (the walker's T_* constants).
const (
	tBool = iota + 1
	tInt8
	tInt16
	tUint16
	tInt32
	tUint32
	tInt64
	tFloat64
	tUUID
	tString
	tBytes
	tRecords
	tStruct
	tArray
)

var kindCodes = map[spec.Kind]int{
	spec.KindBool: tBool, spec.KindInt8: tInt8, spec.KindInt16: tInt16, spec.KindUint16: tUint16,
	spec.KindInt32: tInt32, spec.KindUint32: tUint32, spec.KindInt64: tInt64, spec.KindFloat64: tFloat64,
	spec.KindUUID: tUUID, spec.KindString: tString, spec.KindBytes: tBytes, spec.KindRecords: tRecords,
	spec.KindStruct: tStruct, spec.KindArray: tArray,
}

// headerNames are the filter names of the header fields, which every API
// shares: kafka4.api_key rather than kafka4.request_header.request_api_key.
var headerNames = map[string]string{
	"RequestApiKey":     "api_key",
	"RequestApiVersion": "api_version",
	"CorrelationId":     "correlation_id",
	"ClientId":          "client_id",
}

// fieldDef is one ProtoField of the dissector.
type fieldDef struct {
	abbr  string // without the "kafka4." prefix
	label string // the spec's field name
	code  int    // type code (tBool…tRecords)
	blurb string // the spec's about
	err   bool   // an int16 error code (a name ending in ErrorCode)
}

// gen builds the tables of one dissector.
type gen struct {
	fields  []fieldDef
	byAbbr  map[string]int // abbr -> index into fields
	structs []string       // Lua table constructors of the struct schemas
	byBody  map[string]int // constructor -> index into structs (1-based)
	apis    map[int16]*apiDef
	// reqH and respH are the request and response header versions, as
	// Lua constructors (see header).
	reqH, respH map[int16]string
	// ctl are the control record types (see control), by type.
	ctl map[int]string
}

// apiDef is one API of the dissector: its name and, per version, its
// request and response schemas and header versions.
type apiDef struct {
	name     string
	versions map[int16]string // Lua table constructor of the version's entry
}

// Generate writes the Lua source of a Wireshark dissector for the APIs
// of sets: every request and response version of every API, headers by
// the header-version rule. With several sets (newest first), an API
// version takes its schema from the first set that has it, so that one
// dissector knows the versions of every release. The output depends on
// nothing but the sets: the same specs give the same bytes.
func Generate(sets ...*spec.Set) ([]byte, error) {
	if len(sets) == 0 {
		return nil, errors.New("wireshark: no specs")
	}
	g := &gen{byAbbr: map[string]int{}, byBody: map[string]int{}, apis: map[int16]*apiDef{}}
	g.reqH, g.respH = map[int16]string{}, map[int16]string{}
	g.ctl = map[int]string{}
	for _, s := range sets {
		g.control(s)
		rh, sh := s.RequestHeader(), s.ResponseHeader()
		if rh == nil || sh == nil {
			return nil, fmt.Errorf("wireshark: the specs of %s have no RequestHeader or ResponseHeader", setName(s))
		}
		for _, h := range []struct {
			m    map[int16]string
			spec *spec.Message
		}{{g.reqH, rh}, {g.respH, sh}} {
			for v := int16(0); v <= 2; v++ {
				if _, ok := h.m[v]; !ok && h.spec.ValidVersions.Contains(v) {
					h.m[v] = g.header(h.spec, v)
				}
			}
		}
		for _, k := range s.APIKeys() {
			req, resp := s.Request(k), s.Response(k)
			if req == nil || resp == nil {
				continue
			}
			a := g.apis[k]
			if a == nil {
				a = &apiDef{name: req.BaseName(), versions: map[int16]string{}}
				g.apis[k] = a
			}
			for v := req.ValidVersions.Lo; !req.ValidVersions.Empty() && v <= req.ValidVersions.Hi; v++ {
				if _, ok := a.versions[v]; ok || !resp.ValidVersions.Contains(v) {
					continue
				}
				api := snake(req.BaseName())
				rq := g.compile(req.Root, v, req.Flexible(v), api+".request", "")
				rs := g.compile(resp.Root, v, resp.Flexible(v), api+".response", "")
				rqh, rsh := frame.RequestHeaderVersion(req, v), frame.ResponseHeaderVersion(resp, v)
				_, okq := g.reqH[rqh]
				_, oks := g.respH[rsh]
				if !okq || !oks {
					return nil, fmt.Errorf("wireshark: %s v%d needs request header v%d and response header v%d", req.BaseName(), v, rqh, rsh)
				}
				a.versions[v] = fmt.Sprintf("{%d,%d,%d,%d,%d,%d}", rq, rs, rqh, rsh, b2i(req.Flexible(v)), b2i(resp.Flexible(v)))
			}
		}
	}
	var b bytes.Buffer
	g.preamble(&b, sets)
	g.tables(&b)
	b.WriteString(walker)
	return b.Bytes(), nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func setName(s *spec.Set) string {
	if s.Release != "" {
		return "Kafka " + s.Release
	}
	return s.Source
}

// control adds the control record types that package records knows
// (records.ControlTypeName) and are not in g.ctl yet, each as the Lua
// constructor {name, value schema, value flexible, value message}: the
// schema (0 for none) of the message its value holds
// (records.ControlMessage), at version 0 as package records decodes it,
// its fields named after the message (FilterName's scheme:
// kafka4.leader_change_message.voters.voter_id). A message missing from
// s leaves the type for an older set to fill; with none, its value is
// shown as bytes, as kwire does without the spec.
func (g *gen) control(s *spec.Set) {
	for t := 0; records.ControlTypeName(t) != "UNKNOWN"; t++ {
		if _, ok := g.ctl[t]; ok {
			continue
		}
		name := records.ControlMessage(t)
		if name == "" {
			g.ctl[t] = fmt.Sprintf("{%s,0,0,\"\"}", luaString(records.ControlTypeName(t)))
			continue
		}
		m := s.Message(name)
		if m == nil || !m.ValidVersions.Contains(0) {
			continue
		}
		si := g.compile(m.Root, 0, m.Flexible(0), snake(m.Name), "")
		g.ctl[t] = fmt.Sprintf("{%s,%d,%d,%s}", luaString(records.ControlTypeName(t)), si, b2i(m.Flexible(0)), luaString(m.Name))
	}
}

// header compiles version v of a header spec, whose fields take the
// shared names of headerNames: the Lua constructor {schema, flexible}.
func (g *gen) header(h *spec.Message, v int16) string {
	return fmt.Sprintf("{%d,%d}", g.compile(h.Root, v, h.Flexible(v), "", "header"), b2i(h.Flexible(v)))
}

// compile returns the index of the schema of struct st at version v; the
// fields' filter names are prefix.path (prefix "" for headers, whose
// fields have their own names).
func (g *gen) compile(st *spec.Struct, v int16, flexible bool, prefix, path string) int {
	var pos, tags []string
	for _, f := range st.Fields {
		if !f.Versions.Contains(v) {
			continue
		}
		e := g.entry(f, v, flexible, prefix, path)
		if flexible && f.TaggedIn(v) {
			tags = append(tags, fmt.Sprintf("[%d]=%s", f.Tag, e))
		} else {
			pos = append(pos, e)
		}
	}
	body := "{" + strings.Join(pos, ",")
	if len(tags) > 0 {
		if len(pos) > 0 {
			body += ","
		}
		body += "t={" + strings.Join(tags, ",") + "}"
	}
	body += "}"
	if i, ok := g.byBody[body]; ok {
		return i
	}
	g.structs = append(g.structs, body)
	g.byBody[body] = len(g.structs)
	return len(g.structs)
}

// entry is the Lua constructor of one field of a schema:
// {type, field, nullable, sub, name, classic}: field is the ProtoField's
// index (0 for structs and arrays of structs), sub the schema of a struct
// or struct element (or the element type code of a scalar array, negated),
// name the spec's field name (for struct elements, the struct's name
// after a '/'), classic 1 when a string keeps its int16 length in a
// flexible version (RequestHeader.ClientId).
func (g *gen) entry(f *spec.Field, v int16, flexible bool, prefix, path string) string {
	p := snake(f.Name)
	if path != "" {
		p = path + "." + p
	}
	abbr := p
	if prefix != "" {
		abbr = prefix + "." + p
	} else if n, ok := headerNames[f.Name]; ok {
		abbr = n
	}
	code := kindCodes[f.Type.Kind]
	nullable := b2i(f.NullableIn(v))
	classic := 0
	if f.HasFlexibleVersions && !f.FlexibleVersions.Contains(v) {
		classic = 1
	}
	name := f.Name
	fi, sub := 0, 0
	switch f.Type.Kind {
	case spec.KindStruct:
		sub = g.compile(f.Type.Struct, v, flexible, prefix, p)
	case spec.KindArray:
		if f.Type.Elem == spec.KindStruct {
			sub = g.compile(f.Type.Struct, v, flexible, prefix, p)
			name += "/" + f.Type.Struct.Name
		} else {
			sub = -kindCodes[f.Type.Elem]
			fi = g.field(abbr, f.Name, kindCodes[f.Type.Elem], f.About, false)
		}
	default:
		isErr := f.Type.Kind == spec.KindInt16 && strings.HasSuffix(f.Name, "ErrorCode")
		fi = g.field(abbr, f.Name, code, f.About, isErr)
	}
	return fmt.Sprintf("{%d,%d,%d,%d,%s,%d}", code, fi, nullable, sub, luaString(name), classic)
}

// field returns the index of the ProtoField abbr, adding it. A name that
// another field holds with another type gets the type's name appended.
func (g *gen) field(abbr, label string, code int, blurb string, isErr bool) int {
	for {
		i, ok := g.byAbbr[abbr]
		if !ok {
			g.fields = append(g.fields, fieldDef{abbr: abbr, label: label, code: code, blurb: blurb, err: isErr})
			g.byAbbr[abbr] = len(g.fields)
			return len(g.fields)
		}
		if g.fields[i-1].code == code && g.fields[i-1].err == isErr {
			return i
		}
		abbr += "_" + typeNames[code]
	}
}

var typeNames = [...]string{"", "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "uuid", "string", "bytes", "records", "struct", "array"}

// preamble writes the header comment: generated, from which specs, and
// the specs' Apache-2.0 attribution.
func (g *gen) preamble(b *bytes.Buffer, sets []*spec.Set) {
	b.WriteString("-- Wireshark dissector for the Apache Kafka protocol, protocol \"" + ProtoName + "\".\n")
	b.WriteString("-- Generated by kwire wireshark from Apache Kafka's message specifications. DO NOT EDIT:\n")
	b.WriteString("-- generate it again instead (kwire wireshark --help).\n--\n-- Specs:\n")
	for _, s := range sets {
		b.WriteString("--   " + setName(s) + "\n")
		for _, a := range s.Artifacts {
			fmt.Fprintf(b, "--     %s sha256:%s\n", a.Coord, a.SHA256)
		}
		if s.Release == "" && s.Source != "" {
			fmt.Fprintf(b, "--     %s\n", oneLine(s.Source))
		}
	}
	b.WriteString(`--
-- The tables below are derived from Apache Kafka's message specification
-- files (field names, types, versions and "about" texts):
--   Apache Kafka
--   Copyright The Apache Software Foundation
--   This product includes software developed at The Apache Software
--   Foundation (https://www.apache.org/).
--   Licensed under the Apache License, Version 2.0
--   (https://www.apache.org/licenses/LICENSE-2.0).
`)
	// SPECS names the specs in the protocol's description and in expert
	// infos: one release, or the newest and oldest of several.
	specs := setName(sets[0])
	if n := len(sets); n > 1 {
		specs = fmt.Sprintf("%s to %s, %d spec sets", setName(sets[0]), strings.TrimPrefix(setName(sets[n-1]), "Kafka "), n)
	}
	fmt.Fprintf(b, "\nlocal SPECS = %s\n", luaString(specs))
}

func oneLine(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " ") }

// tables writes the generated data: F (ProtoFields), S (struct schemas), A
// (APIs), HQ and HS (headers), CT (control record types), E (error names).
func (g *gen) tables(b *bytes.Buffer) {
	b.WriteString("\n-- F: {filter name after \"" + ProtoName + ".\", field name, type, about, error code}\nlocal F = {\n")
	for _, f := range g.fields {
		fmt.Fprintf(b, "{%s,%s,%d,%s,%d},\n", luaString(f.abbr), luaString(f.label), f.code, luaString(f.blurb), b2i(f.err))
	}
	b.WriteString("}\n\n-- S: struct schemas, each field {type, F index, nullable, schema or -element type, name, classic string}; t: tagged fields by tag\nlocal S = {\n")
	for _, s := range g.structs {
		b.WriteString(s)
		b.WriteString(",\n")
	}
	b.WriteString("}\n\n-- A[api key] = {name, {[version] = {request schema, response schema, request header version, response header version, request flexible, response flexible}}}\nlocal A = {\n")
	keys := make([]int16, 0, len(g.apis))
	for k := range g.apis {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		a := g.apis[k]
		vs := make([]int16, 0, len(a.versions))
		for v := range a.versions {
			vs = append(vs, v)
		}
		slices.Sort(vs)
		fmt.Fprintf(b, "[%d]={%s,{", k, luaString(a.name))
		for i, v := range vs {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, "[%d]=%s", v, a.versions[v])
		}
		b.WriteString("}},\n")
	}
	b.WriteString("}\n\n-- HQ, HS[header version] = {schema, flexible}: request and response headers\n")
	for _, h := range []struct {
		name string
		m    map[int16]string
	}{{"HQ", g.reqH}, {"HS", g.respH}} {
		b.WriteString("local " + h.name + " = {")
		for v := int16(0); v <= 2; v++ {
			if c, ok := h.m[v]; ok {
				fmt.Fprintf(b, "[%d]=%s,", v, c)
			}
		}
		b.WriteString("}\n")
	}
	b.WriteString("\n-- CT[control record type] = {name, value schema (0: none), value flexible, value message}\nlocal CT = {\n")
	types := make([]int, 0, len(g.ctl))
	for t := range g.ctl {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		fmt.Fprintf(b, "[%d]=%s,\n", t, g.ctl[t])
	}
	b.WriteString("}\n")
	b.WriteString("\n-- E: Kafka's error codes by number\nlocal E = {\n")
	for c := -1; c <= 32767; c++ {
		n := flow.ErrorName(int16(c))
		if n == "" {
			break
		}
		fmt.Fprintf(b, "[%d]=%s,\n", c, luaString(n))
	}
	b.WriteString("}\n\n")
}

// luaString quotes s as a Lua string literal; bytes other than printable
// ASCII are written as three-digit decimal escapes, so that the output is
// plain ASCII.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\%03d`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
