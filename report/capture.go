package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/kwire/kwire/capture"
)

// Summary is the last JSON line of a capture's report (type "summary"):
// the capture's format, the assembler's counts (capture.Stats) and the
// decoders' (capture.FlowTotals).
type Summary struct {
	Type        string `json:"type"`
	Format      string `json:"format"`
	Packets     int    `json:"packets"`
	NotTCP      int    `json:"not_tcp"`
	Undecodable int    `json:"undecodable"`
	OtherPorts  int    `json:"other_ports"`
	Connections int    `json:"connections"`
	Exchanges   int64  `json:"exchanges"`
	Problems    int64  `json:"problems"`
	// Notices counts the notices of the decoder's limits (not-held), which
	// are not problems.
	Notices       int64          `json:"notices"`
	Bytes         int64          `json:"bytes"`
	NotDecoded    int64          `json:"bytes_not_decoded"`
	Missing       int64          `json:"bytes_missing"`
	Retransmitted int64          `json:"bytes_retransmitted"`
	OutOfOrder    int            `json:"segments_out_of_order"`
	NotKafka      map[string]int `json:"not_kafka"`
	// Error is the error that stopped the reading, null at the end of the
	// capture.
	Error *string `json:"error"`
}

// NewSummary is the summary of a capture of format f read with
// capture.DecodeFlows (st, tot and its error readErr).
func NewSummary(f capture.Format, st capture.Stats, tot capture.FlowTotals, readErr error) *Summary {
	j := &Summary{Type: "summary", Format: f.String(), Packets: st.Packets, NotTCP: st.NotTCP,
		Undecodable: st.Undecodable, OtherPorts: st.OtherPorts, Connections: tot.Connections,
		Exchanges: tot.Exchanges, Problems: tot.Problems, Notices: tot.Notices, Bytes: tot.Bytes, NotDecoded: tot.Skipped, Missing: tot.Missing,
		Retransmitted: st.Retransmitted, OutOfOrder: st.OutOfOrder, NotKafka: tot.NotKafka}
	if readErr != nil {
		s := readErr.Error()
		j.Error = &s
	}
	return j
}

// connectionWords says how many connections were decoded on which
// ports: "1 connection on port 9092", "3 connections on ports 9092 (2),
// 19092 (1, Kafka found by its first bytes)", "no Kafka connection (none on
// port 9092, and no other connection's first bytes are a Kafka request)".
func connectionWords(st capture.Stats, tot capture.FlowTotals, ports []uint16) string {
	if len(ports) > 0 {
		ps := make([]string, len(ports))
		for i, p := range ports {
			ps[i] = fmt.Sprint(p)
		}
		return fmt.Sprintf("%s on port %s", count(int64(st.Connections), "connection"), strings.Join(ps, ","))
	}
	if tot.Connections == 0 {
		return "no Kafka connection (none on port 9092, and no other connection's first bytes are a Kafka request)"
	}
	seen := slices.Sorted(maps.Keys(tot.Ports))
	if len(seen) == 1 {
		p := seen[0]
		found := ""
		if tot.Found[p] {
			found = " (Kafka found by its first bytes)"
		}
		return fmt.Sprintf("%s on port %d%s", count(int64(tot.Connections), "connection"), p, found)
	}
	var ps []string
	for _, p := range seen {
		found := ""
		if tot.Found[p] {
			found = ", Kafka found by its first bytes"
		}
		ps = append(ps, fmt.Sprintf("%d (%d%s)", p, tot.Ports[p], found))
	}
	return fmt.Sprintf("%s on ports %s", count(int64(tot.Connections), "connection"), strings.Join(ps, ", "))
}

// count renders "1 packet", "2 packets".
func count(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// WriteSummary writes a capture's summary in text, after a blank line:
// the format, packets, connections on ports (ports: those of --port; none:
// the ports where connections were decoded, Kafka found by its first
// bytes marked), exchanges and problems; the bytes reassembled, not
// decoded, missing, retransmitted and the segments out of order; the
// streams that are not Kafka, by protocol (TLS, HTTP, then the others by
// name); the packets ignored, when there are any.
func WriteSummary(w io.Writer, f capture.Format, st capture.Stats, tot capture.FlowTotals, ports []uint16) error {
	var b strings.Builder
	notices := ""
	if tot.Notices > 0 {
		notices = ", " + count(tot.Notices, "notice")
	}
	fmt.Fprintf(&b, "\n%s: %s; %s, %s, %s%s\n", f, count(int64(st.Packets), "packet"), connectionWords(st, tot, ports),
		count(tot.Exchanges, "exchange"), count(tot.Problems, "problem"), notices)
	fmt.Fprintf(&b, "bytes: %d reassembled, %d not decoded, %d missing from the capture, %d retransmitted; %s out of order\n",
		tot.Bytes, tot.Skipped, tot.Missing, st.Retransmitted, count(int64(st.OutOfOrder), "segment"))
	var others []string
	for proto := range tot.NotKafka {
		if proto != "TLS" && proto != "HTTP" {
			others = append(others, proto)
		}
	}
	slices.Sort(others)
	for _, proto := range append([]string{"TLS", "HTTP"}, others...) {
		if n := tot.NotKafka[proto]; n > 0 {
			verb := "looks"
			if n > 1 {
				verb = "look"
			}
			fmt.Fprintf(&b, "not Kafka: %s %s like %s\n", count(int64(n), "stream"), verb, proto)
		}
	}
	if st.OtherPorts+st.NotTCP+st.Undecodable > 0 {
		fmt.Fprintf(&b, "ignored: %s on other ports, %d not TCP, %d that do not decode", count(int64(st.OtherPorts), "TCP packet"), st.NotTCP, st.Undecodable)
		if st.FirstUndecodable != "" {
			fmt.Fprintf(&b, " (first: %s)", st.FirstUndecodable)
		}
		b.WriteByte('\n')
	}
	switch {
	case len(ports) > 0 && st.Connections == 0 && st.OtherPorts > 0:
		b.WriteString("hint: no connection on the --port ports; without --port, Kafka is found on any port by its clients' first bytes\n")
	case len(ports) == 0 && tot.Connections == 0 && st.Connections > 0:
		b.WriteString("hint: no connection began with a Kafka request; for Kafka on a port other than 9092 whose connections started before the capture, give --port PORT\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
