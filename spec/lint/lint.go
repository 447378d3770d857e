package lint

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
)

// Report is what Check found in a set of spec files.
type Report struct {
	// Problems are every error and warning, sorted by file and position.
	Problems spec.ErrorList
	// Files are the files linted, each with its unambiguous fixes.
	Files []*File
}

// File is one linted file.
type File struct {
	// Name is how problems name the file (see Pos.File).
	Name string
	File bundle.File
	// Fixes are the unambiguous corrections of the file's problems, in
	// file order; ApplyFixes makes them.
	Fixes []*spec.Fix
}

// Check checks spec files as Kafka's generator would, and for legal
// constructs that are likely mistakes. The problems are the loader's
// (spec.NewSet's: everything the generator rejects that a loader must know)
// plus lint's own rules; docs/lint.md lists every rule. whole says that
// files are a complete set of specs (a directory, an archive, a release),
// which adds the rules across files that Kafka's generator applies to one
// directory (every request has a response).
func Check(files []bundle.File, whole bool) *Report {
	set, all, parsed := spec.Parse(files)
	r := &Report{}
	for _, pf := range parsed {
		lf := &File{Name: pf.Name, File: pf.File}
		for _, o := range pf.Objects {
			if o.Message == nil {
				continue
			}
			l := &linter{o: o, m: o.Message}
			l.run()
			all = append(removeReplaced(all, l.replaced), l.errs...)
			for _, f := range o.Fixes {
				if n, ok := l.replaced[f.Problem]; ok {
					f.Problem, f.Rule = n, n.Rule
				}
			}
		}
		lf.Fixes = append(lf.Fixes, pf.Fixes...)
		sort.SliceStable(lf.Fixes, func(i, j int) bool { return lf.Fixes[i].Edits[0].Off < lf.Fixes[j].Edits[0].Off })
		r.Files = append(r.Files, lf)
	}
	if whole {
		all = append(all, unpaired(set)...)
	}
	all.Sort()
	r.Problems = all
	return r
}

func removeReplaced(all spec.ErrorList, replaced map[*spec.Error]*spec.Error) spec.ErrorList {
	if len(replaced) == 0 {
		return all
	}
	out := all[:0]
	for _, e := range all {
		if _, gone := replaced[e]; !gone {
			out = append(out, e)
		}
	}
	return out
}

// unpaired reports requests without a response spec and responses
// without a request spec (Kafka's ApiMessageTypeGenerator needs both).
func unpaired(s *spec.Set) spec.ErrorList {
	var out spec.ErrorList
	for _, m := range s.Messages {
		var other *spec.Message
		var want string
		switch m.Type {
		case spec.Request:
			other, want = s.Response(m.APIKey), "response"
		case spec.Response:
			other, want = s.Request(m.APIKey), "request"
		default:
			continue
		}
		if other == nil && m.APIKey >= 0 {
			out = append(out, &spec.Error{Pos: m.Pos, Severity: spec.SeverityError, Rule: "unpaired-api",
				Msg: fmt.Sprintf("%s %q (api key %d) has no %s spec: Kafka's ApiMessageTypeGenerator needs both", m.Type, m.Name, m.APIKey, want)})
		}
	}
	return out
}

// linter runs lint's own rules on one spec object.
type linter struct {
	o    *spec.Object
	m    *spec.Message
	errs spec.ErrorList
	// objects maps the offset of every JSON object of the spec to it;
	// fields maps a field object's offset to its Field.
	objects map[int]*hujson.Object
	fields  map[int]*spec.Field
	// replaced maps loader problems that lint reports more precisely to
	// their replacement.
	replaced map[*spec.Error]*spec.Error
}

func (l *linter) report(sev spec.Severity, off int, rule, hint, format string, args ...any) *spec.Error {
	e := &spec.Error{Pos: l.o.Pos(off), Severity: sev, Rule: rule, Msg: fmt.Sprintf(format, args...), Hint: hint}
	l.errs = append(l.errs, e)
	return e
}

// valueOff returns the offset of key's value in the object at off, or off
// when the object has no such key.
func (l *linter) valueOff(off int, key string) int {
	if v := l.member(off, key); v != nil {
		return v.StartOffset
	}
	return off
}

// keyOff returns the offset of key itself in the object at off.
func (l *linter) keyOff(off int, key string) int {
	if obj := l.objects[off]; obj != nil {
		for i := range obj.Members {
			if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == key {
				return obj.Members[i].Name.StartOffset
			}
		}
	}
	return off
}

