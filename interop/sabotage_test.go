package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/crc32"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// TestOracleSabotage proves the oracle can fail, in both directions: among
// clean cases, one case's bytes get one byte corrupted, another case's
// JSON one field changed, an ApiVersionsResponse frame is built by hand
// with the wrong header version (v1, as the plain flexible-version rule
// would pick), and one record batch gets a wrong CRC; the harness must
// report exactly those four mismatches, each at the field that was
// changed.
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
		kc, err := buildCase(c, m, v, caseID(name, v, i), val, rand.New(rand.NewPCG(cfg.seed, headerSeq(name, v, i))))
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
		mk("ProduceRequest", 9, 2),
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
	fb, _ := hex.DecodeString(vote.Frame)
	fb[vote.BodyOffset+corrupted] ^= 0x01 // the same body in the frame
	vote.Frame = hex.EncodeToString(fb)
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

	// Sabotage 3: ApiVersionsResponse v3 framed by hand with response
	// header v1 (its flexible version would say so; KIP-511 says v0).
	av := mk("ApiVersionsResponse", 3, 5)
	av.ID += "/header-v1"
	hs := s.ResponseHeader()
	hdr, err := c.EncodeBody(hs, 1, codec.ResponseHeaderValue(hs, *av.CorrelationID))
	if err != nil {
		t.Fatal(err)
	}
	avBody, _ := hex.DecodeString(av.Hex)
	avFrame := binary.BigEndian.AppendUint32(nil, uint32(len(hdr.Bytes)+len(avBody)))
	avFrame = append(append(avFrame, hdr.Bytes...), avBody...)
	hv1 := int16(1)
	av.Frame, av.HeaderVersion, av.BodyOffset = hex.EncodeToString(avFrame), &hv1, 4+len(hdr.Bytes)
	const hvPath, hvOff = "ResponseHeader._tagged_fields", 8

	// Sabotage 4: ProduceRequest v9's first batch carries CRC-32 (IEEE)
	// where CRC-32C belongs, as a kwire computing the wrong checksum
	// would write it.
	const crcPath = "ProduceRequest.TopicData[0].PartitionData[0].Records.batches[0].crc"
	pm := s.Message("ProduceRequest")
	pval := instance.Smallest(pm, 9)
	for i := range pval.Nodes {
		if n := &pval.Nodes[i]; n.Kind() == tree.Records {
			batch := pval.Data(int32(i))
			if crc32.ChecksumIEEE(batch[21:]) == codec.CRC32C(batch[21:]) {
				t.Fatal("CRC-32 and CRC-32C agree on the smallest batch")
			}
			binary.BigEndian.PutUint32(batch[17:], crc32.ChecksumIEEE(batch[21:]))
			break
		}
	}
	crcCase, err := buildCase(c, pm, 9, caseID("ProduceRequest", 9, -1)+"/crc32-ieee", pval, rand.New(rand.NewPCG(cfg.seed, headerSeq("ProduceRequest", 9, -1))))
	if err != nil {
		t.Fatal(err)
	}
	crcOff := -1
	cb, _ := hex.DecodeString(crcCase.Hex)
	cdec, err := c.DecodeBody(cb, pm, 9)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaves(cdec) {
		if strings.HasSuffix(l.path, ".Records.RecordBatch.crc") {
			crcOff = l.off
			break
		}
	}
	if crcOff < 0 {
		t.Fatal("no batch crc in the smallest ProduceRequest v9")
	}
	cases = append(cases, av, crcCase)

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
	if len(got) != 4 {
		t.Errorf("the oracle reported %d mismatches, want exactly the 4 sabotaged cases", len(got))
	}
	if mm := got[av.ID]; mm == nil {
		t.Errorf("the response header v1 of %s was not reported", av.ID)
	} else if !slices.Contains(mm.Checks, "header_version") || !strings.HasPrefix(mm.Path, hvPath) || mm.KwireOff != hvOff {
		t.Errorf("the response header v1 of %s was reported as [%s] at %s (offset %d), want header_version at %s (offset %d)", av.ID, strings.Join(mm.Checks, ","), mm.Path, mm.KwireOff, hvPath, hvOff)
	}
	if mm := got[crcCase.ID]; mm == nil {
		t.Errorf("the CRC-32 batch of %s was not reported", crcCase.ID)
	} else if !slices.Equal(mm.Checks, []string{"records"}) || mm.Path != crcPath || mm.KwireOff != crcOff {
		t.Errorf("the CRC-32 batch of %s was reported as [%s] at %s (offset %d), want records at %s (offset %d)", crcCase.ID, strings.Join(mm.Checks, ","), mm.Path, mm.KwireOff, crcPath, crcOff)
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

// sabotageKafkaInstances has Kafka write the default instance and one
// random instance of every message class and version, then corrupts one
// byte of Kafka's FeatureLevelRecord bytes (and of its record value
// frame), one field of Kafka's VoteResponse JSON, the header version of
// Kafka's ApiVersionsResponse v3 frame (rebuilt by hand with header v1),
// and one CRC byte of the first record batch Kafka wrote (in its bytes and
// its frame); kwire must report exactly those four, each where it was
// changed.
func sabotageKafkaInstances(t *testing.T) {
	cfg := loadConfig(t) // skips unless KWIRE_ORACLE=1
	s := sabotageRelease(t)
	h, err := findHarness(s.Release)
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	out := filepath.Join(t.TempDir(), "instances.jsonl")
	if _, err := h.run(context.Background(), "generate", out, strconv.FormatUint(cfg.seed, 10), "1"); err != nil {
		t.Fatal(err)
	}
	var all []*kinstance
	err = eachLine(out, func(line []byte) error {
		ki := &kinstance{}
		all = append(all, ki)
		return json.Unmarshal(line, ki)
	})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*kinstance{}
	for _, ki := range all {
		byID[ki.ID] = ki
	}
	need := func(id string) *kinstance {
		t.Helper()
		ki := byID[id]
		if ki == nil {
			t.Fatalf("Kafka wrote no instance %s", id)
		}
		return ki
	}
	flip := func(hx string, off int) string {
		b, _ := hex.DecodeString(hx)
		b[off] ^= 0x01
		return hex.EncodeToString(b)
	}

	// Sabotage 1: FeatureLevelRecord's featureLevel, in the bytes and the frame.
	const byteID, byteField = "kafka/FeatureLevelRecord/v0/default", "FeatureLevelRecord.FeatureLevel"
	fl := need(byteID)
	// 01 (name "") 0000 (featureLevel 0) 00 (no tags): featureLevel := 1.
	if fl.Hex != "01000000" || fl.BodyOffset == nil {
		t.Fatalf("%s: Kafka wrote %s (body offset %v), want 01000000 in a frame", fl.ID, fl.Hex, fl.BodyOffset)
	}
	fl.Hex, fl.Frame = flip(fl.Hex, 2), flip(fl.Frame, *fl.BodyOffset+2)

	// Sabotage 2: VoteResponse's errorCode in the JSON.
	const jsonID, jsonField = "kafka/VoteResponse/v2/default", "VoteResponse.ErrorCode"
	vr := need(jsonID)
	var doc map[string]any
	if err := json.Unmarshal(vr.KafkaJSON, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["errorCode"] != 0.0 {
		t.Fatalf("%s: errorCode is %v, want 0", vr.ID, doc["errorCode"])
	}
	doc["errorCode"] = 5
	vr.KafkaJSON, _ = json.Marshal(doc)

	// Sabotage 3: ApiVersionsResponse v3 framed with response header v1.
	const hvID, hvPath, hvOff = "kafka/ApiVersionsResponse/v3/default", "ResponseHeader._tagged_fields", 8
	av := need(hvID)
	if av.CorrelationID == nil || av.HeaderVersion == nil || *av.HeaderVersion != 0 {
		t.Fatalf("%s: Kafka's header version is %v, want 0", av.ID, av.HeaderVersion)
	}
	hs := s.ResponseHeader()
	hdr, err := c.EncodeBody(hs, 1, codec.ResponseHeaderValue(hs, *av.CorrelationID))
	if err != nil {
		t.Fatal(err)
	}
	avBody, _ := hex.DecodeString(av.Hex)
	avFrame := binary.BigEndian.AppendUint32(nil, uint32(len(hdr.Bytes)+len(avBody)))
	avFrame = append(append(avFrame, hdr.Bytes...), avBody...)
	hv1, avOff := int16(1), 4+len(hdr.Bytes)
	av.Frame, av.HeaderVersion, av.BodyOffset = hex.EncodeToString(avFrame), &hv1, &avOff

	// Sabotage 4: the CRC of the first record batch Kafka wrote in a request
	// or response, in the bytes and the frame.
	var crc *kinstance
	var crcPath string
	crcOff := -1
	for _, ki := range all {
		if m := s.Message(ki.Message); m == nil || m.Type != spec.Request && m.Type != spec.Response || countBatches(ki.Records) == 0 {
			continue
		}
		kb, _ := hex.DecodeString(ki.Hex)
		dec, err := c.DecodeBody(kb, s.Message(ki.Message), ki.Version)
		if err != nil {
			t.Fatal(err)
		}
		sum := summarizeRecords(dec)
		keys := slices.Sorted(maps.Keys(sum.doc))
		if len(keys) == 0 {
			t.Fatalf("%s: Kafka summarised batches kwire does not see", ki.ID)
		}
		sp := sum.spots[keys[0]+".batches[0].crc"]
		crc, crcPath, crcOff = ki, sp.path, sp.off
		break
	}
	if crc == nil {
		t.Fatal("Kafka wrote no record batch in any request or response")
	}
	crc.Hex, crc.Frame = flip(crc.Hex, crcOff+3), flip(crc.Frame, *crc.BodyOffset+crcOff+3)

	got := map[string]*mismatch{}
	for _, ki := range all {
		if mm, _ := judgeInstance(c, ki); mm != nil {
			got[ki.ID] = mm
			t.Logf("reported: %s", mm)
		}
	}
	if len(got) != 4 {
		t.Errorf("kwire reported %d mismatches among %d Kafka instances, want exactly the 4 sabotaged ones", len(got), len(all))
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
	if mm := got[hvID]; mm == nil {
		t.Errorf("the response header v1 of %s was not reported", hvID)
	} else if !slices.Contains(mm.Checks, "header_version") || !strings.Contains(mm.Path, hvPath) || mm.KafkaOff != hvOff {
		t.Errorf("the response header v1 of %s was reported as [%s] at %s (Kafka offset %d), want header_version at %s (offset %d)", hvID, strings.Join(mm.Checks, ","), mm.Path, mm.KafkaOff, hvPath, hvOff)
	}
	if mm := got[crc.ID]; mm == nil {
		t.Errorf("the corrupted CRC of %s was not reported", crc.ID)
	} else if !slices.Equal(mm.Checks, []string{"records"}) || mm.Path != crcPath || mm.KwireOff != crcOff {
		t.Errorf("the corrupted CRC of %s was reported as [%s] at %s (offset %d), want records at %s (offset %d)", crc.ID, strings.Join(mm.Checks, ","), mm.Path, mm.KwireOff, crcPath, crcOff)
	}
}
