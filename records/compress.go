package records

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"sync"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/kwire/kwire/wire"
)

// errTooLarge says a payload decompresses past its limit.
var errTooLarge = errors.New("decompressed size over the limit")

// xerialMagic starts a snappy payload in the framing of snappy-java's
// SnappyOutputStream, which Kafka's Java client writes: the magic, two
// int32 version words (not checked: only the magic identifies the
// framing), then chunks of an int32 big-endian length and a raw snappy
// block.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

const xerialHeader = 16

// zstdMaxWindow is the largest zstd window accepted: 32 MiB. The zstd
// decoder keeps a window of what it decoded, so this bounds its memory
// whatever a payload decompresses to. Kafka's zstd library accepts up to
// 128 MiB (ZSTD_WINDOWLOG_LIMIT_DEFAULT 27), but its writers never need
// more than a batch holds, and a batch whose frame asks for more than 32
// MiB is reported ("window size exceeded"), not decompressed.
const zstdMaxWindow = 32 << 20

// decompressHold is the most decompressed bytes decompress keeps of a
// payload before it knows the payload's size: a payload that goes past it
// is counted to its end (or to the limit) in decompressChunk pieces
// without being kept, and decompressed again into room of its exact size
// when it stays within the limit. Memory is then bounded by this and the
// decoders' state, not by the limit: the limit bounds the work.
const decompressHold = 8 << 20

// decompressChunk is the size of the pieces a payload past decompressHold
// is counted in.
const decompressChunk = 64 << 10

var chunkPool = sync.Pool{New: func() any { return new([decompressChunk]byte) }}

// decompress appends what payload (compressed with codec, in an entry of
// the given magic) decompresses to to dst, at most limit bytes: past that
// it returns errTooLarge. warn is a problem worth reporting that did not
// stop decompression (an lz4 header checksum Kafka would reject). It
// never holds more than decompressHold bytes of a payload that turns out
// to be larger than limit, and it grows dst at most once past that.
func decompress(dst []byte, codec int, payload []byte, magic int8, limit int64) (out []byte, warn string, err error) {
	out, st, warn, err := openPayload(dst, codec, payload, magic, limit)
	if err != nil || st == nil {
		return out, warn, err
	}
	defer st.rd.put()
	out = slices.Grow(out, int(st.size))
	out, err = readLimited(out, st.rd, st.size)
	return out, warn, err
}

// payloadStream is a decompressed payload to read: size bytes from rd,
// which the reader of the stream puts back (rd.put) when done.
type payloadStream struct {
	rd   *reader
	size int64
}

// openPayload is decompress, except that a payload larger than
// decompressHold (and within limit) is not appended to dst: it is
// returned as a stream from its start, with its size.
func openPayload(dst []byte, codec int, payload []byte, magic int8, limit int64) (out []byte, st *payloadStream, warn string, err error) {
	switch codec {
	case 1, 4:
	case 2:
		if !bytes.HasPrefix(payload, xerialMagic) {
			// One raw block: decoded whole, within limit and what its
			// bytes can hold (snappyBlock).
			out, err = snappyBlock(dst, payload, limit)
			return out, nil, "", err
		}
		size, err := xerialSize(payload, limit)
		if err != nil {
			return dst, nil, "", err
		}
		if size <= min(limit, decompressHold) {
			out, err = unsnappy(slices.Grow(dst, int(size)), payload, limit)
			return out, nil, "", err
		}
		x := &xerialReader{}
		x.reset(payload)
		return dst, &payloadStream{rd: &reader{Reader: x, reset: x.reset, put: func() {}}, size: size}, "", nil
	case 3:
		payload, warn = lz4Header(payload, magic)
	default:
		return dst, nil, "", fmt.Errorf("unknown compression id %d", codec)
	}
	hold := min(limit, decompressHold)
	if codec == 4 {
		var ok bool
		if out, ok = zstdAll(dst, payload, hold); ok {
			return out, nil, "", nil
		}
		dst = out // any room it made, kept for the stream
	}
	rd, err := getReader(codec, payload)
	if err != nil {
		return dst, nil, warn, err
	}
	start := len(dst)
	out, err = readLimited(dst, rd, hold)
	if err != errTooLarge || hold == limit {
		rd.put()
		return out, nil, warn, err
	}
	// Past what is held (hold+1 bytes read): count the rest without
	// keeping it.
	size := hold + 1
	out = out[:start]
	buf := chunkPool.Get().(*[decompressChunk]byte)
	defer chunkPool.Put(buf)
	for {
		n, rerr := rd.Read(buf[:])
		size += int64(n)
		if size > limit {
			rd.put()
			return out, nil, warn, errTooLarge
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			rd.put()
			return out, nil, warn, rerr
		}
	}
	// Within the limit: from the start again.
	if err := rd.reset(payload); err != nil {
		rd.put()
		return out, nil, warn, err
	}
	return out, &payloadStream{rd: rd, size: size}, warn, nil
}

