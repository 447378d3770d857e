package evolve

// Compat is kwire's evolution check. It compares, for each message both
// sets have, every version both validVersions contain, as the bytes are
// laid out: the positional fields in order and the tagged fields by tag,
// down every struct. Kafka's own checker (org.apache.kafka.message.checker,
// reference section 7) compares type strings, version ranges and defaults
// of fields paired in order. Where the two differ:
//
//   - stricter: kwire reports tag changes and positional ↔ tagged moves
//     (Kafka's checker does not read tags), an existing version becoming
//     flexible (Kafka only wants the new flexibleVersions to contain the
//     old), the lowest versions being dropped, and a reorder of fields of
//     the same type (Kafka sees renames).
//   - laxer: kwire accepts renames of messages, fields and structs with the
//     same layout (Kafka compares the message name and type strings), tagged
//     fields added to or removed from an existing version (old readers skip
//     unknown tags), a default spelled differently ("0x10" and "16"), a
//     positional field's default change (reported as a compatible change),
//     and any change to the latest version of an API that the old specs
//     marked latestVersionUnstable.
//   - Kafka's checker defects (commonStruct fields never checked, a deleted
//     field hangs it, inline structs fail against themselves) do not apply.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kwire/kwire/spec"
)

// Impact is how much a change found by Compat matters to a peer that still
// runs the old specs.
type Impact uint8

// Impacts, from the gravest.
const (
	// Incompatible: at some version both sides have, bytes written by one
	// side are read differently (or rejected) by the other, or a peer that
	// uses a version can no longer be understood.
	Incompatible Impact = iota
	// CompatibleChange: the bytes of every shared version mean the same on
	// both sides, but something a reader can see changed (a name, a
	// default for absent fields, a tagged field that is now sent or no
	// longer sent).
	CompatibleChange
	// Info: new versions or messages, metadata that does not reach the wire.
	Info
)

// String is "incompatible", "compatible" or "info".
func (i Impact) String() string {
	switch i {
	case Incompatible:
		return "incompatible"
	case CompatibleChange:
		return "compatible"
	}
	return "info"
}

// ParseImpact parses the names String returns.
func ParseImpact(s string) (Impact, bool) {
	for _, i := range []Impact{Incompatible, CompatibleChange, Info} {
		if s == i.String() {
			return i, true
		}
	}
	return Info, false
}

// MarshalText renders the impact as its name (for JSON).
func (i Impact) MarshalText() ([]byte, error) { return []byte(i.String()), nil }

// Verdicts of Kafka's own evolution checker (org.apache.kafka.message.checker,
// "verify-evolution") on a change, as far as its code states them.
const (
	KafkaRejects = "rejects"
	KafkaAccepts = "accepts"
)

// CompatRule is one rule of Compat: its id, its impact, what Kafka's
// evolution checker does with such a change ("" when that depends on
// details the checker gets wrong or does not look at), and what it means.
type CompatRule struct {
	ID     string
	Impact Impact
	Kafka  string
	Doc    string
}

