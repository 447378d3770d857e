package codec_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// Properties checked on every input:
//
//   - decoding never panics, and a failure is one of the documented error
//     types with an offset inside the input;
//   - when decoding succeeds, the leaves tile the input exactly;
//   - re-encoding the decoded header and body succeeds and gives the same
//     bytes and the same span tree — unless the input is one of the
//     Kafka-legal encodings that have a different canonical form (see
//     nonCanonical). Those must still re-encode to a fixed point: the
//     canonical bytes decode and encode to themselves.

// seedVersions are the versions of m whose smallest instances seed the
// fuzzers: the lowest, the first flexible one and the highest.
func seedVersions(m *spec.Message) []int16 {
	vv := m.ValidVersions
	if vv.Empty() {
		return nil
	}
	out := []int16{vv.Lo}
	if fv := m.FlexibleVersions.Intersect(vv); !fv.Empty() && fv.Lo != vv.Lo {
		out = append(out, fv.Lo)
	}
	if vv.Hi != out[len(out)-1] {
		out = append(out, vv.Hi)
	}
	return out
}

func FuzzDecodeRequest(f *testing.F) {
	s, c := specs(f)
	for _, key := range s.APIKeys() {
		m := s.Request(key)
		for _, v := range seedVersions(m) {
			enc, err := c.Encode(m, v, nil, instance.Smallest(m, v))
			if err != nil {
				f.Fatalf("%s v%d: %v", m.Name, v, err)
			}
			f.Add(enc.Bytes)
		}
	}
	// C01, its null client_id variant, and C09's envelope.
	f.Add(framed(hexBytes(f, "0012 0003 00000065 000d 61646d696e636c69656e742d31 00 12 6170616368652d6b61666b612d6a617661 06 322e382e30 00")))
	f.Add(framed(hexBytes(f, "0012 0003 00000065 ffff 00 12 6170616368652d6b61666b612d6a617661 06 322e382e30 00")))
	f.Add(framed(hexBytes(f, "003a 0000 00000000 0000 00 01 00 01 00")))
	f.Fuzz(func(t *testing.T, b []byte) {
		dec, err := c.DecodeRequest(b)
		checkDecoded(t, c, b, dec, err)
	})
}

func FuzzDecodeResponse(f *testing.F) {
	s, c := specs(f)
	for _, key := range s.APIKeys() {
		m := s.Response(key)
		if m == nil {
			continue
		}
		for _, v := range seedVersions(m) {
			enc, err := c.Encode(m, v, nil, instance.Smallest(m, v))
			if err != nil {
				f.Fatalf("%s v%d: %v", m.Name, v, err)
			}
			f.Add(key, v, enc.Bytes)
		}
	}
	// C02, C04 and C08.
	f.Add(int16(18), int16(3), framed(hexBytes(f, "00000007 0000 03 0000 0000 0009 00 0003 0000 000c 00 00000000 00")))
	f.Add(int16(18), int16(3), framed(hexBytes(f, "00000000 0000 02 0012 0000 0003 00 00000000 02 01 08 0000000000000005 09 02 abcd")))
	f.Add(int16(68), int16(0), framed(hexBytes(f, "00000000 00 00000000 0000 00 03 6d31 00000005 00001388 ff 00")))
	f.Add(int16(68), int16(0), framed(hexBytes(f, "00000000 00 00000000 0000 00 03 6d31 00000005 00001388 01 01 00 00")))
	for _, nc := range nonCanonicalCases {
		f.Add(nc.key, nc.ver, framed(hexBytes(f, nc.in)))
	}
	f.Fuzz(func(t *testing.T, key, version int16, b []byte) {
		m := s.Response(key)
		if m == nil {
			return
		}
		dec, err := c.DecodeResponse(b, m, version)
		checkDecoded(t, c, b, dec, err)
	})
}

// checkDecoded asserts the properties above for one decoded input.
func checkDecoded(t *testing.T, c *codec.Codec, b []byte, dec *tree.Tree, err error) {
	if err != nil {
		var we *wire.Error
		var fe *codec.FrameError
		var ve *codec.VersionError
		switch {
		case errors.As(err, &we):
			if we.Offset < 0 || we.Offset > len(b) {
				t.Fatalf("error offset %d outside the %d-byte input: %v", we.Offset, len(b), err)
			}
		case errors.As(err, &fe), errors.As(err, &ve):
		default:
			t.Fatalf("undocumented error type %T: %v", err, err)
		}
		if dec == nil {
			t.Fatalf("no partial tree with error %v", err)
		}
		// Every input byte is attributed, even in a partial tree.
		checkTiling(t, "partial", dec)
		return
	}
	checkTiling(t, "decoded", dec)
	again, err := reencode(c, dec)
	why := nonCanonical(dec)
	if err != nil {
		if why == "tags out of order" {
			return // duplicates cannot be written back
		}
		t.Fatalf("decoded fine but does not re-encode: %v\ninput %x", err, b)
	}
	if why == "" {
		if !bytes.Equal(again.Bytes, b) {
			t.Fatalf("re-encoding differs:\n got %x\nwant %x", again.Bytes, b)
		}
		return
	}
	// A non-canonical input re-encodes to canonical bytes, which are a
	// fixed point.
	dec2, err := decodeAs(c, dec.Message, dec.Version, again.Bytes)
	if err != nil {
		t.Fatalf("(%s) the re-encoded bytes do not decode: %v\ninput %x\nagain %x", why, err, b, again.Bytes)
	}
	if w := nonCanonical(dec2); w != "" {
		t.Fatalf("(%s) the re-encoded bytes are still not canonical: %s\nagain %x", why, w, again.Bytes)
	}
	third, err := reencode(c, dec2)
	if err != nil {
		t.Fatalf("(%s) the re-encoded bytes do not re-encode: %v\nagain %x", why, err, again.Bytes)
	}
	if !bytes.Equal(third.Bytes, again.Bytes) {
		t.Fatalf("(%s) re-encoding is not a fixed point:\n%x\n%x", why, again.Bytes, third.Bytes)
	}
}

