package internaltopic_test

import (
	"encoding/hex"
	"fmt"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internaltopic"
	"github.com/kwire/kwire/spec"
)

// A committed offset of __consumer_offsets: the key says record type 1
// (OffsetCommitKey), the value its version (OffsetCommitValue v3).
func ExampleDecode() {
	s, _ := spec.Embedded("4.4")
	key, _ := hex.DecodeString("000100016700017400000003")
	value, _ := hex.DecodeString("000300000000000000640000000500000000018bcfe56800")
	rec, err := internaltopic.Decode(codec.New(s), spec.TopicOffsets, key, value)
	if err != nil {
		fmt.Println(err)
		return
	}
	group, _ := rec.Key.Get("OffsetCommitKey.group")
	offset, _ := rec.Value.Get("OffsetCommitValue.offset")
	fmt.Println(rec.RecordType, rec.Key.Message.Name, rec.Value.Message.Name, rec.Value.Version)
	fmt.Println(group.String(), offset.Int())

	// A null value is a tombstone: the group's offset was deleted.
	rec, _ = internaltopic.Decode(codec.New(s), spec.TopicOffsets, key, nil)
	fmt.Println(rec.Tombstone)

	// An unknown record type is an error naming the place.
	_, err = internaltopic.Decode(codec.New(s), spec.TopicOffsets, []byte{0, 99, 0, 0}, nil)
	fmt.Println(err)
	// Output:
	// 1 OffsetCommitKey OffsetCommitValue 3
	// g 100
	// true
	// key: record_type at 0x0000: no key spec of record type 99 in __consumer_offsets
}
