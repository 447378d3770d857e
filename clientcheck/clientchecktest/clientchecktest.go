// Package clientchecktest plants client faults for tests: conversations of
// request and response frames, each with one request that breaks one rule
// of package clientcheck, the finding it must cause (its correlation id,
// rule, offset in the frame and field path) and nothing else. The same
// cases are judged directly (package clientcheck), through package flow,
// through kwire proxy to a scripted broker and through kwire pcap on a
// capture, so that each level is held to the same offsets and paths.
package clientchecktest

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"

	"github.com/kwire/kwire/clientcheck"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// Step is one frame of a conversation: a request of the client (Client)
// or a response of the broker, size prefix included.
type Step struct {
	Client bool
	Frame  []byte
}

// Case is a conversation with one planted fault.
type Case struct {
	// Name says what is planted ("overlong-varint").
	Name string
	// Steps are the frames in the order they are sent.
	Steps []Step
	// Corr is the correlation id of the faulty request; it is the only
	// request with a finding.
	Corr int32
	// Rule, Offset (in the request's frame) and Path are the finding's.
	Rule   clientcheck.Rule
	Offset int
	Path   string
}

// ClientID is the client id of every request.
const ClientID = "cli"

// builder encodes frames with one codec.
type builder struct {
	c   *codec.Codec
	err error
}

// request encodes a request of api at version ver with correlation id
// corr and the body in Kafka's converter JSON ("" for the smallest).
func (b *builder) request(api string, ver int16, corr int32, body string) []byte {
	return b.frame(api, true, ver, corr, body)
}

// response encodes a response likewise.
func (b *builder) response(api string, ver int16, corr int32, body string) []byte {
	return b.frame(api, false, ver, corr, body)
}

func (b *builder) frame(api string, request bool, ver int16, corr int32, body string) []byte {
	if b.err != nil {
		return nil
	}
	s := b.c.Set
	rq, rs, err := s.Lookup(api)
	if err != nil {
		b.err = err
		return nil
	}
	m, h := rs, codec.ResponseHeaderValue(s.ResponseHeader(), corr)
	if request {
		m, h = rq, codec.RequestHeaderValue(s.RequestHeader(), rq.APIKey, ver, corr, ClientID)
	}
	var v *tree.Tree
	if body == "" {
		v = instance.Smallest(m, ver)
	} else if v, err = codec.FromJSON([]byte(body), m, ver); err != nil {
		b.err = fmt.Errorf("%s v%d: %w", m.Name, ver, err)
		return nil
	}
	t, err := b.c.Encode(m, ver, h, v)
	if err != nil {
		b.err = fmt.Errorf("%s v%d: %w", m.Name, ver, err)
		return nil
	}
	return t.Bytes
}

// resize rewrites frame fr's size prefix after an edit.
func resize(fr []byte) []byte {
	binary.BigEndian.PutUint32(fr, uint32(len(fr)-4))
	return fr
}

// splice replaces fr[at:at+n] with p and fixes the size prefix.
func splice(fr []byte, at, n int, p ...byte) []byte {
	out := append(append(append([]byte(nil), fr[:at]...), p...), fr[at+n:]...)
	return resize(out)
}

// The requests of the cases: Metadata v12 (header v2: its body starts at
// 18, after the 3-byte client id and the empty tagged-field section) and
// Produce v9 (flexible too).
const (
	metadataVer = 12
	bodyAt      = 18
	produceVer  = 9
	metadataReq = `{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"t"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`
)

// batch is a RecordBatch v2 of n records with the producer fields given;
// edit changes its header before the CRC is computed.
func batch(n int, pid int64, epoch int16, seq int32, edit func(*records.RawBatch)) []byte {
	kv := make([]records.KeyValue, n)
	for i := range kv {
		kv[i] = records.KeyValue{Value: []byte(fmt.Sprintf("v%d", i))}
	}
	plain := records.Batch{Timestamp: 1_700_000_000_000, Records: kv}.Bytes()
	raw := records.RawBatch{LeaderEpoch: -1, LastOffsetDelta: int32(n - 1), BaseTimestamp: 1_700_000_000_000, MaxTimestamp: 1_700_000_000_000,
		ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq, Count: int32(n), Records: plain[61:]}
	if edit != nil {
		edit(&raw)
	}
	return raw.Bytes()
}

