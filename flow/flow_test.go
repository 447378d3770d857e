package flow

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

const metadataV12 = `{"throttleTimeMs":0,"brokers":[{"nodeId":1,"host":"broker1","port":9092,"rack":null}],"clusterId":"c","controllerId":1,"topics":[{"errorCode":3,"name":"missing","topicId":"AAAAAAAAAAAAAAAAAAAAAA","isInternal":false,"partitions":[],"topicAuthorizedOperations":-2147483648}]}`

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// recorder collects a Conn's events.
type recorder struct {
	ex   []*Exchange
	pr   []*Problem
	all  []Event
	conn *Conn
}

func newConn(o Options) *recorder {
	r := &recorder{}
	if o.Codec == nil {
		o.Codec = codec.New(testSet)
	}
	r.conn = New(o, func(e Event) {
		r.all = append(r.all, e)
		switch e := e.(type) {
		case *Exchange:
			r.ex = append(r.ex, e)
		case *Problem:
			r.pr = append(r.pr, e)
		}
	})
	return r
}

func (r *recorder) problems(k Kind) []*Problem {
	var out []*Problem
	for _, p := range r.pr {
		if p.Kind == k {
			out = append(out, p)
		}
	}
	return out
}

// feed gives b to direction d in chunks of the given sizes (the last one
// repeated), all at time at.
func feed(c *Conn, d Dir, b []byte, at time.Time, chunk int) {
	for len(b) > 0 {
		n := min(chunk, len(b))
		c.Data(d, b[:n], at)
		b = b[n:]
	}
}

func TestExchangesInAnyChunking(t *testing.T) {
	c := codec.New(testSet)
	req1 := reqFrame(t, c, "ApiVersions", 3, 1, "cli", "")
	resp1 := respFrame(t, c, "ApiVersions", 3, 1, "")
	req2 := reqFrame(t, c, "Metadata", 12, 7, "cli", `{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"missing"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`)
	resp2 := respFrame(t, c, "Metadata", 12, 7, metadataV12)
	reqs := append(append([]byte{}, req1...), req2...)
	for _, chunk := range []int{1, 3, 4, 5, 17, 1 << 20} {
		r := newConn(Options{KeepTrees: chunk == 5})
		feed(r.conn, ClientToServer, req1, t0, chunk)
		feed(r.conn, ServerToClient, resp1, t0.Add(2*time.Millisecond), chunk)
		feed(r.conn, ClientToServer, req2, t0.Add(3*time.Millisecond), chunk)
		feed(r.conn, ServerToClient, resp2, t0.Add(8*time.Millisecond), chunk)
		r.conn.Close(t0.Add(time.Second))
		if len(r.pr) != 0 || len(r.ex) != 2 {
			t.Fatalf("chunk %d: %d exchanges, problems %v", chunk, len(r.ex), r.pr)
		}
		x := r.ex[0]
		if x.API != "ApiVersions" || x.APIKey != 18 || x.Version != 3 || x.CorrelationID != 1 || x.ClientID != "cli" {
			t.Errorf("chunk %d: exchange 0 = %+v", chunk, x)
		}
		if x.Request.Offset != 0 || x.Request.Size != len(req1) || x.Response.Offset != 0 || x.Response.Size != len(resp1) {
			t.Errorf("chunk %d: frames %+v %+v", chunk, x.Request, x.Response)
		}
		if x.Request.HeaderVersion != 2 || x.Response.HeaderVersion != 0 {
			t.Errorf("chunk %d: header versions %d %d, want 2 0 (ApiVersionsResponse: v0, KIP-511)", chunk, x.Request.HeaderVersion, x.Response.HeaderVersion)
		}
		if x.Latency() != 2*time.Millisecond || len(x.Errors) != 0 {
			t.Errorf("chunk %d: latency %v errors %v", chunk, x.Latency(), x.Errors)
		}
		x = r.ex[1]
		if x.API != "Metadata" || x.APIKey != 3 || x.Version != 12 || x.CorrelationID != 7 {
			t.Errorf("chunk %d: exchange 1 = %+v", chunk, x)
		}
		if x.Request.Offset != int64(len(req1)) || x.Response.Offset != int64(len(resp1)) || x.Response.HeaderVersion != 1 {
			t.Errorf("chunk %d: frames %+v %+v", chunk, x.Request, x.Response)
		}
		if x.Latency() != 5*time.Millisecond {
			t.Errorf("chunk %d: latency %v", chunk, x.Latency())
		}
		want := []ErrorCode{{Code: 3, Name: "UNKNOWN_TOPIC_OR_PARTITION", Path: "MetadataResponse.Topics[0].ErrorCode"}}
		if len(x.Errors) != 1 || x.Errors[0] != want[0] {
			t.Errorf("chunk %d: errors %+v, want %+v", chunk, x.Errors, want)
		}
		if (x.Response.Tree != nil) != (chunk == 5) {
			t.Errorf("chunk %d: tree kept = %v", chunk, x.Response.Tree != nil)
		}
		if chunk == 5 && !bytes.Equal(x.Response.Tree.Bytes, resp2) {
			t.Errorf("kept tree bytes differ from the frame")
		}
		st := r.conn.Stats()
		if st.Bytes[0] != int64(len(reqs)) || st.Frames[0] != 2 || st.Frames[1] != 2 || st.Skipped != [2]int64{} {
			t.Errorf("chunk %d: stats %+v", chunk, st)
		}
	}
}

