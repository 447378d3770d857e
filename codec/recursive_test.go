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

// Three arrays of the struct itself and a nullable parent: the smallest
// instance must stay small (a depth bound alone would grow it as 3^depth).
func TestRecursiveSmallestStaysSmall(t *testing.T) {
	text := `{ "apiKey": 203, "type": "data", "name": "Boom", "validVersions": "0", "flexibleVersions": "0+",
  "fields": [ { "name": "Root", "type": "Node", "versions": "0+" } ],
  "commonStructs": [ { "name": "Node", "versions": "0+", "fields": [
    { "name": "A", "type": "[]Node", "versions": "0+" },
    { "name": "B", "type": "[]Node", "versions": "0+" },
    { "name": "C", "type": "[]Node", "versions": "0+" },
    { "name": "Parent", "type": "Node", "versions": "0+", "nullableVersions": "0+", "default": "null" } ] } ] }`
	s := smallSet(t, text)
	m := s.Message("Boom")
	enc, err := codec.New(s).EncodeRecord(m, 0, instance.Smallest(m, 0))
	if err != nil {
		t.Fatal(err)
	}
	// Root: three empty arrays (01 each), a null parent (ff), tags (00),
	// then the message's tags (00).
	if got := hexString(enc.Bytes); got != "010101ff0000" {
		t.Fatalf("smallest Boom = %s, want 010101ff0000", got)
	}
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
