package configs

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// TLS names the files of a TLS connection. Relative paths are resolved
// against the daemon file's directory when loading.
type TLS struct {
	CA                 string // PEM bundle of the CAs to trust; "" = the system pool
	Cert               string // PEM client certificate; needs Key
	Key                string // PEM private key of Cert
	InsecureSkipVerify bool
}

// set reports whether any TLS setting was given.
func (t TLS) set() bool {
	return t.CA != "" || t.Cert != "" || t.Key != "" || t.InsecureSkipVerify
}

// Config loads the files into a tls.Config, or returns nil when nothing is
// set (the ssl://, tls:// and wss:// schemes then use the system defaults).
func (t TLS) Config() (*tls.Config, error) {
	if !t.set() {
		return nil, nil
	}
	cfg := &tls.Config{InsecureSkipVerify: t.InsecureSkipVerify, MinVersion: tls.VersionTLS12}
	if t.CA != "" {
		pool, err := loadCA(t.CA)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if t.Cert != "" || t.Key != "" {
		pair, err := loadPair(t.Cert, t.Key)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

func loadCA(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("the CA file %s holds no PEM certificate", path)
	}
	return pool, nil
}

func loadPair(cert, key string) (tls.Certificate, error) {
	if cert == "" || key == "" {
		return tls.Certificate{}, fmt.Errorf("a client certificate needs both cert and key")
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("loading the client certificate %s and key %s: %w", cert, key, err)
	}
	return pair, nil
}
