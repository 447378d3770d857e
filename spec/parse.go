package spec

import (
	"encoding/base64"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// parser turns one JSON-with-comments spec file into a Message, collecting
// every problem with its position instead of stopping at the first.
type parser struct {
	file string
	// text is what is parsed: the file itself, or (for one object of a
	// draft, see draft.go) a copy with the rest blanked and repairs made;
	// pc maps its offsets back to src, the file, whose lines are counted.
	text  []byte
	src   []byte
	pc    *piece
	lines []int // byte offset of each line start of src
	errs  ErrorList
	// root is the parsed JSON; fixes are the unambiguous corrections of
	// problems found (for kwire lint --fix); typeSpan is where each
	// field's "type" value lies in text.
	root     *hujson.Value
	fixes    []*Fix
	typeSpan map[*Field][2]int
}

func newParser(file string, text []byte) *parser {
	return &parser{file: file, text: text, src: text, lines: lineStarts(text), typeSpan: map[*Field][2]int{}}
}

// pos converts a byte offset of text into a 1-based line and column of
// the file.
func (p *parser) pos(off int) Pos {
	return posIn(p.file, p.lines, p.srcOff(off))
}

// srcOff maps an offset of text to the file.
func (p *parser) srcOff(off int) int {
	if p.pc != nil {
		return p.pc.toSrc(off)
	}
	return off
}

func (p *parser) errorf(off int, rule, hint, format string, args ...any) *Error {
	e := &Error{Pos: p.pos(off), Severity: SeverityError, Rule: rule, Msg: fmt.Sprintf(format, args...), Hint: hint}
	p.errs = append(p.errs, e)
	return e
}

func (p *parser) warnf(off int, rule, hint, format string, args ...any) *Error {
	e := &Error{Pos: p.pos(off), Severity: SeverityWarning, Rule: rule, Msg: fmt.Sprintf(format, args...), Hint: hint}
	p.errs = append(p.errs, e)
	return e
}

// fix records that replacing text[off:end] with repl corrects e.
func (p *parser) fix(e *Error, desc string, off, end int, repl string) {
	so, se := p.srcOff(off), p.srcOff(end)
	p.fixes = append(p.fixes, &Fix{Pos: p.pos(off), Rule: e.Rule, Desc: desc, Edits: []Edit{{Off: so, End: se, New: repl}}, Problem: e})
}

// uniqueSuggest is Suggest's candidate when no other candidate is close
// enough to be meant as well: a correction safe to make without asking.
func uniqueSuggest(s string, candidates []string) string {
	best := Suggest(s, candidates)
	if best == "" || strings.EqualFold(best, s) {
		return best // no candidate, or only the case differs
	}
	var rest []string
	for _, c := range candidates {
		if c != best {
			rest = append(rest, c)
		}
	}
	if Suggest(s, rest) != "" {
		return ""
	}
	return best
}

// ParseMessage parses one spec file (Kafka's JSON with // and /* */
// comments) and resolves its structs. It returns the message even when
// problems were found (as far as it could be built) together with every
// problem; the message is usable only when errs.HasErrors() is false.
//
// A draft (see draft.go) may hold text around the object, a fragment
// without braces, or several objects: ParseMessage reports all of that,
// returns the first object's message, and the problems of every object.
func ParseMessage(file string, text []byte) (*Message, ErrorList) {
	pf := parseFile(file, text, false)
	var m *Message
	all := append(ErrorList(nil), pf.errs...)
	for _, u := range pf.units {
		if m == nil {
			m = u.msg
		}
		all = append(all, u.errs...)
	}
	all.Sort()
	return m, all
}

var hujsonPos = regexp.MustCompile(`line (\d+), column (\d+)`)

func (p *parser) parseFile() *Message {
	v, err := hujson.Parse(p.text)
	if err != nil {
		msg := err.Error()
		e := &Error{Pos: Pos{File: p.file}, Severity: SeverityError, Rule: "json-syntax", Msg: msg}
		if m := hujsonPos.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			if tl := lineStarts(p.text); line >= 1 && line <= len(tl) {
				e.Pos = p.pos(tl[line-1] + col - 1)
			}
			e.Msg = strings.TrimSpace(hujsonPos.ReplaceAllString(msg, ""))
			e.Msg = strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(e.Msg, "hujson:")), ":")
			e.Msg = strings.TrimSpace(strings.ReplaceAll(e.Msg, "parsing error at", ""))
			e.Msg = strings.Trim(strings.TrimSpace(e.Msg), ": ")
			e.Msg = "invalid JSON: " + e.Msg
		}
		p.errs = append(p.errs, e)
		return nil
	}
	p.root = &v
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		p.errorf(v.StartOffset, "json-syntax", "", "a spec file must hold one JSON object, found %s", kindName(v))
		return nil
	}
	return p.message(obj, v.StartOffset)
}

