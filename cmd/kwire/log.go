package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

type logCmd struct {
	Paths    []string `arg:"" help:"Log segments (*.log), KRaft snapshots (*.checkpoint) or directories holding them."`
	Type     string   `help:"Show only metadata records of this type (PartitionRecord)." placeholder:"NAME"`
	Offset   string   `help:"Show only records with offsets in A..B (inclusive; either end may be empty)." placeholder:"A..B"`
	Format   string   `help:"Output format: text, or json (one line per record)." enum:"text,json" default:"text"`
	Tree     bool     `help:"Print the full tree of each file instead of one line per batch and record."`
	Metadata bool     `help:"Decode data record values as KRaft metadata records (the default for __cluster_metadata and .checkpoint files)."`
	// MaxDecompressed bounds each compressed record payload (bytes).
	MaxDecompressed int64 `help:"Most bytes one compressed record batch may expand to." default:"268435456" placeholder:"BYTES"`
}

// offsetRange is an inclusive range of offsets.
type offsetRange struct{ lo, hi int64 }

func parseOffsetRange(s string) (offsetRange, error) {
	r := offsetRange{lo: -1 << 63, hi: 1<<63 - 1}
	if s == "" {
		return r, nil
	}
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		return r, usagef("--offset %q: want A..B", s)
	}
	var err error
	if a != "" {
		if r.lo, err = strconv.ParseInt(a, 10, 64); err != nil {
			return r, usagef("--offset %q: %q is not an offset", s, a)
		}
	}
	if b != "" {
		if r.hi, err = strconv.ParseInt(b, 10, 64); err != nil {
			return r, usagef("--offset %q: %q is not an offset", s, b)
		}
	}
	return r, nil
}

func (r offsetRange) has(o int64) bool { return o >= r.lo && o <= r.hi }

// logFiles expands the paths: a directory gives its *.log and *.checkpoint
// files, sorted.
func logFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, e := range ents {
			if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".log") || strings.HasSuffix(n, ".checkpoint")) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, filepath.Join(p, n))
		}
	}
	return out, nil
}

// isMetadataLog says whether a file holds KRaft metadata records.
func isMetadataLog(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return strings.HasSuffix(path, ".checkpoint") || strings.Contains(filepath.Dir(abs), "__cluster_metadata")
}

func (a *app) log(c *logCmd) error {
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	rng, err := parseOffsetRange(c.Offset)
	if err != nil {
		return err
	}
	if c.Type != "" {
		if m := set.Message(c.Type); m == nil || m.Type != spec.Metadata {
			return a.notLoaded(fmt.Errorf("--type %s: no metadata record type of that name in %s", c.Type, describe(set)))
		}
	}
	files, err := logFiles(c.Paths)
	if err != nil {
		return err
	}
	cd := codec.New(set)
	failed := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		o := cd.RecordsOptions()
		o.MaxDecompressed = c.MaxDecompressed
		o.Metadata = c.Metadata || isMetadataLog(f)
		o.Path = filepath.Base(f)
		t := records.Decode(data, o)
		if c.Tree {
			if err := render.WriteTree(a.stdout, t, render.Options{Color: a.color()}); err != nil {
				return err
			}
		} else if err := a.logRecords(cd, f, t, o.Metadata, c, rng); err != nil {
			return err
		}
		for _, p := range t.Problems {
			kind := "error"
			if p.Notice {
				kind = "notice"
			}
			fmt.Fprintf(a.stderr, "%s: %s: %s\n", f, kind, p)
		}
		failed += len(t.Errors())
	}
	if failed > 0 {
		return fmt.Errorf("%d problems in the records (above)", failed)
	}
	return nil
}

// logEntry is one JSON line of `kwire log --format json`.
type logEntry struct {
	File        string          `json:"file"`
	Offset      int64           `json:"offset"`
	BatchOffset int64           `json:"batch_offset"`
	Control     bool            `json:"control,omitempty"`
	Type        string          `json:"type,omitempty"`
	Version     *int16          `json:"version,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`
	Key         *string         `json:"key,omitempty"`
	KeyBase64   *string         `json:"key_base64,omitempty"`
	Value       *string         `json:"value,omitempty"`
	ValueBase64 *string         `json:"value_base64,omitempty"`
	Error       string          `json:"error,omitempty"`
}

