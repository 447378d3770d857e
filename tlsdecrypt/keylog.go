package tlsdecrypt

import (
	"bufio"

	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// Secrets are the secrets a key log holds for one TLS session, keyed in
// the KeyLog by its ClientHello random.
type Secrets struct {
	// Master is the TLS 1.2 master secret (CLIENT_RANDOM line), 48 bytes.
	Master []byte
	// ClientHandshake, ServerHandshake, ClientTraffic0 and ServerTraffic0
	// are the TLS 1.3 secrets (CLIENT_HANDSHAKE_TRAFFIC_SECRET,
	// SERVER_HANDSHAKE_TRAFFIC_SECRET, CLIENT_TRAFFIC_SECRET_0,
	// SERVER_TRAFFIC_SECRET_0), each of the suite's hash length. Later
	// traffic secrets (_N, after a KeyUpdate) are derived from these.
	ClientHandshake, ServerHandshake []byte
	ClientTraffic0, ServerTraffic0   []byte
}

// KeyLog is a parsed NSS key log file (the format SSLKEYLOGFILE, Go's
// tls.Config.KeyLogWriter and Java agents write).
type KeyLog struct {
	sessions map[[32]byte]*Secrets
}

// LineError is a key log line that could not be used.
type LineError struct {
	// Line is the 1-based line number.
	Line int
	// Reason says what is wrong.
	Reason string
}

// Error returns "key log line 3: …".
func (e *LineError) Error() string { return fmt.Sprintf("key log line %d: %s", e.Line, e.Reason) }

// maxLine bounds a key log line (a label and two hex values need far less).
const maxLine = 4096

// ParseKeyLog reads a key log: lines "LABEL <client random hex> <secret
// hex>", blank lines and lines starting with '#' ignored. Labels kwire does
// not use (EXPORTER_SECRET, CLIENT_EARLY_TRAFFIC_SECRET, _N traffic
// secrets for N > 0) are skipped silently. A malformed line is reported in
// the returned LineErrors and the other lines are used; the error is that of
// reading r.
func ParseKeyLog(r io.Reader) (*KeyLog, []*LineError, error) {
	kl := &KeyLog{sessions: map[[32]byte]*Secrets{}}
	var bad []*LineError
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			bad = append(bad, &LineError{n, fmt.Sprintf("%d fields, want 3 (label, client random, secret)", len(f))})
			continue
		}
		var slot func(s *Secrets) *[]byte
		switch f[0] {
		case "CLIENT_RANDOM":
			slot = func(s *Secrets) *[]byte { return &s.Master }
		case "CLIENT_HANDSHAKE_TRAFFIC_SECRET":
			slot = func(s *Secrets) *[]byte { return &s.ClientHandshake }
		case "SERVER_HANDSHAKE_TRAFFIC_SECRET":
			slot = func(s *Secrets) *[]byte { return &s.ServerHandshake }
		case "CLIENT_TRAFFIC_SECRET_0":
			slot = func(s *Secrets) *[]byte { return &s.ClientTraffic0 }
		case "SERVER_TRAFFIC_SECRET_0":
			slot = func(s *Secrets) *[]byte { return &s.ServerTraffic0 }
		default:
			if !isLabel(f[0]) {
				bad = append(bad, &LineError{n, fmt.Sprintf("%q is not a key log label", clip(f[0]))})
			}
			continue
		}
		cr, err := hex.DecodeString(f[1])
		if err != nil || len(cr) != 32 {
			bad = append(bad, &LineError{n, fmt.Sprintf("client random %q is not 32 bytes of hex", clip(f[1]))})
			continue
		}
		sec, err := hex.DecodeString(f[2])
		if err != nil || len(sec) == 0 || len(sec) > 64 {
			bad = append(bad, &LineError{n, fmt.Sprintf("secret %q is not 1 to 64 bytes of hex", clip(f[2]))})
			continue
		}
		if f[0] == "CLIENT_RANDOM" && len(sec) != 48 {
			bad = append(bad, &LineError{n, fmt.Sprintf("master secret of %d bytes, want 48", len(sec))})
			continue
		}
		k := [32]byte(cr)
		s := kl.sessions[k]
		if s == nil {
			s = &Secrets{}
			kl.sessions[k] = s
		}
		*slot(s) = sec
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			bad = append(bad, &LineError{n + 1, fmt.Sprintf("line longer than %d bytes; the rest of the file is not read", maxLine)})
			return kl, bad, nil
		}
		return kl, bad, err
	}
	return kl, bad, nil
}

// isLabel reports whether s looks like a key log label (upper case letters,
// digits and underscores), one this package does not use.
func isLabel(s string) bool {
	for _, c := range []byte(s) {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

// clip shortens a value quoted in an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Len returns the number of sessions the key log has secrets for.
func (kl *KeyLog) Len() int { return len(kl.sessions) }

// Lookup returns the secrets of the session whose ClientHello random is
// clientRandom, or nil.
func (kl *KeyLog) Lookup(clientRandom []byte) *Secrets {
	if kl == nil || len(clientRandom) != 32 {
		return nil
	}
	return kl.sessions[[32]byte(clientRandom)]
}
