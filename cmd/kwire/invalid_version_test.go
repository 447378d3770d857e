package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/records"
)

// A coordinator record value whose int16 prefix names a version the spec
// lacks: every view of decode says the prefix's version and that it is
// not valid, and leaves the body undecoded.
func TestDecodeInvalidValueVersion(t *testing.T) {
	const hex = "0009000000000000000500000000"
	const stderr = "kwire: version at 0x0000: OffsetCommitValue has no version 9 (valid versions 0-4)\n"
	r := kwire(t, "decode", "--api", "OffsetCommitValue", "--hex", hex)
	want := `OffsetCommitValue

  Type               coordinator-value
  Record type        1
  Topic              __consumer_offsets
  Encoded at         v9 (its prefix; not a valid version)
  Valid versions     0-4
  Flexible versions  4+
  Size               14 bytes

Record

OffsetCommitValue v9 (not a valid version), coordinator-value message, 14 bytes

byte layout (14 bytes, 16 bytes per row)

       0  1  2  3  4  5  6  7  8  9  A  B  C  D  E  F
0000  00 09 00 00 00 00 00 00 00 05 00 00 00 00        ..............

object tree

OffsetCommitValue  message v9 (not a valid version)                                [0x0000, 14B]
+-- Frame                                                                          [0x0000, 2B]   coordinator record value prefix
|   +-- version    int16                             = 9                           [0x0000, 2B]   version of the coordinator record value (its int16 prefix)
+-- undecoded      raw                               = 0x000000000000000500000000  [0x0002, 12B]  bytes not decoded because of the error below
`
	if r.code != 1 || r.stdout != want || r.stderr != stderr {
		t.Errorf("decode: exit %d\n%s\nwant:\n%s%s", r.code, r.stdout, want, r.stderr)
	}
	r = kwire(t, "decode", "--api", "OffsetCommitValue", "--format", "json", "--hex", hex)
	var page struct {
		Version int
		Record  struct {
			Version int
			Error   string
			Tree    struct {
				Type     string
				Children []struct {
					Name string
					Type string
					Size int
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &page); err != nil {
		t.Fatalf("decode --format json: %v\n%s", err, r.stdout)
	}
	if r.code != 1 || r.stderr != stderr || page.Version != 9 || page.Record.Version != 9 ||
		page.Record.Tree.Type != "message v9 (not a valid version)" ||
		page.Record.Error != "version at 0x0000: OffsetCommitValue has no version 9 (valid versions 0-4)" ||
		len(page.Record.Tree.Children) != 2 || page.Record.Tree.Children[1].Name != "undecoded" || page.Record.Tree.Children[1].Size != 12 {
		t.Errorf("decode --format json: exit %d, %+v\n%s", r.code, page, r.stderr)
	}
}

// kwire log on such a record: the line shows the value's bytes and why,
// the tree the prefix's version flagged, the JSON line no version.
func TestLogInvalidValueVersion(t *testing.T) {
	key := metadataValue(t, "OffsetCommitKey", 0, `{"group":"g","topic":"t","partition":0}`)
	seg := records.Batch{Timestamp: 1700000000000, Records: []records.KeyValue{{Key: key, Value: []byte{0, 9, 0, 0, 0, 0, 0, 0, 0, 5}}}}.Bytes()
	d := filepath.Join(t.TempDir(), "__consumer_offsets-0")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(d, "00000000000000000000.log")
	if err := os.WriteFile(f, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	const why = "OffsetCommitValue.version at 0x004f: OffsetCommitValue has no version 9 (valid versions 0-4)"
	stderr := f + ": error: 00000000000000000000.log[0].Record[0].value." + why + "\nkwire: 1 problem in the records (above)\n"
	r := kwire(t, "log", f)
	want := `batch 0  records 1  attributes 0x0000  epoch 0  magic 2  CRC valid
  offset 0  CreateTime 1700000000000  OffsetCommitKey {"group":"g","topic":"t","partition":0}  OffsetCommitValue: ` + why + `  value 0x00090000000000000005
`
	if r.code != 1 || r.stdout != want || r.stderr != stderr {
		t.Errorf("log: exit %d\n%s\nwant:\n%s%s", r.code, r.stdout, want, r.stderr)
	}
	r = kwire(t, "log", "--tree", f)
	// The value's rows, up to the record's headers, spaces squeezed.
	var value []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.Contains(l, "+-- headersCount ") {
			break
		}
		if strings.Contains(l, "+-- value ") || value != nil {
			value = append(value, strings.Join(strings.Fields(l), " "))
		}
	}
	wantTree := []string{
		"+-- value varbytes = 0x00090000000000000005 (varint len=10) [0x004e, 11B]",
		"| +-- length varint = 10 [0x004e, 1B] bytes of the value that follow (zig-zag varint)",
		"| +-- OffsetCommitValue coordinator value v9 (not a valid version) [0x004f, 10B] internal topic's record value, version 9",
		"| +-- Frame [0x004f, 2B] coordinator record value prefix",
		"| | +-- version int16 = 9 [0x004f, 2B] version of the coordinator record value (its int16 prefix)",
		"| +-- undecoded raw = 0x0000000000000005 [0x0051, 8B] bytes not decoded because of the error below",
	}
	if r.code != 1 || strings.Join(value, "\n") != strings.Join(wantTree, "\n") || r.stderr != stderr {
		t.Errorf("log --tree: exit %d, the value:\n%s\nwant:\n%s\n%s", r.code, strings.Join(value, "\n"), strings.Join(wantTree, "\n"), r.stderr)
	}
	r = kwire(t, "log", "--format", "json", f)
	wantJSON := `{"file":` + jsonString(f) + `,"offset":0,"batch_offset":0,"timestamp_type":"CreateTime","timestamp":1700000000000,"record_type":1,"key_type":"OffsetCommitKey","key_version":0,"key_data":{"group":"g","topic":"t","partition":0},"type":"OffsetCommitValue","value_base64":"AAkAAAAAAAAABQ==","error":"` + why + `"}`
	if lines := strings.Split(r.stdout, "\n"); r.code != 1 || lines[0] != wantJSON {
		t.Errorf("log --format json: exit %d\n%s\nwant:\n%s", r.code, r.stdout, wantJSON)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