// C19: a TLS record read as a size prefix is over the limit; it is
// reported before anything is allocated and the direction is labelled.
func TestTLSIsNotKafka(t *testing.T) {
	c19 := []byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28}
	for _, chunk := range []int{1, 2, 7} {
		r := newConn(Options{})
		feed(r.conn, ClientToServer, c19, t0, chunk)
		r.conn.Data(ClientToServer, bytes.Repeat([]byte{0x17, 3, 3, 0, 0x20}, 100), t0)
		r.conn.Close(t0)
		if len(r.pr) != 1 || len(r.ex) != 0 {
			t.Fatalf("chunk %d: problems %v exchanges %v", chunk, r.pr, r.ex)
		}
		p := r.pr[0]
		if p.Kind != NotKafka || p.Size != 352518912 || p.Protocol != "TLS" || p.Offset != 0 || p.Dir != ClientToServer || p.Limit != codec.DefaultMaxFrame {
			t.Errorf("chunk %d: %+v", chunk, p)
		}
		if s := p.String(); !strings.Contains(s, "352518912") || !strings.Contains(s, "TLS") {
			t.Errorf("chunk %d: %s", chunk, s)
		}
		st := r.conn.Stats()
		if st.NotKafka[0] != "TLS" || st.Skipped[0] != 507 || st.Bytes[0] != 507 {
			t.Errorf("chunk %d: stats %+v", chunk, st)
		}
	}
	// No buffer of the claimed size: feeding the record allocates the
	// Problem event and nothing that grows with the size.
	var ms0, ms1 runtime.MemStats
	var n int
	runtime.ReadMemStats(&ms0)
	allocs := testing.AllocsPerRun(100, func() {
		cn := New(Options{Codec: codec.New(testSet)}, func(Event) { n++ })
		cn.Data(ClientToServer, c19, t0)
	})
	runtime.ReadMemStats(&ms1)
	if n != 101 {
		t.Errorf("%d problems, want 101", n)
	}
	if per := (ms1.TotalAlloc - ms0.TotalAlloc) / 101; per > 16<<10 {
		t.Errorf("%d bytes allocated per Conn fed the TLS record", per)
	}
	t.Logf("%.0f allocations per run (a Conn and its Problem)", allocs)
}

