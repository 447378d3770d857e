package main

import (
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/internal/testseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/site"
	"github.com/kwire/kwire/spec"
)

func TestServeDecodesPastedHex(t *testing.T) {
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(siteHandler([]*spec.Set{set}, nil))
	defer srv.Close()
	get := func(p string) (int, string) {
		t.Helper()
		resp, err := srv.Client().Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// The seed's hex, with spaces, as one would paste it.
	code, body := get("/decode?hex=" + url.QueryEscape(strings.Join(chunks(voteRequestV2, 8), " ")))
	if code != 200 {
		t.Fatalf("decode of the Vote v2 seed: %d\n%s", code, body)
	}
	for _, want := range []string{
		`<tr id="Topics.0.Partitions.0.PreVote" class="q l" data-o="79" data-s="1">`,
		"VoteRequest v2, request header v2, 83 bytes on the wire",
		`href="4.4.0/Vote/v2/request.html"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("decode page lacks %q", want)
		}
	}
	code, body = get("/decode?api=Vote&version=2&response=1&hex=" + voteResponseV2)
	if code != 200 || !strings.Contains(body, `VoteResponse v2, response header v1, 32 bytes on the wire`) {
		t.Errorf("decode of the VoteResponse v2 seed: %d", code)
	}
	// A truncated frame: the partial tree and the error.
	code, body = get("/decode?hex=" + voteRequestV2[:84])
	if code != 200 || !strings.Contains(body, "ReplicaDirectoryId at 0x0023: need 16 bytes, have 7") || !strings.Contains(body, `<tr id="undecoded"`) {
		t.Errorf("decode of a truncated frame: %d\n%s", code, body)
	}
	code, body = get("/decode?hex=zz")
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "hex: ") {
		t.Errorf("decode of bad hex: %d", code)
	}
	// The page's hints speak of its form, not of command-line flags.
	code, body = get("/decode?response=1&hex=00")
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "decoding a response needs an API and a version: a response does not say what it answers") {
		t.Errorf("decode of a response without an API: %d\n%s", code, body)
	}
	code, body = get("/decode?hex=" + voteResponseV2)
	if !strings.Contains(body, "these may be the bytes of a response: decode them with an API, a version and the response box ticked") || strings.Contains(body, "bytes on the wire") {
		t.Errorf("decode of a response as a request: %d\n%s", code, body)
	}
	code, body = get("/decode?api=Vote&hex=" + voteResponseV2)
	// The hint alone: no page of the bytes as the request they are not.
	if !strings.Contains(body, "if these bytes are a response, tick the response box") || strings.Contains(body, "bytes on the wire") {
		t.Errorf("decode of a response with an API: %d\n%s", code, body)
	}
	p0 := "000000170000000000000007000361626300010000000000000000"
	if _, body = get("/decode?hex=" + p0); !strings.Contains(body, "the bytes decode as ProduceRequest v0 of Kafka 3.9.2: choose release 3.9.2") {
		t.Errorf("decode of Produce v0: %s", body)
	}
	for _, flag := range []string{"--api", "--version", "--response", "--kafka"} {
		for _, q := range []string{"response=1&hex=00", "hex=" + voteResponseV2, "api=Vote&hex=" + voteResponseV2, "hex=" + p0} {
			if _, body := get("/decode?" + q); strings.Contains(body, flag) {
				t.Errorf("decode page (%s) names the flag %s:\n%s", q, flag, body)
			}
		}
	}
	if code, _ := get("/4.4.0/Vote/v2/request"); code != 200 {
		t.Errorf("GET /4.4.0/Vote/v2/request: %d", code)
	}
}

// One request to the decode page is bounded: four zstd batches of 24 MiB
// each (a few KB of hex) are refused past 8 MiB, the page says so, and the
// request allocates less than 64 MiB, where it held all 96 MiB and more;
// more than 512 Ki hex digits are refused (the page of a frame takes
// about 200 bytes a byte); a request that finds the most decodes at once
// running waits, then is told the server is busy.
func TestServeDecodeBounded(t *testing.T) {
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(siteHandler([]*spec.Set{set}, nil))
	defer srv.Close()
	one := hostileZstdBatch(t, 0, 384, 64<<10)
	var four []byte
	for range 4 {
		four = append(four, one...)
	}
	form := url.Values{"hex": {hex.EncodeToString(produceV3(four))}}
	post := func() (int, string) {
		t.Helper()
		resp, err := srv.Client().PostForm(srv.URL+"/decode", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	var code int
	var body string
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, body = post()
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("four batches of 24 MiB: %d bytes allocated", got)
	if code != 200 || strings.Count(body, "zstd payload decompresses to more than 8388608 bytes, the decompression limit: not followed") != 4 {
		t.Errorf("decode of four batches of 24 MiB: %d", code)
	}
	if got > 64<<20 {
		t.Errorf("decode of four batches of 24 MiB allocates %d bytes", got)
	}

	// More hex than the page takes: refused before it is parsed.
	big := url.Values{"hex": {strings.Repeat("00", site.MaxDecodeHex/2+1)}}
	resp, err := srv.Client().PostForm(srv.URL+"/decode", big)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(b), "too much hex: the decode page takes at most 524288 characters") {
		t.Errorf("decode of 512 KiB and 2 hex digits: %d", resp.StatusCode)
	}

	defer func(w time.Duration) { serveWait = w }(serveWait)
	serveWait = time.Millisecond
	for range cap(serveDecodes) {
		serveDecodes <- struct{}{}
	}
	code, body = post()
	for range cap(serveDecodes) {
		<-serveDecodes
	}
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "the server is decoding 1 request, its most at once: try again") {
		t.Errorf("decode with every decode taken: %d", code)
	}
}

// The decode page bounds the nodes of one request: an uncompressed batch
// of 30000 records (240 KB, within the hex the page takes) would make
// 240001 record nodes and more, and one record of 60000 headers 120000
// (a 147-byte zstd one took the server to 13.9 GB); the tree stops at
// 16384 and the page says so, once.
func TestServeDecodeNodeBound(t *testing.T) {
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(siteHandler([]*spec.Set{set}, nil))
	defer srv.Close()
	var recs []byte
	const count = 30000
	for i := range count {
		recs = hostileRecord(recs, i, -1)
	}
	// One record of 60000 headers, each an empty key and a null value.
	rec := testseg.HeaderBombRecord(60000)
	for _, c := range []struct {
		name, want string
		batch      []byte
	}{
		{"30000 records", "not decoded: the tree holds 16384 nodes, its limit",
			records.RawBatch{LastOffsetDelta: count - 1, Count: count, Records: recs}.Bytes()},
		{"60000 headers", "of 60000 (", records.RawBatch{Count: 1, Records: rec}.Bytes()},
	} {
		form := url.Values{"hex": {hex.EncodeToString(produceV3(c.batch))}}
		resp, err := srv.Client().PostForm(srv.URL+"/decode", form)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := string(b)
		if resp.StatusCode != 200 || strings.Count(body, c.want) != 1 || strings.Count(body, "the tree holds 16384 nodes, its limit") != 1 {
			t.Errorf("decode of %s: %d, %d node bound problems", c.name, resp.StatusCode, strings.Count(body, "the tree holds 16384 nodes"))
		}
		if n := strings.Count(body, `class="q l"`); n > serveMaxNodes {
			t.Errorf("%s: the page shows %d leaves, more than the %d nodes a request may make", c.name, n, serveMaxNodes)
		}
	}
}

// kwire serve's server closes a connection whose request header does not
// come within its header timeout, and one whose body does not come within
// its read timeout: a peer that opens connections and sends nothing does
// not hold them; an answer not ready within the write timeout is not sent. The timeouts are made short for the test; what is
// checked is that the server ends the connection, not how fast.
func TestServeTimeouts(t *testing.T) {
	defer func(old struct{ header, read, write time.Duration }) { serveTimeouts = old }(serveTimeouts)
	serveTimeouts.header, serveTimeouts.read, serveTimeouts.write = 100*time.Millisecond, 200*time.Millisecond, time.Second
	srv := httptest.NewUnstartedServer(siteHandler(nil, nil))
	srv.Config = newServer(srv.Config.Handler)
	srv.Start()
	defer srv.Close()
	for _, tc := range []struct{ name, send string }{
		{"a header never ended", "POST /decode HTTP/1.1\r\nHost: x\r\n"},
		{"a body never sent", "POST /decode HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nhex=00"},
	} {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, tc.send); err != nil {
			t.Fatal(err)
		}
		// The test's own bound, far past the server's: a server without
		// timeouts leaves the read waiting until then.
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, err = io.ReadAll(c)
		c.Close()
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("%s: the server kept the connection open", tc.name)
		}
	}

	// An answer not written within the write timeout is not written: a
	// decode that waits a second for a free decode (every one taken) is
	// past the write timeout of 200 ms when it answers, and the peer gets
	// the connection closed, not the page.
	serveTimeouts.write = 200 * time.Millisecond
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	srv2 := httptest.NewUnstartedServer(siteHandler([]*spec.Set{set}, nil))
	srv2.Config = newServer(srv2.Config.Handler)
	srv2.Start()
	defer srv2.Close()
	defer func(w time.Duration) { serveWait = w }(serveWait)
	serveWait = time.Second
	for range cap(serveDecodes) {
		serveDecodes <- struct{}{}
	}
	defer func() {
		for range cap(serveDecodes) {
			<-serveDecodes
		}
	}()
	c, err := net.Dial("tcp", srv2.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got []byte
	if _, err := io.WriteString(c, "GET /decode?hex=00 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	got, err = io.ReadAll(c)
	if len(got) > 0 || err != nil {
		t.Errorf("an answer past the write timeout: %q, %v", got, err)
	}
}
