package logseg

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kwire/kwire/render"
)

// OffsetRange is an inclusive range of record offsets, Lo..Hi.
type OffsetRange struct{ Lo, Hi int64 }

// ParseOffsetRange parses "A..B" (either end may be empty: no bound on that
// side) into an OffsetRange; "" is every offset. The error quotes s: it is
// not "A..B", an end is not a decimal int64, or the range is empty (A > B).
func ParseOffsetRange(s string) (OffsetRange, error) {
	r := OffsetRange{Lo: -1 << 63, Hi: 1<<63 - 1}
	if s == "" {
		return r, nil
	}
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		return r, fmt.Errorf("%q: want A..B", s)
	}
	var err error
	if a != "" {
		if r.Lo, err = strconv.ParseInt(a, 10, 64); err != nil {
			return r, fmt.Errorf("%q: %q is not an offset", s, a)
		}
	}
	if b != "" {
		if r.Hi, err = strconv.ParseInt(b, 10, 64); err != nil {
			return r, fmt.Errorf("%q: %q is not an offset", s, b)
		}
	}
	if r.Lo > r.Hi {
		return r, fmt.Errorf("%q: the range is empty (%d > %d)", s, r.Lo, r.Hi)
	}
	return r, nil
}

// Has reports whether offset o is in the range.
func (r OffsetRange) Has(o int64) bool { return o >= r.Lo && o <= r.Hi }

// Lister prints the listing of `kwire log`, one window (Read's callback) at
// a time: in text a line per batch (BatchText) and per record
// (Record.AppendText), in json a line per record (Record.AppendJSON). The
// zero value lists every record in text; a Lister keeps, from one window to
// the next, whether the line of the last batch is printed, so a batch that a
// window continues gets one line.
type Lister struct {
	// JSON selects JSON lines instead of text.
	JSON bool
	// Type, when set, keeps only records of that record type
	// (Record.IsType), and then text has no batch lines.
	Type string
	// Offsets, when not nil, keeps only records with offsets in the range;
	// a batch's line then comes before its first record in the range, and
	// there is none without one.
	Offsets *OffsetRange
	// Values says how keys and values are printed.
	Values render.Values

	// Read counts the records of the windows listed, Kept those printed,
	// and First and Last are the lowest and highest offsets read (valid
	// when Read > 0): for saying what a filter that kept nothing missed.
	Read, Kept  int64
	First, Last int64

	// shown says whether the line of the last batch is printed, for the
	// window that continues it.
	shown bool
	// buf is the output's buffer.
	buf []byte
}

// Window writes the lines of the batches and records of w to out, after
// *header (then cleared) when there is any; nothing when there is none. The
// error is out's, or a record's JSON's.
func (l *Lister) Window(w *Window, header *string, out io.Writer) error {
	buf := append(l.buf[:0], *header...)
	defer func() {
		if cap(buf) <= listKeep {
			l.buf = buf
		}
	}()
	wrote := false
	// flush writes what buf holds once it is listFlush bytes, so that the
	// text of a window is not held whole: a line at most.
	flush := func() error {
		if len(buf) < listFlush {
			return nil
		}
		*header, wrote = "", true
		_, err := out.Write(buf)
		buf = buf[:0]
		return err
	}
	// A large value is written as it is encoded (pieces): its line is
	// not held whole.
	p := &pieces{flush: func(b []byte) ([]byte, error) {
		buf = b
		err := flush()
		return buf, err
	}}
	shown := &l.shown
	lines := !l.JSON && l.Type == ""
	for i := range w.Batches {
		b := &w.Batches[i]
		if i > 0 || !w.Continued {
			*shown = false
		}
		if lines && !*shown && l.Offsets == nil {
			buf = append(append(buf, BatchText(b)...), '\n')
			*shown = true
		}
		for _, r := range b.Records {
			if l.Read == 0 || r.Offset < l.First {
				l.First = r.Offset
			}
			if l.Read == 0 || r.Offset > l.Last {
				l.Last = r.Offset
			}
			l.Read++
			if l.Offsets != nil && !l.Offsets.Has(r.Offset) {
				continue
			}
			if lines && !*shown {
				buf = append(append(buf, BatchText(b)...), '\n')
				*shown = true
			}
			d := w.Describe(b, r)
			if l.Type != "" && !d.IsType(l.Type) {
				continue
			}
			l.Kept++
			if l.JSON {
				var err error
				if buf, err = d.appendJSON(buf, l.Values, p); err != nil {
					return err
				}
			} else if buf = d.appendText(buf, l.Values, p); p.err != nil {
				return p.err
			}
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if !wrote && len(buf) == len(*header) || len(buf) == 0 {
		return nil
	}
	*header = ""
	_, err := out.Write(buf)
	return err
}

// The Lister's output buffer: written out once it holds listFlush bytes,
// and kept for the next window when no more than listKeep.
const (
	listFlush = 64 << 10
	listKeep  = 1 << 20
)
