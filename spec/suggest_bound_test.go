package spec

import (
	"runtime"
	"strings"
	"testing"
)

// Suggest over a name far longer than every candidate returns "" without
// copying or walking it against each candidate: a 3 MB name costs less
// than a kilobyte whatever the number of candidates, and a name that only
// pads a candidate by up to 7 letters still finds it.
func TestSuggestHugeNameBounded(t *testing.T) {
	cands := []string{"bool", "int8", "int16", "int32", "int64", "string", "bytes", "ProduceRequest", "FetchRequest"}
	huge := strings.Repeat("k", 3_000_000)
	padded := huge + "bool"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := Suggest(huge, cands)
	got2 := Suggest(padded, cands)
	runtime.ReadMemStats(&after)
	if got != "" || got2 != "" {
		t.Errorf("suggested %q, %q for a 3 MB name", got, got2)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1024 {
		t.Errorf("Suggest over a 3 MB name allocated %d bytes", n)
	}
	for _, c := range []struct{ s, want string }{
		{"booleanbool", "bool"},
		{"int3222222", "int32"},
		{"FetchRequestXXXXXXX", "FetchRequest"},
		{"FetchRequestXXXXXXXX", ""},
		{"Produc", ""},
		{"ProduceRequets", "ProduceRequest"},
		{"ÉÉÉÉÉÉÉÉbool", ""},
	} {
		if got := Suggest(c.s, cands); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}
