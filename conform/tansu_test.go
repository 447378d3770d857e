package conform_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/conform"
	"github.com/kwire/kwire/internal/kafkatest"
)

// apiKeyAt is an element of ApiVersions' ApiKeys with its offset.
var apiKeyAt = regexp.MustCompile(`ApiKeys\[[0-9]+\]([.A-Za-z]*) at 0x[0-9a-f]+`)

// tansuBin is the Tansu binary: KWIRE_TANSU, else the one
// interop/tansu/install.sh builds, else tansu on the PATH; "" when none.
func tansuBin() string {
	if b := os.Getenv("KWIRE_TANSU"); b != "" {
		return b
	}
	if b, err := filepath.Abs(filepath.Join("..", "interop", "tansu", "target", "bin", "tansu")); err == nil {
		if _, err := os.Stat(b); err == nil {
			return b
		}
	}
	b, _ := exec.LookPath("tansu")
	return b
}

// TestTansu runs the default run against Tansu (a Kafka-compatible broker
// in Rust, in memory), when it is installed (interop/tansu/install.sh):
// the run completes, every probe has an outcome, and the report is
// testdata/tansu.txt (Tansu 0.6.0's findings are real findings, explained
// in docs/conform.md) (KWIRE_TANSU_REQUIRED=1
// turns the skip into a failure: CI sets it); its findings are
// Tansu's, logged (and the text report kept in KWIRE_ARTIFACTS when set).
func TestTansu(t *testing.T) {
	bin := tansuBin()
	if bin == "" {
		if os.Getenv("KWIRE_TANSU_REQUIRED") == "1" {
			t.Fatal("Tansu is not installed (interop/tansu/install.sh); KWIRE_TANSU_REQUIRED=1 makes this a failure")
		}
		t.Skip("Tansu is not installed (interop/tansu/install.sh)")
	}
	port := kafkatest.FreePort(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	url := "tcp://" + addr
	cmd := exec.Command(bin, "broker", "--listener-url", url, "--advertised-listener-url", url, "--storage-engine", "memory://tansu/")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	s := set44(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		cn, err := client.Dial(context.Background(), addr, codec.New(s), client.Options{Timeout: time.Second})
		if err == nil {
			cn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Tansu at %s did not answer ApiVersions: %v", addr, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: s, Random: conform.DefaultRandom, Seed: 1, Client: client.Options{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteText(&b, conform.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Logf("Tansu: %s", r.Summary())
	if dir := os.Getenv("KWIRE_ARTIFACTS"); dir != "" {
		os.WriteFile(filepath.Join(dir, "conform-tansu.txt"), []byte(b.String()), 0o644)
	}
	// Tansu lists ApiVersions' ApiKeys in another order on every run: the
	// golden report names them without their index and offset.
	goldenText(t, r, "tansu.txt", func(txt string) string {
		lines := strings.Split(apiKeyAt.ReplaceAllString(txt, "ApiKeys[…]${1}"), "\n")
		for i := 0; i < len(lines); {
			j := i
			for j < len(lines) && strings.HasPrefix(lines[j], "  apiversions: ") {
				j++
			}
			slices.Sort(lines[i:j])
			i = j + 1
		}
		return strings.Join(lines, "\n")
	})
	if len(r.Probes) < 2 || len(r.APIs) == 0 {
		t.Errorf("a run of %d probes over %d APIs:\n%s", len(r.Probes), len(r.APIs), b.String())
	}
}
