// Package tree is kwire's span tree: every byte kwire writes or reads is
// attributed to one leaf of a Tree, and every node carries its value, its
// wire type and its [offset, size) range. Encoding and decoding produce
// trees; every view (text page, hex grid, JSON, HTML) renders one.
//
// A Tree is a flat arena of Nodes in pre-order: node i's children start at
// i+1 and each child's End is the index of its next sibling, so walking a
// tree needs no pointers and building one costs one slice append per node.
// The same arena also serves as a value to encode (a "value tree"): then
// only the field, struct, array, element and unknown-tag nodes are present
// and offsets are zero.
//
// # Wire bytes and decompressed views
//
// Tree.Bytes are the wire bytes, and the leaves that are not virtual tile
// them exactly: in pre-order, each starts where the previous one ended,
// the first at 0 and the last ending at len(Bytes).
//
// A compressed record batch is one leaf (its compressed payload) on the
// wire. What it decompresses to is shown as well, as a separate virtual
// region: the decompressed bytes are appended to Tree.Virtual (never to
// Bytes, which stay exactly the wire bytes, so that writing, hashing or
// hex-dumping Bytes still gives the message), and a Decompressed group
// whose Off and Size locate them in Virtual holds the inner records. The
// Decompressed node and every node below it carry FlagVirtual, and their
// Off, Size, DOff and DLen are offsets in Virtual, not in Bytes. Each
// Decompressed group tiles its own range of Virtual exactly, as the wire
// leaves tile Bytes; decompressed views nest (a legacy compressed wrapper
// inside a decompressed view) by appending further ranges to Virtual.
//
// So a walk over the wire bytes skips virtual subtrees (Leaves and
// WireLeaves do), a group's range covers its non-virtual children only,
// and a node's bytes are read with Span and Data, which pick the right
// area. Virtual nodes appear in the pre-order arena right after the
// compressed payload leaf they come from, inside the same RecordBatch.
//
// # Values and paths
//
// Tree.Get finds a value by its path in the dotted notation of the JSON
// view's "path" ("VoteRequest.Topics[0].Partitions[0].LastOffset",
// "RequestHeader.CorrelationId") and returns a Value with typed getters
// (Int, Uint, Bool, Float, String, Bytes, UUID, IsNull), navigation
// (Field, Elem, Len) and, for re-encoding an edited value, setters
// (SetInt, SetString…); a path that leads nowhere is a *PathError naming
// the path and the reason. Path is the one path builder: the dotted
// notation, Kafka JSON paths ("$.topics[0]") and the atlas's anchors
// ("Topics.0") are its formatters.
//
// # Problems
//
// Decoding records never fails the message: a bad CRC, a count that does
// not match, a payload that does not decompress and the like are recorded
// in Tree.Problems (offset, path, message) and flag the nodes concerned
// (FlagProblem, FlagBadCRC), so that views show them and commands can exit
// with a failure status.
package tree

import (
	"github.com/kwire/kwire/spec"
)

// Kind says what a node stands for.
type Kind uint8

