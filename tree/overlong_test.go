package tree

import "testing"

// Overlong judges the varint each leaf starts with by its wire encoding:
// a compact length, a compact string's prefix, a record's varint, and
// leaves of other encodings never.
func TestOverlong(t *testing.T) {
	b := []byte{
		0x82, 0x00, // compact length 1 in two bytes (0-1)
		0x84, 0x80, 0x00, 'a', 'b', 'c', // compact string "abc", its prefix in three bytes (2-7)
		0x02,       // varint 1, one byte (8)
		0x00, 0x01, // int16 (9-10)
		0x80, 0x80, 0x00, // varlong 0 in three bytes (11-13)
	}
	tr := &Tree{Bytes: b}
	bl := Builder{T: tr}
	bl.Open(Node{S: NewShape(Message, WireNone, 0, 0)})
	bl.Leaf(Node{Off: 0, Size: 2, S: NewShape(Length, WireUvarint, 0, 0)})
	bl.Leaf(Node{Off: 2, Size: 6, S: NewShape(Field, WireCompactString, 0, 0)})
	bl.Leaf(Node{Off: 8, Size: 1, S: NewShape(BatchField, WireVarint, 0, 0)})
	bl.Leaf(Node{Off: 9, Size: 2, S: NewShape(Field, WireInt16, 0, 0)})
	bl.Leaf(Node{Off: 11, Size: 3, S: NewShape(BatchField, WireVarlong, 0, 0)})
	bl.Close(int32(len(b)))
	want := []struct {
		n, fewest int
		over      bool
	}{{0, 0, false}, {2, 1, true}, {3, 1, true}, {1, 1, false}, {0, 0, false}, {3, 1, true}}
	for i, w := range want {
		n, fewest, over := tr.Overlong(int32(i))
		if n != w.n || fewest != w.fewest || over != w.over {
			t.Errorf("node %d: Overlong = %d, %d, %v; want %d, %d, %v", i, n, fewest, over, w.n, w.fewest, w.over)
		}
	}
}
