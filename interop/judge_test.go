package interop

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// This file judges what the oracle says: a mismatch names the message,
// version and case, the checks that failed, and where the bytes first
// differ — found by decoding both byte strings with kwire and walking the
// two span trees in step to the first leaf whose bytes differ.

// Directions of a check.
const (
	kwireToKafka = "kwire -> Kafka"
	kafkaToKwire = "Kafka -> kwire"
)

// kcase is one line of the cases file the oracle reads.
type kcase struct {
	ID      string          `json:"id"`
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Version int16           `json:"version"`
	Hex     string          `json:"hex"`
	JSON    json.RawMessage `json:"json"`
}

// result is one line of the oracle's results file.
type result struct {
	ID                 string          `json:"id"`
	Class              string          `json:"class"`
	ReadOK             *bool           `json:"read_ok"`
	Consumed           *bool           `json:"consumed"`
	BytesEqual         *bool           `json:"bytes_equal"`
	JSONEqual          *bool           `json:"json_equal"`
	JSONDiff           string          `json:"json_diff"`
	JSONLimited        string          `json:"json_limited"`
	FromJSONBytesEqual *bool           `json:"from_json_bytes_equal"`
	FromJSONNote       string          `json:"from_json_note"`
	KafkaHex           string          `json:"kafka_hex"`
	KafkaJSON          json.RawMessage `json:"kafka_json"`
	KafkaFromJSONHex   string          `json:"kafka_from_json_hex"`
	Error              string          `json:"error"`
}

// kinstance is one line of the instances the oracle generates.
type kinstance struct {
	ID        string          `json:"id"`
	Message   string          `json:"message"`
	Type      string          `json:"type"`
	Version   int16           `json:"version"`
	Class     string          `json:"class"`
	Hex       string          `json:"hex"`
	KafkaJSON json.RawMessage `json:"kafka_json"`
	Error     string          `json:"error"`
}

// mismatch is one case on which kwire and Kafka disagree.
type mismatch struct {
	Dir     string
	ID      string
	Message string
	Version int16
	// Checks are the failed checks: read, consumed, bytes, json,
	// from_json, decode, error.
	Checks []string
	// Path is the span-tree path of the first leaf whose bytes differ
	// (KwireOff, KafkaOff: its byte offsets in kwire's and Kafka's bytes),
	// or the JSON path of the first difference when only JSON differs.
	Path               string
	KwireOff, KafkaOff int
	Detail             string
}

func (m *mismatch) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s v%d [%s] (%s): %s", m.Dir, m.Message, m.Version, strings.Join(m.Checks, ","), m.ID, m.Path)
	if m.KwireOff >= 0 {
		fmt.Fprintf(&b, " (kwire offset %d, Kafka offset %d)", m.KwireOff, m.KafkaOff)
	}
	if m.Detail != "" {
		b.WriteString("\n      ")
		b.WriteString(strings.ReplaceAll(m.Detail, "\n", "\n      "))
	}
	return b.String()
}

// counts are the outcome of one direction for one message type (or all).
type counts struct {
	triples    map[string]bool // "message/version"
	cases      int
	mismatches int
	limited    map[string]int // records, unknown_tags, from_json not representable
}

// tally counts the outcome of one direction, by message type.
type tally struct {
	all        counts
	byType     map[string]*counts
	mismatches []*mismatch
}

func newCounts() counts { return counts{triples: map[string]bool{}, limited: map[string]int{}} }

func newTally() *tally { return &tally{all: newCounts(), byType: map[string]*counts{}} }

// record counts one case of message msg (spec type typ) at version v.
func (t *tally) record(typ, msg string, v int16, mm *mismatch, limits []string) {
	c := t.byType[typ]
	if c == nil {
		n := newCounts()
		c = &n
		t.byType[typ] = c
	}
	for _, x := range []*counts{&t.all, c} {
		x.triples[msg+"/"+strconv.Itoa(int(v))] = true
		x.cases++
		for _, l := range limits {
			x.limited[l]++
		}
		if mm != nil {
			x.mismatches++
		}
	}
	if mm != nil {
		t.mismatches = append(t.mismatches, mm)
	}
}

// Limits: what a case's JSON cannot carry, so that part is compared by
// bytes only.
const (
	limitRecords     = "records"
	limitUnknownTags = "unknown_tags"
	limitFromJSON    = "from_json not representable"
)

