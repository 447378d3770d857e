package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/internal/hint"
	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

func (a *app) encode(c *encodeCmd) error {
	if c.Raw && c.Format != "hex" {
		return usagef("--raw writes the bytes themselves: it does not go with --format %s", c.Format)
	}
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	m, err := encodeTarget(set, c.Name, c.Request, c.Response)
	if err != nil {
		return a.notLoaded(err)
	}
	if c.Version == nil {
		return usagef("encoding %s needs --version N: the JSON does not say its version (valid versions: %s)", m.Name, m.ValidVersions)
	}
	v, err := hint.PickVersion(set, m, c.Version)
	if err != nil {
		return err
	}
	var header *tree.Tree
	if c.HeaderJSON != nil {
		if header, err = headerFromJSON(set, m, v, *c.HeaderJSON); err != nil {
			return err
		}
	}
	name, data, err := readJSON(c.File, a.stdin)
	if err != nil {
		return err
	}
	cd := codec.New(set)
	// The records given are decoded back into the tree shown within
	// decode's bounds: their bytes are written as given, whatever they
	// decompress to (eight zstd batches of 250 MiB in a 659 KB JSON took
	// encode 2 GiB).
	cd.Records.ShowWhole(records.DefaultMaxView, records.DefaultMaxNodes)
	body, dropped, err := logseg.FromJSON(cd, data, m, v)
	if err != nil {
		return fmt.Errorf("%w%s", jsonInputError(err, name, data), hint.MissingField(m, v, err))
	}
	for _, path := range dropped {
		fmt.Fprintf(a.stderr, "kwire: warning: %s: %s v%d has no such field; it is ignorable, so it is left out, as Kafka does\n", path, m.Name, v)
	}
	var t *tree.Tree
	label := "Record"
	if render.IsAPI(m) {
		label = sideLabel(m)
		t, err = cd.Encode(m, v, header, body)
	} else {
		t, err = cd.EncodeRecord(m, v, body)
	}
	if err != nil {
		return fmt.Errorf("encoding %s v%d: %w", m.Name, v, err)
	}
	if e := badRecords(t); e != "" {
		fmt.Fprintf(a.stderr, "kwire: warning: %s (written as given; Kafka's converter does not check records either)\n", e)
	} else if errs := t.Errors(); len(errs) > 0 && !c.Raw && c.Format != "hex" {
		// What the view of the records leaves out (a bound, a bomb).
		for _, p := range errs {
			fmt.Fprintf(a.stderr, "kwire: warning: %s (the records are written as given)\n", p)
		}
	}
	switch {
	case c.Raw:
		_, err = a.stdout.Write(t.Bytes)
		return err
	case c.Format == "hex":
		// Streamed: a 53 MB message as one hex string took 586 MB.
		if _, err = hex.NewEncoder(a.stdout).Write(t.Bytes); err == nil {
			_, err = io.WriteString(a.stdout, "\n")
		}
		return err
	}
	return a.writePage(&render.Page{Set: set, Sides: []render.Side{{Label: label, Tree: t}}}, c.Format)
}

// encodeTarget returns the message `kwire encode` writes: an API's request
// (the default) or response (--response, or a name like VoteResponse), or
// a record or data type.
func encodeTarget(set *spec.Set, name string, request, response bool) (*spec.Message, error) {
	named, _, err := set.Lookup(name)
	if err != nil {
		return nil, err
	}
	req, resp, _ := render.Resolve(set, name)
	if !render.IsAPI(req) && !render.IsAPI(resp) {
		if request || response {
			flag := map[bool]string{true: "--request", false: "--response"}[request]
			return nil, usagef("%s is a %s type, not an API: it has no request or response side (drop %s)", req.Name, req.Type, flag)
		}
		return req, nil
	}
	if named.Type == spec.Response && request {
		return nil, usagef("%s names the response: drop --request, or name the API (%s)", named.Name, named.BaseName())
	}
	if named.Type == spec.Response || response {
		if resp == nil {
			return nil, fmt.Errorf("%s has no response spec in %s", name, render.SetName(set))
		}
		return resp, nil
	}
	if req == nil {
		return nil, fmt.Errorf("%s has no request spec in %s", name, render.SetName(set))
	}
	return req, nil
}

