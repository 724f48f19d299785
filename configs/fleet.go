package configs

import (
	"fmt"
	"regexp"
	"strings"
)

// Fleet is where a fleet of gateways keeps shared configuration.
type Fleet struct {
	KV FleetKV
}

// FleetKV is a NATS JetStream key-value bucket holding device files for many
// gateways (see FleetKeys for the key layout). With URL set edged watches its
// own keys and the shared ones and applies their device files live.
type FleetKV struct {
	URL    string // nats://host:4222, or a comma-separated list; "" = off
	Bucket string
	Prefix string // the first key tokens of every key edged reads or writes
	// Host names this gateway in the keys; it defaults to the host name, and
	// tests set it to run two gateways on one machine.
	Host string
	// Credentials, one way at most, as for a NATS upstream. Relative file paths
	// are resolved against the daemon file's directory.
	Username, Password, PasswordFile string
	Token, TokenFile                 string
	NKeySeedFile, CredsFile          string
	TLS                              TLS
}

// Enabled reports whether the gateway takes device files from a fleet bucket.
func (k FleetKV) Enabled() bool { return k.URL != "" }

const (
	DefaultFleetBucket = "edged-fleet"
	DefaultFleetPrefix = "edged"
	// FleetAllHost is the host token of the device files every gateway takes; no
	// gateway may be called that.
	FleetAllHost = "all"
)

func fleetSchema(k *FleetKV) binder {
	return mapping(field{"kv", mapping(
		field{"url", str(&k.URL)},
		field{"bucket", str(&k.Bucket)},
		field{"prefix", str(&k.Prefix)},
		field{"host", str(&k.Host)},
		field{"username", str(&k.Username)},
		field{"password", str(&k.Password)},
		field{"password_file", str(&k.PasswordFile)},
		field{"token", str(&k.Token)},
		field{"token_file", str(&k.TokenFile)},
		field{"nkey_seed_file", str(&k.NKeySeedFile)},
		field{"creds_file", str(&k.CredsFile)},
		field{"tls", tlsSchema(&k.TLS)},
	)})
}

func applyFleetDefaults(p positions, k *FleetKV) {
	or(p, "fleet.kv.bucket", &k.Bucket, DefaultFleetBucket)
	or(p, "fleet.kv.prefix", &k.Prefix, DefaultFleetPrefix)
	or(p, "fleet.kv.host", &k.Host, hostname())
}

var (
	bucketRe    = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	keyTokensRe = regexp.MustCompile(`^[-/_=a-zA-Z0-9]+(\.[-/_=a-zA-Z0-9]+)*$`)
	// fileNameRe is a device file name that is also valid as the last key tokens.
	fileNameRe = regexp.MustCompile(`^[-_=a-zA-Z0-9]+(\.[-_=a-zA-Z0-9]+)*\.ya?ml$`)
)

func (d *Daemon) validateFleet(r *report) {
	k := d.Fleet.KV
	if !k.Enabled() {
		if r.pos.has("fleet.kv") {
			for _, f := range []string{"bucket", "prefix", "host", "username", "password", "password_file", "token",
				"token_file", "nkey_seed_file", "creds_file", "tls"} {
				if r.pos.has("fleet.kv." + f) {
					r.at("fleet.kv."+f, "is set but fleet.kv.url is not: the fleet bucket is off")
				}
			}
		}
		return
	}
	r.natsURL("fleet.kv.url", k.URL)
	if r.required("fleet.kv.bucket", k.Bucket) && !bucketRe.MatchString(k.Bucket) {
		r.at("fleet.kv.bucket", "%q is not a key-value bucket name: only letters, digits, '-' and '_'", k.Bucket)
	}
	if r.required("fleet.kv.prefix", k.Prefix) && !keyTokensRe.MatchString(k.Prefix) {
		r.at("fleet.kv.prefix", "%q is not valid in a key: letters, digits, '-', '/', '_' and '=' in tokens separated by single '.'", k.Prefix)
	}
	if r.required("fleet.kv.host", k.Host) && k.Host == FleetAllHost {
		r.at("fleet.kv.host", "%q is reserved for the device files of every gateway; set another host name", FleetAllHost)
	}
	r.natsAuth("fleet.kv", k.Username+k.Password, k.Token, k.NKeySeedFile, k.CredsFile)
	r.tls("fleet.kv", k.URL, k.TLS)
}

