package secret_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

var set = func() *spec.Set {
	s, err := spec.Embedded("4.4")
	if err != nil {
		panic(err)
	}
	return s
}()

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// encode encodes message name (a request, a response or a metadata
// record) at version v from its converter JSON: the span tree.
func encode(t *testing.T, name string, v int16, body string) *tree.Tree {
	t.Helper()
	m := set.Message(name)
	if m == nil {
		t.Fatalf("no message %s", name)
	}
	bt, err := codec.FromJSON([]byte(body), m, v)
	if err != nil {
		t.Fatal(err)
	}
	cd := codec.New(set)
	var tr *tree.Tree
	if m.Type == spec.Metadata {
		tr, err = cd.EncodeRecord(m, v, bt)
	} else {
		tr, err = cd.Encode(m, v, nil, bt)
	}
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// marked lists the secret leaves of t as "path = value" (the text view's
// value).
func marked(t *tree.Tree) []string {
	x := render.NewIndex(t)
	var out []string
	for i := range t.Nodes {
		if t.Nodes[i].Flags()&tree.FlagSecret != 0 {
			out = append(out, x.Path(int32(i))+" = "+render.NodeValue(t, int32(i)))
		}
	}
	return out
}

func TestSecretKinds(t *testing.T) {
	for _, c := range []struct {
		name    string
		v       int16
		body    string
		mech    string
		want    []string
		secrets []string // must not be in the bytes after
		kept    []string // must still be
	}{
		{"SaslAuthenticateRequest", 2, `{"authBytes":"` + b64("\x00alice\x00pw-123") + `"}`, "PLAIN",
			[]string{"SaslAuthenticateRequest.AuthBytes = <redacted, 13 bytes>"}, []string{"pw-123"}, []string{"\x00alice\x00******"}},
		{"SaslAuthenticateRequest", 1, `{"authBytes":"` + b64("c=biws,r=abcdef,p=PROOF==") + `"}`, "SCRAM-SHA-512",
			[]string{"SaslAuthenticateRequest.AuthBytes = <redacted, 25 bytes>"}, []string{"PROOF=="}, []string{"c=biws,r=abcdef,p=*******"}},
		{"SaslAuthenticateResponse", 2, `{"errorCode":0,"errorMessage":null,"authBytes":"` + b64("r=abcdef,s=SALT,i=4096") + `","sessionLifetimeMs":0}`, "SCRAM-SHA-256",
			[]string{"SaslAuthenticateResponse.AuthBytes = <redacted, 22 bytes>"}, []string{"SALT"}, []string{"r=abcdef,s=****,i=4096"}},
		{"SaslAuthenticateRequest", 0, `{"authBytes":"` + b64("n,,\x01auth=Bearer TOKEN\x01\x01") + `"}`, "OAUTHBEARER",
			[]string{"SaslAuthenticateRequest.AuthBytes = <redacted, 23 bytes>"}, []string{"Bearer TOKEN"}, []string{"n,,\x01auth=************\x01\x01"}},
		{"SaslAuthenticateRequest", 2, `{"authBytes":"` + b64("GSSAPI-TOKEN") + `"}`, "GSSAPI",
			[]string{"SaslAuthenticateRequest.AuthBytes = <redacted, 12 bytes>"}, []string{"GSSAPI-TOKEN"}, nil},
		{"SaslAuthenticateRequest", 2, `{"authBytes":"` + b64("\x00alice\x00pw-123") + `"}`, "",
			[]string{"SaslAuthenticateRequest.AuthBytes = <redacted, 13 bytes>"}, []string{"alice", "pw-123"}, nil},
		// A SCRAM client-first-message holds no secret.
		{"SaslAuthenticateRequest", 2, `{"authBytes":"` + b64("n,,n=bob,r=nonce") + `"}`, "SCRAM-SHA-256",
			nil, nil, []string{"n,,n=bob,r=nonce"}},
		{"CreateDelegationTokenResponse", 3, `{"errorCode":0,"principalType":"User","principalName":"a","tokenRequesterPrincipalType":"User","tokenRequesterPrincipalName":"a","issueTimestampMs":0,"expiryTimestampMs":0,"maxTimestampMs":0,"tokenId":"tok-1","hmac":"` + b64("HMAC-BYTES") + `","throttleTimeMs":0}`, "",
			[]string{"CreateDelegationTokenResponse.Hmac = <redacted, 10 bytes>"}, []string{"HMAC-BYTES"}, []string{"tok-1"}},
		{"RenewDelegationTokenRequest", 2, `{"hmac":"` + b64("HMAC-BYTES") + `","renewPeriodMs":1}`, "",
			[]string{"RenewDelegationTokenRequest.Hmac = <redacted, 10 bytes>"}, []string{"HMAC-BYTES"}, nil},
		{"ExpireDelegationTokenRequest", 2, `{"hmac":"` + b64("HMAC-BYTES") + `","expiryTimePeriodMs":1}`, "",
			[]string{"ExpireDelegationTokenRequest.Hmac = <redacted, 10 bytes>"}, []string{"HMAC-BYTES"}, nil},
		{"DescribeDelegationTokenResponse", 3, `{"errorCode":0,"tokens":[{"principalType":"User","principalName":"a","tokenRequesterPrincipalType":"User","tokenRequesterPrincipalName":"a","issueTimestamp":0,"expiryTimestamp":0,"maxTimestamp":0,"tokenId":"tok-1","hmac":"` + b64("HMAC-BYTES") + `","renewers":[]}],"throttleTimeMs":0}`, "",
			[]string{"DescribeDelegationTokenResponse.Tokens[0].Hmac = <redacted, 10 bytes>"}, []string{"HMAC-BYTES"}, []string{"tok-1"}},
		{"AlterUserScramCredentialsRequest", 0, `{"deletions":[],"upsertions":[{"name":"alice","mechanism":2,"iterations":4096,"salt":"` + b64("SALT-BYTES") + `","saltedPassword":"` + b64("SALTED-PASSWORD") + `"}]}`, "",
			[]string{"AlterUserScramCredentialsRequest.Upsertions[0].Salt = <redacted, 10 bytes>", "AlterUserScramCredentialsRequest.Upsertions[0].SaltedPassword = <redacted, 15 bytes>"},
			[]string{"SALT-BYTES", "SALTED-PASSWORD"}, []string{"alice"}},
		{"UserScramCredentialRecord", 0, `{"name":"alice","mechanism":2,"salt":"` + b64("SALT-BYTES") + `","storedKey":"` + b64("STORED-KEY") + `","serverKey":"` + b64("SERVER-KEY") + `","iterations":4096}`, "",
			[]string{"UserScramCredentialRecord.Salt = <redacted, 10 bytes>", "UserScramCredentialRecord.StoredKey = <redacted, 10 bytes>", "UserScramCredentialRecord.ServerKey = <redacted, 10 bytes>"},
			[]string{"SALT-BYTES", "STORED-KEY", "SERVER-KEY"}, []string{"alice"}},
		{"DescribeConfigsResponse", 4, `{"throttleTimeMs":0,"results":[{"errorCode":0,"errorMessage":null,"resourceType":4,"resourceName":"1","configs":[` +
			`{"name":"custom.thing","value":"IS-SENSITIVE","readOnly":false,"configSource":1,"isSensitive":true,"synonyms":[{"name":"custom.thing","value":"SYNONYM-VALUE","source":1}],"configType":0,"documentation":null},` +
			`{"name":"listener.name.sasl_ssl.ssl.key.password","value":"BY-NAME","readOnly":false,"configSource":1,"isSensitive":false,"synonyms":[],"configType":0,"documentation":null},` +
			`{"name":"ssl.truststore.password","value":null,"readOnly":false,"configSource":1,"isSensitive":true,"synonyms":[],"configType":0,"documentation":null},` +
			`{"name":"log.retention.ms","value":"604800000","readOnly":false,"configSource":5,"isSensitive":false,"synonyms":[],"configType":0,"documentation":null}]}]}`, "",
			[]string{"DescribeConfigsResponse.Results[0].Configs[0].Value = <redacted, 12 bytes>", "DescribeConfigsResponse.Results[0].Configs[0].Synonyms[0].Value = <redacted, 13 bytes>", "DescribeConfigsResponse.Results[0].Configs[1].Value = <redacted, 7 bytes>"},
			[]string{"IS-SENSITIVE", "SYNONYM-VALUE", "BY-NAME"}, []string{"custom.thing", "604800000"}},
		{"AlterConfigsRequest", 2, `{"resources":[{"resourceType":4,"resourceName":"1","configs":[{"name":"sasl.jaas.config","value":"JAAS"},{"name":"num.io.threads","value":"8"}]}],"validateOnly":false}`, "",
			[]string{"AlterConfigsRequest.Resources[0].Configs[0].Value = <redacted, 4 bytes>"}, []string{"JAAS"}, []string{"num.io.threads"}},
		{"IncrementalAlterConfigsRequest", 1, `{"resources":[{"resourceType":4,"resourceName":"1","configs":[{"name":"ssl.keystore.password","configOperation":0,"value":"KS-PASS"},{"name":"ssl.keystore.type","configOperation":0,"value":"PKCS12"}]}],"validateOnly":false}`, "",
			[]string{"IncrementalAlterConfigsRequest.Resources[0].Configs[0].Value = <redacted, 7 bytes>"}, []string{"KS-PASS"}, []string{"PKCS12"}},
		{"CreateTopicsRequest", 7, `{"topics":[{"name":"t","numPartitions":1,"replicationFactor":1,"assignments":[],"configs":[{"name":"password.encoder.secret","value":"ENC-SECRET"},{"name":"cleanup.policy","value":"compact"}]}],"timeoutMs":1000,"validateOnly":false}`, "",
			[]string{"CreateTopicsRequest.Topics[0].Configs[0].Value = <redacted, 10 bytes>"}, []string{"ENC-SECRET"}, []string{"compact"}},
		{"ConfigRecord", 0, `{"resourceType":4,"resourceName":"1","name":"listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config","value":"JAAS-WITH-PASSWORD"}`, "",
			[]string{"ConfigRecord.Value = <redacted, 18 bytes>"}, []string{"JAAS-WITH-PASSWORD"}, []string{"sasl.jaas.config"}},
		{"ConfigRecord", 0, `{"resourceType":2,"resourceName":"t","name":"retention.ms","value":"1000"}`, "", nil, nil, []string{"retention.ms", "1000"}},
	} {
		t.Run(fmt.Sprintf("%s/%s", c.name, c.mech), func(t *testing.T) {
			tr := encode(t, c.name, c.v, c.body)
			before := string(tr.Bytes)
			o := secret.Options{Mechanism: c.mech}
			if has := secret.Has(tr, o); has != (len(c.want) > 0) {
				t.Errorf("Has = %v", has)
			}
			red := secret.Redacted(tr, o)
			if string(tr.Bytes) != before || len(marked(tr)) != 0 {
				t.Errorf("Redacted changed its input")
			}
			if len(c.want) == 0 && red != tr {
				t.Errorf("Redacted copied a tree without secrets")
			}
			got := marked(red)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("marked\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if len(red.Bytes) != len(before) {
				t.Errorf("size changed")
			}
			for _, s := range c.secrets {
				if strings.Contains(string(red.Bytes), s) {
					t.Errorf("%q still in the bytes", s)
				}
			}
			for _, s := range c.kept {
				if !strings.Contains(string(red.Bytes), s) {
					t.Errorf("%q not in the bytes: %q", s, red.Bytes)
				}
			}
			if n := secret.Redact(red, o); n != len(c.want) {
				t.Errorf("Redact again marked %d", n)
			}
		})
	}
}

func TestSASLUser(t *testing.T) {
	for _, c := range []struct{ mech, msg, want string }{
		{"PLAIN", "\x00alice\x00pw", "alice"},
		{"PLAIN", "admin\x00alice\x00pw", "alice"},
		{"PLAIN", "alice-no-nul", ""},
		{"PLAIN", "\x00alice", ""},
		{"SCRAM-SHA-256", "n,,n=al=2Cice=3D,r=fyko+d2lbbFgONRv9qkxdawL", "al,ice="},
		{"SCRAM-SHA-512", "n,a=admin,n=bob,r=x", "bob"},
		{"SCRAM-SHA-512", "y,,n=bob,r=x", "bob"},
		{"SCRAM-SHA-512", "c=biws,r=x,p=y", ""},
		{"SCRAM-SHA-512", "", ""},
		{"OAUTHBEARER", "n,a=carol,\x01auth=Bearer x\x01\x01", ""},
		{"GSSAPI", "\x60\x82", ""},
		{"", "\x00alice\x00pw", ""},
	} {
		if got := secret.SASLUser(c.mech, []byte(c.msg)); got != c.want {
			t.Errorf("SASLUser(%s, %q) = %q, want %q", c.mech, c.msg, got, c.want)
		}
	}
}

func TestSASLRanges(t *testing.T) {
	for _, c := range []struct {
		mech   string
		client bool
		msg    string
		want   []secret.Range
	}{
		{"PLAIN", true, "\x00alice\x00pw", []secret.Range{{7, 2}}},
		{"PLAIN", true, "\x00alice\x00", nil},
		{"PLAIN", true, "no-nul", []secret.Range{{0, 6}}},
		{"PLAIN", false, "", nil},
		{"SCRAM-SHA-256", true, "n,,n=bob,r=abc", nil},
		{"SCRAM-SHA-256", false, "r=abcdef,s=SALT,i=4096", []secret.Range{{11, 4}}},
		{"SCRAM-SHA-256", true, "c=biws,r=abcdef,p=PROOF", []secret.Range{{18, 5}}},
		{"SCRAM-SHA-256", false, "v=SIG", []secret.Range{{2, 3}}},
		{"OAUTHBEARER", true, "n,,\x01auth=Bearer T\x01\x01", []secret.Range{{9, 8}}},
		{"OAUTHBEARER", true, "\x01", []secret.Range{{0, 1}}},
		{"OAUTHBEARER", false, `{"status":"invalid_token"}`, nil},
		{"GSSAPI", false, "tok", []secret.Range{{0, 3}}},
		{"", true, "x", []secret.Range{{0, 1}}},
	} {
		got := secret.SASLRanges(c.mech, c.client, []byte(c.msg))
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("SASLRanges(%s, %v, %q) = %v, want %v", c.mech, c.client, c.msg, got, c.want)
		}
	}
}

