package main

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tlsdecrypt/tlstest"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wireshark"
)

// everyVersion is one request and one response of every (API, version)
// of set, on one connection: the smallest instances, or seeded random
// ones (nulls, tagged fields known and unknown, record batches). Produce
// asks for acks -1 so that every request has its response.
type everyVersion struct {
	set    *spec.Set
	random bool
}

var acksRE = regexp.MustCompile(`"acks":-?\d+`)

func (ev everyVersion) body(t *testing.T, m *spec.Message, v int16, r *rand.Rand) *tree.Tree {
	t.Helper()
	var b *tree.Tree
	if ev.random {
		b = instance.Random(m, v, r, instance.RandomOptions{})
	} else {
		b = instance.Smallest(m, v)
	}
	if m.APIKey != 0 || m.Type != spec.Request {
		return b
	}
	j, err := codec.ToJSON(nil, b, 0, m, v, codec.JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b, err = codec.FromJSON(acksRE.ReplaceAll(j, []byte(`"acks":-1`)), m, v); err != nil {
		t.Fatal(err)
	}
	return b
}

// frames returns the framed requests and responses, in order.
func (ev everyVersion) frames(t *testing.T) (reqs, resps [][]byte) {
	cd := codec.New(ev.set)
	r := rand.New(rand.NewPCG(27, 4))
	corr := int32(1)
	for _, k := range ev.set.APIKeys() {
		req, resp := ev.set.Request(k), ev.set.Response(k)
		for v := req.ValidVersions.Lo; !req.ValidVersions.Empty() && v <= req.ValidVersions.Hi; v++ {
			h := codec.RequestHeaderValue(ev.set.RequestHeader(), k, v, corr, "kwire-wireshark")
			rq, err := cd.Encode(req, v, h, ev.body(t, req, v, r))
			if err != nil {
				t.Fatalf("%s v%d: %v", req.Name, v, err)
			}
			rs, err := cd.Encode(resp, v, codec.ResponseHeaderValue(ev.set.ResponseHeader(), corr), ev.body(t, resp, v, r))
			if err != nil {
				t.Fatalf("%s v%d: %v", resp.Name, v, err)
			}
			reqs, resps = append(reqs, rq.Bytes), append(resps, rs.Bytes)
			corr++
		}
	}
	return reqs, resps
}

// captureOf writes the exchanges into a capture: segments of at most mss
// bytes (0: one per frame); cut > 0 starts the capture mid-stream, cut
// bytes into the first request, without the handshake.
func captureOf(t *testing.T, reqs, resps [][]byte, mss, cut int) string {
	t.Helper()
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 900000, pcapT0)
	if cut == 0 {
		c.Handshake()
	}
	for i := range reqs {
		rq := reqs[i]
		if i == 0 && cut > 0 {
			c.Seg(true, rq[:cut]) // sent before the capture started
			rq = rq[cut:]
		}
		c.Send(true, rq, mss)
		c.Send(false, resps[i], mss)
	}
	c.Close()
	return writeCapture(t, f)
}

// tlsEveryVersion records a real TLS 1.3 session (crypto/tls) carrying
// the exchanges and writes it into a capture on port 9093, in segments of
// at most 1000 bytes, with its key log.
func tlsEveryVersion(t *testing.T, reqs, resps [][]byte) (capFile, keyLog string) {
	t.Helper()
	s := tlstest.Run(t, &tls.Config{MinVersion: tls.VersionTLS13}, reqs, resps)
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9093", 1000, 900000, pcapT0)
	c.Handshake()
	for _, w := range s.Writes {
		c.Send(w.FromClient, w.Data, 1000)
	}
	c.Close()
	keyLog = filepath.Join(t.TempDir(), "keys.log")
	if err := os.WriteFile(keyLog, s.KeyLog, 0o644); err != nil {
		t.Fatal(err)
	}
	return writeCapture(t, f), keyLog
}

// kwNode is a node of kwire pcap's JSON tree.
type kwNode struct {
	Name     string      `json:"name"`
	Kind     string      `json:"kind"`
	Type     string      `json:"type"`
	Value    json.Number `json:"value"`
	Raw      any         `json:"-"`
	Offset   int         `json:"offset"`
	Size     int         `json:"size"`
	Path     string      `json:"path"`
	Region   string      `json:"region"`
	Virtual  bool        `json:"virtual"`
	Children []*kwNode   `json:"children"`
}

