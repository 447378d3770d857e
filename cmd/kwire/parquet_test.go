package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// duckDB returns a Python that imports duckdb (the PyPI package): the
// one $KWIRE_PYTHON names, the venv .build/venv of the module, or
// python3; the test is skipped without one.
func duckDB(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	for _, py := range []string{os.Getenv("KWIRE_PYTHON"), filepath.Join(root, ".build", "venv", "bin", "python"), "python3"} {
		if py == "" {
			continue
		}
		if exec.Command(py, "-c", "import duckdb").Run() == nil {
			return py
		}
	}
	t.Skip("no Python with duckdb (pip install duckdb, or set KWIRE_PYTHON)")
	return ""
}

// duckQuery runs sql over DuckDB and returns its rows as JSON values.
func duckQuery(t *testing.T, py, sql string) [][]any {
	t.Helper()
	script := `import duckdb, json, sys
rows = duckdb.sql(sys.argv[1]).fetchall()
print(json.dumps([[str(v) if not isinstance(v, (int, float, str, type(None))) else v for v in r] for r in rows]))`
	out, err := exec.Command(py, "-c", script, sql).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s\n%s", err, sql, out)
	}
	var rows [][]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return rows
}

// statsCounts are the per-API-version exchange counts and error counts of
// `kwire pcap --stats --format json`: "Metadata v12" → n, and
// "Metadata v12 UNKNOWN_TOPIC_OR_PARTITION(3)" → n.
func statsCounts(t *testing.T, out string) map[string]int64 {
	t.Helper()
	got := map[string]int64{}
	for _, l := range strings.Split(out, "\n") {
		var s struct {
			Type      string  `json:"type"`
			API       *string `json:"api"`
			APIKey    int16   `json:"api_key"`
			Version   int16   `json:"version"`
			Exchanges int64   `json:"exchanges"`
			Errors    []struct {
				Code  int16  `json:"code"`
				Name  string `json:"name"`
				Count int64  `json:"count"`
			} `json:"errors"`
		}
		if json.Unmarshal([]byte(l), &s) != nil || s.Type != "stats_api" {
			continue
		}
		k := apiVersion(s.API, s.APIKey, s.Version)
		got[k] += s.Exchanges
		for _, e := range s.Errors {
			got[k+" "+e.Name+"("+itoa(int(e.Code))+")"] += e.Count
		}
	}
	return got
}

func apiVersion(api *string, key, ver int16) string {
	if api == nil {
		return "api key " + itoa(int(key)) + " v" + itoa(int(ver))
	}
	return *api + " v" + itoa(int(ver))
}

// duckCounts are the same counts by DuckDB over the Parquet files in dir.
func duckCounts(t *testing.T, py, dir string) map[string]int64 {
	t.Helper()
	glob := filepath.Join(dir, "*.parquet")
	got := map[string]int64{}
	for _, r := range duckQuery(t, py, `SELECT api, api_key, version, count(*) FROM '`+glob+`' WHERE api_key >= 0 AND NOT sasl_token GROUP BY ALL`) {
		api := r[0].(string)
		got[apiVersion(&api, int16(r[1].(float64)), int16(r[2].(float64)))] += int64(r[3].(float64))
	}
	for _, r := range duckQuery(t, py, `SELECT api, api_key, version, e.name, e.code, count(*) FROM (SELECT api, api_key, version, unnest(errors) AS e FROM '`+glob+`' WHERE api_key >= 0 AND NOT sasl_token) GROUP BY ALL`) {
		api := r[0].(string)
		got[apiVersion(&api, int16(r[1].(float64)), int16(r[2].(float64)))+" "+r[3].(string)+"("+itoa(int(r[4].(float64)))+")"] += int64(r[5].(float64))
	}
	return got
}

func sortedKeys(m map[string]int64) string {
	var ks []string
	for k, v := range m {
		ks = append(ks, k+"="+itoa(int(v)))
	}
	sort.Strings(ks)
	return strings.Join(ks, "\n")
}

