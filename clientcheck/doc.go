// Package clientcheck judges the requests a Kafka client sends on one
// connection, by the rules a broker and Kafka's own writers follow, and
// says what breaks them as Findings: each with its rule, the byte offset in
// the request's frame and the field path there.
//
// The rules (Rule):
//
//   - version-not-announced: a request version outside the range the
//     broker announced for its api key in an ApiVersions answer seen
//     earlier on the same connection (none is judged before one);
//   - before-sasl: a request other than ApiVersions, SaslHandshake and
//     SaslAuthenticate after a SaslHandshake and before authentication
//     completed (the rounds the mechanism takes: one for PLAIN and
//     OAUTHBEARER, two for SCRAM, one for any other; a SaslAuthenticate
//     answered without error, or a raw token after a SaslHandshake v0, is a
//     round);
//   - header-version: a request written with another request header
//     version than Kafka's rule gives its api version (v2 for flexible
//     versions, else v1, v0 for ControlledShutdown v0; frame's
//     RequestHeaderVersion): it does not decode by the rule and decodes
//     whole with the other header (codec.DecodeRequestHeaderAs);
//   - overlong-varint: a varint, uvarint or varlong — a value, a compact
//     length, a tag, a tag's size, a record's length or delta — written in
//     more bytes than its value needs (tree.Tree.Overlong);
//   - tag-order: tagged fields of one section out of ascending order or
//     repeated (Kafka's reader accepts both; its writer never does this);
//   - correlation-reused: a correlation id of a request still awaiting its
//     response (the caller, which matches responses, says so:
//     Request.InFlight);
//   - record-batch: a record batch whose CRC, recordsCount,
//     lastOffsetDelta, offset deltas or sequences do not add up: what
//     package records found in the batch (tree.Tree.Problems), a
//     lastOffsetDelta other than recordsCount-1 or a record whose
//     offsetDelta is not its index (Kafka's "inconsistent batch offset
//     range and record count"), an idempotent batch (producerId >= 0)
//     with a negative baseSequence or producerEpoch, and a batch whose
//     baseSequence is not the one that follows the last batch of the same
//     producer id, epoch and partition on the connection (a resend of an
//     earlier sequence is not a finding: clients retry);
//   - trailing-bytes: bytes left after the request body.
//
// What each byte means is decided by its owner and read from the span
// tree: codec decodes the request (and, asked, with another header
// version), tree reads varints and tag numbers, records reads batches
// (records.BatchFactsOf, records.OffsetDelta) and reports what is wrong in
// them; this package only judges. It does not decode frames or match
// responses: package flow feeds it each request it decoded and each
// response (a Conn per connection), and carries the findings on the
// exchanges it reports; kwire proxy --check and kwire pcap --check print
// them. Bytes of the connection that were not seen (Conn.Lost) end the
// judging of what they may have held: the SASL rounds and the sequences.
package clientcheck
