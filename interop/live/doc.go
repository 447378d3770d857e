// Package live holds kwire's tests against real Apache Kafka 4.4.0 nodes
// (started by internal/kafkatest from the jars interop/kafka/install.sh
// fetches): a KRaft quorum seen through kwire proxies, real clients
// (franz-go, sarama) through a proxy, a 3-broker cluster with SSL and
// SASL_SSL listeners reached directly and through a TLS proxy routing every
// broker (TestSecureCluster), records of every codec read back from
// Fetch, log segments and the __cluster_metadata log, the internal
// topics' records of consumer, share and transactional workloads against
// kafka-dump-log's decoders and kafka-consumer-groups
// (TestInternalTopicsLive), and the proxy benchmark. Without Kafka installed the tests skip; KWIRE_KAFKA_REQUIRED=1
// makes that a failure (CI).
package live
