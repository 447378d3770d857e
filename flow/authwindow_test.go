package flow

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
)

// unknownAPI is a request frame of api key 99 (no spec has it), header
// v1 with client id "c", carrying payload.
func unknownAPI(corr int32, payload string) []byte {
	b := binary.BigEndian.AppendUint16(nil, 99)
	b = append(b, 0, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	b = append(b, 0, 1, 'c')
	b = append(b, payload...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// A client frame between the SASL handshake and the end of authentication
// that is not a SaslAuthenticate request that decoded is redacted whole
// (every byte after the size prefix, its client id not reported); the
// frames after authentication ends are not: after PLAIN's one round, after
// SCRAM's server-final-message (not its first round), after a handshake
// that failed, and after a v0 handshake's raw tokens.
func TestAuthWindowFramesRedactedWhole(t *testing.T) {
	c := codec.New(testSet)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	hs := func(ver int16, mech string, code int) [2][]byte {
		return [2][]byte{reqFrame(t, c, "SaslHandshake", ver, 1, "c", `{"mechanism":"`+mech+`"}`),
			respFrame(t, c, "SaslHandshake", ver, 1, `{"errorCode":`+string(rune('0'+code))+`,"mechanisms":["PLAIN"]}`)}
	}
	auth := func(corr int32, req, resp string) [2][]byte {
		return [2][]byte{reqFrame(t, c, "SaslAuthenticate", 2, corr, "c", `{"authBytes":"`+b64(req)+`"}`),
			respFrame(t, c, "SaslAuthenticate", 2, corr, `{"errorCode":0,"errorMessage":null,"authBytes":"`+b64(resp)+`","sessionLifetimeMs":0}`)}
	}
	unknown := func(corr int32, p string) [2][]byte {
		return [2][]byte{unknownAPI(corr, p), binary.BigEndian.AppendUint32([]byte{0, 0, 0, 4}, uint32(corr))}
	}
	const secretText, openText = "secret-in-window", "open-after-auth"
	for _, tc := range []struct {
		name string
		xs   [][2][]byte
	}{
		{"PLAIN", [][2][]byte{hs(1, "PLAIN", 0), unknown(2, secretText), auth(3, "\x00u\x00pw", ""), unknown(4, openText)}},
		{"SCRAM", [][2][]byte{hs(1, "SCRAM-SHA-256", 0), auth(2, "n,,n=u,r=abc", "r=abcdef,s=c2FsdA==,i=4096"),
			unknown(3, secretText), auth(4, "c=biws,r=abcdef,p=cHJvb2Y=", "v=c2lnbmF0dXJl"), unknown(5, openText)}},
		{"handshake failed", [][2][]byte{hs(1, "PLAIN", 8), unknown(2, openText)}},
		{"v0 raw tokens", [][2][]byte{hs(0, "PLAIN", 0), {rawToken("\x00u\x00pw"), rawToken("")},
			{reqFrame(t, c, "ApiVersions", 0, 3, "c", `{}`), nil}, unknown(4, openText)}},
	} {
		for _, show := range []bool{false, true} {
			r := newConn(Options{Codec: c, KeepTrees: true, ShowSecrets: show})
			for _, x := range tc.xs {
				r.conn.Data(ClientToServer, x[0], t0)
				if x[1] != nil {
					r.conn.Data(ServerToClient, x[1], t0)
				}
			}
			r.conn.Close(t0)
			var seen []string
			for _, x := range r.ex {
				if x.APIKey != 99 && (x.APIKey != -1 || x.Token) || x.Request == nil || x.Request.Tree == nil {
					continue
				}
				b := x.Request.Tree.Bytes
				switch {
				case bytes.Contains(b, []byte(openText)):
					seen = append(seen, "open")
					if x.ClientID != "c" {
						t.Errorf("%s: client id %q after authentication", tc.name, x.ClientID)
					}
				case bytes.Contains(b, []byte(secretText)):
					seen = append(seen, "shown")
				case len(b) > 4 && strings.Trim(string(b[4:]), "*") == "":
					seen = append(seen, "redacted")
					if x.ClientID != "" {
						t.Errorf("%s: client id %q of a redacted frame", tc.name, x.ClientID)
					}
				default:
					seen = append(seen, "partly "+string(b))
				}
			}
			// The redacted frame's header is reported by no value: its
			// problem names no api key, version or correlation id.
			for _, p := range r.pr {
				if p.Kind == DecodeFailed && p.APIKey != 99 && (p.APIKey != -1 || p.CorrelationID != 0 || p.Err != errAuthFrame) {
					t.Errorf("%s (show %v): problem %+v", tc.name, show, p)
				}
			}
			want := []string{"open"}
			if tc.name == "PLAIN" || tc.name == "SCRAM" {
				want = []string{"redacted", "open"}
				if show {
					want[0] = "shown"
				}
			}
			if strings.Join(seen, ",") != strings.Join(want, ",") {
				t.Errorf("%s (show %v): api key 99 frames %v, want %v", tc.name, show, seen, want)
			}
		}
	}
}
