package interop

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	kframe "github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// This file holds what the oracle judges beyond bare bodies: frames (the
// size prefix, the request or response header and the version kwire picks
// for it, the KRaft metadata record value frame) and the record batches
// inside records fields, summarised from kwire's span trees.

// clientIDs are client ids for random request headers, beside random
// printable ASCII: empty, plain, multi-byte UTF-8, characters JSON escapes.
var clientIDs = []string{"", "kwire", "producer-1", "rdkafka", "\u00e9\u65e5\u672c\U0001D11E", "a b\"c\\d", "\n\t", strings.Repeat("x", 300)}

func clientID(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return clientIDs[r.IntN(len(clientIDs))]
	}
	b := make([]byte, r.IntN(24))
	for i := range b {
		b[i] = byte('!' + r.IntN(94))
	}
	return string(b)
}

// headerSeq is the PCG stream of the header of case i of (message,
// version): apart from the body's stream, so that adding headers left the
// bodies as they were.
func headerSeq(msg string, v int16, i int) uint64 { return caseSeq("header:"+msg, v, i) }

// addFrame gives a request or response case kwire's frame (size, a header
// with a random correlation id and, for requests, client id, then the
// body) and the header version kwire chose; a metadata record case gets
// its record value frame (a remote-log-metadata record too), a coordinator
// record key or value its int16 prefix. Other types have no frame.
func addFrame(c *codec.Codec, m *spec.Message, v int16, val *tree.Tree, hr *rand.Rand, kc *kcase) error {
	var t *tree.Tree
	var err error
	switch m.Type {
	case spec.Request, spec.Response:
		corr := int32(hr.Uint32())
		var hval *tree.Tree
		if m.Type == spec.Request {
			cid := clientID(hr)
			hval = codec.RequestHeaderValue(c.Set.RequestHeader(), m.APIKey, v, corr, cid)
			kc.ClientID = &cid
		} else {
			hval = codec.ResponseHeaderValue(c.Set.ResponseHeader(), corr)
		}
		if t, err = c.Encode(m, v, hval, val); err != nil {
			return err
		}
		hv := t.HeaderVersion
		kc.HeaderVersion, kc.CorrelationID = &hv, &corr
	case spec.Metadata:
		if t, err = c.EncodeRecord(m, v, val); err != nil {
			return err
		}
	default:
		if !m.VersionPrefixed() {
			return nil
		}
		// A coordinator record key or value: its int16 prefix.
		if t, err = c.EncodeRecord(m, v, val); err != nil {
			return err
		}
	}
	kc.Frame = hex.EncodeToString(t.Bytes)
	kc.BodyOffset = int(t.Nodes[t.Part(tree.Body)].Off)
	return nil
}

// addRecords gives a case kwire's summary of the record batches in its
// records fields, from kwire decoding the case's body bytes.
func addRecords(c *codec.Codec, m *spec.Message, v int16, enc *tree.Tree, kc *kcase) error {
	if _, records := opaque(enc); !records {
		return nil
	}
	dec, err := c.DecodeBody(enc.Bytes, m, v)
	if err != nil {
		return fmt.Errorf("kwire decoding its own bytes: %w", err)
	}
	s := summarizeRecords(dec)
	if len(s.doc) == 0 {
		return nil
	}
	kc.Records, err = json.Marshal(s.doc)
	return err
}

// batchSummary is what kwire's span tree says of the records fields of a
// message that hold bytes, in the shape the oracle's Batches class gives
// Kafka's view: keyed by the field's path in Kafka's generated classes
// (topicData[0].partitionData[0].records), each with its size, the bytes
// no batch covers, and per batch its header fields, whether its CRC-32C
// holds, and its records (offsetDelta, timestamp, key, value, headers).
type batchSummary struct {
	doc     map[string]any
	spots   map[string]spot // summary path -> where kwire's bytes hold it
	batches int
}

// spot is a place in kwire's bytes: a span-tree style path and an offset.
type spot struct {
	path string
	off  int
}

func summarizeRecords(t *tree.Tree) *batchSummary {
	s := &batchSummary{doc: map[string]any{}, spots: map[string]spot{}}
	if t == nil || len(t.Nodes) == 0 {
		return s
	}
	if body := t.Part(tree.Body); body >= 0 {
		s.walk(t, body, "", label(t, body))
	}
	return s
}

