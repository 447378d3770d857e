package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
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
		{Options{Listen: ":0", Upstream: "10.0.0.7:9092", Advertise: "proxy.example:19092"}, "", "", 0},
		{Options{Upstream: "http://broker-a.internal:9092"}, "Upstream", `proxy: Upstream address "http://broker-a.internal:9092": want host:port, not a URL (broker-a.internal:9092)`, 0},
		{Options{Listen: "192.0.2.1:19092", Upstream: "10.0.0.7:9092"}, "Listen", `proxy: Listen address "192.0.2.1:19092": not an address of this machine`, 0},
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
		var le *ListenError
		if ae.Option != c.option || err.Error() != c.msg || errors.As(err, &le) != strings.HasSuffix(c.msg, "not an address of this machine") {
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

// A Listen address in use is refused, naming it.
func TestCheckAddrsListenInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	err = CheckAddrs(context.Background(), Options{Listen: addr, Upstream: "10.0.0.7:9092"}, nil)
	var ae *AddrError
	var le *ListenError
	if !errors.As(err, &ae) || !errors.As(err, &le) || ae.Option != "Listen" || err.Error() != `proxy: Listen address "`+addr+`": the address is already in use` {
		t.Errorf("%v", err)
	}
}

// Advertised: what RewriteAdvertised writes, and whether it stands for a
// listener on every interface.
func TestAdvertised(t *testing.T) {
	c := codec.New(testSet)
	for _, o := range []struct {
		listen, advertise string
		want              string // with the listener's port for "%d"
		any               bool
	}{
		{"0.0.0.0:0", "", "127.0.0.1:%d", true},
		{"127.0.0.1:0", "", "127.0.0.1:%d", false},
		{"0.0.0.0:0", "proxy.example:19092", "proxy.example:19092", false},
	} {
		p, err := New(Options{Listen: o.listen, Upstream: "127.0.0.1:1", Codec: c, RewriteAdvertised: true, Advertise: o.advertise})
		if err != nil {
			t.Fatal(err)
		}
		want := o.want
		if strings.Contains(want, "%d") {
			want = fmt.Sprintf(want, p.Addr().(*net.TCPAddr).Port)
		}
		if addr, any := p.Advertised(); addr != want || any != o.any {
			t.Errorf("%s, %q: %s %v, want %s %v", o.listen, o.advertise, addr, any, want, o.any)
		}
		p.Close()
		p.acceptWG.Wait()
	}
	p, err := New(Options{Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.Close(); p.acceptWG.Wait() }()
	if addr, any := p.Advertised(); addr != "" || any {
		t.Errorf("without RewriteAdvertised: %q %v", addr, any)
	}
}