// Node kinds. Group kinds have children; leaf kinds cover bytes directly.
const (
	KindInvalid Kind = iota
	// Message is the root of a framed message (or of a record body):
	// children Frame, Header, Body.
	Message
	// Frame groups the framing: the int32 size prefix of a request or
	// response, or the uvarint frame version/api key/version of a KRaft
	// metadata record value.
	Frame
	// Header is the request or response header (a struct of RequestHeader
	// or ResponseHeader fields).
	Header
	// Body is the message body: a struct of the message's fields.
	Body
	// Field is a leaf field holding a scalar, string, bytes or uuid.
	Field
	// Struct is a struct-typed field (its children are the struct's fields,
	// preceded by a Presence leaf when nullable).
	Struct
	// Array is an array-typed field: a Length leaf, then Elements.
	Array
	// Element is one array element: a struct (children = fields) or a
	// scalar leaf.
	Element
	// Length is a length or count prefix (int32, int16 or uvarint).
	Length
	// Presence is the int8 (or uvarint, when tagged) marker of a nullable
	// struct: -1/0 null, 1 present.
	Presence
	// TagSection is the tagged-field section of a flexible struct: a leaf
	// "tagged_fields uvarint = 0" when empty, else a group of a TagCount
	// leaf and Tag/UnknownTag entries.
	TagSection
	// TagCount is the uvarint number of tagged fields in a non-empty section.
	TagCount
	// Tag is one known tagged field: TagNumber, TagSize, then the field node.
	Tag
	// UnknownTag is a tagged field the spec does not know: TagNumber,
	// TagSize, Raw payload. In a value tree it is a leaf whose Num is the
	// tag and Data the payload.
	UnknownTag
	// TagNumber is the uvarint tag of a tagged field.
	TagNumber
	// TagSize is the uvarint payload size of a tagged field.
	TagSize
	// Records is a records field: a Length leaf then RecordBatch nodes (or
	// Raw bytes that are not a record batch).
	Records
	// RecordBatch is one RecordBatch v2 (or legacy message) inside records.
	RecordBatch
	// Record is one record inside a RecordBatch.
	Record
	// BatchField is a header field of a RecordBatch or Record (leaf).
	BatchField
	// Raw is bytes shown but not decoded (an unknown tag's payload, trailing
	// bytes).
	Raw
	// FrameField is a leaf of a Frame: the int32 size of a request or
	// response, or the frame version, api key and version of a KRaft
	// metadata record value.
	FrameField
	// Decompressed is the decoded view of a compressed payload (a
	// RecordBatch v2's records, a legacy wrapper message's value): a group
	// flagged FlagVirtual whose Off/Size (and DOff/DLen) locate the
	// decompressed bytes in Tree.Virtual. It follows the payload's leaf
	// inside the same batch; its children are the inner Record nodes (v2)
	// or inner message RecordBatch nodes (legacy), all virtual. Index is
	// the compression id (1 gzip, 2 snappy, 3 lz4, 4 zstd); Num is the
	// offset the inner records' offsets are relative to (a v2 batch's
	// baseOffset; for a magic 1 wrapper, its offset minus the last inner
	// relative offset; 0 for magic 0, whose inner offsets are absolute).
	Decompressed
	// Embedded is a message decoded inside a record key or value (a KRaft
	// control record such as SnapshotHeaderRecord, or a metadata record
	// with its frame): Ref is the message root struct's (StructRef), Num
	// its version; its children are the Frame (metadata records) then the
	// message's fields and tag section, as under a Body. The key or value
	// that holds it is then a group (a BatchField with its contents in
	// DOff/DLen) of a varint length leaf and the Embedded node.
	Embedded
)

var kindNames = [...]string{"invalid", "message", "frame", "header", "body", "field", "struct", "array", "element", "length", "presence", "tagged_fields", "tag_count", "tag", "unknown_tag", "tag_number", "tag_size", "records", "RecordBatch", "Record", "batch_field", "raw", "frame_field", "decompressed", "embedded"}

// String is the kind's name as the JSON views show it ("field", "tagged_fields").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// Wire is the wire encoding of a leaf.
type Wire uint8

// Wire encodings of leaves.
const (
	WireNone Wire = iota
	WireBool
	WireInt8
	WireInt16
	WireUint16
	WireInt32
	WireUint32
	WireInt64
	WireFloat64
	WireUUID
	WireUvarint // unsigned varint (compact lengths, tag counts, tags, sizes)
	WireVarint  // zig-zag varint (records)
	WireVarlong // zig-zag varlong (records)
	// WireString is an int16-length string (nullable: -1).
	WireString
	// WireCompactString is a uvarint length+1 string (null: 0).
	WireCompactString
	// WireBytes is an int32-length byte string (nullable: -1).
	WireBytes
	// WireCompactBytes is a uvarint length+1 byte string (null: 0).
	WireCompactBytes
	// WireVarBytes is a zig-zag varint length then bytes (record keys,
	// values, header keys/values; null: -1).
	WireVarBytes
	// WireRaw is uninterpreted bytes.
	WireRaw
)

