package records

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/kwire/kwire/tree"
)

// LogBatch summarises one entry of a decoded records tree (a log segment,
// a snapshot file): what a log listing shows of a batch.
type LogBatch struct {
	// Node is the RecordBatch node in the tree.
	Node       int32
	Magic      int8
	BaseOffset int64
	// Count is the batch's recordsCount (v2), 1 for a legacy message.
	Count       int32
	Attributes  int16
	LeaderEpoch int32
	// CRCValid is false when the stored CRC does not match the bytes.
	CRCValid bool
	Control  bool
	Records  []LogRecord
}

// LogRecord is one record of a LogBatch.
type LogRecord struct {
	// Node is the Record node in the tree.
	Node   int32
	Offset int64
	// Key and Value are the contents; KeyNull and ValueNull mark null ones.
	Key, Value         []byte
	KeyNull, ValueNull bool
	// Embedded is the node of the message decoded from the value (a control
	// record's message, a framed metadata record), -1 when none.
	Embedded int32
}

// ControlType is the control record type its key holds (ControlCommit…),
// or -1 when the key is not a control key.
func (r LogRecord) ControlType() int {
	if r.KeyNull || len(r.Key) < 4 {
		return -1
	}
	return int(int16(binary.BigEndian.Uint16(r.Key[2:])))
}

// LogBatches lists the batches and records of a tree that Decode returned,
// in order, looking into decompressed views. Entries that are not batches
// (a partial tail, an invalid entry) are left out: the tree's Problems
// report them.
func LogBatches(t *tree.Tree) []LogBatch {
	var out []LogBatch
	if t == nil || len(t.Nodes) == 0 {
		return nil
	}
	t.Children(0, func(c int32) bool {
		if t.Nodes[c].Kind == tree.RecordBatch {
			out = append(out, logBatch(t, c))
		}
		return true
	})
	return out
}

func logBatch(t *tree.Tree, bi int32) LogBatch {
	n := &t.Nodes[bi]
	lb := LogBatch{Node: bi, Magic: int8(n.Num), CRCValid: n.Flags&tree.FlagBadCRC == 0, Count: 1}
	if lb.Magic != 2 {
		// A legacy message: its offset leaf is the first field.
		t.Children(bi, func(c int32) bool {
			if t.Name(c) == "offset" {
				lb.BaseOffset = t.Nodes[c].Num
			}
			return false
		})
		return lb
	}
	for c := bi + 1; c < n.End; c = t.Nodes[c].End {
		cn := &t.Nodes[c]
		switch cn.Kind {
		case tree.BatchField:
			switch t.Name(c) {
			case "baseOffset":
				lb.BaseOffset = cn.Num
			case "partitionLeaderEpoch":
				lb.LeaderEpoch = int32(cn.Num)
			case "attributes":
				lb.Attributes = int16(cn.Num)
				lb.Control = cn.Num&0x20 != 0
			case "recordsCount":
				lb.Count = int32(cn.Num)
			}
		case tree.Record:
			lb.Records = append(lb.Records, logRecord(t, c))
		case tree.Decompressed:
			t.Children(c, func(r int32) bool {
				if t.Nodes[r].Kind == tree.Record {
					lb.Records = append(lb.Records, logRecord(t, r))
				}
				return true
			})
		}
	}
	return lb
}

func logRecord(t *tree.Tree, ri int32) LogRecord {
	lr := LogRecord{Node: ri, Offset: t.Nodes[ri].Num, Embedded: -1}
	t.Children(ri, func(c int32) bool {
		cn := &t.Nodes[c]
		switch cn.Ref {
		case refKey:
			lr.Key, lr.KeyNull = t.Data(c), cn.Null
			if lr.Key == nil && !cn.Null {
				lr.Key = []byte{}
			}
		case refValue:
			lr.Value, lr.ValueNull = t.Data(c), cn.Null
			if lr.Value == nil && !cn.Null {
				lr.Value = []byte{}
			}
			if e := t.Find(c, tree.Embedded); e >= 0 {
				lr.Embedded = e
			}
		}
		return true
	})
	return lr
}

// Batch is a RecordBatch v2 to build: an uncompressed batch as Kafka's
// writers lay it out (producer id, epoch and sequence -1, CreateTime,
// every record with attributes 0, timestampDelta 0 and no headers).
type Batch struct {
	BaseOffset  int64
	LeaderEpoch int32
	Timestamp   int64
	Control     bool
	// Records are the records' keys and values; nil is null.
	Records []KeyValue
}

// KeyValue is the key and value of one record to build; nil is null.
type KeyValue struct{ Key, Value []byte }

// Bytes encodes the batch, with its CRC-32C.
func (b Batch) Bytes() []byte {
	var body []byte
	for i, r := range b.Records {
		var rec []byte
		rec = append(rec, 0)                              // attributes
		rec = binary.AppendVarint(rec, 0)                 // timestampDelta
		rec = binary.AppendVarint(rec, int64(i))          // offsetDelta
		rec = appendNullableBytes(rec, r.Key)             // key
		rec = appendNullableBytes(rec, r.Value)           // value
		rec = binary.AppendVarint(rec, 0)                 // headers
		body = binary.AppendVarint(body, int64(len(rec))) // length
		body = append(body, rec...)
	}
	out := make([]byte, 0, batchOverhead+len(body))
	out = binary.BigEndian.AppendUint64(out, uint64(b.BaseOffset))
	out = binary.BigEndian.AppendUint32(out, uint32(batchOverhead-logOverhead+len(body)))
	out = binary.BigEndian.AppendUint32(out, uint32(b.LeaderEpoch))
	out = append(out, 2)
	out = binary.BigEndian.AppendUint32(out, 0) // crc, below
	attrs := uint16(0)
	if b.Control {
		attrs |= 0x20
	}
	out = binary.BigEndian.AppendUint16(out, attrs)
	out = binary.BigEndian.AppendUint32(out, uint32(max(len(b.Records)-1, 0)))
	out = binary.BigEndian.AppendUint64(out, uint64(b.Timestamp))
	out = binary.BigEndian.AppendUint64(out, uint64(b.Timestamp))
	out = binary.BigEndian.AppendUint64(out, ^uint64(0)) // producerId -1
	out = binary.BigEndian.AppendUint16(out, 0xffff)     // producerEpoch -1
	out = binary.BigEndian.AppendUint32(out, 0xffffffff) // baseSequence -1
	out = binary.BigEndian.AppendUint32(out, uint32(len(b.Records)))
	out = append(out, body...)
	binary.BigEndian.PutUint32(out[17:], CRC32C(out[21:]))
	return out
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
