// Package secret decides which values of a decoded Kafka message are
// credentials, and redacts them: kwire proxy, pcap, call and log show a
// credential as "<redacted, N bytes>" (N the length of its contents) unless
// asked to show secrets (--show-secrets). kwire show, decode and encode show
// the bytes a user hands in as they are.
//
// Redact marks each secret leaf of a span tree with tree.FlagSecret and
// overwrites its secret bytes in Tree.Bytes with Fill, so that a view that
// shows bytes (a hex grid, base64) shows only Fill where the secret was,
// and a view that shows values (text trees, the page JSON, Kafka-converter
// JSON) shows "<redacted, N bytes>" (Text). The secrets are:
//
//   - SaslAuthenticateRequest.AuthBytes and SaslAuthenticateResponse.AuthBytes:
//     the bytes SASLRanges finds for the connection's mechanism (PLAIN's
//     password, SCRAM's proofs, salts and server signatures, OAUTHBEARER's
//     token, all of GSSAPI's and an unknown mechanism's tokens);
//   - in a message of an authentication exchange (SaslHandshake and
//     SaslAuthenticate, request or response, any version) that did not
//     decode whole — a version the specs do not have, an auth_bytes length
//     past the end of the frame, a frame cut short — every byte that was
//     not decoded (each Raw node: the undecoded rest, an unknown tagged
//     field's payload), since where the credential lies in them is not
//     known;
//   - a frame a client sends while its connection authenticates (after
//     the SASL handshake, until authentication ends) that is not a
//     SaslAuthenticate request that decoded: all of it but its size
//     prefix (RedactFrame; package flow says when authentication ends);
//   - a response whose request was not seen (a capture that began after
//     it): what it answers is not known, so it may be any of these (a
//     SaslAuthenticate response's server signature), and every byte after
//     its correlation id is secret (RedactUnattributed);
//   - the fields Hmac (the HMAC of a delegation token, the token's password:
//     CreateDelegationTokenResponse, RenewDelegationTokenRequest,
//     ExpireDelegationTokenRequest, DescribeDelegationTokenResponse), Salt
//     and SaltedPassword (AlterUserScramCredentialsRequest), Salt, StoredKey
//     and ServerKey (the UserScramCredentialRecord of the metadata log: what
//     SCRAM's salted password derives);
//   - config values: the string Value of a struct that also holds a string
//     Name or Key, when SensitiveConfig says the name is sensitive, when the
//     struct's IsSensitive is true (DescribeConfigsResponse,
//     CreateTopicsResponse), or when it lies inside such a struct (the
//     Synonyms of a sensitive config). This covers AlterConfigsRequest,
//     IncrementalAlterConfigsRequest, CreateTopicsRequest and Response,
//     DescribeConfigsResponse and the metadata log's ConfigRecord. A null
//     value is not marked;
//   - the bytes of KRaft metadata records that were not decoded (a Raw
//     leaf with tree.AuxUndecodedSecret: past a bound, a partial batch at
//     the end of a Fetch, a record type the specs do not have, a payload
//     not decompressed), whole, since what they hold is not known;
//   - the compressed payload (its leaf, whole) of a decompressed view that
//     holds any of these, and of the views around it: compressed, the
//     secret is still there, often as it is (a zstd or lz4 literal).
package secret

import (
	"strconv"
	"strings"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
)

// Fill is the byte that overwrites secret bytes ('*').
const Fill = '*'

// Text is how views show a secret of n bytes: "<redacted, 5 bytes>".
func Text(n int) string {
	if n == 1 {
		return "<redacted, 1 byte>"
	}
	return "<redacted, " + strconv.Itoa(n) + " bytes>"
}

// Options give what Redact needs beyond the tree.
type Options struct {
	// Mechanism is the SASL mechanism of the connection the tree was seen
	// on (its last SaslHandshakeRequest's), "" when unknown: all of a
	// SaslAuthenticate message's auth bytes are then secret.
	Mechanism string
	// Show shows the secrets: Redact and Redacted leave the tree as it is
	// (--show-secrets).
	Show bool
}

