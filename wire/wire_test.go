package wire_test

import (
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kwire/kwire/wire"
)

// unhex decodes hex written with spaces for reading.
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// TestFixedWidthPairs writes each fixed-width primitive, checks the exact
// big-endian bytes, and reads them back with the matching Reader method.
func TestFixedWidthPairs(t *testing.T) {
	type pair struct {
		name  string
		write func([]byte) []byte
		hex   string
		read  func(*wire.Reader) any
		want  any
	}
	cases := []pair{
		{"int8 0", func(b []byte) []byte { return wire.AppendInt8(b, 0) }, "00", func(r *wire.Reader) any { return r.Int8() }, int8(0)},
		{"int8 -1", func(b []byte) []byte { return wire.AppendInt8(b, -1) }, "ff", func(r *wire.Reader) any { return r.Int8() }, int8(-1)},
		{"int8 min", func(b []byte) []byte { return wire.AppendInt8(b, math.MinInt8) }, "80", func(r *wire.Reader) any { return r.Int8() }, int8(math.MinInt8)},
		{"int8 max", func(b []byte) []byte { return wire.AppendInt8(b, math.MaxInt8) }, "7f", func(r *wire.Reader) any { return r.Int8() }, int8(math.MaxInt8)},
		{"int16 -1 is the null string length", func(b []byte) []byte { return wire.AppendInt16(b, -1) }, "ffff", func(r *wire.Reader) any { return r.Int16() }, int16(-1)},
		{"int16 258 is big-endian", func(b []byte) []byte { return wire.AppendInt16(b, 0x0102) }, "0102", func(r *wire.Reader) any { return r.Int16() }, int16(0x0102)},
		{"int16 min", func(b []byte) []byte { return wire.AppendInt16(b, math.MinInt16) }, "8000", func(r *wire.Reader) any { return r.Int16() }, int16(math.MinInt16)},
		{"uint16 max is 65535 not -1", func(b []byte) []byte { return wire.AppendUint16(b, 0xffff) }, "ffff", func(r *wire.Reader) any { return r.Uint16() }, uint16(65535)},
		{"uint16 50000", func(b []byte) []byte { return wire.AppendUint16(b, 50000) }, "c350", func(r *wire.Reader) any { return r.Uint16() }, uint16(50000)},
		{"int32 101", func(b []byte) []byte { return wire.AppendInt32(b, 101) }, "00000065", func(r *wire.Reader) any { return r.Int32() }, int32(101)},
		{"int32 -1", func(b []byte) []byte { return wire.AppendInt32(b, -1) }, "ffffffff", func(r *wire.Reader) any { return r.Int32() }, int32(-1)},
		{"int32 min", func(b []byte) []byte { return wire.AppendInt32(b, math.MinInt32) }, "80000000", func(r *wire.Reader) any { return r.Int32() }, int32(math.MinInt32)},
		{"uint32 max", func(b []byte) []byte { return wire.AppendUint32(b, math.MaxUint32) }, "ffffffff", func(r *wire.Reader) any { return r.Uint32() }, uint32(math.MaxUint32)},
		{"uint32 0x01020304", func(b []byte) []byte { return wire.AppendUint32(b, 0x01020304) }, "01020304", func(r *wire.Reader) any { return r.Uint32() }, uint32(0x01020304)},
		{"int64 5", func(b []byte) []byte { return wire.AppendInt64(b, 5) }, "0000000000000005", func(r *wire.Reader) any { return r.Int64() }, int64(5)},
		{"int64 -1", func(b []byte) []byte { return wire.AppendInt64(b, -1) }, "ffffffffffffffff", func(r *wire.Reader) any { return r.Int64() }, int64(-1)},
		{"int64 min", func(b []byte) []byte { return wire.AppendInt64(b, math.MinInt64) }, "8000000000000000", func(r *wire.Reader) any { return r.Int64() }, int64(math.MinInt64)},
		{"float64 1.5 is its IEEE bits", func(b []byte) []byte { return wire.AppendFloat64(b, 1.5) }, "3ff8000000000000", func(r *wire.Reader) any { return math.Float64frombits(uint64(r.Int64())) }, 1.5},
		{"float64 -0 keeps its sign bit", func(b []byte) []byte { return wire.AppendFloat64(b, math.Copysign(0, -1)) }, "8000000000000000", func(r *wire.Reader) any { return math.Float64bits(math.Float64frombits(uint64(r.Int64()))) }, uint64(1) << 63},
		{"bool true is 01", func(b []byte) []byte { return wire.AppendBool(b, true) }, "01", func(r *wire.Reader) any { return r.Int8() }, int8(1)},
		{"bool false is 00", func(b []byte) []byte { return wire.AppendBool(b, false) }, "00", func(r *wire.Reader) any { return r.Int8() }, int8(0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Appending keeps what is already in the buffer.
			got := c.write([]byte{0xee})
			want := append([]byte{0xee}, unhex(t, c.hex)...)
			if hex.EncodeToString(got) != hex.EncodeToString(want) {
				t.Fatalf("wrote %x, want %x", got, want)
			}
			r := wire.NewReader(got)
			r.Off = 1
			if v := c.read(r); v != c.want {
				t.Errorf("read %v (%T), want %v (%T)", v, v, c.want, c.want)
			}
			if r.Err() != nil || r.Remaining() != 0 || r.Off != len(got) {
				t.Errorf("after the read: err %v, off %d, remaining %d", r.Err(), r.Off, r.Remaining())
			}
		})
	}
}

