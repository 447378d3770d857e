package live

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// freeAddr is a loopback address with a port free now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// serviceArgs are kwire proxy's service flags for a live run writing into
// out: metrics on a free port, the audit log, the Parquet files.
func serviceArgs(t *testing.T, out string) (args []string, metricsAddr string) {
	metricsAddr = freeAddr(t)
	return []string{"--metrics", metricsAddr, "--metrics-topics", "--audit", filepath.Join(out, "audit.log"),
		"--parquet", filepath.Join(out, "parquet"), "--stats"}, metricsAddr
}

// startPrometheus runs Debian's prometheus (the binary on PATH) on a free
// loopback port, scraping target's /metrics every second, until the test
// ends; it returns its URL, or "" when prometheus is not installed
// (KWIRE_PROMETHEUS_REQUIRED=1 makes that a failure).
func startPrometheus(t *testing.T, target string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("KWIRE_PROMETHEUS_REQUIRED") == "1" {
			t.Fatal("prometheus is not installed (apt-get install prometheus)")
		}
		t.Log("prometheus is not installed: the metrics are not checked through it")
		return ""
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: kwire\n    static_configs:\n      - targets: [%q]\n", target)), 0o644)
	addr := freeAddr(t)
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr, "--log.level=warn")
	logf, _ := os.Create(filepath.Join(dir, "prometheus.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); logf.Close() })
	u := "http://" + addr
	for deadline := time.Now().Add(60 * time.Second); ; {
		if resp, err := http.Get(u + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return u
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
			t.Fatalf("prometheus did not get ready in 60s:\n%s", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// promQuery runs an instant query and returns each sample's labels
// (joined "k=v,k=v", sorted) and value.
func promQuery(t *testing.T, base, q string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" {
		t.Fatalf("prometheus %s: %v %s", q, err, r.Error)
	}
	out := map[string]float64{}
	for _, s := range r.Data.Result {
		var ls []string
		for k, v := range s.Metric {
			ls = append(ls, k+"="+v)
		}
		sort.Strings(ls)
		var f float64
		fmt.Sscan(s.Value[1].(string), &f)
		out[strings.Join(ls, ",")] = f
	}
	return out
}

// serviceLine is the part of an exchange's JSON line the service checks
// read.
type serviceLine struct {
	Type      string           `json:"type"`
	API       *string          `json:"api"`
	Request   *json.RawMessage `json:"request"`
	Response  *json.RawMessage `json:"response"`
	LatencyNs *int64           `json:"latency_ns"`
	SASLToken bool             `json:"sasl_token"`
}

// printedExchanges counts the exchanges kwire proxy printed in
// out/proxy.jsonl: requests and responses by the metrics' api label,
// latencies, and lines.
func printedExchanges(t *testing.T, out string) (reqs, resps map[string]float64, latencies, lines int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "proxy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	reqs, resps = map[string]float64{}, map[string]float64{}
	for _, l := range bytes.Split(b, []byte("\n")) {
		var x serviceLine
		if json.Unmarshal(l, &x) != nil || x.Type != "exchange" {
			continue
		}
		lines++
		api := "unknown"
		switch {
		case x.SASLToken:
			api = "sasl_token"
		case x.API != nil:
			api = *x.API
		}
		if x.Request != nil && string(*x.Request) != "null" {
			reqs["api="+api]++
		}
		if x.Response != nil && string(*x.Response) != "null" {
			resps["api="+api]++
		}
		if x.LatencyNs != nil {
			latencies++
		}
	}
	return reqs, resps, latencies, lines
}

// checkPrometheus checks, once every client connection through the proxy
// has closed, that Prometheus (at prom, scraping the proxy) counts the
// requests and responses by API that the proxy printed, the latency
// histogram's count equals the responses timed, the principal and client
// software labels are there, and no series holds one of forms (a
// password's). The series are written to out/prometheus-series.json.
func checkPrometheus(t *testing.T, prom, out string, principals []string, forms []string) {
	t.Helper()
	if prom == "" {
		return
	}
	reqs, resps, latencies, _ := printedExchanges(t, out)
	equal := func(a, b map[string]float64) bool {
		if len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if b[k] != v {
				return false
			}
		}
		return true
	}
	var gotReqs, gotResps, gotLat map[string]float64
	deadline := time.Now().Add(60 * time.Second)
	for {
		gotReqs = promQuery(t, prom, "sum by (api) (kwire_requests_total)")
		gotResps = promQuery(t, prom, "sum by (api) (kwire_responses_total)")
		gotLat = promQuery(t, prom, "sum(kwire_response_latency_seconds_count)")
		if equal(gotReqs, reqs) && equal(gotResps, resps) && gotLat[""] == float64(latencies) {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("Prometheus's requests by api %v, responses %v, latency count %v; the proxy printed %v, %v, %d", gotReqs, gotResps, gotLat, reqs, resps, latencies)
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	who := promQuery(t, prom, `sum by (principal, client_software) (kwire_requests_total{api="Produce"})`)
	for _, p := range principals {
		found := false
		for k := range who {
			if strings.Contains(k, "principal="+p) && !strings.Contains(k, "client_software=,") && strings.Contains(k, "client_software=") {
				found = true
			}
		}
		if !found {
			t.Errorf("no Produce requests of principal %s with a client software label: %v", p, who)
		}
	}
	resp, err := http.Get(prom + `/api/v1/series?match[]=` + url.QueryEscape(`{__name__=~"kwire_.+"}`))
	if err != nil {
		t.Fatal(err)
	}
	var series bytes.Buffer
	series.ReadFrom(resp.Body)
	resp.Body.Close()
	os.WriteFile(filepath.Join(out, "prometheus-series.json"), series.Bytes(), 0o644)
	for _, f := range forms {
		if bytes.Contains(series.Bytes(), []byte(f)) {
			t.Errorf("a Prometheus series holds a password (as %q)", f)
		}
	}
	t.Logf("Prometheus: requests by api %v; %d responses timed; principals and software %v", gotReqs, latencies, who)
}

// checkAudit checks, after the proxy stopped, that out/audit.log has one
// valid JSON line per exchange the proxy printed, and that the Produce
// requests' SASL mechanisms and principals are want ("PLAIN alice").
func checkAudit(t *testing.T, out string, want []string) {
	t.Helper()
	_, _, _, printed := printedExchanges(t, out)
	f, err := os.Open(filepath.Join(out, "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	who := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			API       string `json:"api"`
			Mechanism string `json:"sasl_mechanism"`
			Principal string `json:"sasl_principal"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line %d: %v: %q", n+1, err, sc.Text())
		}
		n++
		if r.API == "Produce" {
			who[r.Mechanism+" "+r.Principal] = true
		}
	}
	if n != printed {
		t.Errorf("%d audit lines, %d exchanges printed", n, printed)
	}
	var got []string
	for k := range who {
		got = append(got, k)
	}
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Produce requests' principals in the audit log: %v, want %v", got, want)
	}
	t.Logf("audit log: %d lines, one per exchange; Produce as %v", n, got)
}

// duckPython returns a Python that imports duckdb ($KWIRE_PYTHON, the
// module's .build/venv, python3), or "" (KWIRE_DUCKDB_REQUIRED=1 makes
// that a failure).
func duckPython(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	for _, py := range []string{os.Getenv("KWIRE_PYTHON"), filepath.Join(filepath.Dir(file), "..", "..", ".build", "venv", "bin", "python"), "python3"} {
		if py != "" && exec.Command(py, "-c", "import duckdb").Run() == nil {
			return py
		}
	}
	if os.Getenv("KWIRE_DUCKDB_REQUIRED") == "1" {
		t.Fatal("no Python with duckdb")
	}
	t.Log("no Python with duckdb: the Parquet files are not checked")
	return ""
}

// checkParquet checks, after the proxy stopped, that DuckDB's per-API
// exchange counts and error counts over out/parquet equal the proxy's
// --stats lines in out/proxy.jsonl (checkParquetStats).
func checkParquet(t *testing.T, out string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "proxy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	checkParquetStats(t, "the proxy's", b, filepath.Join(out, "parquet"))
}

// checkParquetStats checks that DuckDB's per-API exchange counts and
// error counts over the Parquet files in dir equal the stats_api lines of
// out (kwire proxy or kwire pcap --stats --format json); what names them.
func checkParquetStats(t *testing.T, what string, b []byte, dir string) {
	t.Helper()
	py := duckPython(t)
	if py == "" {
		return
	}
	stats := map[string]int64{}
	for _, l := range bytes.Split(b, []byte("\n")) {
		var s struct {
			Type      string  `json:"type"`
			API       *string `json:"api"`
			APIKey    int16   `json:"api_key"`
			Version   int16   `json:"version"`
			Exchanges int64   `json:"exchanges"`
			Errors    []struct {
				Code  int16 `json:"code"`
				Count int64 `json:"count"`
			} `json:"errors"`
		}
		if json.Unmarshal(l, &s) != nil || s.Type != "stats_api" {
			continue
		}
		k := fmt.Sprintf("%d v%d", s.APIKey, s.Version)
		stats[k] += s.Exchanges
		for _, e := range s.Errors {
			stats[fmt.Sprintf("%s error %d", k, e.Code)] += e.Count
		}
	}
	glob := filepath.Join(dir, "*.parquet")
	script := `import duckdb, sys
g = sys.argv[1]
for k, v, n in duckdb.sql(f"SELECT api_key, version, count(*) FROM '{g}' WHERE api_key >= 0 AND NOT sasl_token GROUP BY ALL").fetchall():
    print(f"{k} v{v}\t{n}")
for k, v, c, n in duckdb.sql(f"SELECT api_key, version, e.code, count(*) FROM (SELECT api_key, version, unnest(errors) AS e FROM '{g}' WHERE api_key >= 0 AND NOT sasl_token) GROUP BY ALL").fetchall():
    print(f"{k} v{v} error {c}\t{n}")
`
	res, err := exec.Command(py, "-c", script, glob).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, res)
	}
	duck := map[string]int64{}
	for _, l := range strings.Split(strings.TrimSpace(string(res)), "\n") {
		k, v, _ := strings.Cut(l, "\t")
		var n int64
		fmt.Sscan(v, &n)
		duck[k] += n
	}
	if len(stats) == 0 || fmt.Sprint(duck) != fmt.Sprint(stats) {
		t.Errorf("DuckDB over %s Parquet files: %v\n--stats: %v", what, duck, stats)
	}
	t.Logf("DuckDB over %s Parquet files: %d api versions and error codes, as --stats counts them: %v", what, len(duck), duck)
}
