// Package frame owns the bytes around a Kafka message body: the int32 size
// prefix of Kafka's length-delimited framing, the request header
// (request_api_key, request_api_version, correlation_id, then client_id as a
// nullable string with an int16 length in v1 and v2, then tagged fields in
// v2) and the response header (correlation_id, then tagged fields in v1),
// the rule that picks a header version from an api version
// (RequestHeaderVersion, ResponseHeaderVersion), and one incremental
// Splitter that cuts a byte stream fed in chunks of any size into frames.
//
// Every other part of kwire that needs a frame's size, api key, version or
// correlation id asks this package: codec for the size prefix, the header
// version and the api key and version it dispatches on, flow for splitting and
// resynchronising a connection's streams, proxy for following frame
// boundaries on its forwarding path and holding responses it rewrites,
// client for reading responses.
//
// Nothing here allocates in proportion to what a size prefix claims: the
// Splitter's buffer grows with the bytes that arrive, and frames over its
// limit are reported by their first bytes and skipped.
package frame