func TestOverLimitFrameIsSkippedInStep(t *testing.T) {
	c := codec.New(testSet)
	c.MaxFrame = 1000
	big := make([]byte, 4+5000)
	binary.BigEndian.PutUint32(big, 5000)
	req := reqFrame(t, c, "ApiVersions", 3, 9, "x", "")
	resp := respFrame(t, c, "ApiVersions", 3, 9, "")
	for _, chunk := range []int{1, 100, 1 << 20} {
		r := newConn(Options{Codec: c})
		feed(r.conn, ClientToServer, append(append([]byte{}, big...), req...), t0, chunk)
		feed(r.conn, ServerToClient, resp, t0, chunk)
		r.conn.Close(t0)
		if len(r.pr) != 1 || r.pr[0].Kind != FrameTooLarge || r.pr[0].Size != 5000 || r.pr[0].Limit != 1000 || r.pr[0].Offset != 0 {
			t.Fatalf("chunk %d: problems %v", chunk, r.pr)
		}
		if len(r.ex) != 1 || r.ex[0].CorrelationID != 9 || r.ex[0].Request.Offset != 5004 || r.ex[0].Response == nil {
			t.Fatalf("chunk %d: exchanges %+v", chunk, r.ex)
		}
		if st := r.conn.Stats(); st.Skipped[0] != 5004 {
			t.Errorf("chunk %d: skipped %d", chunk, st.Skipped[0])
		}
	}
}

func TestTruncatedAtEnd(t *testing.T) {
	c := codec.New(testSet)
	req := reqFrame(t, c, "ApiVersions", 3, 1, "cli", "")
	r := newConn(Options{})
	r.conn.Data(ClientToServer, req[:10], t0)
	r.conn.Close(t0)
	tr := r.problems(Truncated)
	if len(tr) != 1 || tr[0].Size != int64(len(req)-4) || tr[0].Have != 6 || tr[0].Offset != 0 {
		t.Fatalf("problems %v", r.pr)
	}
	// A stream that ends inside the size prefix.
	r = newConn(Options{})
	r.conn.Data(ServerToClient, []byte{0, 0}, t0)
	r.conn.Close(t0)
	if tr := r.problems(Truncated); len(tr) != 1 || tr[0].Have != 2 || tr[0].Size != -1 ||
		tr[0].String() != "s2c at stream offset 0: the stream ends inside a size prefix (2 of 4 bytes)" {
		t.Fatalf("problems %v", r.pr)
	}
	// A whole frame and 1 to 3 bytes more: the next size prefix is cut.
	for extra := 1; extra <= 3; extra++ {
		r = newConn(Options{})
		r.conn.Data(ClientToServer, append(append([]byte{}, req...), make([]byte, extra)...), t0)
		r.conn.Close(t0)
		want := fmt.Sprintf("c2s at stream offset %d: the stream ends inside a size prefix (%d of 4 bytes)", len(req), extra)
		if tr := r.problems(Truncated); len(tr) != 1 || tr[0].Size != -1 || tr[0].Have != int64(extra) || tr[0].String() != want {
			t.Errorf("%d bytes after the frame: problems %v, want %q", extra, r.pr, want)
		}
	}
	if got := tr[0].String(); got != "c2s at stream offset 0: end of stream inside a frame: its size prefix says "+fmt.Sprint(len(req)-4)+" bytes follow, 6 arrived" {
		t.Errorf("Truncated = %q", got)
	}
}

func TestDecodeFailureNamesOffsetAndPathAndGoesOn(t *testing.T) {
	c := codec.New(testSet)
	good := reqFrame(t, c, "ApiVersions", 3, 2, "cli", "")
	bad := append([]byte{}, good...)
	bad[len(bad)-2] = 0x7f // ClientSoftwareVersion length: past the end
	binary.BigEndian.PutUint32(bad[8:], 1)
	r := newConn(Options{})
	r.conn.Data(ClientToServer, append(append([]byte{}, bad...), good...), t0)
	r.conn.Data(ServerToClient, append(respFrame(t, c, "ApiVersions", 3, 1, ""), respFrame(t, c, "ApiVersions", 3, 2, "")...), t0)
	r.conn.Close(t0)
	df := r.problems(DecodeFailed)
	if len(df) != 1 {
		t.Fatalf("problems %v", r.pr)
	}
	p := df[0]
	var we *wire.Error
	if !errors.As(p.Err, &we) || p.Path != "ApiVersionsRequest.ClientSoftwareVersion" || p.Offset != int64(we.Offset) || p.FrameOffset != 0 || p.CorrelationID != 1 || p.APIKey != 18 {
		t.Fatalf("%+v (%v)", p, p.Err)
	}
	if len(r.ex) != 2 || r.ex[0].Request.Err == nil || r.ex[0].Response == nil || r.ex[1].Request.Err != nil || r.ex[1].CorrelationID != 2 {
		t.Fatalf("exchanges %+v", r.ex)
	}
}

