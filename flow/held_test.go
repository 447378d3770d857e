package flow

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/tree"
)

// A frame the stream ends inside after its first MiB (held in segments by
// the splitter) is reported Truncated with the bytes that arrived, and
// Stats.Held says the most bytes of one frame each direction held.
func TestTruncatedLargeFrameAndHeld(t *testing.T) {
	c := codec.New(testSet)
	req := reqFrame(t, c, "ApiVersions", 3, 1, "cli", "")
	r := newConn(Options{})
	feed(r.conn, ClientToServer, req, t0, 7)
	big := binary.BigEndian.AppendUint32(nil, 90<<20)
	big = append(big, req[4:12]...) // an ApiVersions header, then filler
	big = append(big, bytes.Repeat([]byte{0x33}, 3<<20)...)
	feed(r.conn, ClientToServer, big, t0, 64<<10)
	r.conn.Close(t0)
	tr := r.problems(Truncated)
	if len(tr) != 1 || tr[0].Size != 90<<20 || tr[0].Have != int64(len(big)-4) || tr[0].Offset != int64(len(req)) {
		t.Fatalf("problems %v", r.pr)
	}
	if st := r.conn.Stats(); st.Held != [2]int64{int64(len(big)), 0} || st.Frames[ClientToServer] != 1 {
		t.Errorf("held %v, frames %v", st.Held, st.Frames)
	}
	// Whole frames: the largest.
	r = newConn(Options{})
	resp := respFrame(t, c, "ApiVersions", 3, 1, "")
	feed(r.conn, ClientToServer, req, t0, 3)
	feed(r.conn, ServerToClient, resp, t0, 5)
	r.conn.Close(t0)
	if st := r.conn.Stats(); st.Held != [2]int64{int64(len(req)), int64(len(resp))} {
		t.Errorf("held %v, want %d and %d", st.Held, len(req), len(resp))
	}
}

// The trees of requests awaiting responses (KeepTrees) are bounded by the
// HeldTrees their Conns share: a request past the bound comes without its
// tree, after a NotHeld notice naming it, and every byte counted is given
// back once the exchanges are reported. Before the bound, a client that
// pipelined requests no response answered took memory without bound
// (100 header-bomb Produce requests in a capture: 898 MiB).
func TestHeldTreesBound(t *testing.T) {
	c := codec.New(testSet)
	one := newConn(Options{KeepTrees: true})
	feed(one.conn, ClientToServer, reqFrame(t, c, "ApiVersions", 3, 1, "cli", ""), t0, 1<<20)
	size := one.conn.held.Held()
	if size <= 0 {
		t.Fatalf("a pending request's tree counts %d bytes", size)
	}
	one.conn.Close(t0)
	if one.conn.held.Held() != 0 || one.ex[0].Request.Tree == nil {
		t.Fatalf("after Close: %d bytes held, tree %v", one.conn.held.Held(), one.ex[0].Request.Tree)
	}

	// A tree is held when it is alone, whatever the bound.
	tiny := &HeldTrees{Max: 1}
	one = newConn(Options{KeepTrees: true, Held: tiny})
	feed(one.conn, ClientToServer, reqFrame(t, c, "ApiVersions", 3, 1, "cli", ""), t0, 1<<20)
	feed(one.conn, ClientToServer, reqFrame(t, c, "ApiVersions", 3, 2, "cli", ""), t0, 1<<20)
	if tiny.Held() != size || len(one.problems(NotHeld)) != 1 || one.problems(NotHeld)[0].CorrelationID != 2 {
		t.Fatalf("bound 1: held %d, problems %v", tiny.Held(), one.pr)
	}
	one.conn.Close(t0)

	// Room for three trees, shared by two connections.
	h := &HeldTrees{Max: 3*size + size/2}
	a, b := newConn(Options{KeepTrees: true, Held: h}), newConn(Options{KeepTrees: true, Held: h})
	for corr := int32(1); corr <= 2; corr++ {
		feed(a.conn, ClientToServer, reqFrame(t, c, "ApiVersions", 3, corr, "cli", ""), t0, 1<<20)
		feed(b.conn, ClientToServer, reqFrame(t, c, "ApiVersions", 3, corr, "cli", ""), t0, 1<<20)
	}
	if h.Held() != 3*size {
		t.Fatalf("held %d, want %d", h.Held(), 3*size)
	}
	nh := b.problems(NotHeld)
	if len(nh) != 1 || len(a.pr) != 0 || nh[0].CorrelationID != 2 || nh[0].Tree != size || nh[0].Limit != int(h.Max) || nh[0].APIKey != 18 {
		t.Fatalf("problems a %v, b %v", a.pr, b.pr)
	}
	if want := "not kept awaiting the response"; !strings.Contains(nh[0].String(), want) {
		t.Errorf("%q does not say %q", nh[0], want)
	}
	// b's first response gives its tree back: the next request is held.
	feed(b.conn, ServerToClient, respFrame(t, c, "ApiVersions", 3, 1, ""), t0, 1<<20)
	feed(b.conn, ClientToServer, reqFrame(t, c, "ApiVersions", 3, 3, "cli", ""), t0, 1<<20)
	if len(b.problems(NotHeld)) != 1 || h.Held() != 3*size {
		t.Fatalf("after a response: held %d, problems %v", h.Held(), b.pr)
	}
	a.conn.Close(t0)
	b.conn.Close(t0)
	if h.Held() != 0 {
		t.Errorf("%d bytes still counted after Close", h.Held())
	}
	var trees []bool
	for _, x := range b.ex {
		trees = append(trees, x.Request.Tree != nil)
	}
	if fmt.Sprint(trees) != "[true false true]" || b.ex[1].Request.Err != nil {
		t.Errorf("b's requests have trees %v", trees)
	}
}

