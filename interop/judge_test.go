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
	// Frame is kwire's framed bytes: size, header and body of a request or
	// response; the record value frame and body of a metadata record.
	Frame string `json:"frame,omitempty"`
	// HeaderVersion is the header version kwire chose; CorrelationID and
	// ClientID (requests) are the header's values; BodyOffset is where
	// the body starts in Frame.
	HeaderVersion *int16  `json:"header_version,omitempty"`
	CorrelationID *int32  `json:"correlation_id,omitempty"`
	ClientID      *string `json:"client_id,omitempty"`
	BodyOffset    int     `json:"body_offset,omitempty"`
	// Records is kwire's summary of the record batches in the body's
	// records fields (see batchSummary); absent when none holds bytes.
	Records json.RawMessage `json:"records,omitempty"`
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
	Frame              *frameVerdict   `json:"frame"`
	Records            *recordsVerdict `json:"records"`
}

// frameVerdict is the oracle's verdict on kwire's frame of a case.
type frameVerdict struct {
	// Failed are the failed checks: header_version, frame_size,
	// frame_header, body_offset, frame_body, frame_bytes, frame_error.
	Failed []string `json:"failed"`
	Detail string   `json:"detail"`
	// HeaderVersion is Kafka's header version; BodyOffset where Kafka
	// finds the body in kwire's frame; KafkaBodyOffset where it is in
	// KafkaFrameHex, Kafka's frame of the same header and body (sent when
	// the bytes differ).
	HeaderVersion   *int16 `json:"header_version"`
	BodyOffset      *int   `json:"body_offset"`
	KafkaBodyOffset *int   `json:"kafka_body_offset"`
	KafkaFrameHex   string `json:"kafka_frame_hex"`
}

// recordsVerdict is the oracle's verdict on the record batches of a case:
// how many batches Kafka compared, and the first difference (a summary
// path such as topicData[0].partitionData[0].records.batches[0].crc).
type recordsVerdict struct {
	Batches int             `json:"batches"`
	Path    string          `json:"path"`
	Diff    string          `json:"diff"`
	Kafka   json.RawMessage `json:"kafka"`
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
	// Frame is Kafka's frame of the instance (requests and responses:
	// SendBuilder's size, header and body; metadata records:
	// MetadataRecordSerde's record value); FrameError why there is none.
	Frame      string `json:"frame"`
	FrameError string `json:"frame_error"`
	// HeaderVersion is Kafka's header version (ApiKeys); CorrelationID
	// and ClientID the header's values; BodyOffset where the body starts.
	HeaderVersion *int16  `json:"header_version"`
	CorrelationID *int32  `json:"correlation_id"`
	ClientID      *string `json:"client_id"`
	BodyOffset    *int    `json:"body_offset"`
	// Records is Kafka's summary of the record batches in its records
	// fields (present for classes that have records fields).
	Records json.RawMessage `json:"records"`
}

// mismatch is one case on which kwire and Kafka disagree.
type mismatch struct {
	Dir     string
	ID      string
	Message string
	Version int16
	// Checks are the failed checks: read, consumed, bytes, json,
	// from_json, decode, error; frame checks (header_version, frame_size,
	// frame_header, body_offset, frame_body, frame_bytes, frame_decode,
	// frame, frame_error); records.
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
	frames     int            // frames checked
	batches    int            // record batches checked
	limited    map[string]int // records, unknown_tags, from_json not representable
}

