// Package coordstate replays the records of Kafka's internal topics
// (__consumer_offsets, __transaction_state, __share_group_state) and
// keeps the state they leave, as the coordinators load it: committed
// offsets by group, topic and partition; groups of every type (classic,
// consumer, share, streams) with their state, generation or epoch,
// members and assignments; transactions; share-group state per
// partition. It is what `kwire log --state` prints.
//
// Records come decoded: State.AddBatches reads the batches of a tree that
// package records decoded with an internal topic's KeyValueDecoder (as
// package logseg decodes the files of those topics), through the tree's
// values (tree.Value), by record type (the key's message name). A later
// record of a key replaces the earlier one and a tombstone (a null
// value) removes it; offsets committed in a transaction count once their
// producer's COMMIT marker follows in the same partition's log and never
// after an ABORT. A batch whose CRC does not match is not replayed. What
// cannot be applied is a note (State.Notes), never an error: the
// records' own problems are the tree's.
//
// AppendText prints the state as aligned tables, AppendJSON as JSON
// lines.
package coordstate
