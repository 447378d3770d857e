package spec

import (
	"cmp"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kwire/kwire/spec/bundle"
)

// namesText is the index of the names of every embedded release's
// messages (names.txt), generated from the parsed releases by
// embeddedNamesText and checked by a test. The hints of an unknown name
// ("… is api key 74 in Kafka 4.0.2", "… is embedded in Kafka 4.0–4.4
// only") read it to parse only the releases that have the name, not all.
//
//go:embed names.txt
var namesText string

// nameRow is one line of names.txt: a message of one name, type, api key
// and internal topic, the embedded releases that have it (bit i:
// bundle.Releases()[i]) and its valid versions in each (versions[i]).
type nameRow struct {
	name     string
	typ      MessageType
	key      int16
	topic    Topic
	releases uint64
	versions []Versions
}

// nameIndex is names.txt parsed: rows by lower-case name, and the
// position of each release in the release columns.
type nameIndex struct {
	rows map[string][]nameRow
	pos  map[string]int
}

// names parses names.txt once; nil when it does not describe the
// embedded releases (then every release is parsed, as without an index).
var names = sync.OnceValue(func() *nameIndex {
	ix, err := parseNames(namesText)
	if err != nil {
		return nil
	}
	return ix
})

func parseNames(text string) (*nameIndex, error) {
	ix := &nameIndex{rows: map[string][]nameRow{}, pos: map[string]int{}}
	var rels []string
	for i, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if f[0] == "releases" {
			rels = f[1:]
			continue
		}
		if len(f) != 4+len(rels) {
			return nil, fmt.Errorf("names.txt:%d: want name, type, api key, topic and %d release columns", i+1, len(rels))
		}
		k, err := strconv.ParseInt(f[2], 10, 16)
		if err != nil {
			return nil, fmt.Errorf("names.txt:%d: api key: %w", i+1, err)
		}
		r := nameRow{name: f[0], typ: MessageType(f[1]), key: int16(k)}
		if f[3] != "-" {
			r.topic = Topic(f[3])
		}
		r.versions = make([]Versions, len(rels))
		for j, c := range f[4:] {
			r.versions[j] = None
			if c == "." {
				continue
			}
			v, _, err := ParseVersions(c)
			if err != nil {
				return nil, fmt.Errorf("names.txt:%d: %w", i+1, err)
			}
			r.releases |= 1 << j
			r.versions[j] = v
		}
		l := strings.ToLower(r.name)
		ix.rows[l] = append(ix.rows[l], r)
	}
	if !slices.Equal(rels, bundle.Releases()) || len(rels) > 64 {
		return nil, fmt.Errorf("names.txt: releases %v, embedded %v", rels, bundle.Releases())
	}
	for i, r := range rels {
		ix.pos[r] = i
	}
	return ix, nil
}

// indexAnswer is what the index says of a release and a name.
type indexAnswer int

const (
	indexUnknown indexAnswer = iota // no index, or a release it does not list
	indexNo
	indexYes
)

// has says whether embedded release r has what Set.lookup finds for name
// (an api key, a request or response by its API's name, or a message).
func (ix *nameIndex) has(r, name string) indexAnswer {
	return ix.match(r, name, func(nameRow) bool { return true })
}

// hasRecord says whether embedded release r's lookup of name finds a
// record of an internal topic (Message.Topic).
func (ix *nameIndex) hasRecord(r, name string) indexAnswer {
	n := strings.ToLower(strings.TrimSpace(name))
	if ix.has(r, n+"request") == indexYes || ix.has(r, n+"response") == indexYes {
		return indexNo // lookup finds the API, not a record
	}
	return ix.match(r, name, func(row nameRow) bool { return row.topic != "" })
}