// A frame whose tree is not kept is decoded into its direction's arena,
// which a connection keeps between frames only up to 1 MiB, or, with a
// TreePool, not at all (the pool, shared and bounded, keeps it, a large
// one for the next large frame): 1000
// open connections that had each sent a request of 60 KB (a 1 MiB tree)
// held 1 GiB.
func TestArenaNotKeptBetweenFrames(t *testing.T) {
	c := codec.New(testSet)
	produce := func(recs []byte) []byte {
		batch := records.RawBatch{Count: 1, Records: recs}.Bytes()
		body := fmt.Sprintf(`{"transactionalId":null,"acks":1,"timeoutMs":1000,"topicData":[{"name":"t","partitionData":[{"index":0,"records":%q}]}]}`, base64.StdEncoding.EncodeToString(batch))
		return reqFrame(t, c, "Produce", 3, 1, "cli", body)
	}
	big, small := produce(testseg.HeaderBombRecord(60000)), produce(testseg.HeaderBombRecord(10))
	r := newConn(Options{})
	feed(r.conn, ClientToServer, small, t0, 1<<20)
	kept := r.conn.s[ClientToServer].arena.Footprint()
	feed(r.conn, ClientToServer, big, t0, 1<<20)
	if a := &r.conn.s[ClientToServer].arena; kept == 0 || a.Footprint() != 0 || a.Bytes != nil {
		t.Errorf("without a pool: a small frame's arena keeps %d bytes, a large one's %d (bytes %d)", kept, a.Footprint(), len(a.Bytes))
	}
	pool := &TreePool{}
	r = newConn(Options{Reuse: pool})
	feed(r.conn, ClientToServer, small, t0, 1<<20)
	if a := &r.conn.s[ClientToServer].arena; cap(a.Nodes) != 0 || pool.Len() != 1 {
		t.Errorf("with a pool: the arena keeps %d nodes, the pool %d trees", cap(a.Nodes), pool.Len())
	}
	feed(r.conn, ClientToServer, big, t0, 1<<20)
	if a := &r.conn.s[ClientToServer].arena; cap(a.Nodes) != 0 || pool.Len() != 0 || pool.big == nil || pool.big.Bytes != nil {
		t.Errorf("with a pool, after a large frame: the arena keeps %d nodes, the pool %d trees and big %v", cap(a.Nodes), pool.Len(), pool.big != nil)
	}
	// The next frame takes the large arena: none is made for it.
	bigArena := &pool.big.Nodes[:1][0]
	feed(r.conn, ClientToServer, big, t0, 1<<20)
	if pool.big == nil || &pool.big.Nodes[:1][0] != bigArena {
		t.Errorf("the large arena was not taken again")
	}
	r.conn.Close(t0)
	if len(r.ex) != 3 || len(r.pr) != 0 {
		t.Errorf("%d exchanges, problems %v", len(r.ex), r.pr)
	}
}

