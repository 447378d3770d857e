package testseg

import (
	"encoding/binary"
	"fmt"

	"github.com/kwire/kwire/codec"
)

// CoordRecord encodes message name of cd's release at version v from its
// converter JSON as it lies on disk (codec.EncodeRecord: a coordinator
// record key or value with its int16 prefix, a data message bare). The
// error names the message when it is unknown or the JSON does not encode.
func CoordRecord(cd *codec.Codec, name string, v int16, js string) ([]byte, error) {
	m := cd.Set.Message(name)
	if m == nil {
		return nil, fmt.Errorf("no %s in %s", name, cd.Set.Release)
	}
	vt, err := codec.FromJSON([]byte(js), m, v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	et, err := cd.EncodeRecord(m, v, vt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return et.Bytes, nil
}

// ConsumerProtocol encodes a consumer protocol message (name, e.g.
// ConsumerProtocolSubscription, at version v from its converter JSON) as
// Kafka's ConsumerProtocol writes it into a classic group's member
// metadata: its int16 version, then the message.
func ConsumerProtocol(cd *codec.Codec, name string, v int16, js string) ([]byte, error) {
	b, err := CoordRecord(cd, name, v, js)
	if err != nil {
		return nil, err
	}
	return append(binary.BigEndian.AppendUint16(nil, uint16(v)), b...), nil
}
