// Package watchflags holds the filter, statistics and upgrade-check flags
// that kwire pcap and kwire proxy share, and turns them into a
// traffic.Watcher.
package watchflags

import (
	"fmt"
	"time"

	"github.com/kwire/kwire/internal/cli"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/traffic"
)

// Flags are the flags, for embedding in a kong command struct; their
// fields are traffic.Settings'.
type Flags struct {
	APIs       []string      `name:"api" help:"Print only the exchanges of these APIs (names or keys; repeat or separate by commas)." placeholder:"API" predictor:"api"`
	Client     string        `help:"Print only the exchanges whose client id matches this pattern (* ? [a-z], as Go's path.Match)." placeholder:"GLOB"`
	Errors     bool          `help:"Print only the exchanges with a non-zero error code or a frame that did not decode, and the problems."`
	SlowerThan time.Duration `name:"slower-than" help:"Print only the exchanges whose latency is over this." placeholder:"DURATION"`
	Topic      string        `help:"Print only the exchanges that name this topic, or its id as a response on the same connection (Metadata) gave it." placeholder:"NAME"`
	Stats      bool          `help:"Print statistics per API version (exchanges, bytes, latency percentiles, error codes) and per client, of the exchanges the filters keep."`
	Upgrade    string        `name:"upgrade-check" help:"List the clients that used an API or version this embedded release does not accept (as --kafka names it: 4.0, 3.9.1); when there are some, the exit status is 1." placeholder:"RELEASE"`
	Check      bool          `help:"Judge the clients' requests (sending nothing): a version the broker did not announce on the connection, a request before SASL authentication completed, the wrong header version, a varint longer than needed, tagged fields out of order or repeated, a correlation id reused while in flight, a record batch whose CRC, count, offsets or sequences do not add up, bytes after the body. Findings are printed under their exchange, counted in --stats, and make the exit status 1."`
}

// Watcher returns the traffic.Watcher the flags ask for, api names
// resolved with set. An API name the specs do not have is an error naming
// --api (exit status 1, as for every unknown name); a flag that is wrong on
// its face (an unknown release, a bad pattern) is a cli.UsageError naming
// it.
func (f *Flags) Watcher(set *spec.Set) (*traffic.Watcher, error) {
	if _, err := traffic.ParseAPIs(set, f.APIs); err != nil {
		return nil, fmt.Errorf("--api: %w", err)
	}
	w, err := traffic.Setup(set, traffic.Settings(*f))
	if err != nil {
		return nil, cli.UsageError{Err: err}
	}
	return w, nil
}
