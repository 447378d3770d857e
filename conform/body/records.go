package body

import (
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/wire"
)

// produceKey is Produce's api key; Produce v0–2 carries magic 0/1 message
// sets, v3+ RecordBatch v2 (KIP-98).
const produceKey = 0

// recordValue is the value of the one record a body produces.
const recordValue = "kwire conform"

// Records returns the records a body of api key key at version v carries
// ("$records" in a template): for Produce v0–2 one legacy message (magic 1,
// timestamp -1, null key, value "kwire conform", offset 0, its CRC-32), else
// one uncompressed RecordBatch v2 holding one record with that key and
// value: base offset 0, partition leader epoch -1, timestamps -1 (none),
// producer id, epoch and base sequence -1 (not idempotent), lastOffsetDelta
// 0, batchLength and CRC-32C computed (package records).
func Records(key, v int16) []byte {
	if key == produceKey && v < 3 {
		return records.Legacy{Magic: 1, Timestamp: -1, Value: []byte(recordValue)}.Bytes()
	}
	var rec []byte
	rec = append(rec, 0)             // attributes
	rec = wire.AppendVarlong(rec, 0) // timestampDelta
	rec = wire.AppendVarint(rec, 0)  // offsetDelta
	rec = wire.AppendVarint(rec, -1) // key: null
	rec = wire.AppendVarint(rec, int32(len(recordValue)))
	rec = append(rec, recordValue...)
	rec = wire.AppendVarint(rec, 0) // headers
	body := wire.AppendVarint(nil, int32(len(rec)))
	body = append(body, rec...)
	return records.RawBatch{
		LeaderEpoch:   -1,
		BaseTimestamp: -1, MaxTimestamp: -1,
		ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		Count:   1,
		Records: body,
	}.Bytes()
}

// Subscription returns a consumer's subscription to topic as the classic
// consumer protocol writes it in JoinGroup's protocol metadata
// ("$subscription"; ConsumerProtocolSubscription v0 of Kafka's clients):
// version int16 0, topics (int32 count, then int16-length strings), user
// data null (int32 -1).
func Subscription(topic string) []byte {
	b := wire.AppendInt16(nil, 0)
	b = wire.AppendInt32(b, 1)
	b = wire.AppendInt16(b, int16(len(topic)))
	b = append(b, topic...)
	return wire.AppendInt32(b, -1)
}
