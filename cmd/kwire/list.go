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

// writeListText prints rows as an aligned table.
func writeListText(w io.Writer, rows []spec.ListRow, color bool) error {
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
func writeListJSON(w io.Writer, rows []spec.ListRow) error {
	if rows == nil {
		rows = []spec.ListRow{}
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
	rows := set.ListRows()
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
