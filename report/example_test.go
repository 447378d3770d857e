package report_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/report"
	"github.com/kwire/kwire/spec"
)

// Feed a flow decoder a request and its response, then print the exchange
// as kwire pcap and kwire proxy do: a text line and a JSON line.
func Example() {
	set, err := spec.Embedded("4.4")
	if err != nil {
		panic(err)
	}
	cd := codec.New(set)
	req, _, _ := set.Lookup("Vote")
	resp := set.Response(req.APIKey)
	rq, _ := cd.Encode(req, 2, codec.RequestHeaderValue(set.RequestHeader(), req.APIKey, 2, 7, ""), instance.Smallest(req, 2))
	rs, _ := cd.Encode(resp, 2, codec.ResponseHeaderValue(set.ResponseHeader(), 7), instance.Smallest(resp, 2))

	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fc := flow.New(flow.Options{Codec: cd}, func(e flow.Event) {
		x, ok := e.(*flow.Exchange)
		if !ok {
			return
		}
		report.WriteExchange(os.Stdout, "#1 10.0.0.1:50000", x, false, render.Options{})
		j := report.NewExchange(x, 1, "10.0.0.1:50000", "10.0.0.2:9092", func(f *flow.Frame) *report.Frame {
			return report.NewFrame(f, report.FrameOptions{})
		})
		b, _ := json.Marshal(j)
		fmt.Println(string(b))
	})
	fc.Data(flow.ClientToServer, rq.Bytes, t0)
	fc.Data(flow.ServerToClient, rs.Bytes, t0.Add(1500*time.Microsecond))
	fc.Close(t0.Add(time.Second))
	// Output:
	// 2026-01-02 03:04:05.000000  #1 10.0.0.1:50000  Vote(52) v2  corr 7  req 83 B  resp 32 B  1.500 ms
	// {"type":"exchange","time":"2026-01-02T03:04:05Z","conn":1,"client":"10.0.0.1:50000","server":"10.0.0.2:9092","api":"Vote","api_key":52,"version":2,"correlation_id":7,"client_id":"","request":{"time":"2026-01-02T03:04:05Z","stream_offset":0,"size":83,"error":null},"response":{"time":"2026-01-02T03:04:05.0015Z","stream_offset":0,"size":32,"error":null},"no_response":false,"no_response_expected":false,"latency_ns":1500000,"errors":[]}
}

// WriteCompact writes indented JSON on one line as it is written.
func ExampleWriteCompact() {
	report.WriteCompact(os.Stdout, func(w io.Writer) error {
		_, err := io.WriteString(w, "{\n  \"topic\": \"orders\",\n  \"partitions\": [0, 1]\n}\n")
		return err
	})
	// Output: {"topic":"orders","partitions":[0,1]}
}
