package logseg_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/render"
)

func TestParseOffsetRange(t *testing.T) {
	const min, max = -1 << 63, 1<<63 - 1
	for _, c := range []struct {
		in     string
		lo, hi int64
		err    string
	}{
		{in: "", lo: min, hi: max},
		{in: "..", lo: min, hi: max},
		{in: "3..", lo: 3, hi: max},
		{in: "..7", lo: min, hi: 7},
		{in: "5..5", lo: 5, hi: 5},
		{in: "5", err: `"5": want A..B`},
		{in: "x..2", err: `"x..2": "x" is not an offset`},
		{in: "1..9223372036854775808", err: `"1..9223372036854775808": "9223372036854775808" is not an offset`},
		{in: "4..3", err: `"4..3": the range is empty (4 > 3)`},
	} {
		r, err := logseg.ParseOffsetRange(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %s", c.in, err, c.err)
			}
			continue
		}
		if err != nil || r != (logseg.OffsetRange{Lo: c.lo, Hi: c.hi}) {
			t.Errorf("%q: %+v, %v; want %d..%d", c.in, r, err, c.lo, c.hi)
		}
	}
	if r := (logseg.OffsetRange{Lo: 2, Hi: 3}); r.Has(1) || !r.Has(2) || !r.Has(3) || r.Has(4) {
		t.Errorf("Has of 2..3 is wrong")
	}
}

// listerOutput runs l over the windows of path (windowSize bytes each) with
// header before the first line.
func listerOutput(t *testing.T, path string, windowSize int, l *logseg.Lister) string {
	t.Helper()
	var out bytes.Buffer
	header := "== f\n"
	if _, err := logseg.Read(path, logseg.Options{Window: windowSize}, func(w *logseg.Window) error {
		return l.Window(w, &header, &out)
	}); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestListerLinesOffsetsAndType(t *testing.T) {
	b := func(base int64, vs ...string) []byte {
		var kvs []records.KeyValue
		for _, v := range vs {
			kvs = append(kvs, records.KeyValue{Value: []byte(v)})
		}
		return records.Batch{BaseOffset: base, Timestamp: 1700000000000, Records: kvs}.Bytes()
	}
	path := writeFile(t, t.TempDir(), "00000000000000000000.log", append(b(0, "a", "b"), b(2, "c", "d")...))

	all := `== f
batch 0  records 2  attributes 0x0000  epoch 0  magic 2  CRC valid
  offset 0  CreateTime 1700000000000  key null  value "a"
  offset 1  CreateTime 1700000000000  key null  value "b"
batch 2  records 2  attributes 0x0000  epoch 0  magic 2  CRC valid
  offset 2  CreateTime 1700000000000  key null  value "c"
  offset 3  CreateTime 1700000000000  key null  value "d"
`
	for _, window := range []int{logseg.DefaultWindow, 1} {
		if got := listerOutput(t, path, window, &logseg.Lister{}); got != all {
			t.Errorf("window %d:\n%s\nwant\n%s", window, got, all)
		}
	}

	// With offsets, a batch's line comes before its first record in the
	// range: none for a batch without one.
	r := logseg.OffsetRange{Lo: 2, Hi: 2}
	want := `== f
batch 2  records 2  attributes 0x0000  epoch 0  magic 2  CRC valid
  offset 2  CreateTime 1700000000000  key null  value "c"
`
	if got := listerOutput(t, path, logseg.DefaultWindow, &logseg.Lister{Offsets: &r}); got != want {
		t.Errorf("offsets 2..2:\n%s\nwant\n%s", got, want)
	}

	// JSON: one line per record, no batch lines.
	r = logseg.OffsetRange{Lo: 3, Hi: 3}
	want = "== f\n" + `{"file":"` + path + `","offset":3,"batch_offset":2,"timestamp_type":"CreateTime","timestamp":1700000000000,"value":"d"}` + "\n"
	if got := listerOutput(t, path, logseg.DefaultWindow, &logseg.Lister{JSON: true, Offsets: &r, Values: render.ValuesAuto}); got != want {
		t.Errorf("json 3..3:\n%s\nwant\n%s", got, want)
	}

	// A type no record has: nothing at all, not even the header.
	if got := listerOutput(t, path, logseg.DefaultWindow, &logseg.Lister{Type: "PartitionRecord"}); got != "" {
		t.Errorf("type PartitionRecord: %q, want nothing", got)
	}
}

// A listing of lazy windows (Options.Lazy, what kwire log lists without
// --tree) is the listing of whole ones, line for line: text, JSON lines
// and each way of showing values, over segments of plain, compressed,
// legacy and damaged batches, in windows of every size down to one batch.
func TestLazyListingIsWhole(t *testing.T) {
	damaged := testseg.ZstdSegment(300, 70)
	damaged[len(damaged)/2] ^= 0x40
	segs := map[string][]byte{
		"zstd":    testseg.ZstdSegment(500, 100),
		"mixed":   testseg.Mixed(),
		"gzip":    testseg.FatGzipBatch(40),
		"damaged": damaged,
		"cut":     testseg.ZstdSegment(200, 30)[:9000],
	}
	dir := t.TempDir()
	for name, data := range segs {
		path := writeFile(t, dir, name+"/00000000000000000000.log", data)
		for _, window := range []int{logseg.DefaultWindow, 4 << 10, 1} {
			for _, l := range []logseg.Lister{{}, {JSON: true}, {Values: render.ValuesHex}, {JSON: true, Values: render.ValuesBase64}, {Values: render.ValuesUTF8}} {
				out := func(lazy bool) (string, logseg.Summary) {
					var b bytes.Buffer
					l := l
					header := "== f\n"
					sum, err := logseg.Read(path, logseg.Options{Window: window, Lazy: lazy}, func(w *logseg.Window) error {
						return l.Window(w, &header, &b)
					})
					if err != nil {
						t.Fatal(err)
					}
					return b.String(), sum
				}
				whole, ws := out(false)
				lazy, ls := out(true)
				if lazy != whole || !reflect.DeepEqual(ls, ws) {
					t.Fatalf("%s, window %d, %+v: lazy listing differs\n%s\nwhole\n%s", name, window, l, lazy, whole)
				}
				if len(whole) < 100 {
					t.Fatalf("%s: listing %q", name, whole)
				}
			}
		}
	}
}
