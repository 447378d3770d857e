package render

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
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

// The records' base64 of a page's "json" member is streamed (Member.Tree,
// codec.RecordsMarked), and the member is indented by indentMarked: the
// page is byte for byte what json.Indent of the whole converter JSON
// makes, and WriteKafka's line the converter JSON itself, for a random instance of every message and version (escaped and
// multi-byte strings, empty and nested arrays, null and present records,
// unknown tagged fields).
func TestMarkedMembersAreJSONIndent(t *testing.T) {
	s := embedded(t, "4.4.0")
	c := codec.New(s)
	pages := 0
	for _, m := range s.Messages {
		if m.Type != spec.Request && m.Type != spec.Response {
			continue
		}
		for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
			for seed := range uint64(3) {
				r := rand.New(rand.NewPCG(seed, uint64(v)))
				enc, err := c.Encode(m, v, nil, instance.Random(m, v, r, instance.RandomOptions{MaxBytes: 2000}))
				if err != nil {
					t.Fatalf("%s v%d: %v", m.Name, v, err)
				}
				p := &Page{Set: s, Sides: []Side{{Label: "Frame", Tree: enc}}}
				var got, want bytes.Buffer
				if err := WritePageJSON(&got, p, Options{}); err != nil {
					t.Fatalf("%s v%d: %v", m.Name, v, err)
				}
				err = WriteJSONWith(&want, p, Options{}, func(k int, sd *Side) ([]Member, error) {
					body, header, err := codec.ConverterJSON(s, sd.Tree, sd.Err)
					return []Member{{Key: "json", JSON: body}, {Key: "header_json", JSON: header}}, err
				})
				if err != nil {
					t.Fatalf("%s v%d: %v", m.Name, v, err)
				}
				if got.String() != want.String() {
					t.Fatalf("%s v%d seed %d: the marked page differs\n%s\nwant\n%s", m.Name, v, seed, got.String(), want.String())
				}
				got.Reset()
				if err := WriteKafka(&got, p); err != nil {
					t.Fatalf("%s v%d: %v", m.Name, v, err)
				}
				if body, _, _ := codec.ConverterJSON(s, enc, nil); got.String() != string(body)+"\n" {
					t.Fatalf("%s v%d seed %d: WriteKafka differs\n%s\nwant\n%s", m.Name, v, seed, got.String(), body)
				}
				pages++
			}
		}
	}
	if pages < 500 {
		t.Errorf("%d pages compared", pages)
	}
}
