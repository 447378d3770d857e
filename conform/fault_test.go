package conform_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/conform"
	"github.com/kwire/kwire/conform/body"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// faultBroker is a test broker that announces ranges and answers
// Metadata and ListOffsets soundly, unless fault edits the answer's frame
// (nil: close the connection instead of answering).
type faultBroker struct {
	t     *testing.T
	c     *codec.Codec
	keys  [][3]int // api key, min, max announced
	fault func(key, v int16, fr []byte) []byte
	// seen counts the requests by api key.
	seen chan int16
}

func set44(t testing.TB) *spec.Set {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func startFault(t *testing.T, keys [][3]int, fault func(key, v int16, fr []byte) []byte) string {
	b := &faultBroker{t: t, c: codec.New(set44(t)), keys: keys, fault: fault}
	return testnet.Serve(t, nil, b.serve)
}

func (b *faultBroker) serve(nc net.Conn) {
	for {
		fr, err := testnet.ReadFrame(nc, 1<<20)
		if err != nil {
			return
		}
		req, err := b.c.DecodeRequest(fr)
		if err != nil {
			b.t.Errorf("fault broker: %v", err)
			return
		}
		key, v, _ := frame.RequestAPI(fr)
		corr, _ := frame.RequestCorrelationID(fr)
		js := b.answer(req, key)
		resp := b.c.Set.Response(key)
		bt, err := codec.FromJSON([]byte(js), resp, v)
		if err != nil {
			b.t.Errorf("fault broker: %s v%d: %v", resp.Name, v, err)
			return
		}
		out, err := b.c.Encode(resp, v, codec.ResponseHeaderValue(b.c.Set.ResponseHeader(), corr), bt)
		if err != nil {
			b.t.Errorf("fault broker: %v", err)
			return
		}
		w := out.Bytes
		if key != 18 && b.fault != nil {
			if w = b.fault(key, v, slices.Clone(w)); w == nil {
				return
			}
		}
		if _, err := nc.Write(w); err != nil {
			return
		}
	}
}

// answer is the sound answer's JSON: ApiVersions with b.keys, Metadata and
// ListOffsets answering every topic and partition asked for.
func (b *faultBroker) answer(req *tree.Tree, key int16) string {
	body := req.At(req.Part(tree.Body))
	q := func(s string) string { j, _ := json.Marshal(s); return string(j) }
	switch key {
	case 18:
		var ks []string
		for _, k := range b.keys {
			ks = append(ks, fmt.Sprintf(`{"apiKey":%d,"minVersion":%d,"maxVersion":%d}`, k[0], k[1], k[2]))
		}
		return `{"errorCode":0,"apiKeys":[` + strings.Join(ks, ",") + `],"throttleTimeMs":0}`
	case 3:
		var ts []string
		topics := body.Field("Topics")
		for i := range topics.Len() {
			ts = append(ts, `{"errorCode":0,"name":`+q(topics.Elem(i).Field("Name").String())+`,"topicId":"AAAAAAAAAAAAAAAAAAAAAA","isInternal":false,"partitions":[],"topicAuthorizedOperations":0}`)
		}
		return `{"throttleTimeMs":0,"brokers":[{"nodeId":1,"host":"127.0.0.1","port":9092,"rack":null}],"clusterId":"c","controllerId":1,"topics":[` + strings.Join(ts, ",") + `]}`
	case 2:
		var ts []string
		topics := body.Field("Topics")
		for i := range topics.Len() {
			var ps []string
			parts := topics.Elem(i).Field("Partitions")
			for j := range parts.Len() {
				ps = append(ps, fmt.Sprintf(`{"partitionIndex":%d,"errorCode":0,"timestamp":-1,"offset":0,"leaderEpoch":0}`, parts.Elem(j).Field("PartitionIndex").Int()))
			}
			ts = append(ts, `{"name":`+q(topics.Elem(i).Field("Name").String())+`,"partitions":[`+strings.Join(ps, ",")+`]}`)
		}
		return `{"throttleTimeMs":0,"topics":[` + strings.Join(ts, ",") + `]}`
	}
	b.t.Errorf("fault broker: no answer for api key %d", key)
	return "{}"
}

// announced are the ranges the fault broker announces: the APIs a broker
// listener must have, Metadata only at v12 and ListOffsets only at v9.
var announced = [][3]int{{0, 3, 13}, {1, 4, 18}, {2, 9, 9}, {3, 12, 12}, {18, 0, 4}}

// bodies are the valid bodies of the fault tests: Metadata v12 of topic
// "t", ListOffsets v9 of partitions 0 and 1 of topic "t".
func bodies(m *spec.Message, v int16, _ body.Names) (*tree.Tree, error) {
	switch m.APIKey {
	case 3:
		return codec.FromJSON([]byte(`{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"t"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`), m, v)
	case 2:
		return codec.FromJSON([]byte(`{"replicaId":-1,"isolationLevel":0,"topics":[{"name":"t","partitions":[{"partitionIndex":0,"currentLeaderEpoch":-1,"timestamp":-1},{"partitionIndex":1,"currentLeaderEpoch":-1,"timestamp":-1}]}]}`), m, v)
	}
	return nil, fmt.Errorf("no body for %s", m.Name)
}

func readOnly(*spec.Message) body.Access { return body.ReadOnly }

// run runs conform against addr over the api keys given, every API
// read-only, and returns its findings.
func run(t *testing.T, addr string, random int, keys ...int16) (*conform.Report, []conform.Finding) {
	t.Helper()
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: set44(t), APIs: keys, Random: random, Seed: 1, Bodies: bodies, Access: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	var fs []conform.Finding
	for _, p := range r.Probes {
		fs = append(fs, p.Findings...)
	}
	return r, fs
}

// setSize rewrites the size prefix of fr.
func setSize(fr []byte) []byte {
	binary.BigEndian.PutUint32(fr, uint32(len(fr)-4))
	return fr
}

// TestSound: a broker that answers soundly gets no finding, also for
// random Metadata requests, and every probe passes.
func TestSound(t *testing.T) {
	addr := startFault(t, announced, nil)
	r, fs := run(t, addr, 4, 2, 3)
	if len(fs) > 0 {
		t.Fatalf("findings %v", fs)
	}
	c := r.Counts()
	// ApiVersions handshake, Metadata v12 body and 4 random, ListOffsets
	// v9 body and 4 random.
	if c.Probes != 11 || c.Pass != 11 || r.Failed() {
		t.Fatalf("counts %+v, want 11 probes all passing\n%s", c, text(t, r))
	}
}

func text(t *testing.T, r *conform.Report) string {
	var b strings.Builder
	if err := r.WriteText(&b, conform.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestPlantedFaults: each fault planted in the fault broker's answers is
// reported with its rule, path and byte offset, and nothing else is.
func TestPlantedFaults(t *testing.T) {
	// Metadata v12's sound answer to topic "t", and where its body's
	// top-level tagged-field section is (its last byte).
	c := codec.New(set44(t))
	meta := c.Set.Response(3)
	sound, err := codec.FromJSON([]byte(`{"throttleTimeMs":0,"brokers":[{"nodeId":1,"host":"127.0.0.1","port":9092,"rack":null}],"clusterId":"c","controllerId":1,"topics":[{"errorCode":0,"name":"t","topicId":"AAAAAAAAAAAAAAAAAAAAAA","isInternal":false,"partitions":[],"topicAuthorizedOperations":0}]}`), meta, 12)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Encode(meta, 12, codec.ResponseHeaderValue(c.Set.ResponseHeader(), 2), sound)
	if err != nil {
		t.Fatal(err)
	}
	size := len(out.Bytes)
	ec, err := out.Get("MetadataResponse.Topics[0].ErrorCode")
	if err != nil {
		t.Fatal(err)
	}
	errorCodeOff := int(out.Nodes[ec.Node()].Off)

	for _, tc := range []struct {
		name      string
		key       int16
		announce  [][3]int
		fault     func(key, v int16, fr []byte) []byte
		rule      string
		path      string
		offset    int
		msgSubstr string
	}{
		{"a announced then refused", 3, announced, func(int16, int16, []byte) []byte { return nil },
			"refused", "ApiVersionsResponse.ApiKeys[3]", -2, "then closed the connection to v12"},
		{"a announced then UNSUPPORTED_VERSION", 3, announced, func(_, _ int16, fr []byte) []byte {
			binary.BigEndian.PutUint16(fr[errorCodeOff:], 35)
			return fr
		}, "refused", "ApiVersionsResponse.ApiKeys[3]", -2, "then answered UNSUPPORTED_VERSION to v12"},
		{"b header v0 for v1", 3, announced, func(_, _ int16, fr []byte) []byte {
			return setSize(append(fr[:8:8], fr[9:]...)) // the header's empty tagged-field section dropped
		}, "header-version", "ResponseHeader", 8, "response header v0"},
		{"c a byte left over", 3, announced, func(_, _ int16, fr []byte) []byte {
			return setSize(append(fr, 0))
		}, "left-over", "MetadataResponse", size, "1 byte left after the body"},
		{"d a partition dropped", 2, announced, func(_, _ int16, fr []byte) []byte {
			// The answer's partitions array of topic "t": count 2 → 1 and
			// the second element cut (each is 4+2+8+8+4 bytes, v9 is
			// flexible: +1 tag byte).
			tr, err := c.DecodeResponse(fr, c.Set.Response(2), 9)
			if err != nil {
				t.Error(err)
				return fr
			}
			arr, _ := tr.Get("ListOffsetsResponse.Topics[0].Partitions")
			p1, _ := tr.Get("ListOffsetsResponse.Topics[0].Partitions[1]")
			n := tr.Nodes[p1.Node()]
			off := tr.Nodes[arr.Node()].Off
			fr[off] = 2 // compact count: 1 element
			return setSize(append(fr[:n.Off:n.Off], fr[n.Off+n.Size:]...))
		}, "unanswered", "ListOffsetsResponse.Topics[0]", -3, "partition 1 of topic \"t\" asked for is not answered"},
		{"e an undefined error code", 3, announced, func(_, _ int16, fr []byte) []byte {
			binary.BigEndian.PutUint16(fr[errorCodeOff:], 999)
			return fr
		}, "error-code", "MetadataResponse.Topics[0].ErrorCode", errorCodeOff, "error code 999 is not one Kafka defines"},
		{"f tagged fields out of order", 3, announced, func(_, _ int16, fr []byte) []byte {
			// The body's tagged-field section (its last byte, 0) becomes
			// two unknown tags, 5 then 3.
			return setSize(append(fr[:len(fr)-1], 2, 5, 0, 3, 0))
		}, "decode", "MetadataResponse._tagged_fields", size - 1 + 3, "tag 3 after tag 5: tags must be in ascending order"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := startFault(t, tc.announce, tc.fault)
			r, fs := run(t, addr, 0, tc.key)
			if len(fs) != 1 {
				t.Fatalf("%d findings, want 1: %v\n%s", len(fs), fs, text(t, r))
			}
			f := fs[0]
			want := tc.offset
			switch tc.offset {
			case -2: // the announced range's element in the ApiVersions answer
				want = apiKeyOffset(t, r, 3)
			case -3: // the answered topic's element
				want = -3
			}
			if f.Rule != tc.rule || f.Path != tc.path || (want != -3 && f.Offset != want) || !strings.Contains(f.Message, tc.msgSubstr) {
				t.Errorf("finding %s %q at %d: %q\nwant %s %q at %d: …%q…", f.Rule, f.Path, f.Offset, f.Message, tc.rule, tc.path, want, tc.msgSubstr)
			}
			if want == -3 {
				// the element's offset: read back from the response frame
				p := probeOf(r, 2)
				tr, _ := c.DecodeResponse(p.Response, c.Set.Response(2), 9)
				el, err := tr.Get(tc.path)
				if err != nil || int(tr.Nodes[el.Node()].Off) != f.Offset {
					t.Errorf("offset 0x%x, want the element's (%v)", f.Offset, err)
				}
			}
			if !r.Failed() {
				t.Error("the report does not fail")
			}
		})
	}
}

// probeOf is the body probe of api key k.
func probeOf(r *conform.Report, k int16) *conform.Probe {
	for i := range r.Probes {
		if r.Probes[i].Key == k && r.Probes[i].Kind == "body" {
			return &r.Probes[i]
		}
	}
	return nil
}

// apiKeyOffset reads the offset of api key k's element in the handshake's
// ApiVersions answer, from the probe's response bytes.
func apiKeyOffset(t *testing.T, r *conform.Report, k int16) int {
	t.Helper()
	s := set44(t)
	for _, p := range r.Probes {
		if p.Kind != "apiversions" {
			continue
		}
		tr, err := codec.New(s).DecodeResponse(p.Response, s.Response(18), p.Version)
		if err != nil {
			t.Fatal(err)
		}
		keys, _ := tr.Get("ApiVersionsResponse.ApiKeys")
		for i := range keys.Len() {
			if keys.Elem(i).Field("ApiKey").Int() == int64(k) {
				return int(tr.Nodes[keys.Elem(i).Node()].Off)
			}
		}
	}
	t.Fatal("no ApiVersions probe")
	return 0
}

// TestSafeRandom: random Fetch requests are a consumer's (ReplicaId -1)
// that wait at most 100 ms, and random Metadata requests create no topic,
// whatever the seed draws.
func TestSafeRandom(t *testing.T) {
	s := set44(t)
	var mu sync.Mutex
	var frames [][]byte
	addr := testnet.Serve(t, nil, func(nc net.Conn) {
		c := codec.New(s)
		for {
			fr, err := testnet.ReadFrame(nc, 1<<20)
			if err != nil {
				return
			}
			key, v, _ := frame.RequestAPI(fr)
			corr, _ := frame.RequestCorrelationID(fr)
			if key != 18 {
				mu.Lock()
				frames = append(frames, fr)
				mu.Unlock()
				return // close: the next probe reconnects
			}
			bt, _ := codec.FromJSON([]byte(`{"errorCode":0,"apiKeys":[{"apiKey":1,"minVersion":4,"maxVersion":18},{"apiKey":3,"minVersion":0,"maxVersion":13},{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0}`), s.Response(18), v)
			out, _ := c.Encode(s.Response(18), v, codec.ResponseHeaderValue(s.ResponseHeader(), corr), bt)
			nc.Write(out.Bytes)
		}
	})
	if _, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: s, APIs: []int16{1, 3}, Random: 5, Seed: 3, Access: readOnly,
		Bodies: func(m *spec.Message, v int16, _ body.Names) (*tree.Tree, error) {
			return nil, fmt.Errorf("random only")
		}}); err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	fetches, metas := 0, 0
	for _, fr := range frames {
		req, err := c.DecodeRequest(fr)
		if err != nil {
			t.Fatal(err)
		}
		b := req.At(req.Part(tree.Body))
		switch req.Message.APIKey {
		case 1:
			fetches++
			if id := b.Field("ReplicaId"); id.Err() == nil && id.Int() != -1 {
				t.Errorf("Fetch v%d ReplicaId %d", req.Version, id.Int())
			}
			if rs := b.Field("ReplicaState").Field("ReplicaId"); rs.Err() == nil && rs.Int() != -1 {
				t.Errorf("Fetch v%d ReplicaState.ReplicaId %d", req.Version, rs.Int())
			}
			if w := b.Field("MaxWaitMs").Int(); w > 100 {
				t.Errorf("Fetch v%d MaxWaitMs %d", req.Version, w)
			}
		case 3:
			metas++
			if a := b.Field("AllowAutoTopicCreation"); a.Err() == nil && a.Bool() {
				t.Errorf("Metadata v%d AllowAutoTopicCreation true", req.Version)
			}
		}
	}
	if fetches != 15*5 || metas != 14*5 {
		t.Errorf("%d Fetch and %d Metadata requests, want 75 and 70", fetches, metas)
	}
}

