package exchange

import "encoding/base64"

// topicID writes a topic id as Kafka's Uuid.toString does: URL-safe
// base64 without padding (22 characters).
func topicID(id [16]byte) string { return base64.RawURLEncoding.EncodeToString(id[:]) }
