package records

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// DefaultMaxDecompressed is the default bound on what one compressed
// payload may decompress to: 256 MiB.
const DefaultMaxDecompressed = 256 << 20

// DefaultMaxDecompressedTotal is the default bound on all decompressed
// views of one tree together: 1 GiB (virtual offsets are int32).
const DefaultMaxDecompressedTotal = 1 << 30

// DefaultMaxView is the bound on the decompressed bytes of one tree that
// commands showing a frame's tree whole (kwire decode, pcap, serve's
// /decode) hold: 32 MiB. Decode holds a tree's decompressed views in its
// Virtual; DecodeParts streams them and needs no such bound.
const DefaultMaxView = 32 << 20

// DefaultMaxNodes is the bound on the nodes of one frame's records that
// commands showing a frame's tree whole (kwire decode, pcap) hold by
// default (Options.MaxNodes): 512 Ki nodes, 8 MiB (tree.NodeSize each),
// about 64 Ki plain records. Without it an uncompressed 8 MiB batch of
// record headers of two bytes each made 8 million nodes (128 MiB), and
// a legacy wrapper of 61 KB a million.
const DefaultMaxNodes = 1 << 19

// ShowWhole bounds o for a tree that is held whole to be shown (kwire
// decode, encode's read-back): its decompressed views at held bytes, each
// and together, the input's Budget at as many, and its nodes at maxNodes
// (0: no bound).
func (o *Options) ShowWhole(held int64, maxNodes int) {
	o.MaxDecompressed, o.MaxDecompressedTotal = held, held
	o.Budget = NewBudget(held)
	o.MaxNodes = maxNodes
}

// DefaultMaxRecordBytes is the default Options.MaxRecordBytes: 16 MiB,
// sixteen times the largest record Kafka's brokers accept by default
// (message.max.bytes, about 1 MiB).
const DefaultMaxRecordBytes = 16 << 20

// DefaultBudget is the default Budget of one input: 1 GiB.
const DefaultBudget = 1 << 30

// Budget is what the compressed payloads of one input (a log file, a
// capture, the frames of a request) may decompress to together, however
// many trees, windows and parts they are decoded in: every decode given
// it (Options.Budget) takes from it the decompressed bytes of each
// payload it decompresses, held or streamed, and a payload past what is
// left is reported and not decompressed. It is safe for concurrent use.
type Budget struct {
	left  atomic.Int64
	limit int64
}

// NewBudget is a Budget of n bytes (0 or less: DefaultBudget).
func NewBudget(n int64) *Budget {
	if n <= 0 {
		n = DefaultBudget
	}
	b := &Budget{limit: n}
	b.left.Store(n)
	return b
}

// Left is what the budget still allows (bytes); a nil Budget allows all.
func (b *Budget) Left() int64 {
	if b == nil {
		return 1<<63 - 1
	}
	return max(b.left.Load(), 0)
}

// Limit is the bytes the budget started with (0 for a nil Budget).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// With is a budget of b's limit with left bytes left (b's own count
// untouched), or nil when b is nil: a decoding done again takes from it
// what it took the first time, when b had left bytes left.
func (b *Budget) With(left int64) *Budget {
	if b == nil {
		return nil
	}
	c := &Budget{limit: b.limit}
	c.left.Store(left)
	return c
}

// take takes n bytes from the budget.
func (b *Budget) take(n int64) {
	if b != nil {
		b.left.Add(-n)
	}
}

