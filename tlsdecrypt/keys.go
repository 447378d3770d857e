package tlsdecrypt

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"fmt"
	"hash"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"
)

// Suite is a cipher suite this package decrypts.
type Suite struct {
	// ID is the suite's code point; Name its IANA name.
	ID   uint16
	Name string
	// TLS13 says it is a TLS 1.3 suite.
	TLS13 bool
	// KeyLen is the AEAD key length in bytes; chacha says the AEAD is
	// ChaCha20-Poly1305 (else AES-GCM).
	KeyLen int
	chacha bool
	// Hash is the suite's hash (PRF for TLS 1.2, HKDF for TLS 1.3).
	Hash crypto.Hash
}

var suites = map[uint16]*Suite{}

func init() {
	for _, s := range []Suite{
		{ID: tls.TLS_AES_128_GCM_SHA256, TLS13: true, KeyLen: 16, Hash: crypto.SHA256},
		{ID: tls.TLS_AES_256_GCM_SHA384, TLS13: true, KeyLen: 32, Hash: crypto.SHA384},
		{ID: tls.TLS_CHACHA20_POLY1305_SHA256, TLS13: true, KeyLen: 32, chacha: true, Hash: crypto.SHA256},
		{ID: tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, KeyLen: 16, Hash: crypto.SHA256},
		{ID: tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, KeyLen: 16, Hash: crypto.SHA256},
		{ID: tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, KeyLen: 32, Hash: crypto.SHA384},
		{ID: tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, KeyLen: 32, Hash: crypto.SHA384},
		{ID: tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, KeyLen: 32, chacha: true, Hash: crypto.SHA256},
		{ID: tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, KeyLen: 32, chacha: true, Hash: crypto.SHA256},
	} {
		s.Name = tls.CipherSuiteName(s.ID)
		suites[s.ID] = &s
	}
}

// otherSuites names common suites crypto/tls does not implement (and so
// tls.CipherSuiteName does not name).
var otherSuites = map[uint16]string{
	0x0035: "TLS_RSA_WITH_AES_256_CBC_SHA",
	0x003d: "TLS_RSA_WITH_AES_256_CBC_SHA256",
	0x0067: "TLS_DHE_RSA_WITH_AES_128_CBC_SHA256",
	0x006b: "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256",
	0x009e: "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256",
	0x009f: "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384",
	0xc024: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384",
	0xc028: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384",
	0xccaa: "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
	0x1304: "TLS_AES_128_CCM_SHA256",
	0x1305: "TLS_AES_128_CCM_8_SHA256",
}

// LookupSuite returns the suite with code point id, or nil when this
// package cannot decrypt it.
func LookupSuite(id uint16) *Suite { return suites[id] }

// whyNot says why a suite cannot be decrypted: "TLS_RSA_WITH_AES_128_CBC_SHA256
// (0x003d): RSA key exchange/CBC not supported".
func whyNot(id uint16) string {
	name := otherSuites[id]
	if name == "" {
		name = tls.CipherSuiteName(id)
	}
	var why []string
	if strings.HasPrefix(name, "TLS_RSA_") {
		why = append(why, "RSA key exchange")
	}
	if strings.Contains(name, "_CBC_") {
		why = append(why, "CBC")
	}
	if strings.Contains(name, "_RC4_") {
		why = append(why, "RC4")
	}
	if strings.Contains(name, "3DES") {
		why = append(why, "3DES")
	}
	if strings.Contains(name, "_CCM") {
		why = append(why, "AES-CCM")
	}
	reason := "not supported"
	if len(why) > 0 {
		reason = strings.Join(why, "/") + " not supported"
	} else if strings.HasPrefix(name, "0x") {
		reason = "an unknown suite"
	}
	return fmt.Sprintf("%s (0x%04x): %s", name, id, reason)
}

// newAEAD returns the suite's AEAD with key.
func (s *Suite) newAEAD(key []byte) (cipher.AEAD, error) {
	if s.chacha {
		return chacha20poly1305.New(key)
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

func (s *Suite) newHash() func() hash.Hash {
	if s.Hash == crypto.SHA384 {
		return sha512.New384
	}
	return sha256.New
}

// ExpandLabel is TLS 1.3's HKDF-Expand-Label (RFC 8446 section 7.1) with
// the suite's hash: length bytes from secret for label (without the "tls13 "
// prefix) and context.
func (s *Suite) ExpandLabel(secret []byte, label string, context []byte, length int) ([]byte, error) {
	full := "tls13 " + label
	info := make([]byte, 0, 4+len(full)+len(context))
	info = append(info, byte(length>>8), byte(length), byte(len(full)))
	info = append(info, full...)
	info = append(info, byte(len(context)))
	info = append(info, context...)
	return hkdf.Expand(s.newHash(), secret, string(info), length)
}

// TrafficKeys returns a TLS 1.3 record key and IV (12 bytes) of a traffic
// secret (RFC 8446 section 7.3).
func (s *Suite) TrafficKeys(secret []byte) (key, iv []byte, err error) {
	if key, err = s.ExpandLabel(secret, "key", nil, s.KeyLen); err != nil {
		return nil, nil, err
	}
	iv, err = s.ExpandLabel(secret, "iv", nil, 12)
	return key, iv, err
}

// NextSecret returns the traffic secret after a KeyUpdate:
// HKDF-Expand-Label(secret, "traffic upd", "", Hash.length).
func (s *Suite) NextSecret(secret []byte) ([]byte, error) {
	return s.ExpandLabel(secret, "traffic upd", nil, s.Hash.Size())
}

// prf12 is the TLS 1.2 PRF (RFC 5246 section 5): P_hash(secret, label+seed)
// with the suite's hash, n bytes.
func (s *Suite) prf12(secret []byte, label string, seed []byte, n int) []byte {
	h := s.newHash()
	ls := append([]byte(label), seed...)
	out := make([]byte, 0, n+64)
	mac := hmac.New(h, secret)
	mac.Write(ls)
	a := mac.Sum(nil) // A(1)
	for len(out) < n {
		mac.Reset()
		mac.Write(a)
		mac.Write(ls)
		out = mac.Sum(out)
		mac.Reset()
		mac.Write(a)
		a = mac.Sum(nil)
	}
	return out[:n]
}

// KeyBlock12 returns the TLS 1.2 write keys and IVs of an AEAD suite from
// the master secret and the two hello randoms: the key block is
// PRF(master, "key expansion", server_random + client_random), cut into
// client and server keys then client and server IVs (4 bytes for GCM,
// the implicit part of the nonce; 12 for ChaCha20-Poly1305). AEAD suites
// have no MAC keys.
func (s *Suite) KeyBlock12(master, clientRandom, serverRandom []byte) (ckey, skey, civ, siv []byte) {
	ivLen := 4
	if s.chacha {
		ivLen = 12
	}
	seed := append(append([]byte{}, serverRandom...), clientRandom...)
	kb := s.prf12(master, "key expansion", seed, 2*s.KeyLen+2*ivLen)
	ckey, kb = kb[:s.KeyLen], kb[s.KeyLen:]
	skey, kb = kb[:s.KeyLen], kb[s.KeyLen:]
	civ, siv = kb[:ivLen], kb[ivLen:]
	return
}