// reader is a pooled streaming decompressor of one codec.
type reader struct {
	io.Reader
	reset func(payload []byte) error
	put   func()
}

// getReader is a pooled decompressor of codec (1 gzip, 3 lz4, 4 zstd)
// reading payload.
func getReader(codec int, payload []byte) (*reader, error) {
	switch codec {
	case 1:
		zr, _ := gzipPool.Get().(*gzip.Reader)
		if zr == nil {
			zr = new(gzip.Reader)
		}
		r := &reader{Reader: zr, reset: func(p []byte) error { return zr.Reset(bytes.NewReader(p)) }, put: func() { gzipPool.Put(zr) }}
		if err := r.reset(payload); err != nil {
			gzipPool.Put(zr)
			return nil, err
		}
		return r, nil
	case 3:
		zr, _ := lz4Pool.Get().(*lz4.Reader)
		if zr == nil {
			zr = lz4.NewReader(nil)
		}
		r := &reader{Reader: zr, reset: func(p []byte) error { zr.Reset(bytes.NewReader(p)); return nil }, put: func() { lz4Pool.Put(zr) }}
		r.reset(payload)
		return r, nil
	}
	zd, err := zstdDecoder()
	if err != nil {
		return nil, err
	}
	r := &reader{Reader: zd, reset: func(p []byte) error { return zd.Reset(bytes.NewReader(p)) },
		put: func() { zd.Reset(nil); zstdPool.Put(zd) }}
	if err := r.reset(payload); err != nil {
		r.put()
		return nil, err
	}
	return r, nil
}