func TestGapInsideAFrameStaysInStep(t *testing.T) {
	c := codec.New(testSet)
	req1 := reqFrame(t, c, "ApiVersions", 3, 1, "cli", "")
	req2 := reqFrame(t, c, "ApiVersions", 3, 2, "cli", "")
	r := newConn(Options{})
	r.conn.Data(ClientToServer, req1[:16], t0)
	r.conn.Gap(ClientToServer, int64(len(req1)-16), t0)
	r.conn.Data(ClientToServer, req2, t0)
	r.conn.Data(ServerToClient, respFrame(t, c, "ApiVersions", 3, 1, ""), t0)
	r.conn.Data(ServerToClient, respFrame(t, c, "ApiVersions", 3, 2, ""), t0)
	r.conn.Close(t0)
	g := r.problems(Gap)
	if len(g) != 1 || !g[0].Lost || g[0].FrameOffset != 0 || g[0].Offset != 16 || g[0].Missing != int64(len(req1)-16) || len(r.problems(Resync)) != 0 {
		t.Fatalf("problems %v", r.pr)
	}
	// The lost request's header arrived: its response is still matched.
	if len(r.ex) != 2 || r.ex[0].CorrelationID != 1 || r.ex[0].Request.Err == nil || r.ex[0].Response == nil || r.ex[1].Request.Offset != int64(len(req1)) {
		t.Fatalf("exchanges %+v", r.ex)
	}
}

func TestGapAcrossFramesResyncs(t *testing.T) {
	c := codec.New(testSet)
	req1 := reqFrame(t, c, "ApiVersions", 3, 1, "cli", "")
	req2 := reqFrame(t, c, "Metadata", 12, 2, "cli", "")
	req3 := reqFrame(t, c, "ApiVersions", 3, 3, "cli", "")
	stream := append(append(append([]byte{}, req1...), req2...), req3...)
	r := newConn(Options{})
	r.conn.Data(ClientToServer, stream[:10], t0)
	r.conn.Gap(ClientToServer, int64(len(req1)), t0) // into req2
	feed(r.conn, ClientToServer, stream[10+len(req1):], t0, 7)
	r.conn.Close(t0)
	rs := r.problems(Resync)
	wantSkip := int64(len(req1) + len(req2) - 10 - len(req1))
	if len(rs) != 1 || rs[0].Skipped != wantSkip || rs[0].Offset != int64(10+len(req1)) {
		t.Fatalf("problems %v (want skip %d)", r.pr, wantSkip)
	}
	if len(r.ex) != 1 || r.ex[0].CorrelationID != 3 || r.ex[0].Request.Offset != int64(len(req1)+len(req2)) || r.ex[0].Response != nil {
		t.Fatalf("exchanges %+v", r.ex)
	}
}

func TestUnsyncedStartMidStream(t *testing.T) {
	c := codec.New(testSet)
	req1 := reqFrame(t, c, "Metadata", 12, 1, "cli", "")
	req2 := reqFrame(t, c, "ApiVersions", 3, 2, "cli", "")
	resp1 := respFrame(t, c, "Metadata", 12, 1, metadataV12)
	resp2 := respFrame(t, c, "ApiVersions", 3, 2, "")
	for _, chunk := range []int{1, 5, 1 << 20} {
		r := newConn(Options{Unsynced: true})
		feed(r.conn, ClientToServer, append(append([]byte{}, req1[7:]...), req2...), t0, chunk)
		feed(r.conn, ServerToClient, append(append([]byte{}, resp1[3:]...), resp2...), t0, chunk)
		r.conn.Close(t0)
		rs := r.problems(Resync)
		if len(rs) != 2 || rs[0].Skipped != int64(len(req1)-7) || rs[1].Skipped != int64(len(resp1)-3) || len(r.pr) != 2 {
			t.Fatalf("chunk %d: problems %v", chunk, r.pr)
		}
		if len(r.ex) != 1 || r.ex[0].CorrelationID != 2 || r.ex[0].Response == nil || r.ex[0].Response.Offset != int64(len(resp1)-3) {
			t.Fatalf("chunk %d: exchanges %+v", chunk, r.ex)
		}
	}
}

