// Package tree is kwire's span tree: every byte kwire writes or reads is
// attributed to one leaf of a Tree, and every node carries its wire type,
// its spec field or name and its [offset, size) range, from which its
// value is read. Decoding produces trees (encoding produces bytes, and
// the tree of those bytes is their decode); every view (text page, hex
// grid, JSON, HTML) renders one.
//
// A Tree is a flat arena of 16-byte Nodes in pre-order: node i's children
// start at i+1 and each child's End is the index of its next sibling, so
// walking a tree needs no pointers and building one costs one 16-byte
// write per node. The same arena also serves as a value to encode (a
// "value tree"): then only the field, struct, array, element and
// unknown-tag nodes are present.
//
// # Values
//
// A node stores no value: what it is (kind, wire encoding, spec field or
// synthetic name) is its interned Shape, and its value is read from the
// bytes it covers when asked for — Tree.Num for integers, Tree.Data for
// contents, Tree.Count for an array's length, Tree.NodeVersion,
// Tree.Magic and Tree.Ordinal (an element's or record's index) for what a
// view shows of groups (package records reads a batch's checksum and a
// record's offset). So decoding writes nothing but the nodes, and a value
// costs its reading only when read.
//
// A value tree's leaves hold their values as values, not wire encodings:
// an integer, bool or float64 (its bits) in the node itself (FlagNum: Off
// and Size are its low and high 32 bits); a string's, bytes' or records'
// contents, a uuid's 16 bytes, an unknown tag's number (4 big-endian
// bytes) then its payload in Tree.Bytes (FlagValue: Off and Size locate
// them); null is FlagNull. Builder.LeafNum, LeafData and LeafTag append
// them; the Value setters turn a span leaf into one.
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
// Off and Size are offsets in Virtual, not in Bytes. Each
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
	"unsafe"

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
	// flagged FlagVirtual whose Off and Size locate the decompressed
	// bytes in Tree.Virtual. It follows the payload's leaf inside the same
	// batch; its children are the inner Record nodes (v2) or inner message
	// RecordBatch nodes (legacy), all virtual. Its Aux is the compression
	// id (Tree.Compression: 1 gzip, 2 snappy, 3 lz4, 4 zstd);
	// records.OffsetBase reads the offset the inner records' offsets are
	// relative to (a v2 batch's baseOffset; for a magic 1 wrapper, its
	// offset minus the last inner relative offset; 0 for magic 0, whose
	// inner offsets are absolute).
	Decompressed
	// Embedded is a message decoded inside a record key or value (a KRaft
	// control record such as SnapshotHeaderRecord, or a metadata record
	// with its frame): Ref is the message root struct's (StructRef), its
	// version Tree.NodeVersion's; its children are the Frame (metadata
	// records) then the message's fields and tag section, as under a
	// Body. The key or value that holds it is then a group (a BatchField
	// whose contents, Tree.Data, follow its first child) of a varint
	// length leaf and the Embedded node.
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
	// FlagNull marks a null string, bytes, array, struct or records value
	// (Node.Null).
	FlagNull
	// FlagValue marks a leaf of a value tree (or one set by a Value
	// setter) whose [Off, Off+Size) in Tree.Bytes holds its contents (a
	// string's, bytes', records', a uuid, an unknown tag's number and
	// payload), not a wire encoding (see "Values" in the package doc).
	FlagValue
	// FlagNum marks a leaf of a value tree (or one set by a Value setter)
	// holding an integer, a bool (0 or 1) or a float64's bits: Off holds
	// its low 32 bits and Size its high 32 bits (it covers no bytes).
	FlagNum

	flagBits = 8
)

// Shape is what a node is, bar its position: its kind, its wire encoding,
// its Ref (spec field, struct or synthetic name) and a small number the
// kind gives a meaning to (Aux), interned process-wide (NewShape), and the
// node's flags. It is one uint32 — the interned id in the top 19 bits,
// the kind in the next 5 (so that Kind needs no lookup), the flags in the
// low 8 — so that a Node is 16 bytes.
type Shape uint32

const (
	kindShift = flagBits
	kindBits  = 5
	idShift   = kindShift + kindBits
	// maxShapes bounds the interned shapes (19 bits of ids: 524,288, some
	// ten times what every embedded release's specs make); NewShape gives
	// the shape of its kind with no ref or wire past it.
	maxShapes = 1 << (32 - idShift)
)