// zstdProduce is a Produce v3 request frame of one zstd batch of n records
// of 1 KiB values, compressed as Kafka's clients do (the frame's content
// size declared): about n KiB decompressed in a few KB.
func zstdProduce(t testing.TB, c *codec.Codec, corr int32, n int) []byte {
	return produceOf(t, c, corr, zstdBatch(t, n))
}

// produceOf is a Produce v3 request frame of records to topic t.
func produceOf(t testing.TB, c *codec.Codec, corr int32, recs []byte) []byte {
	body := fmt.Sprintf(`{"transactionalId":null,"acks":1,"timeoutMs":1000,"topicData":[{"name":"t","partitionData":[{"index":0,"records":%q}]}]}`, base64.StdEncoding.EncodeToString(recs))
	return reqFrame(t, c, "Produce", 3, corr, "cli", body)
}

// zstdBatch is zstdProduce's batch.
func zstdBatch(t testing.TB, n int) []byte {
	kv := make([]records.KeyValue, n)
	for i := range kv {
		kv[i] = records.KeyValue{Key: fmt.Appendf(nil, "k%d", i), Value: bytes.Repeat([]byte{'v'}, 1024)}
	}
	plain := records.Batch{Records: kv}.Bytes()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	return records.RawBatch{Attributes: 4, LastOffsetDelta: int32(n - 1), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		Count: int32(n), Records: enc.EncodeAll(plain[61:], nil)}.Bytes()
}

