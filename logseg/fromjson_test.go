package logseg_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
)

// reencode encodes data, the JSON of message name at version v as a
// record's line shows it, with FromJSON and EncodeRecord.
func reencode(cd *codec.Codec, name string, v int16, data []byte) ([]byte, error) {
	m := cd.Set.Message(name)
	if m == nil {
		return nil, fmt.Errorf("no %s", name)
	}
	vt, dropped, err := logseg.FromJSON(cd, data, m, v)
	if err != nil {
		return nil, err
	}
	if len(dropped) > 0 {
		return nil, fmt.Errorf("dropped %v", dropped)
	}
	et, err := cd.EncodeRecord(m, v, vt)
	if err != nil {
		return nil, err
	}
	return et.Bytes, nil
}

// roundTrip requires every record of the file at path to have a key and a
// value (unless null) whose JSON, as Describe gives it, encodes back to the
// record's bytes, and returns how many keys and values it checked and how
// many values held consumer protocol messages shown decoded.
func roundTrip(t *testing.T, cd *codec.Codec, path string) (keys, values, nested int) {
	t.Helper()
	_, err := logseg.Read(path, logseg.Options{Codec: cd}, func(w *logseg.Window) error {
		for i := range w.Batches {
			b := &w.Batches[i]
			for _, r := range b.Records {
				d := w.Describe(b, r)
				if d.Control {
					continue
				}
				if d.KeyErr != nil || d.Err != nil || d.KeyData == nil {
					t.Errorf("offset %d: key %v, value %v", d.Offset, d.KeyErr, d.Err)
					continue
				}
				got, err := reencode(cd, d.KeyType, d.KeyVersion, d.KeyData)
				if err != nil || !bytes.Equal(got, r.Key) {
					t.Errorf("offset %d key %s: %x, %v; the record's %x", d.Offset, d.KeyData, got, err, r.Key)
				}
				keys++
				if d.Tombstone {
					continue
				}
				got, err = reencode(cd, d.Type, d.Version, d.Data)
				if err != nil || !bytes.Equal(got, r.Value) {
					t.Errorf("offset %d value %s: %x, %v; the record's %x", d.Offset, d.Data, got, err, r.Value)
				}
				values++
				if bytes.Contains(d.Data, []byte(`"subscription":{"version":`)) {
					nested++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys, values, nested
}

// The keys and values of the records of Kafka 4.4.0's internal topics
// (docs/examples), as `kwire log --format json` shows them, encode back to
// the records' bytes.
func TestFromJSONExamples(t *testing.T) {
	cd := testCodec(t)
	for _, c := range []struct {
		dir                  string
		keys, values, nested int
	}{
		{"__consumer_offsets-21", 5, 5, 1},
		{"__consumer_offsets-26", 17, 14, 1},
		{"__transaction_state-22", 7, 7, 0},
		{"__share_group_state-47", 2, 2, 0},
	} {
		keys, values, nested := roundTrip(t, cd, filepath.Join("..", "docs", "examples", c.dir, "00000000000000000000.log"))
		if keys != c.keys || values != c.values || nested != c.nested {
			t.Errorf("%s: %d keys, %d values, %d with a decoded subscription; want %d, %d, %d", c.dir, keys, values, nested, c.keys, c.values, c.nested)
		}
	}
}

// Built GroupMetadataValues: members whose subscriptions and assignments
// are at every version (owned partitions, generation, rack, user data),
// empty (a member before its assignment), or bytes that do not decode;
// TransactionLogValues of every state and of an id without a name.
func TestFromJSONBuilt(t *testing.T) {
	cd := testCodec(t)
	b64 := base64.StdEncoding.EncodeToString
	member := func(id, sub, asg string) string {
		return `{"memberId":"` + id + `","groupInstanceId":"i-` + id + `","clientId":"c","clientHost":"/10.0.0.1","rebalanceTimeout":300000,"sessionTimeout":45000,"subscription":"` + sub + `","assignment":"` + asg + `"}`
	}
	var members []string
	for v := int16(0); v <= 3; v++ {
		sub := consumerBytes(t, cd, "ConsumerProtocolSubscription", v, []string{
			`{"topics":["a","b"],"userData":"AQID"}`,
			`{"topics":["a","b"],"userData":"AQID","ownedPartitions":[{"topic":"a","partitions":[0,2]}]}`,
			`{"topics":["a","b"],"userData":null,"ownedPartitions":[{"topic":"a","partitions":[0,2]}],"generationId":7}`,
			`{"topics":["a","b"],"userData":"","ownedPartitions":[],"generationId":-1,"rackId":"r1"}`,
		}[v])
		asg := consumerBytes(t, cd, "ConsumerProtocolAssignment", v, `{"assignedPartitions":[{"topic":"a","partitions":[0,1]},{"topic":"b","partitions":[]}],"userData":null}`)
		members = append(members, member(fmt.Sprint("m", v), b64(sub), b64(asg)))
	}
	members = append(members,
		member("empty", "", ""),
		member("garbage", b64([]byte{0, 1, 0, 0, 0, 9, 0}), b64([]byte{0, 99})))
	key := coordRecord(t, cd, "GroupMetadataKey", 0, `{"group":"g"}`)
	var kvs []records.KeyValue
	for _, pt := range []string{"consumer", "connect"} {
		for v := int16(0); v <= 4; v++ {
			js := `{"protocolType":"` + pt + `","generation":3,"protocol":"range","leader":"m0",` +
				map[bool]string{true: `"currentStateTimestamp":1700000000000,`}[v >= 2] + `"members":[`
			for i, m := range members {
				if i > 0 {
					js += ","
				}
				if v == 0 {
					// No groupInstanceId before v3, no rebalanceTimeout before v1.
					m = m[:bytes.Index([]byte(m), []byte(`,"groupInstanceId"`))] + m[bytes.Index([]byte(m), []byte(`,"clientId"`)):]
					m = m[:bytes.Index([]byte(m), []byte(`"rebalanceTimeout":300000,`))] + m[bytes.Index([]byte(m), []byte(`"sessionTimeout"`)):]
				} else if v < 3 {
					m = m[:bytes.Index([]byte(m), []byte(`,"groupInstanceId"`))] + m[bytes.Index([]byte(m), []byte(`,"clientId"`)):]
				}
				js += m
			}
			kvs = append(kvs, records.KeyValue{Key: key, Value: coordRecord(t, cd, "GroupMetadataValue", v, js+`]}`)})
		}
	}
	tkey := coordRecord(t, cd, "TransactionLogKey", 0, `{"transactionalId":"x"}`)
	for st := 0; st <= 8; st++ {
		kvs = append(kvs, records.KeyValue{Key: tkey, Value: coordRecord(t, cd, "TransactionLogValue", 1,
			fmt.Sprintf(`{"producerId":5,"producerEpoch":1,"transactionTimeoutMs":60000,"transactionStatus":%d,"transactionPartitions":[{"topic":"t","partitionIds":[0,3]}],"transactionLastUpdateTimestampMs":1,"transactionStartTimestampMs":2}`, st))})
	}
	f := writeSegment(t, "__consumer_offsets-0", records.Batch{Timestamp: 1700000000000, Records: kvs[:10]}.Bytes())
	keys, values, nested := roundTrip(t, cd, f)
	// The consumer groups' values at v0-v4 show their four good members'
	// protocol bytes decoded; the connect groups' stay bytes.
	if keys != 10 || values != 10 || nested != 5 {
		t.Errorf("__consumer_offsets: %d keys, %d values, %d with a decoded subscription; want 10, 10, 5", keys, values, nested)
	}
	f = writeSegment(t, "__transaction_state-0", records.Batch{Timestamp: 1700000000000, Records: kvs[10:]}.Bytes())
	if keys, values, _ := roundTrip(t, cd, f); keys != 9 || values != 9 {
		t.Errorf("__transaction_state: %d keys, %d values; want 9, 9", keys, values)
	}
}

// JSON in Describe's forms that does not fit says where, with the path
// and byte offset in the JSON given.
func TestFromJSONErrors(t *testing.T) {
	cd := testCodec(t)
	head := `{"protocolType":"consumer","generation":1,"protocol":"range","leader":"m","currentStateTimestamp":1,"members":[{"memberId":"m","groupInstanceId":null,"clientId":"c","clientHost":"h","rebalanceTimeout":1,"sessionTimeout":1,"subscription":`
	tail := `,"assignment":""}]}`
	for _, c := range []struct{ name, js, want string }{
		{"GroupMetadataValue", head + `{"version":1,"data":{"topics":["t"],"userData":null,"ownedPartitions":7}}` + tail,
			`$.members[0].subscription.data.ownedPartitions: expected an array, got the number 7 at 307`},
		{"GroupMetadataValue", head + `{"version":9,"data":{"topics":[]}}` + tail,
			`$.members[0].subscription.version: ConsumerProtocolSubscription has no version 9 (valid versions 0-3) at 248`},
		{"GroupMetadataValue", head + `{"version":0,"data":{"topics":[],"userData":null},"extra":1}` + tail,
			`$.members[0].subscription.extra: unknown key "extra": $.members[0].subscription is its bytes as base64, or {"version":N,"data":{…}} (ConsumerProtocolSubscription at version N) at 295`},
		{"GroupMetadataValue", head + `{"version":0,"version":1,"data":{"topics":[]}}` + tail,
			`$.members[0].subscription.version: duplicate key "version" at 260`},
		{"GroupMetadataValue", head + `{"data":{"topics":[]}}` + tail,
			`$.members[0].subscription: expected its bytes as base64, or {"version":N,"data":{…}} (ConsumerProtocolSubscription at version N) at 237`},
		// An error after a rewritten value is at its offset in the JSON given.
		{"GroupMetadataValue", head + `{"version":0,"data":{"topics":[],"userData":null}}` + `,"assignment":7}]}`,
			`$.members[0].assignment: expected bytes as a base64 string, got the number 7 at 301`},
		{"TransactionLogValue", `{"producerId":1,"producerEpoch":0,"transactionTimeoutMs":1,"transactionStatus":"Done","transactionPartitions":null,"transactionLastUpdateTimestampMs":1,"transactionStartTimestampMs":1}`,
			`$.transactionStatus: expected an integer (int8) or a transaction state's name (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead, PrepareEpochFence), got "Done" at 79`},
	} {
		_, err := reencode(cd, c.name, 1, []byte(c.js))
		var je *codec.JSONError
		if !errors.As(err, &je) {
			t.Errorf("%s: %v, want a JSON error", c.js, err)
			continue
		}
		if got := fmt.Sprintf("%v at %d", je, je.Offset); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.js, got, c.want)
		}
	}
}

// DumpLogJSON leaves a member's subscription and assignment as
// kafka-dump-log shows them: without their versions.
func TestDumpLogJSON(t *testing.T) {
	in := `{"protocolType":"consumer","members":[{"memberId":"a","subscription":{"version":3,"data":{"topics":["t"],"rackId":null}},"assignment":"AAE="},{"memberId":"b","subscription":"","assignment":{"version":0,"data":{"assignedPartitions":[],"userData":null}}}]}`
	want := `{"protocolType":"consumer","members":[{"memberId":"a","subscription":{"topics":["t"],"rackId":null},"assignment":"AAE="},{"memberId":"b","subscription":"","assignment":{"assignedPartitions":[],"userData":null}}]}`
	if got := string(logseg.DumpLogJSON("GroupMetadataValue", []byte(in))); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := string(logseg.DumpLogJSON("OffsetCommitValue", []byte(in))); got != in {
		t.Errorf("OffsetCommitValue: %s", got)
	}
}
