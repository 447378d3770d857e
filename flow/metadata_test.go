package flow

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
	"github.com/kwire/kwire/tree"
)

// The records of the KRaft metadata log (__cluster_metadata, named by name
// or by its topic id, 1, as a quorum's Fetch requests and responses name
// it) are decoded as metadata records, as kwire log decodes the log, so
// that the SCRAM credentials a UserScramCredentialRecord holds are
// redacted in the trees kept (an outside review: a capture of them
// printed the salt and keys in hex).
func TestClusterMetadataRecordsRedacted(t *testing.T) {
	c := codec.New(testSet)
	m := testSet.Message("UserScramCredentialRecord")
	secrets := []string{"SALTSECRET-0123", "STOREDKEYSECRET-4567", "SERVERKEYSECRET-89ab"}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	v, err := codec.FromJSON([]byte(`{"name":"alice","mechanism":2,"salt":"`+b64(secrets[0])+`","storedKey":"`+b64(secrets[1])+`","serverKey":"`+b64(secrets[2])+`","iterations":4096}`), m, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := c.EncodeRecord(m, 0, v)
	if err != nil {
		t.Fatal(err)
	}
	batch := records.Batch{Records: []records.KeyValue{{Value: rec.Bytes}}}.Bytes()
	recs := base64.StdEncoding.EncodeToString(batch)
	for _, tc := range []struct {
		name  string
		frame []byte
	}{
		{"by name", reqFrame(t, c, "Produce", 9, 1, "cli", fmt.Sprintf(`{"transactionalId":null,"acks":1,"timeoutMs":1000,"topicData":[{"name":"__cluster_metadata","partitionData":[{"index":0,"records":%q}]}]}`, recs))},
		{"by id", reqFrame(t, c, "Produce", 13, 1, "cli", fmt.Sprintf(`{"transactionalId":null,"acks":1,"timeoutMs":1000,"topicData":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAQ","partitionData":[{"index":0,"records":%q}]}]}`, recs))},
	} {
		for _, show := range []bool{false, true} {
			var b []byte
			var named bool
			conn := New(Options{Codec: c, KeepTrees: true, ShowSecrets: show}, func(e Event) {
				if x, ok := e.(*Exchange); ok && x.Request != nil && x.Request.Tree != nil {
					rt := x.Request.Tree
					b = append(append([]byte(nil), rt.Bytes...), rt.Virtual...)
					for i := range rt.Nodes {
						named = named || rt.Nodes[i].Kind() == tree.Embedded && rt.Struct(int32(i)) == m.Root
					}
				}
			})
			feed(conn, ClientToServer, tc.frame, t0, 1<<20)
			conn.Close(t0)
			if !named {
				t.Errorf("%s: the record's value is not decoded as a metadata record", tc.name)
			}
			for _, s := range secrets {
				if bytes.Contains(b, []byte(s)) != show {
					t.Errorf("%s (show %v): %q in the tree's bytes: %v", tc.name, show, s, !show)
				}
			}
		}
	}
}
