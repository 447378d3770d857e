// Package logseg lists what Kafka keeps on disk: log segments (*.log) and
// KRaft snapshots (*.checkpoint), named one by one or found by walking
// directories (a broker's log.dirs, one partition directory). It is what
// `kwire log` prints, as a library:
//
//   - Expand turns a PATH into its files, in offset order: a directory's
//     segments and snapshots by name (Kafka's zero-padded names make name
//     order base-offset order), then its subdirectories, partition
//     directories by topic and partition number ("t-2" before "t-10").
//   - Read decodes one file a window of whole batches at a time (batches
//     are independent, so memory does not grow with the file) and gives
//     each window's tree and batches; its Summary holds the problems with
//     the byte offsets and batch indexes of a decode of the whole file.
//     ReadFrom does the same for a stream (standard input), ReadWhole
//     decodes a file whole into one tree. Bytes that are not a batch are
//     skipped to the next batch (package records decides where that is);
//     a snapshot cut short is an error, zero bytes at the end of a segment
//     (preallocated) a notice.
//   - Window.Describe decodes what a record's value holds (a control
//     record's message, a KRaft metadata record) and Record's AppendText
//     and AppendJSON build the listing's line of a record: offset,
//     timestamp with its type, key and value (or the decoded record) and
//     headers. BatchText is a batch's line. Lister prints the listing of
//     the windows of Read, kept to an OffsetRange (ParseOffsetRange) or to
//     a record type.
//   - The files of Kafka's internal topics (a partition directory named
//     __consumer_offsets-N, __transaction_state-N, __share_group_state-N
//     or __remote_log_metadata-N: TopicOf; or Options.Decoder) have every
//     data record's key and value decoded by record type
//     (KeyValueDecoder, as Embedded nodes of the tree); Describe gives
//     them as the key's and value's types, versions and converter JSON,
//     a null value as a tombstone, and a classic consumer group's member
//     subscriptions and assignments decoded ({"version":N,"data":{…}}).
//     FromJSON reads that JSON back (for `kwire encode`), DumpLogJSON
//     gives it as kafka-dump-log prints it.
//   - Summary.Findings and Source.Findings say what a file or a PATH held
//     when it is not a listing: an empty file, bytes that are not a record
//     batch, an index file (NotLog), a directory with no record batch.
//     Problem.AppendJSON is a problem's JSON line.
//
// The record batches themselves are decoded by package records; this
// package reads files and builds lines.
package logseg