// member returns the (last) value of key in the object at off.
func (l *linter) member(off int, key string) *hujson.Value {
	obj := l.objects[off]
	if obj == nil {
		return nil
	}
	var v *hujson.Value
	for i := range obj.Members {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == key {
			v = &obj.Members[i].Value
		}
	}
	return v
}

func (l *linter) run() {
	l.objects = map[int]*hujson.Object{}
	l.fields = map[int]*spec.Field{}
	l.replaced = map[*spec.Error]*spec.Error{}
	if l.o.JSON != nil {
		l.index(l.o.JSON)
	}
	var indexFields func(fs []*spec.Field)
	indexFields = func(fs []*spec.Field) {
		for _, f := range fs {
			l.fields[l.o.Offset(f.Pos)] = f
			indexFields(f.Fields)
		}
	}
	indexFields(l.m.Root.Fields)
	for _, st := range l.m.CommonStructs {
		indexFields(st.Fields)
	}
	if l.o.JSON != nil {
		l.json(l.o.JSON)
	}
	l.message()
	l.structs()
	l.walk(l.m.Root.Fields, l.m.ValidVersions, "", true)
	for _, st := range l.m.CommonStructs {
		l.walk(st.Fields, l.m.ValidVersions, "", false)
	}
}

func (l *linter) index(v *hujson.Value) {
	switch x := v.Value.(type) {
	case *hujson.Object:
		l.objects[v.StartOffset] = x
		for i := range x.Members {
			l.index(&x.Members[i].Value)
		}
	case *hujson.Array:
		for i := range x.Elements {
			l.index(&x.Elements[i])
		}
	}
}

// versionKeys are the keys whose values are version ranges.
var versionKeys = []string{"validVersions", "flexibleVersions", "deprecatedVersions", "versions", "nullableVersions", "taggedVersions"}

// json checks what only the JSON shows: keys given twice, "default":
// null, and "A-B" ranges with B below A.
func (l *linter) json(v *hujson.Value) {
	switch x := v.Value.(type) {
	case *hujson.Object:
		seen := map[string]bool{}
		for i := range x.Members {
			mb := &x.Members[i]
			lit, _ := mb.Name.Value.(hujson.Literal)
			key := lit.String()
			if seen[key] {
				l.report(spec.SeverityWarning, mb.Name.StartOffset, "duplicate-key", "", "key %q appears twice in this object; Kafka's JSON reader keeps the last value", key)
			}
			seen[key] = true
			val, _ := mb.Value.Value.(hujson.Literal)
			switch {
			case key == "default" && val != nil && val.Kind() == 'n':
				l.nullDefault(v.StartOffset, mb.Value.StartOffset)
			case slices.Contains(versionKeys, key) && val != nil && val.Kind() == '"':
				s := strings.TrimSpace(val.String())
				if i := strings.IndexByte(s, '-'); i > 0 {
					a, err1 := strconv.ParseInt(s[:i], 10, 16)
					b, err2 := strconv.ParseInt(s[i+1:], 10, 16)
					if err1 == nil && err2 == nil && a >= 0 && b >= 0 && b < a {
						l.report(spec.SeverityWarning, mb.Value.StartOffset, "reversed-versions", fmt.Sprintf(`did you mean "%d-%d"? ("none" if no version is meant)`, b, a),
							"%s %q holds no version: Kafka reads \"A-B\" with B below A as \"none\"", key, s)
					}
				}
			}
			l.json(&mb.Value)
		}
	case *hujson.Array:
		for i := range x.Elements {
			l.json(&x.Elements[i])
		}
	}
}

// naturalDefault names the default of a field without one.
func naturalDefault(k spec.Kind) string {
	switch k {
	case spec.KindBool:
		return "false"
	case spec.KindInt8, spec.KindInt16, spec.KindInt32, spec.KindInt64, spec.KindUint16, spec.KindUint32:
		return "0"
	case spec.KindFloat64:
		return "0.0"
	case spec.KindUUID:
		return "the zero UUID"
	case spec.KindString:
		return `""`
	case spec.KindBytes:
		return "empty bytes"
	case spec.KindStruct:
		return "an empty struct"
	case spec.KindArray:
		return "an empty array"
	case spec.KindRecords:
		return "null, as always for records"
	}
	return "its type's"
}

