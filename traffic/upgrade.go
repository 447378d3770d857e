package traffic

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/render"
)

// upgradeKey is a client and an API version the target does not accept.
type upgradeKey struct {
	client clientKey
	api    apiKey
}

// check counts x when the target does not accept its request version: a
// version outside the target's stable versions (spec.Message.StableVersions:
// a version the target marks unstable is offered only with unstable API
// versions enabled, so it is not accepted). An ApiVersions request above
// the target's versions is no blocker: the broker answers it with a v0
// response holding its own versions and the client retries at one of them
// (KIP-511).
func (w *Watcher) check(s *connState, x *flow.Exchange) {
	if x.APIKey < 0 || x.Token || x.Request == nil {
		return
	}
	m := w.o.Upgrade.Request(x.APIKey)
	if m != nil && m.StableVersions().Contains(x.Version) {
		return
	}
	if m != nil && x.APIKey == apiVersionsKey && !m.ValidVersions.Empty() && x.Version > m.ValidVersions.Hi {
		return
	}
	w.upg[upgradeKey{s.client(x), apiKey{x.APIKey, x.Version, x.API}}]++
}

// Upgrade is an upgrade check's JSON line (type "upgrade"): a client that
// sent requests of an API version the target release does not accept.
type Upgrade struct {
	Type string `json:"type"`
	// Client is the host of the client's address; ClientID, SoftwareName
	// and SoftwareVersion as in ClientStats.
	Client          string `json:"client"`
	ClientID        string `json:"client_id"`
	SoftwareName    string `json:"software_name"`
	SoftwareVersion string `json:"software_version"`
	// API is the api's name (null for a key no specs know), Version the
	// version sent, Count the requests.
	API     *string `json:"api"`
	Version int16   `json:"version"`
	Count   int64   `json:"count"`
	// AcceptedVersions are the versions of the API the target accepts, as
	// Kafka's specs write them ("3-13"): its stable versions, without the
	// one it marks unstable (latestVersionUnstable); null when the target
	// has no such API (removed, or never known) or only an unstable version
	// of it.
	AcceptedVersions *string `json:"accepted_versions"`
}

// Upgrades returns the upgrade check so far: one Upgrade per client and
// API version the target does not accept, by client then api key and
// version; nil without a target.
func (w *Watcher) Upgrades() []Upgrade {
	var out []Upgrade
	for _, k := range w.upgradeKeys() {
		out = append(out, w.upgrade(k))
	}
	return out
}

// upgradeKeys are the keys of the check, by client then api key and
// version.
func (w *Watcher) upgradeKeys() []upgradeKey {
	return slices.SortedFunc(maps.Keys(w.upg), func(a, b upgradeKey) int {
		return cmp.Or(a.client.compare(b.client), a.api.compare(b.api))
	})
}

func (w *Watcher) upgrade(k upgradeKey) Upgrade {
	j := Upgrade{Type: "upgrade", Client: k.client.host, ClientID: k.client.clientID, SoftwareName: k.client.swName,
		SoftwareVersion: k.client.swVersion, Version: k.api.ver, Count: w.upg[k]}
	if k.api.api != "" {
		name := k.api.api
		j.API = &name
	}
	if m := w.o.Upgrade.Request(k.api.key); m != nil && !m.StableVersions().Empty() {
		v := m.StableVersions().String()
		j.AcceptedVersions = &v
	}
	return j
}

// WriteUpgrade writes the upgrade check (Upgrades): with asJSON one
// Upgrade line each; else, after a blank line, a line that names the
// target and how many clients and API versions it refuses, then a table of
// them (client, client id, software, API version, requests, the versions
// the target accepts or "none: the API is gone", followed by "(vN unstable
// in Kafka R)" for a version the target marks unstable), columns aligned.
// Nothing without a target.
func (w *Watcher) WriteUpgrade(out io.Writer, asJSON bool) error {
	if w.o.Upgrade == nil {
		return nil
	}
	us := w.Upgrades()
	if asJSON {
		return writeJSON(out, us, []int(nil))
	}
	target := render.SetName(w.o.Upgrade)
	var b strings.Builder
	if len(us) == 0 {
		fmt.Fprintf(&b, "\nupgrade check: %s accepts every API version the clients used\n", target)
		_, err := io.WriteString(out, b.String())
		return err
	}
	clients := map[clientKey]bool{}
	for k := range w.upg {
		clients[k.client] = true
	}
	fmt.Fprintf(&b, "\nupgrade check: %s does not accept %s used by %s\n", target, plural(len(us), "API version"), plural(len(clients), "client"))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "client\tclient id\tsoftware\tAPI version\trequests\t%s accepts\n", target)
	for _, k := range w.upgradeKeys() {
		u := w.upgrade(k)
		acc := "none: the API is gone"
		if u.AcceptedVersions != nil {
			acc = "versions " + *u.AcceptedVersions
		}
		if m := w.o.Upgrade.Request(k.api.key); m != nil && m.UnstableVersion() == k.api.ver {
			if u.AcceptedVersions == nil {
				acc = "none stable"
			}
			acc += fmt.Sprintf(" (v%d unstable in %s)", k.api.ver, target)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", u.Client, quoted(u.ClientID), orDash(clientKey{swName: u.SoftwareName, swVersion: u.SoftwareVersion}.software()),
			k.api, u.Count, acc)
	}
	tw.Flush()
	_, err := io.WriteString(out, trimLines(b.String()))
	return err
}

// plural renders "1 client", "2 clients".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// WriteReport writes the statistics (WriteStats) then the upgrade check
// (WriteUpgrade), what each has; the error is out's.
func (w *Watcher) WriteReport(out io.Writer, asJSON bool) error {
	if err := w.WriteStats(out, asJSON); err != nil {
		return err
	}
	return w.WriteUpgrade(out, asJSON)
}