func TestSensitiveConfig(t *testing.T) {
	for name, want := range map[string]bool{
		"ssl.key.password": true, "ssl.keystore.password": true, "ssl.truststore.password": true,
		"ssl.keystore.key": true, "ssl.keystore.certificate.chain": true, "ssl.truststore.certificates": true,
		"sasl.jaas.config": true, "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config": true,
		"listener.name.internal.ssl.key.password": true, "password.encoder.secret": true, "password.encoder.old.secret": true,
		"delegation.token.secret.key": true, "delegation.token.master.key": true,
		"sasl.oauthbearer.client.credentials.client.secret": true, "sasl.oauthbearer.assertion.private.key.passphrase": true,
		"SSL.KEY.PASSWORD":      true,
		"ssl.keystore.location": false, "ssl.keystore.type": false, "password.encoder.iterations": false,
		"sasl.mechanism.inter.broker.protocol": false, "sasl.oauthbearer.jwks.endpoint.url": false, "log.retention.ms": false, "": false,
	} {
		if got := secret.SensitiveConfig(name); got != want {
			t.Errorf("SensitiveConfig(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestText(t *testing.T) {
	if secret.Text(1) != "<redacted, 1 byte>" || secret.Text(0) != "<redacted, 0 bytes>" || secret.Text(12) != "<redacted, 12 bytes>" {
		t.Errorf("Text: %q %q %q", secret.Text(1), secret.Text(0), secret.Text(12))
	}
}
