package conform_test

import (
	"context"
	"encoding/binary"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/conform"
	"github.com/kwire/kwire/tree"
)

// TestDifferentialSame: two kfake clusters answer the same probes alike
// once the ignore list leaves out what varies (cluster ids, ports…): no
// finding of rule "differs".
func TestDifferentialSame(t *testing.T) {
	a, b := startKfake(t), startKfake(t)
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: a, Reference: b, Set: set44(t), Random: 3, Seed: 5, Client: client.Options{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Probes {
		for _, f := range p.Findings {
			// kfake lists DescribeUserScramCredentials' Results in Go
			// map order: the elements are named by User (Identity), so
			// two kfakes compare equal whatever the order.
			if f.Rule == "differs" {
				t.Errorf("%s: %s", p.Name(), f)
			}
		}
	}
	if r.Reference != b || r.RefCounts.Probes != len(r.Probes) {
		t.Errorf("reference %s with %d probes, the target %d", r.Reference, r.RefCounts.Probes, len(r.Probes))
	}
	if txt := text(t, r); !strings.Contains(txt, "differential: each answer compared with the reference "+b+"'s, ignoring throttle (ThrottleTimeMs); ids (ClusterId,") {
		t.Errorf("text:\n%s", txt)
	}
}

// TestDifferentialFinds: a target whose Metadata answer names the topic
// asked for with UNKNOWN_TOPIC_OR_PARTITION where the reference answers
// NONE differs at that error code, and nowhere else.
func TestDifferentialFinds(t *testing.T) {
	c := codec.New(set44(t))
	ref := startFault(t, announced, nil)
	target := startFault(t, announced, func(key, v int16, fr []byte) []byte {
		tr, err := c.DecodeResponse(fr, c.Set.Response(key), v)
		if err != nil {
			t.Error(err)
			return fr
		}
		ec, err := tr.Get("MetadataResponse.Topics[0].ErrorCode")
		if err != nil {
			return fr // no topic asked
		}
		binary.BigEndian.PutUint16(fr[tr.Nodes[ec.Node()].Off:], 3)
		return fr
	})
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: target, Reference: ref, Set: set44(t), APIs: []int16{3}, Bodies: bodies, Access: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range r.Probes {
		for _, f := range p.Findings {
			got = append(got, p.Name()+": "+f.Rule+" "+f.String())
		}
	}
	p := r.Probes[1]
	tr, _ := c.DecodeResponse(p.Response, c.Set.Response(3), 12)
	ec, _ := tr.Get("MetadataResponse.Topics[0].ErrorCode")
	want := "Metadata v12 body: differs MetadataResponse.Topics[0].ErrorCode at 0x" + hex4(tr.Nodes[ec.Node()].Off) + ": UNKNOWN_TOPIC_OR_PARTITION(3), the reference NONE(0)"
	if len(got) != 1 || got[0] != want {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

func hex4(off int32) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[off>>12&15], digits[off>>8&15], digits[off>>4&15], digits[off&15]})
}

// TestCompareIdentity: DescribeGroupsResponse.Groups has no mapKey; two
// answers listing the same groups in another order compare equal (elements
// named by GroupId, an Identity field), and a group whose error differs is
// found at the target's path and offset.
func TestCompareIdentity(t *testing.T) {
	c := codec.New(set44(t))
	m := c.Set.Response(15)
	group := regexp.MustCompile(`\{"groupId":("[a-z]*"),"errorCode":([0-9]+)\}`)
	enc := func(js string) *tree.Tree {
		js = `{"throttleTimeMs":0,` + group.ReplaceAllString(js[1:], `{"errorCode":$2,"groupId":$1,"groupState":"","protocolType":"","protocolData":"","members":[],"authorizedOperations":0}`)
		body, err := codec.FromJSON([]byte(js), m, 5)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := c.Encode(m, 5, nil, body)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	a := enc(`{"groups":[{"groupId":"a","errorCode":0},{"groupId":"b","errorCode":0}]}`)
	b := enc(`{"groups":[{"groupId":"b","errorCode":0},{"groupId":"a","errorCode":0}]}`)
	if fs := conform.Compare(a, b); len(fs) != 0 {
		t.Errorf("same groups in another order: %v", fs)
	}
	d := enc(`{"groups":[{"groupId":"b","errorCode":16},{"groupId":"a","errorCode":0}]}`)
	fs := conform.Compare(d, a)
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "NOT_COORDINATOR(16), the reference NONE(0)") || fs[0].Path != "DescribeGroupsResponse.Groups[0].ErrorCode" {
		t.Errorf("findings: %v", fs)
	}
	// Two elements with the same GroupId: compared by index.
	x := enc(`{"groups":[{"groupId":"a","errorCode":0},{"groupId":"a","errorCode":16}]}`)
	y := enc(`{"groups":[{"groupId":"a","errorCode":16},{"groupId":"a","errorCode":0}]}`)
	if fs := conform.Compare(x, y); len(fs) != 2 || !strings.Contains(fs[0].Path+fs[1].Path, "Groups[0]") {
		t.Errorf("by index: %v", fs)
	}
}

// TestDifferentialScenarios: the mutating scenarios against two kfakes
// answer alike step by step; a target whose Fetch answers name a
// preferred read replica 7 (which no step's expectation reads) differs
// from the reference at the Fetch steps, each finding naming its scenario
// and step.
func TestDifferentialScenarios(t *testing.T) {
	ref := startKfake(t)
	_, target := editKfake(t, func(key, v int16, fr []byte) []byte {
		if key != 1 {
			return fr
		}
		return editJSON(t, key, v, fr, func(body map[string]any) {
			eachFetchPartition(body, func(p map[string]any) { p["preferredReadReplica"] = 7 })
		})
	})
	for _, tc := range []struct {
		target string
		want   []string
	}{
		{startKfake(t), nil},
		{target, []string{
			"Fetch v18 scenario 7: FetchResponse.Responses[0].Partitions[0].PreferredReadReplica at 0x0044: topic lifecycle, step 8 (Fetch): 7, the reference -1",
			"Fetch v18 scenario 13: FetchResponse.Responses[0].Partitions[0].PreferredReadReplica at 0x0044: transactions, step 14 (Fetch): 7, the reference -1",
			"Fetch v18 scenario 14: FetchResponse.Responses[0].Partitions[0].PreferredReadReplica at 0x0055: transactions, step 15 (Fetch): 7, the reference -1",
		}},
	} {
		r, err := conform.Run(context.Background(), conform.Options{Bootstrap: tc.target, Reference: ref, Set: set44(t), Mutate: true, Scenarios: conform.MutatingScenarios, APIs: []int16{18}, Seed: 1,
			Client: client.Options{Timeout: 5 * time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range r.Probes {
			for _, f := range p.Findings {
				if f.Rule == "differs" {
					got = append(got, p.Name()+": "+f.String())
				}
			}
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("differences\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}