// headerFromJSON reads --header-json as the header of m at version v: a
// RequestHeader (whose api key and version must be m's and v) or a
// ResponseHeader, at the header version Kafka uses for m at v. JSON that
// does not parse is a malformed flag value (usage); JSON that does not fit
// is a finding, as with the body.
func headerFromJSON(set *spec.Set, m *spec.Message, v int16, text string) (*tree.Tree, error) {
	if !render.IsAPI(m) {
		return nil, usagef("--header-json: %s is a %s type, not an API: it is written without a header", m.Name, m.Type)
	}
	var hs *spec.Message
	var hv int16
	if m.Type == spec.Request {
		hs, hv = set.RequestHeader(), frame.RequestHeaderVersion(m, v)
	} else {
		hs, hv = set.ResponseHeader(), frame.ResponseHeaderVersion(m, v)
	}
	if hs == nil {
		return nil, fmt.Errorf("--header-json: the specs have no %sHeader.json", sideLabel(m))
	}
	h, err := codec.FromJSON([]byte(text), hs, hv)
	if err != nil {
		err = fmt.Errorf("--header-json (%s v%d): %w", hs.Name, hv, err)
		if !json.Valid([]byte(text)) {
			return nil, usageError{Err: err}
		}
		return nil, err
	}
	if m.Type != spec.Request {
		return h, nil
	}
	for _, f := range hs.Root.Fields {
		var want int64
		var what string
		switch f.Name {
		case "RequestApiKey":
			want, what = int64(m.APIKey), fmt.Sprintf("%s has api key %d", m.Name, m.APIKey)
		case "RequestApiVersion":
			want, what = int64(v), fmt.Sprintf("--version is %d", v)
		default:
			continue
		}
		if i := h.Lookup(0, f); i >= 0 && h.Num(i) != want {
			return nil, fmt.Errorf("--header-json (%s v%d): $.%s: %d, but %s", hs.Name, hv, lowerFirst(f.Name), h.Num(i), what)
		}
	}
	return h, nil
}

// sideLabel is "Request" or "Response", by m's type.
func sideLabel(m *spec.Message) string {
	if m.Type == spec.Response {
		return "Response"
	}
	return "Request"
}

// lowerFirst is a spec name's JSON key: "RequestApiKey" -> "requestApiKey".
func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}

// readJSON reads the JSON to encode from file, or standard input for "-",
// and returns the name to cite in errors with it.
func readJSON(file string, stdin io.Reader) (string, []byte, error) {
	if file == "-" {
		b, err := io.ReadAll(stdin)
		return "stdin", b, err
	}
	b, err := os.ReadFile(file)
	return file, b, err
}

// jsonInputError adds to a *codec.JSONError where in the input it is, as
// file:line:col after the path and message ("$.topics[0].topicName:
// expected a string, got the number 1 (at body.json:1:42)").
func jsonInputError(err error, name string, data []byte) error {
	var je *codec.JSONError
	if !errors.As(err, &je) || je.Offset < 0 || je.Offset > len(data) {
		return err
	}
	before := data[:je.Offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := je.Offset - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Errorf("%w (at %s:%d:%d)", err, name, line, col)
}

// badRecords describes the first records field of t whose bytes are not
// whole record batches with valid CRCs, or "".
func badRecords(t *tree.Tree) string {
	for i := range t.Nodes {
		n := &t.Nodes[i]
		switch {
		case n.Kind() == tree.RecordBatch && n.Flags()&tree.FlagBadCRC != 0:
			return fmt.Sprintf("the record batch at 0x%04x has a CRC-32C that does not match its bytes", n.Off)
		case n.Kind() == tree.Raw && (t.Name(int32(i)) == "partial batch" || t.Name(int32(i)) == "skipped" || t.Name(int32(i)) == "zero bytes"):
			return fmt.Sprintf("the records at 0x%04x are not whole record batches", n.Off)
		}
	}
	return ""
}