var wireNames = [...]string{"", "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "uuid", "uvarint", "varint", "varlong", "string", "compact string", "bytes", "compact bytes", "varbytes", "raw"}

// String is the wire encoding's name ("int32", "compact string", "uvarint").
func (w Wire) String() string {
	if int(w) < len(wireNames) {
		return wireNames[w]
	}
	return "wire?"
}

// Flags are per-node markers.
type Flags uint8

// Node flags.
const (
	// FlagBadCRC marks a RecordBatch (and its crc leaf) whose stored
	// checksum does not match the bytes.
	FlagBadCRC Flags = 1 << iota
	// FlagSizeMismatch marks a known tagged field (Tag node) whose value
	// used a different number of bytes than its size prefix says; Kafka
	// does not check the size, so kwire accepts it unless decoding strictly.
	FlagSizeMismatch
	// FlagVirtual marks a Decompressed node and every node below it: their
	// offsets are in Tree.Virtual, not Tree.Bytes (see the package doc).
	FlagVirtual
	// FlagProblem marks a node that a Tree.Problems entry is about (a
	// record that does not parse, a payload that does not decompress, a
	// batch whose count does not match its records).
	FlagProblem
	// FlagSecret marks a leaf whose contents are a credential (a password,
	// a SCRAM proof or salt, a token's HMAC, a sensitive config value):
	// views show it as "<redacted, N bytes>" (N its contents' length) and
	// its secret bytes have been overwritten (package secret).
	FlagSecret
)

// Node is one node of a span tree (or of a value tree). It holds no
// pointers: what it refers to is a Ref id (see Intern) and its contents are
// a range of Tree.Bytes, so a tree is one flat slice that the garbage
// collector never scans and that can be reused across decodes.
type Node struct {
	Kind Kind
	Wire Wire
	// Null marks a null string, bytes, array, struct or records value.
	Null  bool
	Flags Flags
	// Index is the element index of an Element or Record node, the number
	// of elements of an Array node, the index of a record header key/value,
	// the computed CRC (bits) of a record batch's or legacy message's crc
	// leaf and the compression id of a Decompressed node. Read the
	// kind-dependent meanings with Tree.Count, Tree.CRC and
	// Tree.Compression.
	Index int32
	// Ref is the id of the node's Ref: its spec field (Field, Struct, Array,
	// Records, Tag nodes and header fields), its struct (Body, Header,
	// Element), or a synthetic name and about text. 0 means none.
	Ref int32
	// Off and Size are the node's byte range [Off, Off+Size) in Tree.Bytes.
	Off, Size int32
	// End is the index just past this node's subtree.
	End int32
	// Num holds integer values (ints, bool 0/1, lengths, counts, tags),
	// float64 bits, the version of Message/Header/Body/Embedded nodes and
	// the magic of a RecordBatch and the offset base of a Decompressed
	// node. Read those with Tree.NodeVersion, Tree.Magic and
	// Tree.OffsetBase.
	Num int64
	// DOff and DLen locate the contents of strings, bytes, uuids, records,
	// unknown-tag payloads and raw leaves in Tree.Bytes.
	DOff, DLen int32
}

// Tree is a span tree: Nodes in pre-order over Bytes. Nodes[0] is the root.
type Tree struct {
	Nodes []Node
	// Bytes are the bytes the spans and contents refer to: the encoded or
	// decoded message, or for a value tree the contents of its strings.
	Bytes []byte
	// Sample marks a tree of a smallest legal instance (the views say "one
	// sample element follows" rather than "1 element follows").
	Sample bool
	// Message is the spec of the message at the root (nil for a bare value).
	Message *spec.Message
	// Version is the message version; HeaderVersion the request or response
	// header version, or -1 when there is no header.
	Version, HeaderVersion int16
	// Virtual holds the decompressed bytes of compressed record batches,
	// which virtual nodes (FlagVirtual) refer to; nil when there are none.
	// It is never part of the wire bytes.
	Virtual []byte
	// Problems are what was found wrong in records while decoding (or
	// encoding) without failing it, in the order found.
	Problems []Problem
	// ownBytes is set once Value.SetString or SetBytes has copied Bytes,
	// which the tree then owns alone (see Value.SetString).
	ownBytes bool
}

// Problem is something wrong found in records: the message decoded, but
// this part of it is not what Kafka would accept (or, with Notice, is
// worth saying though Kafka accepts it).
type Problem struct {
	// Off is the wire offset (in Bytes) of what is wrong; for a problem
	// inside a decompressed view, the offset of the compressed payload.
	Off int32
	// VOff is the offset in Virtual of a problem inside a decompressed
	// view, else -1.
	VOff int32
	// Path names the place: the records field's path, the batch index and
	// the names below it ("ProduceRequest.TopicData[0].PartitionData[0].
	// Records[1].Record[2].key"), as the JSON view's paths do.
	Path string
	// Msg says what is wrong.
	Msg string
	// Notice marks what is not an error: a partial batch at the end of
	// records, which brokers send when a fetch reaches its size limit.
	// Commands fail on the problems that are not notices.
	Notice bool
}

// String renders "path at 0x0030: msg", with "(decompressed v0x0012)"
// after the offset for a problem in a decompressed view.
func (p Problem) String() string {
	where := p.Path
	if where == "" {
		where = "records"
	}
	s := where + " at 0x" + hex4(uint32(p.Off))
	if p.VOff >= 0 {
		s += " (decompressed v0x" + hex4(uint32(p.VOff)) + ")"
	}
	return s + ": " + p.Msg
}

// hex4 formats v in lower-case hex, at least 4 digits.
func hex4(v uint32) string {
	const digits = "0123456789abcdef"
	var b [8]byte
	i := len(b)
	for v > 0 || i > len(b)-4 {
		i--
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[i:])
}

// Errors returns the problems that are not notices.
func (t *Tree) Errors() []Problem {
	var out []Problem
	for _, p := range t.Problems {
		if !p.Notice {
			out = append(out, p)
		}
	}
	return out
}

// IsVirtual reports whether node i lies in a decompressed view (its
// offsets are in Virtual).
func (t *Tree) IsVirtual(i int32) bool { return t.Nodes[i].Flags&FlagVirtual != 0 }

// Span returns the bytes node i covers, [Off, Off+Size), from Bytes or,
// for a virtual node, from Virtual; nil when out of range.
func (t *Tree) Span(i int32) []byte {
	n := &t.Nodes[i]
	area := t.Bytes
	if n.Flags&FlagVirtual != 0 {
		area = t.Virtual
	}
	if n.Off < 0 || n.Size < 0 || int(n.Off)+int(n.Size) > len(area) {
		return nil
	}
	return area[n.Off : n.Off+n.Size : n.Off+n.Size]
}

// Count returns the number of elements of Array node i (as its length
// prefix says in a span tree; as many as it holds in a value tree).
func (t *Tree) Count(i int32) int { return int(t.Nodes[i].Index) }

// CRC returns the checksum computed over the bytes that crc leaf i covers:
// CRC-32C for a RecordBatch v2, CRC-32 for a legacy message (the stored
// checksum is the leaf's value, Num; FlagBadCRC marks a mismatch).
func (t *Tree) CRC(i int32) uint32 { return uint32(t.Nodes[i].Index) }

// Compression returns the compression id of Decompressed node i (1 gzip,
// 2 snappy, 3 lz4, 4 zstd).
func (t *Tree) Compression(i int32) int { return int(t.Nodes[i].Index) }

// OffsetBase returns the offset the inner records' offsets of
// Decompressed node i are relative to (see Decompressed).
func (t *Tree) OffsetBase(i int32) int64 { return t.Nodes[i].Num }

// Magic returns the magic of RecordBatch node i: 2 for a RecordBatch v2,
// 0 or 1 for a legacy message.
func (t *Tree) Magic(i int32) int8 { return int8(t.Nodes[i].Num) }

// NodeVersion returns the version of Message, Header, Body or Embedded
// node i (a header's is the header version).
func (t *Tree) NodeVersion(i int32) int16 { return int16(t.Nodes[i].Num) }

// Children calls fn with the index of each direct child of node i.
func (t *Tree) Children(i int32, fn func(c int32) bool) {
	end := t.Nodes[i].End
	for c := i + 1; c < end; c = t.Nodes[c].End {
		if !fn(c) {
			return
		}
	}
}

// ChildList returns the indexes of node i's direct children.
func (t *Tree) ChildList(i int32) []int32 {
	var out []int32
	t.Children(i, func(c int32) bool { out = append(out, c); return true })
	return out
}

// IsLeaf reports whether node i has no children.
func (t *Tree) IsLeaf(i int32) bool { return t.Nodes[i].End == i+1 }

// Find returns the first direct child of i with kind k, or -1.
func (t *Tree) Find(i int32, k Kind) int32 {
	r := int32(-1)
	t.Children(i, func(c int32) bool {
		if t.Nodes[c].Kind == k {
			r = c
			return false
		}
		return true
	})
	return r
}

// Fields calls fn for each field value of the struct-like node i (Body,
// Header, Struct, struct Element): Field, Struct, Array and Records
// children, the field nodes inside known Tag entries of its TagSection, and
// UnknownTag entries. Synthetic nodes (lengths, presence, counts) are
// skipped. It works on span trees and value trees alike.
func (t *Tree) Fields(i int32, fn func(c int32) bool) {
	t.Children(i, func(c int32) bool {
		switch t.Nodes[c].Kind {
		case Field, Struct, Array, Records, UnknownTag:
			return fn(c)
		case TagSection:
			cont := true
			t.Children(c, func(e int32) bool {
				switch t.Nodes[e].Kind {
				case UnknownTag:
					cont = fn(e)
				case Tag:
					t.Children(e, func(x int32) bool {
						switch t.Nodes[x].Kind {
						case Field, Struct, Array, Records:
							cont = fn(x)
							return false
						}
						return true
					})
				}
				return cont
			})
			return cont
		}
		return true
	})
}

// Lookup returns the child field node of struct-like node i whose spec field
// is f, or -1.
func (t *Tree) Lookup(i int32, f *spec.Field) int32 { return t.LookupRef(i, FieldRef(f)) }

// LookupRef returns the child field node of struct-like node i whose Ref is
// ref (see FieldRef), or -1.
//
// When a decoded struct holds the same tagged field twice, the last one
// wins, as in Kafka's reader.
func (t *Tree) LookupRef(i int32, ref int32) int32 {
	r := int32(-1)
	t.Fields(i, func(c int32) bool {
		if t.Nodes[c].Ref == ref && t.Nodes[c].Kind != UnknownTag {
			r = c
		}
		return true
	})
	return r
}

// Field returns the spec field of node i, or nil.
func (t *Tree) Field(i int32) *spec.Field { return RefOf(t.Nodes[i].Ref).Field }

// Struct returns the struct definition of node i (Body, Header, Struct,
// struct Element), or nil.
func (t *Tree) Struct(i int32) *spec.Struct { return RefOf(t.Nodes[i].Ref).Struct }

// Name returns the synthetic name of node i ("size", "baseOffset"…), or ""
// when the name derives from its field or struct.
func (t *Tree) Name(i int32) string { return RefOf(t.Nodes[i].Ref).Name }

// About returns the synthetic about text of node i, or "".
func (t *Tree) About(i int32) string { return RefOf(t.Nodes[i].Ref).About }

// Data returns the contents of node i (a string's bytes, a uuid, records,
// a raw payload) as a sub-slice of Bytes, or nil when it has none.
func (t *Tree) Data(i int32) []byte {
	n := &t.Nodes[i]
	area := t.Bytes
	if n.Flags&FlagVirtual != 0 {
		area = t.Virtual
	}
	if n.DLen <= 0 || n.DOff < 0 || int(n.DOff)+int(n.DLen) > len(area) {
		return nil
	}
	return area[n.DOff : n.DOff+n.DLen : n.DOff+n.DLen]
}

// Elements calls fn for each Element child of Array node i.
func (t *Tree) Elements(i int32, fn func(c int32) bool) {
	t.Children(i, func(c int32) bool {
		if t.Nodes[c].Kind == Element {
			return fn(c)
		}
		return true
	})
}

// Leaves calls fn for every leaf of the wire bytes, in byte order:
// virtual leaves (decompressed views) are skipped.
func (t *Tree) Leaves(fn func(i int32) bool) {
	for i := range t.Nodes {
		if n := &t.Nodes[i]; n.End == int32(i)+1 && n.Flags&FlagVirtual == 0 {
			if !fn(int32(i)) {
				return
			}
		}
	}
}

// Builder appends nodes in pre-order: Open a group, add its children, Close
// it (which sets End and, for span trees, Size from the current offset).
type Builder struct {
	T     *Tree
	stack []int32
}

// Open appends group node n and makes it the parent of what follows.
func (b *Builder) Open(n Node) int32 {
	i := int32(len(b.T.Nodes))
	b.T.Nodes = append(b.T.Nodes, n)
	b.stack = append(b.stack, i)
	return i
}

// Close ends the innermost open group; end is the byte offset just past it.
func (b *Builder) Close(end int32) {
	i := b.stack[len(b.stack)-1]
	b.stack = b.stack[:len(b.stack)-1]
	n := &b.T.Nodes[i]
	n.End = int32(len(b.T.Nodes))
	n.Size = end - n.Off
}

// Leaf appends leaf node n and returns its index.
func (b *Builder) Leaf(n Node) int32 {
	i := int32(len(b.T.Nodes))
	n.End = i + 1
	b.T.Nodes = append(b.T.Nodes, n)
	return i
}

// Top returns the innermost open group, or -1.
func (b *Builder) Top() int32 {
	if len(b.stack) == 0 {
		return -1
	}
	return b.stack[len(b.stack)-1]
}

// OpenGroups returns the open groups, outermost first (the caller must
// not modify the slice).
func (b *Builder) OpenGroups() []int32 { return b.stack }

// Graft appends a copy of node i of src and its subtree, with Off and DOff
// moved by delta and flags added to every node: it places a tree decoded
// on its own (a message held in a record value) at its position in b's
// tree. Virtual nodes of src (whose offsets are in src.Virtual) are left
// out.
func (b *Builder) Graft(src *Tree, i int32, delta int32, flags Flags) {
	end := src.Nodes[i].End
	base := int32(len(b.T.Nodes))
	for k := i; k < end; {
		n := src.Nodes[k]
		if n.Flags&FlagVirtual != 0 {
			k = n.End
			continue
		}
		n.Off += delta
		if n.DLen > 0 || n.DOff != 0 {
			n.DOff += delta
		}
		n.Flags |= flags
		n.End = -1 // set below
		b.T.Nodes = append(b.T.Nodes, n)
		k++
	}
	// Recompute End from the source's structure: each copied node's
	// subtree holds the copies of its source subtree (minus skipped
	// virtual nodes), so map source indexes to copies.
	if len(b.T.Nodes) == int(base) {
		return
	}
	idx := make([]int32, 0, end-i)
	for k := i; k < end; {
		if src.Nodes[k].Flags&FlagVirtual != 0 {
			k = src.Nodes[k].End
			continue
		}
		idx = append(idx, k)
		k++
	}
	// copyAt[j] is the source index of copy j; the copy's End is the
	// first later copy whose source index is at or past the source End.
	for j, sk := range idx {
		send := src.Nodes[sk].End
		e := j + 1
		for e < len(idx) && idx[e] < send {
			e++
		}
		b.T.Nodes[int(base)+j].End = base + int32(e)
	}
}

// Depth is the number of open groups.
func (b *Builder) Depth() int { return len(b.stack) }

// Truncate drops nodes from index i on and closes groups opened after it.
func (b *Builder) Truncate(i int32) {
	b.T.Nodes = b.T.Nodes[:i]
	for len(b.stack) > 0 && b.stack[len(b.stack)-1] >= i {
		b.stack = b.stack[:len(b.stack)-1]
	}
}

// Put appends p to the tree's Bytes and returns where it lies, for the
// DOff/DLen of a value tree's node.
func (b *Builder) Put(p []byte) (off, n int32) {
	off = int32(len(b.T.Bytes))
	b.T.Bytes = append(b.T.Bytes, p...)
	return off, int32(len(p))
}

// LeafData appends leaf n holding contents p (stored in the tree's Bytes).
func (b *Builder) LeafData(n Node, p []byte) int32 {
	n.DOff, n.DLen = b.Put(p)
	return b.Leaf(n)
}

// CloseAll closes every open group at byte offset end (used to leave a
// consistent partial tree behind a decoding error).
func (b *Builder) CloseAll(end int32) {
	for len(b.stack) > 0 {
		i := b.stack[len(b.stack)-1]
		if n := &b.T.Nodes[i]; end < n.Off {
			end = n.Off
		}
		b.Close(end)
	}
}

// Sub returns a copy of node i's subtree as a tree of its own (node i
// becomes Nodes[0]); Bytes and Virtual are shared, not copied. It turns a
// decoded body or header into a value to encode again.
func (t *Tree) Sub(i int32) *Tree {
	end := t.Nodes[i].End
	out := &Tree{Nodes: make([]Node, end-i), Bytes: t.Bytes, Virtual: t.Virtual, Message: t.Message, Version: t.Version, HeaderVersion: t.HeaderVersion}
	copy(out.Nodes, t.Nodes[i:end])
	for k := range out.Nodes {
		out.Nodes[k].End -= i
	}
	return out
}

// Part returns the index of the root's first child of kind k (Frame,
// Header or Body), or -1.
func (t *Tree) Part(k Kind) int32 {
	if len(t.Nodes) == 0 {
		return -1
	}
	return t.Find(0, k)
}
