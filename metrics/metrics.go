package metrics

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/kwire/kwire/exchange"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/proxy"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Options configure Metrics.
type Options struct {
	// Topics adds topic_requests_total{topic}: each request that names a
	// topic counts once per topic (exchange.Record.Topics).
	Topics bool
	// MaxTopics is how many distinct topics get a label of their own
	// (100 when 0); the requests of the others count under "other".
	MaxTopics int
	// MaxValues is how many distinct values each of the client_software
	// and principal labels takes (100 when 0); the rest are "other".
	MaxValues int
	// DecodeMemory, when set, gives decode_memory_bytes: the decoding
	// memory reserved now (proxy.Proxy.DecodeMemory).
	DecodeMemory func() int64
	// Process adds the Go runtime's and the process's own series
	// (go_*, process_*).
	Process bool
	// Upgrades, when set, gives kwire_upgrade_check_requests_total{api,
	// version,client_software}: the upgrade check so far (kwire proxy
	// --upgrade-check), read at each scrape.
	Upgrades func() []UpgradeCount
}

// Metrics are the series of one proxy run or capture. Safe for
// concurrent use.
type Metrics struct {
	o   Options
	reg *prometheus.Registry

	requests, responses *prometheus.CounterVec
	latency             *prometheus.HistogramVec
	errors              *prometheus.CounterVec
	bytes               *prometheus.CounterVec
	topics              *prometheus.CounterVec
	accepted            prometheus.Counter
	open                prometheus.Gauge
	closed, failed      *prometheus.CounterVec
	notDecodedConns     prometheus.Counter
	problems            *prometheus.CounterVec
	notDecoded          *prometheus.CounterVec

	software, principal, topic capped
	// series, latencies and brokers cache the children of the vectors
	// by their raw label values (seriesKey, api, broker address), so that
	// an exchange costs map lookups, not label hashing; at most maxCached
	// of each, past which the vectors are asked again every time.
	series, latencies, brokers    sync.Map
	nSeries, nLatencies, nBrokers atomic.Int64
	// counted are the bytes each open connection's exchanges counted per
	// direction: at its end bytes_total gets the rest of what it read.
	mu      sync.Mutex
	counted map[uint64]*[2]int64
}

// Direction label values of bytes_total and bytes_not_decoded_total.
const (
	ClientToBroker = "client_to_broker"
	BrokerToClient = "broker_to_client"
)

var directions = [2]string{ClientToBroker, BrokerToClient}