// CompatRules are the rules of Compat. Field rules compare the two specs at
// every version both validVersions contain, field by field as the bytes are
// laid out: the positional fields in order, the tagged fields by tag.
var CompatRules = []CompatRule{
	{"message-removed", Incompatible, "", "a message of the old specs has no counterpart (by name, or by type and api key) in the new ones"},
	{"message-added", Info, "", "a message of the new specs has no counterpart in the old ones"},
	{"message-renamed", CompatibleChange, KafkaRejects, "a request, response or metadata record has a new name but the same type and api key: names are not on the wire (Kafka's checker wraps the message in a field typed by its name, so a rename fails)"},
	{"message-type-changed", Incompatible, KafkaRejects, "the message's type (request, response, header, metadata, data…) changed"},
	{"api-key-changed", Incompatible, KafkaRejects, "the message's apiKey changed"},
	{"record-form-changed", Info, "", "a coordinator record key or value changed spec form (a \"data\" spec whose versions are record types, as in Kafka 3.9, → a \"coordinator-key\" or \"coordinator-value\" spec with the record type as apiKey): the int16 prefix and the bytes after it are compared record type by record type, not the type strings"},
	{"record-type-removed", Incompatible, "", "a coordinator record type of the old key or value spec has no key or value spec of the same internal topic in the new ones: its records on disk can no longer be read"},
	{"record-type-moved", Info, "", "a coordinator record type of the old key or value spec is now another spec's of the same internal topic (OffsetCommitKey's record type 0 → LegacyOffsetCommitKey): compared there by name"},
	{"record-type-added", Info, "", "the key or value spec has a coordinator record type it did not have"},
	{"versions-removed", Incompatible, KafkaAccepts, "the lowest versions were dropped (the minimum was raised): a peer or a stored record that uses them can no longer be understood. Kafka's checker allows raising the minimum (old clients negotiate a newer version through ApiVersions); kwire reports it as a break for whoever still uses those versions"},
	{"top-versions-removed", Incompatible, KafkaRejects, "the highest versions were dropped (the maximum was lowered), up to every version (validVersions \"none\": the API was removed)"},
	{"versions-added", Info, KafkaAccepts, "new versions"},
	{"flexible-dropped", Incompatible, KafkaRejects, "a version both sides have was flexible and no longer is: every string, array and struct is encoded differently"},
	{"flexible-added", Incompatible, KafkaAccepts, "a version both sides have was not flexible and now is: every string, array and struct is encoded differently. Kafka's checker only wants the new flexibleVersions to contain the old ones, so it lets an existing version become flexible; kwire does not"},
	{"deprecated-changed", Info, KafkaAccepts, "deprecatedVersions changed for versions both sides have"},
	{"listeners-changed", Info, KafkaAccepts, "the request's listeners changed"},
	{"unstable-changed", Info, KafkaAccepts, "latestVersionUnstable changed"},
	{"field-added", Incompatible, KafkaRejects, "a positional field is on the wire in a version both sides have where it was not before: every later positional field moves"},
	{"field-removed", Incompatible, KafkaRejects, "a positional field is no longer on the wire in a version both sides have (Kafka's checker rejects a field that ends earlier, and hangs when a field both should have is deleted)"},
	{"field-reordered", Incompatible, "", "positional fields of a struct come in another order in a version both sides have. Kafka's checker pairs fields in order without comparing names, so it rejects a reorder only when the swapped types differ"},
	{"field-renamed", CompatibleChange, KafkaAccepts, "a field has a new name at the same place on the wire (the same position, or the same tag): the bytes are unchanged, but JSON and generated code use the name"},
	{"type-changed", Incompatible, KafkaRejects, "a field's type changed in a version both sides have (uint16 → int32 changes the width; int16 → uint16 the meaning of the same bytes)"},
	{"type-renamed", CompatibleChange, KafkaRejects, "a field's type string changed but its encoding did not: a struct renamed with the same layout (checked field by field), or bytes ↔ records. Kafka's checker compares type strings"},
	{"nullable-narrowed", Incompatible, KafkaRejects, "a field was nullable in a version both sides have and no longer is: a new reader rejects the null an old writer may send (for a struct, the presence byte disappears from the wire)"},
	{"nullable-widened", Incompatible, "", "a field became nullable in a version both sides have: an old reader rejects the null a new writer may now send (for a struct, a presence byte appears on the wire). Kafka's checker rejects this when the lowest nullable version moves down; its other nullability checks mix the old and the new field"},
	{"default-changed", CompatibleChange, KafkaRejects, "the default of a positional field changed: its bytes are unchanged where it is on the wire, but readers assume another value in the versions where it is absent. Kafka's checker requires identical default strings; kwire compares the values (\"0x10\" equals \"16\")"},
	{"tagged-default-changed", Incompatible, KafkaRejects, "the default of a tagged field changed: writers omit a tagged field equal to its default, so a value equal to the new default is omitted and the old reader fills in the old default"},
	{"tag-changed", Incompatible, KafkaAccepts, "a tagged field has a different tag number in a version both sides have. Kafka's checker does not look at tags"},
	{"tagging-changed", Incompatible, KafkaAccepts, "a field went from positional to tagged (or back) in a version both sides have. Kafka's checker does not look at taggedVersions"},
	{"tagged-field-added", CompatibleChange, KafkaRejects, "a tagged field is new in a version both sides have: old readers keep its tag as unknown, so the bytes stay readable (Kafka's checker rejects any field added to an existing version)"},
	{"tagged-field-removed", CompatibleChange, KafkaRejects, "a tagged field is gone from a version both sides have: new readers keep its tag as unknown, old readers use the default when it is not sent"},
	{"field-flexible-changed", Incompatible, "", "a string or bytes field's own flexibleVersions override changed its encoding in a version both sides have (Kafka's checker rejects losing flexibility, not gaining it)"},
}

