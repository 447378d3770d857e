package proxy

import (
	"context"
	"errors"
	"net"
	"testing"
)

// fakeLookup knows broker-a.internal only; it counts the lookups.
func fakeLookup(n *int) func(context.Context, string) ([]string, error) {
	return func(_ context.Context, host string) ([]string, error) {
		*n++
		if host == "broker-a.internal" {
			return []string{"10.0.0.7"}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
}

func TestCheckAddrs(t *testing.T) {
	for _, c := range []struct {
		o       Options
		option  string // "" when valid
		msg     string
		lookups int
	}{
		{Options{Listen: "127.0.0.1:0", Upstream: "broker-a.internal:9092"}, "", "", 1},
		{Options{Listen: ":19092", Upstream: "10.0.0.7:9092", Advertise: "proxy.example:19092"}, "", "", 0},
		{Options{Upstream: "[::1]:9092"}, "", "", 0},
		{Options{Upstream: "nohost"}, "Upstream", `proxy: Upstream address "nohost": missing port in address (want host:port)`, 0},
		{Options{Upstream: ""}, "Upstream", `proxy: Upstream address "": empty (want host:port)`, 0},
		{Options{Upstream: "nohost:9092"}, "Upstream", `proxy: Upstream address "nohost:9092": host "nohost" does not resolve (no such host)`, 1},
		{Options{Upstream: "broker-a.internal:0"}, "Upstream", `proxy: Upstream address "broker-a.internal:0": port 0 is out of range (1-65535)`, 0},
		{Options{Upstream: "broker-a.internal:65536"}, "Upstream", `proxy: Upstream address "broker-a.internal:65536": port 65536 is out of range (1-65535)`, 0},
		{Options{Upstream: "broker-a.internal:kafka"}, "Upstream", `proxy: Upstream address "broker-a.internal:kafka": port "kafka" is not a number`, 0},
		{Options{Upstream: "broker-a.internal:"}, "Upstream", `proxy: Upstream address "broker-a.internal:": no port (want host:port)`, 0},
		{Options{Upstream: ":9092"}, "Upstream", `proxy: Upstream address ":9092": no host (want host:port)`, 0},
		{Options{Upstream: "[::1:9092"}, "Upstream", `proxy: Upstream address "[::1:9092": missing ']' in address (want host:port)`, 0},
		{Options{Listen: "localhost", Upstream: "nohost"}, "Listen", `proxy: Listen address "localhost": missing port in address (want host:port)`, 0},
		{Options{Listen: "nohost:19092", Upstream: "10.0.0.7:9092"}, "Listen", `proxy: Listen address "nohost:19092": host "nohost" does not resolve (no such host)`, 1},
		{Options{Listen: ":70000", Upstream: "10.0.0.7:9092"}, "Listen", `proxy: Listen address ":70000": port 70000 is out of range (0-65535)`, 0},
		{Options{Upstream: "10.0.0.7:9092", Advertise: "proxy.example"}, "Advertise", `proxy: Advertise address "proxy.example": missing port in address (want host:port)`, 0},
		{Options{Upstream: "10.0.0.7:9092", Advertise: "proxy.example:0"}, "Advertise", `proxy: Advertise address "proxy.example:0": port 0 is out of range (1-65535)`, 0},
	} {
		n := 0
		err := CheckAddrs(context.Background(), c.o, fakeLookup(&n))
		if n != c.lookups {
			t.Errorf("%+v: %d lookups, want %d", c.o, n, c.lookups)
		}
		if c.option == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.o, err)
			}
			continue
		}
		var ae *AddrError
		if !errors.As(err, &ae) {
			t.Errorf("%+v: error %v, want an *AddrError", c.o, err)
			continue
		}
		if ae.Option != c.option || err.Error() != c.msg {
			t.Errorf("%+v: %s error %q, want %s %q", c.o, ae.Option, err, c.option, c.msg)
		}
	}
}

func TestCheckAddrsKeepsTheLookupError(t *testing.T) {
	timeout := &net.DNSError{Err: "i/o timeout", Name: "slow.example", IsTimeout: true}
	err := CheckAddrs(context.Background(), Options{Upstream: "slow.example:9092"}, func(context.Context, string) ([]string, error) {
		return nil, timeout
	})
	if !errors.Is(err, timeout) {
		t.Errorf("error %v does not wrap the lookup's", err)
	}
	if want := `proxy: Upstream address "slow.example:9092": host "slow.example" does not resolve: lookup slow.example: i/o timeout`; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}
