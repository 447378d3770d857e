package wire

import (
	"encoding/binary"
	"fmt"
	"math"
)

// MaxUvarintLen32 is the longest encoding of an unsigned 32-bit varint
// (5 bytes of 7 bits each), as in Kafka's ByteUtils.readUnsignedVarint.
const MaxUvarintLen32 = 5

// MaxVarintLen64 is the longest encoding of a 64-bit varint (10 bytes).
const MaxVarintLen64 = 10

// AppendInt8 appends v as one byte.
func AppendInt8(dst []byte, v int8) []byte { return append(dst, byte(v)) }

// AppendInt16 appends v big-endian in 2 bytes.
func AppendInt16(dst []byte, v int16) []byte { return binary.BigEndian.AppendUint16(dst, uint16(v)) }

// AppendUint16 appends v big-endian in 2 bytes.
func AppendUint16(dst []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(dst, v) }

// AppendInt32 appends v big-endian in 4 bytes.
func AppendInt32(dst []byte, v int32) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }

// AppendUint32 appends v big-endian in 4 bytes.
func AppendUint32(dst []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(dst, v) }

// AppendInt64 appends v big-endian in 8 bytes.
func AppendInt64(dst []byte, v int64) []byte { return binary.BigEndian.AppendUint64(dst, uint64(v)) }