// shapeInfo is what an interned shape id stands for.
type shapeInfo struct {
	kind Kind
	wire Wire
	ref  int32
	aux  int32
}

// shapes interns shapeInfos; id 0 is the empty one (no wire, ref or
// aux), which the zero Node and the shapes NewShape gives past its bound
// have.
var shapes = func() *interner[shapeInfo] {
	s := &interner[shapeInfo]{}
	s.id(shapeInfo{}, maxShapes)
	return s
}()

// shapeTable returns the interned shapes (nil before the first NewShape).
func shapeTable() []shapeInfo { return shapes.all() }

// NewShape returns the shape of a node of kind k, wire encoding w, Ref
// ref (see Intern; 0 for none) and aux (see Node.Aux), with no flags,
// interning it on first use. Codecs make their shapes when they compile
// a plan, never per node; aux must come from a spec or a small fixed set
// (a version the spec defines, a compression id), never from the bytes
// being decoded, or hostile input could grow the table.
func NewShape(k Kind, w Wire, ref int32, aux int32) Shape {
	id, ok := shapes.id(shapeInfo{k, w, ref, aux}, maxShapes)
	if !ok {
		// Past the bound (no spec set comes near it): the bare kind.
		return Shape(k&(1<<kindBits-1)) << kindShift
	}
	return Shape(id)<<idShift | Shape(k&(1<<kindBits-1))<<kindShift
}

func (s Shape) info() shapeInfo {
	tab := shapeTable()
	if id := int(s >> idShift); id < len(tab) {
		return tab[id]
	}
	return shapeInfo{kind: s.Kind()}
}

// Kind returns the shape's kind.
func (s Shape) Kind() Kind { return Kind(s>>kindShift) & (1<<kindBits - 1) }

// Wire returns the shape's wire encoding.
func (s Shape) Wire() Wire { return s.info().wire }

// Ref returns the shape's Ref id (see RefOf).
func (s Shape) Ref() int32 { return s.info().ref }

// Aux returns the shape's aux number (see Node.Aux).
func (s Shape) Aux() int32 { return s.info().aux }

// Flags returns the shape's flags.
func (s Shape) Flags() Flags { return Flags(s & (1<<flagBits - 1)) }

// With returns s with flags f added.
func (s Shape) With(f Flags) Shape { return s | Shape(f&(1<<flagBits-1)) }

// Without returns s with flags f removed.
func (s Shape) Without(f Flags) Shape { return s &^ Shape(f&(1<<flagBits-1)) }

// Same reports whether s and o are the same shape, flags aside.
func (s Shape) Same(o Shape) bool { return (s^o)>>flagBits == 0 }

// NodeSize is the size of a Node in bytes (16): memory bounds count
// nodes with it.
const NodeSize = int(unsafe.Sizeof(Node{}))

// AuxRefused is the Aux of an Array node whose count the decoder refused
// (more elements than the bytes left could hold): it holds no element, and
// Tree.Count is 0 whatever its length prefix says.
const AuxRefused = 1

// AuxUndecodedSecret is the Aux of a Raw leaf of KRaft metadata records'
// bytes that were not decoded (past a bound, a partial batch, bytes
// skipped, a value that does not decode, a payload not decompressed):
// what they hold is not known, so they may be credentials, and package
// secret redacts the leaf whole.
const AuxUndecodedSecret = 1

// Node is one node of a span tree (or of a value tree): 16 bytes and no
// pointers. What it is — kind, wire encoding, spec field or name — is its
// Shape; where it lies is [Off, Off+Size) of Tree.Bytes (of Tree.Virtual
// with FlagVirtual); its subtree ends before node End. Its value is not
// stored: it is read from its bytes when asked for (Tree.Num, Tree.Data,
// Tree.Count), so a decode writes 16 bytes a node and the arena is one
// flat slice the garbage collector never scans, reused across decodes.
type Node struct {
	// Off and Size are the node's byte range [Off, Off+Size) in Tree.Bytes
	// (Tree.Virtual for a virtual node); for a value leaf, where its
	// contents lie in Tree.Bytes (FlagValue) or the number it holds
	// (FlagNum).
	Off, Size int32
	// End is the index just past this node's subtree.
	End int32
	// S is the node's shape and flags.
	S Shape
}

