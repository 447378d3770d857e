package conform_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/conform"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// editKfake starts a one-broker kfake whose listener passes every
// response frame through edit (with the api key and version of the request
// it answers; the frame as sent when edit returns it unchanged). The
// broker advertises the same listener, so every connection a scenario
// makes is edited.
func editKfake(t *testing.T, edit func(key, v int16, fr []byte) []byte, opts ...kfake.Opt) (*kfake.Cluster, string) {
	t.Helper()
	listen := kfake.ListenFn(func(network, addr string) (net.Listener, error) {
		ln, err := net.Listen(network, addr)
		if err != nil {
			return nil, err
		}
		return &editListener{Listener: ln, edit: edit}, nil
	})
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), listen}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, c.ListenAddrs()[0]
}

type editListener struct {
	net.Listener
	edit func(key, v int16, fr []byte) []byte
}

func (l *editListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &editConn{Conn: c, edit: l.edit, inflight: map[int32][2]int16{}}, nil
}

// editConn learns the api key and version of each request read (by
// correlation id) and edits each whole response frame written.
type editConn struct {
	net.Conn
	edit       func(key, v int16, fr []byte) []byte
	mu         sync.Mutex
	rbuf, wbuf []byte
	inflight   map[int32][2]int16
}

func (c *editConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rbuf = append(c.rbuf, p[:n]...)
	for len(c.rbuf) >= 4 {
		size := int(binary.BigEndian.Uint32(c.rbuf))
		if len(c.rbuf) < 4+size {
			break
		}
		fr := c.rbuf[:4+size]
		key, v, _ := frame.RequestAPI(fr)
		corr, _ := frame.RequestCorrelationID(fr)
		c.inflight[corr] = [2]int16{key, v}
		c.rbuf = slices.Clone(c.rbuf[4+size:])
	}
	return n, err
}

