package proxy

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

var testSet = func() *spec.Set {
	s, err := spec.Embedded("")
	if err != nil {
		panic(err)
	}
	return s
}()

// responseBody is the body, as Kafka converter JSON, that the fake broker
// answers api key at version ver with ("" for every field at its default).
func responseBody(key, ver int16) string {
	switch key {
	case 3: // Metadata
		switch {
		case ver >= 10:
			top := ""
			if ver >= 13 {
				top = `,"errorCode":0`
			}
			return `{"throttleTimeMs":0,"brokers":[{"nodeId":1,"host":"broker-a.internal","port":9092,"rack":"r1"},{"nodeId":2,"host":"broker-b.internal","port":9093,"rack":null}],"clusterId":"abc","controllerId":1,"topics":[{"errorCode":3,"name":"missing","topicId":"AAAAAAAAAAAAAAAAAAAAAA","isInternal":false,"partitions":[],"topicAuthorizedOperations":-2147483648}]` + top + `}`
		case ver == 1:
			return `{"brokers":[{"nodeId":1,"host":"broker-a.internal","port":9092,"rack":"r1"},{"nodeId":2,"host":"broker-b.internal","port":9093,"rack":null}],"controllerId":1,"topics":[{"errorCode":3,"name":"missing","isInternal":false,"partitions":[]}]}`
		case ver == 0:
			return `{"brokers":[{"nodeId":1,"host":"broker-a.internal","port":9092},{"nodeId":2,"host":"broker-b.internal","port":9093}],"topics":[{"errorCode":3,"name":"missing","partitions":[]}]}`
		}
	case 10: // FindCoordinator
		switch {
		case ver >= 4:
			return `{"throttleTimeMs":0,"coordinators":[{"key":"g1","nodeId":1,"host":"broker-a.internal","port":9092,"errorCode":0,"errorMessage":null},{"key":"g2","nodeId":-1,"host":"","port":-1,"errorCode":15,"errorMessage":"not yet"}]}`
		case ver >= 1:
			return `{"throttleTimeMs":0,"errorCode":0,"errorMessage":null,"nodeId":1,"host":"broker-a.internal","port":9092}`
		}
		return `{"errorCode":0,"nodeId":1,"host":"broker-a.internal","port":9092}`
	case 60: // DescribeCluster
		et, fenced := "", ""
		if ver >= 1 {
			et = `"endpointType":1,`
		}
		if ver >= 2 {
			fenced = `,"isFenced":false`
		}
		return `{"throttleTimeMs":0,"errorCode":0,"errorMessage":null,` + et + `"clusterId":"abc","controllerId":1,"brokers":[{"brokerId":1,"host":"broker-a.internal","port":9092,"rack":null` + fenced + `}],"clusterAuthorizedOperations":-2147483648}`
	}
	return ""
}

// encodeFrame encodes a framed request (req) or response of api at ver.
func encodeFrame(t testing.TB, c *codec.Codec, api string, request bool, ver int16, corr int32, clientID, body string) []byte {
	t.Helper()
	rq, rs, err := c.Set.Lookup(api)
	if err != nil {
		t.Fatal(err)
	}
	m, h := rs, codec.ResponseHeaderValue(c.Set.ResponseHeader(), corr)
	if request {
		m, h = rq, codec.RequestHeaderValue(c.Set.RequestHeader(), rq.APIKey, ver, corr, clientID)
	}
	var b *tree.Tree
	if body != "" {
		if b, err = codec.FromJSON([]byte(body), m, ver); err != nil {
			t.Fatalf("%s v%d: %v", m.Name, ver, err)
		}
	}
	tr, err := c.Encode(m, ver, h, b)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Bytes
}

// fakeBroker answers every request it can decode with a response of the
// same api key, version and correlation id, encoded by kwire's codec
// (bodies from responseBody). Frames it cannot decode get no answer.
// It keeps what it read and wrote per connection.
type fakeBroker struct {
	t  testing.TB
	ln net.Listener
	c  *codec.Codec
	mu sync.Mutex
	// read and wrote are the bytes of each connection, in accept order.
	read, wrote []*bytes.Buffer
	wg          sync.WaitGroup
}

func newFakeBroker(t testing.TB) *fakeBroker {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return newFakeBrokerOn(t, ln)
}

// newFakeBrokerOn serves the fake broker on ln (a TLS listener, say; it
// keeps the plaintext).
func newFakeBrokerOn(t testing.TB, ln net.Listener) *fakeBroker {
	f := &fakeBroker{t: t, ln: ln, c: codec.New(testSet)}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			r, w := &bytes.Buffer{}, &bytes.Buffer{}
			f.read, f.wrote = append(f.read, r), append(f.wrote, w)
			f.mu.Unlock()
			f.wg.Add(1)
			go func() { defer f.wg.Done(); f.serve(conn, r, w) }()
		}
	}()
	t.Cleanup(func() { ln.Close(); f.wg.Wait() })
	return f
}

func (f *fakeBroker) addr() string { return f.ln.Addr().String() }

func (f *fakeBroker) serve(conn net.Conn, rec, sent *bytes.Buffer) {
	defer conn.Close()
	var hdr [4]byte
	for {
		if _, err := io.ReadFull(conn, hdr[:]); err != nil {
			return
		}
		f.mu.Lock()
		rec.Write(hdr[:])
		f.mu.Unlock()
		size := int64(int32(binary.BigEndian.Uint32(hdr[:])))
		if size < 0 || size > 1<<20 {
			// Not a frame this broker takes: swallow the rest.
			b, _ := io.ReadAll(conn)
			f.mu.Lock()
			rec.Write(b)
			f.mu.Unlock()
			return
		}
		fr := make([]byte, 4+size)
		copy(fr, hdr[:])
		if _, err := io.ReadFull(conn, fr[4:]); err != nil {
			return
		}
		f.mu.Lock()
		rec.Write(fr[4:])
		f.mu.Unlock()
		t, err := f.c.DecodeRequest(fr)
		if err != nil {
			continue
		}
		key := int16(binary.BigEndian.Uint16(fr[4:]))
		corr := int32(binary.BigEndian.Uint32(fr[8:]))
		if key == 0 {
			continue // Produce: no answer needed by the tests
		}
		resp := encodeFrame(f.t, f.c, t.Message.BaseName(), false, t.Version, corr, "", responseBody(key, t.Version))
		f.mu.Lock()
		sent.Write(resp)
		f.mu.Unlock()
		if _, err := conn.Write(resp); err != nil {
			return
		}
	}
}

// conn returns copies of what connection i read and wrote.
func (f *fakeBroker) conn(i int) (read, wrote []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bytes.Clone(f.read[i].Bytes()), bytes.Clone(f.wrote[i].Bytes())
}
