// Package metrics counts what kwire proxy sees (its connection events and
// the exchange records of package exchange) as Prometheus series, with the well-kept client library
// (prometheus/client_golang), and serves them with the proxy's health
// endpoints (Handler: /metrics, /healthz, /readyz).
//
// It decides the series' names and labels and bounds their cardinality:
// the values a client chooses (its software's name and version, its SASL
// principal) and topic names are kept as labels for the first
// Options.MaxValues (MaxTopics) distinct values, and counted under
// "other" after that; topics are labels only with Options.Topics. Every
// label value is valid UTF-8 of at most 128 bytes. No series carries a
// credential: the records it counts (package exchange) hold none.
//
// It leaves the exchange record to package exchange, the connection
// events to package proxy, and listening to the caller (Serve).
//
// The series (all prefixed kwire_):
//
//	requests_total{api,version,client_software,principal}   requests seen
//	responses_total{api,version,client_software,principal}  responses seen
//	response_latency_seconds{api}     histogram: request's last byte to the response's
//	response_errors_total{api,error}  non-zero error codes in responses, by Kafka's name
//	bytes_total{direction,broker}     bytes forwarded (client_to_broker, broker_to_client)
//	topic_requests_total{topic}       requests naming a topic (Options.Topics)
//	connections_accepted_total        client connections accepted
//	connections_open                  client connections open now
//	connections_closed_total{reason}  client_closed, upstream_closed, error
//	connections_failed_total{reason}  upstream_unreachable, tls_handshake
//	connections_not_decoded_total     forwarded undecoded (decode memory taken)
//	problems_total{kind}              flow problems: frame-too-large, gap, …
//	bytes_not_decoded_total{direction} forwarded but not decoded
//	decode_memory_bytes               decode memory reserved now (Options.DecodeMemory)
//	upgrade_check_requests_total{api,version,client_software}  requests the --upgrade-check release does not accept (Options.Upgrades)
package metrics
