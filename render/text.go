package render

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
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
	// Frame, Frames and Offset place the page in an input that holds
	// several frames one after another (Decode): frame Frame (1-based) of
	// Frames, starting at byte Offset of the input. Frames is 0 for a page
	// of its own.
	Frame, Frames, Offset int
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
	// Note says how the side was decoded when that is not what was asked
	// (an ApiVersions response read at v0, see Decode); shown after the
	// title line. Usually empty.
	Note string
}

// Options control the views.
type Options struct {
	// Color adds ANSI colours by region (frame, header, body, RecordBatch,
	// Record, tagged_fields); false writes plain text.
	Color bool
	// Values is how record keys, values and header values are shown, in
	// the text views and in WriteJSONWith's "value" and "text" keys; the
	// zero value, ValuesAuto, is text when printable and hex otherwise.
	Values Values
	// Width is the width of the output in columns (a terminal's); 0 means
	// no limit. When the object tree's rows are wider, they are fitted in
	// this order, each step only as far as needed, so that values are the
	// last to be cut:
	//
	//  1. the about column is wrapped at spaces onto lines of their own
	//     below the row, or dropped when fewer than MinAboutWidth columns
	//     would be left for it;
	//  2. the notes after values ("(compact, n+1)", "(int16 len=3)") are
	//     cut, ending in "…", down to MidValueWidth columns (with the
	//     "= "), the values before them staying whole;
	//  3. type cells wider than MinTypeWidth columns are cut the same way;
	//  4. the type column is dropped (a node's type is in its spec), the
	//     value cells getting its room back, and the notes are cut further,
	//     as far as the values before them;
	//  5. the name column's padding is shortened, down to MinNameWidth
	//     columns: a row whose name (with the tree drawing) is wider than
	//     the column puts its value after it when there is no type column
	//     and the value still ends within the value column (the range
	//     staying in its column; such values of siblings start in one
	//     column as far as they fit), else its other cells on a line of
	//     their own below it, under their columns (a tree drawing deeper
	//     than the name column is cut there on that line);
	//  6. values other than numbers, uuids and booleans (strings, bytes)
	//     are cut, down to MinValueWidth columns;
	//  7. the value column is dropped.
	//
	// Numbers (with their leading sign, counts such as "3 elements"
	// included), uuids and booleans are never cut, nor are the name and
	// the range ("[0x000e, 16B]"): a tree too deep or too wide for them is
	// wider than Width. The other views are as without a limit.
	Width int
}

// The narrowest columns Options.Width fits the object tree to: the about
// column wraps down to MinAboutWidth runes; value cells (with their "= ")
// are cut to MidValueWidth (their notes only) and then MinValueWidth;
// type cells to MinTypeWidth; the name column's padding to MinNameWidth.
// A column narrower than that is dropped instead (the name column never).
const (
	MinAboutWidth = 20
	MidValueWidth = 16
	MinTypeWidth  = 10
	MinValueWidth = 8
	MinNameWidth  = 24
)

// WriteText writes the page: a summary block, then for each side its
// label, a title line ("EndQuorumEpochRequest v1, request header v2, 62
// bytes on the wire"), the byte layout and the object tree, and the side's
// error if any.
//
// The page is written row by row through a buffer of at most 64 KiB:
// memory does not grow with the page.
func WriteText(w io.Writer, p *Page, o Options) error {
	size := 1 << 10
	for _, s := range p.Sides {
		if s.Tree != nil {
			size += treeSize(s.Tree) + hexSize(s.Tree)
		}
	}
	s := newSink(w, size)
	if p.Frames > 0 {
		s.b = fmt.Appendf(s.b, "frame %d of %d, at 0x%04x of the input\n\n", p.Frame, p.Frames, p.Offset)
	}
	s.b = appendSummary(s.b, p, o)
	for k := range p.Sides {
		sd := &p.Sides[k]
		if s.err != nil {
			break
		}
		s.spill()
		s.b = append(s.b, '\n')
		s.b = append(s.b, sd.Label...)
		s.b = append(s.b, "\n\n"...)
		if t := sd.Tree; t != nil && len(t.Nodes) > 0 {
			s.b = append(s.b, sideTitle(t)...)
			if sd.Note != "" {
				s.b = append(s.b, "\nnote: "...)
				s.b = append(s.b, sd.Note...)
			}
			s.b = append(s.b, "\n\nbyte layout ("...)
			s.b = strconv.AppendInt(s.b, int64(len(t.Bytes)), 10)
			s.b = append(s.b, " bytes, 16 bytes per row)\n\n"...)
			writeHex(s, t, o)
			if len(t.Virtual) > 0 {
				s.spill()
				s.b = append(s.b, "\ndecompressed bytes ("...)
				s.b = strconv.AppendInt(s.b, int64(len(t.Virtual)), 10)
				s.b = append(s.b, " bytes, not on the wire: the v offsets of the tree)\n\n"...)
				writeHexData(s, t.Virtual, nil)
			}
			s.spill()
			s.b = append(s.b, "\nobject tree\n\n"...)
			writeTree(s, t, o)
			if len(t.Problems) > 0 {
				s.spill()
				s.b = append(s.b, "\nproblems in the records\n\n"...)
				s.b = appendProblems(s.b, t.Problems)
			}
		}
		if sd.Err != nil {
			s.spill()
			if sd.Tree != nil && len(sd.Tree.Nodes) > 0 {
				s.b = append(s.b, '\n')
			}
			s.b = append(s.b, "error: "...)
			s.b = append(s.b, sd.Err.Error()...)
			s.b = append(s.b, '\n')
		}
	}
	return s.close()
}