// TestUvarintBoundaries checks every width boundary of the unsigned varint
// used for compact lengths, tag counts, tags and sizes.
func TestUvarintBoundaries(t *testing.T) {
	cases := []struct {
		v   uint32
		hex string
	}{
		{0, "00"},
		{1, "01"},
		{127, "7f"},
		{128, "8001"},
		{300, "ac02"},
		{16383, "ff7f"},
		{16384, "808001"},
		{1<<21 - 1, "ffff7f"},
		{1 << 21, "80808001"},
		{1<<28 - 1, "ffffff7f"},
		{1 << 28, "8080808001"},
		{math.MaxUint32, "ffffffff0f"},
	}
	for _, c := range cases {
		got := wire.AppendUvarint(nil, c.v)
		if hex.EncodeToString(got) != c.hex {
			t.Errorf("AppendUvarint(%d) = %x, want %s", c.v, got, c.hex)
		}
		if n := wire.UvarintLen(c.v); n != len(c.hex)/2 {
			t.Errorf("UvarintLen(%d) = %d, want %d", c.v, n, len(c.hex)/2)
		}
		if got64 := wire.AppendUvarint64(nil, uint64(c.v)); hex.EncodeToString(got64) != c.hex {
			t.Errorf("AppendUvarint64(%d) = %x, want %s", c.v, got64, c.hex)
		}
		r := wire.NewReader(unhex(t, c.hex))
		if v := r.Uvarint(); v != c.v || r.Err() != nil || r.Remaining() != 0 {
			t.Errorf("Uvarint(%s) = %d, err %v, remaining %d; want %d", c.hex, v, r.Err(), r.Remaining(), c.v)
		}
		r = wire.NewReader(unhex(t, c.hex))
		if v := r.Uvarint64(); v != uint64(c.v) || r.Err() != nil {
			t.Errorf("Uvarint64(%s) = %d, err %v; want %d", c.hex, v, r.Err(), c.v)
		}
	}
	if got := wire.AppendUvarint64(nil, math.MaxUint64); hex.EncodeToString(got) != "ffffffffffffffffff01" {
		t.Errorf("AppendUvarint64(max) = %x", got)
	}
	r := wire.NewReader(unhex(t, "ffffffffffffffffff01"))
	if v := r.Uvarint64(); v != math.MaxUint64 || r.Err() != nil {
		t.Errorf("Uvarint64(max) = %d, %v", v, r.Err())
	}
}

