package flow

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/kwire/kwire/codec"
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
