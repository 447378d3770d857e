package tlsdecrypt

import (
	"bytes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"
)

// Dir is a direction of the connection.
type Dir uint8

const (
	// ClientToServer is the client's stream.
	ClientToServer Dir = 0
	// ServerToClient is the server's stream.
	ServerToClient Dir = 1
)

func (d Dir) String() string {
	if d == ServerToClient {
		return "server→client"
	}
	return "client→server"
}

// Record types (RFC 8446 section 5.1).
const (
	typeChangeCipherSpec = 20
	typeAlert            = 21
	typeHandshake        = 22
	typeApplicationData  = 23
)

// maxRecord is the largest TLSCiphertext fragment TLS 1.2 allows
// (2^14 + 2048); TLS 1.3's limit (2^14 + 256) is below it.
const maxRecord = 1<<14 + 2048

// MaxHandshake bounds one handshake message (a certificate chain is the
// largest there usually is); a larger one is reported and that direction
// is not decrypted further.
const MaxHandshake = 1 << 18

// Looks reports whether b, the first bytes of a stream, start like a TLS
// record: a content type 20 to 23 and a version 3.x. A Kafka frame cannot
// start so (its size would be over 335 MB).
func Looks(b []byte) bool {
	return len(b) >= 3 && b[0] >= typeChangeCipherSpec && b[0] <= typeApplicationData && b[1] == 3 && b[2] <= 4
}

// Session describes a session once its ServerHello is read.
type Session struct {
	// ClientRandom is the ClientHello random (how the key log names it).
	ClientRandom []byte
	// ServerName is the ClientHello's server_name (SNI), "" when absent.
	ServerName string
	// Version is 0x0303 (TLS 1.2) or 0x0304 (TLS 1.3).
	Version uint16
	// Suite is the chosen suite's code point, SuiteName its name.
	Suite     uint16
	SuiteName string
	// Keys says the key log has the session's secrets.
	Keys bool
}

// String returns "TLS 1.3 TLS_AES_128_GCM_SHA256 session client_random=…
// server_name=…".
func (s *Session) String() string {
	v := "TLS 1.2"
	if s.Version == 0x0304 {
		v = "TLS 1.3"
	}
	str := fmt.Sprintf("%s %s session client_random=%x", v, s.SuiteName, s.ClientRandom)
	if s.ServerName != "" {
		str += " server_name=" + s.ServerName
	}
	return str
}

// Options configure a Conn.
type Options struct {
	// KeyLog holds the secrets; sessions it lacks are reported.
	KeyLog *KeyLog
	// Data receives each direction's decrypted application data in order;
	// p is valid only during the call.
	Data func(d Dir, p []byte, t time.Time)
	// Problem receives what cannot be decrypted: off is the TCP stream
	// offset of the record concerned, msg a sentence starting with "TLS".
	Problem func(d Dir, off int64, t time.Time, msg string)
	// Session, when not nil, is called once the ServerHello is read.
	Session func(s *Session, t time.Time)
}

// half is one direction.
type half struct {
	buf  []byte // bytes of an incomplete record
	off  int64  // TCP stream offset of buf[0]
	hs   []byte // bytes of incomplete handshake messages
	aead cipher.AEAD
	iv   []byte
	seq  uint64
	// secret is the current TLS 1.3 traffic secret; app says it is an
	// application traffic secret (else the handshake one).
	secret []byte
	app    bool
	// key12 and iv12 wait for this direction's ChangeCipherSpec (TLS 1.2).
	key12, iv12 []byte
	dead        bool
}

// Conn decrypts one TCP connection's TLS session.
type Conn struct {
	o            Options
	h            [2]half
	clientRandom []byte
	serverName   string
	suite        *Suite
	version      uint16
	sec          *Secrets
	// dead: the connection is not decrypted any further.
	dead    bool
	started bool
}

// New returns a Conn for one connection.
func New(o Options) *Conn { return &Conn{o: o} }

func (c *Conn) problem(d Dir, off int64, t time.Time, format string, args ...any) {
	if c.o.Problem != nil {
		c.o.Problem(d, off, t, fmt.Sprintf(format, args...))
	}
}