func (l *linter) nullDefault(objOff, off int) {
	f := l.fields[objOff]
	if f == nil {
		return
	}
	what := naturalDefault(f.Type.Kind)
	hint := "remove it"
	if f.Type.Kind.CanBeNullable() && f.Type.Kind != spec.KindRecords {
		hint = `for a null default write "default": "null", a string (it needs nullableVersions to cover the field's versions)`
	}
	l.report(spec.SeverityWarning, off, "null-default", hint, "field %q: \"default\": null is the same as no default: the field defaults to %s, not to null", f.Name, what)
}

// message checks the message's own keys.
func (l *linter) message() {
	m := l.m
	off := l.o.Offset(m.Pos)
	if m.APIKey < 0 && l.member(off, "apiKey") == nil {
		gen := ""
		switch m.Type {
		case spec.Request, spec.Response:
			gen = "ApiMessageTypeGenerator"
		case spec.Metadata:
			gen = "MetadataRecordTypeGenerator"
		}
		if gen != "" {
			l.report(spec.SeverityError, off, "missing-key", "", "the %s has no \"apiKey\": Kafka's %s needs one", m.Type, gen)
		}
	}
}

// structs checks commonStructs (names, use, no inline definitions, only
// known struct references) and that an inline struct is used once.
func (l *linter) structs() {
	m := l.m
	common := map[string]bool{}
	for _, st := range m.CommonStructs {
		off := l.o.Offset(st.Pos)
		switch {
		case l.member(off, "name") == nil:
			l.report(spec.SeverityError, off, "missing-key", "", "a commonStruct has no \"name\"")
		case st.Name == "" || st.Name[0] < 'A' || st.Name[0] > 'Z':
			l.report(spec.SeverityError, l.valueOff(off, "name"), "bad-name", "", "commonStruct name %q must start with an upper-case letter (Kafka's StructRegistry)", st.Name)
		}
		common[st.Name] = true
	}
	// Kafka registers inline structs walking the message's fields (not
	// the commonStructs'), depth first; a struct name met again is
	// "specified twice". The loader reports a second definition with
	// fields; lint reports the other second uses.
	first := map[string]*spec.Field{}
	var register func(fs []*spec.Field)
	register = func(fs []*spec.Field) {
		for _, f := range fs {
			if !f.Type.IsStructLike() {
				continue
			}
			if name := f.Type.Name; !common[name] {
				if prev := first[name]; prev != nil {
					if f.Fields == nil || prev.Fields == nil {
						l.report(spec.SeverityError, l.o.Offset(f.Pos), "duplicate-struct", fmt.Sprintf("declare %q in commonStructs to share it", name),
							"field %q uses struct %q again (field %q at %d:%d has it already): Kafka's generator allows one use of an inline struct", f.Name, name, prev.Name, prev.Pos.Line, prev.Pos.Col)
					}
				} else {
					first[name] = f
				}
			}
			register(f.Fields)
		}
	}
	register(m.Root.Fields)
	// Inside commonStructs: no inline struct, no unknown struct.
	var inCommon func(owner string, fs []*spec.Field)
	inCommon = func(owner string, fs []*spec.Field) {
		for _, f := range fs {
			if !f.Type.IsStructLike() {
				continue
			}
			off := l.o.Offset(f.Pos)
			name := f.Type.Name
			switch {
			case f.Fields != nil:
				l.report(spec.SeverityError, l.keyOff(off, "fields"), "bad-common-struct", fmt.Sprintf("declare %q in commonStructs", name),
					"field %q of commonStruct %q defines struct %q inline: Kafka's generator does not look for struct definitions inside commonStructs", f.Name, owner, name)
				inCommon(owner, f.Fields)
			case !common[name] && first[name] == nil:
				var warn *spec.Error
				for _, e := range l.o.Problems {
					if e.Rule == "empty-struct" && e.Pos == f.Pos {
						warn = e
					}
				}
				hint := ""
				if warn != nil {
					hint = warn.Hint
				}
				e := l.report(spec.SeverityError, off, "bad-common-struct", hint,
					"field %q of commonStruct %q uses struct %q, which the message does not define: Kafka's generator fails (\"Unable to locate a specification for the structure\")", f.Name, owner, f.TypeString)
				if warn != nil {
					l.replaced[warn] = e
				}
			}
		}
	}
	for _, st := range m.CommonStructs {
		inCommon(st.Name, st.Fields)
	}
	// commonStructs that no field reaches.
	used := map[*spec.Struct]bool{}
	var reach func(fs []*spec.Field)
	reach = func(fs []*spec.Field) {
		for _, f := range fs {
			if st := f.Type.Struct; st != nil && f.Type.IsStructLike() && !used[st] {
				used[st] = true
				reach(st.Fields)
			}
			reach(f.Fields)
		}
	}
	reach(m.Root.Fields)
	// mapKey makes a struct the element of a keyed collection: it means
	// nothing in a struct that is no array's element.
	elems := map[*spec.Struct]bool{}
	var arrays func(fs []*spec.Field)
	arrays = func(fs []*spec.Field) {
		for _, f := range fs {
			if f.Type.Kind == spec.KindArray && f.Type.Struct != nil {
				elems[f.Type.Struct] = true
			}
			arrays(f.Fields)
		}
	}
	arrays(m.Root.Fields)
	for _, st := range m.CommonStructs {
		arrays(st.Fields)
	}
	names := make([]string, 0, len(m.Structs))
	for n := range m.Structs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		st := m.Structs[n]
		if elems[st] {
			continue
		}
		for _, f := range st.Fields {
			if f.MapKey {
				off := l.o.Offset(f.Pos)
				l.report(spec.SeverityWarning, l.valueOff(off, "mapKey"), "mapkey-no-effect", "", "field %q: mapKey has no effect, since struct %q is not the element of an array", f.Name, st.Name)
			}
		}
	}
	for _, st := range m.CommonStructs {
		if st.Name != "" && !used[st] {
			l.report(spec.SeverityWarning, l.o.Offset(st.Pos), "unused-common-struct", "", "commonStruct %q is never used by the message's fields (Kafka still generates a class for it)", st.Name)
		}
	}
}

