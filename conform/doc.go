// Package conform judges anything that speaks Kafka's protocol (a broker,
// a proxy, a Kafka-compatible server) against a Kafka release's specs:
// the engine of kwire conform.
//
// Run connects (package client: TLS, SASL, the ApiVersions handshake with
// its KIP-511 fallback), judges the ApiVersions answer against the release
// (JudgeAPIVersions), then sends, for every (API, version) the target
// announces and the release defines, the valid body of package
// conform/body and seeded random valid requests (package instance), and
// judges every response strictly (Judge): correlation id, response header
// version, no byte left over, tagged fields well formed and ascending,
// non-nullable fields not null, UTF-8 strings, error codes Kafka defines,
// the topics and partitions asked for answered, throttle time not
// negative. Each probe ends as an Outcome; a valid body refused at a
// version the target announced (UNSUPPORTED_VERSION or a closed
// connection) is a finding about the ApiVersions answer. What Kafka
// itself does on purpose (References) is not a finding.
//
// Safety is by access class (body.AccessOf): read-only APIs are sent by
// default, mutating ones only with Options.Mutate and only about the
// resources Run creates under its prefix kwire-conform-<random> and
// deletes at the end (also when its context is cancelled), inter-broker
// and KRaft-quorum APIs only with Options.ClusterAPIs. Random requests are
// sent to read-only APIs only, with topic auto-creation off and no replica
// id.
//
// Options.Scenarios then runs sequences whose later steps depend on the
// earlier ones, each step a probe of kind "scenario" with the results
// Kafka gives: the protocol edges (read-only) and, with Options.Mutate
// (MutatingScenarios), the topic lifecycle with every codec, the
// idempotent produce, transactions (commit, abort, both isolation levels)
// and consumer groups (classic and KIP-848).
//
// Report holds the probes; WriteText (a matrix of APIs × versions, then
// each finding with the kwire call command that replays it), WriteJSON
// (JSON lines) and WriteJUnit (JUnit XML) write it.
//
// It leaves to others: what each body holds and which APIs are safe
// (conform/body), the bytes (codec decides every byte's meaning and
// reports where decoding fails; conform reads the span trees), the
// connection (client), and the judging of clients' requests (kwire proxy
// and pcap). Flags and printing are cmd/kwire's.
package conform