// UnmarshalJSON keeps the value as its JSON text (strings and null too).
func (n *kwNode) UnmarshalJSON(b []byte) error {
	type plain kwNode
	var aux struct {
		plain
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*n = kwNode(aux.plain)
	n.Value = json.Number(aux.Value)
	return nil
}

// kwFrame is one side of an exchange as kwire pcap prints it.
type kwFrame struct {
	client   string // the client's address:port
	api      string
	response bool
	corr     int32
	root     *kwNode
	hex      []byte
	latency  *int64 // a response's time since its request (ns)
}

// kwireFrames runs kwire pcap --tree --format json on the capture.
func kwireFrames(t *testing.T, capFile string, extra ...string) (frames []kwFrame, undecoded int) {
	t.Helper()
	r := kwire(t, append(append([]string{"--show-secrets", "pcap", "--tree", "--format", "json"}, extra...), capFile)...)
	if r.code > 1 {
		t.Fatalf("kwire pcap: exit %d: %s", r.code, r.stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var x struct {
			Type          string `json:"type"`
			API           string `json:"api"`
			CorrelationID int32  `json:"correlation_id"`
			Client        string `json:"client"`
			LatencyNS     *int64 `json:"latency_ns"`
			Request       *struct {
				Tree struct {
					Frame *struct {
						Hex  string  `json:"hex"`
						Tree *kwNode `json:"tree"`
					} `json:"frame"`
				} `json:"tree"`
			} `json:"request"`
			Response *struct {
				Tree struct {
					Frame *struct {
						Hex  string  `json:"hex"`
						Tree *kwNode `json:"tree"`
					} `json:"frame"`
				} `json:"tree"`
			} `json:"response"`
		}
		if err := json.Unmarshal([]byte(line), &x); err != nil {
			t.Fatalf("%v: %.200s", err, line)
		}
		if x.Type != "exchange" {
			continue
		}
		for i, side := range []*struct {
			Tree struct {
				Frame *struct {
					Hex  string  `json:"hex"`
					Tree *kwNode `json:"tree"`
				} `json:"frame"`
			} `json:"tree"`
		}{x.Request, x.Response} {
			if side == nil {
				continue
			}
			if side.Tree.Frame == nil || side.Tree.Frame.Tree == nil || x.API == "" {
				undecoded++
				continue
			}
			h, err := hex.DecodeString(side.Tree.Frame.Hex)
			if err != nil {
				t.Fatal(err)
			}
			fr := kwFrame{client: x.Client, api: x.API, response: i == 1, corr: x.CorrelationID, root: side.Tree.Frame.Tree, hex: h}
			if fr.response {
				fr.latency = x.LatencyNS
			}
			frames = append(frames, fr)
		}
	}
	return frames, undecoded
}

// pdml is what the comparison reads of tshark -T pdml.
type pdmlField struct {
	Name     string      `xml:"name,attr"`
	ShowName string      `xml:"showname,attr"`
	Show     string      `xml:"show,attr"`
	Pos      int         `xml:"pos,attr"`
	Size     int         `xml:"size,attr"`
	Hide     string      `xml:"hide,attr"`
	Fields   []pdmlField `xml:"field"`
}

type pdmlPacket struct {
	Protos []pdmlField `xml:"proto"`
}

// tsFrame is one kafka4 frame of tshark's output.
type tsFrame struct {
	client   string // the client's address:port
	response bool
	corr     int32
	fields   []pdmlField // kafka4.* fields in order, positions made relative to the frame
	expert   []string    // the messages of its expert infos
	latency  string      // kafka4.latency as shown ("0.001000000")
}

// failed reports whether the dissector marked the frame malformed or did
// not know its API or version.
func (f tsFrame) failed() bool {
	for _, e := range f.expert {
		if strings.Contains(e, "alformed") || strings.Contains(e, "not in these specs") ||
			strings.Contains(e, "after the body") || strings.Contains(e, "needs") || strings.Contains(e, "not nullable") {
			return true
		}
	}
	return false
}

// generated are the fields the dissector adds that are not bytes of the
// frame (compared elsewhere or not at all).
var generated = map[string]bool{"kafka4.api": true, "kafka4.version": true, "kafka4.request_in": true,
	"kafka4.response_in": true, "kafka4.latency": true, "_ws.expert": true}

func flatten(fs []pdmlField, base int, out *[]pdmlField, experts *[]string) {
	for _, f := range fs {
		switch {
		case f.Name == "_ws.expert":
			for _, e := range f.Fields {
				if e.Name == "_ws.expert.message" {
					*experts = append(*experts, e.Show)
				}
			}
			continue
		case strings.HasPrefix(f.Name, "kafka4.") && !generated[f.Name]:
			g := f
			g.Pos -= base
			g.Fields = nil
			*out = append(*out, g)
		}
		flatten(f.Fields, base, out, experts)
	}
}

// tsharkFrames runs tshark with the dissector on the capture.
func tsharkFrames(t *testing.T, tshark, lua, capFile string, extra ...string) []tsFrame {
	t.Helper()
	args := append([]string{"-n", "-X", "lua_script:" + lua, "-r", capFile, "-T", "pdml"}, extra...)
	cmd := exec.Command(tshark, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if s := strings.TrimSpace(strings.ReplaceAll(stderr.String(), `Running as user "root" and group "root". This could be dangerous.`, "")); s != "" {
		t.Errorf("tshark wrote to stderr (a Lua error or warning?):\n%s", s)
	}
	var frames []tsFrame
	d := xml.NewDecoder(bytes.NewReader(out))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "packet" {
			continue
		}
		var p pdmlPacket
		if err := d.DecodeElement(&p, &se); err != nil {
			t.Fatal(err)
		}
		var src, dst string // address:port of the packet's ends
		for _, pr := range p.Protos {
			switch pr.Name {
			case "ip", "ipv6", "tcp":
				for _, g := range pr.Fields {
					switch g.Name {
					case "ip.src", "ipv6.src":
						src = netip.MustParseAddr(g.Show).String()
					case "ip.dst", "ipv6.dst":
						dst = netip.MustParseAddr(g.Show).String()
					case "tcp.srcport":
						src = addrPort(src, g.Show)
					case "tcp.dstport":
						dst = addrPort(dst, g.Show)
					}
				}
			}
			if pr.Name != "kafka4" {
				continue
			}
			f := tsFrame{response: true}
			flatten(pr.Fields, pr.Pos, &f.fields, &f.expert)
			for _, g := range pr.Fields {
				if g.Name == "kafka4.latency" {
					f.latency = g.Show
				}
			}
			for _, g := range f.fields {
				switch g.Name {
				case "kafka4.api_key":
					f.response = false
				case "kafka4.correlation_id":
					n, _ := strconv.ParseInt(g.Show, 10, 32)
					f.corr = int32(n)
				}
			}
			f.client = src
			if f.response {
				f.client = dst
			}
			frames = append(frames, f)
		}
	}
	return frames
}

// addrPort joins an address and a port as netip.AddrPort prints them.
func addrPort(addr, port string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr + ":" + port
	}
	n, _ := strconv.ParseUint(port, 10, 16)
	return netip.AddrPortFrom(a, uint16(n)).String()
}

// batchNames are the filter names of kwire's record batch, record and
// legacy message fields.
var batchNames = map[string]string{
	"RecordBatch.baseOffset": "batch.base_offset", "RecordBatch.batchLength": "batch.batch_length",
	"RecordBatch.partitionLeaderEpoch": "batch.partition_leader_epoch", "RecordBatch.magic": "batch.magic",
	"RecordBatch.crc": "batch.crc", "RecordBatch.attributes": "batch.attributes",
	"RecordBatch.lastOffsetDelta": "batch.last_offset_delta", "RecordBatch.baseTimestamp": "batch.base_timestamp",
	"RecordBatch.maxTimestamp": "batch.max_timestamp", "RecordBatch.producerId": "batch.producer_id",
	"RecordBatch.producerEpoch": "batch.producer_epoch", "RecordBatch.baseSequence": "batch.base_sequence",
	"RecordBatch.recordsCount": "batch.records_count",
	"Record.length":            "record.length", "Record.attributes": "record.attributes",
	"Record.timestampDelta": "record.timestamp_delta", "Record.offsetDelta": "record.offset_delta",
	"Record.key": "record.key", "Record.value": "record.value", "Record.headersCount": "record.headers_count",
	"Record.headerKey": "record.header_key", "Record.headerValue": "record.header_value",
}

// controlNames are the filter names of the fields of a control record's
// key and value (by the key or value and the field's name) that package
// records decodes: the key's version and type, a transaction marker's.
var controlNames = map[string]string{
	"key.length": "record.key_length", "value.length": "record.value_length",
	"key.version": "control.version", "key.type": "control.type", "key.rest": "control.key_rest",
	"key.undecoded": "control.undecoded", "value.undecoded": "control.undecoded",
	"value.version": "txn_marker.version", "value.coordinatorEpoch": "txn_marker.coordinator_epoch",
	"value.rest": "txn_marker.rest",
}

var headerFieldNames = map[string]string{
	"RequestHeader.RequestApiKey": "api_key", "RequestHeader.RequestApiVersion": "api_version",
	"RequestHeader.CorrelationId": "correlation_id", "RequestHeader.ClientId": "client_id",
	"ResponseHeader.CorrelationId": "correlation_id",
}

// want is one field as the dissector should show it.
type want struct {
	name, value  string
	offset, size int
	path         string
}

var indexRE = regexp.MustCompile(`\[\d+\]$`)

// holdsMetadataRecord reports whether n is a record's value holding a KRaft
// metadata record, which kwire decodes (the records of __cluster_metadata
// in a quorum's Fetch responses) and the dissector shows as the value's
// bytes.
func holdsMetadataRecord(n *kwNode) bool {
	for _, c := range n.Children {
		if c.Kind == "embedded" && strings.HasPrefix(c.Type, "metadata record") {
			return true
		}
	}
	return false
}

// expected lists the fields of kwire's tree of fr as the dissector should
// show them: the leaves (and records fields) in tree order.
func expected(t *testing.T, fr kwFrame) []want {
	var out []want
	var emb *kwNode // the message a record's value holds, while in it
	var walk func(n, parent *kwNode)
	walk = func(n, parent *kwNode) {
		if n.Virtual {
			return
		}
		if n.Kind == "embedded" {
			prev := emb
			emb = n
			for _, c := range n.Children {
				walk(c, n)
			}
			emb = prev
			return
		}
		if len(n.Children) > 0 && n.Kind != "records" && !holdsMetadataRecord(n) {
			for _, c := range n.Children {
				walk(c, n)
			}
			return
		}
		switch n.Kind {
		case "message", "frame", "header", "body", "struct", "array", "tag", "unknown_tag", "RecordBatch", "Record":
			return // a group without members: no field
		case "element":
			if n.Type != "" && n.Type[0] >= 'A' && n.Type[0] <= 'Z' {
				return // an element of a struct without fields
			}
		}
		if n.Kind == "records" {
			defer func() {
				for _, c := range n.Children {
					walk(c, n)
				}
			}()
		}
		w := want{offset: n.Offset, size: n.Size, path: n.Path}
		switch n.Kind {
		case "frame_field":
			w.name = "size"
		case "length":
			w.name = "length"
		case "presence":
			w.name = "presence"
		case "tagged_fields", "tag_count":
			w.name = "tagged_fields"
		case "tag_number":
			w.name = "tag"
		case "tag_size":
			w.name = "tag_size"
		case "raw":
			w.name = "unknown_tag"
			if n.Name == "compressed records" {
				w.name = "batch.compressed"
			}
			if parent != nil && parent.Kind == "batch_field" {
				w.name = controlNames[parent.Name+"."+n.Name]
			} else if n.Name == "undecoded" {
				w.name = "undecoded"
			}
		case "batch_field":
			w.name = batchNames[n.Region+"."+indexRE.ReplaceAllString(n.Name, "")]
			if parent != nil && parent.Kind == "batch_field" {
				w.name = controlNames[parent.Name+"."+n.Name]
			}
		default:
			msg, rest, _ := strings.Cut(n.Path, ".")
			if emb != nil {
				w.name = strings.TrimPrefix(wireshark.RecordFilterName(emb.Name, strings.TrimPrefix(n.Path, emb.Path+".")), wireshark.ProtoName+".")
			} else if h, ok := headerFieldNames[n.Path]; ok {
				w.name = h
			} else if strings.HasSuffix(msg, "Header") {
				w.name = "header." + rest
			} else {
				w.name = strings.TrimPrefix(wireshark.FilterName(fr.api, fr.response, rest), wireshark.ProtoName+".")
			}
		}
		w.name = wireshark.ProtoName + "." + w.name
		v := string(n.Value)
		switch {
		case v == "null":
			w.value = "null"
		case strings.HasPrefix(v, `"`):
			var s string
			if err := json.Unmarshal([]byte(v), &s); err != nil {
				t.Fatal(err)
			}
			w.value = s
			if n.Type == "string" || n.Type == "nullable_string" {
				w.value = wiresharkText(s)
			}
		default:
			w.value = v
		}
		// A bytes value's item spans its data, after the length prefix
		// (Wireshark takes a bytes value from its range); null: none.
		switch n.Type {
		case "bytes", "nullable_bytes", "varbytes":
			if v == "null" {
				w.size = 0
			} else {
				d := len(w.value) / 2
				w.offset += w.size - d
				w.size = d
			}
		}
		out = append(out, w)
		if n.Kind == "field" && n.Type == "int16" && strings.HasSuffix(n.Name, "ErrorCode") {
			e := w
			e.name = wireshark.ProtoName + ".error_code"
			out = append(out, e)
		}
	}
	walk(fr.root, nil)
	return out
}

// wiresharkText is a string as tshark's PDML shows it: cut at the first
// NUL (Wireshark keeps strings as C strings), control characters other
// than tab, newline and carriage return escaped as \xNN, and a carriage
// return read back as a newline (XML's end-of-line rule).
func wiresharkText(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\r':
			b.WriteByte('\n')
		case r == '\t' || r == '\n':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// shown is the value of a tshark field in the form of want.value.
func shown(f pdmlField) string {
	if strings.HasSuffix(f.ShowName, ": null") {
		return "null"
	}
	s := f.Show
	if strings.HasPrefix(s, "0x") {
		if n, err := strconv.ParseUint(s[2:], 16, 64); err == nil {
			return strconv.FormatUint(n, 10)
		}
	}
	return s
}

func sameValue(w want, f pdmlField) bool {
	got := shown(f)
	if got == w.value {
		return true
	}
	switch {
	case w.value == "true":
		return got == "1"
	case w.value == "false":
		return got == "0"
	}
	if strings.Contains(got, ":") && strings.ReplaceAll(got, ":", "") == w.value {
		return true
	}
	a, err1 := strconv.ParseFloat(w.value, 64)
	b, err2 := strconv.ParseFloat(got, 64)
	if err1 == nil && err2 == nil && (a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))) {
		return true
	}
	return false
}

