package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/traffic/traffictest"
)

// docs/examples/clients.pcap, which docs/pcap.md's examples read, is
// traffictest.Clients.
func TestClientsExampleIsTheTestCapture(t *testing.T) {
	want, err := traffictest.Clients()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../docs/examples/clients.pcap")
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("docs/examples/clients.pcap is not traffictest.Clients() (%v): rewrite it", err)
	}
}

func TestPcapFiltersStatsAndUpgradeCheck(t *testing.T) {
	const p = "../../docs/examples/clients.pcap"
	c1, c2 := "#1 10.0.0.1:50000→10.0.0.2:9092", "#2 10.0.0.3:40000→10.0.0.2:9092"
	out := mustRun(t, "pcap", p, "--topic", "payments", "--slower-than", "100ms")
	wantOutput(t, out, c2+`  Fetch(1) v17  corr 3  client "billing"  req 98 B  resp 76 B  151.000 ms`)
	if !strings.Contains(out, "2 connections on port 9092, 8 exchanges, 0 problems") {
		t.Errorf("the summary counts everything:\n%s", out)
	}
	wantOutput(t, mustRun(t, "pcap", p, "--api", "Produce", "--api", "2", "--client", "legacy-*"),
		c1+`  Produce(0) v2  corr 2  client "legacy-app"  req 54 B  resp 50 B  1.000 ms  (decoded with Kafka 3.9.2's specs)`,
		c1+`  Produce(0) v2  corr 3  client "legacy-app"  req 54 B  resp 50 B  6.000 ms  (decoded with Kafka 3.9.2's specs)`,
		c1+`  ListOffsets(2) v0  corr 4  client "legacy-app"  req 60 B  resp 42 B  1.000 ms  (decoded with Kafka 3.9.2's specs)`)

	out = mustRun(t, "pcap", p, "--errors", "--stats", "--upgrade-check", "4.4")
	want := c2 + `  Produce(0) v9  corr 4  client "billing"  req 48 B  resp 59 B  1.000 ms  errors NOT_LEADER_OR_FOLLOWER(6) at ProduceResponse.Responses[0].PartitionResponses[0].ErrorCode

API version    exchanges  request B  response B  p50 ms  p90 ms  p99 ms  max ms  errors
Produce(0) v9  1          48         59          1.000   1.000   1.000   1.000   NOT_LEADER_OR_FOLLOWER(6)×1

client    client id  software                 exchanges  request B  response B  API versions
10.0.0.3  "billing"  apache-kafka-java 4.1.0  1          48         59          Produce(0) v9

upgrade check: Kafka 4.4.0 accepts every API version the clients used

pcap: 28 packets; 2 connections on port 9092, 8 exchanges, 0 problems
`
	if i := strings.Index(out, "  #2"); i < 0 || !strings.HasPrefix(out[i+2:], want) {
		t.Errorf("output:\n%s\nwant it to end with:\n%s", out, want)
	}

	out = mustRun(t, "pcap", p, "--format", "json", "--api", "ApiVersions", "--upgrade-check", "4.4")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[2], `{"type":"summary"`) {
		t.Errorf("JSON: two ApiVersions exchanges and the summary, no upgrade line:\n%s", out)
	}
	out = upgradeRun(t, "pcap", p, "--format", "json", "--api", "Produce,ListOffsets", "--upgrade-check", "4.4")
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 7 || lines[4] != `{"type":"upgrade","client":"10.0.0.1","client_id":"legacy-app","software_name":"librdkafka","software_version":"1.9.2","api":"Produce","version":2,"count":2,"accepted_versions":"3-13"}` ||
		lines[5] != `{"type":"upgrade","client":"10.0.0.1","client_id":"legacy-app","software_name":"librdkafka","software_version":"1.9.2","api":"ListOffsets","version":0,"count":1,"accepted_versions":"1-11"}` {
		t.Errorf("JSON upgrade lines:\n%s", out)
	}

	// An unknown API name is a finding (exit 1, as for every unknown
	// name); a malformed pattern or an unknown release a bad flag (2).
	for _, bad := range []struct {
		args []string
		code int
	}{{[]string{"--api", "Nope"}, 1}, {[]string{"--client", "["}, 2}, {[]string{"--upgrade-check", "2.0"}, 2}} {
		r := kwire(t, append([]string{"pcap", p}, bad.args...)...)
		if r.code != bad.code || !strings.Contains(r.stderr, bad.args[0]) {
			t.Errorf("%v: exit %d, %s", bad.args, r.code, r.stderr)
		}
	}
	// --upgrade-check that finds nothing: exit 0, and the verdict says so.
	if out := mustRun(t, "pcap", p, "--api", "ApiVersions", "--upgrade-check", "4.4"); !strings.Contains(out, "upgrade check: Kafka 4.4.0 accepts every API version the clients used") {
		t.Errorf("upgrade check without findings:\n%s", out)
	}
	// A filter that matches nothing says so.
	if out := mustRun(t, "pcap", p, "--topic", "nosuch"); len(outputLines(out)) != 0 || !strings.HasSuffix(out, "\nfilters: 0 exchanges matched, of 8\n") {
		t.Errorf("--topic nosuch:\n%s", out)
	}
	if out := mustRun(t, "pcap", p, "--topic", "payments", "--slower-than", "100ms"); !strings.HasSuffix(out, "\nfilters: 1 exchange matched, of 8\n") {
		t.Errorf("--topic payments:\n%s", out)
	}
}

