package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// What `kwire log --format json` shows as an internal topic record's
// key_data and data, given to `kwire encode` at key_version and version,
// is the record's key and value: the bytes `kwire log` shows for a copy
// of the segment that is not in an internal topic's directory. Kafka
// 4.4.0's segments (docs/examples), whose consumer group's members'
// subscriptions and assignments, and transaction states, are shown
// decoded.
func TestLogJSONEncodesBack(t *testing.T) {
	raw := regexp.MustCompile(`(?m)^  offset (\d+)  CreateTime \d+  key 0x([0-9a-f]+)  value (?:0x([0-9a-f]+)|null)$`)
	for _, c := range []struct {
		dir             string
		records, nested int
	}{
		{"__consumer_offsets-21", 5, 1},
		{"__consumer_offsets-26", 17, 1},
		{"__transaction_state-22", 7, 0},
		{"__share_group_state-47", 2, 0},
	} {
		seg := filepath.Join("..", "..", "docs", "examples", c.dir, "00000000000000000000.log")
		data, err := os.ReadFile(seg)
		if err != nil {
			t.Fatal(err)
		}
		plain := filepath.Join(t.TempDir(), "00000000000000000000.log")
		if err := os.WriteFile(plain, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := map[int64][2]string{}
		for _, m := range raw.FindAllStringSubmatch(mustRun(t, "log", plain), -1) {
			o, _ := strconv.ParseInt(m[1], 10, 64)
			want[o] = [2]string{m[2], m[3]}
		}
		n, nested := 0, 0
		for _, l := range strings.Split(strings.TrimSpace(mustRun(t, "log", "--format", "json", seg)), "\n") {
			var r struct {
				Offset     int64
				Control    bool
				KeyType    string          `json:"key_type"`
				KeyVersion int             `json:"key_version"`
				KeyData    json.RawMessage `json:"key_data"`
				Type       string
				Version    int
				Data       json.RawMessage
				Tombstone  bool
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			if r.Control {
				continue
			}
			w, ok := want[r.Offset]
			if !ok {
				t.Fatalf("%s offset %d: no bytes in the copy's listing", c.dir, r.Offset)
			}
			encode := func(name string, v int, js []byte) string {
				res := kwireIn(t, string(js), "encode", name, "--version", strconv.Itoa(v), "-")
				if res.code != 0 || res.stderr != "" {
					t.Errorf("%s offset %d: encode %s v%d %s: exit %d: %s", c.dir, r.Offset, name, v, js, res.code, res.stderr)
				}
				return strings.TrimSpace(res.stdout)
			}
			if got := encode(r.KeyType, r.KeyVersion, r.KeyData); got != w[0] {
				t.Errorf("%s offset %d key: %s, the record's %s", c.dir, r.Offset, got, w[0])
			}
			if !r.Tombstone {
				if got := encode(r.Type, r.Version, r.Data); got != w[1] {
					t.Errorf("%s offset %d value: %s, the record's %s", c.dir, r.Offset, got, w[1])
				}
			} else if w[1] != "" {
				t.Errorf("%s offset %d: a tombstone, the record's value %s", c.dir, r.Offset, w[1])
			}
			if strings.Contains(string(r.Data), `"assignment":{"version":0,"data":{"assignedPartitions":`) {
				nested++
			}
			n++
		}
		if n != c.records || nested != c.nested {
			t.Errorf("%s: %d records, %d with a decoded assignment; want %d, %d", c.dir, n, nested, c.records, c.nested)
		}
	}
}