// cut shortens a long value for a message.
func cut(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// comparison is the outcome of comparing one capture.
type comparison struct {
	frames, fields, latencies, disagreements, unmatched int
	first                                               []string
}

func (c *comparison) disagree(format string, args ...any) {
	c.disagreements++
	if len(c.first) < 25 {
		c.first = append(c.first, fmt.Sprintf(format, args...))
	}
}

// compare matches kwire's frames to tshark's by direction and correlation
// id and compares them field by field.
func compare(t *testing.T, kw []kwFrame, ts []tsFrame) comparison {
	var c comparison
	type key struct {
		client   string
		response bool
		corr     int32
	}
	byKey := map[key][]tsFrame{}
	for _, f := range ts {
		k := key{f.client, f.response, f.corr}
		byKey[k] = append(byKey[k], f)
	}
	for _, fr := range kw {
		k := key{fr.client, fr.response, fr.corr}
		cands := byKey[k]
		if len(cands) == 0 {
			c.unmatched++
			c.disagree("%s corr %d response=%v: no such frame in tshark's output", fr.api, fr.corr, fr.response)
			continue
		}
		tf := cands[0]
		byKey[k] = cands[1:]
		c.frames++
		ws := expected(t, fr)
		for i, w := range ws {
			if i >= len(tf.fields) {
				c.disagree("%s corr %d: tshark ends before %s (%s)", fr.api, fr.corr, w.name, w.path)
				break
			}
			g := tf.fields[i]
			c.fields++
			if g.Name != w.name || g.Pos != w.offset || g.Size != w.size || !sameValue(w, g) {
				c.disagree("%s corr %d: %s: kwire %s = %q at %d+%d; tshark %s = %q (%s) at %d+%d",
					fr.api, fr.corr, w.path, w.name, w.value, w.offset, w.size, g.Name, cut(g.Show), cut(g.ShowName), g.Pos, g.Size)
				break // the rest of the frame would only repeat it
			}
		}
		if len(tf.fields) > len(ws) {
			c.disagree("%s corr %d: tshark has %d more fields, first %s", fr.api, fr.corr, len(tf.fields)-len(ws), tf.fields[len(ws)].Name)
		}
		if fr.latency != nil {
			c.latencies++
			if want := fmt.Sprintf("%d.%09d", *fr.latency/1e9, *fr.latency%1e9); tf.latency != want {
				c.disagree("%s corr %d: latency: kwire %s s, tshark %q", fr.api, fr.corr, want, tf.latency)
			}
		}
		if tf.failed() {
			c.disagree("%s corr %d: tshark: %s", fr.api, fr.corr, strings.Join(tf.expert, "; "))
		}
	}
	return c
}

// TestWiresharkAgreesWithPcap: the generated dissector, run by tshark,
// shows every field of the smallest and of random requests and responses
// of every API version of Kafka 4.4.0 with the name, value, offset and
// length that kwire pcap --tree gives it, also when the capture comes in
// 1-byte segments and when it starts in the middle of a frame.
func TestWiresharkAgreesWithPcap(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not installed (Debian: apt-get install tshark)")
	}
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	lua := filepath.Join(t.TempDir(), "kafka4.lua")
	mustRun(t, "wireshark", "--kafka", "4.4.0", "-o", lua)
	small := everyVersion{set: set}
	sq, ss := small.frames(t)
	rq, rs := everyVersion{set: set, random: true}.frames(t)
	tlsCap, keys := tlsEveryVersion(t, rq, rs)
	cq, cs := controlExchanges(t, set)
	for _, c := range []struct {
		name           string
		capture        string
		builtin        bool
		minFrame       int
		kwArgs, tsArgs []string
	}{
		{"smallest", captureOf(t, sq, ss, 0, 0), true, 2 * len(sq), nil, nil},
		{"random", captureOf(t, rq, rs, 0, 0), true, 2 * len(rq), nil, nil},
		// The first 60 exchanges (Produce to Metadata) byte by byte: every
		// frame reassembled from one-byte segments, in a few seconds.
		{"smallest, 1-byte segments", captureOf(t, sq[:60], ss[:60], 1, 0), false, 120, nil, nil},
		{"random, segments of 7 bytes", captureOf(t, rq, rs, 7, 0), false, 2 * len(rq), nil, nil},
		{"random, from the middle of the first request", captureOf(t, rq, rs, 0, 9), false, 2*len(rq) - 2, nil, nil},
		// TLS 1.3 on port 9093: Wireshark decrypts it with the key log and
		// hands the plaintext to kafka4 (registered on tls.port 9093).
		{"random, TLS 1.3 with its key log", tlsCap, false, 2 * len(rq),
			[]string{"--port", "9093", "--keylog", keys}, []string{"-o", "tls.keylog_file:" + keys, "-d", "tcp.port==9093,tls"}},
		// Control batches: COMMIT and ABORT markers, LEADER_CHANGE, a
		// KRaft snapshot's header, version, voters and footer.
		{"control batches", captureOf(t, cq, cs, 0, 0), false, 2 * len(cq), nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			kw, undecoded := kwireFrames(t, c.capture, c.kwArgs...)
			ts := tsharkFrames(t, tshark, lua, c.capture, c.tsArgs...)
			r := compare(t, kw, ts)
			t.Logf("%s: %d frames, %d fields and %d latencies compared, %d disagreements (%d frames kwire did not decode; %.1fs)",
				c.name, r.frames, r.fields, r.latencies, r.disagreements, undecoded, time.Since(start).Seconds())
			for _, s := range r.first {
				t.Error(s)
			}
			if r.frames < c.minFrame {
				t.Errorf("%d frames compared, want at least %d", r.frames, c.minFrame)
			}
			if c.builtin {
				n, total := builtinFailures(t, tshark, c.capture)
				ours := 0
				for _, f := range ts {
					if f.failed() {
						ours++
					}
				}
				t.Logf("%s: frames malformed or not understood: Wireshark's built-in kafka dissector %d of %d packets; kafka4 %d of %d frames", c.name, n, total, ours, len(ts))
				if ours > 0 {
					t.Errorf("kafka4 failed on %d frames", ours)
				}
			}
		})
	}
}

