package hexdump

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The dumps in testdata are the output of the tools themselves, run on the
// .bin file of the same name (vote.bin: a VoteRequest v2 frame of 110
// bytes; zeros.bin: the smallest VoteRequest v2, 83 bytes, mostly zeros;
// digits.bin: 36 bytes of ASCII hex digits, so that the ASCII column looks
// like hex):
//
//	xxd F > F.xxd; xxd -a F > F.xxd-a; xxd -p F > F.xxd-p
//	xxd -g1 -c8 F > F.xxd-g1c8; hexdump -C F > F.hexdump-C
//	od -Ax -tx1 F > F.od-Ax; od -tx1 F > F.od-octal; od -Ad -tx1 F > F.od-Ad
//	od -An -tx1 -v F > F.od-An-v; od -An -tx1 F > F.od-An (squeezed)
//	kwire decode F | sed -n '/^       0  1/,/^$/p' > F.kwire (the byte grid)
//	xxd -i F > F.xxd-i (a C array)
//
// F.wireshark is Wireshark's "Copy as Hex Dump" layout written out: a
// 4-digit offset, three spaces, 16 bytes padded to 47 columns, three
// spaces, the ASCII column.
func TestParseDumps(t *testing.T) {
	files, err := filepath.Glob("testdata/*.*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".bin") || strings.HasSuffix(f, ".od-An") {
			continue
		}
		want, err := os.ReadFile(strings.SplitN(f, ".", 2)[0] + ".bin")
		if err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(text)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: got %x, %v\nwant %x", f, got, err, want)
		}
		if !LooksLikeHex(text) {
			t.Errorf("%s: LooksLikeHex is false", f)
		}
		n++
	}
	if n != 19 {
		t.Errorf("%d dumps read, want 19", n)
	}
}

// kwire's byte grid as the page shows it, title line and all.
// xxd -i's C array, with or without its x_len line and with no bytes.
func TestParseCArray(t *testing.T) {
	for in, want := range map[string]string{
		"unsigned char x[] = {\n  0x00, 0x34, 0xAB\n};\nunsigned int x_len = 3;\n": "0034ab",
		"unsigned char x[] = { 0x00, 0x01 };":                                      "0001",
		"static const unsigned char blob[4] = {0x00,0x01,0x02,0x03};\r\n":          "00010203",
		"unsigned char x[] = {\n};\nunsigned int x_len = 0;\n":                     "",
	} {
		got, err := Parse([]byte(in))
		if err != nil || hex.EncodeToString(got) != want {
			t.Errorf("Parse(%q) = %x, %v; want %s", in, got, err, want)
		}
		if !LooksLikeHex([]byte(in)) {
			t.Errorf("LooksLikeHex(%q) is false", in)
		}
	}
}

func TestParseKwireGridWithTitle(t *testing.T) {
	grid, err := os.ReadFile("testdata/vote.kwire")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/vote.bin")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(append([]byte("byte layout (110 bytes, 16 bytes per row)\n\n"), grid...))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("got %x, %v", got, err)
	}
}

func TestParseSqueezedWithoutOffsets(t *testing.T) {
	text, err := os.ReadFile("testdata/vote.od-An")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(text)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 6 || se.Col != 1 || !strings.Contains(se.Msg, "od -v") {
		t.Errorf("got %v", err)
	}
}