// judgeResult turns the oracle's verdict on one kwire case into a
// mismatch (nil when Kafka agrees) and the limits met.
func judgeResult(c *codec.Codec, kc *kcase, r *result) (*mismatch, []string) {
	var failed []string
	isFalse := func(b *bool) bool { return b == nil || !*b }
	if r.ReadOK == nil || !*r.ReadOK {
		failed = append(failed, "read")
	} else {
		if isFalse(r.Consumed) {
			failed = append(failed, "consumed")
		}
		if isFalse(r.BytesEqual) {
			failed = append(failed, "bytes")
		}
		if isFalse(r.JSONEqual) {
			failed = append(failed, "json")
		}
		if r.FromJSONBytesEqual != nil && !*r.FromJSONBytesEqual {
			failed = append(failed, "from_json")
		}
	}
	if r.Error != "" && len(failed) == 0 {
		failed = append(failed, "error")
	}
	var limits []string
	for _, l := range strings.Split(r.JSONLimited, ",") {
		if l != "" {
			limits = append(limits, l)
		}
	}
	if r.FromJSONBytesEqual == nil && r.FromJSONNote != "" {
		limits = append(limits, limitFromJSON)
	}
	if len(failed) == 0 {
		return nil, limits
	}
	mm := &mismatch{Dir: kwireToKafka, ID: kc.ID, Message: kc.Message, Version: kc.Version, Checks: failed, KwireOff: -1, KafkaOff: -1}
	m := c.Set.Message(kc.Message)
	kb, _ := hex.DecodeString(kc.Hex)
	var detail []string
	if r.Error != "" {
		detail = append(detail, "Kafka: "+r.Error)
	}
	// Locate the difference in the bytes: Kafka's write-back first, else
	// what Kafka made of kwire's JSON.
	other := ""
	switch {
	case slices.Contains(failed, "bytes") && r.KafkaHex != "":
		other = r.KafkaHex
	case slices.Contains(failed, "from_json") && r.KafkaFromJSONHex != "":
		other = r.KafkaFromJSONHex
	}
	if other != "" && m != nil {
		ob, _ := hex.DecodeString(other)
		d := firstDiff(c, m, kc.Version, kb, ob)
		mm.Path, mm.KwireOff, mm.KafkaOff = d.path, d.aOff, d.bOff
		detail = append(detail, d.detail)
	}
	if r.JSONDiff != "" {
		if mm.Path == "" {
			p, _, _ := strings.Cut(r.JSONDiff, ": ")
			mm.Path = "$." + p
		}
		detail = append(detail, "JSON: "+r.JSONDiff)
	}
	if mm.Path == "" {
		mm.Path = "(no path: see Kafka's error)"
	}
	detail = append(detail, "kwire hex "+short(kc.Hex))
	mm.Detail = strings.Join(detail, "\n")
	return mm, limits
}

// judgeInstance decodes one Kafka instance with kwire and checks that
// kwire's JSON equals Kafka's, that kwire re-encodes Kafka's bytes exactly,
// and (where Kafka's JSON holds every byte: no unknown tags, no records
// data) that kwire reads Kafka's JSON into the same bytes.
func judgeInstance(c *codec.Codec, ki *kinstance) (*mismatch, []string) {
	mm := &mismatch{Dir: kafkaToKwire, ID: ki.ID, Message: ki.Message, Version: ki.Version, KwireOff: -1, KafkaOff: -1}
	var limits []string
	fail := func(check, path, detail string) (*mismatch, []string) {
		mm.Checks = append(mm.Checks, check)
		if mm.Path == "" {
			mm.Path = path
		}
		if detail != "" {
			if mm.Detail != "" {
				mm.Detail += "\n"
			}
			mm.Detail += detail
		}
		return mm, limits
	}
	if ki.Error != "" {
		return fail("error", "(Kafka could not write its instance)", ki.Error)
	}
	m := c.Set.Message(ki.Message)
	if m == nil {
		return fail("spec", "(kwire has no spec "+ki.Message+")", "Kafka class "+ki.Class)
	}
	kb, err := hex.DecodeString(ki.Hex)
	if err != nil {
		return fail("error", "(bad hex)", err.Error())
	}
	dec, err := c.DecodeBody(kb, m, ki.Version)
	if err != nil {
		return fail("decode", errPath(err), fmt.Sprintf("kwire: %v\nKafka hex %s", err, short(ki.Hex)))
	}
	body := dec.Part(tree.Body)
	unknown, records := opaque(dec)
	if unknown {
		limits = append(limits, limitUnknownTags)
	}
	if records {
		limits = append(limits, limitRecords)
	}
	// kwire's JSON as Kafka writes it: records "", no unknown tags.
	js, err := codec.ToJSON(nil, dec, body, m, ki.Version, codec.JSONOptions{Records: codec.RecordsEmpty})
	if err != nil {
		fail("json", errPath(err), "kwire ToJSON: "+err.Error())
	} else if d := jsonDiff(ki.KafkaJSON, js); d != "" {
		jsonPath, _, _ := strings.Cut(d, ": ")
		fail("json", jsonPath, "JSON: "+d+"\nKafka JSON "+short(string(ki.KafkaJSON))+"\nkwire JSON "+short(string(js)))
	}
	again, err := c.EncodeBody(m, ki.Version, dec.Sub(body))
	if err != nil {
		fail("bytes", errPath(err), "kwire re-encode: "+err.Error())
	} else if !bytes.Equal(again.Bytes, kb) {
		d := firstDiff(c, m, ki.Version, again.Bytes, kb)
		fail("bytes", d.path, d.detail)
		mm.Path, mm.KwireOff, mm.KafkaOff = d.path, d.aOff, d.bOff
	}
	if !unknown && !records {
		val, err := codec.FromJSON(ki.KafkaJSON, m, ki.Version)
		if err != nil {
			fail("from_json", errPath(err), "kwire FromJSON of Kafka's JSON: "+err.Error())
		} else if enc, err := c.EncodeBody(m, ki.Version, val); err != nil {
			fail("from_json", errPath(err), "kwire encode of Kafka's JSON: "+err.Error())
		} else if !bytes.Equal(enc.Bytes, kb) {
			d := firstDiff(c, m, ki.Version, enc.Bytes, kb)
			fail("from_json", d.path, "from Kafka's JSON: "+d.detail)
			if mm.KwireOff < 0 {
				// The bytes say where; the JSON difference is in the detail.
				mm.Path, mm.KwireOff, mm.KafkaOff = d.path, d.aOff, d.bOff
			}
		}
	} else {
		limits = append(limits, limitFromJSON)
	}
	if len(mm.Checks) == 0 {
		return nil, limits
	}
	return mm, limits
}

