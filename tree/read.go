package tree

import (
	"encoding/binary"

	"github.com/kwire/kwire/wire"
)

// This file reads the values nodes do not store: a node is its shape and
// its span, and what it holds is read from the bytes of that span when
// asked for (see "Values" in the package doc).

// shapeUnknownTag is the shape of an UnknownTag value leaf (LeafTag).
var shapeUnknownTag = NewShape(UnknownTag, WireNone, 0, 0)

// uvarint reads the unsigned varint b starts with (wire.UvarintAt); 0
// when it does not read.
func uvarint(b []byte) uint32 {
	v, _ := wire.UvarintAt(b, 0)
	return v
}

// prefixLen returns the size in bytes of the varint b starts with (0 when
// it does not read).
func prefixLen(b []byte) int {
	_, n := wire.VarlongAt(b, 0)
	return n
}

// at returns the bytes of node n's area from its Off to its end, nil when
// Off is out of range.
func (t *Tree) at(n Node) []byte {
	area := t.area(n)
	end := int(n.Off) + int(n.Size)
	if n.Off < 0 || n.Size < 0 || end > len(area) {
		return nil
	}
	return area[n.Off:end]
}

// Num returns the integer node i holds, read from its bytes:
//
//   - a leaf of a fixed-size integer, float64 (its bits) or bool (0 or 1)
//     wire encoding: its value; a varint or varlong: its value; an
//     unsigned varint: its value, but a compact Length (N+1 on the wire)
//     is N, -1 for null; a VarBytes leaf: its length prefix (-1 null);
//     strings, bytes, uuids and raw bytes: 0;
//   - a value leaf: the integer it holds (FlagNum); an UnknownTag value
//     leaf: its tag;
//   - Message, Header, Body, Embedded: the version (NodeVersion);
//     RecordBatch: the magic (Magic); Array: the number of elements
//     (Count); Tag, UnknownTag: the tag number; TagSection: the number of
//     tagged fields; Decompressed and Record: 0 (package records reads
//     their offsets: records.OffsetBase, records.RecordOffset).
func (t *Tree) Num(i int32) int64 {
	n := t.Nodes[i]
	if v, ok := n.HeldNum(); ok {
		return v
	}
	if n.S&Shape(FlagValue) != 0 {
		if b := t.at(n); n.Kind() == UnknownTag && len(b) >= 4 {
			return int64(binary.BigEndian.Uint32(b))
		}
		return 0
	}
	switch n.Kind() {
	case Message, Header, Body, Embedded:
		return int64(t.NodeVersion(i))
	case RecordBatch:
		return int64(t.Magic(i))
	case Decompressed, Record:
		return 0 // see records.OffsetBase, records.RecordOffset
	case Array:
		return int64(t.Count(i))
	case Tag, UnknownTag, TagSection:
		return int64(uvarint(t.at(n)))
	case Struct, Element, Records, Frame:
		if n.End != i+1 {
			return 0
		}
	}
	return t.leafNum(n)
}

// leafNum reads span leaf n's integer by its wire encoding.
func (t *Tree) leafNum(n Node) int64 {
	b := t.at(n)
	switch n.Wire() {
	case WireBool:
		if len(b) >= 1 && b[0] != 0 {
			return 1 // any non-zero byte reads as true, as in Kafka
		}
	case WireInt8:
		if len(b) >= 1 {
			return int64(int8(b[0]))
		}
	case WireInt16:
		if len(b) >= 2 {
			return int64(int16(binary.BigEndian.Uint16(b)))
		}
	case WireUint16:
		if len(b) >= 2 {
			return int64(binary.BigEndian.Uint16(b))
		}
	case WireInt32:
		if len(b) >= 4 {
			return int64(int32(binary.BigEndian.Uint32(b)))
		}
	case WireUint32:
		if len(b) >= 4 {
			return int64(binary.BigEndian.Uint32(b))
		}
	case WireInt64, WireFloat64:
		if len(b) >= 8 {
			return int64(binary.BigEndian.Uint64(b))
		}
	case WireUvarint:
		u := uvarint(b)
		if n.Kind() == Length {
			return int64(int32(u - 1)) // N+1; 0 is null (-1), as Kafka reads it
		}
		return int64(u)
	case WireVarint, WireVarBytes:
		v, _ := wire.VarintAt(b, 0)
		return int64(v)
	case WireVarlong:
		v, _ := wire.VarlongAt(b, 0)
		return v
	}
	return 0
}