// TestZigzagVarints covers C18 (encode width) and the zig-zag mapping of
// the record format's varint and varlong.
func TestZigzagVarints(t *testing.T) {
	int32s := []struct {
		v   int32
		hex string
	}{
		{0, "00"},
		{-1, "01"},
		{1, "02"},
		{-64, "7f"},
		{63, "7e"},
		{64, "8001"},
		{-65, "8101"},
		{32768, "808004"}, // C18
		{98304, "80800c"}, // C18
		{math.MaxInt32, "feffffff0f"},
		{math.MinInt32, "ffffffff0f"},
	}
	for _, c := range int32s {
		got := wire.AppendVarint(nil, c.v)
		if hex.EncodeToString(got) != c.hex {
			t.Errorf("AppendVarint(%d) = %x, want %s", c.v, got, c.hex)
		}
		r := wire.NewReader(got)
		if v := r.Varint(); v != c.v || r.Err() != nil || r.Remaining() != 0 {
			t.Errorf("Varint(%s) = %d, %v; want %d", c.hex, v, r.Err(), c.v)
		}
		// A varlong of an int32-range value has the same bytes.
		if got64 := wire.AppendVarlong(nil, int64(c.v)); hex.EncodeToString(got64) != c.hex {
			t.Errorf("AppendVarlong(%d) = %x, want %s", c.v, got64, c.hex)
		}
	}
	int64s := []struct {
		v   int64
		hex string
	}{
		{0, "00"},
		{-1, "01"},
		{1 << 31, "8080808010"},
		{math.MaxInt64, "feffffffffffffffff01"},
		{math.MinInt64, "ffffffffffffffffff01"},
	}
	for _, c := range int64s {
		got := wire.AppendVarlong(nil, c.v)
		if hex.EncodeToString(got) != c.hex {
			t.Errorf("AppendVarlong(%d) = %x, want %s", c.v, got, c.hex)
		}
		r := wire.NewReader(got)
		if v := r.Varlong(); v != c.v || r.Err() != nil || r.Remaining() != 0 {
			t.Errorf("Varlong(%s) = %d, %v; want %d", c.hex, v, r.Err(), c.v)
		}
	}
}

// TestVarintErrors covers C18's decode bounds and the messages and offsets
// of every varint failure.
func TestVarintErrors(t *testing.T) {
	cases := []struct {
		name   string
		hex    string
		skip   int // bytes read with Int8 before the varint
		read   func(*wire.Reader)
		offset int
		msg    string
	}{
		{"varint 80 80 then end is truncated", "8080", 0, func(r *wire.Reader) { r.Varint() }, 0, "truncated varint: need 3 bytes, have 2"},
		{"varint of six bytes is too long", "ffffffffff01", 0, func(r *wire.Reader) { r.Varint() }, 0, "varint too long: more than 5 bytes"},
		{"uvarint 80 80 then end is truncated", "8080", 0, func(r *wire.Reader) { r.Uvarint() }, 0, "truncated uvarint: need 3 bytes, have 2"},
		{"uvarint of six bytes is too long", "ffffffffff01", 0, func(r *wire.Reader) { r.Uvarint() }, 0, "uvarint too long: more than 5 bytes"},
		{"uvarint at the end of input", "", 0, func(r *wire.Reader) { r.Uvarint() }, 0, "truncated uvarint: need 1 byte, have 0"},
		{"varint failure offset is where the varint starts", "aabb80", 2, func(r *wire.Reader) { r.Varint() }, 2, "truncated varint: need 2 bytes, have 1"},
		{"varlong of eleven bytes is too long", "ffffffffffffffffffff01", 0, func(r *wire.Reader) { r.Varlong() }, 0, "varlong too long: more than 10 bytes"},
		{"varlong truncated", "01ff", 1, func(r *wire.Reader) { r.Varlong() }, 1, "truncated varlong: need 2 bytes, have 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := wire.NewReader(unhex(t, c.hex))
			for i := 0; i < c.skip; i++ {
				r.Int8()
			}
			c.read(r)
			var we *wire.Error
			if !errors.As(r.Err(), &we) {
				t.Fatalf("err = %v, want *wire.Error", r.Err())
			}
			if we.Offset != c.offset || we.Msg != c.msg {
				t.Errorf("got offset %d msg %q; want %d %q", we.Offset, we.Msg, c.offset, c.msg)
			}
			// A failed varint does not move the reader.
			if r.Off != c.skip {
				t.Errorf("reader moved to %d after the failure, want %d", r.Off, c.skip)
			}
		})
	}
}