// compatRule returns the rule with id (it must exist).
func compatRule(id string) CompatRule {
	for _, r := range CompatRules {
		if r.ID == id {
			return r
		}
	}
	panic("spec: unknown compat rule " + id)
}

// Finding is one difference Compat found between two specs of a message.
type Finding struct {
	// Message is the message's name in the new specs (the old name when it
	// was removed); OldMessage is its name in the old specs when it
	// differs or when the message was removed.
	Message    string
	OldMessage string
	// Type and APIKey are the message's (in the new specs when it exists
	// there); APIKey is -1 when the message has none.
	Type   spec.MessageType
	APIKey int16
	// Versions are the versions concerned: the shared versions where a
	// field differs, the versions removed or added; None for findings about
	// the whole message.
	Versions spec.Versions
	// Path is the field's dotted path from the message's top level
	// ("Topics.Partitions.ReplicaEpoch"), with the new names; "" for
	// findings about the message.
	Path string
	// Rule is the CompatRules id, Severity its impact (lowered to
	// CompatibleChange for the version the old specs marked unstable with
	// latestVersionUnstable), Kafka what Kafka's own checker does with the
	// change ("rejects", "accepts" or "" when that is not clear-cut).
	Rule     string
	Severity Impact
	Kafka    string
	Msg      string
	// OldPos and NewPos locate the field (or message) in each spec file;
	// zero when it is absent on that side.
	OldPos, NewPos spec.Pos
}

// Pos is where the finding is best seen: the new spec's position, or the
// old one's when there is no new one.
func (f *Finding) Pos() spec.Pos {
	if f.NewPos.File != "" {
		return f.NewPos
	}
	return f.OldPos
}

// String renders "file:line:col: severity: Message vV Path: msg [rule]".
func (f *Finding) String() string {
	var b strings.Builder
	if p := f.Pos(); p.File != "" {
		b.WriteString(p.String())
		b.WriteString(": ")
	}
	b.WriteString(f.Severity.String())
	b.WriteString(": ")
	b.WriteString(f.Subject())
	b.WriteString(": ")
	b.WriteString(f.Msg)
	if n := f.KafkaNote(); n != "" {
		b.WriteString(" (" + n + ")")
	}
	b.WriteString(" [" + f.Rule + "]")
	return b.String()
}

// Subject is "Message vV Path": what the finding is about.
func (f *Finding) Subject() string {
	s := f.Message
	if !f.Versions.Empty() {
		s += " v" + f.Versions.String()
	}
	if f.Path != "" {
		s += " " + f.Path
	}
	return s
}

// KafkaNote says where kwire and Kafka's checker disagree on the finding:
// "Kafka's checker accepts this" for an incompatible finding it lets pass,
// "Kafka's checker rejects this" for a compatible one it refuses; "" when
// they agree or Kafka's verdict is not clear-cut.
func (f *Finding) KafkaNote() string {
	switch {
	case f.Severity == Incompatible && f.Kafka == KafkaAccepts:
		return "Kafka's checker accepts this"
	case f.Severity != Incompatible && f.Kafka == KafkaRejects:
		return "Kafka's checker rejects this"
	}
	return ""
}

