package records

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/kwire/kwire/tree"
)

// TimestampType says what a record's timestamp is, as Kafka's
// TimestampType names it: bit 3 of the attributes of a RecordBatch v2 or
// a magic 1 message.
type TimestampType int8

// The timestamp types. NoTimestampType is magic 0's: its messages have no
// timestamp.
const (
	NoTimestampType TimestampType = -1
	CreateTime      TimestampType = 0
	LogAppendTime   TimestampType = 1
)

// String is Kafka's name of the type: "NoTimestampType", "CreateTime",
// "LogAppendTime".
func (t TimestampType) String() string {
	switch t {
	case CreateTime:
		return "CreateTime"
	case LogAppendTime:
		return "LogAppendTime"
	}
	return "NoTimestampType"
}

// timestampTypeOf is the type bit 3 of attributes says.
func timestampTypeOf(attributes int64) TimestampType {
	if attributes&0x08 != 0 {
		return LogAppendTime
	}
	return CreateTime
}

// LogBatch summarises one entry of a decoded records tree (a log segment,
// a snapshot file): what a log listing shows of a batch. An entry is a
// RecordBatch v2 or a legacy message (magic 0 or 1): an uncompressed one
// is one record, a compressed wrapper holds the records of its inner
// message set.
type LogBatch struct {
	// Node is the RecordBatch node in the tree.
	Node  int32
	Magic int8
	// BaseOffset is a v2 batch's baseOffset, a legacy message's offset
	// field (a compressed wrapper's is the offset of its last inner
	// message).
	BaseOffset int64
	// Count is the batch's recordsCount (v2); for a legacy message the
	// number of its records (1, or the inner messages of a wrapper).
	Count int32
	// Attributes are the batch's (int16) or the legacy message's (int8)
	// attributes.
	Attributes  int16
	LeaderEpoch int32
	// TimestampType is the batch's (bit 3 of the attributes),
	// NoTimestampType for magic 0.
	TimestampType TimestampType
	// CRCValid is false when the stored CRC does not match the bytes.
	CRCValid bool
	Control  bool
	Records  []LogRecord
}

// LogRecord is one record of a LogBatch.
type LogRecord struct {
	// Node is the Record node in the tree, or a legacy message's
	// RecordBatch node.
	Node   int32
	Offset int64
	// Timestamp is the record's timestamp in ms since the epoch, as Kafka's
	// readers give it: for v2, baseTimestamp + timestampDelta, or the
	// batch's maxTimestamp when the batch's type is LogAppendTime; for
	// magic 1, the message's timestamp, or its wrapper's when the wrapper's
	// type is LogAppendTime. -1 (Kafka's NO_TIMESTAMP) for magic 0.
	Timestamp int64
	// TimestampType is the batch's, or the wrapper's for an inner legacy
	// message; NoTimestampType for magic 0.
	TimestampType TimestampType
	// Key and Value are the contents; KeyNull and ValueNull mark null ones.
	Key, Value         []byte
	KeyNull, ValueNull bool
	// Headers are a v2 record's headers, in order; nil for none.
	Headers []Header
	// Embedded is the node of the message decoded from the value (a control
	// record's message, a framed metadata record, an internal topic's
	// value), -1 when none.
	Embedded int32
	// KeyEmbedded is the node of the message decoded from the key (an
	// internal topic's key: Options.KeyValue), -1 when none.
	KeyEmbedded int32
	// ctl is the control record type the key holds plus one, 0 for none.
	ctl int
}

// Header is one record header: a string key and a value; ValueNull marks
// a null value.
type Header struct {
	Key       string
	Value     []byte
	ValueNull bool
}

// ControlType is the control record type the record's key holds
// (ControlCommit…): the type field decoded from the key of a record of a
// control batch. It is -1 for a record of a data batch or a legacy
// message, and for a control key too short to hold a type.
func (r LogRecord) ControlType() int { return r.ctl - 1 }

// LogBatches lists the batches and records of a tree that Decode returned,
// in order, looking into decompressed views. Entries that are not batches
// (a partial tail, an invalid entry) are left out: the tree's Problems
// report them.
func LogBatches(t *tree.Tree) []LogBatch {
	var out []LogBatch
	if t == nil || len(t.Nodes) == 0 {
		return nil
	}
	var lz lazyReader
	t.Children(0, func(c int32) bool {
		if t.Nodes[c].Kind() == tree.RecordBatch {
			out = append(out, logBatch(t, c, &lz))
		}
		return true
	})
	return out
}

