package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/hexdump"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

func (a *app) decode(c *decodeCmd) error {
	b, err := readInput(c.Hex, c.File, a.stdin)
	if err != nil {
		return err
	}
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	p, err := decodePage(set, c.API, c.Version, c.Response, decodeOpts{Strict: c.Strict, MaxDecompressed: c.MaxDecompressed}, b)
	if p == nil {
		return a.notLoaded(err)
	}
	if err != nil && c.Hex == nil && looksLikeText(b) {
		err = fmt.Errorf("%w (the input is text but not hex: hex may hold only hex digits, white space, ':' and 0x prefixes)", err)
	}
	if werr := a.writePage(p, c.Format); werr != nil {
		return werr
	}
	if err == nil {
		err = a.recordProblems(p)
	}
	return err
}

// recordProblems prints what went wrong inside the records of the page
// (bad CRCs, counts that do not match, payloads that do not decompress) on
// standard error, and returns a finding when there is any: the page shows
// them too, the exit status says them.
func (a *app) recordProblems(p *render.Page) error {
	n := 0
	for _, side := range p.Sides {
		if side.Tree == nil {
			continue
		}
		for _, pr := range side.Tree.Errors() {
			fmt.Fprintf(a.stderr, "kwire: %s\n", pr)
			n++
		}
	}
	if n == 0 {
		return badCRC(p)
	}
	if n == 1 {
		return fmt.Errorf("1 problem in the records")
	}
	return fmt.Errorf("%d problems in the records", n)
}

// looksLikeText reports whether raw input is printable ASCII text (a hex
// dump with a typo, xxd output), which kwire then read as raw bytes.
func looksLikeText(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// badCRC returns a finding for the first record batch whose CRC does not
// match its bytes: the page shows it, and the exit status says it.
func badCRC(p *render.Page) error {
	for _, side := range p.Sides {
		t := side.Tree
		if t == nil {
			continue
		}
		for i := range t.Nodes {
			if n := &t.Nodes[i]; n.Kind == tree.RecordBatch && n.Flags&tree.FlagBadCRC != 0 {
				return fmt.Errorf("the RecordBatch at 0x%04x has a CRC-32C that does not match its bytes", n.Off)
			}
		}
	}
	return nil
}

// readInput returns the bytes to decode: --hex, or the file (raw, or hex
// text or a hex dump when it looks like one), or standard input for "-".
// No bytes at all is a finding.
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
			return nil, errors.New("no bytes to decode: --hex holds no hex digits")
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

// decodePage decodes b into the page of `kwire decode`:
//   - no api, not response: a framed request, its spec chosen by the api
//     key and version of its header; api and version, when given, must
//     match them;
//   - response: a framed response of API api at version (both required);
//   - api naming a metadata record type: a KRaft record value with its
//     frame (version, when given, must match the frame's);
//   - api naming a data or header type: the bare message at version
//     (required).
//
// A nil page comes with an error about the command line or the specs. A
// page with an error holds the partial tree decoded before the error.
// decodeOpts are decode's knobs: strict tag checks and the decompression
// bound of record batches.
type decodeOpts struct {
	Strict          bool
	MaxDecompressed int64
}

func decodePage(set *spec.Set, api string, version *int16, response bool, o decodeOpts, b []byte) (*render.Page, error) {
	var req, resp *spec.Message
	if api != "" {
		named, _, err := set.Lookup(api)
		if err != nil {
			return nil, err
		}
		// An API named by its response ("VoteResponse") means the bytes
		// are a response.
		response = response || named.Type == spec.Response
		req, resp, _ = resolve(set, api)
	}
	cd := codec.New(set)
	cd.Strict = o.Strict
	if o.MaxDecompressed != 0 {
		cd.Records.MaxDecompressed = o.MaxDecompressed
	}
	var (
		label = "Request"
		t     *tree.Tree
		err   error
	)
	switch {
	case response:
		if req != nil && !isAPI(req) && resp == nil {
			return nil, usagef("%s is a %s type, not an API: drop --response", req.Name, req.Type)
		}
		if api == "" || version == nil {
			missing := "--api NAME and --version N"
			if api != "" {
				missing = "--version N"
			}
			return nil, usagef("decoding a response needs %s: a response does not say what it answers", missing)
		}
		if resp == nil {
			return nil, fmt.Errorf("%s has no response spec in %s", api, describe(set))
		}
		if !resp.ValidVersions.Contains(*version) {
			return nil, fmt.Errorf("%s has no version %d in %s (valid versions: %s)%s", resp.Name, *version, describe(set), resp.ValidVersions, elsewhere(set, resp.Name, version))
		}
		label = "Response"
		t, err = cd.DecodeResponse(b, resp, *version)
	case api == "" || isAPI(req):
		t, err = cd.DecodeRequest(b)
		switch {
		case err == nil:
			err = checkRequest(t, req, version)
		case req != nil && len(b) >= 8:
			// The bytes did not decode as the request --api names: say what
			// their header claims, and that a response needs --response.
			key, ver, _ := frame.RequestAPI(b)
			if key != req.APIKey || (version != nil && ver != *version) {
				claims := fmt.Sprintf("api key %d", key)
				if m := set.Request(key); m != nil {
					claims = fmt.Sprintf("%s (api key %d)", m.Name, key)
				}
				err = fmt.Errorf("%w; bytes 4-7 read as a request header say %s v%d, not %s: if these bytes are a response, add --response", err, claims, ver, req.Name)
			}
		}
		var ve *codec.VersionError
		var we *wire.Error
		if t != nil && t.Message != nil && (req == nil || t.Message == req) && errors.As(err, &we) && strings.Contains(we.Msg, "has no version") && !errors.As(err, &ve) {
			err = fmt.Errorf("%w%s", err, elsewhere(set, t.Message.Name, &t.Version))
		}
	case req.Type == spec.Metadata:
		label = "Record"
		// Let the frame's api key choose the type, then compare: a record
		// of another type is still shown whole.
		t, err = cd.DecodeRecord(b, nil, 0)
		switch {
		case err != nil:
		case t.Message != req:
			err = fmt.Errorf("the record frame says %s (api key %d), not %s (api key %d) as --api says", t.Message.Name, t.Message.APIKey, req.Name, req.APIKey)
		case version != nil && t.Version != *version:
			err = fmt.Errorf("the record frame says %s v%d, not v%d as --version says", req.Name, t.Version, *version)
		}
	default:
		if version == nil {
			return nil, usagef("decoding %s needs --version N: a %s type's bytes do not say their version", req.Name, req.Type)
		}
		if !req.ValidVersions.Contains(*version) {
			return nil, fmt.Errorf("%s has no version %d in %s (valid versions: %s)%s", req.Name, *version, describe(set), req.ValidVersions, elsewhere(set, req.Name, version))
		}
		label = "Record"
		t, err = cd.DecodeRecord(b, req, *version)
	}
	return &render.Page{Set: set, Sides: []render.Side{{Label: label, Tree: t, Err: err}}}, err
}

// checkRequest checks a decoded request against --api and --version.
func checkRequest(t *tree.Tree, want *spec.Message, version *int16) error {
	if want != nil && t.Message != want {
		return fmt.Errorf("the request header says %s (api key %d), not %s (api key %d) as --api says", t.Message.Name, t.Message.APIKey, want.Name, want.APIKey)
	}
	if version != nil && t.Version != *version {
		return fmt.Errorf("the request header says %s v%d, not v%d as --version says", t.Message.Name, t.Version, *version)
	}
	return nil
}
