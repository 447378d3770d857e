package conform

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/tree"
)

// Ignore is a group of response fields whose values legitimately differ
// between two implementations, or two clusters, answering the same
// request: the differential mode does not compare them (nor anything below
// them).
type Ignore struct {
	// Why names what varies ("ids", "timestamps").
	Why string
	// Fields are field names; Suffixes match the ends of field names.
	Fields, Suffixes []string
}

// Ignored is the differential mode's ignore list, printed with its report.
var Ignored = []Ignore{
	{Why: "throttle", Fields: []string{"ThrottleTimeMs"}},
	{Why: "ids", Fields: []string{"ClusterId", "TopicId", "NodeId", "BrokerId", "ControllerId", "ProducerId", "SessionId", "MemberId", "Leader", "LeaderId", "CoordinatorId", "ClientInstanceId"}, Suffixes: []string{"Uuid"}},
	{Why: "hosts and ports", Fields: []string{"Host", "Port", "Rack", "Brokers", "Endpoints", "NodeEndpoints", "Listeners"}},
	{Why: "leader choice and epochs", Fields: []string{"ReplicaNodes", "IsrNodes", "OfflineReplicas", "EligibleLeaderReplicas", "LastKnownElr"}, Suffixes: []string{"Epoch"}},
	{Why: "timestamps", Suffixes: []string{"TimeMs", "Timestamp", "TimestampMs"}},
	{Why: "messages", Fields: []string{"ErrorMessage", "Message"}},
	{Why: "record batches (timestamps, producer ids)", Fields: []string{"Records"}},
	{Why: "disks and log directories", Fields: []string{"LogDir", "TotalBytes", "UsableBytes", "PartitionSize", "OffsetLag"}},
	{Why: "positions in logs that grow with the cluster's age", Fields: []string{"HighWatermark", "LogEndOffset", "LogStartOffset", "LastStableOffset"}},
}

// ignored reports whether a field of that name is in the ignore list.
func ignored(name string) bool {
	for _, ig := range Ignored {
		if slices.Contains(ig.Fields, name) {
			return true
		}
		for _, s := range ig.Suffixes {
			if strings.HasSuffix(name, s) {
				return true
			}
		}
	}
	return false
}

// IgnoredText lists the ignore list for people: "throttle (ThrottleTimeMs);
// ids (ClusterId, …, *Uuid); …".
func IgnoredText() string {
	var parts []string
	for _, ig := range Ignored {
		names := slices.Clone(ig.Fields)
		for _, s := range ig.Suffixes {
			names = append(names, "*"+s)
		}
		parts = append(parts, ig.Why+" ("+strings.Join(names, ", ")+")")
	}
	return strings.Join(parts, "; ")
}

// leafValue is a compared value of an answer and where it is.
type leafValue struct {
	text string
	off  int
	node int32
}

// shaper collects the compared values of a response tree.
type shaper struct {
	t *tree.Tree
	// values are the leaves' values (null as "null", error codes by name)
	// and the lengths of arrays whose elements have no key (path + "#");
	// elems are the array elements' paths.
	values, elems map[string]leafValue
}

// shape collects the compared values of a response tree's body by path,
// the ignored fields and what is below them left out. An element of an
// array whose struct has key fields (mapKey: ApiKeys by ApiKey, Topics by
// Name) is named by its key ("Topics[Name=\"t\"]"), so that answers listing
// the same things in another order compare equal; other elements by index.
func shape(t *tree.Tree) *shaper {
	s := &shaper{t: t, values: map[string]leafValue{}, elems: map[string]leafValue{}}
	if b := t.Part(tree.Body); b >= 0 && t.Message != nil {
		s.walk(b, t.Message.Name)
	}
	return s
}

func (s *shaper) walk(i int32, path string) {
	t := s.t
	t.Children(i, func(c int32) bool {
		n := t.Nodes[c]
		if n.Flags()&tree.FlagVirtual != 0 {
			return true
		}
		f := t.Field(c)
		switch n.Kind() {
		case tree.Field, tree.Array, tree.Struct, tree.Records:
			if f == nil || ignored(f.Name) {
				return true
			}
			p := path + "." + f.Name
			switch n.Kind() {
			case tree.Field:
				s.values[p] = s.leaf(c, f.Name)
			case tree.Struct:
				s.walk(c, p)
			case tree.Array:
				s.array(c, p, f.Name)
			}
		default:
			if !t.IsLeaf(c) { // tag sections and tags: their fields are the struct's
				s.walk(c, path)
			}
		}
		return true
	})
}