func kindName(v hujson.Value) string {
	switch v.Value.Kind() {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '0':
		return "a number"
	}
	return "a value"
}

// Top-level, field and commonStruct keys known to Kafka's generator
// (MessageSpec, FieldSpec, StructSpec); anything else fails there.
var (
	messageKeys = []string{"apiKey", "type", "listeners", "name", "validVersions", "flexibleVersions", "deprecatedVersions", "latestVersionUnstable", "fields", "commonStructs"}
	fieldKeys   = []string{"name", "type", "versions", "nullableVersions", "default", "ignorable", "entityType", "about", "mapKey", "zeroCopy", "flexibleVersions", "tag", "taggedVersions", "fields"}
	structKeys  = []string{"name", "versions", "deprecatedVersions", "fields"}
	entityTypes = []string{"unknown", "transactionalId", "producerId", "groupId", "topicName", "brokerId"}
	listenerSet = []string{"zkBroker", "broker", "controller"}
	msgTypes    = []string{"request", "response", "header", "metadata", "data", "coordinator-key", "coordinator-value"}
)

// member is one key of an object with its value and positions.
type member struct {
	key    string
	keyOff int
	val    *hujson.Value
}

func (p *parser) members(obj *hujson.Object, known []string, what string) map[string]member {
	out := make(map[string]member, len(obj.Members))
	for i := range obj.Members {
		m := &obj.Members[i]
		lit, _ := m.Name.Value.(hujson.Literal)
		key := lit.String()
		if !contains(known, key) {
			hint := ""
			if s := Suggest(key, known); s != "" {
				hint = fmt.Sprintf("did you mean %q?", s)
			}
			e := p.errorf(m.Name.StartOffset, "unknown-key", hint, "unknown key %q in %s", key, what)
			if s := uniqueSuggest(key, known); s != "" && !hasKey(obj, s) {
				p.fix(e, fmt.Sprintf("key %q → %q", key, s), m.Name.StartOffset, m.Name.EndOffset, strconv.Quote(s))
			}
			continue
		}
		// Duplicate keys: the last one wins, as in Jackson.
		out[key] = member{key: key, keyOff: m.Name.StartOffset, val: &m.Value}
	}
	return out
}

