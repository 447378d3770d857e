package records_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// listing is what a log listing shows of a tree, a line per batch and
// record and per problem, offsets the whole decode's: the virtual offsets
// of a part are moved by virtual, the decompressed bytes of the parts
// before it; a continued batch has no line of its own.
func listing(t *tree.Tree, continued bool, virtual int) []string {
	var out []string
	for k, b := range records.LogBatches(t) {
		if k > 0 || !continued {
			out = append(out, fmt.Sprintf("batch %d count %d attrs %d crc %v", b.BaseOffset, b.Count, b.Attributes, b.CRCValid))
		}
		for _, r := range b.Records {
			out = append(out, fmt.Sprintf("  %d %d %q %q %v %d", r.Offset, r.Timestamp, r.Key, r.Value, r.Headers, r.ControlType()))
		}
	}
	for _, p := range t.Problems {
		if p.VOff >= 0 {
			p.VOff += int32(virtual)
		}
		out = append(out, p.String())
	}
	return out
}

// DecodeParts lists what Decode does, in parts of at most about maxNodes
// nodes, whatever maxNodes: entries and records of a segment with a
// problem of each kind, one of 2500 records in zstd batches of 1000, and
// an uncompressed batch of 3000 records.
func TestDecodeParts(t *testing.T) {
	// A batch of 10 MiB of records (streamed a piece at a time), then one
	// whose last record's length runs past the end.
	big := testseg.ZstdSegment(200000, 200000)
	kv := make([]records.KeyValue, 150000)
	for i := range kv {
		kv[i] = records.KeyValue{Key: []byte("k"), Value: bytes.Repeat([]byte{byte(i)}, 60)}
	}
	plain := records.Batch{Records: kv}.Bytes()[61:]
	plain = append(plain, 0xd0, 0x0f, 0, 0, 0) // length 1000, 3 bytes
	cut := records.RawBatch{BaseOffset: 200000, Attributes: 4, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Count: 150001, Records: zstdBytes(plain)}.Bytes()
	for name, seg := range map[string][]byte{
		"mixed": testseg.Mixed(),
		"zstd":  testseg.ZstdSegment(2500, 1000),
		// An uncompressed batch split between parts: each record is in one.
		"uncompressed": records.Batch{BaseOffset: 7, Records: kv[:3000]}.Bytes(),
		"big":          append(big, cut...),
		"surplus":      testseg.ZstdBomb(20<<20, 1),
		"garbage":      testseg.ZstdBomb(20<<20, 1<<30),
	} {
		whole := records.Decode(seg, records.Options{})
		want := listing(whole, false, 0)
		wantProblems := whole.Problems
		for _, maxNodes := range []int{1, 100, 1000, 5000, 1 << 20} {
			if len(seg) > 1<<20 && maxNodes != 1000 && maxNodes != 1<<20 {
				continue
			}
			var got []string
			var problems []tree.Problem
			virtual, parts, most := 0, 0, 0
			err := records.DecodeParts(seg, records.Options{}, maxNodes, func(pt *tree.Tree, continued bool) error {
				lines := listing(pt, continued, virtual)
				got = append(got, lines[:len(lines)-len(pt.Problems)]...)
				for _, p := range pt.Problems {
					if p.VOff >= 0 {
						p.VOff += int32(virtual)
					}
					problems = append(problems, p)
				}
				virtual += len(pt.Virtual)
				parts++
				most = max(most, len(pt.Nodes))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var wantLines []string
			for _, l := range want {
				if !slices.ContainsFunc(wantProblems, func(p tree.Problem) bool { return p.String() == l }) {
					wantLines = append(wantLines, l)
				}
			}
			if !slices.Equal(got, wantLines) {
				t.Errorf("%s, %d nodes: %d lines, want %d", name, maxNodes, len(got), len(wantLines))
				for i := range min(len(got), len(wantLines)) {
					if got[i] != wantLines[i] {
						t.Errorf("line %d: %q, want %q", i, got[i], wantLines[i])
						break
					}
				}
			}
			if !slices.Equal(problems, wantProblems) {
				t.Errorf("%s, %d nodes: problems\n%v\nwant\n%v", name, maxNodes, problems, wantProblems)
			}
			if virtual != len(whole.Virtual) {
				t.Errorf("%s, %d nodes: %d virtual bytes, want %d", name, maxNodes, virtual, len(whole.Virtual))
			}
			if maxNodes >= 100 && most > max(maxNodes+40, 1000) {
				t.Errorf("%s, %d nodes: a part of %d", name, maxNodes, most)
			}
			t.Logf("%s, %d nodes: %d parts, largest %d nodes", name, maxNodes, parts, most)
		}
	}
}
