package logseg

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// DefaultWindow is about the most bytes of a file that Read reads and
// decodes at once: 1 MiB.
const DefaultWindow = 1 << 20

// Options say how files are read and decoded.
type Options struct {
	// Codec decodes what record values hold: control records' messages
	// and, in metadata files, KRaft metadata records (its specs and
	// DecodeRecord, through Codec.RecordsOptions). Nil leaves them bytes.
	Codec *codec.Codec
	// MaxDecompressed bounds what one compressed payload may decompress
	// to (records.Options.MaxDecompressed; 0 is its default).
	MaxDecompressed int64
	// MaxDecompressedTotal bounds what the compressed payloads of one
	// file decompress to together: its records.Budget (0:
	// records.DefaultBudget), however many windows it is read in.
	MaxDecompressedTotal int64
	// MaxRecords bounds the records of one compressed payload that Read
	// decodes (records.Options.MaxRecords; 0: what the payload's bytes
	// allow, past which it is reported as a bomb).
	MaxRecords int64
	// MaxRecordBytes bounds the bytes of one record of a streamed
	// compressed payload that Read holds to decode it
	// (records.Options.MaxRecordBytes; 0: records.DefaultMaxRecordBytes;
	// negative: no bound).
	MaxRecordBytes int64
	// MaxTreeBytes bounds the bytes of a file that ReadWhole reads and
	// holds (0: all of them): past it, the tree ends at the last whole
	// entry within them (or there, when none ends), with a notice.
	MaxTreeBytes int64
	// MaxNodes bounds the nodes of ReadWhole's tree (0: no bound but
	// what the payloads' bytes allow), and in Read, whose parts are
	// handed over, those of the inner messages of a legacy wrapper, held
	// in one part (0: records.DefaultMaxNodes): records.Options.MaxNodes.
	MaxNodes int
	// Metadata decodes the values of data records as KRaft metadata
	// records in every file; they always are in the files IsMetadata
	// names.
	Metadata bool
	// Window is about the most bytes Read reads and decodes at once
	// (whole entries; one larger entry is read whole); 0 is
	// DefaultWindow.
	Window int
	// Stdin is what Read and ReadWhole read for the path "-" (nil: none,
	// an error).
	Stdin io.Reader
	// Decoder says what the records of every file hold: an internal
	// topic's records (a spec.Topic: "offsets", "transactions",
	// "share-state", "remote-log-metadata"), or "metadata" (as Metadata
	// says). "" decodes each file by its directory's name
	// ("__consumer_offsets-7": TopicOf) or as IsMetadata says.
	Decoder string
	// ShowSecrets keeps credentials in Window.Describe's decoded records;
	// by default the values package secret finds (the salts and keys of
	// UserScramCredentialRecord, a sensitive ConfigRecord's value) are
	// "<redacted, N bytes>" in Record.Data.
	ShowSecrets bool
	// Lazy makes Read's windows hold each plain record as one node
	// (records.Options.Lazy): for a listing of the windows' Batches, which
	// reads their fields, not for a view of Window.Tree (records.Expand
	// makes it whole). ReadWhole ignores it.
	Lazy bool
}

// recordsOptions are the decoding options of one file.
func (o Options) recordsOptions(path string) records.Options {
	var ro records.Options
	if o.Codec != nil {
		ro = o.Codec.RecordsOptions()
	}
	ro.MaxDecompressed = o.MaxDecompressed
	ro.MaxRecords = o.MaxRecords
	ro.MaxRecordBytes = o.MaxRecordBytes
	ro.MaxNodes = o.MaxNodes
	ro.Budget = records.NewBudget(o.MaxDecompressedTotal)
	ro.Metadata = o.Metadata || IsMetadata(path)
	if t := o.topic(path); t != "" && o.Codec != nil {
		ro.KeyValue, ro.Metadata = KeyValueDecoder(o.Codec, t), false
	} else if o.Decoder == "metadata" {
		ro.Metadata = true
	} else if o.Decoder != "" {
		ro.Metadata = false
	}
	ro.Path = filepath.Base(path)
	if path == "-" {
		ro.Path = "stdin"
	}
	// A snapshot is written once, whole: a cut at its end is an error. A
	// segment may have been grown ahead with zero bytes (file.preallocate).
	ro.Complete = IsSnapshot(path)
	ro.Preallocated = !ro.Complete
	ro.Lazy = o.Lazy
	return ro
}

