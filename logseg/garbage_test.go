package logseg_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/render"
)

// Bytes that are not an entry, more than a window of them, are skipped
// to the next whole entry without being held (issue 29: 200 MB of random
// bytes took 459 MiB): Read reports what ReadWhole does, the next entry
// found where the decoder finds it, even one larger than the pieces the
// search reads, and its windows hold no more than the window or an entry.
func TestGarbageIsNotHeld(t *testing.T) {
	dir := t.TempDir()
	noise := make([]byte, 3<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
		if noise[i] == 0 {
			noise[i] = 1 // not zero bytes (those are counted)
		}
	}
	big := records.Batch{BaseOffset: 5, Records: []records.KeyValue{{Value: bytes.Repeat([]byte("v"), 3<<20)}}}.Bytes()
	// A header that could be a batch cut by the end: a partial batch.
	partial := binary.BigEndian.AppendUint32(bytes.Clone(oneBatch(0)[:8]), 50<<20)
	partial = append(partial, oneBatch(0)[12:61]...)
	const window = 64 << 10
	// Zero bytes, then bytes that are not an entry.
	zeros := make([]byte, window+100)
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	for _, c := range []struct {
		name string
		seg  []byte
		most int
		once int // most, when the bytes are read once
		want string
	}{
		{"00000000000000000000.log", cat(oneBatch(0), noise, oneBatch(1)), window, window, "3145728 bytes skipped from 0x0045 to 0x300045"},
		{"00000000000000000001.log", noise, 0, 0, "3145728 bytes skipped from 0x0000 to the end"},
		{"00000000000000000002.log", cat(noise, big, oneBatch(1)), len(big), len(big) + 69, "3145728 bytes skipped from 0x0000 to 0x300000"},
		{"00000000000000000004.log", cat(zeros[:50], noise, oneBatch(1)), window, window, "3145778 bytes skipped from 0x0000 to 0x300032"},
		{"00000000000000000005.log", cat(oneBatch(0), zeros[:10], oneBatch(1), noise), window, window, "3145728 bytes skipped from 0x0094 to the end"},
		{"00000000000000000006.log", cat(oneBatch(0), zeros, noise, oneBatch(1)), len(zeros) + len(noise) + 69, len(zeros) + len(noise) + 69, "3211364 bytes skipped from 0x0045 to 0x3100a9"},
		// Read once, a header claiming more than the input holds is
		// read to the end of the input, held: whether it is whole is
		// known only there.
		{"00000000000000000003.log", cat(partial, noise), 0, len(partial) + len(noise), "partial batch: batchLength 52428800, 3145777 bytes present"},
	} {
		path := writeFile(t, dir, c.name, c.seg)
		_, whole, err := logseg.ReadWhole(path, logseg.Options{})
		if err != nil {
			t.Fatal(err)
		}
		most := 0
		sum, err := logseg.Read(path, logseg.Options{Window: window}, func(w *logseg.Window) error {
			most = max(most, len(w.Tree.Bytes))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		brief := func(s logseg.Summary) string {
			out := fmt.Sprintf("%d bytes, %d batches", s.Size, s.Batches)
			for _, p := range s.Problems {
				out += fmt.Sprintf("; %s at %d notice %v", p, p.Off, p.Notice)
			}
			return out
		}
		if got, want := brief(sum), brief(whole); got != want || !bytes.Contains([]byte(got), []byte(c.want)) {
			t.Errorf("%s: Read %s\nReadWhole %s\nwant %q", c.name, got, want, c.want)
		}
		if most > c.most {
			t.Errorf("%s: a window of %d bytes, want at most %d", c.name, most, c.most)
		}
		// The same bytes read once (standard input, a pipe): the same
		// listing and problems, windows as small (the entry found after
		// bytes skipped comes with what was read after it).
		most = 0
		sum, err = logseg.ReadFrom(onlyReader{bytes.NewReader(c.seg)}, path, logseg.Options{Window: window}, func(w *logseg.Window) error {
			most = max(most, len(w.Tree.Bytes))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := brief(sum), brief(whole); got != want {
			t.Errorf("%s read once: %s\nReadWhole %s", c.name, got, want)
		}
		if most > c.once {
			t.Errorf("%s read once: a window of %d bytes, want at most %d", c.name, most, c.once)
		}
	}
}

// onlyReader hides every method of its reader but Read, as standard
// input or a pipe has no other use.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(b []byte) (int, error) { return o.r.Read(b) }

// Bytes that are not an entry are skipped without being held when they
// are read once too (cat 200MB-random | kwire log -): 48 MiB of random
// bytes, then a batch, allocate less than 24 MiB, where the rest of the
// input was held whole (issue 29); the batch after them is found, and
// the problem is the one a file's read reports.
func TestGarbageReadOnceIsNotHeld(t *testing.T) {
	noise := make([]byte, 48<<20)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range noise {
		noise[i] = byte(rng.Uint32()) | 1
	}
	seg := append(noise, oneBatch(7)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sum, err := logseg.ReadFrom(onlyReader{bytes.NewReader(seg)}, "-", logseg.Options{}, func(*logseg.Window) error { return nil })
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("48 MiB of random bytes read once: %d bytes allocated", got)
	if want := "50331648 bytes skipped from 0x0000 to 0x3000000"; sum.Batches != 1 || len(sum.Problems) != 1 || !strings.Contains(sum.Problems[0].String(), want) {
		t.Errorf("%d batches, problems %v, want %q", sum.Batches, sum.Problems, want)
	}
	if got > 24<<20 {
		t.Errorf("48 MiB of random bytes read once: %d bytes allocated", got)
	}
}

// An entry larger than the window is read into room for it made once
// (the file's size is known), not grown by doubling: a batch of 12 MiB
// costs its bytes, a window and the decoder's parts (allocated less than
// 1.25 times its size and 4 MiB), where it cost about twice.
func TestLargeEntryReadOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops what is put in it: allocations are not the code's")
	}
	big := records.Batch{BaseOffset: 5, Records: []records.KeyValue{{Value: bytes.Repeat([]byte("v"), 12<<20)}}}.Bytes()
	path := writeFile(t, t.TempDir(), "00000000000000000000.log", big)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sum, err := logseg.Read(path, logseg.Options{Lazy: true}, func(*logseg.Window) error { return nil })
	runtime.ReadMemStats(&after)
	if err != nil || sum.Batches != 1 || len(sum.Problems) != 0 {
		t.Fatalf("%d batches, %v, %v", sum.Batches, sum.Problems, err)
	}
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("a batch of %d bytes: %d bytes allocated", len(big), got)
	if got > uint64(len(big))*5/4+4<<20 {
		t.Errorf("a batch of %d bytes: %d bytes allocated", len(big), got)
	}
}

// writeSizes records the size of each write.
type writeSizes []int

func (w *writeSizes) Write(b []byte) (int, error) { *w = append(*w, len(b)); return len(b), nil }

// A Lister writes a window's lines as they come, 64 KiB or a line at a
// time, not the window's text whole: 2 MiB of lines of a batch of 128
// records of 16 KiB values are written in pieces of at most 64 KiB and a
// line, all of them.
func TestListerWritesAsItGoes(t *testing.T) {
	var kvs []records.KeyValue
	for range 128 {
		kvs = append(kvs, records.KeyValue{Value: bytes.Repeat([]byte("v"), 16<<10)})
	}
	path := writeFile(t, t.TempDir(), "00000000000000000000.log", records.Batch{Records: kvs}.Bytes())
	for _, js := range []bool{false, true} {
		var w writeSizes
		l := logseg.Lister{JSON: js}
		header := ""
		if _, err := logseg.Read(path, logseg.Options{Lazy: true}, func(win *logseg.Window) error { return l.Window(win, &header, &w) }); err != nil {
			t.Fatal(err)
		}
		total, most := 0, 0
		for _, n := range w {
			total, most = total+n, max(most, n)
		}
		if total < 128*(16<<10) || most > 64<<10+17<<10 {
			t.Errorf("json %v: %d bytes in %d writes, the largest %d", js, total, len(w), most)
		}
	}
}

// A record's value larger than a piece is written as it is encoded, not
// in a line built whole: a value of 2 MiB (4 MiB of hex, written in one
// piece before) is written in pieces of at most 64 KiB and a piece's
// encoding, in JSON and text, every byte of it.
func TestListerWritesALargeValueInPieces(t *testing.T) {
	value := bytes.Repeat([]byte("v\x00"), 1<<20)
	path := writeFile(t, t.TempDir(), "00000000000000000000.log", records.Batch{Records: []records.KeyValue{{Value: value}}}.Bytes())
	for _, js := range []bool{false, true} {
		var w writeSizes
		l := logseg.Lister{JSON: js, Values: render.ValuesHex}
		header := ""
		if _, err := logseg.Read(path, logseg.Options{Lazy: true}, func(win *logseg.Window) error { return l.Window(win, &header, &w) }); err != nil {
			t.Fatal(err)
		}
		total, most := 0, 0
		for _, n := range w {
			total, most = total+n, max(most, n)
		}
		if total < 2*len(value) || most > 64<<10+2*48<<10 {
			t.Errorf("json %v: %d bytes in %d writes, the largest %d", js, total, len(w), most)
		}
	}
}