// javaName is the name of a spec field in Kafka's generated classes (and
// its JSON): the spec name with a lower-case first letter.
func javaName(name string) string {
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return name
	}
	return string(name[0]+'a'-'A') + name[1:]
}

func (s *batchSummary) walk(t *tree.Tree, i int32, key, disp string) {
	t.Fields(i, func(c int32) bool {
		n := &t.Nodes[c]
		f := t.Field(c)
		if f == nil {
			return true
		}
		k, d := javaName(f.Name), disp+"."+f.Name
		if key != "" {
			k = key + "." + k
		}
		switch n.Kind() {
		case tree.Struct:
			if !n.Null() {
				s.walk(t, c, k, d)
			}
		case tree.Array:
			ord := 0
			t.Elements(c, func(e int32) bool {
				if !t.IsLeaf(e) {
					idx := "[" + strconv.Itoa(ord) + "]"
					s.walk(t, e, k+idx, d+idx)
				}
				ord++
				return true
			})
		case tree.Records:
			if data := t.Data(c); !n.Null() && len(data) > 0 {
				s.doc[k] = s.records(t, c, k, d, len(data))
			}
		}
		return true
	})
}

func (s *batchSummary) at(key, disp string, off int32) { s.spots[key] = spot{disp, int(off)} }

func (s *batchSummary) records(t *tree.Tree, r int32, k, d string, size int) map[string]any {
	s.at(k, d, t.Nodes[r].Off)
	batches := []any{}
	covered := 0
	t.Children(r, func(c int32) bool {
		n := &t.Nodes[c]
		if n.Kind() == tree.RecordBatch {
			idx := ".batches[" + strconv.Itoa(len(batches)) + "]"
			batches = append(batches, s.batch(t, c, k+idx, d+idx))
			covered += int(n.Size)
			s.batches++
		}
		return true
	})
	return map[string]any{"sizeInBytes": size, "batches": batches, "rest": size - covered}
}

// batch summarises RecordBatch node b. Its attributes are split as Kafka's
// RecordBatch methods report them; a record's timestamp is Kafka's:
// baseTimestamp plus its delta, or maxTimestamp under LogAppendTime.
func (s *batchSummary) batch(t *tree.Tree, b int32, k, d string) map[string]any {
	n := &t.Nodes[b]
	s.at(k, d, n.Off)
	s.at(k+".size", d+".size", n.Off)
	out := map[string]any{"size": n.Size, "magic": int64(t.Magic(b))}
	if t.Magic(b) != 2 {
		return out
	}
	vals := map[string]int64{}
	badCRC, payload := false, false
	var recs []int32
	t.Children(b, func(c int32) bool {
		cn := &t.Nodes[c]
		switch cn.Kind() {
		case tree.BatchField:
			name := t.Name(c)
			vals[name] = t.Num(c)
			s.at(k+"."+name, d+"."+name, cn.Off)
			if name == "crc" {
				badCRC = cn.Flags()&tree.FlagBadCRC != 0
				s.at(k+".crcValid", d+".crc", cn.Off)
			}
			if name == "attributes" {
				for _, a := range []string{"compression", "timestampType", "transactional", "control", "deleteHorizon"} {
					s.at(k+"."+a, d+".attributes", cn.Off)
				}
			}
		case tree.Record:
			recs = append(recs, c)
		case tree.Raw:
			payload = true
		}
		return true
	})
	attrs := vals["attributes"]
	for _, f := range []string{"baseOffset", "partitionLeaderEpoch", "crc", "lastOffsetDelta", "baseTimestamp", "maxTimestamp", "producerId", "producerEpoch", "baseSequence", "recordsCount"} {
		out[f] = vals[f]
	}
	out["crcValid"] = !badCRC
	out["compression"] = attrs & 7
	out["timestampType"] = attrs >> 3 & 1
	out["transactional"] = attrs&0x10 != 0
	out["control"] = attrs&0x20 != 0
	out["deleteHorizon"] = attrs&0x40 != 0
	if attrs&7 != 0 || payload {
		// Compressed, or records kwire could not decode: no records list
		// (Kafka lists them when uncompressed, so the summaries differ).
		return out
	}
	records := []any{}
	for j, r := range recs {
		idx := ".records[" + strconv.Itoa(j) + "]"
		records = append(records, s.record(t, r, k+idx, d+idx, vals, attrs&8 != 0))
	}
	out["records"] = records
	return out
}

