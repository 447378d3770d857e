package conform_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/conform"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/internal/testnet"
)

// TestLifecycleKfake runs the topic lifecycle against kfake: every step
// goes as Kafka's would (the fetched batch is the one produced), and the
// topic is gone afterwards.
func TestLifecycleKfake(t *testing.T) {
	addr := startKfake(t)
	s := set44(t)
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: s, Mutate: true, Scenarios: []string{conform.Lifecycle}, APIs: []int16{18}, Prefix: "kwire-conform-life",
		Client: client.Options{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, p := range r.Probes {
		if p.Kind == "scenario" && strings.HasPrefix(p.Err, "topic lifecycle") {
			steps = append(steps, stepText(p))
			for _, f := range p.Findings {
				t.Errorf("%s: %s", p.Name(), f)
			}
		}
	}
	if got, want := strings.Join(steps, ", "), "CreateTopics pass, Metadata pass, Produce pass (uncompressed), Produce pass (gzip), Produce pass (snappy), Produce pass (lz4), Produce pass (zstd), Fetch pass, ListOffsets pass, DeleteTopics pass"; got != want {
		t.Errorf("steps %s\nwant %s\n%s", got, want, text(t, r))
	}
	if names := gone(t, s, addr, "kwire-conform-life"); strings.Contains(names, "kwire-conform-life") {
		t.Errorf("topics after the run: %s", names)
	}
}

// edgeBroker answers ApiVersions (at an unknown version as KIP-511 says,
// a v0 answer with UNSUPPORTED_VERSION); on an unknown api key it closes
// the connection, or with sloppy answers 4 bytes; a size prefix over 1 MiB
// closes it, or with sloppy is waited on.
func edgeBroker(t *testing.T, sloppy bool) string {
	s := set44(t)
	c := codec.New(s)
	return testnet.Serve(t, nil, func(nc net.Conn) {
		for {
			var size [4]byte
			if _, err := io.ReadFull(nc, size[:]); err != nil {
				return
			}
			n := binary.BigEndian.Uint32(size[:])
			if n > 1<<20 {
				if sloppy {
					io.Copy(io.Discard, nc)
				}
				return
			}
			fr := make([]byte, 4+n)
			copy(fr, size[:])
			if _, err := io.ReadFull(nc, fr[4:]); err != nil {
				return
			}
			key, v, _ := frame.RequestAPI(fr)
			corr, _ := frame.RequestCorrelationID(fr)
			if key != 18 {
				if sloppy {
					nc.Write([]byte{0, 0, 0, 0})
					continue
				}
				return
			}
			code := 0
			if v > s.Request(18).ValidVersions.Hi {
				code, v = 35, 0
			}
			bt, _ := codec.FromJSON([]byte(fmt.Sprintf(`{"errorCode":%d,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0}`, code)), s.Response(18), v)
			out, err := c.Encode(s.Response(18), v, codec.ResponseHeaderValue(s.ResponseHeader(), corr), bt)
			if err != nil {
				t.Error(err)
				return
			}
			nc.Write(out.Bytes)
		}
	})
}

// TestEdges: the protocol edges scenario against a broker that does what
// Kafka does (every step as expected) and one that answers an unknown api
// key and waits on an oversized frame (two findings).
func TestEdges(t *testing.T) {
	for _, tc := range []struct {
		sloppy bool
		want   string
	}{
		{false, "ApiVersions v127 scenario 0 kafka-error []; api key 1000 v0 scenario 1 pass []; frame v0 scenario 2 pass []"},
		{true, "ApiVersions v127 scenario 0 kafka-error []; " +
			"api key 1000 v0 scenario 1 finding [api key 1000: answered 4 bytes (<nil>) where Kafka closes the connection]; " +
			"frame v0 scenario 2 finding [a frame of 2147483632 bytes: the connection stayed open (Kafka closes it)]"},
	} {
		addr := edgeBroker(t, tc.sloppy)
		r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: set44(t), Scenarios: []string{conform.Edges}, APIs: []int16{18}, Random: 0,
			Client: client.Options{Timeout: 500 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range r.Probes {
			if p.Kind == "scenario" {
				var fs []string
				for _, f := range p.Findings {
					fs = append(fs, f.String())
				}
				got = append(got, fmt.Sprintf("%s %s %v", p.Name(), p.Outcome, fs))
			}
		}
		if strings.Join(got, "; ") != tc.want {
			t.Errorf("sloppy %v:\n%s\nwant\n%s", tc.sloppy, strings.Join(got, "\n"), strings.ReplaceAll(tc.want, "; ", "\n"))
		}
	}
}

// TestIdempotentKfake runs the idempotent produce against kfake: a
// duplicate appends nothing, a gap in the sequence is refused.
func TestIdempotentKfake(t *testing.T) {
	addr := startKfake(t)
	r, err := conform.Run(context.Background(), conform.Options{Bootstrap: addr, Set: set44(t), Mutate: true, Scenarios: []string{conform.Idempotent}, APIs: []int16{18}, Prefix: "kwire-conform-idem",
		Client: client.Options{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, p := range r.Probes {
		if p.Kind == "scenario" {
			steps = append(steps, p.API+" "+p.Outcome.String())
			for _, f := range p.Findings {
				t.Errorf("%s: %s", p.Name(), f)
			}
		}
	}
	if got, want := strings.Join(steps, ", "), "CreateTopics pass, Metadata pass, InitProducerId pass, Produce pass, Produce pass, Produce pass, Produce pass, ListOffsets pass, DeleteTopics pass"; got != want {
		t.Errorf("steps %s\nwant %s", got, want)
	}
}

// stepText is a scenario step as the tests list it: "Produce pass", with
// the step's note in parentheses ("Produce pass (gzip)").
func stepText(p conform.Probe) string {
	s := p.API + " " + p.Outcome.String()
	if _, note, _ := strings.Cut(p.Err, ": "); note != "" {
		s += " (" + note + ")"
	}
	return s
}