// SensitiveConfig reports whether a config of this name holds a secret, by
// the names Kafka gives its PASSWORD-type configs (compared in lower
// case, with any listener or mechanism prefix, as in
// "listener.name.sasl_ssl.plain.sasl.jaas.config"):
//
//   - its last dot-separated word is "password", "passphrase" or
//     "secret" (ssl.key.password, ssl.keystore.password,
//     ssl.truststore.password, password.encoder.secret,
//     sasl.oauthbearer.client.credentials.client.secret), or it ends in
//     ".key" (ssl.keystore.key, delegation.token.secret.key,
//     delegation.token.master.key);
//   - it ends in "sasl.jaas.config" (which holds passwords inline),
//     "ssl.keystore.certificate.chain" or "ssl.truststore.certificates".
func SensitiveConfig(name string) bool {
	n := strings.ToLower(name)
	last := n[strings.LastIndexByte(n, '.')+1:]
	switch last {
	case "password", "passphrase", "secret":
		return true
	}
	return strings.HasSuffix(n, ".key") || strings.HasSuffix(n, "sasl.jaas.config") ||
		strings.HasSuffix(n, "ssl.keystore.certificate.chain") || strings.HasSuffix(n, "ssl.truststore.certificates")
}

// secretFields are the fields whose every non-null value is a secret.
var secretFields = map[string]bool{"Hmac": true, "Salt": true, "SaltedPassword": true, "StoredKey": true, "ServerKey": true}

// Redact marks the secrets of t (see the package doc) with
// tree.FlagSecret and overwrites their secret bytes in t.Bytes (and
// t.Virtual) with Fill, in place: t's bytes must be the caller's own. It
// returns the number of leaves marked (0 with Options.Show, which leaves t
// alone). Redacting a tree twice changes nothing more.
func Redact(t *tree.Tree, o Options) int {
	if t == nil || len(t.Nodes) == 0 || o.Show {
		return 0
	}
	r := newRedactor(t, o, false)
	r.walk()
	return r.n
}

// walk redacts every node of the tree. A secret inside a decompressed view
// makes the compressed payload it was decompressed from secret whole (and
// the payloads of the views around it): the payload holds the secret too,
// compressed, often as it is (a zstd or lz4 literal).
func (r *redactor) walk() {
	t := r.t
	type view struct {
		i    int32
		done bool
	}
	var open []view // the Decompressed nodes around node i
	for k := range t.Nodes {
		i := int32(k)
		for len(open) > 0 && t.Nodes[open[len(open)-1].i].End <= i {
			open = open[:len(open)-1]
		}
		if t.Nodes[i].Kind() == tree.Decompressed {
			open = append(open, view{i: i})
		}
		before := r.n
		r.node(i)
		if r.n == before {
			continue
		}
		for v := range open {
			if p := open[v].i - 1; !open[v].done && p >= 0 && t.IsLeaf(p) {
				open[v].done = true
				r.mark(p, []Range{{0, t.DataLen(p)}})
			}
		}
	}
}

// RedactUnattributed overwrites with Fill every byte of t, a tree that
// holds only the bytes of a response whose request was not seen (no
// nodes: nothing says what it is), after its size prefix and correlation
// id, in place; it returns the number of bytes overwritten.
func RedactUnattributed(t *tree.Tree) int {
	if t == nil || len(t.Nodes) > 0 || len(t.Bytes) <= 8 {
		return 0
	}
	d := t.Bytes[8:]
	for i := range d {
		d[i] = Fill
	}
	return len(d)
}

// Redacted returns t with its secrets redacted: t itself when it holds
// none, else a copy (Nodes, Bytes and Virtual copied) that Redact
// changed, t unchanged.
func Redacted(t *tree.Tree, o Options) *tree.Tree {
	if t == nil || o.Show || !Has(t, o) {
		return t
	}
	c := *t
	c.Nodes = append([]tree.Node(nil), t.Nodes...)
	c.Bytes = append([]byte(nil), t.Bytes...)
	if t.Virtual != nil {
		c.Virtual = append([]byte(nil), t.Virtual...)
	}
	Redact(&c, o)
	return &c
}

// Has reports whether t holds a secret that Redact would mark.
func Has(t *tree.Tree, o Options) bool {
	if t == nil || len(t.Nodes) == 0 {
		return false
	}
	r := newRedactor(t, o, true)
	for i := range t.Nodes {
		if r.node(int32(i)); r.n > 0 {
			return true
		}
	}
	return false
}

// The api keys of the authentication exchange: SaslHandshake and
// SaslAuthenticate.
const (
	saslHandshakeKey    = 17
	saslAuthenticateKey = 36
)

// Auth reports whether m is a message of an authentication exchange: a
// SaslHandshake or SaslAuthenticate request or response (every version:
// the api key says it).
func Auth(m *spec.Message) bool {
	return m != nil && (m.Type == spec.Request || m.Type == spec.Response) &&
		(m.APIKey == saslHandshakeKey || m.APIKey == saslAuthenticateKey)
}

func newRedactor(t *tree.Tree, o Options, dry bool) redactor {
	r := redactor{t: t, o: o, dry: dry}
	if t.Message != nil {
		r.client = t.Message.Type == spec.Request
		r.auth = Auth(t.Message)
	}
	return r
}

