package records_test

import (
	"bytes"
	"fmt"

	"github.com/klauspost/compress/zstd"

	"github.com/kwire/kwire/records"
)

// One Budget bounds what the compressed payloads of an input decompress
// to together, however many decodes read it: two batches of 1 MiB
// records each under a budget of 1.5 MiB decompress once.
func ExampleBudget() {
	enc, _ := zstd.NewWriter(nil)
	// A batch of one record whose value is 1 MiB of 'v', compressed.
	batch := func(base int64) []byte {
		plain := records.Batch{Records: []records.KeyValue{{Value: bytes.Repeat([]byte("v"), 1<<20)}}}.Bytes()
		return records.RawBatch{BaseOffset: base, Attributes: records.Attributes(records.CompressionZstd), Count: 1, Records: enc.EncodeAll(plain[61:], nil)}.Bytes()
	}
	budget := records.NewBudget(3 << 19)
	for _, base := range []int64{0, 1} {
		t := records.Decode(batch(base), records.Options{Budget: budget})
		fmt.Printf("batch %d: %d bytes decompressed, %d problems\n", base, len(t.Virtual), len(t.Problems))
		for _, p := range t.Problems {
			fmt.Println(p.Msg)
		}
	}
	// Output:
	// batch 0: 1048589 bytes decompressed, 0 problems
	// batch 1: 0 bytes decompressed, 1 problems
	// zstd payload: the decompression budget of the input (1572864 bytes) has 524275 bytes left: not decompressed
}
