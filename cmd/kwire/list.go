package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kwire/kwire/spec"
)

// listRow is one line of `kwire list`: an API (its request and response as
// one row) or one header, record or data type.
type listRow struct {
	// APIKey is nil (JSON null) for types without one (headers, data
	// messages): the key is always present, as in show's JSON.
	APIKey           *int16   `json:"api_key"`
	Name             string   `json:"name"`
	Type             string   `json:"type"`
	ValidVersions    string   `json:"valid_versions"`
	FlexibleVersions string   `json:"flexible_versions"`
	Listeners        []string `json:"listeners"`
	// Topic is the internal topic whose records the message defines
	// ("__consumer_offsets"); RecordTypes the record types of a
	// coordinator record key or value ("0-1"). Both are left out for
	// other messages.
	Topic       string `json:"topic,omitempty"`
	RecordTypes string `json:"record_types,omitempty"`
}

// listRows returns the rows of set in the order of Set.Messages: APIs by
// api key, then headers, metadata records and data messages. An API is one
// row named without its Request suffix and described by its request spec;
// a response without a request spec (in a draft) gets a row of its own.
func listRows(set *spec.Set) []listRow {
	var rows []listRow
	for _, m := range set.Messages {
		r := listRow{
			Name:             m.Name,
			Type:             string(m.Type),
			ValidVersions:    m.ValidVersions.String(),
			FlexibleVersions: m.FlexibleVersions.String(),
			Listeners:        append([]string{}, m.Listeners...),
		}
		switch m.Type {
		case spec.Request:
			r.Name, r.Type = m.BaseName(), "api"
		case spec.Response:
			if m.APIKey >= 0 && set.Request(m.APIKey) != nil {
				continue
			}
		}
		if m.APIKey >= 0 {
			k := m.APIKey
			r.APIKey = &k
		}
		r.Topic = m.Topic.TopicName()
		if m.VersionPrefixed() && !m.RecordTypes.Empty() {
			r.RecordTypes = m.RecordTypes.String()
		}
		rows = append(rows, r)
	}
	return rows
}

// writeListText prints rows as an aligned table.
func writeListText(w io.Writer, rows []listRow, color bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "KEY\tNAME\tTYPE\tVALID\tFLEXIBLE\tLISTENERS"
	if color {
		// Bold each cell on its own, so that tabwriter still aligns the
		// columns (every cell gets the same escape bytes).
		head = bold + strings.ReplaceAll(head, "\t", reset+"\t"+bold) + reset
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		key := ""
		switch {
		case r.RecordTypes != "":
			// A coordinator record's key is its record type (3.9's
			// "data" records have no api key: their versions are
			// their record types).
			key = r.RecordTypes
		case r.APIKey != nil:
			key = strconv.Itoa(int(*r.APIKey))
		}
		listeners := strings.Join(r.Listeners, ",")
		if listeners == "" {
			listeners = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", key, r.Name, r.Type, r.ValidVersions, r.FlexibleVersions, listeners)
	}
	return tw.Flush()
}

// writeListJSON prints rows as a JSON array.
func writeListJSON(w io.Writer, rows []listRow) error {
	if rows == nil {
		rows = []listRow{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

const (
	bold  = "\x1b[1m"
	reset = "\x1b[0m"
)

func (a *app) list(c *listCmd) error {
	set, err := a.loadSet()
	if err != nil {
		return err
	}
	rows := listRows(set)
	if c.Format == "json" {
		err = writeListJSON(a.stdout, rows)
	} else {
		err = writeListText(a.stdout, rows, a.color())
	}
	if err != nil {
		return err
	}
	// The files' own problems (text around the objects, several objects
	// in one file) are printed above but keep nothing from loading: only
	// objects that did not load make the list incomplete.
	if n := len(set.Unloaded); n > 0 {
		what := "spec objects"
		if n == 1 {
			what = "spec object"
		}
		return fmt.Errorf("%d %s did not load (errors above): the list lacks their messages", n, what)
	}
	return nil
}