func (s *batchSummary) record(t *tree.Tree, r int32, k, d string, batch map[string]int64, logAppendTime bool) map[string]any {
	n := &t.Nodes[r]
	s.at(k, d, n.Off)
	s.at(k+".size", d+".length", n.Off)
	out := map[string]any{"size": n.Size}
	headers := []any{}
	var tsDelta int64
	hexOrNull := func(c int32) any {
		if t.Nodes[c].Null() {
			return nil
		}
		return hex.EncodeToString(t.Data(c))
	}
	t.Children(r, func(c int32) bool {
		cn := &t.Nodes[c]
		name := t.Name(c)
		switch name {
		case "timestampDelta":
			tsDelta = t.Num(c)
			s.at(k+".timestamp", d+".timestampDelta", cn.Off)
		case "offsetDelta":
			out[name] = t.Num(c)
			s.at(k+"."+name, d+"."+name, cn.Off)
		case "key", "value":
			out[name] = hexOrNull(c)
			s.at(k+"."+name, d+"."+name, cn.Off)
		case "headerKey", "headerValue":
			h := ".headers[" + strconv.Itoa(int(t.Ordinal(c))) + "]"
			if name == "headerKey" {
				headers = append(headers, map[string]any{"key": hexOrNull(c)})
				s.at(k+h+".key", d+h+".key", cn.Off)
			} else if len(headers) > 0 {
				headers[len(headers)-1].(map[string]any)["value"] = hexOrNull(c)
				s.at(k+h+".value", d+h+".value", cn.Off)
			}
		}
		return true
	})
	ts := batch["baseTimestamp"] + tsDelta
	if logAppendTime {
		ts = batch["maxTimestamp"]
	}
	out["timestamp"] = ts
	out["headers"] = headers
	return out
}

// locate turns a summary path (topicData[0].partitionData[0].records.
// batches[0].crc) into kwire's path and offset of the nearest thing kwire's
// bytes hold; the offset is -1 when nothing matches.
func (s *batchSummary) locate(p string) (string, int) {
	for q := p; q != ""; {
		if sp, ok := s.spots[q]; ok {
			return sp.path + p[len(q):], sp.off
		}
		i := max(strings.LastIndexByte(q, '.'), strings.LastIndexByte(q, '['))
		if i <= 0 {
			break
		}
		q = q[:i]
	}
	return p, -1
}

// countBatches counts the batches of a summary as JSON (Kafka's).
func countBatches(doc json.RawMessage) int {
	var fields map[string]struct {
		Batches []json.RawMessage `json:"batches"`
	}
	if json.Unmarshal(doc, &fields) != nil {
		return 0
	}
	n := 0
	for _, f := range fields {
		n += len(f.Batches)
	}
	return n
}

// compareRecords compares Kafka's summary with kwire's summary of dec: the
// first difference as a summary path and a detail, or "".
func compareRecords(kafka json.RawMessage, s *batchSummary) (path, detail string) {
	if len(kafka) == 0 || string(kafka) == "null" {
		kafka = json.RawMessage("{}")
	}
	mine, err := json.Marshal(s.doc)
	if err != nil {
		return "(records)", err.Error()
	}
	a, err := decodeJSON(kafka)
	if err != nil {
		return "(records)", "Kafka's summary: " + err.Error()
	}
	b, _ := decodeJSON(mine)
	d := jsonValueDiff(a, b, "$")
	if d == "" {
		return "", ""
	}
	d = strings.TrimPrefix(d, "$.")
	p, _, _ := strings.Cut(d, ": ")
	return p, d
}

// headerSpec is the RequestHeader or ResponseHeader spec of request or
// response m.
func headerSpec(c *codec.Codec, m *spec.Message) *spec.Message {
	if m.Type == spec.Request {
		return c.Set.RequestHeader()
	}
	return c.Set.ResponseHeader()
}

