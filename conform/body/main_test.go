package body

import (
	"os"
	"testing"

	"github.com/kwire/kwire/internal/kafkatest"
)

// TestMain stops the shared Kafka node and says when live tests skipped.
func TestMain(m *testing.M) { os.Exit(kafkatest.Main(m)) }
