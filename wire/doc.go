// Package wire holds the Kafka protocol's primitive encodings: big-endian
// fixed-width integers, float64, unsigned varints (7 bits a byte, at most 5
// bytes, ByteUtils.writeUnsignedVarint) and the zig-zag varint/varlong of
// the record format. Writers are append-style (dst in, grown dst out);
// Reader keeps its first failure with the byte offset and need/have counts,
// so a decoder checks for errors once. It knows nothing of messages or
// field names: the codec adds the field path to a failure.
package wire
