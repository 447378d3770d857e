package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/records"
)

// offsetsTopicID is the topic id of __consumer_offsets in the internal
// topic conversation: 15 zero bytes, then 50.
const offsetsTopicID = "AAAAAAAAAAAAAAAAAAAAMg"

// coordString appends a coordinator record's string: int16 length, bytes.
func coordString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

// offsetsBatch is a batch of __consumer_offsets as the group coordinator
// writes it, encoded here by hand: offset 0, OffsetCommitKey (record type
// 1: group "g1", topic "orders", partition 0) with OffsetCommitValue v3
// (offset 42, leader epoch 7, metadata "", commit time 1700000000000);
// offset 1, GroupMetadataKey (record type 2: group "g1") with a null value
// (a tombstone: the group deleted).
func offsetsBatch() []byte {
	key1 := binary.BigEndian.AppendUint16(nil, 1)
	key1 = coordString(key1, "g1")
	key1 = coordString(key1, "orders")
	key1 = binary.BigEndian.AppendUint32(key1, 0)
	val1 := binary.BigEndian.AppendUint16(nil, 3)
	val1 = binary.BigEndian.AppendUint64(val1, 42)
	val1 = binary.BigEndian.AppendUint32(val1, 7)
	val1 = coordString(val1, "")
	val1 = binary.BigEndian.AppendUint64(val1, 1700000000000)
	key2 := coordString(binary.BigEndian.AppendUint16(nil, 2), "g1")
	return records.Batch{Timestamp: 1700000000000, Records: []records.KeyValue{{Key: key1, Value: val1}, {Key: key2}}}.Bytes()
}

// internalConversation is a client reading __consumer_offsets: Metadata
// v12 gives the topic's id (corr 1), Fetch v17 by that id (corr 2) and
// Fetch v12 by name (corr 3) are answered with offsetsBatch.
type internalConversation struct {
	mdReq, mdResp, f17Req, f17Resp, f12Req, f12Resp []byte
}

func newInternalConversation(t *testing.T) internalConversation {
	k := newKafkaFrames(t)
	recs := base64.StdEncoding.EncodeToString(offsetsBatch())
	part := `{"partition":0,"currentLeaderEpoch":-1,"fetchOffset":0,"lastFetchedEpoch":-1,"logStartOffset":-1,"partitionMaxBytes":1048576}`
	respPart := `"partitions":[{"partitionIndex":0,"errorCode":0,"highWatermark":2,"lastStableOffset":2,"logStartOffset":0,"abortedTransactions":null,"preferredReadReplica":-1,"records":"` + recs + `"}]`
	return internalConversation{
		mdReq: k.request(t, "Metadata", 12, 1, `{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"__consumer_offsets"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`),
		mdResp: k.response(t, "Metadata", 12, 1, `{"throttleTimeMs":0,"brokers":[{"nodeId":1,"host":"localhost","port":9092,"rack":null}],"clusterId":"c","controllerId":1,`+
			`"topics":[{"errorCode":0,"name":"__consumer_offsets","topicId":"`+offsetsTopicID+`","isInternal":true,"partitions":[],"topicAuthorizedOperations":-2147483648}]}`),
		f17Req:  k.request(t, "Fetch", 17, 2, `{"maxWaitMs":0,"minBytes":0,"maxBytes":1048576,"isolationLevel":0,"sessionId":0,"sessionEpoch":-1,"topics":[{"topicId":"`+offsetsTopicID+`","partitions":[`+part+`]}],"forgottenTopicsData":[],"rackId":""}`),
		f17Resp: k.response(t, "Fetch", 17, 2, `{"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{"topicId":"`+offsetsTopicID+`",`+respPart+`}]}`),
		f12Req:  k.request(t, "Fetch", 12, 3, `{"replicaId":-1,"maxWaitMs":0,"minBytes":0,"maxBytes":1048576,"isolationLevel":0,"sessionId":0,"sessionEpoch":-1,"topics":[{"topic":"__consumer_offsets","partitions":[`+part+`]}],"forgottenTopicsData":[],"rackId":""}`),
		f12Resp: k.response(t, "Fetch", 12, 3, `{"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{"topic":"__consumer_offsets",`+respPart+`}]}`),
	}
}

// capture writes the conversation as a pcap, each response 2 ms after its
// request.
func (cv internalConversation) capture(t *testing.T) string {
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 900000, pcapT0)
	c.Handshake()
	for _, x := range [][2][]byte{{cv.mdReq, cv.mdResp}, {cv.f17Req, cv.f17Resp}, {cv.f12Req, cv.f12Resp}} {
		c.Send(true, x[0], 0)
		c.T = c.T.Add(time.Millisecond)
		c.Send(false, x[1], 0)
	}
	c.Close()
	return writeCapture(t, f)
}

