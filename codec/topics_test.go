package codec_test

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// DecodeOptions.TopicRecords is asked once per records field with the
// name of the topic whose element holds it (FetchResponse v12), or with
// its id (v13 on); the options it gives decode that topic's records
// only: here a TopicRecord's value decoded as a KRaft metadata record
// (an Embedded node) in topic "meta", bytes in topic "plain".
func TestDecodeOptionsTopicRecords(t *testing.T) {
	s, err := kafka440()
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	topicRecord := s.Message("TopicRecord")
	val, err := codec.FromJSON([]byte(`{"name":"x","topicId":"AAAAAAAAAAAAAAAAAAAAAQ"}`), topicRecord, 0)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := c.EncodeRecord(topicRecord, 0, val)
	if err != nil {
		t.Fatal(err)
	}
	batch := base64.StdEncoding.EncodeToString(records.Batch{Timestamp: 1700000000000, Records: []records.KeyValue{{Value: enc.Bytes}}}.Bytes())
	part := `"partitions":[{"partitionIndex":0,"errorCode":0,"highWatermark":1,"lastStableOffset":1,"logStartOffset":0,"abortedTransactions":null,"preferredReadReplica":-1,"records":"` + batch + `"}]`
	_, fetch, _ := s.Lookup("Fetch")
	idMeta := [16]byte{15: 7}
	idPlain := [16]byte{15: 8}
	b64 := func(id [16]byte) string { return base64.RawURLEncoding.EncodeToString(id[:]) }
	for _, tc := range []struct {
		ver   int16
		body  string
		calls []string
	}{
		{12, `{"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{"topic":"plain",` + part + `},{"topic":"meta",` + part + `}]}`,
			[]string{`"plain" 00000000000000000000000000000000`, `"meta" 00000000000000000000000000000000`}},
		{16, `{"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{"topicId":"` + b64(idPlain) + `",` + part + `},{"topicId":"` + b64(idMeta) + `",` + part + `}]}`,
			[]string{`"" 00000000000000000000000000000008`, `"" 00000000000000000000000000000007`}},
	} {
		body, err := codec.FromJSON([]byte(tc.body), fetch, tc.ver)
		if err != nil {
			t.Fatal(err)
		}
		frame, err := c.Encode(fetch, tc.ver, codec.ResponseHeaderValue(s.ResponseHeader(), 1), body)
		if err != nil {
			t.Fatal(err)
		}
		var calls []string
		o := codec.DecodeOptions{TopicRecords: func(name string, id [16]byte) (records.Options, bool) {
			calls = append(calls, fmt.Sprintf("%q %x", name, id))
			if name != "meta" && id != idMeta {
				return records.Options{}, false
			}
			ro := c.RecordsOptions()
			ro.Metadata = true
			return ro, true
		}}
		var tr tree.Tree
		if err := c.DecodeResponseWith(&tr, frame.Bytes, fetch, tc.ver, o); err != nil {
			t.Fatalf("v%d: %v", tc.ver, err)
		}
		if !reflect.DeepEqual(calls, tc.calls) {
			t.Errorf("v%d: TopicRecords calls %q, want %q", tc.ver, calls, tc.calls)
		}
		// One Embedded node, in the second topic's records.
		var embedded []string
		for i := range tr.Nodes {
			if tr.Nodes[i].Kind() == tree.Embedded {
				embedded = append(embedded, tr.PathOf(int32(i)).String())
			}
		}
		if want := []string{"FetchResponse.Responses[1].Partitions[0].Records[0].Record[0].value.embedded"}; !reflect.DeepEqual(embedded, want) {
			t.Errorf("v%d: embedded records at %q, want %q", tc.ver, embedded, want)
		}
		// Without the option, nothing is embedded and the bytes decode alike.
		var plain tree.Tree
		if err := c.DecodeResponseInto(&plain, frame.Bytes, fetch, tc.ver); err != nil {
			t.Fatal(err)
		}
		for i := range plain.Nodes {
			if plain.Nodes[i].Kind() == tree.Embedded {
				t.Errorf("v%d: an Embedded node without TopicRecords", tc.ver)
			}
		}
	}
}
