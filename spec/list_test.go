package spec_test

import (
	"reflect"
	"testing"

	"github.com/kwire/kwire/spec"
)

func TestListRows(t *testing.T) {
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	key := func(k int16) *int16 { return &k }
	want := map[string]spec.ListRow{
		"Fetch":           {APIKey: key(1), Name: "Fetch", Type: "api", ValidVersions: "4-18", FlexibleVersions: "12+", Listeners: []string{"broker", "controller"}},
		"RequestHeader":   {Name: "RequestHeader", Type: "header", ValidVersions: "1-2", FlexibleVersions: "2+", Listeners: []string{}},
		"PartitionRecord": {APIKey: key(3), Name: "PartitionRecord", Type: "metadata", ValidVersions: "0-2", FlexibleVersions: "0+", Listeners: []string{}},
		"OffsetCommitKey": {APIKey: key(1), Name: "OffsetCommitKey", Type: "coordinator-key", ValidVersions: "0", FlexibleVersions: "none", Listeners: []string{}, Topic: "__consumer_offsets", RecordTypes: "1"},
	}
	rows := set.ListRows()
	if len(rows) != 191 {
		t.Errorf("%d rows, want 191", len(rows))
	}
	for _, r := range rows {
		if r.Name == "FetchResponse" || r.Name == "FetchRequest" {
			t.Errorf("row %s: an API is one row named Fetch", r.Name)
		}
		if w, ok := want[r.Name]; ok {
			if !reflect.DeepEqual(r, w) {
				t.Errorf("row %s: %+v, want %+v", r.Name, r, w)
			}
			delete(want, r.Name)
		}
	}
	for name := range want {
		t.Errorf("no row %s", name)
	}
}