// WriteTree writes only the object tree of t: one row per node with the
// columns name, type, value, range and about, each padded to its widest
// cell in t plus two spaces (the about column fitted to o.Width).
func WriteTree(w io.Writer, t *tree.Tree, o Options) error {
	if t == nil || len(t.Nodes) == 0 {
		return nil
	}
	s := newSink(w, treeSize(t))
	writeTree(s, t, o)
	return s.close()
}

// WriteHex writes only the byte layout of t: a column header, then rows of
// 16 bytes ("0000  00 00 00 3a 00 36 …") with their offset and an ASCII
// column, coloured by region when o.Color is set.
func WriteHex(w io.Writer, t *tree.Tree, o Options) error {
	if t == nil {
		return nil
	}
	s := newSink(w, hexSize(t))
	writeHex(s, t, o)
	return s.close()
}

// treeSize and hexSize guess the size of t's object tree and byte
// layout, for the size of the buffer.
func treeSize(t *tree.Tree) int { return 100 * len(t.Nodes) }
func hexSize(t *tree.Tree) int  { return 80 + 5*len(t.Bytes) }

// sideTitle is a side's title line.
func sideTitle(t *tree.Tree) string {
	m := t.Message
	if m == nil {
		return "unknown message, " + strconv.Itoa(len(t.Bytes)) + " bytes"
	}
	s := m.Name + " v" + strconv.Itoa(int(t.Version))
	if len(t.Nodes) > 0 && invalidPrefix(t, 0) {
		s += " (not a valid version)"
	}
	s += ", "
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

// treeWriter writes an object tree in two passes over it: measure finds
// each column's width, row writes the rows. The cells of a tree of up to
// maxCachedNodes nodes are composed once, by measure, into a cache that
// row copies them from (a pooled one: a tree's rows are some hundred times
// the size of its nodes, its cells less than half its rows); those of a
// larger tree are composed twice, straight into a scratch buffer and then
// into the output, so that memory does not grow with the tree.
type treeWriter struct {
	*sink
	t      *tree.Tree
	color  bool
	values Values
	// widths are the widest cells of the columns name (with the tree
	// drawing before it), type, value, range and about.
	widths [5]int
	// cell is the scratch buffer of measure.
	cell []byte
	// cache, when not nil, holds the cells measure composed, which row
	// copies rather than composes again.
	cache *cellCache
	// lead holds the tree drawing of the rows being written: 4 bytes per
	// level, "|   " below a node with more siblings to come, else "    ".
	lead []byte
	// wrap, when not 0, is the most runes of about text on one line, and
	// aboutAt the column where the about column starts (Options.Width);
	// more holds the about text still to write below the row.
	wrap, aboutAt int
	more          []byte
	// fit is set when Options.Width limits the rows: only then does the
	// about column's width in runes matter (it is the last column), else
	// its width in bytes stands in for it.
	fit bool
	// numbers and notes are the narrowest the value column may be when it
	// keeps every number, uuid and boolean whole, and every value whole
	// (its note cut), respectively, "= " and a closing "…" included
	// (Options.Width).
	numbers, notes int
}

// cellCache holds the cells of a tree's rows as measure composed them:
// the cells of node i are text[start[i]:ends[5*i+4]], cell col ending at
// ends[5*i+col], runes[5*i+col] runes long. Columns: name (without the
// tree drawing), type, value (without "= "), range, about.
type cellCache struct {
	text        []byte
	start       []int32
	ends, runes []int32
}

// maxCachedNodes bounds the trees whose cells are cached: the cells of
// larger trees are composed twice, as their cache would take memory in
// proportion to the tree (some 150 bytes per node). maxCachedText bounds
// the cache kept for the next tree. Tests change maxCachedNodes.
var maxCachedNodes = 1 << 14

const maxCachedText = 4 << 20

var cellCaches = sync.Pool{New: func() any { return new(cellCache) }}

// reset empties c for a tree of n nodes.
func (c *cellCache) reset(n int) {
	c.text = c.text[:0]
	c.start = slices.Grow(c.start[:0], n)[:n]
	c.ends = slices.Grow(c.ends[:0], 5*n)[:5*n]
	c.runes = slices.Grow(c.runes[:0], 5*n)[:5*n]
}

func writeTree(s *sink, t *tree.Tree, o Options) {
	tw := treeWriter{sink: s, t: t, color: o.Color, values: o.Values, fit: o.Width > 0}
	if len(t.Nodes) <= maxCachedNodes {
		tw.cache = cellCaches.Get().(*cellCache)
		tw.cache.reset(len(t.Nodes))
		defer func() {
			if cap(tw.cache.text) <= maxCachedText {
				cellCaches.Put(tw.cache)
			}
		}()
	}
	root := childCtx(t, -1, ctx{}, 0, nil)
	tw.measure(0, root, 0)
	for col := range 4 {
		if tw.widths[col] > 0 {
			tw.aboutAt += tw.widths[col] + 2
		}
	}
	if o.Width > 0 && tw.widths[4] > 0 && tw.aboutAt+tw.widths[4] > o.Width {
		if o.Width-tw.aboutAt < MinAboutWidth {
			tw.widths[4] = 0
		} else {
			tw.wrap = o.Width - tw.aboutAt
		}
	}
	if o.Width > 0 && tw.widths[4] == 0 {
		tw.narrow(o.Width)
	}
	tw.row(0, root, 0, true, 0)
}

// valueCores returns the narrowest a value cell holding value (v, r runes,
// without its "= ") may be cut to (Options.Width): whole keeps its number,
// uuid or boolean whole (2, no value kept, when v starts with none:
// strings and bytes may be cut), value keeps all of it but its note (the
// parenthesised text after it). Both count the "= " and, when something
// is cut after them, the "…".
func valueCores(v []byte, r int) (whole, value int) {
	cut := func(n int) int {
		w := 2 + runeCount(v[:n])
		if n < len(v) {
			w++
		}
		return w
	}
	// The value before its note: a quoted string's note follows its
	// closing quote (a quote inside it is escaped).
	n := len(v)
	if len(v) > 0 && v[0] == '"' {
		if k := bytes.LastIndex(v, []byte(`" (`)); k > 0 {
			n = k + 1
		}
	} else if k := bytes.Index(v, []byte(" (")); k >= 0 {
		n = k
	}
	value = cut(n)
	if n == len(v) {
		value = 2 + r
	}
	// A number (decimal, or hex up to 64 bits), a uuid or a boolean:
	// the first word, kept whole.
	w := bytes.IndexByte(v, ' ')
	if w < 0 {
		w = len(v)
	}
	word := v[:w]
	switch {
	case len(word) == 0:
		return 2, value
	case bytes.HasPrefix(word, []byte("0x")):
		if len(word) > 18 {
			return 2, value
		}
	case word[0] == '-' || word[0] >= '0' && word[0] <= '9':
	case isUUID(word), string(word) == "true", string(word) == "false":
	default:
		return 2, value
	}
	return cut(w), value
}

// isUUID reports whether b is a uuid as appendUUID writes it.
func isUUID(b []byte) bool {
	if len(b) != 36 {
		return false
	}
	for k, c := range b {
		if k == 8 || k == 13 || k == 18 || k == 23 {
			if c != '-' {
				return false
			}
		} else if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// narrow fits the columns name, type, value and range of a tree without
// its about column into width, in the order Options.Width documents:
// value cells down to their values (notes cut, at most to MidValueWidth),
// type cells down to MinTypeWidth, then no type column and no more of the
// notes than fits, the name column down to MinNameWidth, value cells down
// to their numbers (at most to MinValueWidth), then no value column.
// tw.widths[0] becomes the name column's width (wider names put the row's
// other cells on a line below), tw.widths[1] and [2] the widest a cell may
// be.
func (tw *treeWriter) narrow(width int) {
	over := func() int {
		n := -2 // no padding after the last column
		for col := range 4 {
			if tw.widths[col] > 0 {
				n += tw.widths[col] + 2
			}
		}
		return n - width
	}
	shrink := func(col, least int) {
		if d := over(); d > 0 && tw.widths[col] > least {
			tw.widths[col] = max(least, tw.widths[col]-d)
		}
	}
	names := tw.widths[0]
	value := tw.widths[2]
	notes := max(MinValueWidth, tw.notes)
	numbers := max(MinValueWidth, tw.numbers)
	shrink(2, max(MidValueWidth, notes))
	shrink(1, MinTypeWidth)
	if over() > 0 {
		// Without the type column the values get its room back.
		tw.widths[1], tw.widths[2] = 0, value
		shrink(2, max(MidValueWidth, notes))
	}
	shrink(2, notes)
	shrink(0, MinNameWidth)
	shrink(2, numbers)
	if over() > 0 {
		tw.widths[0], tw.widths[2] = names, 0
		shrink(0, MinNameWidth)
	}
}

// elide cuts the cell at tw.b[at:] to at most n runes, the last one "…".
func (tw *treeWriter) elide(at, n int) {
	if utf8.RuneCount(tw.b[at:]) <= n {
		return
	}
	end := at
	for k := 0; k < n-1; k++ {
		_, w := utf8.DecodeRune(tw.b[end:])
		end += w
	}
	tw.b = append(tw.b[:end], "…"...)
}

// cutAbout keeps on the row the first line of the about text that starts
// at tw.b[at:] (at most tw.wrap runes, broken after the last space that
// fits, or inside a word longer than a line) and moves the rest to
// tw.more.
func (tw *treeWriter) cutAbout(at int) {
	cut := aboutLine(tw.b[at:], tw.wrap)
	tw.more = append(tw.more[:0], bytes.TrimLeft(tw.b[at+cut:], " ")...)
	tw.b = tw.b[:at+cut]
}

// aboutLine is the length in bytes of the first line of s when a line
// holds at most n runes.
func aboutLine(s []byte, n int) int {
	if utf8.RuneCount(s) <= n {
		return len(s)
	}
	end, space := 0, -1
	for k := 0; k < n; k++ {
		if s[end] == ' ' {
			space = end
		}
		_, w := utf8.DecodeRune(s[end:])
		end += w
	}
	if s[end] == ' ' {
		return end
	}
	if space > 0 {
		return space
	}
	return end
}

// moreAbout writes the about text in tw.more on lines of its own, under
// the about column, continuing the tree drawing of node i at depth (whose
// lead is already set for its children).
func (tw *treeWriter) moreAbout(i int32, depth int, region region) {
	n := &tw.t.Nodes[i]
	kids := i+1 < n.End && tw.t.Nodes[i+1].End > i+1
	for len(tw.more) > 0 && tw.err == nil {
		cut := aboutLine(tw.more, tw.wrap)
		tw.spill()
		if tw.color {
			tw.b = append(tw.b, colorOf(region)...)
		}
		start := len(tw.b)
		tw.b = append(tw.b, tw.lead[:4*depth]...)
		if kids {
			tw.b = append(tw.b, '|')
		}
		tw.pad(tw.aboutAt - (len(tw.b) - start))
		tw.b = append(tw.b, tw.more[:cut]...)
		if tw.color {
			tw.b = append(tw.b, colorReset...)
		}
		tw.b = append(tw.b, '\n')
		tw.more = bytes.TrimLeft(tw.more[cut:], " ")
	}
}

// measure widens the columns to fit node i (whose ctx is c, at depth
// levels below the root) and its subtree, and caches their cells when
// tw.cache is set.
func (tw *treeWriter) measure(i int32, c ctx, depth int) {
	t := tw.t
	n := &t.Nodes[i]
	b := tw.cell[:0]
	if tw.cache != nil {
		b = tw.cache.text
	}
	var ends [5]int
	start := len(b)
	b = appendName(b, t, i, c)
	ends[0] = len(b)
	b = appendType(b, t, i, c)
	ends[1] = len(b)
	b = appendValueText(b, t, i, c, tw.values)
	ends[2] = len(b)
	b = appendNodeRange(b, n)
	ends[3] = len(b)
	b = appendAbout(b, t, i, c)
	ends[4] = len(b)
	var runes [5]int
	from := start
	for col, end := range ends[:4] {
		runes[col] = runeCount(b[from:end])
		from = end
	}
	if runes[4] = ends[4] - ends[3]; tw.fit {
		runes[4] = runeCount(b[ends[3]:ends[4]])
	}
	tw.widths[0] = max(tw.widths[0], 4*depth+runes[0])
	tw.widths[1] = max(tw.widths[1], runes[1])
	if ends[2] > ends[1] {
		tw.widths[2] = max(tw.widths[2], len("= ")+runes[2])
		if tw.fit {
			whole, value := valueCores(b[ends[1]:ends[2]], runes[2])
			tw.numbers = max(tw.numbers, whole)
			tw.notes = max(tw.notes, value)
		}
	}
	tw.widths[3] = max(tw.widths[3], runes[3])
	tw.widths[4] = max(tw.widths[4], runes[4])
	if cc := tw.cache; cc != nil {
		cc.text = b
		cc.start[i] = int32(start)
		for col := range ends {
			cc.ends[5*int(i)+col] = int32(ends[col])
			cc.runes[5*int(i)+col] = int32(runes[col])
		}
	} else {
		tw.cell = b
	}
	o := newOrdinals(t, i)
	for k := i + 1; k < n.End && t.Nodes[k].End > k; k = t.Nodes[k].End {
		tw.measure(k, childCtx(t, i, c, k, &o), depth+1)
	}
}

// appendCell appends cell col of node i (whose ctx is c) to tw.b, from
// the cache or composed again, and returns its length in runes.
func (tw *treeWriter) appendCell(col int, i int32, c ctx) int {
	if cc := tw.cache; cc != nil {
		k := 5*int(i) + col
		from := cc.start[i]
		if col > 0 {
			from = cc.ends[k-1]
		}
		tw.b = append(tw.b, cc.text[from:cc.ends[k]]...)
		return int(cc.runes[k])
	}
	at := len(tw.b)
	switch col {
	case 0:
		tw.b = appendName(tw.b, tw.t, i, c)
	case 1:
		tw.b = appendType(tw.b, tw.t, i, c)
	case 2:
		tw.b = appendValueText(tw.b, tw.t, i, c, tw.values)
	case 3:
		tw.b = appendNodeRange(tw.b, &tw.t.Nodes[i])
	case 4:
		tw.b = appendAbout(tw.b, tw.t, i, c)
	}
	return runeCount(tw.b[at:])
}

// runeCount is utf8.RuneCount, quicker for ASCII (checked 8 bytes at a
// time).
func runeCount(b []byte) int {
	k := 0
	for ; k+8 <= len(b); k += 8 {
		if binary.LittleEndian.Uint64(b[k:])&0x8080808080808080 != 0 {
			return utf8.RuneCount(b)
		}
	}
	for ; k < len(b); k++ {
		if b[k] >= utf8.RuneSelf {
			return utf8.RuneCount(b)
		}
	}
	return len(b)
}

// row writes the rows of node i (whose ctx is c, at depth levels below
// the root; last when it is its parent's last child) and its subtree.
func (tw *treeWriter) row(i int32, c ctx, depth int, last bool, valueAt int) {
	t := tw.t
	n := &t.Nodes[i]
	tw.spill()
	used := 0
	if depth > 0 {
		tw.b = append(tw.b, tw.lead[:4*(depth-1)]...)
		tw.b = append(tw.b, "+-- "...)
		used = 4 * depth
	}
	if tw.color {
		tw.b = append(tw.b, colorOf(c.region)...)
	}
	start := len(tw.b)
	// pending is the padding owed to the cells before: written before the
	// next cell that is not empty, so that none trails the row.
	pending := 0
	for col := range tw.widths {
		if tw.widths[col] == 0 {
			continue
		}
		mark := len(tw.b)
		tw.pad(pending)
		at := len(tw.b)
		runes := 0
		switch col {
		case 0:
			if runes = tw.appendCell(col, i, c); used+runes > tw.widths[0] {
				// A name wider than its column (Options.Width): its
				// value follows it when it still ends within the value
				// column (no type column), the range staying in its
				// column; else the other cells go on a line of their
				// own below it.
				if at := tw.overflowAt(i, c, used+runes, valueAt); at > 0 {
					pending, used = at-(used+runes), at-tw.widths[0]-2
					continue
				}
				start = tw.breakRow(i, depth, last, start, c.region)
				pending, used = tw.widths[0]+2-(len(tw.b)-start), 0
				continue
			}
		case 3:
			runes = tw.appendCell(col, i, c)
		case 1:
			if runes = tw.appendCell(col, i, c); runes > tw.widths[1] {
				tw.elide(at, tw.widths[1])
				runes = tw.widths[1]
			}
		case 2:
			tw.b = append(tw.b, "= "...)
			if runes = len("= ") + tw.appendCell(col, i, c); runes == len("= ") {
				tw.b = tw.b[:at] // no value, no "= "
			} else if runes > tw.widths[2] {
				tw.elide(at, tw.widths[2])
				runes = tw.widths[2]
			}
		case 4:
			if runes = tw.appendCell(col, i, c); tw.wrap > 0 {
				tw.cutAbout(at)
				runes = runeCount(tw.b[at:])
			}
		}
		if len(tw.b) == at {
			tw.b = tw.b[:mark]
			pending += tw.widths[col] + 2 - used
		} else {
			pending = max(0, tw.widths[col]+2-used-runes)
		}
		used = 0
	}
	tw.endLine(start)
	tw.setLead(depth, last)
	if len(tw.more) > 0 {
		tw.moreAbout(i, depth, c.region)
	}
	// The values of the children whose names overflow their column
	// start in one column, as far as they fit.
	at := 0
	if tw.fit && tw.widths[1] == 0 && tw.widths[2] > 0 {
		o := newOrdinals(t, i)
		for k := i + 1; k < n.End && t.Nodes[k].End > k; k = t.Nodes[k].End {
			kc := childCtx(t, i, c, k, &o)
			if end := 4*(depth+1) + tw.nameRunes(k, kc); end > tw.widths[0] && tw.overflowAt(k, kc, end, 0) > 0 {
				at = max(at, end+2)
			}
		}
	}
	o := newOrdinals(t, i)
	for k := i + 1; k < n.End && t.Nodes[k].End > k && tw.err == nil; k = t.Nodes[k].End {
		tw.row(k, childCtx(t, i, c, k, &o), depth+1, t.Nodes[k].End >= n.End, at)
	}
}

// overflowAt is the column where the value cell of node i goes when its
// name, with the tree drawing, ends at column end, past the name column
// (Options.Width): valueAt, or two columns after the name when that is
// further, so long as the value still ends within the value column and
// there is no type column; else 0 (the cells go on a line below).
func (tw *treeWriter) overflowAt(i int32, c ctx, end, valueAt int) int {
	if tw.widths[1] != 0 || tw.widths[2] == 0 {
		return 0
	}
	limit := tw.widths[0] + 2 + tw.widths[2]
	v := tw.valueRunes(i, c)
	for _, at := range []int{max(end+2, valueAt), end + 2} {
		if at+v <= limit {
			return at
		}
	}
	return 0
}

// nameRunes is the width of node i's name cell, without the tree drawing.
func (tw *treeWriter) nameRunes(i int32, c ctx) int {
	if cc := tw.cache; cc != nil {
		return int(cc.runes[5*int(i)])
	}
	tw.cell = appendName(tw.cell[:0], tw.t, i, c)
	return runeCount(tw.cell)
}

// valueRunes is the width of node i's value cell as row writes it, "= "
// included and cut to the value column; 0 when it has no value.
func (tw *treeWriter) valueRunes(i int32, c ctx) int {
	var r int
	if cc := tw.cache; cc != nil {
		r = int(cc.runes[5*int(i)+2])
	} else {
		tw.cell = appendValueText(tw.cell[:0], tw.t, i, c, tw.values)
		r = runeCount(tw.cell)
	}
	if r == 0 {
		return 0
	}
	return min(len("= ")+r, tw.widths[2])
}

// endLine ends the line whose cells start at tw.b[start:]: no trailing
// spaces, the colour reset.
func (tw *treeWriter) endLine(start int) {
	end := len(tw.b)
	for end > start && tw.b[end-1] == ' ' {
		end--
	}
	tw.b = tw.b[:end]
	if tw.color {
		tw.b = append(tw.b, colorReset...)
	}
	tw.b = append(tw.b, '\n')
}

// setLead sets the tree drawing of the children of a node at depth (last
// when it is its parent's last child).
func (tw *treeWriter) setLead(depth int, last bool) {
	if depth > 0 {
		if last {
			tw.lead = append(tw.lead[:4*(depth-1)], "    "...)
		} else {
			tw.lead = append(tw.lead[:4*(depth-1)], "|   "...)
		}
	}
}

// breakRow ends the row of node i (at depth; last among its siblings)
// after its name, whose cells start at tw.b[start:], and starts the line
// below it that holds its other cells, continuing the tree drawing; it
// returns where that line starts.
func (tw *treeWriter) breakRow(i int32, depth int, last bool, start int, region region) int {
	tw.endLine(start)
	tw.setLead(depth, last)
	n := &tw.t.Nodes[i]
	if tw.color {
		tw.b = append(tw.b, colorOf(region)...)
	}
	start = len(tw.b)
	lead := tw.lead[:4*depth]
	if i+1 < n.End && tw.t.Nodes[i+1].End > i+1 {
		lead = append(lead, '|')
	}
	// The cells below stay under their columns: a drawing deeper than
	// the name column is cut there.
	tw.b = append(tw.b, lead[:min(len(lead), tw.widths[0])]...)
	return start
}

// appendRange appends a node's range, "[0x000f, 47B]".
func appendRange(b []byte, off, size int32) []byte {
	b = append(b, "[0x"...)
	b = appendHexOffset(b, int64(off), 4)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, int64(size), 10)
	return append(b, "B]"...)
}

// appendNodeRange appends node n's range: appendRange's, with a "v"
// before the offset of a virtual node ("[v0x0000, 25B]"), whose offsets
// are in the decompressed bytes (tree.Tree.Virtual).
func appendNodeRange(b []byte, n *tree.Node) []byte {
	if n.Flags()&tree.FlagVirtual == 0 {
		return appendRange(b, n.Off, n.Size)
	}
	b = append(b, "[v0x"...)
	b = appendHexOffset(b, int64(n.Off), 4)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, int64(n.Size), 10)
	return append(b, "B]"...)
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
		if n.Flags()&tree.FlagVirtual != 0 {
			return // a decompressed view: not wire bytes
		}
		if n.End == i+1 {
			lo, hi := int(n.Off), int(n.Off)+int(n.Size)
			for p := max(lo, 0); p < hi && p < len(out); p++ {
				out[p] = c.region
			}
			return
		}
		o := newOrdinals(t, i)
		for k := i + 1; k < n.End && t.Nodes[k].End > k; k = t.Nodes[k].End {
			walk(k, childCtx(t, i, c, k, &o))
		}
	}
	walk(0, childCtx(t, -1, ctx{}, 0, nil))
	return out
}

