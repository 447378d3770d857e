package live

import (
	"os"
	"testing"

	"github.com/kwire/kwire/internal/kafkatest"
)

func TestMain(m *testing.M) { os.Exit(kafkatest.Main(m)) }