// opaque reports whether a decoded tree holds unknown tagged fields or
// records bytes: what Kafka's JSON cannot carry.
func opaque(t *tree.Tree) (unknown, records bool) {
	for i := range t.Nodes {
		n := &t.Nodes[i]
		switch n.Kind {
		case tree.UnknownTag:
			unknown = true
		case tree.Records:
			if !n.Null && len(t.Data(int32(i))) > 0 {
				records = true
			}
		}
	}
	return unknown, records
}

// errPath is the path an error names (a field path, a JSON path), or its
// text.
func errPath(err error) string {
	var je *codec.JSONError
	var ee *codec.EncodeError
	var we *wire.Error
	switch {
	case errors.As(err, &je):
		return je.Path
	case errors.As(err, &ee):
		return ee.Path
	case errors.As(err, &we) && we.Path != "":
		return fmt.Sprintf("%s (offset %d)", we.Path, we.Offset)
	}
	return err.Error()
}

func short(s string) string {
	if len(s) > 400 {
		return s[:397] + "..."
	}
	return s
}

// diffAt is where two byte strings first differ, as kwire reads them.
type diffAt struct {
	path       string
	aOff, bOff int
	detail     string
}

// firstDiff decodes a (kwire's bytes) and b (Kafka's) as bodies of m at v
// and walks their span trees' leaves in step to the first leaf whose path
// or bytes differ.
func firstDiff(c *codec.Codec, m *spec.Message, v int16, a, b []byte) diffAt {
	ta, ea := c.DecodeBody(a, m, v)
	tb, eb := c.DecodeBody(b, m, v)
	la, lb := leaves(ta), leaves(tb)
	for i := 0; i < max(len(la), len(lb)); i++ {
		if i >= len(la) || i >= len(lb) {
			var l leaf
			side := "kwire's"
			if i < len(la) {
				l = la[i]
			} else {
				l, side = lb[i], "Kafka's"
			}
			return diffAt{path: l.path, aOff: l.off, bOff: l.off, detail: fmt.Sprintf("only %s bytes have %s at offset %d: %x", side, l.path, l.off, l.data)}
		}
		x, y := la[i], lb[i]
		if x.path != y.path || !bytes.Equal(x.data, y.data) {
			p := x.path
			if y.path != x.path {
				p = x.path + " / Kafka: " + y.path
			}
			d := fmt.Sprintf("%s: kwire %x at offset %d, Kafka %x at offset %d", p, x.data, x.off, y.data, y.off)
			if ea != nil {
				d += "\nkwire decoding kwire's bytes: " + ea.Error()
			}
			if eb != nil {
				d += "\nkwire decoding Kafka's bytes: " + eb.Error()
			}
			return diffAt{path: p, aOff: x.off, bOff: y.off, detail: d}
		}
	}
	return diffAt{path: "(same leaves)", aOff: -1, bOff: -1, detail: fmt.Sprintf("kwire %x\nKafka %x", a, b)}
}

