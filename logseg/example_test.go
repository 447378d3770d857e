package logseg_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/render"
)

// Walk a partition directory holding one log segment, built here with
// records.Batch, and print each batch and record as `kwire log` does.
func Example() {
	dir, err := os.MkdirTemp("", "logseg-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	part := filepath.Join(dir, "orders-0")
	if err := os.Mkdir(part, 0o755); err != nil {
		log.Fatal(err)
	}
	seg := records.Batch{BaseOffset: 0, Timestamp: 1700000000000, Records: []records.KeyValue{
		{Key: []byte("k1"), Value: []byte("abc"), Headers: []records.Header{{Key: "trace", Value: []byte("7f")}}},
		{Key: []byte("k2"), Value: nil, TimestampDelta: 5},
	}}.Bytes()
	if err := os.WriteFile(filepath.Join(part, "00000000000000000000.log"), seg, 0o644); err != nil {
		log.Fatal(err)
	}

	srcs, err := logseg.Expand([]string{dir})
	if err != nil {
		log.Fatal(err)
	}
	for _, src := range srcs {
		for _, f := range src.Files {
			fmt.Println("==", filepath.Base(filepath.Dir(f)), filepath.Base(f))
			sum, err := logseg.Read(f, logseg.Options{}, func(w *logseg.Window) error {
				for i := range w.Batches {
					b := &w.Batches[i]
					fmt.Println(logseg.BatchText(b))
					for _, r := range b.Records {
						d := w.Describe(b, r)
						fmt.Print(string(d.AppendText(nil, render.ValuesAuto)))
					}
				}
				return nil
			})
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println(sum.Size, "bytes,", sum.Batches, "batch,", len(sum.Findings(src.Dir)), "problems")
		}
	}
	// Output:
	// == orders-0 00000000000000000000.log
	// batch 0  records 2  attributes 0x0000  epoch 0  magic 2  CRC valid
	//   offset 0  CreateTime 1700000000000  key "k1"  value "abc"  headers "trace"="7f"
	//   offset 1  CreateTime 1700000000005  key "k2"  value null
	// 91 bytes, 1 batch, 0 problems
}
