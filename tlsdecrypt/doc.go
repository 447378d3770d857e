// Package tlsdecrypt decrypts passively captured TLS 1.2 and TLS 1.3
// sessions with the secrets of an NSS key log (the SSLKEYLOGFILE format),
// turning each direction's reassembled TCP bytes into the application data
// the two ends exchanged, for a Kafka conversation decoder.
//
// It reads the TLS record layer itself and derives the record keys itself
// because no maintained Go library decrypts a session it only watched:
// crypto/tls terminates connections, it does not follow a third party's.
// The cryptography is Go's: crypto/aes and crypto/cipher (AES-GCM),
// golang.org/x/crypto/chacha20poly1305, crypto/hkdf and crypto/hmac.
//
// What it decrypts: TLS 1.3 with TLS_AES_128_GCM_SHA256,
// TLS_AES_256_GCM_SHA384 and TLS_CHACHA20_POLY1305_SHA256, from the
// CLIENT_HANDSHAKE_TRAFFIC_SECRET, SERVER_HANDSHAKE_TRAFFIC_SECRET,
// CLIENT_TRAFFIC_SECRET_0 and SERVER_TRAFFIC_SECRET_0 lines (a KeyUpdate
// moves to the next traffic secret, derived as RFC 8446 section 7.2 says);
// TLS 1.2 with the ECDHE suites using AES-128-GCM, AES-256-GCM and
// ChaCha20-Poly1305, from the CLIENT_RANDOM line (the master secret; the key
// block comes from the TLS 1.2 PRF with the suite's hash). Sessions are
// found by the random of their ClientHello. Other suites (RSA key exchange,
// CBC, …) are named in a problem and the connection is not decoded.
//
// A Conn follows one TCP connection: Data and Gap take each direction's
// stream as package capture reassembles it; the plaintext of application
// data records goes to Options.Data in order, so stream offsets downstream
// count plaintext bytes. Problems (no keys for the session, a suite that
// cannot be decrypted, a session whose start was not captured, a record
// that does not decrypt, bytes missing inside the TLS stream, after which
// the sequence numbers are unknown and that direction cannot be decrypted
// further) go to Options.Problem, each once; none panics, and no buffer
// grows beyond one record (at most 18,437 bytes) or one handshake message
// (at most MaxHandshake bytes).
package tlsdecrypt
