// Package traffictest builds the capture that the tests and the examples
// of package traffic and of kwire pcap's filters, statistics and upgrade
// check read: two clients of different eras talking to one broker.
package traffictest

import (
	"fmt"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
)

// T0 is the time of the capture's first packet.
var T0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// TopicID is the topic id of "payments" in the capture (base64
// "AAAAAAAAAAAAAAAAAAAAAQ", 15 zero bytes then 1).
const TopicID = "AAAAAAAAAAAAAAAAAAAAAQ"

// exchange is one request and its response, encoded with set, answered
// after wait (plus the capture's 1 ms per packet).
type exchange struct {
	set       *spec.Set
	api       string
	ver       int16
	req, resp string
	wait      time.Duration
}

// Clients returns a pcap (Ethernet) of two connections to 10.0.0.2:9092,
// each exchange's response 1 ms + its wait after its request:
//
//   - #1 10.0.0.1:50000, client id "legacy-app", librdkafka 1.9.2, speaking
//     versions Kafka 4.0 removed (encoded with Kafka 3.9.1's specs):
//     ApiVersions v3, Produce v2 to "orders" twice (the second answered
//     after 5 ms), ListOffsets v0 of "orders";
//   - #2 10.0.0.3:40000, client id "billing", apache-kafka-java 4.1.0
//     (Kafka 4.4.0's specs): ApiVersions v4, Metadata v12 that gives
//     "payments" topic id TopicID, Fetch v17 by that topic id answered
//     after 150 ms, Produce v9 to "payments" answered with
//     NOT_LEADER_OR_FOLLOWER (6).
func Clients() ([]byte, error) {
	old, err := spec.Embedded("3.9")
	if err != nil {
		return nil, err
	}
	cur, err := spec.Embedded("4.4")
	if err != nil {
		return nil, err
	}
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	t := T0
	for _, c := range []struct {
		client, id string
		xs         []exchange
	}{
		{"10.0.0.1:50000", "legacy-app", []exchange{
			{old, "ApiVersions", 3, `{"clientSoftwareName":"librdkafka","clientSoftwareVersion":"1.9.2"}`,
				`{"errorCode":0,"apiKeys":[{"apiKey":0,"minVersion":0,"maxVersion":11}],"throttleTimeMs":0}`, 0},
			{old, "Produce", 2, `{"acks":-1,"timeoutMs":30000,"topicData":[{"name":"orders","partitionData":[{"index":0,"records":null}]}]}`,
				`{"responses":[{"name":"orders","partitionResponses":[{"index":0,"errorCode":0,"baseOffset":42,"logAppendTimeMs":-1}]}],"throttleTimeMs":0}`, 0},
			{old, "Produce", 2, `{"acks":-1,"timeoutMs":30000,"topicData":[{"name":"orders","partitionData":[{"index":0,"records":null}]}]}`,
				`{"responses":[{"name":"orders","partitionResponses":[{"index":0,"errorCode":0,"baseOffset":43,"logAppendTimeMs":-1}]}],"throttleTimeMs":0}`, 5 * time.Millisecond},
			{old, "ListOffsets", 0, `{"replicaId":-1,"topics":[{"name":"orders","partitions":[{"partitionIndex":0,"timestamp":-1,"maxNumOffsets":1}]}]}`,
				`{"topics":[{"name":"orders","partitions":[{"partitionIndex":0,"errorCode":0,"oldStyleOffsets":[44]}]}]}`, 0},
		}},
		{"10.0.0.3:40000", "billing", []exchange{
			{cur, "ApiVersions", 4, `{"clientSoftwareName":"apache-kafka-java","clientSoftwareVersion":"4.1.0"}`,
				`{"errorCode":0,"apiKeys":[{"apiKey":1,"minVersion":4,"maxVersion":17}],"throttleTimeMs":0}`, 0},
			{cur, "Metadata", 12, `{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"payments"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`,
				`{"throttleTimeMs":0,"brokers":[{"nodeId":1,"host":"10.0.0.2","port":9092,"rack":null}],"clusterId":"c","controllerId":1,` +
					`"topics":[{"errorCode":0,"name":"payments","topicId":"` + TopicID + `","isInternal":false,"partitions":[],"topicAuthorizedOperations":-2147483648}]}`, 0},
			{cur, "Fetch", 17, `{"maxWaitMs":500,"minBytes":1,"maxBytes":52428800,"isolationLevel":0,"sessionId":0,"sessionEpoch":-1,` +
				`"topics":[{"topicId":"` + TopicID + `","partitions":[{"partition":0,"currentLeaderEpoch":-1,"fetchOffset":0,"lastFetchedEpoch":-1,"logStartOffset":-1,"partitionMaxBytes":1048576}]}],"forgottenTopicsData":[],"rackId":""}`,
				`{"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{"topicId":"` + TopicID + `","partitions":[{"partitionIndex":0,"errorCode":0,"highWatermark":0,"lastStableOffset":0,"logStartOffset":0,"abortedTransactions":null,"preferredReadReplica":-1,"records":null}]}]}`,
				150 * time.Millisecond},
			{cur, "Produce", 9, `{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[{"name":"payments","partitionData":[{"index":0,"records":null}]}]}`,
				`{"responses":[{"name":"payments","partitionResponses":[{"index":0,"errorCode":6,"baseOffset":-1,"logAppendTimeMs":-1,"logStartOffset":-1,"recordErrors":[],"errorMessage":null}]}],"throttleTimeMs":0}`, 0},
		}},
	} {
		cv := capturetest.NewConv(f, c.client, "10.0.0.2:9092", 1000, 900000, t)
		cv.Handshake()
		for i, x := range c.xs {
			req, resp, err := x.frames(c.id, int32(i+1))
			if err != nil {
				return nil, err
			}
			cv.Send(true, req, 0)
			cv.T = cv.T.Add(x.wait)
			cv.Send(false, resp, 0)
		}
		cv.Close()
		t = cv.T.Add(time.Second)
	}
	return f.Bytes()
}

// frames encodes x's request (with client id and correlation id corr) and
// response.
func (x exchange) frames(clientID string, corr int32) (req, resp []byte, err error) {
	cd := codec.New(x.set)
	rq, rs, err := x.set.Lookup(x.api)
	if err != nil {
		return nil, nil, err
	}
	body, err := codec.FromJSON([]byte(x.req), rq, x.ver)
	if err != nil {
		return nil, nil, fmt.Errorf("%s v%d request: %w", x.api, x.ver, err)
	}
	t, err := cd.Encode(rq, x.ver, codec.RequestHeaderValue(x.set.RequestHeader(), rq.APIKey, x.ver, corr, clientID), body)
	if err != nil {
		return nil, nil, err
	}
	if body, err = codec.FromJSON([]byte(x.resp), rs, x.ver); err != nil {
		return nil, nil, fmt.Errorf("%s v%d response: %w", x.api, x.ver, err)
	}
	u, err := cd.Encode(rs, x.ver, codec.ResponseHeaderValue(x.set.ResponseHeader(), corr), body)
	if err != nil {
		return nil, nil, err
	}
	return t.Bytes, u.Bytes, nil
}