// FleetKeys is the layout of a fleet bucket. NATS KV keys are subjects: '.'
// separates tokens and a watch filter's wildcards match whole tokens only, so the
// levels of a path are tokens:
//
//	{prefix}.{host}.devices.{file}   a gateway's device file, e.g. edged.gw-1.devices.boiler.yaml
//	{prefix}.all.devices.{file}      a device file every gateway takes
//	{prefix}.{host}.status           what the gateway applied, written by edged
//
// A gateway watches {prefix}.{host}.devices.> and {prefix}.all.devices.>, so it
// receives only its own files, and NATS permissions on $KV.{bucket}.{prefix}.{host}.>
// can keep it there. The host is one token: characters other than letters, digits,
// '-', '_' and '/' are written =XX ("gw1.example.com" is gw1=2Eexample=2Ecom).
type FleetKeys struct{ Prefix string }

// HostToken is host escaped to one key token.
func HostToken(host string) string {
	var b strings.Builder
	for _, c := range []byte(host) {
		switch {
		case c == '-' || c == '_' || c == '/' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "=%02X", c)
		}
	}
	return b.String()
}

// UnescapeHostToken reverses HostToken; a token it did not make is returned as is.
func UnescapeHostToken(tok string) string {
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		var c byte
		if tok[i] == '=' && i+2 < len(tok) {
			if _, err := fmt.Sscanf(tok[i+1:i+3], "%02X", &c); err == nil {
				b.WriteByte(c)
				i += 2
				continue
			}
		}
		b.WriteByte(tok[i])
	}
	return b.String()
}

// Devices is the watch filter of host's device files.
func (f FleetKeys) Devices(host string) string {
	return f.Prefix + "." + HostToken(host) + ".devices.>"
}

// Shared is the watch filter of the device files of every gateway.
func (f FleetKeys) Shared() string { return f.Prefix + "." + FleetAllHost + ".devices.>" }

// Device is the key of host's device file file (a base name); host FleetAllHost
// is every gateway.
func (f FleetKeys) Device(host, file string) string {
	if host != FleetAllHost {
		host = HostToken(host)
	}
	return f.Prefix + "." + host + ".devices." + file
}

// Status is the key under which host's edged reports what it applied.
func (f FleetKeys) Status(host string) string { return f.Prefix + "." + HostToken(host) + ".status" }

// StatusHost is the host whose status key is key, or false if key is none.
func (f FleetKeys) StatusHost(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, f.Prefix+".")
	if !ok {
		return "", false
	}
	tok, ok := strings.CutSuffix(rest, ".status")
	if !ok || tok == "" || strings.Contains(tok, ".") {
		return "", false
	}
	return UnescapeHostToken(tok), true
}

// File is the host (FleetAllHost for every gateway) and device file name of a
// device key; ok is false for a key that is no device file.
func (f FleetKeys) File(key string) (host, file string, ok bool) {
	rest, ok := strings.CutPrefix(key, f.Prefix+".")
	if !ok {
		return "", "", false
	}
	tok, file, ok := strings.Cut(rest, ".devices.")
	if !ok || tok == "" || strings.Contains(tok, ".") || !fileNameRe.MatchString(file) {
		return "", "", false
	}
	return UnescapeHostToken(tok), file, true
}

// CheckFleetFileName says why name (a device file's base name) cannot be the last
// tokens of a key, or returns nil.
func CheckFleetFileName(name string) error {
	if !fileNameRe.MatchString(name) {
		return fmt.Errorf("%q cannot name a key: a fleet device file is named with letters, digits, '-', '_' and '=' in parts separated by single '.', ending in .yaml or .yml", name)
	}
	return nil
}