func (c *editConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wbuf = append(c.wbuf, p...)
	for len(c.wbuf) >= 8 {
		size := int(binary.BigEndian.Uint32(c.wbuf))
		if len(c.wbuf) < 4+size {
			break
		}
		fr := slices.Clone(c.wbuf[:4+size])
		c.wbuf = c.wbuf[4+size:]
		corr := int32(binary.BigEndian.Uint32(fr[4:]))
		kv := c.inflight[corr]
		delete(c.inflight, corr)
		if out := c.edit(kv[0], kv[1], fr); out != nil {
			if _, err := c.Conn.Write(out); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}

// editJSON decodes response frame fr (api key key, version v), lets fn
// edit its body as Kafka's converter JSON, and encodes it again.
func editJSON(t *testing.T, key, v int16, fr []byte, fn func(body map[string]any)) []byte {
	c := codec.New(set44(t))
	m := c.Set.Response(key)
	tr, err := c.DecodeResponse(fr, m, v)
	if err != nil {
		t.Errorf("edit: %v", err)
		return fr
	}
	js, err := codec.ToJSON(nil, tr, tr.Part(tree.Body), m, v, codec.ConverterOptions)
	if err != nil {
		t.Errorf("edit: %v", err)
		return fr
	}
	var body map[string]any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber() // int64s (producer ids) whole
	if err := dec.Decode(&body); err != nil {
		t.Errorf("edit: %v", err)
		return fr
	}
	fn(body)
	js, _ = json.Marshal(body)
	bt, err := codec.FromJSON(js, m, v)
	if err != nil {
		t.Errorf("edit: %v", err)
		return fr
	}
	out, err := c.Encode(m, v, codec.ResponseHeaderValue(c.Set.ResponseHeader(), int32(binary.BigEndian.Uint32(fr[4:]))), bt)
	if err != nil {
		t.Errorf("edit: %v", err)
		return fr
	}
	return out.Bytes
}

// eachFetchPartition calls fn with every partition of a Fetch response's
// JSON body.
func eachFetchPartition(body map[string]any, fn func(p map[string]any)) {
	rs, _ := body["responses"].([]any)
	for _, r := range rs {
		ps, _ := r.(map[string]any)["partitions"].([]any)
		for _, p := range ps {
			fn(p.(map[string]any))
		}
	}
}

// editBatches rewrites the records of partition JSON p batch by batch:
// fn returns a batch's bytes as sent (nil: left out).
func editBatches(p map[string]any, fn func(b []byte) []byte) {
	s, _ := p["records"].(string)
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(data) == 0 {
		return
	}
	var out []byte
	for len(data) >= 12 {
		n := 12 + int(binary.BigEndian.Uint32(data[8:]))
		if n > len(data) {
			break
		}
		out = append(out, fn(slices.Clone(data[:n]))...)
		data = data[n:]
	}
	p["records"] = base64.StdEncoding.EncodeToString(out)
}

// runScenario runs one mutating scenario against addr and returns its
// steps "API outcome (note)" and its findings.
func runScenario(t *testing.T, addr, name string) (steps, findings []string, r *conform.Report) {
	t.Helper()
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: set44(t), Mutate: true, Scenarios: []string{name}, APIs: []int16{18}, Prefix: "kwire-conform-fault", Seed: 1,
		Client: client.Options{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Probes {
		if p.Kind != "scenario" {
			continue
		}
		steps = append(steps, stepText(p))
		for _, f := range p.Findings {
			findings = append(findings, p.Name()+": "+f.String())
		}
	}
	return steps, findings, r
}

// producerRE matches a producer id in a finding (kfake's vary).
var producerRE = regexp.MustCompile(`producer -?[0-9]+`)

// TestTransactionsPlantedFaults: a kfake whose Fetch answers leave out
// the control batches (the COMMIT and ABORT markers) fails the
// read_uncommitted step only; one whose answers list no aborted
// transaction fails the read_committed step only, at AbortedTransactions.
func TestTransactionsPlantedFaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(p map[string]any)
		want []string
	}{
		{"markers dropped", func(p map[string]any) {
			editBatches(p, func(b []byte) []byte {
				if records.Attributes(binary.BigEndian.Uint16(b[21:])).Control() {
					return nil
				}
				return b
			})
		}, []string{"Fetch v18 scenario 13: FetchResponse.Responses[0].Partitions[0].Records at 0x0048: Fetch (read_uncommitted) of kwire-conform-fault-transactions: 2 batches, want 4 (the committed batch, the COMMIT marker, the aborted batch, the ABORT marker)"}},
		{"aborted transactions dropped", func(p map[string]any) {
			p["abortedTransactions"] = nil
		}, []string{
			"Fetch v18 scenario 14: FetchResponse.Responses[0].Partitions[0].AbortedTransactions at 0x0043: Fetch (read_committed) of kwire-conform-fault-transactions: aborted transactions null, want one: producer P from offset 4",
			"Fetch v18 scenario 14: FetchResponse.Responses[0].Partitions[0].Records at 0x0048: Fetch (read_committed) of kwire-conform-fault-transactions: the records a consumer shows are at offsets [0 1 2 4 5 6], want [0 1 2] (the committed transaction's)",
		}},
	} {
		_, addr := editKfake(t, func(key, v int16, fr []byte) []byte {
			if key != 1 {
				return fr
			}
			return editJSON(t, key, v, fr, func(body map[string]any) { eachFetchPartition(body, tc.edit) })
		})
		_, findings, _ := runScenario(t, addr, conform.Transactions)
		for i := range findings {
			findings[i] = producerRE.ReplaceAllString(findings[i], "producer P")
		}
		if got, want := strings.Join(findings, "\n"), strings.Join(tc.want, "\n"); got != want {
			t.Errorf("%s: findings\n%s\nwant\n%s", tc.name, got, want)
		}
	}
}

// TestLifecyclePlantedFault: a kfake whose Fetch answers carry the gzip
// batch with another gzip header (the OS byte changed, the CRC made good:
// the same records, other bytes) fails the Fetch step at that batch only.
// A kfake that refuses zstd (UNSUPPORTED_COMPRESSION_TYPE) is a target
// that does not accept the codec: the step is a kafka-error, and the rest
// of the scenario goes on without the zstd batch.
func TestLifecyclePlantedFault(t *testing.T) {
	_, addr := editKfake(t, func(key, v int16, fr []byte) []byte {
		if key != 1 {
			return fr
		}
		return editJSON(t, key, v, fr, func(body map[string]any) {
			eachFetchPartition(body, func(p map[string]any) {
				editBatches(p, func(b []byte) []byte {
					if records.Attributes(binary.BigEndian.Uint16(b[21:])).Compression() == records.CompressionGzip {
						b[61+9] ^= 0xff // the gzip header's OS byte
						binary.BigEndian.PutUint32(b[17:], codec.CRC32C(b[21:]))
					}
					return b
				})
			})
		})
	})
	_, findings, _ := runScenario(t, addr, conform.Lifecycle)
	want := "Fetch v18 scenario 7: FetchResponse.Responses[0].Partitions[0].Records[1] at 0x00ef: "
	if len(findings) != 1 || !strings.HasPrefix(findings[0], want) || !strings.HasSuffix(findings[0], "Fetch of kwire-conform-fault-lifecycle: batch 1 (gzip) is not the batch produced at base offset 3 (152 bytes, produced 152)") {
		t.Errorf("findings %q, want one at the gzip batch", findings)
	}

	c, addr := editKfake(t, func(_, _ int16, fr []byte) []byte { return fr })
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Err: kerr.UnsupportedCompressionType, Count: -1, When: func(r kmsg.Request) bool {
		for _, td := range r.(*kmsg.ProduceRequest).Topics {
			for _, pd := range td.Partitions {
				if len(pd.Records) > 22 && records.Attributes(binary.BigEndian.Uint16(pd.Records[21:])).Compression() == records.CompressionZstd {
					return true
				}
			}
		}
		return false
	}})
	steps, findings, _ := runScenario(t, addr, conform.Lifecycle)
	if got, want := strings.Join(steps, ", "), "CreateTopics pass, Metadata pass, Produce pass (uncompressed), Produce pass (gzip), Produce pass (snappy), Produce pass (lz4), Produce kafka-error (zstd not accepted), Fetch pass, ListOffsets pass, DeleteTopics pass"; got != want || len(findings) > 0 {
		t.Errorf("zstd refused: steps %s\nwant %s\nfindings %q", got, want, findings)
	}
}