// builtinFailures counts the packets that Wireshark's built-in kafka
// dissector marks malformed or cannot name the API or version of.
func builtinFailures(t *testing.T, tshark, capFile string, extra ...string) (failed, total int) {
	t.Helper()
	args := append([]string{"-n", "-r", capFile, "-Y", "kafka", "-T", "fields", "-e", "frame.number", "-e", "_ws.malformed", "-e", "_ws.expert.message", "-e", "_ws.col.Info"}, extra...)
	out, err := exec.Command(tshark, args...).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l == "" {
			continue
		}
		total++
		f := strings.Split(l, "\t")
		if (len(f) > 1 && f[1] != "") || strings.Contains(l, "alformed") || strings.Contains(l, "Unknown") || strings.Contains(l, "nsupported") {
			failed++
		}
	}
	return failed, total
}

// fieldsOf returns the shown values of the kafka4 fields named name, in
// order, over every frame.
func fieldsOf(frames []tsFrame, name string) []string {
	var out []string
	for _, f := range frames {
		for _, g := range f.fields {
			if g.Name == name {
				out = append(out, strings.ReplaceAll(shown(g), ":", ""))
			}
		}
	}
	return out
}

// Record batches the comparison's captures lack: gzip (decompressed by
// Wireshark's zlib), zstd (shown as compressed, said so), a batch whose
// CRC-32C is wrong, and legacy message sets v0 and v1 (CRC-32 checked).
func TestWiresharkRecordBatches(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not installed (Debian: apt-get install tshark)")
	}
	lua := filepath.Join(t.TempDir(), "kafka4.lua")
	mustRun(t, "wireshark", "-o", lua)
	plain := records.Batch{BaseOffset: 10, Timestamp: 1700000000000, Records: []records.KeyValue{
		{Key: []byte("k1"), Value: []byte("gzipped value"), Headers: []records.Header{{Key: "h", Value: []byte("v")}}},
		{Key: nil, Value: []byte("second")},
	}}.Bytes()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain[61:])
	zw.Close()
	gzipped := records.RawBatch{BaseOffset: 10, Attributes: 1, LastOffsetDelta: 1, BaseTimestamp: 1700000000000, MaxTimestamp: 1700000000000,
		ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Count: 2, Records: gz.Bytes()}.Bytes()
	zstd := records.RawBatch{BaseOffset: 12, Attributes: 4, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Count: 1, Records: []byte{0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3}}.Bytes()
	badCRC := records.Batch{BaseOffset: 13, Timestamp: 1700000000000, Records: []records.KeyValue{{Key: []byte("bad"), Value: []byte("crc")}}}.Bytes()
	badCRC[len(badCRC)-2] ^= 0xff // the last byte of the value "crc"
	legacy := append(records.Legacy{Offset: 20, Magic: 0, Key: []byte("old"), Value: []byte("v0 value")}.Bytes(),
		records.Legacy{Offset: 21, Magic: 1, Timestamp: 1700000000000, Key: nil, Value: []byte("v1 value")}.Bytes()...)
	k := newKafkaFrames(t)
	var reqs, resps [][]byte
	for i, recs := range [][]byte{append(append(gzipped, zstd...), badCRC...), legacy} {
		v := int16(9)
		if i == 1 {
			v = 3 // message sets are for old versions; the codec writes any bytes
		}
		reqs = append(reqs, k.request(t, "Produce", v, int32(i+1), `{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[{"name":"t","partitionData":[{"index":0,"records":"`+
			base64.StdEncoding.EncodeToString(recs)+`"}]}]}`))
		resps = append(resps, k.response(t, "Produce", v, int32(i+1), `{"responses":[],"throttleTimeMs":0}`))
	}
	ts := tsharkFrames(t, tshark, lua, captureOf(t, reqs, resps, 0, 0))
	for name, want := range map[string][]string{
		// gzip: both records, decompressed; zstd: none; bad CRC: its record.
		"kafka4.record.key":          {"6b31", "null", "626164"},
		"kafka4.record.value":        {"677a69707065642076616c7565", "7365636f6e64", "63729c"},
		"kafka4.record.header_key":   {"68"},
		"kafka4.batch.compressed":    {"28b52ffd010203"},
		"kafka4.message.key":         {"6f6c64", "null"},
		"kafka4.message.value":       {"76302076616c7565", "76312076616c7565"},
		"kafka4.message.timestamp":   {"1700000000000"},
		"kafka4.batch.records_count": {"2", "1", "1"},
	} {
		if got := fieldsOf(ts, name); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	var experts []string
	for _, f := range ts {
		experts = append(experts, f.expert...)
		if f.failed() {
			t.Errorf("frame corr %d failed: %q", f.corr, f.expert)
		}
	}
	all := strings.Join(experts, "\n")
	for _, want := range []string{
		"Records compressed with zstd (7 bytes): this dissector does not decompress zstd",
		fmt.Sprintf("CRC-32C is 0x%08x, the batch says 0x%08x", records.CRC32C(badCRC[21:]), binary.BigEndian.Uint32(badCRC[17:])),
	} {
		if !strings.Contains(all, want) {
			t.Errorf("expert infos lack %q:\n%s", want, all)
		}
	}
	if n := strings.Count(all, "CRC-32"); n != 1 {
		t.Errorf("%d CRC complaints, want 1 (the gzip, zstd and legacy checksums are right):\n%s", n, all)
	}
}

