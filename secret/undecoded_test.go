package secret_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/tree"
)

// header is a request header of api key key at version ver (v2 when
// flexible, else v1), client id "c".
func header(key, ver int16, flexible bool) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(ver))
	b = append(b, 0, 0, 0, 7, 0, 1, 'c')
	if flexible {
		b = append(b, 0)
	}
	return b
}

func framed(b []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// An authentication message that does not decode whole has every byte the
// decoder left undecoded redacted; another message's are left as they are.
func TestRedactUndecodedAuthBytes(t *testing.T) {
	const pw = "hunter2-secret"
	plain := "\x00alice\x00" + pw
	cd := codec.New(set)
	for _, c := range []struct {
		name   string
		frame  []byte
		marked []string // the secret leaves: path = value
	}{
		{"SaslAuthenticate v9 (no such version)", framed(append(append(header(36, 9, true), byte(len(plain)+1)), plain+"\x00"...)),
			[]string{"undecoded = <redacted, 35 bytes>"}},
		{"SaslAuthenticate v2, auth_bytes past the frame", framed(append(append(header(36, 2, true), 0x7f), plain...)),
			[]string{"undecoded = <redacted, 22 bytes>"}},
		{"SaslAuthenticate v0, auth_bytes past the frame", framed(append(append(header(36, 0, false), 0, 0, 1, 0), plain...)),
			[]string{"undecoded = <redacted, 25 bytes>"}},
		{"SaslHandshake v5 (no such version)", framed(append(header(17, 5, true), plain...)),
			[]string{"undecoded = <redacted, 33 bytes>"}},
		{"Vote v99: not authentication", framed(append(header(52, 99, true), plain...)), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, err := cd.DecodeRequest(c.frame)
			if err == nil || tr == nil || len(tr.Nodes) == 0 {
				t.Fatalf("decoded: %v, %v", tr, err)
			}
			orig := append([]byte(nil), tr.Bytes...)
			if got := secret.Has(tr, secret.Options{}); got != (c.marked != nil) {
				t.Errorf("Has: %v", got)
			}
			if n := secret.Redact(tr, secret.Options{Show: true}); n != 0 || !bytes.Equal(tr.Bytes, orig) {
				t.Errorf("Redact with Show changed the tree (%d leaves)", n)
			}
			rt := secret.Redacted(tr, secret.Options{Mechanism: "PLAIN"})
			if got := marked(rt); strings.Join(got, "\n") != strings.Join(c.marked, "\n") {
				t.Errorf("marked:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.marked, "\n"))
			}
			if !bytes.Equal(tr.Bytes, orig) {
				t.Error("Redacted changed the tree it was given")
			}
			if c.marked == nil {
				if rt != tr {
					t.Error("Redacted copied a tree without secrets")
				}
				return
			}
			if bytes.Contains(rt.Bytes, []byte(pw[:4])) || bytes.Contains(rt.Bytes, []byte("alice")) {
				t.Errorf("the redacted bytes still hold the credential: %q", rt.Bytes)
			}
			// Every undecoded byte is Fill; the bytes before are the frame's.
			for i := range rt.Nodes {
				if rt.Nodes[i].Kind() != tree.Raw {
					continue
				}
				d := rt.Data(int32(i))
				if strings.Trim(string(d), string(rune(secret.Fill))) != "" {
					t.Errorf("undecoded bytes %q", d)
				}
				off := int(rt.Nodes[i].Off)
				if !bytes.Equal(rt.Bytes[:off], orig[:off]) {
					t.Errorf("bytes before the undecoded ones changed: %x", rt.Bytes[:off])
				}
			}
			if secret.Redact(rt, secret.Options{}) != len(c.marked) {
				t.Error("redacting twice marks other leaves")
			}
		})
	}
}

// An authentication response that does not decode (read at its request's
// version, one the specs do not have) is redacted the same way.
func TestRedactUndecodedAuthResponse(t *testing.T) {
	cd := codec.New(set)
	m := set.Message("SaslAuthenticateResponse")
	b := framed(append([]byte{0, 0, 0, 7, 0, 0, 0, 0, 0x7f}, "v=server-signature"...))
	tr, err := cd.DecodeResponse(b, m, 2)
	if err == nil {
		t.Fatal("decoded")
	}
	rt := secret.Redacted(tr, secret.Options{Mechanism: "SCRAM-SHA-256"})
	if got := strings.Join(marked(rt), "\n"); got != "undecoded = <redacted, 19 bytes>" {
		t.Errorf("marked: %s", got)
	}
	if bytes.Contains(rt.Bytes, []byte("server-signature")) {
		t.Errorf("%q", rt.Bytes)
	}
}

func TestAuth(t *testing.T) {
	var got []string
	for _, m := range set.Messages {
		if secret.Auth(m) {
			got = append(got, m.Name)
		}
	}
	if want := "SaslHandshakeRequest SaslHandshakeResponse SaslAuthenticateRequest SaslAuthenticateResponse"; strings.Join(got, " ") != want {
		t.Errorf("Auth: %v, want %s", got, want)
	}
}

// The bytes of a response whose request was not seen are all secret after
// its correlation id.
func TestRedactUnattributed(t *testing.T) {
	b := framed(append([]byte{0, 0, 0, 99}, "v=server-signature"...))
	tr := &tree.Tree{Bytes: append([]byte(nil), b...)}
	if n := secret.RedactUnattributed(tr); n != 18 || !bytes.Equal(tr.Bytes[:8], b[:8]) || string(tr.Bytes[8:]) != strings.Repeat("*", 18) {
		t.Errorf("%d bytes: %q", n, tr.Bytes)
	}
	// A tree with nodes says what it is: left to Redact.
	cd := codec.New(set)
	dt, err := cd.DecodeResponse(framed([]byte{0, 0, 0, 7, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}), set.Message("SaslAuthenticateResponse"), 2)
	if err != nil {
		t.Fatal(err)
	}
	before := append([]byte(nil), dt.Bytes...)
	if n := secret.RedactUnattributed(dt); n != 0 || !bytes.Equal(dt.Bytes, before) {
		t.Errorf("a decoded tree: %d bytes overwritten", n)
	}
}
