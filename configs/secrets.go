package configs

import "strings"

// readPasswords loads password_file (and token_file) settings, so a secret can live in a file only
// the daemon's user reads (or a systemd credential) instead of the shared config.
func readPasswords(f files, r *report, d *Daemon) {
	for _, s := range []struct {
		path, value string
		file, pw    *string
	}{
		{"broker.password_file", "password", &d.Broker.PasswordFile, &d.Broker.Password},
		{"upstream.password_file", "password", &d.Upstream.PasswordFile, &d.Upstream.Password},
		{"upstream.token_file", "token", &d.Upstream.NATS.TokenFile, &d.Upstream.NATS.Token},
		{"fleet.kv.password_file", "password", &d.Fleet.KV.PasswordFile, &d.Fleet.KV.Password},
		{"fleet.kv.token_file", "token", &d.Fleet.KV.TokenFile, &d.Fleet.KV.Token},
	} {
		if *s.file == "" {
			continue
		}
		if *s.pw != "" {
			r.at(s.path, "set %s or %s_file, not both", s.value, s.value)
			continue
		}
		data, err := f.read(*s.file)
		if err != nil {
			r.at(s.path, "cannot read %s: %v", *s.file, cause(err))
			continue
		}
		// Files written by editors and echo end in a newline that is not part of it.
		*s.pw = strings.TrimRight(string(data), "\r\n")
	}
}