// Data returns the contents of node i — a string's or bytes' contents
// (after their length prefix), a uuid's 16 bytes, a records field's
// bytes, an unknown tag's payload, a record key's or value's bytes, raw
// bytes, a decompressed view's bytes — as a sub-slice of Bytes (Virtual
// for a virtual node), or nil when it has none (or they are empty).
func (t *Tree) Data(i int32) []byte {
	n := t.Nodes[i]
	if n.S&Shape(FlagNull|FlagNum) != 0 {
		return nil
	}
	b := t.at(n)
	if n.S&Shape(FlagValue) != 0 {
		if n.Kind() == UnknownTag {
			if len(b) < 4 {
				return nil
			}
			b = b[4:]
		}
		return nonEmpty(b)
	}
	if end := t.EndOf(i); end > i+1 {
		// A group: contents after its prefix children.
		switch n.Kind() {
		case UnknownTag:
			skip := 0
			for c := i + 1; c < end && c <= i+2; c = t.Next(c) {
				if k := t.Nodes[c].Kind(); (k == TagNumber || k == TagSize) && t.Nodes[c].Size > 0 {
					skip += int(t.Nodes[c].Size)
				}
			}
			return nonEmpty(b[min(skip, len(b)):])
		case Decompressed:
			return nonEmpty(b)
		case Records, Field, BatchField:
			// A length prefix leaf, then the contents held as a group
			// (records, bytes decoded further); a records root of
			// records.Decode has no prefix.
			if c := t.Nodes[i+1]; c.Kind() == Length || n.Kind() == BatchField && c.Kind() == BatchField {
				return nonEmpty(b[min(max(int(c.Size), 0), len(b)):])
			}
			if n.Kind() == Records {
				return nonEmpty(b)
			}
		}
		return nil
	}
	switch n.Wire() {
	case WireString:
		return nonEmpty(b[min(2, len(b)):])
	case WireBytes:
		return nonEmpty(b[min(4, len(b)):])
	case WireCompactString, WireCompactBytes, WireVarBytes:
		return nonEmpty(b[prefixLen(b):])
	case WireUUID, WireRaw:
		return nonEmpty(b)
	}
	if n.Kind() == Raw || n.Kind() == Decompressed {
		return nonEmpty(b)
	}
	return nil
}

func nonEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b[:len(b):len(b)]
}

// DataOff returns the offset in node i's area (Bytes, or Virtual for a
// virtual node) where Data(i) starts; -1 when node i has no contents.
func (t *Tree) DataOff(i int32) int32 {
	d := t.Data(i)
	if d == nil {
		return -1
	}
	n := t.Nodes[i]
	return n.Off + n.Size - int32(len(d))
}

// DataLen returns the length of node i's contents (Data) without
// slicing them: the length a redacted secret shows, say.
func (t *Tree) DataLen(i int32) int { return len(t.Data(i)) }

// Count returns the number of elements of Array node i: as its length
// prefix says in a span tree (0 when null, and when the decoder refused
// the count: AuxRefused), as many as it holds in a value tree.
func (t *Tree) Count(i int32) int {
	n := t.Nodes[i]
	if n.Null() || n.Aux() == AuxRefused {
		return 0
	}
	end := t.EndOf(i)
	if end > i+1 && t.Nodes[i+1].Kind() == Length {
		if c := t.Num(i + 1); c > 0 {
			return int(c)
		}
		return 0
	}
	k := 0
	for c := i + 1; c < end; c = t.Next(c) {
		if t.Nodes[c].Kind() == Element {
			k++
		}
	}
	return k
}

// Compression returns the compression id of Decompressed node i (1 gzip,
// 2 snappy, 3 lz4, 4 zstd).
func (t *Tree) Compression(i int32) int { return int(t.Nodes[i].Aux()) }