// treeRows are the rows of a --tree output without the tree's drawing and
// with runs of spaces made one: "offset int64 = 42 [0x00a0, 8B] The …".
func treeRows(out string) []string {
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		rows = append(rows, strings.Join(strings.Fields(strings.TrimLeft(l, " |+-")), " "))
	}
	return rows
}

// wantRows requires each of want among the rows of out, in this order.
func wantRows(t *testing.T, what, out string, want ...string) {
	t.Helper()
	rows := treeRows(out)
	k := 0
	for _, r := range rows {
		if k < len(want) && r == want[k] {
			k++
		}
	}
	if k < len(want) {
		t.Errorf("%s: no row %q (after %d of %d rows found) in:\n%s", what, want[k], k, len(want), out)
	}
}

// offsetsRows are the rows of offsetsBatch's records in a --tree output,
// the batch's first record starting at byte at of its frame.
func offsetsRows(at int) []string {
	h := func(off int) string { return fmt.Sprintf("0x%04x", at+off) }
	return []string{
		"OffsetCommitKey coordinator key v0 [" + h(5) + ", 18B] internal topic's record key, record type 1",
		"record_type int16 = 1 [" + h(5) + ", 2B] coordinator record type (the key's int16 prefix)",
		`group string = "g1" (int16 len=2) [` + h(7) + `, 4B] The consumer group id.`,
		`topic string = "orders" (int16 len=6) [` + h(11) + `, 8B] The topic name.`,
		"partition int32 = 0 [" + h(19) + ", 4B] The topic partition index.",
		"OffsetCommitValue coordinator value v3 [" + h(24) + ", 24B] internal topic's record value, version 3",
		"version int16 = 3 [" + h(24) + ", 2B] version of the coordinator record value (its int16 prefix)",
		"offset int64 = 42 [" + h(26) + ", 8B] The offset that the consumer wants to store (for this partition).",
		"leaderEpoch int32 = 7 [" + h(34) + ", 4B] The leader epoch of the last consumed record.",
		`metadata string = "" (int16 len=0) [` + h(38) + `, 2B] Any metadata the client wants to keep.`,
		"commitTimestamp int64 = 1700000000000 [" + h(40) + ", 8B] The time at which the commit was added to the log.",
		"GroupMetadataKey coordinator key v0 [" + h(54) + ", 6B] internal topic's record key, record type 2",
		`group string = "g1" (int16 len=2) [` + h(56) + `, 4B] The group id.`,
		"value varbytes = null (varint len=-1) [" + h(60) + ", 1B] deleted (null value)",
	}
}

// The first record of offsetsBatch starts at byte 0x0086 of the Fetch v17
// response (the topic by id) and at 0x0089 of the Fetch v12 one (by name:
// 19 bytes of "__consumer_offsets" with its length instead of 16 of the id).
const fetch17Record, fetch12Record = 0x0086, 0x0089

// The records of __consumer_offsets in a capture's Fetch responses are
// decoded by record type, by topic id (the id the connection's Metadata
// response gave) and by name: in the object trees (--tree) and in the page
// JSON of the JSON lines.
func TestPcapInternalTopicRecords(t *testing.T) {
	cv := newInternalConversation(t)
	p := cv.capture(t)
	out := mustRun(t, "pcap", "--tree", p)
	v17, v12, ok := strings.Cut(out, "Fetch(1) v12")
	if !ok {
		t.Fatalf("no Fetch v12 exchange:\n%s", out)
	}
	wantRows(t, "Fetch v17", v17, offsetsRows(fetch17Record)...)
	wantRows(t, "Fetch v12", v12, offsetsRows(fetch12Record)...)

	out = mustRun(t, "pcap", "--format", "json", "--tree", p)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d JSON lines:\n%s", len(lines), out)
	}
	for i, ver := range []int{17, 12} {
		wantJSONRecords(t, ver, lines[1+i])
	}
}

