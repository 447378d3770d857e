package records

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// Control record types (ControlRecordType).
const (
	ControlAbort        = 0
	ControlCommit       = 1
	ControlLeaderChange = 2
	ControlSnapshotHead = 3
	ControlSnapshotFoot = 4
	ControlKRaftVersion = 5
	ControlKRaftVoters  = 6
)

// ControlTypeName names a control record type as Kafka does ("COMMIT",
// "SNAPSHOT_HEADER"), "UNKNOWN" for others.
func ControlTypeName(t int) string {
	switch t {
	case ControlAbort:
		return "ABORT"
	case ControlCommit:
		return "COMMIT"
	case ControlLeaderChange:
		return "LEADER_CHANGE"
	case ControlSnapshotHead:
		return "SNAPSHOT_HEADER"
	case ControlSnapshotFoot:
		return "SNAPSHOT_FOOTER"
	case ControlKRaftVersion:
		return "KRAFT_VERSION"
	case ControlKRaftVoters:
		return "KRAFT_VOTERS"
	}
	return "UNKNOWN"
}

// ControlMessage is the spec name of the message a KRaft control record's
// value holds (ControlRecordUtils), or "" for other types.
func ControlMessage(t int) string {
	switch t {
	case ControlLeaderChange:
		return "LeaderChangeMessage"
	case ControlSnapshotHead:
		return "SnapshotHeaderRecord"
	case ControlSnapshotFoot:
		return "SnapshotFooterRecord"
	case ControlKRaftVersion:
		return "KRaftVersionRecord"
	case ControlKRaftVoters:
		return "VotersRecord"
	}
	return ""
}

var (
	refCtlKeyVersion = tree.NameRef("version", "control record key version (0)")
	refCtlTypes      = func() [8]int32 {
		var out [8]int32
		about := [7]string{
			"ABORT: transaction marker, the transaction aborted",
			"COMMIT: transaction marker, the transaction committed",
			"LEADER_CHANGE: KRaft leader change",
			"SNAPSHOT_HEADER: KRaft snapshot header",
			"SNAPSHOT_FOOTER: KRaft snapshot footer",
			"KRAFT_VERSION: KRaft version record",
			"KRAFT_VOTERS: KRaft voters record",
		}
		for i, a := range about {
			out[i] = tree.NameRef("type", "control record type "+a)
		}
		out[7] = tree.NameRef("type", "control record type UNKNOWN (Kafka ignores the record)")
		return out
	}()
	refCtlKeyRest      = tree.NameRef("rest", "bytes after the control record key's type (Kafka ignores them)")
	refMarkerVersion   = tree.NameRef("version", "transaction marker version (0)")
	refMarkerEpoch     = tree.NameRef("coordinatorEpoch", "epoch of the transaction coordinator that wrote the marker")
	refMarkerRest      = tree.NameRef("rest", "bytes after the transaction marker (Kafka ignores them)")
	refControlTooShort = tree.NameRef("undecoded", "bytes not decoded because of the problem reported here")
)

// isCtlTypeRef reports whether ref is the Ref of a control key's type
// leaf.
func isCtlTypeRef(ref int32) bool {
	for _, r := range refCtlTypes {
		if ref == r {
			return true
		}
	}
	return false
}

func ctlTypeRef(t int) int32 {
	if t >= 0 && t <= 6 {
		return refCtlTypes[t]
	}
	return refCtlTypes[7]
}

// controlKey appends the fields of a control record's key (int16 version,
// int16 type: ControlRecordType.parse) and returns the type, -1 when the
// key is too short.
func (d *decoder) controlKey(data []byte, off int32, a area, path string) int {
	b := d.b
	fl := a.flags()
	if len(data) < 4 {
		i := d.raw(a, refControlTooShort, off, len(data))
		d.problem(a, i, off, path, fmt.Sprintf("a control record key holds at least 4 bytes (version, type), this one %d", len(data)))
		return -1
	}
	version := int16(binary.BigEndian.Uint16(data))
	typ := int(int16(binary.BigEndian.Uint16(data[2:])))
	vi := b.Leaf(tree.Node{Off: off, Size: 2, S: tree.NewShape(tree.BatchField, tree.WireInt16, refCtlKeyVersion, 0).With(fl)})
	if version < 0 {
		d.problem(a, vi, off, path+".version", fmt.Sprintf("control record key version %d is negative", version))
	}
	b.Leaf(tree.Node{Off: off + 2, Size: 2, S: tree.NewShape(tree.BatchField, tree.WireInt16, ctlTypeRef(typ), 0).With(fl)})
	if len(data) > 4 {
		d.raw(a, refCtlKeyRest, off+4, len(data)-4)
	}
	return typ
}