// Kind returns the node's kind.
func (n Node) Kind() Kind { return n.S.Kind() }

// Wire returns the node's wire encoding (WireNone for groups and for
// value leaves built without one).
func (n Node) Wire() Wire { return n.S.Wire() }

// Ref returns the id of the node's Ref: its spec field (Field, Struct,
// Array, Records, Tag nodes and header fields), its struct (Body, Header,
// Element, Embedded), or a synthetic name and about text; 0 for none.
func (n Node) Ref() int32 { return n.S.Ref() }

// Aux returns the number the node's kind gives its shape: the version of
// a Message, Header, Body or Embedded node (-1 when its version is read
// from elsewhere: Tree.NodeVersion), the compression id of a Decompressed
// node, AuxRefused for an Array whose count the decoder refused, 1 for a
// lazy Record (package records); 0 otherwise.
func (n Node) Aux() int32 { return n.S.Aux() }

// Flags returns the node's flags.
func (n Node) Flags() Flags { return n.S.Flags() }

// Null reports whether the node is a null string, bytes, array, struct or
// records value.
func (n Node) Null() bool { return n.S&Shape(FlagNull) != 0 }

// HeldNum returns the number a value leaf holds in itself (FlagNum); ok
// is false for any other node (Tree.Num reads those).
func (n Node) HeldNum() (v int64, ok bool) {
	if n.S&Shape(FlagNum) == 0 {
		return 0, false
	}
	return int64(uint32(n.Off)) | int64(n.Size)<<32, true
}

// AddFlags adds flags f to the node.
func (n *Node) AddFlags(f Flags) { n.S = n.S.With(f) }

// ClearFlags removes flags f from the node.
func (n *Node) ClearFlags(f Flags) { n.S = n.S.Without(f) }

// SetNull sets or clears the node's FlagNull.
func (n *Node) SetNull(null bool) {
	if null {
		n.AddFlags(FlagNull)
	} else {
		n.ClearFlags(FlagNull)
	}
}

// Reshape gives the node shape s, keeping its flags.
func (n *Node) Reshape(s Shape) { n.S = s.Without(1<<flagBits-1) | n.S&(1<<flagBits-1) }

// Tree is a span tree: Nodes in pre-order over Bytes. Nodes[0] is the root.
type Tree struct {
	Nodes []Node
	// Bytes are the bytes the spans refer to: the encoded or decoded
	// message, or for a value tree the values of its leaves.
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
	// FirstRecord is, in a tree that continues a record batch of the tree
	// before it (a part of records.DecodeParts), the index of the first
	// Record of its first batch; 0 otherwise (see Ordinal).
	FirstRecord int32
	// ownBytes is set once Value.SetString or SetBytes has copied Bytes,
	// which the tree then owns alone (see Value.SetString).
	ownBytes bool
}

// Footprint is the memory t's arrays take, in bytes: the capacities of
// Nodes (NodeSize a node), Bytes and Virtual, and 64 bytes a Problem
// (its strings not counted). Memory bounds on trees held count this.
func (t *Tree) Footprint() int64 {
	return int64(cap(t.Nodes))*int64(NodeSize) + int64(cap(t.Bytes)) + int64(cap(t.Virtual)) + 64*int64(cap(t.Problems))
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
	// CRC is, for a checksum that does not match (its Off the crc field's),
	// the one computed over the bytes as they were decoded, before
	// anything (a redaction) changed them; 0 for other problems.
	CRC uint32
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
func (t *Tree) IsVirtual(i int32) bool { return t.Nodes[i].S&Shape(FlagVirtual) != 0 }

// area returns the bytes node n's offsets are in: Virtual for a virtual
// node, else Bytes (always Bytes for a value leaf).
func (t *Tree) area(n Node) []byte {
	if n.S&Shape(FlagVirtual|FlagValue) == Shape(FlagVirtual) {
		return t.Virtual
	}
	return t.Bytes
}

// Span returns the bytes node i covers, [Off, Off+Size), from Bytes or,
// for a virtual node, from Virtual; nil when out of range and for a value
// leaf holding a number (FlagNum).
func (t *Tree) Span(i int32) []byte {
	n := t.Nodes[i]
	area := t.area(n)
	if n.S&Shape(FlagNum) != 0 || n.Off < 0 || n.Size < 0 || int(n.Off)+int(n.Size) > len(area) {
		return nil
	}
	return area[n.Off : n.Off+n.Size : n.Off+n.Size]
}

// Children calls fn with the index of each direct child of node i.
func (t *Tree) Children(i int32, fn func(c int32) bool) {
	end := t.EndOf(i)
	for c := i + 1; c < end; c = t.Next(c) {
		if !fn(c) {
			return
		}
	}
}

// EndOf is node i's End, but at most len(Nodes): where its subtree
// ends as the tree's readers (and the encoder) take it, whatever a node
// made or edited by hand says.
func (t *Tree) EndOf(i int32) int32 { return min(t.Nodes[i].End, int32(len(t.Nodes))) }

// Next is the index of the node after node i's subtree: its End, but at
// least i+1 (an End that is not past its node is taken as a leaf's), so
// that a walk over siblings always moves on, and at most len(Nodes).
func (t *Tree) Next(i int32) int32 { return min(max(t.Nodes[i].End, i+1), int32(len(t.Nodes))) }

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
	end := t.Nodes[i].End
	for c := i + 1; c < end; c = t.Nodes[c].End {
		if t.Nodes[c].Kind() == k {
			return c
		}
	}
	return -1
}