// CompatOptions narrow what Compat compares.
type CompatOptions struct {
	// Common compares only the messages both sides have: no
	// message-removed or message-added findings (for a draft that holds a
	// few specs, compared with a whole release).
	Common bool
	// Skip leaves out messages (of either side) for which it returns true.
	Skip func(*spec.Message) bool
}

// Compat compares two sets of specs as Kafka's evolution rules would, at
// the wire level: for each message of both, the versions added and removed,
// and at every version both have, the bytes of each struct (the positional
// fields in order, the tagged fields by tag). See CompatRules.
// An internal topic's records are compared only where both sets carry
// that topic's specs (Uncarried).
func Compat(old, new *spec.Set) []Finding {
	return CompatWith(old, new, CompatOptions{})
}

// CompatWith is Compat with options. The records of an internal topic
// whose specs only one side carries are not compared (see Uncarried).
func CompatWith(old, new *spec.Set, opt CompatOptions) []Finding {
	uncarried := map[spec.Topic]bool{}
	for _, g := range Uncarried(old, new) {
		uncarried[g.Topic] = true
	}
	skip := func(m *spec.Message) bool {
		return opt.Skip != nil && opt.Skip(m) || m.Topic != "" && uncarried[m.Topic]
	}
	type pair struct{ o, n *spec.Message }
	var pairs []pair
	matched := map[*spec.Message]bool{}
	for _, o := range old.Messages {
		if skip(o) {
			continue
		}
		if n := new.Message(o.Name); n != nil && !skip(n) {
			pairs = append(pairs, pair{o, n})
			matched[n] = true
		}
	}
	renamedFrom := map[*spec.Message]bool{}
	for _, o := range old.Messages {
		if skip(o) || new.Message(o.Name) != nil && !skip(new.Message(o.Name)) {
			continue
		}
		n := byKey(new, o.Type, o.APIKey)
		if n != nil && !matched[n] && !skip(n) && old.Message(n.Name) == nil {
			pairs = append(pairs, pair{o, n})
			matched[n] = true
			renamedFrom[o] = true
			continue
		}
		if !opt.Common {
			pairs = append(pairs, pair{o, nil})
		}
	}
	if !opt.Common {
		for _, n := range new.Messages {
			if !matched[n] && !skip(n) {
				pairs = append(pairs, pair{nil, n})
			}
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool {
		a, b := pairs[i].n, pairs[j].n
		if a == nil {
			a = pairs[i].o
		}
		if b == nil {
			b = pairs[j].o
		}
		ra, rb := a.Type.Rank(), b.Type.Rank()
		if ra != rb {
			return ra < rb
		}
		if a.APIKey != b.APIKey {
			return a.APIKey < b.APIKey
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Name < b.Name
	})
	var out []Finding
	for _, p := range pairs {
		c := &comparer{old: old, new: new, om: p.o, nm: p.n}
		c.compare()
		out = append(out, c.out...)
	}
	return out
}

// byKey finds the message of set with this type and api key, if the type
// has api keys.
func byKey(s *spec.Set, t spec.MessageType, key int16) *spec.Message {
	if key < 0 {
		return nil
	}
	switch t {
	case spec.Request:
		return s.Request(key)
	case spec.Response:
		return s.Response(key)
	case spec.Metadata:
		return s.MetadataRecord(key)
	}
	return nil
}

// comparer compares one message of the old specs (om) with its counterpart
// in the new ones (nm); either may be nil.
type comparer struct {
	old, new *spec.Set
	om, nm   *spec.Message
	out      []Finding

	// Per version: v is the version being compared, open the index in out
	// of the finding each key extends when the next version has it too.
	v    int16
	open map[findingKey]int
	// ov and nv are the versions the old and new messages are read at for
	// c.v: c.v itself, but for a coordinator record key whose spec form
	// changed (a "data" key of 3.9 read at its record type, a
	// "coordinator-key" at 0), the body versions of one record type.
	ov, nv int16
	// unstable is the old specs' unstable version (latestVersionUnstable),
	// or -1.
	unstable int16
}

type findingKey struct {
	rule, path, msg string
	sev             Impact
	kafka           string
	oldPos, newPos  spec.Pos
}

func (c *comparer) base(rule string) Finding {
	r := compatRule(rule)
	f := Finding{Rule: rule, Severity: r.Impact, Kafka: r.Kafka, APIKey: -1, Versions: spec.None}
	switch {
	case c.nm != nil:
		f.Message, f.Type, f.APIKey = c.nm.Name, c.nm.Type, c.nm.APIKey
		if c.om != nil && c.om.Name != c.nm.Name {
			f.OldMessage = c.om.Name
		}
	default:
		f.Message, f.OldMessage, f.Type, f.APIKey = c.om.Name, c.om.Name, c.om.Type, c.om.APIKey
	}
	return f
}

// message adds a finding about the whole message (or a range of versions).
func (c *comparer) message(rule string, vs spec.Versions, msg string) *Finding {
	f := c.base(rule)
	f.Versions, f.Msg = vs, msg
	if c.om != nil {
		f.OldPos = c.om.Pos
	}
	if c.nm != nil {
		f.NewPos = c.nm.Pos
	}
	c.out = append(c.out, f)
	return &c.out[len(c.out)-1]
}

// at adds a finding at the current version c.v, merging it with the same
// finding of the previous version. o and n are the fields concerned (either
// may be nil); kafka overrides the rule's verdict when not "-".
func (c *comparer) at(rule, path string, o, n *spec.Field, kafka, msg string) {
	f := c.base(rule)
	f.Path, f.Msg = path, msg
	if kafka != "-" {
		f.Kafka = kafka
	}
	if o != nil {
		f.OldPos = o.Pos
	}
	if n != nil {
		f.NewPos = n.Pos
	}
	if c.v == c.unstable && f.Severity == Incompatible {
		f.Severity = CompatibleChange
		f.Msg += fmt.Sprintf(" (v%d was unstable in the old specs: latestVersionUnstable)", c.v)
	}
	k := findingKey{f.Rule, f.Path, f.Msg, f.Severity, f.Kafka, f.OldPos, f.NewPos}
	if i, ok := c.open[k]; ok && c.out[i].Versions.Hi == c.v-1 {
		c.out[i].Versions.Hi = c.v
		return
	}
	f.Versions = spec.Versions{Lo: c.v, Hi: c.v}
	c.open[k] = len(c.out)
	c.out = append(c.out, f)
}

func (c *comparer) compare() {
	om, nm := c.om, c.nm
	switch {
	case nm == nil:
		c.message("message-removed", spec.None, fmt.Sprintf("%s (%s) is not in the new specs (valid versions were %s)", describeMessage(om), om.File, om.ValidVersions))
		return
	case om == nil:
		c.message("message-added", spec.None, fmt.Sprintf("new %s (valid versions %s)", describeMessage(nm), nm.ValidVersions))
		return
	}
	if om.Name != nm.Name {
		c.message("message-renamed", spec.None, fmt.Sprintf("renamed from %s (same type and api key %d)", om.Name, nm.APIKey))
	}
	formChanged := om.Type != nm.Type && om.IsRecordKey() == nm.IsRecordKey() && om.IsRecordValue() == nm.IsRecordValue() && om.VersionPrefixed() && om.Topic == nm.Topic
	switch {
	case formChanged:
		c.message("record-form-changed", spec.None, fmt.Sprintf("type %s → %s, record types %s → %s", om.Type, nm.Type, om.RecordTypes, nm.RecordTypes))
		c.recordTypes()
		if om.IsRecordKey() {
			c.keyBodies()
			return
		}
		// A value's versions are its int16 prefix in both forms.
	case om.Type != nm.Type:
		c.message("message-type-changed", spec.None, fmt.Sprintf("type %s → %s", om.Type, nm.Type))
		return
	case om.APIKey != nm.APIKey:
		c.message("api-key-changed", spec.None, fmt.Sprintf("api key %s → %s", keyString(om.APIKey), keyString(nm.APIKey)))
	}
	if om.Type == spec.Request {
		if a, b := strings.Join(om.Listeners, ", "), strings.Join(nm.Listeners, ", "); a != b && !nm.ValidVersions.Empty() {
			c.message("listeners-changed", spec.None, fmt.Sprintf("listeners [%s] → [%s]", a, b))
		}
		if om.LatestVersionUnstable != nm.LatestVersionUnstable {
			msg := "latestVersionUnstable cleared: the latest version is now stable"
			if nm.LatestVersionUnstable {
				msg = fmt.Sprintf("latestVersionUnstable set: v%d may still change", nm.ValidVersions.Hi)
			}
			c.message("unstable-changed", spec.None, msg)
		}
	}
	c.unstable = c.old.UnstableVersion(om)
	c.versions()
	shared := om.ValidVersions.Intersect(nm.ValidVersions)
	if shared.Empty() {
		return
	}
	c.open = map[findingKey]int{}
	start := len(c.out)
	for v := int(shared.Lo); v <= int(shared.Hi); v++ {
		c.v, c.ov, c.nv = int16(v), int16(v), int16(v)
		c.version()
	}
	// Field findings by their first version, then in walk order.
	fs := c.out[start:]
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Versions.Lo < fs[j].Versions.Lo })
}