// stop reports a problem and stops decrypting the whole connection.
func (c *Conn) stop(d Dir, off int64, t time.Time, format string, args ...any) {
	if c.dead {
		return
	}
	c.dead = true
	c.problem(d, off, t, format+"; this connection is not decoded further", args...)
}

// kill reports a problem and stops decrypting direction d.
func (c *Conn) kill(d Dir, off int64, t time.Time, format string, args ...any) {
	h := &c.h[d]
	if h.dead || c.dead {
		return
	}
	h.dead = true
	h.buf, h.hs = nil, nil
	c.problem(d, off, t, format+"; this direction is not decrypted further", args...)
}

func (c *Conn) name() string {
	s := fmt.Sprintf("TLS session client_random=%s", hex.EncodeToString(c.clientRandom))
	if c.serverName != "" {
		s += " (server_name " + c.serverName + ")"
	}
	return s
}

// Data takes the next bytes of direction d's TCP stream.
func (c *Conn) Data(d Dir, p []byte, t time.Time) {
	h := &c.h[d]
	if c.dead || h.dead {
		return
	}
	for len(p) > 0 && !h.dead && !c.dead {
		// Complete a pending record first.
		if len(h.buf) > 0 || len(p) < 5 {
			if len(h.buf) < 5 {
				n := min(5-len(h.buf), len(p))
				h.buf = append(h.buf, p[:n]...)
				p = p[n:]
				if len(h.buf) < 5 {
					continue
				}
				if !c.header(d, h.buf, h.off, t) {
					return
				}
			}
			need := 5 + int(binary.BigEndian.Uint16(h.buf[3:]))
			n := min(need-len(h.buf), len(p))
			h.buf = append(h.buf, p[:n]...)
			p = p[n:]
			if len(h.buf) < need {
				continue
			}
			rec := h.buf
			h.buf = h.buf[:0]
			c.record(d, rec[0], rec[:5], rec[5:], h.off, t)
			h.off += int64(len(rec))
			continue
		}
		if !c.header(d, p, h.off, t) {
			return
		}
		n := 5 + int(binary.BigEndian.Uint16(p[3:]))
		if len(p) < n {
			h.buf = append(h.buf[:0], p...)
			return
		}
		c.record(d, p[0], p[:5], p[5:n], h.off, t)
		h.off += int64(n)
		p = p[n:]
	}
}

// header checks a record header.
func (c *Conn) header(d Dir, b []byte, off int64, t time.Time) bool {
	n := int(binary.BigEndian.Uint16(b[3:]))
	if b[0] < typeChangeCipherSpec || b[0] > typeApplicationData || b[1] != 3 {
		c.kill(d, off, t, "TLS: bytes % x at stream offset %d are not a TLS record header", b[:5], off)
		return false
	}
	if n > maxRecord {
		c.kill(d, off, t, "TLS: record of %d bytes at stream offset %d is over the limit of %d", n, off, maxRecord)
		return false
	}
	return true
}

// Gap notes n bytes of direction d's stream missing from the capture: the
// records they held are lost and with them the record sequence numbers, so
// the direction cannot be decrypted further.
func (c *Conn) Gap(d Dir, n int64, t time.Time) {
	h := &c.h[d]
	off := h.off + int64(len(h.buf))
	if !c.started {
		c.started = true
		c.stop(d, off, t, "TLS: the capture starts inside a TLS session (no ClientHello captured), so its keys cannot be found")
		return
	}
	c.kill(d, off, t, "TLS: %d bytes missing inside the TLS stream of %s: records are lost", n, c.name())
	h.off = off + n
}

// End notes the end of direction d's stream: an incomplete record is
// reported.
func (c *Conn) End(d Dir, t time.Time) {
	h := &c.h[d]
	if len(h.buf) > 0 && !h.dead && !c.dead {
		c.kill(d, h.off, t, "TLS: the stream ends inside a record (%d bytes of it arrived)", len(h.buf))
	}
}