// Magic returns the magic of RecordBatch node i: 2 for a RecordBatch v2,
// 0 or 1 for a legacy message (the byte at offset 16 of every log entry).
func (t *Tree) Magic(i int32) int8 {
	n := t.Nodes[i]
	area := t.area(n)
	if n.Off < 0 || int(n.Off)+17 > len(area) {
		return 0
	}
	return int8(area[n.Off+16])
}

// NodeVersion returns the version of Message, Header, Body or Embedded
// node i (a header's is the header version): its shape's, or, for a
// version the spec does not define (which no shape holds), the tree's
// (Version, HeaderVersion) or an Embedded node's prefix (the last leaf of
// its Frame, or its int16 FrameField).
func (t *Tree) NodeVersion(i int32) int16 {
	n := t.Nodes[i]
	if a := n.Aux(); a >= 0 {
		return int16(a)
	}
	switch n.Kind() {
	case Header:
		return t.HeaderVersion
	case Message, Body:
		return t.Version
	case Embedded:
		if c := i + 1; c < t.EndOf(i) {
			switch t.Nodes[c].Kind() {
			case FrameField:
				return int16(t.Num(c))
			case Frame:
				last := int32(-1)
				for f := c + 1; f < t.EndOf(c); f = t.Next(f) {
					last = f
				}
				if last >= 0 {
					return int16(t.Num(last))
				}
			}
		}
	}
	return 0
}

// Ordinal returns node i's index among its parent's children of its kind
// (for a BatchField, of its name): an Element's index in its array, a
// Record's in its batch or decompressed view (counted from FirstRecord
// in the first batch of a part that continues one, see FirstRecord), a
// record header key's or value's index, a RecordBatch's among the
// records' batches. It finds the parent (see Parent) and counts the
// children before i: walkers count as they go instead.
func (t *Tree) Ordinal(i int32) int32 {
	p := t.Parent(i)
	if p < 0 {
		return 0
	}
	k, ref := t.Nodes[i].Kind(), t.Nodes[i].Ref()
	var ord int32
	for c := p + 1; c < i; c = t.Nodes[c].End {
		if n := t.Nodes[c]; n.Kind() == k && (k != BatchField || n.Ref() == ref) {
			ord++
		}
	}
	if k == Record {
		ord += t.RecordBase(p)
	}
	return ord
}

// RecordBase is the index of the first Record child of node p (a
// RecordBatch or Decompressed node): 0, but FirstRecord for the first
// batch of a tree that continues one (DecodeParts) and its view.
func (t *Tree) RecordBase(p int32) int32 {
	if t.FirstRecord == 0 || p < 0 {
		return 0
	}
	b := p
	switch t.Nodes[p].Kind() {
	case RecordBatch:
	case Decompressed:
		b = t.Parent(p)
	default:
		return 0
	}
	for k := int32(0); k < b; k++ {
		if t.Nodes[k].Kind() == RecordBatch {
			return 0 // not the first batch
		}
	}
	return t.FirstRecord
}

// Overlong reports whether span leaf i's varint is written in more bytes
// than its value needs (wire.OverlongAt), which Kafka's writers never do:
// the value of an unsigned varint leaf (a compact Length, a TagCount,
// TagNumber or TagSize, a tagged Presence, an empty TagSection), of a
// varint or varlong leaf (a record's length and deltas), or the length
// prefix of a compact string or bytes, or of a VarBytes leaf (a record's
// key and value). n is the varint's size in bytes and fewest the size its
// value needs. Any other node (groups, value leaves, other wire
// encodings), and bytes that do not read, are not overlong.
func (t *Tree) Overlong(i int32) (n, fewest int, overlong bool) {
	nd := t.Nodes[i]
	if nd.End != i+1 || nd.S&Shape(FlagValue|FlagNum) != 0 {
		return 0, 0, false
	}
	switch nd.Wire() {
	case WireUvarint, WireVarint, WireVarlong, WireCompactString, WireCompactBytes, WireVarBytes:
	default:
		return 0, 0, false
	}
	return wire.OverlongAt(t.at(nd), 0)
}
