package frame_test

import (
	"fmt"

	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/spec"
)

// Feed a request stream to a Splitter in chunks of 5 bytes, as reads from
// a socket might bring it, and read the request header of each frame it
// completes: the api key and version choose the header version.
func ExampleSplitter() {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		panic(err)
	}
	// ApiVersions v3 (request header v2, client id "kw"; empty client
	// software name and version) and Metadata v1 (request header v1, null
	// client id; null topics: all of them).
	stream := []byte{
		0x00, 0x00, 0x00, 0x10, 0x00, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02, 'k', 'w', 0x00, 0x01, 0x01, 0x00,
		0x00, 0x00, 0x00, 0x0e, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	}
	sp := &frame.Splitter{Max: 1 << 20}
	for len(stream) > 0 {
		n := min(5, len(stream))
		sp.Feed(stream[:n])
		stream = stream[n:]
		for ev := sp.Next(); ev.Kind != frame.None; ev = sp.Next() {
			key, ver, _ := frame.RequestAPI(ev.Bytes)
			m := s.Request(key)
			h, err := frame.ParseRequestHeader(ev.Bytes, frame.RequestHeaderVersion(m, ver))
			if err != nil {
				panic(err)
			}
			fmt.Printf("%s at %d: %s v%d, header v%d, correlation id %d, client id %q (null: %v), body %d bytes\n",
				ev.Kind, ev.Off, m.Name, h.APIVersion, h.Version, h.CorrelationID, h.ClientID, h.ClientID == nil, len(ev.Bytes)-4-h.Len)
		}
	}
	// Output:
	// whole at 0: ApiVersionsRequest v3, header v2, correlation id 1, client id "kw" (null: false), body 3 bytes
	// whole at 20: MetadataRequest v1, header v1, correlation id 2, client id "" (null: true), body 4 bytes
}