// record handles one whole record.
func (c *Conn) record(d Dir, typ byte, hdr, body []byte, off int64, t time.Time) {
	h := &c.h[d]
	if !c.started {
		c.started = true
		if d != ClientToServer || typ != typeHandshake || len(body) == 0 || body[0] != msgClientHello {
			c.stop(d, off, t, "TLS: the capture starts inside a TLS session (no ClientHello captured), so its keys cannot be found")
			return
		}
	}
	if h.aead == nil {
		switch typ {
		case typeHandshake:
			c.handshake(d, body, off, t)
		case typeChangeCipherSpec:
			if c.version == 0x0303 && h.key12 != nil {
				aead, err := c.suite.newAEAD(h.key12)
				if err != nil {
					c.kill(d, off, t, "TLS: %v", err)
					return
				}
				h.aead, h.iv, h.seq = aead, h.iv12, 0
			}
		case typeApplicationData:
			if c.version == 0 {
				c.stop(d, off, t, "TLS: application data at stream offset %d before the handshake", off)
			} else {
				c.kill(d, off, t, "TLS: application data at stream offset %d before the keys changed", off)
			}
		}
		return
	}
	if c.version == 0x0304 && typ == typeChangeCipherSpec {
		return // middlebox compatibility (RFC 8446 section 5)
	}
	plain, inner, ok := c.open(h, typ, hdr, body)
	if !ok {
		c.kill(d, off, t, "TLS: the record at stream offset %d (sequence number %d) of %s does not decrypt: wrong keys or a damaged record", off, h.seq, c.name())
		return
	}
	h.seq++
	switch inner {
	case typeApplicationData:
		if c.o.Data != nil && len(plain) > 0 {
			c.o.Data(d, plain, t)
		}
	case typeHandshake:
		c.handshake(d, plain, off, t)
	}
}

// open decrypts a record with h's keys, returning the plaintext and its
// (inner, for TLS 1.3) content type.
func (c *Conn) open(h *half, typ byte, hdr, body []byte) ([]byte, byte, bool) {
	ov := h.aead.Overhead()
	var nonce [12]byte
	var seq [8]byte
	binary.BigEndian.PutUint64(seq[:], h.seq)
	if c.version == 0x0304 {
		if typ != typeApplicationData || len(body) < ov+1 {
			return nil, 0, false
		}
		copy(nonce[:], h.iv)
		for i := range 8 {
			nonce[4+i] ^= seq[i]
		}
		plain, err := h.aead.Open(body[:0:0], nonce[:], body, hdr)
		if err != nil {
			return nil, 0, false
		}
		i := len(plain) - 1
		for i >= 0 && plain[i] == 0 {
			i--
		}
		if i < 0 {
			return nil, 0, false
		}
		return plain[:i], plain[i], true
	}
	var aad [13]byte
	copy(aad[:], seq[:])
	copy(aad[8:], hdr[:3])
	if c.suite.chacha {
		if len(body) < ov {
			return nil, 0, false
		}
		copy(nonce[:], h.iv)
		for i := range 8 {
			nonce[4+i] ^= seq[i]
		}
	} else {
		if len(body) < 8+ov {
			return nil, 0, false
		}
		copy(nonce[:4], h.iv)
		copy(nonce[4:], body[:8])
		body = body[8:]
	}
	binary.BigEndian.PutUint16(aad[11:], uint16(len(body)-ov))
	plain, err := h.aead.Open(body[:0:0], nonce[:], body, aad[:])
	if err != nil {
		return nil, 0, false
	}
	return plain, typ, true
}

// helloRetryRandom is the ServerHello random of a HelloRetryRequest
// (RFC 8446 section 4.1.3).
var helloRetryRandom = sha256.Sum256([]byte("HelloRetryRequest"))

