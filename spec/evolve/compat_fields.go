package evolve

// The field-by-field comparison of two structs of a message, at one
// version: positional fields in order, tagged fields by tag, down every
// struct (see compat.go).

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kwire/kwire/spec"
)

// fieldKey is the name fields pair by: Kafka's names are case-sensitive,
// but a change of case alone is reported as a rename of the same field.
func fieldKey(f *spec.Field) string { return strings.ToLower(f.Name) }

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// structs compares two field lists (of the top level or of a struct) at
// version c.v. seen holds the struct pairs being compared further up, so
// that recursive structs end.
func (c *comparer) structs(path string, ofs, nfs []*spec.Field, seen map[[2]*spec.Struct]bool) {
	ov, nv := c.ov, c.nv
	oByName, nByName := map[string]*spec.Field{}, map[string]*spec.Field{}
	for _, f := range ofs {
		oByName[fieldKey(f)] = f
	}
	for _, f := range nfs {
		nByName[fieldKey(f)] = f
	}
	// partner pairs the fields of the same name both present at v.
	partner := map[*spec.Field]*spec.Field{}
	for _, o := range ofs {
		if n := nByName[fieldKey(o)]; n != nil && o.PresentIn(ov) && n.PresentIn(nv) {
			partner[o], partner[n] = n, o
		}
	}
	positional := func(fs []*spec.Field, v int16) []*spec.Field {
		var r []*spec.Field
		for _, f := range fs {
			if f.PresentIn(v) && !f.TaggedIn(v) {
				r = append(r, f)
			}
		}
		return r
	}
	tagged := func(fs []*spec.Field, v int16) []*spec.Field {
		var r []*spec.Field
		for _, f := range fs {
			if f.TaggedIn(v) {
				r = append(r, f)
			}
		}
		return r
	}
	oPos, nPos := positional(ofs, ov), positional(nfs, nv)
	oTag, nTag := tagged(ofs, ov), tagged(nfs, nv)

	// Positional ↔ tagged.
	for _, o := range ofs {
		n := partner[o]
		if n == nil || o.TaggedIn(ov) == n.TaggedIn(nv) {
			continue
		}
		if n.TaggedIn(nv) {
			c.at("tagging-changed", join(path, n.Name), o, n, "-", fmt.Sprintf("positional → tagged (tag %d): taggedVersions %s → %s", n.Tag, o.TaggedVersions, n.TaggedVersions))
		} else {
			c.at("tagging-changed", join(path, n.Name), o, n, "-", fmt.Sprintf("tagged (tag %d) → positional: taggedVersions %s → %s", o.Tag, o.TaggedVersions, n.TaggedVersions))
		}
	}

	// Positional fields: the order of those on both sides, then the
	// runs between them.
	isOld := map[*spec.Field]bool{}
	for _, o := range ofs {
		isOld[o] = true
	}
	bothPos := func(f *spec.Field) bool {
		p := partner[f]
		if p == nil {
			return false
		}
		o, n := f, p
		if !isOld[f] {
			o, n = p, f
		}
		return !o.TaggedIn(ov) && !n.TaggedIn(nv)
	}
	// The fields positional on both sides, in each side's order (as the
	// new fields), and the names of both orders.
	var oSeq, nSeq []*spec.Field
	for _, o := range oPos {
		if bothPos(o) {
			oSeq = append(oSeq, partner[o])
		}
	}
	for _, n := range nPos {
		if bothPos(n) {
			nSeq = append(nSeq, n)
		}
	}
	reordered := !slices.Equal(oSeq, nSeq)
	if reordered {
		// Kafka's checker pairs fields in order and compares their types.
		kafka := KafkaAccepts
		var oNames, nNames []string
		for i := range oSeq {
			if partner[oSeq[i]].TypeString != nSeq[i].TypeString {
				kafka = KafkaRejects
			}
			oNames, nNames = append(oNames, oSeq[i].Name), append(nNames, nSeq[i].Name)
		}
		c.at("field-reordered", path, partner[oSeq[0]], nSeq[0], kafka, fmt.Sprintf("positional fields reordered: %s → %s", strings.Join(oNames, ", "), strings.Join(nNames, ", ")))
	}
	// The runs of fields without a partner, between anchors (a field whose
	// tagging changed has one, and was reported above).
	i, j := 0, 0
	for {
		var ro, rn []*spec.Field
		for i < len(oPos) && (!bothPos(oPos[i]) || reordered) {
			if partner[oPos[i]] == nil {
				ro = append(ro, oPos[i])
			}
			i++
		}
		for j < len(nPos) && (!bothPos(nPos[j]) || reordered) {
			if partner[nPos[j]] == nil {
				rn = append(rn, nPos[j])
			}
			j++
		}
		c.run(path, ro, rn, oByName, nByName, reordered, seen)
		if i >= len(oPos) || j >= len(nPos) {
			break
		}
		c.field(path, oPos[i], nPos[j], seen)
		i++
		j++
	}
	if reordered {
		for _, o := range oPos {
			if bothPos(o) {
				c.field(path, o, partner[o], seen)
			}
		}
	}

	// Tagged fields, by name, then by tag for renames.
	byTag := map[int32]*spec.Field{}
	for _, n := range nTag {
		byTag[n.Tag] = n
	}
	used := map[*spec.Field]bool{}
	for _, o := range oTag {
		if n := partner[o]; n != nil {
			if n.TaggedIn(nv) {
				c.field(path, o, n, seen)
				used[n] = true
			}
			continue
		}
		if n := byTag[o.Tag]; n != nil && partner[n] == nil && !used[n] && nByName[fieldKey(o)] == nil && oByName[fieldKey(n)] == nil {
			c.at("field-renamed", join(path, n.Name), o, n, "-", fmt.Sprintf("renamed from %s (same tag %d)", o.Name, o.Tag))
			c.field(path, o, n, seen)
			used[n] = true
			continue
		}
		c.at("tagged-field-removed", join(path, o.Name), o, nil, "-", fmt.Sprintf("tagged field %s (tag %d, %s) is gone%s", o.Name, o.Tag, o.TypeString, versionsNote(o, nByName[fieldKey(o)])))
	}
	for _, n := range nTag {
		if used[n] || partner[n] != nil {
			continue
		}
		c.at("tagged-field-added", join(path, n.Name), nil, n, "-", fmt.Sprintf("tagged field %s (tag %d, %s) is new%s", n.Name, n.Tag, n.TypeString, versionsNote(oByName[fieldKey(n)], n)))
	}
}

