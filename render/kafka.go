package render

import (
	"fmt"
	"io"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// WritePageJSON writes the page JSON of p (WriteJSONWith) with two more
// keys on each side: "json" and "header_json", its body and header as
// Kafka's JsonConverters write them (codec.ConverterJSON: what `kwire
// encode` reads), null when the side has no such part or did not decode
// whole.
func WritePageJSON(w io.Writer, p *Page, o Options) error {
	return WriteJSONWith(w, p, o, func(k int, s *Side) ([]Member, error) {
		// The records' base64 is written as the page is, not held (a
		// 14 MB Produce's took 40 MiB more).
		body, header, err := ConverterJSONMarked(p.Set, s.Tree, s.Err)
		if err != nil {
			return nil, err
		}
		return []Member{{Key: "json", JSON: body, Tree: s.Tree}, {Key: "header_json", JSON: header, Tree: s.Tree}}, nil
	})
}

// markedOptions are codec.ConverterOptions with the records marked
// (codec.RecordsMarked): ConverterJSONMarked's.
var markedOptions = codec.JSONOptions{Records: codec.RecordsMarked, UnknownTags: codec.ConverterOptions.UnknownTags}

// ConverterJSONMarked is codec.ConverterJSON with each records field's
// base64 left out for a marker (codec.RecordsMarked): the body and header
// to write with WriteMarked, which streams the base64.
func ConverterJSONMarked(set *spec.Set, t *tree.Tree, decodeErr error) (body, header []byte, err error) {
	return codec.ConverterJSONWith(set, t, decodeErr, markedOptions)
}

// WriteMarked writes src, JSON that ConverterJSONMarked made of tree t, to
// w as codec.ConverterJSON would have made it, each records marker
// written as the standard base64 of its node's bytes, a chunk at a time.
// The error is w's, or says a marker names no node of t.
func WriteMarked(w io.Writer, src []byte, t *tree.Tree) error {
	s := newSink(w, 64<<10)
	if err := s.marked(src, t, false); err != nil {
		return err
	}
	return s.close()
}

// WriteKafka writes the body of each side of p as Kafka-converter JSON
// (codec.ConverterJSON), one object per line (a request before its
// response). A side that did not decode whole is left out: its error is
// the caller's to say. The records' base64 is streamed, not held.
func WriteKafka(w io.Writer, p *Page) error {
	bodies := make([][]byte, len(p.Sides))
	for k := range p.Sides {
		body, _, err := ConverterJSONMarked(p.Set, p.Sides[k].Tree, p.Sides[k].Err)
		if err != nil {
			return err // before any side is written
		}
		bodies[k] = body
	}
	s := newSink(w, 64<<10)
	for k, body := range bodies {
		if body != nil {
			if err := s.marked(body, p.Sides[k].Tree, false); err != nil {
				return err
			}
			s.b = append(s.b, '\n')
		}
	}
	return s.close()
}

// RecordErrors returns the errors found inside the records of p's sides
// (tree.Tree.Errors: bad CRCs, counts that do not match, payloads that do
// not decompress), in order.
func (p *Page) RecordErrors() []tree.Problem {
	var out []tree.Problem
	for _, s := range p.Sides {
		if s.Tree != nil {
			out = append(out, s.Tree.Errors()...)
		}
	}
	return out
}

// BadCRC returns an error naming the first record batch of p whose CRC
// does not match its bytes, or nil.
func (p *Page) BadCRC() error {
	for _, s := range p.Sides {
		t := s.Tree
		if t == nil {
			continue
		}
		for i := range t.Nodes {
			if n := &t.Nodes[i]; n.Kind() == tree.RecordBatch && n.Flags()&tree.FlagBadCRC != 0 {
				return fmt.Errorf("the RecordBatch at 0x%04x has a CRC-32C that does not match its bytes", n.Off)
			}
		}
	}
	return nil
}
