package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kwire/kwire/capture"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/hexdump"
	"github.com/kwire/kwire/internal/hint"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/report"
)

func (a *app) decode(c *decodeCmd) error {
	if c.MaxDecompressed <= 0 {
		return usagef("--max-decompressed %d: must be positive", c.MaxDecompressed)
	}
	if c.MaxNodes <= 0 {
		return usagef("--max-nodes %d: must be positive", c.MaxNodes)
	}
	b, err := readInput(c.Hex, c.File, a.stdin)
	if err != nil {
		return err
	}
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	whole := b
	if p := capture.Headers(b); p != nil {
		fmt.Fprintf(a.stderr, "kwire: note: a whole packet: %s; decoding the payload (offsets count from its start)\n", p)
		b = p.Payload
	}
	claim := render.Claim{API: c.API, Version: c.Version, Response: c.Response, Strict: c.Strict, MaxDecompressed: c.MaxDecompressed, MaxNodes: c.MaxNodes}
	pages, err := render.Decode(set, claim, b)
	if render.HintOnly(pages, err) {
		// One frame whose header is no request's: the page would show it
		// as a request it is not; the hint says what to give.
		pages = nil
	}
	if f := frame.RecognizeFile(whole); err != nil && c.Hex == nil && f != frame.UnknownFile {
		// Another command's file: say which, not why it is no frame.
		return errors.New(f.Hint(c.File, "Kafka frames"))
	}
	err = hint.Decode(set, err)
	if pages == nil {
		return a.notLoaded(err)
	}
	if err != nil && c.Hex == nil && hexdump.IsText(b) {
		err = fmt.Errorf("%w (the input is text but not hex: hex may hold only hex digits, white space, ':', ',' and 0x prefixes, or be a hex dump with offsets)", err)
	}
	for k, p := range pages {
		if k > 0 && c.Format == "text" {
			fmt.Fprintln(a.stdout)
		}
		for i := range p.Sides {
			p.Sides[i].Err = hint.Decode(set, p.Sides[i].Err)
			if c.Format == "text" {
				// The error is printed once, on standard error below the
				// page, as every command's error is.
				p.Sides[i].Err = nil
			}
			if note := p.Sides[i].Note; note != "" && c.Format == "kafka" {
				fmt.Fprintf(a.stderr, "kwire: note: %s\n", note)
			}
		}
		if c.Format == "json" && len(pages) > 1 {
			// Several frames: JSON lines, one compact page per line.
			if werr := a.writePageLine(p); werr != nil {
				return werr
			}
			continue
		}
		if werr := a.writePage(p, c.Format); werr != nil {
			return werr
		}
	}
	// Every page's problems are printed and counted, not only the first
	// page's that has any.
	n := 0
	var crc error
	for _, p := range pages {
		if err != nil {
			break // the error says what is wrong
		}
		k, bad := a.recordProblems(p)
		n += k
		if crc == nil {
			crc = bad
		}
	}
	switch {
	case err != nil:
		return err
	case n == 1:
		return fmt.Errorf("1 problem in the records")
	case n > 1:
		return fmt.Errorf("%d problems in the records", n)
	}
	return crc
}

// writePageLine prints the page JSON of p (as writePage) compacted on
// one line: a line of JSON lines.
func (a *app) writePageLine(p *render.Page) error {
	// Streamed, not held: ten frames of header bombs held 1 GiB of JSON.
	if err := report.WriteCompact(a.stdout, func(w io.Writer) error { return render.WritePageJSON(w, p, a.renderOptions()) }); err != nil {
		return err
	}
	_, err := io.WriteString(a.stdout, "\n")
	return err
}

// recordProblems prints what went wrong inside the records of the page
// on standard error (the page shows them too; the exit status says them):
// how many, and the page's bad CRC when it has none.
func (a *app) recordProblems(p *render.Page) (int, error) {
	probs := p.RecordErrors()
	for _, pr := range probs {
		fmt.Fprintf(a.stderr, "kwire: %s\n", pr)
	}
	if len(probs) == 0 {
		return 0, p.BadCRC()
	}
	return len(probs), nil
}

// readInput returns the bytes to decode: --hex, or the file (raw, or hex
// text or a hex dump when it looks like one), or standard input for "-".
// --hex that is not hex or holds no bytes, or no input named, is a usage
// error; a file that holds no bytes or bad hex is a finding.
func readInput(hexFlag *string, file string, stdin io.Reader) ([]byte, error) {
	switch {
	case hexFlag != nil && file != "":
		return nil, usagef("give the bytes once: --hex or a file, not both")
	case hexFlag != nil:
		b, err := hexdump.Parse([]byte(*hexFlag))
		if err != nil {
			return nil, usagef("--hex: %v", err)
		}
		if len(b) == 0 {
			return nil, usagef("no bytes to decode: --hex holds no hex digits")
		}
		return b, nil
	case file == "":
		return nil, usagef("no bytes to decode: give --hex HEX, a file, or - for standard input")
	}
	var raw []byte
	var err error
	if file == "-" {
		raw, err = io.ReadAll(stdin)
		file = "standard input"
	} else {
		raw, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, err
	}
	b, text, err := hexdump.Contents(raw)
	var se *hexdump.SyntaxError
	switch {
	case errors.As(err, &se):
		return nil, fmt.Errorf("%s:%d:%d: %s (read as hex text: it looks like hex)", file, se.Line, se.Col, se.Msg)
	case len(raw) == 0:
		return nil, fmt.Errorf("no bytes to decode: %s is empty", file)
	case len(b) == 0 || !text && len(bytes.TrimSpace(raw)) == 0:
		return nil, fmt.Errorf("no bytes to decode: %s holds no hex digits", file)
	}
	return b, nil
}
