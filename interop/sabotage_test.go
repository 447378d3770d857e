package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
)

// TestOracleSabotage proves the oracle can fail, in both directions: among
// clean cases, one case's bytes get one byte corrupted and another case's
// JSON one field changed; the harness must report exactly those two
// mismatches, each at the field that was changed.
func TestOracleSabotage(t *testing.T) {
	t.Run("kwire to Kafka", sabotageKwireCases)
	t.Run("Kafka to kwire", sabotageKafkaInstances)
}

// sabotageRelease is the newest embedded release (its messages are the
// ones the sabotage names).
func sabotageRelease(t *testing.T) *spec.Set {
	t.Helper()
	s, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sabotageKwireCases(t *testing.T) {
	cfg := loadConfig(t)
	s := sabotageRelease(t)
	h, err := findHarness(s.Release)
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	mk := func(name string, v int16, i int) *kcase {
		t.Helper()
		m := s.Message(name)
		if m == nil {
			t.Fatalf("no message %s in Kafka %s", name, s.Release)
		}
		val := instance.Smallest(m, v)
		if i >= 0 {
			val = instance.Random(m, v, rand.New(rand.NewPCG(cfg.seed, caseSeq(name, v, i))), instance.RandomOptions{})
		}
		kc, err := buildCase(c, m, v, caseID(name, v, i), val)
		if err != nil {
			t.Fatal(err)
		}
		return kc
	}
	cases := []*kcase{
		mk("VoteRequest", 2, -1),
		mk("EndQuorumEpochRequest", 1, -1),
		mk("VoteResponse", 2, -1),
		mk("FetchRequest", 12, 3),
		mk("ApiVersionsResponse", 3, 5),
		mk("PartitionRecord", 0, 7),
		mk("MetadataResponse", 9, 11),
	}

	// Sabotage 1: the last byte of VoteRequest.Topics[0].Partitions[0].LastOffset.
	const bytePath = "VoteRequest.Topics[0].Partitions[0].LastOffset"
	vote := cases[0]
	vb, _ := hex.DecodeString(vote.Hex)
	dec, err := c.DecodeBody(vb, s.Message("VoteRequest"), 2)
	if err != nil {
		t.Fatal(err)
	}
	corrupted := -1
	for _, l := range leaves(dec) {
		if strings.HasSuffix(l.path, bytePath) {
			corrupted = l.off + len(l.data) - 1
		}
	}
	if corrupted < 0 {
		t.Fatalf("no leaf %s in VoteRequest v2", bytePath)
	}
	vb[corrupted] ^= 0x01
	vote.Hex = hex.EncodeToString(vb)
	vote.ID += "/corrupted-byte"

	// Sabotage 2: EndQuorumEpochRequest's topics[0].partitions[0].leaderEpoch in the JSON.
	const jsonPath, fieldPath = "topics[0].partitions[0].leaderEpoch", "EndQuorumEpochRequest.Topics[0].Partitions[0].LeaderEpoch"
	eq := cases[1]
	var doc map[string]any
	d := json.NewDecoder(bytes.NewReader(eq.JSON))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	p := doc["topics"].([]any)[0].(map[string]any)["partitions"].([]any)[0].(map[string]any)
	if p["leaderEpoch"] != json.Number("0") {
		t.Fatalf("EndQuorumEpochRequest v1 smallest: leaderEpoch is %v, want 0", p["leaderEpoch"])
	}
	p["leaderEpoch"] = 7
	if eq.JSON, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	eq.ID += "/corrupted-json"

	dir := t.TempDir()
	in, out := filepath.Join(dir, "cases.jsonl"), filepath.Join(dir, "results.jsonl")
	var buf bytes.Buffer
	byID := map[string]*kcase{}
	for _, kc := range cases {
		line, err := json.Marshal(kc)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
		byID[kc.ID] = kc
	}
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.run(context.Background(), "check", in, out); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]*mismatch{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		n++
		if mm, _ := judgeResult(c, byID[r.ID], &r); mm != nil {
			got[r.ID] = mm
			t.Logf("reported: %s", mm)
		}
	}
	if n != len(cases) {
		t.Fatalf("the oracle answered %d of %d cases", n, len(cases))
	}
	if len(got) != 2 {
		t.Errorf("the oracle reported %d mismatches, want exactly the 2 sabotaged cases", len(got))
	}
	if mm := got[vote.ID]; mm == nil {
		t.Errorf("the corrupted byte at offset %d of %s was not reported", corrupted, vote.ID)
	} else if mm.Path != bytePath || mm.KwireOff > corrupted || corrupted >= mm.KwireOff+8 {
		t.Errorf("the corrupted byte at offset %d was reported at %s (offset %d), want %s", corrupted, mm.Path, mm.KwireOff, bytePath)
	}
	if mm := got[eq.ID]; mm == nil {
		t.Errorf("the changed JSON field of %s was not reported", eq.ID)
	} else {
		if mm.Path != fieldPath {
			t.Errorf("the changed JSON field was reported at %s, want %s", mm.Path, fieldPath)
		}
		if !strings.Contains(mm.Detail, "JSON: "+jsonPath+": Kafka 0, kwire 7") {
			t.Errorf("the JSON difference was not named: %s", mm.Detail)
		}
	}
}

