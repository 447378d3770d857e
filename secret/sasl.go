package secret

import (
	"bytes"
	"strings"
)

// Range is a range [Off, Off+Len) of bytes.
type Range struct{ Off, Len int }

// SASLUser returns the user name that b, the first auth bytes a client
// sends for mechanism mech (SaslAuthenticateRequest.AuthBytes, or the first
// raw token after a SaslHandshake v0), shows, or "" when it shows none:
//
//   - PLAIN (RFC 4616: authzid NUL authcid NUL passwd): the authcid;
//   - SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802's client-first-message,
//     "n,,n=user,r=nonce"): the n= attribute with "=2C" and "=3D" decoded
//     to "," and "=".
//
// Other mechanisms (OAUTHBEARER, GSSAPI) and messages that are not of the
// mechanism's form give "".
func SASLUser(mech string, b []byte) string {
	switch {
	case mech == "PLAIN":
		_, rest, ok := bytes.Cut(b, []byte{0})
		if !ok {
			return ""
		}
		user, _, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return ""
		}
		return string(user)
	case isSCRAM(mech):
		bare, ok := scramBare(b)
		if !ok {
			return ""
		}
		for _, a := range strings.Split(string(bare), ",") {
			if v, ok := strings.CutPrefix(a, "n="); ok {
				return strings.NewReplacer("=2C", ",", "=3D", "=").Replace(v)
			}
		}
	}
	return ""
}

func isSCRAM(mech string) bool { return strings.HasPrefix(mech, "SCRAM-") }

// scramBare returns the client-first-message-bare of a SCRAM
// client-first-message: what follows its GS2 header ("n,," or "y,," or
// "p=cb,," with an optional a=authzid between the commas).
func scramBare(b []byte) ([]byte, bool) {
	if len(b) == 0 || (b[0] != 'n' && b[0] != 'y' && b[0] != 'p') {
		return nil, false
	}
	_, rest, ok := bytes.Cut(b, []byte{','})
	if !ok {
		return nil, false
	}
	_, bare, ok := bytes.Cut(rest, []byte{','})
	if !ok || !bytes.HasPrefix(bare, []byte("n=")) {
		return nil, false
	}
	return bare, true
}

// SASLRanges returns the secret ranges of b, auth bytes of mechanism mech
// sent by the client (client) or by the broker:
//
//   - PLAIN: the client's password (everything after the second NUL); all
//     of a client message without two NULs;
//   - SCRAM-*: the values of the attributes p= (ClientProof), s= (salt)
//     and v= (ServerSignature) of either side; the user name and nonces
//     are not secret;
//   - OAUTHBEARER: the client's token (the value of "auth=" up to the next
//     0x01), or all of a client message without one; the broker's replies
//     (empty, or an error status in JSON) are not secret;
//   - GSSAPI, any other mechanism and an unknown one (""): all of b, both
//     sides.
//
// The ranges are in increasing order and do not overlap.
func SASLRanges(mech string, client bool, b []byte) []Range {
	if len(b) == 0 {
		return nil
	}
	all := []Range{{0, len(b)}}
	switch {
	case mech == "PLAIN":
		if !client {
			return nil
		}
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return all
		}
		j := bytes.IndexByte(b[i+1:], 0)
		if j < 0 {
			return all
		}
		if p := i + 1 + j + 1; p < len(b) {
			return []Range{{p, len(b) - p}}
		}
		return nil
	case isSCRAM(mech):
		var out []Range
		off := 0
		for _, a := range bytes.Split(b, []byte{','}) {
			if len(a) >= 2 && a[1] == '=' && (a[0] == 'p' || a[0] == 's' || a[0] == 'v') && len(a) > 2 {
				out = append(out, Range{off + 2, len(a) - 2})
			}
			off += len(a) + 1
		}
		return out
	case mech == "OAUTHBEARER":
		if !client {
			return nil
		}
		k := bytes.Index(b, []byte("\x01auth="))
		if k < 0 {
			return all
		}
		start := k + len("\x01auth=")
		end := bytes.IndexByte(b[start:], 1)
		if end < 0 {
			end = len(b) - start
		}
		if end == 0 {
			return nil
		}
		return []Range{{start, end}}
	}
	return all
}