// IsSnapshot says whether the file at path is a KRaft snapshot
// (*.checkpoint).
func IsSnapshot(path string) bool { return strings.HasSuffix(path, ".checkpoint") }

// NotLog says what the file at path is when its name says it is one of
// the other files of a partition directory, which Read and ReadWhole do
// not read: "an offset index (*.index)", "a time index (*.timeindex)", "a
// transaction index (*.txnindex)", "a producer state snapshot
// (*.snapshot)"; "" for any other name.
func NotLog(path string) string {
	for _, k := range []struct{ ext, what string }{
		{".index", "an offset index"},
		{".timeindex", "a time index"},
		{".txnindex", "a transaction index"},
		{".snapshot", "a producer state snapshot"},
	} {
		if strings.HasSuffix(path, k.ext) {
			return k.what + " (*" + k.ext + ")"
		}
	}
	return ""
}

// partNodes is about the most nodes of one Window's tree: 64 Ki nodes,
// about 2.5 MiB (records.DecodeParts).
const partNodes = 1 << 16

// Window is a part of a file decoded on its own: whole log entries, or,
// when they are many records, a run of them: a part of a window
// (records.DecodeParts), or of a batch.
type Window struct {
	// File is the file's path, as given to Read.
	File string
	// Off is the byte offset of the window in the file (the parts of one
	// window have the same).
	Off int64
	// Tree is the window's decode: its Bytes are the window's bytes, its
	// offsets relative to Off (its Problems are not shifted: Summary has
	// them as the whole file's). It holds only its own decompressed bytes
	// and is valid only during the call of Read's fn.
	Tree *tree.Tree
	// Batches are the window's batches (records.LogBatches of Tree).
	Batches []records.LogBatch
	// Continued says that the first of Batches continues the last of the
	// window before: the same batch, with its next records.
	Continued bool
	// Metadata is set when data record values are decoded as metadata
	// records.
	Metadata bool
	// Topic is the internal topic whose records the file holds, decoded
	// as such (Options.Decoder, TopicOf); "" for none.
	Topic spec.Topic
	codec *codec.Codec
	// showSecrets is Options.ShowSecrets.
	showSecrets bool
	// batches and virtual are the entries and decompressed bytes of the
	// windows before this one (to place its problems in the file).
	batches, virtual int
	// decoded are the trees of the record values the window's decode
	// decoded, for Describe.
	decoded valueTrees
}

// valueTree is a record value's decode: what records.Options.Decode
// returned for it, with the message it was asked to decode as.
type valueTree struct {
	m   *spec.Message
	n   int
	t   *tree.Tree
	err error
}

// valueTrees are the decodes of the record values of one part, by the
// address of their first byte: Describe takes them rather than decoding
// the values again.
type valueTrees map[*byte]valueTree

// keep wraps decode so that what it decodes is kept in vt.
func (vt valueTrees) keep(decode func([]byte, *spec.Message, int16) (*tree.Tree, error)) func([]byte, *spec.Message, int16) (*tree.Tree, error) {
	if decode == nil {
		return nil
	}
	return func(data []byte, m *spec.Message, version int16) (*tree.Tree, error) {
		t, err := decode(data, m, version)
		if len(data) > 0 && version == 0 {
			vt[&data[0]] = valueTree{m: m, n: len(data), t: t, err: err}
		}
		return t, err
	}
}

// get is the decode of value as m that the window's decode made, if any.
func (vt valueTrees) get(value []byte, m *spec.Message) (*tree.Tree, error, bool) {
	if len(value) == 0 {
		return nil, nil, false
	}
	d, ok := vt[&value[0]]
	if !ok || d.m != m || d.n != len(value) {
		return nil, nil, false
	}
	return d.t, d.err, true
}