func (s *shaper) array(i int32, p, name string) {
	t := s.t
	var elems []int32
	t.Children(i, func(e int32) bool {
		if t.Nodes[e].Kind() == tree.Element {
			elems = append(elems, e)
		}
		return true
	})
	keys := s.keys(elems)
	for k, e := range elems {
		ep := fmt.Sprintf("%s[%d]", p, k)
		if keys != nil {
			ep = p + "[" + keys[k] + "]"
		}
		s.elems[ep] = leafValue{off: int(t.Nodes[e].Off), node: e}
		if t.IsLeaf(e) {
			s.values[ep] = s.leaf(e, name)
		} else {
			s.walk(e, ep)
		}
	}
	if keys == nil {
		s.values[p+"#"] = leafValue{strconv.Itoa(t.Count(i)), int(t.Nodes[i].Off), i}
	}
}

// Identity lists the fields that name what an array element is about when
// the spec gives the array no mapKey (DescribeGroupsResponse.Groups by
// GroupId): the differential mode names elements by the first of them an
// element has, so that two answers listing the same groups in another
// order compare equal. An array whose elements do not all have distinct
// values of that field is compared by index.
var Identity = []string{"ApiKey", "GroupId", "Name", "TopicName", "PartitionIndex", "ResourceName", "TransactionalId", "User"}

// keys names the elements of one array: their mapKey fields' values, else
// their first Identity field's; nil when elements are compared by index
// (no key, or two elements with the same key).
func (s *shaper) keys(elems []int32) []string {
	if len(elems) == 0 || s.t.IsLeaf(elems[0]) {
		return nil
	}
	keys := make([]string, len(elems))
	seen := make(map[string]bool, len(elems))
	for k, e := range elems {
		key := s.key(e)
		if key == "" {
			key = s.identity(e)
		}
		if key == "" || seen[key] {
			return nil
		}
		seen[key] = true
		keys[k] = key
	}
	return keys
}

// key is the values of element e's key fields (mapKey) that are not
// ignored, joined by ","; "" when it has none.
func (s *shaper) key(e int32) string {
	var parts []string
	s.t.Children(e, func(c int32) bool {
		// A key that is an id of the target's (a TopicId) names nothing
		// the reference shares: such elements are matched by index.
		if f := s.t.Field(c); f != nil && f.MapKey && s.t.Nodes[c].Kind() == tree.Field && !ignored(f.Name) {
			parts = append(parts, f.Name+"="+s.leaf(c, f.Name).text)
		}
		return true
	})
	return strings.Join(parts, ",")
}

// identity is "F=value" for element e's first Identity field F, "" when
// it has none.
func (s *shaper) identity(e int32) string {
	best, key := len(Identity), ""
	s.t.Children(e, func(c int32) bool {
		f := s.t.Field(c)
		if f == nil || s.t.Nodes[c].Kind() != tree.Field {
			return true
		}
		if j := slices.Index(Identity, f.Name); j >= 0 && j < best {
			best, key = j, f.Name+"="+s.leaf(c, f.Name).text
		}
		return true
	})
	return key
}

func (s *shaper) leaf(i int32, name string) leafValue {
	t := s.t
	n := t.Nodes[i]
	v := leafValue{off: int(n.Off), node: i}
	switch {
	case n.Null():
		v.text = "null"
	case n.Wire() == tree.WireString || n.Wire() == tree.WireCompactString:
		v.text = strconv.Quote(string(t.Data(i)))
	case n.Wire() == tree.WireBytes || n.Wire() == tree.WireCompactBytes || n.Wire() == tree.WireUUID:
		v.text = fmt.Sprintf("%x", t.Data(i))
	default:
		num := t.Num(i)
		v.text = strconv.FormatInt(num, 10)
		if strings.HasSuffix(name, "ErrorCode") {
			v.text = flow.ErrorCode{Code: int16(num), Name: flow.ErrorName(int16(num))}.String()
		}
	}
	return v
}

// absentElem is the outermost element on p's path that one side has and
// the other (in) lacks, "" when none.
func absentElem(p string, in, other *shaper) string {
	for i := 0; i < len(p); i++ {
		if p[i] != ']' {
			continue
		}
		e := p[:i+1]
		if _, ok := in.elems[e]; !ok {
			if _, ok := other.elems[e]; ok {
				return e
			}
		}
	}
	return ""
}