// The proxy filters the same way and prints the statistics and the upgrade
// check when it stops (SIGINT).
func TestProxyFiltersStatsAndUpgradeCheckOnSIGINT(t *testing.T) {
	old, err := spec.Embedded("3.9")
	if err != nil {
		t.Fatal(err)
	}
	oc := codec.New(old)
	// A 3.9 broker: answers every request with a response of defaults.
	up := testnet.Serve(t, nil, func(conn net.Conn) {
		for {
			fr, err := testnet.ReadFrame(conn, 1<<20)
			if err != nil {
				return
			}
			tr, err := oc.DecodeRequest(fr)
			if err != nil {
				return
			}
			conn.Write(frameOf(t, oc, tr.Message.BaseName(), false, tr.Version, int32(binary.BigEndian.Uint32(fr[8:])), ""))
		}
	})
	addr, stop := proxyCommand(t, "--upstream", up, "--format", "json", "--api", "Produce", "--stats", "--upgrade-check", "4.4")
	talk(t, addr, frameOf(t, oc, "ApiVersions", true, 3, 1, `{"clientSoftwareName":"sarama","clientSoftwareVersion":"1.30"}`),
		frameOf(t, oc, "Produce", true, 2, 2, `{"acks":1,"timeoutMs":1000,"topicData":[]}`),
		frameOf(t, oc, "Metadata", true, 4, 3, ""))
	r := stop()
	if r.code != 1 || !strings.HasSuffix(r.stderr, "kwire: --upgrade-check: 1 API version of the clients is not accepted by the target release (the \"upgrade\" lines of the output)\n") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), r.stdout)
	}
	var x struct {
		Type        string `json:"type"`
		API         string `json:"api"`
		DecodedWith string `json:"decoded_with"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &x); err != nil || x.Type != "exchange" || x.API != "Produce" || x.DecodedWith != "3.9.2" {
		t.Errorf("exchange line %s", lines[0])
	}
	if !strings.HasPrefix(lines[1], `{"type":"stats_api","api":"Produce","api_key":0,"version":2,"exchanges":1,"request_bytes":`) {
		t.Errorf("stats_api line %s", lines[1])
	}
	if !strings.HasPrefix(lines[2], `{"type":"stats_client","client":"127.0.0.1","client_id":"cmd-test","software_name":"sarama","software_version":"1.30","exchanges":1,`) {
		t.Errorf("stats_client line %s", lines[2])
	}
	if lines[3] != `{"type":"upgrade","client":"127.0.0.1","client_id":"cmd-test","software_name":"sarama","software_version":"1.30","api":"Produce","version":2,"count":1,"accepted_versions":"3-13"}` {
		t.Errorf("upgrade line %s", lines[3])
	}
}