// controlSpec returns the spec of the message a KRaft control record of
// type typ holds, or nil when it is not one or cannot be decoded (no Set
// or Decode).
func (d *decoder) controlSpec(typ int) *spec.Message {
	name := ControlMessage(typ)
	if name == "" || d.o.Set == nil || d.o.Decode == nil {
		return nil
	}
	return d.o.Set.Message(name)
}

// endTxnMarker appends a transaction marker's fields: int16 version, int32
// coordinatorEpoch (EndTransactionMarker.deserializeValue).
func (d *decoder) endTxnMarker(data []byte, off int32, a area, path string) {
	b := d.b
	fl := a.flags()
	if len(data) < 6 {
		i := d.raw(a, refControlTooShort, off, len(data))
		d.problem(a, i, off, path, fmt.Sprintf("a transaction marker value holds at least 6 bytes (version, coordinatorEpoch), this one %d", len(data)))
		return
	}
	version := int16(binary.BigEndian.Uint16(data))
	vi := b.Leaf(tree.Node{Off: off, Size: 2, S: tree.NewShape(tree.BatchField, tree.WireInt16, refMarkerVersion, 0).With(fl)})
	if version < 0 {
		d.problem(a, vi, off, path+".version", fmt.Sprintf("transaction marker version %d is negative", version))
	}
	b.Leaf(tree.Node{Off: off + 2, Size: 4, S: tree.NewShape(tree.BatchField, tree.WireInt32, refMarkerEpoch, 0).With(fl)})
	if len(data) > 6 {
		d.raw(a, refMarkerRest, off+6, len(data)-6)
	}
}

// embed decodes data (at offset off of area a) as message m at version 0,
// or as a framed metadata record when m is nil, and appends it as an
// Embedded node.
func (d *decoder) embed(data []byte, off int32, a area, path string, m *spec.Message) {
	t, err := d.o.Decode(data, m, 0)
	d.graft(t, err, off, int32(len(data)), a, path)
}

// graft appends the decode t of n bytes at offset off of area a (err its
// error): an Embedded node holding its frame and its body's fields, with
// its problems and err's at their offsets and below path; a Raw leaf with
// a problem when t is empty.
func (d *decoder) graft(t *tree.Tree, err error, off, n int32, a area, path string) {
	if t == nil || len(t.Nodes) == 0 {
		i := d.raw(a, refUndecoded, off, int(n))
		msg := "not decoded"
		if err != nil {
			msg = err.Error()
		}
		d.problem(a, i, off, path, msg)
		return
	}
	b := d.b
	fl := a.flags()
	root := &t.Nodes[0]
	ei := b.Open(tree.Node{Off: off, S: tree.NewShape(tree.Embedded, tree.WireNone, root.Ref(), root.Aux()).With(fl)})
	t.Children(0, func(c int32) bool {
		if t.Nodes[c].Kind() == tree.Body {
			t.Children(c, func(f int32) bool {
				b.Graft(t, f, off, fl)
				return true
			})
			return true
		}
		b.Graft(t, c, off, fl)
		return true
	})
	b.Close(off + n)
	name, root0 := path, ""
	if st := b.T.Struct(ei); st != nil {
		name, root0 = pathName(path, st.Name), st.Name
	}
	for _, p := range t.Problems {
		if a.virtual {
			p.Off, p.VOff = a.wireOff, off+p.Off
		} else {
			p.Off += off
		}
		p.Path = name + "." + p.Path
		b.T.Problems = append(b.T.Problems, p)
	}
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			p := name
			if rest := trimRoot(we.Path, root0); rest != "" {
				p = name + "." + rest
			}
			d.problem(a, ei, off+int32(we.Offset), p, errText(we))
		} else {
			d.problem(a, ei, off, name, err.Error())
		}
	}
}

// trimRoot drops the message name that codec error paths start with ("" when
// the path is just that name).
func trimRoot(p, root string) string {
	switch {
	case p == root:
		return ""
	case root != "" && len(p) > len(root) && p[:len(root)] == root && p[len(root)] == '.':
		return p[len(root)+1:]
	}
	return p
}