// kwire wireshark writes what package wireshark generates: to standard
// output, to -o FILE, or into the plugin folder under HOME (--install),
// saying where; its command line errors exit 2.
func TestWiresharkCommand(t *testing.T) {
	set, err := spec.Embedded("3.9.1")
	if err != nil {
		t.Fatal(err)
	}
	want, err := wireshark.Generate(set)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRun(t, "--kafka", "3.9.1", "wireshark"); got != string(want) {
		t.Errorf("stdout: %d bytes, want the %d of wireshark.Generate", len(got), len(want))
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "k.lua")
	r := kwire(t, "wireshark", "--kafka", "3.9.1", "-o", out)
	if b, err := os.ReadFile(out); err != nil || !bytes.Equal(b, want) || r.code != 0 || !strings.Contains(r.stderr, "wrote "+out) {
		t.Errorf("-o: exit %d, %q, %v", r.code, r.stderr, err)
	}
	home := filepath.Join(dir, "home")
	r = kwireEnv(t, &env{getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}, "wireshark", "--install")
	plugin := filepath.Join(home, ".local", "lib", "wireshark", "plugins", "kafka4.lua")
	if b, err := os.ReadFile(plugin); err != nil || r.code != 0 || !strings.Contains(r.stderr, "wrote "+plugin) || !bytes.HasPrefix(b, []byte("-- Wireshark dissector")) {
		t.Errorf("--install: exit %d, %q, %v", r.code, r.stderr, err)
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"wireshark", "--all-releases", "--kafka", "3.9"}, 2},
		{[]string{"wireshark", "-o", out, "--install"}, 2},
		{[]string{"wireshark", "--specs", filepath.Join(dir, "nodir")}, 1},
	} {
		if r := kwire(t, c.args...); r.code != c.code {
			t.Errorf("%q: exit %d, want %d: %s", c.args, r.code, c.code, r.stderr)
		}
	}
}

