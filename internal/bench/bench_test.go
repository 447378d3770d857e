package bench

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// metadataResponse builds a MetadataResponse v13 body with topics x
// partitions (the benchmark of the package doc: 1000 x 10) through kmsg, so both
// decoders read bytes neither of them wrote.
func metadataResponse(topics, partitions int) []byte {
	r := kmsg.NewMetadataResponse()
	r.Version = 13
	for i := 0; i < 3; i++ {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID = int32(i)
		b.Host = fmt.Sprintf("broker-%d.kafka.example", i)
		b.Port = 9092
		r.Brokers = append(r.Brokers, b)
	}
	cid := "cluster-abc"
	r.ClusterID = &cid
	for t := 0; t < topics; t++ {
		tp := kmsg.NewMetadataResponseTopic()
		name := fmt.Sprintf("topic-%05d", t)
		tp.Topic = &name
		tp.TopicID[15] = byte(t)
		for p := 0; p < partitions; p++ {
			pp := kmsg.NewMetadataResponseTopicPartition()
			pp.Partition = int32(p)
			pp.Leader = int32(p % 3)
			pp.LeaderEpoch = 7
			pp.Replicas = []int32{0, 1, 2}
			pp.ISR = []int32{0, 1, 2}
			tp.Partitions = append(tp.Partitions, pp)
		}
		r.Topics = append(r.Topics, tp)
	}
	return r.AppendTo(nil)
}

// metadataIrregular builds a MetadataResponse v13 body like
// metadataResponse's but of 1000 topics that differ from one another:
// names of 3 to 8 bytes, 1 to 19 partitions, 1 to 3 replicas and ISR
// nodes, so that few elements are laid out as the one before them.
func metadataIrregular() []byte {
	r := kmsg.NewMetadataResponse()
	r.Version = 13
	for t := 0; t < 1000; t++ {
		tp := kmsg.NewMetadataResponseTopic()
		name := fmt.Sprintf("t-%d", t*t)
		tp.Topic = &name
		tp.TopicID[15] = byte(t)
		for p := 0; p < 1+(t*7)%19; p++ {
			pp := kmsg.NewMetadataResponseTopicPartition()
			pp.Partition = int32(p)
			pp.Leader = int32(p % 3)
			pp.LeaderEpoch = 7
			pp.Replicas = []int32{0, 1, 2}[:1+p%3]
			pp.ISR = []int32{0, 1, 2}[:1+(p/2)%3]
			tp.Partitions = append(tp.Partitions, pp)
		}
		r.Topics = append(r.Topics, tp)
	}
	return r.AppendTo(nil)
}

// framed is body after a response's size and header v1 (correlation 0,
// no tags).
func framed(body []byte) []byte {
	frame := make([]byte, 0, len(body)+9)
	n := len(body) + 5
	frame = append(frame, byte(n>>24), byte(n>>16), byte(n>>8), byte(n), 0, 0, 0, 0, 0)
	return append(frame, body...)
}

func setup(b *testing.B) (*codec.Codec, *spec.Message, []byte) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		b.Fatal(err)
	}
	return codec.New(s), s.Message("MetadataResponse"), framed(metadataResponse(1000, 10))
}

// TestSameBytes checks that kwire decodes kmsg's bytes and re-encodes
// them identically: the benchmarks compare like with like.
func TestSameBytes(t *testing.T) {
	b := &testing.B{}
	c, m, frame := setup(b)
	for _, irr := range []bool{false, true} {
		f := frame
		if irr {
			f = framed(metadataIrregular())
		}
		tr, err := c.DecodeResponse(f, m, 13)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.AppendEncode(nil, m, 13, nil, tr.Sub(tr.Part(tree.Body))); err != nil || !bytes.Equal(got, f) {
			t.Fatalf("irregular %v: re-encoding differs (err %v)", irr, err)
		}
	}
	tr, err := c.DecodeResponse(frame, m, 13)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Encode(m, 13, nil, tr.Sub(tr.Part(tree.Body)))
	if err != nil || !bytes.Equal(again.Bytes, frame) {
		t.Fatalf("re-encoding differs (err %v)", err)
	}
	// EncodeInto, reusing its tree and buffer, gives the same tree.
	var into tree.Tree
	var buf []byte
	for range 2 {
		if err := c.EncodeInto(&into, buf, m, 13, nil, tr.Sub(tr.Part(tree.Body))); err != nil {
			t.Fatal(err)
		}
		buf = into.Bytes
		if !bytes.Equal(into.Bytes, frame) || !slices.Equal(into.Nodes, again.Nodes) {
			t.Fatal("EncodeInto differs from Encode")
		}
	}
}

