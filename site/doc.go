// Package site builds kwire's Kafka protocol atlas: a static HTML site with
// one page per API version (the smallest legal request and response side by
// side), per header spec version and per metadata, KRaft or data record type
// version, and an index of them all with a search box. Every page is a view
// of span trees built by package codec, rendered through render's per-node
// functions (render.Index): the summary, the byte grid coloured by region,
// the object tree, the spec's JSON and the version history.
//
// The site is self-contained: one stylesheet and one small script, embedded
// in the binary and written under assets/, and nothing fetched at view time.
// Pages work from file:// and behind an HTTP server alike.
//
// # URL layout
//
// Paths are relative to the site's root directory:
//
//	index.html                              the releases of the site
//	assets/site.css, assets/site.js         the only style and script
//	<R>/index.html                          every API, header and record type of release R, searchable
//	<R>/<Name>/index.html                   the versions of one API or type
//	<R>/<Name>/v<N>/request.html            API <Name> at version N: request, then response
//	<R>/<Name>/v<N>/response.html           forwards to request.html#response (and response.<anchor>)
//	<R>/<Name>/v<N>/record.html             a header, metadata record or data type at version N
//
// R is the Kafka release ("4.4.0"), or "specs" for specs loaded from a path.
// Under `kwire serve` the ".html" may be left out, so that
// …/Vote/v2/request#Topics.0.Partitions.0.PreVote resolves.
//
// # Anchors
//
// Every node of a tree has an id made of its field path with the message
// name dropped and element indices as path segments: Topics.0.Partitions.0.PreVote,
// RequestHeader.ClientId, Frame.size, Topics.0.Partitions.length,
// Topics.0._tagged_fields; the root is "message" and the body is the message
// name. Every byte has the id b-0x<offset in hex> (b-0x4f); the script also
// understands a range, b-0x10-0x1f. On an API page the request's ids are
// bare and the response's carry the prefix "response." (response.Topics.0,
// response.b-0x1c), since both sides are on one page.
//
// Not here: command line flags (cmd/kwire), and decoding pasted bytes, which
// the server's decode page delegates to a DecodeFunc.
package site