// recordTypes compares the record types of a coordinator record key or
// value whose spec form changed: each old one is the new spec's, another
// spec's of the topic (moved), or gone.
func (c *comparer) recordTypes() {
	om, nm := c.om, c.nm
	for rt := int(om.RecordTypes.Lo); rt <= int(om.RecordTypes.Hi); rt++ {
		if nm.RecordTypes.Contains(int16(rt)) {
			continue
		}
		other := c.new.RecordValue(om.Topic, int16(rt))
		if om.IsRecordKey() {
			other = c.new.RecordKey(om.Topic, int16(rt))
		}
		if other != nil {
			c.message("record-type-moved", spec.None, fmt.Sprintf("record type %d of %s is now %s's", rt, om.Topic.TopicName(), other.Name))
		} else {
			c.message("record-type-removed", spec.None, fmt.Sprintf("record type %d of %s has no spec in the new ones", rt, om.Topic.TopicName()))
		}
	}
	for rt := int(nm.RecordTypes.Lo); rt <= int(nm.RecordTypes.Hi); rt++ {
		if !om.RecordTypes.Contains(int16(rt)) {
			c.message("record-type-added", spec.None, fmt.Sprintf("record type %d of %s", rt, nm.Topic.TopicName()))
		}
	}
}

// keyBodies compares a coordinator record key whose spec form changed
// record type by record type: each side's body at the version its form
// reads that record type's key at (Message.VersionOfPrefix); findings
// carry the new spec's version.
func (c *comparer) keyBodies() {
	c.unstable = -1 // only requests have unstable versions
	shared := c.om.RecordTypes.Intersect(c.nm.RecordTypes)
	for rt := int(shared.Lo); rt <= int(shared.Hi); rt++ {
		ov, err1 := c.om.VersionOfPrefix(int16(rt))
		nv, err2 := c.nm.VersionOfPrefix(int16(rt))
		if err1 != nil || err2 != nil {
			continue
		}
		c.open = map[findingKey]int{}
		c.v, c.ov, c.nv = nv, ov, nv
		c.version()
	}
}