// readLimited appends what r yields to dst, failing with errTooLarge once
// it has read limit+1 bytes; it never allocates more than limit+1 bytes
// beyond dst's length, and none past limit. When dst must grow, it grows
// by as many bytes as it holds (4 KiB to 16 MiB, within the limit), so
// that the decompressed views of many payloads appended to one Virtual
// cost copies in proportion to their bytes, not to their bytes times
// their number.
func readLimited(dst []byte, r io.Reader, limit int64) ([]byte, error) {
	start := len(dst)
	for {
		got := int64(len(dst) - start)
		if got == limit {
			// Only the end may follow: no room is made for it.
			var one [1]byte
			for {
				n, err := r.Read(one[:])
				switch {
				case n > 0:
					return dst, errTooLarge
				case err == io.EOF:
					return dst, nil
				case err != nil:
					return dst, err
				}
			}
		}
		if len(dst) == cap(dst) {
			grow := max(min(int64(len(dst)), 1<<24), 4<<10)
			grow = min(grow, limit+1-got)
			dst = slices.Grow(dst, int(grow))
		}
		n, err := r.Read(dst[len(dst):min(cap(dst), start+int(limit)+1)])
		dst = dst[:len(dst)+n]
		if int64(len(dst)-start) > limit {
			return dst, errTooLarge
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// gzipPool holds the standard library's gzip readers, not
// klauspost/compress's: a klauspost reader that has decoded one stream
// decodes corrupt input after its Reset differently from a new one
// ("flate: internal error: unexpected length code" where a new reader
// says "flate: corrupt input before offset 34"), so what kwire reported of
// a corrupt gzip batch depended on which batch the pooled reader had read
// before. FuzzRecords found it (records in parts against records whole);
// compress/gzip resets cleanly.
var gzipPool sync.Pool

// unsnappy decodes a snappy payload: xerial-framed when it starts with
// xerialMagic, else one raw snappy block (snappy-java's SnappyInputStream
// reads both).
func unsnappy(dst, payload []byte, limit int64) ([]byte, error) {
	if !bytes.HasPrefix(payload, xerialMagic) {
		return snappyBlock(dst, payload, limit)
	}
	start := len(dst)
	err := xerialChunks(payload, func(at int, block []byte) error {
		var err error
		dst, err = snappyBlock(dst, block, limit-int64(len(dst)-start))
		if err != nil && err != errTooLarge {
			err = fmt.Errorf("xerial chunk at +%d (%d bytes): %w", at, len(block), err)
		}
		return err
	})
	return dst, err
}

// xerialChunks calls fn with the raw snappy block of each chunk of a
// xerial payload in order, and the offset of the chunk's length in the
// payload; it ends at fn's first error, or at a chunk whose length does
// not fit.
func xerialChunks(payload []byte, fn func(at int, block []byte) error) error {
	if len(payload) < xerialHeader {
		return fmt.Errorf("xerial snappy header: need %d bytes, have %d", xerialHeader, len(payload))
	}
	p := payload[xerialHeader:]
	at := xerialHeader
	for len(p) > 0 {
		if len(p) < 4 {
			return fmt.Errorf("xerial chunk at +%d: its length needs 4 bytes, %d remain", at, len(p))
		}
		n := int64(int32(binary.BigEndian.Uint32(p)))
		if n < 0 || n > int64(len(p)-4) {
			return fmt.Errorf("xerial chunk at +%d: length %d, %s remain", at, n, wire.Bytes(len(p)-4))
		}
		if err := fn(at, p[4:4+n]); err != nil {
			return err
		}
		p = p[4+n:]
		at += 4 + int(n)
	}
	return nil
}

// xerialSize is what a xerial payload decodes to, at most limit bytes
// (errTooLarge past it). The lengths its chunks declare are added up
// first, and each checked against its chunk's bytes (snappyMaxRatio), so
// that a payload declaring more than limit is refused before any chunk
// is decoded; then every chunk is decoded into room for one chunk, so
// that the stream of xerialReader cannot fail. Memory is one chunk's
// decoding, not the payload's.
func xerialSize(payload []byte, limit int64) (int64, error) {
	var total int64
	var most int
	err := xerialChunks(payload, func(at int, block []byte) error {
		n, err := snappyLen(block)
		if err != nil {
			return fmt.Errorf("xerial chunk at +%d (%d bytes): %w", at, len(block), err)
		}
		if total += int64(n); total > limit {
			return errTooLarge
		}
		most = max(most, n)
		return nil
	})
	if err != nil {
		return 0, err
	}
	room := make([]byte, most)
	err = xerialChunks(payload, func(at int, block []byte) error {
		if _, err := snappy.DecodeStrict(room, block); err != nil {
			return fmt.Errorf("xerial chunk at +%d (%d bytes): %w", at, len(block), err)
		}
		return nil
	})
	return total, err
}

// xerialReader streams what a xerial payload decodes to, a chunk at a
// time: it holds one chunk's decoding. Its payload is one that
// xerialSize checked.
type xerialReader struct {
	// rest are the chunks still to decode, out what is left to read of
	// the last one decoded into room.
	rest, out, room []byte
}

func (x *xerialReader) reset(payload []byte) error {
	x.rest, x.out = payload[min(xerialHeader, len(payload)):], nil
	return nil
}

func (x *xerialReader) Read(b []byte) (int, error) {
	for len(x.out) == 0 {
		if len(x.rest) < 4 {
			return 0, io.EOF
		}
		n := int64(int32(binary.BigEndian.Uint32(x.rest)))
		if n < 0 || n > int64(len(x.rest)-4) {
			return 0, fmt.Errorf("xerial chunk: length %d, %s remain", n, wire.Bytes(len(x.rest)-4))
		}
		block := x.rest[4 : 4+n]
		x.rest = x.rest[4+n:]
		k, err := snappyLen(block)
		if err != nil {
			return 0, err
		}
		if cap(x.room) < k {
			x.room = make([]byte, k)
		}
		if x.out, err = snappy.DecodeStrict(x.room[:k], block); err != nil {
			return 0, err
		}
	}
	n := copy(b, x.out)
	x.out = x.out[n:]
	return n, nil
}

// snappyMaxRatio bounds what a byte of a raw snappy block decodes to: a
// snappy element is a literal (its bytes and a tag) or a copy of at most
// 64 bytes taking at least 3 bytes (a 2-byte copy of at most 11 bytes
// being the only shorter one), so a block of n bytes decodes to at most
// 64*n/3 + 11 bytes.
const snappyMaxRatio = 22

// snappyLen is the length a raw snappy block declares it decodes to,
// refused when its bytes cannot hold that much (snappyMaxRatio).
func snappyLen(src []byte) (int, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return 0, err
	}
	if int64(n) > snappyMaxRatio*int64(len(src))+64 {
		return 0, fmt.Errorf("snappy block of %s says it decodes to %s, more than its bytes can hold", wire.Bytes(len(src)), wire.Bytes(n))
	}
	return n, nil
}

// snappyBlock appends the decoding of one raw snappy block, refusing one
// whose declared length is past limit, or past what its bytes can decode
// to (snappyMaxRatio), before allocating it: the length is a uvarint at
// the block's start that the bytes after it need not back.
func snappyBlock(dst, src []byte, limit int64) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return dst, err
	}
	if int64(n) > limit {
		return dst, errTooLarge
	}
	if _, err := snappyLen(src); err != nil {
		return dst, err
	}
	dst = slices.Grow(dst, n)
	room := dst[len(dst) : len(dst)+n]
	out, err := snappy.DecodeStrict(room, src)
	if err != nil {
		return dst, err
	}
	if n > 0 && &out[0] != &room[0] {
		copy(room, out)
	}
	return dst[:len(dst)+n], nil
}