// Compare returns where the answer target differs from the answer ref to
// the same request, field by field (values, array lengths, elements
// present), the ignored fields left out, as findings of rule "differs" at
// the target's paths and offsets; what the target lacks is named by the
// reference's element key (Topics[Name="t"]) and has offset -1.
func Compare(target, ref *tree.Tree) []Finding {
	a, b := shape(target), shape(ref)
	x := render.NewIndex(target)
	var paths []string
	for p := range a.values {
		paths = append(paths, p)
	}
	for p := range b.values {
		if _, ok := a.values[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var out []Finding
	done := map[string]bool{}
	for _, p := range paths {
		tv, tok := a.values[p]
		rv, rok := b.values[p]
		if tok && rok && tv.text == rv.text {
			continue
		}
		if e := absentElem(p, a, b); !tok && e != "" {
			if !done[e] {
				done[e] = true
				out = append(out, Finding{Rule: "differs", Path: e, Offset: -1, Message: "absent, the reference has it"})
			}
			continue
		}
		if e := absentElem(p, b, a); !rok && e != "" {
			if !done[e] {
				done[e] = true
				out = append(out, Finding{Rule: "differs", Path: x.Path(a.elems[e].node), Offset: a.elems[e].off, Message: "absent from the reference"})
			}
			continue
		}
		what, path := "", strings.TrimSuffix(p, "#")
		if strings.HasSuffix(p, "#") {
			what = " elements"
		}
		switch {
		case !tok:
			out = append(out, Finding{Rule: "differs", Path: path, Offset: -1, Message: "absent, the reference has " + rv.text + what})
		case !rok:
			out = append(out, Finding{Rule: "differs", Path: x.Path(tv.node), Offset: tv.off, Message: tv.text + what + ", absent from the reference"})
		default:
			out = append(out, Finding{Rule: "differs", Path: x.Path(tv.node), Offset: tv.off, Message: tv.text + what + ", the reference " + rv.text + what})
		}
	}
	return out
}

// differ compares the probes of r with those of ref (matched by API,
// version, kind and index): outcomes, then the answers field by field
// (Compare). Differences become findings of the target's probes.
func differ(r, ref *Report, c *codec.Codec) {
	refs := map[string]*Probe{}
	for i := range ref.Probes {
		p := &ref.Probes[i]
		refs[diffKey(p)] = p
	}
	for i := range r.Probes {
		p := &r.Probes[i]
		q := refs[diffKey(p)]
		if q == nil || p.Kind == "apiversions" {
			continue
		}
		if p.Outcome == Found || q.Outcome == Found {
			continue // reported by the rules already (the reference's in its own run)
		}
		var fs []Finding
		if p.Response != nil && q.Response != nil {
			m := c.Set.Response(p.Key)
			tt, err1 := c.DecodeResponse(p.Response, m, p.Version)
			rt, err2 := c.DecodeResponse(q.Response, m, q.Version)
			if err1 == nil && err2 == nil {
				fs = Compare(tt, rt)
			}
		}
		if len(fs) == 0 && outcomeText(p) != outcomeText(q) {
			fs = append(fs, Finding{Rule: "differs", Offset: -1, Message: fmt.Sprintf("%s, the reference %s", outcomeText(p), outcomeText(q))})
		}
		if len(fs) > 0 {
			if p.Kind == "scenario" {
				for i := range fs {
					fs[i].Message = fmt.Sprintf("%s, step %d (%s): %s", scenarioOf(p), p.Index+1, p.API, fs[i].Message)
				}
			}
			p.Findings = append(p.Findings, fs...)
			p.Outcome = Found
		}
	}
}

// diffKey matches a probe of the target with the reference's: its Name,
// and for a scenario's step the scenario's name (steps of two scenarios
// share API, version and index).
func diffKey(p *Probe) string {
	if p.Kind == "scenario" {
		return scenarioOf(p) + ": " + p.Name()
	}
	return p.Name()
}

// scenarioOf is the name of the scenario a step belongs to ("topic
// lifecycle"): Probe.Err's part before its first colon.
func scenarioOf(p *Probe) string {
	name, _, _ := strings.Cut(p.Err, ":")
	return name
}

// outcomeText is a probe's outcome as the differential mode compares it:
// its name, with the Kafka error's.
func outcomeText(p *Probe) string {
	switch p.Outcome {
	case KafkaError:
		return "kafka-error(" + p.Error + ")"
	case Found:
		return "finding"
	}
	return p.Outcome.String()
}
