package secret_test

import (
	"fmt"
	"os"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/secret"
	"github.com/kwire/kwire/spec"
)

// A SaslAuthenticate request of a PLAIN login: the password is redacted,
// the user name stays.
func ExampleRedacted() {
	set, _ := spec.Embedded("4.4")
	m := set.Message("SaslAuthenticateRequest")
	body, _ := codec.FromJSON([]byte(`{"authBytes":"AGFsaWNlAHMzY3IzdA=="}`), m, 2) // "\x00alice\x00s3cr3t"
	t, _ := codec.New(set).Encode(m, 2, nil, body)
	r := secret.Redacted(t, secret.Options{Mechanism: "PLAIN"})
	auth, _ := t.Get("SaslAuthenticateRequest.AuthBytes")
	fmt.Println(secret.SASLUser("PLAIN", auth.Bytes()))
	kafka, _, _ := codec.ConverterJSON(set, r, nil)
	fmt.Println(string(kafka))
	fmt.Printf("%q\n", r.Bytes[len(r.Bytes)-14:len(r.Bytes)-1])
	render.WriteHex(os.Stdout, r, render.Options{})
	// Output:
	// alice
	// {"authBytes":"<redacted, 13 bytes>"}
	// "\x00alice\x00******"
	//        0  1  2  3  4  5  6  7  8  9  A  B  C  D  E  F
	// 0000  00 00 00 1a 00 24 00 02 00 00 00 00 00 00 00 0e  .....$..........
	// 0010  00 61 6c 69 63 65 00 2a 2a 2a 2a 2a 2a 00        .alice.******.
}
