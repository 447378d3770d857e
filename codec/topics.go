package codec

import (
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// DecodeOptions are what one decode of a request or response may ask
// beyond the Codec's settings (DecodeRequestWith, DecodeResponseWith).
type DecodeOptions struct {
	// TopicRecords, when set, chooses the options of each records field
	// that lies in a topic's element (a FetchResponse's Responses[i], a
	// ProduceRequest's TopicData[i]). It is called with the topic's name:
	// the topic name field (spec.Field.IsTopicName) of the innermost
	// enclosing element that has one decoded before the records; or, when
	// that element names its topic by id only (spec.Field.IsTopicID), with
	// name "" and the id. When it returns false, or the records lie in no
	// topic's element, they are decoded with RecordsOptions. Package flow
	// uses it to decode the keys and values of internal topics' records
	// (records.Options.KeyValue), topic ids being resolved with the names
	// an earlier response on the connection gave.
	TopicRecords func(name string, id [16]byte) (records.Options, bool)
	// Budget, when set, is the decompression budget the records take
	// from in place of their options' (records.Options.Budget): package
	// flow decodes again a request whose tree it did not hold awaiting
	// the response with the budget as it was the first time
	// (records.Budget.With), so that the tree is the same and the input's
	// budget is not taken from twice.
	Budget *records.Budget
	// Arena says the tree decoded into is an arena its caller decodes
	// frame after frame into (package flow's): the array of its
	// decompressed views is kept, emptied, for the next frame, and left
	// at the size it grew to (records.Options.KeepRoom). A caller that
	// keeps a tree trims it itself.
	Arena bool
	// readBack is set when the decoder reads back what the encoder wrote
	// (Encode's tree): a frame of any size (no MaxFrame), and arrays of
	// elements that take no bytes (a struct whose fields all belong to
	// other versions), whose counts Kafka's writer writes and its reader
	// refuses: counts the encoder wrote from a value's elements, not
	// counts of hostile bytes.
	readBack bool
}

// recordsOptions are the options of the records field being decoded: the
// ones DecodeOptions.TopicRecords chooses for its topic, else
// RecordsOptions; DecodeOptions.Budget in place of theirs when set; with
// DecodeOptions.Arena, KeepRoom.
func (d *decoder) recordsOptions() records.Options {
	o, ok := records.Options{}, false
	if d.o.TopicRecords != nil {
		if name, id, found := enclosingTopic(&d.b); found {
			o, ok = d.o.TopicRecords(name, id)
		}
	}
	if !ok {
		o = d.c.RecordsOptions()
	}
	if d.o.Budget != nil {
		o.Budget = d.o.Budget
	}
	o.KeepRoom = o.KeepRoom || d.o.Arena
	return o
}

// enclosingTopic finds the topic of what b is decoding: the first topic
// name or topic id field among the children decoded so far of the open
// groups, innermost first. ok is false when there is none.
func enclosingTopic(b *tree.Builder) (name string, id [16]byte, ok bool) {
	t := b.T
	open := b.OpenGroups()
	for k := len(open) - 1; k >= 0; k-- {
		next := int32(len(t.Nodes))
		if k+1 < len(open) {
			next = open[k+1]
		}
		// The direct children of open[k] before the next open group (its
		// child on the way down).
		for i := open[k] + 1; i < next; {
			n := &t.Nodes[i]
			if n.Kind() == tree.Field && !n.Null() {
				if f := t.Field(i); f != nil {
					switch {
					case f.IsTopicName():
						return string(t.Data(i)), id, true
					case f.IsTopicID() && len(t.Data(i)) == 16:
						copy(id[:], t.Data(i))
						return "", id, true
					}
				}
			}
			if n.End <= i {
				break
			}
			i = n.End
		}
	}
	return "", id, false
}
