package main

import (
	"slices"
	"strings"
	"testing"
)

// Every embedded release works offline by its minor or its exact version:
// the Produce versions each accepts (v10 came in 3.7, 4.0 dropped v0-v2
// and added v12, 4.4 has v13).
func TestKafkaSelectsAnyEmbeddedRelease(t *testing.T) {
	for _, c := range []struct{ kafka, versions string }{
		{"3.0", "0-9"}, {"3.0.2", "0-9"}, {"3.6", "0-9"}, {"3.6.2", "0-9"}, {"3.7", "0-10"},
		{"3.9", "0-11"}, {"3.9.1", "0-11"}, {"4.0", "3-12"}, {"4.0.2", "3-12"}, {"4.4", "3-13"},
	} {
		out := mustRun(t, "--kafka", c.kafka, "show", "Produce")
		if want := "\n  Request versions   " + c.versions + "\n  Response versions  " + c.versions + "\n"; !strings.Contains(out, want) {
			t.Errorf("--kafka %s show Produce: want %q in\n%s", c.kafka, want, out)
		}
	}
	for _, c := range []struct{ kafka, release string }{{"3.6", "3.6.2"}, {"3.9", "3.9.2"}, {"3.9.1", "3.9.1"}, {"4.0", "4.0.2"}} {
		r := kwire(t, "--kafka", c.kafka, "show", "Produce", "--version", "13")
		if want := "in Kafka " + c.release + " (valid versions: "; r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("--kafka %s show Produce --version 13: exit %d, %q; want %q", c.kafka, r.code, r.stderr, want)
		}
	}
}

// The upgrade check against Kafka 4.0 (its last patch, 4.0.2), offline: the
// 3.9-era client's Produce v2 and ListOffsets v0 are refused; 4.0 accepts
// Produce 3-12 and ListOffsets 1-10 (4.4.0: 3-13 and 1-11).
func TestPcapUpgradeCheckToKafka40(t *testing.T) {
	const p = "../../docs/examples/clients.pcap"
	const check = `
upgrade check: Kafka 4.0.2 does not accept 2 API versions used by 1 client
client    client id     software          API version        requests  Kafka 4.0.2 accepts
10.0.0.1  "legacy-app"  librdkafka 1.9.2  Produce(0) v2      2         versions 3-12
10.0.0.1  "legacy-app"  librdkafka 1.9.2  ListOffsets(2) v0  1         versions 1-10

pcap: 28 packets; 2 connections on port 9092, 8 exchanges, 0 problems
`
	for _, release := range []string{"4.0", "4.0.2"} {
		out := upgradeRun(t, "pcap", p, "--api", "Produce,ListOffsets", "--client", "legacy-*", "--upgrade-check", release)
		if !strings.Contains(out, "(decoded with Kafka 3.9.2's specs)\n"+check) {
			t.Errorf("--upgrade-check %s:\n%s\nwant:%s", release, out, check)
		}
	}
	out := upgradeRun(t, "pcap", p, "--format", "json", "--upgrade-check", "4.0")
	var up []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, `{"type":"upgrade"`) {
			up = append(up, l)
		}
	}
	want := []string{
		`{"type":"upgrade","client":"10.0.0.1","client_id":"legacy-app","software_name":"librdkafka","software_version":"1.9.2","api":"Produce","version":2,"count":2,"accepted_versions":"3-12"}`,
		`{"type":"upgrade","client":"10.0.0.1","client_id":"legacy-app","software_name":"librdkafka","software_version":"1.9.2","api":"ListOffsets","version":0,"count":1,"accepted_versions":"1-10"}`,
	}
	if strings.Join(up, "\n") != strings.Join(want, "\n") {
		t.Errorf("JSON upgrade lines:\n%s\nwant:\n%s", strings.Join(up, "\n"), strings.Join(want, "\n"))
	}
	// Back to Kafka 3.0 (3.0.2): the Java 4.1 client's newer versions. Its
	// ApiVersions v4 is no blocker: 3.0.2 answers with its own versions
	// (KIP-511) and the client retries at one of them.
	out = upgradeRun(t, "pcap", p, "--upgrade-check", "3.0")
	const back = `
upgrade check: Kafka 3.0.2 does not accept 2 API versions used by 1 client
client    client id  software                 API version      requests  Kafka 3.0.2 accepts
10.0.0.3  "billing"  apache-kafka-java 4.1.0  Fetch(1) v17     1         versions 0-12
10.0.0.3  "billing"  apache-kafka-java 4.1.0  Metadata(3) v12  1         versions 0-11

pcap:`
	if !strings.Contains(out, back) {
		t.Errorf("--upgrade-check 3.0:\n%s\nwant:%s", out, back)
	}
}

// upgradeRun runs kwire with an --upgrade-check that finds API versions
// the target does not accept: exit 1, saying so on standard error (so
// that CI can gate on it); it returns the output.
func upgradeRun(t *testing.T, args ...string) string {
	t.Helper()
	r := kwire(t, args...)
	where := "(the upgrade check above)"
	if slices.Contains(args, "json") {
		where = `(the "upgrade" lines of the output)`
	}
	if r.code != 1 || !strings.HasPrefix(r.stderr, "kwire: --upgrade-check: ") || !strings.HasSuffix(r.stderr, " not accepted by the target release "+where+"\n") {
		t.Fatalf("kwire %s: exit %d, stderr %q; want exit 1 and the upgrade check's verdict", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout
}
