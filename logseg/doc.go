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
//     ReadWhole decodes a file whole into one tree.
//   - Window.Describe decodes what a record's value holds (a control
//     record's message, a KRaft metadata record) and Record's AppendText
//     and AppendJSON build the listing's line of a record: offset,
//     timestamp with its type, key and value (or the decoded record) and
//     headers. BatchText is a batch's line.
//   - Summary.Findings and Source.Findings say what a file or a PATH held
//     when it is not a listing: an empty file, bytes that are not a record
//     batch, a directory with no record batch.
//
// The record batches themselves are decoded by package records; this
// package reads files and builds lines.
package logseg
