package traffic

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// Filter chooses exchanges; every condition set must hold. The zero
// Filter keeps everything.
type Filter struct {
	// APIs keeps the exchanges of these api keys (nil: any).
	APIs []int16
	// Client keeps the exchanges whose request's client id matches this
	// path.Match pattern ("app-*"; "": any). A response whose request was
	// not seen has the client id "".
	Client string
	// Errors keeps the exchanges whose response has a non-zero error code,
	// whose request or response did not decode, or whose request has
	// findings (flow.Options.Check).
	Errors bool
	// SlowerThan keeps the exchanges whose latency (flow.Exchange.Latency)
	// is over it; an exchange without both frames has none and is not
	// kept (0: any).
	SlowerThan time.Duration
	// Topic keeps the exchanges whose request or response names this
	// topic, by name or by a topic id that an earlier response on the same
	// connection (Metadata) gave with its name ("": any).
	Topic string
}

// Active reports whether any condition is set.
func (f *Filter) Active() bool {
	return f.APIs != nil || f.Client != "" || f.Errors || f.SlowerThan > 0 || f.Topic != ""
}

// ParseAPIs resolves api names or keys ("Produce", "fetch", "3"; each may
// also be a list separated by commas) with set. The error names the one
// that is not an API of set.
func ParseAPIs(set *spec.Set, names []string) ([]int16, error) {
	var keys []int16
	for _, arg := range names {
		for _, n := range strings.Split(arg, ",") {
			if strings.TrimSpace(n) == "" {
				continue
			}
			req, _, err := set.Lookup(n)
			if err != nil {
				return nil, err
			}
			if req == nil || req.Type != spec.Request {
				return nil, fmt.Errorf("%q is not an API", n)
			}
			if !slices.Contains(keys, req.APIKey) {
				keys = append(keys, req.APIKey)
			}
		}
	}
	return keys, nil
}

// Check reports a Client pattern that path.Match rejects (naming --client).
func (f *Filter) Check() error {
	if _, err := path.Match(f.Client, ""); err != nil {
		return fmt.Errorf("--client %q: %w", f.Client, err)
	}
	return nil
}

func (f *Filter) exchange(s *connState, x *flow.Exchange) bool {
	if f.APIs != nil && (x.Token || !slices.Contains(f.APIs, x.APIKey)) {
		return false
	}
	if f.Client != "" {
		if ok, _ := path.Match(f.Client, x.ClientID); !ok {
			return false
		}
	}
	if f.Errors && len(x.Errors) == 0 && len(x.Findings) == 0 && !(x.Request != nil && x.Request.Err != nil) && !(x.Response != nil && x.Response.Err != nil) {
		return false
	}
	if f.SlowerThan > 0 && (x.Request == nil || x.Response == nil || x.Latency() <= f.SlowerThan) {
		return false
	}
	if f.Topic != "" {
		match := func(name string) bool { return name == f.Topic }
		if !s.eachTopic(treeOf(x.Request), match) && !s.eachTopic(treeOf(x.Response), match) {
			return false
		}
	}
	return true
}

// problem keeps a problem when every condition set keeps it: Errors
// does; APIs does when the problem's frame is of one of them; Client,
// SlowerThan and Topic, which describe exchanges, do not.
func (f *Filter) problem(p *flow.Problem) bool {
	if f.APIs != nil && (p.APIKey < 0 || !slices.Contains(f.APIs, p.APIKey)) {
		return false
	}
	return f.Client == "" && f.SlowerThan == 0 && f.Topic == ""
}

func treeOf(fr *flow.Frame) *tree.Tree {
	if fr == nil {
		return nil
	}
	return fr.Tree
}

// Settings are what a command's flags ask of a Watcher.
type Settings struct {
	// APIs are api names or keys (ParseAPIs); Client, Errors, SlowerThan and
	// Topic are the Filter's.
	APIs       []string
	Client     string
	Errors     bool
	SlowerThan time.Duration
	Topic      string
	// Stats is Options.Stats; Upgrade names the embedded release of
	// Options.Upgrade ("4.4", "3.9.1"; "" for none).
	Stats   bool
	Upgrade string
	// Check is Options.Check: the command judges the clients' requests
	// (flow.Options.Check).
	Check bool
}

// Setup makes the Watcher of settings st, resolving api names with set.
// The errors name the flag kwire pcap and kwire proxy give it (--api,
// --client, --upgrade-check) and what is wrong.
func Setup(set *spec.Set, st Settings) (*Watcher, error) {
	o := Options{Stats: st.Stats, Check: st.Check, Filter: Filter{Client: st.Client, Errors: st.Errors, SlowerThan: st.SlowerThan, Topic: st.Topic}}
	var err error
	if o.Filter.APIs, err = ParseAPIs(set, st.APIs); err != nil {
		return nil, fmt.Errorf("--api: %w", err)
	}
	if err := o.Filter.Check(); err != nil {
		return nil, err
	}
	if st.Upgrade != "" {
		if o.Upgrade, err = spec.Embedded(st.Upgrade); err != nil {
			return nil, fmt.Errorf("--upgrade-check: %w", err)
		}
	}
	return New(o), nil
}

// Every calls fn every d until ctx is done, on a goroutine of its own
// (d <= 0: never): a proxy's periodic statistics.
func Every(ctx context.Context, d time.Duration, fn func()) {
	if d <= 0 {
		return
	}
	go func() {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				fn()
			}
		}
	}()
}
