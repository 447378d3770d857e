package client

import (
	"fmt"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// defaultBodies are the bodies, in Kafka's converter JSON, of the requests
// that have an obvious question to ask, or whose smallest instance would
// not be answered (Produce: acks 0 asks for no response). Keys of fields
// absent at a version are accepted and ignored by codec.FromJSON when they
// hold their default.
var defaultBodies = map[string]string{
	"ProduceRequest":         `{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[]}`,
	"DescribeQuorumRequest":  `{"topics":[{"topicName":"__cluster_metadata","partitions":[{"partitionIndex":0}]}]}`,
	"MetadataRequest":        `{"topics":null,"allowAutoTopicCreation":true,"includeClusterAuthorizedOperations":false,"includeTopicAuthorizedOperations":false}`,
	"ListGroupsRequest":      `{"statesFilter":[],"typesFilter":[]}`,
	"DescribeConfigsRequest": `{"resources":[],"includeSynonyms":false,"includeDocumentation":false}`,
	"FindCoordinatorRequest": `{"key":"","keyType":0,"coordinatorKeys":[]}`,
}

// needsBody are the requests whose smallest instance would act on a real
// node: it names node 0 by an id that Kafka does not check against the
// sender.
var needsBody = map[string]string{
	"UnregisterBrokerRequest": "(brokerId 0) asks to unregister broker 0",
	"RemoveRaftVoterRequest":  "(voterId 0) asks to remove voter 0 from the KRaft quorum",
	"UpdateRaftVoterRequest":  "(voterId 0) asks to change voter 0's endpoints",
}

// BodyNeededError is a request that has no default body (see DefaultBody).
type BodyNeededError struct {
	// Request is the request's name, Why what its smallest instance would
	// do.
	Request, Why string
}

// Error reads "UnregisterBrokerRequest needs a body: its smallest instance
// (brokerId 0) asks to unregister broker 0".
func (e *BodyNeededError) Error() string {
	return fmt.Sprintf("%s needs a body: its smallest instance %s", e.Request, e.Why)
}

// NeedsBody returns a *BodyNeededError for a request that DefaultBody
// refuses, nil for the others.
func NeedsBody(req *spec.Message) error {
	if why, ok := needsBody[req.Name]; ok {
		return &BodyNeededError{Request: req.Name, Why: why}
	}
	return nil
}

// DefaultBody is the body of req at version v to send when only the API is
// named: for common requests a body that asks the obvious question
// (DescribeQuorum of __cluster_metadata, Metadata of all topics,
// DescribeCluster of the brokers, ListGroups of every state and type,
// FindCoordinator,
// DescribeConfigs of nothing, Produce with acks -1 and no topics), for
// ApiVersions the handshake's body, else the smallest instance of the
// request (instance.Smallest; smallest is then true). The error is
// NeedsBody's, or FromJSON's when the specs' request differs from Kafka's.
func (cn *Conn) DefaultBody(req *spec.Message, v int16) (body *tree.Tree, smallest bool, err error) {
	if err := NeedsBody(req); err != nil {
		return nil, false, err
	}
	switch {
	case req.Name == "MetadataRequest" && v == 0: // all topics: null from v1, empty in v0
		body, err = codec.FromJSON([]byte(`{"topics":[]}`), req, v)
		return body, false, err
	case req.Name == "DescribeClusterRequest": // the spec's defaults: the brokers (v1+), fenced ones left out (v2+)
		body, err = codec.NewBuilder(req, v).Tree()
		return body, false, err
	}
	if js, ok := defaultBodies[req.Name]; ok {
		body, err = codec.FromJSON([]byte(js), req, v)
		return body, false, err
	}
	if req.APIKey == apiVersionsKey && req.Type == spec.Request {
		body, err = cn.apiVersionsBody(req, v)
		return body, false, err
	}
	return instance.Smallest(req, v), true, nil
}
