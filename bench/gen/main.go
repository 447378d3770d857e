// Command gen writes the inputs that bench/run measures kwire on,
// deterministically (the same arguments give the same bytes):
//
//	go run ./bench/gen segment RECORDS FILE  # a log segment of zstd batches of 1000 records (testseg.ZstdSegment; about 49 bytes a record)
//	go run ./bench/gen bomb BYTES FILE       # a segment of one zstd batch holding BYTES zero bytes (testseg.ZstdBomb)
//	go run ./bench/gen pcap BYTES FILE       # a pcap of about BYTES of Produce v7 exchanges (see capture)
//
// They are not committed: bench/run makes them under .build/bench.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/kwire/kwire/internal/testseg"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("usage: gen segment|bomb|pcap N FILE")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n <= 0 {
		return fmt.Errorf("%q is not a positive count", args[1])
	}
	var data []byte
	switch args[0] {
	case "segment":
		data = testseg.ZstdSegment(n, 1000)
	case "bomb":
		data = testseg.ZstdBomb(n, 1)
	case "pcap":
		if data, err = capture(n); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown input %q (segment, bomb or pcap)", args[0])
	}
	return os.WriteFile(args[2], data, 0o644)
}
