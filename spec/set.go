package spec

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kwire/kwire/spec/bundle"
)

// Set is the specs of one Kafka release (or one directory, jar or draft):
// every request, response, header, metadata record and data message.
type Set struct {
	// Release is the Kafka version of an embedded bundle ("4.4.0"), or "" for
	// specs loaded from a path.
	Release string
	// Source describes where the specs came from (a release with its jars'
	// sha256, or a path).
	Source string
	// Artifacts are the Maven artifacts of an embedded release.
	Artifacts []bundle.Artifact
	// Messages in a stable order: requests/responses by api key, then
	// headers, metadata records by api key, then data messages by name,
	// then the internal topics' records (Message.Topic) by topic (in the
	// order of Topics), api key, type and name.
	Messages []*Message
	// Unloaded are the positions of the spec objects of the files that are
	// not in Messages: objects with errors of their own, JSON beyond
	// repair, or a name or api key that another message has. It is empty
	// when every object loaded, even if the files had problems of their
	// own (text around the objects, several objects in one file).
	Unloaded []Pos

	byName map[string]*Message
	req    map[int16]*Message
	resp   map[int16]*Message
	meta   map[int16]*Message
	topics map[Topic]*topicRecords
}

// embedded caches parsed embedded releases: a Set is read-only once built,
// so every caller can share it.
var embedded sync.Map // release version -> *Set

// Embedded loads an embedded release: "4.4.0", "4.4", "3.9", or "" for the
// newest. Errors list the releases that exist. The Set is parsed once per
// process and shared; callers must not modify it.
func Embedded(release string) (*Set, error) {
	r, err := bundle.Load(release)
	if err != nil {
		return nil, err
	}
	if s, ok := embedded.Load(r.Version); ok {
		return s.(*Set), nil
	}
	s, err := parseEmbedded(r)
	if err != nil {
		return nil, err
	}
	actual, _ := embedded.LoadOrStore(r.Version, s)
	return actual.(*Set), nil
}

// EmbeddedAll loads every embedded release, newest first (see Embedded).
// Releases not parsed yet are parsed concurrently, one goroutine per CPU.
func EmbeddedAll() ([]*Set, error) {
	sets, err := embeddedAll()
	return slices.Clone(sets), err
}

var embeddedAll = sync.OnceValues(func() ([]*Set, error) {
	rs := bundle.Releases()
	sets := make([]*Set, len(rs))
	errs := make([]error, len(rs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(rs)) {
		wg.Go(func() {
			for i := range next {
				sets[i], errs[i] = Embedded(rs[i])
			}
		})
	}
	for i := range rs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return sets, nil
})

func parseEmbedded(r *bundle.Release) (*Set, error) {
	s, errs := NewSet(r.Files)
	if errs.HasErrors() {
		return nil, fmt.Errorf("embedded release %s: %w", r.Version, errs.Err())
	}
	s.Release = r.Version
	s.Artifacts = r.Artifacts
	var parts []string
	for _, a := range r.Artifacts {
		parts = append(parts, fmt.Sprintf("%s (sha256 %s)", a.Coord, a.SHA256))
	}
	s.Source = "embedded Apache Kafka " + r.Version + ": " + strings.Join(parts, ", ")
	return s, nil
}

// FromPath loads the specs of a directory, a .jar/.zip or a single file.
// Problems of every file are returned together; the set holds the messages
// that parsed without errors.
func FromPath(p string) (*Set, ErrorList, error) {
	files, err := bundle.ReadPath(p)
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("%s: no spec files (*.json) found", p)
	}
	s, errs := NewSet(files)
	s.Source = p
	if b := s.withHeaders(); len(b) > 0 {
		s.Source += " (with " + strings.Join(b, " and ") + " of embedded Kafka " + bundle.Releases()[0] + ")"
	}
	return s, errs, nil
}

// NewSet parses files into a Set. Files whose spec has errors are left out
// of the set; every problem is returned. Two messages with the same name or
// the same (type, api key) are an error.
//
// A file may be a draft (see draft.go): each of its spec objects is a
// message of its own, and the file's own problems (text around the
// objects, missing braces) are reported without keeping them from loading.
func NewSet(files []bundle.File) (*Set, ErrorList) {
	s, all, _ := buildSet(files)
	return s, all
}

// fileName is how problems name a file: the path as given for a single
// file, dir/rel for a directory's file, archive!/entry for an archive's.
func fileName(f bundle.File) string {
	switch {
	case f.Source == "" || strings.HasPrefix(f.Path, "/"):
		return f.Path
	case hasArchiveExt(f.Source):
		return f.Source + "!/" + f.Path
	case path.Base(filepath.ToSlash(f.Source)) == f.Path:
		return f.Source
	}
	return filepath.Join(f.Source, filepath.FromSlash(f.Path))
}

