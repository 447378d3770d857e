package logseg

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
)

// A metadata log's values are decoded once, with the window: Describe
// takes the window's decode of each, and describes it as a decode of its
// own does.
func TestDescribeTakesTheWindowsDecode(t *testing.T) {
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	cd := codec.New(set)
	m := set.Message("TopicRecord")
	var kv []records.KeyValue
	for i := range 3 {
		v, err := codec.FromJSON([]byte(`{"name":"t`+strconv.Itoa(i)+`","topicId":"3q2-796tze-XDVRl4oy0qA"}`), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := cd.EncodeRecord(m, 0, v)
		if err != nil {
			t.Fatal(err)
		}
		kv = append(kv, records.KeyValue{Value: tr.Bytes})
	}
	path := filepath.Join(t.TempDir(), "__cluster_metadata-0", "00000000000000000000.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, records.Batch{Records: kv}.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err = Read(path, Options{Codec: cd}, func(w *Window) error {
		for i := range w.Batches {
			b := &w.Batches[i]
			for _, r := range b.Records {
				if _, _, ok := w.decoded.get(r.Value, nil); !ok {
					t.Errorf("offset %d: not decoded with the window", r.Offset)
				}
				d := w.Describe(b, r)
				_, _, own, err := describeValue(cd, r, false, true, false, nil)
				if d.Err != nil || err != nil || string(d.Data) != string(own) || d.Type != "TopicRecord" {
					t.Errorf("offset %d: %s %s %v, own decode %s %v", r.Offset, d.Type, d.Data, d.Err, own, err)
				}
				n++
			}
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Errorf("%d records, %v", n, err)
	}
}
