// Package exchange builds the one record of a Kafka exchange that kwire
// proxy and kwire pcap hand to their service outputs — the Prometheus
// metrics (package metrics), the audit log (Audit) and the Parquet files
// (ParquetDir) — so that the three describe an exchange with the same
// values.
//
// A Record is made from what package flow decoded (a *flow.Exchange: API,
// version, correlation id, client id, frame sizes, latency, error codes,
// the client software of the connection's ApiVersions request, the topics
// and partitions the request names) and what the caller knows of the
// connection (its number, the client's and the broker's addresses, the
// broker's node id). A Tracker adds what only the connection's earlier
// exchanges tell: the SASL mechanism and principal (the user name that
// flow read from the first auth bytes, secret.SASLUser). A Record never
// holds a password, a token or any other credential: it has no field that
// could.
//
// The package decides the record's fields, their JSON keys (one audit line
// per exchange, Record's json tags) and their Parquet columns (Record's
// parquet tags; docs/exchanges.md documents the schema). It leaves the
// decoding to flow, the labels and their bounds to metrics, and when to
// roll or flush to its sinks' options.
package exchange
