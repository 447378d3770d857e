package coordstate_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/coordstate"
	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
)

// part is a partition directory's one segment.
type part struct {
	dir     string
	batches [][]byte
}

// writeParts writes each part's segment under one temporary directory and
// returns the segments' paths.
func writeParts(t *testing.T, parts ...part) []string {
	t.Helper()
	root := t.TempDir()
	var files []string
	for _, p := range parts {
		d := filepath.Join(root, p.dir)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		var seg []byte
		for _, b := range p.batches {
			seg = append(seg, b...)
		}
		f := filepath.Join(d, "00000000000000000000.log")
		if err := os.WriteFile(f, seg, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// replayFiles replays the segments in order into one State.
func replayFiles(t *testing.T, cd *codec.Codec, files ...string) *coordstate.State {
	t.Helper()
	s := new(coordstate.State)
	for _, f := range files {
		if _, err := logseg.Read(f, logseg.Options{Codec: cd}, func(w *logseg.Window) error {
			s.AddBatches(f, w.Tree, w.Batches)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestTxnScopedToPartition: a COMMIT marker commits the offsets its
// producer left pending in its own partition's log only, whatever the
// order the partitions are replayed in.
func TestTxnScopedToPartition(t *testing.T) {
	cd := testCodec(t)
	commit := func(g string, off int64) []byte {
		return txn(records.Batch{BaseOffset: off, Timestamp: 1700000000000, Records: []records.KeyValue{
			kv(enc(t, cd, "OffsetCommitKey", 0, `{"group":"`+g+`","topic":"t","partition":0}`),
				enc(t, cd, "OffsetCommitValue", 3, `{"offset":5,"leaderEpoch":0,"metadata":"","commitTimestamp":1700000000000}`))}}, 9)
	}
	files := writeParts(t,
		part{"__consumer_offsets-1", [][]byte{commit("g1", 0)}},
		part{"__consumer_offsets-2", [][]byte{marker(1, 9, true)}})
	for _, order := range [][]string{files, {files[1], files[0]}} {
		if got, want := string(replayFiles(t, cd, order...).AppendText(nil)), "no state: no record of a type --state replays\n"; got != want {
			t.Errorf("replayed %v:\n%s\nwant:\n%s", order, got, want)
		}
	}
	// The same producer's marker in the offsets' own partition commits
	// them, and only them: partition 2's pending offsets stay pending.
	files = writeParts(t,
		part{"__consumer_offsets-1", [][]byte{commit("g1", 0), marker(1, 9, true)}},
		part{"__consumer_offsets-2", [][]byte{commit("g2", 0)}})
	want := `OFFSETS
GROUP  TOPIC  PARTITION  OFFSET  LEADER EPOCH  METADATA  COMMITTED (ms)  RECORD
g1     t      0          5       0             ""        1700000000000   0
`
	for _, order := range [][]string{files, {files[1], files[0]}} {
		if got := string(replayFiles(t, cd, order...).AppendText(nil)); got != want {
			t.Errorf("replayed %v:\n%s\nwant:\n%s", order, got, want)
		}
	}
}

// TestBadCRCNotReplayed: a batch whose CRC does not match its bytes is
// not replayed (Kafka loads no corrupt batch); a note names the file and
// the batch's offset, in text and JSON.
func TestBadCRCNotReplayed(t *testing.T) {
	cd := testCodec(t)
	oc := func(off int64, p string, offset string) []byte {
		return records.Batch{BaseOffset: off, Timestamp: 1700000000000, Records: []records.KeyValue{
			kv(enc(t, cd, "OffsetCommitKey", 0, `{"group":"g1","topic":"t","partition":`+p+`}`),
				enc(t, cd, "OffsetCommitValue", 3, `{"offset":`+offset+`,"leaderEpoch":0,"metadata":"","commitTimestamp":1700000000000}`))}}.Bytes()
	}
	bad := oc(1, "0", "99")
	bad[17] ^= 0xff // the stored CRC (bytes 17..20 of a v2 batch)
	files := writeParts(t, part{"__consumer_offsets-3", [][]byte{oc(0, "0", "5"), bad, oc(2, "1", "7")}})
	s := replayFiles(t, cd, files...)
	note := files[0] + ": batch at offset 1: CRC invalid: its 1 record is not replayed (Kafka loads no corrupt batch)"
	want := `OFFSETS
GROUP  TOPIC  PARTITION  OFFSET  LEADER EPOCH  METADATA  COMMITTED (ms)  RECORD
g1     t      0          5       0             ""        1700000000000   0
g1     t      1          7       0             ""        1700000000000   2
note: ` + note + "\n"
	if got := string(s.AppendText(nil)); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	wantJSON := `{"type":"offset","group":"g1","topic":"t","partition":0,"offset":5,"leader_epoch":0,"metadata":"","commit_timestamp":1700000000000,"expire_timestamp":-1,"record_offset":0}
{"type":"offset","group":"g1","topic":"t","partition":1,"offset":7,"leader_epoch":0,"metadata":"","commit_timestamp":1700000000000,"expire_timestamp":-1,"record_offset":2}
{"type":"note","message":"` + note + `"}
`
	if got := string(s.AppendJSON(nil)); got != wantJSON {
		t.Errorf("JSON:\n%s\nwant:\n%s", got, wantJSON)
	}
}