type leaf struct {
	path string
	off  int
	data []byte
}

// leaves lists t's leaves in order with their paths
// (VoteRequest.Topics[0].Partitions[0].LastOffset).
func leaves(t *tree.Tree) []leaf {
	if t == nil || len(t.Nodes) == 0 {
		return nil
	}
	var out []leaf
	var walk func(i int32, parent string)
	walk = func(i int32, parent string) {
		p := join(parent, label(t, i))
		n := &t.Nodes[i]
		if t.IsLeaf(i) {
			out = append(out, leaf{p, int(n.Off), t.Bytes[n.Off : n.Off+n.Size]})
			return
		}
		t.Children(i, func(c int32) bool { walk(c, p); return true })
	}
	walk(0, "")
	return out
}

func label(t *tree.Tree, i int32) string {
	n := &t.Nodes[i]
	switch n.Kind {
	case tree.Message:
		return ""
	case tree.Body:
		if st := t.Struct(i); st != nil {
			return st.Name
		}
	case tree.Element, tree.Record:
		return "[" + strconv.Itoa(int(n.Index)) + "]"
	case tree.TagSection:
		return "_tagged_fields"
	case tree.Tag, tree.UnknownTag:
		return n.Kind.String() + strconv.FormatInt(n.Num, 10)
	}
	if f := t.Field(i); f != nil {
		return f.Name
	}
	if s := t.Name(i); s != "" {
		return s
	}
	return n.Kind.String()
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	case strings.HasPrefix(b, "["):
		return a + b
	}
	return a + "." + b
}

// jsonDiff compares Kafka's JSON with kwire's semantically: objects key by
// key, arrays element by element, numbers by value (0 equals 0.0; integers
// exactly, other numbers as float64), the rest exactly. It returns the JSON
// path of the first difference and what differs, or "".
func jsonDiff(kafka, kwire []byte) string {
	a, err := decodeJSON(kafka)
	if err != nil {
		return "$: Kafka's JSON: " + err.Error()
	}
	b, err := decodeJSON(kwire)
	if err != nil {
		return "$: kwire's JSON: " + err.Error()
	}
	return jsonValueDiff(a, b, "$")
}

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func jsonValueDiff(a, b any, path string) string {
	show := func(v any) string {
		s, _ := json.Marshal(v)
		return short(string(s))
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: Kafka %s, kwire %s", path, show(a), show(b))
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			xv, xok := x[k]
			yv, yok := y[k]
			switch {
			case !yok:
				return fmt.Sprintf("%s.%s: kwire has no such key (Kafka: %s)", path, k, show(xv))
			case !xok:
				return fmt.Sprintf("%s.%s: Kafka has no such key (kwire: %s)", path, k, show(yv))
			}
			if d := jsonValueDiff(xv, yv, path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			return fmt.Sprintf("%s: Kafka %s, kwire %s", path, show(a), show(b))
		}
		if len(x) != len(y) {
			return fmt.Sprintf("%s: Kafka has %d elements, kwire %d", path, len(x), len(y))
		}
		for i := range x {
			if d := jsonValueDiff(x[i], y[i], path+"["+strconv.Itoa(i)+"]"); d != "" {
				return d
			}
		}
		return ""
	case json.Number:
		y, ok := b.(json.Number)
		if !ok || !numbersEqual(x, y) {
			return fmt.Sprintf("%s: Kafka %s, kwire %s", path, show(a), show(b))
		}
		return ""
	}
	if a != b {
		return fmt.Sprintf("%s: Kafka %s, kwire %s", path, show(a), show(b))
	}
	return ""
}

func isInteger(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") }

func numbersEqual(a, b json.Number) bool {
	if isInteger(a) && isInteger(b) {
		x, ok1 := new(big.Int).SetString(string(a), 10)
		y, ok2 := new(big.Int).SetString(string(b), 10)
		return ok1 && ok2 && x.Cmp(y) == 0
	}
	if isInteger(a) || isInteger(b) {
		// 0 and 0.0, 100 and 1.0E2: compare exactly.
		x, ok1 := new(big.Rat).SetString(string(a))
		y, ok2 := new(big.Rat).SetString(string(b))
		return ok1 && ok2 && x.Cmp(y) == 0
	}
	x, err1 := strconv.ParseFloat(string(a), 64)
	y, err2 := strconv.ParseFloat(string(b), 64)
	return err1 == nil && err2 == nil && x == y
}
