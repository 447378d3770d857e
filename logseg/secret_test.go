package logseg_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/logseg"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
)

// metadataValue is the framed metadata record of type name at version 0
// that js (converter JSON) describes.
func metadataValue(t *testing.T, set *spec.Set, name, js string) []byte {
	t.Helper()
	m := set.Message(name)
	v, err := codec.FromJSON([]byte(js), m, 0)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := codec.New(set).EncodeRecord(m, 0, v)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Bytes
}

// A metadata log's credentials are redacted by what its records hold,
// not by its path: the same segment read under __cluster_metadata-0, as
// a copy elsewhere and from standard input lists the same redacted
// records, and no secret's bytes appear in any encoding, in any --values
// mode, in text, JSON lines or the tree.
func TestMetadataRecordsRedactedWhateverThePath(t *testing.T) {
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	secrets := []string{"saltysalt-XYZ123", "SaltedPw-Stored-0123456789", "SaltedPw-Server-0123456789", "LeakPW-jaas", "LeakPW-trust"}
	scram := metadataValue(t, set, "UserScramCredentialRecord", `{"name":"alice","mechanism":2,"salt":"`+b64(secrets[0])+`","storedKey":"`+b64(secrets[1])+`","serverKey":"`+b64(secrets[2])+`","iterations":4096}`)
	jaas := metadataValue(t, set, "ConfigRecord", `{"resourceType":4,"resourceName":"1","name":"sasl.jaas.config","value":"ScramLoginModule required username=\"admin\" password=\"`+secrets[3]+`\";"}`)
	trust := metadataValue(t, set, "ConfigRecord", `{"resourceType":2,"resourceName":"t","name":"ssl.truststore.password","value":"`+secrets[4]+`"}`)
	seg := records.Batch{LeaderEpoch: 1, Records: []records.KeyValue{{Value: scram}, {Value: jaas}, {Value: trust}, {Value: []byte("plain")}}}.Bytes()
	dir := t.TempDir()
	inMeta := writeFile(t, dir, "__cluster_metadata-0/00000000000000000000.log", seg)
	copied := writeFile(t, dir, "copy/00000000000000000000.log", seg)

	wantText := `batch 0  records 4  attributes 0x0000  epoch 1  magic 2  CRC valid
  offset 0  CreateTime 0  UserScramCredentialRecord v0 {"name":"alice","mechanism":2,"salt":"<redacted, 16 bytes>","storedKey":"<redacted, 26 bytes>","serverKey":"<redacted, 26 bytes>","iterations":4096}
  offset 1  CreateTime 0  ConfigRecord v0 {"resourceType":4,"resourceName":"1","name":"sasl.jaas.config","value":"<redacted, 66 bytes>"}
  offset 2  CreateTime 0  ConfigRecord v0 {"resourceType":2,"resourceName":"t","name":"ssl.truststore.password","value":"<redacted, 12 bytes>"}
`
	// The encodings a secret could leak in.
	var leaks []string
	for _, s := range secrets {
		leaks = append(leaks, s, hex.EncodeToString([]byte(s)), strings.ToUpper(hex.EncodeToString([]byte(s))), b64(s)[:12])
	}
	check := func(what, out string) {
		t.Helper()
		for _, l := range leaks {
			if strings.Contains(out, l) {
				t.Errorf("%s: %q in\n%s", what, l, out)
			}
		}
	}
	for _, src := range []struct{ name, path string }{{"path", inMeta}, {"copy", copied}, {"stdin", "-"}} {
		for _, v := range []render.Values{render.ValuesAuto, render.ValuesUTF8, render.ValuesHex, render.ValuesBase64, render.ValuesJSON} {
			o := logseg.Options{Codec: codec.New(set), Stdin: bytes.NewReader(seg)}
			text, js := lines(t, src.path, o, v)
			// The metadata records are the same listing whatever the path;
			// the last value, not a metadata record, stays bytes (shown as
			// v says) and is no problem outside a metadata log.
			if !strings.HasPrefix(text, wantText) {
				t.Errorf("%s, --values %s:\n%s\nwant a start of\n%s", src.name, v, text, wantText)
			}
			check(src.name+" text --values "+v.String(), text)
			check(src.name+" json --values "+v.String(), js)
			if n := strings.Count(js, `"type":"ConfigRecord"`); n != 2 {
				t.Errorf("%s json: %d ConfigRecords, want 2:\n%s", src.name, n, js)
			}
			o.Stdin = bytes.NewReader(seg)
			tr, _, err := logseg.ReadWhole(src.path, o)
			if err != nil {
				t.Fatal(err)
			}
			var tb bytes.Buffer
			if err := render.WriteTree(&tb, tr, render.Options{Values: v}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(tb.String(), "<redacted, 26 bytes>") {
				t.Errorf("%s tree --values %s: no redaction:\n%s", src.name, v, tb.String())
			}
			// The batch's checksum is of its bytes as they were on disk,
			// not as redacted.
			if !strings.Contains(tb.String(), "CRC valid") || strings.Contains(tb.String(), "INVALID") {
				t.Errorf("%s tree --values %s: the redacted batch's CRC:\n%s", src.name, v, tb.String())
			}
			check(src.name+" tree --values "+v.String(), tb.String())
		}
	}
	// A batch that is corrupt as well: its tree shows the checksum
	// computed over the bytes as read, the one its problem says, not the
	// one of its redacted bytes.
	bad := bytes.Clone(seg)
	bad[30] ^= 1 // in the first record's header, not in a secret
	badPath := writeFile(t, dir, "bad/__cluster_metadata-0/00000000000000000000.log", bad)
	tr, sum, err := logseg.ReadWhole(badPath, logseg.Options{Codec: codec.New(set)})
	if err != nil || len(sum.Problems) == 0 {
		t.Fatalf("corrupt batch: %v %v", err, sum.Problems)
	}
	var tb bytes.Buffer
	if err := render.WriteTree(&tb, tr, render.Options{}); err != nil {
		t.Fatal(err)
	}
	computed := sum.Problems[0].Msg[strings.Index(sum.Problems[0].Msg, "stored, ")+len("stored, ") : strings.Index(sum.Problems[0].Msg, " computed")]
	if !strings.Contains(tb.String(), "CRC INVALID (computed "+computed+")") {
		t.Errorf("corrupt redacted batch: problem %q, tree\n%s", sum.Problems[0].Msg, tb.String())
	}
	// --show-secrets shows them, read from anywhere.
	o := logseg.Options{Codec: codec.New(set), ShowSecrets: true, Stdin: bytes.NewReader(seg)}
	if text, _ := lines(t, "-", o, render.ValuesAuto); !strings.Contains(text, `"value":"`+secrets[4]+`"`) || !strings.Contains(text, `"salt":"`+b64(secrets[0])+`"`) {
		t.Errorf("--show-secrets:\n%s", text)
	}
	if _, err := os.Stat(copied); err != nil {
		t.Fatal(err)
	}
}

// IsMetadataRecord takes only a value that decodes whole as a framed
// metadata record.
func TestIsMetadataRecord(t *testing.T) {
	set, err := spec.Embedded("")
	if err != nil {
		t.Fatal(err)
	}
	cd := codec.New(set)
	feature := []byte{0x01, 0x0c, 0x00, 0x11, 'm', 'e', 't', 'a', 'd', 'a', 't', 'a', '.', 'v', 'e', 'r', 's', 'i', 'o', 'n', 0x00, 0x14, 0x00}
	for _, c := range []struct {
		value []byte
		want  bool
	}{
		{feature, true},
		{append(append([]byte{}, feature...), 0), false}, // a byte past its end
		{feature[:len(feature)-1], false},                // cut short
		{append([]byte{0x02}, feature[1:]...), false},    // frame version 2
		{[]byte("plain"), false},
		{nil, false},
	} {
		if got := logseg.IsMetadataRecord(cd, c.value); got != c.want {
			t.Errorf("IsMetadataRecord(%x) = %v, want %v", c.value, got, c.want)
		}
	}
	if logseg.IsMetadataRecord(nil, feature) {
		t.Error("IsMetadataRecord without a codec = true")
	}
}