// versionsNote explains a field that is on one side only at this version
// although both sides define it: its versions changed.
func versionsNote(o, n *spec.Field) string {
	if o == nil || n == nil {
		return ""
	}
	return fmt.Sprintf(" at this version: versions %s → %s", o.Versions, n.Versions)
}

// run compares the positional fields between two anchors: as many fields
// on both sides, none of which the other side knows by name, are the same
// slots renamed; anything else is removed and added.
func (c *comparer) run(path string, ro, rn []*spec.Field, oByName, nByName map[string]*spec.Field, reordered bool, seen map[[2]*spec.Struct]bool) {
	if len(ro) == 0 && len(rn) == 0 {
		return
	}
	renames := !reordered && len(ro) == len(rn)
	for _, o := range ro {
		if nByName[fieldKey(o)] != nil {
			renames = false
		}
	}
	for _, n := range rn {
		if oByName[fieldKey(n)] != nil {
			renames = false
		}
	}
	if renames {
		for k := range ro {
			c.at("field-renamed", join(path, rn[k].Name), ro[k], rn[k], "-", fmt.Sprintf("renamed from %s (same position)", ro[k].Name))
			c.field(path, ro[k], rn[k], seen)
		}
		return
	}
	for _, o := range ro {
		c.at("field-removed", join(path, o.Name), o, nil, "-", fmt.Sprintf("positional field %s (%s) is no longer on the wire%s", o.Name, o.TypeString, versionsNote(o, nByName[fieldKey(o)])))
	}
	for _, n := range rn {
		c.at("field-added", join(path, n.Name), nil, n, "-", fmt.Sprintf("positional field %s (%s) is new%s", n.Name, n.TypeString, versionsNote(oByName[fieldKey(n)], n)))
	}
}