// AppendFloat64 appends the IEEE-754 bits of v big-endian in 8 bytes
// (Java's ByteBuffer.putDouble).
func AppendFloat64(dst []byte, v float64) []byte {
	return binary.BigEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendBool appends 0x01 for true and 0x00 for false.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// AppendUvarint appends v as an unsigned varint: 7 bits a byte, least
// significant group first, high bit set while more bytes follow (1 to 5 bytes).
func AppendUvarint(dst []byte, v uint32) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// AppendUvarint64 appends v as an unsigned varint of up to 10 bytes.
func AppendUvarint64(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// AppendVarint appends v zig-zag encoded ((v<<1)^(v>>31)) as an unsigned
// varint, as Kafka's ByteUtils.writeVarint does inside record batches.
func AppendVarint(dst []byte, v int32) []byte {
	return AppendUvarint(dst, uint32(v<<1)^uint32(v>>31))
}

// AppendVarlong appends v zig-zag encoded as an unsigned varint of up to 10
// bytes (Kafka's ByteUtils.writeVarlong).
func AppendVarlong(dst []byte, v int64) []byte {
	return AppendUvarint64(dst, uint64(v<<1)^uint64(v>>63))
}

// UvarintLen is the number of bytes AppendUvarint writes for v.
func UvarintLen(v uint32) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// Error is a failure to read wire data. Offset is the byte offset (from the
// start of the buffer being decoded) where the failing item begins; Path is
// the field path (VoteRequest.Topics[0].Partitions[0].LastOffset); Need and
// Have are byte counts when the input was too short (both 0 otherwise); Msg
// says what else is wrong; Err, when not nil, is the error behind Msg (a
// version the message does not have, say), for errors.As and errors.Is.
type Error struct {
	Offset int
	Path   string
	Need   int
	Have   int
	Msg    string
	Err    error
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Error renders "path at 0xOFFS: need N bytes, have M" ("need 1 byte") or
// the message.
func (e *Error) Error() string {
	where := e.Path
	if where == "" {
		where = "input"
	}
	if e.Msg != "" {
		return fmt.Sprintf("%s at 0x%04x: %s", where, e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s at 0x%04x: need %s, have %d", where, e.Offset, Bytes(e.Need), e.Have)
}

// Bytes is n with its unit, singular for one: "1 byte", "0 bytes", "5
// bytes" — for messages about byte counts.
func Bytes[N ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint32 | ~uint64](n N) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// Reader reads big-endian Kafka primitives from Buf, starting at Off. The
// first failure is kept (with its offset and need/have counts) and every
// later read returns zero values without moving; check Err once at the end.
// The path of the failing field is filled in by the caller (see Fail), since
// the reader itself does not know field names.
type Reader struct {
	Buf []byte
	Off int
	err *Error
}

// NewReader returns a Reader over b starting at offset 0.
func NewReader(b []byte) *Reader { return &Reader{Buf: b} }

// Err returns the first failure, or nil. Its type is *Error.
func (r *Reader) Err() error {
	if r.err == nil {
		return nil
	}
	return r.err
}

// Failed reports whether a read has failed.
func (r *Reader) Failed() bool { return r.err != nil }

// FirstError returns the first failure as *Error, or nil.
func (r *Reader) FirstError() *Error { return r.err }

// Remaining is the number of unread bytes.
func (r *Reader) Remaining() int { return len(r.Buf) - r.Off }

// Fail records a failure at offset off with message msg, unless a failure is
// already recorded.
func (r *Reader) Fail(off int, msg string) {
	if r.err == nil {
		r.err = &Error{Offset: off, Msg: msg}
	}
}

// FailShort records, unless a failure is already recorded, that what
// starts at offset off needs need bytes where have remain: Error.Need and
// Error.Have are set, and msg (which says what was being read) is the text.
func (r *Reader) FailShort(off, need, have int, msg string) {
	if r.err == nil {
		r.err = &Error{Offset: off, Need: need, Have: have, Msg: msg}
	}
}

// SetPath sets the field path of the recorded failure if it has none yet.
func (r *Reader) SetPath(path string) {
	if r.err != nil && r.err.Path == "" {
		r.err.Path = path
	}
}

// need checks that n bytes remain; on failure it records need/have at the
// current offset and returns false.
func (r *Reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || len(r.Buf)-r.Off < n {
		r.err = &Error{Offset: r.Off, Need: n, Have: len(r.Buf) - r.Off}
		return false
	}
	return true
}

// Int8 reads one signed byte.
func (r *Reader) Int8() int8 {
	if !r.need(1) {
		return 0
	}
	v := int8(r.Buf[r.Off])
	r.Off++
	return v
}

// Int16 reads a big-endian int16.
func (r *Reader) Int16() int16 {
	if !r.need(2) {
		return 0
	}
	v := int16(binary.BigEndian.Uint16(r.Buf[r.Off:]))
	r.Off += 2
	return v
}

// Uint16 reads a big-endian uint16.
func (r *Reader) Uint16() uint16 {
	if !r.need(2) {
		return 0
	}
	v := binary.BigEndian.Uint16(r.Buf[r.Off:])
	r.Off += 2
	return v
}

// Int32 reads a big-endian int32.
func (r *Reader) Int32() int32 {
	if !r.need(4) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(r.Buf[r.Off:]))
	r.Off += 4
	return v
}

// Uint32 reads a big-endian uint32.
func (r *Reader) Uint32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.BigEndian.Uint32(r.Buf[r.Off:])
	r.Off += 4
	return v
}

// Int64 reads a big-endian int64.
func (r *Reader) Int64() int64 {
	if !r.need(8) {
		return 0
	}
	v := int64(binary.BigEndian.Uint64(r.Buf[r.Off:]))
	r.Off += 8
	return v
}

// Bytes returns the next n bytes as a sub-slice of Buf (no copy).
func (r *Reader) Bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	b := r.Buf[r.Off : r.Off+n : r.Off+n]
	r.Off += n
	return b
}

// Uvarint reads an unsigned varint of at most 5 bytes. A truncated varint
// fails with "truncated uvarint"; a fifth byte with the high bit set fails
// with "uvarint too long". Like Kafka's reader, bits above 32 in the fifth
// byte are dropped.
func (r *Reader) Uvarint() uint32 {
	if r.err != nil {
		return 0
	}
	v, n := UvarintAt(r.Buf, r.Off)
	if n > 0 {
		r.Off += n
		return v
	}
	if have := max(len(r.Buf)-r.Off, 0); have < MaxUvarintLen32 {
		r.err = &Error{Offset: r.Off, Need: have + 1, Have: have, Msg: fmt.Sprintf("truncated uvarint: need %s, have %d", Bytes(have+1), have)}
	} else {
		r.err = &Error{Offset: r.Off, Msg: "uvarint too long: more than 5 bytes"}
	}
	return 0
}

// UvarintAt reads an unsigned varint of at most 5 bytes at b[off:] as
// Reader.Uvarint does (bits above 32 in the fifth byte dropped), without
// a Reader: its value and size, or n 0 when it is truncated or too long.
func UvarintAt(b []byte, off int) (v uint32, n int) {
	if off < 0 {
		return 0, 0
	}
	for i := 0; i < MaxUvarintLen32; i++ {
		if off+i >= len(b) {
			return 0, 0
		}
		c := b[off+i]
		v |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// VarintAt reads a zig-zag varint of at most 5 bytes at b[off:]
// (Reader.Varint); n is 0 when it does not read.
func VarintAt(b []byte, off int) (v int32, n int) {
	if uint(off) < uint(len(b)) {
		if c := int32(b[off]); c < 0x80 {
			return c>>1 ^ -(c & 1), 1
		}
	}
	return varintAtSlow(b, off)
}

// Varint1At reads the zig-zag varint at b[off] when it is one byte (the
// lengths and counts of most records): ok is false when b[off] is not
// there or starts a longer varint, which VarintAt reads. It is small
// enough to be inlined where VarintAt is not.
func Varint1At(b []byte, off int) (v int32, ok bool) {
	if uint(off) < uint(len(b)) {
		if c := int32(b[off]); c < 0x80 {
			return c>>1 ^ -(c & 1), true
		}
	}
	return 0, false
}

// Varint2At reads the zig-zag varint at b[off] when it is one or two
// bytes (a record's length): n is 0 when it is not there or longer, which
// VarintAt reads. It is small enough to be inlined.
func Varint2At(b []byte, off int) (v int32, n int) {
	if uint(off) < uint(len(b)) && off+1 < len(b) {
		c, d := int32(b[off]), int32(b[off+1])
		if c < 0x80 {
			return c>>1 ^ -(c & 1), 1
		}
		if d < 0x80 {
			u := c&0x7f | d<<7
			return u>>1 ^ -(u & 1), 2
		}
	}
	return 0, 0
}

// varintAtSlow is VarintAt of a varint of more than one byte, apart so
// that VarintAt's one-byte case is inlined.
//
//go:noinline
func varintAtSlow(b []byte, off int) (v int32, n int) {
	u, n := UvarintAt(b, off)
	return int32(u>>1) ^ -int32(u&1), n
}

// VarlongAt reads a zig-zag varint of at most 10 bytes at b[off:]
// (Reader.Varlong); n is 0 when it does not read.
func VarlongAt(b []byte, off int) (v int64, n int) {
	if off < 0 {
		return 0, 0
	}
	var u uint64
	for i := 0; i < MaxVarintLen64; i++ {
		if off+i >= len(b) {
			return 0, 0
		}
		c := b[off+i]
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), i + 1
		}
	}
	return 0, 0
}

// Uvarint64 reads an unsigned varint of at most 10 bytes.
func (r *Reader) Uvarint64() uint64 {
	if r.err != nil {
		return 0
	}
	start := r.Off
	var v uint64
	for i := 0; i < MaxVarintLen64; i++ {
		if r.Off >= len(r.Buf) {
			r.err = &Error{Offset: start, Need: i + 1, Have: i, Msg: fmt.Sprintf("truncated varlong: need %s, have %d", Bytes(i+1), i)}
			r.Off = start
			return 0
		}
		b := r.Buf[r.Off]
		r.Off++
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v
		}
	}
	r.err = &Error{Offset: start, Msg: "varlong too long: more than 10 bytes"}
	r.Off = start
	return 0
}

// Varint reads a zig-zag varint of at most 5 bytes (record format). Errors:
// "truncated varint", "varint too long".
func (r *Reader) Varint() int32 {
	if r.err != nil {
		return 0
	}
	start := r.Off
	u := r.Uvarint()
	if r.err != nil && r.err.Offset == start {
		r.err.Msg = replacePrefix(r.err.Msg, "uvarint", "varint")
	}
	return int32(u>>1) ^ -int32(u&1)
}

// Varlong reads a zig-zag varint of at most 10 bytes (record format).
func (r *Reader) Varlong() int64 {
	u := r.Uvarint64()
	return int64(u>>1) ^ -int64(u&1)
}

func replacePrefix(msg, old, repl string) string {
	for i := 0; i+len(old) <= len(msg); i++ {
		if msg[i:i+len(old)] == old {
			return msg[:i] + repl + msg[i+len(old):]
		}
	}
	return msg
}

// OverlongAt reports whether the varint at b[off:] — unsigned or zig-zag,
// of at most 10 bytes: their 7-bit groups are the same — is written in
// more bytes than its value needs, which Kafka's writers never do
// (ByteUtils.writeUnsignedVarint): a varint of more than one byte whose
// last byte adds nothing (0x00). n is its size and fewest the size its
// value needs; n is 0 when no varint reads there.
func OverlongAt(b []byte, off int) (n, fewest int, overlong bool) {
	if off < 0 {
		return 0, 0, false
	}
	var u uint64
	for i := 0; i < MaxVarintLen64; i++ {
		if off+i >= len(b) {
			return 0, 0, false
		}
		c := b[off+i]
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			n = i + 1
			break
		}
	}
	if n == 0 {
		return 0, 0, false
	}
	fewest = 1
	for v := u >> 7; v != 0; v >>= 7 {
		fewest++
	}
	return n, fewest, n > fewest
}
