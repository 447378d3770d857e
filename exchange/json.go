package exchange

import (
	"strconv"
	"time"

	"github.com/kwire/kwire/codec"
)

// AppendJSON appends r's audit line (its json keys, in field order, the
// same JSON values encoding/json writes, strings escaped as
// codec.AppendJSONString escapes them) to b, without a newline. It is Audit's encoder,
// without reflection or allocation (BenchmarkAppendJSON compares it with
// encoding/json).
func (r *Record) AppendJSON(b []byte) []byte {
	b = append(b, `{"time":"`...)
	b = r.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","conn":`...)
	b = strconv.AppendUint(b, r.Conn, 10)
	b = appendKey(b, "client", r.Client)
	b = appendKey(b, "broker", r.Broker)
	if r.Node != nil {
		b = append(b, `,"node":`...)
		b = strconv.AppendInt(b, int64(*r.Node), 10)
	}
	b = appendKey(b, "api", r.API)
	b = append(b, `,"api_key":`...)
	b = strconv.AppendInt(b, int64(r.APIKey), 10)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, int64(r.Version), 10)
	b = append(b, `,"correlation_id":`...)
	b = strconv.AppendInt(b, int64(r.CorrelationID), 10)
	b = appendKey(b, "client_id", r.ClientID)
	b = appendKey(b, "client_software_name", r.ClientSoftwareName)
	b = appendKey(b, "client_software_version", r.ClientSoftwareVersion)
	b = appendKey(b, "sasl_mechanism", r.Mechanism)
	b = appendKey(b, "sasl_principal", r.Principal)
	b = append(b, `,"sasl_token":`...)
	b = strconv.AppendBool(b, r.SASLToken)
	b = append(b, `,"topics":`...)
	if r.Topics == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range r.Topics {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendString(b, t.Name)
			if t.ID != "" {
				b = appendKey(b, "id", t.ID)
			}
			b = append(b, `,"partitions":`...)
			if t.Partitions == nil {
				b = append(b, "null"...)
			} else {
				b = append(b, '[')
				for j, p := range t.Partitions {
					if j > 0 {
						b = append(b, ',')
					}
					b = strconv.AppendInt(b, int64(p), 10)
				}
				b = append(b, ']')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"errors":`...)
	if r.Errors == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, e := range r.Errors {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"code":`...)
			b = strconv.AppendInt(b, int64(e.Code), 10)
			b = appendKey(b, "name", e.Name)
			b = appendKey(b, "path", e.Path)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"request_bytes":`...)
	b = strconv.AppendInt(b, r.RequestBytes, 10)
	b = append(b, `,"response_bytes":`...)
	b = strconv.AppendInt(b, r.ResponseBytes, 10)
	b = append(b, `,"latency_ns":`...)
	if r.LatencyNs == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *r.LatencyNs, 10)
	}
	b = append(b, `,"no_response":`...)
	b = strconv.AppendBool(b, r.NoResponse)
	b = append(b, `,"no_response_expected":`...)
	b = strconv.AppendBool(b, r.NoResponseExpected)
	b = appendKey(b, "decoded_with", r.DecodedWith)
	return append(b, '}')
}

// appendKey appends ,"key":"s".
func appendKey(b []byte, key, s string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendString(b, s)
}

// appendString appends s as a JSON string (codec.AppendJSONString, the one
// JSON string writer).
func appendString(b []byte, s string) []byte { return codec.AppendJSONString(b, s) }