// TestUvarintFifthByteHighBitsDropped: like Kafka's readUnsignedVarint, the
// reader does not mask the fifth byte; bits past 32 are lost, not an error.
func TestUvarintFifthByteHighBitsDropped(t *testing.T) {
	r := wire.NewReader(unhex(t, "ffffffff7f"))
	if v := r.Uvarint(); v != math.MaxUint32 || r.Err() != nil {
		t.Errorf("Uvarint(ffffffff7f) = %d, %v; want %d, nil", v, r.Err(), uint32(math.MaxUint32))
	}
	r = wire.NewReader(unhex(t, "8080808070"))
	if v := r.Uvarint(); v != 0 || r.Err() != nil || r.Off != 5 {
		t.Errorf("Uvarint(8080808070) = %d, %v, off %d; want 0, nil, 5", v, r.Err(), r.Off)
	}
}

// TestShortReadsRecordNeedHave: every fixed-width read past the end fails at
// its own offset with the bytes it needed and the bytes that were left.
func TestShortReadsRecordNeedHave(t *testing.T) {
	cases := []struct {
		name string
		read func(*wire.Reader)
		need int
	}{
		{"Int8", func(r *wire.Reader) { r.Int8() }, 1},
		{"Int16", func(r *wire.Reader) { r.Int16() }, 2},
		{"Uint16", func(r *wire.Reader) { r.Uint16() }, 2},
		{"Int32", func(r *wire.Reader) { r.Int32() }, 4},
		{"Uint32", func(r *wire.Reader) { r.Uint32() }, 4},
		{"Int64", func(r *wire.Reader) { r.Int64() }, 8},
		{"Bytes(16)", func(r *wire.Reader) { r.Bytes(16) }, 16},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Three bytes consumed, then only min(need-1, 0..) left: the
			// input always has need-1 bytes after offset 3.
			b := make([]byte, 3+c.need-1)
			r := wire.NewReader(b)
			r.Bytes(3)
			c.read(r)
			we := r.FirstError()
			if we == nil {
				t.Fatal("no error")
			}
			if we.Offset != 3 || we.Need != c.need || we.Have != c.need-1 || we.Msg != "" {
				t.Errorf("got %+v; want offset 3 need %d have %d", *we, c.need, c.need-1)
			}
			if r.Off != 3 {
				t.Errorf("reader moved to %d", r.Off)
			}
		})
	}
}

// TestBytesIsASubSliceWithoutSpareCapacity: Bytes returns the input itself
// (no copy) and appending to it cannot overwrite the following bytes.
func TestBytesIsASubSliceWithoutSpareCapacity(t *testing.T) {
	buf := unhex(t, "616263 646566")
	r := wire.NewReader(buf)
	b := r.Bytes(3)
	if string(b) != "abc" || cap(b) != 3 || &b[0] != &buf[0] {
		t.Fatalf("Bytes(3) = %q cap %d", b, cap(b))
	}
	_ = append(b, 'X')
	if string(buf[3:]) != "def" {
		t.Errorf("appending to the returned slice changed the input: %q", buf)
	}
	if z := r.Bytes(0); z == nil || len(z) != 0 || r.Off != 3 {
		t.Errorf("Bytes(0) = %v (nil %v), off %d", z, z == nil, r.Off)
	}
	r.Bytes(-1)
	if we := r.FirstError(); we == nil || we.Need != -1 || we.Offset != 3 {
		t.Errorf("Bytes(-1): %v", r.Err())
	}
}

