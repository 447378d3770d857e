package kafkatest

import "testing"

// The line a package's TestMain prints when live tests skipped: the count,
// the test binary and the reason, and nothing when none skipped.
func TestSkipNotice(t *testing.T) {
	got := SkipNotice("kwire.test", 3, "open /x/classpath.txt: no such file or directory")
	want := "kwire.test: 3 live tests skipped: real Kafka not available: open /x/classpath.txt: no such file or directory (run interop/kafka/install.sh)"
	if got != want {
		t.Errorf("SkipNotice = %q, want %q", got, want)
	}
	if got := SkipNotice("live.test", 1, "java: not found"); got != "live.test: 1 live test skipped: real Kafka not available: java: not found (run interop/kafka/install.sh)" {
		t.Errorf("SkipNotice(1) = %q", got)
	}
	if got := SkipNotice("kwire.test", 0, ""); got != "" {
		t.Errorf("SkipNotice(0) = %q, want empty", got)
	}
}

// Require counts a skip for Main's notice.
func TestRequireCountsSkip(t *testing.T) {
	if Required() {
		t.Skip("KWIRE_KAFKA_REQUIRED=1: Require fails instead of skipping")
	}
	t.Setenv("KWIRE_KAFKA_CLASSPATH", t.TempDir()+"/missing.txt")
	skips.Lock()
	before := skips.n
	skips.Unlock()
	t.Run("inner", func(t *testing.T) { Require(t); t.Error("Require did not skip") })
	skips.Lock()
	n, why := skips.n, skips.why
	skips.n = before
	skips.Unlock()
	if n != before+1 || why == "" {
		t.Errorf("skips after Require = %d (%q), want %d and a reason", n, why, before+1)
	}
}