// checked is what was checked of one case beyond its body: frames and
// record batches, and the limits met.
type checked struct {
	limits  []string
	frames  int
	batches int
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
func (t *tally) record(typ, msg string, v int16, mm *mismatch, ck checked) {
	c := t.byType[typ]
	if c == nil {
		n := newCounts()
		c = &n
		t.byType[typ] = c
	}
	for _, x := range []*counts{&t.all, c} {
		x.triples[msg+"/"+strconv.Itoa(int(v))] = true
		x.cases++
		x.frames += ck.frames
		x.batches += ck.batches
		for _, l := range ck.limits {
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
// mismatch (nil when Kafka agrees) and what was checked: the bare body
// (read, consumed, bytes, JSON, JSON read back), kwire's frame, and the
// record batches of its records fields.
func judgeResult(c *codec.Codec, kc *kcase, r *result) (*mismatch, checked) {
	var failed []string
	add := func(check string) {
		if !slices.Contains(failed, check) {
			failed = append(failed, check)
		}
	}
	isFalse := func(b *bool) bool { return b == nil || !*b }
	if r.ReadOK == nil || !*r.ReadOK {
		add("read")
	} else {
		if isFalse(r.Consumed) {
			add("consumed")
		}
		if isFalse(r.BytesEqual) {
			add("bytes")
		}
		if isFalse(r.JSONEqual) {
			add("json")
		}
		if r.FromJSONBytesEqual != nil && !*r.FromJSONBytesEqual {
			add("from_json")
		}
	}
	if r.Error != "" && len(failed) == 0 {
		add("error")
	}
	var ck checked
	for _, l := range strings.Split(r.JSONLimited, ",") {
		if l != "" {
			ck.limits = append(ck.limits, l)
		}
	}
	if r.FromJSONBytesEqual == nil && r.FromJSONNote != "" {
		ck.limits = append(ck.limits, limitFromJSON)
	}
	kb, _ := hex.DecodeString(kc.Hex)
	fb, _ := hex.DecodeString(kc.Frame)
	var frameNote string
	if kc.Frame != "" {
		switch {
		case r.Frame == nil:
			add("frame")
			frameNote = "the oracle did not check kwire's frame"
		default:
			ck.frames++
			for _, f := range r.Frame.Failed {
				add(f)
			}
		}
		// kwire's own frame must carry kwire's bare body.
		if kc.BodyOffset > len(fb) || !bytes.Equal(fb[kc.BodyOffset:], kb) {
			add("frame_body")
			frameNote = fmt.Sprintf("kwire's frame does not hold kwire's bare body from offset %d", kc.BodyOffset)
		}
	}
	if r.Records != nil {
		ck.batches = r.Records.Batches
		if r.Records.Diff != "" {
			add("records")
		}
	} else if len(kc.Records) > 0 && r.ReadOK != nil && *r.ReadOK {
		add("records")
	}
	if len(failed) == 0 {
		return nil, ck
	}
	mm := &mismatch{Dir: kwireToKafka, ID: kc.ID, Message: kc.Message, Version: kc.Version, Checks: failed, KwireOff: -1, KafkaOff: -1}
	m := c.Set.Message(kc.Message)
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
	// The frame: offsets are in the frames.
	if frameNote != "" {
		detail = append(detail, "frame: "+frameNote)
	}
	if f := r.Frame; f != nil && len(f.Failed) > 0 {
		detail = append(detail, "frame: "+f.Detail)
		if f.KafkaFrameHex != "" && m != nil {
			kf, _ := hex.DecodeString(f.KafkaFrameHex)
			var hv, khv int16 = -1, -1
			if kc.HeaderVersion != nil {
				hv = *kc.HeaderVersion
			}
			if f.HeaderVersion != nil {
				khv = *f.HeaderVersion
			}
			d := diffLeaves(frameLeaves(c, m, kc.Version, fb, hv, kc.BodyOffset), frameLeaves(c, m, kc.Version, kf, khv, derefInt(f.KafkaBodyOffset)))
			if mm.Path == "" {
				mm.Path, mm.KwireOff, mm.KafkaOff = d.path, d.aOff, d.bOff
			}
			detail = append(detail, "frame: "+d.detail, "kwire frame "+short(kc.Frame), "Kafka frame "+short(f.KafkaFrameHex))
		} else if mm.Path == "" {
			mm.Path = "(frame: " + strings.Join(f.Failed, ",") + ")"
		}
	}
	// The record batches: offsets are in the body.
	if rv := r.Records; rv != nil && rv.Diff != "" {
		detail = append(detail, "records: "+rv.Diff)
		if m != nil && mm.Path == "" {
			dec, _ := c.DecodeBody(kb, m, kc.Version)
			p, off := summarizeRecords(dec).locate(rv.Path)
			mm.Path, mm.KwireOff, mm.KafkaOff = p, off, off
		}
		detail = append(detail, "Kafka's batches "+short(string(rv.Kafka)), "kwire's batches "+short(string(kc.Records)))
	} else if slices.Contains(failed, "records") && rv == nil {
		detail = append(detail, "records: the oracle did not check the record batches kwire summarised")
	}
	if mm.Path == "" {
		mm.Path = "(no path: see Kafka's error)"
	}
	detail = append(detail, "kwire hex "+short(kc.Hex))
	mm.Detail = strings.Join(detail, "\n")
	return mm, ck
}

// judgeInstance decodes one Kafka instance with kwire and checks that
// kwire's JSON equals Kafka's, that kwire re-encodes Kafka's bytes exactly,
// and (where Kafka's JSON holds every byte: no unknown tags, no records
// data) that kwire reads Kafka's JSON into the same bytes.
func judgeInstance(c *codec.Codec, ki *kinstance) (*mismatch, checked) {
	mm := &mismatch{Dir: kafkaToKwire, ID: ki.ID, Message: ki.Message, Version: ki.Version, KwireOff: -1, KafkaOff: -1}
	var ck checked
	fail := func(check, path, detail string) (*mismatch, checked) {
		if !slices.Contains(mm.Checks, check) {
			mm.Checks = append(mm.Checks, check)
		}
		if mm.Path == "" {
			mm.Path = path
		}
		if detail != "" {
			if mm.Detail != "" {
				mm.Detail += "\n"
			}
			mm.Detail += detail
		}
		return mm, ck
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
		ck.limits = append(ck.limits, limitUnknownTags)
	}
	if records {
		ck.limits = append(ck.limits, limitRecords)
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
		ck.limits = append(ck.limits, limitFromJSON)
	}

	// Kafka's frame: kwire's header version, kwire reading it, kwire
	// writing the same one.
	switch {
	case ki.FrameError != "":
		fail("frame_error", "(Kafka could not write its frame)", ki.FrameError)
	case ki.Frame != "":
		ck.frames++
		for _, f := range judgeInstanceFrame(c, m, ki, kb, dec.Sub(body)) {
			fail(f.check, f.path, f.detail)
			if mm.KwireOff < 0 && f.kwireOff >= 0 {
				mm.Path, mm.KwireOff, mm.KafkaOff = f.path, f.kwireOff, f.kafkaOff
			}
		}
		if len(mm.Checks) > 0 && mm.KwireOff >= 0 && slices.ContainsFunc(mm.Checks, func(s string) bool {
			return strings.HasPrefix(s, "frame") || s == "header_version" || s == "body_offset"
		}) {
			mm.Detail += "\nKafka frame " + short(ki.Frame)
		}
	case m.Type == spec.Request || m.Type == spec.Response || m.Type == spec.Metadata || m.VersionPrefixed():
		fail("frame", "(frame)", "Kafka sent no frame for a "+caseType(m))
	}

	// Kafka's record batches against kwire's decoding of them.
	s := summarizeRecords(dec)
	if ki.Records != nil || len(s.doc) > 0 {
		ck.batches = countBatches(ki.Records)
		if p, d := compareRecords(ki.Records, s); p != "" {
			kp, off := s.locate(p)
			fail("records", kp, "records: "+d)
			if mm.KwireOff < 0 {
				mm.Path, mm.KwireOff, mm.KafkaOff = kp, off, off
			}
			mine, _ := json.Marshal(s.doc)
			mm.Detail += "\nKafka's batches " + short(string(ki.Records)) + "\nkwire's batches " + short(string(mine))
		}
	}
	if len(mm.Checks) == 0 {
		return nil, ck
	}
	return mm, ck
}

// opaque reports whether a decoded tree holds unknown tagged fields or
// records bytes: what Kafka's JSON cannot carry.
func opaque(t *tree.Tree) (unknown, records bool) {
	for i := range t.Nodes {
		n := &t.Nodes[i]
		switch n.Kind() {
		case tree.UnknownTag:
			unknown = true
		case tree.Records:
			if !n.Null() && len(t.Data(int32(i))) > 0 {
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
	d := diffLeaves(leaves(ta), leaves(tb))
	switch {
	case d.aOff < 0:
		d.detail = fmt.Sprintf("kwire %x\nKafka %x", a, b)
	case !strings.HasPrefix(d.detail, "only "):
		if ea != nil {
			d.detail += "\nkwire decoding kwire's bytes: " + ea.Error()
		}
		if eb != nil {
			d.detail += "\nkwire decoding Kafka's bytes: " + eb.Error()
		}
	}
	return d
}

// diffLeaves walks two leaf lists (kwire's, Kafka's) in step to the first
// leaf whose path or bytes differ.
func diffLeaves(la, lb []leaf) diffAt {
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
			return diffAt{path: p, aOff: x.off, bOff: y.off, detail: fmt.Sprintf("%s: kwire %x at offset %d, Kafka %x at offset %d", p, x.data, x.off, y.data, y.off)}
		}
	}
	return diffAt{path: "(same leaves)", aOff: -1, bOff: -1, detail: "the same leaves, yet other bytes"}
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
	switch n.Kind() {
	case tree.Message:
		return ""
	case tree.Body:
		if st := t.Struct(i); st != nil {
			return st.Name
		}
	case tree.Element, tree.Record:
		return "[" + strconv.Itoa(int(t.Ordinal(i))) + "]"
	case tree.TagSection:
		return "_tagged_fields"
	case tree.Tag, tree.UnknownTag:
		return n.Kind().String() + strconv.FormatInt(t.Num(i), 10)
	}
	if f := t.Field(i); f != nil {
		return f.Name
	}
	if s := t.Name(i); s != "" {
		return s
	}
	return n.Kind().String()
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
