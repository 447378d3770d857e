package proxy

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/internal/testnet"
)

// A client that sends 20 MiB of a frame that claims 90 MiB, then closes:
// every byte is forwarded, both directions report the frame truncated with
// what arrived, and the Closed event's stats say how much was held (what
// makes the proxy return memory to the system, releaseHeld).
func TestUnfinishedLargeFrameIsForwardedAndHeld(t *testing.T) {
	echo := testnet.Echo(t, nil)
	c := codec.New(testSet)
	// A queue that holds all 20 MiB (64 MiB a direction), so that a
	// decoder the scheduler leaves waiting drops nothing.
	p, col := start(t, Options{Codec: c, MaxDecodeMemoryConn: 256 << 20}, echo)
	req := encodeFrame(t, c, "ApiVersions", true, 3, 1, "x", "")
	big := binary.BigEndian.AppendUint32(nil, 90<<20)
	big = append(big, req[4:]...)
	big = append(big, bytes.Repeat([]byte{0x44}, 20<<20)...)
	cl := dial(t, p)
	go func() {
		cl.Write(big)
		cl.CloseWrite()
	}()
	got, err := io.ReadAll(cl)
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("echoed %d bytes (%v), want the %d sent", len(got), err, len(big))
	}
	cl.Close()
	ev := col.waitClosed(t, 1)[1]
	if held := ev.Stats.Flow.Held; held != [2]int64{int64(len(big)), int64(len(big))} || held[0]+held[1] < releaseHeld {
		t.Errorf("held %v, want %d each way", held, len(big))
	}
	_, ps := col.flows(1)
	if len(ps) != 2 || ps[0].Kind != flow.Truncated || ps[0].Have != int64(len(big)-4) || ps[0].Size != 90<<20 || ps[1].Have != int64(len(big)-4) {
		t.Errorf("problems %v", ps)
	}
}

// Without kept trees, the connections' decoders share the proxy's pool of
// node arenas: a connection that has decoded a frame keeps no arena while
// it stays open (300 open connections that had each sent a 60 KB header
// bomb kept 200 KB of arena each).
func TestIdleConnectionKeepsNoArena(t *testing.T) {
	echo := testnet.Echo(t, nil)
	c := codec.New(testSet)
	p, col := start(t, Options{Codec: c}, echo)
	req := encodeFrame(t, c, "ApiVersions", true, 3, 1, "x", "")
	cl := dial(t, p)
	if _, err := cl.Write(req); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(cl, make([]byte, len(req))); err != nil {
		t.Fatal(err)
	}
	// Request and response decoded (the echo answers with the request's
	// bytes): both arenas back in the pool while the connection is open.
	for deadline := time.Now().Add(10 * time.Second); p.arenas.Len() < 1; {
		if time.Now().After(deadline) {
			t.Fatalf("the pool holds %d arenas while the connection is open", p.arenas.Len())
		}
		time.Sleep(time.Millisecond)
	}
	cl.Close()
	col.waitClosed(t, 1)
}
