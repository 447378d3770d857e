package secret_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// RedactFrame overwrites every byte after the size prefix and marks every
// leaf but the size prefix's secret, in a tree that decoded (its header
// fields too) and in one that did not; with Show it changes nothing.
func TestRedactFrame(t *testing.T) {
	const pw = "hunter2-secret"
	cd := codec.New(set)
	for _, fr := range [][]byte{
		framed(append(header(99, 0, false), "\x00alice\x00"+pw...)),
		framed(header(18, 0, false)),
	} {
		tr, _ := cd.DecodeRequest(fr)
		if tr == nil || len(tr.Nodes) == 0 {
			t.Fatalf("no tree for %x", fr)
		}
		orig := append([]byte(nil), tr.Bytes...)
		if n := secret.RedactFrame(tr, secret.Options{Show: true}); n != 0 || !bytes.Equal(tr.Bytes, orig) {
			t.Errorf("Show: %d bytes overwritten", n)
		}
		if n := secret.RedactFrame(tr, secret.Options{}); n != len(fr)-4 {
			t.Errorf("%d bytes overwritten, want %d", n, len(fr)-4)
		}
		if !bytes.Equal(tr.Bytes[:4], fr[:4]) || strings.Trim(string(tr.Bytes[4:]), "*") != "" {
			t.Errorf("bytes %q", tr.Bytes)
		}
		for i := range tr.Nodes {
			k := int32(i)
			if !tr.IsLeaf(k) {
				continue
			}
			inFrame := tr.Nodes[tr.Parent(k)].Kind() == tree.Frame
			if got := tr.Nodes[i].Flags()&tree.FlagSecret != 0; got == inFrame {
				t.Errorf("leaf %s: secret %v", tr.Name(k), got)
			}
		}
	}
}

// A frame a client sent while its connection authenticates, which is not
// a SaslAuthenticate that decoded (here an ApiVersions request), is
// redacted whole: only its size prefix shows.
func ExampleRedactFrame() {
	set, _ := spec.Embedded("4.4")
	m := set.Message("ApiVersionsRequest")
	body, _ := codec.FromJSON([]byte(`{"clientSoftwareName":"s3cr3t","clientSoftwareVersion":"1"}`), m, 3)
	t, _ := codec.New(set).Encode(m, 3, nil, body)
	fmt.Println(secret.RedactFrame(t, secret.Options{}))
	kafka, _, _ := codec.ConverterJSON(set, t, nil)
	fmt.Println(string(kafka))
	fmt.Printf("%q\n", t.Bytes[:8])
	// Output:
	// 21
	// {"clientSoftwareName":"<redacted, 6 bytes>","clientSoftwareVersion":"<redacted, 1 byte>"}
	// "\x00\x00\x00\x15****"
}