// LogBatchOf is LogBatches' entry for RecordBatch node bi of t, a tree
// this package built or one holding the span nodes of a records field
// (codec.AppendRecordSpans: a Fetch response's Records); ok is false when
// bi is not a RecordBatch node.
func LogBatchOf(t *tree.Tree, bi int32) (b LogBatch, ok bool) {
	if t == nil || bi < 0 || int(bi) >= len(t.Nodes) || t.Nodes[bi].Kind() != tree.RecordBatch {
		return LogBatch{}, false
	}
	var lz lazyReader
	return logBatch(t, bi, &lz), true
}

// lazyReader holds the tree a lazy record's fields are read into, one
// record at a time (logRecord), for a whole listing.
type lazyReader struct {
	one     tree.Tree
	scratch [2 * nodesPerRecord]tree.Node
}

func logBatch(t *tree.Tree, bi int32, lz *lazyReader) LogBatch {
	n := &t.Nodes[bi]
	lb := LogBatch{Node: bi, Magic: t.Magic(bi), CRCValid: n.Flags()&tree.FlagBadCRC == 0, Count: 1, TimestampType: NoTimestampType}
	if lb.Magic != 2 {
		legacyBatch(t, bi, &lb)
		return lb
	}
	f, _ := BatchFactsOf(t, bi)
	lb.BaseOffset, lb.LeaderEpoch, lb.Count = f.BaseOffset, f.LeaderEpoch, f.Count
	lb.Attributes, lb.Control, lb.TimestampType = int16(f.Attributes), f.Attributes.Control(), f.Attributes.TimestampType()
	lb.Records = make([]LogRecord, 0, recordNodes(t, bi))
	// The header fields come before the records in the tree.
	for c := bi + 1; c < n.End; c = t.Nodes[c].End {
		switch t.Nodes[c].Kind() {
		case tree.Record:
			lb.Records = append(lb.Records, logRecord(t, c, f, lz))
		case tree.Decompressed:
			t.Children(c, func(r int32) bool {
				if t.Nodes[r].Kind() == tree.Record {
					lb.Records = append(lb.Records, logRecord(t, r, f, lz))
				}
				return true
			})
		}
	}
	return lb
}

// recordNodes counts the Record nodes of v2 batch bi (in its decompressed
// view too).
func recordNodes(t *tree.Tree, bi int32) int {
	n := 0
	for c := bi + 1; c < t.Nodes[bi].End; c = t.Nodes[c].End {
		switch t.Nodes[c].Kind() {
		case tree.Record:
			n++
		case tree.Decompressed:
			t.Children(c, func(r int32) bool {
				if t.Nodes[r].Kind() == tree.Record {
					n++
				}
				return true
			})
		}
	}
	return n
}

// logRecord reads record ri of a v2 batch whose facts are f
// (DefaultRecordBatch.uncompressedIterator); a lazy record's fields are
// read from its bytes, into lz.
func logRecord(t *tree.Tree, ri int32, f BatchFacts, lz *lazyReader) LogRecord {
	if IsLazy(t, ri) {
		lz.one = tree.Tree{Bytes: t.Bytes, Virtual: t.Virtual, Nodes: lazyFields(lz.scratch[:0], t, ri)}
		if len(lz.one.Nodes) == 0 {
			return LogRecord{Node: ri, Embedded: -1, KeyEmbedded: -1, TimestampType: f.Attributes.TimestampType(), Timestamp: f.MaxTimestamp}
		}
		lr := recordOf(&lz.one, 0, f)
		lr.Node = ri
		return lr
	}
	return recordOf(t, ri, f)
}

