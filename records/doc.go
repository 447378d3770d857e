// Package records decodes Kafka's record formats into span-tree nodes:
// RecordBatch v2 (magic 2) with its records, the legacy message sets of
// magic 0 and 1, compressed payloads (gzip, snappy with or without the
// xerial framing of Kafka's Java client, lz4 frames including magic 0's
// legacy header checksum, zstd), control records (transaction markers and
// KRaft's LeaderChange, SnapshotHeader, SnapshotFooter, KRaftVersion and
// Voters records) and, when asked, the KRaft metadata records that
// __cluster_metadata batches and snapshots hold.
//
// Append adds the nodes for a records field's bytes to a tree being built
// (package codec calls it for every records field); Decode builds a tree
// for a records blob on its own (a log segment, a snapshot file), and
// DecodeParts the same a part at a time, for a listing whose memory stays
// bounded whatever the batches hold (a large payload decompressed as its
// records are read). Batch,
// RawBatch and Legacy go the other way: they encode a v2 batch (from its
// records, or from raw header fields and records bytes) and a legacy
// message, with their CRCs.
//
// What the nodes look like (see package tree for the kinds):
//
//   - one RecordBatch node per log entry: a v2 batch (tree.Tree.Magic 2)
//     with a BatchField leaf per header field, or a legacy message (magic
//     0 or 1) with its offset, size, CRC, magic, attributes, timestamp
//     (magic 1), key and value;
//   - one Record node per record of an uncompressed v2 batch (its offset
//     baseOffset + offsetDelta: RecordOffset), with leaves for length,
//     attributes, timestampDelta, offsetDelta, key, value, headersCount
//     and each header key and value; with Options.Lazy, a plain record is
//     one Record leaf whose fields are read from its bytes when asked
//     (LogBatches, Expand);
//   - a compressed payload is one leaf on the wire, followed by a
//     Decompressed group in the tree's virtual area (tree.Tree.Virtual,
//     tree.FlagVirtual) holding the inner records or messages;
//   - a control record's key is a group of its version and type; a
//     transaction marker's value a group of its version and coordinator
//     epoch; a KRaft control record's value (and, with Options.Metadata, a
//     metadata record's) a group holding an Embedded node: the message
//     decoded with its spec through Options.Decode; with Options.KeyValue,
//     an internal topic's record key and value the same way
//     (KeyValueDecoder);
//   - bytes that do not form a whole entry are Raw leaves: "partial
//     batch" at the end when they could be the start of one, "zero bytes"
//     up to the end, else "skipped" up to the next whole entry (its
//     header one Kafka's reader takes, its CRC matching) or the end. A
//     partial batch's bytes say the length its entry declares
//     (PartialBatch).
//
// The meaning of these nodes' values is this package's to tell: views and
// commands read it with BatchFactsOf (an entry's header fields typed, its
// CRC as stored and as computed: ComputedCRC), OffsetBase and
// RecordOffset (the offsets of records), Attributes (the attributes bits:
// compression codec, timestamp type, transactional, control, delete
// horizon), PartialBatch and LogBatches (batches and records, with each
// record's offset and timestamp), never by parsing the bytes again.
//
// The wire leaves always tile the records bytes exactly, whatever the
// input. Nothing here fails: what is wrong (a CRC that does not match, a
// truncated batch, a batch length past the end, a records count that does
// not match its records, garbage in a compressed payload, a payload that
// decompresses past Options.MaxDecompressed, an unknown compression id or
// magic, a record whose fields do not fill its length) is added to
// tree.Tree.Problems with its offset and path, the nodes concerned are
// flagged, and decoding goes on with the next entry wherever the format
// says where that is. Inside a batch it stops at the first record whose
// fields do not read, as Kafka's reader does: the rest of the records is
// one leaf and one problem (garbage is never a node per byte). Bytes that are not an entry (an unknown
// magic, a length no entry has) say nothing of where the next one starts:
// they are skipped up to the next whole entry whose CRC matches, and
// reported as one problem ("unknown magic -91 (…): 4096 bytes skipped
// from 0x007d to 0x107d").
//
// Kafka's own rules are followed where they are lenient too: any negative
// key or value length is null, an unknown control record type is kept as
// it is, a partial batch at the end of a fetch is not an error (it is
// reported as a notice; with Options.Complete it is one). A partial batch
// is what could be the start of an entry cut by the end: a length from 14
// to MaxBatchLength and, when present, a known magic and attributes; other
// bytes at the end are skipped and reported as errors.
package records