// inSet reports whether f is one of a set of spec files (a directory's,
// an archive's, a release's), not a file read on its own.
func inSet(f bundle.File) bool {
	return f.Source != "" && !strings.HasPrefix(f.Path, "/") && path.Base(filepath.ToSlash(f.Source)) != f.Path
}

// unitPos is where an object of pf starts: its message's position, or
// the first problem's when its JSON did not parse.
func unitPos(pf *parsedFile, u *unit) Pos {
	switch {
	case u.msg != nil:
		return u.msg.Pos
	case len(u.errs) > 0:
		return u.errs[0].Pos
	}
	return Pos{File: pf.name, Line: 1, Col: 1}
}

func hasArchiveExt(name string) bool {
	l := strings.ToLower(name)
	return strings.HasSuffix(l, ".jar") || strings.HasSuffix(l, ".zip")
}

// buildSet is NewSet, also returning every file as parsed, with the
// messages left out for their errors (for lint).
func buildSet(files []bundle.File) (*Set, ErrorList, []*parsedFile) {
	s := &Set{byName: map[string]*Message{}, req: map[int16]*Message{}, resp: map[int16]*Message{}, meta: map[int16]*Message{}}
	var all ErrorList
	var parsed []*parsedFile
	for _, f := range files {
		pf := parseFile(fileName(f), f.Data, inSet(f))
		parsed = append(parsed, pf)
		all = append(all, pf.errs...)
		s.Unloaded = append(s.Unloaded, pf.dropped...)
		for _, u := range pf.units {
			all = append(all, u.errs...)
			if u.msg == nil || u.errs.HasErrors() {
				s.Unloaded = append(s.Unloaded, unitPos(pf, u))
				continue
			}
			u.msg.File = f.Path
			u.msg.Topic = topicOf(f.Source, f.Path, u.msg)
			u.msg.RecordTypes = None
			if e := s.add(u.msg); e != nil {
				all = append(all, e)
				s.Unloaded = append(s.Unloaded, u.msg.Pos)
			}
		}
	}
	all = append(all, s.linkRecords()...)
	s.sort()
	all.Sort()
	return s, all, parsed
}

// add puts m into the set, or returns why it cannot: another message has
// its name, or its type and api key.
func (s *Set) add(m *Message) *Error {
	if prev := s.byName[strings.ToLower(m.Name)]; prev != nil {
		return &Error{Pos: m.Pos, Rule: "duplicate-message", Msg: fmt.Sprintf("message %q is also defined in %s", m.Name, prev.File)}
	}
	var byKey map[int16]*Message
	switch m.Type {
	case Request:
		byKey = s.req
	case Response:
		byKey = s.resp
	case Metadata:
		byKey = s.meta
		if m.Topic != "" {
			byKey = s.topic(m.Topic).meta
		}
	}
	if byKey != nil && m.APIKey >= 0 {
		if prev := byKey[m.APIKey]; prev != nil {
			return &Error{Pos: m.Pos, Rule: "duplicate-api-key", Msg: fmt.Sprintf("%s %q has api key %d, already used by %q", m.Type, m.Name, m.APIKey, prev.Name)}
		}
		byKey[m.APIKey] = m
	}
	s.byName[strings.ToLower(m.Name)] = m
	s.Messages = append(s.Messages, m)
	return nil
}

