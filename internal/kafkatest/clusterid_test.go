package kafkatest

import (
	"encoding/base64"
	"testing"
)

// TestNewClusterIDNeverStartsWithDash draws enough ids that a generator
// letting '-' through (one id in 64) would fail with near certainty.
func TestNewClusterIDNeverStartsWithDash(t *testing.T) {
	for i := 0; i < 5000; i++ {
		id := newClusterID()
		if id[0] == '-' {
			t.Fatalf("cluster id %q begins with '-'", id)
		}
		b, err := base64.RawURLEncoding.DecodeString(id)
		if err != nil || len(b) != 16 || len(id) != 22 {
			t.Fatalf("cluster id %q is not 16 bytes of URL-safe base64: %v", id, err)
		}
	}
}
