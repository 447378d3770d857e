package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
)

// eraFrames encodes frames with Kafka 3.9's specs (3.9.2): versions that 4.0
// removed (KIP-896) are there.
func eraFrames(t *testing.T) *kafkaFrames {
	set, err := spec.Embedded("3.9")
	if err != nil {
		t.Fatal(err)
	}
	return &kafkaFrames{set: set, cd: codec.New(set)}
}

// oldClientCapture is a capture of a 3.9-era client ("legacy-app",
// librdkafka 1.9.2) that sends ApiVersions v3, Produce v2 and ListOffsets
// v0, each answered 2 ms after its request.
func oldClientCapture(t *testing.T) *capturetest.File {
	k := eraFrames(t)
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	c := capturetest.NewConv(f, "10.0.0.1:50000", "10.0.0.2:9092", 1000, 900000, pcapT0)
	c.Handshake()
	for _, x := range [][2][]byte{
		{k.request(t, "ApiVersions", 3, 1, `{"clientSoftwareName":"librdkafka","clientSoftwareVersion":"1.9.2"}`),
			k.response(t, "ApiVersions", 3, 1, `{"errorCode":0,"apiKeys":[{"apiKey":0,"minVersion":0,"maxVersion":11}],"throttleTimeMs":0}`)},
		{k.request(t, "Produce", 2, 2, `{"acks":-1,"timeoutMs":30000,"topicData":[{"name":"orders","partitionData":[{"index":0,"records":null}]}]}`),
			k.response(t, "Produce", 2, 2, `{"responses":[{"name":"orders","partitionResponses":[{"index":0,"errorCode":0,"baseOffset":42,"logAppendTimeMs":-1}]}],"throttleTimeMs":0}`)},
		{k.request(t, "ListOffsets", 0, 3, `{"replicaId":-1,"topics":[{"name":"orders","partitions":[{"partitionIndex":0,"timestamp":-1,"maxNumOffsets":1}]}]}`),
			k.response(t, "ListOffsets", 0, 3, `{"topics":[{"name":"orders","partitions":[{"partitionIndex":0,"errorCode":0,"oldStyleOffsets":[42]}]}]}`)},
	} {
		c.Send(true, x[0], 0)
		c.T = c.T.Add(time.Millisecond)
		c.Send(false, x[1], 0)
	}
	c.Close()
	return f
}

func TestPcapDecodesDroppedVersionsWithAnOlderRelease(t *testing.T) {
	p := writeCapture(t, oldClientCapture(t))
	out := mustRun(t, "pcap", p)
	conn := "#1 10.0.0.1:50000→10.0.0.2:9092"
	wantOutput(t, out,
		conn+`  ApiVersions(18) v3  corr 1  client "kwire-test"  req 43 B  resp 23 B  2.000 ms`,
		conn+`  Produce(0) v2  corr 2  client "kwire-test"  req 54 B  resp 50 B  2.000 ms  (decoded with Kafka 3.9.2's specs)`,
		conn+`  ListOffsets(2) v0  corr 3  client "kwire-test"  req 60 B  resp 42 B  2.000 ms  (decoded with Kafka 3.9.2's specs)`)
	if !strings.Contains(out, "3 exchanges, 0 problems") {
		t.Errorf("summary:\n%s", out)
	}

	// Under 3.9 itself nothing is borrowed.
	out = mustRun(t, "--kafka", "3.9", "pcap", p)
	if strings.Contains(out, "decoded with") || !strings.Contains(out, "3 exchanges, 0 problems") {
		t.Errorf("--kafka 3.9:\n%s", out)
	}

	// JSON says it with "decoded_with", on those exchanges only.
	lines := strings.Split(strings.TrimSpace(mustRun(t, "pcap", "--format", "json", p)), "\n")
	for i, want := range []string{"", "3.9.2", "3.9.2"} {
		var x struct {
			DecodedWith *string `json:"decoded_with"`
			Errors      []any   `json:"errors"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &x); err != nil {
			t.Fatal(err)
		}
		if got := x.DecodedWith; (want == "") != (got == nil) || got != nil && *got != want {
			t.Errorf("line %d: decoded_with %v, want %q: %s", i, got, want, lines[i])
		}
	}
}