// Summary is what Read or ReadWhole found in a file.
type Summary struct {
	// Size is the file's size in bytes.
	Size int64
	// Batches is the number of log entries that decoded as batches (v2
	// batches and legacy messages, corrupt ones included).
	Batches int
	// Problems are the problems of the bytes, as a decode of the whole
	// file reports them (offsets and batch indexes the file's): Read
	// keeps the first MaxProblems, and counts the others in More and
	// MoreErrors (those that are not notices).
	Problems         []Problem
	More, MoreErrors int
	// NotLog is set when the file was not read because its name says what
	// else it is (NotLog's text).
	NotLog string
	// Stdin is set when the bytes came from standard input (the path "-").
	Stdin bool
	// Cut is set when ReadWhole's tree was cut by Options.MaxTreeBytes
	// before the end of any entry: the first entry is cut by the limit,
	// not the file, and is no finding of the file's.
	Cut bool
}

// Problem is a problem of a log file at byte Off of the file (which may
// lie past the int32 offsets of a tree), or, with Off -1, a finding about
// the whole file or directory (Msg alone).
type Problem struct {
	tree.Problem
	Off int64
	// dir marks a finding about a directory (Source.Findings).
	dir bool
}

// problemJSON is a problem's JSON line.
type problemJSON struct {
	Type       string `json:"type"`
	Kind       string `json:"kind"`
	File       string `json:"file"`
	FileOffset *int64 `json:"file_offset,omitempty"`
	VOffset    *int32 `json:"decompressed_offset,omitempty"`
	Path       string `json:"path,omitempty"`
	Message    string `json:"message"`
}

