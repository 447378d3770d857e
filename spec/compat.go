package spec

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
	"slices"
	"sort"
	"strconv"
	"strings"
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
	Type   MessageType
	APIKey int16
	// Versions are the versions concerned: the shared versions where a
	// field differs, the versions removed or added; None for findings about
	// the whole message.
	Versions Versions
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
	OldPos, NewPos Pos
}

// Pos is where the finding is best seen: the new spec's position, or the
// old one's when there is no new one.
func (f *Finding) Pos() Pos {
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
	Skip func(*Message) bool
}

// Compat compares two sets of specs as Kafka's evolution rules would, at
// the wire level: for each message of both, the versions added and removed,
// and at every version both have, the bytes of each struct (the positional
// fields in order, the tagged fields by tag). See CompatRules.
func Compat(old, new *Set) []Finding {
	return CompatWith(old, new, CompatOptions{})
}

// CompatWith is Compat with options.
func CompatWith(old, new *Set, opt CompatOptions) []Finding {
	skip := func(m *Message) bool { return opt.Skip != nil && opt.Skip(m) }
	type pair struct{ o, n *Message }
	var pairs []pair
	matched := map[*Message]bool{}
	for _, o := range old.Messages {
		if skip(o) {
			continue
		}
		if n := new.Message(o.Name); n != nil && !skip(n) {
			pairs = append(pairs, pair{o, n})
			matched[n] = true
		}
	}
	renamedFrom := map[*Message]bool{}
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
		ra, rb := typeRank(a.Type), typeRank(b.Type)
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
func byKey(s *Set, t MessageType, key int16) *Message {
	if key < 0 {
		return nil
	}
	switch t {
	case Request:
		return s.Request(key)
	case Response:
		return s.Response(key)
	case Metadata:
		return s.MetadataRecord(key)
	}
	return nil
}

// comparer compares one message of the old specs (om) with its counterpart
// in the new ones (nm); either may be nil.
type comparer struct {
	old, new *Set
	om, nm   *Message
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
	oldPos, newPos  Pos
}

func (c *comparer) base(rule string) Finding {
	r := compatRule(rule)
	f := Finding{Rule: rule, Severity: r.Impact, Kafka: r.Kafka, APIKey: -1, Versions: None}
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
func (c *comparer) message(rule string, vs Versions, msg string) *Finding {
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
func (c *comparer) at(rule, path string, o, n *Field, kafka, msg string) {
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
	f.Versions = Versions{c.v, c.v}
	c.open[k] = len(c.out)
	c.out = append(c.out, f)
}

// unstableVersion is the version m's API marks unstable (the highest valid
// version when the request has latestVersionUnstable), or -1.
func unstableVersion(s *Set, m *Message) int16 {
	req := m
	if m.Type == Response && m.APIKey >= 0 {
		req = s.Request(m.APIKey)
	}
	if req == nil || req.Type != Request || !req.LatestVersionUnstable || m.ValidVersions.Empty() {
		return -1
	}
	return m.ValidVersions.Hi
}

func (c *comparer) compare() {
	om, nm := c.om, c.nm
	switch {
	case nm == nil:
		c.message("message-removed", None, fmt.Sprintf("%s (%s) is not in the new specs (valid versions were %s)", describeMessage(om), om.File, om.ValidVersions))
		return
	case om == nil:
		c.message("message-added", None, fmt.Sprintf("new %s (valid versions %s)", describeMessage(nm), nm.ValidVersions))
		return
	}
	if om.Name != nm.Name {
		c.message("message-renamed", None, fmt.Sprintf("renamed from %s (same type and api key %d)", om.Name, nm.APIKey))
	}
	formChanged := om.Type != nm.Type && om.IsRecordKey() == nm.IsRecordKey() && om.IsRecordValue() == nm.IsRecordValue() && om.VersionPrefixed() && om.Topic == nm.Topic
	switch {
	case formChanged:
		c.message("record-form-changed", None, fmt.Sprintf("type %s → %s, record types %s → %s", om.Type, nm.Type, om.RecordTypes, nm.RecordTypes))
		c.recordTypes()
		if om.IsRecordKey() {
			c.keyBodies()
			return
		}
		// A value's versions are its int16 prefix in both forms.
	case om.Type != nm.Type:
		c.message("message-type-changed", None, fmt.Sprintf("type %s → %s", om.Type, nm.Type))
		return
	case om.APIKey != nm.APIKey:
		c.message("api-key-changed", None, fmt.Sprintf("api key %s → %s", keyString(om.APIKey), keyString(nm.APIKey)))
	}
	if om.Type == Request {
		if a, b := strings.Join(om.Listeners, ", "), strings.Join(nm.Listeners, ", "); a != b && !nm.ValidVersions.Empty() {
			c.message("listeners-changed", None, fmt.Sprintf("listeners [%s] → [%s]", a, b))
		}
		if om.LatestVersionUnstable != nm.LatestVersionUnstable {
			msg := "latestVersionUnstable cleared: the latest version is now stable"
			if nm.LatestVersionUnstable {
				msg = fmt.Sprintf("latestVersionUnstable set: v%d may still change", nm.ValidVersions.Hi)
			}
			c.message("unstable-changed", None, msg)
		}
	}
	c.unstable = unstableVersion(c.old, om)
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
			c.message("record-type-moved", None, fmt.Sprintf("record type %d of %s is now %s's", rt, om.Topic.TopicName(), other.Name))
		} else {
			c.message("record-type-removed", None, fmt.Sprintf("record type %d of %s has no spec in the new ones", rt, om.Topic.TopicName()))
		}
	}
	for rt := int(nm.RecordTypes.Lo); rt <= int(nm.RecordTypes.Hi); rt++ {
		if !om.RecordTypes.Contains(int16(rt)) {
			c.message("record-type-added", None, fmt.Sprintf("record type %d of %s", rt, nm.Topic.TopicName()))
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

func describeMessage(m *Message) string {
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
		if low := ov.Intersect(Versions{0, nv.Lo - 1}); !low.Empty() {
			c.removed("versions-removed", low, fmt.Sprintf("%s removed: validVersions %s → %s", versionsWord(low), ov, nv))
		}
		if high := ov.Intersect(Versions{nv.Hi + 1, MaxVersion}); nv.Hi < MaxVersion && !high.Empty() {
			c.removed("top-versions-removed", high, fmt.Sprintf("%s removed: validVersions %s → %s", versionsWord(high), ov, nv))
		}
	}
	var added []Versions
	if ov.Empty() {
		added = append(added, nv)
	} else {
		added = append(added, nv.Intersect(Versions{0, ov.Lo - 1}))
		if ov.Hi < MaxVersion {
			added = append(added, nv.Intersect(Versions{ov.Hi + 1, MaxVersion}))
		}
	}
	for _, a := range added {
		if a.Empty() {
			continue
		}
		msg := fmt.Sprintf("%s added: validVersions %s → %s", versionsWord(a), ov, nv)
		if u := unstableVersion(c.new, c.nm); u >= 0 && a.Contains(u) {
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
func versionsWord(vs Versions) string {
	if vs.Lo == vs.Hi {
		return "version " + vs.String()
	}
	return "versions " + vs.String()
}

func removedWhat(m *Message) string {
	if m.Type == Request || m.Type == Response {
		return "API"
	}
	return string(m.Type) + " type"
}

// removed reports removed versions, setting the old unstable version (which
// may change or go at will) apart as a compatible change.
func (c *comparer) removed(rule string, vs Versions, msg string) {
	u := c.unstable
	if u < 0 || !vs.Contains(u) {
		c.message(rule, vs, msg)
		return
	}
	if rest := vs.Intersect(Versions{vs.Lo, u - 1}); !rest.Empty() {
		c.message(rule, rest, msg)
	}
	f := c.message(rule, Versions{u, u}, msg+fmt.Sprintf(" (v%d was unstable in the old specs: latestVersionUnstable)", u))
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
	var ofs, nfs []*Field
	if c.om.Root != nil {
		ofs = c.om.Root.Fields
	}
	if c.nm.Root != nil {
		nfs = c.nm.Root.Fields
	}
	c.structs("", ofs, nfs, map[[2]*Struct]bool{})
}

// fieldKey is the name fields pair by: Kafka's names are case-sensitive,
// but a change of case alone is reported as a rename of the same field.
func fieldKey(f *Field) string { return strings.ToLower(f.Name) }

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// structs compares two field lists (of the top level or of a struct) at
// version c.v. seen holds the struct pairs being compared further up, so
// that recursive structs end.
func (c *comparer) structs(path string, ofs, nfs []*Field, seen map[[2]*Struct]bool) {
	ov, nv := c.ov, c.nv
	oByName, nByName := map[string]*Field{}, map[string]*Field{}
	for _, f := range ofs {
		oByName[fieldKey(f)] = f
	}
	for _, f := range nfs {
		nByName[fieldKey(f)] = f
	}
	// partner pairs the fields of the same name both present at v.
	partner := map[*Field]*Field{}
	for _, o := range ofs {
		if n := nByName[fieldKey(o)]; n != nil && o.PresentIn(ov) && n.PresentIn(nv) {
			partner[o], partner[n] = n, o
		}
	}
	positional := func(fs []*Field, v int16) []*Field {
		var r []*Field
		for _, f := range fs {
			if f.PresentIn(v) && !f.TaggedIn(v) {
				r = append(r, f)
			}
		}
		return r
	}
	tagged := func(fs []*Field, v int16) []*Field {
		var r []*Field
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
	isOld := map[*Field]bool{}
	for _, o := range ofs {
		isOld[o] = true
	}
	bothPos := func(f *Field) bool {
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
	var oSeq, nSeq []*Field
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
		var ro, rn []*Field
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
	byTag := map[int32]*Field{}
	for _, n := range nTag {
		byTag[n.Tag] = n
	}
	used := map[*Field]bool{}
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
func versionsNote(o, n *Field) string {
	if o == nil || n == nil {
		return ""
	}
	return fmt.Sprintf(" at this version: versions %s → %s", o.Versions, n.Versions)
}

// run compares the positional fields between two anchors: as many fields
// on both sides, none of which the other side knows by name, are the same
// slots renamed; anything else is removed and added.
func (c *comparer) run(path string, ro, rn []*Field, oByName, nByName map[string]*Field, reordered bool, seen map[[2]*Struct]bool) {
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
func (c *comparer) field(path string, o, n *Field, seen map[[2]*Struct]bool) {
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
	if c.om.Flexible(ov) == c.nm.Flexible(nv) && (n.Type.Kind == KindString || n.Type.Kind == KindBytes) {
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
		k := [2]*Struct{o.Type.Struct, n.Type.Struct}
		if seen[k] {
			return
		}
		seen[k] = true
		c.structs(p, o.Type.Struct.Fields, n.Type.Struct.Fields, seen)
		delete(seen, k)
	}
}

func fieldFlexible(m *Message, f *Field, v int16) bool {
	if f.HasFlexibleVersions {
		return f.FlexibleVersions.Contains(v)
	}
	return m.Flexible(v)
}

func flexString(f *Field) string {
	if f.HasFlexibleVersions {
		return f.FlexibleVersions.String()
	}
	return "(the message's)"
}

func presenceNote(f *Field, v int16) string {
	if f.Type.Kind == KindStruct && !f.TaggedIn(v) {
		return " (a nullable struct has a presence byte on the wire)"
	}
	return ""
}

// sameEncoding reports whether values of the two types are written the same
// way (structs are compared field by field elsewhere).
func sameEncoding(a, b Type) bool {
	same := func(x, y Kind) bool {
		return x == y || x == KindBytes && y == KindRecords || x == KindRecords && y == KindBytes
	}
	if !same(a.Kind, b.Kind) {
		return false
	}
	if a.Kind == KindArray {
		return a.Elem == b.Elem
	}
	return true
}

func widthNote(a, b Type) string {
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
func defaultValue(f *Field) string {
	if f.DefaultNull {
		return "null"
	}
	switch f.Type.Kind {
	case KindBool:
		return strconv.FormatBool(f.DefaultInt != 0)
	case KindInt8, KindInt16, KindUint16, KindInt32, KindUint32, KindInt64:
		return strconv.FormatInt(f.DefaultInt, 10)
	case KindFloat64:
		return strconv.FormatFloat(f.DefaultFloat, 'g', -1, 64)
	case KindUUID:
		if f.DefaultUUID == ([16]byte{}) {
			return "zero uuid"
		}
		return fmt.Sprintf("uuid %x", f.DefaultUUID[:])
	case KindString:
		return strconv.Quote(f.DefaultString)
	case KindRecords:
		return "null"
	}
	return "empty"
}

// DiffRow summarises how one API (its request and response together) or one
// other message differs between two sets of specs, from Compat's findings.
type DiffRow struct {
	// Kind is "api" for a request/response pair, else the message type.
	Kind string
	// APIKey is the api key, or -1.
	APIKey int16
	// Name is the API's name without Request/Response, or the message's
	// name, in the new specs (the old ones when removed); OldName is the old
	// name of a renamed API or message.
	Name, OldName string
	// Status is "added", "removed" (also when every version was removed),
	// "renamed" or "changed".
	Status string
	// OldVersions and NewVersions are the valid versions (of the request,
	// for an API).
	OldVersions, NewVersions Versions
	// Removed and Added are the versions that went and came; Changed the
	// versions both sides have where a field differs (on the wire or only in
	// its name).
	Removed, Added, Changed []Versions
	// Counts of findings by impact.
	Incompatible, Compatible, Info int
	// Other lists the rules of findings that do not concern versions or
	// fields: listeners-changed, deprecated-changed, unstable-changed.
	Other []string
	// Records lists the rules of findings about a coordinator record key's
	// or value's spec form and record types: record-form-changed,
	// record-type-moved, record-type-removed, record-type-added.
	Records []string
}

// Substantive reports whether the row concerns presence, versions, fields
// or a coordinator record's form and record types, not only listeners,
// deprecation or stability marks.
func (r *DiffRow) Substantive() bool {
	return r.Status != "changed" || len(r.Removed) > 0 || len(r.Added) > 0 || len(r.Changed) > 0 || len(r.Records) > 0
}

// metaRules are the findings that leave versions and fields alone.
var metaRules = map[string]bool{"listeners-changed": true, "deprecated-changed": true, "unstable-changed": true}

// Diff groups Compat's findings into one row per API or message that
// differs, in the order of the findings.
func Diff(old, new *Set, findings []Finding) []DiffRow {
	type key struct {
		kind string
		api  int16
		name string
	}
	var rows []*DiffRow
	byKey := map[key]*DiffRow{}
	for _, f := range findings {
		k := key{kind: string(f.Type), api: -1, name: f.Message}
		if (f.Type == Request || f.Type == Response) && f.APIKey >= 0 {
			k = key{kind: "api", api: f.APIKey}
		}
		r := byKey[k]
		if r == nil {
			r = &DiffRow{Kind: k.kind, APIKey: f.APIKey, Name: f.Message, Status: "changed", OldVersions: None, NewVersions: None}
			if k.kind == "api" {
				r.Name = apiName(f.Message)
				oq, nq := apiSide(old, f.APIKey, f.OldMessage, f.Message), apiSide(new, f.APIKey, "", f.Message)
				if oq != nil {
					r.OldVersions = oq.ValidVersions
					if on := apiName(oq.Name); on != r.Name {
						r.OldName = on
					}
				}
				if nq != nil {
					r.NewVersions = nq.ValidVersions
				} else if oq != nil {
					r.Name = apiName(oq.Name)
				}
			} else {
				if m := old.Message(f.OldMessage); m != nil {
					r.OldVersions = m.ValidVersions
				} else if m := old.Message(f.Message); m != nil {
					r.OldVersions = m.ValidVersions
				}
				if m := new.Message(f.Message); m != nil && f.Rule != "message-removed" {
					r.NewVersions = m.ValidVersions
				}
				r.OldName = f.OldMessage
				if r.OldName == r.Name {
					r.OldName = ""
				}
			}
			byKey[k] = r
			rows = append(rows, r)
		}
		switch f.Severity {
		case Incompatible:
			r.Incompatible++
		case CompatibleChange:
			r.Compatible++
		default:
			r.Info++
		}
		switch {
		case f.Rule == "message-added":
			r.Status = "added"
		case f.Rule == "message-removed":
			r.Status = "removed"
		case f.Rule == "message-renamed" && r.Status == "changed":
			r.Status = "renamed"
		case f.Rule == "versions-removed" || f.Rule == "top-versions-removed":
			r.Removed = addRange(r.Removed, f.Versions)
		case f.Rule == "versions-added":
			r.Added = addRange(r.Added, f.Versions)
		case metaRules[f.Rule]:
			if !slices.Contains(r.Other, f.Rule) {
				r.Other = append(r.Other, f.Rule)
			}
		case strings.HasPrefix(f.Rule, "record-"):
			if !slices.Contains(r.Records, f.Rule) {
				r.Records = append(r.Records, f.Rule)
			}
		case !f.Versions.Empty():
			r.Changed = addRange(r.Changed, f.Versions)
		}
	}
	out := make([]DiffRow, 0, len(rows))
	for _, r := range rows {
		if r.Status == "changed" && r.NewVersions.Empty() && !r.OldVersions.Empty() {
			r.Status = "removed"
		}
		out = append(out, *r)
	}
	return out
}

// apiName is a request's or response's name without the suffix.
func apiName(name string) string {
	return strings.TrimSuffix(strings.TrimSuffix(name, "Request"), "Response")
}

// apiSide returns the request of the API (or its response when there is
// no request spec), found by api key or by one of the names.
func apiSide(s *Set, key int16, names ...string) *Message {
	if m := s.Request(key); m != nil {
		return m
	}
	if m := s.Response(key); m != nil {
		return m
	}
	for _, n := range names {
		if m := s.Message(n); n != "" && m != nil {
			return m
		}
	}
	return nil
}

// addRange adds vs to a sorted list of disjoint ranges, merging ranges that
// overlap or touch.
func addRange(rs []Versions, vs Versions) []Versions {
	if vs.Empty() {
		return rs
	}
	rs = append(rs, vs)
	sort.Slice(rs, func(i, j int) bool { return rs[i].Lo < rs[j].Lo })
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if int(r.Lo) <= int(last.Hi)+1 {
			last.Hi = max(last.Hi, r.Hi)
			continue
		}
		out = append(out, r)
	}
	return out
}