// handshake takes handshake bytes (plaintext) of direction d and handles
// each whole message.
func (c *Conn) handshake(d Dir, p []byte, off int64, t time.Time) {
	h := &c.h[d]
	h.hs = append(h.hs, p...)
	for !h.dead && !c.dead {
		if len(h.hs) < 4 {
			return
		}
		n := int(h.hs[1])<<16 | int(h.hs[2])<<8 | int(h.hs[3])
		if n > MaxHandshake {
			c.kill(d, off, t, "TLS: handshake message of %d bytes (type %d) is over the limit of %d", n, h.hs[0], MaxHandshake)
			return
		}
		if len(h.hs) < 4+n {
			return
		}
		typ, msg := h.hs[0], h.hs[4:4+n]
		c.message(d, typ, msg, off, t)
		if h.hs == nil { // killed
			return
		}
		h.hs = h.hs[4+n:]
		if len(h.hs) == 0 {
			h.hs = nil
		}
	}
}

// Handshake message types.
const (
	msgClientHello = 1
	msgServerHello = 2
	msgFinished    = 20
	msgKeyUpdate   = 24
)

func (c *Conn) message(d Dir, typ byte, msg []byte, off int64, t time.Time) {
	h := &c.h[d]
	switch {
	case typ == msgClientHello && d == ClientToServer && h.aead == nil:
		if c.clientRandom != nil {
			return // the second ClientHello after a HelloRetryRequest keeps the random
		}
		cr, sni, ok := parseClientHello(msg)
		if !ok {
			c.stop(d, off, t, "TLS: the ClientHello at stream offset %d does not parse", off)
			return
		}
		c.clientRandom, c.serverName = cr, sni
	case typ == msgServerHello && d == ServerToClient && h.aead == nil:
		c.serverHello(msg, off, t)
	case typ == msgFinished && c.version == 0x0304 && !h.app:
		sec := c.sec.ClientTraffic0
		if d == ServerToClient {
			sec = c.sec.ServerTraffic0
		}
		if len(sec) == 0 {
			c.kill(d, off, t, "TLS: the key log has no %s for %s", map[Dir]string{0: "CLIENT_TRAFFIC_SECRET_0", 1: "SERVER_TRAFFIC_SECRET_0"}[d], c.name())
			return
		}
		h.app = true
		c.install13(d, sec, off, t)
	case typ == msgKeyUpdate && c.version == 0x0304 && h.app:
		next, err := c.suite.NextSecret(h.secret)
		if err != nil {
			c.kill(d, off, t, "TLS: %v", err)
			return
		}
		c.install13(d, next, off, t)
	}
}

// install13 sets direction d's TLS 1.3 keys from a traffic secret.
func (c *Conn) install13(d Dir, secret []byte, off int64, t time.Time) {
	h := &c.h[d]
	key, iv, err := c.suite.TrafficKeys(secret)
	if err == nil {
		h.aead, err = c.suite.newAEAD(key)
	}
	if err != nil {
		c.kill(d, off, t, "TLS: the secret of %s gives no key: %v", c.name(), err)
		return
	}
	h.secret, h.iv, h.seq = secret, iv, 0
}

