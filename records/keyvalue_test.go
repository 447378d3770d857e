package records_test

import (
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// TestKeyValueDecoder decodes keys and values with a KeyValueDecoder
// (both as SnapshotFooterRecord v0, a 2-byte version and a tag section):
// decoded ones become Embedded nodes that LogRecord finds; a null key, a
// key that does not decode and an empty value are problems at their
// offsets (a key that does not decode is its partial decode, flagged), a
// null value (a tombstone) is none, and a value whose key did not decode
// stays bytes.
func TestKeyValueDecoder(t *testing.T) {
	cd := codec.New(specSet(t))
	m := cd.Set.Message("SnapshotFooterRecord")
	var keys []*tree.Tree
	kv := &records.KeyValueDecoder{
		Key: func(data []byte) (*tree.Tree, error) { return cd.DecodeRecord(data, m, 0) },
		Value: func(key *tree.Tree, data []byte) (*tree.Tree, error) {
			keys = append(keys, key)
			return cd.DecodeRecord(data, m, 0)
		},
	}
	good := []byte{0, 7, 0}
	seg := records.Batch{Timestamp: 1, Records: []records.KeyValue{
		{Key: good, Value: []byte{0, 5, 0}},
		{Key: nil, Value: good},
		{Key: []byte{0}, Value: good},
		{Key: good, Value: nil},
		{Key: good, Value: []byte{}},
	}}.Bytes()
	tr := records.Decode(seg, records.Options{KeyValue: kv, Path: "s.log"})
	var got []string
	for _, p := range tr.Problems {
		got = append(got, p.String())
	}
	want := []string{
		"s.log[0].Record[1].key at 0x004e: a record of this internal topic must have a key (its record type)",
		"s.log[0].Record[2].key.SnapshotFooterRecord.Version at 0x0059: need 2 bytes, have 1",
		"s.log[0].Record[4].value at 0x0071: an empty value is not a record (a tombstone's value is null)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	bs := records.LogBatches(tr)
	if len(bs) != 1 || len(bs[0].Records) != 5 {
		t.Fatalf("batches %+v", bs)
	}
	type emb struct{ key, value bool }
	wantEmb := []emb{{true, true}, {false, false}, {true, false}, {true, false}, {true, false}}
	for i, r := range bs[0].Records {
		if g := (emb{r.KeyEmbedded >= 0, r.Embedded >= 0}); g != wantEmb[i] {
			t.Errorf("record %d: key and value embedded %v, want %v", i, g, wantEmb[i])
		}
	}
	// Record 2's key is the partial decode, flagged.
	if k := bs[0].Records[2].KeyEmbedded; tr.Nodes[k].Flags()&tree.FlagProblem == 0 {
		t.Errorf("record 2's key is not flagged")
	}
	r0 := bs[0].Records[0]
	if v := tr.At(r0.Embedded).Field("Version").Int(); v != 5 {
		t.Errorf("record 0's value Version = %d, want 5", v)
	}
	if v := tr.At(r0.KeyEmbedded).Field("Version").Int(); v != 7 {
		t.Errorf("record 0's key Version = %d, want 7", v)
	}
	// Value was called for records 0 and 4 (not the null value, not the
	// values whose key did not decode), with their decoded keys.
	if len(keys) != 1 {
		t.Errorf("Value called %d times, want 1 (record 0; record 4's value is empty)", len(keys))
	}
	// The wire leaves tile the bytes.
	at := int32(0)
	tr.Leaves(func(i int32) bool {
		n := &tr.Nodes[i]
		if n.Flags()&tree.FlagVirtual != 0 {
			return true
		}
		if n.Off != at {
			t.Fatalf("leaf %d (%s) at 0x%x, want 0x%x", i, tr.Name(i), n.Off, at)
		}
		at += n.Size
		return true
	})
	if int(at) != len(seg) {
		t.Errorf("leaves end at %d of %d bytes", at, len(seg))
	}
}

// TransactionStateName gives the transaction coordinator's TransactionState
// names by id, those kafka-dump-log's transaction log decoder prints.
func TestTransactionStateName(t *testing.T) {
	want := []string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}
	for id, w := range want {
		if got, ok := records.TransactionStateName(int64(id)); got != w || !ok {
			t.Errorf("TransactionStateName(%d) = %q, %v; want %q", id, got, ok, w)
		}
	}
	for _, id := range []int64{-1, 8, 127} {
		if got, ok := records.TransactionStateName(id); got != "" || ok {
			t.Errorf("TransactionStateName(%d) = %q, %v; want none", id, got, ok)
		}
	}
}