// kwire pcap --format parquet writes the exchanges of a capture; DuckDB's
// per-API counts and error counts over the files equal kwire pcap
// --stats on the same capture, and the README's query finds the client
// that still sends Produce v2.
func TestPcapParquetMatchesStats(t *testing.T) {
	py := duckDB(t)
	cv := newConversation(t)
	f := capturetest.NewPcap(layers.LinkTypeEthernet)
	for i := range 3 {
		c := capturetest.NewConv(f, "10.0.0.1:5000"+itoa(i), "10.0.0.2:9092", 1000, 900000, pcapT0.Add(time.Duration(i)*24*time.Hour))
		c.Handshake()
		for range i + 1 {
			cv.exchanges(c, 0)
		}
		c.Close()
	}
	// An old client's Produce v2 (removed in Kafka 4.0: decoded with 3.9's
	// specs), answered with NOT_LEADER_OR_FOLLOWER.
	old := capturetest.NewConv(f, "10.0.0.3:40000", "10.0.0.2:9092", 1, 1, pcapT0)
	old.Handshake()
	pr2 := produceV2(t)
	old.Send(true, pr2[0], 0)
	old.T = old.T.Add(time.Millisecond)
	old.Send(false, pr2[1], 0)
	old.Close()
	p := writeCapture(t, f)

	dir := filepath.Join(t.TempDir(), "exchanges")
	r := kwire(t, "pcap", "--format", "parquet", "--out", dir, p)
	if r.code != 0 || !strings.Contains(r.stderr, "kwire pcap: wrote "+dir) {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	stats := statsCounts(t, mustRun(t, "pcap", "--stats", "--format", "json", p))
	if stats["Metadata v12"] != 6 || stats["Metadata v12 UNKNOWN_TOPIC_OR_PARTITION(3)"] != 6 || stats["Produce v2 NOT_LEADER_OR_FOLLOWER(6)"] != 1 {
		t.Fatalf("stats:\n%s", sortedKeys(stats))
	}
	if got := duckCounts(t, py, dir); sortedKeys(got) != sortedKeys(stats) {
		t.Errorf("DuckDB:\n%s\nkwire pcap --stats:\n%s", sortedKeys(got), sortedKeys(stats))
	}
	// The README's query, as it is there.
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil || !strings.Contains(string(readme), "```sql\n"+readmeProduceV2Query+"\n```") {
		t.Errorf("the README does not show the query (%v)", err)
	}
	rows := duckQuery(t, py, strings.ReplaceAll(readmeProduceV2Query, "exchanges/*.parquet", filepath.Join(dir, "*.parquet")))
	if len(rows) != 1 || rows[0][1] != "old-client" || rows[0][5] != float64(1) || !strings.HasPrefix(rows[0][0].(string), "2026-11-29") {
		t.Errorf("Produce v2 per day: %v", rows)
	}
}

// readmeProduceV2Query is the README's DuckDB query: which clients still
// send Produce v2, per day.
const readmeProduceV2Query = `SELECT date_trunc('day', time) AS day, client_id, client_software_name,
       client_software_version, sasl_principal, count(*) AS requests
FROM 'exchanges/*.parquet'
WHERE api = 'Produce' AND version = 2
GROUP BY ALL ORDER BY day, requests DESC;`

// produceV2 is a Produce v2 request of client id old-client and its
// response with NOT_LEADER_OR_FOLLOWER, encoded with Kafka 3.9's specs.
func produceV2(t *testing.T) [2][]byte {
	t.Helper()
	set, err := spec.Embedded("3.9")
	if err != nil {
		t.Fatal(err)
	}
	cd := codec.New(set)
	enc := func(m *spec.Message, h *tree.Tree, body string) []byte {
		b, err := codec.FromJSON([]byte(body), m, 2)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := cd.Encode(m, 2, h, b)
		if err != nil {
			t.Fatal(err)
		}
		return tr.Bytes
	}
	rq, rs := set.Message("ProduceRequest"), set.Message("ProduceResponse")
	return [2][]byte{
		enc(rq, codec.RequestHeaderValue(set.RequestHeader(), 0, 2, 7, "old-client"), `{"acks":1,"timeoutMs":1000,"topicData":[{"name":"legacy","partitionData":[{"index":0,"records":null}]}]}`),
		enc(rs, codec.ResponseHeaderValue(set.ResponseHeader(), 7), `{"responses":[{"name":"legacy","partitionResponses":[{"index":0,"errorCode":6,"baseOffset":-1,"logAppendTimeMs":-1}]}],"throttleTimeMs":0}`),
	}
}