// A request whose tree is many times its frame (records that decompress
// to much more) is held awaiting its response as its frame's bytes, and
// decoded again when its exchange is reported: the same tree, its
// records taking nothing more from the decompression budget. 40
// connections of requests of a few KB decompressing to 30 MiB each,
// unanswered, took pcap --tree 110 MiB over its baseline (a tree held and
// one decoded), and all but one came without their trees.
func TestTreeDecodedAgain(t *testing.T) {
	plain := codec.New(testSet)
	plain.Records.Budget = records.NewBudget(64 << 20)
	c := codec.New(testSet)
	c.Records.Budget = records.NewBudget(64 << 20)
	fr, fr2 := zstdProduce(t, c, 1, 4000), zstdProduce(t, c, 2, 4000) // 4.1 MB decompressed
	want := &tree.Tree{}
	if err := plain.DecodeRequestInto(want, fr); err != nil || len(want.Virtual) < 4000<<10 || len(want.Problems) != 0 {
		t.Fatalf("decode: %v, %d bytes of views, problems %v", err, len(want.Virtual), want.Problems)
	}
	one := plain.Records.Budget.Limit() - plain.Records.Budget.Left() // what one decoding takes
	for _, pool := range []*TreePool{nil, {}} {
		h := &HeldTrees{Max: 1 << 20}
		var got []*tree.Tree
		conn := New(Options{Codec: c, KeepTrees: true, Reuse: pool, Held: h}, func(e Event) {
			if x, ok := e.(*Exchange); ok && x.Request != nil && x.Request.Tree != nil {
				rt := x.Request.Tree
				got = append(got, &tree.Tree{Nodes: slices.Clone(rt.Nodes), Virtual: slices.Clone(rt.Virtual), Bytes: slices.Clone(rt.Bytes), Problems: rt.Problems})
			} else {
				t.Errorf("event %v", e)
			}
		})
		left := c.Records.Budget.Left()
		feed(conn, ClientToServer, fr, t0, 1<<20)
		feed(conn, ClientToServer, fr2, t0, 1<<20)
		// Both held, as their frames' bytes: within the bound of 1 MiB.
		if held := h.Held(); held != int64(2*len(fr)) {
			t.Fatalf("pool %v: %d bytes held, want the two frames' %d", pool != nil, held, 2*len(fr))
		}
		took := left - c.Records.Budget.Left()
		conn.Close(t0)
		if len(got) != 2 || h.Held() != 0 || c.Records.Budget.Left() != left-took || took != 2*one {
			t.Fatalf("pool %v: %d trees, %d bytes still held, budget took %d then %d (one decoding %d)", pool != nil, len(got), h.Held(), took, left-c.Records.Budget.Left(), one)
		}
		if g := got[0]; !slices.Equal(g.Nodes, want.Nodes) || !bytes.Equal(g.Virtual, want.Virtual) || !bytes.Equal(g.Bytes, fr) || len(g.Problems) != 0 {
			t.Errorf("pool %v: the tree decoded again differs: %d nodes (want %d), %d bytes of views (want %d), problems %v",
				pool != nil, len(g.Nodes), len(want.Nodes), len(g.Virtual), len(want.Virtual), g.Problems)
		}
	}
	// Two batches, the second past what the budget has left: decoded
	// again, the tree is the first decoding's, the second batch refused
	// with the same problem.
	b := zstdBatch(t, 4000)
	two := produceOf(t, plain, 3, append(append([]byte(nil), b...), b...))
	c.Records.Budget = records.NewBudget(one + one/2)
	plain.Records.Budget = records.NewBudget(one + one/2)
	want = &tree.Tree{}
	if err := plain.DecodeRequestInto(want, two); err != nil || len(want.Problems) != 1 || !strings.Contains(want.Problems[0].Msg, "the decompression budget of the input") {
		t.Fatalf("decode: %v, problems %v", err, want.Problems)
	}
	var got *tree.Tree
	conn := New(Options{Codec: c, KeepTrees: true, Reuse: &TreePool{}}, func(e Event) {
		if x, ok := e.(*Exchange); ok && x.Request.Tree != nil {
			rt := x.Request.Tree
			got = &tree.Tree{Nodes: slices.Clone(rt.Nodes), Virtual: slices.Clone(rt.Virtual), Problems: slices.Clone(rt.Problems)}
		}
	})
	feed(conn, ClientToServer, two, t0, 1<<20)
	if held := conn.held.Held(); held != int64(len(two)) {
		t.Errorf("%d bytes held, want the frame's %d", held, len(two))
	}
	conn.Close(t0)
	if got == nil || !slices.Equal(got.Nodes, want.Nodes) || !bytes.Equal(got.Virtual, want.Virtual) || fmt.Sprint(got.Problems) != fmt.Sprint(want.Problems) {
		t.Errorf("past the budget, decoded again: %v", got)
	}
}

// With a TreePool, a frame decoded into the pool's large arena takes its
// decompressed views' array too: a connection of large compressed frames
// does not allocate an array for each; and a tree held awaiting its
// response is copied out of the arena to what it needs.
func TestArenaViewsReused(t *testing.T) {
	c := codec.New(testSet)
	pool := &TreePool{}
	r := newConn(Options{Codec: c, Reuse: pool})
	feed(r.conn, ClientToServer, zstdProduce(t, c, 1, 4000), t0, 1<<20)
	if pool.big == nil || cap(pool.big.Virtual) < 4000<<10 {
		t.Fatalf("the pool's large arena: %v", pool.big)
	}
	views := &pool.big.Virtual[:1][0]
	feed(r.conn, ClientToServer, zstdProduce(t, c, 2, 4000), t0, 1<<20)
	if pool.big == nil || &pool.big.Virtual[:1][0] != views {
		t.Errorf("the large arena's views were not taken again")
	}
	// Kept trees: a small request decoded into the large arena is held
	// at its size, the arena going back to the pool.
	k := newConn(Options{Codec: c, KeepTrees: true, Reuse: pool})
	feed(k.conn, ClientToServer, reqFrame(t, c, "ApiVersions", 3, 1, "cli", ""), t0, 1<<20)
	if held := k.conn.held.Held(); held > 64<<10 || pool.big == nil || &pool.big.Virtual[:1][0] != views {
		t.Errorf("a small tree decoded into the large arena: %d bytes held, the arena kept %v", held, pool.big != nil)
	}
	k.conn.Close(t0)
}

