package codec

import (
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// TestManyRecordsFieldsGrowTheArenaGeometrically decodes Fetch responses
// of 2,000 partitions of one batch of 40, 1 or 0 tiny records each (0: an
// empty records field) into a fresh tree, records whole and lazy: each
// records field reserves room for its own records, the arena is copied a
// logarithmic number of times, not once a field, and an empty field
// costs nothing past its node.
func TestManyRecordsFieldsGrowTheArenaGeometrically(t *testing.T) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	fetch := s.Message("FetchResponse")
	for _, n := range []int{40, 1, 0} {
		// Records of a few bytes make more nodes than bytes: more than
		// the codec's arena of a node per two bytes holds.
		batch := ""
		if n > 0 {
			batch = base64.StdEncoding.EncodeToString(records.Batch{Timestamp: 1700000000000, Records: make([]records.KeyValue, n)}.Bytes())
		}
		var parts []string
		for i := range 2000 {
			parts = append(parts, fmt.Sprintf(`{"partitionIndex":%d,"errorCode":0,"highWatermark":1,"lastStableOffset":1,"logStartOffset":0,"abortedTransactions":null,"preferredReadReplica":-1,"records":"%s"}`, i, batch))
		}
		body, err := FromJSON([]byte(`{"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{"topic":"t","partitions":[`+strings.Join(parts, ",")+`]}]}`), fetch, 12)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := New(s).Encode(fetch, 12, ResponseHeaderValue(s.ResponseHeader(), 1), body)
		if err != nil {
			t.Fatal(err)
		}
		frame := enc.Bytes
		for _, lazy := range []bool{false, true} {
			c := New(s)
			c.Records.Lazy = lazy
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			tr, err := c.DecodeResponse(frame, fetch, 12)
			runtime.ReadMemStats(&after)
			if err != nil || len(tr.Problems) > 0 {
				t.Fatalf("%v %v", err, tr.Problems)
			}
			if got := countKind(tr, tree.Record); got != 2000*n {
				t.Fatalf("%d records decoded, want %d", got, 2000*n)
			}
			arena := cap(tr.Nodes) * int(unsafe.Sizeof(tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireNone, 0, 0)}))
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(3*arena+4*len(frame)) {
				t.Errorf("%d records a partition, lazy %v: decoding %d bytes into an arena of %d bytes (%d nodes) allocated %d bytes", n, lazy, len(frame), arena, len(tr.Nodes), alloc)
			}
		}
	}
}

func countKind(t *tree.Tree, k tree.Kind) int {
	n := 0
	for i := range t.Nodes {
		if t.Nodes[i].Kind() == k {
			n++
		}
	}
	return n
}