func TestNegativeSizeResyncs(t *testing.T) {
	c := codec.New(testSet)
	req := reqFrame(t, c, "ApiVersions", 3, 5, "cli", "")
	for _, chunk := range []int{1, 2, 1 << 20} {
		r := newConn(Options{})
		feed(r.conn, ClientToServer, append([]byte{0xff, 0xff, 0xff, 0xf0, 0xde, 0xad}, req...), t0, chunk)
		r.conn.Close(t0)
		if len(r.pr) != 2 || r.pr[0].Kind != NegativeSize || r.pr[0].Size != -16 || r.pr[1].Kind != Resync || r.pr[1].Skipped != 6 {
			t.Fatalf("chunk %d: problems %v", chunk, r.pr)
		}
		if len(r.ex) != 1 || r.ex[0].CorrelationID != 5 || r.ex[0].Request.Offset != 6 {
			t.Fatalf("chunk %d: exchanges %+v", chunk, r.ex)
		}
	}
}

func TestGarbageAtEnd(t *testing.T) {
	r := newConn(Options{Unsynced: true})
	r.conn.Data(ClientToServer, bytes.Repeat([]byte{0xee}, 100), t0)
	r.conn.Close(t0)
	if len(r.pr) != 1 || r.pr[0].Kind != Garbage || r.pr[0].Skipped != 100 {
		t.Fatalf("problems %v", r.pr)
	}
}

func TestUnknownCorrelationAndUnanswered(t *testing.T) {
	c := codec.New(testSet)
	r := newConn(Options{})
	r.conn.Data(ClientToServer, reqFrame(t, c, "ApiVersions", 3, 1, "a", ""), t0)
	r.conn.Data(ClientToServer, reqFrame(t, c, "ApiVersions", 3, 2, "a", ""), t0)
	r.conn.Data(ClientToServer, reqFrame(t, c, "ApiVersions", 3, 3, "a", ""), t0)
	r.conn.Data(ServerToClient, respFrame(t, c, "ApiVersions", 3, 99, ""), t0)
	r.conn.Data(ServerToClient, respFrame(t, c, "ApiVersions", 3, 2, ""), t0)
	r.conn.Close(t0)
	// 99: no request; 1: passed over by 2's response; 2: answered; 3: open at close.
	got := []string{}
	for _, x := range r.ex {
		s := "?"
		switch {
		case x.Request == nil:
			s = "noreq"
		case x.Response == nil:
			s = "noresp"
		default:
			s = "ok"
		}
		got = append(got, s+string(rune('0'+x.CorrelationID%10)))
	}
	if strings.Join(got, " ") != "noreq9 noresp1 ok2 noresp3" || r.ex[0].APIKey != -1 || r.ex[0].Response.Err == nil {
		t.Fatalf("exchanges %v", got)
	}
	if r.conn.Pending() != 0 {
		t.Errorf("%d pending after Close", r.conn.Pending())
	}
}

func TestProduceAcksZeroHasNoResponse(t *testing.T) {
	c := codec.New(testSet)
	r := newConn(Options{})
	r.conn.Data(ClientToServer, reqFrame(t, c, "Produce", 9, 4, "p", `{"transactionalId":null,"acks":0,"timeoutMs":100,"topicData":[]}`), t0)
	r.conn.Data(ClientToServer, reqFrame(t, c, "Produce", 9, 5, "p", `{"transactionalId":null,"acks":-1,"timeoutMs":100,"topicData":[]}`), t0)
	if len(r.ex) != 1 || !r.ex[0].NoResponse || r.ex[0].CorrelationID != 4 || r.conn.Pending() != 1 {
		t.Fatalf("exchanges %+v pending %d", r.ex, r.conn.Pending())
	}
}