// Parent returns node i's parent, or -1 for the root (and for i out of
// range). It looks back from i over the nodes between i and its parent:
// cheap for a node near its parent's start, up to the whole parent's
// subtree before i otherwise (walkers know the parent already).
func (t *Tree) Parent(i int32) int32 {
	if i <= 0 || int(i) >= len(t.Nodes) {
		return -1
	}
	for k := i - 1; k >= 0; k-- {
		if t.Nodes[k].End > i {
			return k
		}
	}
	return -1
}

// Fields calls fn for each field value of the struct-like node i (Body,
// Header, Struct, struct Element): Field, Struct, Array and Records
// children, the field nodes inside known Tag entries of its TagSection, and
// UnknownTag entries. Synthetic nodes (lengths, presence, counts) are
// skipped. It works on span trees and value trees alike.
func (t *Tree) Fields(i int32, fn func(c int32) bool) {
	t.Children(i, func(c int32) bool {
		switch t.Nodes[c].Kind() {
		case Field, Struct, Array, Records, UnknownTag:
			return fn(c)
		case TagSection:
			cont := true
			t.Children(c, func(e int32) bool {
				switch t.Nodes[e].Kind() {
				case UnknownTag:
					cont = fn(e)
				case Tag:
					t.Children(e, func(x int32) bool {
						switch t.Nodes[x].Kind() {
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
		if n := t.Nodes[c]; n.Kind() != UnknownTag && n.Ref() == ref {
			r = c
		}
		return true
	})
	return r
}

// Field returns the spec field of node i, or nil.
func (t *Tree) Field(i int32) *spec.Field { return RefOf(t.Nodes[i].Ref()).Field }

// Struct returns the struct definition of node i (Body, Header, Struct,
// struct Element), or nil.
func (t *Tree) Struct(i int32) *spec.Struct { return RefOf(t.Nodes[i].Ref()).Struct }

// Name returns the synthetic name of node i ("size", "baseOffset"…), or ""
// when the name derives from its field or struct.
func (t *Tree) Name(i int32) string { return RefOf(t.Nodes[i].Ref()).Name }

// About returns the synthetic about text of node i, or "".
func (t *Tree) About(i int32) string { return RefOf(t.Nodes[i].Ref()).About }

// Elements calls fn for each Element child of Array node i.
func (t *Tree) Elements(i int32, fn func(c int32) bool) {
	t.Children(i, func(c int32) bool {
		if t.Nodes[c].Kind() == Element {
			return fn(c)
		}
		return true
	})
}

// Leaves calls fn for every leaf of the wire bytes, in byte order:
// virtual leaves (decompressed views) are skipped.
func (t *Tree) Leaves(fn func(i int32) bool) {
	for i := range t.Nodes {
		if n := t.Nodes[i]; n.End == int32(i)+1 && n.S&Shape(FlagVirtual) == 0 {
			if !fn(int32(i)) {
				return
			}
		}
	}
}

// Builder appends nodes in pre-order: Open a group, add its children, Close
// it (which sets End and, for span trees, Size from the current offset).
type Builder struct {
	T *Tree
	// Unbuilt is the nodes of what has been built that T.Nodes does not
	// hold, for the bounds that count nodes: package records adds, for
	// each lazy record (records.Options.Lazy), the nodes it makes whole
	// past its one, so that a lazy decode stops where a whole one does.
	Unbuilt int
	stack   []int32
}

// Open appends group node n and makes it the parent of what follows.
func (b *Builder) Open(n Node) int32 {
	i := int32(len(b.T.Nodes))
	if len(b.T.Nodes) == cap(b.T.Nodes) {
		b.T.Nodes = GrowNodes(b.T.Nodes, 1)
	}
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
	if len(b.T.Nodes) == cap(b.T.Nodes) {
		b.T.Nodes = GrowNodes(b.T.Nodes, 1)
	}
	b.T.Nodes = append(b.T.Nodes, n)
	return i
}

// GrowNodes is nodes with room for k more: nodes itself when it has it,
// else a copy in an array of twice its length, or of exactly len+k nodes
// when that is more. Arenas grow by doubling, not by append's quarter
// for large slices, so that an arena grown node by node (a message of
// many small records fields) allocates about twice its final size in
// all, not five times.
func GrowNodes(nodes []Node, k int) []Node {
	if cap(nodes)-len(nodes) >= k {
		return nodes
	}
	out := make([]Node, len(nodes), max(len(nodes)+k, 2*len(nodes)))
	copy(out, nodes)
	return out
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

// Graft appends a copy of node i of src and its subtree, with Off moved
// by delta and flags added to every node: it places a tree decoded on
// its own (a message held in a record value) at its position in b's
// tree, whose bytes at delta on (in Virtual, with FlagVirtual) must be
// src's Bytes, which its nodes' values are read from. Virtual nodes of
// src (whose offsets are in src.Virtual) are left out.
func (b *Builder) Graft(src *Tree, i int32, delta int32, flags Flags) {
	end := src.Nodes[i].End
	base := int32(len(b.T.Nodes))
	for k := i; k < end; {
		n := src.Nodes[k]
		if n.S&Shape(FlagVirtual) != 0 {
			k = n.End
			continue
		}
		n.Off += delta
		n.S = n.S.With(flags)
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
		if src.Nodes[k].S&Shape(FlagVirtual) != 0 {
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
// Off/Size of a value leaf.
func (b *Builder) Put(p []byte) (off, n int32) {
	off = int32(len(b.T.Bytes))
	b.T.Bytes = append(b.T.Bytes, p...)
	return off, int32(len(p))
}

// LeafData appends value leaf n (FlagValue) holding contents p — a
// string's or bytes' contents, a uuid's 16 bytes, records — stored in
// the tree's Bytes; with FlagNull in n, p is ignored.
func (b *Builder) LeafData(n Node, p []byte) int32 {
	n.S = n.S.With(FlagValue)
	if n.Null() {
		p = nil
	}
	n.Off, n.Size = b.Put(p)
	return b.Leaf(n)
}

// LeafNum appends value leaf n (FlagNum) holding integer (or float64
// bits, or bool 0/1) v, in its Off and Size.
func (b *Builder) LeafNum(n Node, v int64) int32 {
	n.S = n.S.With(FlagNum)
	n.Off, n.Size = int32(v), int32(v>>32)
	return b.Leaf(n)
}

// LeafTag appends an UnknownTag value leaf: tag number tag and payload
// p, stored in the tree's Bytes as the tag (4 big-endian bytes) then p.
func (b *Builder) LeafTag(tag uint32, p []byte) int32 {
	var q [4]byte
	q[0], q[1], q[2], q[3] = byte(tag>>24), byte(tag>>16), byte(tag>>8), byte(tag)
	off, _ := b.Put(q[:])
	b.Put(p)
	return b.Leaf(Node{Off: off, Size: int32(4 + len(p)), S: shapeUnknownTag.With(FlagValue)})
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
// becomes Nodes[0]); Bytes and Virtual are shared, not copied, and the
// nodes keep their offsets in them. It turns a decoded body or header
// into a value to encode again.
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

// NullIf returns FlagNull when null is set, else no flags: for building a
// node whose nullness is a condition.
func NullIf(null bool) Flags {
	if null {
		return FlagNull
	}
	return 0
}

// OpenPath returns the path of what b is building, from the groups it has
// open, in the dotted notation of the JSON view (see PathOf): a header's
// or body's struct name (the message's name for the body of the tree's
// message), the field names of open fields, structs, arrays and records,
// the index of an open element (counted among its array's elements),
// "_tagged_fields" for an open tag section but for the fields of a tag
// entry, which belong to their struct. Decoders compose their error
// paths with it, only when they fail.
func (b *Builder) OpenPath() Path {
	t := b.T
	var p Path
	for k, i := range b.stack {
		n := t.Nodes[i]
		switch n.Kind() {
		case Header, Embedded:
			if st := t.Struct(i); st != nil {
				p.Push(st.Name)
			}
		case Body:
			if st := t.Struct(i); st != nil {
				if t.Message != nil && t.Message.Root == st {
					p.Push(t.Message.Name)
				} else {
					p.Push(st.Name)
				}
			}
		case Field, Struct, Array, Records:
			if f := t.Field(i); f != nil {
				p.Push(f.Name)
			}
		case Element:
			ord := 0
			if k > 0 {
				for c := b.stack[k-1] + 1; c < i; c = t.Nodes[c].End {
					if t.Nodes[c].Kind() == Element {
						ord++
					}
				}
			}
			p.PushIndex(ord)
		case TagSection:
			p.Push("_tagged_fields")
		case Tag:
			if len(p) > 0 && p[len(p)-1].Name == "_tagged_fields" {
				p.Pop()
			}
		}
	}
	return p
}

// Shifted returns how many of cur's first nodes are, each, the node of
// prev at its place with its Off dOff and its End dEnd further on, its
// Size and S the same: a multiple of 8 no larger than the first node
// that is not, or len(cur) when all are (prev at least as long as cur).
// It is how the encoder finds array elements laid out as the one before
// each, and reads a node's 16 bytes as two words where the arena allows.
//
// A node of prev whose Off plus dOff, or End plus dEnd, does not fit in
// 32 bits unsigned may be taken for one whose Size or S is one more:
// callers compare nodes whose Off and End they have checked.
func Shifted(prev, cur []Node, dOff, dEnd int32) int {
	if len(prev) < len(cur) {
		cur = cur[:len(prev)]
	}
	if len(cur) == 0 {
		return 0
	}
	const chunk = 8
	if uintptr(unsafe.Pointer(&prev[0]))%8 != 0 || uintptr(unsafe.Pointer(&cur[0]))%8 != 0 {
		for lo := 0; lo < len(cur); lo += chunk {
			var acc uint32
			for k := lo; k < min(lo+chunk, len(cur)); k++ {
				p, q := &prev[k], &cur[k]
				acc |= uint32(q.Off-p.Off-dOff) | uint32(q.Size^p.Size) | uint32(q.End-p.End-dEnd) | uint32(q.S^p.S)
			}
			if acc != 0 {
				return lo
			}
		}
		return len(cur)
	}
	// Off, Size, End, S: each word is two of them, and adding dOff (dEnd)
	// to the word holding Off (End) adds it to that field alone when it
	// does not carry.
	var d0, d1 uint64
	if nativeLittle {
		d0, d1 = uint64(uint32(dOff)), uint64(uint32(dEnd))
	} else {
		d0, d1 = uint64(uint32(dOff))<<32, uint64(uint32(dEnd))<<32
	}
	pw := unsafe.Slice((*uint64)(unsafe.Pointer(&prev[0])), 2*len(cur))
	cw := unsafe.Slice((*uint64)(unsafe.Pointer(&cur[0])), 2*len(cur))
	lo := 0
	for ; lo+chunk <= len(cur); lo += chunk {
		p, c := pw[2*lo:2*lo+2*chunk], cw[2*lo:2*lo+2*chunk]
		var acc uint64
		for k := 0; k < 2*chunk; k += 2 {
			acc |= (c[k] - p[k] - d0) | (c[k+1] - p[k+1] - d1)
		}
		if acc != 0 {
			return lo
		}
	}
	var acc uint64
	for k := 2 * lo; k < len(cw); k += 2 {
		acc |= (cw[k] - pw[k] - d0) | (cw[k+1] - pw[k+1] - d1)
	}
	if acc != 0 {
		return lo
	}
	return len(cur)
}

// nativeLittle is whether the machine stores the low byte first.
var nativeLittle = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()
