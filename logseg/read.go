package logseg

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// DefaultWindow is about the most bytes of a file that Read reads and
// decodes at once: 8 MiB.
const DefaultWindow = 8 << 20

// Options say how files are read and decoded.
type Options struct {
	// Codec decodes what record values hold: control records' messages
	// and, in metadata files, KRaft metadata records (its specs and
	// DecodeRecord, through Codec.RecordsOptions). Nil leaves them bytes.
	Codec *codec.Codec
	// MaxDecompressed bounds what one compressed payload may decompress
	// to (records.Options.MaxDecompressed; 0 is its default).
	MaxDecompressed int64
	// Metadata decodes the values of data records as KRaft metadata
	// records in every file; they always are in the files IsMetadata
	// names.
	Metadata bool
	// Window is about the most bytes Read reads and decodes at once
	// (whole entries; one larger entry is read whole); 0 is
	// DefaultWindow.
	Window int
}

// recordsOptions are the decoding options of one file.
func (o Options) recordsOptions(path string) records.Options {
	var ro records.Options
	if o.Codec != nil {
		ro = o.Codec.RecordsOptions()
	}
	ro.MaxDecompressed = o.MaxDecompressed
	ro.Metadata = o.Metadata || IsMetadata(path)
	ro.Path = filepath.Base(path)
	return ro
}

// Window is a part of a file decoded on its own: whole log entries.
type Window struct {
	// File is the file's path, as given to Read.
	File string
	// Off is the byte offset of the window in the file.
	Off int64
	// Tree is the window's decode: its Bytes are the window's bytes, its
	// offsets relative to Off (its Problems are not shifted: Summary has
	// them as the whole file's).
	Tree *tree.Tree
	// Batches are the window's batches (records.LogBatches of Tree).
	Batches []records.LogBatch
	// Metadata is set when data record values are decoded as metadata
	// records.
	Metadata bool
	codec    *codec.Codec
}

// Summary is what Read or ReadWhole found in a file.
type Summary struct {
	// Size is the file's size in bytes.
	Size int64
	// Batches is the number of log entries that decoded as batches (v2
	// batches and legacy messages, corrupt ones included).
	Batches int
	// Problems are the problems of the bytes, as a decode of the whole
	// file reports them (offsets and batch indexes the file's).
	Problems []Problem
}

// Problem is a problem of a log file at byte Off of the file (which may
// lie past the int32 offsets of a tree), or, with Off -1, a finding about
// the whole file or directory (Msg alone).
type Problem struct {
	tree.Problem
	Off int64
}

// String is tree.Problem's "path at 0x0030: msg" with the file's offset,
// or the Msg of a finding.
func (p Problem) String() string {
	if p.Off < 0 {
		return p.Msg
	}
	if p.Off == int64(int32(p.Off)) {
		q := p.Problem
		q.Off = int32(p.Off)
		return q.String()
	}
	s := fmt.Sprintf("%s at 0x%x", cmp.Or(p.Path, "records"), p.Off)
	if p.VOff >= 0 {
		s += fmt.Sprintf(" (decompressed v0x%04x)", uint32(p.VOff))
	}
	return s + ": " + p.Msg
}

func fileProblem(msg string, notice bool) Problem {
	return Problem{Problem: tree.Problem{VOff: -1, Msg: msg, Notice: notice}, Off: -1}
}

// Findings are the problems to report of a file whose Summary s is: its
// Problems, and what the file held when it held no record batch. An empty
// file is an error ("empty file: no record batches"), or a notice when walked
// is set (the file was found in a directory, where a broker's newly
// rolled segment is empty). A file with bytes and no batch is an error
// "no record batch at offset 0: …" naming the first problem (random
// bytes, a file that is not a segment, a first batch still being
// written), which it replaces. A partial batch at the end after at least
// one batch stays the notice it is: a segment the broker is appending to.
func (s Summary) Findings(walked bool) []Problem {
	switch {
	case s.Size == 0:
		return []Problem{fileProblem("empty file: no record batches", walked)}
	case s.Batches > 0:
		return s.Problems
	case len(s.Problems) == 0:
		return []Problem{fileProblem("no record batch at offset 0", false)}
	}
	out := []Problem{fileProblem("no record batch at offset 0: "+s.Problems[0].String(), false)}
	return append(out, s.Problems[1:]...)
}