// frameLeaves lists the leaves of frame b of m at v as the side that wrote
// it says it is laid out: for a request or response, the header at version
// hv up to bodyOff, then the body, then the size prefix last (so that a
// difference inside is named before the size it changes); for a metadata
// record, the record value frame and the body.
func frameLeaves(c *codec.Codec, m *spec.Message, v int16, b []byte, hv int16, bodyOff int) []leaf {
	if m.Type == spec.Metadata || m.VersionPrefixed() {
		t, _ := c.DecodeRecord(b, m, v)
		return leaves(t)
	}
	if len(b) < 4 {
		return []leaf{{"(frame)", 0, b}}
	}
	bodyOff = min(max(bodyOff, 4), len(b))
	var out []leaf
	th, _ := c.DecodeBody(b[4:bodyOff], headerSpec(c, m), hv)
	for _, l := range leaves(th) {
		l.off += 4
		out = append(out, l)
	}
	tb, _ := c.DecodeBody(b[bodyOff:], m, v)
	for _, l := range leaves(tb) {
		l.off += bodyOff
		out = append(out, l)
	}
	return append(out, leaf{"size", 0, b[:4]})
}

// frameHeader is what a request or response frame's header holds.
type frameHeader struct {
	hv            int16
	correlationID int32
	clientID      *string // requests
	bodyOff       int
}

