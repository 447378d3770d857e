package metrics_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/exchange"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/internal/fakebroker"
	"github.com/kwire/kwire/metrics"
	"github.com/kwire/kwire/proxy"
	"github.com/kwire/kwire/spec"
)

// scrape reads the series of url's /metrics.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("%v:\n%s", err, body)
	}
	return fams
}

// label is the value of label name of m.
func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// A client logs in with SASL PLAIN and SCRAM-SHA-512 through a proxy to a
// fake broker and asks for Metadata: the requests and responses counted
// by API equal the exchanges the proxy reported, the latency histogram
// counts every response, the principal and client software labels are
// there, and no series holds the password.
func TestMetricsCountTheExchanges(t *testing.T) {
	const password = "metrics-pa55word-7f3a"
	b := fakebroker.Start(t, fakebroker.Options{Mechanisms: []string{client.PLAIN, client.SCRAMSHA512}, Users: map[string]string{"alice": password}, SessionLifetimeMs: 3600000})
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	var (
		tr      exchange.Tracker
		mu      sync.Mutex
		reqs    = map[string]int{}
		resps   = map[string]int{}
		latency int
		opened  int
		closed  = make(chan struct{}, 16)
	)
	var p *proxy.Proxy
	m := metrics.New(metrics.Options{Topics: true, DecodeMemory: func() int64 { n, _ := p.DecodeMemory(); return n }})
	p, err = proxy.New(proxy.Options{Listen: "127.0.0.1:0", Upstream: b.Addr, Codec: codec.New(set), Touched: true, OnEvent: func(e proxy.Event) {
		r := tr.Proxy(e)
		m.Proxy(e, r)
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case proxy.Opened:
			opened++
		case proxy.Closed:
			closed <- struct{}{}
		}
		if x, ok := e.Flow.(*flow.Exchange); ok {
			if x.Request != nil {
				reqs[x.API]++
			}
			if x.Response != nil {
				resps[x.API]++
			}
			if x.Request != nil && x.Response != nil {
				latency++
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.Serve(ctx)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ready := true
	go metrics.Serve(ctx, ln, m.Handler(metrics.Health{Listening: func() bool { return true }, Upstream: metrics.DialCheck(b.Addr), Ready: func() bool { return ready }}))
	url := "http://" + ln.Addr().String()

	md, _, _ := set.Lookup("Metadata")
	for i, mech := range []string{client.PLAIN, client.SCRAMSHA512} {
		cn, err := client.Dial(ctx, p.Addr().String(), codec.New(set), client.Options{ClientID: "metrics-test", SoftwareName: "kwire-test", SoftwareVersion: "1.0", Timeout: 5 * time.Second,
			SASL: &client.SASL{Mechanism: mech, User: "alice", Password: password}})
		if err != nil {
			t.Fatalf("%s: %v", mech, err)
		}
		for range i + 1 {
			body, err := codec.FromJSON([]byte(`{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":"orders"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`), md, 12)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cn.Call(ctx, md, 12, body); err != nil {
				t.Fatal(err)
			}
		}
		cn.Close()
	}
	for range 2 {
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatal("the connections did not close")
		}
	}

	fams := scrape(t, url)
	mu.Lock()
	defer mu.Unlock()
	for name, want := range map[string]map[string]int{"kwire_requests_total": reqs, "kwire_responses_total": resps} {
		got := map[string]int{}
		for _, s := range fams[name].GetMetric() {
			got[label(s, "api")] += int(s.GetCounter().GetValue())
			if label(s, "principal") == "alice" && label(s, "client_software") != "kwire-test 1.0" {
				t.Errorf("%s: client_software %q", name, label(s, "client_software"))
			}
		}
		if len(got) != len(want) || want["Metadata"] != 3 || want["SaslAuthenticate"] < 2 {
			t.Errorf("%s: %v, the proxy reported %v", name, got, want)
		}
		for api, n := range want {
			if got[api] != n {
				t.Errorf("%s{api=%q} = %d, the proxy reported %d", name, api, got[api], n)
			}
		}
	}
	var alice, hist int
	for _, s := range fams["kwire_requests_total"].GetMetric() {
		if label(s, "principal") == "alice" && label(s, "api") == "Metadata" {
			alice += int(s.GetCounter().GetValue())
		}
	}
	for _, s := range fams["kwire_response_latency_seconds"].GetMetric() {
		hist += int(s.GetHistogram().GetSampleCount())
	}
	if alice != 3 || hist != latency {
		t.Errorf("Metadata as alice %d, want 3; latency count %d, want %d", alice, hist, latency)
	}
	if s := fams["kwire_topic_requests_total"].GetMetric(); len(s) != 1 || label(s[0], "topic") != "orders" || s[0].GetCounter().GetValue() != 3 {
		t.Errorf("topics %v", s)
	}
	if v := fams["kwire_connections_accepted_total"].GetMetric()[0].GetCounter().GetValue(); int(v) != opened || opened != 2 {
		t.Errorf("accepted %v, opened %d", v, opened)
	}
	if v := fams["kwire_connections_open"].GetMetric()[0].GetGauge().GetValue(); v != 0 {
		t.Errorf("open %v", v)
	}
	// Every byte the fake broker and client sent is counted by the end.
	var bytesIn, bytesOut float64
	for _, s := range fams["kwire_bytes_total"].GetMetric() {
		if label(s, "broker") != b.Addr {
			t.Errorf("broker label %q", label(s, "broker"))
		}
		if label(s, "direction") == metrics.ClientToBroker {
			bytesIn += s.GetCounter().GetValue()
		} else {
			bytesOut += s.GetCounter().GetValue()
		}
	}
	if bytesIn == 0 || bytesOut == 0 {
		t.Errorf("bytes %v %v", bytesIn, bytesOut)
	}
	// No series names the password, in any form.
	resp, _ := http.Get(url + "/metrics")
	all, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(all), password) || strings.Contains(string(all), "pa55word") {
		t.Fatalf("the password is in a series")
	}

	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200} {
		resp, err := http.Get(url + path)
		if err != nil || resp.StatusCode != want {
			t.Errorf("%s: %v %v", path, resp.StatusCode, err)
		}
		resp.Body.Close()
	}
	ready = false
	if resp, _ := http.Get(url + "/readyz"); resp.StatusCode != 503 {
		t.Errorf("/readyz not ready: %d", resp.StatusCode)
	}
}

// The labels a client chooses are capped: past MaxValues distinct values
// they count as "other"; bad UTF-8 and long values are cleaned.
func TestLabelsAreBounded(t *testing.T) {
	m := metrics.New(metrics.Options{MaxValues: 2, Topics: true, MaxTopics: 1})
	for i, sw := range []string{"a", "b", "c", "a", "\xff\xfe" + strings.Repeat("x", 300)} {
		m.Exchange(&exchange.Record{API: "Metadata", Version: 12, RequestBytes: 10, ClientSoftwareName: sw, Broker: "b:9092",
			Topics: []exchange.Topic{{Name: []string{"t1", "t2"}[i%2]}}})
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go metrics.Serve(ctx, ln, m.Handler(metrics.Health{}))
	fams := scrape(t, "http://"+ln.Addr().String())
	got := map[string]float64{}
	for _, s := range fams["kwire_requests_total"].GetMetric() {
		got[label(s, "client_software")] += s.GetCounter().GetValue()
	}
	if len(got) != 3 || got["a"] != 2 || got["b"] != 1 || got["other"] != 2 {
		t.Errorf("client_software %v", got)
	}
	topics := map[string]float64{}
	for _, s := range fams["kwire_topic_requests_total"].GetMetric() {
		topics[label(s, "topic")] += s.GetCounter().GetValue()
	}
	if len(topics) != 2 || topics["t1"] != 3 || topics["other"] != 2 {
		t.Errorf("topics %v", topics)
	}
}

// The upgrade check's counts are read at each scrape, summed by API,
// version and client software (the client hosts are no label).
func TestUpgradeCheckSeries(t *testing.T) {
	var mu sync.Mutex
	check := []metrics.UpgradeCount{
		{API: "Produce", Version: 2, SoftwareName: "sarama", SoftwareVersion: "1.20", Count: 3},
		{API: "Produce", Version: 2, SoftwareName: "sarama", SoftwareVersion: "1.20", Count: 4}, // another host
		{API: "", Version: 0, Count: 1},
	}
	m := metrics.New(metrics.Options{Upgrades: func() []metrics.UpgradeCount { mu.Lock(); defer mu.Unlock(); return check }})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go metrics.Serve(ctx, ln, m.Handler(metrics.Health{}))
	url := "http://" + ln.Addr().String()
	read := func() map[string]float64 {
		got := map[string]float64{}
		for _, s := range scrape(t, url)["kwire_upgrade_check_requests_total"].GetMetric() {
			got[label(s, "api")+" v"+label(s, "version")+" "+label(s, "client_software")] = s.GetCounter().GetValue()
		}
		return got
	}
	if got := read(); len(got) != 2 || got["Produce v2 sarama 1.20"] != 7 || got["unknown v0 "] != 1 {
		t.Errorf("%v", got)
	}
	mu.Lock()
	check = append(check, metrics.UpgradeCount{API: "Fetch", Version: 3, Count: 2})
	mu.Unlock()
	if got := read(); len(got) != 3 || got["Fetch v3 "] != 2 {
		t.Errorf("after more: %v", got)
	}
}

// /healthz says 503 and why when the upstream cannot be reached, or the
// proxy does not listen.
func TestHealthz(t *testing.T) {
	dead, _ := net.Listen("tcp", "127.0.0.1:0")
	deadAddr := dead.Addr().String()
	dead.Close()
	listening := true
	m := metrics.New(metrics.Options{})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go metrics.Serve(ctx, ln, m.Handler(metrics.Health{Listening: func() bool { return listening }, Upstream: metrics.DialCheck(deadAddr)}))
	url := "http://" + ln.Addr().String() + "/healthz"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(body), "upstream unreachable") || !strings.Contains(string(body), "refused") {
		t.Errorf("%d %q", resp.StatusCode, body)
	}
	listening = false
	resp, _ = http.Get(url)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || string(body) != "not listening\n" {
		t.Errorf("%d %q", resp.StatusCode, body)
	}
}