var lz4Pool sync.Pool

// lz4Magic starts an LZ4 frame (little-endian 0x184D2204).
const lz4Magic = 0x184D2204

// lz4Header checks the header checksum (HC) of an LZ4 frame as Kafka does
// and returns the payload with the HC the frame format wants, so that the
// lz4 library reads it. The HC is the second byte of the xxHash32 of the
// frame descriptor (FLG, BD, and the content size and dictionary id when
// present). Kafka's magic 0 messages carry a checksum computed over the
// magic number as well (KafkaLZ4BlockOutputStream before KAFKA-3160),
// and Kafka's reader expects exactly that for magic 0, the standard one
// for magic 1 and 2. A mismatch is returned as warn, and the payload is
// still read.
func lz4Header(p []byte, magic int8) (fixed []byte, warn string) {
	if len(p) < 7 || binary.LittleEndian.Uint32(p) != lz4Magic {
		return p, "" // not a frame: the library says what is wrong
	}
	flg := p[4]
	n := 6
	if flg&0x08 != 0 {
		n += 8 // content size
	}
	if flg&0x01 != 0 {
		n += 4 // dictionary id
	}
	if len(p) <= n {
		return p, ""
	}
	want := byte(xxh32(p[4:n], 0) >> 8)
	legacy := byte(xxh32(p[:n], 0) >> 8)
	hc := p[n]
	kafka, kind := want, "the standard one"
	if magic == 0 {
		kafka, kind = legacy, "magic 0's legacy one, over the magic number too"
	}
	if hc != kafka {
		warn = fmt.Sprintf("lz4 frame header checksum 0x%02x is not %s (0x%02x): Kafka rejects it", hc, kind, kafka)
	}
	if hc == want {
		return p, warn
	}
	fixed = slices.Clone(p)
	fixed[n] = want
	return fixed, warn
}

// xxHash32 (the LZ4 frame format's checksum), from its specification.
const (
	xxPrime1 uint32 = 2654435761
	xxPrime2 uint32 = 2246822519
	xxPrime3 uint32 = 3266489917
	xxPrime4 uint32 = 668265263
	xxPrime5 uint32 = 374761393
)