// TestWiresharkAgreesOnCaptures compares as TestWiresharkAgreesWithPcap
// does on real captures named by KWIRE_WIRESHARK_CAPTURES:
// FILE[,PORT[,KEYLOG]] entries separated by ';'. The live tests
// (interop/live: TestKeyLog's franz-go, plain and TLS; TestSaramaCaptured;
// TestQuorumThroughProxies's KRaft controllers) list theirs in
// KWIRE_ARTIFACTS/wireshark-captures.txt, which .ci/run hands to this test
// after them. Without it, or without tshark, it skips.
func TestWiresharkAgreesOnCaptures(t *testing.T) {
	list := os.Getenv("KWIRE_WIRESHARK_CAPTURES")
	if list == "" {
		t.Skip("KWIRE_WIRESHARK_CAPTURES names no capture (FILE[,PORT[,KEYLOG]];…)")
	}
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not installed (Debian: apt-get install tshark)")
	}
	lua := filepath.Join(t.TempDir(), "kafka4.lua")
	mustRun(t, "wireshark", "-o", lua)
	for _, entry := range strings.Split(list, ";") {
		parts := strings.Split(entry, ",")
		var kwArgs, tsArgs, builtinArgs []string
		if len(parts) > 1 {
			kwArgs = []string{"--port", parts[1]}
			tsArgs = []string{"-d", "tcp.port==" + parts[1] + ",kafka4"}
			builtinArgs = []string{"-d", "tcp.port==" + parts[1] + ",kafka"}
			if len(parts) > 2 {
				kwArgs = append(kwArgs, "--keylog", parts[2])
				tls := func(proto string) []string {
					return []string{"-o", "tls.keylog_file:" + parts[2], "-d", "tcp.port==" + parts[1] + ",tls", "-d", "tls.port==" + parts[1] + "," + proto}
				}
				tsArgs, builtinArgs = tls("kafka4"), tls("kafka")
			}
		}
		t.Run(filepath.Base(parts[0]), func(t *testing.T) {
			kw, undecoded := kwireFrames(t, parts[0], kwArgs...)
			ts := tsharkFrames(t, tshark, lua, parts[0], tsArgs...)
			r := compare(t, kw, ts)
			failed := 0
			for _, f := range ts {
				if f.failed() {
					failed++
				}
			}
			builtin, total := builtinFailures(t, tshark, parts[0], builtinArgs...)
			t.Logf("%s: %d frames, %d fields and %d latencies compared, %d disagreements (%d frames kwire did not decode); frames malformed or not understood: built-in kafka %d of %d packets, kafka4 %d of %d frames",
				entry, r.frames, r.fields, r.latencies, r.disagreements, undecoded, builtin, total, failed, len(ts))
			for _, s := range r.first {
				t.Error(s)
			}
			if r.frames == 0 {
				t.Error("no frame compared")
			}
		})
	}
}