// AppendJSON appends the problem's JSON line, with its line end, for the
// file or directory at path. Members, in order: "type" ("problem", or
// "notice" for a notice, as kwire pcap's problem lines), "kind"
// ("records" for a problem in the bytes, "file" or "dir" for a finding
// about what a file or directory held), "file" (path), "file_offset"
// (bytes; none for a finding), "decompressed_offset" (in a decompressed
// view), "path" (the entry's path, "x.log[2].crc"), "message" (String).
func (p Problem) AppendJSON(dst []byte, path string) []byte {
	j := problemJSON{Type: "problem", Kind: "records", File: path, Path: p.Path, Message: p.String()}
	if p.Notice {
		j.Type = "notice"
	}
	switch {
	case p.dir:
		j.Kind = "dir"
	case p.Off < 0:
		j.Kind = "file"
	default:
		off := p.Off
		j.FileOffset = &off
		if p.VOff >= 0 {
			v := p.VOff
			j.VOffset = &v
		}
	}
	line, _ := json.Marshal(j) // strings and numbers: cannot fail
	return append(append(dst, line...), '\n')
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
// Problems, and what the file held when it held no record batch. A file
// that NotLog names is an error ("an offset index (*.index), not a log
// segment (*.log) or a KRaft snapshot (*.checkpoint)"). Empty standard
// input is an error ("standard input is empty: no record batches"). An
// empty file is an error ("empty file: no record batches"), or a notice
// when walked is set
// (the file was found in a directory, where a broker's newly rolled
// segment is empty). A file with bytes and no batch is an error "no record
// batch at offset 0: …" naming the first problem (random bytes, a file
// that is not a segment, a first batch still being written), which it
// replaces; when walked or Cut is set and its problems are all notices (a
// first batch being written or cut by the tree's bytes limit, preallocated
// zero bytes) they stay notices. A
// partial batch at the end of a segment after at least one batch stays
// the notice it is: a segment the broker is appending to.
func (s Summary) Findings(walked bool) []Problem {
	switch {
	case s.NotLog != "":
		return []Problem{fileProblem(s.NotLog+", not a log segment (*.log) or a KRaft snapshot (*.checkpoint)", false)}
	case s.Size == 0 && s.Stdin:
		return []Problem{fileProblem("standard input is empty: no record batches", false)}
	case s.Size == 0:
		return []Problem{fileProblem("empty file: no record batches", walked)}
	case s.Batches > 0:
		return s.withMore(s.Problems)
	case len(s.Problems) == 0:
		return []Problem{fileProblem("no record batch at offset 0", false)}
	case (walked || s.Cut) && notices(s.Problems) && s.MoreErrors == 0:
		return s.withMore(s.Problems)
	}
	out := []Problem{fileProblem("no record batch at offset 0: "+s.Problems[0].String(), false)}
	return s.withMore(append(out, s.Problems[1:]...))
}

// withMore is ps and the problem saying how many were not kept, if any.
func (s Summary) withMore(ps []Problem) []Problem {
	if m := s.moreProblem(); m != nil {
		return append(ps[:len(ps):len(ps)], *m)
	}
	return ps
}

// MaxProblems is how many problems of a file Read keeps (Summary): a
// segment of a million keyless records of __consumer_offsets held a
// problem each until the file's end (a 3 MB file of count bombs, 900 MiB).
const MaxProblems = 10000

// add keeps problem p, or counts it past MaxProblems.
func (s *Summary) add(p Problem) {
	if len(s.Problems) < MaxProblems {
		s.Problems = append(s.Problems, p)
		return
	}
	s.More++
	if !p.Notice {
		s.MoreErrors++
	}
}

// moreProblem is the problem that says how many problems Read did not
// keep, or nil.
func (s Summary) moreProblem() *Problem {
	if s.More == 0 {
		return nil
	}
	// A notice: the errors it counts are the caller's to count
	// (MoreErrors).
	p := fileProblem(fmt.Sprintf("%d more problems (%d of them errors) not listed: a file's first %d are", s.More, s.MoreErrors, MaxProblems), true)
	return &p
}

func notices(ps []Problem) bool {
	for _, p := range ps {
		if !p.Notice {
			return false
		}
	}
	return true
}

// Read decodes the file at path ("-": Options.Stdin) a window of whole
// log entries at a time and calls fn with each window in order; an error
// of fn ends Read with it. A file that NotLog names is not read (its
// Summary says so). See ReadFrom.
func Read(path string, o Options, fn func(w *Window) error) (Summary, error) {
	if path == "-" {
		if o.Stdin == nil {
			return Summary{}, errors.New("-: no standard input to read")
		}
		s, err := ReadFrom(o.Stdin, path, o, fn)
		s.Stdin = true
		return s, err
	}
	if what := NotLog(path); what != "" {
		return Summary{NotLog: what}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, err
	}
	defer f.Close()
	return ReadFrom(f, path, o, fn)
}

// ReadFrom decodes the log file that r streams (name is its path, which
// says how it is decoded: IsMetadata, IsSnapshot) a window of whole log
// entries at a time, as Read does, each window in parts of about 64 Ki
// nodes, a batch of many records in parts of its records (Window.
// Continued): memory is bounded by the window's bytes, one part, and
// one payload's decompressed bytes up to 8 MiB, whatever they decompress
// to. The windows list exactly what a decode of the whole file lists, and
// Summary's Problems are that decode's, with two differences: the bound
// of the checksums of a search for the next batch applies per window (the
// decompression budget, MaxDecompressedTotal, is the file's), and from an entry that is
// not whole (records.EntrySize: a header Kafka's reader does not take, a
// length past the end) the rest of the file is one window, as the decoder
// takes it (a partial batch, or bytes it skips to the next batch), except
// zero bytes that run to the end of the file (a preallocated segment),
// which are counted and not held, and bytes that are not an entry, more
// than a window of them, which are skipped to the next whole entry
// without being held (records.NextEntryAt; when r is not a regular file,
// records.NextEntryIn, which takes no entry past streamSkipHold, 16 MiB,
// as the next). Memory grows with the window, one
// entry, or that rest, never with what a length claims. Errors are those
// of reading r and of fn.
func ReadFrom(r io.Reader, name string, o Options, fn func(w *Window) error) (Summary, error) {
	ro := o.recordsOptions(name)
	window := int64(o.Window)
	if window <= 0 {
		window = DefaultWindow
	}
	window = max(window, records.EntryHeader)
	var (
		s       Summary
		buf     []byte
		eof     bool
		virtual int
	)
	fa, size := seekable(r)
	// fill reads until buf holds n bytes or r ends, growing buf with the
	// bytes that arrive.
	fill := func(n int64) error {
		for !eof && int64(len(buf)) < n {
			if len(buf) == cap(buf) {
				grow := min(n-int64(len(buf)), max(int64(len(buf)), 64<<10))
				if fa != nil {
					// The file's size is known: room for what it holds
					// of the n bytes, at once, rather than doubling.
					grow = max(min(n, size-s.Size)-int64(len(buf)), 1)
				}
				buf = slices.Grow(buf, int(grow))
			}
			k, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+k]
			if err == io.EOF {
				eof = true
			} else if err != nil {
				return err
			}
		}
		return nil
	}
	for {
		if err := fill(window); err != nil {
			return s, err
		}
		if len(buf) == 0 {
			return s, nil
		}
		if len(buf) >= zeroRun && records.EntrySize(buf) == 0 && allZero(buf) {
			// Zero bytes: to the end of the file (space a broker
			// preallocated), they are counted, not held.
			n, rest, err := countZeros(r, buf, eof)
			if err != nil {
				return s, err
			}
			if rest == nil {
				ro.FileOffset = s.Size
				s.add(shiftProblem(records.ZeroTail(n, 0, 0, ro), ro.Path, s.Size, s.Batches, virtual))
				s.Size += n
				return s, nil
			}
			// Not to the end: decoded as they are.
			buf = append(make([]byte, n, n+int64(len(rest))), rest...)
		}
		if skip := garbage(buf, fa, s.Size, size); skip {
			// Bytes that are not an entry, more than a window of them: the
			// next entry is searched for in the file, as the decoder
			// searches for it, without holding what lies before it.
			next, err := records.NextEntryAt(fa, s.Size, size)
			if err != nil {
				return s, err
			}
			n := size - s.Size
			if next >= 0 {
				n = next - s.Size
			}
			ro.FileOffset = s.Size
			zero := n <= int64(len(buf)) && allZero(buf[:n])
			s.add(shiftProblem(records.Skipped(buf, n, next >= 0, zero, 0, ro), ro.Path, s.Size, s.Batches, virtual))
			s.Size += n
			if _, err := fa.Seek(s.Size, io.SeekStart); err != nil {
				return s, err
			}
			buf, eof = buf[:0], s.Size >= size
			continue
		}
		if fa == nil && !eof && len(buf) >= records.EntryHeader && records.EntrySize(buf) == 0 && !allZero(buf) {
			// Bytes that are not an entry, read once (standard input, a
			// pipe): the next entry is searched for as they are read,
			// without holding what lies before it.
			head := slices.Clone(buf)
			n, rest, err := records.NextEntryIn(buf, r, streamSkipHold)
			if err != nil {
				return s, err
			}
			ro.FileOffset = s.Size
			zero := n <= int64(len(head)) && allZero(head[:n])
			s.add(shiftProblem(records.Skipped(head, n, rest != nil, zero, 0, ro), ro.Path, s.Size, s.Batches, virtual))
			s.Size += n
			buf, eof = rest, rest == nil
			continue
		}
		end, err := windowEnd(buf, fill, func() []byte { return buf })
		if err != nil {
			return s, err
		}
		ro.FileOffset = s.Size
		batches := 0
		decoded := valueTrees{}
		ro.Decode = decoded.keep(ro.Decode)
		err = records.DecodeParts(buf[:end], ro, partNodes, func(t *tree.Tree, continued bool) error {
			defer clear(decoded)
			for _, p := range t.Problems {
				s.add(shiftProblem(p, ro.Path, s.Size, s.Batches, virtual))
			}
			w := &Window{File: name, Off: s.Size, Tree: t, Batches: records.LogBatches(t), Continued: continued, Metadata: ro.Metadata, codec: o.Codec, showSecrets: o.ShowSecrets, batches: s.Batches, virtual: virtual, decoded: decoded}
			if ro.KeyValue != nil {
				w.Topic = o.topic(name)
			}
			if err := fn(w); err != nil {
				return err
			}
			batches += entries(t)
			if continued {
				batches--
			}
			virtual += len(t.Virtual)
			return nil
		})
		if err != nil {
			return s, err
		}
		s.Batches += batches
		s.Size += int64(end)
		buf = buf[:copy(buf, buf[end:])]
	}
}

