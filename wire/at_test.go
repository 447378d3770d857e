package wire

import (
	"encoding/binary"
	"testing"
)

// UvarintAt, VarintAt and VarlongAt read what Reader.Uvarint, Varint and
// Varlong read, and fail (n 0) where they fail, on every input of up to
// 3 bytes, on each byte value before continuation bytes and terminators,
// and on encodings of boundary values, at several offsets.
func TestAtReadersAreTheReaders(t *testing.T) {
	var inputs [][]byte
	for a := range 256 {
		inputs = append(inputs, []byte{byte(a)})
		for _, b := range []byte{0x00, 0x01, 0x7f, 0x80, 0xff} {
			inputs = append(inputs, []byte{byte(a), b}, []byte{byte(a), b, 0x01}, []byte{byte(a), b, 0x80})
		}
	}
	for _, n := range []int{4, 5, 6, 9, 10, 11} {
		cont := make([]byte, n)
		for i := range cont {
			cont[i] = 0xff
		}
		inputs = append(inputs, cont, append(cont[:n-1:n-1], 0x0f), append(cont[:n-1:n-1], 0x7f))
	}
	for _, v := range []int64{0, 1, -1, 63, -64, 64, 1 << 31, -1 << 31, 1<<31 - 1, 1<<63 - 1, -1 << 63} {
		inputs = append(inputs, binary.AppendVarint(nil, v), AppendVarint(nil, int32(v)))
	}
	inputs = append(inputs, nil)
	for _, in := range inputs {
		for _, off := range []int{0, 1, 2} {
			buf := append(make([]byte, off), in...)
			r := Reader{Buf: buf, Off: off}
			u := r.Uvarint()
			if v, n := UvarintAt(buf, off); (r.Err() == nil) != (n > 0) || (n > 0 && (v != u || off+n != r.Off)) {
				t.Errorf("UvarintAt(% x, %d) = %d, %d; Reader: %d, %v, off %d", buf, off, v, n, u, r.Err(), r.Off)
			}
			r = Reader{Buf: buf, Off: off}
			i := r.Varint()
			if v, n := VarintAt(buf, off); (r.Err() == nil) != (n > 0) || (n > 0 && (v != i || off+n != r.Off)) {
				t.Errorf("VarintAt(% x, %d) = %d, %d; Reader: %d, %v", buf, off, v, n, i, r.Err())
			}
			r = Reader{Buf: buf, Off: off}
			l := r.Varlong()
			if v, n := VarlongAt(buf, off); (r.Err() == nil) != (n > 0) || (n > 0 && (v != l || off+n != r.Off)) {
				t.Errorf("VarlongAt(% x, %d) = %d, %d; Reader: %d, %v", buf, off, v, n, l, r.Err())
			}
		}
	}
}

// Reader.Uvarint's errors say where the varint starts and how many bytes
// it lacks, and leave the reader where it was.
func TestUvarintErrors(t *testing.T) {
	for _, c := range []struct {
		buf  []byte
		off  int
		want string
		need int
	}{
		{[]byte{0, 0x80, 0x80}, 1, "truncated uvarint: need 3 bytes, have 2", 3},
		{[]byte{9}, 1, "truncated uvarint: need 1 byte, have 0", 1},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 0, "uvarint too long: more than 5 bytes", 0},
	} {
		r := Reader{Buf: c.buf, Off: c.off}
		r.Uvarint()
		e, _ := r.Err().(*Error)
		if e == nil || e.Msg != c.want || e.Offset != c.off || e.Need != c.need || r.Off != c.off {
			t.Errorf("% x at %d: %+v, off %d; want %q at %d", c.buf, c.off, e, r.Off, c.want, c.off)
		}
	}
}

// Varint1At reads exactly the one-byte varints VarintAt reads, and no
// other.
func TestVarint1AtIsVarintAt(t *testing.T) {
	for c := 0; c < 256; c++ {
		for _, b := range [][]byte{{byte(c)}, {byte(c), 0x01}, {0x00, byte(c)}} {
			for off := -1; off <= len(b); off++ {
				v, ok := Varint1At(b, off)
				w, n := VarintAt(b, off)
				if ok != (n == 1) || ok && v != w {
					t.Fatalf("% x at %d: Varint1At %d %v, VarintAt %d %d", b, off, v, ok, w, n)
				}
			}
		}
	}
}

// Varint2At reads exactly the varints of one or two bytes VarintAt reads
// with two bytes there to read, and no other.
func TestVarint2AtIsVarintAt(t *testing.T) {
	for c := 0; c < 256; c++ {
		for d := 0; d < 256; d++ {
			b := []byte{byte(c), byte(d), 0}
			for off := -1; off <= len(b); off++ {
				v, n := Varint2At(b, off)
				w, m := VarintAt(b, off)
				if n != 0 && (n != m || v != w) || n == 0 && m > 0 && m <= 2 && off+1 < len(b) {
					t.Fatalf("% x at %d: Varint2At %d %d, VarintAt %d %d", b, off, v, n, w, m)
				}
			}
		}
	}
}

func TestOverlongAt(t *testing.T) {
	cases := []struct {
		b         []byte
		n, fewest int
		overlong  bool
	}{
		{[]byte{0x00}, 1, 1, false},
		{[]byte{0x7f}, 1, 1, false},
		{[]byte{0x80, 0x00}, 2, 1, true},       // 0 in two bytes
		{[]byte{0x81, 0x80, 0x00}, 3, 1, true}, // 1 in three bytes
		{[]byte{0x80, 0x01}, 2, 2, false},      // 128
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 5, 5, false},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x80, 0x00}, 6, 4, true}, // 2^28-1 in six bytes
		{[]byte{0x80}, 0, 0, false},                              // truncated
	}
	for _, c := range cases {
		n, fewest, over := OverlongAt(c.b, 0)
		if n != c.n || fewest != c.fewest || over != c.overlong {
			t.Errorf("OverlongAt(% x) = %d, %d, %v; want %d, %d, %v", c.b, n, fewest, over, c.n, c.fewest, c.overlong)
		}
	}
	// Every encoding AppendUvarint writes is as short as can be.
	for _, v := range []uint32{0, 1, 127, 128, 16383, 16384, 1 << 21, 1<<32 - 1} {
		b := AppendUvarint(nil, v)
		if n, fewest, over := OverlongAt(b, 0); over || n != len(b) || fewest != len(b) {
			t.Errorf("AppendUvarint(%d) = % x: OverlongAt = %d, %d, %v", v, b, n, fewest, over)
		}
	}
	if n, _, _ := OverlongAt([]byte{1}, -1); n != 0 {
		t.Errorf("negative offset read %d bytes", n)
	}
}
