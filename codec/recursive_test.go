package codec_test

import (
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
	"github.com/kwire/kwire/tree"
)

// A struct may contain itself through an array (legal in a spec, and in
// Kafka's generated code): the codec must compile it and bound the depth,
// never overflow the stack.
const recursiveSpec = `{ "apiKey": 200, "type": "data", "name": "Rec", "validVersions": "0", "flexibleVersions": "0+",
  "fields": [ { "name": "Root", "type": "Node", "versions": "0+" } ],
  "commonStructs": [ { "name": "Node", "versions": "0+", "fields": [
    { "name": "Kids", "type": "[]Node", "versions": "0+" } ] } ] }`

func TestRecursiveStructIsBounded(t *testing.T) {
	s := smallSet(t, recursiveSpec)
	m := s.Message("Rec")
	c := codec.New(s)
	enc, err := c.EncodeRecord(m, 0, instance.Smallest(m, 0))
	if err != nil {
		t.Fatal(err)
	}
	checkTiling(t, "smallest", enc)
	dec, err := c.DecodeRecord(enc.Bytes, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := tree.Diff(instance.Smallest(m, 0), 0, dec, dec.Part(tree.Body)); d != "" {
		t.Fatal(d)
	}
	// 200 levels of one kid each: deeper than the codec allows.
	deep := strings.Repeat("02", 200) + strings.Repeat("0100", 1)
	_, err = c.DecodeRecord(hexBytes(t, deep), m, 0)
	if err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Fatalf("200 nested structs: err = %v, want a depth error", err)
	}
}

// A struct that contains itself through a plain struct field would make
// Kafka's generated constructor recurse forever: the loader says so.
func TestSelfContainingStructIsAnError(t *testing.T) {
	text := `{ "apiKey": 201, "type": "data", "name": "Loop", "validVersions": "0", "flexibleVersions": "0+",
  "fields": [ { "name": "Root", "type": "Node", "versions": "0+" } ],
  "commonStructs": [ { "name": "Node", "versions": "0+", "fields": [
    { "name": "Next", "type": "Node", "versions": "0+" } ] } ] }`
	_, errs := spec.NewSet([]bundle.File{{Path: "Loop.json", Data: []byte(text)}})
	if !errs.HasErrors() || !strings.Contains(errs.Error(), "[recursive-struct]") {
		t.Fatalf("problems = %v, want a recursive-struct error", errs)
	}
}

// Tagged fields exist only in flexible versions (Kafka's generator refuses
// a tag in a message without flexibleVersions).
func TestTagInNonFlexibleMessageIsAnError(t *testing.T) {
	text := `{ "apiKey": 202, "type": "data", "name": "T", "validVersions": "0", "flexibleVersions": "none",
  "fields": [ { "name": "X", "type": "int32", "versions": "0+", "taggedVersions": "0+", "tag": 0 } ] }`
	_, errs := spec.NewSet([]bundle.File{{Path: "T.json", Data: []byte(text)}})
	if !errs.HasErrors() || !strings.Contains(errs.Error(), "are not all flexible versions") {
		t.Fatalf("problems = %v, want a bad-tag error", errs)
	}
}