// seekable is r as a file read from its start, with its size, when it
// is a regular file at its start (nil otherwise): one ReadFrom may search
// for the next entry without holding the bytes before it (garbage).
func seekable(r io.Reader) (*os.File, int64) {
	f, ok := r.(*os.File)
	if !ok {
		return nil, 0
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, 0
	}
	if at, err := f.Seek(0, io.SeekCurrent); err != nil || at != 0 {
		return nil, 0
	}
	return f, st.Size()
}

// garbage reports whether the window buf, at offset off of file f of size
// bytes, starts with bytes that are not an entry (records.EntrySize, or
// one that runs past the end of the file), and the file
// holds more than buf after off, and buf is not all zero bytes (whose
// run may go on past it): ReadFrom skips them without holding them
// (records.NextEntryAt).
func garbage(buf []byte, f *os.File, off, size int64) bool {
	if f == nil || len(buf) < records.EntryHeader || size-off <= int64(len(buf)) || allZero(buf) {
		return false
	}
	total := records.EntrySize(buf)
	return total == 0 || off+total > size
}

// streamSkipHold is the largest entry ReadFrom finds after bytes that are
// not an entry when it reads them once (standard input, a pipe): it holds
// the bytes of each candidate while it checks it (records.NextEntryIn).
// Kafka's brokers take batches of 1 MB by default (message.max.bytes).
const streamSkipHold = 16 << 20

