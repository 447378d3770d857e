package secret_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/tree"
)

// A secret inside a compressed batch is redacted in the decompressed view
// and in the compressed payload it came from, whole: a zstd payload of a
// few records holds them as they are (a literal), and any payload gives
// them back decompressed (an outside review found a UserScramCredentialRecord's
// salt in the frame's hex). A compressed batch without a secret is left
// alone.
func TestSecretInCompressedPayload(t *testing.T) {
	scram := encode(t, "UserScramCredentialRecord", 0, `{"name":"alice","mechanism":2,"salt":"`+b64("SALT-BYTES")+`","storedKey":"`+b64("STORED-KEY")+`","serverKey":"`+b64("SERVER-KEY")+`","iterations":4096}`).Bytes
	plain := encode(t, "ConfigRecord", 0, `{"resourceType":2,"resourceName":"t","name":"retention.ms","value":"1000"}`).Bytes
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	zbatch := func(base int64, values ...[]byte) []byte {
		kv := make([]records.KeyValue, len(values))
		for i, v := range values {
			kv[i] = records.KeyValue{Value: v}
		}
		b := records.Batch{Records: kv}.Bytes()
		return records.RawBatch{BaseOffset: base, Attributes: 4, LastOffsetDelta: int32(len(kv) - 1), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
			Count: int32(len(kv)), Records: enc.EncodeAll(b[61:], nil)}.Bytes()
	}
	withSecret, without := zbatch(0, plain, scram), zbatch(2, plain)
	if !bytes.Contains(withSecret, []byte("SALT-BYTES")) {
		t.Fatal("the zstd payload does not hold the salt as it is: the test shows nothing")
	}
	data := append(append([]byte(nil), withSecret...), without...)
	cd := codec.New(set)
	o := cd.RecordsOptions()
	o.Metadata = true
	tr := records.Decode(data, o)
	if len(tr.Problems) != 0 {
		t.Fatal(tr.Problems)
	}
	n := secret.Redact(tr, secret.Options{})
	got := marked(tr)
	want := []string{"records[0].compressed records = <redacted, ", "UserScramCredentialRecord.Salt = <redacted, 10 bytes>",
		"UserScramCredentialRecord.StoredKey = <redacted, 10 bytes>", "UserScramCredentialRecord.ServerKey = <redacted, 10 bytes>"}
	if n != 4 || len(got) != 4 {
		t.Fatalf("%d marked:\n%s", n, strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("marked %q, want %q", got[i], w)
		}
	}
	for _, s := range []string{"SALT-BYTES", "STORED-KEY", "SERVER-KEY"} {
		if bytes.Contains(tr.Bytes, []byte(s)) || bytes.Contains(tr.Virtual, []byte(s)) {
			t.Errorf("%q still in the bytes", s)
		}
	}
	// The payload with the secret is all Fill, the other as it came.
	var payloads [][]byte
	for i := range tr.Nodes {
		if tr.Nodes[i].Kind() == tree.Decompressed {
			payloads = append(payloads, tr.Data(int32(i-1)))
		}
	}
	if len(payloads) != 2 || strings.Trim(string(payloads[0]), "*") != "" || !bytes.Contains(data, payloads[1]) || bytes.Contains(payloads[1], []byte("*")) {
		t.Errorf("payloads after redaction: %q", payloads)
	}
	if !bytes.Equal(tr.Bytes[len(withSecret):], without) {
		t.Errorf("the batch without a secret changed")
	}
	if n := secret.Redact(tr, secret.Options{}); n != 4 {
		t.Errorf("Redact again marked %d", n)
	}
}

// Bytes of KRaft metadata records that were not decoded may be
// credentials: past the node bound, in a partial batch at the end of a
// Fetch, they are redacted whole (an outside review found the salt of a
// UserScramCredentialRecord past the bound in a capture's hex). The same
// bytes decoded as plain records are left alone.
func TestSecretInUndecodedMetadataRecords(t *testing.T) {
	scram := encode(t, "UserScramCredentialRecord", 0, `{"name":"alice","mechanism":2,"salt":"`+b64("SALT-BYTES")+`","storedKey":"`+b64("STORED-KEY")+`","serverKey":"`+b64("SERVER-KEY")+`","iterations":4096}`).Bytes
	plain := encode(t, "ConfigRecord", 0, `{"resourceType":2,"resourceName":"t","name":"retention.ms","value":"1000"}`).Bytes
	var kv []records.KeyValue
	for range 50 {
		kv = append(kv, records.KeyValue{Value: plain})
	}
	full := records.Batch{Records: append(kv, records.KeyValue{Value: scram})}.Bytes()
	cd := codec.New(set)
	for _, tc := range []struct {
		name     string
		data     []byte
		maxNodes int
	}{
		{"past the node bound", full, 200},
		{"a partial batch", append(records.Batch{BaseOffset: 0, Records: kv[:1]}.Bytes(), full[:len(full)-3]...), 0},
	} {
		for _, metadata := range []bool{true, false} {
			o := cd.RecordsOptions()
			o.Metadata, o.MaxNodes = metadata, tc.maxNodes
			tr := records.Decode(bytes.Clone(tc.data), o)
			secret.Redact(tr, secret.Options{})
			leaked := bytes.Contains(tr.Bytes, []byte("SALT-BYTES"))
			if leaked == metadata {
				t.Errorf("%s (metadata %v): the salt in the bytes %v; marked:\n%s", tc.name, metadata, leaked, strings.Join(marked(tr), "\n"))
			}
		}
	}
}
