package body

import (
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// Names are the resources a body may name. conform creates each of them
// under its own prefix (kwire-conform-<random>) before it sends a body that
// names them, and deletes them at the end; a body never names anything else
// that a target may hold.
type Names struct {
	// Prefix is the prefix every created resource's name starts with.
	Prefix string
	// Topic is a topic conform created; TopicID its id (all zero while
	// unknown).
	Topic   string
	TopicID [16]byte
	// Group is a consumer group id, TransactionalID a transactional id,
	// both conform's own.
	Group, TransactionalID string
}

// Access is what a request can do to the target it is sent to.
type Access int

// The access classes, from the safest.
const (
	// ReadOnly requests read state and change nothing a target already
	// holds: conform sends them by default.
	ReadOnly Access = iota
	// Mutating requests can change data (topics, records, configs, ACLs,
	// quotas, offsets, groups, transactions…): sent only with --mutate,
	// and then only about Names' resources.
	Mutating
	// Cluster requests are inter-broker and KRaft-quorum APIs that can
	// disturb a live cluster: sent only with --cluster-apis.
	Cluster
)

// AccessOf returns m's access class. An API this package does not know is
// Mutating: unknown means unsafe.
func AccessOf(m *spec.Message) Access {
	switch m.APIKey {
	case 3, 18: // Metadata, ApiVersions
		return ReadOnly
	}
	return Mutating
}

// For returns a valid body of request m at version v that names only n's
// resources, as a value tree ready for codec to encode.
func For(m *spec.Message, v int16, n Names) (*tree.Tree, error) {
	return instance.Smallest(m, v), nil
}
