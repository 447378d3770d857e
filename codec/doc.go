// Package codec encodes and decodes Kafka protocol messages of any spec at
// any valid version, byte-exactly as Kafka's generated Java serializers do,
// and attributes every byte to a node of a span tree (package tree).
//
// Rules follow Kafka's MessageDataGenerator and protocol classes: classic
// (int16/int32 length) versus flexible (compact uvarint length+1) strings,
// bytes, arrays and records; nullable values; tagged-field sections on every
// flexible struct (known tags written in ascending order only when they
// differ from their default, unknown tags kept on decode and written back on
// encode); nullable structs with an int8 presence marker (uvarint when
// tagged); request header v0/v1/v2 and response header v0/v1 selection by
// package frame's rule (ControlledShutdown v0 uses request header v0;
// ApiVersionsResponse always uses response header v0, KIP-511); int32 size
// framing; the KRaft
// metadata record value frame (uvarint frame version 1, api key, version),
// also of __remote_log_metadata's records; and the int16 prefix of a
// coordinator record key (its record type) or value (its version), as
// Kafka's CoordinatorRecordSerde writes them (EncodeRecord, DecodeRecord,
// DecodeTopicKey, DecodeTopicValue).
//
// Each (struct, version) is compiled once into a plan the codec walks; no
// reflection is used. Decoding never allocates more than the input can
// hold: lengths and counts are checked against the bytes that remain before
// anything is built, and errors name the byte offset and field path
// (*wire.Error). Records fields are decoded by package records (batches,
// records, legacy messages, decompressed views in the tree's Virtual area,
// control records with the codec's specs; see Codec.Records): what is
// wrong in them goes to the tree's Problems and never fails the message.
//
// ToJSON and FromJSON speak JSON in the format of Kafka's generated
// <Name>DataJsonConverter classes (JsonConverterGenerator): lowerCaseFirst
// keys, int64 as plain numbers, uuids in base64url, bytes in base64, tagged
// fields only when they differ from their default; kwire adds base64 records
// and "_unknownTaggedFields" where Kafka's converter writes nothing.
//
// A decoded tree's values are read by their paths with the value API of
// package tree (Tree.Get, Value.Int…):
//
//	t, err := codec.New(s).DecodeRequest(frame)
//	v, err := t.Get("VoteRequest.Topics[0].Partitions[0].LastOffset")
//	n := v.Int() // 120
//
// and a value to encode is built in Go with a Builder (or read from JSON
// with FromJSON); see the Examples.
package codec
