package records

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// legacyShape is the shape of a legacy message's key or value leaf of ref.
func legacyShape(ref int32) tree.Shape {
	switch ref {
	case refLegacyKey:
		return shLegacyKey
	case refLegacyValue:
		return shLegacyValue
	}
	return shLegacyComp
}

// legacy appends a magic 0 or 1 message (LegacyRecord): its fixed header,
// the timestamp (magic 1), key and value, and for a compressed wrapper the
// Decompressed view of the inner message set. A CRC-32 that does not
// match flags it and its crc leaf with FlagBadCRC (tree.CRC computes it).
func (d *decoder) legacy(msg []byte, off int32, a area, path string, magic int8) {
	b := d.b
	fl := a.flags()
	stored := binary.BigEndian.Uint32(msg[12:])
	computed := crc32.ChecksumIEEE(msg[16:])
	flags := fl
	if stored != computed {
		flags |= tree.FlagBadCRC
	}
	mi := b.Open(tree.Node{Off: off, S: shLegacy.With(flags)})
	p := 0
	var attrs, offset int64
	for k, f := range legacyFields {
		n := tree.Node{Off: off + int32(p), Size: int32(f.size), S: f.shape.With(fl)}
		switch k {
		case legacyOffset:
			offset = readFixed(msg[p:], f.w)
		case legacyCRC:
			n.S = f.shape.With(flags)
		case legacyAttributes:
			attrs = readFixed(msg[p:], f.w)
		}
		li := b.Leaf(n)
		if k == legacyCRC && stored != computed {
			d.problem(a, li, off+12, path+".crc", fmt.Sprintf("CRC-32 0x%08x stored, 0x%08x computed: the message is corrupt", stored, computed))
			d.b.T.Problems[len(d.b.T.Problems)-1].CRC = computed
		}
		p += f.size
	}
	if magic == 1 {
		b.Leaf(tree.Node{Off: off + int32(p), Size: 8, S: shLegacyTs.With(fl)})
		p += 8
	}
	codec := int(Attributes(attrs).Compression())
	// key, then value: int32 length (negative: null) and bytes.
	for _, isValue := range [2]bool{false, true} {
		name, ref := "key", refLegacyKey
		if isValue {
			name, ref = "value", refLegacyValue
			if codec != 0 {
				ref = refLegacyCompValue
			}
		}
		if len(msg)-p < 4 {
			i := d.raw(a, refUndecoded, off+int32(p), len(msg)-p)
			d.problem(a, i, off+int32(p), pathName(path, name), fmt.Sprintf("%s length: need 4 bytes, have %d", name, len(msg)-p))
			b.Close(off + int32(len(msg)))
			return
		}
		n := int64(int32(binary.BigEndian.Uint32(msg[p:])))
		nd := tree.Node{Off: off + int32(p), S: legacyShape(ref).With(fl)}
		if n < 0 {
			nd.SetNull(true)
			nd.Size = 4
			b.Leaf(nd)
			p += 4
			if isValue && codec != 0 {
				d.problem(a, mi, off+int32(p)-4, path+".value", "a compressed wrapper message with a null value")
			}
			continue
		}
		if n > int64(len(msg)-p-4) {
			i := d.raw(a, refUndecoded, off+int32(p), len(msg)-p)
			d.problem(a, i, off+int32(p), pathName(path, name), fmt.Sprintf("%s length %d: only %s remain in the message", name, n, wire.Bytes(len(msg)-p-4)))
			b.Close(off + int32(len(msg)))
			return
		}
		nd.Size = int32(4 + n)
		vi := b.Leaf(nd)
		data := msg[p+4 : p+4+int(n)]
		p += 4 + int(n)
		if isValue && codec != 0 {
			d.wrapper(data, off+int32(p)-int32(n), a, path, codec, magic, offset, vi)
		}
	}
	if p < len(msg) {
		i := d.raw(a, refLegacyExtra, off+int32(p), len(msg)-p)
		d.problem(a, i, off+int32(p), path, fmt.Sprintf("%s after the value that messageSize counts", wire.Bytes(len(msg)-p)))
	}
	b.Close(off + int32(len(msg)))
}

// wrapper appends the Decompressed view of a legacy compressed wrapper's
// value (the inner message set), data at offset voff of area a.
func (d *decoder) wrapper(data []byte, off int32, a area, path string, codec int, magic int8, offset int64, vi int32) {
	vpath := path + ".value"
	switch {
	case a.inWrapper:
		d.problem(a, vi, off, vpath, "a message inside a compressed wrapper is itself compressed: Kafka does not allow it (not decompressed)")
		return
	case codec > int(CompressionLZ4):
		if codec == int(CompressionZstd) {
			d.problem(a, vi, off, vpath, fmt.Sprintf("zstd compression needs magic 2, this message is magic %d (not decompressed)", magic))
		} else {
			d.problem(a, vi, off, vpath, fmt.Sprintf("unknown compression id %d (magic %d knows 0-3): not decompressed", codec, magic))
		}
		return
	}
	out, voff, ok := d.decompress(a, codec, data, magic, off, vpath, vi)
	if !ok {
		return
	}
	from := d.size()
	inner := d.viewArea(area{virtual: true, wireOff: off, path: path + ".decompressed", inWrapper: true}, len(data))
	if a.virtual {
		inner.wireOff = a.wireOff
	}
	d.b.Open(tree.Node{Off: voff, S: shDecompressed[codec].With(tree.FlagVirtual)})
	d.entries(out, voff, inner)
	d.endView(inner, from)
	// Inner offsets of magic 1 are relative to the wrapper's offset less
	// the last inner one (tree.OffsetBase reads them from the bytes).
	// (Its bytes end where the Virtual bytes do when a bound kept only
	// the first of them: boundRest.)
	d.b.Close(min(voff+int32(len(out)), int32(len(d.b.T.Virtual))))
}