// What does not decode is said, not guessed: a request cut short inside
// its body (the size prefix agrees with the bytes), an API key the specs
// do not have, and a response whose request is not in the capture.
func TestWiresharkExpertInfo(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not installed (Debian: apt-get install tshark)")
	}
	lua := filepath.Join(t.TempDir(), "kafka4.lua")
	mustRun(t, "wireshark", "-o", lua)
	ts := tsharkFrames(t, tshark, lua, expertCapture(t))
	var got []string
	for _, fr := range ts {
		got = append(got, strings.Join(fr.expert, " | "))
	}
	want := []string{
		"LastOffset: needs 8 bytes at offset 83, 2 left",
		"",
		"Unknown(999) version 2 is not in these specs (Kafka 4.4.0)",
		"Response with correlation id 77: its request is not in the capture, so its API and version are unknown",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("expert infos:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if u := fieldsOf(ts, "kafka4.undecoded"); len(u) != 3 {
		t.Errorf("undecoded bytes shown %d times, want 3 (the cut request from where it fails, the unknown API's body, the stray response's body)", len(u))
	}
}

// expertCapture is a capture of what does not decode: a Vote request cut
// short inside its body (its size prefix agrees with the bytes) and its
// response, a request of an API key the specs do not have, and a response
// whose request is not in the capture.
func expertCapture(t *testing.T) string {
	t.Helper()
	k := newKafkaFrames(t)
	vote := k.request(t, "Vote", 2, 1, `{"clusterId":"c","voterId":1,"topics":[{"topicName":"t","partitions":[{"partitionIndex":0,"replicaEpoch":1,"replicaId":1,"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","voterDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","lastOffsetEpoch":1,"lastOffset":1,"preVote":false}]}]}`)
	cut := append([]byte(nil), vote[:len(vote)-10]...)
	binary.BigEndian.PutUint32(cut, uint32(len(cut)-4))
	unknown := append([]byte(nil), vote...)
	binary.BigEndian.PutUint16(unknown[4:], 999)
	binary.BigEndian.PutUint32(unknown[8:], 2)
	stray := k.response(t, "Vote", 2, 77, `{"errorCode":0,"topics":[],"nodeEndpoints":[]}`)
	ok := k.response(t, "Vote", 2, 1, `{"errorCode":0,"topics":[],"nodeEndpoints":[]}`)
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 900000, pcapT0)
	c.Handshake()
	c.Send(true, cut, 0)
	c.Send(false, ok, 0)
	c.Send(true, unknown, 0)
	c.Send(false, stray, 0)
	return writeCapture(t, f)
}

// Without a tree (tshark with no -V, -T or -Y) the dissector takes its
// short way, reading each frame for the Info column and the expert infos
// only: the packet list and the frame-level expert infos must be the
// ones it gives with a tree (-Y frame makes tshark build one), on every
// API version, random values, a capture starting mid-frame, 7-byte
// segments and frames that do not decode.
func TestWiresharkWithoutTree(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not installed (Debian: apt-get install tshark)")
	}
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	lua := filepath.Join(t.TempDir(), "kafka4.lua")
	mustRun(t, "wireshark", "--kafka", "4.4.0", "-o", lua)
	rq, rs := everyVersion{set: set, random: true}.frames(t)
	run := func(t *testing.T, args ...string) string {
		t.Helper()
		cmd := exec.Command(tshark, append([]string{"-n", "-X", "lua_script:" + lua}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || strings.Contains(stderr.String(), "Lua") {
			t.Fatalf("tshark %q: %v\n%s", args, err, stderr.String())
		}
		return string(out)
	}
	for _, c := range []struct {
		name, capture string
		infos         int // Info columns of kafka4 at least
		experts       int // kinds of kafka4 expert info at least
	}{
		{"random", captureOf(t, rq, rs, 0, 0), 2 * len(rq), 1},
		{"random, from the middle of the first request", captureOf(t, rq, rs, 0, 9), 2*len(rq) - 1, 2},
		{"random, segments of 7 bytes", captureOf(t, rq, rs, 7, 0), 2 * len(rq), 1},
		{"frames that do not decode", expertCapture(t), 4, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			plain, tree := run(t, "-r", c.capture), run(t, "-r", c.capture, "-Y", "frame")
			if plain != tree {
				t.Errorf("packet list without a tree differs from the one with a tree:\n%s", firstDiff(plain, tree))
			}
			if n := strings.Count(plain, " Kafka "); n < c.infos {
				t.Errorf("%d packets shown as Kafka, want at least %d", n, c.infos)
			}
			// The expert infos of frames (not those of record batches,
			// which are dissected only in a tree).
			experts := func(args ...string) string {
				out := run(t, append([]string{"-r", c.capture, "-q", "-z", "expert"}, args...)...)
				var keep []string
				for _, l := range strings.Split(out, "\n") {
					if !strings.Contains(l, "Record batch checksum") && !strings.Contains(l, "ompressed") && !strings.Contains(l, "magic") {
						keep = append(keep, l)
					}
				}
				return strings.Join(keep, "\n")
			}
			p, w := experts(), experts("-Y", "frame")
			if n := strings.Count(p, "KAFKA4"); n < c.experts {
				t.Errorf("%d kinds of kafka4 expert info without a tree, want at least %d:\n%s", n, c.experts, p)
			}
			if p != w {
				t.Errorf("expert infos without a tree differ from those with a tree:\n%s", firstDiff(p, w))
			}
		})
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  without: %q\n  with:    %q", i+1, x, y)
		}
	}
	return "(same lines)"
}

