package frame_test

import (
	"fmt"
	"testing"

	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/spec"
)

// apiVersionsV3 is an ApiVersions v3 request (header v2, client id "kw",
// correlation id 1) with its body.
var apiVersionsV3 = []byte{0x00, 0x00, 0x00, 0x10, 0x00, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02, 'k', 'w', 0x00, 0x01, 0x01, 0x00}

func TestRecognize(t *testing.T) {
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	metadataV1 := []byte{0x00, 0x00, 0x00, 0x0e, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	for _, c := range []struct {
		name  string
		b     []byte
		short string
		want  string
		more  bool
	}{
		{"request", apiVersionsV3, "Kafka", `a Kafka request (ApiVersions v3, correlation id 1, client id "kw")`, false},
		{"header only", apiVersionsV3[:16], "Kafka", `a Kafka request (ApiVersions v3, correlation id 1, client id "kw")`, false},
		{"null client id", metadataV1, "Kafka", `a Kafka request (Metadata v1, correlation id 2, client id null)`, false},
		{"client id cut short", apiVersionsV3[:15], "binary", "no known protocol", true},
		{"size only", apiVersionsV3[:4], "binary", "no known protocol", true},
		{"unknown version", []byte{0, 0, 0, 0x10, 0x00, 0x12, 0x00, 0x63, 0, 0, 0, 1, 0, 2, 'k', 'w'}, "binary", "no known protocol", false},
		{"unknown api key", []byte{0, 0, 0, 0x10, 0x7f, 0x00, 0x00, 0x00, 0, 0, 0, 1, 0, 2, 'k', 'w'}, "binary", "no known protocol", false},
		{"negative correlation id", []byte{0, 0, 0, 0x10, 0x00, 0x12, 0x00, 0x03, 0xff, 0, 0, 1, 0, 2, 'k', 'w'}, "binary", "no known protocol", false},
		{"control character in client id", []byte{0, 0, 0, 0x10, 0x00, 0x12, 0x00, 0x03, 0, 0, 0, 1, 0, 2, 'k', 1}, "binary", "no known protocol", false},
		{"client id past the frame", []byte{0, 0, 0, 0x10, 0x00, 0x12, 0x00, 0x03, 0, 0, 0, 1, 0, 0x20, 'k', 'w'}, "binary", "no known protocol", false},
		{"TLS client hello", []byte{0x16, 0x03, 0x01, 0x02, 0x00, 0x01}, "TLS", "a TLS handshake record", false},
		{"TLS alert", []byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28}, "TLS", "a TLS alert (level 2, handshake_failure)", false},
		{"TLS alert cut short", []byte{0x15, 0x03, 0x03, 0x00, 0x02}, "TLS", "a TLS alert", false},
		{"HTTP response", []byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"), "HTTP", `HTTP ("HTTP/1.1 400 Bad Request")`, false},
		{"HTTP request", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), "HTTP", `HTTP ("GET / HTTP/1.1")`, false},
		{"SMTP greeting", []byte("220 mail.example ESMTP\r\n"), "text", `a text protocol ("220 mail.example ESMTP")`, false},
		{"binary", []byte{0x80, 0x01, 0x02, 0x03, 0x04}, "binary", "no known protocol", false},
	} {
		r := frame.Recognize(set, c.b)
		if r.Short() != c.short || r.String() != c.want || r.More != c.more {
			t.Errorf("%s: %s, %s, more %v; want %s, %s, more %v", c.name, r.Short(), r, r.More, c.short, c.want, c.more)
		}
	}
	// The size prefix of HTTP's status line is what a client reading a
	// Kafka frame sees: a size over the limit, which Recognize names.
	if size, _ := frame.Size([]byte("HTTP")); size != 1213486160 {
		t.Errorf("size of HTTP = %d", size)
	}
}

// What the first bytes of three streams are: a Kafka request, a TLS alert
// and an HTTP status line.
func ExampleRecognize() {
	set, err := spec.Embedded("4.4.0")
	if err != nil {
		panic(err)
	}
	for _, b := range [][]byte{
		{0x00, 0x00, 0x00, 0x10, 0x00, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02, 'k', 'w', 0x00, 0x01, 0x01, 0x00},
		{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28},
		[]byte("HTTP/1.1 400 Bad Request\r\n\r\n"),
	} {
		r := frame.Recognize(set, b)
		fmt.Printf("%s: %s\n", r.Short(), r)
	}
	// Output:
	// Kafka: a Kafka request (ApiVersions v3, correlation id 1, client id "kw")
	// TLS: a TLS alert (level 2, handshake_failure)
	// HTTP: HTTP ("HTTP/1.1 400 Bad Request")
}
