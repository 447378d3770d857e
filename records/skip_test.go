package records_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/kwire/kwire/records"
)

// NextEntryIn finds, in bytes read once, the entry NextEntryAt finds in
// the same bytes as a file, when it is no larger than hold: after 3000
// bytes that are not an entry (one that claims 2 MiB among them, cut by
// the end of the piece it claims), a batch of 1 MiB and 40 bytes is found
// at 3000, and what was read from it on comes back; with a hold of 512
// KiB it is not taken and every byte is counted to the end. A read error
// is returned.
func TestNextEntryIn(t *testing.T) {
	batch := records.Batch{BaseOffset: 9, Records: []records.KeyValue{{Value: bytes.Repeat([]byte("v"), 1<<20)}}}.Bytes()
	junk := bytes.Repeat([]byte{0xff}, 3000)
	fake := bytes.Clone(batch[:records.EntryHeader])
	fake[8], fake[9], fake[10], fake[11] = 0, 0x20, 0, 0 // batchLength 2 MiB
	copy(junk[100:], fake)
	data := append(junk, batch...)

	at, err := records.NextEntryAt(bytes.NewReader(data), 0, int64(len(data)))
	if err != nil || at != 3000 {
		t.Fatalf("NextEntryAt: %d, %v", at, err)
	}
	n, rest, err := records.NextEntryIn(bytes.Clone(data[:64]), bytes.NewReader(data[64:]), 4<<20)
	if err != nil || n != 3000 || !bytes.HasPrefix(rest, batch) {
		t.Errorf("hold 4 MiB: %d skipped, %d bytes after, %v", n, len(rest), err)
	}
	n, rest, err = records.NextEntryIn(bytes.Clone(data[:64]), bytes.NewReader(data[64:]), 512<<10)
	if err != nil || n != int64(len(data)) || rest != nil {
		t.Errorf("hold 512 KiB: %d skipped of %d, %d bytes after, %v", n, len(data), len(rest), err)
	}
	bad := errors.New("broken pipe")
	_, _, err = records.NextEntryIn(bytes.Clone(data[:64]), io.MultiReader(bytes.NewReader(data[64:2000]), errReader{bad}), 4<<20)
	if err != bad {
		t.Errorf("a read error: %v", err)
	}
}

// errReader fails every read with its error.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