// judgeInstanceFrame checks Kafka's frame of instance ki against kwire:
// the header version kwire picks, kwire decoding the frame (header
// fields, where the body starts, the body's bytes), and kwire writing the
// same header and body into the same bytes. It returns the failed checks
// with where and why.
func judgeInstanceFrame(c *codec.Codec, m *spec.Message, ki *kinstance, kb []byte, body *tree.Tree) []failure {
	var out []failure
	fail := func(check, path, detail string, kwOff, kaOff int) {
		out = append(out, failure{check, path, detail, kwOff, kaOff})
	}
	frame, err := hex.DecodeString(ki.Frame)
	if err != nil {
		fail("frame", "(bad hex)", err.Error(), -1, -1)
		return out
	}
	v := ki.Version
	if m.Type == spec.Metadata || m.VersionPrefixed() {
		// A KRaft metadata record is found by its frame's api key; an
		// internal topic's record (remote-log-metadata, a coordinator
		// key or value) is read as m, by its frame or int16 prefix.
		var as *spec.Message
		if m.Topic != "" || m.VersionPrefixed() {
			as = m
		}
		t, err := c.DecodeRecord(frame, as, v)
		if err != nil {
			fail("frame_decode", errPath(err), "kwire decoding Kafka's record value frame: "+err.Error(), -1, -1)
		} else {
			if t.Message != m || t.Version != v {
				fail("frame_header", "frame.api_key", fmt.Sprintf("kwire reads %s v%d from Kafka's frame, want %s v%d", t.Message.Name, t.Version, m.Name, v), -1, -1)
			}
			if bn := t.Nodes[t.Part(tree.Body)]; !bytes.Equal(frame[bn.Off:bn.Off+bn.Size], kb) || int(bn.Off) != derefInt(ki.BodyOffset) {
				fail("frame_body", m.Name, fmt.Sprintf("kwire finds the body at offset %d (%d bytes), Kafka put it at %d (%d bytes)", bn.Off, bn.Size, derefInt(ki.BodyOffset), len(kb)), int(bn.Off), derefInt(ki.BodyOffset))
			}
		}
		enc, err := c.EncodeRecord(m, v, body)
		if err != nil {
			fail("frame_bytes", errPath(err), "kwire writing the record value frame: "+err.Error(), -1, -1)
		} else if !bytes.Equal(enc.Bytes, frame) {
			d := diffLeaves(frameLeaves(c, m, v, enc.Bytes, -1, 0), frameLeaves(c, m, v, frame, -1, 0))
			fail("frame_bytes", d.path, "kwire's record value frame is not Kafka's: "+d.detail, d.aOff, d.bOff)
		}
		return out
	}
	req := m.Type == spec.Request
	hs := headerSpec(c, m)
	hv := kframe.ResponseHeaderVersion(m, v)
	if req {
		hv = kframe.RequestHeaderVersion(m, v)
	}
	if ki.HeaderVersion == nil || ki.CorrelationID == nil || ki.BodyOffset == nil {
		fail("frame", "(frame)", "Kafka's instance lacks its header version, correlation id or body offset", -1, -1)
		return out
	}
	kh := frameHeader{hv: *ki.HeaderVersion, correlationID: *ki.CorrelationID, clientID: ki.ClientID, bodyOff: *ki.BodyOffset}
	if kh.hv != hv {
		// Located below, where the bytes of the two frames part.
		fail("header_version", hs.Name, fmt.Sprintf("%s version: Kafka v%d, kwire v%d", hs.Name, kh.hv, hv), -1, -1)
	}
	// kwire reads Kafka's frame.
	var t *tree.Tree
	if req {
		t, err = c.DecodeRequest(frame)
	} else {
		t, err = c.DecodeResponse(frame, m, v)
	}
	if err != nil {
		fail("frame_decode", errPath(err), "kwire decoding Kafka's frame: "+err.Error(), -1, -1)
	} else {
		if t.Message != m || t.Version != v {
			fail("frame_header", hs.Name+".RequestApiKey", fmt.Sprintf("kwire reads %s v%d from Kafka's frame, want %s v%d", t.Message.Name, t.Version, m.Name, v), 4, 4)
		}
		h := t.Part(tree.Header)
		for _, f := range hs.Root.Fields {
			i := t.Lookup(h, f)
			if i < 0 {
				continue
			}
			n := &t.Nodes[i]
			switch {
			case f.Name == "CorrelationId" && int32(t.Num(i)) != kh.correlationID:
				fail("frame_header", hs.Name+".CorrelationId", fmt.Sprintf("kwire reads correlation id %d, Kafka wrote %d", int32(t.Num(i)), kh.correlationID), int(n.Off), int(n.Off))
			case f.Name == "ClientId" && kh.clientID != nil && (n.Null() || string(t.Data(i)) != *kh.clientID),
				f.Name == "ClientId" && kh.clientID == nil && !n.Null():
				fail("frame_header", hs.Name+".ClientId", fmt.Sprintf("kwire reads client id %q (null %v), Kafka wrote %v", t.Data(i), n.Null(), strOrNull(kh.clientID)), int(n.Off), int(n.Off))
			}
		}
		bn := t.Nodes[t.Part(tree.Body)]
		if int(bn.Off) != kh.bodyOff {
			fail("body_offset", m.Name, fmt.Sprintf("the body starts at offset %d for kwire, %d in Kafka's frame", bn.Off, kh.bodyOff), int(bn.Off), kh.bodyOff)
		} else if !bytes.Equal(frame[bn.Off:bn.Off+bn.Size], kb) {
			fail("frame_body", m.Name, "the body kwire reads in Kafka's frame is not Kafka's bare body", int(bn.Off), kh.bodyOff)
		}
	}
	// kwire writes the same header and body.
	var hval *tree.Tree
	if req {
		hval = codec.RequestHeaderValue(hs, m.APIKey, v, kh.correlationID, derefStr(kh.clientID))
		if kh.clientID == nil {
			for i := range hval.Nodes {
				if f := hval.Field(int32(i)); f != nil && f.Name == "ClientId" {
					hval.Nodes[i].SetNull(true)
				}
			}
		}
	} else {
		hval = codec.ResponseHeaderValue(hs, kh.correlationID)
	}
	enc, err := c.Encode(m, v, hval, body)
	if err != nil {
		fail("frame_bytes", errPath(err), "kwire writing the frame: "+err.Error(), -1, -1)
	} else if !bytes.Equal(enc.Bytes, frame) {
		kwOff := int(enc.Nodes[enc.Part(tree.Body)].Off)
		d := diffLeaves(frameLeaves(c, m, v, enc.Bytes, hv, kwOff), frameLeaves(c, m, v, frame, kh.hv, kh.bodyOff))
		fail("frame_bytes", d.path, "kwire's frame is not Kafka's: "+d.detail, d.aOff, d.bOff)
	}
	return out
}

// failure is one failed check with where and why.
type failure struct {
	check, path, detail string
	kwireOff, kafkaOff  int
}

func derefInt(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func strOrNull(p *string) string {
	if p == nil {
		return "null"
	}
	return strconv.Quote(*p)
}