func TestErrorNames(t *testing.T) {
	for code, want := range map[int16]string{-1: "UNKNOWN_SERVER_ERROR", 0: "NONE", 3: "UNKNOWN_TOPIC_OR_PARTITION", 35: "UNSUPPORTED_VERSION", 58: "SASL_AUTHENTICATION_FAILED", 100: "UNKNOWN_TOPIC_ID", 120: "TRANSACTION_ABORTABLE", 121: "INVALID_RECORD_STATE", 136: "CONTROLLER_ID_NOT_REGISTERED", 137: "", -2: ""} {
		if got := ErrorName(code); got != want {
			t.Errorf("ErrorName(%d) = %q, want %q", code, got, want)
		}
	}
	if s := (ErrorCode{Code: 999}).String(); s != "error(999)" {
		t.Error(s)
	}
}

// Steady state: decoding exchanges allocates the events and little else.
func TestAllocationsPerExchange(t *testing.T) {
	c := codec.New(testSet)
	req := reqFrame(t, c, "Metadata", 12, 7, "cli", "")
	resp := respFrame(t, c, "Metadata", 12, 7, strings.Replace(metadataV12, `"errorCode":3`, `"errorCode":0`, 1))
	cn := New(Options{Codec: c}, func(Event) {})
	allocs := testing.AllocsPerRun(200, func() {
		cn.Data(ClientToServer, req, t0)
		cn.Data(ServerToClient, resp, t0)
	})
	// What the codec allocates to decode the two frames, then the
	// Exchange and its two Frames.
	var tr tree.Tree
	_, m, _ := testSet.Lookup("Metadata")
	codecAllocs := testing.AllocsPerRun(200, func() {
		c.DecodeRequestInto(&tr, req)
		c.DecodeResponseInto(&tr, resp, m, 12)
	})
	if allocs > codecAllocs+3 {
		t.Errorf("%.1f allocations per exchange, the codec's decoding makes %.1f", allocs, codecAllocs)
	}
	t.Logf("%.1f allocations per exchange, %.1f of them the codec's", allocs, codecAllocs)
}

func TestRandomBytesNeverPanic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := codec.New(testSet)
	good := append(reqFrame(t, c, "ApiVersions", 3, 1, "cli", ""), reqFrame(t, c, "Metadata", 12, 2, "cli", "")...)
	for i := 0; i < 300; i++ {
		b := append([]byte{}, good...)
		for k := rng.IntN(6); k > 0; k-- {
			b[rng.IntN(len(b))] = byte(rng.Uint32())
		}
		junk := make([]byte, rng.IntN(64))
		for k := range junk {
			junk[k] = byte(rng.Uint32())
		}
		b = append(b, junk...)
		r := newConn(Options{Unsynced: i%2 == 0, KeepTrees: i%3 == 0})
		for len(b) > 0 {
			n := 1 + rng.IntN(len(b))
			d := Dir(rng.IntN(2))
			r.conn.Data(d, b[:n], t0)
			if rng.IntN(5) == 0 {
				r.conn.Gap(d, int64(rng.IntN(20)), t0)
			}
			b = b[n:]
		}
		r.conn.Close(t0)
	}
}

func FuzzConn(f *testing.F) {
	c := codec.New(testSet)
	f.Add(reqFrame(f, c, "ApiVersions", 3, 1, "cli", ""), uint8(3), false)
	f.Add([]byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28}, uint8(1), true)
	f.Fuzz(func(t *testing.T, b []byte, split uint8, unsynced bool) {
		cn := New(Options{Codec: c, Unsynced: unsynced, MaxFrame: 1 << 16}, func(Event) {})
		n := int(split) % (len(b) + 1)
		cn.Data(ClientToServer, b[:n], t0)
		cn.Data(ServerToClient, b, t0)
		cn.Gap(ClientToServer, int64(split), t0)
		cn.Data(ClientToServer, b[n:], t0)
		cn.Close(t0)
	})
}