// nonCanonical names why Kafka-legal bytes would not re-encode identically,
// or returns "". Each reason is a place where Kafka's reader is lenient and
// its writer is not:
//
//   - "tags out of order": Kafka reads tagged fields in any order, even
//     duplicated (the last wins); writers emit them ascending, once.
//   - "presence marker": a nullable struct's int8 marker reads any negative
//     byte as null and 0 or positive as present; writers emit ff / 01 (and
//     00 / 01 as a uvarint inside a tagged field).
//   - "bool byte": any non-zero byte reads as true; writers emit 01.
//   - "uvarint": lengths, counts, tags and sizes may arrive non-minimal
//     (80 00 for 0) or with bits past 32 in the fifth byte, which the reader
//     drops; writers emit the minimal form.
//   - "tagged default": a known tagged field may arrive holding its default
//     value; writers leave such fields out.
func nonCanonical(t *tree.Tree) string {
	reason := ""
	for i := 0; i < len(t.Nodes); i++ {
		n := &t.Nodes[i]
		var r string
		switch n.Kind() {
		case tree.Records:
			// Records are written back byte for byte, whatever they hold
			// (a message decoded in a control record's value included).
			i = int(n.End) - 1
			continue
		case tree.TagSection:
			prev := int64(-1)
			t.Children(int32(i), func(c int32) bool {
				e := &t.Nodes[c]
				if e.Kind() == tree.Tag || e.Kind() == tree.UnknownTag {
					if t.Num(c) <= prev {
						r = "tags out of order"
						return false
					}
					prev = t.Num(c)
				}
				return true
			})
			if r == "" && t.IsLeaf(int32(i)) && !canonicalUvarint(t.Bytes[n.Off:n.Off+n.Size], 0) {
				r = "uvarint"
			}
		case tree.Presence:
			if (n.Wire() == tree.WireInt8 && t.Num(int32(i)) != -1 && t.Num(int32(i)) != 1) || (n.Wire() == tree.WireUvarint && t.Num(int32(i)) > 1) {
				r = "presence marker"
			} else if n.Wire() == tree.WireUvarint && !canonicalUvarint(t.Bytes[n.Off:n.Off+n.Size], t.Num(int32(i))) {
				r = "uvarint"
			}
		case tree.Length:
			if n.Wire() == tree.WireUvarint && !canonicalUvarint(t.Bytes[n.Off:n.Off+n.Size], t.Num(int32(i))+1) {
				r = "uvarint"
			} else if t.Num(int32(i)) < -1 {
				r = "negative length" // Kafka reads any negative length as null
			}
		case tree.TagCount, tree.TagNumber, tree.TagSize:
			if !canonicalUvarint(t.Bytes[n.Off:n.Off+n.Size], t.Num(int32(i))) {
				r = "uvarint"
			}
		case tree.Tag:
			if n.Flags()&tree.FlagSizeMismatch != 0 {
				r = "tag size" // Kafka does not check a known tag's size
				break
			}
			t.Children(int32(i), func(c int32) bool {
				switch t.Nodes[c].Kind() {
				case tree.Field, tree.Struct, tree.Array, tree.Records:
					if holdsDefault(t, c) {
						r = "tagged default"
					}
					return false
				}
				return true
			})
		case tree.Field, tree.Element:
			switch n.Wire() {
			case tree.WireBool:
				if t.Bytes[n.Off] > 1 {
					r = "bool byte"
				}
			case tree.WireCompactString, tree.WireCompactBytes:
				dlen := int32(len(t.Data(int32(i))))
				v := int64(dlen) + 1
				if n.Null() {
					v = 0
				}
				if !canonicalUvarint(t.Bytes[n.Off:n.Off+n.Size-dlen], v) {
					r = "uvarint"
				}
			case tree.WireString, tree.WireBytes:
				if n.Null() && bytes.Count(t.Bytes[n.Off:n.Off+n.Size], []byte{0xff}) != int(n.Size) {
					r = "negative length" // Kafka reads any negative length as null
				}
			}
		}
		if r != "" {
			if reason == "" || r == "tags out of order" {
				reason = r
			}
		}
	}
	return reason
}

