package records

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// What the nodes of records do not store and views ask for, read from the
// bytes of a tree this package built: a batch's computed checksum, a
// decompressed view's offset base, a record's offset.

// ComputedCRC returns the checksum of RecordBatch node bi's bytes that
// its crc field covers: CRC-32C from a v2 batch's attributes to its end,
// CRC-32 from a legacy message's magic to its end, as decoding computed
// it. Decoding compared it with the stored one: for a batch not flagged
// (FlagBadCRC) it is the stored checksum; for one flagged, the one its
// problem holds (tree.Problem.CRC), computed before anything (a redaction
// by package secret) changed the bytes; else (the part of DecodeParts
// that continues such a batch) computed again over the whole entry as its
// length field gives it. 0 when the entry's bytes are not all in the
// tree.
func ComputedCRC(t *tree.Tree, bi int32) uint32 {
	if t == nil || bi < 0 || int(bi) >= len(t.Nodes) || t.Nodes[bi].Kind() != tree.RecordBatch {
		return 0
	}
	e := entryAt(t, bi)
	total := EntrySize(e)
	if total == 0 || total > int64(len(e)) {
		return 0
	}
	v2 := e[16] == 2
	n := t.Nodes[bi]
	crcAt := n.Off + 12
	if v2 {
		crcAt = n.Off + 17
	}
	if n.Flags()&tree.FlagBadCRC == 0 {
		return binary.BigEndian.Uint32(e[crcAt-n.Off:])
	}
	virtual := n.Flags()&tree.FlagVirtual != 0
	for _, p := range t.Problems {
		if p.CRC != 0 && (!virtual && p.VOff < 0 && p.Off == crcAt || virtual && p.VOff == crcAt) {
			return p.CRC
		}
	}
	if v2 {
		return CRC32C(e[21:total])
	}
	return crc32.ChecksumIEEE(e[16:total])
}

// entryAt returns the bytes of batch node bi's area from its start on.
func entryAt(t *tree.Tree, bi int32) []byte {
	n := t.Nodes[bi]
	area := t.Bytes
	if n.Flags()&tree.FlagVirtual != 0 {
		area = t.Virtual
	}
	if n.Off < 0 || int(n.Off) > len(area) {
		return nil
	}
	return area[n.Off:]
}

// int64At is the int64 a batch's bytes start with (its baseOffset or
// offset), 0 when they are fewer than 8.
func int64At(t *tree.Tree, bi int32) int64 {
	e := entryAt(t, bi)
	if len(e) < 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(e))
}

// OffsetBase returns the offset the inner records' offsets of
// Decompressed node di are relative to (see tree.Decompressed): its
// batch's baseOffset for a RecordBatch v2; for a magic 1 wrapper, the
// wrapper's offset minus the offset of its last inner message
// (AbstractLegacyRecordBatch); 0 for magic 0. It finds the batch by
// looking back from di over the batch's header leaves (tree.Parent).
func OffsetBase(t *tree.Tree, di int32) int64 {
	p := t.Parent(di)
	if p < 0 || t.Nodes[p].Kind() != tree.RecordBatch {
		return 0
	}
	base := int64At(t, p)
	switch t.Magic(p) {
	case 2:
		return base
	case 1:
		last := int64(-1)
		t.Children(di, func(c int32) bool {
			if t.Nodes[c].Kind() == tree.RecordBatch {
				last = int64At(t, c) // the inner message's offset
			}
			return true
		})
		if last >= 0 {
			return base - last
		}
	}
	return 0
}

// RecordOffset returns the offset of Record node ri: its batch's offset
// base plus its offsetDelta (0 when the record's fields do not read that
// far). It finds the record's batch (or decompressed view) by looking
// back from ri (tree.Parent): a walker that knows it calls RecordOffsetIn.
func RecordOffset(t *tree.Tree, ri int32) int64 { return RecordOffsetIn(t, t.Parent(ri), ri) }

// RecordOffsetIn is RecordOffset of Record node ri, a child of node p
// (its RecordBatch, or the batch's Decompressed view).
func RecordOffsetIn(t *tree.Tree, p, ri int32) int64 {
	if p < 0 {
		return 0
	}
	var base int64
	switch t.Nodes[p].Kind() {
	case tree.RecordBatch:
		base = int64At(t, p)
	case tree.Decompressed:
		base = OffsetBase(t, p)
	}
	d, ok := OffsetDelta(t, ri)
	if !ok {
		return 0
	}
	return base + d
}

// OffsetDelta returns the offsetDelta of Record node ri, whole or lazy
// (Options.Lazy: read from the record's bytes, past its length,
// attributes and timestampDelta); ok is false when the record's fields
// do not read that far.
func OffsetDelta(t *tree.Tree, ri int32) (delta int64, ok bool) {
	if IsLazy(t, ri) {
		return lazyOffsetDelta(t, ri)
	}
	end := t.Nodes[ri].End
	for c := ri + 1; c < end; c = t.Nodes[c].End {
		if t.Nodes[c].Ref() == refOffDelta {
			return t.Num(c), true
		}
	}
	return 0, false
}

// lazyOffsetDelta reads the offsetDelta of lazy record ri from its bytes.
func lazyOffsetDelta(t *tree.Tree, ri int32) (int64, bool) {
	n := t.Nodes[ri]
	area := t.Bytes
	if n.Flags()&tree.FlagVirtual != 0 {
		area = t.Virtual
	}
	if n.Off < 0 || n.Size < 0 || int(n.Off)+int(n.Size) > len(area) {
		return 0, false
	}
	rec := area[n.Off : n.Off+n.Size]
	_, k := wire.VarintAt(rec, 0) // length
	if k == 0 || k >= len(rec) {
		return 0, false
	}
	p := k + 1 // attributes
	if _, k = wire.VarlongAt(rec, p); k == 0 {
		return 0, false
	}
	d, k := wire.VarintAt(rec, p+k)
	return int64(d), k > 0
}
