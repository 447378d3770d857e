package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestWriteKafkaAndPageJSON(t *testing.T) {
	s := embedded(t, "4.4.0")
	pages, err := Decode(s, Claim{}, unhex(t, voteRequestV2))
	if err != nil {
		t.Fatal(err)
	}
	const body = `{"clusterId":"","voterId":0,"topics":[{"topicName":"","partitions":[{"partitionIndex":0,"replicaEpoch":0,"replicaId":0,"replicaDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","voterDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","lastOffsetEpoch":0,"lastOffset":0,"preVote":false}]}]}`
	var k bytes.Buffer
	if err := WriteKafka(&k, pages[0]); err != nil || k.String() != body+"\n" {
		t.Errorf("WriteKafka: %v\n%s", err, k.String())
	}
	var j bytes.Buffer
	if err := WritePageJSON(&j, pages[0], Options{}); err != nil {
		t.Fatal(err)
	}
	var page struct {
		Request struct {
			JSON       json.RawMessage `json:"json"`
			HeaderJSON json.RawMessage `json:"header_json"`
		} `json:"request"`
	}
	if err := json.Unmarshal(j.Bytes(), &page); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	json.Compact(&compact, page.Request.JSON)
	if compact.String() != body || !strings.Contains(string(page.Request.HeaderJSON), `"requestApiKey": 52`) {
		t.Errorf("json %s\nheader_json %s", page.Request.JSON, page.Request.HeaderJSON)
	}
	// A side that did not decode whole has no converter JSON.
	pages, _ = Decode(s, Claim{}, unhex(t, voteRequestV2[:100]))
	k.Reset()
	if err := WriteKafka(&k, pages[0]); err != nil || k.Len() != 0 {
		t.Errorf("partial: %v, %q", err, k.String())
	}
}

func TestRecordErrorsAndBadCRC(t *testing.T) {
	s := embedded(t, "4.4.0")
	// The smallest ProduceRequest v3: one empty RecordBatch v2 at 0x0028,
	// its CRC-32C (0x595fb7dd) at 0x0039.
	const produce = "0000006100000003000000000000000000000000000000000001000000000001000000000000003d0000000000000000000000310000000002595fb7dd00000000000000000000000000000000000000000000000000000000000000000000000000000000"
	good := unhex(t, produce)
	pages, err := Decode(s, Claim{}, good)
	if err != nil || len(pages[0].RecordErrors()) != 0 || pages[0].BadCRC() != nil {
		t.Fatalf("good batch: %v, %v, %v", err, pages[0].RecordErrors(), pages[0].BadCRC())
	}
	bad := append([]byte(nil), good...)
	bad[0x39] = 0
	pages, err = Decode(s, Claim{}, bad)
	probs := pages[0].RecordErrors()
	if err != nil || len(probs) != 1 || probs[0].String() != "ProduceRequest.TopicData[0].PartitionData[0].Records[0].crc at 0x0039: CRC-32C 0x005fb7dd stored, 0x595fb7dd computed: the batch is corrupt" {
		t.Errorf("bad CRC: %v, %v", err, probs)
	}
	if e := pages[0].BadCRC(); e == nil || e.Error() != "the RecordBatch at 0x0028 has a CRC-32C that does not match its bytes" {
		t.Errorf("BadCRC: %v", e)
	}
}