// wantJSONRecords requires the exchange JSON line of a Fetch of
// offsetsBatch to hold the decoded keys and values in its response's page
// tree, at their paths.
func wantJSONRecords(t *testing.T, ver int, line string) {
	t.Helper()
	var x struct {
		API      string `json:"api"`
		Version  int    `json:"version"`
		Response struct {
			Tree json.RawMessage `json:"tree"`
		} `json:"response"`
	}
	if err := json.Unmarshal([]byte(line), &x); err != nil {
		t.Fatal(err)
	}
	if x.API != "Fetch" || x.Version != ver || len(x.Response.Tree) == 0 {
		t.Fatalf("Fetch v%d: %.300s", ver, line)
	}
	var side struct {
		Tree jsonNode `json:"tree"`
	}
	var pg map[string]json.RawMessage
	if err := json.Unmarshal(x.Response.Tree, &pg); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(pg["frame"], &side); err != nil {
		t.Fatalf("page %.300s: %v", x.Response.Tree, err)
	}
	values := map[string]any{}
	side.Tree.walk(func(n *jsonNode) { values[n.Path] = n.Value })
	const rec = "FetchResponse.Responses[0].Partitions[0].Records[0].Record["
	for path, want := range map[string]any{
		rec + "0].key.OffsetCommitKey.group":               "g1",
		rec + "0].key.OffsetCommitKey.topic":               "orders",
		rec + "0].key.OffsetCommitKey.partition":           0.0,
		rec + "0].value.OffsetCommitValue.offset":          42.0,
		rec + "0].value.OffsetCommitValue.leaderEpoch":     7.0,
		rec + "0].value.OffsetCommitValue.commitTimestamp": 1700000000000.0,
		rec + "1].key.GroupMetadataKey.group":              "g1",
		rec + "1].value":                                   nil,
	} {
		if got, ok := values[path]; !ok || got != want {
			t.Errorf("Fetch v%d: %s = %v (present %v), want %v", ver, path, got, ok, want)
		}
	}
}

// jsonNode is a node of a page JSON tree.
type jsonNode struct {
	Path     string     `json:"path"`
	Value    any        `json:"value"`
	Children []jsonNode `json:"children"`
}

func (n *jsonNode) walk(fn func(*jsonNode)) {
	fn(n)
	for i := range n.Children {
		n.Children[i].walk(fn)
	}
}

// internalBroker answers the conversation's requests with its responses
// (by correlation id), as a broker holding offsetsBatch would.
func (cv internalConversation) broker(t *testing.T) string {
	answers := map[int32][]byte{1: cv.mdResp, 2: cv.f17Resp, 3: cv.f12Resp}
	return testnet.Serve(t, nil, func(conn net.Conn) {
		for {
			fr, err := testnet.ReadFrame(conn, 1<<20)
			if err != nil || len(fr) < 12 {
				return
			}
			if a := answers[int32(binary.BigEndian.Uint32(fr[8:]))]; a != nil {
				conn.Write(a)
			}
		}
	})
}

// The same through kwire proxy: text with --tree, JSON lines with --tree.
func TestProxyInternalTopicRecords(t *testing.T) {
	cv := newInternalConversation(t)
	up := cv.broker(t)
	addr, stop := proxyCommand(t, "--upstream", up, "--tree")
	talk(t, addr, cv.mdReq, cv.f17Req, cv.f12Req)
	r := stop()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	v17, v12, ok := strings.Cut(r.stdout, "Fetch(1) v12")
	if !ok {
		t.Fatalf("no Fetch v12 exchange:\n%s", r.stdout)
	}
	wantRows(t, "proxy Fetch v17", v17, offsetsRows(fetch17Record)...)
	wantRows(t, "proxy Fetch v12", v12, offsetsRows(fetch12Record)...)

	addr, stop = proxyCommand(t, "--upstream", up, "--format", "json", "--tree")
	talk(t, addr, cv.mdReq, cv.f17Req, cv.f12Req)
	r = stop()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var fetches []string
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if strings.Contains(l, `"api":"Fetch"`) {
			fetches = append(fetches, l)
		}
	}
	if len(fetches) != 2 {
		t.Fatalf("%d Fetch lines:\n%s", len(fetches), r.stdout)
	}
	for i, ver := range []int{17, 12} {
		wantJSONRecords(t, ver, fetches[i])
	}
}

// kwire call: a Fetch of __consumer_offsets by name shows its records'
// keys and values decoded by record type.
func TestCallInternalTopicRecords(t *testing.T) {
	cv := newInternalConversation(t)
	addr, _ := fullBrokerWith(t, func(out []byte) []byte {
		// The Fetch v12 response, with the call's correlation id.
		resp := append([]byte(nil), cv.f12Resp...)
		copy(resp[4:8], out[4:8])
		return resp
	})
	body := `{"replicaId":-1,"maxWaitMs":0,"minBytes":0,"maxBytes":1048576,"isolationLevel":0,"sessionId":0,"sessionEpoch":-1,"topics":[{"topic":"__consumer_offsets","partitions":[{"partition":0,"currentLeaderEpoch":-1,"fetchOffset":0,"lastFetchedEpoch":-1,"logStartOffset":-1,"partitionMaxBytes":1048576}]}],"forgottenTopicsData":[],"rackId":""}`
	r := kwire(t, "call", "--bootstrap", addr, "--version", "12", "Fetch", body)
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	wantRows(t, "call", r.stdout, offsetsRows(fetch12Record)...)
}
