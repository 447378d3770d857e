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

// TestManyRecordsFieldsGrowTheArenaGeometrically decodes a Fetch response
// of 2,000 partitions of one batch of 40 tiny records each into a fresh
// tree: each records field reserves room for its own records, and the
// arena is copied a logarithmic number of times, not once a field.
func TestManyRecordsFieldsGrowTheArenaGeometrically(t *testing.T) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	c := New(s)
	// Records of a few bytes make more nodes than bytes: more than the
	// codec's arena of a node per two bytes holds.
	batch := base64.StdEncoding.EncodeToString(records.Batch{Timestamp: 1700000000000, Records: make([]records.KeyValue, 40)}.Bytes())
	var parts []string
	for i := range 2000 {
		parts = append(parts, fmt.Sprintf(`{"partitionIndex":%d,"errorCode":0,"highWatermark":1,"lastStableOffset":1,"logStartOffset":0,"abortedTransactions":null,"preferredReadReplica":-1,"records":"%s"}`, i, batch))
	}
	fetch := s.Message("FetchResponse")
	body, err := FromJSON([]byte(`{"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{"topic":"t","partitions":[`+strings.Join(parts, ",")+`]}]}`), fetch, 12)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := c.Encode(fetch, 12, ResponseHeaderValue(s.ResponseHeader(), 1), body)
	if err != nil {
		t.Fatal(err)
	}
	frame := enc.Bytes
	var tr *tree.Tree
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tr, err = c.DecodeResponse(frame, fetch, 12)
	runtime.ReadMemStats(&after)
	if err != nil || len(tr.Problems) > 0 {
		t.Fatalf("%v %v", err, tr.Problems)
	}
	if got := countKind(tr, tree.Record); got != 80000 {
		t.Fatalf("%d records decoded", got)
	}
	arena := cap(tr.Nodes) * int(unsafe.Sizeof(tree.Node{S: tree.NewShape(tree.KindInvalid, tree.WireNone, 0, 0)}))
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(3*arena+4*len(frame)) {
		t.Errorf("decoding %d bytes into an arena of %d bytes (%d nodes) allocated %d bytes", len(frame), arena, len(tr.Nodes), alloc)
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
