package live

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/internal/kafkatest"
	"github.com/kwire/kwire/tree"
)

// recorder keeps what the proxies in front of the controllers decoded, in
// arrival order, tagged with the controller each proxy fronts.
type recorder struct {
	mu       sync.Mutex
	start    time.Time
	lines    []string
	seen     []seenExchange
	problems []string
}

type seenExchange struct {
	to      int // the controller the request went to
	at      time.Time
	api     string
	preVote int // VoteRequest.PreVote: -1 not a Vote or absent, 0 false, 1 true
	errs    []flow.ErrorCode
	ok      bool // both frames decoded
	phase   string
}

func (r *recorder) add(to int, phase func() string, e flow.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e := e.(type) {
	case *flow.Exchange:
		s := seenExchange{to: to, at: time.Now(), api: e.API, preVote: -1, errs: e.Errors, phase: phase()}
		s.ok = e.Request != nil && e.Response != nil && e.Request.Err == nil && e.Response.Err == nil
		if e.Request != nil && e.Request.Tree != nil && e.API == "Vote" {
			s.preVote = boolField(e.Request.Tree, "PreVote")
		}
		r.seen = append(r.seen, s)
		extra := ""
		if s.preVote >= 0 {
			extra = fmt.Sprintf(" PreVote=%v", s.preVote == 1)
		}
		var req, resp int
		if e.Request != nil {
			req = e.Request.Size
		}
		if e.Response != nil {
			resp = e.Response.Size
		}
		r.lines = append(r.lines, fmt.Sprintf("%8.3fs  [%s] -> controller %d  %s v%d  corr %d  %d B / %d B  %v%s errors=%v",
			time.Since(r.start).Seconds(), s.phase, to, e.API, e.Version, e.CorrelationID, req, resp, e.Latency().Round(time.Microsecond), extra, e.Errors))
	case *flow.Problem:
		line := fmt.Sprintf("%8.3fs  [%s] -> controller %d  problem: %s", time.Since(r.start).Seconds(), phase(), to, e)
		r.lines = append(r.lines, line)
		// A connection cut by a killed or stopping node ends mid-frame:
		// expected; anything else is a decoding fault.
		if e.Kind != flow.Truncated {
			r.problems = append(r.problems, line)
		}
	}
}

// boolField returns the first field of that name in t: 1 true, 0 false, -1
// when absent.
func boolField(t *tree.Tree, name string) int {
	for i := range t.Nodes {
		if f := t.Field(int32(i)); f != nil && f.Name == name && t.Nodes[i].Kind() == tree.Field {
			if t.Num(int32(i)) != 0 {
				return 1
			}
			return 0
		}
	}
	return -1
}

func (r *recorder) count(phase, api string, pred func(seenExchange) bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range r.seen {
		if (phase == "" || s.phase == phase) && s.api == api && (pred == nil || pred(s)) {
			n++
		}
	}
	return n
}