// produce is a Produce v9 request (acks -1) of batch rec to partition 0
// of topic "t".
func (b *builder) produce(corr int32, rec []byte) []byte {
	return b.request("Produce", produceVer, corr, `{"transactionalId":null,"acks":-1,"timeoutMs":5000,"topicData":[{"name":"t","partitionData":[{"index":0,"records":"`+base64.StdEncoding.EncodeToString(rec)+`"}]}]}`)
}

// batchAt is where the first record batch of a produce request of b
// starts in its frame: the records' bytes are its last, followed by the
// partition's, the topic's and the body's empty tagged-field sections.
func batchAt(fr []byte, rec []byte) int { return len(fr) - 3 - len(rec) }

// Cases returns the planted faults, encoded with the specs of set (Kafka
// 4.4.0's or any release with Metadata v12, Produce v9, ApiVersions v3,
// SaslHandshake v1 and SaslAuthenticate v2).
func Cases(set *spec.Set) ([]Case, error) {
	b := &builder{c: codec.New(set)}
	md := func(corr int32) []byte { return b.request("Metadata", metadataVer, corr, metadataReq) }
	mdResp := func(corr int32) []byte { return b.response("Metadata", metadataVer, corr, "") }
	req := func(fr []byte) Step { return Step{Client: true, Frame: fr} }
	resp := func(fr []byte) Step { return Step{Frame: fr} }
	var cs []Case

	// The broker announces Metadata up to v11: v11 passes, v12 does not.
	cs = append(cs, Case{Name: "version-not-announced", Corr: 3, Rule: clientcheck.VersionNotAnnounced, Offset: 6, Path: "RequestHeader.RequestApiVersion",
		Steps: []Step{
			req(b.request("ApiVersions", 3, 1, `{"clientSoftwareName":"kwire-test","clientSoftwareVersion":"1"}`)),
			resp(b.response("ApiVersions", 3, 1, `{"errorCode":0,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4},{"apiKey":3,"minVersion":0,"maxVersion":11}],"throttleTimeMs":0}`)),
			req(b.request("Metadata", 11, 2, metadataReq)), resp(b.response("Metadata", 11, 2, "")),
			req(md(3)), resp(mdResp(3)),
		}})

	// Metadata after a PLAIN handshake, before SaslAuthenticate; the
	// Metadata after it passes.
	cs = append(cs, Case{Name: "before-sasl", Corr: 2, Rule: clientcheck.BeforeSASL, Offset: 4, Path: "RequestHeader.RequestApiKey",
		Steps: []Step{
			req(b.request("SaslHandshake", 1, 1, `{"mechanism":"PLAIN"}`)), resp(b.response("SaslHandshake", 1, 1, `{"errorCode":0,"mechanisms":["PLAIN"]}`)),
			req(md(2)), resp(mdResp(2)),
			req(b.request("SaslAuthenticate", 2, 3, `{"authBytes":"AHUAcA=="}`)), resp(b.response("SaslAuthenticate", 2, 3, "")),
			req(md(4)), resp(mdResp(4)),
		}})

	// Metadata v12 without its header's tagged-field section (header v1).
	cs = append(cs, Case{Name: "header-version", Corr: 1, Rule: clientcheck.HeaderVersion, Offset: bodyAt - 1, Path: "RequestHeader",
		Steps: []Step{req(splice(md(1), bodyAt-1, 1)), req(md(2)), resp(mdResp(2))}})

	// ApiVersions v3 with request header v1, as if its request took the
	// special case of its response (header v0 whatever the version): the
	// request follows the flexible rule like every other.
	cs = append(cs, Case{Name: "header-version-apiversions", Corr: 1, Rule: clientcheck.HeaderVersion, Offset: bodyAt - 1, Path: "RequestHeader",
		Steps: []Step{req(splice(b.request("ApiVersions", 3, 1, `{"clientSoftwareName":"kwire-test","clientSoftwareVersion":"1"}`), bodyAt-1, 1))}})

	// The topics array's compact length (2: one topic) in two bytes.
	cs = append(cs, Case{Name: "overlong-varint", Corr: 1, Rule: clientcheck.OverlongVarint, Offset: bodyAt, Path: "MetadataRequest.Topics.length",
		Steps: []Step{req(splice(md(1), bodyAt, 1, 0x82, 0x00)), resp(mdResp(1))}})

	// The body's tagged fields (unknown tags 5, then 3) out of order.
	m := md(1)
	cs = append(cs, Case{Name: "tag-order", Corr: 1, Rule: clientcheck.TagOrder, Offset: len(m) - 1 + 3, Path: "MetadataRequest.tag3",
		Steps: []Step{req(splice(m, len(m)-1, 1, 2, 5, 0, 3, 0)), resp(mdResp(1))}})
	cs = append(cs, Case{Name: "tag-repeated", Corr: 1, Rule: clientcheck.TagOrder, Offset: len(m) - 1 + 3, Path: "MetadataRequest.tag5",
		Steps: []Step{req(splice(m, len(m)-1, 1, 2, 5, 0, 5, 0)), resp(mdResp(1))}})

	// Correlation id 7 sent again before its response.
	cs = append(cs, Case{Name: "correlation-reused", Corr: 7, Rule: clientcheck.CorrelationReused, Offset: 8, Path: "RequestHeader.CorrelationId",
		Steps: []Step{req(md(6)), req(md(7)), req(md(7)), resp(mdResp(6)), resp(mdResp(7)), resp(mdResp(7))}})

	// A batch of 3 records whose lastOffsetDelta says 5.
	rec := batch(3, -1, -1, -1, func(r *records.RawBatch) { r.LastOffsetDelta = 5 })
	p := b.produce(1, rec)
	cs = append(cs, Case{Name: "last-offset-delta", Corr: 1, Rule: clientcheck.RecordBatch, Offset: batchAt(p, rec) + 23,
		Path:  "ProduceRequest.TopicData[0].PartitionData[0].Records[0].lastOffsetDelta",
		Steps: []Step{req(p), resp(b.response("Produce", produceVer, 1, ""))}})

	// A batch whose CRC does not match (one byte of a value changed).
	rec = batch(2, -1, -1, -1, nil)
	rec[len(rec)-3] ^= 0x01
	p = b.produce(1, rec)
	cs = append(cs, Case{Name: "crc", Corr: 1, Rule: clientcheck.RecordBatch, Offset: batchAt(p, rec) + 17,
		Path:  "ProduceRequest.TopicData[0].PartitionData[0].Records[0].crc",
		Steps: []Step{req(p), resp(b.response("Produce", produceVer, 1, ""))}})

	// A batch whose recordsCount says 3 and holds 2.
	rec = batch(2, -1, -1, -1, func(r *records.RawBatch) { r.Count, r.LastOffsetDelta = 3, 2 })
	p = b.produce(1, rec)
	cs = append(cs, Case{Name: "records-count", Corr: 1, Rule: clientcheck.RecordBatch, Offset: batchAt(p, rec) + 57,
		Path:  "ProduceRequest.TopicData[0].PartitionData[0].Records[0].recordsCount",
		Steps: []Step{req(p), resp(b.response("Produce", produceVer, 1, ""))}})

	// Producer 7 sends sequences 0-1, resends 0-1, then jumps to 5.
	p1 := b.produce(1, batch(2, 7, 0, 0, nil))
	p2 := b.produce(2, batch(2, 7, 0, 0, nil))
	rec = batch(2, 7, 0, 5, nil)
	p = b.produce(3, rec)
	cs = append(cs, Case{Name: "sequence", Corr: 3, Rule: clientcheck.RecordBatch, Offset: batchAt(p, rec) + 53,
		Path: "ProduceRequest.TopicData[0].PartitionData[0].Records[0].baseSequence",
		Steps: []Step{req(p1), resp(b.response("Produce", produceVer, 1, "")), req(p2), resp(b.response("Produce", produceVer, 2, "")),
			req(p), resp(b.response("Produce", produceVer, 3, ""))}})

	// Two bytes after the body.
	m = md(1)
	cs = append(cs, Case{Name: "trailing-bytes", Corr: 1, Rule: clientcheck.TrailingBytes, Offset: len(m), Path: "MetadataRequest",
		Steps: []Step{req(resize(append(m, 0, 0))), resp(mdResp(1))}})
	return cs, b.err
}
