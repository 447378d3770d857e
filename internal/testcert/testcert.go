// Package testcert makes a certificate authority and leaf certificates at
// test time (crypto/x509, ECDSA P-256), written as PEM files under the
// test's t.TempDir().
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// cas numbers the CAs made, so that two CAs of one test have different
// names.
var cas atomic.Int64

// CA is a certificate authority made for one test.
type CA struct {
	// CertFile is the CA certificate (PEM).
	CertFile string
	// Cert is the CA certificate, Key its private key.
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	// Pool holds Cert alone.
	Pool *x509.CertPool

	t            testing.TB
	dir          string
	serial       atomic.Int64
	defaultHosts []string
}

// New makes a CA valid for an hour around now, named after the test, with
// its certificate written to CertFile. A leaf made without hosts of its
// own gets hosts (DNS names, or IP addresses when they parse as such).
// Failures end the test.
func New(t testing.TB, hosts ...string) *CA {
	t.Helper()
	ca := &CA{t: t, dir: t.TempDir()}
	ca.Key = newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: fmt.Sprintf("kwire test CA %d for %s", cas.Add(1), t.Name())},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	ca.serial.Store(1)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &ca.Key.PublicKey, ca.Key)
	if err != nil {
		t.Fatal(err)
	}
	if ca.Cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	ca.Pool = x509.NewCertPool()
	ca.Pool.AddCert(ca.Cert)
	ca.CertFile = filepath.Join(ca.dir, "ca.pem")
	writePEM(t, ca.CertFile, "CERTIFICATE", der)
	ca.defaultHosts = hosts
	return ca
}

// Leaf makes a certificate named name signed by the CA, usable by servers
// and clients, for hosts (DNS names or IP addresses; the hosts given to
// New when none). It writes name.pem and name-key.pem (PKCS #8) and
// returns their paths. Failures end the test.
func (ca *CA) Leaf(name string, hosts ...string) (certFile, keyFile string) {
	t := ca.t
	t.Helper()
	if len(hosts) == 0 {
		hosts = ca.defaultHosts
	}
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(ca.serial.Add(1)),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile = filepath.Join(ca.dir, name+".pem")
	keyFile = filepath.Join(ca.dir, name+"-key.pem")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "PRIVATE KEY", kder)
	return certFile, keyFile
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func writePEM(t testing.TB, path, typ string, der []byte) {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