// A KRaft quorum of 3 controllers and 1 broker whose voter endpoints are
// kwire proxies in front of the real controllers: every controller-to-
// controller connection (and the broker's to the controllers) goes through
// kwire. The test stops the active controller gracefully, then, once it is
// back, kills the new leader, and checks that the decoded streams show the
// protocol doing it: BeginQuorumEpoch from each new leader, EndQuorumEpoch
// on the graceful resignation, PreVote and Vote requests and responses for
// the elections (KIP-996: Kafka 4 votes in two rounds), and KRaft Fetch
// throughout; then `kwire call DescribeQuorum` reports the last leader at a
// higher epoch. The decoded exchanges are kept as a test artefact.
func TestQuorumThroughProxies(t *testing.T) {
	kafkatest.Require(t)
	rec := &recorder{start: time.Now()}
	var phaseMu sync.Mutex
	phase := "start"
	getPhase := func() string { phaseMu.Lock(); defer phaseMu.Unlock(); return phase }
	setPhase := func(p string) { phaseMu.Lock(); phase = p; phaseMu.Unlock() }

	ports := []int{kafkatest.FreePort(t), kafkatest.FreePort(t), kafkatest.FreePort(t)}
	// With artefacts kept and KWIRE_KAFKA_REQUIRED=1 (CI, where tcpdump
	// may capture: startTcpdump fails the test otherwise), tcpdump records
	// the controllers' side of the proxies for
	// TestWiresharkAgreesOnCaptures: one entry a controller port.
	if dir := kafkatest.ArtifactDir(t); dir != "" && kafkatest.Required() {
		if tcpdump, err := exec.LookPath("tcpdump"); err == nil {
			pcap := filepath.Join(dir, "quorum.pcap")
			stop := startTcpdump(t, tcpdump, pcap, fmt.Sprintf("tcp port %d or tcp port %d or tcp port %d", ports[0], ports[1], ports[2]))
			defer func() {
				stop()
				for _, p := range ports {
					noteCapture(t, pcap, fmt.Sprint(p), "")
				}
			}()
		}
	}
	front := map[int]string{}
	for i, p := range ports {
		id := i + 1
		front[id] = startProxy(t, fmt.Sprintf("127.0.0.1:%d", p), func(e flow.Event) { rec.add(id, getPhase, e) })
	}
	defer func() {
		if dir := kafkatest.ArtifactDir(t); dir != "" {
			rec.mu.Lock()
			os.WriteFile(filepath.Join(dir, "exchanges.txt"), []byte(strings.Join(rec.lines, "\n")+"\n"), 0o644)
			rec.mu.Unlock()
		}
	}()
	c := kafkatest.Start(t, kafkatest.Config{
		Controllers: 3, Brokers: 1, ControllerPorts: ports,
		VoterAddr: func(id int, real string) string { return front[id] },
		Props: map[string]string{
			"controller.quorum.election.timeout.ms": "1000",
			"controller.quorum.fetch.timeout.ms":    "2000",
		},
	})
	t.Logf("quorum up: voters %s, broker %s", c.Voters, c.Bootstrap)

	s1 := waitQuorum(t, c.Bootstrap, time.Minute, "a first leader", func(s quorumState) bool { return s.Leader > 0 && len(s.Voters) == 3 })
	t.Logf("leader %d at epoch %d", s1.Leader, s1.Epoch)
	if rec.count("start", "BeginQuorumEpoch", func(s seenExchange) bool { return s.ok }) == 0 {
		t.Errorf("no BeginQuorumEpoch decoded while the first leader was elected")
	}

	// 1. The active controller resigns: SIGTERM, a graceful shutdown.
	setPhase("graceful")
	old := c.Node(int(s1.Leader))
	old.Stop(time.Minute)
	s2 := waitQuorum(t, c.Bootstrap, time.Minute, "a new leader after the graceful stop", func(s quorumState) bool {
		return s.Leader > 0 && s.Leader != s1.Leader && s.Epoch > s1.Epoch
	})
	t.Logf("graceful stop of %d: leader %d at epoch %d", s1.Leader, s2.Leader, s2.Epoch)
	// Let the new leader's BeginQuorumEpoch round reach the other voter.
	waitFor(t, 20*time.Second, "BeginQuorumEpoch from the new leader", func() bool {
		return rec.count("graceful", "BeginQuorumEpoch", func(s seenExchange) bool { return s.ok }) > 0
	})
	if n := rec.count("graceful", "EndQuorumEpoch", func(s seenExchange) bool { return s.ok }); n == 0 {
		t.Errorf("no EndQuorumEpoch decoded on the graceful resignation")
	}
	if n := rec.count("graceful", "Vote", func(s seenExchange) bool { return s.ok && s.preVote == 0 }); n == 0 {
		t.Errorf("no Vote (PreVote=false) decoded in the election after the graceful stop")
	}

	// 2. It comes back, catches up, and then the new leader dies (SIGKILL:
	// no EndQuorumEpoch, the others notice by fetch timeout).
	setPhase("restart")
	if err := old.Restart(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := old.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	waitQuorum(t, c.Bootstrap, time.Minute, "the restarted controller caught up", func(s quorumState) bool {
		leo, ok := s.Voters[s1.Leader]
		return s.Leader == s2.Leader && ok && leo >= s.HighWatermark-5 && leo > 0
	})
	setPhase("kill")
	killed := c.Node(int(s2.Leader))
	killed.Kill()
	s3 := waitQuorum(t, c.Bootstrap, time.Minute, "a new leader after the kill", func(s quorumState) bool {
		return s.Leader > 0 && s.Leader != s2.Leader && s.Epoch > s2.Epoch
	})
	t.Logf("kill of %d: leader %d at epoch %d", s2.Leader, s3.Leader, s3.Epoch)
	if n := rec.count("kill", "Vote", func(s seenExchange) bool { return s.ok && s.preVote == 1 }); n == 0 {
		t.Errorf("no PreVote (VoteRequest.PreVote=true) decoded in the election after the kill")
	}
	if n := rec.count("kill", "Vote", func(s seenExchange) bool { return s.ok && s.preVote == 0 }); n == 0 {
		t.Errorf("no Vote (PreVote=false) decoded in the election after the kill")
	}
	if n := rec.count("kill", "EndQuorumEpoch", nil); n != 0 {
		t.Errorf("%d EndQuorumEpoch after a SIGKILL: the killed leader cannot have resigned", n)
	}
	if n := rec.count("", "Fetch", func(s seenExchange) bool { return s.ok }); n < 10 {
		t.Errorf("only %d KRaft Fetch exchanges decoded", n)
	}

	// 3. kwire call, the command itself, reports the new leader and epoch.
	out := kwireCommand(t, "call", "--bootstrap", c.Bootstrap, "DescribeQuorum")
	m := regexp.MustCompile(`quorum __cluster_metadata-0: leader (\d+), epoch (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("kwire call DescribeQuorum:\n%s", out)
	}
	if got, _ := strconv.Atoi(m[1]); got != int(s3.Leader) {
		t.Errorf("kwire call: leader %s, want %d", m[1], s3.Leader)
	}
	if got, _ := strconv.Atoi(m[2]); got <= int(s1.Epoch) {
		t.Errorf("kwire call: epoch %s, not above the first leader's %d", m[2], s1.Epoch)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, p := range rec.problems {
		t.Errorf("decode problem: %s", p)
	}
	t.Logf("%d exchanges decoded: %d BeginQuorumEpoch, %d EndQuorumEpoch, %d Vote, %d Fetch", len(rec.seen),
		countAPI(rec.seen, "BeginQuorumEpoch"), countAPI(rec.seen, "EndQuorumEpoch"), countAPI(rec.seen, "Vote"), countAPI(rec.seen, "Fetch"))
}

func countAPI(s []seenExchange, api string) int {
	n := 0
	for _, x := range s {
		if x.api == api {
			n++
		}
	}
	return n
}

func waitFor(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if ok() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%s: not within %v", what, d)
}

var kwireBin struct {
	once sync.Once
	path string
	err  error
}

// kwirePath builds cmd/kwire once per test binary and returns the
// executable's path.
func kwirePath(t *testing.T) string {
	t.Helper()
	kwireBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "kwire-bin-")
		if err != nil {
			kwireBin.err = err
			return
		}
		kwireBin.path = filepath.Join(dir, "kwire")
		out, err := exec.Command("go", "build", "-o", kwireBin.path, "github.com/kwire/kwire/cmd/kwire").CombinedOutput()
		if err != nil {
			kwireBin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if kwireBin.err != nil {
		t.Fatal(kwireBin.err)
	}
	return kwireBin.path
}

// kwireCommand builds cmd/kwire once and runs it, returning its stdout.
func kwireCommand(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, err := kwireRun(t, nil, args...)
	if err != nil {
		t.Fatalf("kwire %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return out
}

// kwireRun runs kwire with args and, beside the environment, env
// ("NAME=value"), returning its standard output and error.
func kwireRun(t *testing.T, env []string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command(kwirePath(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var se strings.Builder
	cmd.Stderr = &se
	out, err := cmd.Output()
	return string(out), se.String(), err
}
