package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kwire/kwire/conform/body"
	"github.com/kwire/kwire/internal/fakebroker"
	"github.com/kwire/kwire/spec"
)

// TestConform runs kwire conform against the fake broker, which announces
// Metadata but not Produce, Fetch or ListOffsets (a finding about its
// ApiVersions answer) and answers Metadata without the topic asked for:
// exit 1, the matrix and each finding with its replay command; JSON lines
// one per probe; usage errors exit 2, an unreachable target 1.
func TestConform(t *testing.T) {
	b := fakebroker.Start(t, fakebroker.Options{})
	r := kwire(t, "conform", b.Addr, "--random", "1")
	if r.code != 1 || !strings.Contains(r.stdout, "\nMetadata (3)  ") || !strings.Contains(r.stdout, "a broker listener must announce Produce (api key 0): it does not") ||
		!strings.Contains(r.stdout, "replay: kwire call --bootstrap "+b.Addr+" ApiVersions '{") || !strings.Contains(r.stderr, "probes with findings") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	for _, seen := range b.Seen() {
		for _, name := range seen {
			if m, _, err := set.Lookup(name); err != nil || body.AccessOf(m) != body.ReadOnly {
				t.Errorf("sent %s without --mutate", name)
			}
		}
	}

	r = kwire(t, "--kafka", "3.9", "conform", b.Addr, "--format", "json", "--random", "0", "--api", "Metadata")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	// The ApiVersions answer, then Metadata v0-12 of Kafka 3.9.
	if r.code != 1 || len(lines) != 14 || !strings.HasPrefix(r.stderr, "kwire: 14 probes: ") {
		t.Fatalf("exit %d, %d lines\nstdout:\n%s\nstderr:\n%s", r.code, len(lines), r.stdout, r.stderr)
	}
	for _, l := range lines {
		var p struct {
			API     string `json:"api"`
			Outcome string `json:"outcome"`
			Request string `json:"request"`
		}
		if err := json.Unmarshal([]byte(l), &p); err != nil || p.Request == "" || p.Outcome == "" {
			t.Errorf("line %s: %v", l, err)
		}
	}

	for _, args := range [][]string{{"conform"}, {"conform", "nohost"}, {"conform", b.Addr, "--api", "Nope"}, {"conform", b.Addr, "--random", "-1"}, {"conform", b.Addr, "--format", "xml"}, {"conform", b.Addr, "--scenarios", "lifecycle"}, {"conform", b.Addr, "--scenarios", "transactions"}, {"conform", b.Addr, "--scenarios", "edges,groups"}, {"conform", b.Addr, "--scenarios", "nope"}} {
		if r := kwire(t, args...); r.code != 2 || r.stdout != "" {
			t.Errorf("kwire %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
	// The fake broker against itself: its own findings, and no difference.
	if r := kwire(t, "conform", b.Addr, "--reference", b.Addr, "--random", "1"); r.code != 1 || strings.Contains(r.stdout, "differs") ||
		!strings.Contains(r.stdout, "differential: each answer compared with the reference "+b.Addr+"'s, ignoring throttle (ThrottleTimeMs)") {
		t.Errorf("--reference: exit %d\n%s", r.code, r.stdout)
	}
	if r := kwire(t, "conform", b.Addr, "--reference", "nohost"); r.code != 2 {
		t.Errorf("--reference nohost: exit %d", r.code)
	}
	if r := kwire(t, "conform", "127.0.0.1:1"); r.code != 1 || !strings.Contains(r.stderr, "127.0.0.1:1") {
		t.Errorf("unreachable: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := kwire(t, "conform", "--help"); r.code != 0 || !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), "transactions (InitProducerId with a transactional id") ||
		!strings.Contains(strings.Join(strings.Fields(r.stdout), " "), "groups (classic: JoinGroup with the MEMBER_ID_REQUIRED rejoin") {
		t.Errorf("--help: exit %d\n%s", r.code, r.stdout)
	}
	if r := kwire(t, "conform", "--classes"); r.code != 0 || !strings.Contains(r.stdout, "\n3    Metadata                             read-only (default)\n") {
		t.Errorf("--classes: exit %d\n%s", r.code, r.stdout)
	}
}
