package codec_test

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// TestFixedRunCutShort cuts a MetadataResponse v13 body short at every
// byte of a partition's run of fixed-size fields (ErrorCode int16,
// PartitionIndex, LeaderId, LeaderEpoch int32, read as one block when all
// 14 bytes are there): the error names the field whose bytes run out, its
// offset and the bytes it needs and has, and the partial tree holds the
// leaves of the fields before it.
func TestFixedRunCutShort(t *testing.T) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	m := s.Message("MetadataResponse")
	body, _ := hex.DecodeString(strings.Join([]string{
		"00000000", "01", "00", "00000001", // ThrottleTimeMs, no Brokers, null ClusterId, ControllerId
		"02", "0000", "0261", strings.Repeat("00", 16), "00", // one topic: ErrorCode, Name "a", TopicId, IsInternal
		"02", "0005", "00000001", "00000002", "00000003", // one partition's run, at 0x21
		"01", "01", "01", "00", // no replicas, ISR or offline replicas; no tags
		"80000000", "00", "0000", "00", // TopicAuthorizedOperations, tags, ErrorCode, tags
	}, ""))
	whole, err := c.DecodeBody(body, m, 13)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := whole.Get("MetadataResponse.Topics[0].Partitions[0].LeaderEpoch"); err != nil || v.Int() != 3 {
		t.Fatalf("LeaderEpoch = %v (err %v), want 3", v.Int(), err)
	}
	fields := []struct {
		name       string
		off, width int
		num        int64
	}{{"ErrorCode", 0x21, 2, 5}, {"PartitionIndex", 0x23, 4, 1}, {"LeaderId", 0x27, 4, 2}, {"LeaderEpoch", 0x2b, 4, 3}}
	for cut := 0x22; cut < 0x2f; cut++ { // at 0x21 no byte is left for the element: the count fails
		k := 0
		for fields[k].off+fields[k].width <= cut {
			k++
		}
		f := fields[k]
		tr, err := c.DecodeBody(body[:cut], m, 13)
		var we *wire.Error
		if !errors.As(err, &we) || we.Path != "MetadataResponse.Topics[0].Partitions[0]."+f.name || we.Offset != f.off || we.Need != f.width || we.Have != cut-f.off {
			t.Fatalf("cut at 0x%x: error %v (%+v), want %s at 0x%x needing %d, having %d", cut, err, we, f.name, f.off, f.width, cut-f.off)
		}
		// The partition element holds the leaves of the fields read.
		var got []string
		for i := range tr.Nodes {
			if n := &tr.Nodes[i]; n.Kind() == tree.Field && n.Off >= 0x21 && n.End == int32(i)+1 {
				fd := tr.Field(int32(i))
				if num := tr.Num(int32(i)); num != fields[len(got)].num || n.Off != int32(fields[len(got)].off) {
					t.Errorf("cut at 0x%x: %s = %d at 0x%x, want %d at 0x%x", cut, fd.Name, num, n.Off, fields[len(got)].num, fields[len(got)].off)
				}
				got = append(got, fd.Name)
			}
		}
		if len(got) != k {
			t.Errorf("cut at 0x%x: partial tree holds %v, want the %d fields before %s", cut, got, k, f.name)
		}
	}
}