func BenchmarkConnMetadata(b *testing.B) {
	c := codec.New(testSet)
	req := reqFrame(b, c, "Metadata", 12, 7, "cli", "")
	resp := respFrame(b, c, "Metadata", 12, 7, metadataV12)
	cn := New(Options{Codec: c}, func(Event) {})
	b.SetBytes(int64(len(req) + len(resp)))
	b.ReportAllocs()
	for b.Loop() {
		cn.Data(ClientToServer, req, t0)
		cn.Data(ServerToClient, resp, t0)
	}
}

func BenchmarkConnProduce1MiB(b *testing.B) {
	c := codec.New(testSet)
	var kvs []records.KeyValue
	for i := range 100 {
		kvs = append(kvs, records.KeyValue{Key: []byte("k"), Value: make([]byte, 10<<10)})
		_ = i
	}
	batch := records.Batch{Records: kvs}.Bytes()
	req := reqFrame(b, c, "Produce", 9, 1, "bench", `{"transactionalId":null,"acks":0,"timeoutMs":30000,"topicData":[{"name":"bench","partitionData":[{"index":0,"records":"`+base64.StdEncoding.EncodeToString(batch)+`"}]}]}`)
	cn := New(Options{Codec: c}, func(Event) {})
	b.SetBytes(int64(len(req)))
	b.ReportAllocs()
	for b.Loop() {
		for p := req; len(p) > 0; {
			n := min(len(p), 64<<10)
			cn.Data(ClientToServer, p[:n], t0)
			p = p[n:]
		}
	}
}

// With Reuse the handler sees the same trees as with KeepTrees alone,
// decoded into the trees of earlier exchanges, which the frames hold no
// more once the handler returns.
func TestReuseTreesRecyclesTheTreesAfterTheEvent(t *testing.T) {
	c := codec.New(testSet)
	md := `{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"missing"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`
	type part struct {
		d Dir
		b []byte
	}
	var parts []part
	req := func(api string, corr int32, body string) {
		parts = append(parts, part{ClientToServer, reqFrame(t, c, api, 12, corr, "cli", body)})
	}
	resp := func(api string, corr int32, body string) {
		parts = append(parts, part{ServerToClient, respFrame(t, c, api, 12, corr, body)})
	}
	for corr := int32(1); corr <= 4; corr++ {
		req("Metadata", corr, md)
		resp("Metadata", corr, metadataV12)
	}
	// Two in flight, then a request left unanswered.
	req("Metadata", 5, md)
	req("Metadata", 6, `{"topics":null,"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`)
	resp("Metadata", 5, metadataV12)
	resp("Metadata", 6, metadataV12)
	req("Metadata", 7, md)

	// seen is what a handler reads of a tree while handling its event.
	type seen struct {
		bytes, nodes string
		hv           int16
	}
	run := func(reuse bool) (got []seen, trees map[*tree.Tree]bool, ex []*Exchange) {
		trees = map[*tree.Tree]bool{}
		var pool *TreePool
		if reuse {
			pool = &TreePool{}
		}
		conn := New(Options{Codec: c, KeepTrees: true, Reuse: pool}, func(e Event) {
			x, ok := e.(*Exchange)
			if !ok {
				t.Errorf("reuse %v: %v", reuse, e)
				return
			}
			ex = append(ex, x)
			for _, f := range []*Frame{x.Request, x.Response} {
				if f == nil {
					continue
				}
				if f.Tree == nil {
					t.Fatalf("reuse %v: exchange %d has a frame without its tree", reuse, x.CorrelationID)
				}
				trees[f.Tree] = true
				got = append(got, seen{string(f.Tree.Bytes), fmt.Sprint(f.Tree.Nodes), f.Tree.HeaderVersion})
			}
		})
		for _, p := range parts {
			feed(conn, p.d, p.b, t0, 50)
		}
		conn.Close(t0)
		return got, trees, ex
	}
	want, kept, _ := run(false)
	got, reused, ex := run(true)
	if len(want) != 13 || len(kept) != 13 {
		t.Fatalf("without reuse: %d frames, %d trees; want 13 and 13", len(want), len(kept))
	}
	if len(got) != len(want) {
		t.Fatalf("with reuse: %d frames, want %d", len(got), len(want))
	}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("frame %d: the handler saw another tree with reuse", k)
		}
	}
	// One tree per frame in flight: two, then three with two requests
	// awaiting their responses.
	if len(reused) != 3 {
		t.Errorf("with reuse: %d trees for 13 frames, want 3", len(reused))
	}
	for _, x := range ex {
		if (x.Request != nil && x.Request.Tree != nil) || (x.Response != nil && x.Response.Tree != nil) {
			t.Errorf("exchange %d keeps a tree after its event", x.CorrelationID)
		}
	}
}

