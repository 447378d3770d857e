package main

import (
	"strings"
	"testing"
)

// An internal topic's record key or value on disk begins with its int16
// prefix; show writes it, decode takes it (and checks --version against
// it), both as a frame of its own.
func TestInternalTopicRecords(t *testing.T) {
	// The smallest OffsetCommitValue v4: version 4, offset, leaderEpoch,
	// metadata (compact ""), commitTimestamp, no tagged fields.
	out := mustRun(t, "show", "OffsetCommitValue", "--version", "4", "--format", "json")
	if !strings.Contains(out, `"hex": "000400000000000000000000000001000000000000000000"`) || !strings.Contains(out, `"path": "Frame.version"`) {
		t.Errorf("show OffsetCommitValue --version 4:\n%s", out)
	}
	text := mustRun(t, "show", "OffsetCommitValue", "--version", "4")
	for _, want := range []string{"  Record type        1\n", "  Topic              __consumer_offsets\n", "  Size               24 bytes\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("show OffsetCommitValue --version 4 lacks %q:\n%s", want, text)
		}
	}

	// Kafka's bytes of a committed offset (v3): the prefix says the version.
	const v3 = "0003 0000000000000064 00000005 0000 0000018bcfe56800"
	text = mustRun(t, "decode", "--api", "OffsetCommitValue", "--hex", v3)
	for _, want := range []string{
		"+-- Frame                                                [0x0000, 2B]   coordinator record value prefix",
		"|   +-- version          int16       = 3                 [0x0000, 2B]",
		"    +-- offset           int64       = 100               [0x0002, 8B]",
		"    +-- commitTimestamp  int64       = 1700000000000     [0x0010, 8B]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("decode --api OffsetCommitValue lacks %q:\n%s", want, text)
		}
	}
	// encode writes the prefix: the same bytes from Kafka's JSON.
	r := kwireEnv(t, &env{stdin: strings.NewReader(`{"offset":100,"leaderEpoch":5,"metadata":"","commitTimestamp":1700000000000}`)}, "encode", "OffsetCommitValue", "-", "--version", "3", "--format", "json")
	if r.code != 0 || !strings.Contains(r.stdout, `"hex": "`+strings.ReplaceAll(v3, " ", "")+`"`) {
		t.Errorf("encode OffsetCommitValue --version 3: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := kwire(t, "decode", "--api", "OffsetCommitValue", "--version", "2", "--hex", v3); r.code != 1 || !strings.Contains(r.stderr, "the int16 prefix says OffsetCommitValue v3, not v2 as --version says") {
		t.Errorf("decode --version 2 of a v3 value: exit %d, %s", r.code, r.stderr)
	}
	if r := kwire(t, "decode", "--api", "OffsetCommitValue", "--hex", "0009 0000000000000064"); r.code != 1 || !strings.Contains(r.stderr, "version at 0x0000: OffsetCommitValue has no version 9 (valid versions 0-4)") {
		t.Errorf("decode of version 9: exit %d, %s", r.code, r.stderr)
	}
	// A key: record type 1 (OffsetCommitKey), group "g", topic "t", partition 3.
	text = mustRun(t, "decode", "--api", "OffsetCommitKey", "--hex", "0001 0001 67 0001 74 00000003")
	if !strings.Contains(text, "record_type  int16       = 1") || !strings.Contains(text, `group        string      = "g" (int16 len=1)`) {
		t.Errorf("decode --api OffsetCommitKey:\n%s", text)
	}
	if r := kwire(t, "decode", "--api", "OffsetCommitKey", "--hex", "0002 0000 0000 00000000"); r.code != 1 || !strings.Contains(r.stderr, "record_type at 0x0000: record type 2 is not OffsetCommitKey's (1)") {
		t.Errorf("decode of a GroupMetadataKey as OffsetCommitKey: exit %d, %s", r.code, r.stderr)
	}
	// 3.9.1's "data" key: its version is its record type.
	text = mustRun(t, "--kafka", "3.9.1", "show", "OffsetCommitKey", "--version", "0", "--format", "json")
	if !strings.Contains(text, `"hex": "00000000000000000000"`) {
		t.Errorf("3.9.1 show OffsetCommitKey --version 0:\n%s", text)
	}
	// A remote-log-metadata record: the metadata record frame, its api key
	// among __remote_log_metadata's records (KRaft's api key 2 is TopicRecord).
	text = mustRun(t, "decode", "--api", "RemotePartitionDeleteMetadataRecord", "--hex", "010200"+"01"+strings.Repeat("00", 16)+"00000000"+"00"+"00000000"+"0000000000000000"+"00"+"00")
	if !strings.Contains(text, "api_key                          uvarint                = 2 (RemotePartitionDeleteMetadataRecord)") || !strings.Contains(text, "metadata record frame of __remote_log_metadata") {
		t.Errorf("decode --api RemotePartitionDeleteMetadataRecord:\n%s", text)
	}
}