// Read decodes the file at path a window of whole log entries at a time
// and calls fn with each window in order; an error of fn ends Read with
// it. The windows list exactly what a decode of the whole file lists, and
// Summary's Problems are that decode's, with two differences: the bound on
// the decompressed bytes of one decode (records.DefaultMaxDecompressedTotal)
// applies per window, and an entry whose length is negative or runs past
// the end of the file is read with the rest of the file as one window (as
// the decoder takes it as one invalid or partial entry). Errors are those
// of opening and reading the file.
func Read(path string, o Options, fn func(w *Window) error) (Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Summary{}, err
	}
	ro := o.recordsOptions(path)
	window := o.Window
	if window <= 0 {
		window = DefaultWindow
	}
	s := Summary{Size: fi.Size()}
	var (
		buf     []byte
		off     int64
		virtual int
	)
	for off < s.Size {
		buf, err = nextWindow(f, off, s.Size, window, buf)
		if err != nil {
			return s, err
		}
		t := records.Decode(buf, ro)
		for _, p := range t.Problems {
			s.Problems = append(s.Problems, shiftProblem(p, ro.Path, off, s.Batches, virtual))
		}
		w := &Window{File: path, Off: off, Tree: t, Batches: records.LogBatches(t), Metadata: ro.Metadata, codec: o.Codec}
		if err := fn(w); err != nil {
			return s, err
		}
		s.Batches += entries(t)
		virtual += len(t.Virtual)
		off += int64(len(buf))
	}
	return s, nil
}

// ReadWhole decodes the file at path whole, into one tree (for a view of
// every byte): the tree and its Summary.
func ReadWhole(path string, o Options) (*tree.Tree, Summary, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Summary{}, err
	}
	t := records.Decode(data, o.recordsOptions(path))
	s := Summary{Size: int64(len(data)), Batches: entries(t)}
	for _, p := range t.Problems {
		s.Problems = append(s.Problems, Problem{p, int64(p.Off)})
	}
	return t, s, nil
}

// entries counts the RecordBatch nodes at the top of t.
func entries(t *tree.Tree) int {
	n := 0
	t.Children(0, func(k int32) bool {
		if t.Nodes[k].Kind == tree.RecordBatch {
			n++
		}
		return true
	})
	return n
}

// nextWindow reads the log entries of file (size bytes) from off: as many
// whole entries (offset, length, then length bytes) as fit in window
// bytes, at least one, or the rest of the file from an entry whose length
// is negative or goes past the end. buf is reused.
func nextWindow(f io.ReaderAt, off, size int64, window int, buf []byte) ([]byte, error) {
	const overhead = 12 // baseOffset int64, length int32
	want := min(max(int64(window), overhead), size-off)
	buf, err := readAt(f, buf, off, want)
	if err != nil {
		return nil, err
	}
	if want < overhead {
		// Less than a header left: the end of the file.
		return buf, nil
	}
	end := int64(0)
	for {
		if end+overhead > int64(len(buf)) {
			return buf[:end], nil
		}
		length := int64(int32(binary.BigEndian.Uint32(buf[end+8:])))
		total := overhead + length
		switch {
		case length < 0 || off+end+total > size:
			// The format cannot say where this entry ends: the decoder
			// takes the rest of the file as one entry, and so does the
			// window.
			return readAt(f, buf, off, size-off)
		case end+total <= int64(len(buf)):
			end += total
		case end > 0:
			return buf[:end], nil
		default:
			// One entry larger than the window.
			return readAt(f, buf, off, total)
		}
	}
}

// readAt reads n bytes of f at off into buf (grown as needed).
func readAt(f io.ReaderAt, buf []byte, off, n int64) ([]byte, error) {
	if int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := f.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, err
	}
	return buf, nil
}

// shiftProblem places a problem of a window that starts at byte off of
// the file, after batches earlier entries and virtual decompressed bytes,
// as a decode of the whole file reports it: offsets moved, and the entry
// index after the path prefix ("x.log[3]…") counted from the file's start.
func shiftProblem(p tree.Problem, prefix string, off int64, batches, virtual int) Problem {
	if p.VOff >= 0 {
		p.VOff += int32(virtual)
	}
	if rest, ok := strings.CutPrefix(p.Path, prefix+"["); ok {
		if k := strings.IndexByte(rest, ']'); k > 0 {
			if n, err := strconv.Atoi(rest[:k]); err == nil {
				p.Path = prefix + "[" + strconv.Itoa(n+batches) + rest[k:]
			}
		}
	}
	return Problem{p, off + int64(p.Off)}
}