// sabotageKafkaInstances has Kafka write the default instance of every
// message class and version, corrupts one byte of Kafka's FeatureLevelRecord
// bytes and one field of Kafka's VoteResponse JSON, and expects exactly
// those two mismatches when kwire judges them.
func sabotageKafkaInstances(t *testing.T) {
	loadConfig(t) // skips unless KWIRE_ORACLE=1
	s := sabotageRelease(t)
	h, err := findHarness(s.Release)
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	out := filepath.Join(t.TempDir(), "instances.jsonl")
	if _, err := h.run(context.Background(), "generate", out, "1", "0"); err != nil {
		t.Fatal(err)
	}
	const byteID, byteField = "kafka/FeatureLevelRecord/v0/default", "FeatureLevelRecord.FeatureLevel"
	const jsonID, jsonField = "kafka/VoteResponse/v2/default", "VoteResponse.ErrorCode"
	var found int
	got := map[string]*mismatch{}
	n := 0
	err = eachLine(out, func(line []byte) error {
		var ki kinstance
		if err := json.Unmarshal(line, &ki); err != nil {
			return err
		}
		n++
		switch ki.ID {
		case byteID:
			// 01 (name "") 0000 (featureLevel 0) 00 (no tags): featureLevel := 1.
			if ki.Hex != "01000000" {
				t.Fatalf("%s: Kafka wrote %s, want 01000000", ki.ID, ki.Hex)
			}
			ki.Hex = "01000100"
			found++
		case jsonID:
			var doc map[string]any
			if err := json.Unmarshal(ki.KafkaJSON, &doc); err != nil {
				return err
			}
			if doc["errorCode"] != 0.0 {
				t.Fatalf("%s: errorCode is %v, want 0", ki.ID, doc["errorCode"])
			}
			doc["errorCode"] = 5
			ki.KafkaJSON, _ = json.Marshal(doc)
			found++
		}
		if mm, _ := judgeInstance(c, &ki); mm != nil {
			got[ki.ID] = mm
			t.Logf("reported: %s", mm)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found != 2 {
		t.Fatalf("Kafka wrote %d of the 2 instances to sabotage", found)
	}
	if len(got) != 2 {
		t.Errorf("kwire reported %d mismatches among %d Kafka instances, want exactly the 2 sabotaged ones", len(got), n)
	}
	if mm := got[byteID]; mm == nil {
		t.Errorf("the corrupted byte of %s was not reported", byteID)
	} else if mm.Path != byteField || mm.KafkaOff != 1 {
		t.Errorf("the corrupted byte of %s was reported at %s (offset %d), want %s at offset 1", byteID, mm.Path, mm.KafkaOff, byteField)
	}
	if mm := got[jsonID]; mm == nil {
		t.Errorf("the changed JSON field of %s was not reported", jsonID)
	} else if mm.Path != jsonField || !strings.Contains(mm.Detail, "JSON: $.errorCode: Kafka 5, kwire 0") {
		t.Errorf("the changed JSON field of %s was reported at %s, want %s:\n%s", jsonID, mm.Path, jsonField, mm.Detail)
	}
}