// TestGroupsPlantedFault: a kfake that answers the classic Heartbeat
// REBALANCE_IN_PROGRESS fails that step only; the member then leaves, so
// that the group is deleted at the end all the same. One that refuses the
// KIP-848 leave once fails that step only, and the member leaves again.
func TestGroupsPlantedFault(t *testing.T) {
	c, addr := editKfake(t, func(_, _ int16, fr []byte) []byte { return fr })
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Heartbeat}, Err: kerr.RebalanceInProgress, Count: -1})
	steps, findings, r := runScenario(t, addr, conform.Groups)
	if got, want := strings.Join(steps, ", "), "CreateTopics pass, Metadata pass, FindCoordinator pass, JoinGroup pass (MEMBER_ID_REQUIRED, as expected), JoinGroup pass, SyncGroup pass, Heartbeat finding, LeaveGroup pass, DeleteTopics pass"; got != want {
		t.Errorf("steps %s\nwant %s", got, want)
	}
	if len(findings) != 1 || !strings.HasSuffix(findings[0], "Heartbeat of kwire-conform-fault-classic: error REBALANCE_IN_PROGRESS, want NONE") {
		t.Errorf("findings %q", findings)
	}
	if !slices.Contains(r.Deleted, "group kwire-conform-fault-classic") || len(r.Cleanup) > 0 {
		t.Errorf("deleted %q, cleanup %q", r.Deleted, r.Cleanup)
	}

	// KIP-848: the first leave (member epoch -1) refused; the member
	// leaves again as a last step, and the group is deleted.
	c, addr = editKfake(t, func(_, _ int16, fr []byte) []byte { return fr })
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ConsumerGroupHeartbeat}, Err: kerr.UnknownServerError, When: func(r kmsg.Request) bool {
		return r.(*kmsg.ConsumerGroupHeartbeatRequest).MemberEpoch == -1
	}})
	steps, findings, r = runScenario(t, addr, conform.Groups)
	if got, want := strings.Join(steps[len(steps)-4:], ", "), "ConsumerGroupHeartbeat pass (join), ConsumerGroupHeartbeat finding (leave), ConsumerGroupHeartbeat pass (leave after the failure), DeleteTopics pass"; got != want {
		t.Errorf("steps %s\nwant %s", got, want)
	}
	if len(findings) != 2 || !strings.HasSuffix(findings[0], "ConsumerGroupHeartbeat leaving kwire-conform-fault-consumer (member epoch -1): error UNKNOWN_SERVER_ERROR, want NONE") ||
		!strings.HasSuffix(findings[1], "ConsumerGroupHeartbeatResponse.MemberEpoch at 0x0011: ConsumerGroupHeartbeat leaving kwire-conform-fault-consumer: member epoch 0, want -1") {
		t.Errorf("findings %q", findings)
	}
	if !slices.Contains(r.Deleted, "group kwire-conform-fault-consumer") || len(r.Cleanup) > 0 {
		t.Errorf("deleted %q, cleanup %q", r.Deleted, r.Cleanup)
	}
}

// TestInterruptedGroupsLeave: a run cancelled (Ctrl-C) while a classic
// member is in its group still has the member leave, so that the group is
// deleted at the end with the topic.
func TestInterruptedGroupsLeave(t *testing.T) {
	addr := startKfake(t)
	s := set44(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := conform.Run(ctx, conform.Options{Bootstrap: addr, Set: s, Mutate: true, Scenarios: []string{conform.Groups}, APIs: []int16{18}, Prefix: "kwire-conform-int",
		Client: client.Options{Timeout: 5 * time.Second},
		OnProbe: func(p *conform.Probe) {
			if p.API == "SyncGroup" {
				cancel()
			}
		}})
	if err == nil {
		t.Fatal("no error from a cancelled run")
	}
	var steps []string
	for _, p := range r.Probes {
		if p.Kind == "scenario" {
			steps = append(steps, p.API+" "+p.Outcome.String())
		}
	}
	if got := strings.Join(steps, ", "); !strings.Contains(got, "SyncGroup pass, Heartbeat not-sent, LeaveGroup pass") {
		t.Errorf("steps %s", got)
	}
	if !slices.Contains(r.Deleted, "group kwire-conform-int-classic") || !slices.Contains(r.Deleted, "topic kwire-conform-int-groups") || len(r.Cleanup) > 0 {
		t.Errorf("deleted %q, cleanup %q", r.Deleted, r.Cleanup)
	}
	if names := gone(t, s, addr, "kwire-conform-int"); strings.Contains(names, "kwire-conform-int") {
		t.Errorf("topics after the run: %s", names)
	}
}
