package codec_test

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// Coordinator record keys and values begin with an int16: the record type
// of a key (a "coordinator-key"'s api key; a 3.9 "data" key's version),
// the version of a value; the prefix is a Frame node of its own.
func TestCoordinatorRecordPrefix(t *testing.T) {
	cases := []struct {
		rel, name string
		v         int16
		want      string // smallest instance, hex
		leaf      string // the Frame leaf's name
	}{
		// offset int64, leaderEpoch int32, metadata compact "", commitTimestamp int64, no tags
		{"4.4", "OffsetCommitValue", 4, "0004" + "0000000000000000" + "00000000" + "01" + "0000000000000000" + "00", "version"},
		// offset, metadata int16 "", commitTimestamp, expireTimestamp
		{"4.4", "OffsetCommitValue", 1, "0001" + "0000000000000000" + "0000" + "0000000000000000" + "0000000000000000", "version"},
		// record type 1; group "", topic "", partition 0 at v0
		{"4.4", "OffsetCommitKey", 0, "0001" + "0000" + "0000" + "00000000", "record_type"},
		{"4.4", "LegacyOffsetCommitKey", 0, "0000" + "0000" + "0000" + "00000000", "record_type"},
		// 3.9.1's "data" key: v1 is record type 1
		{"3.9.1", "OffsetCommitKey", 1, "0001" + "0000" + "0000" + "00000000", "record_type"},
		{"3.9.1", "GroupMetadataKey", 2, "0002" + "0000", "record_type"},
		{"4.4", "GroupMetadataKey", 0, "0002" + "0000", "record_type"},
		{"4.4", "ShareSnapshotKey", 0, "0000" + "0000" + "00000000000000000000000000000000" + "00000000", "record_type"},
	}
	for _, c := range cases {
		s, err := spec.Embedded(c.rel)
		if err != nil {
			t.Fatal(err)
		}
		cd := codec.New(s)
		m := s.Message(c.name)
		enc, err := cd.EncodeRecord(m, c.v, instance.Smallest(m, c.v))
		if err != nil {
			t.Fatalf("%s %s v%d: %v", c.rel, c.name, c.v, err)
		}
		if got := hex.EncodeToString(enc.Bytes); got != c.want {
			t.Errorf("%s %s v%d = %s, want %s", c.rel, c.name, c.v, got, c.want)
		}
		dec, err := cd.DecodeRecord(enc.Bytes, m, -1) // the prefix says the version
		if err != nil || dec.Version != c.v || dec.Message != m {
			t.Fatalf("%s %s v%d: decoded as v%d (%v)", c.rel, c.name, c.v, dec.Version, err)
		}
		f := dec.Part(tree.Frame)
		if f < 0 || dec.Nodes[f].Off != 0 || dec.Nodes[f].Size != 2 || dec.Name(f+1) != c.leaf {
			t.Errorf("%s %s: no 2-byte Frame with a %s leaf at 0", c.rel, c.name, c.leaf)
		}
	}
}

// The prefix is checked: a key of another record type, a value version
// the spec lacks, a prefix cut short.
func TestCoordinatorRecordPrefixErrors(t *testing.T) {
	s, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	cd := codec.New(s)
	cases := []struct {
		name, hex, want string
		is              error
		version         int16 // the tree's and its root's
	}{
		{"OffsetCommitKey", "0002 0000 0000 00000000", "record_type at 0x0000: record type 2 is not OffsetCommitKey's (1)", codec.ErrUnknownRecordType, 0},
		// The value's version is its prefix's, though the spec lacks it.
		{"OffsetCommitValue", "0005 0000000000000000", "version at 0x0000: OffsetCommitValue has no version 5 (valid versions 0-4)", codec.ErrUnknownVersion, 5},
		{"OffsetCommitValue", "00", "version at 0x0000: need 2 bytes, have 1", nil, 0},
	}
	for _, c := range cases {
		b, _ := hex.DecodeString(stripSpaces(c.hex))
		tr, err := cd.DecodeRecord(b, s.Message(c.name), 0)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s %s: %v, want %s", c.name, c.hex, err, c.want)
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s %s: %v does not wrap %v", c.name, c.hex, err, c.is)
		}
		if tr == nil || int(tr.Nodes[0].Size) != len(b) {
			t.Errorf("%s %s: the tree does not cover the bytes", c.name, c.hex)
			continue
		}
		if tr.Version != c.version || tr.NodeVersion(0) != c.version {
			t.Errorf("%s %s: the tree at v%d, its root v%d; want v%d", c.name, c.hex, tr.Version, tr.NodeVersion(0), c.version)
		}
	}
	// DecodeTopicValue too.
	b, _ := hex.DecodeString("0009000000000000000500000000")
	tr, err := cd.DecodeTopicValue(b, spec.TopicOffsets, 1)
	if !errors.Is(err, codec.ErrUnknownVersion) || tr.Version != 9 || tr.NodeVersion(0) != 9 || tr.Message != s.Message("OffsetCommitValue") {
		t.Errorf("DecodeTopicValue of version 9: %v, the tree at v%d, its root v%d", err, tr.Version, tr.NodeVersion(0))
	}
}

func stripSpaces(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' {
			out = append(out, s[i])
		}
	}
	return string(out)
}

// A record key or value whose frame or prefix does not say its version (cut
// short, an unknown frame version, an unknown api key or record type) is
// shown at version 0: the tree names no version the bytes did not give.
func TestRecordVersionUnknownIsZero(t *testing.T) {
	s, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	cd := codec.New(s)
	for _, c := range []struct {
		name   string
		decode func([]byte) (*tree.Tree, error)
		hex    string
	}{
		{"metadata record cut in its frame", func(b []byte) (*tree.Tree, error) { return cd.DecodeRecord(b, nil, 0) }, "0102"},
		{"metadata frame version 0", func(b []byte) (*tree.Tree, error) { return cd.DecodeRecord(b, nil, 0) }, "000002"},
		{"unknown metadata api key", func(b []byte) (*tree.Tree, error) { return cd.DecodeRecord(b, nil, 0) }, "016305"},
		{"offsets key of an unknown record type", func(b []byte) (*tree.Tree, error) { return cd.DecodeTopicKey(b, spec.TopicOffsets) }, "0063000161"},
		{"transactions key of record type 1", func(b []byte) (*tree.Tree, error) { return cd.DecodeTopicKey(b, spec.TopicTransactions) }, "0001000161"},
	} {
		b, _ := hex.DecodeString(c.hex)
		tr, err := c.decode(b)
		if err == nil {
			t.Errorf("%s: no error", c.name)
		}
		if tr == nil || len(tr.Nodes) == 0 || tr.NodeVersion(0) != 0 {
			t.Errorf("%s: root at version %d, want 0", c.name, tr.NodeVersion(0))
		}
	}
	// The same value held by a record of a metadata log: its Embedded
	// node is at version 0 too (it read the api key as the version).
	o := cd.RecordsOptions()
	o.Metadata = true
	for _, v := range []string{"0102", "000002", "016305"} {
		b, _ := hex.DecodeString(v)
		tr := records.Decode(records.Batch{Records: []records.KeyValue{{Value: b}}}.Bytes(), o)
		found := false
		for i := range tr.Nodes {
			if tr.Nodes[i].Kind() == tree.Embedded {
				found = true
				if tr.NodeVersion(int32(i)) != 0 {
					t.Errorf("value %s: embedded at version %d, want 0", v, tr.NodeVersion(int32(i)))
				}
			}
		}
		if !found {
			t.Errorf("value %s: no embedded node", v)
		}
	}
}
