package tlsconf

import (
	"crypto/tls"
	"sync/atomic"
)

// Reloader holds a certificate chain and key read from two PEM files, and
// reads them again on Reload: a configuration whose GetCertificate (a
// listener's) or GetClientCertificate (a client's) is the Reloader's gives
// every new handshake the files' latest pair, and connections already made
// keep theirs. Safe for concurrent use.
type Reloader struct {
	certFile, keyFile string
	cert              atomic.Pointer[tls.Certificate]
}

// NewReloader reads the pair (errors as Server's).
func NewReloader(certFile, keyFile string) (*Reloader, error) {
	r := &Reloader{certFile: certFile, keyFile: keyFile}
	return r, r.Reload()
}

// Reload reads the files again; on an error (naming the file) the pair
// read before stays in use.
func (r *Reloader) Reload() error {
	c, err := keyPair(r.certFile, r.keyFile)
	if err != nil {
		return err
	}
	r.cert.Store(&c)
	return nil
}

// GetCertificate is a tls.Config.GetCertificate: the pair read last.
func (r *Reloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return r.cert.Load(), nil
}

// GetClientCertificate is a tls.Config.GetClientCertificate: the pair
// read last.
func (r *Reloader) GetClientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	return r.cert.Load(), nil
}

// Reloading makes cfg take its certificate from r on every handshake
// (a server's GetCertificate, and a client's GetClientCertificate when
// client is set) instead of cfg.Certificates, and returns cfg.
func Reloading(cfg *tls.Config, r *Reloader, client bool) *tls.Config {
	cfg.Certificates = nil
	if client {
		cfg.GetClientCertificate = r.GetClientCertificate
	} else {
		cfg.GetCertificate = r.GetCertificate
	}
	return cfg
}

// String names the files: "CERT (key KEY)".
func (r *Reloader) String() string { return r.certFile + " (key " + r.keyFile + ")" }
