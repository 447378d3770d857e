package traffic

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/capture"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/traffic/traffictest"
)

// watch decodes traffictest.Clients under Kafka 4.4 (with the embedded
// fallbacks) into a Watcher with o and returns the exchanges it kept,
// "#CONN API vN corr C".
func watch(t *testing.T, o Options) (*Watcher, []string) {
	t.Helper()
	b, err := traffictest.Clients()
	if err != nil {
		t.Fatal(err)
	}
	cr, err := capture.Open(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	set, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	w := New(o)
	var kept []string
	_, _, err = capture.DecodeFlows(cr, capture.FlowOptions{
		Assembler: capture.Options{Ports: []uint16{9092}},
		Flow:      flow.Options{Codec: codec.New(set), KeepTrees: w.NeedsTrees(), Fallback: flow.EmbeddedFallbacks(set)},
		OnEvent: func(c *capture.Conn, e flow.Event) {
			x, ok := e.(*flow.Exchange)
			if !ok {
				t.Errorf("problem %v", e)
				return
			}
			if w.Keep(Conn{ID: uint64(c.ID), Client: c.Client.String()}, e) {
				kept = append(kept, fmt.Sprintf("#%d %s v%d corr %d", c.ID, x.API, x.Version, x.CorrelationID))
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return w, kept
}

func TestFilters(t *testing.T) {
	set, _ := spec.Embedded("4.4")
	apis, err := ParseAPIs(set, []string{"produce,2", "Fetch"})
	if err != nil || fmt.Sprint(apis) != "[0 2 1]" {
		t.Fatalf("ParseAPIs = %v, %v", apis, err)
	}
	for _, c := range []struct {
		name string
		f    Filter
		want string
	}{
		{"none", Filter{}, "#1 ApiVersions v3 corr 1, #1 Produce v2 corr 2, #1 Produce v2 corr 3, #1 ListOffsets v0 corr 4, " +
			"#2 ApiVersions v4 corr 1, #2 Metadata v12 corr 2, #2 Fetch v17 corr 3, #2 Produce v9 corr 4"},
		{"api", Filter{APIs: apis}, "#1 Produce v2 corr 2, #1 Produce v2 corr 3, #1 ListOffsets v0 corr 4, #2 Fetch v17 corr 3, #2 Produce v9 corr 4"},
		{"client", Filter{Client: "leg*"}, "#1 ApiVersions v3 corr 1, #1 Produce v2 corr 2, #1 Produce v2 corr 3, #1 ListOffsets v0 corr 4"},
		{"client exact", Filter{Client: "billin"}, ""},
		{"errors", Filter{Errors: true}, "#2 Produce v9 corr 4"},
		// Latencies are 1 ms, the second Produce v2 6 ms, the Fetch 151 ms.
		{"slower", Filter{SlowerThan: 5 * time.Millisecond}, "#1 Produce v2 corr 3, #2 Fetch v17 corr 3"},
		{"slower, not equal", Filter{SlowerThan: 6 * time.Millisecond}, "#2 Fetch v17 corr 3"},
		// The Fetch names "payments" by the topic id the Metadata response gave.
		{"topic", Filter{Topic: "payments"}, "#2 Metadata v12 corr 2, #2 Fetch v17 corr 3, #2 Produce v9 corr 4"},
		{"topic old", Filter{Topic: "orders"}, "#1 Produce v2 corr 2, #1 Produce v2 corr 3, #1 ListOffsets v0 corr 4"},
		{"all", Filter{APIs: apis, Client: "b*", Topic: "payments", SlowerThan: time.Millisecond}, "#2 Fetch v17 corr 3"},
	} {
		_, kept := watch(t, Options{Filter: c.f})
		if got := strings.Join(kept, ", "); got != c.want {
			t.Errorf("%s: kept %s\nwant %s", c.name, got, c.want)
		}
	}
}

// Without a Metadata response first, a topic id names no topic.
func TestTopicIDNeedsMetadataOnTheSameConnection(t *testing.T) {
	s := &connState{}
	x := &flow.Exchange{}
	if s.eachTopic(nil, func(string) bool { return true }) || (&Filter{Topic: "payments"}).exchange(s, x) {
		t.Error("an exchange without trees matched a topic")
	}
}

func TestProblemFilters(t *testing.T) {
	p := &flow.Problem{Kind: flow.DecodeFailed, APIKey: 1, Version: 3}
	lost := &flow.Problem{Kind: flow.Gap, APIKey: -1, Version: -1}
	for _, c := range []struct {
		f              Filter
		keepP, keepGap bool
	}{
		{Filter{}, true, true},
		{Filter{Errors: true}, true, true},
		{Filter{APIs: []int16{1}}, true, false},
		{Filter{APIs: []int16{0}}, false, false},
		{Filter{Client: "*"}, false, false},
		{Filter{SlowerThan: 1}, false, false},
		{Filter{Topic: "t"}, false, false},
	} {
		w := New(Options{Filter: c.f})
		if got, gotGap := w.Keep(Conn{ID: 1}, p), w.Keep(Conn{ID: 1}, lost); got != c.keepP || gotGap != c.keepGap {
			t.Errorf("%+v: decode-failed kept %v, gap kept %v; want %v, %v", c.f, got, gotGap, c.keepP, c.keepGap)
		}
		if w.Keep(Conn{ID: 1}, nil) != !c.f.Active() {
			t.Errorf("%+v: a connection line kept %v", c.f, !c.f.Active())
		}
	}
}

func TestPercentileIsNearestRank(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 10; i++ {
		ds = append(ds, time.Duration(i))
	}
	for _, c := range []struct{ p, want int }{{50, 5}, {90, 9}, {99, 10}, {100, 10}, {1, 1}, {10, 1}, {11, 2}} {
		if got := Percentile(ds, c.p); got != time.Duration(c.want) {
			t.Errorf("p%d of 1..10 = %d, want %d", c.p, got, c.want)
		}
	}
	if Percentile(ds[:1], 99) != 1 || Percentile(nil, 50) != 0 || Percentile(ds[:2], 50) != 1 || Percentile(ds[:2], 51) != 2 {
		t.Error("small sets")
	}
}

func TestStats(t *testing.T) {
	w, _ := watch(t, Options{Stats: true})
	var b strings.Builder
	if err := w.WriteStats(&b, false); err != nil {
		t.Fatal(err)
	}
	want := `
API version         exchanges  request B  response B  p50 ms   p90 ms   p99 ms   max ms   errors
Produce(0) v2       2          108        100         1.000    6.000    6.000    6.000
Produce(0) v9       1          48         59          1.000    1.000    1.000    1.000    NOT_LEADER_OR_FOLLOWER(6)×1
Fetch(1) v17        1          98         76          151.000  151.000  151.000  151.000
ListOffsets(2) v0   1          60         42          1.000    1.000    1.000    1.000
Metadata(3) v12     1          52         75          1.000    1.000    1.000    1.000
ApiVersions(18) v3  1          43         23          1.000    1.000    1.000    1.000
ApiVersions(18) v4  1          47         23          1.000    1.000    1.000    1.000

client    client id     software                 exchanges  request B  response B  API versions
10.0.0.1  "legacy-app"  librdkafka 1.9.2         4          211        165         Produce(0) v2, ListOffsets(2) v0, ApiVersions(18) v3
10.0.0.3  "billing"     apache-kafka-java 4.1.0  4          245        233         Produce(0) v9, Fetch(1) v17, Metadata(3) v12, ApiVersions(18) v4
`
	if b.String() != want {
		t.Errorf("stats:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := w.WriteStats(&b, true); err != nil {
		t.Fatal(err)
	}
	wantJSON := []string{
		`{"type":"stats_api","api":"Produce","api_key":0,"version":2,"exchanges":2,"request_bytes":108,"response_bytes":100,"latency_p50_ns":1000000,"latency_p90_ns":6000000,"latency_p99_ns":6000000,"latency_max_ns":6000000,"errors":[]}`,
		`{"type":"stats_api","api":"Produce","api_key":0,"version":9,"exchanges":1,"request_bytes":48,"response_bytes":59,"latency_p50_ns":1000000,"latency_p90_ns":1000000,"latency_p99_ns":1000000,"latency_max_ns":1000000,"errors":[{"code":6,"name":"NOT_LEADER_OR_FOLLOWER","count":1}]}`,
		`{"type":"stats_api","api":"Fetch","api_key":1,"version":17,"exchanges":1,"request_bytes":98,"response_bytes":76,"latency_p50_ns":151000000,"latency_p90_ns":151000000,"latency_p99_ns":151000000,"latency_max_ns":151000000,"errors":[]}`,
		`{"type":"stats_api","api":"ListOffsets","api_key":2,"version":0,"exchanges":1,"request_bytes":60,"response_bytes":42,"latency_p50_ns":1000000,"latency_p90_ns":1000000,"latency_p99_ns":1000000,"latency_max_ns":1000000,"errors":[]}`,
		`{"type":"stats_api","api":"Metadata","api_key":3,"version":12,"exchanges":1,"request_bytes":52,"response_bytes":75,"latency_p50_ns":1000000,"latency_p90_ns":1000000,"latency_p99_ns":1000000,"latency_max_ns":1000000,"errors":[]}`,
		`{"type":"stats_api","api":"ApiVersions","api_key":18,"version":3,"exchanges":1,"request_bytes":43,"response_bytes":23,"latency_p50_ns":1000000,"latency_p90_ns":1000000,"latency_p99_ns":1000000,"latency_max_ns":1000000,"errors":[]}`,
		`{"type":"stats_api","api":"ApiVersions","api_key":18,"version":4,"exchanges":1,"request_bytes":47,"response_bytes":23,"latency_p50_ns":1000000,"latency_p90_ns":1000000,"latency_p99_ns":1000000,"latency_max_ns":1000000,"errors":[]}`,
		`{"type":"stats_client","client":"10.0.0.1","client_id":"legacy-app","software_name":"librdkafka","software_version":"1.9.2","exchanges":4,"request_bytes":211,"response_bytes":165,"apis":["Produce(0) v2","ListOffsets(2) v0","ApiVersions(18) v3"]}`,
		`{"type":"stats_client","client":"10.0.0.3","client_id":"billing","software_name":"apache-kafka-java","software_version":"4.1.0","exchanges":4,"request_bytes":245,"response_bytes":233,"apis":["Produce(0) v9","Fetch(1) v17","Metadata(3) v12","ApiVersions(18) v4"]}`,
	}
	if got := strings.TrimSpace(b.String()); got != strings.Join(wantJSON, "\n") {
		t.Errorf("stats JSON:\n%s\nwant:\n%s", got, strings.Join(wantJSON, "\n"))
	}

	// Statistics count what the filters keep.
	w, _ = watch(t, Options{Stats: true, Filter: Filter{Client: "billing", APIs: []int16{0}}})
	as, cs := w.Stats()
	if len(as) != 1 || as[0].Version != 9 || as[0].Exchanges != 1 || len(cs) != 1 || cs[0].ClientID != "billing" || cs[0].Exchanges != 1 {
		t.Errorf("filtered stats %+v %+v", as, cs)
	}
}

func TestUpgradeCheck(t *testing.T) {
	target, err := spec.Embedded("4.4")
	if err != nil {
		t.Fatal(err)
	}
	w, _ := watch(t, Options{Upgrade: target})
	var b strings.Builder
	if err := w.WriteUpgrade(&b, true); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"upgrade","client":"10.0.0.1","client_id":"legacy-app","software_name":"librdkafka","software_version":"1.9.2","api":"Produce","version":2,"count":2,"accepted_versions":"3-13"}
{"type":"upgrade","client":"10.0.0.1","client_id":"legacy-app","software_name":"librdkafka","software_version":"1.9.2","api":"ListOffsets","version":0,"count":1,"accepted_versions":"1-11"}
`
	if b.String() != want {
		t.Errorf("upgrade JSON:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := w.WriteUpgrade(&b, false); err != nil {
		t.Fatal(err)
	}
	want = `
upgrade check: Kafka 4.4.0 does not accept 2 API versions used by 1 client
client    client id     software          API version        requests  Kafka 4.4.0 accepts
10.0.0.1  "legacy-app"  librdkafka 1.9.2  Produce(0) v2      2         versions 3-13
10.0.0.1  "legacy-app"  librdkafka 1.9.2  ListOffsets(2) v0  1         versions 1-11
`
	if b.String() != want {
		t.Errorf("upgrade text:\n%s\nwant:\n%s", b.String(), want)
	}

	// Against 3.9 every version is accepted.
	old, _ := spec.Embedded("3.9")
	w, _ = watch(t, Options{Upgrade: old})
	b.Reset()
	if err := w.WriteUpgrade(&b, false); err != nil || b.String() != "\nupgrade check: Kafka 3.9.2 accepts every API version the clients used\n" || len(w.Upgrades()) != 0 {
		t.Errorf("against 3.9: %q %v", b.String(), err)
	}
}

// An API the target does not have at all: accepted_versions is null.
func TestUpgradeOfAnAPIThatIsGone(t *testing.T) {
	target, _ := spec.Embedded("4.4")
	old, _ := spec.Embedded("3.9")
	gone := int16(-1)
	for _, m := range old.Messages {
		if m.Type == spec.Request {
			if n := target.Request(m.APIKey); n == nil || n.ValidVersions.Empty() {
				gone = m.APIKey
				break
			}
		}
	}
	if gone < 0 {
		t.Skip("every 3.9 API is in 4.4")
	}
	w := New(Options{Upgrade: target})
	name := old.Request(gone).BaseName()
	x := &flow.Exchange{APIKey: gone, API: name, Version: 0, ClientID: "c", Request: &flow.Frame{Size: 30}}
	w.Keep(Conn{ID: 1, Client: "[::1]:1234"}, x)
	us := w.Upgrades()
	if len(us) != 1 || us[0].AcceptedVersions != nil || us[0].Client != "::1" || *us[0].API != name || us[0].Count != 1 {
		t.Errorf("upgrades %+v", us)
	}
}

// A version the target marks unstable (latestVersionUnstable) is not
// accepted: ShareFetch v0 in 4.0.2 (its only version), InitProducerId v6
// in 4.1.2. An ApiVersions request above the target's versions is no
// blocker (the broker answers with its own versions, KIP-511).
func TestUpgradeOfUnstableVersions(t *testing.T) {
	send := func(w *Watcher, key int16, api string, v int16) {
		x := &flow.Exchange{APIKey: key, API: api, Version: v, ClientID: "c", Request: &flow.Frame{Size: 30}}
		w.Keep(Conn{ID: 1, Client: "127.0.0.1:1234"}, x)
	}
	for _, c := range []struct {
		release string
		key     int16
		api     string
		v       int16
		json    string
		text    string
	}{
		{"4.0", 78, "ShareFetch", 0,
			`{"type":"upgrade","client":"127.0.0.1","client_id":"c","software_name":"","software_version":"","api":"ShareFetch","version":0,"count":1,"accepted_versions":null}` + "\n",
			`
upgrade check: Kafka 4.0.2 does not accept 1 API version used by 1 client
client     client id  software  API version        requests  Kafka 4.0.2 accepts
127.0.0.1  "c"        -         ShareFetch(78) v0  1         none stable (v0 unstable in Kafka 4.0.2)
`},
		{"4.1", 22, "InitProducerId", 6,
			`{"type":"upgrade","client":"127.0.0.1","client_id":"c","software_name":"","software_version":"","api":"InitProducerId","version":6,"count":1,"accepted_versions":"0-5"}` + "\n",
			`
upgrade check: Kafka 4.1.2 does not accept 1 API version used by 1 client
client     client id  software  API version            requests  Kafka 4.1.2 accepts
127.0.0.1  "c"        -         InitProducerId(22) v6  1         versions 0-5 (v6 unstable in Kafka 4.1.2)
`},
	} {
		target, err := spec.Embedded(c.release)
		if err != nil {
			t.Fatal(err)
		}
		w := New(Options{Upgrade: target})
		send(w, c.key, c.api, c.v)
		send(w, apiVersionsKey, "ApiVersions", 9) // above every release's range: no blocker
		send(w, apiVersionsKey, "ApiVersions", 3) // accepted
		var b strings.Builder
		if err := w.WriteUpgrade(&b, true); err != nil || b.String() != c.json {
			t.Errorf("%s JSON (%v):\n%s\nwant:\n%s", c.release, err, b.String(), c.json)
		}
		b.Reset()
		if err := w.WriteUpgrade(&b, false); err != nil || b.String() != c.text {
			t.Errorf("%s text (%v):\n%s\nwant:\n%s", c.release, err, b.String(), c.text)
		}
	}
	// Against 4.4.0, InitProducerId v5 and ShareFetch v1 are stable.
	target, _ := spec.Embedded("4.4")
	w := New(Options{Upgrade: target})
	send(w, 22, "InitProducerId", 5)
	send(w, 78, "ShareFetch", 1)
	if us := w.Upgrades(); len(us) != 0 {
		t.Errorf("4.4 upgrades %+v", us)
	}
}