func (ix *nameIndex) match(r, name string, ok func(nameRow) bool) indexAnswer {
	p, listed := ix.position(r)
	if !listed {
		return indexUnknown
	}
	in := func(rows []nameRow, want func(nameRow) bool) bool {
		for _, row := range rows {
			if row.releases&(1<<p) != 0 && want(row) && ok(row) {
				return true
			}
		}
		return false
	}
	all := func(nameRow) bool { return true }
	n := strings.TrimSpace(name)
	if k, err := strconv.Atoi(n); err == nil {
		if k < 0 || k > 32767 {
			return indexNo
		}
		for _, rows := range ix.rows {
			if in(rows, func(row nameRow) bool { return row.key == int16(k) && (row.typ == Request || row.typ == Response) }) {
				return indexYes
			}
		}
		return indexNo
	}
	l := strings.ToLower(n)
	if in(ix.rows[l+"request"], all) || in(ix.rows[l+"response"], all) || in(ix.rows[l], all) {
		return indexYes
	}
	return indexNo
}

// embeddedNamesText renders names.txt from the embedded releases sets
// (newest first, as EmbeddedAll returns them).
func embeddedNamesText(sets []*Set) string {
	type id struct {
		name  string
		typ   MessageType
		key   int16
		topic Topic
	}
	in := map[id][]string{}
	var order []id
	var rels []string
	for i, s := range sets {
		rels = append(rels, s.Release)
		for _, m := range s.Messages {
			k := id{m.Name, m.Type, m.APIKey, m.Topic}
			if in[k] == nil {
				in[k] = make([]string, len(sets))
				for j := range in[k] {
					in[k][j] = "."
				}
				order = append(order, k)
			}
			in[k][i] = m.ValidVersions.String()
		}
	}
	slices.SortFunc(order, func(a, b id) int {
		return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(string(a.typ), string(b.typ)),
			cmp.Compare(a.key, b.key), strings.Compare(string(a.topic), string(b.topic)))
	})
	var b strings.Builder
	b.WriteString("# Generated by spec's TestEmbeddedNames from the embedded releases; do not edit.\n")
	b.WriteString("# Regenerate: go test ./spec -run TestEmbeddedNames -update\n")
	b.WriteString("# Each message: name, type, api key (-1: none), internal topic (-: none), and\n")
	b.WriteString("# one column per release in the order of the releases line: its valid versions\n")
	b.WriteString("# there, or . when the release lacks it.\n")
	b.WriteString("releases " + strings.Join(rels, " ") + "\n")
	for _, k := range order {
		topic := string(k.topic)
		if topic == "" {
			topic = "-"
		}
		fmt.Fprintf(&b, "%s %s %d %s %s\n", k.name, k.typ, k.key, topic, strings.Join(in[k], " "))
	}
	return b.String()
}

// NewestEmbeddedMessage returns the newest embedded release other than
// release skip whose message name (as Set.Message finds it) has version
// v, or any valid version when v is nil, and that message; nil, nil when
// none has. An index of the embedded releases' names and versions says
// which release to parse, so that only the one returned is parsed.
func NewestEmbeddedMessage(name string, v *int16, skip string) (*Set, *Message) {
	ix := names()
	l := strings.ToLower(name)
	may := func(r string) bool {
		p, ok := ix.position(r)
		if !ok {
			return true
		}
		for _, row := range ix.rows[l] {
			vv := row.versions[p]
			if row.releases&(1<<p) != 0 && !vv.Empty() && (v == nil || vv.Contains(*v)) {
				return true
			}
		}
		return false
	}
	for s := range embeddedExcept(skip, may) {
		m := s.Message(name)
		if m == nil || m.ValidVersions.Empty() || v != nil && !m.ValidVersions.Contains(*v) {
			continue
		}
		return s, m
	}
	return nil, nil
}

// position is the column of release r in names.txt; false without an
// index or when it does not list r.
func (ix *nameIndex) position(r string) (int, bool) {
	if ix == nil {
		return 0, false
	}
	p, ok := ix.pos[r]
	return p, ok
}