// The Conns of a capture share one TreePool: connections that exchange
// frames one after the other (and stay open) decode into the same few
// trees, and the pool holds at most maxReuse trees; a tree too large to
// keep is dropped.
func TestTreePoolIsSharedAndBounded(t *testing.T) {
	c := codec.New(testSet)
	md := `{"topics":null,"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`
	pool := &TreePool{}
	trees := map[*tree.Tree]bool{}
	exchanges := 0
	var conns []*Conn
	for range 50 {
		conn := New(Options{Codec: c, KeepTrees: true, Reuse: pool}, func(e Event) {
			if x, ok := e.(*Exchange); ok {
				exchanges++
				trees[x.Request.Tree], trees[x.Response.Tree] = true, true
			}
		})
		conns = append(conns, conn)
		for corr := int32(1); corr <= 3; corr++ {
			feed(conn, ClientToServer, reqFrame(t, c, "Metadata", 12, corr, "cli", md), t0, 50)
			feed(conn, ServerToClient, respFrame(t, c, "Metadata", 12, corr, metadataV12), t0, 50)
		}
	}
	// Several requests in flight on connections of their own.
	for k := range 20 {
		conn := New(Options{Codec: c, KeepTrees: true, Reuse: pool}, func(Event) {})
		conns = append(conns, conn)
		feed(conn, ClientToServer, reqFrame(t, c, "Metadata", 12, int32(k), "cli", md), t0, 50)
	}
	for k, conn := range conns[50:] {
		feed(conn, ServerToClient, respFrame(t, c, "Metadata", 12, int32(k), metadataV12), t0, 50)
	}
	if exchanges != 150 || len(trees) != 2 {
		t.Errorf("%d exchanges in %d trees, want 150 in 2", exchanges, len(trees))
	}
	if n := pool.Len(); n != maxReuse {
		t.Errorf("the pool holds %d trees after 20 exchanges ended together, want %d", n, maxReuse)
	}
	big := &tree.Tree{Nodes: make([]tree.Node, 0, maxReuseNodes+1)}
	for pool.Len() > 0 {
		pool.get()
	}
	pool.put(big)
	if pool.Len() != 0 {
		t.Error("the pool kept a tree over maxReuseNodes")
	}
	for _, conn := range conns {
		conn.Close(t0)
	}
}

// A resynchronisation takes the judgement of frame.Recognize: a candidate
// whose correlation id is negative (which no client sends at the start of
// its count) is passed over, though it would decode.
func TestResyncPassesOverANegativeCorrelationID(t *testing.T) {
	c := codec.New(testSet)
	odd := reqFrame(t, c, "ApiVersions", 3, -7, "cli", "")
	req := reqFrame(t, c, "ApiVersions", 3, 5, "cli", "")
	in := append(append([]byte{0xff, 0xff, 0xff, 0xf0}, odd...), req...)
	for _, chunk := range []int{1, 3, 1 << 20} {
		r := newConn(Options{})
		feed(r.conn, ClientToServer, in, t0, chunk)
		r.conn.Close(t0)
		if len(r.ex) != 1 || r.ex[0].CorrelationID != 5 || r.ex[0].Request.Offset != int64(4+len(odd)) {
			t.Fatalf("chunk %d: exchanges %+v, problems %v", chunk, r.ex, r.pr)
		}
	}
}
