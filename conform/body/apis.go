package body

import "github.com/kwire/kwire/spec"

// api is what this package knows of one api key: its access class, why,
// and its body templates.
type api struct {
	// name is the API's name in the newest release that has it.
	name   string
	access Access
	why    string
	// bodies are the templates by version range; the first that holds the
	// version is used, none means "{}" (every field at its default).
	bodies []tmpl
}

// tmpl is one body template: Kafka's converter JSON of the request, with
// the placeholders of fill.go, for the versions it applies to.
type tmpl struct {
	versions spec.Versions
	json     string
}

// every is a template for all versions, upto one for versions 0..hi,
// from one for versions lo and above.
func every(js string) tmpl          { return tmpl{spec.All, js} }
func upto(hi int16, js string) tmpl { return tmpl{spec.Versions{Lo: 0, Hi: hi}, js} }
func from(lo int16, js string) tmpl { return tmpl{spec.Versions{Lo: lo, Hi: spec.MaxVersion}, js} }

// Enum values the templates use (Kafka's clients: ConfigResource.Type,
// ResourceType, PatternType, AclOperation, AclPermissionType):
//
//	config resource type: 2 TOPIC, 4 BROKER, 8 BROKER_LOGGER, 16 CLIENT_METRICS, 32 GROUP
//	ACL resource type:    2 TOPIC, 3 GROUP, 4 CLUSTER, 5 TRANSACTIONAL_ID
//	pattern type:         3 LITERAL, 4 PREFIXED (0 UNKNOWN, 1 ANY, 2 MATCH are filters)
//	ACL operation:        1 ANY (filters only), 3 READ, 4 WRITE
//	permission type:      1 ANY (filters only), 2 DENY, 3 ALLOW
//	coordinator key type: 0 GROUP, 1 TRANSACTION, 2 SHARE
//	isolation level:      0 READ_UNCOMMITTED, 1 READ_COMMITTED
//	config operation:     0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT
//	SCRAM mechanism:      1 SCRAM-SHA-256, 2 SCRAM-SHA-512
//
// Bodies of the quorum APIs name the KRaft metadata topic
// (__cluster_metadata, partition 0): it is what they are about. Bodies of
// the Cluster APIs name broker, voter and controller id -1 and epochs 0 or
// -1, so that a live node refuses them (stale, fenced, unknown) instead of
// acting on them.
var apis = map[int16]api{
	0: {"Produce", Mutating, "appends records to a topic",
		[]tmpl{every(`{"transactionalId":null,"acks":-1,"timeoutMs":5000,"topicData":[{"name":"$topic","topicId":"$topicId","partitionData":[{"index":0,"records":"$records"}]}]}`)}},
	1: {"Fetch", ReadOnly, "reads records; a consumer's Fetch (replica id -1) changes nothing, a follower's is Cluster (AccessOfBody)",
		[]tmpl{every(`{"replicaId":-1,"maxWaitMs":100,"minBytes":1,"maxBytes":1048576,"isolationLevel":0,"sessionId":0,"sessionEpoch":-1,"topics":[{"topic":"$topic","topicId":"$topicId","partitions":[{"partition":0,"currentLeaderEpoch":-1,"fetchOffset":0,"lastFetchedEpoch":-1,"logStartOffset":-1,"partitionMaxBytes":1048576}]}],"forgottenTopicsData":[],"rackId":""}`)}},
	2: {"ListOffsets", ReadOnly, "reads a partition's offsets by timestamp",
		[]tmpl{every(`{"replicaId":-1,"isolationLevel":0,"topics":[{"name":"$topic","partitions":[{"partitionIndex":0,"currentLeaderEpoch":-1,"timestamp":-1,"maxNumOffsets":1}]}],"timeoutMs":5000}`)}},
	3: {"Metadata", ReadOnly, "reads brokers and topics; kwire's bodies never let it create a topic",
		// v0: an empty list asks for every topic; v1–3: null does, and a
		// named topic could be auto-created (the broker's
		// auto.create.topics.enable decides): so every topic. v4+: the
		// topic, allowAutoTopicCreation false.
		[]tmpl{
			upto(0, `{"topics":[]}`),
			upto(3, `{"topics":null}`),
			every(`{"topics":[{"name":"$topic"}],"allowAutoTopicCreation":false,"includeClusterAuthorizedOperations":false,"includeTopicAuthorizedOperations":false}`),
		}},
	4: {"LeaderAndIsr", Cluster, "the ZooKeeper controller's order to lead or follow partitions (removed in 4.0)",
		[]tmpl{every(`{"controllerId":-1,"controllerEpoch":0,"brokerEpoch":-1,"type":0,"ungroupedPartitionStates":[],"topicStates":[],"liveLeaders":[]}`)}},
	5: {"StopReplica", Cluster, "the ZooKeeper controller's order to stop (and delete) replicas (removed in 4.0)",
		[]tmpl{every(`{"controllerId":-1,"controllerEpoch":0,"brokerEpoch":-1,"deletePartitions":false,"ungroupedPartitions":[],"topics":[],"topicStates":[]}`)}},
	6: {"UpdateMetadata", Cluster, "the ZooKeeper controller's push of cluster metadata to brokers (removed in 4.0)",
		[]tmpl{every(`{"controllerId":-1,"controllerEpoch":0,"brokerEpoch":-1,"ungroupedPartitionStates":[],"topicStates":[],"liveBrokers":[]}`)}},
	7: {"ControlledShutdown", Cluster, "a broker asks the controller to move its leaders away before it stops",
		[]tmpl{every(`{"brokerId":-1,"brokerEpoch":-1}`)}},
	8: {"OffsetCommit", Mutating, "writes a group's committed offsets",
		// generation -1 and no member (Names.Member nil): a simple
		// (standalone) commit; else the member's commit.
		[]tmpl{every(`{"groupId":"$group","generationIdOrMemberEpoch":"$generation","generationId":"$generation","memberId":"$classicMemberId","groupInstanceId":null,"retentionTimeMs":-1,"topics":[{"name":"$topic","topicId":"$topicId","partitions":[{"partitionIndex":0,"committedOffset":0,"committedLeaderEpoch":-1,"commitTimestamp":-1,"committedMetadata":""}]}]}`)}},
	9: {"OffsetFetch", ReadOnly, "reads a group's committed offsets",
		[]tmpl{every(`{"groupId":"$group","topics":[{"name":"$topic","partitionIndexes":[0]}],"groups":[{"groupId":"$group","memberId":null,"memberEpoch":-1,"topics":[{"name":"$topic","topicId":"$topicId","partitionIndexes":[0]}]}],"requireStable":false}`)}},
	10: {"FindCoordinator", ReadOnly, "reads which broker coordinates a group (Kafka creates __consumer_offsets on first use, as for any consumer)",
		[]tmpl{every(`{"key":"$group","keyType":0,"coordinatorKeys":["$group"]}`)}},
	11: {"JoinGroup", Mutating, "adds a member to a classic group (and creates the group)",
		[]tmpl{every(`{"groupId":"$group","sessionTimeoutMs":10000,"rebalanceTimeoutMs":10000,"memberId":"$classicMemberId","groupInstanceId":null,"protocolType":"consumer","protocols":[{"name":"range","metadata":"$subscription"}],"reason":null}`)}},
	12: {"Heartbeat", Mutating, "keeps a classic group member alive",
		[]tmpl{every(`{"groupId":"$group","generationId":"$generation","memberId":"$classicMemberId","groupInstanceId":null}`)}},
	13: {"LeaveGroup", Mutating, "removes members from a classic group",
		[]tmpl{every(`{"groupId":"$group","memberId":"$classicMemberId","members":[{"memberId":"$classicMemberId","groupInstanceId":null,"reason":null}]}`)}},
	14: {"SyncGroup", Mutating, "sets a classic group's assignment",
		[]tmpl{every(`{"groupId":"$group","generationId":"$generation","memberId":"$classicMemberId","groupInstanceId":null,"protocolType":"consumer","protocolName":"range","assignments":[]}`)}},
	15: {"DescribeGroups", ReadOnly, "reads groups' state and members",
		[]tmpl{every(`{"groups":["$group"],"includeAuthorizedOperations":false}`)}},
	16: {"ListGroups", ReadOnly, "lists groups",
		[]tmpl{every(`{"statesFilter":[],"typesFilter":[]}`)}},
	17: {"SaslHandshake", ReadOnly, "chooses the connection's SASL mechanism: the connection's state only",
		[]tmpl{every(`{"mechanism":"PLAIN"}`)}},
	18: {"ApiVersions", ReadOnly, "reads the versions the node supports",
		[]tmpl{every(`{"clientSoftwareName":"kwire","clientSoftwareVersion":"dev","clusterId":null,"nodeId":-1}`)}},
	19: {"CreateTopics", Mutating, "creates topics",
		// replicationFactor -1 (the broker's default) exists from v4.
		[]tmpl{
			upto(3, `{"topics":[{"name":"$topic","numPartitions":1,"replicationFactor":1,"assignments":[],"configs":[]}],"timeoutMs":5000,"validateOnly":false}`),
			every(`{"topics":[{"name":"$topic","numPartitions":1,"replicationFactor":-1,"assignments":[],"configs":[]}],"timeoutMs":5000,"validateOnly":false}`),
		}},
	20: {"DeleteTopics", Mutating, "deletes topics",
		[]tmpl{every(`{"topics":[{"name":"$topic"}],"topicNames":["$topic"],"timeoutMs":5000}`)}},
	21: {"DeleteRecords", Mutating, "deletes a partition's records below an offset",
		// offset 0: deletes nothing a topic's start does not already hide.
		[]tmpl{every(`{"topics":[{"name":"$topic","partitions":[{"partitionIndex":0,"offset":0}]}],"timeoutMs":5000}`)}},
	22: {"InitProducerId", Mutating, "allocates a producer id and fences a transactional id's older producers",
		[]tmpl{every(`{"transactionalId":"$txn","transactionTimeoutMs":60000,"producerId":-1,"producerEpoch":-1,"enable2Pc":false,"keepPreparedTxn":false}`)}},
	23: {"OffsetForLeaderEpoch", ReadOnly, "reads the end offset of a leader epoch (a consumer's truncation check)",
		[]tmpl{every(`{"replicaId":-1,"topics":[{"topic":"$topic","partitions":[{"partition":0,"currentLeaderEpoch":-1,"leaderEpoch":0}]}]}`)}},
	24: {"AddPartitionsToTxn", Mutating, "adds partitions to a transaction (v4+: brokers verify one)",
		[]tmpl{every(`{"v3AndBelowTransactionalId":"$txn","v3AndBelowProducerId":"$producerId","v3AndBelowProducerEpoch":"$producerEpoch","v3AndBelowTopics":[{"name":"$topic","partitions":[0]}],"transactionalId":"$txn","producerId":"$producerId","producerEpoch":"$producerEpoch","topics":[{"name":"$topic","partitions":[0]}],"transactions":[{"transactionalId":"$txn","producerId":"$producerId","producerEpoch":"$producerEpoch","verifyOnly":true,"topics":[{"name":"$topic","partitions":[0]}]}]}`)}},
	25: {"AddOffsetsToTxn", Mutating, "adds a group's offsets to a transaction",
		[]tmpl{every(`{"transactionalId":"$txn","producerId":"$producerId","producerEpoch":"$producerEpoch","groupId":"$group"}`)}},
	26: {"EndTxn", Mutating, "commits or aborts a transaction",
		[]tmpl{every(`{"transactionalId":"$txn","producerId":"$producerId","producerEpoch":"$producerEpoch","committed":false}`)}},
	27: {"WriteTxnMarkers", Cluster, "the transaction coordinator's order to partition leaders to write commit or abort markers",
		[]tmpl{every(`{"markers":[{"producerId":-1,"producerEpoch":-1,"transactionResult":false,"topics":[{"name":"$topic","partitionIndexes":[0]}],"coordinatorEpoch":0,"transactionVersion":0}]}`)}},
	28: {"TxnOffsetCommit", Mutating, "commits a group's offsets inside a transaction",
		[]tmpl{every(`{"transactionalId":"$txn","groupId":"$group","producerId":"$producerId","producerEpoch":"$producerEpoch","generationIdOrMemberEpoch":"$generation","generationId":"$generation","memberId":"$classicMemberId","groupInstanceId":null,"topics":[{"name":"$topic","topicId":"$topicId","partitions":[{"partitionIndex":0,"committedOffset":0,"committedLeaderEpoch":-1,"committedMetadata":""}]}]}`)}},
	29: {"DescribeAcls", ReadOnly, "reads ACLs",
		[]tmpl{every(`{"resourceTypeFilter":2,"resourceNameFilter":"$topic","patternTypeFilter":3,"principalFilter":null,"hostFilter":null,"operation":1,"permissionType":1}`)}},
	30: {"CreateAcls", Mutating, "creates ACLs",
		// READ on Names.Topic allowed to User:<prefix> from any host.
		[]tmpl{every(`{"creations":[{"resourceType":2,"resourceName":"$topic","resourcePatternType":3,"principal":"$principal","host":"*","operation":3,"permissionType":3}]}`)}},
	31: {"DeleteAcls", Mutating, "deletes ACLs",
		// exactly the ACL CreateAcls' body creates.
		[]tmpl{every(`{"filters":[{"resourceTypeFilter":2,"resourceNameFilter":"$topic","patternTypeFilter":3,"principalFilter":"$principal","hostFilter":"*","operation":3,"permissionType":3}]}`)}},
	32: {"DescribeConfigs", ReadOnly, "reads configs",
		[]tmpl{every(`{"resources":[{"resourceType":2,"resourceName":"$topic","configurationKeys":null}],"includeSynonyms":false,"includeDocumentation":false}`)}},
	33: {"AlterConfigs", Mutating, "replaces a resource's configs",
		[]tmpl{every(`{"resources":[{"resourceType":2,"resourceName":"$topic","configs":[{"name":"retention.ms","value":"86400000"}]}],"validateOnly":false}`)}},
	34: {"AlterReplicaLogDirs", Mutating, "moves replicas between a broker's log directories",
		// a directory no broker has: Kafka answers LOG_DIR_NOT_FOUND.
		[]tmpl{every(`{"dirs":[{"path":"/kwire-conform/no-such-log-dir","topics":[{"name":"$topic","partitions":[0]}]}]}`)}},
	35: {"DescribeLogDirs", ReadOnly, "reads log directories and the replicas in them",
		[]tmpl{every(`{"topics":[{"topic":"$topic","partitions":[0]}]}`)}},
	36: {"SaslAuthenticate", ReadOnly, "carries SASL authentication bytes: the connection's state only",
		[]tmpl{every(`{"authBytes":""}`)}},
	37: {"CreatePartitions", Mutating, "adds partitions to topics",
		// validateOnly: the answer without a topic of two partitions.
		[]tmpl{every(`{"topics":[{"name":"$topic","count":2,"assignments":null}],"timeoutMs":5000,"validateOnly":true}`)}},
	38: {"CreateDelegationToken", Mutating, "creates a delegation token",
		[]tmpl{every(`{"ownerPrincipalType":null,"ownerPrincipalName":null,"renewers":[],"maxLifetimeMs":60000}`)}},
	39: {"RenewDelegationToken", Mutating, "extends a delegation token",
		// Names.TokenHMAC, else an HMAC no token has ("kwire").
		[]tmpl{every(`{"hmac":"$hmac","renewPeriodMs":60000}`)}},
	40: {"ExpireDelegationToken", Mutating, "expires a delegation token",
		[]tmpl{every(`{"hmac":"$hmac","expiryTimePeriodMs":60000}`)}},
	41: {"DescribeDelegationToken", ReadOnly, "reads delegation tokens",
		[]tmpl{every(`{"owners":null}`)}},
	42: {"DeleteGroups", Mutating, "deletes groups",
		[]tmpl{every(`{"groupsNames":["$group"]}`)}},
	43: {"ElectLeaders", Mutating, "elects partition leaders",
		// preferred election (0) of Names.Topic's partition 0.
		[]tmpl{every(`{"electionType":0,"topicPartitions":[{"topic":"$topic","partitions":[0]}],"timeoutMs":5000}`)}},
	44: {"IncrementalAlterConfigs", Mutating, "changes configs",
		[]tmpl{every(`{"resources":[{"resourceType":2,"resourceName":"$topic","configs":[{"name":"retention.ms","configOperation":0,"value":"86400000"}]}],"validateOnly":false}`)}},
	45: {"AlterPartitionReassignments", Mutating, "moves partition replicas between brokers",
		// replicas null: cancel a pending reassignment of Names.Topic-0.
		[]tmpl{every(`{"timeoutMs":5000,"allowReplicationFactorChange":false,"topics":[{"name":"$topic","partitions":[{"partitionIndex":0,"replicas":null}]}]}`)}},
	46: {"ListPartitionReassignments", ReadOnly, "reads ongoing reassignments",
		[]tmpl{every(`{"timeoutMs":5000,"topics":[{"name":"$topic","partitionIndexes":[0]}]}`)}},
	47: {"OffsetDelete", Mutating, "deletes a group's committed offsets",
		[]tmpl{every(`{"groupId":"$group","topics":[{"name":"$topic","partitions":[{"partitionIndex":0}]}]}`)}},
	48: {"DescribeClientQuotas", ReadOnly, "reads client quotas",
		[]tmpl{every(`{"components":[{"entityType":"client-id","matchType":0,"match":"$prefix"}],"strict":false}`)}},
	49: {"AlterClientQuotas", Mutating, "sets client quotas",
		// a quota of client id <prefix>, validated only: quotas are not
		// among the resources conform deletes at the end.
		[]tmpl{every(`{"entries":[{"entity":[{"entityType":"client-id","entityName":"$prefix"}],"ops":[{"key":"producer_byte_rate","value":1048576.0,"remove":false}]}],"validateOnly":true}`)}},
	50: {"DescribeUserScramCredentials", ReadOnly, "reads which SCRAM credentials users have",
		[]tmpl{every(`{"users":[{"name":"$prefix"}]}`)}},
	51: {"AlterUserScramCredentials", Mutating, "creates and deletes SCRAM credentials",
		// deletes user <prefix>'s SCRAM-SHA-256 credential, which it has
		// not: nothing is created.
		[]tmpl{every(`{"deletions":[{"name":"$prefix","mechanism":1}],"upsertions":[]}`)}},
	52: {"Vote", Cluster, "a KRaft candidate asks for a voter's vote",
		[]tmpl{every(`{"clusterId":null,"voterId":-1,"topics":[{"topicName":"__cluster_metadata","partitions":[{"partitionIndex":0,"replicaEpoch":0,"replicaId":-1,"candidateEpoch":0,"candidateId":-1,"lastOffsetEpoch":0,"lastOffset":0,"preVote":true}]}]}`)}},
	53: {"BeginQuorumEpoch", Cluster, "a new KRaft leader announces its epoch to the voters",
		[]tmpl{every(`{"clusterId":null,"voterId":-1,"topics":[{"topicName":"__cluster_metadata","partitions":[{"partitionIndex":0,"leaderId":-1,"leaderEpoch":0}]}],"leaderEndpoints":[]}`)}},
	54: {"EndQuorumEpoch", Cluster, "a KRaft leader resigns",
		[]tmpl{every(`{"clusterId":null,"topics":[{"topicName":"__cluster_metadata","partitions":[{"partitionIndex":0,"leaderId":-1,"leaderEpoch":0,"preferredSuccessors":[],"preferredCandidates":[]}]}],"leaderEndpoints":[]}`)}},
	55: {"DescribeQuorum", ReadOnly, "reads the KRaft quorum's state",
		[]tmpl{every(`{"topics":[{"topicName":"__cluster_metadata","partitions":[{"partitionIndex":0}]}]}`)}},
	56: {"AlterPartition", Cluster, "a partition leader asks the controller to change the ISR (AlterIsr before 3.2)",
		[]tmpl{every(`{"brokerId":-1,"brokerEpoch":-1,"topics":[{"name":"$topic","topicName":"$topic","topicId":"$topicId","partitions":[{"partitionIndex":0,"leaderEpoch":0,"newIsr":[],"newIsrWithEpochs":[],"leaderRecoveryState":0,"partitionEpoch":0,"currentIsrVersion":0}]}]}`)}},
	57: {"UpdateFeatures", Mutating, "changes the cluster's finalized feature levels",
		// no update, validated only: a feature level is the whole
		// cluster's, never a resource of conform's own.
		[]tmpl{every(`{"timeoutMs":5000,"featureUpdates":[],"validateOnly":true}`)}},
	58: {"Envelope", Cluster, "a broker forwards a client's request to the controller",
		// forwards nothing: empty request data, client address 127.0.0.1.
		[]tmpl{every(`{"requestData":"","requestPrincipal":null,"clientHostAddress":"fwAAAQ=="}`)}},
	59: {"FetchSnapshot", Cluster, "a KRaft follower fetches a snapshot of the metadata log",
		[]tmpl{every(`{"replicaId":-1,"maxBytes":1048576,"topics":[{"name":"__cluster_metadata","partitions":[{"partition":0,"currentLeaderEpoch":-1,"snapshotId":{"endOffset":0,"epoch":0},"position":0}]}]}`)}},
	60: {"DescribeCluster", ReadOnly, "reads the cluster's brokers (v1+: or controllers)",
		[]tmpl{every(`{"includeClusterAuthorizedOperations":false,"endpointType":1,"includeFencedBrokers":false}`)}},
	61: {"DescribeProducers", ReadOnly, "reads a partition's active producers",
		[]tmpl{every(`{"topics":[{"name":"$topic","partitionIndexes":[0]}]}`)}},
	62: {"BrokerRegistration", Cluster, "a broker registers with the KRaft controller",
		[]tmpl{every(`{"brokerId":-1,"clusterId":"","listeners":[],"features":[],"rack":null,"isMigratingZkBroker":false,"logDirs":[],"previousBrokerEpoch":-1}`)}},
	63: {"BrokerHeartbeat", Cluster, "a broker's heartbeat to the KRaft controller (fencing, shutdown)",
		[]tmpl{every(`{"brokerId":-1,"brokerEpoch":-1,"currentMetadataOffset":0,"wantFence":false,"wantShutDown":false}`)}},
	64: {"UnregisterBroker", Cluster, "removes a broker's registration from the cluster",
		[]tmpl{every(`{"brokerId":-1}`)}},
	65: {"DescribeTransactions", ReadOnly, "reads transactions' state",
		[]tmpl{every(`{"transactionalIds":["$txn"]}`)}},
	66: {"ListTransactions", ReadOnly, "lists transactions",
		[]tmpl{every(`{"stateFilters":[],"producerIdFilters":[],"durationFilter":-1,"transactionalIdPattern":null}`)}},
	67: {"AllocateProducerIds", Cluster, "a broker takes a block of producer ids from the controller",
		[]tmpl{every(`{"brokerId":-1,"brokerEpoch":-1}`)}},
	68: {"ConsumerGroupHeartbeat", Mutating, "joins, stays in or leaves a KIP-848 consumer group",
		// v0: the coordinator makes the member id; v1+ (KIP-1082): the
		// member does.
		[]tmpl{
			upto(0, `{"groupId":"$group","memberId":"","memberEpoch":0,"instanceId":null,"rackId":null,"rebalanceTimeoutMs":10000,"subscribedTopicNames":["$topic"],"serverAssignor":null,"topicPartitions":[]}`),
			every(`{"groupId":"$group","memberId":"$member","memberEpoch":0,"instanceId":null,"rackId":null,"rebalanceTimeoutMs":10000,"subscribedTopicNames":["$topic"],"subscribedTopicRegex":null,"serverAssignor":null,"topicPartitions":[]}`),
		}},
	69: {"ConsumerGroupDescribe", ReadOnly, "reads KIP-848 consumer groups",
		[]tmpl{every(`{"groupIds":["$group"],"includeAuthorizedOperations":false}`)}},
	70: {"ControllerRegistration", Cluster, "a controller registers with the KRaft quorum",
		// Kafka 4.4.0 checks nothing of the request and registers
		// controller id -1 (which no voter has); UnregisterController's
		// body removes it again. A body it refuses (two listeners of one
		// name) was answered UNKNOWN_SERVER_ERROR, and the controller
		// then answered NOT_CONTROLLER for 20 s: worse.
		[]tmpl{every(`{"controllerId":-1,"zkMigrationReady":false,"listeners":[],"features":[]}`)}},
	71: {"GetTelemetrySubscriptions", ReadOnly, "reads which client metrics the broker wants (KIP-714)",
		[]tmpl{every(`{}`)}},
	72: {"PushTelemetry", Mutating, "pushes client metrics to the broker's metrics reporter (KIP-714)",
		[]tmpl{every(`{"subscriptionId":0,"terminating":false,"compressionType":0,"metrics":""}`)}},
	73: {"AssignReplicasToDirs", Cluster, "a broker tells the controller which directory holds which replicas",
		[]tmpl{every(`{"brokerId":-1,"brokerEpoch":-1,"directories":[]}`)}},
	74: {"ListConfigResources", ReadOnly, "lists config resources (ListClientMetricsResources before 4.1)",
		[]tmpl{every(`{"resourceTypes":[]}`)}},
	75: {"DescribeTopicPartitions", ReadOnly, "reads topics' partitions",
		[]tmpl{every(`{"topics":[{"name":"$topic"}],"responsePartitionLimit":2000,"cursor":null}`)}},
	76: {"ShareGroupHeartbeat", Mutating, "joins, stays in or leaves a share group (KIP-932)",
		[]tmpl{every(`{"groupId":"$group","memberId":"$member","memberEpoch":0,"rackId":null,"subscribedTopicNames":["$topic"]}`)}},
	77: {"ShareGroupDescribe", ReadOnly, "reads share groups",
		[]tmpl{every(`{"groupIds":["$group"],"includeAuthorizedOperations":false}`)}},
	78: {"ShareFetch", Mutating, "fetches records for a share group and acquires them",
		[]tmpl{every(`{"groupId":"$group","memberId":"$member","shareSessionEpoch":0,"maxWaitMs":100,"minBytes":1,"maxBytes":1048576,"maxRecords":500,"batchSize":500,"topics":[{"topicId":"$topicId","partitions":[{"partitionIndex":0,"partitionMaxBytes":1048576,"acknowledgementBatches":[]}]}],"forgottenTopicsData":[]}`)}},
	79: {"ShareAcknowledge", Mutating, "acknowledges a share group's records",
		// release (2) of offset 0 in share session epoch 1.
		[]tmpl{every(`{"groupId":"$group","memberId":"$member","shareSessionEpoch":1,"topics":[{"topicId":"$topicId","partitions":[{"partitionIndex":0,"acknowledgementBatches":[{"firstOffset":0,"lastOffset":0,"acknowledgeTypes":[2]}]}]}]}`)}},
	80: {"AddRaftVoter", Cluster, "adds a voter to the KRaft quorum",
		[]tmpl{every(`{"clusterId":null,"timeoutMs":5000,"voterId":-1,"listeners":[],"ackWhenCommitted":true}`)}},
	81: {"RemoveRaftVoter", Cluster, "removes a voter from the KRaft quorum",
		[]tmpl{every(`{"clusterId":null,"voterId":-1}`)}},
	82: {"UpdateRaftVoter", Cluster, "a voter updates its endpoints and supported versions",
		[]tmpl{every(`{"clusterId":null,"currentLeaderEpoch":-1,"voterId":-1,"listeners":[],"kRaftVersionFeature":{"minSupportedVersion":0,"maxSupportedVersion":0}}`)}},
	83: {"InitializeShareGroupState", Cluster, "a broker asks the share coordinator to initialize a share-partition's state",
		[]tmpl{every(`{"groupId":"$group","topics":[{"topicId":"$topicId","partitions":[{"partition":0,"stateEpoch":0,"startOffset":-1}]}]}`)}},
	84: {"ReadShareGroupState", Cluster, "a broker reads a share-partition's state from the share coordinator",
		[]tmpl{every(`{"groupId":"$group","topics":[{"topicId":"$topicId","partitions":[{"partition":0,"leaderEpoch":0}]}]}`)}},
	85: {"WriteShareGroupState", Cluster, "a broker writes a share-partition's state to the share coordinator",
		[]tmpl{every(`{"groupId":"$group","topics":[{"topicId":"$topicId","partitions":[{"partition":0,"stateEpoch":0,"leaderEpoch":0,"startOffset":-1,"stateBatches":[]}]}]}`)}},
	86: {"DeleteShareGroupState", Cluster, "a broker deletes a share-partition's state at the share coordinator",
		[]tmpl{every(`{"groupId":"$group","topics":[{"topicId":"$topicId","partitions":[{"partition":0}]}]}`)}},
	87: {"ReadShareGroupStateSummary", Cluster, "a broker reads a summary of a share-partition's state",
		[]tmpl{every(`{"groupId":"$group","topics":[{"topicId":"$topicId","partitions":[{"partition":0,"leaderEpoch":0}]}]}`)}},
	88: {"StreamsGroupHeartbeat", Mutating, "joins, stays in or leaves a streams group (KIP-1071)",
		// a topology of one subtopology reading Names.Topic, with no
		// internal topics for the broker to create.
		[]tmpl{every(`{"groupId":"$group","memberId":"$member","memberEpoch":0,"endpointInformationEpoch":0,"instanceId":null,"rackId":null,"rebalanceTimeoutMs":10000,"topology":{"epoch":0,"subtopologies":[{"subtopologyId":"0","sourceTopics":["$topic"],"sourceTopicRegex":[],"stateChangelogTopics":[],"repartitionSinkTopics":[],"repartitionSourceTopics":[],"copartitionGroups":[]}]},"activeTasks":[],"standbyTasks":[],"warmupTasks":[],"processId":"$member","userEndpoint":null,"clientTags":[],"taskOffsets":[],"taskEndOffsets":[],"shutdownApplication":false}`)}},
	89: {"StreamsGroupDescribe", ReadOnly, "reads streams groups",
		[]tmpl{every(`{"groupIds":["$group"],"includeAuthorizedOperations":false,"includeTopologyDescription":false}`)}},
	90: {"DescribeShareGroupOffsets", ReadOnly, "reads a share group's start offsets",
		[]tmpl{every(`{"groups":[{"groupId":"$group","topics":[{"topicName":"$topic","partitions":[0]}]}]}`)}},
	91: {"AlterShareGroupOffsets", Mutating, "sets a share group's start offsets",
		[]tmpl{every(`{"groupId":"$group","topics":[{"topicName":"$topic","partitions":[{"partitionIndex":0,"startOffset":0}]}]}`)}},
	92: {"DeleteShareGroupOffsets", Mutating, "deletes a share group's offsets",
		[]tmpl{every(`{"groupId":"$group","topics":[{"topicName":"$topic"}]}`)}},
	93: {"StreamsGroupTopologyDescriptionUpdate", Mutating, "stores a streams group's topology description",
		[]tmpl{every(`{"groupId":"$group","memberId":"$member","topologyEpoch":0,"topologyDescription":{"subtopologies":[],"globalStores":[]}}`)}},
	94: {"UnregisterController", Cluster, "removes a controller's registration from the quorum",
		// id -1: what ControllerRegistration's body registers.
		[]tmpl{every(`{"controllerId":-1}`)}},
}