func (c *Conn) serverHello(msg []byte, off int64, t time.Time) {
	d := ServerToClient
	if c.clientRandom == nil {
		c.stop(d, off, t, "TLS: a ServerHello at stream offset %d without a ClientHello captured", off)
		return
	}
	sr, suite, ver, ok := parseServerHello(msg)
	if !ok {
		c.stop(d, off, t, "TLS: the ServerHello at stream offset %d of %s does not parse", off, c.name())
		return
	}
	if ver == 0x0304 && bytes.Equal(sr, helloRetryRandom[:]) {
		return // a HelloRetryRequest: the real ServerHello follows
	}
	c.version = ver
	s := &Session{ClientRandom: c.clientRandom, ServerName: c.serverName, Version: ver, Suite: suite, SuiteName: whyNot(suite)}
	if ver != 0x0303 && ver != 0x0304 {
		c.stop(d, off, t, "TLS: %s uses protocol version 0x%04x; only TLS 1.2 and 1.3 are decrypted", c.name(), ver)
		return
	}
	c.suite = suites[suite]
	if c.suite == nil || c.suite.TLS13 != (ver == 0x0304) {
		c.stop(d, off, t, "TLS: %s uses cipher suite %s", c.name(), whyNot(suite))
		return
	}
	s.SuiteName = c.suite.Name
	c.sec = c.o.KeyLog.Lookup(c.clientRandom)
	if c.sec != nil && ver == 0x0303 && c.sec.Master == nil || c.sec != nil && ver == 0x0304 && (c.sec.ClientHandshake == nil || c.sec.ServerHandshake == nil) {
		c.sec = nil
	}
	s.Keys = c.sec != nil
	if c.o.Session != nil {
		c.o.Session(s, t)
	}
	if c.sec == nil {
		c.stop(d, off, t, "%s: no keys in the key log", c.name())
		return
	}
	if ver == 0x0304 {
		if hs := c.sec.ServerHandshake; len(hs) != c.suite.Hash.Size() {
			c.stop(d, off, t, "TLS: the key log's secrets for %s are %d bytes, the suite's hash gives %d", c.name(), len(hs), c.suite.Hash.Size())
			return
		}
		c.install13(ServerToClient, c.sec.ServerHandshake, off, t)
		c.install13(ClientToServer, c.sec.ClientHandshake, off, t)
		return
	}
	ck, sk, civ, siv := c.suite.KeyBlock12(c.sec.Master, c.clientRandom, sr)
	c.h[ClientToServer].key12, c.h[ClientToServer].iv12 = ck, civ
	c.h[ServerToClient].key12, c.h[ServerToClient].iv12 = sk, siv
}

// reader reads a handshake message's fields; ok turns false at the first
// read past the end.
type reader struct {
	b  []byte
	ok bool
}

func (r *reader) bytes(n int) []byte {
	if !r.ok || n > len(r.b) {
		r.ok = false
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8() int {
	b := r.bytes(1)
	if b == nil {
		return 0
	}
	return int(b[0])
}

func (r *reader) u16() int {
	b := r.bytes(2)
	if b == nil {
		return 0
	}
	return int(binary.BigEndian.Uint16(b))
}

// parseClientHello returns the random and the server_name.
func parseClientHello(m []byte) (random []byte, sni string, ok bool) {
	r := &reader{b: m, ok: true}
	r.bytes(2) // legacy_version
	random = r.bytes(32)
	r.bytes(r.u8())  // session id
	r.bytes(r.u16()) // cipher suites
	r.bytes(r.u8())  // compression methods
	if !r.ok {
		return nil, "", false
	}
	if len(r.b) == 0 {
		return random, "", true
	}
	ext := &reader{b: r.bytes(r.u16()), ok: r.ok}
	for ext.ok && len(ext.b) > 0 {
		typ := ext.u16()
		body := &reader{b: ext.bytes(ext.u16()), ok: ext.ok}
		if typ == 0 && body.ok { // server_name
			list := &reader{b: body.bytes(body.u16()), ok: body.ok}
			for list.ok && len(list.b) > 0 {
				kind := list.u8()
				name := list.bytes(list.u16())
				if list.ok && kind == 0 {
					sni = string(name)
				}
			}
		}
	}
	return random, sni, true
}

// parseServerHello returns the random, the suite and the version (that of
// supported_versions when present).
func parseServerHello(m []byte) (random []byte, suite uint16, ver uint16, ok bool) {
	r := &reader{b: m, ok: true}
	ver = uint16(r.u16())
	random = r.bytes(32)
	r.bytes(r.u8())
	suite = uint16(r.u16())
	r.u8() // compression
	if !r.ok {
		return nil, 0, 0, false
	}
	if len(r.b) == 0 {
		return random, suite, ver, true
	}
	ext := &reader{b: r.bytes(r.u16()), ok: r.ok}
	for ext.ok && len(ext.b) > 0 {
		typ := ext.u16()
		body := &reader{b: ext.bytes(ext.u16()), ok: ext.ok}
		if typ == 43 { // supported_versions
			if v := body.u16(); body.ok {
				ver = uint16(v)
			}
		}
	}
	return random, suite, ver, ext.ok
}