// hasKey reports whether obj has a member named key.
func hasKey(obj *hujson.Object, key string) bool {
	for i := range obj.Members {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == key {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// str reads a string-typed key with Jackson's scalar coercion (numbers and
// booleans become their text). JSON null gives "" (absent).
func (p *parser) str(ms map[string]member, key string) (string, int, bool) {
	m, ok := ms[key]
	if !ok {
		return "", -1, false
	}
	off := m.val.StartOffset
	switch lit := m.val.Value.(type) {
	case hujson.Literal:
		switch lit.Kind() {
		case '"':
			return lit.String(), off, true
		case 'n':
			return "", off, true
		case '0', 't', 'f':
			return string(lit), off, true
		}
	}
	p.errorf(off, "bad-value", "", "%q must be a string, found %s", key, kindName(*m.val))
	return "", off, true
}

func (p *parser) boolean(ms map[string]member, key string) (bool, int) {
	m, ok := ms[key]
	if !ok {
		return false, -1
	}
	off := m.val.StartOffset
	if lit, ok := m.val.Value.(hujson.Literal); ok {
		switch lit.Kind() {
		case 't', 'f':
			return lit.Bool(), off
		case '"':
			switch strings.ToLower(lit.String()) {
			case "true":
				return true, off
			case "false":
				return false, off
			}
		case 'n':
			return false, off
		}
	}
	p.errorf(off, "bad-value", "", "%q must be true or false", key)
	return false, off
}

func (p *parser) integer(ms map[string]member, key string, lo, hi int64) (int64, int, bool) {
	m, ok := ms[key]
	if !ok {
		return 0, -1, false
	}
	off := m.val.StartOffset
	if lit, ok := m.val.Value.(hujson.Literal); ok {
		text := string(lit)
		if lit.Kind() == '"' {
			text = lit.String()
		}
		if lit.Kind() == '0' || lit.Kind() == '"' {
			n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
			if err == nil && n >= lo && n <= hi {
				return n, off, true
			}
		}
	}
	p.errorf(off, "bad-value", "", "%q must be an integer in %d..%d", key, lo, hi)
	return 0, off, false
}

func (p *parser) versions(ms map[string]member, key string) (Versions, int, bool) {
	s, off, ok := p.str(ms, key)
	if !ok {
		return None, -1, false
	}
	v, present, err := ParseVersions(s)
	if err != nil {
		p.errorf(off, "bad-versions", "", "%s: %v", key, err)
		return None, off, false
	}
	return v, off, present
}

// list returns the elements of an array-valued key; a single value is taken
// as a one-element list (Jackson's ACCEPT_SINGLE_VALUE_AS_ARRAY).
func (p *parser) list(ms map[string]member, key string) []*hujson.Value {
	m, ok := ms[key]
	if !ok {
		return nil
	}
	switch v := m.val.Value.(type) {
	case *hujson.Array:
		out := make([]*hujson.Value, len(v.Elements))
		for i := range v.Elements {
			out[i] = &v.Elements[i]
		}
		return out
	case hujson.Literal:
		if v.Kind() == 'n' {
			return nil
		}
	}
	return []*hujson.Value{m.val}
}

func (p *parser) message(obj *hujson.Object, off int) *Message {
	ms := p.members(obj, messageKeys, "message")
	m := &Message{APIKey: -1, File: p.file, Text: p.src, Pos: p.pos(off), Structs: map[string]*Struct{},
		FlexibleVersions: None, DeprecatedVersions: None, ValidVersions: None}
	name, nameOff, ok := p.str(ms, "name")
	if !ok || name == "" {
		p.errorf(off, "missing-key", "", "the message has no \"name\"")
	}
	m.Name = name
	typ, typOff, ok := p.str(ms, "type")
	switch {
	case !ok:
		p.errorf(off, "missing-key", "", "the message has no \"type\" (one of %s)", strings.Join(msgTypes, ", "))
	case !contains(msgTypes, typ):
		hint := ""
		if s := Suggest(typ, msgTypes); s != "" {
			hint = fmt.Sprintf("did you mean %q?", s)
		}
		p.errorf(typOff, "bad-message-type", hint, "unknown message type %q: want one of %s", typ, strings.Join(msgTypes, ", "))
	}
	m.Type = MessageType(typ)
	if (m.Type == Request || m.Type == Response) && name != "" && !strings.HasSuffix(name, string(m.Type[0]-32)+string(m.Type[1:])) {
		p.errorf(nameOff, "bad-name", "", "a %s's name must end in %q, found %q", typ, strings.ToUpper(typ[:1])+typ[1:], name)
	}
	if k, _, ok := p.integer(ms, "apiKey", math.MinInt16, math.MaxInt16); ok {
		m.APIKey = int16(k)
	}
	var vOK bool
	var vOff int
	m.ValidVersions, vOff, vOK = p.versions(ms, "validVersions")
	if !vOK {
		if vOff < 0 {
			p.errorf(off, "missing-key", "", "the message has no \"validVersions\"")
		}
	} else if m.ValidVersions.OpenEnded() {
		p.errorf(vOff, "bad-versions", "", "validVersions %q does not specify a maximum version", m.ValidVersions)
	}
	fv, fOff, fOK := p.versions(ms, "flexibleVersions")
	if fOff < 0 && !(vOK && m.ValidVersions.Empty()) {
		// Kafka 4.x keeps removed APIs as stubs with "validVersions": "none"
		// and no flexibleVersions (LeaderAndIsrRequest.json); those are legal.
		p.errorf(off, "missing-key", `use "0+" for a new message`, "the message has no \"flexibleVersions\"")
	} else if fOK && !fv.Empty() && !fv.OpenEnded() {
		p.errorf(fOff, "bad-versions", "", "flexibleVersions must be open-ended (\"N+\") or \"none\", found %q", fv)
	}
	m.FlexibleVersions = fv
	m.DeprecatedVersions, _, _ = p.versions(ms, "deprecatedVersions")
	for _, lv := range p.list(ms, "listeners") {
		lit, ok := lv.Value.(hujson.Literal)
		if !ok || lit.Kind() != '"' || !contains(listenerSet, lit.String()) {
			p.errorf(lv.StartOffset, "bad-listener", "", "unknown listener %s: want one of %s", strings.TrimSpace(string(lv.Pack())), strings.Join(listenerSet, ", "))
			continue
		}
		m.Listeners = append(m.Listeners, lit.String())
	}
	if len(m.Listeners) > 0 && m.Type != Request {
		p.errorf(ms["listeners"].keyOff, "bad-listener", "", "listeners are allowed on requests only, not on a %s", m.Type)
	}
	if u, uOff := p.boolean(ms, "latestVersionUnstable"); u {
		m.LatestVersionUnstable = true
		if m.Type != Request {
			p.errorf(uOff, "bad-value", "", "latestVersionUnstable is allowed on requests only")
		}
	}
	for _, sv := range p.list(ms, "commonStructs") {
		so, ok := sv.Value.(*hujson.Object)
		if !ok {
			p.errorf(sv.StartOffset, "bad-value", "", "a commonStructs entry must be an object")
			continue
		}
		sm := p.members(so, structKeys, "commonStruct")
		st := &Struct{Common: true, Pos: p.pos(sv.StartOffset)}
		st.Name, _, _ = p.str(sm, "name")
		var vok bool
		var voff int
		st.Versions, voff, vok = p.versions(sm, "versions")
		if !vok && voff < 0 {
			p.errorf(sv.StartOffset, "missing-key", "", "commonStruct %q has no \"versions\"", st.Name)
		}
		st.Fields = p.fields(sm)
		m.CommonStructs = append(m.CommonStructs, st)
	}
	m.Root = &Struct{Name: name, Versions: m.ValidVersions, Pos: m.Pos}
	m.Root.Fields = p.fields(ms)
	return m
}

var fieldNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)

func (p *parser) fields(ms map[string]member) []*Field {
	var out []*Field
	for _, fv := range p.list(ms, "fields") {
		fo, ok := fv.Value.(*hujson.Object)
		if !ok {
			p.errorf(fv.StartOffset, "bad-value", "", "a fields entry must be an object, found %s", kindName(*fv))
			continue
		}
		out = append(out, p.field(fo, fv.StartOffset))
	}
	return out
}

func (p *parser) field(obj *hujson.Object, off int) *Field {
	ms := p.members(obj, fieldKeys, "field")
	f := &Field{Pos: p.pos(off), NullableVersions: None, TaggedVersions: None, FlexibleVersions: None}
	var ok bool
	var o int
	f.Name, o, ok = p.str(ms, "name")
	if !ok {
		p.errorf(off, "missing-key", "", "the field has no \"name\"")
	} else if !fieldNameRE.MatchString(f.Name) {
		p.errorf(o, "bad-name", "", "invalid field name %q: want a letter then letters or digits", f.Name)
	}
	f.TypeString, o, ok = p.str(ms, "type")
	if !ok {
		p.errorf(off, "missing-key", "", "field %q has no \"type\"", f.Name)
	} else {
		tv := ms["type"].val
		p.typeSpan[f] = [2]int{tv.StartOffset, tv.EndOffset}
		t, err := ParseType(f.TypeString)
		if err != nil {
			hint := ""
			base := strings.TrimPrefix(f.TypeString, "[]")
			if s := Suggest(base, PrimitiveNames()); s != "" {
				hint = fmt.Sprintf("did you mean %q?", strings.TrimSuffix(f.TypeString, base)+s)
			}
			e := p.errorf(o, "bad-type", hint, "field %q: %v", f.Name, err)
			if s := uniqueSuggest(base, PrimitiveNames()); s != "" && tv.Value.Kind() == '"' {
				repl := strings.TrimSuffix(f.TypeString, base) + s
				p.fix(e, fmt.Sprintf("type %q → %q", f.TypeString, repl), tv.StartOffset, tv.EndOffset, strconv.Quote(repl))
			}
		}
		f.Type = t
	}
	tv, _, tOK := p.versions(ms, "taggedVersions")
	f.TaggedVersions = tv
	vs, vOff, vOK := p.versions(ms, "versions")
	switch {
	case vOK:
		f.Versions = vs
	case vOff < 0 && tOK:
		f.Versions = tv
	case vOff < 0 || (vOff >= 0 && !vOK):
		if vOff < 0 {
			p.errorf(off, "missing-key", "", "field %q has no \"versions\"", f.Name)
		}
		f.Versions = None
	}
	f.NullableVersions, o, _ = p.versions(ms, "nullableVersions")
	if !f.NullableVersions.Empty() && f.Type.Kind != KindInvalid && !f.Type.Kind.CanBeNullable() {
		p.errorf(o, "bad-nullable", "", "field %q of type %s cannot be nullable", f.Name, f.TypeString)
	}
	if fx, fo, present := p.versions(ms, "flexibleVersions"); present || fo >= 0 {
		f.HasFlexibleVersions = present
		f.FlexibleVersions = fx
		if f.Type.Kind != KindString && f.Type.Kind != KindBytes && f.Type.Kind != KindInvalid {
			p.errorf(fo, "bad-flexible", "", "field %q: a flexibleVersions override is allowed only on string or bytes", f.Name)
		}
	}
	if t, to, ok := p.integer(ms, "tag", 0, math.MaxInt32); ok {
		f.Tag, f.HasTag = int32(t), true
		_ = to
	}
	f.Default, _, _ = p.str(ms, "default")
	f.Ignorable, _ = p.boolean(ms, "ignorable")
	f.MapKey, _ = p.boolean(ms, "mapKey")
	f.ZeroCopy, o = p.boolean(ms, "zeroCopy")
	if f.ZeroCopy && f.Type.Kind != KindBytes {
		p.errorf(o, "bad-zerocopy", "", "field %q: zeroCopy is allowed on bytes only", f.Name)
	}
	f.EntityType, o, _ = p.str(ms, "entityType")
	if f.EntityType != "" && !contains(entityTypes, f.EntityType) {
		p.errorf(o, "bad-entity-type", "", "field %q: unknown entityType %q: want one of %s", f.Name, f.EntityType, strings.Join(entityTypes, ", "))
	}
	f.About, _, _ = p.str(ms, "about")
	if _, has := ms["fields"]; has {
		if !f.Type.IsStructLike() && f.Type.Kind != KindArray && f.Type.Kind != KindInvalid {
			p.errorf(ms["fields"].keyOff, "bad-fields", "", "field %q of type %s cannot have fields", f.Name, f.TypeString)
		}
		if f.Type.IsStructLike() {
			f.Fields = p.fields(ms)
		}
	}
	if f.HasTag != !f.TaggedVersions.Empty() {
		if f.HasTag {
			p.errorf(off, "bad-tag", "", "field %q has a tag but no taggedVersions", f.Name)
		} else {
			p.errorf(off, "bad-tag", "", "field %q has taggedVersions but no tag", f.Name)
		}
	}
	if f.HasTag && !f.TaggedVersions.Empty() {
		if !f.TaggedVersions.OpenEnded() {
			p.errorf(off, "bad-tag", "", "field %q: taggedVersions must be open-ended, found %q", f.Name, f.TaggedVersions)
		}
		if !f.Versions.ContainsRange(f.TaggedVersions) {
			p.errorf(off, "bad-tag", "", "field %q: taggedVersions %s is not a subset of versions %s", f.Name, f.TaggedVersions, f.Versions)
		}
		if f.MapKey {
			p.errorf(off, "bad-mapkey", "", "field %q: a tagged field cannot be a mapKey", f.Name)
		}
		if f.Type.Kind == KindRecords {
			p.errorf(off, "bad-tag", "", "field %q: a records field cannot be tagged", f.Name)
		}
		nv := f.NullableVersions.Intersect(f.TaggedVersions)
		if !nv.Empty() && nv != f.TaggedVersions {
			p.errorf(off, "bad-tag", "", "field %q: nullableVersions must cover all taggedVersions or none", f.Name)
		}
	}
	return f
}

// resolve links struct types to their definitions, registers inline
// structs, checks names, and parses defaults (StructRegistry,
// FieldSpec.fieldDefault).
func (p *parser) resolve(m *Message) {
	for _, st := range m.CommonStructs {
		if st.Name == "" {
			continue
		}
		if _, dup := m.Structs[st.Name]; dup {
			p.errorf(p.offOf(st.Pos), "duplicate-struct", "", "commonStruct %q is defined twice", st.Name)
		}
		m.Structs[st.Name] = st
	}
	// Inline structs (of the top level and, for robustness, of commonStructs).
	var register func(fs []*Field)
	register = func(fs []*Field) {
		for _, f := range fs {
			if !f.Type.IsStructLike() || f.Fields == nil {
				register(f.Fields)
				continue
			}
			if ex, dup := m.Structs[f.Type.Name]; dup {
				if ex.Common {
					p.errorf(p.offOf(f.Pos), "duplicate-struct", "", "field %q re-specifies the common struct %q", f.Name, f.Type.Name)
				} else {
					p.errorf(p.offOf(f.Pos), "duplicate-struct", "", "struct %q is specified twice", f.Type.Name)
				}
			} else {
				m.Structs[f.Type.Name] = &Struct{Name: f.Type.Name, Versions: f.Versions, Fields: f.Fields, Pos: f.Pos}
			}
			register(f.Fields)
		}
	}
	register(m.Root.Fields)
	for _, st := range m.CommonStructs {
		register(st.Fields)
	}
	var link func(owner string, fs []*Field, top bool)
	link = func(owner string, fs []*Field, top bool) {
		seen := map[string]bool{}
		tags := map[int32]bool{}
		for _, f := range fs {
			if f.Name != "" {
				if seen[f.Name] {
					p.errorf(p.offOf(f.Pos), "duplicate-field", "", "field %q appears twice in %s", f.Name, owner)
				}
				seen[f.Name] = true
			}
			if f.HasTag {
				if tags[f.Tag] {
					p.errorf(p.offOf(f.Pos), "duplicate-tag", "", "tag %d is used twice in %s", f.Tag, owner)
				}
				tags[f.Tag] = true
			}
			if f.MapKey && top {
				p.errorf(p.offOf(f.Pos), "bad-mapkey", "", "field %q: mapKey cannot be set on top-level fields", f.Name)
			}
			if f.Type.IsStructLike() {
				st := m.Structs[f.Type.Name]
				if st == nil {
					// Kafka synthesizes an empty struct for an unknown
					// capitalised type name (a typo like "Int32").
					st = &Struct{Name: f.Type.Name, Versions: f.Versions, Pos: f.Pos}
					m.Structs[f.Type.Name] = st
					hint, prim := "", strings.ToLower(f.Type.Name)
					if _, ok := PrimitiveKind(prim); !ok {
						prim = ""
					} else {
						prim = strings.TrimSuffix(f.TypeString, f.Type.Name) + prim
						hint = fmt.Sprintf("did you mean %q? (type names are case-sensitive)", prim)
					}
					e := p.warnf(p.offOf(f.Pos), "empty-struct", hint, "field %q: type %q names no struct of this file; Kafka treats it as an empty struct", f.Name, f.TypeString)
					if sp, ok := p.typeSpan[f]; ok && prim != "" {
						p.fix(e, fmt.Sprintf("type %q → %q", f.TypeString, prim), sp[0], sp[1], strconv.Quote(prim))
					}
				}
				f.Type.Struct = st
			}
			p.parseDefault(f)
			if f.Fields != nil {
				link(f.Type.Name, f.Fields, false)
			}
		}
		// Every tag below the highest must be used; report each missing
		// one at the field that carries the next tag after it.
		maxTag := int32(-1)
		for t := range tags {
			maxTag = max(maxTag, t)
		}
		for t := int32(0); t < maxTag; t++ {
			if tags[t] {
				continue
			}
			var next *Field
			for _, f := range fs {
				if f.HasTag && f.Tag > t && (next == nil || f.Tag < next.Tag) {
					next = f
				}
			}
			p.errorf(p.offOf(next.Pos), "bad-tag", "", "tags in %s must be contiguous from 0: tag %d is missing (field %q has tag %d)", owner, t, next.Name, next.Tag)
		}
	}
	link(m.Name, m.Root.Fields, true)
	for _, st := range m.CommonStructs {
		link(st.Name, st.Fields, false)
	}
	p.checkTaggedFlexible(m, m.Root.Fields)
	for _, st := range m.CommonStructs {
		p.checkTaggedFlexible(m, st.Fields)
	}
	p.checkSelfContaining(m)
}

// checkTaggedFlexible reports tagged fields whose taggedVersions are not
// all flexible versions of the message (Kafka's generator refuses them:
// tags only exist in flexible versions).
func (p *parser) checkTaggedFlexible(m *Message, fs []*Field) {
	for _, f := range fs {
		if f.HasTag && !f.TaggedVersions.Empty() && !m.FlexibleVersions.ContainsRange(f.TaggedVersions) {
			p.errorf(p.offOf(f.Pos), "bad-tag", "", "field %q: taggedVersions %s are not all flexible versions (flexibleVersions %s)", f.Name, f.TaggedVersions, m.FlexibleVersions)
		}
		if f.Fields != nil {
			p.checkTaggedFlexible(m, f.Fields)
		}
	}
}

// checkSelfContaining reports a struct that contains itself through struct
// fields whose default is not null: Kafka's generated constructor creates
// such a field's struct at once, so it would never return. Through an array
// or a "null" default the recursion is legal (and bounded by the data).
func (p *parser) checkSelfContaining(m *Message) {
	state := map[*Struct]int{} // 1 on the current path, 2 done
	var visit func(st *Struct) *Field
	visit = func(st *Struct) *Field {
		switch state[st] {
		case 1:
			return &Field{} // a cycle; the caller names the field
		case 2:
			return nil
		}
		state[st] = 1
		defer func() { state[st] = 2 }()
		for _, f := range st.Fields {
			if f.Type.Kind == KindStruct && f.Type.Struct != nil && !f.DefaultNull {
				if c := visit(f.Type.Struct); c != nil {
					if c.Name == "" {
						return f
					}
					return c
				}
			}
		}
		return nil
	}
	if f := visit(m.Root); f != nil {
		p.errorf(p.offOf(f.Pos), "recursive-struct", `make the field nullable with "default": "null", or an array`, "field %q makes struct %q contain itself: Kafka's generated constructor would never return", f.Name, f.Type.Name)
	}
}

func fsPos(fs []*Field) Pos {
	if len(fs) > 0 {
		return fs[0].Pos
	}
	return Pos{}
}

// offOf converts a position back to a byte offset of text (for
// reporting).
func (p *parser) offOf(pos Pos) int {
	if pos.Line <= 0 || pos.Line > len(p.lines) {
		return 0
	}
	off := p.lines[pos.Line-1] + pos.Col - 1
	if p.pc != nil {
		return p.pc.toBuf(off)
	}
	return off
}

// parseDefault interprets f.Default for f's type (FieldSpec.fieldDefault).
func (p *parser) parseDefault(f *Field) {
	d := f.Default
	off := p.offOf(f.Pos)
	bad := func(want string) {
		p.errorf(off, "bad-default", "", "field %q: default %q is not a valid %s", f.Name, d, want)
	}
	if d == "null" && f.Type.Kind != KindInvalid {
		switch f.Type.Kind {
		case KindString, KindBytes, KindStruct, KindArray, KindRecords:
			if !f.NullableVersions.ContainsRange(f.Versions) {
				p.errorf(off, "bad-default", "", "field %q: a null default needs nullableVersions to cover all versions %s", f.Name, f.Versions)
			}
			f.DefaultNull = true
			return
		}
	}
	switch f.Type.Kind {
	case KindBool:
		switch strings.ToLower(d) {
		case "", "false":
		case "true":
			f.DefaultInt = 1
		default:
			bad("bool (true or false)")
		}
	case KindInt8, KindInt16, KindInt32, KindInt64, KindUint16, KindUint32:
		if d == "" {
			return
		}
		bits := map[Kind]int{KindInt8: 8, KindInt16: 16, KindInt32: 32, KindInt64: 64, KindUint16: 16, KindUint32: 32}[f.Type.Kind]
		var n int64
		var err error
		s := d
		neg := strings.HasPrefix(s, "-")
		if neg {
			s = s[1:]
		}
		if strings.HasPrefix(s, "0x") {
			var u uint64
			u, err = strconv.ParseUint(s[2:], 16, 64)
			n = int64(u)
		} else {
			n, err = strconv.ParseInt(s, 10, 64)
		}
		if neg {
			n = -n
		}
		if err == nil {
			if f.Type.Kind == KindUint16 || f.Type.Kind == KindUint32 {
				if n < 0 || n >= 1<<bits {
					err = fmt.Errorf("range")
				}
			} else if bits < 64 && (n < -(1<<(bits-1)) || n >= 1<<(bits-1)) {
				err = fmt.Errorf("range")
			}
		}
		if err != nil {
			bad(f.Type.Kind.String())
			return
		}
		f.DefaultInt = n
	case KindFloat64:
		if d == "" {
			return
		}
		v, err := strconv.ParseFloat(d, 64)
		if err != nil {
			bad("float64")
		}
		f.DefaultFloat = v
	case KindUUID:
		if d == "" {
			return
		}
		b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(d, "="))
		if err != nil || len(b) != 16 {
			bad("uuid (base64url of 16 bytes)")
			return
		}
		copy(f.DefaultUUID[:], b)
	case KindString:
		f.DefaultString = d
	case KindBytes, KindStruct, KindArray:
		if d != "" {
			bad(f.Type.Kind.String() + " default (only \"\" or \"null\")")
		}
	case KindRecords:
		// Kafka ignores any default on records: it is always null.
	}
}