// canonicalUvarint reports whether b is exactly the minimal uvarint of v.
func canonicalUvarint(b []byte, v int64) bool {
	return v >= 0 && v <= math.MaxUint32 && bytes.Equal(b, wire.AppendUvarint(nil, uint32(v)))
}

// holdsDefault reports whether decoded field node i equals its field's
// default by Kafka's rule (FieldSpec.generateNonDefaultValueCheck).
func holdsDefault(t *tree.Tree, i int32) bool {
	n := &t.Nodes[i]
	f := t.Field(i)
	switch f.Type.Kind {
	case spec.KindBool, spec.KindInt8, spec.KindInt16, spec.KindUint16, spec.KindInt32, spec.KindUint32, spec.KindInt64:
		return t.Num(i) == f.DefaultInt
	case spec.KindFloat64:
		return math.Float64frombits(uint64(t.Num(i))) == f.DefaultFloat
	case spec.KindUUID:
		return bytes.Equal(t.Data(i), f.DefaultUUID[:])
	case spec.KindString:
		if f.DefaultNull {
			return n.Null()
		}
		return !n.Null() && string(t.Data(i)) == f.DefaultString
	case spec.KindBytes, spec.KindArray, spec.KindStruct:
		if f.DefaultNull || n.Null() {
			return n.Null() && f.DefaultNull
		}
		switch f.Type.Kind {
		case spec.KindBytes:
			return len(t.Data(i)) == 0
		case spec.KindArray:
			empty := true
			t.Elements(i, func(int32) bool { empty = false; return false })
			return empty
		}
		def := true
		t.Fields(i, func(c int32) bool {
			def = t.Nodes[c].Kind() != tree.UnknownTag && t.Field(c) != nil && holdsDefault(t, c)
			return def
		})
		return def
	}
	return false
}

// nonCanonicalCases are Kafka-legal responses that a Kafka writer would
// never produce, with the reason nonCanonical gives and the bytes kwire
// writes back (header and body; the size prefix follows).
var nonCanonicalCases = []struct {
	name      string
	key, ver  int16
	in, canon string
	reason    string
}{
	{"nullable struct marker 00 reads as present and is written 01", 68, 0,
		"00000000 00 00000000 0000 00 03 6d31 00000005 00001388 00 01 00 00",
		"00000000 00 00000000 0000 00 03 6d31 00000005 00001388 01 01 00 00", "presence marker"},
	{"nullable struct marker 80 reads as null and is written ff", 68, 0,
		"00000000 00 00000000 0000 00 03 6d31 00000005 00001388 80 00",
		"00000000 00 00000000 0000 00 03 6d31 00000005 00001388 ff 00", "presence marker"},
	{"bool byte 02 reads as true and is written 01", 52, 2,
		"00000000 00 0000 02 01 02 00000000 0000 00000000 00000000 02 00 00 00",
		"00000000 00 0000 02 01 02 00000000 0000 00000000 00000000 01 00 00 00", "bool byte"},
	{"a non-minimal compact count 82 00 is written 02", 18, 3,
		"00000000 0000 8200 0012 0000 0003 00 00000000 00",
		"00000000 0000 02 0012 0000 0003 00 00000000 00", "uvarint"},
	{"bits past 32 in a fifth uvarint byte are dropped", 68, 0,
		"00000000 00 00000000 0000 00 8380808070 6d31 00000005 00001388 ff 00",
		"00000000 00 00000000 0000 00 03 6d31 00000005 00001388 ff 00", "uvarint"},
	{"a tagged field sent at its default -1 is left out", 18, 3,
		"00000000 0000 01 00000000 01 01 08 ffffffffffffffff",
		"00000000 0000 01 00000000 00", "tagged default"},
	{"header tags out of order are written ascending", 68, 0,
		"00000000 02 05 02 0001 02 02 0007 00000000 0000 00 03 6d31 00000005 00001388 ff 00",
		"00000000 02 02 02 0007 05 02 0001 00000000 0000 00 03 6d31 00000005 00001388 ff 00", "tags out of order"},
}

// TestNonCanonicalInputs pins down each leniency the fuzz targets allow:
// the input decodes, is classified with its reason, and re-encodes to the
// canonical bytes, which are classified canonical.
func TestNonCanonicalInputs(t *testing.T) {
	s, c := specs(t)
	for _, tc := range nonCanonicalCases {
		t.Run(tc.name, func(t *testing.T) {
			m := s.Response(tc.key)
			dec, err := c.DecodeResponse(framed(hexBytes(t, tc.in)), m, tc.ver)
			if err != nil {
				t.Fatal(err)
			}
			if why := nonCanonical(dec); why != tc.reason {
				t.Errorf("reason %q, want %q", why, tc.reason)
			}
			again, err := reencode(c, dec)
			if err != nil {
				t.Fatal(err)
			}
			sameBytes(t, "canonical form", again.Bytes, framed(hexBytes(t, tc.canon)))
			dec2, err := c.DecodeResponse(again.Bytes, m, tc.ver)
			if err != nil {
				t.Fatal(err)
			}
			if why := nonCanonical(dec2); why != "" {
				t.Errorf("canonical bytes classified %q", why)
			}
		})
	}
}