// New makes the series, registered in a registry of their own.
func New(o Options) *Metrics {
	if o.MaxTopics <= 0 {
		o.MaxTopics = 100
	}
	if o.MaxValues <= 0 {
		o.MaxValues = 100
	}
	m := &Metrics{o: o, reg: prometheus.NewRegistry(), counted: map[uint64]*[2]int64{},
		software: capped{max: o.MaxValues}, principal: capped{max: o.MaxValues}, topic: capped{max: o.MaxTopics}}
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	who := []string{"api", "version", "client_software", "principal"}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kwire_requests_total",
		Help: "Kafka requests seen, by API, version, client software (ApiVersions' ClientSoftwareName/Version) and SASL principal."}, who)
	m.responses = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kwire_responses_total",
		Help: "Kafka responses seen, by the API, version, client software and SASL principal of their request."}, who)
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kwire_response_latency_seconds",
		Help:    "Time from a request's last byte to its response's last byte, by API.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 2.5, 14)}, []string{"api"})
	m.errors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kwire_response_errors_total",
		Help: "Non-zero error codes in responses, by API and Kafka's error name."}, []string{"api", "error"})
	m.bytes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kwire_bytes_total",
		Help: "Bytes forwarded, by direction (client_to_broker, broker_to_client) and broker address."}, []string{"direction", "broker"})
	m.accepted = prometheus.NewCounter(prometheus.CounterOpts{Name: "kwire_connections_accepted_total", Help: "Client connections accepted."})
	m.open = prometheus.NewGauge(prometheus.GaugeOpts{Name: "kwire_connections_open", Help: "Client connections open now."})
	m.closed = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kwire_connections_closed_total",
		Help: "Connections ended, by reason: client_closed, upstream_closed, error."}, []string{"reason"})
	m.failed = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kwire_connections_failed_total",
		Help: "Client connections that could not be made, by reason: upstream_unreachable, tls_handshake."}, []string{"reason"})
	m.notDecodedConns = prometheus.NewCounter(prometheus.CounterOpts{Name: "kwire_connections_not_decoded_total",
		Help: "Connections forwarded without decoding: the decoding memory was taken."})
	m.problems = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kwire_problems_total",
		Help: "Problems the decoder found, by kind (frame-too-large, gap, decode-failed, …)."}, []string{"kind"})
	m.notDecoded = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kwire_bytes_not_decoded_total",
		Help: "Bytes forwarded but not decoded (decoder behind, frames over the limit, not Kafka), by direction."}, []string{"direction"})
	for _, c := range []prometheus.Collector{m.requests, m.responses, m.latency, m.errors, m.bytes, m.accepted, m.open,
		m.closed, m.failed, m.notDecodedConns, m.problems, m.notDecoded} {
		f(c)
	}
	if o.Topics {
		m.topics = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kwire_topic_requests_total",
			Help: "Requests naming a topic, by topic (the first MaxTopics topics; the rest under \"other\")."}, []string{"topic"})
		f(m.topics)
	}
	if o.DecodeMemory != nil {
		f(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kwire_decode_memory_bytes",
			Help: "Decoding memory reserved by the connections being decoded."}, func() float64 { return float64(o.DecodeMemory()) }))
	}
	if o.Upgrades != nil {
		f(upgradeCollector{m: m, check: o.Upgrades})
	}
	if o.Process {
		f(collectors.NewGoCollector())
		f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return m
}

// Registry is the registry the series are in.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// APILabel is the api label of record r: its API's name, "sasl_token"
// for raw SASL tokens, "unknown" for an api key the specs do not know or a
// response whose request was not seen.
func APILabel(r *exchange.Record) string {
	switch {
	case r.SASLToken:
		return "sasl_token"
	case r.API == "":
		return "unknown"
	}
	return r.API
}

// maxCached bounds each cache of Metrics.
const maxCached = 10000

// seriesKey is what the labels of requests_total and responses_total are
// made of, as the record has them.
type seriesKey struct {
	api                    string
	version                int16
	software, swv, princip string
}

// reqResp are the children of requests_total and responses_total of one
// seriesKey.
type reqResp struct{ req, resp prometheus.Counter }

// cached returns the value cache holds for key, or makes it with mk and
// keeps it while n is under maxCached.
func cached[K comparable, V any](cache *sync.Map, n *atomic.Int64, key K, mk func() V) V {
	if v, ok := cache.Load(key); ok {
		return v.(V)
	}
	v := mk()
	if n.Load() < maxCached {
		if _, loaded := cache.LoadOrStore(key, v); !loaded {
			n.Add(1)
		}
	}
	return v
}

// Exchange counts record r.
func (m *Metrics) Exchange(r *exchange.Record) {
	api := APILabel(r)
	rr := cached(&m.series, &m.nSeries, seriesKey{api, r.Version, r.ClientSoftwareName, r.ClientSoftwareVersion, r.Principal}, func() reqResp {
		ver := strconv.Itoa(int(r.Version))
		sw := m.software.value(strings.TrimSpace(r.ClientSoftwareName + " " + r.ClientSoftwareVersion))
		pr := m.principal.value(r.Principal)
		return reqResp{m.requests.WithLabelValues(api, ver, sw, pr), m.responses.WithLabelValues(api, ver, sw, pr)}
	})
	if r.RequestBytes > 0 {
		rr.req.Inc()
	}
	if r.ResponseBytes > 0 {
		rr.resp.Inc()
	}
	if r.LatencyNs != nil {
		cached(&m.latencies, &m.nLatencies, api, func() prometheus.Observer { return m.latency.WithLabelValues(api) }).Observe(r.Latency().Seconds())
	}
	for _, e := range r.Errors {
		name := e.Name
		if name == "" {
			name = "unknown"
		}
		m.errors.WithLabelValues(api, name).Inc()
	}
	if m.topics != nil {
		for _, t := range r.Topics {
			name := t.Name
			if name == "" {
				name = t.ID
			}
			m.topics.WithLabelValues(m.topic.value(name)).Inc()
		}
	}
	bytes := m.brokerBytes(r.Broker)
	bytes[0].Add(float64(r.RequestBytes))
	bytes[1].Add(float64(r.ResponseBytes))
	m.mu.Lock()
	if c := m.counted[r.Conn]; c != nil {
		c[0] += r.RequestBytes
		c[1] += r.ResponseBytes
	}
	m.mu.Unlock()
}

