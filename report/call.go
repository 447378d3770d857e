package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/tree"
)

// CallSummary writes what kwire call prints before a response's object
// tree: the summary line (the response's name and version, addr, the
// correlation id, the request's and response's sizes in bytes, the
// latency to 10 µs), the non-zero error codes with their paths, and for a
// DescribeQuorumResponse that decoded whole (decoded) its quorum
// (WriteQuorum).
func CallSummary(w io.Writer, addr string, x *client.Exchange, decoded bool) {
	resp := x.Response
	corr := int64(-1)
	if v, err := x.Request.Get("RequestHeader.CorrelationId"); err == nil {
		corr = v.Int()
	}
	fmt.Fprintf(w, "%s v%d  %s  correlation id %d  request %d B  response %d B  %s\n",
		resp.Message.Name, resp.Version, addr, corr, len(x.Request.Bytes), len(resp.Bytes),
		x.Latency.Round(10*time.Microsecond))
	if codes := flow.ErrorCodes(resp); len(codes) > 0 {
		var b strings.Builder
		for i, e := range codes {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s at %s", e, e.Path)
		}
		fmt.Fprintf(w, "error codes: %s\n", b.String())
	}
	if resp.Message.Name == "DescribeQuorumResponse" && decoded {
		WriteQuorum(w, resp)
	}
}

// WriteQuorum writes what a DescribeQuorumResponse answers (KIP-595, KIP-836), before
// the tree: per partition the leader, epoch and high watermark, then each
// voter and observer with its log end offset and its lag (the leader's log
// end offset minus its own, in records). It writes nothing for a tree
// without a body.
func WriteQuorum(w io.Writer, t *tree.Tree) {
	b := t.Part(tree.Body)
	if b < 0 {
		return
	}
	topics := t.At(b).Field("Topics")
	for i := range topics.Len() {
		tp := topics.Elem(i)
		parts := tp.Field("Partitions")
		for j := range parts.Len() {
			p := parts.Elem(j)
			leader := p.Field("LeaderId").Int()
			fmt.Fprintf(w, "quorum %s-%d: leader %d, epoch %d, high watermark %d\n", tp.Field("TopicName").String(), p.Field("PartitionIndex").Int(), leader, p.Field("LeaderEpoch").Int(), p.Field("HighWatermark").Int())
			voters := p.Field("CurrentVoters")
			var leo int64 = -1
			for k := range voters.Len() {
				if m := voters.Elem(k); m.Field("ReplicaId").Int() == leader {
					leo = m.Field("LogEndOffset").Int()
				}
			}
			list := func(role string, ms tree.Value) {
				for k := range ms.Len() {
					m := ms.Elem(k)
					id, end := m.Field("ReplicaId").Int(), m.Field("LogEndOffset").Int()
					lag := "lag unknown"
					if leo >= 0 && end >= 0 {
						lag = fmt.Sprintf("lag %d", leo-end)
					}
					who := role
					if id == leader {
						who += " (leader)"
					}
					fmt.Fprintf(w, "  %-16s %4d  log end offset %d, %s\n", who, id, end, lag)
				}
			}
			list("voter", voters)
			list("observer", p.Field("Observers"))
		}
	}
}
