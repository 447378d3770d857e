package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/internal/testnet"
	"github.com/kwire/kwire/spec"
)

// broker serves connections: it answers the first request of each (the
// ApiVersions handshake) with an ApiVersionsResponse written a byte at a
// time, and every later request with answer's bytes.
func broker(t *testing.T, c *codec.Codec, answer func(conn net.Conn, corr int32)) string {
	t.Helper()
	return testnet.Serve(t, nil, func(conn net.Conn) { serve(t, c, conn, answer) })
}

func serve(t *testing.T, c *codec.Codec, conn net.Conn, answer func(conn net.Conn, corr int32)) {
	for n := 0; ; n++ {
		fr, err := testnet.ReadFrame(conn, math.MaxInt32)
		if err != nil {
			return
		}
		key, ver, _ := frame.RequestAPI(fr)
		corr, _ := frame.RequestCorrelationID(fr)
		if n > 0 {
			answer(conn, corr)
			continue
		}
		resp := c.Set.Response(key)
		body, err := codec.FromJSON([]byte(`{"errorCode":0,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0}`), resp, ver)
		if err != nil {
			t.Error(err)
			return
		}
		out, err := c.Encode(resp, ver, codec.ResponseHeaderValue(c.Set.ResponseHeader(), corr), body)
		if err != nil {
			t.Error(err)
			return
		}
		for i := range out.Bytes {
			if _, err := conn.Write(out.Bytes[i : i+1]); err != nil {
				return
			}
		}
	}
}

func TestReadFrames(t *testing.T) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	ctx := context.Background()
	cases := []struct {
		name   string
		answer func(conn net.Conn, corr int32)
		want   func(err error) bool
		desc   string
	}{
		{"over the limit", func(conn net.Conn, corr int32) {
			conn.Write(append(frame.AppendSize(nil, 5000), 0, 0, 0, 1))
		}, func(err error) bool {
			var fe *codec.FrameError
			return errors.As(err, &fe) && fe.Size == 5000 && fe.Limit == 1000
		}, "a *codec.FrameError of size 5000, limit 1000"},
		{"negative size", func(conn net.Conn, corr int32) {
			conn.Write([]byte{0xff, 0xff, 0xff, 0xfe})
		}, func(err error) bool {
			var fe *codec.FrameError
			return errors.As(err, &fe) && fe.Size == -2
		}, "a *codec.FrameError of size -2"},
		{"closed inside a frame", func(conn net.Conn, corr int32) {
			conn.Write(append(frame.AppendSize(nil, 20), 0, 0, 0, 1, 0))
			conn.Close()
		}, func(err error) bool {
			return errors.Is(err, io.ErrUnexpectedEOF) && strings.Contains(err.Error(), "frame of 20 bytes: unexpected EOF")
		}, "frame of 20 bytes: unexpected EOF"},
		{"closed inside a size prefix", func(conn net.Conn, corr int32) {
			conn.Write([]byte{0, 0})
			conn.Close()
		}, func(err error) bool {
			return errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "frame of")
		}, "unexpected EOF"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr := broker(t, c, tc.answer)
			cn, err := client.Dial(ctx, addr, c, client.Options{MaxFrame: 1000})
			if err != nil {
				t.Fatal(err)
			}
			defer cn.Close()
			if r := cn.Versions()[18]; r.Max != 4 {
				t.Fatalf("handshake read versions %v", cn.Versions())
			}
			_, err = cn.Call(ctx, s.Request(18), 3, nil)
			if err == nil || !tc.want(err) {
				t.Fatalf("error %v, want %s", err, tc.desc)
			}
		})
	}
}

// A call that times out closes the connection; the context's end, which
// also fires then, must not touch the closed connection.
func TestCallTimeout(t *testing.T) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	addr := broker(t, c, func(net.Conn, int32) {})
	for range 20 {
		cn, err := client.Dial(context.Background(), addr, c, client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		_, err = cn.Call(ctx, s.Request(18), 3, nil)
		cancel()
		if err == nil || !strings.Contains(err.Error(), "timed out") || !errors.Is(err, client.ErrTimeout) || errors.Is(err, client.ErrClosed) {
			t.Fatalf("error %v, want a time-out (client.ErrTimeout)", err)
		}
		cn.Close()
	}
}

// TestCallClosedAndOutOfStep: a node that closes the connection instead of
// answering gives an error matching client.ErrClosed; one that answers with
// another correlation id a *client.CorrelationError.
func TestCallClosedAndOutOfStep(t *testing.T) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	closer := broker(t, c, func(conn net.Conn, _ int32) { conn.Close() })
	cn, err := client.Dial(context.Background(), closer, c, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cn.Call(context.Background(), s.Request(18), 3, nil)
	if !errors.Is(err, client.ErrClosed) || errors.Is(err, client.ErrTimeout) || !strings.Contains(err.Error(), "closed the connection") {
		t.Fatalf("error %v, want client.ErrClosed", err)
	}
	skew := broker(t, c, func(conn net.Conn, corr int32) {
		out, err := c.Encode(s.Response(18), 0, codec.ResponseHeaderValue(s.ResponseHeader(), corr+7), instance.Smallest(s.Response(18), 0))
		if err == nil {
			conn.Write(out.Bytes)
		}
	})
	cn, err = client.Dial(context.Background(), skew, c, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cn.Call(context.Background(), s.Request(18), 0, nil)
	var ce *client.CorrelationError
	if !errors.As(err, &ce) || ce.Got != ce.Want+7 {
		t.Fatalf("error %v, want a *client.CorrelationError 7 off", err)
	}
}

// TestRoundTrip: a frame kwire's specs do not describe (ApiVersions at
// version 127) goes out with the connection's next correlation id, and the
// answer comes back as received.
func TestRoundTrip(t *testing.T) {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)
	var got []byte
	addr := broker(t, c, func(conn net.Conn, corr int32) {
		out, err := c.Encode(s.Response(18), 0, codec.ResponseHeaderValue(s.ResponseHeader(), corr), instance.Smallest(s.Response(18), 0))
		if err == nil {
			got = out.Bytes
			conn.Write(out.Bytes)
		}
	})
	cn, err := client.Dial(context.Background(), addr, c, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	req := []byte{0, 0, 0, 16, 0, 18, 0, 127, 0xff, 0xff, 0xff, 0xff, 0, 2, 'k', 'w', 0, 0, 0, 0}
	resp, err := cn.RoundTrip(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if corr, _ := frame.RequestCorrelationID(req); corr != 2 || !bytes.Equal(resp, got) {
		t.Errorf("correlation id %d (want 2, the handshake's was 1), answer %x, want %x", corr, resp, got)
	}
}