// recordOf is logRecord of a record whose fields are nodes.
func recordOf(t *tree.Tree, ri int32, f BatchFacts) LogRecord {
	tt := f.Attributes.TimestampType()
	lr := LogRecord{Node: ri, Embedded: -1, KeyEmbedded: -1, TimestampType: tt, Timestamp: f.MaxTimestamp}
	t.Children(ri, func(c int32) bool {
		cn := &t.Nodes[c]
		switch cn.Ref() {
		case refTsDelta:
			if tt != LogAppendTime {
				lr.Timestamp = f.BaseTimestamp + t.Num(c)
			}
		case refOffDelta:
			lr.Offset = f.BaseOffset + t.Num(c)
		case refKey:
			lr.Key, lr.KeyNull = contents(t, c)
			t.Children(c, func(k int32) bool {
				if isCtlTypeRef(t.Nodes[k].Ref()) {
					lr.ctl = int(t.Num(k)) + 1
				}
				if t.Nodes[k].Kind() == tree.Embedded {
					lr.KeyEmbedded = k
				}
				return true
			})
		case refValue:
			lr.Value, lr.ValueNull = contents(t, c)
			if e := t.Find(c, tree.Embedded); e >= 0 {
				lr.Embedded = e
			}
		case refHeaderKey:
			k, _ := contents(t, c)
			lr.Headers = append(lr.Headers, Header{Key: string(k)})
		case refHeaderValue:
			if len(lr.Headers) > 0 {
				h := &lr.Headers[len(lr.Headers)-1]
				h.Value, h.ValueNull = contents(t, c)
			}
		}
		return true
	})
	return lr
}

// contents are the bytes of a key, value or header node: empty, not nil,
// when there are none, nil when null.
func contents(t *tree.Tree, i int32) ([]byte, bool) {
	if t.Nodes[i].Null() {
		return nil, true
	}
	if b := t.Data(i); b != nil {
		return b, false
	}
	return []byte{}, false
}

// legacyMessage is what a listing reads of one legacy message node.
type legacyMessage struct {
	offset, attributes, timestamp int64
	magic                         int8
	key, value                    []byte
	keyNull, valueNull            bool
	// inner is the Decompressed group of a compressed wrapper, -1 for
	// none.
	inner int32
}

func readLegacy(t *tree.Tree, mi int32) legacyMessage {
	m := legacyMessage{magic: t.Magic(mi), timestamp: -1, inner: -1}
	t.Children(mi, func(c int32) bool {
		cn := &t.Nodes[c]
		switch {
		case cn.Kind() == tree.Decompressed:
			m.inner = c
		case cn.Ref() == refLegacyKey:
			m.key, m.keyNull = contents(t, c)
		case cn.Ref() == refLegacyValue:
			m.value, m.valueNull = contents(t, c)
		case cn.Kind() != tree.BatchField:
		case t.Name(c) == "offset":
			m.offset = t.Num(c)
		case t.Name(c) == "attributes":
			m.attributes = t.Num(c)
		case cn.Ref() == refLegacyTimestamp:
			m.timestamp = t.Num(c)
		}
		return true
	})
	return m
}

// legacyBatch fills lb from a legacy message: one record, or the inner
// messages of a compressed wrapper with their absolute offsets and, under
// a magic 1 wrapper, its timestamp type (AbstractLegacyRecordBatch).
func legacyBatch(t *tree.Tree, bi int32, lb *LogBatch) {
	m := readLegacy(t, bi)
	lb.BaseOffset, lb.Attributes = m.offset, int16(m.attributes)
	if m.magic == 1 {
		lb.TimestampType = timestampTypeOf(m.attributes)
	}
	record := func(node int32, im legacyMessage, offset int64) LogRecord {
		r := LogRecord{Node: node, Offset: offset, Timestamp: -1, TimestampType: NoTimestampType, Embedded: -1, KeyEmbedded: -1,
			Key: im.key, KeyNull: im.keyNull, Value: im.value, ValueNull: im.valueNull}
		if im.magic == 1 {
			r.Timestamp, r.TimestampType = im.timestamp, lb.TimestampType
			if lb.TimestampType == LogAppendTime {
				r.Timestamp = m.timestamp
			}
		}
		return r
	}
	switch {
	case m.inner >= 0:
		// A magic 1 wrapper's inner offsets are relative: the group's
		// offset base is what makes them absolute (0 for magic 0).
		base := OffsetBase(t, m.inner)
		n := 0
		t.Children(m.inner, func(c int32) bool {
			if t.Nodes[c].Kind() == tree.RecordBatch {
				n++
			}
			return true
		})
		// Sized first: grown by append, a wrapper of 155344 inner
		// messages took 3 arrays of them at once.
		lb.Records = make([]LogRecord, 0, n)
		t.Children(m.inner, func(c int32) bool {
			if t.Nodes[c].Kind() == tree.RecordBatch {
				im := readLegacy(t, c)
				lb.Records = append(lb.Records, record(c, im, base+im.offset))
			}
			return true
		})
	case m.attributes&7 == 0:
		lb.Records = []LogRecord{record(bi, m, m.offset)}
	}
	// A compressed wrapper that did not decompress has no records (the
	// tree's Problems say why).
	lb.Count = int32(len(lb.Records))
}

