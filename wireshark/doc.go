// Package wireshark generates a Wireshark dissector, in Lua, for the Kafka
// protocol of a set of specs: every API, version, request and response of
// the specs, from the same spec model that kwire's codec decodes with.
//
// The output is one Lua file in two parts. Generated tables (F: one
// ProtoField per body field, named by FilterName; S: the struct schemas
// of every message version, shared where equal; A: per API and version,
// the request and response schemas and header versions; HQ, HS: the
// headers; CT: the control record types of package records, with the
// schema of the message a KRaft control record's value holds; E: Kafka's
// error names) and a fixed walker (walker.lua) that
// interprets them: framing by the int32 size prefix with Wireshark's TCP
// desegmentation, both header versions, compact and classic lengths,
// nulls, tagged fields known and unknown, record batches v2 (CRC-32C
// checked; gzip decompressed where Wireshark's Lua offers it; control
// records' keys and values decoded as package records decodes them) and legacy
// message sets, responses matched to requests by correlation id per TCP
// stream, resynchronisation when a capture starts mid-stream, and expert
// info on what does not decode. Tables rather than code per field keep
// the file small and quick to load.
//
// Generate's output depends only on the specs (same specs, same bytes)
// and carries the specs' provenance and their Apache-2.0 attribution.
// The protocol is named kafka4 (ProtoName), not kafka, so that Wireshark's
// built-in dissector stays usable beside it.
//
// This package decides what the dissector shows and how its fields are
// named; it does not decode anything itself (package codec does, and
// cmd/kwire's tests compare the two), and installing the file is the
// command's business (kwire wireshark --install).
package wireshark