// TestUnansweredRules (ListOffsets v9; its answer: size, correlation id,
// header tags, ThrottleTimeMs, then Topics at 0x000d and its first element
// at 0x000e): a topic asked about with no partition needs no
// answer (Kafka answers per partition); one asked twice may be answered
// in two elements; a partition missing from both is a finding.
func TestUnansweredRules(t *testing.T) {
	s := set44(t)
	c := codec.New(s)
	c.Strict = true
	req := func(js string) *tree.Tree {
		m := s.Request(2)
		bt, err := codec.FromJSON([]byte(js), m, 9)
		if err != nil {
			t.Fatal(err)
		}
		rt, err := c.Encode(m, 9, codec.RequestHeaderValue(s.RequestHeader(), 2, 9, 1, "t"), bt)
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	resp := func(js string) *tree.Tree {
		m := s.Response(2)
		bt, err := codec.FromJSON([]byte(js), m, 9)
		if err != nil {
			t.Fatal(err)
		}
		rt, err := c.Encode(m, 9, codec.ResponseHeaderValue(s.ResponseHeader(), 1), bt)
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	part := func(i int) string {
		return fmt.Sprintf(`{"partitionIndex":%d,"currentLeaderEpoch":-1,"timestamp":-1}`, i)
	}
	answer := func(i int) string {
		return fmt.Sprintf(`{"partitionIndex":%d,"errorCode":0,"timestamp":-1,"offset":0,"leaderEpoch":0}`, i)
	}
	for _, tc := range []struct {
		name, req, resp string
		want            []string
	}{
		{"no partition asked", `{"replicaId":-1,"isolationLevel":0,"topics":[{"name":"a","partitions":[]}]}`, `{"throttleTimeMs":0,"topics":[]}`, nil},
		{"asked twice, answered in two", `{"replicaId":-1,"isolationLevel":0,"topics":[{"name":"a","partitions":[` + part(0) + `]},{"name":"a","partitions":[` + part(1) + `]}]}`,
			`{"throttleTimeMs":0,"topics":[{"name":"a","partitions":[` + answer(0) + `]},{"name":"a","partitions":[` + answer(1) + `]}]}`, nil},
		{"asked twice, one partition dropped", `{"replicaId":-1,"isolationLevel":0,"topics":[{"name":"a","partitions":[` + part(0) + `]},{"name":"a","partitions":[` + part(1) + `]}]}`,
			`{"throttleTimeMs":0,"topics":[{"name":"a","partitions":[` + answer(0) + `]}]}`,
			[]string{`unanswered ListOffsetsResponse.Topics[0] at 0x000e: partition 1 of topic "a" asked for is not answered`}},
		{"a topic dropped", `{"replicaId":-1,"isolationLevel":0,"topics":[{"name":"a","partitions":[` + part(0) + `]},{"name":"b","partitions":[` + part(0) + `]}]}`,
			`{"throttleTimeMs":0,"topics":[{"name":"a","partitions":[` + answer(0) + `]}]}`,
			[]string{`unanswered ListOffsetsResponse.Topics at 0x000d: topic "b" asked for is not answered`}},
	} {
		r := resp(tc.resp)
		rt, err := c.DecodeResponse(r.Bytes, s.Response(2), 9)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range conform.Judge(c, req(tc.req), rt, nil).Findings {
			got = append(got, f.Rule+" "+f.String())
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s: findings\n%s\nwant\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// TestHandshakeLeftOver: an ApiVersions answer with a byte left over ends
// the run at the handshake, with that one finding (and an error).
func TestHandshakeLeftOver(t *testing.T) {
	s := set44(t)
	c := codec.New(s)
	size := 0
	addr := testnet.Serve(t, nil, func(nc net.Conn) {
		fr, err := testnet.ReadFrame(nc, 1<<20)
		if err != nil {
			return
		}
		_, v, _ := frame.RequestAPI(fr)
		corr, _ := frame.RequestCorrelationID(fr)
		bt, _ := codec.FromJSON([]byte(`{"errorCode":0,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0}`), s.Response(18), v)
		out, _ := c.Encode(s.Response(18), v, codec.ResponseHeaderValue(s.ResponseHeader(), corr), bt)
		size = len(out.Bytes)
		nc.Write(setSize(append(out.Bytes, 7)))
		io.Copy(io.Discard, nc)
	})
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: s})
	if err == nil || r == nil || len(r.Probes) != 1 || len(r.Probes[0].Findings) != 1 {
		t.Fatalf("report %+v, error %v", r, err)
	}
	if f := r.Probes[0].Findings[0]; f.Rule != "left-over" || f.Path != "ApiVersionsResponse" || f.Offset != size {
		t.Errorf("finding %s %s, want left-over at 0x%04x", f.Rule, f, size)
	}
}