type redactor struct {
	t      *tree.Tree
	o      Options
	client bool
	// auth: t is a message of an authentication exchange, whose
	// undecoded bytes are secret.
	auth bool
	dry  bool
	n    int
	// sensitiveEnd is the node index up to which the nodes lie inside a
	// struct whose IsSensitive is true.
	sensitiveEnd int32
}

// node handles node i: a secret field, or a struct holding a config.
func (r *redactor) node(i int32) {
	t := r.t
	n := &t.Nodes[i]
	switch n.Kind() {
	case tree.Field, tree.Element:
		if n.Kind() == tree.Element && t.Struct(i) != nil {
			r.config(i)
			return
		}
		f := t.Field(i)
		if f == nil || n.Null() {
			return
		}
		switch {
		case secretFields[f.Name] && isBytes(n):
			r.mark(i, []Range{{0, t.DataLen(i)}})
		case f.Name == "AuthBytes" && isBytes(n):
			r.mark(i, SASLRanges(r.o.Mechanism, r.client, t.Data(i)))
		}
	case tree.Body, tree.Struct, tree.Embedded:
		if !n.Null() {
			r.config(i)
		}
	case tree.Raw:
		if r.auth || n.Aux() == tree.AuxUndecodedSecret {
			r.mark(i, []Range{{0, t.DataLen(i)}})
		}
	}
}

func isBytes(n *tree.Node) bool {
	switch n.Wire() {
	case tree.WireBytes, tree.WireCompactBytes, tree.WireString, tree.WireCompactString:
		return true
	}
	return false
}

// config marks the Value of struct-like node i when it is a sensitive
// config's.
func (r *redactor) config(i int32) {
	t := r.t
	name, value, sensitive := int32(-1), int32(-1), false
	t.Fields(i, func(c int32) bool {
		f := t.Field(c)
		if f == nil {
			return true
		}
		n := &t.Nodes[c]
		switch f.Name {
		case "Name", "Key":
			if n.Kind() == tree.Field && isBytes(n) {
				name = c
			}
		case "Value":
			if n.Kind() == tree.Field && isBytes(n) {
				value = c
			}
		case "IsSensitive":
			sensitive = n.Kind() == tree.Field && n.Wire() == tree.WireBool && t.Num(c) != 0
		}
		return true
	})
	if sensitive {
		r.sensitiveEnd = max(r.sensitiveEnd, t.Nodes[i].End)
	}
	if value < 0 || t.Nodes[value].Null() {
		return
	}
	if sensitive || i < r.sensitiveEnd || (name >= 0 && SensitiveConfig(string(t.Data(name)))) {
		r.mark(value, []Range{{0, t.DataLen(value)}})
	}
}

// mark flags leaf i secret and fills the ranges of its contents.
func (r *redactor) mark(i int32, rs []Range) {
	if len(rs) == 0 {
		return
	}
	r.n++
	if r.dry {
		return
	}
	t := r.t
	n := &t.Nodes[i]
	n.AddFlags(tree.FlagSecret)
	d := t.Data(i)
	for _, g := range rs {
		if g.Off < 0 || g.Off+g.Len > len(d) {
			continue
		}
		for k := g.Off; k < g.Off+g.Len; k++ {
			d[k] = Fill
		}
	}
}

// RedactFrame redacts the whole of t, the tree of a frame a client sent
// while its connection authenticates (after the SASL handshake, before
// authentication ends) that is not a SaslAuthenticate request that
// decoded: what it holds is not known, so it may be the credential itself
// (a token sent where a request was expected). Every byte after the int32
// size prefix, in t.Bytes and t.Virtual, is overwritten with Fill, and
// every leaf but the size prefix's is marked tree.FlagSecret, in place.
// It returns the number of bytes overwritten; with Options.Show it
// leaves t alone and returns 0.
func RedactFrame(t *tree.Tree, o Options) int {
	if t == nil || o.Show {
		return 0
	}
	n := 0
	if len(t.Bytes) > 4 {
		d := t.Bytes[4:]
		for i := range d {
			d[i] = Fill
		}
		n += len(d)
	}
	for i := range t.Virtual {
		t.Virtual[i] = Fill
	}
	n += len(t.Virtual)
	frame := int32(-1)
	for i := range t.Nodes {
		k := int32(i)
		if t.Nodes[i].Kind() == tree.Frame && frame < 0 {
			frame = k
		}
		if frame >= 0 && k > frame && k < t.EndOf(frame) {
			continue
		}
		if t.IsLeaf(k) {
			t.Nodes[i].AddFlags(tree.FlagSecret)
		}
	}
	return n
}
