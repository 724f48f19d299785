package configs

import "reflect"

// RestartNeeded names the daemon-file settings (data_dir, broker, limits, ...) that
// differ between the running config and a new one. edged applies none of them live:
// each is wired into the store, the broker connection or every actor at start, so a
// reload that changes any of them is refused whole rather than half applied.
func RestartNeeded(old, new *Daemon) []string {
	var names []string
	for _, s := range []struct {
		name string
		a, b any
	}{
		{"data_dir", old.DataDir, new.DataDir},
		{"durability", old.Durability, new.Durability},
		{"commit_interval", old.CommitInterval, new.CommitInterval},
		{"commit_on_result", old.CommitOnResult, new.CommitOnResult},
		{"dedup_ttl", old.DedupTTL, new.DedupTTL},
		{"devices_dir", old.DevicesDir, new.DevicesDir},
		{"log", old.Log, new.Log},
		{"http", old.HTTP, new.HTTP},
		{"metrics", old.Metrics, new.Metrics},
		{"limits", old.Limits, new.Limits},
		{"broker", old.Broker, new.Broker},
		{"upstream", old.Upstream, new.Upstream},
		{"fleet", old.Fleet, new.Fleet},
	} {
		if !reflect.DeepEqual(s.a, s.b) {
			names = append(names, s.name)
		}
	}
	return names
}
