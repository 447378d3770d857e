package codec

import (
	"errors"
	"fmt"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// ConverterOptions is how kwire writes Kafka-converter JSON for people and
// for `kwire encode` to read back: records as base64 (Kafka's converter
// writes "", losing them; its reader accepts base64) and unknown tagged
// fields as "_unknownTaggedFields" (Kafka drops them), so that FromJSON
// gets every byte back.
var ConverterOptions = JSONOptions{Records: RecordsBase64, UnknownTags: true}

// ConverterJSON returns the body and the header of a decoded or encoded
// message tree t as Kafka's JsonConverters write them (with
// ConverterOptions): the body as t.Message at t.Version, the header as
// set's RequestHeader or ResponseHeader at t.HeaderVersion (no header JSON
// when set is nil). decodeErr is the error t was decoded with: a tree that
// did not decode whole has no JSON (nil, nil, nil), except one with bytes
// after a whole body (ErrTrailing). A part the tree lacks is nil. The
// error is ToJSON's, naming the message and version.
func ConverterJSON(set *spec.Set, t *tree.Tree, decodeErr error) (body, header []byte, err error) {
	return ConverterJSONWith(set, t, decodeErr, ConverterOptions)
}

// ConverterJSONWith is ConverterJSON with options o in place of
// ConverterOptions (RecordsMarked, for a writer that streams the records'
// base64).
func ConverterJSONWith(set *spec.Set, t *tree.Tree, decodeErr error, o JSONOptions) (body, header []byte, err error) {
	if decodeErr != nil && !errors.Is(decodeErr, ErrTrailing) || t == nil || t.Message == nil {
		return nil, nil, nil
	}
	if i := t.Part(tree.Body); i >= 0 {
		if body, err = ToJSON(nil, t, i, t.Message, t.Version, o); err != nil {
			return nil, nil, fmt.Errorf("%s v%d as JSON: %w", t.Message.Name, t.Version, err)
		}
	}
	var hs *spec.Message
	if set != nil {
		switch t.Message.Type {
		case spec.Request:
			hs = set.RequestHeader()
		case spec.Response:
			hs = set.ResponseHeader()
		}
	}
	if i := t.Part(tree.Header); i >= 0 && hs != nil {
		if header, err = ToJSON(nil, t, i, hs, t.HeaderVersion, o); err != nil {
			return nil, nil, fmt.Errorf("%s v%d as JSON: %w", hs.Name, t.HeaderVersion, err)
		}
	}
	return body, header, nil
}