// Batch is a RecordBatch v2 to build: an uncompressed batch as Kafka's
// writers lay it out (producer id, epoch and sequence -1, CreateTime,
// every record with attributes 0).
type Batch struct {
	BaseOffset  int64
	LeaderEpoch int32
	// Timestamp is the baseTimestamp (ms); maxTimestamp is it plus the
	// largest TimestampDelta of the records.
	Timestamp int64
	Control   bool
	// Records are the records' keys, values and headers.
	Records []KeyValue
}

// KeyValue is one record to build: its key and value (nil is null), its
// headers and its timestampDelta (ms after the batch's Timestamp).
type KeyValue struct {
	Key, Value     []byte
	Headers        []Header
	TimestampDelta int64
}

// Bytes encodes the batch, with its CRC-32C. A header with ValueNull has
// a null value.
func (b Batch) Bytes() []byte {
	var body []byte
	var maxDelta int64
	for i, r := range b.Records {
		maxDelta = max(maxDelta, r.TimestampDelta)
		var rec []byte
		rec = append(rec, 0)                                  // attributes
		rec = binary.AppendVarint(rec, r.TimestampDelta)      // timestampDelta
		rec = binary.AppendVarint(rec, int64(i))              // offsetDelta
		rec = appendNullableBytes(rec, r.Key)                 // key
		rec = appendNullableBytes(rec, r.Value)               // value
		rec = binary.AppendVarint(rec, int64(len(r.Headers))) // headers
		for _, h := range r.Headers {
			rec = appendNullableBytes(rec, []byte(h.Key))
			if h.ValueNull {
				rec = appendNullableBytes(rec, nil)
			} else {
				rec = appendNullableBytes(rec, append([]byte{}, h.Value...))
			}
		}
		body = binary.AppendVarint(body, int64(len(rec))) // length
		body = append(body, rec...)
	}
	attrs := Attributes(0)
	if b.Control {
		attrs |= 0x20
	}
	return RawBatch{
		BaseOffset:      b.BaseOffset,
		LeaderEpoch:     b.LeaderEpoch,
		Attributes:      attrs,
		LastOffsetDelta: int32(max(len(b.Records)-1, 0)),
		BaseTimestamp:   b.Timestamp,
		MaxTimestamp:    b.Timestamp + maxDelta,
		ProducerID:      -1,
		ProducerEpoch:   -1,
		BaseSequence:    -1,
		Count:           int32(len(b.Records)),
		Records:         body,
	}.Bytes()
}

func appendNullableBytes(b, p []byte) []byte {
	if p == nil {
		return binary.AppendVarint(b, -1)
	}
	b = binary.AppendVarint(b, int64(len(p)))
	return append(b, p...)
}

// ParseSnapshotName parses a KRaft snapshot file name,
// "<end offset, 20 digits>-<epoch, 10 digits>.checkpoint".
func ParseSnapshotName(name string) (endOffset int64, epoch int32, err error) {
	base, ok := strings.CutSuffix(name, ".checkpoint")
	off, ep, ok2 := strings.Cut(base, "-")
	if !ok || !ok2 || len(off) != 20 || len(ep) != 10 {
		return 0, 0, fmt.Errorf("%q is not a snapshot name (<offset, 20 digits>-<epoch, 10 digits>.checkpoint)", name)
	}
	o, err1 := strconv.ParseInt(off, 10, 64)
	e, err2 := strconv.ParseInt(ep, 10, 32)
	if err1 != nil || err2 != nil || o < 0 || e < 0 {
		return 0, 0, fmt.Errorf("%q is not a snapshot name: offset or epoch is not a number", name)
	}
	return o, int32(e), nil
}