// entityKinds are the base types of entity types (Kafka's EntityType).
var entityKinds = map[string]spec.Kind{"transactionalId": spec.KindString, "producerId": spec.KindInt64, "groupId": spec.KindString, "topicName": spec.KindString, "brokerId": spec.KindInt32}

// walk checks fields. within is the versions in which their struct can
// exist (the message's valid versions, narrowed by enclosing fields);
// owner names the struct for messages ("" for the message itself).
func (l *linter) walk(fs []*spec.Field, within spec.Versions, owner string, top bool) {
	m := l.m
	for _, f := range fs {
		off := l.o.Offset(f.Pos)
		if f.About == "" {
			l.report(spec.SeverityWarning, off, "missing-about", "", "field %q has no \"about\": Kafka's protocol documentation shows it", f.Name)
		}
		if !within.Empty() && !f.Versions.Empty() && f.Versions.Intersect(within).Empty() {
			var where string
			switch {
			case owner != "":
				where = fmt.Sprintf("struct %q exists only in versions %s", owner, within)
			case f.Versions.Lo > within.Hi:
				where = fmt.Sprintf("they start after the message's last valid version %d", within.Hi)
			default:
				where = fmt.Sprintf("they end before the message's first valid version %d", within.Lo)
			}
			l.report(spec.SeverityWarning, l.valueOff(off, "versions"), "never-present", "", "field %q has versions %s, but %s: the field is never on the wire", f.Name, f.Versions, where)
		} else if !within.Empty() && !f.Versions.Empty() && !f.Versions.OpenEnded() && f.Versions.Hi > within.Hi && owner == "" {
			l.report(spec.SeverityWarning, l.valueOff(off, "versions"), "versions-outside", "", "field %q has versions %s, past the message's last valid version %d: versions outside validVersions %s do not exist", f.Name, f.Versions, within.Hi, m.ValidVersions)
		}
		// nullableVersions that cover all of versions and more ("0+" on a
		// field of "1+") are an idiom of Kafka's own specs: nullable in
		// every version. Otherwise versions outside mean nothing.
		if nv := f.NullableVersions; !nv.Empty() && f.Type.Kind.CanBeNullable() && !f.Versions.Empty() && !f.Versions.ContainsRange(nv) && !nv.ContainsRange(f.Versions) {
			if in := nv.Intersect(f.Versions); in.Empty() {
				l.report(spec.SeverityWarning, l.valueOff(off, "nullableVersions"), "nullable-outside", "", "field %q: nullableVersions %s lie outside its versions %s, so it is never nullable", f.Name, nv, f.Versions)
			} else {
				l.report(spec.SeverityWarning, l.valueOff(off, "nullableVersions"), "nullable-outside", fmt.Sprintf("write %q", in.String()), "field %q: nullableVersions %s reach outside its versions %s; Kafka ignores the versions outside (the field is nullable in %s)", f.Name, nv, f.Versions, in)
			}
		}
		if want, ok := entityKinds[f.EntityType]; ok && f.Type.Kind != spec.KindInvalid {
			k := f.Type.Kind
			if k == spec.KindArray {
				k = f.Type.Elem
			}
			if k != want {
				l.report(spec.SeverityError, l.valueOff(off, "entityType"), "bad-entity-type", "", "field %q: entityType %s needs type %s (or an array of %s), found %s", f.Name, f.EntityType, want, want, f.TypeString)
			}
		}
		if f.HasFlexibleVersions && !m.FlexibleVersions.ContainsRange(f.FlexibleVersions) && (f.Type.Kind == spec.KindString || f.Type.Kind == spec.KindBytes) {
			l.report(spec.SeverityError, l.valueOff(off, "flexibleVersions"), "bad-flexible", "", "field %q: flexibleVersions %s must lie within the message's flexibleVersions %s", f.Name, f.FlexibleVersions, m.FlexibleVersions)
		}
		if f.Type.Kind == spec.KindArray && f.Type.Elem != spec.KindStruct && f.Type.Elem != spec.KindInvalid && l.member(off, "fields") != nil {
			l.report(spec.SeverityWarning, l.keyOff(off, "fields"), "ignored-fields", "", "field %q of type %s has \"fields\", which Kafka ignores: only structs and arrays of structs have fields", f.Name, f.TypeString)
		}
		if f.Type.Kind == spec.KindRecords && f.Default != "" && f.Default != "null" {
			l.report(spec.SeverityWarning, l.valueOff(off, "default"), "ignored-default", "", "field %q: Kafka ignores the default of a records field (it is always null)", f.Name)
		}
		if f.Fields != nil {
			l.walk(f.Fields, within.Intersect(f.Versions), f.Type.Name, false)
		}
	}
	_ = top
}

