package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/kafkatest"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

func TestMain(m *testing.M) { os.Exit(kafkatest.Main(m)) }

// Against a real Kafka 4.4.0 node: ApiVersions is negotiated at the highest
// version both sides have, and the response lists every api key the broker
// serves with the ranges Kafka 4.4.0 supports — checked against the specs'
// own valid versions (a broker never announces more than its specs).
func TestCallApiVersionsLive(t *testing.T) {
	c := kafkatest.Shared(t)
	r := kwire(t, "call", "--bootstrap", c.Bootstrap, "ApiVersions", "--format", "kafka")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var body struct {
		ErrorCode int16 `json:"errorCode"`
		APIKeys   []struct {
			APIKey     int16 `json:"apiKey"`
			MinVersion int16 `json:"minVersion"`
			MaxVersion int16 `json:"maxVersion"`
		} `json:"apiKeys"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &body); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if body.ErrorCode != 0 || len(body.APIKeys) < 50 {
		t.Fatalf("errorCode %d, %d api keys", body.ErrorCode, len(body.APIKeys))
	}
	set, _ := spec.Embedded("4.4.0")
	seen := map[int16]bool{}
	for _, k := range body.APIKeys {
		seen[k.APIKey] = true
		req := set.Request(k.APIKey)
		if req == nil {
			t.Errorf("api key %d announced, not in the 4.4.0 specs", k.APIKey)
			continue
		}
		// Kafka 4 announces Produce from v0 though it serves v3+ only,
		// so that old librdkafka clients still connect (KAFKA-18659); every
		// other range lies within the specs.
		// The newest version is announced unless the spec marks it unstable
		// (latestVersionUnstable).
		want := req.ValidVersions.Hi
		if req.LatestVersionUnstable {
			want--
		}
		if k.MaxVersion != want || k.MinVersion < req.ValidVersions.Lo && k.APIKey != 0 {
			t.Errorf("%s: broker v%d-%d, the specs %s", req.Name, k.MinVersion, k.MaxVersion, req.ValidVersions)
		}
		if k.APIKey == 0 && k.MinVersion != 0 {
			t.Errorf("Produce announced from v%d, want v0 (KAFKA-18659)", k.MinVersion)
		}
	}
	for _, k := range []int16{0, 1, 3, 18, 55, 60} { // Produce, Fetch, Metadata, ApiVersions, DescribeQuorum, DescribeCluster
		if !seen[k] {
			t.Errorf("api key %d missing", k)
		}
	}
	// The text view names the negotiated version: 4.4.0's highest (v5).
	r = kwire(t, "call", "--bootstrap", c.Bootstrap, "ApiVersions")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "ApiVersionsResponse v5  "+c.Bootstrap) {
		t.Fatalf("exit %d, stdout:\n%.300s", r.code, r.stdout)
	}
}

// DescribeQuorum against the combined node: leader 1, an epoch ≥ 1, the
// high watermark equal to the leader's log end offset, one voter (1) and no
// observers (the node is its own broker), and the summary says so.
func TestCallDescribeQuorumLive(t *testing.T) {
	c := kafkatest.Shared(t)
	r := kwire(t, "call", "--bootstrap", c.Bootstrap, "DescribeQuorum")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	m := regexp.MustCompile(`quorum __cluster_metadata-0: leader (\d+), epoch (\d+), high watermark (\d+)`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no quorum summary:\n%.600s", r.stdout)
	}
	epoch, _ := strconv.Atoi(m[2])
	if m[1] != "1" || epoch < 1 {
		t.Fatalf("leader %s epoch %s", m[1], m[2])
	}
	if !regexp.MustCompile(`voter \(leader\)\s+1  log end offset \d+, lag 0`).MatchString(r.stdout) {
		t.Fatalf("leader voter line missing:\n%.600s", r.stdout)
	}
	if strings.Contains(r.stdout, "observer ") {
		t.Fatalf("observers listed for a single combined node:\n%.600s", r.stdout)
	}
	// The same answer as converter JSON.
	r = kwire(t, "call", "--bootstrap", c.Bootstrap, "DescribeQuorum", "--format", "kafka")
	var q quorumBody
	if err := json.Unmarshal([]byte(r.stdout), &q); err != nil || len(q.Topics) != 1 || len(q.Topics[0].Partitions) != 1 {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	p := q.Topics[0].Partitions[0]
	if p.LeaderID != 1 || len(p.CurrentVoters) != 1 || p.CurrentVoters[0].ReplicaID != 1 || p.HighWatermark <= 0 {
		t.Fatalf("%+v", p)
	}
}

// A pinned version is sent as given: Metadata v1 comes back as v1; Fetch v3
// (from the 3.9 specs), which Kafka 4 no longer serves (KIP-896), gets a note before sending and
// the broker closes the connection, which is one line and exit 1.
func TestCallPinnedVersionLive(t *testing.T) {
	c := kafkatest.Shared(t)
	r := kwire(t, "call", "--bootstrap", c.Bootstrap, "Metadata", "--version", "1")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "MetadataResponse v1  ") || !strings.Contains(r.stdout, "ControllerId") {
		t.Fatalf("exit %d: %s\n%.300s", r.code, r.stderr, r.stdout)
	}
	// The 3.9 specs' ApiVersionsRequest has no ClusterId (KIP-1242): the
	// default body must not name it; 3.9's highest version is 4.
	r = kwire(t, "--kafka", "3.9", "call", "--bootstrap", c.Bootstrap, "ApiVersions")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "ApiVersionsResponse v4  ") {
		t.Fatalf("3.9 ApiVersions: exit %d: %s\n%.200s", r.code, r.stderr, r.stdout)
	}
	r = kwire(t, "--kafka", "3.9", "call", "--bootstrap", c.Bootstrap, "Fetch", "--version", "3", `{"replicaId":-1,"maxWaitMs":0,"minBytes":0,"maxBytes":1024,"topics":[]}`)
	if r.code != 1 || !strings.Contains(r.stderr, "sending v3 anyway") || !strings.Contains(r.stderr, "closed the connection") {
		t.Fatalf("exit %d: %q", r.code, r.stderr)
	}
}

// Connection errors and timeouts are one clear line and exit 1.
func TestCallErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	r := kwire(t, "call", "--bootstrap", addr, "ApiVersions")
	if r.code != 1 || !strings.Contains(r.stderr, "connection refused") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("refused: exit %d, stderr %q", r.code, r.stderr)
	}

	// A server that accepts and never answers.
	l, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	start := time.Now()
	r = kwire(t, "call", "--timeout", "300ms", "--bootstrap", l.Addr().String(), "ApiVersions")
	if r.code != 1 || !strings.Contains(r.stderr, "timed out") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("silent server: exit %d, stderr %q", r.code, r.stderr)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("--timeout 300ms took %v", el)
	}

	// A server that answers garbage: a size prefix of TLS bytes (case C19).
	l2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	go func() {
		c, err := l2.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 512)
		c.Read(buf)
		c.Write([]byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28})
		time.Sleep(200 * time.Millisecond)
	}()
	r = kwire(t, "call", "--bootstrap", l2.Addr().String(), "ApiVersions")
	if r.code != 1 || !strings.Contains(r.stderr, "352518912") {
		t.Fatalf("TLS answer: exit %d, stderr %q", r.code, r.stderr)
	}

	// Usage and body errors name what is wrong.
	if r := kwire(t, "call", "--bootstrap", addr, "NoSuchApi"); r.code != 1 || !strings.Contains(r.stderr, "NoSuchApi") {
		t.Fatalf("unknown api: exit %d %q", r.code, r.stderr)
	}
	if r := kwire(t, "call", "--timeout", "0s", "--bootstrap", addr, "ApiVersions"); r.code != 2 || !strings.Contains(r.stderr, "--timeout") {
		t.Fatalf("--timeout 0s: exit %d %q", r.code, r.stderr)
	}
	if r := kwire(t, "call", "ApiVersions"); r.code != 2 {
		t.Fatalf("missing --bootstrap: exit %d %q", r.code, r.stderr)
	}
}

// fullBroker answers ApiVersions with every api key of the embedded
// release at its valid versions, and any other request with the smallest
// response at the request's version; it sends each request it decoded
// (ApiVersions aside) on the channel.
func fullBroker(t *testing.T) (string, <-chan *tree.Tree) {
	t.Helper()
	return fullBrokerWith(t, nil)
}

// fullBrokerWith is fullBroker whose responses other than ApiVersions'
// are passed through mangle first, when not nil.
func fullBrokerWith(t *testing.T, mangle func([]byte) []byte) (string, <-chan *tree.Tree) {
	t.Helper()
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(set)
	var keys []string
	for _, k := range set.APIKeys() {
		if vv := set.Request(k).ValidVersions; !vv.Empty() {
			keys = append(keys, fmt.Sprintf(`{"apiKey":%d,"minVersion":%d,"maxVersion":%d}`, k, vv.Lo, vv.Hi))
		}
	}
	versions := `{"errorCode":0,"apiKeys":[` + strings.Join(keys, ",") + `],"throttleTimeMs":0}`
	got := make(chan *tree.Tree, 8)
	addr := testnet.Serve(t, nil, func(conn net.Conn) {
		for {
			fr, err := testnet.ReadFrame(conn, math.MaxInt32)
			if err != nil {
				return
			}
			tr, err := c.DecodeRequest(fr)
			if err != nil {
				return
			}
			body := ""
			if tr.Message.APIKey == 18 {
				body = versions
			} else {
				got <- tr
			}
			out := frameOf(t, c, tr.Message.BaseName(), false, tr.Version, int32(binary.BigEndian.Uint32(fr[8:])), body)
			if mangle != nil && tr.Message.APIKey != 18 {
				out = mangle(out)
			}
			conn.Write(out)
		}
	})
	return addr, got
}

// Without a body, call sends the smallest instance of the request at the
// negotiated version (and says so), except where that would not be
// answered (Produce: acks 0) or would act on node 0 (refused, exit 2).
func TestCallWithoutABodySendsTheSmallestInstance(t *testing.T) {
	addr, got := fullBroker(t)
	r := kwire(t, "call", "--bootstrap", addr, "DescribeGroups")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "DescribeGroupsResponse v6  "+addr) {
		t.Fatalf("exit %d, stderr %q, stdout:\n%.300s", r.code, r.stderr, r.stdout)
	}
	if want := "kwire: note: no body given: sending the smallest DescribeGroupsRequest v6 (kwire show DescribeGroups --version 6 --request --format kafka)\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	sent := <-got
	body, _, err := codec.ConverterJSON(nil, sent, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := mustRun(t, "show", "DescribeGroups", "--version", "6", "--request", "--format", "kafka"); string(body)+"\n" != want {
		t.Errorf("sent %s, want the smallest instance %s", body, want)
	}

	r = kwire(t, "call", "--bootstrap", addr, "Produce")
	if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, "ProduceResponse v13  ") {
		t.Fatalf("Produce: exit %d, stderr %q, stdout:\n%.300s", r.code, r.stderr, r.stdout)
	}
	sent = <-got
	body, _, _ = codec.ConverterJSON(nil, sent, nil)
	if want := `{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[]}`; string(body) != want {
		t.Errorf("Produce sent %s, want %s", body, want)
	}

	r = kwire(t, "call", "--bootstrap", addr, "UnregisterBroker")
	if want := "kwire: UnregisterBrokerRequest needs a body: its smallest instance (brokerId 0) asks to unregister broker 0 (kwire show UnregisterBroker --request --format kafka prints a template)\n"; r.code != 2 || r.stderr != want {
		t.Errorf("UnregisterBroker: exit %d, stderr %q, want 2 and %q", r.code, r.stderr, want)
	}
	select {
	case tr := <-got:
		t.Errorf("%s sent", tr.Message.Name)
	default:
	}
}

// quorumBody is the part of DescribeQuorumResponse the live test reads
// from the converter JSON.
type quorumBody struct {
	Topics []struct {
		TopicName  string `json:"topicName"`
		Partitions []struct {
			PartitionIndex int32          `json:"partitionIndex"`
			ErrorCode      int16          `json:"errorCode"`
			LeaderID       int32          `json:"leaderId"`
			LeaderEpoch    int32          `json:"leaderEpoch"`
			HighWatermark  int64          `json:"highWatermark"`
			CurrentVoters  []quorumMember `json:"currentVoters"`
			Observers      []quorumMember `json:"observers"`
		} `json:"partitions"`
	} `json:"topics"`
}

type quorumMember struct {
	ReplicaID             int32 `json:"replicaId"`
	LogEndOffset          int64 `json:"logEndOffset"`
	LastFetchTimestamp    int64 `json:"lastFetchTimestamp"`
	LastCaughtUpTimestamp int64 `json:"lastCaughtUpTimestamp"`
}

// A response that does not decode: the partial tree on standard output and
// the error once, on standard error, in the text and page formats.
func TestCallResponseThatDoesNotDecode(t *testing.T) {
	// The last byte of the body (its tagged fields) cut off, the size
	// prefix made to agree.
	addr, got := fullBrokerWith(t, func(b []byte) []byte {
		b = b[:len(b)-1]
		binary.BigEndian.PutUint32(b, uint32(len(b)-4))
		return b
	})
	const want = ")\nkwire: VoteResponse._tagged_fields at 0x000c: truncated uvarint: need 1 byte, have 0\n"
	for _, format := range []string{"text", "page"} {
		r := kwire(t, "call", "--bootstrap", addr, "Vote", "--format", format)
		<-got
		if r.code != 1 || !strings.HasSuffix(r.stderr, want) || strings.Count(r.stderr, "\n") != 2 ||
			!strings.Contains(r.stdout, "\n        +-- length      uvarint      = 1 (compact, n+1)  [0x000b, 1B]   no elements follow\n") ||
			strings.Contains(r.stdout, "truncated uvarint") {
			t.Errorf("--format %s: exit %d, stderr %q, stdout:\n%q", format, r.code, r.stderr, r.stdout)
		}
	}
}
