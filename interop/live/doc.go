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
// makes that a failure (CI). TestSecureCluster also checks the proxy's
// metrics through a real Prometheus (Debian's prometheus on PATH), its
// audit log, and its Parquet files through DuckDB (a Python that imports
// duckdb: $KWIRE_PYTHON, .build/venv, or python3), as TestKeyLog checks
// kwire pcap's; without them those checks are skipped, and
// KWIRE_PROMETHEUS_REQUIRED=1 and KWIRE_DUCKDB_REQUIRED=1 make that a
// failure.
package live
