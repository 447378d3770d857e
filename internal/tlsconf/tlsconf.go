// Package tlsconf turns PEM files named on the command line into TLS
// configurations, for the TLS listener and the TLS client sides of kwire
// (kwire proxy, kwire call).
package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
)

// Server is the configuration of a TLS listener presenting the
// certificate chain in certFile with the private key in keyFile (PEM; the
// chain's first certificate is the server's). With clientCAFile, clients
// must present a certificate signed by one of the CAs in it
// (tls.RequireAndVerifyClientCert); without, none is asked for. The
// minimum version is TLS 1.2.
//
// Errors name the file and what is wrong with it: unreadable, no PEM
// certificate in it, a key that does not match the certificate.
func Server(certFile, keyFile, clientCAFile string) (*tls.Config, error) {
	if certFile == "" || keyFile == "" {
		return nil, errors.New("a TLS listener needs both a certificate and a key file")
	}
	cert, err := keyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	c := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if clientCAFile != "" {
		pool, err := certPool(clientCAFile)
		if err != nil {
			return nil, err
		}
		c.ClientCAs, c.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return c, nil
}

// Client is the configuration of a TLS client. It verifies the server's
// certificate with the CAs in caFile (PEM; the system's roots when "")
// against serverName (when "", crypto/tls takes the host of the address
// dialled, see tls.Dial). certFile and keyFile, given together, are the
// client's certificate for servers that ask for one (mutual TLS).
// insecure skips verifying the server's certificate altogether
// (tls.Config.InsecureSkipVerify). The minimum version is TLS 1.2.
//
// Errors name the file and what is wrong with it.
func Client(caFile, serverName, certFile, keyFile string, insecure bool) (*tls.Config, error) {
	c := &tls.Config{ServerName: serverName, InsecureSkipVerify: insecure, MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pool, err := certPool(caFile)
		if err != nil {
			return nil, err
		}
		c.RootCAs = pool
	}
	switch {
	case certFile != "" && keyFile != "":
		cert, err := keyPair(certFile, keyFile)
		if err != nil {
			return nil, err
		}
		c.Certificates = []tls.Certificate{cert}
	case certFile != "":
		return nil, fmt.Errorf("client certificate %s: no key file given with it", certFile)
	case keyFile != "":
		return nil, fmt.Errorf("client key %s: no certificate file given with it", keyFile)
	}
	return c, nil
}

// keyPair loads a certificate chain and its key, saying which file is at
// fault.
func keyPair(certFile, keyFile string) (tls.Certificate, error) {
	cb, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certificate: %w", err)
	}
	kb, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("key: %w", err)
	}
	if _, err := pemCerts(certFile, cb); err != nil {
		return tls.Certificate{}, err
	}
	b, _ := pem.Decode(kb)
	if b == nil {
		return tls.Certificate{}, fmt.Errorf("key %s: no PEM block in it", keyFile)
	}
	// PKCS #8 encrypted ("ENCRYPTED PRIVATE KEY") or a legacy encrypted
	// PEM block (a Proc-Type header).
	if b.Type == "ENCRYPTED PRIVATE KEY" || b.Headers["Proc-Type"] != "" {
		return tls.Certificate{}, fmt.Errorf("key %s: encrypted private keys are not supported (decrypt it with openssl pkey -in %s -out KEY.pem)", keyFile, keyFile)
	}
	cert, err := tls.X509KeyPair(cb, kb)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certificate %s with key %s: %w", certFile, keyFile, err)
	}
	return cert, nil
}

// certPool reads the CA certificates of a PEM file.
func certPool(file string) (*x509.CertPool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("CA certificates: %w", err)
	}
	certs, err := pemCerts(file, b)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

// pemCerts parses every CERTIFICATE block of a PEM file; a file without
// one, or with a block that does not parse, is an error naming the file
// and the block (from 1).
func pemCerts(file string, b []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for n := 1; ; n++ {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: PEM block %d: %w", file, n, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s: no PEM certificate in it", file)
	}
	return certs, nil
}

// ForAddr returns cfg when it names a server, else a copy whose ServerName
// is the host of addr ("host:port"; addr itself when it has no port): what
// a client dialling addr checks the certificate against.
func ForAddr(cfg *tls.Config, addr string) *tls.Config {
	if cfg.ServerName != "" {
		return cfg
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	cfg = cfg.Clone()
	cfg.ServerName = host
	return cfg
}
