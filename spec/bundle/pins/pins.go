// Package pins is the table of Apache Kafka release artifacts that
// cmd/kwire-specgen bundles into package github.com/kwire/kwire/spec/bundle.
//
// It is a package of its own, with no embedded data, so that the generator
// can be built even when no bundle exists yet.
package pins

import "strings"

// MavenRepository is the base URL of the Maven repository that the pinned
// artifacts are downloaded from (Maven Central).
const MavenRepository = "https://repo.maven.apache.org/maven2"

// specDirs are the jar directories whose *.json entries are bundled.
var specDirs = []string{"common/message/", "common/metadata/"}

// SpecDirs returns the directories, inside each pinned jar, whose *.json
// entries are Kafka message specification files and are copied into the
// bundles: "common/message/" and "common/metadata/".
func SpecDirs() []string {
	return append([]string(nil), specDirs...)
}

// Pin is one pinned Maven artifact: a jar of an Apache Kafka release, with the
// SHA-256 digest its download must have.
type Pin struct {
	// Release is the Apache Kafka release version, e.g. "4.4.0".
	Release string
	// GroupID is the Maven group, e.g. "org.apache.kafka".
	GroupID string
	// ArtifactID is the Maven artifact, e.g. "kafka-clients".
	ArtifactID string
	// SHA256 is the lower-case hex SHA-256 digest of the jar.
	SHA256 string
}

// table is the single source of truth for what kwire-specgen bundles. Keep it
// sorted by release (newest first), then artifact.
var table = []Pin{
	{"4.4.0", "org.apache.kafka", "kafka-clients", "1ab07317eb6633241392449d329dbdc5d9251e6ffc4926860f42dd966e88bdf9"},
	{"4.4.0", "org.apache.kafka", "kafka-metadata", "6c52de74ecd670332e1e1324f5d40311275ac49b22699b6722e5fb07dd266fcb"},
	{"4.4.0", "org.apache.kafka", "kafka-raft", "687f278ce5d82b7f53644643e21e1a7452530f202826108990f0fe4f3d334d4f"},
	{"3.9.1", "org.apache.kafka", "kafka-clients", "7568b998572d256f0b7bc0afdc1b7a2588b8b08415c62ce314c864a6851ae9d9"},
	{"3.9.1", "org.apache.kafka", "kafka-metadata", "35c35118d4abb0b747ad68d1e0be00d5bd02206b462ad76ebbcd85b33436f13a"},
	{"3.9.1", "org.apache.kafka", "kafka-raft", "0d4236cf868f8668c74c49bec4bed41e400bb13d6d381a0f8e9843585b2f159f"},
}

// All returns a copy of the pinned artifacts, newest release first.
func All() []Pin {
	return append([]Pin(nil), table...)
}

// Releases returns the pinned release versions, newest first.
func Releases() []string {
	var rs []string
	for _, p := range table {
		if len(rs) == 0 || rs[len(rs)-1] != p.Release {
			rs = append(rs, p.Release)
		}
	}
	return rs
}

// Coord returns the Maven coordinate "group:artifact:version".
func (p Pin) Coord() string {
	return p.GroupID + ":" + p.ArtifactID + ":" + p.Release
}

// FileName returns the jar's file name, e.g. "kafka-clients-4.4.0.jar".
func (p Pin) FileName() string {
	return p.ArtifactID + "-" + p.Release + ".jar"
}

// URL returns the jar's download URL in [MavenRepository].
func (p Pin) URL() string {
	return MavenRepository + "/" + strings.ReplaceAll(p.GroupID, ".", "/") +
		"/" + p.ArtifactID + "/" + p.Release + "/" + p.FileName()
}

// BundleName returns the name of the bundle file that holds the given
// release, e.g. "kafka-4.4.0.bundle.gz".
func BundleName(release string) string {
	return "kafka-" + release + ".bundle.gz"
}
