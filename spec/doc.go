// Package spec reads Apache Kafka's message specifications: the
// JSON-with-comments files of common/message/*.json (kafka-clients),
// common/metadata/*.json (kafka-metadata) and QuorumStateData.json
// (kafka-raft), and the record specs of Kafka's internal topics (the group,
// transaction and share coordinators' and kafka-storage's; see Topic), from
// the embedded bundle of a pinned release (see spec/bundle), a directory, a
// .jar/.zip, or a single draft file.
//
// It models every key Kafka's generator knows (apiKey, type, listeners,
// validVersions, flexibleVersions, latestVersionUnstable, commonStructs and,
// per field, type, versions, nullableVersions, taggedVersions, tag, default,
// ignorable, mapKey, entityType, zeroCopy, flexibleVersions, about) with the
// generator's own parsing rules (org.apache.kafka.message.MessageSpec,
// FieldSpec, FieldType, Versions, StructRegistry): Jackson's scalar
// coercion, last-duplicate-key-wins, unknown keys rejected, "default": null
// meaning the natural default. Problems are collected, not thrown: each
// carries a file:line:col position, a rule id and a hint where one helps.
//
// It does not encode anything: see package codec. Lint's own rules and
// --fix are package spec/lint's (Parse gives it each object's JSON and
// positions); compat, diff and history are package spec/evolve's. This
// package imports neither. Where this package and
// Kafka's 4.4.0 behaviour differ, Kafka wins; one documented difference is
// that removed APIs in Kafka 4.x ship as stubs with "validVersions": "none"
// and no flexibleVersions, which are accepted here.
//
// names.txt is generated from the embedded releases (TestEmbeddedNames
// checks it; go test ./spec -run TestEmbeddedNames -update rewrites it):
// each message's name, type, api key, internal topic and valid versions in
// every embedded release. The hints of an unknown name or a missing version
// (Set.Lookup's errors, NewestEmbeddedMessage) read it, so that they parse
// only the release they name instead of every embedded release.
package spec