// Options control decoding.
type Options struct {
	// MaxDecompressed bounds the bytes one compressed payload (a batch's
	// records, a legacy wrapper's value) may decompress to; a payload that
	// would go past it is reported and not decoded further (a decompression
	// bomb). 0 means DefaultMaxDecompressed; negative means compressed
	// payloads are shown as they are, not decompressed. It bounds work,
	// not memory: a payload is held only once it is known to be within
	// the limit, and one past it costs at most 8 MiB and the
	// decompressor's window (zstd windows over 32 MiB are refused).
	MaxDecompressed int64
	// MaxDecompressedTotal bounds the decompressed bytes of one call (and
	// one tree) together. 0 means DefaultMaxDecompressedTotal; it is never
	// more than that.
	MaxDecompressedTotal int64
	// Budget, when set, is the decompression budget of the input the
	// bytes are part of, shared by every decode of it: a payload that
	// would decompress to more than it has left is reported, not
	// decompressed. Nil: no bound but the others.
	Budget *Budget
	// MaxNodes bounds the nodes of the tree that records are decoded
	// into (0: no bound; a lazy record counts as the nodes it makes
	// whole, so that Expand's tree keeps to it): once it holds that
	// many, the entries or records still to come in the records bytes or
	// payload being decoded are one Raw leaf with a problem, not
	// decoded. A node takes tree.NodeSize (16) bytes: with
	// MaxDecompressedTotal it bounds the memory of a tree whatever its
	// payloads hold.
	//
	// DecodeParts bounds each part by its own count of nodes; MaxNodes
	// (DefaultMaxNodes when 0) then bounds only what cannot be split:
	// the nodes of a part holding the inner messages of a legacy
	// wrapper.
	MaxNodes int
	// MaxRecords bounds the records of one compressed payload of a v2
	// batch: past it, the rest of the payload is one Raw leaf with a
	// problem, not decoded. 0 means 8 Ki and 2 a byte of the compressed
	// payload, what the nodes of a whole decode's view of it allow plain
	// records (a payload of a few KB claiming millions of records is a
	// bomb: DecodeParts bounds memory, not output). A whole decode's view
	// is bounded by its nodes as well.
	MaxRecords int64
	// MaxRecordBytes bounds the bytes of one record of a payload that is
	// streamed (one that decompresses to more than 8 MiB): a record is
	// held whole to be decoded, so a longer one is not decoded but shown
	// as Raw leaves of 1 MiB at most, after a problem that gives its
	// length, and the records after it are decoded. In DecodeParts it
	// also bounds a payload in one raw snappy block, which is decoded
	// whole, when more than 32 MiB. 0 means DefaultMaxRecordBytes;
	// negative means no bound (a record or block is held whatever its
	// length).
	MaxRecordBytes int64
	// Set holds the specs of the KRaft control records (LeaderChangeMessage,
	// SnapshotHeaderRecord, SnapshotFooterRecord, KRaftVersionRecord,
	// VotersRecord). With Decode, their values are decoded; without either,
	// they are shown as bytes.
	Set *spec.Set
	// Decode decodes a message that a record value holds: for m != nil the
	// bare message m at version (a KRaft control record, version 0, no
	// prefix), for m == nil a KRaft metadata record with its frame (frame
	// version, api key, version). On error it returns the partial tree,
	// whose leaves still tile data. codec.(*Codec).DecodeRecord is one.
	Decode func(data []byte, m *spec.Message, version int16) (*tree.Tree, error)
	// Metadata decodes the values of data records (records of batches that
	// are not control batches) as KRaft metadata records, with Decode: for
	// the batches of __cluster_metadata and of snapshot files.
	Metadata bool
	// KeyValue decodes the keys and values of data records as the records
	// of an internal topic (__consumer_offsets…); nil leaves them bytes
	// (or Metadata decodes the values). See KeyValueDecoder.
	KeyValue *KeyValueDecoder
	// Lazy makes each plain record (of a batch that is not a control
	// batch, keys and values shown as bytes: no KeyValue, no Metadata)
	// one Record leaf, its fields read and checked as for a whole decode
	// but not kept as nodes: a node a record rather than eight, for
	// readers that list records (LogBatches reads their fields) and do not
	// show the tree. Expand makes the tree a views can show; a view given a
	// lazy record shows it as one row.
	Lazy bool
	// Complete says the bytes are all there will ever be (a KRaft
	// snapshot, which is written once and never appended to): a partial
	// batch at the end is an error, not a notice.
	Complete bool
	// Preallocated says the bytes are a log segment's, whose file a broker
	// with file.preallocate grows ahead with zero bytes: zero bytes from
	// the start of an entry to the end are a notice, not an error.
	Preallocated bool
	// Unread is the number of bytes the input holds after the ones given,
	// which a caller's limit left unread (logseg's Options.MaxTreeBytes):
	// a partial batch at the end counts them among the bytes present.
	Unread int64
	// KeepRoom leaves the tree's Virtual array at the size it grew to
	// (Append trims it otherwise): the tree is an arena whose caller
	// decodes frame after frame into it (codec.DecodeOptions.Arena).
	KeepRoom bool
	// FileOffset is where the bytes lie in the file they were read from
	// (a window of a log segment): the offsets that problem messages spell
	// out ("4096 bytes skipped from 0x00ae to 0x10ae") count from the
	// file's start. tree.Problem.Off is not changed by it.
	FileOffset int64
	// Path is the path of the records in problem reports and the prefix of
	// the batch paths ("FetchResponse.Responses[0].Partitions[0].Records");
	// "" means the path of the group Append's builder has open (the
	// records field the codec is decoding), or "records" when none.
	Path string
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC32C is the CRC-32C (Castagnoli) checksum that RecordBatch v2 stores
// over its bytes from attributes to the end (DefaultRecordBatch).
func CRC32C(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// Sizes of Kafka's record formats.
const (
	logOverhead    = 12 // offset + size of every log entry (Records.LOG_OVERHEAD)
	batchOverhead  = 61 // RecordBatch v2 header (DefaultRecordBatch.RECORD_BATCH_OVERHEAD)
	legacyMinV0    = 14 // LegacyRecord.RECORD_OVERHEAD_V0: crc, magic, attributes, key and value lengths
	legacyMinV1    = 22 // RECORD_OVERHEAD_V1: plus the timestamp
	compressionMax = 4  // CompressionZstd
)

// Refs of record nodes: names and about texts are interned once.
var (
	refBatch        = tree.NameRef("RecordBatch", "RecordBatch v2 (magic 2)")
	refLegacy       = tree.NameRef("LegacyMessage", "legacy message set entry (magic 0 or 1)")
	refRecord       = tree.NameRef("Record", "one record of the batch")
	refPartial      = tree.NameRef("partial batch", "bytes at the end that do not hold a whole batch")
	refSkipped      = tree.NameRef("skipped", "bytes that are not a batch, up to the next batch or the end (see the problems)")
	refZeros        = tree.NameRef("zero bytes", "zero bytes where a batch would start: space a broker preallocated (file.preallocate), or bytes never written")
	refPayload      = tree.NameRef("records", "records payload, not decoded here (compressed or not a whole number of records)")
	refCompressed   = tree.NameRef("compressed records", "compressed records payload, decompressed below")
	refDecompressed = tree.NameRef("decompressed", "the payload decompressed: not wire bytes")
	refUndecoded    = tree.NameRef("undecoded", "bytes not decoded because of the problem reported here")
	refExtra        = tree.NameRef("surplus", "bytes after the last record the batch counts")
	refRecordExtra  = tree.NameRef("surplus", "bytes after the record's fields that its length counts")
	refRecordLength = tree.NameRef("length", "bytes after this field")
	refRecAttrs     = tree.NameRef("attributes", "unused")
	refTsDelta      = tree.NameRef("timestampDelta", "ms after baseTimestamp")
	refOffDelta     = tree.NameRef("offsetDelta", "offset minus baseOffset")
	refKey          = tree.NameRef("key", "record key")
	refValue        = tree.NameRef("value", "record value")
	refKeyLength    = tree.NameRef("length", "bytes of the key that follow (zig-zag varint)")
	refValueLength  = tree.NameRef("length", "bytes of the value that follow (zig-zag varint)")
	refHeadersCount = tree.NameRef("headersCount", "number of record headers")
	refHeaderKey    = tree.NameRef("headerKey", "record header key")
	refHeaderValue  = tree.NameRef("headerValue", "record header value")

	refLegacyTimestamp = tree.NameRef("timestamp", "timestamp of the message (ms; magic 1)")
	refLegacyKey       = tree.NameRef("key", "message key (int32 length, -1 null)")
	refLegacyValue     = tree.NameRef("value", "message value (int32 length, -1 null)")
	refLegacyCompValue = tree.NameRef("value", "the compressed inner message set, decompressed below")
	refLegacyExtra     = tree.NameRef("surplus", "bytes after the value that the message size counts")
)

// Shapes of record nodes (see tree.Shape), made once.
var (
	shRecordsRaw    = tree.NewShape(tree.Records, tree.WireRaw, 0, 0)
	shBatch         = tree.NewShape(tree.RecordBatch, tree.WireNone, refBatch, 0)
	shLegacy        = tree.NewShape(tree.RecordBatch, tree.WireNone, refLegacy, 0)
	shRecord        = tree.NewShape(tree.Record, tree.WireNone, refRecord, 0)
	shRecordLazy    = tree.NewShape(tree.Record, tree.WireNone, refRecord, 1) // Options.Lazy
	shRecordLength  = tree.NewShape(tree.BatchField, tree.WireVarint, refRecordLength, 0)
	shRecAttrs      = tree.NewShape(tree.BatchField, tree.WireInt8, refRecAttrs, 0)
	shTsDelta       = tree.NewShape(tree.BatchField, tree.WireVarlong, refTsDelta, 0)
	shOffDelta      = tree.NewShape(tree.BatchField, tree.WireVarint, refOffDelta, 0)
	shKey           = tree.NewShape(tree.BatchField, tree.WireVarBytes, refKey, 0)
	shValue         = tree.NewShape(tree.BatchField, tree.WireVarBytes, refValue, 0)
	shKeyLength     = tree.NewShape(tree.BatchField, tree.WireVarint, refKeyLength, 0)
	shValueLength   = tree.NewShape(tree.BatchField, tree.WireVarint, refValueLength, 0)
	shHeadersCount  = tree.NewShape(tree.BatchField, tree.WireVarint, refHeadersCount, 0)
	shHeaderKey     = tree.NewShape(tree.BatchField, tree.WireVarBytes, refHeaderKey, 0)
	shHeaderValue   = tree.NewShape(tree.BatchField, tree.WireVarBytes, refHeaderValue, 0)
	shCompressed    = tree.NewShape(tree.Raw, tree.WireRaw, refCompressed, 0)
	shLegacyTs      = tree.NewShape(tree.BatchField, tree.WireInt64, refLegacyTimestamp, 0)
	shLegacyKey     = tree.NewShape(tree.BatchField, tree.WireBytes, refLegacyKey, 0)
	shLegacyValue   = tree.NewShape(tree.BatchField, tree.WireBytes, refLegacyValue, 0)
	shLegacyComp    = tree.NewShape(tree.BatchField, tree.WireBytes, refLegacyCompValue, 0)
	shDecompressed  [compressionMax + 1]tree.Shape // by compression id
	shRawByRef      = map[int32]tree.Shape{}
	shVarBytesByRef = map[int32]tree.Shape{refKey: shKey, refValue: shValue, refHeaderKey: shHeaderKey, refHeaderValue: shHeaderValue}
	shLengthByRef   = map[int32]tree.Shape{refKeyLength: shKeyLength, refValueLength: shValueLength}
)

func init() {
	for c := range shDecompressed {
		shDecompressed[c] = tree.NewShape(tree.Decompressed, tree.WireNone, refDecompressed, int32(c))
	}
	for _, r := range []int32{refPartial, refSkipped, refZeros, refPayload, refCompressed, refUndecoded, refExtra, refRecordExtra, refLegacyExtra} {
		shRawByRef[r] = tree.NewShape(tree.Raw, tree.WireRaw, r, 0)
	}
}

// rawShape is the shape of a Raw leaf of ref.
func rawShape(ref int32) tree.Shape {
	if s, ok := shRawByRef[ref]; ok {
		return s
	}
	return tree.NewShape(tree.Raw, tree.WireRaw, ref, 0)
}

type batchField struct {
	ref   int32
	w     tree.Wire
	size  int
	shape tree.Shape
}

func bf(name, about string, w tree.Wire, size int) batchField {
	ref := tree.NameRef(name, about)
	return batchField{ref, w, size, tree.NewShape(tree.BatchField, w, ref, 0)}
}

var v2Header = []batchField{
	bf("baseOffset", "offset of the first record", tree.WireInt64, 8),
	bf("batchLength", "bytes after this field", tree.WireInt32, 4),
	bf("partitionLeaderEpoch", "leader epoch when appended (not covered by the CRC)", tree.WireInt32, 4),
	bf("magic", "record format version", tree.WireInt8, 1),
	bf("crc", "CRC-32C of attributes..end", tree.WireUint32, 4),
	bf("attributes", "compression, timestamp type, transactional, control, delete horizon", tree.WireInt16, 2),
	bf("lastOffsetDelta", "offset of the last record minus baseOffset", tree.WireInt32, 4),
	bf("baseTimestamp", "timestamp of the first record (ms)", tree.WireInt64, 8),
	bf("maxTimestamp", "largest timestamp in the batch (ms)", tree.WireInt64, 8),
	bf("producerId", "idempotent/transactional producer id, -1 if none", tree.WireInt64, 8),
	bf("producerEpoch", "producer epoch, -1 if none", tree.WireInt16, 2),
	bf("baseSequence", "sequence number of the first record, -1 if none", tree.WireInt32, 4),
	bf("recordsCount", "number of records", tree.WireInt32, 4),
}

// Indexes of v2Header.
const (
	v2BaseOffset = iota
	v2Length
	v2LeaderEpoch
	v2Magic
	v2CRC
	v2Attributes
	v2LastOffsetDelta
	v2BaseTimestamp
	v2MaxTimestamp
	v2ProducerID
	v2ProducerEpoch
	v2BaseSequence
	v2Count
)

var legacyFields = []batchField{
	bf("offset", "offset of the message (of the last inner message for a compressed wrapper)", tree.WireInt64, 8),
	bf("messageSize", "bytes after this field", tree.WireInt32, 4),
	bf("crc", "CRC-32 of magic..end", tree.WireUint32, 4),
	bf("magic", "message format version", tree.WireInt8, 1),
	bf("attributes", "compression (bits 0-2), timestamp type (bit 3, v1)", tree.WireInt8, 1),
}

// Indexes of legacyFields.
const (
	legacyOffset = iota
	legacySize
	legacyCRC
	legacyMagic
	legacyAttributes
)

func readFixed(b []byte, w tree.Wire) int64 {
	switch w {
	case tree.WireInt8:
		return int64(int8(b[0]))
	case tree.WireInt16:
		return int64(int16(binary.BigEndian.Uint16(b)))
	case tree.WireInt32:
		return int64(int32(binary.BigEndian.Uint32(b)))
	case tree.WireUint32:
		return int64(binary.BigEndian.Uint32(b))
	case tree.WireInt64:
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// Append appends span nodes for the records bytes data, which lie at
// offset base of the tree's Bytes, to the group b has open (a Records
// node): see the package doc for their shape. Problems go to b.T.Problems;
// decompressed views to b.T.Virtual, whose room past them is trimmed
// (unless o.KeepRoom).
func Append(b *tree.Builder, data []byte, base int32, o Options) {
	appendRecords(b, data, base, o)
	if !o.KeepRoom {
		trimVirtual(b.T)
	}
}

// appendRecords is Append, the tree's Virtual left as it grew (Decode
// owns it: ownVirtual).
func appendRecords(b *tree.Builder, data []byte, base int32, o Options) {
	if len(data) == 0 {
		return // no entries: nothing to reserve, name or decode
	}
	path := o.Path
	if path == "" {
		path = PathOf(b)
	}
	est, lead := estimateNodes(data, o)
	reserveNodes(b, firstReserve(est, lead, o.Lazy))
	d := newDecoder(b, o)
	d.arena = arena{start: len(b.T.Nodes), est: est, max: len(b.T.Nodes) + min(len(data)+16, est*2)}
	d.entries(data, base, area{path: path, wireOff: -1})
}

// virtualSlack is the most room past a tree's Virtual bytes that Append
// leaves it (a quarter of them, when more). A payload refused past its
// limit grew the room to the limit as it was read (32 MiB for a zstd
// batch of 1.4 KB), and trees held together kept it each: a file of 100
// such frames took decode 890 MiB, and a capture of 300 pipelined
// requests awaiting their responses took pcap 2.5 GiB (an outside
// review).
const virtualSlack = 1 << 20

// trimVirtual copies t's Virtual bytes to an array of their size when
// its room past them is more than virtualSlack: the room goes.
func trimVirtual(t *tree.Tree) {
	v := t.Virtual
	if cap(v)-len(v) <= max(virtualSlack, len(v)/4) {
		return
	}
	if len(v) == 0 {
		t.Virtual = nil
		return
	}
	t.Virtual = append(make([]byte, 0, len(v)), v...)
}

// Decode decodes a records blob on its own (the records of a log segment,
// a snapshot file, a records field's bytes): a tree whose Bytes are data
// and whose root is a Records node over all of it.
func Decode(data []byte, o Options) *tree.Tree {
	est, lead := estimateNodes(data, o)
	t := &tree.Tree{Bytes: data, HeaderVersion: -1, Nodes: make([]tree.Node, 0, 1+firstReserve(est, lead, o.Lazy))}
	if v, _ := virtualPool.Get().(*[]byte); v != nil {
		t.Virtual = (*v)[:0]
	} else if hint := virtualHint.Load(); hint > 0 && compressed(data) {
		// The last tree kept its array: one the size it needed, if data
		// may need as much (32 bytes a byte of it, at most).
		t.Virtual = make([]byte, 0, min(hint, 32*int64(len(data))))
	}
	b := tree.Builder{T: t}
	b.Open(tree.Node{S: shRecordsRaw})
	if o.Path == "" {
		o.Path = "records"
	}
	appendRecords(&b, data, 0, o)
	b.Close(int32(len(data)))
	t.Virtual = ownVirtual(t.Virtual)
	return t
}

// virtualPool holds arrays that Decode decompresses into (*[]byte), of
// at most virtualPoolMax bytes: a tree's Virtual is then its decompressed
// bytes copied once, at their size, not an array grown again and again
// as payloads are appended to it.
var virtualPool sync.Pool

const virtualPoolMax = 16 << 20

// virtualHint is the size of the last array a tree kept (ownVirtual).
var virtualHint atomic.Int64

// compressed reports whether data's first entry is a compressed v2 batch
// or a legacy compressed wrapper (what makes a Virtual).
func compressed(data []byte) bool {
	if EntrySize(data) == 0 {
		return false
	}
	if data[16] == 2 {
		return len(data) >= 23 && data[22]&7 != 0
	}
	return len(data) >= 18 && data[17]&7 != 0
}

// ownVirtual returns the Virtual bytes that Decode decompressed into v,
// an array of virtualPool (or grown from one) that nothing else refers
// to: v itself when they mostly fill it (the tree keeps it), else a copy
// of them, v's array going back to the pool unless it is larger than
// virtualPoolMax (the room a refused payload made). It is nil when v is
// empty.
func ownVirtual(v []byte) []byte {
	if len(v) > 0 && len(v) >= cap(v)-cap(v)/4 {
		// Mostly full: the tree keeps the array rather than a copy, and
		// the next Decode makes one of its size (virtualHint).
		virtualHint.Store(int64(min(cap(v), virtualPoolMax)))
		return v
	}
	var out []byte
	if len(v) > 0 {
		out = append([]byte(nil), v...)
	}
	if cap(v) > 0 && cap(v) <= virtualPoolMax {
		v = v[:0]
		virtualPool.Put(&v)
	}
	return out
}

// PathOf is the field path of the group b has open, as the codec's errors
// and the JSON view name it ("ProduceRequest.TopicData[0].PartitionData[0].
// Records"), or "records" when b has none.
func PathOf(b *tree.Builder) string {
	if p := b.OpenPath(); len(p) > 0 {
		return p.String()
	}
	return "records"
}

// pathName is path with name step name after it ("….Records[0].Record[1]"
// then ".key"), in the dotted notation of tree.Path.
func pathName(path, name string) string {
	return string(tree.AppendStep([]byte(path), tree.Name(name)))
}

// decoder appends the nodes of one Append call.
type decoder struct {
	b *tree.Builder
	o Options
	// room is what the decompressed views may still take.
	room int64
	// parts is set for DecodeParts: the tree is handed over in parts.
	parts *parts
	// viewHeaders counts the record headers of the decompressed view
	// being decoded (recordsArea starts it), four of which count as a
	// record toward its records bound (overRecords).
	viewHeaders int64
	// viewTried counts the records of that view that were decoded (or
	// tried): what it takes of the records bound.
	viewTried int64
	// The compressed payloads of one decode share the bounds of their
	// views, so that many small ones are bounded as one large one: the
	// views with a records bound (recordsArea) number recViews, their
	// payloads recPayload bytes, and the finished ones took recUsed of
	// it; those with a node bound (viewArea) nodeViews, nodePayload and
	// nodeUsed.
	recViews, recPayload, recUsed    int64
	nodeViews, nodePayload, nodeUsed int64
	// crcBudget is what the search for the next entry may still checksum
	// (bytes; see nextEntry).
	crcBudget int64
	// arena is set by Append (est not 0): the node arena's estimate,
	// which the first record scales (see scaleArena).
	arena arena
	// viewCut is set by record when the cut of its headers took in the
	// records after it (recordReader.viewCut): records stops.
	viewCut bool
}

// size is the nodes of the tree being built, its lazy records counted as
// the nodes they make whole (tree.Builder.Unbuilt, kept across the records
// fields of one message): what the node bounds bound, so that a lazy
// decode stops where a whole one does and Expand makes no more nodes than
// they allow.
func (d *decoder) size() int { return len(d.b.T.Nodes) + d.b.Unbuilt }

// parts is the state of DecodeParts.
type parts struct {
	fn       func(t *tree.Tree, continued bool) error
	maxNodes int
	// wrapNodes bounds the nodes of a part that holds a legacy wrapper's
	// messages (Options.MaxNodes, DefaultMaxNodes when 0).
	wrapNodes int
	// continued is set when the tree being built continues a batch of the
	// one handed over before it.
	continued bool
	err       error
}

// DecodeParts decodes the records bytes data as Decode does (with
// Options.Budget, not bounded by MaxDecompressedTotal), handing the
// tree over to fn in parts of about maxNodes nodes or fewer (and no more
// than a part's decompressed records need), so that memory is bounded by
// the part, not by data or what its payloads decompress to: each part is
// a tree whose Bytes are data and whose root is a Records node holding a
// run of whole entries, or, when an entry's records are many, a run of
// its records. A batch given in several parts is a RecordBatch node with
// its header leaves (and compressed payload leaf) in each, with the next
// run of its records; continued is set for every part but its first. The
// parts list together the nodes and problems of Decode's tree in order,
// with these differences: a part's Virtual holds only its own
// decompressed bytes, and the offsets in it (tree.Problem.VOff included)
// count from their start (add the len(Virtual) of the parts before to
// place them in Decode's view); entry and record indexes in paths are
// Decode's. The parts are valid only during fn (their Virtual may be
// reused). The first error of fn ends decoding and is returned.
func DecodeParts(data []byte, o Options, maxNodes int, fn func(t *tree.Tree, continued bool) error) error {
	t := &tree.Tree{Bytes: data, HeaderVersion: -1}
	if pb, _ := partPool.Get().(*tree.Tree); pb != nil {
		// The arrays of the last call's parts.
		t.Nodes, t.Virtual, t.Problems = pb.Nodes[:0], pb.Virtual[:0], pb.Problems[:0]
	} else {
		t.Nodes = make([]tree.Node, 0, min(16+len(data)/4, maxNodes+64))
	}
	b := tree.Builder{T: t}
	defer func() {
		if cap(b.T.Virtual) <= 2*decompressHold && cap(b.T.Nodes) <= 2*maxNodes+1024 {
			partPool.Put(&tree.Tree{Nodes: b.T.Nodes, Virtual: b.T.Virtual, Problems: b.T.Problems})
		}
	}()
	b.Open(tree.Node{S: shRecordsRaw})
	if o.Path == "" {
		o.Path = "records"
	}
	// MaxNodes bounds only what a part cannot split: a legacy wrapper's
	// messages, held in one part (15 MiB of small ones in a 786 KB snappy
	// wrapper took a listing 203 MiB). The parts bound the rest.
	wrapNodes := o.MaxNodes
	if wrapNodes <= 0 {
		wrapNodes = DefaultMaxNodes
	}
	o.MaxNodes = 0
	d := newDecoder(&b, o)
	d.parts = &parts{fn: fn, maxNodes: max(maxNodes, 64), wrapNodes: wrapNodes}
	if o.Budget != nil {
		// The parts bound what is held: what the payloads decompress to
		// together is the input's budget.
		d.room = 1<<63 - 1
	}
	d.entries(data, 0, area{path: o.Path, wireOff: -1})
	if d.parts.err != nil {
		return d.parts.err
	}
	b.Close(int32(len(data)))
	return fn(b.T, d.parts.continued)
}

// partPool holds the arrays of DecodeParts's parts for the next call (a
// tree holding them).
var partPool sync.Pool

// full reports whether the tree being built is to be handed over before
// going on: it holds DecodeParts's nodes, or decompressHold bytes of
// decompressed payloads (many small payloads whose records are not
// decoded make few nodes: a thousand count bombs of 41 bytes, each
// decompressing to 140 KB, were held in one part, 1.3 GB).
func (d *decoder) full() bool {
	return d.parts != nil && (len(d.b.T.Nodes) >= d.parts.maxNodes || len(d.b.T.Virtual) >= decompressHold)
}

// overNodes reports whether the tree holds Options.MaxNodes nodes, or
// the nodes a view of area a may make, with the problem of the n bytes
// of what ("entries", "records") then not decoded.
func (d *decoder) overNodes(a area, n int, what string) (string, bool) {
	switch {
	case d.parts != nil && a.inWrapper && d.size() >= d.parts.wrapNodes:
		return fmt.Sprintf("%s of %s not decoded: the inner messages of a legacy wrapper, held whole, make %d nodes, the limit", wire.Bytes(n), what, d.parts.wrapNodes), true
	case d.o.MaxNodes > 0 && d.size() >= d.o.MaxNodes:
		return fmt.Sprintf("%s of %s not decoded: the tree holds %d nodes, its limit", wire.Bytes(n), what, d.o.MaxNodes), true
	case a.maxNodes > 0 && d.size() >= a.maxNodes && d.nodeViews > 1:
		return fmt.Sprintf("%s of %s not decoded: the %d compressed payloads of these records so far (%s) make at most %d nodes together (64 Ki and %d a byte; a bomb?)", wire.Bytes(n), what, d.nodeViews, wire.Bytes(d.nodePayload), viewNodesBase+viewNodesPerByte*d.nodePayload, viewNodesPerByte), true
	case a.maxNodes > 0 && d.size() >= a.maxNodes:
		return fmt.Sprintf("%s of %s not decoded: a compressed payload of %s makes at most %d nodes (64 Ki and %d a byte; a bomb?)", wire.Bytes(n), what, wire.Bytes(a.payload), viewNodesBase+viewNodesPerByte*a.payload, viewNodesPerByte), true
	}
	return "", false
}

// stopped reports whether DecodeParts's fn has failed: decoding ends.
func (d *decoder) stopped() bool { return d.parts != nil && d.parts.err != nil }

// split hands the tree built so far to DecodeParts's fn, its open groups
// closed at wire offset off and at the end of its Virtual, and starts the
// next: the same open groups, a RecordBatch with its leaves up to the
// group open in it (its header fields, its compressed payload), and the
// Virtual bytes from virtualFrom on of the one handed over.
//
// The part after the split starts with record firstRecord of its batch
// when it continues one (tree.Tree.FirstRecord).
func (d *decoder) split(off int32, virtualFrom int, firstRecord int32) {
	b := d.b
	old := b.T
	open := slices.Clone(b.OpenGroups())
	for k := len(open) - 1; k >= 0; k-- {
		end := off
		if n := &old.Nodes[open[k]]; n.Flags()&tree.FlagVirtual != 0 {
			end = int32(virtualFrom)
		}
		b.Close(max(end, old.Nodes[open[k]].Off))
	}
	rest := old.Virtual[virtualFrom:]
	old.Virtual = old.Virtual[:virtualFrom]
	// What the next part starts with: the open groups, a batch's leaves.
	var again []tree.Node
	var opens []bool
	for k, g := range open {
		n := old.Nodes[g]
		if n.Flags()&tree.FlagVirtual != 0 {
			// A decompressed view, from virtualFrom on.
			n.Off = 0
		}
		again, opens = append(again, n), append(opens, true)
		if n.Kind() != tree.RecordBatch {
			continue
		}
		last := old.Nodes[g].End
		if k+1 < len(open) {
			last = open[k+1]
		}
		for c := g + 1; c < last; c = old.Nodes[c].End {
			if old.Nodes[c].Kind() == tree.Record {
				// A record handed over already: not the next part's.
				continue
			}
			again, opens = append(again, old.Nodes[c]), append(opens, false)
		}
	}
	p := d.parts
	p.err = p.fn(old, p.continued)
	p.continued = false
	d.b.Unbuilt = 0 // the lazy records handed over
	// The part handed over is done with: its nodes' and problems' arrays
	// are the next one's.
	if len(rest) == 0 {
		// Nothing is held past the split: Virtual's array is free.
		rest = old.Virtual[:0]
	}
	b.T = &tree.Tree{Bytes: old.Bytes, HeaderVersion: -1, Virtual: rest, Nodes: old.Nodes[:0], Problems: old.Problems[:0]}
	for k, n := range again {
		if opens[k] {
			b.Open(n)
			p.continued = p.continued || n.Kind() == tree.RecordBatch
		} else {
			b.Leaf(n)
		}
	}
	if p.continued {
		b.T.FirstRecord = firstRecord
	}
}

func newDecoder(b *tree.Builder, o Options) *decoder {
	if o.MaxDecompressed == 0 {
		o.MaxDecompressed = DefaultMaxDecompressed
	}
	if o.MaxDecompressedTotal <= 0 || o.MaxDecompressedTotal > DefaultMaxDecompressedTotal {
		o.MaxDecompressedTotal = DefaultMaxDecompressedTotal
	}
	room := o.MaxDecompressedTotal - int64(len(b.T.Virtual))
	return &decoder{b: b, o: o, room: max(room, 0), crcBudget: crcSearchMin + crcSearchFactor*int64(len(b.T.Bytes))}
}

// area says where the bytes being decoded lie: on the wire, or in a
// decompressed view (virtual).
type area struct {
	virtual bool
	// wireOff is, for a virtual area, the wire offset of the compressed
	// payload it comes from (the offset its problems are reported at).
	wireOff int32
	// path is the path of the entries or records of the area.
	path string
	// inWrapper is set inside a legacy compressed wrapper, whose inner
	// messages must not be compressed again.
	inWrapper bool
	// maxNodes, when not 0, is the node count of the tree past which the
	// rest of a decompressed view is not decoded (viewNodes), payload
	// the size of the compressed payload it comes from.
	maxNodes, payload int
	// maxRecords, when not 0, is the number of records of a decompressed
	// view past which the rest is not decoded (DecodeParts: recordsArea).
	maxRecords int32
}

// Bounds of the nodes the records of one decompressed view make in a tree
// (not DecodeParts's, whose parts are bounded): viewNodesBase and
// viewNodesPerByte times the bytes of the compressed payload. Records of
// 60 bytes compressed 10 times make about 1.4 nodes a byte of payload;
// only a payload crafted to expand (the smallest records, repeated) comes
// near 16, and would otherwise make a tree of 16 bytes a node for each 7
// bytes of what it decompresses to.
const (
	viewNodesBase    = 64 << 10
	viewNodesPerByte = 16
)

// viewArea sets the node bound of view a of a compressed payload of n
// bytes (none in DecodeParts, except in a legacy wrapper, whose view is
// one part).
//
// The views of one decode share one bound: viewNodesBase, and
// viewNodesPerByte times their payloads' bytes together (endView counts
// what each took).
func (d *decoder) viewArea(a area, n int) area {
	if d.parts == nil || a.inWrapper {
		d.nodeViews++
		d.nodePayload += int64(n)
		left := viewNodesBase + viewNodesPerByte*d.nodePayload - d.nodeUsed
		a.maxNodes, a.payload = d.size()+int(min(max(left, 1), 1<<31-1)), n
	}
	return a
}

// endView counts what view a took of the bounds its decode's views
// share (viewArea, recordsArea), from, the tree's size when it started.
//
// A view of records takes 8 nodes a record of the nodes (a header a
// quarter), so that the two bounds meet at the same record when records
// are plain, as in one view; a legacy wrapper's view the nodes it made.
func (d *decoder) endView(a area, from int) {
	used := d.viewTried + d.viewHeaders/headersPerRecord
	switch {
	case a.maxRecords > 0 && a.maxNodes > 0:
		d.nodeUsed += used * (viewNodesBase / viewRecordsBase)
	case a.maxNodes > 0:
		d.nodeUsed += int64(d.size() - from)
	}
	if a.maxRecords > 0 && d.o.MaxRecords <= 0 {
		d.recUsed += used
	}
}

// Bounds of the records of one decompressed view, unless
// Options.MaxRecords says otherwise: viewRecordsBase and
// viewRecordsPerByte times the bytes of the compressed payload, the
// records that a whole decode's view node bound (viewNodes) lets through
// at the 8 nodes of a plain record. DecodeParts, whose parts bound memory,
// not work, would otherwise decode a payload of a few KB claiming
// millions of records to its end, and list them.
const (
	viewRecordsBase    = viewNodesBase / 8
	viewRecordsPerByte = viewNodesPerByte / 8
)

// recordsArea sets the record bound of view a of a compressed payload of
// n bytes (Options.MaxRecords, or what n allows). A whole decode's view of
// plain records reaches it where it reaches its node bound (viewArea),
// and reports it the same as DecodeParts does.
//
// Without Options.MaxRecords, the views of one decode share one bound:
// viewRecordsBase, and viewRecordsPerByte times their payloads' bytes
// together (endView counts what each took).
func (d *decoder) recordsArea(a area, n int) area {
	a.payload = n
	d.viewHeaders, d.viewTried = 0, 0
	d.recViews++
	d.recPayload += int64(n)
	left := viewRecordsBase + viewRecordsPerByte*d.recPayload - d.recUsed
	a.maxRecords = int32(min(max(left, 1), 1<<31-1))
	if d.o.MaxRecords > 0 {
		a.maxRecords = int32(min(d.o.MaxRecords, 1<<31-1))
	}
	return a
}

// overRecords is the problem of the n bytes of records of view a not
// decoded after its first a.maxRecords records (recordsArea), or "".
func (d *decoder) overRecords(a area, k int32, n int64) string {
	if a.maxRecords == 0 || int64(k)+d.viewHeaders/headersPerRecord < int64(a.maxRecords) {
		return ""
	}
	return fmt.Sprintf("%s of records not decoded: %s", wire.Bytes(n), d.recordsBound(a, d.viewHeaders > 0))
}

// headersPerRecord is how many record headers count as one record toward
// a view's records bound: a header is two nodes, a plain record eight.
const headersPerRecord = 4

// recordsBound says what the records bound of view a is, for a problem
// past it; headers says that headers count toward it.
func (d *decoder) recordsBound(a area, headers bool) string {
	var s string
	switch {
	case d.o.MaxRecords > 0:
		s = fmt.Sprintf("the compressed payload holds more than %d records, the records limit", a.maxRecords)
	case d.recViews > 1:
		s = fmt.Sprintf("the %d compressed payloads of these records so far (%s) hold at most %d records together (8 Ki and %d a byte; a bomb?)", d.recViews, wire.Bytes(d.recPayload), viewRecordsBase+viewRecordsPerByte*d.recPayload, viewRecordsPerByte)
	default:
		s = fmt.Sprintf("a compressed payload of %s holds at most %d records (8 Ki and %d a byte; a bomb?)", wire.Bytes(a.payload), a.maxRecords, viewRecordsPerByte)
	}
	if headers {
		s += fmt.Sprintf(", %d headers counting as one", headersPerRecord)
	}
	return s
}

// maxRecordHeaders is the most headers of one record that are decoded:
// past them, the rest of the record is one Raw leaf with a problem (a
// record of 15 MiB holds 7.5 million empty headers; a tree of them takes
// 30 times that).
const maxRecordHeaders = 64 << 10

func (a area) flags() tree.Flags {
	if a.virtual {
		return tree.FlagVirtual
	}
	return 0
}

// problem records a problem at offset off of area a, flagging node i
// (when i >= 0).
func (d *decoder) problem(a area, i int32, off int32, path, msg string) {
	d.report(a, i, off, path, msg, false)
}

func (d *decoder) report(a area, i int32, off int32, path, msg string, notice bool) {
	p := tree.Problem{Off: off, VOff: -1, Path: path, Msg: msg, Notice: notice}
	if a.virtual {
		p.Off, p.VOff = a.wireOff, off
	}
	d.b.T.Problems = append(d.b.T.Problems, p)
	if i >= 0 && !notice {
		d.b.T.Nodes[i].AddFlags(tree.FlagProblem)
	}
}

// raw appends a Raw leaf over [off, off+n) of area a.
func (d *decoder) raw(a area, ref int32, off int32, n int) int32 {
	s := rawShape(ref)
	if d.o.Metadata && ref != refZeros {
		// Metadata records not decoded may be credentials.
		s = tree.NewShape(tree.Raw, tree.WireRaw, ref, tree.AuxUndecodedSecret)
	}
	return d.b.Leaf(tree.Node{Off: off, Size: int32(n), S: s.With(a.flags())})
}

// boundHeld is the most bytes of the rest of a decompressed view that are
// held once a bound (records, nodes) stops its decoding: the rest is
// reported whole, its first boundHeld bytes shown. A thousand small
// count bombs of 100 bytes each otherwise held 32 MiB of decompressed
// bytes, of which 1.6 MB were decoded.
const boundHeld = 4 << 10

// boundFree is how much room past the bytes kept by boundRest makes it
// copy them to an array of their size, so that the room is freed.
const boundFree = 8 << 20

// boundRest appends the Raw leaf of the n bytes at off of area a that a
// bound left undecoded, with the problem msg at path. When they end a
// decompressed view's bytes (the tree's Virtual), only the first boundHeld
// of them are kept: the leaf holds those, the view (and a record of it
// whose headers were stopped) ends after them, and cut is set.
func (d *decoder) boundRest(a area, off int32, n int, path, msg string) (cut bool) {
	if a.virtual && n > boundHeld && int(off)+n == len(d.b.T.Virtual) {
		msg += fmt.Sprintf(" (the first %s shown; the other %s, decompressed, not held)", wire.Bytes(boundHeld), wire.Bytes(n-boundHeld))
		n = boundHeld
		v := d.b.T.Virtual[:int(off)+n]
		if cap(v)-len(v) > boundFree {
			// A view of many MiB, most of it not held: its array goes.
			v = append(make([]byte, 0, len(v)+len(v)/4), v...)
		}
		d.b.T.Virtual = v
		cut = true
	}
	i := d.raw(a, refUndecoded, off, n)
	d.problem(a, i, off, path, msg)
	return cut
}

// index is path with index step [i] after it.
func index(path string, i int) string { return string(tree.AppendStep([]byte(path), tree.Index(i))) }

// entries decodes a sequence of log entries (v2 batches or legacy
// messages) at offset base of area a: each entry whose header Kafka's log
// reader takes (EntrySize) and whose bytes are all there, by its length;
// anything else by notEntry.
func (d *decoder) entries(data []byte, base int32, a area) {
	pos, k := 0, 0
	for pos < len(data) {
		rest := data[pos:]
		off := base + int32(pos)
		path := index(a.path, k)
		if msg, over := d.overNodes(a, len(rest), "entries"); over {
			d.boundRest(a, off, len(rest), path, msg)
			return
		}
		total := EntrySize(rest)
		if total == 0 || total > int64(len(rest)) {
			pos = d.notEntry(data, pos, base, a, path)
			continue
		}
		entry := rest[:total] // at least 26 bytes: the magic is at 16
		if magic := int8(rest[16]); magic == 2 {
			d.batchV2(entry, off, a, path)
		} else {
			d.legacy(entry, off, a, path, magic)
		}
		k++
		pos += int(total)
		if d.stopped() {
			return
		}
		if d.full() && !a.virtual && pos < len(data) {
			d.split(base+int32(pos), len(d.b.T.Virtual), 0)
		}
	}
}

// EntryHeader is the bytes of a log entry up to and including its magic:
// baseOffset (int64), length (int32), then partitionLeaderEpoch (v2) or
// the crc (legacy), then the magic byte.
const EntryHeader = 17

// MaxBatchLength is the largest length a batch cut by the end of the
// bytes may claim and still be taken for a partial batch: 100 MiB, Kafka's
// default socket.request.max.bytes, which bounds the produce request that
// carries a batch. Larger lengths at the end are bytes that are not a
// batch. A whole entry inside the bytes is decoded whatever its length.
const MaxBatchLength = 100 << 20

// minLength is the smallest length (after the length field) of an entry
// of the given magic: Kafka's LegacyRecord.RECORD_OVERHEAD_V0/V1 and
// DefaultRecordBatch.RECORD_BATCH_OVERHEAD.
func minLength(magic int8) int64 {
	switch magic {
	case 0:
		return legacyMinV0
	case 1:
		return legacyMinV1
	}
	return batchOverhead - logOverhead
}

// EntrySize is the size in bytes (its length field plus 12) of the log
// entry that b starts with, when its first EntryHeader bytes are a header
// Kafka's log reader takes: magic 0, 1 or 2 and a length at least the
// smallest entry of that magic (14, 22, 49). It may be more than len(b).
// 0 when b is shorter than EntryHeader or does not start with such a
// header (bytes that are not a batch, zero bytes, a cut header).
func EntrySize(b []byte) int64 {
	if len(b) < EntryHeader {
		return 0
	}
	magic := int8(b[16])
	length := int64(int32(binary.BigEndian.Uint32(b[8:])))
	if magic < 0 || magic > 2 || length < minLength(magic) {
		return 0
	}
	return logOverhead + length
}

// wholeEntry reports whether b starts with a whole log entry whose checksum
// matches: EntrySize within b and the CRC-32C of a v2 batch, or the CRC-32
// of a legacy message. It is how bytes that are not a batch are skipped to
// the next batch.
func wholeEntry(b []byte) bool {
	total := EntrySize(b)
	if total == 0 || total > int64(len(b)) {
		return false
	}
	if b[16] == 2 {
		return CRC32C(b[21:total]) == binary.BigEndian.Uint32(b[17:])
	}
	return crc32.ChecksumIEEE(b[16:total]) == binary.BigEndian.Uint32(b[12:])
}

// nextEntry is the first position from from on where data holds a whole
// entry (wholeEntry), or -1. The checksums it computes on the way take
// from d.crcBudget (bytes): once it is spent, the search ends (-1), so
// that bytes crafted to look like an entry at every position cost work in
// proportion to the bytes, not their square.
func (d *decoder) nextEntry(data []byte, from int) int {
	for q := from; q+EntryHeader <= len(data); q++ {
		if m := data[q+16]; m > 2 {
			continue
		}
		total := EntrySize(data[q:])
		if total == 0 || total > int64(len(data)-q) {
			continue
		}
		if d.crcBudget -= total; d.crcBudget < 0 {
			return -1
		}
		if wholeEntry(data[q:]) {
			return q
		}
	}
	return -1
}

// crcSearchFactor times the bytes decoded, and crcSearchMin more, are the
// checksum bytes that skipping to the next entry may compute in one call.
const (
	crcSearchFactor = 16
	crcSearchMin    = 64 << 20
)

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// notEntry covers the bytes at data[pos:] that do not start a whole
// entry and returns where decoding goes on:
//
//   - zero bytes up to the end, at least 12 (a length of 0): one "N zero
//     bytes from X to the end" (a notice with Options.Preallocated);
//   - a partial batch, a notice (an error with Options.Complete): what is
//     left could be the start of an entry cut by the end (partialBatchOf) and
//     no whole entry follows it;
//   - else the bytes up to the next whole entry (nextEntry), or to the end
//     when there is none, are skipped and reported as one error: "unknown
//     magic 7 (…): 4096 bytes skipped from 0x00ae to 0x10ae", or "N zero
//     bytes from X to Y".
func (d *decoder) notEntry(data []byte, pos int, base int32, a area, path string) int {
	rest := data[pos:]
	off := base + int32(pos)
	if len(rest) >= logOverhead && allZero(rest) {
		// (Fewer zero bytes could be the baseOffset 0 of a cut batch.)
		i := d.raw(a, refZeros, off, len(rest))
		d.report(a, i, off, path, zeroTailMsg(int64(len(rest)), d.at(a, off)), d.o.Preallocated && !a.virtual)
		return len(data)
	}
	next := d.nextEntry(data, pos+1)
	if next < 0 {
		n := int64(len(rest))
		if !a.virtual {
			n += d.o.Unread
		}
		if msg, ok := partialBatchOf(rest, n); ok {
			i := d.raw(a, refPartial, off, len(rest)) // see PartialBatch
			if d.o.Complete {
				msg += ": the records end inside it"
			}
			d.report(a, i, off, path, msg, !d.o.Complete)
			return len(data)
		}
	}
	end, to := len(data), "the end"
	if next >= 0 {
		end, to = next, d.at(a, base+int32(next))
	}
	skipped := data[pos:end]
	i := d.raw(a, refSkipped, off, len(skipped))
	msg := fmt.Sprintf("%s from %s to %s", zeroBytes(len(skipped)), d.at(a, off), to)
	if !allZero(skipped) {
		msg = fmt.Sprintf("%s: %s skipped from %s to %s", notBatch(rest, len(skipped), next >= 0), wire.Bytes(len(skipped)), d.at(a, off), to)
	}
	d.problem(a, i, off, path, msg)
	return end
}

// zeroTailMsg is the problem of n zero bytes at at that run to the end.
func zeroTailMsg(n int64, at string) string {
	return fmt.Sprintf("%s from %s to the end", zeroBytes(int(n)), at)
}

// ZeroTail is the problem Decode (with o) reports, as the bytes' entry k,
// for n zero bytes at offset off of the bytes that run to their end (at
// least 12; space a broker preallocated): "N zero bytes from 0x00ae to the
// end", a notice with o.Preallocated. A reader that finds such bytes
// without holding them (logseg) reports them with it.
func ZeroTail(n int64, off int32, k int, o Options) tree.Problem {
	path := o.Path
	if path == "" {
		path = "records"
	}
	msg := zeroTailMsg(n, fmt.Sprintf("0x%04x", o.FileOffset+int64(off)))
	return tree.Problem{Off: off, VOff: -1, Path: index(path, k), Msg: msg, Notice: o.Preallocated}
}

// at formats offset off of area a for a message: "0x00ae" counted from the
// start of the file (Options.FileOffset), "v0x0012" in a decompressed view.
func (d *decoder) at(a area, off int32) string {
	if a.virtual {
		return fmt.Sprintf("v0x%04x", off)
	}
	return fmt.Sprintf("0x%04x", d.o.FileOffset+int64(off))
}

// partialBatchOf says whether n bytes that run to the end of the input,
// whose first ones are rest (EntryHeader of them at least, when there are
// as many), are plausibly the start of an entry cut by that end, with the
// message saying so: fewer than 12 bytes; or a length at least the
// smallest entry and at most MaxBatchLength, then, when present, magic 0,
// 1 or 2 with a length its entries can have and attributes with no
// unknown bit or compression.
func partialBatchOf(rest []byte, n int64) (string, bool) {
	if n < logOverhead {
		return fmt.Sprintf("partial batch: %s, too short for a batch header", wire.Bytes(int(n))), true
	}
	length := int64(int32(binary.BigEndian.Uint32(rest[8:])))
	msg := fmt.Sprintf("partial batch: batchLength %d, %s present", length, wire.Bytes(int(n-logOverhead)))
	if length < legacyMinV0 || length > MaxBatchLength {
		return "", false
	}
	if len(rest) < EntryHeader {
		return msg, true
	}
	magic := int8(rest[16])
	if magic < 0 || magic > 2 || length < minLength(magic) {
		return "", false
	}
	switch {
	case magic == 2 && len(rest) >= 23:
		attrs := binary.BigEndian.Uint16(rest[21:])
		return msg, attrs&^0x7f == 0 && attrs&7 <= compressionMax
	case magic < 2 && len(rest) >= 18:
		attrs := rest[17]
		return msg, attrs&^0x0f == 0 && attrs&7 <= 3 && (magic == 1 || attrs&0x08 == 0)
	}
	return msg, true
}

// notBatch says why rest, whose first n bytes are skipped, does not start
// an entry; next is set when a whole entry follows them.
func notBatch(rest []byte, n int, next bool) string {
	if len(rest) < logOverhead {
		return fmt.Sprintf("%s, too short for a batch header", wire.Bytes(len(rest)))
	}
	length := int64(int32(binary.BigEndian.Uint32(rest[8:])))
	if len(rest) >= EntryHeader {
		magic := int8(rest[16])
		switch {
		case magic < 0 || magic > 2:
			return fmt.Sprintf("unknown magic %d (Kafka knows 0, 1 and 2)", magic)
		case length < 0:
			return fmt.Sprintf("batchLength %d is negative", length)
		case length < minLength(magic) && magic == 2:
			return fmt.Sprintf("batchLength %d is less than a RecordBatch v2 header (%d bytes)", length, batchOverhead-logOverhead)
		case length < minLength(magic):
			return fmt.Sprintf("messageSize %d is less than a magic %d message (%d bytes)", length, magic, minLength(magic))
		}
	}
	switch {
	case next:
		return fmt.Sprintf("batchLength %d, but a batch starts %s after this one", length, wire.Bytes(n))
	case length < 0:
		return fmt.Sprintf("batchLength %d is negative", length)
	case length < legacyMinV0:
		return fmt.Sprintf("batchLength %d is less than the smallest entry (%d bytes)", length, legacyMinV0)
	case length > MaxBatchLength:
		return fmt.Sprintf("batchLength %d runs past the end and is more than a batch can be (%d bytes)", length, MaxBatchLength)
	}
	return fmt.Sprintf("batchLength %d runs past the end, and the attributes are not a batch's", length)
}

// batchInfo is what records need to know of their batch.
type batchInfo struct {
	baseOffset int64
	control    bool
	// plain is set when keys and values are shown as bytes (not a control
	// batch, no KeyValue, no Metadata): plainRecord may decode records.
	plain bool
}

// batchV2 appends a RecordBatch v2 node. Its crc leaf holds the stored
// CRC (ComputedCRC computes the other); both carry FlagBadCRC when they
// differ.
func (d *decoder) batchV2(batch []byte, off int32, a area, path string) {
	b := d.b
	stored := binary.BigEndian.Uint32(batch[17:])
	computed := CRC32C(batch[21:])
	flags := a.flags()
	if stored != computed {
		flags |= tree.FlagBadCRC
	}
	bi := b.Open(tree.Node{Off: off, S: shBatch.With(flags)})
	p := 0
	var attrs, count int64
	var info batchInfo
	var countLeaf int32
	for i, f := range v2Header {
		n := tree.Node{Off: off + int32(p), Size: int32(f.size), S: f.shape.With(a.flags())}
		num := readFixed(batch[p:], f.w)
		switch i {
		case v2BaseOffset:
			info.baseOffset = num
		case v2CRC:
			n.S = f.shape.With(flags)
		case v2Attributes:
			attrs = num
		case v2Count:
			count = num
		}
		li := b.Leaf(n)
		if i == v2CRC && stored != computed {
			d.problem(a, li, off+17, path+".crc", fmt.Sprintf("CRC-32C 0x%08x stored, 0x%08x computed: the batch is corrupt", stored, computed))
			d.b.T.Problems[len(d.b.T.Problems)-1].CRC = computed
		}
		if i == v2Count {
			countLeaf = li
		}
		p += f.size
	}
	info.control = Attributes(attrs).Control()
	info.plain = !info.control && d.o.KeyValue == nil && !d.o.Metadata
	if count < 0 {
		d.problem(a, countLeaf, off+57, path+".recordsCount", fmt.Sprintf("recordsCount %d is negative", count))
		count = 0
	}
	body := batch[batchOverhead:]
	boff := off + batchOverhead
	codec := int(Attributes(attrs).Compression())
	got := int32(-1)
	switch {
	case codec == 0 || len(body) == 0:
		got = d.records(body, boff, a, path, int32(count), info)
	case codec > compressionMax:
		i := d.raw(a, refPayload, boff, len(body))
		d.problem(a, i, off+21, path+".attributes", fmt.Sprintf("unknown compression id %d (Kafka knows 0-4): the records are not decoded", codec))
	default:
		got = d.compressedV2(body, boff, a, path, codec, int32(count), info)
	}
	if got >= 0 && got < int32(count) {
		// (The tree may be another part's by now: the batch is the group
		// open.)
		countLeaf = b.Top() + 1 + v2Count
		d.problem(a, countLeaf, off+57, path+".recordsCount", fmt.Sprintf("recordsCount says %d records, the batch holds %d", count, got))
	}
	b.Close(off + int32(len(batch)))
	_ = bi
}

// compressedV2 appends a v2 batch's compressed payload leaf and, when it
// decompresses, the Decompressed view of its records. It returns the number
// of records decoded, -1 when the payload does not decompress.
func (d *decoder) compressedV2(body []byte, boff int32, a area, path string, codec int, count int32, info batchInfo) int32 {
	out, voff, st, ok := d.decompressOrStream(a, codec, body, 2, boff, path+".records", -1, d.parts != nil && !a.virtual)
	if !ok {
		return -1
	}
	if st != nil {
		defer st.rd.put()
		d.b.Leaf(tree.Node{Off: boff, Size: int32(len(body)), S: shCompressed.With(a.flags())})
		inner := d.recordsArea(area{virtual: true, wireOff: boff, path: path + ".decompressed"}, len(body))
		d.b.Open(tree.Node{Off: voff, S: shDecompressed[codec].With(tree.FlagVirtual)})
		n := d.streamRecords(st, inner, count, info)
		d.b.Close(int32(len(d.b.T.Virtual)))
		d.endView(inner, 0)
		return n
	}
	d.b.Leaf(tree.Node{Off: boff, Size: int32(len(body)), S: shCompressed.With(a.flags())})
	from := d.size()
	inner := d.recordsArea(d.viewArea(area{virtual: true, wireOff: boff, path: path + ".decompressed"}, len(body)), len(body))
	if a.virtual {
		inner.wireOff = a.wireOff
	}
	d.b.Open(tree.Node{Off: voff, S: shDecompressed[codec].With(tree.FlagVirtual)})
	n := d.records(out, voff, inner, inner.path, count, info)
	// The view ends where the Virtual bytes do (those of this part, when
	// DecodeParts split the records).
	d.b.Close(int32(len(d.b.T.Virtual)))
	d.endView(inner, from)
	return n
}

// decompress decompresses payload (compression codec, of an entry of the
// given magic, at offset off of area a) into the tree's Virtual area. On
// failure it appends the payload as a Raw "records" leaf (or leaves it to
// the caller when leaf is false), reports the problem and returns ok false.
// It is how a legacy wrapper's value is decompressed: held whole, its
// messages in one part, so that DecodeParts holds no more than
// legacyHold of it.
func (d *decoder) decompress(a area, codec int, payload []byte, magic int8, off int32, path string, leaf int32) (out []byte, voff int32, ok bool) {
	out, voff, _, ok = d.decompressOrStream(a, codec, payload, magic, off, path, leaf, false)
	return out, voff, ok
}

// legacyHold is the most bytes a legacy wrapper's value may decompress to
// in DecodeParts (or MaxDecompressed, when less): its messages are not
// streamed but held in one part. Kafka's brokers take messages of 1 MB by
// default (message.max.bytes).
const legacyHold = 16 << 20

// rawSnappyHold is the most bytes a v2 batch's payload in one raw snappy
// block (what some clients write; snappy-java writes xerial
// chunks, which are streamed) may decompress to in DecodeParts, unless
// Options.MaxRecordBytes allows more: the block is decoded whole.
const rawSnappyHold = 32 << 20

// decompressOrStream is decompress; with stream set, a payload larger than
// decompressHold is not decompressed into Virtual but returned as a
// stream to read it from (voff is where it would start).
func (d *decoder) decompressOrStream(a area, codec int, payload []byte, magic int8, off int32, path string, leaf int32, stream bool) (out []byte, voff int32, st *payloadStream, ok bool) {
	fail := func(msg string) {
		i := leaf
		if i < 0 {
			i = d.raw(a, refPayload, off, len(payload))
		}
		d.problem(a, i, off, path, msg)
	}
	if d.o.MaxDecompressed < 0 {
		if leaf < 0 {
			d.raw(a, refPayload, off, len(payload))
		}
		return nil, 0, nil, false
	}
	limit := min(d.o.MaxDecompressed, d.room, d.o.Budget.Left())
	held := d.parts != nil && !stream && limit > legacyHold
	if held {
		limit = legacyHold
	}
	// One raw snappy block is decoded whole (a copy may reach back to
	// any byte before it): in DecodeParts it is held only within
	// rawSnappyHold, or the record bytes limit when that is more.
	rawHold := int64(rawSnappyHold)
	if d.o.MaxRecordBytes < 0 {
		rawHold = 1<<63 - 1
	} else {
		rawHold = max(rawHold, d.o.MaxRecordBytes)
	}
	raw := d.parts != nil && stream && codec == 2 && !bytes.HasPrefix(payload, xerialMagic) && limit > rawHold
	if raw {
		limit = rawHold
	}
	t := d.b.T
	start := len(t.Virtual)
	var v []byte
	var warn string
	var err error
	if stream {
		v, st, warn, err = openPayload(t.Virtual, codec, payload, magic, limit)
	} else {
		v, warn, err = decompress(t.Virtual, codec, payload, magic, limit)
	}
	if cap(v) > cap(t.Virtual) {
		// The room the attempt made, kept for the next payload: one
		// input of many payloads past what is held does not make it
		// again for each.
		t.Virtual = v[:start]
	}
	if err == errTooLarge {
		t.Virtual = t.Virtual[:start]
		if raw {
			fail(fmt.Sprintf("snappy payload in one raw block (not xerial-framed) decompresses to more than %s, what one block may take to be decoded whole (the record bytes limit, when more): not decompressed", wire.Bytes(limit)))
		} else if held {
			fail(fmt.Sprintf("%s payload of a legacy wrapper decompresses to more than %d bytes, what its messages may take when they are read in parts: not followed", Compression(codec).String(), limit))
		} else if limit < min(d.o.MaxDecompressed, d.room) && limit == d.o.Budget.Limit() {
			fail(fmt.Sprintf("%s payload decompresses to more than %d bytes, the decompression budget of the input: not decompressed", Compression(codec).String(), limit))
		} else if limit < min(d.o.MaxDecompressed, d.room) {
			fail(fmt.Sprintf("%s payload: the decompression budget of the input (%d bytes) has %d bytes left: not decompressed", Compression(codec).String(), d.o.Budget.Limit(), limit))
		} else if limit < d.o.MaxDecompressed {
			fail(fmt.Sprintf("%s payload: the decompressed views of these records reach their limit of %d bytes together: not decompressed", Compression(codec).String(), d.o.MaxDecompressedTotal))
		} else {
			fail(fmt.Sprintf("%s payload decompresses to more than %d bytes, the decompression limit: not followed", Compression(codec).String(), d.o.MaxDecompressed))
		}
		return nil, 0, nil, false
	}
	if err != nil {
		t.Virtual = t.Virtual[:start]
		fail(fmt.Sprintf("%s payload does not decompress: %v", Compression(codec).String(), err))
		return nil, 0, nil, false
	}
	t.Virtual = v
	n := int64(len(v) - start)
	if st != nil {
		n = st.size
	}
	d.room -= n
	d.o.Budget.take(n)
	if warn != "" {
		d.problem(a, -1, off, path, warn)
	}
	return v[start:], int32(start), st, true
}

// records decodes count v2 records from body (at offset base of area a)
// into the open group; path is the path of that group. It returns how
// many records it found (the caller reports fewer than count); bytes left
// after count records are reported here.
func (d *decoder) records(body []byte, base int32, a area, path string, count int32, info batchInfo) int32 {
	pos := 0
	n := int32(0)
	// The node count past which overNodes refuses more records.
	limit := d.size() + len(body) + 1<<30
	if d.o.MaxNodes > 0 {
		limit = min(limit, d.o.MaxNodes)
	}
	if a.maxNodes > 0 {
		limit = min(limit, a.maxNodes)
	}
	fl := a.flags()
	for ; n < count && pos < len(body); n++ {
		if msg := d.overRecords(a, n, int64(len(body)-pos)); msg != "" {
			d.boundRest(a, base+int32(pos), len(body)-pos, recordPath(path, n), msg)
			return count
		}
		d.viewTried++
		if info.plain && d.parts == nil && d.arena.est == 0 && d.size() < limit {
			// A plain record, the usual case, without the general path's
			// checks: the arena is sized, and no part is handed over.
			if nodes, next, extra, headers, ok := plainRecord(d.b.T.Nodes, body, pos, base, fl, d.o.Lazy); ok {
				d.b.T.Nodes = nodes
				d.b.Unbuilt += extra
				d.viewHeaders += int64(headers)
				pos = next
				continue
			}
		}
		if msg, over := d.overNodes(a, len(body)-pos, "records"); over {
			d.boundRest(a, base+int32(pos), len(body)-pos, recordPath(path, n), msg)
			return count
		}
		made := len(d.b.T.Nodes)
		next, ok, bad := d.record(body, pos, base, a, path, n, info, true)
		if d.viewCut {
			// The record's cut took in the records after it.
			d.viewCut = false
			return count
		}
		if d.arena.est != 0 {
			if ok && !bad {
				d.scaleArena(len(d.b.T.Nodes) - made)
			} else {
				// A record that does not decode says nothing of the
				// others, nor that the count is true.
				d.arena = arena{}
			}
		}
		if !ok {
			// The record's length cannot be read or is past the end: the
			// rest is not decoded (reported by record, so the count is
			// not reported as well).
			return count
		}
		pos = next
		if d.stopped() {
			return count
		}
		if d.full() && !a.inWrapper && n+1 < count && pos < len(body) {
			// The next part starts with the next record (its Virtual with
			// the bytes from it on, when they are decompressed).
			if a.virtual {
				// The bytes from the next record on move to the start of
				// Virtual's array, which the part handed over is done
				// with: body is them.
				buf := d.b.T.Virtual
				d.split(a.wireOff, int(base)+pos, n+1)
				d.b.T.Virtual = append(buf[:0], d.b.T.Virtual...)
				body, pos, base = d.b.T.Virtual[:len(body)-pos], 0, 0
			} else {
				d.split(base+int32(pos), len(d.b.T.Virtual), n+1)
			}
		}
		if bad && n+1 < count && pos < len(body) {
			// Kafka's reader stops at a record whose fields do not read,
			// and so does this: a payload of garbage (zero bytes) would
			// otherwise be a node and a problem per byte.
			i := d.raw(a, refUndecoded, base+int32(pos), len(body)-pos)
			d.problem(a, i, base+int32(pos), recordPath(path, n+1), badRest(len(body)-pos))
			return count
		}
	}
	if pos < len(body) {
		i := d.raw(a, refExtra, base+int32(pos), len(body)-pos)
		d.problem(a, i, base+int32(pos), path, surplus(len(body)-pos, count))
	}
	return n
}

// badRest is the problem of the n bytes of records after one whose fields
// do not read.
func badRest(n int) string {
	return fmt.Sprintf("%s of records after a record whose fields do not read: not decoded", wire.Bytes(n))
}

// surplus is the problem of n bytes after the count records of a batch.
func surplus(n int, count int32) string {
	return fmt.Sprintf("%s after the %d records the batch counts (recordsCount does not match)", wire.Bytes(n), count)
}

// record decodes record k starting at body[pos]; it returns where the next
// record starts, and false when its end cannot be known (then the rest of
// body is one Raw leaf); bad is set when its fields do not read. view says
// body holds the rest of the record's view (the records after it).
func (d *decoder) record(body []byte, pos int, base int32, a area, path string, k int32, info batchInfo, view bool) (next int, ok, bad bool) {
	b := d.b
	fl := a.flags()
	if info.plain {
		if nodes, next, extra, headers, ok := plainRecord(b.T.Nodes, body, pos, base, fl, d.o.Lazy); ok {
			b.T.Nodes = nodes
			b.Unbuilt += extra
			d.viewHeaders += int64(headers)
			return next, true, false
		}
	}
	r := wire.Reader{Buf: body, Off: pos}
	length := r.Varint()
	if msg := lengthProblem(&r, length, r.Remaining()); msg != "" {
		i := d.raw(a, refUndecoded, base+int32(pos), len(body)-pos)
		d.problem(a, i, base+int32(pos), recordPath(path, k), msg)
		return len(body), false, true
	}
	end := r.Off + int(length)
	ri := b.Open(tree.Node{Off: base + int32(pos), S: shRecord.With(fl)})
	b.Leaf(tree.Node{Off: base + int32(pos), Size: int32(r.Off - pos), S: shRecordLength.With(fl)})
	rd := recordReader{d: d, a: a, base: base, sub: wire.Reader{Buf: body[:end], Off: r.Off}, path: path, k: k, viewEnd: end}
	if view {
		rd.viewEnd = len(body)
	}
	rd.fields(info, ri)
	if rd.failed {
		// What could not be read is one Raw leaf up to the record's end.
		if rd.sub.Off < end {
			d.raw(a, refUndecoded, base+int32(rd.sub.Off), end-rd.sub.Off)
		}
	} else if rd.sub.Off != end {
		i := d.raw(a, refRecordExtra, base+int32(rd.sub.Off), end-rd.sub.Off)
		d.problem(a, i, base+int32(rd.sub.Off), recordPath(path, k), fmt.Sprintf("the record's length says %s, its fields use %d", wire.Bytes(length), rd.sub.Off-(end-int(length))))
	}
	if rd.viewCut {
		// The cut took in the records after this one: the record, and
		// the view, end where the bytes kept do.
		b.Close(int32(len(d.b.T.Virtual)))
		d.viewCut = true
		return len(body), true, rd.failed
	}
	if rd.cut {
		// A bound stopped the record's headers and kept only the first
		// bytes of the rest, the view's last (boundRest): the record
		// ends where they do.
		b.Close(min(base+int32(end), int32(len(d.b.T.Virtual))))
		return end, true, rd.failed
	}
	b.Close(base + int32(end))
	return end, true, rd.failed
}

// lengthProblem is the problem of a record length read by r with
// remaining bytes after it, "" when it is one: the rest of the records
// is not decoded after it.
func lengthProblem(r *wire.Reader, length int32, remaining int) string {
	var msg string
	switch {
	case r.Failed():
		msg = "record length: " + errText(r.FirstError())
	case length < 0:
		msg = fmt.Sprintf("record length %d is negative", length)
	case int(length) > remaining:
		msg = fmt.Sprintf("record length %d: only %s remain", length, wire.Bytes(remaining))
	default:
		return ""
	}
	return msg + ": the rest of the records is not decoded"
}

// recordPath is the path of record k of the records at path.
func recordPath(path string, k int32) string {
	return index(pathName(path, "Record"), int(k))
}

// recordReader reads the fields of one record.
type recordReader struct {
	d    *decoder
	a    area
	base int32
	sub  wire.Reader
	// path is the path of the records, k the record's index: its own path
	// is only composed for a problem (rpath).
	path   string
	k      int32
	failed bool
	// cut is set when boundRest kept only the first bytes of the
	// record's headers not decoded: the record ends where they do.
	cut bool
	// viewEnd is where the record's view ends in body when body holds
	// the rest of the view (records'; the record's end when not: a
	// stream's window). viewCut is set when a bound that stops the whole
	// view stopped the record's headers and the cut took in the records
	// after it too (boundRest kept only the first bytes of them all):
	// the view's records end there.
	viewEnd int
	viewCut bool
	// ctype is the control record type its key holds, -1 for none.
	ctype int
	// key is the decoded key of an internal topic's record (KeyValue),
	// nil when none or it did not decode.
	key *tree.Tree
}

func (rd *recordReader) rpath() string { return recordPath(rd.path, rd.k) }

// fail reports a field that cannot be read; the caller covers what is
// left of the record with a Raw leaf.
func (rd *recordReader) fail(at int, field, msg string) {
	rd.failed = true
	rd.sub.Off = at
	rd.d.problem(rd.a, -1, rd.base+int32(at), pathName(rd.rpath(), field), msg)
}

// field reads a fixed or varint field into a leaf of shape sh.
func (rd *recordReader) field(sh tree.Shape, w tree.Wire, name string) (int64, bool) {
	if rd.failed {
		return 0, false
	}
	s := rd.sub.Off
	var v int64
	switch w {
	case tree.WireInt8:
		v = int64(rd.sub.Int8())
	case tree.WireVarint:
		v = int64(rd.sub.Varint())
	case tree.WireVarlong:
		v = rd.sub.Varlong()
	}
	if rd.sub.Failed() {
		rd.fail(s, name, errText(rd.sub.FirstError()))
		return 0, false
	}
	rd.d.b.Leaf(tree.Node{Off: rd.base + int32(s), Size: int32(rd.sub.Off - s), S: sh.With(rd.a.flags())})
	return v, true
}

// show says how the contents of a key or value are decoded.
type show uint8

const (
	showBytes         show = iota // not: a leaf
	showControlKey                // a control record's version and type
	showControlValue              // by the key's control type
	showMetadata                  // a framed KRaft metadata record
	showInternalKey               // an internal topic's key (KeyValue)
	showInternalValue             // an internal topic's value, by its key
)

// decodes reports whether contents shown as s get decoded.
func (rd *recordReader) decodes(s show) bool {
	switch s {
	case showControlKey:
		return true
	case showControlValue:
		return rd.d.controlSpec(rd.ctype) != nil || rd.ctype == ControlAbort || rd.ctype == ControlCommit
	case showMetadata:
		return rd.d.o.Decode != nil
	case showInternalKey:
		return true
	case showInternalValue:
		// Without a decoded key, a value's record type is unknown: bytes.
		return rd.d.o.KeyValue.Key == nil || rd.key != nil
	}
	return false
}

// decode appends the decoded contents data (at off) as s says.
func (rd *recordReader) decode(s show, data []byte, off int32) {
	d := rd.d
	switch s {
	case showControlKey:
		rd.ctype = d.controlKey(data, off, rd.a, rd.rpath()+".key")
	case showControlValue:
		if rd.ctype == ControlAbort || rd.ctype == ControlCommit {
			d.endTxnMarker(data, off, rd.a, rd.rpath()+".value")
			return
		}
		d.embed(data, off, rd.a, rd.rpath()+".value", d.controlSpec(rd.ctype))
	case showMetadata:
		d.embed(data, off, rd.a, rd.rpath()+".value", nil)
	case showInternalKey:
		rd.key = d.internalKey(data, off, rd.a, rd.rpath()+".key")
	case showInternalValue:
		d.internalValue(rd.key, data, off, rd.a, rd.rpath()+".value")
	}
}

// varBytes reads a varint-length byte string (a key, value or header);
// any negative length is null, as Kafka reads it, unless nullOK is false.
// Non-empty contents that s decodes become a group of a length leaf and
// the decoded contents.
func (rd *recordReader) varBytes(ref, lenRef int32, idx int32, name string, nullOK bool, how show) ([]byte, bool) {
	if rd.failed {
		return nil, false
	}
	b := rd.d.b
	s := rd.sub.Off
	n := rd.sub.Varint()
	if rd.sub.Failed() {
		rd.fail(s, fieldName(ref, name, idx), errText(rd.sub.FirstError()))
		return nil, false
	}
	nd := tree.Node{Off: rd.base + int32(s), S: shVarBytesByRef[ref].With(rd.a.flags())}
	if n < 0 {
		if !nullOK {
			rd.fail(s, fieldName(ref, name, idx), fmt.Sprintf("length %d: a header key must not be null", n))
			return nil, false
		}
		nd.SetNull(true)
		nd.Size = int32(rd.sub.Off - s)
		b.Leaf(nd)
		return nil, true
	}
	if int(n) > rd.sub.Remaining() {
		rd.fail(s, fieldName(ref, name, idx), fmt.Sprintf("length %d: only %s remain in the record", n, wire.Bytes(rd.sub.Remaining())))
		return nil, false
	}
	lenEnd := rd.sub.Off
	data := rd.sub.Bytes(int(n))
	nd.Size = int32(rd.sub.Off - s)
	if n == 0 || !rd.decodes(how) {
		b.Leaf(nd)
		return data, true
	}
	b.Open(nd)
	b.Leaf(tree.Node{Off: rd.base + int32(s), Size: int32(lenEnd - s), S: shLengthByRef[lenRef].With(rd.a.flags())})
	rd.decode(how, data, rd.base+int32(lenEnd))
	b.Close(rd.base + int32(rd.sub.Off))
	return data, true
}

// fieldName is the path name of a key, value or header field: headers
// are indexed ("headerKey[1]").
func fieldName(ref int32, name string, idx int32) string {
	if ref == refHeaderKey || ref == refHeaderValue {
		return tree.Path{tree.Name(name), tree.Index(int(idx))}.String()
	}
	return name
}

// fields reads a record's fields after its length (DefaultRecord.readFrom).
func (rd *recordReader) fields(info batchInfo, ri int32) {
	d := rd.d
	if _, ok := rd.field(shRecAttrs, tree.WireInt8, "attributes"); !ok {
		return
	}
	if _, ok := rd.field(shTsDelta, tree.WireVarlong, "timestampDelta"); !ok {
		return
	}
	// The record's offset is its batch's base plus it (RecordOffset).
	if _, ok := rd.field(shOffDelta, tree.WireVarint, "offsetDelta"); !ok {
		return
	}
	rd.ctype = -1
	keyShow, valueShow := showBytes, showBytes
	if info.control {
		keyShow, valueShow = showControlKey, showControlValue
	} else if d.o.KeyValue != nil {
		keyShow, valueShow = d.o.KeyValue.shows()
		rd.key = nil
	} else if d.o.Metadata {
		valueShow = showMetadata
	}
	keyAt := rd.base + int32(rd.sub.Off)
	key, ok := rd.varBytes(refKey, refKeyLength, 0, "key", true, keyShow)
	if !ok {
		return
	}
	if info.control && key == nil {
		d.problem(rd.a, -1, rd.base+int32(rd.sub.Off), rd.rpath()+".key", "a control record's key must hold its version and type")
	}
	if keyShow == showInternalKey && len(key) == 0 {
		d.problem(rd.a, -1, keyAt, rd.rpath()+".key", "a record of this internal topic must have a key (its record type)")
	}
	valueAt := rd.base + int32(rd.sub.Off)
	value, ok := rd.varBytes(refValue, refValueLength, 0, "value", true, valueShow)
	if !ok {
		return
	}
	if valueShow == showInternalValue && value != nil && len(value) == 0 {
		d.problem(rd.a, -1, valueAt, rd.rpath()+".value", "an empty value is not a record (a tombstone's value is null)")
	}
	s := rd.sub.Off
	hc := rd.sub.Varint()
	if rd.sub.Failed() {
		rd.fail(s, "headersCount", errText(rd.sub.FirstError()))
		return
	}
	if hc < 0 {
		rd.fail(s, "headersCount", fmt.Sprintf("headersCount %d is negative", hc))
		return
	}
	if int(hc) > rd.sub.Remaining() {
		// Each header takes at least one byte (its key length).
		rd.fail(s, "headersCount", fmt.Sprintf("%d headers cannot fit in the %s that remain in the record", hc, wire.Bytes(rd.sub.Remaining())))
		return
	}
	d.b.Leaf(tree.Node{Off: rd.base + int32(s), Size: int32(rd.sub.Off - s), S: shHeadersCount.With(rd.a.flags())})
	// The headers decoded: maxRecordHeaders, within the view's records
	// bound (overRecords),
	limit, why := int64(maxRecordHeaders), fmt.Sprintf("a record has at most %d headers decoded (a bomb?)", maxRecordHeaders)
	// stopsView is set when the bound is one that stops the view's
	// records after this one too.
	stopsView := false
	if a := rd.a; a.maxRecords > 0 {
		if left := (int64(a.maxRecords)-int64(rd.k))*headersPerRecord - d.viewHeaders; left < limit {
			limit, why, stopsView = max(left, 0), d.recordsBound(a, true), true
		}
	}
	// and within the tree's node bound (Options.MaxNodes), two nodes a
	// header. (A view's node bound, viewArea, is its records bound's at
	// two nodes a header.)
	if m := d.o.MaxNodes; m > 0 {
		if left := int64(m-d.size()) / 2; left < limit {
			limit, why, stopsView = max(left, 0), fmt.Sprintf("the tree holds %d nodes, its limit", m), true
		}
	}
	for h := int32(0); h < hc; h++ {
		if int64(h) >= limit {
			at := rd.sub.Off
			n := rd.sub.Remaining()
			msg := fmt.Sprintf("headers %d to %d of %d (%s) not decoded: %s", h, hc-1, hc, wire.Bytes(n), why)
			// When the records after this one, to the view's end, will
			// not be decoded either, the cut takes them in, so that all
			// but the first bytes of them go: 2000 views of a record of
			// cut headers and one more record held 32 MiB otherwise.
			if after := rd.viewEnd - len(rd.sub.Buf); stopsView && after > 0 && rd.a.virtual &&
				int(rd.base)+rd.viewEnd == len(d.b.T.Virtual) && n+after > boundHeld {
				msg = fmt.Sprintf("headers %d to %d of %d (%s) and the %s of records after the record not decoded: %s", h, hc-1, hc, wire.Bytes(n), wire.Bytes(after), why)
				n += after
				rd.viewCut = true
			}
			rd.cut = d.boundRest(rd.a, rd.base+int32(at), n, rd.rpath()+"."+fieldName(refHeaderKey, "headerKey", h), msg)
			rd.sub.Off = len(rd.sub.Buf)
			d.viewHeaders += int64(h)
			return
		}
		if _, ok := rd.varBytes(refHeaderKey, 0, h, "headerKey", false, showBytes); !ok {
			return
		}
		if _, ok := rd.varBytes(refHeaderValue, 0, h, "headerValue", true, showBytes); !ok {
			return
		}
	}
	d.viewHeaders += int64(hc)
}

// errText is a reader failure without its offset (the problem has it).
func errText(e *wire.Error) string {
	if e == nil {
		return "unreadable"
	}
	if e.Msg != "" {
		return e.Msg
	}
	return fmt.Sprintf("need %s, have %d", wire.Bytes(e.Need), e.Have)
}

// zeroBytes is "N zero bytes", singular for one.
func zeroBytes(n int) string {
	if n == 1 {
		return "1 zero byte"
	}
	return fmt.Sprintf("%d zero bytes", n)
}
