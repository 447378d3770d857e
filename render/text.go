package render

import (
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// Page is what `kwire show` and `kwire decode` print for one message.
type Page struct {
	// Set names api keys in the summary ("54 (EndQuorumEpoch)") and gives
	// the valid versions of a side that is not on the page; may be nil.
	Set *spec.Set
	// Sides are Request then Response for an API, or the one side of a
	// record type or of a decode.
	Sides []Side
}

// Side is one message of a page.
type Side struct {
	// Label titles the side: "Request", "Response", "Record".
	Label string
	// Tree is the span tree; its Message, Version and HeaderVersion say
	// what it is. It may be partial (decode errors) or nil.
	Tree *tree.Tree
	// Err is a decode (or encode) error shown after the tree; may be nil.
	Err error
}

// Options control the text views.
type Options struct {
	// Color adds ANSI colours by region (frame, header, body, RecordBatch,
	// Record, tagged_fields); false writes plain text.
	Color bool
}

// flushAt is the buffer size at which writers hand text to w, so that a
// huge tree is not held as one string.
const flushAt = 64 << 10

// WriteText writes the page: a summary block, then for each side its
// label, a title line ("EndQuorumEpochRequest v1, request header v2, 62
// bytes on the wire"), the byte layout and the object tree, and the side's
// error if any.
func WriteText(w io.Writer, p *Page, o Options) error {
	b := appendSummary(nil, p, o)
	for _, s := range p.Sides {
		b = append(b, '\n')
		b = append(b, s.Label...)
		b = append(b, "\n\n"...)
		if t := s.Tree; t != nil && len(t.Nodes) > 0 {
			b = append(b, sideTitle(t)...)
			b = append(b, "\n\nbyte layout ("...)
			b = strconv.AppendInt(b, int64(len(t.Bytes)), 10)
			b = append(b, " bytes, 16 bytes per row)\n\n"...)
			var err error
			if b, err = appendHex(w, b, t, o); err != nil {
				return err
			}
			b = append(b, "\nobject tree\n\n"...)
			if b, err = appendTree(w, b, t, o); err != nil {
				return err
			}
		}
		if s.Err != nil {
			if s.Tree != nil && len(s.Tree.Nodes) > 0 {
				b = append(b, '\n')
			}
			b = append(b, "error: "...)
			b = append(b, s.Err.Error()...)
			b = append(b, '\n')
		}
	}
	_, err := w.Write(b)
	return err
}

// WriteTree writes only the object tree of t: one row per node with the
// columns name, type, value, range and about, each padded to its widest
// cell in t plus two spaces.
func WriteTree(w io.Writer, t *tree.Tree, o Options) error {
	if t == nil || len(t.Nodes) == 0 {
		return nil
	}
	b, err := appendTree(w, nil, t, o)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// WriteHex writes only the byte layout of t: a column header, then rows of
// 16 bytes ("0000  00 00 00 3a 00 36 …") with their offset and an ASCII
// column, coloured by region when o.Color is set.
func WriteHex(w io.Writer, t *tree.Tree, o Options) error {
	if t == nil {
		return nil
	}
	b, err := appendHex(w, nil, t, o)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// flush hands b to w once it is large and returns it emptied.
func flush(w io.Writer, b []byte) ([]byte, error) {
	if len(b) < flushAt {
		return b, nil
	}
	_, err := w.Write(b)
	return b[:0], err
}

// sideTitle is a side's title line.
func sideTitle(t *tree.Tree) string {
	m := t.Message
	if m == nil {
		return "unknown message, " + strconv.Itoa(len(t.Bytes)) + " bytes"
	}
	s := m.Name + " v" + strconv.Itoa(int(t.Version)) + ", "
	switch {
	case t.HeaderVersion >= 0 && m.Type == spec.Response:
		s += "response header v" + strconv.Itoa(int(t.HeaderVersion)) + ", "
	case t.HeaderVersion >= 0:
		s += "request header v" + strconv.Itoa(int(t.HeaderVersion)) + ", "
	case m.Type == spec.Request || m.Type == spec.Response:
		// A frame that failed before the header: no header version.
	case m.Type == spec.Metadata:
		s += "metadata record, "
	default:
		s += string(m.Type) + " message, "
	}
	s += strconv.Itoa(len(t.Bytes)) + " bytes"
	if m.Type == spec.Request || m.Type == spec.Response {
		s += " on the wire"
	}
	return s
}

// row is one line of the object tree.
type row struct {
	lead   string    // the tree drawing before the name
	cells  [5]string // name, type, value ("= …"), range, about
	region region
}

// treeRows lays out t's nodes as rows, pre-order.
func treeRows(t *tree.Tree) []row {
	rows := make([]row, 0, len(t.Nodes))
	var walk func(i int32, c ctx, lead, childLead string)
	walk = func(i int32, c ctx, lead, childLead string) {
		rows = append(rows, nodeRow(t, i, c, lead))
		end := t.Nodes[i].End
		for k := i + 1; k < end; {
			next := t.Nodes[k].End
			if next <= k {
				break
			}
			if next >= end {
				walk(k, childCtx(t, i, c, k), childLead+"+-- ", childLead+"    ")
			} else {
				walk(k, childCtx(t, i, c, k), childLead+"+-- ", childLead+"|   ")
			}
			k = next
		}
	}
	walk(0, childCtx(t, -1, ctx{}, 0), "", "")
	return rows
}

func nodeRow(t *tree.Tree, i int32, c ctx, lead string) row {
	r := row{lead: lead, region: c.region}
	n := &t.Nodes[i]
	r.cells[0] = nodeName(t, i, c)
	r.cells[1] = nodeType(t, i, c)
	if v := nodeValue(t, i, c); v != "" {
		r.cells[2] = "= " + v
	}
	r.cells[3] = rangeText(n.Off, n.Size)
	r.cells[4] = nodeAbout(t, i, c)
	return r
}

// rangeText is a node's "[0x000f, 47B]".
func rangeText(off, size int32) string {
	b := make([]byte, 0, 16)
	b = append(b, "[0x"...)
	b = appendHexOffset(b, int64(off), 4)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, int64(size), 10)
	b = append(b, "B]"...)
	return string(b)
}

// appendHexOffset writes v in lower-case hex, zero-padded to digits.
func appendHexOffset(b []byte, v int64, digits int) []byte {
	var tmp [16]byte
	p := len(tmp)
	for v > 0 || p > len(tmp)-digits {
		p--
		tmp[p] = hexDigits[v&15]
		v >>= 4
	}
	return append(b, tmp[p:]...)
}

func width(s string) int { return utf8.RuneCountInString(s) }

// appendTree appends t's object tree to b, flushing to w as it grows.
func appendTree(w io.Writer, b []byte, t *tree.Tree, o Options) ([]byte, error) {
	rows := treeRows(t)
	var widths [5]int
	for k := range rows {
		r := &rows[k]
		widths[0] = max(widths[0], len(r.lead)+width(r.cells[0]))
		for c := 1; c < 5; c++ {
			widths[c] = max(widths[c], width(r.cells[c]))
		}
	}
	var err error
	for k := range rows {
		b = appendRow(b, &rows[k], &widths, o.Color)
		if b, err = flush(w, b); err != nil {
			return b, err
		}
	}
	return b, nil
}

func appendRow(b []byte, r *row, widths *[5]int, color bool) []byte {
	b = append(b, r.lead...)
	if color {
		b = append(b, colorOf(r.region)...)
	}
	start := len(b)
	used := len(r.lead)
	for c := 0; c < 5; c++ {
		if widths[c] == 0 {
			continue
		}
		b = append(b, r.cells[c]...)
		for pad := widths[c] + 2 - used - width(r.cells[c]); pad > 0; pad-- {
			b = append(b, ' ')
		}
		used = 0
	}
	end := len(b)
	for end > start && b[end-1] == ' ' {
		end--
	}
	b = b[:end]
	if color {
		b = append(b, colorReset...)
	}
	return append(b, '\n')
}

// byteRegions gives the region of every byte of t.Bytes: the region of the
// leaf that covers it (regionNone where no leaf does).
func byteRegions(t *tree.Tree) []region {
	out := make([]region, len(t.Bytes))
	if len(t.Nodes) == 0 {
		return out
	}
	var walk func(i int32, c ctx)
	walk = func(i int32, c ctx) {
		n := &t.Nodes[i]
		if n.End == i+1 {
			lo, hi := int(n.Off), int(n.Off)+int(n.Size)
			for p := max(lo, 0); p < hi && p < len(out); p++ {
				out[p] = c.region
			}
			return
		}
		for k := i + 1; k < n.End && t.Nodes[k].End > k; k = t.Nodes[k].End {
			walk(k, childCtx(t, i, c, k))
		}
	}
	walk(0, childCtx(t, -1, ctx{}, 0))
	return out
}

// appendHex appends t's byte layout to b, flushing to w as it grows.
func appendHex(w io.Writer, b []byte, t *tree.Tree, o Options) ([]byte, error) {
	data := t.Bytes
	digits := 4
	if len(data) > 0x10000 {
		digits = 8
	}
	var regions []region
	if o.Color {
		regions = byteRegions(t)
	}
	for k := 0; k < digits+2; k++ {
		b = append(b, ' ')
	}
	for c := 0; c < 16; c++ {
		if c > 0 {
			b = append(b, ' ')
		}
		b = append(b, ' ', "0123456789ABCDEF"[c])
	}
	b = append(b, '\n')
	var err error
	for off := 0; off < len(data); off += 16 {
		b = appendHexRow(b, data, regions, off, digits)
		if b, err = flush(w, b); err != nil {
			return b, err
		}
	}
	return b, nil
}

func appendHexRow(b, data []byte, regions []region, off, digits int) []byte {
	end := min(off+16, len(data))
	b = appendHexOffset(b, int64(off), digits)
	b = append(b, "  "...)
	cur := regionNone
	for p := off; p < end; p++ {
		if p > off {
			b = append(b, ' ')
		}
		b, cur = switchColor(b, regions, p, cur)
		b = append(b, hexDigits[data[p]>>4], hexDigits[data[p]&15])
	}
	b, cur = resetColor(b, cur)
	for p := end; p < off+16; p++ {
		b = append(b, "   "...)
	}
	b = append(b, "  "...)
	for p := off; p < end; p++ {
		b, cur = switchColor(b, regions, p, cur)
		ch := data[p]
		if ch < 0x20 || ch > 0x7e {
			ch = '.'
		}
		b = append(b, ch)
	}
	b, _ = resetColor(b, cur)
	return append(b, '\n')
}

// appendSummary writes the page's title and summary block.
func appendSummary(b []byte, p *Page, o Options) []byte {
	title, items := summary(p)
	b = append(b, title...)
	b = append(b, '\n')
	if len(items) > 0 {
		b = append(b, '\n')
	}
	wd := 0
	for _, it := range items {
		wd = max(wd, len(it[0]))
	}
	for _, it := range items {
		b = append(b, "  "...)
		b = append(b, it[0]...)
		for k := len(it[0]); k < wd+2; k++ {
			b = append(b, ' ')
		}
		b = append(b, it[1]...)
		b = append(b, '\n')
	}
	if note := sampleNote(p); note != "" {
		b = append(b, '\n')
		b = append(b, note...)
		b = append(b, '\n')
	}
	if o.Color {
		b = append(b, '\n')
		b = appendLegend(b)
	}
	return b
}