// sort puts the messages in their stable order (see Set.Messages).
func (s *Set) sort() {
	sort.SliceStable(s.Messages, func(i, j int) bool {
		a, b := s.Messages[i], s.Messages[j]
		ra, rb := a.Type.Rank(), b.Type.Rank()
		if a.Topic != "" {
			ra = 4
		}
		if b.Topic != "" {
			rb = 4
		}
		if ra != rb {
			return ra < rb
		}
		if a.Topic != b.Topic {
			return topicRank(a.Topic) < topicRank(b.Topic)
		}
		if ka, kb := a.sortKey(), b.sortKey(); ka != kb {
			return ka < kb
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Name < b.Name
	})
}

// sortKey is the api key, or for a coordinator record key or value its
// first record type.
func (m *Message) sortKey() int16 {
	if m.VersionPrefixed() && !m.RecordTypes.Empty() {
		return m.RecordTypes.Lo
	}
	return m.APIKey
}

// topicRank orders internal topics as Topics does.
func topicRank(t Topic) int {
	for i, x := range Topics() {
		if x == t {
			return i
		}
	}
	return -1
}

// Rank is the place of messages of type t in Set.Messages: requests and
// responses 0, headers 1, metadata records 2, data messages 3 (an
// internal topic's records come after all of them).
func (t MessageType) Rank() int {
	switch t {
	case Request, Response:
		return 0
	case Header:
		return 1
	case Metadata:
		return 2
	}
	return 3
}

// Request returns the request spec with the given api key, or nil.
func (s *Set) Request(key int16) *Message { return s.req[key] }

// Response returns the response spec with the given api key, or nil.
func (s *Set) Response(key int16) *Message { return s.resp[key] }

// MetadataRecord returns the metadata record spec (type "metadata") with the
// given api key, or nil.
func (s *Set) MetadataRecord(key int16) *Message { return s.meta[key] }

// Message returns the spec with this exact name (case-insensitive), or nil.
func (s *Set) Message(name string) *Message { return s.byName[strings.ToLower(name)] }

// RequestHeader returns the RequestHeader spec, or nil.
func (s *Set) RequestHeader() *Message { return s.byName["requestheader"] }

// ResponseHeader returns the ResponseHeader spec, or nil.
func (s *Set) ResponseHeader() *Message { return s.byName["responseheader"] }

// APIKeys returns the api keys that have a request spec, ascending.
func (s *Set) APIKeys() []int16 {
	keys := make([]int16, 0, len(s.req))
	for k := range s.req {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

// withHeaders adds the RequestHeader and ResponseHeader specs of the
// newest embedded release when s has requests or responses but not the
// headers (a draft or a single spec file): framing needs them, and they
// have not changed since KIP-482. It returns the names it borrowed.
func (s *Set) withHeaders() []string {
	var borrowed []string
	needs := len(s.req) > 0 || len(s.resp) > 0
	if !needs {
		return nil
	}
	for _, name := range []string{"RequestHeader", "ResponseHeader"} {
		if s.byName[strings.ToLower(name)] != nil {
			continue
		}
		e, err := Embedded("")
		if err != nil {
			return borrowed
		}
		if h := e.Message(name); h != nil {
			s.byName[strings.ToLower(name)] = h
			s.Messages = append(s.Messages, h)
			borrowed = append(borrowed, name)
		}
	}
	return borrowed
}

// Lookup finds what a user names: an API ("Vote", "vote", "52"), a request
// or response ("VoteRequest"), a header, metadata record ("PartitionRecord")
// or data message. For an API it returns the request and response specs; for
// anything else the one message (as req) and nil. The error for an unknown
// name lists close names and says how to list all.
func (s *Set) Lookup(name string) (req, resp *Message, err error) {
	req, resp, err = s.lookup(name)
	if err != nil && s.Release != "" {
		if why := s.recordElsewhere(name); why != "" {
			// A record spec some releases' jars hold: no near name helps.
			return nil, nil, fmt.Errorf("unknown API or message %q in %s: %s", name, s.describe(), why)
		}
		if why := s.otherRelease(name); why != "" {
			err = fmt.Errorf("%w; %s", err, why)
		}
	}
	return req, resp, err
}

// recordElsewhere says which embedded releases hold the spec of internal
// topic record name (Message.Topic: a coordinator record key or value, a
// remote-log-metadata record) that s lacks: "OffsetCommitValue is a
// coordinator-value record of __consumer_offsets whose spec is embedded in
// Kafka 3.5–4.4 only (try --kafka 4.4)"; "" when none does or name is no
// such record.
func (s *Set) recordElsewhere(name string) string {
	// The index (names.txt) names the releases; only the first one that
	// has the record is parsed, for its spec's type and topic.
	var rs []string
	var first *Message
	for _, r := range bundle.Releases() {
		if r == s.Release {
			continue
		}
		switch names().hasRecord(r, name) {
		case indexNo:
			continue
		case indexYes:
			if first != nil {
				rs = append(rs, r)
				continue
			}
		}
		o, err := Embedded(r)
		if err != nil {
			continue
		}
		m, _, err := o.lookup(name)
		if err != nil || m == nil || m.Topic == "" {
			continue
		}
		if first == nil {
			first = m
		}
		rs = append(rs, r)
	}
	if first == nil {
		return ""
	}
	return fmt.Sprintf("%s is a %s record of %s whose spec is embedded in Kafka %s only (try --kafka %s)", first.Name, first.Type, first.Topic.TopicName(), releasesWords(rs), bundle.Flag(rs[0]))
}

// otherRelease says where an embedded release other than s's has the
// message or API name that s lacks, and under which name s has its api
// key: "ListClientMetricsResources is api key 74 in Kafka 3.9.1 (try
// --kafka 3.9), named ListConfigResources in Kafka 4.4.0"; "" when no
// other release has it.
func (s *Set) otherRelease(name string) string {
	may := func(r string) bool { return names().has(r, name) != indexNo }
	for o := range embeddedExcept(s.Release, may) {
		r := o.Release
		req, resp, err := o.lookup(name)
		if err != nil {
			continue
		}
		m := req
		if m == nil {
			m = resp
		}
		flag := fmt.Sprintf("try --kafka %s", bundle.Flag(r))
		if m.APIKey < 0 || m.Type != Request && m.Type != Response && m.Type != Metadata {
			return fmt.Sprintf("%s is a %s type of Kafka %s (%s)", m.Name, m.Type, r, flag)
		}
		var here *Message
		switch m.Type {
		case Request, Response:
			if here = s.req[m.APIKey]; here == nil {
				here = s.resp[m.APIKey]
			}
		case Metadata:
			here = s.meta[m.APIKey]
		}
		if here == nil {
			return fmt.Sprintf("%s is api key %d in Kafka %s (%s), which Kafka %s lacks", m.BaseName(), m.APIKey, r, flag, s.Release)
		}
		return fmt.Sprintf("%s is api key %d in Kafka %s (%s), named %s in Kafka %s", m.BaseName(), m.APIKey, r, flag, here.BaseName(), s.Release)
	}
	return ""
}

func (s *Set) lookup(name string) (req, resp *Message, err error) {
	n := strings.TrimSpace(name)
	if k, e := strconv.Atoi(n); e == nil {
		if k >= 0 && k <= 32767 && (s.req[int16(k)] != nil || s.resp[int16(k)] != nil) {
			return s.req[int16(k)], s.resp[int16(k)], nil
		}
		return nil, nil, fmt.Errorf("no API with api key %d in %s (api keys: %s)", k, s.describe(), s.keyList())
	}
	l := strings.ToLower(n)
	if m, r := s.byName[l+"request"], s.byName[l+"response"]; m != nil || r != nil {
		// A draft may hold only one side; req is then nil.
		return m, r, nil
	}
	if m := s.byName[l]; m != nil {
		return m, nil, nil
	}
	var names []string
	for _, m := range s.Messages {
		names = append(names, m.Name)
		if m.Type == Request {
			names = append(names, m.BaseName())
		}
	}
	hint := ""
	if c := Suggest(n, names); c != "" {
		hint = fmt.Sprintf("; did you mean %q?", c)
	}
	rows := len(s.Messages) // kwire list shows an API (request and response) once
	for k := range s.resp {
		if s.req[k] != nil {
			rows--
		}
	}
	return nil, nil, fmt.Errorf("unknown API or message %q in %s%s (`kwire list` shows all %d: %s)", name, s.describe(), hint, rows, s.shortList())
}

func (s *Set) describe() string {
	if s.Release != "" {
		return "Kafka " + s.Release
	}
	return path.Base(s.Source)
}

func (s *Set) keyList() string {
	keys := s.APIKeys()
	if len(keys) == 0 {
		return "none"
	}
	// Render as ranges: 0-27, 29-…
	var parts []string
	for i := 0; i < len(keys); {
		j := i
		for j+1 < len(keys) && keys[j+1] == keys[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.Itoa(int(keys[i])))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", keys[i], keys[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func (s *Set) shortList() string {
	var names []string
	for _, m := range s.Messages {
		switch {
		case m.Type == Request:
			names = append(names, m.BaseName())
		case m.Type == Response && s.req[m.APIKey] != nil:
			// listed with its request
		case m.Type == Response:
			names = append(names, m.BaseName())
		default:
			names = append(names, m.Name)
		}
	}
	if len(names) == 0 {
		return "no message loaded"
	}
	if len(names) > 12 {
		return strings.Join(names[:12], ", ") + ", …"
	}
	return strings.Join(names, ", ")
}

// releasesWords names embedded releases rs (newest first) for a message:
// a run of consecutive embedded releases by minor ("3.5–4.4", "4.4"), else
// each in full ("4.4.0 and 3.9.1").
func releasesWords(rs []string) string {
	all := bundle.Releases()
	if i := slices.Index(all, rs[0]); i >= 0 && i+len(rs) <= len(all) && slices.Equal(all[i:i+len(rs)], rs) {
		return ReleaseRun{rs[len(rs)-1], rs[0]}.Words()
	}
	if len(rs) < 2 {
		return strings.Join(rs, "")
	}
	return strings.Join(rs[:len(rs)-1], ", ") + " and " + rs[len(rs)-1]
}