// FixedCopy is a file with its fixes applied and linted again.
type FixedCopy struct {
	// Data is the file with the fixes applied; Done the fixes applied, in
	// file order (ApplyFixes).
	Data []byte
	Done []*spec.Fix
	// Problems are the fixed copy's, linted as a file on its own.
	Problems spec.ErrorList
	// Worse says why the copy must not replace the file, "" when it may:
	// it has more errors than the file, or fewer fields (a fix that put
	// spec text inside a comment).
	Worse string
}

// Fixed applies the fixes of f and lints the result as the file name,
// read on its own, comparing it with f's file read so.
func (f *File) Fixed(name string) *FixedCopy {
	c := &FixedCopy{}
	c.Data, c.Done = ApplyFixes(f.File.Data, f.Fixes)
	before := bundle.File{Path: name, Data: f.File.Data}
	after := bundle.File{Path: name, Data: c.Data}
	c.Problems = Check([]bundle.File{after}, false).Problems
	nb := len(Check([]bundle.File{before}, false).Problems.Errors())
	na := len(c.Problems.Errors())
	fb, fa := fieldCount(before), fieldCount(after)
	switch {
	case fa < fb:
		c.Worse = fmt.Sprintf("the fixed copy holds %d %s, the file %d: a fix would put spec text inside a comment", fa, plural(fa, "field", "fields"), fb)
	case na > nb:
		c.Worse = fmt.Sprintf("the fixed copy has %d %s, the file %d", na, plural(na, "error", "errors"), nb)
	}
	return c
}

// fieldCount is the number of fields of every spec object of f that the
// loader reads (its own and its common structs', at any depth).
func fieldCount(f bundle.File) int {
	var count func(fs []*spec.Field) int
	count = func(fs []*spec.Field) int {
		n := len(fs)
		for _, x := range fs {
			n += count(x.Fields)
		}
		return n
	}
	n := 0
	for _, o := range spec.ParseFile(f).Objects {
		if o.Message == nil {
			continue
		}
		n += count(o.Message.Root.Fields)
		for _, st := range o.Message.CommonStructs {
			n += count(st.Fields)
		}
	}
	return n
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