// controlExchanges are Produce v11 requests whose record batches are
// control batches: transaction markers (COMMIT, ABORT) and KRaft control
// records (LEADER_CHANGE, a snapshot's SNAPSHOT_HEADER, KRAFT_VERSION,
// KRAFT_VOTERS and SNAPSHOT_FOOTER), their values random instances of
// their specs at version 0, each with its response.
func controlExchanges(t *testing.T, set *spec.Set) (reqs, resps [][]byte) {
	t.Helper()
	k := &kafkaFrames{set: set, cd: codec.New(set)}
	r := rand.New(rand.NewPCG(27, 5))
	key := func(typ int16) []byte { return binary.BigEndian.AppendUint16([]byte{0, 0}, uint16(typ)) }
	marker := func(epoch int32) []byte { return binary.BigEndian.AppendUint32([]byte{0, 0}, uint32(epoch)) }
	kraft := func(typ int16) []byte {
		m := set.Message(records.ControlMessage(int(typ)))
		tr, err := k.cd.EncodeBody(m, 0, instance.Random(m, 0, r, instance.RandomOptions{}))
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		return tr.Bytes
	}
	batches := [][]byte{
		records.Batch{BaseOffset: 7, Timestamp: 1700000000000, Control: true, Records: []records.KeyValue{
			{Key: key(records.ControlCommit), Value: marker(3)}}}.Bytes(),
		records.Batch{BaseOffset: 9, Timestamp: 1700000000000, Control: true, Records: []records.KeyValue{
			{Key: key(records.ControlAbort), Value: marker(-1)}}}.Bytes(),
		records.Batch{BaseOffset: 11, Timestamp: 1700000000000, Control: true, Records: []records.KeyValue{
			{Key: key(records.ControlLeaderChange), Value: kraft(records.ControlLeaderChange)}}}.Bytes(),
		records.Batch{BaseOffset: 0, Timestamp: 1700000000000, Control: true, Records: []records.KeyValue{
			{Key: key(records.ControlSnapshotHead), Value: kraft(records.ControlSnapshotHead)},
			{Key: key(records.ControlKRaftVersion), Value: kraft(records.ControlKRaftVersion)},
			{Key: key(records.ControlKRaftVoters), Value: kraft(records.ControlKRaftVoters)}}}.Bytes(),
		records.Batch{BaseOffset: 3, Timestamp: 1700000000000, Control: true, Records: []records.KeyValue{
			{Key: key(records.ControlSnapshotFoot), Value: kraft(records.ControlSnapshotFoot)}}}.Bytes(),
	}
	for i, b := range batches {
		corr := int32(i + 1)
		reqs = append(reqs, k.request(t, "Produce", 11, corr, `{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[{"name":"t","partitionData":[{"index":0,"records":"`+
			base64.StdEncoding.EncodeToString(b)+`"}]}]}`))
		resps = append(resps, k.response(t, "Produce", 11, corr, `{"responses":[],"throttleTimeMs":0}`))
	}
	return reqs, resps
}

// Control records that are odd or wrong: kafka4 shows them as kwire pcap
// does: a key or a transaction marker with bytes after their fields, too
// short to hold them, empty, an unknown type (its value bytes), and a
// LeaderChangeMessage cut short (its rest undecoded, and said so).
func TestWiresharkControlRecordsOdd(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not installed (Debian: apt-get install tshark)")
	}
	lua := filepath.Join(t.TempDir(), "kafka4.lua")
	mustRun(t, "wireshark", "--kafka", "4.4.0", "-o", lua)
	k := newKafkaFrames(t)
	// LeaderChangeMessage v0: Version 0, LeaderId 1, Voters [{VoterId 2}],
	// GrantingVoters [], no tagged fields.
	leaderChange := []byte{0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 2, 0, 1, 0}
	var reqs, resps [][]byte
	for i, kv := range []records.KeyValue{
		{Key: []byte{0, 0, 0, 1, 9, 9}, Value: []byte{0, 0, 0, 0, 0, 1, 8, 8}},
		{Key: []byte{0, 0, 0}, Value: []byte{1}},
		{Key: []byte{0, 0, 0, 0}, Value: []byte{0, 0, 0, 1}},
		{Key: []byte{}, Value: []byte{5}},
		{Key: []byte{0, 0, 0, 9}, Value: []byte{5, 5}},
		{Key: []byte{0, 0, 0, 2}, Value: leaderChange},
		{Key: []byte{0, 0, 0, 2}, Value: leaderChange[:5]},
	} {
		b := records.Batch{BaseOffset: 1, Timestamp: 1700000000000, Control: true, Records: []records.KeyValue{kv}}.Bytes()
		reqs = append(reqs, k.request(t, "Produce", 11, int32(i+1), `{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[{"name":"t","partitionData":[{"index":0,"records":"`+
			base64.StdEncoding.EncodeToString(b)+`"}]}]}`))
		resps = append(resps, k.response(t, "Produce", 11, int32(i+1), `{"responses":[],"throttleTimeMs":0}`))
	}
	capFile := captureOf(t, reqs, resps, 0, 0)
	kw, _ := kwireFrames(t, capFile)
	ts := tsharkFrames(t, tshark, lua, capFile)
	r := compare(t, kw, ts)
	t.Logf("%d frames, %d fields compared, %d disagreements", r.frames, r.fields, r.disagreements)
	// The cut LeaderChangeMessage is the one frame kafka4 marks, as kwire
	// reports a problem there.
	want := "Produce corr 7: tshark: LeaderChangeMessage: LeaderId: needs 4 bytes at offset 114, 3 left"
	if r.disagreements != 1 || len(r.first) != 1 || !strings.HasPrefix(r.first[0], want) {
		t.Errorf("disagreements %d, want only %q:\n%s", r.disagreements, want, strings.Join(r.first, "\n"))
	}
	if r.frames != 14 {
		t.Errorf("%d frames compared, want 14", r.frames)
	}
	for name, want := range map[string][]string{
		"kafka4.control.type":                          {"1", "0", "9", "2", "2"},
		"kafka4.control.key_rest":                      {"0909"},
		"kafka4.txn_marker.rest":                       {"0808"},
		"kafka4.control.undecoded":                     {"000000", "00000001"},
		"kafka4.record.value":                          {"01", "05", "0505"},
		"kafka4.leader_change_message.voters.voter_id": {"2"},
		"kafka4.undecoded":                             {"000000"},
	} {
		if got := fieldsOf(ts, name); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
