package live

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kwire/kwire/internal/kafkatest"
)

// captureList is where the live tests note their captures for
// cmd/kwire's TestWiresharkAgreesOnCaptures, which dissects each with
// tshark and the generated dissector and compares it with kwire pcap:
// KWIRE_ARTIFACTS/wireshark-captures.txt, one FILE,PORT[,KEYLOG] a line
// (.ci/run hands the lines to it as KWIRE_WIRESHARK_CAPTURES).
const captureList = "wireshark-captures.txt"

var captureListMu sync.Mutex

// noteCapture adds a capture of Kafka traffic on port (TLS when keylog
// names its key log) to the list, when artefacts are kept.
func noteCapture(t *testing.T, file, port, keylog string) {
	t.Helper()
	root := os.Getenv("KWIRE_ARTIFACTS")
	if root == "" {
		return
	}
	line := file + "," + port
	if keylog != "" {
		line += "," + keylog
	}
	if strings.ContainsAny(line, ";\n") {
		t.Errorf("capture %q: a name with ';' or a newline cannot be listed", line)
		return
	}
	captureListMu.Lock()
	defer captureListMu.Unlock()
	f, err := os.OpenFile(filepath.Join(root, captureList), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Errorf("capture list: %v", err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Errorf("capture list: %v", err)
	}
}

// saramaCaptured is how many records sarama produces and consumes under
// tcpdump: enough for several Produce and Fetch exchanges, few enough
// that tshark's PDML of the capture stays small.
const saramaCaptured = 300

var saramaRuns atomic.Int32

// TestSaramaCaptured captures, with Debian's tcpdump on loopback, sarama
// producing and consuming straight to the shared broker (ApiVersions,
// Metadata, Produce, Fetch, ListOffsets as sarama sends them) and notes
// the capture for TestWiresharkAgreesOnCaptures. Without tcpdump or the
// right to capture it skips (fails with KWIRE_KAFKA_REQUIRED=1).
func TestSaramaCaptured(t *testing.T) {
	c := kafkatest.Shared(t)
	tcpdump, err := exec.LookPath("tcpdump")
	if err != nil {
		msg := "no tcpdump: " + err.Error() + " (apt-get install tcpdump)"
		if kafkatest.Required() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	out := kafkatest.ArtifactDir(t)
	if out == "" {
		out = t.TempDir()
	}
	_, port, err := net.SplitHostPort(c.Bootstrap)
	if err != nil {
		t.Fatal(err)
	}
	// A topic of its own each run: the shared broker outlives a run
	// (go test -count).
	topic := fmt.Sprintf("sarama-captured-%d", saramaRuns.Add(1))
	createTopic(t, c.Bootstrap, topic)
	pcap := filepath.Join(out, "sarama.pcap")
	stop := startTcpdump(t, tcpdump, pcap, "tcp port "+port)
	var d net.Dialer
	produceConsumeSarama(t, c.Bootstrap, topic, func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}, saramaCaptured)
	stop()
	fi, err := os.Stat(pcap)
	if err != nil || fi.Size() < 1000 {
		t.Fatalf("capture %s: %v (%d bytes)", pcap, err, sizeOf(fi))
	}
	noteCapture(t, pcap, port, "")
}

func sizeOf(fi os.FileInfo) int64 {
	if fi == nil {
		return 0
	}
	return fi.Size()
}