func BenchmarkDecodeMetadataResponse(b *testing.B) {
	c, m, frame := setup(b)
	b.Run("kwire-spantree", func(b *testing.B) {
		b.SetBytes(int64(len(frame)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.DecodeResponse(frame, m, 13); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kwire-spantree-reused", func(b *testing.B) {
		var t tree.Tree
		b.SetBytes(int64(len(frame)))
		b.ReportAllocs()
		for b.Loop() {
			if err := c.DecodeResponseInto(&t, frame, m, 13); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kmsg", func(b *testing.B) {
		body := frame[9:]
		b.SetBytes(int64(len(frame)))
		b.ReportAllocs()
		for b.Loop() {
			r := kmsg.NewMetadataResponse()
			r.Version = 13
			if err := r.ReadFrom(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkEncodeMetadataResponse(b *testing.B) {
	c, m, frame := setup(b)
	tr, err := c.DecodeResponse(frame, m, 13)
	if err != nil {
		b.Fatal(err)
	}
	val := tr.Sub(tr.Part(tree.Body))
	b.Run("kwire-bytes", func(b *testing.B) { appendEncode(b, c, m, val, len(frame)) })
	// The same value as a value tree built field by field (FromJSON), not
	// a decoded one: every value is a number or contents, none a span.
	js, err := codec.ToJSON(nil, tr, tr.Part(tree.Body), m, 13, codec.JSONOptions{})
	if err != nil {
		b.Fatal(err)
	}
	built, err := codec.FromJSON(js, m, 13)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("kwire-bytes-valuetree", func(b *testing.B) {
		if buf := appendEncode(b, c, m, built, len(frame)); !bytes.Equal(buf, frame) {
			b.Fatal("the value tree encodes to other bytes")
		}
	})
	b.Run("kwire-spantree", func(b *testing.B) {
		b.SetBytes(int64(len(frame)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Encode(m, 13, nil, val); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kwire-spantree-reused", func(b *testing.B) {
		var t tree.Tree
		var buf []byte
		b.SetBytes(int64(len(frame)))
		b.ReportAllocs()
		for b.Loop() {
			if err := c.EncodeInto(&t, buf, m, 13, nil, val); err != nil {
				b.Fatal(err)
			}
			buf = t.Bytes
		}
	})
	// Not an encoder: one pass over the decoded tree's nodes that appends
	// the bytes of each fixed-size leaf (1, 2 or 4 bytes; about three
	// leaves in four), checking nothing and writing no length or tag. It
	// is the least an encoder reading those nodes does, to set the
	// encoders beside.
	b.Run("tree-walk", func(b *testing.B) {
		buf := make([]byte, 0, len(frame))
		nodes, bs := tr.Nodes, tr.Bytes
		b.SetBytes(int64(len(frame)))
		for b.Loop() {
			buf = buf[:0]
			for i, n := range nodes {
				if n.End != int32(i+1) || n.Off < 0 || int(n.Off)+4 > len(bs) {
					continue
				}
				switch o := n.Off; n.Size {
				case 1:
					buf = append(buf, bs[o])
				case 2:
					buf = append(buf, bs[o], bs[o+1])
				case 4:
					buf = append(buf, bs[o], bs[o+1], bs[o+2], bs[o+3])
				}
			}
		}
		if len(buf) < len(frame)/2 {
			b.Fatalf("the walk appended %d bytes of the %d", len(buf), len(frame))
		}
	})
	b.Run("kmsg", func(b *testing.B) { kmsgEncode(b, frame) })
	// The same encodes of a message whose topics differ from one another
	// (metadataIrregular): few elements are laid out as the one before
	// them, so most are checked field by field.
	irr := framed(metadataIrregular())
	itr, err := c.DecodeResponse(irr, m, 13)
	if err != nil {
		b.Fatal(err)
	}
	ival := itr.Sub(itr.Part(tree.Body))
	b.Run("kwire-bytes-irregular", func(b *testing.B) { appendEncode(b, c, m, ival, len(irr)) })
	b.Run("kmsg-irregular", func(b *testing.B) { kmsgEncode(b, irr) })
}

// appendEncode is the loop of a kwire encode benchmark: value val of
// MetadataResponse m at version 13, framed, into a buffer of size bytes
// it reuses (size counted as the bytes of each op). It returns the last
// encoding.
func appendEncode(b *testing.B, c *codec.Codec, m *spec.Message, val *tree.Tree, size int) []byte {
	buf := make([]byte, 0, size)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = c.AppendEncode(buf[:0], m, 13, nil, val); err != nil {
			b.Fatal(err)
		}
	}
	return buf
}

// kmsgEncode is the loop of kmsg's side: AppendTo of the MetadataResponse
// v13 kmsg reads from frame's body (after its 9 bytes of size and
// header), into a buffer it reuses.
func kmsgEncode(b *testing.B, frame []byte) {
	r := kmsg.NewMetadataResponse()
	r.Version = 13
	if err := r.ReadFrom(frame[9:]); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, len(frame))
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		buf = r.AppendTo(buf[:0])
	}
}
