package coordstate_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/coordstate"
	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
)

// Replay a __consumer_offsets partition, built here: two offsets
// committed by group g1, then the second one deleted (a tombstone).
func Example() {
	set, err := spec.Embedded("")
	if err != nil {
		log.Fatal(err)
	}
	cd := codec.New(set)
	// encode writes a record key or value as it lies on disk: its int16
	// prefix, then the message.
	encode := func(name string, version int16, js string) []byte {
		m := set.Message(name)
		v, err := codec.FromJSON([]byte(js), m, version)
		if err != nil {
			log.Fatal(err)
		}
		t, err := cd.EncodeRecord(m, version, v)
		if err != nil {
			log.Fatal(err)
		}
		return t.Bytes
	}
	k0 := encode("OffsetCommitKey", 0, `{"group":"g1","topic":"orders","partition":0}`)
	k1 := encode("OffsetCommitKey", 0, `{"group":"g1","topic":"orders","partition":1}`)
	seg := records.Batch{Timestamp: 1700000000000, Records: []records.KeyValue{
		{Key: k0, Value: encode("OffsetCommitValue", 3, `{"offset":42,"leaderEpoch":0,"metadata":"","commitTimestamp":1700000000000}`)},
		{Key: k1, Value: encode("OffsetCommitValue", 3, `{"offset":7,"leaderEpoch":0,"metadata":"","commitTimestamp":1700000000000}`)},
		{Key: k1, Value: nil},
	}}.Bytes()
	dir, err := os.MkdirTemp("", "coordstate-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	part := filepath.Join(dir, "__consumer_offsets-0")
	if err := os.Mkdir(part, 0o755); err != nil {
		log.Fatal(err)
	}
	f := filepath.Join(part, "00000000000000000000.log")
	if err := os.WriteFile(f, seg, 0o644); err != nil {
		log.Fatal(err)
	}

	s := new(coordstate.State)
	if _, err := logseg.Read(f, logseg.Options{Codec: cd}, func(w *logseg.Window) error {
		s.AddBatches(f, w.Tree, w.Batches)
		return nil
	}); err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(s.AppendText(nil)))
	// Output:
	// OFFSETS
	// GROUP  TOPIC   PARTITION  OFFSET  LEADER EPOCH  METADATA  COMMITTED (ms)  RECORD
	// g1     orders  0          42      0             ""        1700000000000   0
}