func xxRound(acc, lane uint32) uint32 {
	return bits.RotateLeft32(acc+lane*xxPrime2, 13) * xxPrime1
}

func xxh32(b []byte, seed uint32) uint32 {
	n := len(b)
	var h uint32
	if n >= 16 {
		v1 := seed + xxPrime1 + xxPrime2
		v2 := seed + xxPrime2
		v3 := seed
		v4 := seed - xxPrime1
		for len(b) >= 16 {
			v1 = xxRound(v1, binary.LittleEndian.Uint32(b))
			v2 = xxRound(v2, binary.LittleEndian.Uint32(b[4:]))
			v3 = xxRound(v3, binary.LittleEndian.Uint32(b[8:]))
			v4 = xxRound(v4, binary.LittleEndian.Uint32(b[12:]))
			b = b[16:]
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = seed + xxPrime5
	}
	h += uint32(n)
	for len(b) >= 4 {
		h += binary.LittleEndian.Uint32(b) * xxPrime3
		h = bits.RotateLeft32(h, 17) * xxPrime4
		b = b[4:]
	}
	for _, c := range b {
		h += uint32(c) * xxPrime5
		h = bits.RotateLeft32(h, 11) * xxPrime1
	}
	h ^= h >> 15
	h *= xxPrime2
	h ^= h >> 13
	h *= xxPrime3
	h ^= h >> 16
	return h
}

var zstdPool sync.Pool

// zstdAll appends what zstd payload decompresses to to dst in one call
// (DecodeAll: no stream, no copy of what it decodes) when that is at most
// hold bytes, and its frame says how many (franz-go's and librdkafka's
// frames do) and it is at most 32 bytes a byte of payload, or, when it
// does not say (a stream's frame), it fits in that; ok is false, with
// dst's bytes as they were (its capacity perhaps grown), otherwise or on
// any error: the stream of openPayload then decompresses it, and says what is
// wrong or too large. It never lets DecodeAll write past the room it
// makes, hold bytes at most and in proportion to the payload.
func zstdAll(dst, payload []byte, hold int64) (out []byte, ok bool) {
	want := int64(len(payload)) * 32
	var h zstd.Header
	if h.Decode(payload) == nil && h.HasFCS {
		if h.FrameContentSize > uint64(hold) || h.FrameContentSize > uint64(want) {
			return dst, false
		}
		want = int64(h.FrameContentSize)
	}
	want = min(max(want, 4<<10), hold)
	if want <= 0 {
		// No room may be made (the limit spent): the stream says so.
		return dst, false
	}
	zd, _ := zstdAllPool.Get().(*zstd.Decoder)
	if zd == nil {
		var err error
		zd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecodeAllCapLimit(true))
		if err != nil {
			return dst, false
		}
	}
	defer zstdAllPool.Put(zd)
	start := len(dst)
	dst = slices.Grow(dst, int(want))
	// The room after dst's bytes, as a slice of its own: given dst
	// whole, DecodeAll copied what dst held as it went (a thousand small
	// payloads appended to one Virtual of 33 MB allocated 35 GB).
	room := dst[start : start : start+int(want)]
	out, err := zd.DecodeAll(payload, room)
	if err != nil || cap(out) == 0 {
		return dst[:start], false
	}
	if len(out) > 0 && &out[:1][0] != &room[:1][0] || len(out) > len(room[:cap(room)]) {
		// Past the room it was given (it keeps to it: not expected).
		return dst[:start], false
	}
	return dst[:start+len(out)], true
}

// zstdAllPool holds the zstd decoders of zstdAll (DecodeAll limited to
// its destination's capacity).
var zstdAllPool sync.Pool

// zstdDecoder is a pooled zstd decoder (one is costly to make): one
// goroutine, windows up to zstdMaxWindow.
func zstdDecoder() (*zstd.Decoder, error) {
	if zd, _ := zstdPool.Get().(*zstd.Decoder); zd != nil {
		return zd, nil
	}
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow))
}
