package tree

import (
	"testing"
	"unsafe"
)

// TestShifted checks Shifted's count on both of its reads (two words a
// node, and field by field where the arena is not 8-byte aligned): all
// of cur when every node is prev's shifted, else the multiple of 8
// before the first node that is not, for a change to each field of each
// node, and a carry out of Off or End.
func TestShifted(t *testing.T) {
	const n = 21
	var unaligned struct {
		_    int32
		prev [n]Node
		_    int32
		cur  [n]Node
	}
	if uintptr(unsafe.Pointer(&unaligned.prev[0]))%8 == 0 {
		t.Fatal("the unaligned arena is aligned")
	}
	aligned := make([]Node, 2*n)
	for _, a := range []struct {
		name      string
		prev, cur []Node
	}{
		{"aligned", aligned[:n], aligned[n:]},
		{"unaligned", unaligned.prev[:], unaligned.cur[:]},
	} {
		const dOff, dEnd = 40, n
		for i := range a.prev {
			a.prev[i] = Node{Off: int32(3 * i), Size: int32(i % 5), End: int32(i + 1 + i%3), S: Shape(i * 7)}
			a.cur[i] = a.prev[i]
			a.cur[i].Off += dOff
			a.cur[i].End += dEnd
		}
		if got := Shifted(a.prev, a.cur, dOff, dEnd); got != n {
			t.Fatalf("%s: %d of %d nodes shifted, want all", a.name, got, n)
		}
		if got := Shifted(a.prev[:n-1], a.cur, dOff, dEnd); got != n-1 {
			t.Errorf("%s: a shorter prev gives %d, want %d", a.name, got, n-1)
		}
		if got := Shifted(a.prev, a.cur[:0], dOff, dEnd); got != 0 {
			t.Errorf("%s: no nodes gives %d", a.name, got)
		}
		for i := range a.cur {
			for f, change := range []func(*Node){
				func(x *Node) { x.Off++ }, func(x *Node) { x.Size-- }, func(x *Node) { x.End++ },
				func(x *Node) { x.S ^= 1 << 31 }, func(x *Node) { x.Off -= 1 << 30 },
			} {
				was := a.cur[i]
				change(&a.cur[i])
				if got, want := Shifted(a.prev, a.cur, dOff, dEnd), i/8*8; got != want {
					t.Errorf("%s: node %d change %d: %d shifted, want %d", a.name, i, f, got, want)
				}
				a.cur[i] = was
			}
		}
		// Off plus dOff past 32 bits: in field-by-field reads Off wraps
		// and Size is compared alone; in words the carry makes Size one
		// more, which callers rule out by checking Off.
		a.prev[0].Off = -1
		a.cur[0].Off = -1 + dOff
		want := n
		if a.name == "aligned" {
			want = 0
		}
		if got := Shifted(a.prev, a.cur, dOff, dEnd); got != want {
			t.Errorf("%s: wrapped Off: %d shifted, want %d", a.name, got, want)
		}
	}
}
