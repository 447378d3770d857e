package records

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// legacy appends a magic 0 or 1 message (LegacyRecord): its fixed header,
// the timestamp (magic 1), key and value, and for a compressed wrapper the
// Decompressed view of the inner message set. The node's Num is the
// magic; a CRC-32 that does not match flags it and its crc leaf with
// FlagBadCRC (the crc leaf's Index holds the computed CRC).
func (d *decoder) legacy(msg []byte, off int32, a area, path string, magic int8) {
	b := d.b
	fl := a.flags()
	stored := binary.BigEndian.Uint32(msg[12:])
	computed := crc32.ChecksumIEEE(msg[16:])
	flags := fl
	if stored != computed {
		flags |= tree.FlagBadCRC
	}
	mi := b.Open(tree.Node{Kind: tree.RecordBatch, Ref: refLegacy, Off: off, Num: int64(magic), Flags: flags})
	p := 0
	var attrs, offset int64
	for k, f := range legacyFields {
		n := tree.Node{Kind: tree.BatchField, Wire: f.w, Ref: f.ref, Off: off + int32(p), Size: int32(f.size), Num: readFixed(msg[p:], f.w), Flags: fl}
		switch k {
		case legacyOffset:
			offset = n.Num
		case legacyCRC:
			n.Index, n.Flags = int32(computed), flags
		case legacyAttributes:
			attrs = n.Num
		}
		li := b.Leaf(n)
		if k == legacyCRC && stored != computed {
			d.problem(a, li, off+12, path+".crc", fmt.Sprintf("CRC-32 0x%08x stored, 0x%08x computed: the message is corrupt", stored, computed))
		}
		p += f.size
	}
	if magic == 1 {
		b.Leaf(tree.Node{Kind: tree.BatchField, Wire: tree.WireInt64, Ref: refLegacyTimestamp, Off: off + int32(p), Size: 8, Num: readFixed(msg[p:], tree.WireInt64), Flags: fl})
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
		nd := tree.Node{Kind: tree.BatchField, Wire: tree.WireBytes, Ref: ref, Off: off + int32(p), Num: n, Flags: fl}
		if n < 0 {
			nd.Null, nd.Size = true, 4
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
		nd.Size, nd.DOff, nd.DLen = int32(4+n), off+int32(p)+4, int32(n)
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
	inner := d.viewArea(area{virtual: true, wireOff: off, path: path + ".decompressed", inWrapper: true}, len(data))
	if a.virtual {
		inner.wireOff = a.wireOff
	}
	gi := d.b.Open(tree.Node{Kind: tree.Decompressed, Ref: refDecompressed, Off: voff, DOff: voff, DLen: int32(len(out)), Index: int32(codec), Flags: tree.FlagVirtual})
	first := int32(len(d.b.T.Nodes))
	d.entries(out, voff, inner)
	d.b.Close(voff + int32(len(out)))
	if magic == 1 {
		// Inner offsets are relative; the wrapper holds the absolute
		// offset of the last inner message (AbstractLegacyRecordBatch).
		last := int64(-1)
		t := d.b.T
		t.Children(gi, func(c int32) bool {
			if c >= first && t.Nodes[c].Kind == tree.RecordBatch && t.Nodes[c].End > c+1 {
				last = t.Nodes[c+1].Num // the inner offset leaf
			}
			return true
		})
		if last >= 0 {
			t.Nodes[gi].Num = offset - last
		}
	}
}
