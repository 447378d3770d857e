package exchange

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/parquet-go/parquet-go"
)

var testSet = func() *spec.Set {
	s, err := spec.Embedded("")
	if err != nil {
		panic(err)
	}
	return s
}()

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// frame encodes a framed request (corr >= 0 and resp false) or response
// of api at ver from converter JSON body.
func frame(t *testing.T, c *codec.Codec, api string, ver int16, corr int32, resp bool, body string) []byte {
	t.Helper()
	req, rs, err := c.Set.Lookup(api)
	if err != nil {
		t.Fatal(err)
	}
	m, h := req, codec.RequestHeaderValue(c.Set.RequestHeader(), req.APIKey, ver, corr, "app-1")
	if resp {
		m, h = rs, codec.ResponseHeaderValue(c.Set.ResponseHeader(), corr)
	}
	var b *tree.Tree
	if body != "" {
		if b, err = codec.FromJSON([]byte(body), m, ver); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := c.Encode(m, ver, h, b)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Bytes
}

// conversation decodes a SASL/PLAIN login, an ApiVersions and a Produce
// whose response has an error, and returns the records a Tracker makes.
func conversation(t *testing.T) []*Record {
	c := codec.New(testSet)
	var tr Tracker
	var out []*Record
	fc := flow.New(flow.Options{Codec: c, Touched: true}, func(e flow.Event) {
		if x, ok := e.(*flow.Exchange); ok {
			out = append(out, tr.Record(x, 7, "10.0.0.1:5555", "10.0.0.2:9092"))
		}
	})
	at := t0
	step := func(d flow.Dir, b []byte) {
		fc.Data(d, b, at)
		at = at.Add(time.Millisecond)
	}
	step(flow.ClientToServer, frame(t, c, "ApiVersions", 3, 1, false, `{"clientSoftwareName":"kgo","clientSoftwareVersion":"1.22.3"}`))
	step(flow.ServerToClient, frame(t, c, "ApiVersions", 3, 1, true, `{"errorCode":0,"apiKeys":[],"throttleTimeMs":0}`))
	step(flow.ClientToServer, frame(t, c, "SaslHandshake", 1, 2, false, `{"mechanism":"PLAIN"}`))
	step(flow.ServerToClient, frame(t, c, "SaslHandshake", 1, 2, true, `{"errorCode":0,"mechanisms":["PLAIN"]}`))
	step(flow.ClientToServer, frame(t, c, "SaslAuthenticate", 2, 3, false, `{"authBytes":"AGFsaWNlAGFsaWNlLXNlY3JldA=="}`)) // \0alice\0alice-secret
	step(flow.ServerToClient, frame(t, c, "SaslAuthenticate", 2, 3, true, `{"errorCode":0,"errorMessage":null,"authBytes":"","sessionLifetimeMs":0}`))
	step(flow.ClientToServer, frame(t, c, "Produce", 9, 4, false, `{"transactionalId":null,"acks":-1,"timeoutMs":1000,"topicData":[{"name":"orders","partitionData":[{"index":3,"records":null}]}]}`))
	step(flow.ServerToClient, frame(t, c, "Produce", 9, 4, true, `{"responses":[{"name":"orders","partitionResponses":[{"index":3,"errorCode":6,"baseOffset":-1,"logAppendTimeMs":-1,"logStartOffset":-1,"recordErrors":[],"errorMessage":null}]}],"throttleTimeMs":0}`))
	fc.Close(at)
	return out
}

func TestRecordsOfAConversation(t *testing.T) {
	rs := conversation(t)
	if len(rs) != 4 {
		t.Fatalf("%d records", len(rs))
	}
	for i, r := range rs {
		if r.Conn != 7 || r.Client != "10.0.0.1:5555" || r.Broker != "10.0.0.2:9092" || r.ClientID != "app-1" ||
			r.ClientSoftwareName != "kgo" || r.ClientSoftwareVersion != "1.22.3" || r.LatencyNs == nil || *r.LatencyNs != int64(time.Millisecond) {
			t.Errorf("record %d: %+v", i, r)
		}
	}
	if rs[0].Mechanism != "" || rs[1].Mechanism != "PLAIN" || rs[1].Principal != "" || rs[2].Principal != "alice" || rs[3].Principal != "alice" || rs[3].Mechanism != "PLAIN" {
		t.Errorf("sasl: %+v %+v %+v %+v", rs[0], rs[1], rs[2], rs[3])
	}
	p := rs[3]
	if p.API != "Produce" || p.APIKey != 0 || p.Version != 9 || p.CorrelationID != 4 || !p.Time.Equal(t0.Add(6*time.Millisecond)) {
		t.Errorf("produce %+v", p)
	}
	if want := []Topic{{Name: "orders", Partitions: []int32{3}}}; !reflect.DeepEqual(p.Topics, want) {
		t.Errorf("topics %+v", p.Topics)
	}
	if want := []Error{{Code: 6, Name: "NOT_LEADER_OR_FOLLOWER", Path: "ProduceResponse.Responses[0].PartitionResponses[0].ErrorCode"}}; !reflect.DeepEqual(p.Errors, want) {
		t.Errorf("errors %+v", p.Errors)
	}
	if p.RequestBytes <= 0 || p.ResponseBytes <= 0 {
		t.Errorf("sizes %d %d", p.RequestBytes, p.ResponseBytes)
	}
}

func TestAuditLinesHoldNoSecret(t *testing.T) {
	var out bytes.Buffer
	a, err := OpenAudit("-", &out, AuditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs := conversation(t)
	for _, r := range rs {
		if err := a.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "alice-secret") || strings.Contains(out.String(), "YWxpY2Utc2VjcmV0") {
		t.Fatalf("secret in the audit log:\n%s", out.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(rs) {
		t.Fatalf("%d lines for %d records", len(lines), len(rs))
	}
	for i, l := range lines {
		var back Record
		if err := json.Unmarshal([]byte(l), &back); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if !reflect.DeepEqual(&back, rs[i]) {
			t.Errorf("line %d reads back as %+v, want %+v", i, back, rs[i])
		}
	}
	var m map[string]any
	json.Unmarshal([]byte(lines[3]), &m)
	if m["sasl_principal"] != "alice" || m["api"] != "Produce" || m["client_software_name"] != "kgo" {
		t.Errorf("keys: %v", m)
	}
}

func TestAuditRotatesBySize(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	a, err := OpenAudit(path, nil, AuditOptions{MaxSizeMB: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := conversation(t)[3]
	const n = 8000 // about 3 MB of lines
	for i := range n {
		r.CorrelationID = int32(i)
		if err := a.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "audit*.log"))
	if len(files) < 3 {
		t.Fatalf("files %v: not rotated", files)
	}
	seen := make([]bool, n)
	for _, f := range files {
		st, _ := os.Stat(f)
		if st.Size() > 1<<20 {
			t.Errorf("%s: %d bytes", f, st.Size())
		}
		fh, _ := os.Open(f)
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			var back Record
			if err := json.Unmarshal(sc.Bytes(), &back); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			seen[back.CorrelationID] = true
		}
		fh.Close()
	}
	for i, ok := range seen {
		if !ok {
			t.Fatalf("line %d lost", i)
		}
	}
}

func TestAuditUnwritable(t *testing.T) {
	_, err := OpenAudit(filepath.Join(t.TempDir(), "no", "such", "dir", "audit.log"), nil, AuditOptions{})
	if err == nil || !strings.Contains(err.Error(), "audit log") {
		t.Fatalf("err %v", err)
	}
}

func TestParquetRollsAndReadsBack(t *testing.T) {
	dir := t.TempDir()
	now := t0
	p, err := OpenParquetDir(filepath.Join(dir, "x"), ParquetOptions{MaxRows: 3, Now: func() time.Time { now = now.Add(time.Second); return now }})
	if err != nil {
		t.Fatal(err)
	}
	rs := conversation(t)
	var all []*Record
	for range 2 {
		all = append(all, rs...)
	}
	for _, r := range all {
		if err := p.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	// While a file is open only the whole ones have the .parquet name.
	if got, _ := filepath.Glob(filepath.Join(dir, "x", "*.parquet")); len(got) != 2 {
		t.Fatalf("whole files %v", got)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	files := p.Files()
	if len(files) != 3 || filepath.Base(files[0]) != "exchanges-20260102T030406.000000Z-1.parquet" {
		t.Fatalf("files %v", files)
	}
	var back []Record
	for _, f := range files {
		rows, err := parquet.ReadFile[Record](f)
		if err != nil {
			t.Fatal(err)
		}
		back = append(back, rows...)
	}
	if len(back) != len(all) {
		t.Fatalf("%d rows, want %d", len(back), len(all))
	}
	for i := range back {
		want := *all[i]
		want.Time = want.Time.Truncate(time.Microsecond)
		if !reflect.DeepEqual(back[i], want) {
			t.Errorf("row %d: %+v\nwant %+v", i, back[i], want)
		}
	}
}

// A file open for MaxAge is ended and named whole without a Write or a
// Close, so that engines see the records of a long run.
func TestParquetRollsByAge(t *testing.T) {
	dir := t.TempDir()
	p, err := OpenParquetDir(dir, ParquetOptions{MaxAge: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r := conversation(t)[3]
	if err := p.Write(r); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); len(p.Files()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the file was not ended")
		}
	}
	rows, err := parquet.ReadFile[Record](p.Files()[0])
	if err != nil || len(rows) != 1 || rows[0].CorrelationID != r.CorrelationID {
		t.Fatalf("%v %+v", err, rows)
	}
	// The next record starts the next file.
	if err := p.Write(r); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if fs := p.Files(); len(fs) != 2 || fs[0] == fs[1] {
		t.Fatalf("files %v", fs)
	}
}
