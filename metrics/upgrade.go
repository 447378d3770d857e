package metrics

import (
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// UpgradeCount is one line of an upgrade check (traffic.Upgrade): the
// requests a client software sent of an API version the target release
// does not accept.
type UpgradeCount struct {
	// API is the API's name ("" for a key no specs know), Version the
	// version sent.
	API     string
	Version int16
	// SoftwareName and SoftwareVersion are the client's (ApiVersions,
	// KIP-511), "" when not known.
	SoftwareName, SoftwareVersion string
	// Count is the requests counted so far.
	Count int64
}

// upgradeDesc is kwire_upgrade_check_requests_total.
var upgradeDesc = prometheus.NewDesc("kwire_upgrade_check_requests_total",
	"Requests of an API version the --upgrade-check release does not accept, by API, version and client software.",
	[]string{"api", "version", "client_software"}, nil)

// upgradeCollector reads the check at each scrape.
type upgradeCollector struct {
	m     *Metrics
	check func() []UpgradeCount
}

func (c upgradeCollector) Describe(ch chan<- *prometheus.Desc) { ch <- upgradeDesc }

func (c upgradeCollector) Collect(ch chan<- prometheus.Metric) {
	sum := map[[3]string]int64{}
	for _, u := range c.check() {
		api := u.API
		if api == "" {
			api = "unknown"
		}
		sw := c.m.software.value(strings.TrimSpace(u.SoftwareName + " " + u.SoftwareVersion))
		sum[[3]string{api, strconv.Itoa(int(u.Version)), sw}] += u.Count
	}
	for k, n := range sum {
		ch <- prometheus.MustNewConstMetric(upgradeDesc, prometheus.CounterValue, float64(n), k[0], k[1], k[2])
	}
}
