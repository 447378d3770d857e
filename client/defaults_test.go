package client

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

func TestDefaultBody(t *testing.T) {
	c := testCodec(t)
	addr := fakeNode(t, c, func(req *tree.Tree) *tree.Tree {
		return apiVersionsResponse(t, c, req, 0, [3]int{18, 0, 4})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cn, err := Dial(ctx, addr, c, Options{SoftwareName: "kwire test", SoftwareVersion: "1.0"})
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	req := func(name string) *spec.Message {
		m, _, err := c.Set.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}

	// Produce asks for an answer: acks -1, no topics.
	body, smallest, err := cn.DefaultBody(req("Produce"), 13)
	if err != nil || smallest {
		t.Fatalf("Produce: %v, smallest %v", err, smallest)
	}
	if v, err := body.Get("ProduceRequest.Acks"); err != nil || v.Int() != -1 {
		t.Errorf("Produce acks %v (%v), want -1", v, err)
	}
	if v, err := body.Get("ProduceRequest.TopicData"); err != nil || v.Len() != 0 {
		t.Errorf("Produce topics %v (%v), want none", v, err)
	}

	// ApiVersions is the handshake's body.
	body, _, err = cn.DefaultBody(req("ApiVersions"), 3)
	if v, _ := body.Get("ApiVersionsRequest.ClientSoftwareName"); err != nil || v.String() != "kwire-test" {
		t.Errorf("ApiVersions software name %q (%v)", v.String(), err)
	}

	// Others: the smallest instance, byte for byte.
	dg := req("DescribeGroups")
	body, smallest, err = cn.DefaultBody(dg, 6)
	if err != nil || !smallest {
		t.Fatalf("DescribeGroups: %v, smallest %v", err, smallest)
	}
	got, err1 := c.EncodeBody(dg, 6, body)
	want, err2 := c.EncodeBody(dg, 6, instance.Smallest(dg, 6))
	if err1 != nil || err2 != nil || !bytes.Equal(got.Bytes, want.Bytes) || len(got.Bytes) == 0 {
		t.Errorf("DescribeGroups body %x (%v), want the smallest (%v)", got.Bytes, err1, err2)
	}

	// A request whose smallest instance would act on node 0 has none.
	_, _, err = cn.DefaultBody(req("UnregisterBroker"), 0)
	var be *BodyNeededError
	if !errors.As(err, &be) || err.Error() != "UnregisterBrokerRequest needs a body: its smallest instance (brokerId 0) asks to unregister broker 0" {
		t.Errorf("UnregisterBroker: %v", err)
	}
	if NeedsBody(req("RemoveRaftVoter")) == nil || NeedsBody(req("UpdateRaftVoter")) == nil || NeedsBody(dg) != nil {
		t.Error("NeedsBody")
	}
}

// Every default body fits every valid version of its request in both
// embedded releases (ListGroups v5 needs its filters, DescribeCluster v1 its
// endpoint type, Metadata v0 has no null topics…).
func TestDefaultBodiesFitEveryVersion(t *testing.T) {
	cn := &Conn{opts: Options{SoftwareName: "kwire", SoftwareVersion: "1.0"}}
	for _, rel := range []string{"4.4", "3.9"} {
		set, err := spec.Embedded(rel)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range append(slices.Sorted(maps.Keys(defaultBodies)), "ApiVersionsRequest", "DescribeClusterRequest") {
			m := set.Message(name)
			if m == nil {
				t.Errorf("%s: no %s", rel, name)
				continue
			}
			for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
				body, smallest, err := cn.DefaultBody(m, v)
				if err != nil || smallest {
					t.Errorf("%s %s v%d: %v (smallest %v)", rel, name, v, err, smallest)
					continue
				}
				if _, err := codec.New(set).EncodeBody(m, v, body); err != nil {
					t.Errorf("%s %s v%d: %v", rel, name, v, err)
				}
			}
		}
	}
	set, _ := spec.Embedded("4.4")
	body, _, _ := cn.DefaultBody(set.Request(3), 0)
	if v, err := body.Get("MetadataRequest.Topics"); err != nil || v.IsNull() || v.Len() != 0 {
		t.Errorf("Metadata v0 topics %v (%v), want empty", v, err)
	}
	body, _, _ = cn.DefaultBody(set.Request(3), 12)
	if v, err := body.Get("MetadataRequest.Topics"); err != nil || !v.IsNull() {
		t.Errorf("Metadata v12 topics %v (%v), want null", v, err)
	}
	// DescribeCluster v2 asks for the brokers (EndpointType's default, 1).
	body, _, _ = cn.DefaultBody(set.Request(60), 2)
	enc, err := codec.New(set).EncodeBody(set.Request(60), 2, body)
	if err != nil || !bytes.Equal(enc.Bytes, []byte{0, 1, 0, 0}) {
		t.Errorf("DescribeCluster v2 body %x (%v), want 00 01 00 00 (no operations, brokers, no fenced ones, no tags)", enc.Bytes, err)
	}
}
