package configs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeCert writes a self-signed certificate and its key as PEM files in dir.
func writeCert(t testing.TB, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "edged test"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<33, 0), IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	for file, block := range map[string]*pem.Block{certFile: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile
}

func TestTLSConfigLoadsTheFiles(t *testing.T) {
	dir := t.TempDir()
	cert, key := writeCert(t, dir)
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		tls     TLS
		wantNil bool
		wantErr string
	}{
		{name: "nothing set gives no config", tls: TLS{}, wantNil: true},
		{name: "a CA and a client pair load", tls: TLS{CA: cert, Cert: cert, Key: key}},
		{name: "skipping verification alone gives a config", tls: TLS{InsecureSkipVerify: true}},
		{name: "a CA file without PEM is refused", tls: TLS{CA: notPEM}, wantErr: "holds no PEM certificate"},
		{name: "a cert without its key is refused", tls: TLS{Cert: cert}, wantErr: "needs both cert and key"},
		{name: "a key that is not a key is refused", tls: TLS{Cert: cert, Key: notPEM}, wantErr: "loading the client certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := tt.tls.Config()
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Config() error = %v, want one containing %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatalf("Config(): %v", err)
			case tt.wantNil != (cfg == nil):
				t.Fatalf("Config() = %v, want nil: %v", cfg, tt.wantNil)
			case tt.tls.CA != "" && (cfg.RootCAs == nil || len(cfg.Certificates) != 1):
				t.Fatalf("Config() = %+v, want the CA pool and one certificate", cfg)
			}
		})
	}
}

func TestTLSPathsAreTakenFromTheDaemonFile(t *testing.T) {
	dir := t.TempDir()
	writeCert(t, dir)
	if err := os.MkdirAll(filepath.Join(dir, "devices"), 0o755); err != nil {
		t.Fatal(err)
	}
	daemon := "broker:\n  url: ssl://gw:8883\n  tls: {ca: client.crt, cert: client.crt, key: client.key}\n"
	for name, body := range map[string]string{"edged.yaml": daemon, "devices/d.yaml": minimalDevice} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Load(filepath.Join(dir, "edged.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Broker.TLS.Key != filepath.Join(dir, "client.key") {
		t.Errorf("key = %q, want it next to the daemon file", d.Broker.TLS.Key)
	}
	if cfg, err := d.Broker.TLS.Config(); err != nil || cfg == nil {
		t.Errorf("Config() = %v, %v", cfg, err)
	}
}
