package flow

import (
	"encoding/base64"
	"encoding/binary"
	"testing"

	"github.com/kwire/kwire/codec"
)

// rawToken is a raw SASL token frame: an int32 size, then the token.
func rawToken(tok string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(tok))), tok...)
}

const plainToken = "\x00alice\x00alice-secret"

func TestSASLHandshakeV0RawTokensInAnyChunking(t *testing.T) {
	c := codec.New(testSet)
	hsReq := reqFrame(t, c, "SaslHandshake", 0, 1, "c", `{"mechanism":"PLAIN"}`)
	hsResp := respFrame(t, c, "SaslHandshake", 0, 1, `{"errorCode":0,"mechanisms":["PLAIN"]}`)
	mdReq := reqFrame(t, c, "Metadata", 12, 2, "c", `{"topics":[],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}`)
	mdResp := respFrame(t, c, "Metadata", 12, 2, metadataV12)
	for _, chunk := range []int{1, 3, 1 << 20} {
		for _, tokenFirst := range []bool{false, true} {
			r := newConn(Options{Codec: c})
			feed(r.conn, ClientToServer, hsReq, t0, chunk)
			if tokenFirst {
				// The client's token fed before the handshake's response.
				feed(r.conn, ClientToServer, rawToken(plainToken), t0, chunk)
				feed(r.conn, ServerToClient, hsResp, t0, chunk)
			} else {
				feed(r.conn, ServerToClient, hsResp, t0, chunk)
				feed(r.conn, ClientToServer, rawToken(plainToken), t0, chunk)
			}
			feed(r.conn, ServerToClient, rawToken(""), t0, chunk)
			feed(r.conn, ClientToServer, mdReq, t0, chunk)
			feed(r.conn, ServerToClient, mdResp, t0, chunk)
			r.conn.Close(t0)
			if len(r.pr) != 0 {
				t.Fatalf("chunk %d: problems %v", chunk, r.pr[0])
			}
			if len(r.ex) != 3 {
				t.Fatalf("chunk %d: %d exchanges", chunk, len(r.ex))
			}
			hs, tok, md := r.ex[0], r.ex[1], r.ex[2]
			if hs.API != "SaslHandshake" || hs.Mechanism != "PLAIN" || hs.User != "" || hs.Response == nil {
				t.Errorf("handshake %+v", hs)
			}
			if !tok.Token || tok.APIKey != -1 || tok.Mechanism != "PLAIN" || tok.User != "alice" ||
				tok.Request == nil || tok.Request.Offset != int64(len(hsReq)) || tok.Request.Size != 4+len(plainToken) ||
				tok.Response == nil || tok.Response.Offset != int64(len(hsResp)) || tok.Response.Size != 4 {
				t.Errorf("token %+v req %+v resp %+v", tok, tok.Request, tok.Response)
			}
			if md.API != "Metadata" || md.CorrelationID != 2 || md.Response == nil || md.Mechanism != "" {
				t.Errorf("metadata %+v", md)
			}
		}
	}
}

func TestSASLHandshakeV0FailedHasNoTokens(t *testing.T) {
	c := codec.New(testSet)
	r := newConn(Options{Codec: c})
	r.conn.Data(ClientToServer, reqFrame(t, c, "SaslHandshake", 0, 1, "c", `{"mechanism":"NOPE"}`), t0)
	// UNSUPPORTED_SASL_MECHANISM (33)
	r.conn.Data(ServerToClient, respFrame(t, c, "SaslHandshake", 0, 1, `{"errorCode":33,"mechanisms":["PLAIN"]}`), t0)
	// Not a request and not a token any more: a frame too small to decode.
	r.conn.Data(ClientToServer, rawToken("\x00a\x00b"), t0)
	r.conn.Close(t0)
	if len(r.ex) != 1 || r.ex[0].Token || r.ex[0].Mechanism != "NOPE" || len(r.ex[0].Errors) != 1 {
		t.Fatalf("exchanges %+v", r.ex)
	}
	if p := r.problems(DecodeFailed); len(p) != 1 || p[0].Offset != 21 {
		t.Fatalf("problems %v", r.pr)
	}
}

func TestSASLReauthenticationStartsAgain(t *testing.T) {
	c := codec.New(testSet)
	r := newConn(Options{Codec: c})
	auth := func(corr int32, mech, tok string) {
		r.conn.Data(ClientToServer, reqFrame(t, c, "SaslHandshake", 1, corr, "c", `{"mechanism":"`+mech+`"}`), t0)
		r.conn.Data(ServerToClient, respFrame(t, c, "SaslHandshake", 1, corr, `{"errorCode":0,"mechanisms":["PLAIN","SCRAM-SHA-512"]}`), t0)
		r.conn.Data(ClientToServer, reqFrame(t, c, "SaslAuthenticate", 2, corr+1, "c", `{"authBytes":"`+b64(tok)+`"}`), t0)
		r.conn.Data(ServerToClient, respFrame(t, c, "SaslAuthenticate", 2, corr+1, `{"errorCode":0,"errorMessage":null,"authBytes":"","sessionLifetimeMs":1000}`), t0)
	}
	auth(1, "PLAIN", plainToken)
	auth(3, "SCRAM-SHA-512", "n,,n=bob,r=abc")
	r.conn.Close(t0)
	if len(r.pr) != 0 || len(r.ex) != 4 {
		t.Fatalf("%d exchanges, problems %v", len(r.ex), r.pr)
	}
	for i, want := range [][2]string{{"PLAIN", ""}, {"PLAIN", "alice"}, {"SCRAM-SHA-512", ""}, {"SCRAM-SHA-512", "bob"}} {
		if x := r.ex[i]; x.Mechanism != want[0] || x.User != want[1] {
			t.Errorf("exchange %d (%s): mechanism %q user %q, want %q %q", i, x.API, x.Mechanism, x.User, want[0], want[1])
		}
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
