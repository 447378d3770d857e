package logseg

import (
	"testing"

	"github.com/kwire/kwire/records"
)

// A batch line spells out attributes with bits beyond control: its
// compression codec first, so that "0x0001" reads as gzip.
func TestBatchTextSpellsOutAttributes(t *testing.T) {
	for _, c := range []struct {
		attrs   int16
		control bool
		want    string
	}{
		{0x0000, false, "batch 7  records 3  attributes 0x0000  epoch 1  magic 2  CRC valid"},
		{0x0001, false, "batch 7  records 3  attributes 0x0001 (gzip, CreateTime)  epoch 1  magic 2  CRC valid"},
		{0x0002, false, "batch 7  records 3  attributes 0x0002 (snappy, CreateTime)  epoch 1  magic 2  CRC valid"},
		{0x0013, false, "batch 7  records 3  attributes 0x0013 (lz4, CreateTime, transactional)  epoch 1  magic 2  CRC valid"},
		{0x000c, false, "batch 7  records 3  attributes 0x000c (zstd, LogAppendTime)  epoch 1  magic 2  CRC valid"},
		{0x0020, true, "batch 7  records 3  attributes 0x0020  epoch 1  magic 2  CRC valid  control"},
	} {
		b := &records.LogBatch{BaseOffset: 7, Count: 3, Attributes: c.attrs, LeaderEpoch: 1, Magic: 2, CRCValid: true, Control: c.control}
		if got := BatchText(b); got != c.want {
			t.Errorf("attributes 0x%04x:\n%s\nwant\n%s", c.attrs, got, c.want)
		}
	}
}
