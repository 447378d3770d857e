// Package render turns kwire span trees into what people read: the text
// page of `kwire show` and `kwire decode` (a summary block, then per side a
// title line, a hex grid of the bytes and the object tree), the same page
// as one JSON object, and per-node strings (name, type, value, about,
// region, path) for other views such as the HTML site, one node at a time
// (NodeName…) or for every node of a tree through an Index.
//
// Views stream: WriteText and WriteJSON write as they walk the tree,
// through one buffer of at most 64 KiB, composing each row or JSON node
// straight into it. The text tree takes two passes, one to measure the
// columns and one to write the rows; the rows copy the cells the first
// pass composed when the tree has at most 16,384 nodes, and compose them
// again for a larger tree. Given a *bufio.Writer, the views write into its
// buffer instead of one of their own and leave flushing it to the caller,
// so that many small trees (kwire pcap's) cost no buffer and no flush
// each. Rendering allocates nothing per node (the cells' cache is reused
// from tree to tree), and nothing that grows with the output, which runs
// to hundreds of times the size of the message: a 1.8 MB message of 1.5
// million nodes makes 140 MB of text or 630 MB of JSON.
//
// Every view renders a tree.Tree built by package codec; nothing here reads
// the wire format again. A node's bytes are only ever looked at through the
// tree (its Off/Size range and the values the tree reads from it:
// Tree.Num, Tree.Data), so what the page shows is exactly what the codec
// attributed. Nodes carry only a shape whose Ref has a static name and
// about text; texts that depend on values ("Record[2]", "RecordBatch v2,
// 61 bytes, CRC valid", "gzip, LogAppendTime") are composed here from the
// node's value, its index among its siblings (counted as the views walk),
// its flags, size and contents. What
// a record batch's values mean (the attributes bits, the CRC as stored and
// as computed, the length a partial batch declares) is package records'
// to say: render asks it (records.BatchFactsOf, records.Attributes,
// records.PartialBatch) rather than decoding bits or bytes itself.
//
// The object tree's layout (columns name, type, value, range and about,
// each padded to its widest cell plus two spaces; "+-- " and "|   "
// drawing; "= 2 (compact, n+1)" and `"" (int16 len=0)` notes) follows
// kwire's seed pages for EndQuorumEpoch v1 and Vote v2 (testdata/seed00*,
// whose frames docs/wire-cases.md lists), except that a body string or
// bytes field nullable at the message's version is typed "nullable_string"
// or "nullable_bytes", as the header's client_id is there. Field names, types
// and about texts come from Kafka's message specs
// (clients/src/main/resources/common/message/*.json); the request and
// response header rows use kwire's own snake_case names and descriptions.
//
// Options.Width fits the object tree to a terminal: the about column is
// wrapped or dropped first; then the notes after values and the type cells
// are cut with "…" and the type column dropped; then the name column's
// padding is shortened (a row with a longer name is followed by its value
// when the value still ends in the value column, else puts its other cells
// on the line below, under their columns); then values are cut and last the
// value column dropped.
// The name, the range ("[0x000e, 16B]"), numbers, uuids and booleans are
// always whole. Width 0 (output that is not a terminal) writes every column
// whole.
//
// Decode builds the pages of `kwire decode` (and of the atlas's decode
// page) from bytes and a Claim of what they are: it picks the codec call,
// checks the bytes against the claim, splits an input of several frames,
// reads an ApiVersions response in the v0 layout as Kafka's client does,
// and says with typed errors (ClaimError, MismatchError, NotRequestError,
// StreamError) what a command turns into hints about its flags.
//
// Not here: choosing what to encode (instance, codec), command line flags
// (cmd/kwire), and terminal detection (callers set Options.Color).
package render
