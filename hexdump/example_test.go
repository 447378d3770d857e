package hexdump_test

import (
	"fmt"

	"github.com/kwire/kwire/hexdump"
)

// Parse reads the output of hexdump -C: the offsets say which columns are
// bytes, and "*" repeats the line before up to the next offset.
func ExampleParse() {
	b, err := hexdump.Parse([]byte(`00000000  00 00 00 4f 00 34 00 02  00 00 00 00 00 00 00 01  |...O.4..........|
00000010  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|
*
00000050  00 00 00                                          |...|
00000053
`))
	fmt.Println(len(b), err)
	fmt.Printf("% x\n", b[:8])

	_, err = hexdump.Parse([]byte("0000004f 0034\n0002 00g0\n"))
	fmt.Println(err)
	// Output:
	// 83 <nil>
	// 00 00 00 4f 00 34 00 02
	// line 2, column 8: "g" is not a hex digit
}
