package codec

import (
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// CRC32C is the CRC-32C (Castagnoli) checksum that RecordBatch v2 stores
// over its bytes from attributes to the end (DefaultRecordBatch).
func CRC32C(b []byte) uint32 { return records.CRC32C(b) }

// AppendRecordSpans appends span nodes for the bytes of a records field
// (data, located at offset base of the tree's bytes) with package records'
// default options: RecordBatch and Record nodes, legacy messages,
// decompressed views of compressed payloads (in the tree's Virtual area),
// control record keys and transaction markers. KRaft control record values
// stay bytes: a Codec decodes them with its specs (see RecordsOptions).
// Problems (a CRC that does not match, a partial or invalid batch…) are
// added to the tree's Problems; the wire leaves always tile data exactly.
func AppendRecordSpans(b *tree.Builder, data []byte, base int32) {
	records.Append(b, data, base, records.Options{})
}

// RecordsOptions are the options c decodes (and encodes) records fields
// with: c.Records, with c's specs and DecodeRecord filled in when unset,
// so that KRaft control records (LeaderChange, SnapshotHeader…) are
// decoded with their specs, and metadata records too when
// c.Records.Metadata is set.
func (c *Codec) RecordsOptions() records.Options {
	o := c.Records
	if o.Set == nil {
		o.Set = c.Set
	}
	if o.Decode == nil {
		o.Decode = func(data []byte, m *spec.Message, version int16) (*tree.Tree, error) {
			return c.DecodeRecord(data, m, version)
		}
	}
	return o
}