// Problem counts a decoder's problem.
func (m *Metrics) Problem(p *flow.Problem) { m.problems.WithLabelValues(p.Kind.String()).Inc() }

// Proxy counts proxy event e: a connection opened, failed or closed, a
// problem, and with the exchange of a Flow event its record r (from an
// exchange.Tracker; nil for other events).
func (m *Metrics) Proxy(e proxy.Event, r *exchange.Record) {
	switch e.Kind {
	case proxy.Opened:
		m.accepted.Inc()
		m.open.Inc()
		var nd *proxy.NotDecodedError
		if errors.As(e.Err, &nd) {
			m.notDecodedConns.Inc()
		}
		m.mu.Lock()
		m.counted[e.Conn] = &[2]int64{}
		m.mu.Unlock()
	case proxy.Failed:
		m.accepted.Inc()
		reason := "upstream_unreachable"
		var he *proxy.HandshakeError
		if errors.As(e.Err, &he) {
			reason = "tls_handshake"
		}
		m.failed.WithLabelValues(reason).Inc()
	case proxy.Closed:
		m.open.Dec()
		reason := "client_closed"
		var bc *proxy.BrokerClosedError
		switch {
		case errors.As(e.Err, &bc):
			reason = "upstream_closed"
		case e.Err != nil:
			reason = "error"
		}
		m.closed.WithLabelValues(reason).Inc()
		m.mu.Lock()
		c := m.counted[e.Conn]
		delete(m.counted, e.Conn)
		m.mu.Unlock()
		if st := e.Stats; st != nil && c != nil {
			bytes := m.brokerBytes(e.Upstream)
			for d, name := range directions {
				if rest := st.Read[d] - c[d]; rest > 0 {
					bytes[d].Add(float64(rest))
				}
				if n := st.Undecoded[d] + st.Flow.Skipped[d]; n > 0 {
					m.notDecoded.WithLabelValues(name).Add(float64(n))
				}
			}
		}
	case proxy.Flow:
		switch x := e.Flow.(type) {
		case *flow.Problem:
			m.Problem(x)
		case *flow.Exchange:
			if r != nil {
				m.Exchange(r)
			}
		}
	}
}

// brokerBytes are the children of bytes_total of broker's address, by
// direction.
func (m *Metrics) brokerBytes(broker string) [2]prometheus.Counter {
	return cached(&m.brokers, &m.nBrokers, broker, func() [2]prometheus.Counter {
		b := clean(broker)
		return [2]prometheus.Counter{m.bytes.WithLabelValues(ClientToBroker, b), m.bytes.WithLabelValues(BrokerToClient, b)}
	})
}

// capped keeps the first max distinct label values; the rest are
// "other". Safe for concurrent use.
type capped struct {
	max  int
	mu   sync.Mutex
	seen map[string]struct{}
}

// Other is the label value of the values past a cap.
const Other = "other"

func (c *capped) value(s string) string {
	s = clean(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.seen[s]; ok {
		return s
	}
	if len(c.seen) >= c.max {
		return Other
	}
	if c.seen == nil {
		c.seen = map[string]struct{}{}
	}
	c.seen[s] = struct{}{}
	return s
}

// maxLabel is the most bytes of a label value.
const maxLabel = 128

// clean makes s a label value: valid UTF-8 (bad bytes as U+FFFD), at
// most maxLabel bytes.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) > maxLabel {
		s = s[:maxLabel]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}