// Trees decoded into reused arenas (a TreePool's, kept or not, and
// requests' trees decoded again) are the trees a fresh decoding makes,
// whatever the frames before them left in the arena's arrays: a large
// compressed frame, then small ones, a frame with problems inside its
// decompressed views, a bomb past the decompression limit, a frame that
// does not decode past its large batch, in turn.
func TestArenaTreesAsFresh(t *testing.T) {
	c := codec.New(testSet)
	produce := func(corr int32, batches ...[]byte) []byte {
		var b []byte
		for _, x := range batches {
			b = append(b, x...)
		}
		body := fmt.Sprintf(`{"transactionalId":null,"acks":1,"timeoutMs":1000,"topicData":[{"name":"t","partitionData":[{"index":0,"records":%q}]}]}`, base64.StdEncoding.EncodeToString(b))
		return reqFrame(t, c, "Produce", 3, corr, "cli", body)
	}
	// A frame that does not decode past its large batch: a second
	// partition (index, null records) cut off, the array saying two.
	body := fmt.Sprintf(`{"transactionalId":null,"acks":1,"timeoutMs":1000,"topicData":[{"name":"t","partitionData":[{"index":0,"records":%q},{"index":1,"records":null}]}]}`, base64.StdEncoding.EncodeToString(zstdBatch(t, 3000)))
	cut := reqFrame(t, c, "Produce", 3, 9, "cli", body)
	cut = cut[:len(cut)-8]
	binary.BigEndian.PutUint32(cut, uint32(len(cut)-4))
	frames := [][]byte{
		zstdProduce(t, c, 1, 3000),
		produce(2, testseg.FatGzipBatch(0)),
		zstdProduce(t, c, 3, 5),
		produce(4, testseg.Mixed()),
		produce(5, testseg.ZstdBomb(40<<20, 1)),
		zstdProduce(t, c, 6, 2000),
		produce(7, testseg.FatGzipBatch(7), testseg.ZstdSegment(50, 10)),
		produce(8),
		cut,
	}
	want := make([]*tree.Tree, len(frames))
	for i, fr := range frames {
		want[i] = &tree.Tree{}
		if err := codec.New(testSet).DecodeRequestInto(want[i], fr); (err != nil) != (i == len(frames)-1) {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	same := func(what string, i int, g *tree.Tree) {
		t.Helper()
		w := want[i]
		if !slices.Equal(g.Nodes, w.Nodes) || !bytes.Equal(g.Virtual, w.Virtual) || fmt.Sprint(g.Problems) != fmt.Sprint(w.Problems) {
			t.Errorf("%s: frame %d: %d nodes (want %d), %d bytes of views (want %d), problems %v (want %v)",
				what, i, len(g.Nodes), len(w.Nodes), len(g.Virtual), len(w.Virtual), g.Problems, w.Problems)
		}
	}
	// Kept trees, recycled by a pool: requests 1 and 6 are decoded again.
	pool := &TreePool{}
	seen := 0
	conn := New(Options{Codec: c, KeepTrees: true, Reuse: pool}, func(e Event) {
		if x, ok := e.(*Exchange); ok && x.Request != nil && x.Request.Tree != nil {
			same("kept", int(x.CorrelationID-1), x.Request.Tree)
			seen++
		}
	})
	for _, fr := range frames {
		feed(conn, ClientToServer, fr, t0, 1<<20)
	}
	if pend := conn.Pending(); pend != len(frames) || conn.held.Held() >= int64(len(want[0].Virtual)) {
		t.Errorf("%d requests pending, holding %d bytes", pend, conn.held.Held())
	}
	conn.Close(t0)
	if seen != len(frames) {
		t.Errorf("%d trees of %d requests", seen, len(frames))
	}
	// Arenas as flow decodes frames whose trees are not kept into them:
	// one arena frame after frame, and the pool's in turn.
	for _, pool := range []*TreePool{nil, {}} {
		a := &tree.Tree{}
		for i, fr := range frames {
			if pool != nil {
				if p := pool.getArena(); p != nil {
					a = p
				}
			}
			if err := c.DecodeRequestWith(a, fr, codec.DecodeOptions{Arena: true}); (err != nil) != (i == len(frames)-1) {
				t.Fatalf("frame %d: %v", i, err)
			}
			same(fmt.Sprintf("arena (pool %v)", pool != nil), i, a)
			if pool != nil {
				pool.putArena(a)
				a = &tree.Tree{}
			}
		}
	}
}

// A request sent while the connection authenticates is redacted whole;
// decoded again (its records decompress to much more than its frame),
// it is redacted whole again, its decompressed views too.
func TestHiddenRequestDecodedAgainRedacted(t *testing.T) {
	c := codec.New(testSet)
	big := zstdProduce(t, c, 2, 3000)
	want := &tree.Tree{}
	if err := c.DecodeRequestInto(want, slices.Clone(big)); err != nil {
		t.Fatal(err)
	}
	secret.RedactFrame(want, secret.Options{})
	if bytes.Contains(want.Virtual, bytes.Repeat([]byte{'v'}, 1024)) {
		t.Fatal("RedactFrame leaves the views")
	}
	for _, show := range []bool{false, true} {
		var got *tree.Tree
		conn := New(Options{Codec: c, KeepTrees: true, Reuse: &TreePool{}, ShowSecrets: show}, func(e Event) {
			if x, ok := e.(*Exchange); ok && x.CorrelationID == 2 && x.Request != nil && x.Request.Tree != nil {
				rt := x.Request.Tree
				got = &tree.Tree{Bytes: slices.Clone(rt.Bytes), Virtual: slices.Clone(rt.Virtual)}
			}
		})
		feed(conn, ClientToServer, reqFrame(t, c, "SaslHandshake", 1, 1, "c", `{"mechanism":"PLAIN"}`), t0, 1<<20)
		feed(conn, ServerToClient, respFrame(t, c, "SaslHandshake", 1, 1, `{"errorCode":0,"mechanisms":["PLAIN"]}`), t0, 1<<20)
		feed(conn, ClientToServer, big, t0, 1<<20)
		if held := conn.held.Held(); held != int64(len(big)) {
			t.Errorf("show %v: %d bytes held, want the frame's %d", show, held, len(big))
		}
		conn.Close(t0)
		switch {
		case got == nil:
			t.Errorf("show %v: no tree", show)
		case show && (!bytes.Equal(got.Bytes, big) || !bytes.Contains(got.Virtual, bytes.Repeat([]byte{'v'}, 1024))):
			t.Errorf("show %v: the tree decoded again is not the frame's", show)
		case !show && (!bytes.Equal(got.Bytes, want.Bytes) || !bytes.Equal(got.Virtual, want.Virtual)):
			t.Errorf("show %v: the tree decoded again is not redacted whole", show)
		}
	}
}

// A request decoded again names its topics as its first decoding did, not
// as the responses since taught: a Produce to __consumer_offsets by topic
// id, sent before the Metadata response that names the id, has its records
// decoded as plain records both times; one sent while the id was known,
// then named otherwise, as the topic's both times (an outside review: the
// tree decoded again followed the names of the moment, and problems it
// found were reported nowhere).
func TestDecodedAgainKeepsTopicNames(t *testing.T) {
	c := codec.New(testSet)
	key, err := testseg.CoordRecord(c, "OffsetCommitKey", 0, `{"group":"grp","topic":"tp","partition":0}`)
	if err != nil {
		t.Fatal(err)
	}
	val, err := testseg.CoordRecord(c, "OffsetCommitValue", 3, `{"offset":77,"leaderEpoch":1,"metadata":"m","commitTimestamp":5}`)
	if err != nil {
		t.Fatal(err)
	}
	hs := make([]records.Header, 60000) // a tree many times its frame
	kv := records.KeyValue{Key: key, Value: val, Headers: hs}
	batch := records.Batch{Records: []records.KeyValue{kv, kv}}.Bytes()
	const id = "AAAAAAAAAAAAAAAAAAAABw"
	produce := reqFrame(t, c, "Produce", 13, 2, "cli", fmt.Sprintf(`{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[{"topicId":%q,"partitionData":[{"index":0,"records":%q}]}]}`, id, base64.StdEncoding.EncodeToString(batch)))
	produceResp := respFrame(t, c, "Produce", 13, 2, `{"responses":[{"topicId":"`+id+`","partitionResponses":[{"index":0,"errorCode":0,"baseOffset":42,"logAppendTimeMs":-1,"logStartOffset":0,"recordErrors":[],"errorMessage":null}]}],"throttleTimeMs":0}`)
	md := reqFrame(t, c, "Metadata", 12, 1, "cli", `{"topics":[{"topicId":"`+id+`","name":null}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`)
	mdResp := func(name string) []byte {
		return respFrame(t, c, "Metadata", 12, 1, `{"throttleTimeMs":0,"brokers":[],"clusterId":"c","controllerId":1,"topics":[{"errorCode":0,"name":"`+name+`","topicId":"`+id+`","isInternal":true,"partitions":[],"topicAuthorizedOperations":-2147483648}]}`)
	}
	// The trees as decoded with the id unknown, and known.
	plain, internal := &tree.Tree{}, &tree.Tree{}
	if err := c.DecodeRequestInto(plain, slices.Clone(produce)); err != nil {
		t.Fatal(err)
	}
	known := &Topics{}
	known.Learn(decodeResp(t, c, "Metadata", 12, mdResp("__consumer_offsets")))
	if err := c.DecodeRequestWith(internal, slices.Clone(produce), known.Options(c)); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(plain.Nodes, internal.Nodes) {
		t.Fatal("the records decode alike as plain and as __consumer_offsets'")
	}
	for _, tc := range []struct {
		name   string
		before [][2][]byte // exchanges before the produce's
		then   string      // the name the Metadata sent with it gives
		want   *tree.Tree
	}{
		{"learned after", nil, "__consumer_offsets", plain},
		{"named otherwise after", [][2][]byte{{md, mdResp("__consumer_offsets")}}, "plain", internal},
	} {
		for _, pool := range []*TreePool{nil, {}} {
			var got *tree.Tree
			conn := New(Options{Codec: c, KeepTrees: true, Reuse: pool}, func(e Event) {
				if x, ok := e.(*Exchange); ok && x.CorrelationID == 2 && x.Request != nil && x.Request.Tree != nil {
					got = &tree.Tree{Nodes: slices.Clone(x.Request.Tree.Nodes)}
				}
			})
			for _, x := range tc.before {
				feed(conn, ClientToServer, x[0], t0, 1<<20)
				feed(conn, ServerToClient, x[1], t0, 1<<20)
			}
			feed(conn, ClientToServer, append(slices.Clone(md), produce...), t0, 1<<20)
			if held := conn.held.Held(); held > int64(len(produce)+len(md))*2 {
				t.Errorf("%s: %d bytes held: not decoded again", tc.name, held)
			}
			feed(conn, ServerToClient, append(mdResp(tc.then), produceResp...), t0, 1<<20)
			conn.Close(t0)
			if got == nil || !slices.Equal(got.Nodes, tc.want.Nodes) {
				t.Errorf("%s (pool %v): the produce's tree decoded again is not its first decoding's", tc.name, pool != nil)
			}
		}
	}
}

// decodeResp decodes framed response fr of api at ver.
func decodeResp(t *testing.T, c *codec.Codec, api string, ver int16, fr []byte) *tree.Tree {
	t.Helper()
	_, m, err := c.Set.Lookup(api)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.DecodeResponse(fr, m, ver)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