func TestParsePlain(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0034", "0034"},
		{"00 34\n\t0a", "00340a"},
		{"00:34:0A", "00340a"},
		{"0x0034 0X0a", "00340a"},
		{"0x00,0x34", "0034"},
		{"0000004f 0034\r\n0002", "0000004f00340002"},
		{"00\u00a034", "0034"}, // a no-break space from a web page
		{"", ""},
		{" \n", ""},
		// One line that starts like an offset but has no ASCII column or
		// colon: plain hex.
		{"0000 004f 0034", "0000004f0034"},
		// Lines that start like offsets which do not add up: plain hex.
		{"0000 004f 0034 0002\n0000 0000 0000 0001", "0000004f003400020000000000000001"},
	} {
		got, err := Parse([]byte(c.in))
		if err != nil || hex.EncodeToString(got) != c.want || got == nil {
			t.Errorf("Parse(%q) = %x, %v; want %s", c.in, got, err, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		in        string
		line, col int
		msg       string
	}{
		{"003", 1, 3, "a lone hex digit: write each byte as two digits (the text has an odd number of hex digits)"},
		{"0 034", 1, 1, "a lone hex digit: write each byte as two digits"},
		{"00 3g", 1, 5, `"g" is not a hex digit`},
		{"100x34", 1, 4, `"x" is not a hex digit`},
		{"0000 001c zz", 1, 11, `"z" is not a hex digit`},
		{"0000004f\n0034 0002\n00é0", 3, 3, `"é" is not a hex digit`},
		// A typo in a dump's hex columns, found by its offsets.
		{"00000000: 0000 004f 0034 0002 0000 0000 0000 0001  ...O.4..........\n" +
			"00000010: 0000 0g00 0201 0200 0000 0000 0000 0000  ................\n" +
			"00000020: 0000 00                                  ...\n", 2, 17, `"g" is not a hex digit`},
		{"00000000: 0000 004f 0034 0002 0000 0000 0000 0001  ...O.4..........\n" +
			"00000010: 0000 000 0201 0200 0000 0000 0000 0000  ................\n" +
			"00000020: 0000 00                                  ...\n", 2, 16, `"000" has an odd number of hex digits: write each byte as two digits`},
		// A dump whose offsets do not add up (a line deleted).
		{"00000000: 0000 004f 0034 0002 0000 0000 0000 0001  ...O.4..........\n" +
			"00000020: 0000 00                                  ...\n", 2, 1, "offset 00000020 is not offset 00000000 plus the bytes of line 1"},
		{"0000  00 00  ..\n*\n", 2, 1, `a "*" line needs an offset line after it`},
		// xxd -i's C array: a typo between the braces, a count that
		// x_len does not say.
		{"unsigned char x[] = {\n  0x00, 0x0g\n};\nunsigned int x_len = 2;\n", 2, 12, `"g" is not a hex digit`},
		{"unsigned char x[] = {\n  0x00, 0x01, 0x02\n};\nunsigned int x_len = 2;\n", 4, 22, "x_len says 2 bytes, the array holds 3"},
	} {
		_, err := Parse([]byte(c.in))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != c.line || se.Col != c.col || se.Msg != c.msg {
			t.Errorf("Parse(%q): %v; want line %d, column %d: %s", c.in, err, c.line, c.col, c.msg)
		}
	}
}

func TestParseSqueezeBounded(t *testing.T) {
	// A "*" may describe more bytes than the text holds, but not more
	// than MaxBytes.
	_, err := Parse([]byte("00000000  00 00  |..|\n*\nffffffff\n"))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 3 || !strings.Contains(se.Msg, "more than 104857600 bytes") {
		t.Errorf("got %v", err)
	}
	got, err := Parse([]byte("00000000  01 02  |..|\n*\n00000008\n"))
	if err != nil || hex.EncodeToString(got) != "0102010201020102" {
		t.Errorf("got %x, %v", got, err)
	}
}

func TestLooksLikeHex(t *testing.T) {
	for in, want := range map[string]bool{
		"0000004f 0034\n":           true,
		"0x00:0x34":                 true,
		"0000 001c zz":              true, // hex with a typo
		"\x00\x00\x00\x4f\x00":      false,
		"":                          false,
		" \n":                       false,
		"ProduceRequest 0034\n":     false,
		"{\"clusterId\": null}":     false,
		"00 01\x1b[0m":              false,
		"00000000: 6865 6c6c  hell": true,
	} {
		if got := LooksLikeHex([]byte(in)); got != want {
			t.Errorf("LooksLikeHex(%q) = %v", in, got)
		}
	}
}

func TestIsText(t *testing.T) {
	for in, want := range map[string]bool{
		"ProduceRequest v3\n": true,
		"0000 001c\r\n\tzz":   true,
		"":                    false,
		"\x00\x00\x00\x4f":    false,
		"caf\u00e9":           false, // not ASCII
	} {
		if got := IsText([]byte(in)); got != want {
			t.Errorf("IsText(%q) = %v", in, got)
		}
	}
}

// Dumps of 2- and 4-byte words (testdata/words, the tools' output on
// letters.bin: od -x, od -Ax -tx2 -v, od, hexdump, xxd -e, xxd -e -g2,
// xxd -g4) are refused, naming what they are, except xxd -g4, whose ASCII
// column shows its words in byte order.
func TestParseWordDumps(t *testing.T) {
	want, err := os.ReadFile("testdata/words/letters.bin")
	if err != nil {
		t.Fatal(err)
	}
	const hint = ": dump bytes with xxd, od -Ax -tx1 or hexdump -C"
	for _, c := range []struct{ file, err string }{
		{"letters.od-x", "line 1, column 9: this dump groups the bytes in 2-byte words (od -x, od -tx2, hexdump without -C), in the machine's byte order, little-endian on most" + hint},
		{"letters.od-Ax-tx2", "line 1, column 8: this dump groups the bytes in 2-byte words (od -x, od -tx2, hexdump without -C), in the machine's byte order, little-endian on most" + hint},
		{"letters.hexdump", "line 1, column 9: this dump groups the bytes in 2-byte words (od -x, od -tx2, hexdump without -C), in the machine's byte order, little-endian on most" + hint},
		{"letters.od", "line 1, column 9: this is od's default dump: 2-byte words in octal, in the machine's byte order" + hint},
		{"letters.xxd-e", "line 1, column 11: this dump groups the bytes in 4-byte words, little-endian (xxd -e): its ASCII column shows the bytes in another order than its hex columns" + hint},
		{"letters.xxd-e-g2", "line 1, column 11: this dump groups the bytes in 2-byte words, little-endian (xxd -e): its ASCII column shows the bytes in another order than its hex columns" + hint},
		{"letters.xxd-g4", ""},
	} {
		text, err := os.ReadFile(filepath.Join("testdata", "words", c.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(text)
		switch {
		case c.err == "" && (err != nil || !bytes.Equal(got, want)):
			t.Errorf("%s: %x, %v", c.file, got, err)
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%s:\n got %v\nwant %s", c.file, err, c.err)
		}
	}
	// 4-byte words whose ASCII column has no letter to tell the order.
	_, err = Parse([]byte("00000000: 0000001c 00000000  ........\n00000008: 00000002           ....\n"))
	if err == nil || err.Error() != "line 1, column 11: this dump groups the bytes in 4-byte words, and nothing tells whether in byte order (xxd -g4) or little-endian (xxd -e)"+hint {
		t.Errorf("4-byte words of zeros: %v", err)
	}
}

// A dump indented (spaces, a tab) or quoted ("> ") reads as the dump; a
// character that is no hex digit is named at its line and column, counted
// in characters of the line as given.
func TestParseIndentedDumps(t *testing.T) {
	const dump = "00000000: 00 00 00 1c 00 00 00 00  ........\n00000008: 00 00 00 02 01 02     ......\n"
	want := []byte{0, 0, 0, 0x1c, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2}
	for _, prefix := range []string{"    ", "\t", "> ", ">\t  "} {
		text := prefix + strings.ReplaceAll(strings.TrimSuffix(dump, "\n"), "\n", "\n"+prefix) + "\n"
		if got, err := Parse([]byte(text)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("prefix %q: %x, %v", prefix, got, err)
		}
	}
	bad := "  " + strings.Replace(dump, "1c", "1é", 1)
	bad = strings.Replace(bad, "\n0", "\n  0", 1)
	_, err := Parse([]byte(bad))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 1 || se.Col != 23 || se.Msg != `"é" is not a hex digit` {
		t.Errorf("é: %v", err)
	}
}

// kwire's grid copied with the "object tree" heading and tree after it;
// two dumps one after the other (offsets from 0 again: their bytes one
// after the other); a line with a byte too many, blamed on that line.
func TestParseDumpEdges(t *testing.T) {
	grid := "       0  1  2  3  4  5  6  7  8  9  A  B  C  D  E  F\n0000  00 00 00 06 00 12 00 03 00 00  ..........\n\nobject tree\n\nApiVersionsRequest  message v3   [0x0000, 10B]\n"
	if got, err := Parse([]byte(grid)); err != nil || hex.EncodeToString(got) != "00000006001200030000" {
		t.Errorf("grid and tree: %x, %v", got, err)
	}
	one := "00000000: 00 00 00 02 00 12  ......\n"
	if got, err := Parse([]byte(one + one)); err != nil || hex.EncodeToString(got) != "000000020012000000020012" {
		t.Errorf("two dumps: %x, %v", got, err)
	}
	long := "00000000: 00 00 00 1c 00 00 00 00 00 00 00 02 01 02 00 00 00  .................\n00000010: 00 00  ..\n"
	if _, err := Parse([]byte(long)); err == nil || err.Error() != "line 1, column 11: this line holds 17 bytes, but its offset 00000000 and the next, 00000010, say 16" {
		t.Errorf("17 bytes: %v", err)
	}
}