// writeHex writes t's byte layout, a row of 16 bytes at a time.
func writeHex(s *sink, t *tree.Tree, o Options) {
	var regions []region
	if o.Color {
		regions = byteRegions(t)
	}
	writeHexData(s, t.Bytes, regions)
}

// writeHexData writes a byte layout of data, coloured by regions when not
// nil.
func writeHexData(s *sink, data []byte, regions []region) {
	digits := 4
	if len(data) > 0x10000 {
		digits = 8
	}
	s.pad(digits + 2)
	for c := 0; c < 16; c++ {
		if c > 0 {
			s.b = append(s.b, ' ')
		}
		s.b = append(s.b, ' ', "0123456789ABCDEF"[c])
	}
	s.b = append(s.b, '\n')
	for off := 0; off < len(data) && s.err == nil; off += 16 {
		s.spill()
		s.b = appendHexRow(s.b, data, regions, off, digits)
	}
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

// appendProblems appends one line per problem ("  error: …", "  note: …").
func appendProblems(b []byte, ps []tree.Problem) []byte {
	for _, p := range ps {
		if p.Notice {
			b = append(b, "  note: "...)
		} else {
			b = append(b, "  error: "...)
		}
		b = append(b, p.String()...)
		b = append(b, '\n')
	}
	return b
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