// describeRecord decodes a record's value: a control record's message or
// a framed metadata record, as type, version and Kafka converter JSON.
// name is "" for a data record of another log.
func describeRecord(cd *codec.Codec, r records.LogRecord, control, metadata bool) (name string, version int16, data []byte, err error) {
	var m *spec.Message
	switch {
	case control:
		ct := r.ControlType()
		name = records.ControlTypeName(ct)
		if mn := records.ControlMessage(ct); mn != "" {
			m = cd.Set.Message(mn)
		}
		if m == nil || r.ValueNull {
			return name, 0, nil, nil
		}
	case metadata:
		if r.ValueNull {
			return "", 0, nil, errors.New("null value: not a metadata record")
		}
	default:
		return "", 0, nil, nil
	}
	vt, err := cd.DecodeRecord(r.Value, m, 0)
	if vt.Message != nil {
		name, version = vt.Message.Name, vt.Version
	}
	if err != nil {
		return name, version, nil, err
	}
	body := vt.Part(tree.Body)
	if body < 0 {
		body = 0
	}
	data, err = codec.ToJSON(nil, vt, body, vt.Message, vt.Version, codec.JSONOptions{})
	return name, version, data, err
}

func (a *app) logRecords(cd *codec.Codec, file string, t *tree.Tree, metadata bool, c *logCmd, rng offsetRange) error {
	var out bytes.Buffer
	for _, b := range records.LogBatches(t) {
		if c.Format == "text" && c.Type == "" {
			crc := "valid"
			if !b.CRCValid {
				crc = "INVALID"
			}
			kind := ""
			if b.Control {
				kind = "  control"
			}
			fmt.Fprintf(&out, "batch %d  records %d  attributes 0x%04x  epoch %d  magic %d  CRC %s%s\n", b.BaseOffset, b.Count, b.Attributes, b.LeaderEpoch, b.Magic, crc, kind)
		}
		for _, r := range b.Records {
			if !rng.has(r.Offset) {
				continue
			}
			name, ver, data, err := describeRecord(cd, r, b.Control, metadata)
			if c.Type != "" && (b.Control || !strings.EqualFold(name, c.Type)) {
				continue
			}
			if c.Format == "json" {
				e := logEntry{File: file, Offset: r.Offset, BatchOffset: b.BaseOffset, Control: b.Control, Type: name, Data: data}
				if name != "" {
					e.Version = &ver
				}
				if err != nil {
					e.Error = err.Error()
				}
				if data == nil && !b.Control {
					e.Key, e.KeyBase64 = textOrBase64(r.Key, r.KeyNull)
					e.Value, e.ValueBase64 = textOrBase64(r.Value, r.ValueNull)
				}
				line, jerr := json.Marshal(e)
				if jerr != nil {
					return jerr
				}
				out.Write(line)
				out.WriteByte('\n')
				continue
			}
			fmt.Fprintf(&out, "  offset %d  ", r.Offset)
			switch {
			case err != nil:
				fmt.Fprintf(&out, "%s: %v", name, err)
			case name != "" && data != nil:
				fmt.Fprintf(&out, "%s v%d %s", name, ver, data)
			case name != "":
				fmt.Fprintf(&out, "%s", name)
			default:
				fmt.Fprintf(&out, "key %s  value %s", showBytes(r.Key, r.KeyNull), showBytes(r.Value, r.ValueNull))
			}
			out.WriteByte('\n')
		}
	}
	_, err := a.stdout.Write(out.Bytes())
	return err
}

// textOrBase64 gives b as text when it is valid UTF-8, else as base64.
func textOrBase64(b []byte, null bool) (text, b64 *string) {
	if null {
		return nil, nil
	}
	if utf8.Valid(b) {
		s := string(b)
		return &s, nil
	}
	s := base64.StdEncoding.EncodeToString(b)
	return nil, &s
}

func showBytes(b []byte, null bool) string {
	if null {
		return "null"
	}
	if utf8.Valid(b) {
		return strconv.Quote(string(b))
	}
	return "0x" + fmt.Sprintf("%x", b)
}