func keyString(k int16) string {
	if k < 0 {
		return "none"
	}
	return strconv.Itoa(int(k))
}

func describeMessage(m *spec.Message) string {
	if m.APIKey >= 0 {
		return fmt.Sprintf("%s %s (api key %d)", m.Type, m.Name, m.APIKey)
	}
	return fmt.Sprintf("%s %s", m.Type, m.Name)
}

// versions reports the validVersions removed and added, and the changes
// of deprecatedVersions at shared versions.
func (c *comparer) versions() {
	ov, nv := c.om.ValidVersions, c.nm.ValidVersions
	if nv.Empty() && !ov.Empty() {
		c.removed("top-versions-removed", ov, fmt.Sprintf("every version removed: validVersions %s → none (the %s was removed)", ov, removedWhat(c.om)))
		return
	}
	if !ov.Empty() {
		if low := ov.Intersect(spec.Versions{Lo: 0, Hi: nv.Lo - 1}); !low.Empty() {
			c.removed("versions-removed", low, fmt.Sprintf("%s removed: validVersions %s → %s", versionsWord(low), ov, nv))
		}
		if high := ov.Intersect(spec.Versions{Lo: nv.Hi + 1, Hi: spec.MaxVersion}); nv.Hi < spec.MaxVersion && !high.Empty() {
			c.removed("top-versions-removed", high, fmt.Sprintf("%s removed: validVersions %s → %s", versionsWord(high), ov, nv))
		}
	}
	var added []spec.Versions
	if ov.Empty() {
		added = append(added, nv)
	} else {
		added = append(added, nv.Intersect(spec.Versions{Lo: 0, Hi: ov.Lo - 1}))
		if ov.Hi < spec.MaxVersion {
			added = append(added, nv.Intersect(spec.Versions{Lo: ov.Hi + 1, Hi: spec.MaxVersion}))
		}
	}
	for _, a := range added {
		if a.Empty() {
			continue
		}
		msg := fmt.Sprintf("%s added: validVersions %s → %s", versionsWord(a), ov, nv)
		if u := c.new.UnstableVersion(c.nm); u >= 0 && a.Contains(u) {
			msg += fmt.Sprintf(" (v%d unstable: latestVersionUnstable)", u)
		}
		c.message("versions-added", a, msg)
	}
	shared := ov.Intersect(nv)
	if shared.Empty() {
		return
	}
	od, nd := c.om.DeprecatedVersions.Intersect(shared), c.nm.DeprecatedVersions.Intersect(shared)
	if od != nd {
		c.message("deprecated-changed", shared, fmt.Sprintf("deprecated versions among the shared %s: %s → %s (deprecatedVersions %s → %s)", shared, od, nd, c.om.DeprecatedVersions, c.nm.DeprecatedVersions))
	}
}

