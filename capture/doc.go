// Package capture reads packet captures (pcap and pcapng files, gzip-compressed
// or not) and reassembles the TCP connections in them into ordered byte
// streams, one per direction, ready for a Kafka conversation decoder.
//
// Reading: Open detects the format from the file's magic number. Classic pcap
// is read with gopacket's pcapgo.Reader; pcapng is read by this package's own
// block reader, because pcapgo's NgReader (v1.1.19) allocates the capture
// length a block claims before checking it against the block, and reports a
// file that ends inside a block as a clean io.EOF. Every packet carries its
// number (1-based) and the file offset of its record, and every error names
// them (*FormatError). No packet buffer grows beyond the bytes actually read.
// The readers read only the bytes the next record needs, so a capture can
// be read as it arrives through a pipe: a PipeReader around the pipe flushes
// the caller's output before each wait and ends the reading when told.
// OpenInterface (Linux) captures from an Ethernet or loopback interface in
// pure Go, through an AF_PACKET socket whose kernel filter keeps only the
// TCP ports followed, and whose reads wait in Go's poller, so that a Stop
// ends one at once.
//
// Reassembly: an Assembler takes packets in file order, decodes their link,
// IP and TCP headers with gopacket's layers package (Ethernet, 802.1Q, Linux
// cooked capture, BSD loopback, raw IP; IPv4 and IPv6) and keeps, per
// connection and direction, the next expected sequence number. It uses its
// own small sequence-number ordering rather than gopacket's reassembly
// package: what a protocol decoder needs from a capture is exact accounting
// of every byte (how many were retransmitted, how many are missing and where),
// stream offsets, and the timestamp of the packet each byte came in, while
// reassembly's page cache and time-based flushing report missing data only
// as a skip and reorder by its own clock. Segments are handled so:
//
//   - a segment that starts at the expected sequence number is delivered at
//     once; overlapping or repeated bytes (retransmissions) are trimmed and
//     counted, never delivered twice;
//   - a segment beyond the expected number waits; when the bytes buffered so
//     for one direction exceed Options.MaxBuffered, the hole before the
//     earliest waiting segment is declared lost: a Gap event of exactly that
//     many bytes, then the buffered data. The same happens at a FIN or RST
//     and at the end of the capture (Flush);
//   - a direction whose SYN was not captured starts at its first data
//     segment (Conn.MidStream), so the decoder must resynchronise;
//   - a packet cut short by the capture's snap length delivers what it holds
//     and a Gap for the rest.
//
// The client of a connection is the sender of the SYN when it was captured,
// otherwise the peer of the port listed in Options.Ports. Connections with
// neither port in Ports are ignored (counted in Stats). A connection ends
// at FIN both ways, an RST, Options.IdleTimeout without a packet, or the
// end of the capture; the Assembler then holds nothing of it, so memory
// stays bounded over a capture of any length.
//
// Decoding: DecodeFlows reads a capture to its end through an Assembler and
// decodes each connection's two streams with a flow.Conn (package flow),
// reporting exchanges and problems and summing the decoders' counts, and
// telling the caller (FlowOptions.OnClose) when a connection has ended so
// that it frees its own state of it; it is what kwire pcap prints from.
// With FlowOptions.KeyLog, a connection whose first bytes are a TLS record
// is decrypted first (package tlsdecrypt) and its application data decoded.
package capture