// field compares two fields that take the same place on the wire at c.v.
func (c *comparer) field(path string, o, n *spec.Field, seen map[[2]*spec.Struct]bool) {
	ov, nv := c.ov, c.nv
	p := join(path, n.Name)
	if o.Name != n.Name && strings.EqualFold(o.Name, n.Name) {
		c.at("field-renamed", p, o, n, "-", fmt.Sprintf("renamed from %s (only the case changed)", o.Name))
	}
	if o.TaggedIn(ov) && n.TaggedIn(nv) && o.Tag != n.Tag {
		c.at("tag-changed", p, o, n, "-", fmt.Sprintf("tag %d → %d", o.Tag, n.Tag))
	}
	if !sameEncoding(o.Type, n.Type) {
		c.at("type-changed", p, o, n, "-", fmt.Sprintf("type %s → %s%s", o.TypeString, n.TypeString, widthNote(o.Type, n.Type)))
		return
	}
	if o.TypeString != n.TypeString {
		what := "the same encoding"
		if o.Type.IsStructLike() {
			what = "the same layout, compared field by field"
		}
		c.at("type-renamed", p, o, n, "-", fmt.Sprintf("type %s → %s (%s)", o.TypeString, n.TypeString, what))
	}
	on, nn := o.NullableIn(ov), n.NullableIn(nv)
	switch {
	case on && !nn:
		c.at("nullable-narrowed", p, o, n, "-", fmt.Sprintf("no longer nullable: nullableVersions %s → %s%s", o.NullableVersions, n.NullableVersions, presenceNote(n, nv)))
	case !on && nn:
		c.at("nullable-widened", p, o, n, "-", fmt.Sprintf("now nullable: nullableVersions %s → %s%s", o.NullableVersions, n.NullableVersions, presenceNote(n, nv)))
	}
	if od, nd := defaultValue(o), defaultValue(n); od != nd && o.Type.Kind == n.Type.Kind {
		if o.TaggedIn(ov) && n.TaggedIn(nv) {
			c.at("tagged-default-changed", p, o, n, "-", fmt.Sprintf("default %s → %s: a value equal to %s is now omitted, and old readers take it for %s", od, nd, nd, od))
		} else {
			c.at("default-changed", p, o, n, "-", fmt.Sprintf("default %s → %s", od, nd))
		}
	}
	if c.om.Flexible(ov) == c.nm.Flexible(nv) && (n.Type.Kind == spec.KindString || n.Type.Kind == spec.KindBytes) {
		ofl, nfl := fieldFlexible(c.om, o, ov), fieldFlexible(c.nm, n, nv)
		if ofl != nfl {
			kafka, msg := KafkaRejects, "no longer flexible (an int16/int32 length instead of a varint)"
			if nfl {
				kafka, msg = KafkaAccepts, "now flexible (a varint length instead of an int16/int32)"
			}
			c.at("field-flexible-changed", p, o, n, kafka, fmt.Sprintf("%s: field flexibleVersions %s → %s", msg, flexString(o), flexString(n)))
		}
	}
	if o.Type.IsStructLike() && o.Type.Struct != nil && n.Type.Struct != nil {
		k := [2]*spec.Struct{o.Type.Struct, n.Type.Struct}
		if seen[k] {
			return
		}
		seen[k] = true
		c.structs(p, o.Type.Struct.Fields, n.Type.Struct.Fields, seen)
		delete(seen, k)
	}
}

func fieldFlexible(m *spec.Message, f *spec.Field, v int16) bool {
	if f.HasFlexibleVersions {
		return f.FlexibleVersions.Contains(v)
	}
	return m.Flexible(v)
}

func flexString(f *spec.Field) string {
	if f.HasFlexibleVersions {
		return f.FlexibleVersions.String()
	}
	return "(the message's)"
}

func presenceNote(f *spec.Field, v int16) string {
	if f.Type.Kind == spec.KindStruct && !f.TaggedIn(v) {
		return " (a nullable struct has a presence byte on the wire)"
	}
	return ""
}

// sameEncoding reports whether values of the two types are written the same
// way (structs are compared field by field elsewhere).
func sameEncoding(a, b spec.Type) bool {
	same := func(x, y spec.Kind) bool {
		return x == y || x == spec.KindBytes && y == spec.KindRecords || x == spec.KindRecords && y == spec.KindBytes
	}
	if !same(a.Kind, b.Kind) {
		return false
	}
	if a.Kind == spec.KindArray {
		return a.Elem == b.Elem
	}
	return true
}

func widthNote(a, b spec.Type) string {
	wa, wb := a.Kind.FixedSize(), b.Kind.FixedSize()
	switch {
	case wa > 0 && wb > 0 && wa != wb:
		return fmt.Sprintf(": %d → %d bytes on the wire", wa, wb)
	case wa > 0 && wa == wb:
		return fmt.Sprintf(": the same %d bytes read as another type", wa)
	}
	return ""
}

// defaultValue renders a field's default as a comparable value: the
// parsed value, so that "0x10" and "16", or "" and "0", are equal.
func defaultValue(f *spec.Field) string {
	if f.DefaultNull {
		return "null"
	}
	switch f.Type.Kind {
	case spec.KindBool:
		return strconv.FormatBool(f.DefaultInt != 0)
	case spec.KindInt8, spec.KindInt16, spec.KindUint16, spec.KindInt32, spec.KindUint32, spec.KindInt64:
		return strconv.FormatInt(f.DefaultInt, 10)
	case spec.KindFloat64:
		return strconv.FormatFloat(f.DefaultFloat, 'g', -1, 64)
	case spec.KindUUID:
		if f.DefaultUUID == ([16]byte{}) {
			return "zero uuid"
		}
		return fmt.Sprintf("uuid %x", f.DefaultUUID[:])
	case spec.KindString:
		return strconv.Quote(f.DefaultString)
	case spec.KindRecords:
		return "null"
	}
	return "empty"
}