// versionsWord is "version 3" or "versions 0-2".
func versionsWord(vs spec.Versions) string {
	if vs.Lo == vs.Hi {
		return "version " + vs.String()
	}
	return "versions " + vs.String()
}

func removedWhat(m *spec.Message) string {
	if m.Type == spec.Request || m.Type == spec.Response {
		return "API"
	}
	return string(m.Type) + " type"
}

// removed reports removed versions, setting the old unstable version (which
// may change or go at will) apart as a compatible change.
func (c *comparer) removed(rule string, vs spec.Versions, msg string) {
	u := c.unstable
	if u < 0 || !vs.Contains(u) {
		c.message(rule, vs, msg)
		return
	}
	if rest := vs.Intersect(spec.Versions{Lo: vs.Lo, Hi: u - 1}); !rest.Empty() {
		c.message(rule, rest, msg)
	}
	f := c.message(rule, spec.Versions{Lo: u, Hi: u}, msg+fmt.Sprintf(" (v%d was unstable in the old specs: latestVersionUnstable)", u))
	f.Severity = CompatibleChange
}

// version compares the two messages at the shared version c.v.
func (c *comparer) version() {
	of, nf := c.om.Flexible(c.ov), c.nm.Flexible(c.nv)
	switch {
	case of && !nf:
		c.at("flexible-dropped", "", nil, nil, "-", fmt.Sprintf("no longer flexible: flexibleVersions %s → %s", c.om.FlexibleVersions, c.nm.FlexibleVersions))
	case !of && nf:
		c.at("flexible-added", "", nil, nil, "-", fmt.Sprintf("now flexible: flexibleVersions %s → %s", c.om.FlexibleVersions, c.nm.FlexibleVersions))
	}
	var ofs, nfs []*spec.Field
	if c.om.Root != nil {
		ofs = c.om.Root.Fields
	}
	if c.nm.Root != nil {
		nfs = c.nm.Root.Fields
	}
	c.structs("", ofs, nfs, map[[2]*spec.Struct]bool{})
}