// zeroRun is the fewest zero bytes at the start of a window that ReadFrom
// counts without holding, when they run to the end: a length of 0 (fewer
// could be the baseOffset of a batch cut short).
const zeroRun = 12

// countZeros reads r on after buf, which holds zero bytes only (eof: r
// has ended), while what it reads is zero bytes: it returns how many zero
// bytes there are from buf's start, and rest nil when they run to the end
// of r, else what it read from the first byte that is not zero on.
func countZeros(r io.Reader, buf []byte, eof bool) (n int64, rest []byte, err error) {
	n = int64(len(buf))
	if eof {
		return n, nil, nil
	}
	chunk := buf[:cap(buf)]
	for {
		k, err := r.Read(chunk)
		if i := slices.IndexFunc(chunk[:k], func(c byte) bool { return c != 0 }); i >= 0 {
			return n + int64(i), slices.Clone(chunk[i:k]), nil
		}
		n += int64(k)
		if err == io.EOF {
			return n, nil, nil
		}
		if err != nil {
			return n, nil, err
		}
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// windowEnd is where the window that buf starts ends: after as many whole
// entries as buf holds, at least one (fill reads more of it: bytes() is
// buf after fill), up to one that is not an entry; or the end of the file
// when the first is not an entry or runs past the end.
func windowEnd(buf []byte, fill func(int64) error, bytes func() []byte) (int, error) {
	end := 0
	for {
		if end+records.EntryHeader > len(buf) {
			if end == 0 {
				// Fewer bytes than a header left: the end of the file.
				end = len(buf)
			}
			return end, nil
		}
		total := records.EntrySize(buf[end:])
		switch {
		case total == 0 && end > 0:
			// Not an entry: it starts the next window.
			return end, nil
		case total == 0:
			// Not an entry: the decoder takes the rest of the file (to
			// skip to the next batch), and so does the window.
			err := fill(1<<63 - 1)
			return len(bytes()), err
		case int64(end)+total <= int64(len(buf)):
			end += int(total)
		case end > 0:
			return end, nil
		default:
			// One entry larger than the window, or past the end of the
			// file (then the rest is the window).
			err := fill(total)
			return int(min(total, int64(len(bytes())))), err
		}
	}
}

// ReadWhole decodes the file at path ("-": Options.Stdin) whole, into one
// tree (for a view of every byte): the tree and its Summary. A file that
// NotLog names is not read (nil tree). A file with a data record value
// that is a metadata record (IsMetadataRecord) is decoded as a metadata
// log whatever its path. Unless Options.ShowSecrets, the tree's
// credentials are redacted (secret.Redact).
func ReadWhole(path string, o Options) (*tree.Tree, Summary, error) {
	var data []byte
	var size int64
	var err error
	switch {
	case path == "-" && o.Stdin == nil:
		return nil, Summary{}, errors.New("-: no standard input to read")
	case path == "-":
		data, size, err = readTree(o.Stdin, o.MaxTreeBytes)
	case NotLog(path) != "":
		return nil, Summary{NotLog: NotLog(path)}, nil
	default:
		var f *os.File
		if f, err = os.Open(path); err == nil {
			data, size, err = readTree(f, o.MaxTreeBytes)
			f.Close()
		}
	}
	if err != nil {
		return nil, Summary{}, err
	}
	ro := o.recordsOptions(path)
	var cut *Problem
	cutFirst := false
	if size > int64(len(data)) {
		msg := "the entries that end within %s, the tree's bytes limit"
		whole := func() []byte { return data }
		if n, _ := windowEnd(data, func(int64) error { return nil }, whole); n < len(data) {
			data = data[:n]
		} else {
			// No entry ends within them: what they hold is shown, its
			// end cut by the limit, not by the file.
			msg = "no entry ends within %s, the tree's bytes limit"
			// The first entry is cut by the limit, not the file, only
			// when the file holds all the bytes it claims; else the
			// file cuts it too, an error as without the limit.
			// (Fewer bytes than an entry's header say nothing of it: the
			// limit cut them.)
			if n := records.EntrySize(data); n > 0 && n <= size || len(data) < records.EntryHeader {
				msg += ": the bytes at the end are cut there, not in the file"
				ro.Preallocated, ro.Complete = false, false
				cutFirst = true
			} else {
				// The file cuts the entry: its bytes present are the file's.
				ro.Unread = size - int64(len(data))
			}
		}
		cut = &Problem{Problem: tree.Problem{Off: int32(len(data)), VOff: -1, Path: ro.Path, Notice: true,
			Msg: fmt.Sprintf("the tree shows the first %s of the file's %s ("+msg+"): the rest is not read", wire.Bytes(len(data)), wire.Bytes(size), wire.Bytes(o.MaxTreeBytes))}, Off: int64(len(data))}
	}
	ro.Lazy = false // the tree is for a view
	t := records.Decode(data, ro)
	if !ro.Metadata && ro.KeyValue == nil && holdsMetadata(t, o.Codec) {
		// A metadata log by its content (a copy, standard input): decoded
		// as one, so that its credentials are in the tree to redact.
		ro.Metadata = true
		ro.Budget = records.NewBudget(o.MaxDecompressedTotal) // decoded again
		t = records.Decode(data, ro)
	}
	s := Summary{Size: max(size, int64(len(data))), Batches: entries(t), Stdin: path == "-", Cut: cutFirst}
	for _, p := range t.Problems {
		s.Problems = append(s.Problems, Problem{Problem: p, Off: int64(p.Off)})
	}
	if cut != nil {
		s.Problems = append(s.Problems, *cut)
	}
	secret.Redact(t, secret.Options{Show: o.ShowSecrets})
	return t, s, nil
}

// readTree reads r whole, or its first max bytes when max is positive
// (the rest is counted, not held): the bytes and how many r held. A file
// that says its size is read into an array of it.
func readTree(r io.Reader, max int64) ([]byte, int64, error) {
	if max <= 0 {
		max = 1<<63 - 1
	}
	room := int64(64 << 10)
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			room = fi.Size() + 1 // and one to see the end
		}
	}
	// Doubled up to max, never past it: at max the array outgrown holds
	// half as much (grown a quarter at a time, as append does, a pipe
	// of 200 MB held a 32 MiB array and a 40 MiB one at once).
	b := make([]byte, 0, min(max, room))
	for int64(len(b)) < max {
		if len(b) == cap(b) {
			grow := int64(64 << 10)
			if len(b) > 64<<10 {
				grow = int64(len(b))
			}
			b = slices.Grow(b, int(min(max-int64(len(b)), grow)))
		}
		n, err := r.Read(b[len(b):min(int64(cap(b)), max)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, int64(len(b)), nil
		}
		if err != nil {
			return nil, 0, err
		}
	}
	rest, err := io.Copy(io.Discard, r)
	return b, int64(len(b)) + rest, err
}

// holdsMetadata reports whether a data record value of t is a KRaft
// metadata record by its content (IsMetadataRecord).
func holdsMetadata(t *tree.Tree, cd *codec.Codec) bool {
	for _, b := range records.LogBatches(t) {
		if b.Control {
			continue
		}
		for _, r := range b.Records {
			if !r.ValueNull && IsMetadataRecord(cd, r.Value) {
				return true
			}
		}
	}
	return false
}

// entries counts the RecordBatch nodes at the top of t.
func entries(t *tree.Tree) int {
	n := 0
	t.Children(0, func(k int32) bool {
		if t.Nodes[k].Kind() == tree.RecordBatch {
			n++
		}
		return true
	})
	return n
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
	return Problem{Problem: p, Off: off + int64(p.Off)}
}