// TestErrorIsSticky: after the first failure every read returns zero and
// does not move, and the first failure (not a later one) is kept.
func TestErrorIsSticky(t *testing.T) {
	r := wire.NewReader(unhex(t, "0102 03"))
	if v := r.Int16(); v != 0x0102 {
		t.Fatalf("Int16 = %x", v)
	}
	if v := r.Int32(); v != 0 {
		t.Errorf("failed Int32 = %d, want 0", v)
	}
	// A later read that would fit still returns zero without moving.
	if v := r.Int8(); v != 0 || r.Off != 2 {
		t.Errorf("Int8 after failure = %d at off %d, want 0 at 2", v, r.Off)
	}
	if v := r.Uvarint(); v != 0 || r.Off != 2 {
		t.Errorf("Uvarint after failure = %d at off %d", v, r.Off)
	}
	if v := r.Varint(); v != 0 {
		t.Errorf("Varint after failure = %d", v)
	}
	if v := r.Bytes(1); v != nil {
		t.Errorf("Bytes after failure = %v", v)
	}
	r.Fail(0, "a later problem")
	r.SetPath("Outer.Field")
	r.SetPath("Other")
	we := r.FirstError()
	if !r.Failed() || we.Offset != 2 || we.Need != 4 || we.Have != 1 || we.Msg != "" || we.Path != "Outer.Field" {
		t.Fatalf("first error = %+v", *we)
	}
	if got, want := r.Err().Error(), "Outer.Field at 0x0002: need 4 bytes, have 1"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestErrorText(t *testing.T) {
	cases := []struct {
		err  wire.Error
		want string
	}{
		{wire.Error{Offset: 0x47, Path: "VoteRequest.Topics[0].Partitions[0].LastOffset", Need: 8, Have: 3}, "VoteRequest.Topics[0].Partitions[0].LastOffset at 0x0047: need 8 bytes, have 3"},
		{wire.Error{Offset: 5, Msg: "truncated uvarint: need 3 bytes, have 2"}, "input at 0x0005: truncated uvarint: need 3 bytes, have 2"},
		{wire.Error{Offset: 0x12345, Path: "X", Msg: "bad"}, "X at 0x12345: bad"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
	// A fresh reader has no error, and Err is a nil interface then.
	r := wire.NewReader(nil)
	if r.Err() != nil || r.Failed() || r.FirstError() != nil || r.Remaining() != 0 {
		t.Errorf("fresh reader: %v %v %v", r.Err(), r.Failed(), r.FirstError())
	}
	r.Fail(7, "custom")
	if we := r.FirstError(); we.Offset != 7 || we.Msg != "custom" || we.Error() != "input at 0x0007: custom" {
		t.Errorf("Fail: %+v", *we)
	}
}

// TestMixedSequence reads a compact string then an int16 (C07's bytes) with
// the primitives, as the codec does.
func TestMixedSequence(t *testing.T) {
	r := wire.NewReader(unhex(t, "04 616263 002a"))
	n := r.Uvarint()
	s := r.Bytes(int(n) - 1)
	v := r.Int16()
	if n != 4 || string(s) != "abc" || v != 42 || r.Err() != nil || r.Remaining() != 0 {
		t.Errorf("got len+1 %d, %q, %d, err %v", n, s, v, r.Err())
	}
	// And the writers produce exactly those bytes.
	b := wire.AppendUvarint(nil, 3+1)
	b = append(b, "abc"...)
	b = wire.AppendInt16(b, 42)
	if hex.EncodeToString(b) != "04616263002a" {
		t.Errorf("wrote %x", b)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int]string{0: "0 bytes", 1: "1 byte", 2: "2 bytes", -1: "-1 bytes", 1 << 20: "1048576 bytes"} {
		if got := wire.Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
	if got := wire.Bytes(int32(1)); got != "1 byte" {
		t.Errorf("Bytes(int32(1)) = %q", got)
	}
	// A truncation error of one byte is singular.
	e := &wire.Error{Offset: 3, Path: "X.Y", Need: 1, Have: 0}
	if got := e.Error(); got != "X.Y at 0x0003: need 1 byte, have 0" {
		t.Errorf("Error() = %q", got)
	}
}
