package exchange

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// AppendJSON writes what encoding/json writes of a Record, as JSON values:
// every key, nulls, strings with quotes, backslashes, control characters,
// bytes that are not UTF-8, U+2028 and HTML characters.
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	lat, node := int64(123456), int32(-1)
	odd := "a\"b\\c\n\r\t\x00\x1f\x7f<>&\u2028\u2029é\xff\xfe😀"
	for _, r := range []*Record{
		{},
		{Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Conn: 1<<64 - 1, Client: odd, Broker: "b:9092", Node: &node, API: "Produce", APIKey: -1, Version: 32767,
			CorrelationID: -2147483648, ClientID: odd, ClientSoftwareName: odd, ClientSoftwareVersion: "1", Mechanism: "PLAIN", Principal: odd, SASLToken: true,
			Topics: []Topic{{Name: odd, ID: "AQIDBAUGBwgJCgsMDQ4PEA", Partitions: []int32{0, -1, 2147483647}}, {Name: "t", Partitions: []int32{}}, {}},
			Errors: []Error{{Code: -1, Name: "UNKNOWN_SERVER_ERROR", Path: odd}}, RequestBytes: 1 << 40, ResponseBytes: 0, LatencyNs: &lat,
			NoResponse: true, NoResponseExpected: true, DecodedWith: "3.9.2"},
		{Topics: []Topic{}, Errors: []Error{}},
	} {
		got := r.AppendJSON(nil)
		if !json.Valid(got) {
			t.Fatalf("not JSON: %s", got)
		}
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
		}
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	lat := int64(2e6)
	r := &Record{Time: time.Now().UTC(), Conn: 7, Client: "10.0.0.1:5555", Broker: "10.0.0.2:9092", API: "Produce", Version: 9, CorrelationID: 4,
		ClientID: "app-1", ClientSoftwareName: "apache-kafka-java", ClientSoftwareVersion: "4.0.0", Mechanism: "SCRAM-SHA-512", Principal: "alice",
		Topics: []Topic{{Name: "orders", Partitions: []int32{0, 2}}}, Errors: []Error{{Code: 6, Name: "NOT_LEADER_OR_FOLLOWER", Path: "ProduceResponse.Responses[0].PartitionResponses[1].ErrorCode"}},
		RequestBytes: 512, ResponseBytes: 96, LatencyNs: &lat}
	b.Run("AppendJSON", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for range b.N {
			buf = r.AppendJSON(buf[:0])
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			json.Marshal(r)
		}
	})
}
