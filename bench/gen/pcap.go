package main

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/spec"
)

// templates is how many different Produce requests the capture cycles
// through (their batches differ in offsets, keys and values).
const templates = 64

// capture is a pcap (Ethernet) of about size bytes: four connections in
// turn from 10.0.0.1 to a broker at 10.0.0.2:9092 (the port tshark
// dissects as Kafka), each a handshake, then Produce v7 requests of one
// uncompressed RecordBatch of 20 records of about 100 bytes to "events"
// (client id "bench", correlation ids from 1), each answered by its
// ProduceResponse, in TCP segments of at most 1460 bytes, then the close.
func capture(size int) ([]byte, error) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		return nil, err
	}
	cd := codec.New(s)
	rq, rs, err := s.Lookup("Produce")
	if err != nil {
		return nil, err
	}
	const v = 7
	reqs := make([][]byte, templates)
	resps := make([][]byte, templates)
	for k := range templates {
		kv := make([]records.KeyValue, 20)
		for i := range kv {
			n := 20*k + i
			kv[i] = records.KeyValue{
				Key:            fmt.Appendf(nil, "user-%06d", n),
				Value:          fmt.Appendf(nil, `{"id":%d,"event":"click","page":"/p/%d","ms":%d,"agent":"bench"}`, n, n%97, n*13),
				TimestampDelta: int64(i),
			}
		}
		batch := records.Batch{BaseOffset: int64(20 * k), Timestamp: 1700000000000, Records: kv}.Bytes()
		body, err := codec.FromJSON([]byte(`{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[{"name":"events","partitionData":[{"index":0,"records":"`+
			base64.StdEncoding.EncodeToString(batch)+`"}]}]}`), rq, v)
		if err != nil {
			return nil, fmt.Errorf("request: %w", err)
		}
		t, err := cd.Encode(rq, v, codec.RequestHeaderValue(s.RequestHeader(), rq.APIKey, v, 0, "bench"), body)
		if err != nil {
			return nil, err
		}
		reqs[k] = t.Bytes
		body, err = codec.FromJSON(fmt.Appendf(nil, `{"responses":[{"name":"events","partitionResponses":[{"index":0,"errorCode":0,"baseOffset":%d,"logAppendTimeMs":-1,"logStartOffset":0}]}],"throttleTimeMs":0}`, 20*k), rs, v)
		if err != nil {
			return nil, fmt.Errorf("response: %w", err)
		}
		u, err := cd.Encode(rs, v, codec.ResponseHeaderValue(s.ResponseHeader(), 0), body)
		if err != nil {
			return nil, err
		}
		resps[k] = u.Bytes
	}
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	t := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	// Each packet adds 16 bytes of pcap record header and 54 of Ethernet,
	// IPv4 and TCP headers.
	perExchange := len(reqs[0]) + len(resps[0]) + 4*70
	for c := range 4 {
		cv := capturetest.NewConv(f, fmt.Sprintf("10.0.0.1:%d", 50000+c), "10.0.0.2:9092", 1000, 900000, t)
		cv.Step = 100 * time.Microsecond
		cv.Handshake()
		for i := 0; i < size/4/perExchange+1; i++ {
			req, resp := reqs[i%templates], resps[i%templates]
			binary.BigEndian.PutUint32(req[8:], uint32(i+1))
			binary.BigEndian.PutUint32(resp[4:], uint32(i+1))
			cv.Send(true, req, 1460)
			cv.Send(false, resp, 1460)
		}
		cv.Close()
		t = cv.T.Add(time.Second)
	}
	return f.Bytes()
}
