package codec_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
)

// An unknown key of 3 MB is refused with no "did you mean" (it is no
// typo of any field name): no copy of the key is made for the suggestion,
// and no edit distance is computed over it.
func TestFromJSONHugeUnknownKeyBounded(t *testing.T) {
	s, _ := jrelease(t, "4.4.0")
	produce := msg(t, s, "ProduceRequest")
	data := []byte(`{"` + strings.Repeat("k", 3_000_000) + `":1}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := codec.FromJSON(data, produce, 9)
	runtime.ReadMemStats(&after)
	var je *codec.JSONError
	if !errors.As(err, &je) || !strings.HasPrefix(je.Msg, "unknown field: ProduceRequest has no field with this key") || strings.Contains(je.Msg, "did you mean") {
		t.Fatalf("%v, want the key refused with no suggestion", err)
	}
	// What remains is linear in the key: the JSON tokenizer's buffer that
	// grows to hold it, the key's string and its error path before it is
	// cut (about 14 MB). The suggestion's edit distances over it took 50
	// MB more, and 1.5 s.
	n := after.TotalAlloc - before.TotalAlloc
	t.Logf("refusing a %d-byte key allocated %d bytes", len(data), n)
	if n > 6*uint64(len(data)) {
		t.Errorf("refusing a 3 MB key allocated %d bytes", n)
	}
	// A typo of a field name still gets its suggestion.
	_, err = codec.FromJSON([]byte(`{"transactionalIdd":null}`), produce, 9)
	if err == nil || !strings.Contains(err.Error(), `did you mean "transactionalId"?`) {
		t.Errorf("a typo: %v", err)
	}
}
