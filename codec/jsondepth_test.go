package codec_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
)

// jsonDepth is how deeply the converter JSON of a struct's fields nests
// (the root object is 1; a struct adds an object, an array of structs an
// array and its objects).
func jsonDepth(m *spec.Message, fields []*spec.Field, d int) int {
	deepest := d
	for _, f := range fields {
		if !f.Type.IsStructLike() {
			continue
		}
		sub := f.Fields
		if sub == nil && m.Structs[f.Type.Name] != nil {
			sub = m.Structs[f.Type.Name].Fields
		}
		dd := d + 1
		if f.Type.Kind == spec.KindArray {
			dd++
		}
		deepest = max(deepest, jsonDepth(m, sub, dd))
	}
	return deepest
}

// TestMaxJSONDepthAboveEverySpec pins what MaxJSONDepth's doc says: the
// deepest message of the embedded releases nests 10 levels, far below the
// bound.
func TestMaxJSONDepthAboveEverySpec(t *testing.T) {
	sets, err := spec.EmbeddedAll()
	if err != nil {
		t.Fatal(err)
	}
	deepest, name := 0, ""
	for _, s := range sets {
		for _, m := range s.Messages {
			if d := jsonDepth(m, m.Root.Fields, 1); d > deepest {
				deepest, name = d, m.Name
			}
		}
	}
	if deepest != 10 || name != "StreamsGroupDescribeResponse" {
		t.Errorf("the deepest message: %s, %d levels; MaxJSONDepth's doc says StreamsGroupDescribeResponse, 10", name, deepest)
	}
	if codec.MaxJSONDepth < 4*deepest {
		t.Errorf("MaxJSONDepth %d is not well above %d", codec.MaxJSONDepth, deepest)
	}
}

func TestFromJSONDepthBound(t *testing.T) {
	s, _ := jrelease(t, "4.4.0")
	vote := msg(t, s, "VoteRequest")
	jerr := func(t *testing.T, data string) *codec.JSONError {
		t.Helper()
		_, err := codec.FromJSON([]byte(data), vote, 1)
		var je *codec.JSONError
		if !errors.As(err, &je) {
			t.Fatalf("%v, want a *codec.JSONError", err)
		}
		return je
	}
	// clusterId holding arrays: the root object and n arrays nest n+1 levels.
	nested := func(n int, closed bool) string {
		s := `{"clusterId":` + strings.Repeat("[", n)
		if closed {
			s += strings.Repeat("]", n) + "}"
		}
		return s
	}
	t.Run("at the bound", func(t *testing.T) {
		je := jerr(t, nested(codec.MaxJSONDepth-1, true))
		if je.Path != "$.clusterId" || je.Msg != "expected a string or null, got an array" && !strings.HasPrefix(je.Msg, "expected a string") {
			t.Errorf("%s: %s, want the type of clusterId refused, not the depth", je.Path, je.Msg)
		}
	})
	t.Run("one past the bound", func(t *testing.T) {
		je := jerr(t, nested(codec.MaxJSONDepth, true))
		off := len(`{"clusterId":`) + codec.MaxJSONDepth - 1
		wantPath := "$.clusterId" + strings.Repeat("[0]", codec.MaxJSONDepth-1)
		wantMsg := "objects and arrays nested deeper than 64 levels at byte 76 (Kafka's messages nest a few)"
		if je.Path != wantPath || je.Msg != wantMsg || je.Offset != off {
			t.Errorf("got %s: %s (offset %d)\nwant %s: %s (offset %d)", je.Path, je.Msg, je.Offset, wantPath, wantMsg, off)
		}
	})
	t.Run("ten million unclosed arrays", func(t *testing.T) {
		data := []byte(nested(10_000_000, false))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := codec.FromJSON(data, vote, 1)
		runtime.ReadMemStats(&after)
		var je *codec.JSONError
		if !errors.As(err, &je) || !strings.Contains(je.Msg, "nested deeper than 64 levels") {
			t.Fatalf("%v, want the depth refused", err)
		}
		if len(err.Error()) > codec.MaxJSONErrorPath+100 {
			t.Errorf("an error of %d bytes: %.400s…", len(err.Error()), err)
		}
		// The input is 10 MB; what is read of it is 64 levels.
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("refusing the input allocated %d bytes", n)
		}
	})
	t.Run("a long key", func(t *testing.T) {
		key := strings.Repeat("k", 100_000)
		for _, data := range []string{
			`{"` + key + `":1}`,
			`{"clusterId":"a","` + key + `":1,"` + key + `":2}`,
			`{"topics":[{"` + key + `":[[[`,
		} {
			je := jerr(t, data)
			if len(je.Path) > codec.MaxJSONErrorPath || !strings.HasPrefix(je.Path, `$.kkk`) && !strings.HasPrefix(je.Path, `$.topics[0].kkk`) || !strings.Contains(je.Path, "k…k") {
				t.Errorf("a path of %d bytes: %.80s…", len(je.Path), je.Path)
			}
			if len(je.Error()) > 2*codec.MaxJSONErrorPath+200 {
				t.Errorf("an error of %d bytes: %.300s…", len(je.Error()), je.Error())
			}
		}
	})
}

// FuzzFromJSON reads any text as the body of a few messages: it never
// panics, a failure is a *codec.JSONError whose offset lies in the input
// and whose path is at most MaxJSONErrorPath bytes, and what reads encodes.
func FuzzFromJSON(f *testing.F) {
	s, c := specs(f)
	names := []string{"VoteRequest", "StreamsGroupDescribeResponse", "SaslAuthenticateRequest", "ProduceRequest"}
	for _, seed := range []string{
		`{"clusterId":"abc","voterId":2,"topics":[]}`,
		`{"clusterId":` + strings.Repeat("[", 70),
		`{"clusterId":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`,
		`{"` + strings.Repeat("k", 600) + `":1}`,
		`{"topics":[{"` + strings.Repeat("é", 300) + `":[[[`,
		`{"authBytes":"AGFsaWNlAHNlY3JldA=="}`,
	} {
		for k := range names {
			f.Add(uint8(k), []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		m := msg(t, s, names[int(which)%len(names)])
		v := m.ValidVersions.Hi
		body, err := codec.FromJSON(data, m, v)
		if err != nil {
			var je *codec.JSONError
			if !errors.As(err, &je) {
				t.Fatalf("%T: %v", err, err)
			}
			if je.Offset < 0 || je.Offset > len(data) || len(je.Path) > codec.MaxJSONErrorPath {
				t.Fatalf("offset %d of %d bytes, path of %d bytes: %v", je.Offset, len(data), len(je.Path), err)
			}
			return
		}
		if _, err := c.Encode(m, v, nil, body); err != nil {
			t.Fatalf("%s v%d read but does not encode: %v", m.Name, v, err)
		}
	})
}
